"""Where a scaling series stops scaling, and why (zvmlab scaling's breakdown of processor time per
transaction): the parts add up to the run's busy time, growth parts add up to the growth, and
each cause shows where the mechanism behind it works."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, run_json, zvmlab
from zvmlab.lab import scaling_why as why

APACHE = ROOT / "scenarios" / "replicate" / "b7-apache.toml"
LOCKS = ROOT / "scenarios" / "replicate" / "c5-high.toml"
SMT = ROOT / "scenarios" / "apache-cpu.toml"


def _rows(*args):
    return run_json("scaling", *args, "--json")


def test_the_parts_add_up_to_the_busy_time_and_the_growth():
    r = _rows(LOCKS, "--cores", "4,16,32", "--duration", "3s")
    for row in r["rows"]:
        w = row["why"]
        # processor time per transaction is processors / ITR (ITR: transactions per busy LPAR-second)
        assert w["cpu_us_per_tx"] == pytest.approx(row["cores"] * 1e6 / row["itr"], rel=1e-9)
        parts = w["guest_us_per_tx"] + w["cp_us_per_tx"] + w["smt_us_per_tx"] + w["spin_us_per_tx"]
        assert parts == pytest.approx(w["cpu_us_per_tx"], rel=1e-12)
        g = w["growth"]
        assert sum(g[k] for k in why.CAUSES) == pytest.approx(g["total"], abs=1e-9)
    assert r["rows"][0]["why"]["growth"]["total"] == 0.0


def test_lock_spin_grows_with_cores_and_names_the_lock():
    """C5's shape (400 short-burst users): SRMSLOCK spin per transaction grows with the N-way."""
    r = _rows(LOCKS, "--cores", "4,32", "--duration", "3s")
    small, large = (x["why"] for x in r["rows"])
    assert large["spin_us_per_tx"] > 5 * small["spin_us_per_tx"] > 0
    assert large["top_lock"] == "SRMSLOCK"
    assert large["growth"]["spin"] > 1.0
    assert "spin on CP locks, mostly SRMSLOCK" in why.sentence(r["knee"])


def test_a_spread_lpar_shows_cpi_as_the_first_cause_and_the_knee_where_itr_falls_short():
    """The Apache stand-in on 4 then 32 z13 cores: the LPAR spreads over chips, CPI rises (the
    drawer sourcing model), and that is the growth of CPU per transaction."""
    r = _rows(APACHE, "--cores", "4,32", "--duration", "3s", "--knee", "0.95")
    k = r["knee"]
    assert k["cores"] == 32 and k["itr_vs_caf"] < 0.95
    assert k["causes"][0] == "cpi"
    assert r["rows"][1]["why"]["cpi"] > r["rows"][0]["why"]["cpi"]
    assert k["growth"]["cpi"] > 10
    assert why.sentence(k).startswith("Stops scaling at 32 cores")
    easy = _rows(APACHE, "--cores", "4,32", "--duration", "3s", "--knee", "0.5")["knee"]
    assert easy["cores"] is None and why.sentence(easy).startswith("Scales to 32 cores")


def test_smt_time_is_its_own_part():
    """SMT-2 with every thread busy at 4 cores and half of them at 8: thread time lost to busy
    siblings is the SMT part, and it falls as the threads spread; non-SMT has none."""
    r = _rows(SMT, "--cores", "4,8", "--smt", "off,smt2", "--duration", "2s")
    off, smt2 = (s["rows"] for s in r["series"])
    assert all(x["why"]["smt_us_per_tx"] == 0.0 for x in off)
    assert smt2[0]["why"]["smt_us_per_tx"] > smt2[1]["why"]["smt_us_per_tx"] > 0
    assert smt2[1]["why"]["growth"]["smt"] < -5
    assert r["knee"] == r["series"][0]["knee"]


def test_the_table_sentence_and_chart(tmp_path):
    p = zvmlab("scaling", LOCKS, "--cores", "4,16", "--duration", "2s", "--plot", tmp_path / "s.svg")
    assert p.returncode == 0, p.stderr
    assert "Why: processor us per transaction" in p.stdout and "SRMSLOCK" in p.stdout
    assert "CPU per transaction" in p.stdout
    svg = (tmp_path / "s.svg").read_text()
    # the third panel stacks the causes: work at the first CPI, the CPI stretch, lock spin
    assert "CPI stretch" in svg and "lock spin" in svg and "processor us per transaction" in svg
    bad = zvmlab("scaling", LOCKS, "--cores", "4,16", "--knee", "1.5")
    assert bad.returncode == 2 and "--knee" in bad.stderr


def test_no_transactions_no_causes():
    assert why.breakdown({"transactions": 0}) is None
    k = why.knee([{"cores": 1, "itr_vs_caf": 1.0, "why": None}, {"cores": 2, "itr_vs_caf": 0.5, "why": None}])
    assert k["cores"] == 2 and k["growth"] is None
    assert "need a transactional workload" in why.sentence(k)


_us = st.floats(0.0, 1e4, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_us, _us, _us, _us, st.floats(0.5, 5.0)), min_size=2, max_size=2))
def test_growth_parts_add_up_for_any_runs(runs):
    b = [{"guest_us_per_tx": g + 1.0, "cp_us_per_tx": c, "smt_us_per_tx": s, "spin_us_per_tx": p, "cpi": cpi,
          "cpu_us_per_tx": g + 1.0 + c + s + p} for g, c, s, p, cpi in runs]
    g = why.growth(b[0], b[1])
    assert sum(g[k] for k in why.CAUSES) == pytest.approx(g["total"], rel=1e-9, abs=1e-9)
    if b[0] == b[1]:
        assert all(abs(v) < 1e-9 for v in g.values())


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                     lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                     max_leaves=12)
_keys = st.sampled_from(["transactions", "duration_s", "users", "system_pct", "locks", "smt", "cpi"])


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_keys, _json, max_size=7))
def test_a_damaged_summary_gives_no_breakdown_rather_than_an_exception(summary):
    """report --vs reads summary.json from run directories, which may be anything."""
    w = why.breakdown_or_none(summary)
    assert w is None or isinstance(w["cpu_us_per_tx"], float)


def test_a_pure_cpu_workload_costs_its_nominal_cpu_per_transaction():
    """scaling-web's transactions are 4 ms of guest CPU (exponential) at a one-chip CPI: the
    breakdown reads back about 4000 us of guest time per transaction, almost no CP, no spin
    growth and no CPI change from 1 to 4 cores (one chip)."""
    r = _rows(ROOT / "scenarios" / "scaling-web.toml", "--cores", "1,4", "--duration", "60s")
    for row in r["rows"]:
        w = row["why"]
        assert w["guest_us_per_tx"] == pytest.approx(4000, rel=0.04)
        assert w["cp_us_per_tx"] < 0.01 * w["guest_us_per_tx"]
    g = r["rows"][1]["why"]["growth"]
    assert g["cpi"] == 0.0 and abs(g["spin"]) < 0.01
