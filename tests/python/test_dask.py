"""The Dask executor on a real local cluster of two worker processes: same results as local runs."""

import json
import os
import socket

import pytest

from zvmlab.errors import InputError
from zvmlab.lab import executor, suite, sweep
from zvmlab.lab.store import Store

from conftest import ROOT, zvmlab

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes, one thread each; they import zvmlab from this environment."""
    c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                 host="127.0.0.1")
    try:
        yield c
    finally:
        c.close()


def dask_url(c) -> str:
    return c.scheduler_address.replace("tcp://", "dask://")


def stored(path) -> dict:
    with Store.open(path, read_only=True) as st:
        df = st.query("SELECT key, etr, itr, tv_ratio, summary FROM runs ORDER BY key")
        iv = st.query("SELECT * FROM interval_users ORDER BY ALL")
    return {"runs": df.to_dict("records"), "interval_users": iv.to_dict("records")}


def test_dask_suite_equals_local_suite(cluster, tmp_path):
    s = suite.load("smoke")
    ex = executor.make(dask_url(cluster))
    assert isinstance(ex, executor.DaskExecutor) and "2 workers" in ex.description
    try:
        with Store.open(tmp_path / "dask.duckdb") as st:
            on_dask, made = suite.run(s, "zvm-6.3", "zvm-6.4", 2, ex, st)
    finally:
        ex.close()
    assert made == (32, 0)
    with Store.open(tmp_path / "local.duckdb") as st:
        local, _ = suite.run(s, "zvm-6.3", "zvm-6.4", 2, executor.LocalExecutor(2), st)
    assert on_dask == local
    assert stored(tmp_path / "dask.duckdb") == stored(tmp_path / "local.duckdb")


def test_dask_runs_are_spread_over_both_workers(cluster):
    from distributed import Client

    s = suite.load("smoke")
    specs = suite.plan(s, s.cells, "zvm-6.3", "zvm-6.4", 1)

    def where(spec):
        import os as _os

        return _os.getpid()

    with Client(cluster.scheduler_address, set_as_default=False) as client:
        ex = executor.DaskExecutor(cluster.scheduler_address, client=client)
        pids = {r for _, r in ex.run(specs, where)}
    assert len(pids) == 2 and os.getpid() not in pids


def test_cli_dask_suite_and_sweep_equal_local(cluster, tmp_path):
    args = ("suite", "smoke", "--base", "zvm-6.3", "--compare", "zvm-6.4", "--repeat", "2", "--only", "web-*", "--json")
    d = zvmlab(*args, "--executor", dask_url(cluster), "--store", tmp_path / "d.duckdb")
    assert d.returncode == 0, d.stderr
    assert "dask tcp://127.0.0.1" in d.stderr and "16 runs made" in d.stderr
    loc = zvmlab(*args, "--store", tmp_path / "l.duckdb")
    assert loc.returncode == 0 and d.stdout == loc.stdout
    sw = ("sweep", ROOT / "scenarios" / "scaling-web.toml", "--param", "processors=1,2,4", "--json")
    d = zvmlab(*sw, "--executor", dask_url(cluster), "--store", tmp_path / "d.duckdb")
    loc = zvmlab(*sw, "--store", tmp_path / "l.duckdb")
    assert d.returncode == 0 and loc.returncode == 0 and d.stdout == loc.stdout
    assert len(json.loads(d.stdout)["points"]) == 3


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_unreachable_dask_is_an_error_not_a_fallback(tmp_path):
    port = free_port()
    env = dict(os.environ, ZVMLAB_DASK_TIMEOUT="2")
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "zvmlab", "suite", "smoke", "--base", "zvm-6.3", "--compare", "zvm-6.4",
                        "--executor", f"dask://127.0.0.1:{port}", "--store", str(tmp_path / "s.duckdb")],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(f"zvmlab: error: --executor: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}")
    assert "Traceback" not in p.stderr and p.stderr.count("\n") == 1
    assert not (tmp_path / "s.duckdb").exists()  # nothing ran locally instead
    with pytest.raises(InputError, match="--jobs is for the local executor"):
        executor.make(f"dask://127.0.0.1:{port}", jobs=2)
    with pytest.raises(InputError, match="unknown executor"):
        executor.make("tcp://127.0.0.1:8786")


def test_scheduler_without_workers_is_an_error():
    c = distributed.LocalCluster(n_workers=0, processes=True, dashboard_address=":0", host="127.0.0.1")
    try:
        with pytest.raises(InputError, match="has no workers"):
            executor.DaskExecutor(c.scheduler_address, timeout=1)
    finally:
        c.close()


def test_sweep_plan_is_the_same_anywhere():
    # the spec (and so the store key) does not depend on where it runs
    _, _, a = sweep.plan(str(ROOT / "scenarios" / "scaling-web.toml"), ["processors=2"])
    _, _, b = sweep.plan(str(ROOT / "scenarios" / "scaling-web.toml"), ["processors=2"])
    assert [s.key for s in a] == [s.key for s in b]
