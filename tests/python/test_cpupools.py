"""CPU pools in scenarios (issue 18): parsing, located errors (exit 2), the engine's cap, the
Solver comparison, and the FCX308 / FCX309 reports from the run's monitor data."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, assert_bad_scenario, zvmlab

from zvmlab import scenario
from zvmlab.lab import comparator

POOLED = ROOT / "scenarios" / "cpupool.toml"

BASE = """
[system]
processors = 2
[run]
duration = "4s"
interval = "1s"
[[cpupool]]
name = "P1"
limithard = "25%"
[[guest]]
userid = "A"
pool = "P1"
workload = { kind = "cpu-bound" }
[[guest]]
userid = "B"
workload = { kind = "cpu-bound" }
[[action]]
at = "2s"
command = "SCHEDULE B TO POOL P1"
"""


def test_pools_reach_the_engine_config():
    sc = scenario.loads(BASE)
    cfg = sc.engine_config()
    assert cfg["cpupools"] == [{"name": "P1", "limithard_pct": 25.0, "type": "IFL", "members": ["A"]}]
    assert cfg["actions"] == [{"at_ns": 2_000_000_000, "kind": "schedule-pool", "userid": "B", "pool": "P1"}]


def test_commands_parse():
    text = BASE + """
[[action]]
at = "3s"
command = "define cpupool p2 capacity 0.5 type cp"
[[action]]
at = "3s"
command = "SET CPUPOOL P1 CAPACITY 1.5"
[[action]]
at = "3s"
command = "SCHEDULE A NOPOOL"
[[action]]
at = "3s"
command = "DELETE CPUPOOL P2"
"""
    kinds = [a.engine["kind"] for a in scenario.loads(text).actions if a.engine]
    assert kinds == ["schedule-pool", "define-cpupool", "set-cpupool", "schedule-pool", "delete-cpupool"]


@pytest.mark.parametrize("old,new,field,words", [
    ('pool = "P1"', 'pool = "NOPE"', "guest[0].pool", "names no CPU pool"),
    ('limithard = "25%"', 'limithard = "120%"', "cpupool[0].limithard", "LIMITHARD 120%"),
    ('limithard = "25%"', 'limithard = "25%"\ncapacity = 1', "cpupool[0]", "exactly one"),
    ("SCHEDULE B TO POOL P1", "SCHEDULE B TO POOL P9", "action[0].command", "no such pool"),
    ("SCHEDULE B TO POOL P1", "SCHEDULE ZZ TO POOL P1", "action[0].command", "unknown userid"),
    ("SCHEDULE B TO POOL P1", "DELETE CPUPOOL P1", "action[0].command", "still has members"),
    ("SCHEDULE B TO POOL P1", "SET CPUPOOL P1 LIMITHARD 101%", "action[0].command", "LIMITHARD 101%"),
    ("SCHEDULE B TO POOL P1", "DEFINE CPUPOOL P1 CAPACITY 1", "action[0].command", "already exists"),
    ("SCHEDULE B TO POOL P1", "SCHEDULE B TO P1", "action[0].command", "malformed pool command"),
])
def test_bad_pool_input_is_located(tmp_path, old, new, field, words):
    assert_bad_scenario(tmp_path, BASE, old, new, field, words)


def test_schedule_before_define_is_refused():
    text = BASE.replace('command = "SCHEDULE B TO POOL P1"', 'command = "SCHEDULE B TO POOL P2"') + """
[[action]]
at = "3s"
command = "DEFINE CPUPOOL P2 LIMITHARD 10%"
"""
    with pytest.raises(scenario.InputError, match="no such pool at that time"):
        scenario.loads(text)


def test_solver_follows_pool_commands():
    sc = scenario.load(POOLED)
    assert comparator.solve(sc, None, 0) == pytest.approx(
        {"LNX0": 45.0, "LNX1": 45.0, "SMALL": 10.0, "BATCH0": 100.0, "BATCH1": 100.0})
    assert comparator.solve(sc, None, 45 * 10**9)["LNX0"] == pytest.approx(95.0)


def test_pooled_run_matches_the_solver_and_reports(tmp_path):
    out = tmp_path / "run"
    p = zvmlab("check", POOLED, "--json")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["max_abs_error_pct"] < 2.0
    p = zvmlab("run", POOLED, "--out", out)
    assert p.returncode == 0, p.stderr
    s = json.loads((out / "summary.json").read_text())
    pool = s["cpupools"][0]
    assert pool["name"] == "LINUXP" and pool["limited_count"] > 0
    for iv in pool["intervals"][:4]:
        assert iv["cpu_pct"] <= iv["limit_pct"] + 3.0
    p = zvmlab("report", out, "--fcx", "308,309", "--format", "json")
    assert p.returncode == 0, p.stderr
    reps = json.loads(p.stdout)
    text = json.dumps(reps)
    assert "CPLCONF" in text and "CPLACT" in text and "LINUXP" in text


def test_no_pool_records_without_pools(tmp_path):
    out = tmp_path / "run"
    p = zvmlab("run", ROOT / "scenarios" / "showcase.toml", "--duration", "2s", "--out", out)
    assert p.returncode == 0, p.stderr
    assert "cpupools" not in json.loads((out / "summary.json").read_text())
    p = zvmlab("report", out, "--fcx", "309")
    assert p.returncode == 0 and "No CPU pool records" in p.stdout
