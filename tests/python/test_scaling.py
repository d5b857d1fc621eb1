"""zvmlab scaling: guests fixed by default, scaled with --scale-guests; the CAF curve passes through the
seed's point."""

import pytest

from conftest import ROOT, run_json, zvmlab
from zvmlab.lab.scaling import caf

WEB = ROOT / "scenarios" / "scaling-web.toml"


def test_caf_curve_through_the_published_point():
    assert caf(1) == 1.0
    assert caf(4) == pytest.approx(0.890)
    assert caf(64) < caf(32) < caf(16) < caf(4) < caf(2) < 1.0


def test_scaling_json_and_plot(tmp_path):
    r = run_json("scaling", WEB, "--cores", "1,2,4", "--duration", "10s", "--json", "--plot", tmp_path / "s.png",
                 "--scale-guests")
    rows = r["rows"]
    assert [x["cores"] for x in rows] == [1, 2, 4]
    assert [x["guests"] for x in rows] == [8, 16, 32]
    assert rows[0]["itr_caf_expected"] == pytest.approx(rows[0]["itr"])
    assert rows[2]["itr_caf_expected"] == pytest.approx(rows[0]["itr"] * 4 * 0.890)
    assert rows[2]["etr"] > 3 * rows[0]["etr"]
    assert (tmp_path / "s.png").stat().st_size > 5000


def test_scaling_keeps_guests_by_default():
    r = run_json("scaling", WEB, "--cores", "1,4", "--duration", "5s", "--json")
    assert r["scale_count"] is False
    assert [x["guests"] for x in r["rows"]] == [8, 8]
    old = run_json("scaling", WEB, "--cores", "1,4", "--duration", "5s", "--json", "--no-scale-count")
    assert old["rows"] == r["rows"]
    bad = zvmlab("scaling", WEB, "--cores", "1", "--scale-guests", "--no-scale-count")
    assert bad.returncode == 2 and "--scale-guests" in bad.stderr


def test_scaling_bad_cores():
    p = zvmlab("scaling", WEB, "--cores", "1,two")
    assert p.returncode == 2 and "--cores" in p.stderr
    p = zvmlab("scaling", WEB, "--cores", "0,65")
    assert p.returncode == 2 and "--cores" in p.stderr


def test_scaling_smt_series_one_chart(tmp_path):
    """Non-SMT and SMT-2 curves from one command; SMT-2 stops at 32 cores; each series has its
    own CAF curve from its smallest run (seed 001, Figures 2-5)."""
    apache = ROOT / "scenarios" / "apache-cpu.toml"
    r = run_json("scaling", apache, "--cores", "4,8,64", "--smt", "off,smt2", "--duration", "2s", "--json",
                 "--plot", tmp_path / "s.png", "--scale-guests")
    assert [s["smt"] for s in r["series"]] == ["off", "smt2"]
    assert [x["cores"] for x in r["series"][0]["rows"]] == [4, 8, 64]
    assert [x["cores"] for x in r["series"][1]["rows"]] == [4, 8]
    assert r["rows"] == r["series"][0]["rows"]
    for s in r["series"]:
        assert s["rows"][0]["itr_vs_caf"] == 1.0
    # SMT-2 threads are slower: busy 1-way clients give less ETR, the cores more ITR (B8).
    off4, smt4 = r["series"][0]["rows"][0], r["series"][1]["rows"][0]
    assert smt4["etr"] < off4["etr"] and smt4["itr"] > off4["itr"]
    assert (tmp_path / "s.png").stat().st_size > 1000
    bad = zvmlab("scaling", apache, "--smt", "smt3")
    assert bad.returncode == 2 and "--smt" in bad.stderr


def test_scaling_needs_two_processor_counts():
    for cores in ("4", "4,4"):
        p = zvmlab("scaling", WEB, "--cores", cores)
        assert p.returncode == 2 and "one processor count" in p.stderr and "Traceback" not in p.stderr, p.stderr
