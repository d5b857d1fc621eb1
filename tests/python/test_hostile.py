"""Hostile input, interruption and faults (issue 21): refused before it runs, stopped cleanly,
never an internal error. Interruption is tested with real processes and signals; every wait
is bounded (a hang fails the test), none is a timing assertion."""

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from zvmlab import _engine, scenario
from zvmlab.errors import InputError
from zvmlab.output import plain

from conftest import ROOT, zvmlab

LONG = """[system]
processors = 2
[run]
duration = "1000h"
interval = "60s"
[[guest]]
userid = "U"
count = 4
workload = { kind = "transactional", think = "10ms", cpu = "2ms" }
"""

SHORT = """title = "{title}"
[system]
processors = 1
[run]
duration = "2s"
interval = "1s"
[[guest]]
userid = "{userid}"
workload = {{ kind = "cpu-bound" }}
"""


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def _start(*args, cwd=None, **env):
    return subprocess.Popen([sys.executable, "-m", "zvmlab", *map(str, args)], cwd=cwd, env=_env(**env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_line(stream, needle: str, limit: int = 2000) -> None:
    for _ in range(limit):
        line = stream.readline()
        if not line:
            raise AssertionError(f"stream ended before {needle!r}")
        if needle in line:
            return
    raise AssertionError(f"no {needle!r}")


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, IndexError, ValueError):
                pass
    return out


def _gone(pids: list[int], bound_s: float = 15.0) -> bool:
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{p}").exists() and "zombie" not in _state(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def _state(pid: int) -> str:
    try:
        return "zombie" if (Path(f"/proc/{pid}") / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z" else "alive"
    except OSError:
        return "zombie"


# ------------------------------------------------------------------ class 3: interruption

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals and /proc")
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_stops_a_long_run(tmp_path, sig, code):
    """A 1000-hour run stops on the first Ctrl-C or SIGTERM: exit 128+signal, no traceback, and
    --out leaves nothing behind (no result, no hidden temporary directory)."""
    f = tmp_path / "long.toml"
    f.write_text(LONG)
    p = _start("run", f, "--out", tmp_path / "out", ZVMLAB_PROGRESS="lines")
    _wait_for_line(p.stderr, "long.toml")  # the first progress line: the engine is running
    p.send_signal(sig)
    _, err = p.communicate(timeout=20)
    assert p.returncode == code, err
    assert "Traceback" not in err and "interrupted" in err or "SIGTERM" in err
    assert sorted(x.name for x in tmp_path.iterdir()) == ["long.toml"]


SCRIPT = textwrap.dedent("""
    import sys, time
    from zvmlab.cli import install_signal_handlers, main
    from zvmlab.output import result_dir
    install_signal_handlers()
    mode = sys.argv[1]
    if mode == "result_dir":
        try:
            with result_dir(sys.argv[2]) as d:
                (d / "x").write_text("partial")
                print("ready", flush=True)
                time.sleep(60)
        except KeyboardInterrupt:
            sys.exit(130)
    else:  # a cleanup that hangs: the second interrupt must end it
        try:
            with result_dir(sys.argv[2]) as d:
                print("ready", flush=True)
                time.sleep(60)
        except KeyboardInterrupt:
            print("cleaning", flush=True)
            time.sleep(60)
""")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_temporary_directory_removed_on_signal(tmp_path, sig):
    p = subprocess.Popen([sys.executable, "-c", SCRIPT, "result_dir", str(tmp_path / "out")], env=_env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_line(p.stdout, "ready")
    assert len(list(tmp_path.iterdir())) == 1  # the hidden temporary directory
    p.send_signal(sig)
    p.communicate(timeout=20)
    assert list(tmp_path.iterdir()) == []


def test_second_interrupt_exits_at_once(tmp_path):
    p = subprocess.Popen([sys.executable, "-c", SCRIPT, "hang", str(tmp_path / "out")], env=_env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_line(p.stdout, "ready")
    p.send_signal(signal.SIGINT)
    _wait_for_line(p.stdout, "cleaning")
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=20)
    assert p.returncode == 130 and "exiting now" in err
    assert list(tmp_path.iterdir()) == []  # the temporary directory went too


def _pool_started(p, n: int = 2) -> list[int]:
    """Wait (bounded) until the pool's workers run; returns them."""
    for _ in range(600):
        workers = [c for c in _children(p.pid) if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]
        if len(workers) >= n:
            time.sleep(0.5)  # their initializer has run
            return workers
        assert p.poll() is None, p.communicate()[1]
        time.sleep(0.05)
    raise AssertionError("the pool did not start")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_pool_workers_die_with_the_parent(tmp_path, sig):
    """A sweep of long runs in a 2-process pool: Ctrl-C stops it (130, workers and the resource
    tracker gone); SIGKILL of the parent takes the workers with it."""
    f = tmp_path / "long.toml"
    f.write_text(LONG)
    p = _start("sweep", f, "-p", "seed=1,2,3", "-j", "2", "--store", tmp_path / "st.duckdb")
    workers = _pool_started(p)
    others = [c for c in _children(p.pid) if c not in workers]
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    assert p.returncode == (130 if sig == signal.SIGINT else -9)
    assert "Traceback" not in err
    assert _gone(workers + others), "pool processes outlived the parent"


def test_engine_slicing_does_not_change_results():
    """Runs are cut into wall-time slices: any slicing gives the same summary and monitor bytes."""
    import random

    sc = scenario.loads(SHORT.format(title="t", userid="A").replace('"2s"', '"30s"'), "t.toml")
    cfg = json.dumps(sc.engine_config())
    one = _engine.Simulation(cfg)
    one.run_until(one.end_ns)
    rng = random.Random(5)
    cut = _engine.Simulation(cfg)
    while not cut.finished():
        cut.run_until(cut.now_ns + rng.choice([1, 999, 10**6, 10**9]))
    assert cut.summary_json() == one.summary_json()
    assert cut.monitor_bytes() == one.monitor_bytes()


def test_cgroup_leftovers_of_a_killed_run_are_removed(tmp_path):
    from zvmlab.lab.cgroup_runner import remove_leftovers

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / f"zvmlab-{dead.pid}-1" / "USER0").mkdir(parents=True)
    (tmp_path / f"zvmlab-{dead.pid}-1" / "USER1").mkdir()
    (tmp_path / f"zvmlab-{os.getpid()}-2" / "USER0").mkdir(parents=True)  # a live runner's: kept
    (tmp_path / "other").mkdir()
    said = []
    assert remove_leftovers([tmp_path, tmp_path], say=said.append) == 3
    assert sorted(x.name for x in tmp_path.iterdir()) == ["other", f"zvmlab-{os.getpid()}-2"]
    assert said and "killed" in said[0]


# ------------------------------------------------------------------ class 4: no internal error

@pytest.mark.parametrize("title", ["[/]", "[link=http://example.com]x[/link]", "\x1b]8;;http://e\x1b\\\\x\x1b[2J",
                                   "[bold", "$x^2$"])
def test_hostile_title_is_printed_as_text(tmp_path, title):
    f = tmp_path / "t.toml"
    f.write_text(SHORT.format(title=title.replace("\\", "\\\\").replace("\x1b", "\\u001b"), userid="A$B"))
    p = zvmlab("run", f, "--out", tmp_path / "o")
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout
    assert p.stdout.startswith(plain(title) + "  level")  # shown as written, not interpreted
    html = tmp_path / "r.html"
    p = zvmlab("report", tmp_path / "o", "--format", "html", "--out", html)  # "$" in a userid: not math text
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("userid", ["A\n", "ABCDEFGHI", "", "A B", "A\x1b", "É"])
def test_userids_follow_cps_rules(userid):
    with pytest.raises(InputError, match="userid"):
        scenario.check_userid(userid)
    text = SHORT.format(title="t", userid=userid.replace("\n", "\\n").replace("\x1b", "\\u001b"))
    with pytest.raises(InputError, match="userid"):
        scenario.loads(text, "u.toml")


@pytest.mark.parametrize("text, words", [
    ("[system]\nprocessors = " + "9" * 400, "400-digit"),
    ("[params]\n" + "a." * 20 + "b = 1", "nested too deeply"),
    ("x = " + "[" * 3000 + "]" * 3000, "nested too deeply"),
    ("# " + "x" * (scenario.MAX_SCENARIO_BYTES + 1), "larger than a scenario"),
])
def test_extreme_files_are_refused(text, words):
    with pytest.raises(InputError, match=words) as e:
        scenario.loads(text, "x.toml")
    assert str(e.value).startswith("x.toml")


def test_dev_zero_and_validate_every_file(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text(SHORT.format(title="t", userid="A"))
    bad = tmp_path / "bad.toml"
    bad.write_text(SHORT.format(title="t", userid="A\\n"))
    p = zvmlab("validate", "/dev/zero", bad, good, tmp_path / "missing.toml")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "/dev/zero: larger than a scenario" in p.stderr
    assert "bad.toml:" in p.stderr and "missing.toml: no such file" in p.stderr
    assert "ok " in p.stdout and "good.toml" in p.stdout


def test_a_long_path_stays_whole_on_one_line_in_a_pipe(tmp_path, monkeypatch):
    """CI ran with COLUMNS=80 and a deep temporary directory: the path was broken across two lines."""
    deep = tmp_path.joinpath(*["a-rather-long-directory-name"] * 4)
    deep.mkdir(parents=True)
    good = deep / "good.toml"
    good.write_text(SHORT.format(title="t", userid="A"))
    monkeypatch.setenv("COLUMNS", "80")
    for force in ("", "1"):  # FORCE_COLOR makes rich treat the pipe as a terminal
        monkeypatch.setenv("FORCE_COLOR", force)
        p = zvmlab("validate", good)
        assert p.returncode == 0, p.stderr
        line = re.sub(r"\x1b\[[0-9;]*m", "", p.stdout.splitlines()[0])  # colour codes with FORCE_COLOR
        assert line.startswith(f"ok {good}: level ") and line.endswith(" MB"), (force, p.stdout)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_full_disk_on_stdout():
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "zvmlab", "params", "--json"], stdout=full,
                           stderr=subprocess.PIPE, text=True, env=_env(), timeout=60)
    assert p.returncode == 1 and "No space left" in p.stderr and "Traceback" not in p.stderr


def test_foreign_duckdb_store_is_refused_untouched(tmp_path):
    import duckdb

    db = tmp_path / "theirs.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE runs (a INTEGER)")
    con.execute("INSERT INTO runs VALUES (1)")
    con.close()
    before = db.read_bytes()
    f = tmp_path / "s.toml"
    f.write_text(SHORT.format(title="t", userid="A"))
    p = zvmlab("sweep", f, "-p", "seed=1", "--store", db, "-j", "1")
    assert p.returncode == 2 and "not a zvmlab store" in p.stderr
    assert db.read_bytes() == before


# ------------------------------------------------------------------ class 5: writing

def test_out_writes_through_a_symlink_and_follows_the_umask(tmp_path):
    from zvmlab.output import write_file

    target = tmp_path / "real.txt"
    target.write_text("old")
    target.chmod(0o604)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_file(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o604  # an existing file keeps its mode
    old = os.umask(0o027)
    try:
        write_file(tmp_path / "fresh.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "fresh.txt").stat().st_mode & 0o777 == 0o640
    (tmp_path / "d").mkdir()
    with pytest.raises(InputError, match="not a regular file"):
        write_file(tmp_path / "d", "x")
    write_file("/dev/null", "into a device, never replacing it")
    assert Path("/dev/null").is_char_device()


def test_result_dir_follows_the_umask_and_symlinks(tmp_path):
    from zvmlab.output import result_dir

    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    old = os.umask(0o022)
    try:
        with result_dir(tmp_path / "link", force=True) as d:
            (d / "a").write_text("x")
    finally:
        os.umask(old)
    assert (tmp_path / "link").is_symlink() and (real / "a").read_text() == "x"
    assert real.stat().st_mode & 0o777 == 0o755


# ------------------------------------------------------------------ class 2: admission

def test_a_run_that_would_not_fit_is_refused_before_it_starts(tmp_path):
    """A 1 us monitor interval (about 2 TB of interval data) used to abort on allocation; now a
    located refusal naming run.interval, from run and validate, and from a --max-memory limit."""
    f = tmp_path / "us.toml"
    f.write_text(SHORT.format(title="t", userid="A").replace('interval = "1s"', 'interval = "1us"'))
    for args in (("run", f), ("validate", f)):
        p = zvmlab(*args)
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
        assert f"{f}:6: run.interval: the run needs about" in p.stderr
    ok = tmp_path / "ok.toml"
    ok.write_text(SHORT.format(title="t", userid="A"))
    p = zvmlab("validate", ok)
    assert p.returncode == 0 and "memory about" in p.stdout
    p = zvmlab("run", ok, "--max-memory", "1M")
    assert p.returncode == 2 and "above 1.0 MB (--max-memory)" in p.stderr


def test_estimate_grows_with_what_the_engine_keeps():
    from zvmlab import admission

    base = SHORT.format(title="t", userid="A")
    one = admission.estimate(scenario.loads(base, "a.toml")).bytes
    more = admission.estimate(scenario.loads(base.replace('duration = "2s"', 'duration = "200s"'), "a.toml")).bytes
    assert more - one == 198 * (admission.PER_INTERVAL + admission.PER_INTERVAL_USER)


@pytest.mark.parametrize("old, new, field", [
    ('[[guest]]', '[storage]\nreal = "5T"\n[[guest]]', "storage.real"),
    ('[[guest]]', '[storage]\nreal = "99999999999T"\n[[guest]]', "storage.real"),
    ('userid = "A"', 'userid = "A"\ncount = 20\nstorage = "1T"\nrefs = { pattern = "uniform", range = "1T" }',
     "guest[0].storage"),
])
def test_sizes_beyond_the_model_are_located(tmp_path, old, new, field):
    from conftest import assert_bad_scenario

    base = SHORT.format(title="t", userid="A")
    if "refs" in new:
        base = base.replace("[[guest]]", '[storage]\nreal = "1G"\npaging_volumes = [{ type = "eckd", size = "2G" }]'
                                         "\n[[guest]]")
    assert_bad_scenario(tmp_path, base, old, new, field, "")


# ------------------------------------------------------------------ class 6: located messages

def test_engine_refusal_names_the_field_and_file(tmp_path):
    from zvmlab.engine import json_path_at, located

    cfg = {"processors": 2, "guests": [{"userid": "A"}, {"userid": "B,\"]", "storage_pages": "x"}]}
    text = json.dumps(cfg)
    assert json_path_at(text, text.index('"x"')) == "guests[1].storage_pages"
    try:
        _engine.Simulation(text)
    except _engine.EngineError as e:
        err = located(e, text)
    assert err.field.startswith("engine config") and "refused" in err.message


@pytest.mark.parametrize("key, value", [("cpu_ns", 351919.5), ("cpu_ns", "x"), ("servers", 5), ("dist", 3),
                                        ("window", "eight")])
def test_a_bad_value_inside_a_workload_names_its_own_key(key, value):
    """Serde reports a bad value of an internally tagged object (the workload) at the object's
    end, where the path is its last key; the message names the key that holds the value."""
    from zvmlab import engine, scenario

    cfg = scenario.load(ROOT / "scenarios" / "replicate" / "b7-apache.toml").engine_config()
    cfg["guests"][0]["workload"][key] = value
    with pytest.raises(InputError) as e:
        engine.simulate(cfg)
    assert e.value.field == f"engine config guests[0].workload.{key}"


def test_client_bytes_beyond_range_is_located(tmp_path):
    from conftest import assert_bad_scenario

    base = SHORT.format(title="t", userid="A").replace('workload = { kind = "cpu-bound" }',
                                                        'workload = { kind = "client", cpu = "1ms", bytes = "2K" }')
    assert_bad_scenario(tmp_path, base, '"2K"', '"99999999999T"', "guest[0].workload.bytes", "out of range")


# ------------------------------------------------------------------ class 1: parameter ranges

def test_every_parameter_has_a_range_holding_its_default():
    from zvmlab import engine

    for p in engine.params():
        assert p["min"] <= p["default"] <= p["max"], p["name"]


@pytest.mark.parametrize("name, value", [("dasd.eckd.disconnect_ms", 1e300), ("cpu.clock_ghz", 0),
                                         ("srm.dspslice", 0), ("srm.iabias_duration", 2**31), ("cpu.clock_ghz", "nan")])
def test_parameters_out_of_range_are_refused(tmp_path, name, value):
    """Issue 21's impossible results (3.7e11 % busy, 100 % system on 50 % busy processors, T/V
    2654) came from such values: now one located message from the loader, and the engine
    refuses the same."""
    text = SHORT.format(title="t", userid="A").replace("[[guest]]", f'[params]\n"{name}" = {value}\n[[guest]]')
    f = tmp_path / "p.toml"
    f.write_text(text)
    p = zvmlab("run", f)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert f"p.toml:8: params.{name}: " in p.stderr and "out of range" in p.stderr and " to " in p.stderr
    cfg = scenario.loads(SHORT.format(title="t", userid="A"), "p.toml").engine_config()
    cfg["params"] = {name: float(value)}
    words = name.replace(".", r"\.") + r".*must be within \[" if value != "nan" else "expected value"  # JSON has no NaN
    with pytest.raises(_engine.EngineError, match=words):
        _engine.Simulation(json.dumps(cfg))


def _cgroup_skip() -> str | None:
    from zvmlab.lab import cgroup_runner

    return cgroup_runner.available()


@pytest.mark.skipif(_cgroup_skip() is not None, reason="the cgroup runner needs root and cgroups")
@pytest.mark.parametrize("sig, delay", [(signal.SIGTERM, 0.0), (signal.SIGTERM, 0.5), (signal.SIGKILL, 0.5)])
def test_cgroup_runner_leaves_no_cgroup(tmp_path, sig, delay):
    """SIGTERM: the runner removes its cgroups itself (exit 143). SIGKILL: its burners die with
    it, and the next start removes the cgroups it left, with a note."""
    from zvmlab.lab.cgroup_runner import _find_cgroup

    roots = [r for r in _find_cgroup()[1:] if r is not None]

    def ours():
        return [d for r in roots for d in r.iterdir() if d.is_dir() and d.name.startswith("zvmlab-")]

    f = tmp_path / "cg.toml"
    f.write_text(SHORT.format(title="t", userid="A").replace('duration = "2s"', 'duration = "30s"'))
    before = ours()
    p = _start("check", f, "--runner", "cgroup")
    for _ in range(400):
        if len(ours()) > len(before):
            break
        time.sleep(0.05)
    time.sleep(delay)  # 0: while the groups and their burners are being set up
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    assert p.returncode == (143 if sig == signal.SIGTERM else -9), err
    if sig == signal.SIGKILL:
        assert len(ours()) > len(before)  # SIGKILL cannot be caught: the groups stay, for now
        q = _start("check", f, "--runner", "cgroup", "--duration", "1s", "--interval", "1s")
        _, err = q.communicate(timeout=60)
        assert "left behind by a killed zvmlab run" in err, err
    assert ours() == before


def test_file_names_with_markup_are_printed_as_text(tmp_path):
    d = tmp_path / "a[bold]b"
    d.mkdir()
    f = d / "s[red].toml"
    f.write_text(SHORT.format(title="", userid="A"))
    for args in (("validate", f), ("run", f, "--out", d / "o[link=x]"), ("sweep", f, "-p", "seed=1", "-j", "1",
                                                                       "--store", d / "st[red].duckdb")):
        p = zvmlab(*args)
        assert p.returncode == 0, (args, p.stderr)
        assert "a[bold]b" in p.stdout.replace("\n", ""), p.stdout


def test_cgroup_worker_exits_when_its_runner_is_gone():
    """A burner whose runner closed its stdin without saying "go" (the runner was stopped while
    starting it) exits at once instead of burning a processor until the run's end."""
    from zvmlab.lab.cgroup_runner import _WORKER

    w = subprocess.Popen([sys.executable, "-c", _WORKER, "1.0", "0.01", str(time.time() + 60)],
                         stdin=subprocess.PIPE, text=True)
    w.stdin.close()
    assert w.wait(timeout=20) == 0


@pytest.mark.parametrize("other_thread", [False, True])
def test_stop_signals_held_while_a_worker_starts(other_thread):
    """A SIGTERM that arrives while a worker is being started is delivered after it is tracked,
    also when another thread of the process (a progress bar's) could take the signal."""
    import threading

    from zvmlab.lab.cgroup_runner import _signals_held

    seen = []
    stop = threading.Event()
    t = threading.Thread(target=stop.wait, daemon=True)
    if other_thread:
        t.start()
    old = signal.signal(signal.SIGTERM, lambda s, f: seen.append(s))
    try:
        with _signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            held = list(seen)
        time.sleep(0.05)
    finally:
        signal.signal(signal.SIGTERM, old)
        stop.set()
    assert held == [] and seen == [signal.SIGTERM]


def test_no_page_moved_gives_no_cp_per_move():
    """VIRSTOR's storage fits in real memory for its first seconds: no page moves, so CP time per
    page moved is no figure (null, 'n/a'), not all CP time over one move."""
    p = zvmlab("run", ROOT / "scenarios" / "virstor-8x128g.toml", "--duration", "2s", "--json")
    assert p.returncode == 0, p.stderr
    st = json.loads(p.stdout)["storage"]
    assert st["pages_read"] + st["pages_written"] == 0 and st["cp_us_per_move"] is None
    p = zvmlab("run", ROOT / "scenarios" / "virstor-8x128g.toml", "--duration", "2s")
    assert "CP n/a per move (no page moved)" in p.stdout


def test_messages_point_the_right_way(tmp_path):
    """A guest of 8T and one of 9T get the same limit (1T); a sweep point's bad value names
    --param and no line of a text the sweep wrote; a known parameter with a bad value is the
    value's fault."""
    for size in ("8T", "9T"):
        f = tmp_path / f"s{size}.toml"
        f.write_text(SHORT.format(title="t", userid="A").replace('userid = "A"', f'userid = "A"\nstorage = "{size}"'))
        p = zvmlab("validate", f)
        assert p.returncode == 2 and "give at most 1T" in p.stderr, p.stderr
    p = zvmlab("sweep", ROOT / "scenarios" / "showcase.toml", "-p", "processors=2,0")
    assert p.returncode == 2 and "[sweep processors=0]: --param: system.processors" in p.stderr, p.stderr
    p = zvmlab("run", ROOT / "scenarios" / "showcase.toml", "--param", "cpu.cpi_cp=abc")
    assert p.returncode == 2 and "its value must be a number" in p.stderr and "[0.5, 20.0]" in p.stderr


def test_a_level_without_smt_or_cpu_pools_refuses_them(tmp_path):
    """SET MULTITHREAD and CPU pools came with z/VM 6.3: the loader and the engine refuse them
    before it (the switches multithreading and cpu_pools), with --level too."""
    from zvmlab import contract
    from zvmlab.scenario import loads

    pool = (ROOT / "scenarios" / "cpupool.toml").read_text()
    old = re.sub(r'(?m)^level = .*$', 'level = "zvm-5.3"', pool)
    f = tmp_path / "cp53.toml"
    f.write_text(old)
    p = zvmlab("validate", f)
    assert p.returncode == 2 and "no CPU pools" in p.stderr, p.stderr
    cfg = loads(pool, "cp.toml").engine_config()
    assert contract.validate(cfg) is None
    assert "no CPU pools" in (contract.validate(dict(cfg, level="zvm-5.3")) or "")
    p = zvmlab("run", ROOT / "scenarios" / "smt-drawers.toml", "--level", "vmesa-2.3.0", "--duration", "1s")
    assert p.returncode == 2 and "--level: level vmesa-2.3.0 has no multithreading" in p.stderr, p.stderr
    p = zvmlab("run", ROOT / "scenarios" / "smt-drawers.toml", "--level", "zvm-6.3-compat", "--duration", "1s")
    assert p.returncode == 0, p.stderr
