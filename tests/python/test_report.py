"""zvmlab report: reports agree with the run's summary.json (same CPU %, same ETR, same T/V),
on A1 (four CPU-bound users, unequal shares), on the D6 paging thrasher and on the Apache DASD
paging workload of row D8; the command's options and its bad input."""

from __future__ import annotations

import json
import re

import pytest

from conftest import ROOT

A1 = ROOT / "scenarios" / "replicate" / "a1.toml"
D6 = ROOT / "scenarios" / "replicate" / "d6-eckd.toml"
D8 = ROOT / "scenarios" / "replicate" / "d8-apache-paging.toml"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from conftest import zvmlab
    base = tmp_path_factory.mktemp("runs")
    out = {}
    for name, path, extra in (("a1", A1, ["--duration", "5m"]), ("d6", D6, []), ("d8", D8, ["--duration", "4s"]),
                              ("a1-53", A1, ["--duration", "5m", "--level", "zvm-5.3", "--seed", "2"])):
        d = base / name
        p = zvmlab("run", path, "--out", d, *extra)
        assert p.returncode == 0, p.stderr
        out[name] = d
    return out


def report_json(run_cli, *args) -> dict:
    p = run_cli("report", *args, "--format", "json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["reports"]


def rows(rep: dict, table: str, kind: str = "data") -> list[dict]:
    return [r for r in rep["tables"][table]["rows"] if r["row"] == kind]


@pytest.mark.parametrize("name", ["a1", "d6", "d8"])
def test_reports_agree_with_the_run_summary(runs, run_cli, name):
    d = runs[name]
    s = json.loads((d / "summary.json").read_text())
    reps = report_json(run_cli, d)
    p, users = s["processors"], [u["userid"] for u in s["users"]]
    # FCX225 SYSSUMLG: busy, ETR, T/V per interval and for the run
    sl = reps["FCX225"]
    iv = rows(sl, "intervals")
    assert len(iv) == len(s["intervals"])
    for r, si in zip(iv, s["intervals"]):
        assert r["busy"] == pytest.approx(sum(x["busy_pct"] for x in si["processors"]) / p, rel=1e-12)
        assert r["etr"] == si["etr"]
    mean = rows(sl, "intervals", ">>Mean>>")[0]
    assert mean["busy"] == s["avg_processor_busy_pct"]
    assert mean["etr"] == s["etr"] and mean["itr"] == s["itr"] and mean["tv"] == s["tv_ratio"]
    # FCX144 PROCLOG: each processor in each interval
    pl = rows(reps["FCX144"], "processors")
    assert len(pl) == p * len(s["intervals"])
    for k, si in enumerate(s["intervals"]):
        for c, ps in enumerate(si["processors"]):
            r = pl[k * p + c]
            assert r["cpu"] == f"{c:X}"
            assert r["total"] == ps["busy_pct"] and r["syst"] == ps["system_pct"]
    for c, ps in enumerate(s["processor_detail"]):
        m = rows(reps["FCX144"], "processors", ">>Mean>>")[c]
        assert m["total"] == pytest.approx(ps["busy_pct"], rel=1e-12)
    # FCX112 USER: per user
    ur = {r["userid"]: r for r in rows(reps["FCX112"], "users")}
    assert sorted(ur) == sorted(users)
    for u in s["users"]:
        r = ur[u["userid"]]
        assert r["cpu"] == u["cpu_pct"] and r["cp"] == u["cp_pct"]
        assert r["tx"] == pytest.approx(u["transactions"] / s["duration_s"], rel=1e-12)
    system = rows(reps["FCX112"], "users", ">System<")[0]
    assert system["cpu"] == pytest.approx(sum(u["cpu_pct"] for u in s["users"]), rel=1e-12)
    # FCX100 CPU: the run's figures
    fig = {r["what"]: r["value"] for r in rows(reps["FCX100"], "system")}
    assert fig["Average processor busy"] == s["avg_processor_busy_pct"]
    assert fig["T/V ratio"] == s["tv_ratio"] and fig["ETR *"] == s["etr"] and fig["ITR *"] == s["itr"]
    assert fig["System (nonchargeable CP) time"] == s["system_pct"]
    # FCX326 LOCKACT: per lock over the run, as the summary's locks
    la = {r["lock"]: r for r in rows(reps["FCX326"], "locks")}
    assert la and set(la) <= set(s["locks"])
    for name, r in la.items():
        sl = s["locks"][name]
        assert r["acq_x"] + r["acq_s"] == pytest.approx(sl["acquires_per_s"], rel=1e-9, abs=1e-9)
        assert r["colls"] == pytest.approx(sl["colls_per_s"], rel=1e-9, abs=1e-9)
        assert r["busy"] == pytest.approx(sl["spin_pct_busy"], rel=1e-9, abs=1e-9)
        assert r["avg"] == pytest.approx(sl["avg_spin_us"], rel=1e-6, abs=1e-9)
    busy = [r["busy"] for r in la.values()]
    assert busy == sorted(busy, reverse=True), "busiest lock first"


def test_text_report_shows_the_same_rounded_figures(runs, run_cli):
    d = runs["a1"]
    s = json.loads((d / "summary.json").read_text())
    out = run_cli("report", d, "--fcx", "SYSSUMLG").stdout
    mean = [ln for ln in out.splitlines() if ln.startswith(">>Mean>>")][0].split()
    assert mean[1] == f"{s['avg_processor_busy_pct']:.1f}".lstrip("0")
    assert mean[-2] == f"{s['etr']:.2f}"
    out = run_cli("report", d, "--fcx", "112").stdout
    for u in s["users"]:
        line = next(ln for ln in out.splitlines() if ln.startswith(u["userid"] + " "))
        assert line.split()[2] == f"{u['cpu_pct']:.1f}"


def test_report_on_the_monitor_file_itself_and_by_name(runs, run_cli):
    a = run_cli("report", runs["a1"], "--fcx", "proclog")
    b = run_cli("report", runs["a1"] / "monitor.mon", "--fcx", "144")
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout
    assert a.stdout.startswith("1FCX144") and ">>Mean>>" in a.stdout


def test_deterministic_output(runs, run_cli):
    for fmt in ("text", "json", "html"):
        a = run_cli("report", runs["a1"], "--format", fmt).stdout
        assert a == run_cli("report", runs["a1"], "--format", fmt).stdout


def test_csv_one_report(runs, run_cli):
    p = run_cli("report", runs["a1"], "--fcx", "FCX225", "--format", "csv")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "row,time,busy,tv,logged,active,etr,itr"
    assert len(lines) == 1 + 5 + 1 and lines[-1].startswith(">>Mean>>,")


def test_html_has_a_plot_per_chart_and_the_tables(runs, run_cli, tmp_path):
    out = tmp_path / "r.html"
    p = run_cli("report", runs["a1"], "--format", "html", "--out", out)
    assert p.returncode == 0, p.stderr and p.stdout == ""
    h = out.read_text()
    assert h.startswith("<!DOCTYPE html>") and h.rstrip().endswith("</html>")
    # PROCLOG 2, CPU 1, SYSSUMLG 3, USER 1, USTAT 2 (wait states by user; waiting by interval), LOCKLOG 1,
    # PRCLOG 2, LOCKACT 1, SCHEDLOG 1
    assert h.count("<svg") == 2 + 1 + 3 + 1 + 2 + 1 + 2 + 1 + 1
    for fcx in ("FCX144", "FCX100", "FCX225", "FCX112", "FCX114", "FCX265", "FCX326", "FCX145"):
        assert f'id="{fcx}"' in h
    # FCX144 1, FCX100 2, FCX225 1, FCX112 1, FCX114 1, FCX265 1, FCX326 1, FCX304 1 (per processor), FCX145 1. Without
    # --fcx the reports the data does not fill are left out (A1 has no devices, paging, [cpc], HyperPAV or
    # MDC: FCX108, FCX109, FCX146, FCX113, FCX302, FCX126, FCX327, FCX178), and a note on stderr names them.
    assert h.count("<table>") == 10
    for fcx in ("FCX108", "FCX146", "FCX327"):
        assert f'id="{fcx}"' not in h
    assert "no data for FCX108 DEVICE" in p.stderr
    full = run_cli("report", runs["a1"], "--format", "html", "--fcx", "FCX108,FCX146").stdout
    assert 'id="FCX108"' in full and 'id="FCX146"' in full
    assert "nan" not in re.sub(r"<svg.*?</svg>", "", h, flags=re.S).lower()


def test_vs_shows_a_b_and_the_change(runs, run_cli):
    a, b = runs["a1"], runs["a1-53"]
    reps = report_json(run_cli, a, "--vs", b)
    sa = json.loads((a / "summary.json").read_text())
    sb = json.loads((b / "summary.json").read_text())
    mean = rows(reps["FCX225"], "intervals", ">>Mean>>")[0]
    assert mean["busy"] == sa["avg_processor_busy_pct"] and mean["busy_b"] == sb["avg_processor_busy_pct"]
    assert mean["etr_delta"] == pytest.approx(sb["etr"] - sa["etr"], abs=1e-9)
    ub = {u["userid"]: u for u in sb["users"]}
    for r in rows(reps["FCX112"], "users"):
        assert r["cpu_b"] == ub[r["userid"]]["cpu_pct"]
    text = run_cli("report", a, "--vs", b, "--fcx", "USER").stdout
    assert "B-A" in text and " Vs " in text and "ZVM-5.3" in text


def test_vs_of_two_run_directories_says_why_cpu_per_transaction_changed(runs, run_cli):
    """Two run directories: the text ends with their CPU per transaction (from each summary) and
    the change split by cause; a monitor file (no summary) gets no such line."""
    from zvmlab.lab import scaling_why

    a, b = runs["a1"], runs["a1-53"]
    text = run_cli("report", a, "--vs", b, "--fcx", "USER").stdout
    wa = scaling_why.breakdown(json.loads((a / "summary.json").read_text()))
    wb = scaling_why.breakdown(json.loads((b / "summary.json").read_text()))
    why = text[text.index("Why CPU per transaction changed"):]
    assert f"{wa['cpu_us_per_tx']:.1f} -> {wb['cpu_us_per_tx']:.1f} us" in " ".join(why.split())
    g = scaling_why.growth(wa, wb)
    assert f"({g['total']:+.1f} %)" in why
    plain = run_cli("report", a / "monitor.mon", "--vs", b / "monitor.mon", "--fcx", "USER").stdout
    assert "Why CPU per transaction" not in plain


@pytest.mark.parametrize("args, expect", [
    (["nonexistent-dir"], "no such file or directory"),
    (["{run}", "--fcx", "FCX999"], "unknown report 'FCX999'"),
    (["{run}", "--format", "csv"], "CSV holds one report"),
    (["{scenario}"], "not monitor data"),
    (["{empty}"], "no monitor.mon in this directory"),
    (["{run}", "--vs", "nonexistent"], "no such file or directory"),
    (["{truncated}"], "no complete monitor interval"),
])
def test_bad_input_one_message_exit_2(runs, run_cli, tmp_path, args, expect):
    (tmp_path / "empty").mkdir()
    mon = (runs["a1"] / "monitor.mon").read_bytes()
    (tmp_path / "t.mon").write_bytes(mon[:4096 * 3])
    subst = {"{run}": runs["a1"], "{scenario}": A1, "{empty}": tmp_path / "empty", "{truncated}": tmp_path / "t.mon"}
    p = run_cli("report", *[subst.get(a, a) for a in args])
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert expect in p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1


def test_damaged_data_warns_and_reports_what_it_read(runs, run_cli, tmp_path):
    mon = bytearray((runs["a1"] / "monitor.mon").read_bytes())
    mon[4096 * 5] = 0x7F  # first record of the second interval (block 5): length runs past its frame
    f = tmp_path / "damaged.mon"
    f.write_bytes(bytes(mon))
    p = run_cli("report", f, "--fcx", "225")
    assert p.returncode == 0
    assert "warning" in p.stderr and "offset 20480" in p.stderr
    assert ">>Mean>>" in p.stdout


def test_run_dir_has_monitor_data(runs):
    mon = (runs["a1"] / "monitor.mon").read_bytes()
    assert len(mon) % 4096 == 0 and len(mon) == 4096 * (2 * 6 + 1)  # + the end-of-data block


def test_hpalias_agrees_with_the_run_summary(run_cli, tmp_path):
    """FCX327 HPALIAS (D6R28 MRIODHPP) on row D12's run: entitlements and mean aliases in use per
    I/O type as in the summary's hyperpav key."""
    from conftest import zvmlab
    d = tmp_path / "d12"
    p = zvmlab("run", ROOT / "scenarios" / "replicate" / "d12-cu-share.toml", "--out", d, "--duration", "2s")
    assert p.returncode == 0, p.stderr
    s = json.loads((d / "summary.json").read_text())["hyperpav"]
    mean = rows(report_json(run_cli, d, "--fcx", "HPALIAS")["FCX327"], "pool", ">>Mean>>")[0]
    assert mean["ent_pg"] == s["entitlement"]["paging"] and mean["ent_md"] == s["entitlement"]["minidisk"]
    assert mean["use_pg"] == pytest.approx(s["mean_in_use"]["paging"], rel=1e-6)
    assert mean["use_md"] == pytest.approx(s["mean_in_use"]["minidisk"], rel=1e-6)
    assert mean["max_pg"] == s["max_in_use"]["paging"] and mean["max_md"] == s["max_in_use"]["minidisk"]
    # The volumes' own account of alias time agrees with the pool's (an I/O on an alias that
    # takes over a freed base is the base's from then on), and a base is never over 100 % busy.
    devs = json.loads((d / "summary.json").read_text())["devices"]
    assert sum(v["aliases_in_use"] for v in devs) == pytest.approx(
        s["mean_in_use"]["paging"] + s["mean_in_use"]["minidisk"], rel=1e-3)
    assert all(0.0 <= v["util_pct"] <= 100.0 + 1e-9 for v in devs)


USTAT_STATES = {"run": "running", "cpu": "cpu_wait", "pgw": "page_wait", "iow": "io_wait", "ti": "test_idle",
                "el": "eligible", "lim": "limited", "dm": "dormant"}


@pytest.mark.parametrize("name", ["a1", "d6", "d8"])
def test_ustat_agrees_with_the_run_summary(runs, run_cli, name):
    """FCX114 USTAT from the monitor data gives each user's wait states as the summary does (the
    monitor carries them in TOD units, 1/4096 us: agreement to 1e-6 of the run)."""
    d = runs[name]
    s = json.loads((d / "summary.json").read_text())
    rep = report_json(run_cli, d, "--fcx", "USTAT")["FCX114"]
    got = {r["userid"]: r for r in rows(rep, "users")}
    assert set(got) == {u["userid"] for u in s["users"]}
    for u in s["users"]:
        r = got[u["userid"]]
        for col, key in USTAT_STATES.items():
            assert r[col] == pytest.approx(u["wait_states"][key], abs=1e-4), (u["userid"], col)
        assert r["act"] == pytest.approx(100.0 - u["wait_states"]["dormant"] - u["wait_states"]["test_idle"],
                                         abs=1e-4)


def test_wait_states_say_why_users_wait(tmp_path, run_cli):
    """Each state shows up where its mechanism acts: CPU-bound users beyond the processors wait
    for one (%CPU); a LIMITHARD user held at its maximum sits on the limit list; the paging
    thrasher waits for page-ins; a DASD-I/O user waits for its I/Os."""
    from conftest import zvmlab
    sc = tmp_path / "w.toml"
    sc.write_text('[system]\nlevel = "zvm-6.4"\nprocessors = 2\n[run]\nduration = "20s"\ninterval = "5s"\n'
                  '[[guest]]\nuserid = "HOG"\ncount = 3\nworkload = { kind = "cpu-bound" }\n'
                  '[[guest]]\nuserid = "CAP"\nshare = "ABSOLUTE 10% LIMITHARD"\nworkload = { kind = "cpu-bound" }\n')
    p = zvmlab("run", sc, "--json")
    assert p.returncode == 0, p.stderr
    ws = {u["userid"]: u["wait_states"] for u in json.loads(p.stdout)["users"]}
    for h in ("HOG0", "HOG1", "HOG2"):
        assert ws[h]["cpu_wait"] > 20 and ws[h]["dormant"] == 0
    # at its maximum (10 % of 2 processors) it waits partly on the limit list, partly for its turn
    assert 15 < ws["CAP"]["running"] < 25 and ws["CAP"]["limited"] > 10
    assert ws["CAP"]["limited"] + ws["CAP"]["cpu_wait"] > 70
    io = tmp_path / "io.toml"
    io.write_text('[system]\nlevel = "zvm-6.4"\nprocessors = 2\n[run]\nduration = "5s"\n[[guest]]\nuserid = "IO"\n'
                  'workload = { kind = "dasd-io", volume = "E100", type = "eckd", cpu = "50us", ios = 1, blocks = 1 }\n')
    p = zvmlab("run", io, "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["users"][0]["wait_states"]["io_wait"] > 50
    p = zvmlab("run", D6, "--json", "--duration", "5s")
    assert p.returncode == 0, p.stderr
    th = json.loads(p.stdout)["users"][0]["wait_states"]
    assert th["page_wait"] > 20, th


def test_fcx144_type_is_ifl_for_an_ifl_lpar(tmp_path, run_cli):
    """An LPAR on a CPC's IFL pool (or multithreading, which z/VM does on IFLs only) reports IFL;
    a scenario that says neither keeps CP."""
    from conftest import SHOWCASE

    text = SHOWCASE.read_text()
    assert 'smt = "off"' in text
    for name, smt, want in (("plain", "off", "CP"), ("smt", "smt2", "IFL")):
        f = tmp_path / f"{name}.toml"
        f.write_text(text.replace('smt = "off"', f'smt = "{smt}"', 1))
        d = tmp_path / name
        assert run_cli("run", f, "--duration", "2s", "--out", d).returncode == 0
        rows = report_json(run_cli, d, "--fcx", "FCX144")["FCX144"]["tables"]["processors"]["rows"]
        assert {r["type"] for r in rows} == {want}, name


def test_auxlog_busy_is_the_bases_elapsed_busy_never_above_100(run_cli, tmp_path):
    """FCX146's paging-volume %Busy with HyperPAV aliases: the bases' busy as elapsed at the
    samples (ZVMDEV_BUSYEL), as FCX108 takes it; summing the booked busy gave 100.1 %."""
    p = run_cli("run", ROOT / "scenarios" / "replicate" / "d11-alias.toml", "--duration", "10s", "--out", tmp_path / "r")
    assert p.returncode == 0, p.stderr
    p = run_cli("report", tmp_path / "r", "--fcx", "146", "--format", "json")
    assert p.returncode == 0, p.stderr
    t = json.loads(p.stdout)["reports"]["FCX146"]["tables"]
    busy = [x["busy"] for x in next(iter(t.values()))["rows"] if x.get("busy") is not None]
    assert busy and max(busy) <= 100.0 and max(busy) > 90.0
