"""The command line end to end: outputs, JSON keys, determinism, and bad input."""

import json

import pytest

from conftest import ROOT, SHOWCASE, run_json, zvmlab

REQUIRED = {"etr", "itr", "tv_ratio", "avg_processor_busy_pct", "events", "wall_s", "events_per_s", "users",
            "intervals"}


def test_run_json_has_the_public_keys():
    s = run_json("run", SHOWCASE, "--json", "--duration", "2m")
    assert REQUIRED <= s.keys()
    assert [u["userid"] for u in s["users"]] == ["USER0", "USER1"]
    for u in s["users"]:
        assert {"userid", "cpu_pct", "virtual_pct", "cp_pct"} <= u.keys()
        assert u["cpu_pct"] == pytest.approx(u["virtual_pct"] + u["cp_pct"])
    assert [iv["end_s"] for iv in s["intervals"]] == [60.0, 120.0]
    assert set(s["intervals"][0]["users"]) == {"USER0", "USER1"}
    # ETR/ITR/T-V follow their definitions.
    assert s["itr"] == pytest.approx(s["etr"] / (s["avg_processor_busy_pct"] / 100))
    assert s["tv_ratio"] >= 1.0
    # USER1 wants 30 % of a processor and gets it on a 2-way with USER0 capped at one vCPU.
    u1 = next(u for u in s["users"] if u["userid"] == "USER1")
    assert u1["cpu_pct"] == pytest.approx(30, abs=1.5)


def test_run_prints_a_readable_summary():
    p = zvmlab("run", SHOWCASE, "--duration", "2m")
    assert p.returncode == 0, p.stderr
    for text in ("ETR", "ITR", "T/V", "USER0", "USER1", "CPU % by interval"):
        assert text in p.stdout


def test_run_says_where_a_transactions_cpu_went():
    """The headline splits CPU per transaction into guest, CP, SMT and lock spin (scaling_why),
    and the parts add up to the figure."""
    import re

    p = zvmlab("run", ROOT / "scenarios" / "replicate" / "c5-high.toml", "--duration", "2s")
    assert p.returncode == 0, p.stderr
    m = re.search(r"CPU per transaction ([\d.]+) us: guest ([\d.]+), CP ([\d.]+), SMT ([\d.]+), lock spin "
                  r"([\d.]+) \(SRMSLOCK\)", " ".join(p.stdout.split()))  # rich wraps at 80 columns
    assert m, p.stdout[:600]
    total, *parts = map(float, m.groups())
    assert sum(parts) == pytest.approx(total, abs=0.2)  # each printed to 0.1 us (spin 0.01)
    assert float(m.group(5)) > 1.0  # C5's shape spins on the scheduler lock at 32 processors


def test_run_shows_the_cache_model_only_when_it_is_on(tmp_path):
    """With cache.warmth = 1 the headline says where the CPI went (hits, reload, sibling sharing,
    coherence, dispatch moves adding up to 100 %); off, it says nothing of it."""
    import re

    text = """title = "warm"
[system]
level = "zvm-6.4"
processors = 8
machine = "z13"
[run]
duration = "2s"
[params]
"cache.warmth" = {warm}
"cache.guest_shared" = 0.3
[[guest]]
userid = "LNX"
count = 6
vcpus = 2
workload = {{ kind = "transactional", think = "5ms", cpu = "2ms" }}
"""
    outs = {}
    for warm in (0, 1):
        f = tmp_path / f"w{warm}.toml"
        f.write_text(text.format(warm=warm))
        p = zvmlab("run", f)
        assert p.returncode == 0, p.stderr
        outs[warm] = " ".join(p.stdout.split())
    assert "cache warmth" not in outs[0]
    m = re.search(r"cache warmth: footprint hits L2 ([\d.]+) L3 ([\d.]+) L4 ([\d.]+); reload ([\d.]+) % of guest CPU "
                  r"\(sibling sharing ([\d.]+) %\); CP coherence stall ([\d.]+) % of CP; [\d.]+ sourcing cycles per L1 "
                  r"miss; dispatches: same core (\d+) %, chip (\d+) %, drawer (\d+) %, other drawer (\d+) %", outs[1])
    assert m, outs[1][:800]
    l2, l3, l4, reload, sibling, _, *moves = map(float, m.groups())
    assert l2 <= l3 <= l4 <= 1 and 0 < sibling <= reload
    assert sum(moves) == pytest.approx(100, abs=2)


def _strip_timing(s):
    return {k: v for k, v in s.items() if k not in ("wall_s", "events_per_s")}


def test_same_seed_same_json_and_different_seed_differs():
    a = _strip_timing(run_json("run", SHOWCASE, "--json", "--duration", "3m", "--seed", "7"))
    b = _strip_timing(run_json("run", SHOWCASE, "--json", "--duration", "3m", "--seed", "7"))
    c = _strip_timing(run_json("run", SHOWCASE, "--json", "--duration", "3m", "--seed", "8"))
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a != c


def test_out_dir_is_deterministic_and_complete(tmp_path):
    for name in ("a", "b"):
        p = zvmlab("run", SHOWCASE, "--duration", "2m", "--out", tmp_path / name)
        assert p.returncode == 0, p.stderr
    a, b = tmp_path / "a", tmp_path / "b"
    assert {f.name for f in a.iterdir()} >= {"summary.json", "timing.json", "intervals.csv", "scenario.toml",
                                             "engine-config.json"}
    assert (a / "summary.json").read_bytes() == (b / "summary.json").read_bytes()
    assert (a / "intervals.csv").read_bytes() == (b / "intervals.csv").read_bytes()
    # An existing result is not overwritten without --force.
    p = zvmlab("run", SHOWCASE, "--duration", "1m", "--out", a)
    assert p.returncode == 2 and "--force" in p.stderr
    assert zvmlab("run", SHOWCASE, "--duration", "1m", "--out", a, "--force").returncode == 0
    assert json.loads((a / "summary.json").read_text())["duration_s"] == 60.0


def test_levels_params_validate():
    lv = run_json("levels", "--json")
    names = [x["name"] for x in lv]
    assert "zvm-6.4" in names and "zvm-6.3" in names
    assert all("switches" in x for x in lv)
    ps = run_json("params", "--json")
    assert all(p["unit"] and p["source"] for p in ps)
    assert zvmlab("validate", SHOWCASE).returncode == 0
    assert zvmlab("--help").returncode == 0


GOOD = """
[system]
level = "zvm-6.4"
processors = 2
[run]
duration = "1m"
interval = "10s"
[[guest]]
userid = "USER0"
share = "RELATIVE 100"
workload = { kind = "cpu-bound" }
"""

BAD = [
    # (what, replace-from, replace-to, expected words in the message)
    ("unknown key", 'processors = 2', 'processors = 2\nprocesors = 3', ["procesors", "unknown key", ":5", "did you mean"]),
    ("share typo", '"RELATIVE 100"', '"RELATIV 100"', ["RELATIV", "RELATIVE", "share"]),
    ("zero processors", "processors = 2", "processors = 0", ["system.processors", "1-64"]),
    ("negative processors", "processors = 2", "processors = -1", ["system.processors"]),
    ("absolute over 100", '"RELATIVE 100"', '"ABSOLUTE 120%"', ["ABSOLUTE", "0.1%-100%"]),
    ("negative share", '"RELATIVE 100"', '"RELATIVE -5"', ["RELATIVE", "1-10000"]),
    ("bad duration", 'duration = "1m"', 'duration = "ten minutes"', ["run.duration", "unit"]),
    ("number duration", 'duration = "1m"', 'duration = 10', ["run.duration"]),
    ("not toml", "[system]", "[system", ["not valid TOML"]),
    ("unknown level", '"zvm-6.4"', '"zvm-9.9"', ["system.level", "zvm-6.4"]),
    ("unknown workload", '"cpu-bound"', '"cpu-bund"', ["cpu-bound"]),
    ("bad demand", '{ kind = "cpu-bound" }', '{ kind = "cpu-bound", demand = 1.5 }', ["demand"]),
    ("long userid", '"USER0"', '"USERNAME12"', ["userid"]),
    ("absolute shares sum over 100", 'share = "RELATIVE 100"\nworkload = { kind = "cpu-bound" }\n',
     'share = "ABSOLUTE 70%"\nworkload = { kind = "cpu-bound" }\n[[guest]]\nuserid = "USER1"\n'
     'share = "ABSOLUTE 40%"\nworkload = { kind = "cpu-bound" }\n',
     ["guest[0].share", "sum to 110 %", "USER0 70%", "USER1 40%", "at most 100 %"]),
    ("SET SHARE pushes absolute sum over 100", 'share = "RELATIVE 100"\nworkload = { kind = "cpu-bound" }\n',
     'share = "ABSOLUTE 70%"\nworkload = { kind = "cpu-bound" }\n[[guest]]\nuserid = "USER1"\n'
     'share = "ABSOLUTE 20%"\nworkload = { kind = "cpu-bound" }\n'
     '[[action]]\nat = "30s"\ncommand = "SET SHARE USER1 ABSOLUTE 40%"\n',
     ["action[0].command", "sum to 110 %", "after 'SET SHARE USER1 ABSOLUTE 40%'"]),
    ("no guests", "[[guest]]", "[[gest]]", ["gest"]),
]


@pytest.mark.parametrize("what,old,new,words", BAD, ids=[b[0] for b in BAD])
def test_bad_input_one_clear_message_exit_2_no_output(tmp_path, what, old, new, words):
    assert old in GOOD
    f = tmp_path / "bad.toml"
    f.write_text(GOOD.replace(old, new, 1))
    out = tmp_path / "out"
    p = zvmlab("run", f, "--out", out)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr
    assert p.stderr.startswith("zvmlab: error: ") and p.stderr.count("\n") == 1, p.stderr
    assert str(f) in p.stderr
    for w in words:
        assert w in p.stderr, (w, p.stderr)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [f], "no partial output may be left behind"
    assert zvmlab("validate", f).returncode == 2


def test_missing_file_and_bad_options(tmp_path):
    p = zvmlab("run", tmp_path / "nope.toml")
    assert p.returncode == 2 and "no such file" in p.stderr
    p = zvmlab("run", SHOWCASE, "--level", "zvm-7.0")
    assert p.returncode == 2 and "--level" in p.stderr
    p = zvmlab("run", SHOWCASE, "--duration", "-5s")
    assert p.returncode == 2 and "--duration" in p.stderr
    p = zvmlab("run", SHOWCASE, "--seed", "-1")
    assert p.returncode == 2
    f = tmp_path / "bin.toml"
    f.write_bytes(b"\xff\xfe\x00garbage")
    p = zvmlab("validate", f)
    assert p.returncode == 2 and "UTF-8" in p.stderr


def test_set_share_action(tmp_path):
    f = tmp_path / "act.toml"
    f.write_text(GOOD + '[[action]]\nat = "30s"\ncommand = "SET SHARE USER0 ABSOLUTE 20% LIMITHARD"\n')
    assert zvmlab("validate", f).returncode == 0
    f.write_text(GOOD + '[[action]]\nat = "30s"\ncommand = "SET SHARE NOBODY ABSOLUTE 20%"\n')
    p = zvmlab("validate", f)
    assert p.returncode == 2 and "NOBODY" in p.stderr and "action[0].command" in p.stderr


def test_switch_overrides_and_bisect(tmp_path):
    a1 = SHOWCASE.parent / "replicate" / "a1.toml"
    f = tmp_path / "hybrid.toml"
    text = a1.read_text().replace('level = "zvm-6.4"', 'level = "zvm-6.3"\nswitches = { dv = "look-aside" }')
    f.write_text(text)
    s = run_json("run", f, "--json", "--duration", "2m")
    assert s["switches"]["dv"] == "look-aside" and s["switches"]["sched"] == "deadline-ns"
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('dv = "look-aside"', 'dv = "sideways"'))
    p = zvmlab("validate", bad)
    assert p.returncode == 2 and "system.switches" in p.stderr and "sideways" in p.stderr
    bad.write_text(text.replace('dv = "look-aside"', 'dvv = "look-aside"'))
    p = zvmlab("validate", bad)
    assert p.returncode == 2 and "unknown mechanism switch" in p.stderr
    b = run_json("bisect", a1, "--base", "zvm-6.3", "--compare", "zvm-6.4", "--metric", "users.USER3.cpu_pct",
                 "--duration", "3m", "--json")
    # 6.4 GA also brought the frame-manager zones and queued frame returns of the 2 TB support
    # (no effect without storage) and SSL server V2.2 with the TLS 1.2 default cipher (no effect
    # without an SSL server), and the paging changes (payloads, zHPF and alias support: no effect
    # without paging)
    assert {r["switch"] for r in b["switches"]} == {"sched", "dv", "frame_zones", "frame_returns", "ssl_server",
                                                    "ssl_cipher", "paging_payload", "paging_hpf", "paging_alias"}
    assert b["path"][0]["value"] == b["base"] and b["path"][-1]["value"] == b["compare"]
    assert b["culprit"] in {"sched", "dv"}
    p = zvmlab("bisect", a1, "--base", "zvm-6.3", "--compare", "zvm-6.4", "--metric", "nonsense")
    assert p.returncode == 2 and "--metric" in p.stderr


def test_levels_table_shows_what_each_release_changed():
    p = zvmlab("levels")
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    i = next(k for k, x in enumerate(lines) if x.startswith("│ zvm-6.4-vm65988 "))
    # the row's cells may wrap onto the lines below it (first cell blank)
    row = [lines[i]]
    for x in lines[i + 1:]:
        if not x.startswith("│ ") or x.split("│")[1].strip():
            break
        row.append(x)
    switches = "".join(x.split("│")[3].strip() for x in row)
    assert "sched_lock=excl-only-writes" in switches and "dv=" not in switches  # only what changed
    m = zvmlab("levels", "--matrix")
    assert m.returncode == 0 and "vdisk_lock" in m.stdout and "sched_lock" in m.stdout


def test_param_overrides_a_model_parameter_in_run_and_scaling(tmp_path):
    """--param NAME=VALUE (as replicate takes it) on run and scaling: the cache model's line
    appears, the engine config written with --out records the value, and a bad name or value
    is one located message, exit 2."""
    scen = ROOT / "scenarios" / "apache-cpu.toml"
    p = zvmlab("run", scen, "--duration", "1s", "--param", "cache.warmth=1", "--out", tmp_path / "r")
    assert p.returncode == 0, p.stderr
    assert "cache warmth: footprint hits" in " ".join(p.stdout.split())
    assert json.loads((tmp_path / "r" / "engine-config.json").read_text())["params"]["cache.warmth"] == 1
    s = run_json("scaling", scen, "--cores", "2,4", "--duration", "1s", "--json", "--param", "cache.warmth=1")
    assert all(r["why"] for r in s["rows"])
    for cmd, spec, word in (("run", "nope=1", "known parameter"), ("scaling", "cache.warmth=7", "outside")):
        p = zvmlab(cmd, scen, "--param", spec)
        assert p.returncode == 2 and word in p.stderr and "--param" in p.stderr and "Traceback" not in p.stderr
