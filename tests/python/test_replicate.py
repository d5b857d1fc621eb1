"""The replicate machinery: catalogue, tolerances, verdicts, value lookup."""

import math

import pytest

from zvmlab.errors import InputError
from zvmlab.lab import replicate as rep

EXPERIMENT_IDS = None


def test_catalogue_covers_every_experiment_row():
    text = (rep.ROOT.parent / "shared" / "EXPERIMENTS.md")
    rows = rep.load_catalogue()
    ids = [r.id for r in rows]
    assert len(ids) == len(set(ids))
    if text.exists():
        import re
        published = set(re.findall(r"^\| ([A-F]\d+) \|", text.read_text(), re.M))
        assert published <= set(ids), sorted(published - set(ids))
    for r in rows:
        assert r.status in ("modelled", "not-modelled", "out-of-scope")
        if r.status == "modelled" and r.suite:
            assert r.metrics and r.base and r.compare
            assert (rep.ROOT / "scenarios" / "suites" / f"{r.suite}.toml").exists()
        elif r.status == "modelled":
            assert r.scenario and r.metrics and (r.base or r.compare)
            assert (rep.ROOT / "scenarios" / "replicate" / r.scenario).exists()
        else:
            assert r.reason


def test_tolerance():
    t = rep.Tolerance.parse("2pp", "x")
    assert t.ok(26.9, 25) and not t.ok(27.1, 25)
    r = rep.Tolerance.parse("20%", "x")
    assert r.ok(119, 100) and not r.ok(121, 100) and r.ok(-119, -100)
    with pytest.raises(InputError):
        rep.Tolerance.parse("two", "x")


def test_judge():
    t = rep.Tolerance.parse("2pp", "x")
    assert rep._judge(1.0, "tracks", t) == rep.PASS
    assert rep._judge(5.0, "tracks", t) == rep.MISS
    assert rep._judge(5.0, "deviated", t) == rep.PASS
    assert rep._judge(1.0, "deviated", t) == rep.MISS
    assert rep._judge(24.0, 25.0, t) == rep.PASS
    assert rep._judge(math.nan, 25.0, t) == rep.MISS
    assert rep._judge(3.0, None, t) is None


def test_lookup():
    run = {"etr": 10.0, "users": [{"userid": "A", "cpu_pct": 30.0}, {"userid": "B", "cpu_pct": 60.0}],
           "check": {"max_abs_error_pct": 0.5}}
    assert rep._lookup(run, "etr") == 10.0
    assert rep._lookup(run, "users.B.cpu_pct") == 60.0
    assert rep._lookup(run, "users.B.cpu_pct / users.A.cpu_pct") == 2.0
    assert rep._lookup(run, "check.max_abs_error_pct") == 0.5
    assert math.isnan(rep._lookup(run, "users.C.cpu_pct"))


def test_not_modelled_rows_are_reported_not_run():
    rows = [r for r in rep.load_catalogue() if r.status != "modelled"][:3]
    out = rep.replicate(rows)
    assert [o["verdict"] for o in out] == [rep.NOT_MODELLED if r.status == "not-modelled" else rep.OUT_OF_SCOPE
                                           for r in rows]
    for o in out:
        assert {"id", "metric", "published", "simulated", "tolerance", "verdict"} <= o.keys()


def test_judge_shape():
    xs = [1, 2, 4, 8, 16, 32]
    assert rep.judge_shape(xs, [8, 4, 2, 1, 0.9, 0.85], "decreasing") == rep.PASS
    assert rep.judge_shape(xs, [8, 4, 5, 1, 0.9, 0.85], "decreasing") == rep.MISS
    assert rep.judge_shape(xs, [1, 1, 1, 1, 1, 1], "decreasing") == rep.MISS
    assert rep.judge_shape(xs, [8, 4, 2, 1, 0.9, 0.85], "flat above 8") == rep.PASS
    assert rep.judge_shape(xs, [8, 7, 6, 5, 3, 1], "flat above 8") == rep.MISS
    assert rep.judge_shape(xs, [5, 2, 1, 1, 2, 4], "u-shaped") == rep.PASS
    assert rep.judge_shape(xs, [5, 4, 3, 2, 1, 0.5], "u-shaped") == rep.MISS
    assert rep._lookup({"users": [{"userid": "A", "cpu_pct": 70.0}]}, "|users.A.cpu_pct - 80|") == 10.0


def test_parallel_equals_sequential():
    rows = [r for r in rep.load_catalogue() if r.id in ("A1", "A3", "B1")]
    assert rep.replicate_parallel(rows, 2) == rep.replicate(rows)


def test_ratio_metric_is_compare_over_base(monkeypatch):
    runs = {"lo": {"etr": 10.0}, "hi": {"etr": 25.0}}
    monkeypatch.setattr(rep, "run_level", lambda sc, level, seed=None, check=False: runs[level])
    monkeypatch.setattr(rep.scenario, "load", lambda path: None)
    row = rep.Row("X1", "000", "", "what", "published", "P", "modelled", scenario="x.toml", base="lo",
                  compare="hi", metrics=[rep.Metric("ETRR", "etr", rep.Tolerance.parse("10%", "x"),
                                                    published_ratio=2.4)])
    (out,) = rep.replicate([row])
    assert out["simulated"]["compare"] == 2.5 and out["verdict"] == rep.PASS


def test_suite_rows_read_summary_groups_and_gaps():
    from zvmlab.lab import replicate_suite as rs

    def cell(i, storage, e, t):
        return {"id": f"c{i}", "axes": {"storage": storage, "cores": i}, "etrr": {"ratio": e}, "itrr": {"ratio": t}}

    res = {"summary": {"etrr": {"mean": 1.1}}, "scenarios": [
        cell(1, "rich", 1.0, 1.0), cell(2, "rich", 1.02, 1.0), cell(3, "constrained", 1.3, 1.2),
        cell(4, "constrained", 1.1, 1.4)]}
    d = rs.document(res)
    assert d["cells"] == 4 and d["summary"]["etrr"]["mean"] == 1.1
    assert d["by"]["storage"]["rich"]["etrr_mean"] == pytest.approx(1.01)
    assert d["by"]["storage"]["constrained"]["itrr_mean"] == pytest.approx(1.3)
    assert d["gap"]["storage"]["constrained-rich"]["etrr"] == pytest.approx(0.19)
    assert d["gap"]["storage"]["rich-constrained"]["itrr"] == pytest.approx(-0.3)
    assert rep._lookup(d, "gap.storage.constrained-rich.etrr") == pytest.approx(0.19)


def test_a_suite_row_runs_the_suite_at_both_levels():
    row = rep.Row("F9", "000", "x", "smoke suite", "published", "P", "modelled", base="zvm-6.3", compare="zvm-6.4",
                  suite="smoke", metrics=[rep.Metric("cells", "cells", rep.Tolerance.parse("0pp", "t"),
                                                     published_compare=8),
                                          rep.Metric("ETRR", "summary.etrr.mean", rep.Tolerance.parse("0pp", "t"),
                                                     published_compare="above 0")])
    out = rep.replicate([row])
    assert [o["verdict"] for o in out] == [rep.PASS, rep.PASS]
    assert out[0]["simulated"]["compare"] == 8


def test_suite_row_metrics_may_name_their_own_levels(monkeypatch):
    """F2: one suite run per distinct pair of levels, each metric read from its own pair."""
    from zvmlab.lab import replicate_suite as rs

    calls = []

    def fake(suite, base, compare, seed=None):
        calls.append((base, compare))
        return {"summary": {"etrr": {"mean": {"zvm-6.4-1q17": 1.0, "zvm-6.4-3q17": 1.5}[compare]}}}

    monkeypatch.setattr(rs, "measure", fake)
    tol = rep.Tolerance.parse("5%", "t")
    row = rep.Row("F9", "000", "x", "two stacks", "published", "P", "modelled", base="zvm-6.4",
                  compare="zvm-6.4-1q17", suite="regression",
                  metrics=[rep.Metric("a", "summary.etrr.mean", tol, published_compare=1.0),
                           rep.Metric("b", "summary.etrr.mean", tol, published_compare=1.5,
                                      base="zvm-6.4-1q17", compare="zvm-6.4-3q17"),
                           rep.Metric("c", "summary.etrr.mean", tol, published_compare=1.0)])
    out = rep.replicate([row])
    assert calls == [("zvm-6.4", "zvm-6.4-1q17"), ("zvm-6.4-1q17", "zvm-6.4-3q17")]
    assert [o["verdict"] for o in out] == [rep.PASS] * 3
    assert [o["compare_level"] for o in out] == ["zvm-6.4-1q17", "zvm-6.4-3q17", "zvm-6.4-1q17"]
    f2 = next(r for r in rep.load_catalogue() if r.id == "F2")
    assert {(m.base or f2.base, m.compare or f2.compare) for m in f2.metrics} == {
        ("zvm-6.4", "zvm-6.4-1q17"), ("zvm-6.4-1q17", "zvm-6.4-3q17")}


def test_a_scaling_row_reads_the_expectation_curve():
    row = next(r for r in rep.load_catalogue() if r.id == "B11")
    assert row.scaling and row.status == "modelled"
    out = rep.replicate([row])
    assert [o["verdict"] for o in out] == [rep.PASS] * len(out)
    assert out[0]["simulated"]["compare"] == pytest.approx(0.890)


def test_markdown_table_counts_metrics_per_row():
    from zvmlab.commands.replicate import markdown

    res = [{"id": "A1", "what": "w|x", "metric": "m1", "verdict": rep.PASS, "reason": ""},
           {"id": "A1", "what": "w|x", "metric": "m2", "verdict": rep.MISS, "reason": ""},
           {"id": "X1", "what": "gc", "metric": None, "verdict": "out of scope", "reason": "a JVM feature"}]
    lines = markdown(res).splitlines()
    assert lines[2] == "| A1 | w/x | 1/2 pass |"
    assert lines[3] == "| X1 | gc | out of scope (a JVM feature) |"
