"""Processors (issue 4) through the command line: SMT modes and limits, SET MULTITHREAD, drawers."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_json, zvmlab
from zvmlab import engine, scenario
from zvmlab.errors import InputError

GOOD = """
[system]
level = "zvm-6.4"
processors = 4
smt = "smt2"
[run]
duration = "2s"
interval = "1s"
[[guest]]
userid = "USER0"
count = 8
workload = { kind = "cpu-bound", tx_cpu = "1ms" }
"""

BAD = [
    # (what, replace-from, replace-to, expected words in the message)
    ("SMT-2 over 32 cores", "processors = 4", "processors = 33", ["system.processors", "32", "smt"]),
    ("SMT-1 over 32 cores", 'processors = 4\nsmt = "smt2"', 'processors = 40\nsmt = "smt1"', ["system.processors", "32"]),
    ("unknown SMT mode", '"smt2"', '"smt4"', ["system.smt", "smt1"]),
    ("unknown machine", 'smt = "smt2"', 'smt = "smt2"\nmachine = "z99"', ["system.machine", "z13", "z14"]),
    ("too many drawers", 'smt = "smt2"', 'smt = "smt2"\ndrawers = 5', ["system.drawers", "1-4"]),
    ("too few drawers", 'processors = 4\nsmt = "smt2"', 'processors = 64\nsmt = "off"\nmachine = "z13"\ndrawers = 1',
     ["system.drawers", "at least 2"]),
    ("SMT on a zEC12", 'smt = "smt2"', 'smt = "smt2"\nmachine = "zEC12"', ["system.smt", "zEC12", "no SMT"]),
    ("SMT-1 on a z196", 'smt = "smt2"', 'smt = "smt1"\nmachine = "z196"', ["system.smt", "z196", "no SMT"]),
    ("40 cores on a z196", 'processors = 4\nsmt = "smt2"', 'processors = 40\nsmt = "off"\nmachine = "z196"',
     ["system.processors", "at most 32", "z196"]),
    ("more drawers than a z14 has", 'processors = 4\nsmt = "smt2"', 'processors = 64\nsmt = "off"\ndrawers = 5',
     ["system.drawers", "at most 4 drawers", "2..4"]),
    ("SET MULTITHREAD without SMT", '"smt2"', '"off"\n[[action]]\nat = "1s"\ncommand = "SET MULTITHREAD 2"',
     ["SET MULTITHREAD", "system.smt"]),
    ("SET MULTITHREAD 3", '"smt2"', '"smt2"\n[[action]]\nat = "1s"\ncommand = "SET MULTITHREAD 3"',
     ["command", "SET MULTITHREAD 1|2"]),
]


@pytest.mark.parametrize("what,old,new,words", BAD, ids=[b[0] for b in BAD])
def test_bad_processor_input_one_clear_message(tmp_path, what, old, new, words):
    assert old in GOOD
    f = tmp_path / "bad.toml"
    f.write_text(GOOD.replace(old, new, 1))
    p = zvmlab("validate", f)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stderr.startswith("zvmlab: error: ") and p.stderr.count("\n") == 1, p.stderr
    assert str(f) in p.stderr
    for w in words:
        assert w in p.stderr, (w, p.stderr)


def test_limits_that_are_allowed(tmp_path):
    f = tmp_path / "ok.toml"
    f.write_text(GOOD.replace("processors = 4", "processors = 32"))
    assert zvmlab("validate", f).returncode == 0
    f.write_text(GOOD.replace('processors = 4\nsmt = "smt2"', 'processors = 64\nsmt = "off"'))
    assert zvmlab("validate", f).returncode == 0


def test_smt2_summary_keys_and_set_multithread(tmp_path):
    f = tmp_path / "mt.toml"
    f.write_text(GOOD + '[[action]]\nat = "1s"\ncommand = "SET MULTITHREAD 1"\n')
    s = run_json("run", f, "--json")
    smt = s["smt"]
    for k in ("mode", "core_busy_pct", "thread_density", "capacity_factor", "raw_thread_s", "mt1_equivalent_s",
              "prorated_core_s", "logical_cpus", "multithreading_switches"):
        assert k in smt
    assert smt["mode"] == "smt2" and smt["multithreading_switches"] == 1 and smt["logical_cpus"] == 4
    first, second = s["intervals"]
    assert first["smt"]["thread_density"] > 1.9 and second["smt"]["thread_density"] == pytest.approx(1.0)
    assert s["cpi"]["speed_factor"] == 1.0
    # Raw >= prorated; MT-1 equivalent between them (c2 <= 2).
    assert smt["raw_thread_s"] >= smt["mt1_equivalent_s"] >= smt["prorated_core_s"]
    for u in s["users"]:
        assert u["cpu_pct"] >= u["mt1_cpu_pct"] >= u["prorated_cpu_pct"] > 0
    # The users' MT-1 equivalent and prorated times add up to the LPAR's, less the system time
    # (not charged to users): within a processor-percent or so.
    dur = s["duration_s"]
    mt1_users = sum(u["mt1_cpu_pct"] for u in s["users"]) * dur / 100
    assert mt1_users <= smt["mt1_equivalent_s"] + 1e-6
    assert mt1_users == pytest.approx(smt["mt1_equivalent_s"], rel=0.02)


def test_smt1_runs_as_non_smt(tmp_path):
    f = tmp_path / "a.toml"
    f.write_text(GOOD.replace('"smt2"', '"smt1"'))
    g = tmp_path / "b.toml"
    g.write_text(GOOD.replace('"smt2"', '"off"'))
    a, b = run_json("run", f, "--json"), run_json("run", g, "--json")
    for k in ("etr", "itr", "tv_ratio", "avg_processor_busy_pct", "events", "users"):
        assert a[k] == b[k], k


_FUZZ_TEMPLATE = """[system]
level = "zvm-6.4"
processors = {cores}
smt = "{smt}"
{machine}{drawers}
[run]
duration = "300ms"
interval = "100ms"
seed = {seed}
[[guest]]
userid = "W"
count = {count}
workload = {{ kind = "transactional", think = "{think}ms", cpu = "{cpu}ms" }}
{actions}"""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cores=st.integers(-1, 70), smt=st.sampled_from(["off", "smt1", "smt2", "smt3"]),
       machine=st.sampled_from([None, "z196", "zEC12", "z13", "z14", "z15", "z16", "z17", "z99"]), drawers=st.one_of(st.none(), st.integers(0, 5)),
       seed=st.integers(0, 100), count=st.integers(1, 12), think=st.integers(0, 20), cpu=st.integers(1, 10),
       acts=st.lists(st.tuples(st.integers(0, 300), st.sampled_from(["1", "2", "3", "TYPE IFL 2", "ALL 1"])),
                     max_size=4))
def test_processor_fuzz_front_and_engine_agree(cores, smt, machine, drawers, seed, count, think, cpu, acts):
    """Whatever processor configuration the front accepts, the engine runs it, conserving time;
    whatever it rejects is a located message."""
    text = _FUZZ_TEMPLATE.format(
        cores=cores, smt=smt, machine=f'machine = "{machine}"\n' if machine else "",
        drawers=f"drawers = {drawers}\n" if drawers is not None else "", seed=seed, count=count, think=think,
        cpu=cpu, actions="".join(f'[[action]]\nat = "{t}ms"\ncommand = "SET MULTITHREAD {n}"\n' for t, n in acts))
    try:
        sc = scenario.loads(text, "fuzz.toml")
    except InputError as e:
        assert e.file == "fuzz.toml" and e.field
        return
    s = engine.simulate(sc.engine_config())
    smt_s = s["smt"]
    assert 0 <= smt_s["core_busy_pct"] <= 100 + 1e-6
    assert smt_s["thread_density"] == 0 or 1 - 1e-9 <= smt_s["thread_density"] <= 2 + 1e-9
    assert smt_s["capacity_factor"] == 0 or 1 - 1e-9 <= smt_s["capacity_factor"] <= 2
    assert s["avg_processor_busy_pct"] <= 100 + 1e-6
    for p in s["processor_detail"]:
        assert p["busy_pct"] <= 100 + 1e-6
