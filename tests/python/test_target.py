"""`zvmlab solve --target USER=PCT%`: the smallest share that gives a busy user a target CPU share,
checked by the Solver around it and by the simulator with the share written in."""

import json

import pytest

from conftest import run_json, zvmlab
from zvmlab import scenario
from zvmlab.lab import target

SCEN = """
[system]
processors = 2
[run]
duration = "20s"
interval = "5s"
[[guest]]
userid = "DB"
vcpus = 2
workload = { kind = "cpu-bound", demand = 0.2 }
[[guest]]
userid = "APP"
count = 4
share = "RELATIVE 100"
workload = { kind = "cpu-bound" }
"""


def test_smallest_share_reaches_the_target_and_one_less_does_not(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(SCEN)
    sc = scenario.load(f)
    r = target.share_for(sc, "DB", 50.0)
    assert r.relative_gets_pct >= 50.0 and r.absolute_gets_pct >= 50.0 - 1e-9
    below = target.share_for(sc, "DB", r.relative_gets_pct)  # the same share is the smallest for its own figure
    assert below.relative == r.relative
    one_less = target._gets(sc, *_users(sc), target._solver.Share("relative", r.relative - 1))
    assert one_less < 50.0


def _users(sc):
    us = target.comparator.solver_users(sc)
    i = [u.userid for u in us].index("DB")
    us[i] = target.replace(us[i], demand_pct=200.0)
    return us, i


def test_simulator_gives_the_target_with_that_share(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(SCEN)
    r = run_json("solve", f, "--target", "db=50%", "--json")["target"]
    busy = SCEN.replace('workload = { kind = "cpu-bound", demand = 0.2 }',
                        f'share = "RELATIVE {r["relative"]}"\nworkload = {{ kind = "cpu-bound" }}', 1)
    g = tmp_path / "busy.toml"
    g.write_text(busy)
    s = run_json("run", g, "--json")
    db = next(u for u in s["users"] if u["userid"] == "DB")
    assert db["cpu_pct"] == pytest.approx(50.0, abs=2.0)


@pytest.mark.parametrize("spec, needle", [("DB=300%", "more than DB can use"), ("NOPE=10%", "no user 'NOPE'"),
                                          ("DB=abc", "USERID=PERCENT"), ("=5%", "USERID=PERCENT")])
def test_bad_targets(tmp_path, spec, needle):
    f = tmp_path / "s.toml"
    f.write_text(SCEN)
    p = zvmlab("solve", f, "--target", spec)
    assert p.returncode == 2 and needle in p.stderr, p.stderr


def test_unreachable_under_a_hard_limit(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(SCEN.replace('userid = "DB"', 'userid = "DB"\nshare = "RELATIVE 100 ABSOLUTE 10% LIMITHARD"'))
    r = json.loads(zvmlab("solve", f, "--target", "DB=50%", "--json").stdout)["target"]
    assert r["relative"] is None and r["absolute"] is None and r["best_pct"] == pytest.approx(20.0)
