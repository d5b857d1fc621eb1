"""The Python API: load, with_, run, tidy tables in pandas / polars / Arrow, reports, sweep; the
README's notebook example runs as written; run --out's tidy CSV and Parquet; report --format parquet."""

import re

import pytest

import zvmlab
from conftest import ROOT, SHOWCASE, zvmlab as cli


@pytest.fixture(scope="module")
def res():
    sc = zvmlab.load(SHOWCASE).with_(processors=3, duration="20s")
    return zvmlab.run(sc, seed=3)


def test_with_changes_and_checks_values():
    sc = zvmlab.load(SHOWCASE)
    two = sc.with_(processors=12, smt="smt2")
    assert (two.processors, two.loaded.smt) == (12, "smt2") and sc.processors != 12
    assert two.with_({"srm.dspslice": 2}).loaded.params["srm.dspslice"] == 2
    with pytest.raises(zvmlab.InputError, match="processors"):
        sc.with_(processors=999)
    with pytest.raises(zvmlab.InputError, match="keyword"):
        sc.with_(procesors=4)
    with pytest.raises(zvmlab.InputError, match="no parameter"):
        sc.with_({"srm.nothing": 1})


def test_run_is_deterministic_and_tables_are_tidy(res):
    again = zvmlab.run(zvmlab.load(SHOWCASE).with_(processors=3, duration="20s"), seed=3)
    assert again.summary == res.summary
    assert res.summary["processors"] == 3 and res.summary["seed"] == 3
    users = res.users.to_pandas()
    assert list(users["userid"]) == [u["userid"] for u in res.summary["users"]]
    assert users["cpu_pct"].dtype.kind == "f" and users["transactions"].dtype.kind == "i"
    assert abs(users["cpu_pct"].sum() - sum(u["cpu_pct"] for u in res.summary["users"])) < 1e-9
    assert users["resp_mean_ms"].notna().all()
    procs = res.processors.to_polars()
    assert procs.height == 3 * len(res.summary["intervals"]) and set(procs["processor"]) == {0, 1, 2}
    assert res.intervals.to_arrow().column_names[:3] == ["interval", "start_s", "end_s"]
    assert len(res.devices) == 0 and res.devices.to_pandas().empty
    assert "<table>" in res._repr_html_() and "<table>" in res.users._repr_html_()


def test_reports_of_a_result_as_frames(res):
    reps = res.reports("FCX112,FCX114")
    assert set(reps) == {"FCX112", "FCX114"}
    df = reps["FCX112"].tables["users"].to_pandas()
    assert set(df["row"]) == {"data", ">>Mean>>", ">System<"}
    assert df[df["row"] == "data"]["userid"].tolist() == sorted(u["userid"] for u in res.summary["users"])
    assert df["cpu"].dtype.kind == "f" and df["resp"].notna().all()


def test_sweep_frame(tmp_path):
    f = zvmlab.sweep(zvmlab.load(SHOWCASE), {"processors": [1, 2]}, duration="5s", store=tmp_path / "s.duckdb")
    df = f.to_pandas()
    assert list(df["processors"]) == [1, 2] and {"etr", "resp_mean_ms", "cpu_USER0"} <= set(df.columns)
    assert df["cpu_USER0"][1] > df["cpu_USER0"][0]


def test_readme_notebook_example_runs(tmp_path, monkeypatch):
    text = (ROOT / "README.md").read_text()
    m = re.search(r"<!-- api-example -->\s*```python\n(.*?)```", text, re.S)
    assert m, "the README's API example (after <!-- api-example -->) is missing"
    monkeypatch.chdir(ROOT)
    ns: dict = {}
    exec(compile(m.group(1), "README.md", "exec"), ns)
    assert ns["res"].summary["etr"] > 0


def test_run_out_writes_tidy_csv_and_parquet(tmp_path):
    import pandas as pd

    out = tmp_path / "r"
    p = cli("run", SHOWCASE, "--duration", "5s", "--out", out)
    assert p.returncode == 0, p.stderr
    for name in ("intervals", "users", "user_intervals", "processors", "devices"):
        a, b = pd.read_csv(out / "tables" / f"{name}.csv"), pd.read_parquet(out / "tables" / f"{name}.parquet")
        assert list(a.columns) == list(b.columns) and len(a) == len(b)
    u = pd.read_csv(out / "tables" / "users.csv")
    assert all(u[c].dtype.kind in "fi" for c in u.columns if c != "userid")
    q = cli("report", out, "--format", "parquet", "--out", tmp_path / "pq")
    assert q.returncode == 0, q.stderr
    df = pd.read_parquet(tmp_path / "pq" / "FCX112-USER-users.parquet")
    assert df["cpu"].dtype.kind == "f" and ">>Mean>>" in set(df["row"])
    bad = cli("report", out, "--format", "parquet")
    assert bad.returncode == 2 and "--out" in bad.stderr


def test_replicate_frame_and_bad_selection():
    f = zvmlab.replicate(only="A1")
    df = f.to_pandas()
    assert set(df["id"]) == {"A1"} and set(df["verdict"]) <= {"pass", "miss"} and len(df) >= 4
    with pytest.raises(zvmlab.InputError, match="no catalogue row"):
        zvmlab.replicate(only="Q9")
