"""Monitor PR/SM, parking and SMT data: the zvmlab fields of D0R2 MRSYTPRP (core, polarization,
suspended and parked time, core time with one and two busy threads), D0R16 MRSYTCUP (the CPC's
LPARs) and D0R17 MRSYTCUM (PR/SM dispatches and management time, unparked-core time).

Round trip (property): for random LPAR and SMT scenarios the per-interval figures derived from
the monitor data are the run summary's (lpar.intervals, intervals[].smt), and the configuration
records carry the polarization the engine computed.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from io_scenarios import lpar_config
from zvmlab import engine
from zvmlab.monitor import measure, read


def assert_lpar_round_trip(s: dict, mon: bytes) -> None:
    data = read(mon)
    assert data.problems == [] and not data.skipped
    m = measure(data)
    assert m.problems == []
    n_iv = len(s["intervals"])
    assert len(m.intervals) == n_iv and m.cpus == list(range(len(s["processor_detail"])))
    assert set(m.prp) == set(m.cpus)
    lp = s.get("lpar")
    if lp is None:
        assert m.lpars == [] and m.phys == {}
        assert set(m.cpu_polar.values()) == {""}
    else:
        me = [x for x in m.lpars if x["self"]]
        assert len(me) == 1 and me[0]["number"] == 1
        me = me[0]
        assert me["entitlement"] == pytest.approx(lp["entitlement"], abs=5e-4)
        assert (me["vh"], me["vm"], me["vl"], me["hz"]) == (lp["vh"], lp["vm"], lp["vl"], lp["hz"])
        assert sum(x["vh"] for x in m.lpars) == lp["cpc_vh"]
        polars = [m.cpu_polar[c] for c in m.cpus]
        assert polars.count("Vh") == lp["vh"] and polars.count("Vl") == lp["vl"] and polars.count("Hz") == lp["hz"]
        for k, li in enumerate(lp["intervals"]):
            ln = m.intervals[k].len_ns
            assert m.intervals[k].end_ns / 1e9 == li["end_s"]
            assert 100.0 * m.phys["lpmgt"][k] / ln == pytest.approx(li["lpmgt_pct"], rel=1e-12)
            assert 100.0 * m.phys["cpcmgt"][k] / ln == pytest.approx(li["cpc_lpmgt_pct"], rel=1e-9, abs=200.0 / ln)  # rounded to 1 ns
            assert m.phys["unparked"][k] / ln == pytest.approx(li["unparked_avg"], rel=1e-9)
            assert m.phys["unparked_vl"][k] / ln == pytest.approx(li["unparked_vl_avg"], rel=1e-9, abs=1e-9)
            susp = sum(m.prp[c]["susp"][k] for c in m.cpus)
            assert 100.0 * susp / ln == pytest.approx(li["susp_pct"], rel=1e-12, abs=1e-12)
            # parked + unparked time = every logical processor for the whole interval
            park = sum(m.prp[c]["park"][k] for c in m.cpus)
            assert park + m.phys["unparked"][k] == pytest.approx(len(m.cpus) * ln, abs=len(m.cpus) + 2)
        assert sum(m.phys["lpdisp"]) == lp["prsm_dispatches"]
    for k, si in enumerate(s["intervals"]):
        ln = m.intervals[k].len_ns
        smt = si.get("smt")
        if smt is None:
            assert all(m.prp[c]["core1"][k] is None for c in m.cpus)
            continue
        cores = sorted({m.cpu_core[c] for c in m.cpus})
        first = {co: min(c for c in m.cpus if m.cpu_core[c] == co) for co in cores}
        core_t = sum(m.prp[first[co]]["core1"][k] + m.prp[first[co]]["core2"][k] for co in cores)
        assert 100.0 * core_t / (ln * len(cores)) == pytest.approx(smt["core_busy_pct"], rel=1e-12)
        busy = sum(m.busy_ns[c][k] for c in m.cpus)
        assert (busy / core_t if core_t else 0.0) == pytest.approx(smt["thread_density"], rel=1e-12)


def test_vertical_lpar_round_trip():
    s, mon = engine.simulate(lpar_config(), monitor=True)
    assert s["lpar"]["vl"] >= 1 and s["lpar"]["unparked_avg"] < s["processors"]  # something parked
    assert_lpar_round_trip(s, mon)


def test_smt2_round_trip():
    s, mon = engine.simulate(lpar_config(smt="smt2"), monitor=True)
    assert s["smt"]["threads_per_core"] == 2
    assert_lpar_round_trip(s, mon)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(1, 10_000), polarization=st.sampled_from(["vertical", "horizontal"]),
       level=st.sampled_from(["zvm-6.4", "zvm-6.3"]), partner_busy=st.sampled_from([0.2, 0.6, 0.95]),
       smt=st.sampled_from(["off", "off", "smt1", "smt2"]), processors=st.integers(2, 5), web=st.integers(1, 10),
       interval_s=st.sampled_from([2, 3, 5]))
def test_lpar_round_trip_property(seed, polarization, level, partner_busy, smt, processors, web, interval_s):
    cfg = lpar_config(seed=seed, duration_s=10, interval_s=interval_s, level=level, smt=smt,
                      polarization=polarization, partner_busy=partner_busy, processors=processors, web=web)
    s, mon = engine.simulate(cfg, monitor=True)
    assert_lpar_round_trip(s, mon)
