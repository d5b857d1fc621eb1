"""FCX145 SCHEDLOG from IBM's D0R10 MRSYTSCG: the scheduler's queues at each sample, written by
the engine from its lists and read back by class. SET SRM DSPBUF bounds the dispatch list by
class (E1..E3 openings), so what the record says can be checked against the setting."""

import pytest

from zvmlab import engine, scenario
from zvmlab.monitor.derive import measure
from zvmlab.monitor.reader import read
from zvmlab.perfkit import REPORTS
from zvmlab.perfkit.sched_reports import queues

TEXT = """
[system]
level = "{level}"
processors = 2
[run]
duration = "6s"
interval = "500ms"
seed = {seed}
[params]
"srm.dspbuf_e1" = {e1}
"srm.dspbuf_e2" = {e2}
"srm.dspbuf_e3" = {e3}
[[guest]]
userid = "CPU"
count = 5
workload = {{ kind = "cpu-bound" }}
[[guest]]
userid = "CMS"
count = 4
workload = {{ kind = "transactional", think = "40ms", cpu = "4ms" }}
[[guest]]
userid = "Q"
quickdsp = true
workload = {{ kind = "transactional", think = "20ms", cpu = "1ms" }}
"""


def _measure(level="zvm-6.4", seed=1, e1=32767, e2=32767, e3=32767):
    sc = scenario.loads(TEXT.format(level=level, seed=seed, e1=e1, e2=e2, e3=e3), "t.toml")
    summary, mon = engine.simulate(sc.engine_config(), monitor=True)
    return summary, measure(read(mon, "t.mon"))


@pytest.mark.parametrize("level", ["zvm-6.2", "zvm-6.4"])
@pytest.mark.parametrize("dspbuf", [(4, 3, 2), (6, 4, 1), (3, 3, 3)])
def test_dspbuf_bounds_the_dispatch_list_by_class_at_every_sample(level, dspbuf):
    e1, e2, e3 = dspbuf
    summary, m = _measure(level, seed=sum(dspbuf), e1=e1, e2=e2, e3=e3)
    s = m.scg
    assert len(s["dispatch"]) == len(m.intervals) == 12
    for k in range(len(m.intervals)):
        q = queues(s, k)
        assert s["q1up"][k] <= e1 and s["q2up"][k] <= e2 and s["q3up"][k] <= e3, (k, q)
        assert min(q.values()) >= 0 and q["q0"] <= 1  # one QUICKDSP user
        assert q["d_tot"] + q["e_tot"] <= 10  # ten users
        assert q["d_ld"] <= q["d_tot"] and q["e_ld"] <= q["e_tot"]
    # ten users wanting more than the openings: someone waits on the eligible list
    assert any(v > 0 for v in s["e1up"]) and summary["scheduler"]["elist_adds"] > 0


def test_without_dspbuf_no_eligible_list_forms():
    summary, m = _measure()
    # (users still pass through the eligible list on their way in: admitted at once)
    assert set(m.scg["e1up"]) == {0} and summary["scheduler"]["storbuf_holds"] == 0
    assert all(d >= 5 for d in m.scg["dispatch"])  # the five CPU-bound users never leave


def test_report_splits_the_cumulative_counts_by_class():
    _, m = _measure(e1=4, e2=3, e3=2)
    r = REPORTS["FCX145"].build(m)
    rows = [x for x in r.tables[0].rows if x["_kind"] == "data"]
    assert len(rows) == 12
    for row in rows:
        assert row["q0"] + row["q1"] + row["q2"] + row["q3"] == row["d_tot"]
        assert row["e1"] + row["e2"] + row["e3"] == row["e_tot"]
