"""Monitor data as a real site has it.

1. A zvmlab file whose origin marks say another system reports the same figures in every
   report (all of IBM's fields zvmlab writes are at IBM's places, and zvmlab's own records are
   in a domain IBM does not use, decoded whoever wrote the file).
2. A corpus built from layout tables transcribed from IBM's pages (tests/python/monitor_corpus.py,
   independent of the engine's writer), with values chosen here: the reports show those values,
   and print '...' for what IBM's public fields do not give (never 0.0 or "no records").
"""

from __future__ import annotations

from pathlib import Path

import pytest

import monitor_corpus as C
from zvmlab.monitor import measure, read
from zvmlab.monitor.checks import check
from zvmlab.perfkit import build_all, render
from zvmlab.perfkit.render import as_dict

GOLDEN = Path(__file__).parent / "golden"
ZVMLAB = "ZVMLAB".encode("cp037")
SYSA = "SYSA  ".encode("cp037")


def _tables(mon: bytes) -> dict:
    reports = build_all(measure(read(mon)))
    render.text(reports)
    return {r.fcx: (as_dict(r)["tables"], r.notes) for r in reports}


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.mon")))
def test_origin_mark_changed_gives_the_same_figures(name):
    mon = (GOLDEN / name).read_bytes()
    assert mon.count(ZVMLAB) >= 4  # MTRSYS_HCPCPEID, SYSTMID, LPARNAME, ZVMSYS_ORIGIN
    other = mon.replace(ZVMLAB, SYSA)
    d = read(other)
    assert d.origin == "" and not d.problems
    assert _tables(other) == _tables(mon)


# -- the independent corpus ------------------------------------------------------------------

S = 10**6 * C.US  # TOD units per second


def _site_file(minutes: int = 3, cputy: int = 0) -> bytes:
    """Two processors, two users (one with two virtual CPUs), one lock, a paging volume: each
    minute CPU 0 is 40 s user + 5 s system (30 s emulation), CPU 1 12 s + 3 s; SRMSLOCK has 600
    exclusive collisions spinning 3 ms in all."""
    config = [C.record("MRMTRSYS", C.tod(0), HCPCPEID="SITECP", SYSTODST=C.tod(-3600), SYSTMID="SITEA",
                       CPUCOUNT=2, LPARNAME="LPAR1"),
              C.record("MRMTRDEV", C.tod(0), RDEVDEV=0x0A00), C.record("MRMTRDEV", C.tod(0), RDEVDEV=0x0B01)]
    groups = [(C.tod(0), config)]
    for k in range(minutes + 1):  # the first sample is the baseline (monitoring started after IPL)
        at = C.tod(60 * k)
        recs = [C.record("MRSYTPRP", at, PFXCPUAD=0, PFXUTIME=k * 40 * S, PFXTMSYS=k * 5 * S, PFXPRBTM=k * 30 * S,
                         PFXTOTWT=k * 15 * S, PFXCPUTY=cputy),
                C.record("MRSYTPRP", at, PFXCPUAD=1, PFXUTIME=k * 12 * S, PFXTMSYS=k * 3 * S, PFXPRBTM=k * 10 * S,
                         PFXTOTWT=k * 45 * S, PFXCPUTY=cputy),
                # 30 + k users on the dispatch list (5 QUICKDSP, 10 + k Q1, 8 Q2, 7 Q3; 2 loading),
                # 4k eligible (2k E1, k E2, k E3; k loading, all E3)
                C.record("MRSYTSCG", at, SRMCDISP=30 + k, SRMCDLDG=2, SRMC1DSP=25 + k, SRMC2DSP=15, SRMC3DSP=7,
                         SRMC1ELG=4 * k, SRMC2ELG=2 * k, SRMC3ELG=k, SRMC1DLD=2, SRMC2DLD=1, SRMC3DLD=0,
                         SRMC1ELD=k, SRMC2ELD=k, SRMC3ELD=k),
                C.record("MRUSEACT", at, VMDUSER="LINUX01", VMDCPUAD=0),
                C.record("MRUSEACT", at, VMDUSER="LINUX01", VMDCPUAD=1),
                C.record("MRUSEACT", at, VMDUSER="CMS1", VMDCPUAD=0),
                C.record("MRSTOASP", at, CALVSER="PAG001", RDEVDEV=0x0A00, CALPAGE=540000),
                C.locks(at, [{"CALLCKID": "SRMSLOCK", "CALXSCNT": 600 * k, "CALXTIME": k * 3000 * C.US,
                              "CALSSCNT": 0, "CALSTIME": 0}]),
                C.header(6, 3, 200, at) + bytes(180), C.header(6, 3, 200, at) + bytes(180)]  # MRIODDEV
        groups.append((at, recs))
    return C.monwrite(groups)


def _rows(tables, fcx, table):
    return [r for r in tables[fcx][0][table]["rows"] if r["row"] == "data"]


def test_corpus_reports_show_the_chosen_values():
    mon = _site_file()
    d = read(mon)
    assert d.problems == [] and dict(d.skipped) == {(6, 3): 8} and d.origin == ""
    m = measure(d)
    assert len(m.intervals) == 3 and [iv.len_ns for iv in m.intervals] == [60 * 10**9] * 3
    assert check(d, m) == []
    t = _tables(mon)
    rows = _rows(t, "FCX144", "processors")
    assert [r["cpu"] for r in rows[:2]] == ["0", "1"]
    got = [[r[k] for k in ("total", "user", "syst", "emul", "wait")] for r in rows[:2]]
    assert got[0] == pytest.approx([75.0, 40 / 0.6, 5 / 0.6, 50.0, 25.0])
    assert got[1] == pytest.approx([25.0, 20.0, 5.0, 10 / 0.6, 75.0])
    # FCX112: the users and their virtual CPUs are in IBM's fields; their CPU time is not public
    users = {r["userid"]: r for r in _rows(t, "FCX112", "users")}
    assert set(users) == {"LINUX01", "CMS1"}
    assert users["LINUX01"]["vcpus"] == 2 and users["CMS1"]["vcpus"] == 1
    assert users["LINUX01"]["cpu"] is None and users["CMS1"]["tcpu"] is None
    # FCX265: 10 collisions/s, 5 us each
    locks = _rows(t, "FCX265", "locks")
    assert [r["lock"] for r in locks] == ["SRMSLOCK"] * 3
    assert [(r["colls"], r["avg"]) for r in locks] == [pytest.approx((10.0, 5.0))] * 3
    # FCX145: IBM's cumulative class counts at each sample, split by class
    q = _rows(t, "FCX145", "queues")
    assert [[r[c] for c in ("d_tot", "q0", "q1", "q2", "q3", "d_ld", "e_tot", "e1", "e2", "e3", "e_ld")]
            for r in q] == [[30 + k, 5, 10 + k, 8, 7, 2, 4 * k, 2 * k, k, k, k] for k in (1, 2, 3)]
    # FCX108: the devices of the configuration (D1R6), their activity not decodable: '...'
    devs = _rows(t, "FCX108", "devices")
    assert [r["addr"] for r in devs] == ["0A00", "0B01"]
    assert all(r["rate"] is None and r["busy"] is None for r in devs)
    assert any("8 device activity records" in n for n in t["FCX108"][1])


def test_corpus_text_prints_dots_not_zero_for_what_the_data_lacks():
    reports = build_all(measure(read(_site_file(1))))
    text = render.text([r for r in reports if r.fcx == "FCX112"])
    line = next(x for x in text.splitlines() if x.startswith("LINUX01"))
    assert "..." in line and " 0.0 " not in line and ".0 " not in line.split()[2]
    assert "no records" not in text.lower()


def test_corpus_user_above_its_virtual_cpus_and_busy_above_100_are_noted():
    mon = bytearray(_site_file(2))
    d = read(bytes(mon))
    # CPU 1's user time in the last sample: 200 s in a minute
    at = [o for o, c in zip(d.column("MRSYTPRP", "offset"), d.column("MRSYTPRP", "SYTPRP_PFXCPUAD")) if c == 1][-1]
    mon[at + 32:at + 40] = (200 * S).to_bytes(8, "big")
    d = read(bytes(mon))
    notes = check(d, measure(d))
    assert any("processor 1" in n and "above 100 %" in n for n in notes), notes


def test_report_from_to_selects_intervals_by_clock_time_or_seconds(run_cli, tmp_path):
    import json
    f = tmp_path / "site.mon"
    f.write_bytes(_site_file(5))  # intervals end at 00:01, 00:02, ... 00:05 (00:00 is the baseline)
    for frm, to, ends in (("00:02", "00:04", ["00:03:00", "00:04:00"]), ("120s", "240s", ["00:03:00", "00:04:00"]),
                          (None, "00:03:00", ["00:01:00", "00:02:00", "00:03:00"])):
        args = ["report", f, "--fcx", "144", "--format", "json"] + (["--from", frm] if frm else []) + ["--to", to]
        p = run_cli(*args)
        assert p.returncode == 0, p.stderr
        rep = json.loads(p.stdout)["reports"]["FCX144"]
        rows = [r for r in rep["tables"]["processors"]["rows"] if r["row"] == "data"]
        assert sorted({r["time"] for r in rows if r["time"]}) == ends
        assert rep["meta"]["seconds"] == 60.0 * len(ends) and rep["meta"]["to"].endswith(ends[-1])
        assert rep["meta"]["to_s"] - rep["meta"]["from_s"] == 60.0 * len(ends)
    for bad in (["--from", "25:00"], ["--to", "soon"], ["--from", "600s"]):
        p = run_cli("report", f, *bad)
        assert p.returncode == 2 and "Traceback" not in p.stderr and "--" in p.stderr + p.stdout


def test_corpus_user_reports_list_the_users_with_dots():
    t = _tables(_site_file(1))
    for fcx in ("FCX114", "FCX113"):
        rows = _rows(t, fcx, "users")
        assert [r["userid"] for r in rows] == ["CMS1", "LINUX01"], fcx
        assert all(v is None for r in rows for k, v in r.items() if k not in ("row", "userid", "vcpus"))


def test_report_notes_data_checks_and_strict_makes_them_an_error(run_cli, tmp_path):
    import json
    f = tmp_path / "two.mon"
    f.write_bytes((GOLDEN / "a.mon").read_bytes() + (GOLDEN / "b.mon").read_bytes())
    p = run_cli("report", f, "--fcx", "144", "--format", "json")
    assert p.returncode == 0, p.stderr
    notes = json.loads(p.stdout)["reports"]["FCX144"]["notes"]
    assert any(n.startswith("Data check: two or more levels") for n in notes)
    assert any("time runs backwards" in n for n in notes)
    p = run_cli("report", f, "--strict")
    assert p.returncode == 2 and "physical bounds" in p.stderr and "Traceback" not in p.stderr
    p = run_cli("report", GOLDEN / "a.mon", "--strict", "--fcx", "144")
    assert p.returncode == 0 and "Data check" not in p.stdout


@pytest.mark.parametrize("cputy, name", [(0, "CP"), (2, "ZAAP"), (3, "IFL"), (4, "ICF"), (5, "ZIIP")])
def test_processor_type_codes_are_z_architectures(cputy, name):
    """PFXCPUTY: 0 CP, 2 zAAP, 3 IFL, 4 ICF, 5 zIIP (the zpmd decoder's viewer; IBM's
    MTRCPD_LIMCPUTY uses 3 for IFL too)."""
    rows = _rows(_tables(_site_file(1, cputy)), "FCX144", "processors")
    assert {r["type"] for r in rows[:2]} == {name}


def test_zvmlab_writes_ifl_as_3_and_reads_its_old_2_as_ifl():
    from conftest import ROOT
    from zvmlab import engine, scenario

    sc = scenario.load(ROOT / "scenarios" / "replicate" / "b1-smt2.toml").with_overrides(duration="2s")
    _, mon = engine.simulate(sc.engine_config(), monitor=True)
    d = read(mon)
    prp = d.rows("MRSYTPRP")
    assert prp and {r["SYTPRP_PFXCPUTY"] for r in prp} == {3}
    assert set(measure(d).cpu_type.values()) == {3}
    old = bytearray(mon)
    for r in prp:
        old[r["offset"] + 104] = 2  # what zvmlab wrote before stop 27
    assert set(measure(read(bytes(old))).cpu_type.values()) == {3}
