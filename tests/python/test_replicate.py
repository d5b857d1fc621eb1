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
    assert rep.replicate_parallel(rows, 2, seeds=2) == rep.replicate(rows, seeds=2)


def _fake_runs(monkeypatch, etr_of):
    """Runs whose ETR is etr_of(level, seed): no engine."""
    from zvmlab.lab import replicate_runs as R

    monkeypatch.setattr(R.RunReq, "execute", lambda self: {"etr": etr_of(self.level, self.seed)})
    monkeypatch.setattr(rep, "seeds_for", lambda r, seed, n: [1 + k for k in range(n)])


def _ratio_row(published, tol="10%"):
    return rep.Row("X1", "000", "", "what", "published", "P", "modelled", scenario="x.toml", base="lo",
                   compare="hi", metrics=[rep.Metric("ETRR", "etr", rep.Tolerance.parse(tol, "x"),
                                                     published_ratio=published)])


def test_ratio_metric_is_compare_over_base(monkeypatch):
    _fake_runs(monkeypatch, lambda lv, s: {"lo": 10.0, "hi": 25.0}[lv])
    (out,) = rep.replicate([_ratio_row(2.4)])
    assert out["simulated"]["compare"] == 2.5 and out["verdict"] == rep.PASS
    assert out["basis"] == "predicted" and out["seeds"] == [1, 2, 3]


def test_a_flat_result_fails_a_ratio_row(monkeypatch):
    """'No effect' never passes a published effect, whatever the tolerance (issue 15)."""
    _fake_runs(monkeypatch, lambda lv, s: 10.0)
    (out,) = rep.replicate([_ratio_row(1.03, "20%")])
    assert out["simulated"]["compare"] == 1.0 and out["verdict"] == rep.MISS
    _fake_runs(monkeypatch, lambda lv, s: {"lo": 10.0, "hi": 9.99}[lv])  # reversed, within 20 %
    (out,) = rep.replicate([_ratio_row(1.03, "20%")])
    assert out["verdict"] == rep.MISS
    _fake_runs(monkeypatch, lambda lv, s: {"lo": 10.0, "hi": 10.1}[lv])  # +1 %: under half of +3 %
    (out,) = rep.replicate([_ratio_row(1.03, "20%")])
    assert out["verdict"] == rep.MISS
    _fake_runs(monkeypatch, lambda lv, s: {"lo": 10.0, "hi": 10.3}[lv])
    (out,) = rep.replicate([_ratio_row(1.03, "20%")])
    assert out["verdict"] == rep.PASS
    # a published "no change" needs no direction
    _fake_runs(monkeypatch, lambda lv, s: 10.0)
    (out,) = rep.replicate([_ratio_row(1.0, "1%")])
    assert out["verdict"] == rep.PASS


def test_a_change_published_at_both_levels_needs_its_direction():
    from zvmlab.lab import replicate_judge as J

    m = rep.Metric("T/V", "tv_ratio", rep.Tolerance.parse("20%", "x"), published_base=1.0, published_compare=1.15)
    assert J.point_verdict(m, {"base": 1.1, "compare": 1.12}) == rep.MISS  # up 1.8 %: under half of 15 %
    assert J.point_verdict(m, {"base": 1.0, "compare": 1.08}) == rep.PASS  # up 8 %: over half, within 20 %
    assert J.point_verdict(m, {"base": 1.1, "compare": 1.05}) == rep.MISS  # both within 20 %, reversed
    assert J.point_verdict(m, {"base": 1.0, "compare": 1.0}) == rep.MISS  # flat
    assert J.point_verdict(m, {"base": 1.0, "compare": 1.15}) == rep.PASS


def test_a_margin_inside_the_seed_spread_is_not_resolved(monkeypatch):
    # published 2.0 +- 10 %: seeds at 2.1, 2.3, 2.1 -> mean 2.167 passes, the 2.3 seed misses
    _fake_runs(monkeypatch, lambda lv, s: {"lo": 1.0, "hi": {1: 2.1, 2: 2.3, 3: 2.1}[s]}[lv])
    (out,) = rep.replicate([_ratio_row(2.0)])
    assert out["verdict"] == rep.UNRESOLVED
    assert out["spread"]["ratio"]["min"] == 2.1 and out["spread"]["ratio"]["max"] == 2.3


def test_every_catalogue_metric_has_a_basis_and_calibrations_name_their_parameter():
    from zvmlab import engine

    names = {p["name"] for p in engine.params()}
    n = 0
    for r in rep.load_catalogue():
        for m in r.metrics:
            n += 1
            assert m.basis in rep.BASES, (r.id, m.name)
            if m.basis == "calibrated":
                assert m.calibrates, (r.id, m.name)
                # a parameter of the table, or "scenario.toml: what" naming a scenario file
                if ".toml:" in m.calibrates:
                    assert (rep.ROOT / "scenarios" / "replicate" / m.calibrates.split(":")[0]).exists(), m.calibrates
                else:
                    for part in m.calibrates.split(" and "):
                        name = part.split(" (")[0].strip()
                        assert name in names, (r.id, m.name, name)
                # kind C: within 5 % after calibration
                assert m.tolerance.relative and m.tolerance.value <= 0.05 + 1e-12, (r.id, m.name)
            if m.basis == "construction":
                assert m.why, (r.id, m.name)
    assert n > 200


def test_a_metric_without_a_basis_is_refused(tmp_path):
    cat = tmp_path / "c.toml"
    cat.write_text('[[row]]\nid = "X1"\nseed = "000"\nwhat = "w"\npublished = "p"\nkind = "P"\n'
                   'status = "modelled"\nscenario = "a1.toml"\nbase = "zvm-6.3"\n'
                   '[[row.metric]]\nname = "m"\nvalue = "etr"\npublished_base = 1\n')
    with pytest.raises(InputError, match="basis"):
        rep.load_catalogue(cat)
    cat.write_text(cat.read_text() + 'basis = "calibrated"\n')
    with pytest.raises(InputError, match="names the parameter"):
        rep.load_catalogue(cat)


def test_headline_counts_predicted_metrics_apart():
    res = [{"id": "A", "metric": "m", "basis": "predicted", "verdict": rep.PASS},
           {"id": "A", "metric": "n", "basis": "predicted", "verdict": rep.UNRESOLVED},
           {"id": "B", "metric": "k", "basis": "construction", "verdict": rep.PASS},
           {"id": "C", "metric": "c", "basis": "calibrated", "verdict": rep.MISS}]
    h = rep.headline(res)
    assert h.startswith("predicted: 1 of 2 within tolerance, 1 not resolved")
    assert "calibrated: 0 of 1" in h and "construction: 1 of 1" in h


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
    out = rep.replicate([row], seeds=1)
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
    monkeypatch.setattr(rep, "seeds_for", lambda r, seed, n: [1])
    tol = rep.Tolerance.parse("5%", "t")
    row = rep.Row("F9", "000", "x", "two stacks", "published", "P", "modelled", base="zvm-6.4",
                  compare="zvm-6.4-1q17", suite="regression",
                  metrics=[rep.Metric("a", "summary.etrr.mean", tol, published_compare=1.0),
                           rep.Metric("b", "summary.etrr.mean", tol, published_compare=1.5,
                                      base="zvm-6.4-1q17", compare="zvm-6.4-3q17"),
                           rep.Metric("c", "summary.etrr.mean", tol, published_compare=1.0)])
    out = rep.replicate([row], seeds=1)
    assert calls == [("zvm-6.4", "zvm-6.4-1q17"), ("zvm-6.4-1q17", "zvm-6.4-3q17")]
    assert [o["verdict"] for o in out] == [rep.PASS] * 3
    assert [o["compare_level"] for o in out] == ["zvm-6.4-1q17", "zvm-6.4-3q17", "zvm-6.4-1q17"]
    f2 = next(r for r in rep.load_catalogue() if r.id == "F2")
    assert {(m.base or f2.base, m.compare or f2.compare) for m in f2.metrics} == {
        ("zvm-6.4", "zvm-6.4-1q17"), ("zvm-6.4-1q17", "zvm-6.4-3q17")}


def test_a_scaling_row_reads_the_expectation_curve():
    row = next(r for r in rep.load_catalogue() if r.id == "B11")
    assert row.scaling and row.status == "modelled"
    out = rep.replicate([row], seeds=1)
    assert [o["verdict"] for o in out] == [rep.PASS] * len(out)
    assert out[0]["simulated"]["compare"] == pytest.approx(0.890)


def test_markdown_table_counts_metrics_per_row():
    from zvmlab.commands.replicate import markdown

    res = [{"id": "A1", "what": "w|x", "metric": "m1", "verdict": rep.PASS, "reason": "", "basis": "predicted"},
           {"id": "A1", "what": "w|x", "metric": "m2", "verdict": rep.MISS, "reason": "", "basis": "predicted"},
           {"id": "A1", "what": "w|x", "metric": "m3", "verdict": rep.PASS, "reason": "", "basis": "construction"},
           {"id": "X1", "what": "gc", "metric": None, "verdict": "out of scope", "reason": "a JVM feature"}]
    lines = markdown(res).splitlines()
    assert lines[2] == "| A1 | w/x | 1/2 pass |  | 1/1 pass |"
    assert lines[3] == "| X1 | gc | out of scope (a JVM feature) |  |  |"


def test_a_knife_edge_pass_is_reported_fragile(tmp_path, monkeypatch):
    """--robustness: a pass that flips when one assumed parameter it reads is doubled is fragile,
    and names that parameter; parameters that are not read, or not assumed, are not tried."""
    from zvmlab.lab import executor as ex
    from zvmlab.lab import replicate_robust as rob
    from zvmlab.lab import replicate_runs as R
    from zvmlab.lab.store import Store

    def etr(scale: dict) -> float:  # 109 against 100 +- 10 %: doubling srm.test_idle breaks it
        return 109.0 * dict(scale).get("srm.test_idle", 1.0) ** 0.1

    def summary(scale) -> dict:
        return {"etr": etr(scale), "params_read": ["cpu.clock_ghz", "sched.tick", "srm.test_idle"]}

    monkeypatch.setattr(R.RunReq, "execute", lambda self: summary(self.scale))
    monkeypatch.setattr(rob, "assumed_params", lambda: {"srm.test_idle", "sched.tick", "srm.dspslice"})

    class Fake:
        description = "fake"
        tried: list = []

        def run(self, specs, fn=None):
            for s in specs:
                Fake.tried.append(dict(s.overrides.get("scale") or {}))
                yield s, {"key": s.key, "summary": summary(s.overrides.get("scale") or {}), "wall_s": 0.0,
                          "versions": ex.versions()}

        def close(self):
            pass

    row = rep.Row("X9", "000", "", "what", "p", "P", "modelled", scenario="a1.toml", compare="zvm-6.4",
                  metrics=[rep.Metric("ETR", "etr", rep.Tolerance.parse("10%", "t"), published_compare=100.0)])
    res = rep.replicate([row], seeds=1)
    assert res[0]["verdict"] == rep.PASS
    with Store.open(tmp_path / "r.duckdb") as store:
        rob.check([row], res, {"X9": [1]}, Fake(), store)
    assert res[0]["robust"] is False
    assert [(f["param"], f["factor"]) for f in res[0]["fragile"]] == [("srm.test_idle", 2.0)]
    assert res[0]["perturbations"] == 4  # sched.tick and srm.test_idle at x0.5 and x2
    assert {k for t in Fake.tried for k in t} == {"sched.tick", "srm.test_idle"}
    # a second check reuses the stored runs
    Fake.tried = []
    with Store.open(tmp_path / "r.duckdb") as store:
        rob.check([row], res, {"X9": [1]}, Fake(), store)
    assert Fake.tried == []


def test_replicate_through_the_store_equals_direct_runs_and_reuses_them(tmp_path):
    from zvmlab.lab import executor as ex
    from zvmlab.lab.store import Store

    rows = [r for r in rep.load_catalogue() if r.id in ("A1", "A3")]
    direct = rep.replicate(rows, seeds=2)
    with Store.open(tmp_path / "s.duckdb") as store:
        stored = rep.replicate(rows, seeds=2, executor=ex.make(None, 1), store=store)
        assert store.counts()["runs"] == 12  # A1: 2 levels; A3: 2 scenarios x 2 levels; 2 seeds
    assert stored == direct

    class NoRuns:
        def run(self, specs, fn=None):
            assert not specs, f"{len(specs)} runs again"
            return iter(())

    with Store.open(tmp_path / "s.duckdb") as store:
        assert rep.replicate(rows, seeds=2, executor=NoRuns(), store=store) == direct


def test_replicate_ctrl_c_keeps_finished_runs_and_resumes(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    store = tmp_path / "s.duckdb"
    cmd = [sys.executable, "-m", "zvmlab", "replicate", "--only", "A4", "--seeds", "2", "-j", "1",
           "--store", str(store), "--json", str(tmp_path / "r.json")]
    env = dict(os.environ, ZVMLAB_PROGRESS="lines")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    deadline, seen = time.monotonic() + 120, ""
    while time.monotonic() < deadline:
        line = p.stderr.readline()
        seen += line
        if line.startswith("replicate: ") and int(line.split()[1].split("/")[0]) >= 4:
            break
    p.send_signal(signal.SIGINT)
    rest = p.communicate(timeout=60)[1]
    assert p.returncode == 130, seen + rest
    assert "Traceback" not in seen + rest
    assert not (tmp_path / "r.json").exists()
    from zvmlab.lab.store import Store

    with Store.open(store) as s:
        kept = s.counts()["runs"]
    assert kept >= 4
    q = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert q.returncode == 0, q.stderr[-2000:]
    assert "replicate: 0/" not in q.stderr  # it started from what was kept


def test_scaling_chart_draws_smt2_columns_as_their_own_line_in_the_same_panel():
    """D8's SMT-2 columns (``at.smt = "smt2"``) share the ITR panel with the non-SMT ones but are
    a line of their own, in their own colour and legend entry; without them there is no SMT line."""
    from zvmlab.lab import replicate_html

    def m(cores, pub, sim, at):
        return {"id": "D8", "metric": f"ITR, {cores} cores" + (" SMT-2" if "smt" in at else ""), "basis": "predicted",
                "at": at, "cores": cores, "base_level": None, "compare_level": "zvm-6.3",
                "published": {"compare": pub}, "simulated": {"compare": sim},
                "spread": {"compare": {"min": sim, "max": sim}}, "tolerance": "20%", "verdict": "pass", "seeds": [1]}

    plain = [m(c, p, s, {"processors": c}) for c, p, s in ((4, 347, 360), (16, 1190, 1140), (32, 1982, 1950))]
    smt = [m(c, p, s, {"processors": c, "smt": "smt2"}) for c, p, s in ((4, 492, 500), (16, 2272, 2000))]
    svg = replicate_html.scaling_svg("D8", plain + smt)
    assert svg.count('id="axes_') == 1
    assert "zvm-6.3 SMT-2" in svg and "#31a354" in svg
    alone = replicate_html.scaling_svg("D8", plain)
    assert "SMT-2" not in alone and "#31a354" not in alone


def test_workload_chart_joins_the_rows_of_one_scenario_on_their_shared_quantities():
    """Apache's compatibility (B6), exploitation (B7) and SMT-2 (B8) rows share b7-apache.toml:
    their ITR lines go in one workload chart; a quantity only one row draws (C1's lock figures
    beside D8 on d8-apache-paging.toml) makes no workload chart."""
    from zvmlab.lab import replicate_html

    def m(rid, name, cores, side, level, scenario, smt=None):
        at = {"processors": cores} | ({"smt": smt} if smt else {})
        return {"id": rid, "metric": name, "basis": "predicted", "at": at, "cores": cores, "scenario": scenario,
                "base_level": level if side == "base" else None, "compare_level": level if side == "compare" else None,
                "published": {side: 100.0 * cores}, "simulated": {side: 90.0 * cores}, "spread": {},
                "tolerance": "20%", "verdict": "pass", "seeds": [1]}

    ap = "b7-apache.toml"
    rows = [m("B6", f"ITR, {c} cores", c, "base", "zvm-6.3-compat", ap) for c in (4, 16)]
    rows += [m("B7", f"ITR, {c} cores", c, "compare", "zvm-6.3", ap) for c in (4, 16, 64)]
    rows += [m("B8", f"ITR, {c} cores SMT-2", c, "compare", "zvm-6.3", ap, "smt2") for c in (4, 16)]
    rows += [m("C1", f"SRMSLOCK spin, {c} cores", c, "base", "zvm-6.3", "d8.toml") for c in (16, 32)]
    rows += [m("D8", f"ITR, {c} cores", c, "compare", "zvm-6.3", "d8.toml") for c in (4, 16)]
    w = replicate_html.workloads(rows)
    assert list(w) == [ap] and {r["id"] for r in w[ap]} == {"B6", "B7", "B8"}
    svg = replicate_html.scaling_svg("B6, B7, B8", w[ap])
    for label in ("zvm-6.3-compat", "simulated, zvm-6.3<", "zvm-6.3 SMT-2"):
        assert label.rstrip("<") in svg
