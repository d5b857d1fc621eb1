"""Spin locks end to end: the run summary's `locks`, the MRSYTLCK monitor records and the
FCX265 LOCKLOG report agree; levels carry the lock switches."""

import pytest

from zvmlab import engine
from zvmlab.monitor import measure, read
from zvmlab.perfkit import REPORTS
from zvmlab.perfkit.model import MEAN

MS = 1_000_000


def _config(level: str) -> dict:
    g = {"userid": "WEB", "vcpus": 1, "count": 60, "quickdsp": False,
         "share": {"min": {"kind": "relative", "value": 100.0}, "limit": "none"},
         "workload": {"kind": "transactional", "think_ns": MS, "cpu_ns": MS // 5, "dist": "exp"}}
    return {"level": level, "processors": 8, "smt": "off", "duration_ns": 2_000 * MS, "interval_ns": 500 * MS,
            "seed": 3, "params": {}, "switches": {}, "guests": [g], "actions": []}


@pytest.mark.parametrize("level", ["zvm-6.4", "zvm-6.4-vm65988"])
def test_locklog_agrees_with_summary(level):
    summary, mon = engine.simulate(_config(level), monitor=True)
    locks = summary["locks"]
    assert set(locks) >= {"SRMSLOCK", "SRMATDLK", "HCPPGDAL", "RSA2GLCK"}
    s = locks["SRMSLOCK"]
    assert s["acquires"] > 0 and s["collisions"] > 0
    assert s["spin_pct_busy"] == pytest.approx(s["spin_pct_busy_excl"] + s["spin_pct_busy_shared"])
    assert s["avg_spin_us"] * s["colls_per_s"] / 1e4 == pytest.approx(s["spin_pct_busy"], rel=1e-9)
    assert sum(iv["locks"]["SRMSLOCK"]["collisions"] for iv in summary["intervals"]) == s["collisions"]
    m = measure(read(mon, "run.mon"))
    r = REPORTS["FCX265"].build(m)
    mean = {row["lock"]: row for row in r.tables[0].rows if row["_kind"] == MEAN}
    for name, v in locks.items():
        assert mean[name]["colls"] == pytest.approx(v["colls_per_s"], rel=1e-9, abs=1e-9)
        # spin time goes through TOD units (1/4096 us): exact to a few ns per interval
        assert mean[name]["busy"] == pytest.approx(v["spin_pct_busy"], rel=1e-6, abs=1e-9)


def test_levels_carry_lock_switches():
    lv = {x["name"]: x["switches"] for x in engine.levels()}
    assert lv["zvm-6.4"]["sched_lock"] == "single-line"
    assert lv["zvm-6.4-vm65988"]["sched_lock"] == "excl-only-writes"
    assert lv["zvm-6.2"]["lock_line"] == "shared" and lv["zvm-6.3"]["lock_line"] == "own"
    assert lv["zvm-6.3"]["frame_zones"] == "one" and lv["zvm-6.4"]["frame_zones"] == "zoned"
    assert {k for k, v in lv["zvm-6.4"].items() if lv["zvm-6.4-vm65988"][k] != v} == {"sched_lock"}
