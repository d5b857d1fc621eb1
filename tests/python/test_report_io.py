"""zvmlab report on paging and minidisk runs: FCX108 DEVICE, FCX109 CPOWNED, FCX146 AUXLOG and
FCX113 UPAGE agree with the run's summary.json (same I/O rates, times per I/O, pages/s), through
the real command line (run --out, then report --format json / text / html)."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT
from io_scenarios import io_toml, lpar_toml

D6 = ROOT / "scenarios" / "replicate" / "d6-eckd.toml"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from conftest import zvmlab
    base = tmp_path_factory.mktemp("ioruns")
    sc = base / "io.toml"
    sc.write_text(io_toml(seed=5, duration_s=30, interval_s=5))
    out = {}
    lp = base / "lpar.toml"
    lp.write_text(lpar_toml(seed=7, duration_s=30, interval_s=5))
    smt = base / "smt.toml"
    smt.write_text(lpar_toml(seed=8, duration_s=20, interval_s=5, smt="smt2"))
    for name, path in (("io", sc), ("d6", D6), ("lpar", lp), ("smt", smt)):
        p = zvmlab("run", path, "--out", base / name)
        assert p.returncode == 0, p.stderr
        out[name] = base / name
    return out


def report_json(run_cli, *args) -> dict:
    p = run_cli("report", *args, "--format", "json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["reports"]


def rows(rep: dict, table: str, kind: str = "data") -> list[dict]:
    return [r for r in rep["tables"][table]["rows"] if r["row"] == kind]


@pytest.mark.parametrize("name", ["io", "d6"])
def test_io_reports_agree_with_the_run_summary(runs, run_cli, name):
    d = runs[name]
    s = json.loads((d / "summary.json").read_text())
    reps = report_json(run_cli, d)
    devs, st = s["devices"], s["storage"]
    # FCX108 DEVICE: one row per device, the summary's I/O rate and times per I/O
    dv = rows(reps["FCX108"], "devices")
    assert [r["volser"] for r in dv] == [x["name"][:6] for x in devs]
    for r, x in zip(dv, devs):
        assert r["rate"] == x["io_rate"]
        for col, key in (("pend", "pend_ms"), ("disc", "disconnect_ms"), ("conn", "connect_ms"),
                         ("serv", "service_ms"), ("resp", "response_ms")):
            assert r[col] == pytest.approx(x[key], rel=1e-12, abs=1e-15), (x["name"], col)
        assert r["pages"] == pytest.approx(x["io_rate"] * x["pages_per_io"], rel=1e-12)
        # the summary leaves out service running past the end of the run; the monitor counts
        # service when an I/O starts
        assert r["busy"] >= x["util_pct"] - 1e-9 and r["busy"] - x["util_pct"] < 1.0
    total = rows(reps["FCX108"], "devices", ">System<")[0]
    assert total["rate"] == pytest.approx(sum(x["io_rate"] for x in devs), rel=1e-12)
    # FCX146 AUXLOG: pages/s per interval and for the run; the paging volumes' SSCH rate
    aux = rows(reps["FCX146"], "intervals")
    assert len(aux) == len(s["intervals"])
    for r, si in zip(aux, s["intervals"]):
        assert r["rate"] == pytest.approx(sum(x["io_rate"] for x in si["devices"]), rel=1e-12)
    mean = rows(reps["FCX146"], "intervals", ">>Mean>>")[0]
    assert mean["moves"] == pytest.approx(st["moves_per_s"], rel=1e-12)
    assert mean["reads"] * s["duration_s"] == pytest.approx(st["pages_read"], rel=1e-12)
    assert mean["slots"] == st["slots"]
    # FCX109 CPOWNED: the paging volumes and the system's page rate
    cp = rows(reps["FCX109"], "volumes")
    paging = [x for x in devs if x["name"].startswith("PAGE")]
    assert [r["volser"] for r in cp] == [x["name"] for x in paging]
    assert [r["rate"] for r in cp] == [x["io_rate"] for x in paging]
    sysrow = rows(reps["FCX109"], "volumes", ">System<")[0]
    assert sysrow["pgread"] + sysrow["pgwrite"] == pytest.approx(st["moves_per_s"], rel=1e-12)
    assert sysrow["used"] == pytest.approx(100.0 * st["slots_used"] / st["slots"], rel=1e-12)
    assert sysrow["slots"] == st["slots"]
    # FCX113 UPAGE: the users' page reads add up to the system's
    up = rows(reps["FCX113"], "users")
    assert sorted(r["userid"] for r in up) == sorted(u["userid"] for u in s["users"])
    tot = rows(reps["FCX113"], "users", ">System<")[0]
    assert tot["reads"] * s["duration_s"] == pytest.approx(st["pages_read"], rel=1e-12)
    assert tot["resend"] == st["resident_pages"]


def test_io_reports_in_text_and_html(runs, run_cli, tmp_path):
    d = runs["io"]
    for fcx, words in (("FCX108", ["DEVICE", "Pend", "MDSK", "PAGE", ">System<"]),
                       ("109", ["CPOWNED", "Total", "Slots", ">System<"]),
                       ("AUXLOG", [">>Mean>>", "Paging Volume I/O"]), ("UPAGE", ["RXTHR1", ">>Mean>>"])):
        p = run_cli("report", d, "--fcx", fcx)
        assert p.returncode == 0, p.stderr
        for w in words:
            assert w in p.stdout, (fcx, w)
    out = tmp_path / "r.html"
    p = run_cli("report", d, "--format", "html", "--out", out)
    assert p.returncode == 0, p.stderr
    html = out.read_text()
    for fcx in ("FCX108", "FCX109", "FCX146", "FCX113"):
        assert fcx in html
    assert "I/O rate by device" in html and "Paging rate" in html


def test_reports_without_devices_say_so(run_cli, tmp_path):
    from conftest import SHOWCASE, zvmlab
    p = zvmlab("run", SHOWCASE, "--out", tmp_path / "r", "--duration", "20s")
    assert p.returncode == 0, p.stderr
    reps = report_json(run_cli, tmp_path / "r")
    assert rows(reps["FCX108"], "devices") == []
    assert any("ZVMDEV" in n for n in reps["FCX108"]["notes"])
    assert any("ZVMSTO" in n for n in reps["FCX146"]["notes"])


def test_lpar_reports_agree_with_the_run_summary(runs, run_cli):
    d = runs["lpar"]
    s = json.loads((d / "summary.json").read_text())
    lp = s["lpar"]
    reps = report_json(run_cli, d)
    # FCX302 PHYSLOG: PR/SM management time, suspended time and unparked cores per interval
    ph = rows(reps["FCX302"], "intervals")
    assert len(ph) == len(lp["intervals"])
    for r, li, si in zip(ph, lp["intervals"], s["intervals"]):
        assert r["lpmgt"] == pytest.approx(li["lpmgt_pct"], rel=1e-12)
        assert r["susp"] == pytest.approx(li["susp_pct"], rel=1e-12, abs=1e-12)
        assert r["unparked"] == pytest.approx(li["unparked_avg"], rel=1e-9)
        assert r["busy"] == pytest.approx(sum(p["busy_pct"] for p in si["processors"]), rel=1e-12)
    mean = rows(reps["FCX302"], "intervals", ">>Mean>>")[0]
    assert mean["lpmgt"] == pytest.approx(lp["lpmgt_pct"], rel=1e-12)
    assert mean["cpcmgt"] == pytest.approx(lp["cpc_lpmgt_pct"], abs=100 * 1.0 / (s["duration_s"] * 1e9))  # 1 ns
    assert mean["susp"] == pytest.approx(lp["susp_pct"], rel=1e-12)
    assert mean["unparked"] == pytest.approx(lp["unparked_avg"], rel=1e-9)
    # FCX126 LPAR: our partition's configuration and load, the partners' configuration
    rs = rows(reps["FCX126"], "lpars")
    me = [r for r in rs if r["name"].endswith("*")]
    assert len(me) == 1 and me[0]["ent"] == pytest.approx(lp["entitlement"], abs=5e-4)
    assert (me[0]["vh"], me[0]["vm"], me[0]["vl"], me[0]["hz"]) == (lp["vh"], lp["vm"], lp["vl"], lp["hz"])
    assert me[0]["busy"] == pytest.approx(s["avg_processor_busy_pct"] * s["processors"], rel=1e-12)
    assert [r["name"] for r in rs] == ["ZVM*", "LINUXA", "TEST"]
    # FCX304 PRCLOG: each processor's busy is the summary's
    pr = rows(reps["FCX304"], "processors", ">>Mean>>")
    assert [r["total"] for r in pr] == pytest.approx([p["busy_pct"] for p in s["processor_detail"]], rel=1e-12)


def test_smt_prclog_agrees_with_the_run_summary(runs, run_cli):
    d = runs["smt"]
    s = json.loads((d / "summary.json").read_text())
    pr = report_json(run_cli, d, "--fcx", "PRCLOG")["FCX304"]
    data = rows(pr, "processors")
    cores = s["smt"]["cores"]
    for k, si in enumerate(s["intervals"]):
        iv = data[k * len(s["processor_detail"]):(k + 1) * len(s["processor_detail"])]
        per_core = {r["core"]: r["corebusy"] for r in iv}
        assert len(per_core) == cores
        assert sum(per_core.values()) / cores == pytest.approx(si["smt"]["core_busy_pct"], rel=1e-12)
    mean = rows(pr, "processors", ">>Mean>>")
    assert sum(r["total"] for r in mean) == pytest.approx(s["smt"]["thread_busy_pct"], rel=1e-12)
