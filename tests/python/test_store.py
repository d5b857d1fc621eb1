"""The results store: contents, DataFrames, atomic writes, Parquet, bad files."""

import json
import subprocess
import sys

import duckdb
import pandas as pd
import pytest

from zvmlab.errors import InputError
from zvmlab.lab import executor, store, suite
from zvmlab.lab.store import Store

from conftest import zvmlab


@pytest.fixture(scope="module")
def runs():
    """Three finished runs of one smoke cell: two seeds at 6.3, one at 6.4."""
    s = suite.load("smoke")
    cell = next(c for c in s.cells if c.id == "web-1c-constrained")
    specs = [executor.make_spec(cell.text, cell.name, lv, seed, labels=(("suite:test", cell.id, {"x": 1}),))
             for lv, seed in (("zvm-6.3", 1), ("zvm-6.3", 2), ("zvm-6.4", 1))]
    return [(sp, executor.run_one(sp)) for sp in specs]


def put(st, spec, res, **kw):
    v = executor.versions()
    args = dict(key=spec.key, scenario_text=spec.text, scenario_hash=spec.scenario_hash, title=spec.title,
                level=spec.level, switches=spec.switches, seed=spec.seed, zvmlab_version=v["zvmlab"],
                engine_version=v["engine"], summary=res["summary"], wall_s=res["wall_s"], labels=spec.labels)
    args.update(kw)
    st.put(**args)


def test_store_holds_runs_queryable_as_dataframes(tmp_path, runs):
    path = tmp_path / "s.duckdb"
    with Store.open(path) as st:
        for spec, res in runs:
            put(st, spec, res)
        put(st, *runs[0])  # a second put of the same run changes nothing
        assert st.counts()["runs"] == 3 and st.counts()["scenarios"] == 1
    with Store.open(path, read_only=True) as st:
        df = st.query("SELECT key, level, seed, etr, itr, tv_ratio, switches, zvmlab_version, engine_version "
                      "FROM runs ORDER BY level, seed")
        assert isinstance(df, pd.DataFrame) and len(df) == 3
        assert list(df["level"]) == ["zvm-6.3", "zvm-6.3", "zvm-6.4"] and list(df["seed"]) == [1, 2, 1]
        for (spec, res) in runs:
            row = df[df["key"] == spec.key].iloc[0]
            assert row["etr"] == res["summary"]["etr"] and row["itr"] == res["summary"]["itr"]
            assert json.loads(row["switches"]) == spec.switches
            assert st.summary(spec.key)["transactions"] == res["summary"]["transactions"]
            assert "intervals" not in st.summary(spec.key) and "wall_s" not in st.summary(spec.key)
        sc = st.query("SELECT text FROM scenarios")
        assert sc["text"][0] == runs[0][0].text
        # per-interval data: one row per interval, per user per interval
        iv = st.query("SELECT key, count(*) AS n, sum(transactions) AS tx FROM intervals GROUP BY key")
        for spec, res in runs:
            r = iv[iv["key"] == spec.key].iloc[0]
            assert r["n"] == len(res["summary"]["intervals"])
            assert r["tx"] == sum(x["transactions"] for x in res["summary"]["intervals"])
        users = st.query("SELECT count(*) AS n FROM interval_users WHERE key = ?", [runs[0][0].key])
        s0 = runs[0][1]["summary"]
        assert users["n"][0] == sum(len(x["user_detail"]) for x in s0["intervals"])
        lab = st.runs("suite:test")
        assert len(lab) == 3 and set(lab["item"]) == {"web-1c-constrained"}
        assert st.metrics([runs[2][0].key])[runs[2][0].key]["level"] == "zvm-6.4"


def test_run_key_is_deterministic_and_timestamp_free(runs):
    spec = runs[0][0]
    again = executor.make_spec(spec.text, spec.name, spec.level, spec.seed)
    assert again.key == spec.key and len(spec.key) == 64
    assert executor.make_spec(spec.text, spec.name, spec.level, spec.seed + 1).key != spec.key
    assert executor.make_spec(spec.text, spec.name, "zvm-6.4", spec.seed).key != spec.key
    assert executor.make_spec(spec.text + "\n# edited\n", spec.name, spec.level, spec.seed).key != spec.key
    v = executor.versions()
    k = store.run_key(spec.scenario_hash, spec.level, spec.switches, spec.seed, v["zvmlab"], v["engine"])
    assert k == spec.key
    assert store.run_key(spec.scenario_hash, spec.level, spec.switches, spec.seed, "9.9.9", v["engine"]) != k


def test_a_failed_write_leaves_nothing(tmp_path, runs, monkeypatch):
    path = tmp_path / "s.duckdb"
    with Store.open(path) as st:
        put(st, *runs[0])
        real = store._x

        def boom(con, sql, params=None):
            if "interval_users" in sql:
                raise RuntimeError("disk fell off")
            return real(con, sql, params)

        monkeypatch.setattr(store, "_x", boom)
        with pytest.raises(RuntimeError):
            put(st, *runs[1])
        monkeypatch.setattr(store, "_x", real)
        assert st.counts() == {"scenarios": 1, "runs": 1, "intervals": len(runs[0][1]["summary"]["intervals"]),
                               "interval_users": st.counts()["interval_users"], "labels": 1,
                               "run_users": len(runs[0][1]["summary"]["users"])}
        assert st.has([runs[1][0].key]) == set()
        put(st, *runs[1])  # and the store still works
        assert st.has([r[0].key for r in runs]) == {runs[0][0].key, runs[1][0].key}


def test_parquet_export(tmp_path, runs):
    path = tmp_path / "s.duckdb"
    with Store.open(path) as st:
        for spec, res in runs:
            put(st, spec, res)
        files = st.export_parquet(tmp_path / "pq")
        counts = st.counts()
    assert {f.name for f in files} == {f"{t}.parquet" for t in store.TABLES}
    con = duckdb.connect()
    for t in store.TABLES:
        n = con.execute(f"SELECT count(*) FROM read_parquet('{tmp_path / 'pq' / (t + '.parquet')}')").fetchall()[0][0]
        assert n == counts[t]


def test_garbage_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "store.duckdb"
    bad.write_bytes(b"this is not a database\n" * 500)
    with pytest.raises(InputError) as e:
        with Store.open(bad):
            pass
    assert str(bad) in str(e.value) and "not a usable DuckDB store" in str(e.value)
    assert bad.read_bytes() == b"this is not a database\n" * 500  # left as it was


def test_truncated_store_is_a_clear_error(tmp_path, runs):
    path = tmp_path / "s.duckdb"
    with Store.open(path) as st:
        for spec, res in runs:
            put(st, spec, res)
    data = path.read_bytes()
    cut = tmp_path / "cut.duckdb"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="not a usable DuckDB store|not a zvmlab store"):
        with Store.open(cut) as st:
            st.query("SELECT * FROM interval_users")


def test_other_duckdb_file_is_not_a_store(tmp_path):
    p = tmp_path / "other.duckdb"
    con = duckdb.connect(str(p))
    con.execute("CREATE TABLE t (a INT)").fetchall()
    con.close()
    with pytest.raises(InputError, match="not a zvmlab store"):
        with Store.open(p, read_only=True):
            pass


def test_locked_store_is_a_clear_error(tmp_path):
    p = tmp_path / "s.duckdb"
    holder = subprocess.Popen([sys.executable, "-c", f"import duckdb, sys, time; c = duckdb.connect({str(p)!r}); "
                               "print('ok', flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ok"
        with pytest.raises(InputError, match="in use by another zvmlab process"):
            with Store.open(p):
                pass
    finally:
        holder.kill()
        holder.wait()


def test_cli_store_commands(tmp_path, runs):
    path = tmp_path / "s.duckdb"
    with Store.open(path) as st:
        for spec, res in runs:
            put(st, spec, res)
    p = zvmlab("store", "ls", "--store", path, "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["tables"]["runs"] == 3 and out["collections"][0]["collection"] == "suite:test"
    p = zvmlab("store", "query", "SELECT level, count(*) AS n FROM runs GROUP BY level ORDER BY level",
               "--store", path, "--json")
    assert p.returncode == 0 and json.loads(p.stdout) == [{"level": "zvm-6.3", "n": 2}, {"level": "zvm-6.4", "n": 1}]
    p = zvmlab("store", "query", "SELEC nonsense", "--store", path)
    assert p.returncode == 2 and p.stderr.startswith("zvmlab: error: SQL: bad query") and "Traceback" not in p.stderr
    p = zvmlab("store", "export", tmp_path / "pq", "--store", path)
    assert p.returncode == 0 and (tmp_path / "pq" / "runs.parquet").exists()
    p = zvmlab("store", "schema", "--store", path)
    assert p.returncode == 0 and "interval_users" in p.stdout
    p = zvmlab("store", "ls", "--store", tmp_path / "missing.duckdb")
    assert p.returncode == 2 and "no such store" in p.stderr


def test_cli_corrupt_store_exits_2_and_keeps_the_file(tmp_path):
    bad = tmp_path / "store.duckdb"
    bad.write_bytes(b"\x00garbage" * 1000)
    before = bad.read_bytes()
    for args in (("store", "ls"), ("suite", "smoke", "--base", "zvm-6.3", "--compare", "zvm-6.4", "--jobs", "1")):
        p = zvmlab(*args, "--store", bad)
        assert p.returncode == 2, p.stderr
        assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
        assert str(bad) in p.stderr and "not a usable DuckDB store" in p.stderr
    assert bad.read_bytes() == before


def test_a_run_stored_again_only_adds_its_labels(tmp_path, runs):
    spec, res = runs[0]
    with Store.open(tmp_path / "s.duckdb") as st:
        put(st, spec, res)
        before = st.counts()
        put(st, spec, res, labels=(("sweep:x", "p=1", {}),))
        st.put_many([])
        after = st.counts()
        assert after == before | {"labels": before["labels"] + 1}
        assert set(st.runs()["collection"]) == {"suite:test", "sweep:x"}
    p = zvmlab("store", "query", "DELETE FROM runs", "--store", tmp_path / "s.duckdb")
    assert p.returncode == 2 and "bad query" in p.stderr  # the store is opened read-only for queries
