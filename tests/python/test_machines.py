"""Machine generations (issue 18 item 4): every B-row scenario and `zvmlab scaling` run on every
machine, or are refused with a located message where the machine cannot run them."""

import pytest

from conftest import ROOT, run_json, zvmlab
from zvmlab import engine, scenario
from zvmlab.errors import InputError

B_ROWS = sorted((ROOT / "scenarios" / "replicate").glob("b*.toml"))


@pytest.mark.parametrize("machine", scenario.MACHINES)
def test_every_b_row_scenario_runs_on_every_machine(machine):
    assert len(B_ROWS) >= 12
    figures = scenario.machine_figures(machine)
    ran = 0
    for path in B_ROWS:
        sc = scenario.load(path)
        try:
            sc = sc.with_overrides(machine=machine, duration="300ms")
        except InputError as e:
            # Only what the machine cannot do is refused: SMT on a machine without it.
            assert e.field == "--machine" or e.field == "system.smt", (path.name, str(e))
            assert sc.smt != "off" and figures["smt"] < 0.5, (path.name, str(e))
            continue
        s = engine.simulate(sc.engine_config())
        assert 0 < s["avg_processor_busy_pct"] <= 100 + 1e-6, path.name
        ran += 1
    assert ran >= (len(B_ROWS) if figures["smt"] >= 0.5 else 6)


def test_the_machine_sets_the_clock_and_the_topology():
    base = scenario.load(ROOT / "scenarios" / "replicate" / "b7-apache.toml").with_overrides(duration="300ms")
    # The same 4-core Apache run on a z196 (4-core chips: one chip) and a zEC12 (5.5 GHz, faster CP paths).
    runs = {m: engine.simulate(base.with_overrides(machine=m).engine_config()) for m in ("z196", "zEC12", "z13")}
    tv = {m: s["tv_ratio"] for m, s in runs.items()}
    # CP paths are instructions: a faster clock shortens them (5.5 GHz zEC12, 5.2 z196, 5.0 z13).
    assert tv["zEC12"] < tv["z196"] < tv["z13"], tv


def test_scaling_on_every_machine_and_its_limits(tmp_path):
    web = ROOT / "scenarios" / "scaling-web.toml"
    for m in scenario.MACHINES:
        r = run_json("scaling", web, "--machine", m, "--cores", "1,4", "--duration", "1s", "--json")
        assert [x["cores"] for x in r["rows"]] == [1, 4], m
    p = zvmlab("scaling", web, "--machine", "z196", "--cores", "1,64")
    assert p.returncode == 2 and "--cores" in p.stderr and "at most 32" in p.stderr, p.stderr
    p = zvmlab("scaling", web, "--machine", "zEC12", "--smt", "off,smt2", "--cores", "1,2")
    assert p.returncode == 2 and "--smt" in p.stderr and "no SMT" in p.stderr, p.stderr
    p = zvmlab("scaling", web, "--machine", "z12", "--cores", "1,2")
    assert p.returncode == 2 and "--machine" in p.stderr and "z196" in p.stderr, p.stderr
