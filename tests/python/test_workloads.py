"""The workload library (issue 8): one place naming the seeds' workloads and their scenarios."""

import json
import subprocess
import sys

import pytest

from zvmlab import engine, scenario
from zvmlab.errors import InputError
from zvmlab.lab import replicate, workloads

LIB = workloads.load()


def test_library_names_the_seed_workloads():
    names = {w.name for w in LIB}
    for n in ("apache-cpu", "apache-dasd-paging", "daytrader", "virstor", "io3390", "thrasher",
              "cms-format", "xedit-read", "iozone", "memtst"):
        assert n in names
    rows = {r.id for r in replicate.load_catalogue()}
    for w in LIB:
        assert set(w.rows) <= rows, w.name
        assert (w.scenario is None) == (w.status != "modelled"), w.name


@pytest.mark.parametrize("w", [w for w in LIB if w.scenario], ids=lambda w: w.name)
def test_every_library_scenario_runs(w):
    """Each workload's scenario validates and runs (a short slice of it: 300 ms simulated)."""
    sc = scenario.load(w.scenario).with_overrides(duration="300ms")
    out = engine.simulate(sc.engine_config())
    assert out["events"] > 0
    assert sum(u["cpu_pct"] for u in out["users"]) > 0, w.name


def test_cli_lists_and_shows(tmp_path):
    z = [sys.executable, "-m", "zvmlab"]
    p = subprocess.run(z + ["workloads", "--json"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert [x["name"] for x in json.loads(p.stdout)] == [w.name for w in LIB]
    p = subprocess.run(z + ["workloads", "thrasher", "--json"], capture_output=True, text=True)
    assert json.loads(p.stdout)["scenario"] == "scenarios/replicate/d5-edev.toml"
    p = subprocess.run(z + ["workloads", "thrash"], capture_output=True, text=True)
    assert p.returncode == 2 and "no workload named 'thrash'" in p.stderr and "thrasher" in p.stderr


@pytest.mark.parametrize("text,field", [
    ('[[workload]]\nname="a"\ntitle="A"\nseed="001"\nconfig="c"\nscenario="nope.toml"', "workload[0].scenario"),
    ('[[workload]]\nname="a"\ntitle="A"\nseed="001"\nconfig="c"\nscenaria="x.toml"', "workload[0]"),
    ('[[workload]]\nname="a"\ntitle="A"\nseed="001"\nconfig="c"\nstatus="not modelled yet"', "workload[0]"),
    ('[[workload]]\nname="a"\nseed="001"\nconfig="c"\nscenario="x.toml"', "workload[0]"),
])
def test_bad_library_is_located(tmp_path, text, field):
    (tmp_path / "x.toml").write_text("")
    f = tmp_path / "workloads.toml"
    f.write_text(text)
    with pytest.raises(InputError) as e:
        workloads.load(f, tmp_path)
    assert e.value.field == field and e.value.file == str(f)
