"""Audit 22: hostile input found on a Monday-morning pass over every command. Each case failed
(an internal error, exit 3, or bad input noticed only after the runs) before its fix."""

import json
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from conftest import ROOT, SHOWCASE, zvmlab

TINY = """[system]
processors = 1
[run]
duration = "{duration}"
interval = "{interval}"
[[guest]]
userid = "U"
workload = {{ kind = "transactional", think = "10ms", cpu = "2ms" }}
"""


def _one_message(p, *words):
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr, p.stderr
    assert p.stderr.startswith("zvmlab: error: ") and p.stderr.count("\n") == 1, p.stderr
    for w in words:
        assert w in p.stderr, (w, p.stderr)


def test_out_that_cannot_be_written_is_refused_before_the_run(tmp_path):
    """`run --out` onto an existing directory (without --force) or where nothing can be made was
    refused only after the whole simulation (a 300 h run: a minute lost)."""
    f = tmp_path / "long.toml"
    f.write_text(TINY.format(duration="3000h", interval="1h"))  # minutes of simulation if it started
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("keep")
    t0 = time.monotonic()
    _one_message(zvmlab("run", f, "--out", full), str(full), "not empty", "--force")
    _one_message(zvmlab("run", f, "--out", "/proc/zvmlab-audit"), "/proc/zvmlab-audit", "cannot create")
    assert time.monotonic() - t0 < 60, "refused before the run"
    assert (full / "x").read_text() == "keep"


def test_out_onto_the_current_directory_is_refused(tmp_path):
    """`run --out . --force` tried to rename the working directory: exit 3 (EBUSY)."""
    f = tmp_path / "s.toml"
    f.write_text(TINY.format(duration="2s", interval="1s"))
    (tmp_path / "keep").write_text("x")
    for out in (".", "..", "/"):
        p = zvmlab("run", f, "--out", out, "--force", cwd=tmp_path)
        _one_message(p, "current directory", "--out")
    assert (tmp_path / "keep").read_text() == "x"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["keep", "s.toml"]


@pytest.mark.parametrize("args", [
    ["replicate", "--only", "A1", "--no-store", "--json", "/proc/zvmlab-audit.json"],
    ["replicate", "--only", "A1", "--no-store", "--markdown", "/nonexistent-dir/x.md"],
    ["scaling", str(SHOWCASE), "--cores", "1,2", "--duration", "1s", "--plot", "/proc/zvmlab-audit.png"],
    ["check", str(SHOWCASE), "--duration", "2s", "--plot", "/proc/zvmlab-audit.png"],
])
def test_output_files_that_cannot_be_written_are_refused_first(args):
    """replicate --json/--markdown and scaling/check --plot: exit 3 after every run before."""
    p = zvmlab(*args)
    _one_message(p, "cannot write", args[-2])


def test_plots_are_written_whole(tmp_path):
    png, svg = tmp_path / "c.png", tmp_path / "s.svg"
    assert zvmlab("check", SHOWCASE, "--duration", "2s", "--plot", png).returncode == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert zvmlab("scaling", SHOWCASE, "--cores", "1,2", "--duration", "1s", "--plot", svg).returncode == 0
    assert b"<svg" in svg.read_bytes()[:500]
    assert sorted(x.name for x in tmp_path.iterdir()) == ["c.png", "s.svg"]


def test_knee_nan_is_refused():
    """--knee nan passed click's range check: 'at or above nan' in text, exit 3 with --json."""
    p = zvmlab("scaling", SHOWCASE, "--cores", "1,2", "--duration", "1s", "--knee", "nan", "--json")
    _one_message(p, "--knee", "between 0 and 1")


def test_sweep_user_is_checked_before_the_runs(tmp_path):
    """`sweep --user NOPE` made every run and then refused the option."""
    store = tmp_path / "s.duckdb"
    p = zvmlab("sweep", SHOWCASE, "-p", "processors=1,2", "--duration", "1s", "-j", "1", "--user", "NOPE",
               "--store", store)
    _one_message(p, "--user", "NOPE", "USER0")
    assert "runs made" not in p.stderr and not store.exists()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("store")
    s = d / "s.duckdb"
    p = zvmlab("sweep", SHOWCASE, "-p", "processors=1", "--duration", "1s", "-j", "1", "--store", s)
    assert p.returncode == 0, p.stderr
    return s


@pytest.mark.parametrize("sql, words", [
    ("", ["empty"]),
    ("-- a comment", ["empty"]),
    ("select 2147483647::int + 1", ["bad query", "Overflow"]),
    ("select * from read_csv('/nonexistent-zvmlab.csv')", ["bad query", "nonexistent-zvmlab"]),
])
def test_store_query_errors_are_the_querys(store, sql, words):
    """An empty query and an overflow were internal errors (exit 3); a file the query reads
    was reported as a corrupt store."""
    p = zvmlab("store", "query", "--store", store, "--", sql)
    _one_message(p, "SQL", *words)
    assert "corrupt" not in p.stderr


def test_store_query_still_answers(store):
    p = zvmlab("store", "query", "--store", store, "--json", "select count(*) as n from runs")
    assert p.returncode == 0 and json.loads(p.stdout) == [{"n": 1}]


def test_report_on_a_device_says_what_it_is():
    """`report /dev/null` said 'no such file or directory'."""
    for cmd in ("report", "twin"):
        p = zvmlab(cmd, "/dev/null")
        _one_message(p, "/dev/null", "neither a regular file nor a directory")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ports and signals")
def test_serve_on_a_port_in_use_or_a_bad_host(tmp_path):
    """A port in use or an address not of this machine: uvicorn's 'ERROR:' line and exit 3."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        _one_message(zvmlab("serve", tmp_path, "--port", port), "--port", "in use")
    _one_message(zvmlab("serve", tmp_path, "--host", "no such host!"), "--host")
    _one_message(zvmlab("serve", tmp_path, "--host", "192.0.2.1", "--port", "0"), "--host", "192.0.2.1")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ports and signals")
def test_serve_port_0_prints_the_port_it_listens_on(tmp_path):
    import urllib.request

    p = subprocess.Popen([sys.executable, "-m", "zvmlab", "serve", str(tmp_path), "--port", "0"],
                         stderr=subprocess.PIPE, text=True)
    try:
        text = ""
        while not re.search(r"127\.0\.0\.1:\d+/", text):
            line = p.stderr.readline()
            assert line, text
            text += line
        port = int(re.search(r"127\.0\.0\.1:(\d+)/", text).group(1))
        assert port > 0, text
        for _ in range(100):
            try:
                assert urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).status == 200
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("no answer on the printed port")
    finally:
        p.send_signal(signal.SIGINT)
        assert p.wait(30) == 130


@pytest.mark.parametrize("expr, words", [
    ("9**9**9", "power"),            # ran for ever (a number with 370 million digits)
    ("2.0**10000", "power"),         # OverflowError: an internal error
    ("ceil(1e308 * 10)", "infinity"),  # OverflowError: an internal error
    ('"x" * 10**9', "repeated"),     # a gigabyte of text
])
def test_suite_template_expressions_that_cannot_be_computed(tmp_path, expr, words):
    text = (ROOT / "scenarios" / "suites" / "smoke.toml").read_text()
    old = "{{ ceil(cores * 32 * real_factor) }}M"
    assert old in text
    f = tmp_path / "suite.toml"
    f.write_text(text.replace(old, "{{ " + expr + " }}M", 1))
    p = subprocess.run([sys.executable, "-m", "zvmlab", "suite", str(f), "--base", "zvm-6.3", "--compare", "zvm-6.4",
                        "--list"], capture_output=True, text=True, timeout=60)
    _one_message(p, str(f), "family.web.template", "cannot fill in", words)


@pytest.mark.parametrize("args", [
    ["scaling", "{f}", "--cores", "1,2"],
    ["scaling", "{f}", "--cores", "1,2", "--smt", "off,smt2"],
    ["bisect", "{f}", "--base", "zvm-6.3", "--compare", "zvm-6.4", "--metric", "itr"],
    ["check", "{f}"],
    ["check", "{f}", "--level", "zvm-6.3", "--level", "zvm-6.4"],
])
def test_memory_admission_in_scaling_bisect_and_check(tmp_path, args):
    """run, validate, sweep and suite refuse a run estimated above the memory limit; scaling,
    bisect and check ran it (check --interval 1ns on a 2 s run was killed by the OOM killer)."""
    import os

    f = tmp_path / "s.toml"
    f.write_text(TINY.format(duration="1h", interval="10ms"))  # 360,000 intervals: about 12 GB estimated
    env = dict(os.environ, ZVMLAB_MAX_MEMORY="200M")
    p = subprocess.run([sys.executable, "-m", "zvmlab", *[a.format(f=f) for a in args]], capture_output=True,
                       text=True, timeout=120, env=env)
    _one_message(p, str(f), "memory", "run.interval")
    # The fix names only what the command has: no --max-memory on scaling, bisect and check.
    assert "--max-memory" not in p.stderr and "ZVMLAB_MAX_MEMORY=SIZE" in p.stderr


def test_run_names_its_max_memory_option(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(TINY.format(duration="1h", interval="10ms"))
    p = zvmlab("run", f, "--max-memory", "200M")
    _one_message(p, str(f), "memory", "--max-memory")


def test_check_interval_override_is_named_when_it_would_not_fit(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(TINY.format(duration="2s", interval="1s"))
    _one_message(zvmlab("check", f, "--interval", "1ns"), "--interval", "memory")


def test_store_export_interrupted_leaves_no_temporary_file(store, tmp_path, monkeypatch):
    """Ctrl-C during `store export` left a hidden .TABLE.parquet.tmp behind."""
    from zvmlab.lab import store as st_mod

    real = st_mod._x

    def interrupted(con, sql, params=None):
        real(con, sql, params)  # the file is written ...
        raise KeyboardInterrupt  # ... and Ctrl-C arrives before it is renamed

    out = tmp_path / "export"
    with st_mod.Store.open(store, read_only=True) as s:
        monkeypatch.setattr(st_mod, "_x", interrupted)
        with pytest.raises(KeyboardInterrupt):
            s.export_parquet(out)
    assert list(out.iterdir()) == []


def test_report_parquet_interrupted_leaves_no_temporary_file(tmp_path, monkeypatch):
    """Ctrl-C during `report --format parquet` left a hidden .NAME.parquet.tmp behind."""
    import pyarrow.parquet as pq

    from zvmlab.cli import main

    run = tmp_path / "run"
    assert zvmlab("run", SHOWCASE, "--duration", "2s", "--out", run).returncode == 0
    real = pq.write_table

    def interrupted(table, where, *a, **k):
        real(table, where, *a, **k)
        raise KeyboardInterrupt

    monkeypatch.setattr(pq, "write_table", interrupted)
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        with pytest.raises(SystemExit) as e:
            main(["report", str(run), "--format", "parquet", "--out", str(tmp_path / "pq")])
    finally:
        for s, h in saved.items():
            signal.signal(s, h)
    assert e.value.code == 130
    assert list((tmp_path / "pq").iterdir()) == []


def test_scaling_without_transactions_has_no_nan(tmp_path):
    """A series whose first run completes no transaction had ITR / CAF = NaN: 'nan' in the table
    and the sentence, and --json an internal error (NaN is not JSON)."""
    f = tmp_path / "idle.toml"
    f.write_text(TINY.format(duration="1s", interval="1s").replace('think = "10ms"', 'think = "1h"'))
    p = zvmlab("scaling", f, "--cores", "1,2", "--json")
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)
    assert [r["itr_vs_caf"] for r in res["rows"]] == [None, None] and res["knee"]["cores"] is None
    p = zvmlab("scaling", f, "--cores", "1,2")
    assert p.returncode == 0 and "nan" not in p.stdout.lower(), p.stdout
    assert "No ITR at 1 cores" in p.stdout


def test_twin_of_an_idle_guest_is_a_valid_scenario(tmp_path):
    """A guest with no measurable CPU (an idle service machine) became demand = 0, which the
    scenario loader refuses: twin printed an invalid scenario and --what-if failed."""
    f = tmp_path / "idle.toml"
    f.write_text(TINY.format(duration="1s", interval="1s").replace('think = "10ms"', 'think = "1h"'))
    run = tmp_path / "run"
    assert zvmlab("run", f, "--out", run).returncode == 0
    twin = tmp_path / "twin.toml"
    p = zvmlab("twin", run, "--out", twin)
    assert p.returncode == 0, p.stderr
    assert zvmlab("validate", twin).returncode == 0, twin.read_text()
    p = zvmlab("twin", run, "--what-if", "processors=2", "--json")
    assert p.returncode == 0, p.stderr


def test_report_out_dash_is_standard_output(tmp_path):
    """`report --out -` wrote a file named '-' (replicate --json - means standard output)."""
    run = tmp_path / "run"
    assert zvmlab("run", SHOWCASE, "--duration", "2s", "--out", run).returncode == 0
    p = zvmlab("report", run, "--fcx", "FCX144", "--out", "-", cwd=tmp_path)
    assert p.returncode == 0 and "FCX144" in p.stdout
    _one_message(zvmlab("report", run, "--format", "parquet", "--out", "-", cwd=tmp_path), "--out", "directory")
    assert not (tmp_path / "-").exists()


def test_scale_guests_beyond_the_group_limit_names_the_option(tmp_path):
    """--scale-guests past 10000 guests in a group was the engine's 'guest U: count must be
    1..10000 (got 320000) (see `zvmlab validate`)': no file, and validate passes the file."""
    f = tmp_path / "many.toml"
    f.write_text(TINY.format(duration="100ms", interval="100ms").replace('userid = "U"', 'userid = "U"\ncount = 5000'))
    p = zvmlab("scaling", f, "--cores", "1,64", "--scale-guests")
    _one_message(p, str(f), "--scale-guests", "320000")


def test_api_run_refuses_a_run_that_would_not_fit(monkeypatch):
    """zvmlab.run (the notebook API) had no memory admission: interval = "1ns" ran until the
    kernel was killed."""
    import zvmlab
    from zvmlab.errors import InputError

    monkeypatch.setenv("ZVMLAB_MAX_MEMORY", "200M")
    sc = zvmlab.load(SHOWCASE).with_(duration="2s", interval="1us")
    with pytest.raises(InputError, match="memory"):
        zvmlab.run(sc)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/stdout")
def test_out_dev_stdout_on_a_pipe_is_written_into(tmp_path):
    """README: a FIFO (/dev/stdout) is written into. On a pipe, /dev/stdout -> /proc/self/fd/1 ->
    'pipe:[N]' (no such path): `report --out /dev/stdout | ...` failed with 'cannot write: No such
    file or directory'."""
    run = tmp_path / "run"
    assert zvmlab("run", SHOWCASE, "--duration", "2s", "--out", run).returncode == 0
    p = zvmlab("report", run, "--fcx", "FCX144", "--out", "/dev/stdout")  # capture_output: stdout is a pipe
    assert p.returncode == 0, p.stderr
    assert "FCX144" in p.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pipes")
@pytest.mark.parametrize("args", [["params"], ["params", "--json"], ["levels", "--matrix"], ["workloads"],
                                  ["run", str(SHOWCASE), "--duration", "1s"]])
def test_a_reader_that_is_gone_is_exit_0(args):
    """README: a closed pipe is exit 0. When the reader had gone before the output was written
    (`zvmlab params | true`), rich's and click's handlers exited 1."""
    p = subprocess.Popen([sys.executable, "-m", "zvmlab", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader is gone before anything is written
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "error" not in err, err


def test_timed_commands_after_the_run_s_end_are_named(tmp_path):
    """An [[action]] at or after the run's end never runs: `run` says so instead of nothing."""
    f = tmp_path / "late.toml"
    f.write_text(TINY.format(duration="2s", interval="1s") + """
[[action]]
at = "1s"
command = "SET SHARE U RELATIVE 200"
[[action]]
at = "5s"
command = "SET SHARE U RELATIVE 300"
""")
    p = zvmlab("run", f)
    assert p.returncode == 0, p.stderr
    out = " ".join(p.stdout.split())  # the console wraps long lines
    assert "1 timed command at or after the run's end (2 s) did not run: SET SHARE U RELATIVE 300 at 5 s" in out
    p = zvmlab("run", f, "--duration", "0.5s")
    assert "2 timed commands at or after the run's end (0.5 s) did not run" in " ".join(p.stdout.split())


# --- seeds: one range for the file and every command (stop 23) --------------------------------------------------------


def test_the_seed_range_is_the_files_for_every_command(tmp_path):
    """A scenario file holds seeds 0 .. 2**63-1 (TOML integers are signed 64-bit); `--seed` took
    up to 2**64-1, so a run could not be written back as a scenario, and `sweep --repeat` past the
    top named a seed the user never gave (2**64). Now the engine's contract has the one range."""
    from zvmlab import contract
    from zvmlab.scenario import MAX_SEED, check_seeds, loads

    assert contract.limit("seed") == (0, 2**63 - 1) == (0, MAX_SEED)
    check_seeds(MAX_SEED, 1)
    check_seeds(MAX_SEED - 9, 10)
    with pytest.raises(Exception, match="go beyond"):
        check_seeds(MAX_SEED - 8, 10)
    assert loads(TINY.format(duration="1s", interval="1s").replace('interval = "1s"', f'interval = "1s"\nseed = {MAX_SEED}'),
                 "t.toml").seed == MAX_SEED
    f = tmp_path / "s.toml"
    f.write_text(TINY.format(duration="1s", interval="1s"))
    p = zvmlab("sweep", str(f), "-p", "processors=1", "--seed", str(MAX_SEED), "--repeat", "2")
    _one_message(p, "--seed", "go beyond", str(MAX_SEED - 1))
    p = zvmlab("replicate", "--seed", str(MAX_SEED - 1), "--seeds", "3", "--no-store")
    _one_message(p, "--seed", "go beyond")
    p = zvmlab("run", str(f), "--seed", str(MAX_SEED + 1))
    assert p.returncode == 2 and "is not in the range" in p.stderr, p.stderr
    p = zvmlab("run", str(f), "--seed", str(MAX_SEED), "--json")
    assert p.returncode == 0, p.stderr


def test_an_engine_refusal_the_checks_missed_does_not_send_the_user_to_validate():
    """An engine refusal without a location said 'see `zvmlab validate`', which passes the file
    (validate runs the loader, not the engine): it now says the engine refused the run and asks
    for a report unless an option of the command explains it."""
    from zvmlab import engine
    from zvmlab.errors import InputError
    from zvmlab.scenario import MAX_SEED, loads

    cfg = loads(TINY.format(duration="1s", interval="1s"), "t.toml").engine_config()
    cfg["seed"] = MAX_SEED + 1  # past every command's check: only the engine sees it
    with pytest.raises(InputError) as e:
        engine.simulate(cfg)
    assert str(e.value.message).startswith("the engine refused the run: run.seed must be 0..")
    assert "please report it" in e.value.fix and "zvmlab validate --json" in e.value.fix
