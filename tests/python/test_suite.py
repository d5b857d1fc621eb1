"""Suites (loading, templates, runs, resume, determinism) and sweeps."""

import json
import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from zvmlab import engine, scenario
from zvmlab.errors import InputError
from zvmlab.lab import executor, stats, suite, sweep
from zvmlab.lab.store import Store

from conftest import ROOT, zvmlab

SMOKE_RUNS = 8 * 2 * 2  # cells x levels x seeds at --repeat 2


def test_regression_suite_has_the_seed_000_shape():
    s = suite.load("regression")
    assert 100 <= len(s.cells) <= 140
    ids = [c.id for c in s.cells]
    assert len(set(ids)) == len(ids)
    axes = {k: {c.axes[k] for c in s.cells} for k in ("family", "cores", "smt", "storage", "machine")}
    assert axes["smt"] == {"off", "smt2"} and axes["storage"] == {"rich", "constrained"}
    assert min(axes["cores"]) == 1 and max(axes["cores"]) == 64 and 3 in axes["cores"]
    assert axes["machine"] == {"z13", "zEC12"}
    intended = " ".join(s.families[f].intended for f in axes["family"])
    for w in ("Apache", "VIRSTOR", "DayTrader"):
        assert w in intended
    # every cell's scenario is valid and asks for what its axes say
    for c in s.cells:
        sc = scenario.loads(c.text, c.name)
        assert sc.processors == c.axes["cores"] and sc.smt == c.axes["smt"]
        assert sc.storage is not None
        refs = sum(g.refs["range_pages"] * g.count for g in sc.guests if g.refs)
        assert (sc.storage["frames"] >= refs) == (c.axes["storage"] == "rich")
    assert not any(c.axes["smt"] == "smt2" and c.axes["cores"] == 64 for c in s.cells)


def write_suite(tmp_path, body: str, name="t.toml") -> Path:
    p = tmp_path / name
    p.write_text(body)
    return p


GOOD = '''
duration = "100ms"
[[matrix]]
family = ["a"]
cores = [1, 2]
[family.a]
intended = "A"
today = "a"
template = """
[system]
processors = {{ cores }}
[[guest]]
userid = "U"
count = {{ 2 * cores }}
workload = { kind = "cpu-bound" }
"""
'''


def test_templates_fill_in_expressions(tmp_path):
    s = suite.load(str(write_suite(tmp_path, GOOD)))
    assert [c.id for c in s.cells] == ["a-1", "a-2"]
    sc = scenario.loads(s.cells[1].text, "x")
    assert sc.processors == 2 and sc.guests[0].count == 4 and sc.duration_ns == 100_000_000
    assert "level" not in s.cells[0].text and "seed" not in s.cells[0].text  # both per run, not per scenario
    assert suite.evaluate("ceil(7 / 2) + max(1, cores // 4)", {"cores": 8}) == 6
    with pytest.raises(ValueError):
        suite.evaluate("__import__('os').getcwd()", {})
    with pytest.raises(ValueError):
        suite.evaluate("cores.real", {"cores": 1})


@pytest.mark.parametrize("edit,where", [
    (("{{ 2 * cores }}", "{{ 2 * corez }}"), "unknown name 'corez'; did you mean 'cores'?"),
    (('family = ["a"]', 'family = ["b"]'), "matrix[0].family: unknown family 'b'"),
    (("processors = {{ cores }}", "processors = {{ cores * 100 }}"), "(cell a-1, from family.a.template)"),
    (('duration = "100ms"', 'duraton = "100ms"'), "unknown key 'duraton' (did you mean 'duration'?"),
    (('cores = [1, 2]', 'cores = [1, 2]\nexclude = [{ core = 1 }]'), "exclude names 'core', which is not an axis"),
    (('intended = "A"', ''), "family.a.intended: missing intended"),
    (('cores = [1, 2]', 'cores = [1, 1]'), "cell 'a-1' appears twice"),
])
def test_bad_suites_name_file_and_field(tmp_path, edit, where):
    p = write_suite(tmp_path, GOOD.replace(*edit))
    with pytest.raises(InputError) as e:
        suite.load(str(p))
    assert str(p) in str(e.value) and where in str(e.value)


def test_unknown_suite_and_level():
    with pytest.raises(InputError, match="did you mean 'smoke'"):
        suite.load("smok")
    with pytest.raises(InputError, match="--compare: unknown level 'zvm-7.1'"):
        suite.check_level("zvm-7.1", "--compare")


class Interrupting:
    """An executor that is stopped (Ctrl-C) after ``n`` finished runs."""

    def __init__(self, n):
        self.n = n

    def run(self, specs, fn=executor.run_one):
        for k, (s, r) in enumerate(executor.LocalExecutor(1).run(specs, fn)):
            if k == self.n:
                raise KeyboardInterrupt
            yield s, r


def test_suite_resumes_after_an_interrupt_and_gives_the_same_result(tmp_path):
    s = suite.load("smoke")
    with Store.open(tmp_path / "fresh.duckdb") as st:
        fresh, made = suite.run(s, "zvm-6.3", "zvm-6.4", 2, executor.LocalExecutor(1), st)
    assert made == (SMOKE_RUNS, 0)
    path = tmp_path / "resumed.duckdb"
    with Store.open(path) as st:
        with pytest.raises(KeyboardInterrupt):
            suite.run(s, "zvm-6.3", "zvm-6.4", 2, Interrupting(5), st)
        assert st.counts()["runs"] == 5  # the finished runs are kept
    with Store.open(path) as st:
        resumed, made = suite.run(s, "zvm-6.3", "zvm-6.4", 2, executor.LocalExecutor(1), st)
        assert made == (SMOKE_RUNS - 5, 5)
        again, made = suite.run(s, "zvm-6.3", "zvm-6.4", 2, executor.LocalExecutor(1), st)
        assert made == (0, SMOKE_RUNS)
        assert set(st.runs("suite:smoke")["item"]) == {c.id for c in s.cells}
    assert json.dumps(resumed, sort_keys=True) == json.dumps(fresh, sort_keys=True)
    assert again == fresh
    # the statistics are those of the stored runs
    row = fresh["scenarios"][1]
    with Store.open(path, read_only=True) as st:
        df = st.query("SELECT r.level, r.seed, r.etr FROM runs r JOIN labels l USING (key) "
                      "WHERE l.collection = 'suite:smoke' AND l.item = ? ORDER BY r.level, r.seed", [row["id"]])
    b = list(df[df.level == "zvm-6.3"].etr)
    c = list(df[df.level == "zvm-6.4"].etr)
    r = stats.ratio(b, c)
    assert row["etrr"]["ratio"] == r.ratio and row["etrr"]["lo"] == r.lo and row["etrr"]["p"] == r.p
    assert fresh["summary"]["etrr"]["n"] == 8


def test_pool_and_single_process_agree_and_a_to_a_is_one(tmp_path):
    s = suite.load("smoke")
    with Store.open(tmp_path / "a.duckdb") as st:
        one, _ = suite.run(s, "zvm-6.3", "zvm-6.4", 2, executor.LocalExecutor(1), st, only="web-*")
    with Store.open(tmp_path / "b.duckdb") as st:
        two, _ = suite.run(s, "zvm-6.3", "zvm-6.4", 2, executor.LocalExecutor(2), st, only="web-*")
        aa, made = suite.run(s, "zvm-6.4", "zvm-6.4", 2, executor.LocalExecutor(2), st, only="web-*")
    assert one == two and one["cells"] == 4
    assert made == (0, 8)  # the 6.4 runs were made already
    for r in aa["scenarios"]:
        assert r["etrr"]["ratio"] == pytest.approx(1.0, abs=1e-12) and r["itrr"]["p"] == 1.0


def test_cli_suite_json_is_deterministic(tmp_path):
    outs = []
    for name in ("a", "b"):
        p = zvmlab("suite", "smoke", "--base", "zvm-6.3", "--compare", "zvm-6.4", "--repeat", "2",
                   "--store", tmp_path / f"{name}.duckdb", "--json")
        assert p.returncode == 0, p.stderr
        outs.append(p.stdout)
        assert f"{SMOKE_RUNS} runs made, 0 reused" in p.stderr
    assert outs[0] == outs[1]
    res = json.loads(outs[0])
    assert res["suite"] == "smoke" and len(res["scenarios"]) == 8 and res["seeds"] == [1, 2]
    assert set(res["summary"]["itrr"]) >= {"mean", "sd", "geomean", "better", "worse", "same", "significant_bh",
                                           "significant_holm"}
    p = zvmlab("suite", "smoke", "--base", "zvm-6.3", "--compare", "zvm-6.4", "--repeat", "2",
               "--store", tmp_path / "a.duckdb")
    assert p.returncode == 0 and f"0 runs made, {SMOKE_RUNS} reused" in p.stderr
    assert "Suite summary" in p.stdout and "│ ETRR" in p.stdout and "│ ITRR" in p.stdout and "Holm" in p.stdout


@pytest.mark.parametrize("args,msg", [
    (("nosuch",), "SUITE: unknown suite 'nosuch'"),
    (("smoke", "--base", "zvm-6.9"), "--base: unknown level 'zvm-6.9'"),
    (("smoke", "--executor", "spark://x"), "--executor: unknown executor"),
    (("smoke", "--only", "nothing-*"), "--only: no cell of suite smoke matches"),
    (("smoke", "--duration", "soon"), "--duration: cannot read duration"),
    (("smoke", "--base", ""), "--base: missing"),
])
def test_cli_suite_bad_input(tmp_path, args, msg):
    base = ["--base", "zvm-6.3"] if "--base" not in args else []
    p = zvmlab("suite", *args, *base, "--compare", "zvm-6.4", "--store", tmp_path / "s.duckdb")
    assert p.returncode == 2, p.stderr
    assert msg in p.stderr and "Traceback" not in p.stderr and p.stderr.count("\n") == 1
    assert not (tmp_path / "s.duckdb").exists()


def test_cli_suite_list():
    p = zvmlab("suite", "regression", "--list", "--json")
    assert p.returncode == 0
    cells = json.loads(p.stdout)["cells"]
    assert len(cells) == 120 and all(c["intended"] and c["today"] for c in cells)


def test_cli_interrupt_keeps_finished_runs(tmp_path):
    store = tmp_path / "s.duckdb"
    args = [sys.executable, "-m", "zvmlab", "suite", "regression", "--base", "zvm-6.3", "--compare", "zvm-6.4",
            "--only", "apache-paging-64c-*,apache-paging-32c-*", "--duration", "60s", "--jobs", "2",
            "--store", str(store)]
    env = dict(os.environ, ZVMLAB_PROGRESS="lines")
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    first = p.stderr.readline()  # printed once the store is open and the runs start
    assert first.startswith("suite regression: 6 scenarios"), first
    seen = [first]
    while True:  # interrupt once some runs have finished (whatever the machine's speed)
        line = p.stderr.readline()
        seen.append(line)
        assert line, "".join(seen)
        if line.startswith("suite regression: ") and 2 <= int(line.split(": ")[1].split("/")[0]):
            break
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    err = "".join(seen) + err
    if p.returncode == 0:
        pytest.skip("the suite finished before the interrupt (a very fast machine)")
    assert p.returncode == 130, err
    assert "interrupted: finished runs are kept" in err and "Traceback" not in err
    q = zvmlab("store", "query", "SELECT count(*) AS n FROM runs", "--store", store, "--json")
    assert q.returncode == 0, q.stderr
    n = json.loads(q.stdout)[0]["n"]
    assert 1 <= n < 6 * 2 * 3  # some finished runs, not all


# --------------------------------------------------------------------------------------------
# Sweeps
# --------------------------------------------------------------------------------------------

WEB = ROOT / "scenarios" / "scaling-web.toml"


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").rglob("*.toml")))
def test_toml_writer_round_trips_scenarios(path):
    if "suites" in path.parts or "workloads" in path.parts or path.name == "catalogue.toml":
        pytest.skip("not a scenario")
    doc = tomllib.loads(path.read_text())
    assert tomllib.loads(sweep.dumps(doc)) == doc
    assert scenario.loads(sweep.dumps(doc), "x").engine_config() == scenario.load(path).engine_config()


def test_sweep_points_are_the_scenario_with_values_written_in(tmp_path):
    with Store.open(tmp_path / "s.duckdb") as st:
        res, made = sweep.run(str(WEB), ["processors=1,2", "guest.WEB.count=4,8", "srm.dspslice=3"],
                              executor.LocalExecutor(1), st)
    assert made == (4, 0) and len(res["points"]) == 4
    pt = res["points"][3]
    assert pt["point"] == {"processors": 2, "guest.WEB.count": 8, "srm.dspslice": 3}
    sc = scenario.load(WEB)
    sc.processors = 2
    sc.guests[0].count = 8
    sc.params = {"srm.dspslice": 3.0}
    direct = engine.simulate(sc.engine_config())
    assert pt["etr"] == direct["etr"] and pt["itr"] == direct["itr"]


@pytest.mark.parametrize("param,msg", [
    ("procesors=1,2", "no parameter 'procesors' (did you mean 'processors'?"),
    ("guest.WBE.count=2", "no guest 'WBE' (did you mean 'WEB'?"),
    ("guest.WEB.workload.demand=0.5", "a transactional workload has think, cpu, dist"),
    ("storage.real=1G", "the scenario has no [storage] table"),
    ("switches.schedd=x", "not a mechanism switch"),
    ("processors=2,65", "[sweep processors=65]: --param: system.processors: 65 is out of range"),
    ("processors", "'processors' is not NAME=VALUES"),
])
def test_sweep_bad_params(tmp_path, param, msg):
    p = zvmlab("sweep", WEB, "--param", param, "--store", tmp_path / "s.duckdb")
    assert p.returncode == 2, p.stderr
    assert msg in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "s.duckdb").exists()  # nothing ran, nothing was written


def test_cli_sweep_json_and_reuse(tmp_path):
    args = ("sweep", WEB, "--param", "processors=1,2", "--param", "level=zvm-6.3,zvm-6.4", "--repeat", "2",
            "--duration" if False else "--seed", "5", "--store", tmp_path / "s.duckdb", "--json")
    p = zvmlab(*args)
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)
    assert [r["level"] for r in res["points"]] == ["zvm-6.3", "zvm-6.4"] * 2
    assert all(r["seeds"] == [5, 6] and r["etr_sd"] is not None for r in res["points"])
    q = zvmlab(*args)
    assert q.returncode == 0 and q.stdout == p.stdout and "0 runs made, 8 reused" in q.stderr
