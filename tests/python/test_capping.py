"""LPAR capping in scenarios (issue 18): keys in [system], [[cpc.lpar]] and [[cpc.group]],
located errors (exit 2), `zvmlab cpc`, the run's cap, and FCX126's capping columns."""

from __future__ import annotations

import json

import pytest
from conftest import assert_bad_scenario, zvmlab

from zvmlab import scenario

BASE = """
[system]
processors = 4
weight = 30
polarization = "horizontal"
abscap = 1.5
[cpc]
shared_ifls = 8
[[cpc.lpar]]
name = "OTHER"
weight = 70
logical = 4
busy = 0.2
group = "G"
[[cpc.group]]
name = "G"
abscap = 3
[run]
duration = "6s"
interval = "1s"
[[guest]]
userid = "HOG"
count = 4
workload = { kind = "cpu-bound" }
"""


def test_capping_reaches_the_engine():
    cpc = scenario.loads(BASE).engine_config()["cpc"]
    assert cpc["abscap"] == 1.5 and "capped" not in cpc
    assert cpc["groups"] == [{"name": "G", "abscap": 3.0}]
    assert cpc["lpars"][0]["group"] == "G"


@pytest.mark.parametrize("old,new,field,words", [
    ("abscap = 1.5", "abscap = 300", "system.abscap", "out of range"),
    ("abscap = 1.5", "capped = 1", "system.capped", "not true or false"),
    ('group = "G"', 'group = "H"', "cpc.lpar[0].group", "names no capping group"),
    ("abscap = 1.5", 'capgroup = "X"', "system.capgroup", "names no capping group"),
    ("name = \"G\"\nabscap = 3", "name = \"G\"\nabscap = 0", "cpc.group[0].abscap", "out of range"),
    ("busy = 0.2\n", "busy = 0.2\ncaped = true\n", "cpc.lpar[0].caped", "unknown key"),
])
def test_bad_capping_is_located(tmp_path, old, new, field, words):
    assert_bad_scenario(tmp_path, BASE, old, new, field, words)


def test_capping_without_a_cpc_is_refused(tmp_path):
    text = "[system]\nprocessors = 2\ncapped = true\n[run]\nduration = \"1s\"\n[[guest]]\nuserid = \"A\"\n" \
           "workload = { kind = \"cpu-bound\" }\n"
    f = tmp_path / "nocpc.toml"
    f.write_text(text)
    p = zvmlab("run", f)
    assert p.returncode == 2 and "system.capped" in p.stderr and "[cpc]" in p.stderr and "Traceback" not in p.stderr


def test_cpc_command_shows_caps(tmp_path):
    f = tmp_path / "cap.toml"
    f.write_text(BASE)
    p = zvmlab("cpc", f, "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    me, other = d["lpars"]
    assert me["abscap"] == 1.5 and me["cap_cores"] == pytest.approx(1.5)
    # The partner is the only member of G: the whole group cap.
    assert other["group"] == "G" and other["cap_cores"] == pytest.approx(3.0)


def test_capped_run_and_report(tmp_path):
    f = tmp_path / "cap.toml"
    f.write_text(BASE)
    out = tmp_path / "run"
    p = zvmlab("run", f, "--out", out)
    assert p.returncode == 0, p.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["lpar"]["cap_cores"] == pytest.approx(1.5)
    for iv in s["intervals"]:
        assert iv["busy_ns"] / ((iv["end_s"] - iv["start_s"]) * 1e9) <= 1.5 * 1.01
    p = zvmlab("report", out, "--fcx", "126")
    assert p.returncode == 0, p.stderr
    assert "Capping" in p.stdout and "Abs 1.5" in p.stdout and "Grp G" in p.stdout
