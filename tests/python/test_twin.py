"""zvmlab twin: scenario -> run -> monitor file -> twin -> run; the twin's FCX112 (CPU per guest),
FCX144 (busy per processor) and FCX108 (I/O rate, %busy and response time per device) over the
whole period agree with the original's within 5 %: the showcase, Apache CPU, a paging
(thrasher) and a DASD I/O scenario."""

from __future__ import annotations

import pytest

from conftest import ROOT
from zvmlab import engine, scenario
from zvmlab.errors import InputError
from zvmlab.monitor import measure, read
from zvmlab.monitor import twin as T


def _run(sc: scenario.Scenario):
    summary, mon = engine.simulate(sc.engine_config(), monitor=True)
    d = read(mon)
    return measure(d), d


def _whole(m):
    dur = m.duration_ns
    users = {u: 100.0 * m.user_totals(u)["cpu_pct"] / 100.0 for u in m.users}
    procs = {c: 100.0 * sum(m.busy_ns[c]) / dur for c in m.cpus}
    return users, procs, 100.0 * sum(sum(m.busy_ns[c]) for c in m.cpus) / (dur * len(m.cpus))


def _devices(m):
    """FCX108's whole-period figures per device: I/O rate, %busy per exposure, response (ms)."""
    out = {}
    for d in m.devs:
        t = {k: sum(v for v in m.dev[d][k] if v is not None) for k in ("ssch", "busy", "queue")}
        if t["ssch"]:
            n = m.dev_info[d]["exposures"] or 1
            out[m.dev_info[d]["name"]] = (t["ssch"] / (m.duration_ns / 1e9), 100.0 * t["busy"] / (n * m.duration_ns),
                                          (t["busy"] + t["queue"]) / t["ssch"] / 1e6)
    return out


def _round_trip(sc):
    m, d = _run(sc)
    tw = T.build(d, m, "original")
    m2, _ = _run(scenario.loads(tw.toml(), "twin.toml"))
    return _whole(m), _whole(m2), tw, _devices(m), _devices(m2)


def _scenario(name):
    from io_scenarios import io_toml
    if name == "paging":
        return scenario.loads(io_toml(duration_s=60, interval_s=10, mdisk=False), "paging.toml")
    if name == "dasd":
        return scenario.loads(io_toml(duration_s=60, interval_s=10, thrashers=0), "dasd.toml")
    if name.startswith("lpar"):
        from io_scenarios import lpar_toml
        return scenario.loads(lpar_toml(duration_s=int(name.split("@")[1]), interval_s=10,
                                        polarization="horizontal" if "horizontal" in name else "vertical"), "lpar.toml")
    path, duration = name.split("@")
    return scenario.load(ROOT / "scenarios" / path).with_overrides(duration=duration)


@pytest.mark.parametrize("name", ["showcase.toml@600s", "apache-cpu.toml@60s", "paging", "dasd", "lpar@300",
                                  "lpar-horizontal@300"])
def test_twin_reproduces_fcx112_fcx144_and_fcx108(name):
    (u1, p1, avg1), (u2, p2, avg2), tw, d1, d2 = _round_trip(_scenario(name))
    assert set(d2) == set(d1)
    for dev, figs in d1.items():
        assert d2[dev] == pytest.approx(figs, rel=0.05), dev
    assert set(u2) == set(u1)
    for u in u1:
        if u1[u] > 1.0:  # a guest using at least 1 % of a processor: within 5 %
            assert u2[u] == pytest.approx(u1[u], rel=0.05), u
    assert avg2 == pytest.approx(avg1, rel=0.05)
    for c in p1:
        assert p2[c] == pytest.approx(p1[c], rel=0.05, abs=1.0), c
    text = tw.toml()
    assert "D15R4 ZVMUSE_TTIME" in text and "D4R3" in text and "D0R2 MRSYTPRP" in text
    assert ("[cpc]" in text and "[[cpc.lpar]]" in text) == name.startswith("lpar")
    assert ("[storage]" in text) == (name in ("paging", "dasd"))


def test_what_if_edits_and_bad_edits():
    sc = scenario.load(ROOT / "scenarios" / "showcase.toml").with_overrides(duration="10s")
    m, d = _run(sc)
    tw = T.build(d, m, "showcase")
    w = T.apply(tw, ["processors=12", "smt=smt2", "share.USER1=RELATIVE 200", "vcpus.user0=2"])
    assert (w.processors, w.smt) == (12, "smt2") and (tw.processors, tw.smt) == (2, "off")
    assert [g.share for g in w.guests] == ["RELATIVE 100", "RELATIVE 200"] and w.guests[0].vcpus == 2
    scenario.loads(w.toml(), "w.toml")  # a valid scenario
    for bad in ["processors=many", "colour=red", "share.NOBODY=RELATIVE 1", "nonsense"]:
        with pytest.raises(InputError):
            T.apply(tw, [bad])


def test_twin_of_data_without_zvmlab_records_says_what_is_missing():
    import monitor_corpus as C
    from test_monitor_real import _site_file
    d = read(_site_file())
    with pytest.raises(InputError) as e:
        T.build(d, measure(d), "site.mon")
    assert "level" in str(e.value) or "CPU time per user" in str(e.value)
    assert C.FRAME == 4096


def test_cli_twin_writes_and_runs(run_cli, tmp_path):
    from conftest import SHOWCASE, zvmlab
    p = zvmlab("run", SHOWCASE, "--out", tmp_path / "r", "--duration", "10s")
    assert p.returncode == 0, p.stderr
    p = run_cli("twin", tmp_path / "r", "--out", tmp_path / "twin.toml")
    assert p.returncode == 0, p.stderr
    assert scenario.load(tmp_path / "twin.toml").processors == 2
    p = run_cli("twin", tmp_path / "r", "--what-if", "processors=1", "--json")
    assert p.returncode == 0, p.stderr
    assert '"what_if"' in p.stdout
    p = run_cli("twin", tmp_path / "r", "--what-if", "processors=zero")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    # A value the scenario refuses is the what-if's fault, not the data's.
    p = run_cli("twin", tmp_path / "r", "--what-if", "processors=9999")
    assert p.returncode == 2 and "--what-if processors=9999" in p.stderr and "built from this data" not in p.stderr


def test_twin_quotes_odd_names_and_refuses_two_systems(run_cli, tmp_path):
    assert T._quote('A"B\\C\x85') == '"A\\"B\\\\C\\u0085"'
    from pathlib import Path
    golden = Path(__file__).parent / "golden"
    f = tmp_path / "two.mon"
    f.write_bytes((golden / "a.mon").read_bytes() + (golden / "b.mon").read_bytes())
    p = run_cli("twin", f)
    assert p.returncode == 2 and "one system" in p.stderr and "Traceback" not in p.stderr


def test_twin_of_an_smt2_run_has_the_runs_cores():
    """One MRSYTPRP record per processor is one per thread under SMT-2: the twin counts cores."""
    sc = scenario.load(ROOT / "scenarios" / "replicate" / "b1-smt2.toml").with_overrides(duration="4s")
    m, d = _run(sc)
    tw = T.build(d, m, "b1-smt2")
    assert (tw.processors, tw.smt) == (sc.processors, "smt2") and len(m.cpus) == 2 * sc.processors
    assert scenario.loads(tw.toml(), "twin.toml").processors == sc.processors


def test_twin_of_a_level_whose_name_the_record_cuts(run_cli, tmp_path):
    """ZVMSYS_LEVEL holds 16 characters; zvm-6.4-vm65988-vm66063 is cut to its first 16."""
    from conftest import SHOWCASE, zvmlab
    p = zvmlab("run", SHOWCASE, "--out", tmp_path / "r", "--duration", "4s", "--level", "zvm-6.4-vm65988-vm66063")
    assert p.returncode == 0, p.stderr
    p = run_cli("twin", tmp_path / "r")
    assert p.returncode == 0, p.stderr
    assert 'level = "zvm-6.4-vm65988-vm66063"' in p.stdout


def test_twin_says_what_it_leaves_out_and_refuses_impossible_data(run_cli, tmp_path):
    from conftest import zvmlab
    p = zvmlab("run", ROOT / "scenarios" / "cpupool.toml", "--out", tmp_path / "r", "--duration", "4s")
    assert p.returncode == 0, p.stderr
    p = run_cli("twin", tmp_path / "r", "--out", tmp_path / "t.toml")
    assert p.returncode == 0 and "warning" in p.stderr and "CPU pools (D15R11 ZVMCPL)" in p.stderr, p.stderr
    assert "Not taken from the data yet" in (tmp_path / "t.toml").read_text()
    # A twin the data makes impossible is refused before it is written or printed.
    from zvmlab.commands.twin import _scenario
    d = read((tmp_path / "r" / "monitor.mon").read_bytes())
    tw = T.build(d, measure(d), "x")
    tw.guests[0].vcpus = 65535
    with pytest.raises(InputError, match="built from this data is not a valid scenario"):
        _scenario(tw, "x.mon")


def test_time_that_jumps_is_a_data_check_and_the_twin_refuses_it(run_cli, tmp_path):
    from conftest import SHOWCASE, zvmlab
    from zvmlab.monitor import layouts as L
    p = zvmlab("run", SHOWCASE, "--out", tmp_path / "r", "--duration", "4s")
    assert p.returncode == 0, p.stderr
    mon = bytearray((tmp_path / "r" / "monitor.mon").read_bytes())
    d = read(bytes(mon))
    last = d.groups[-1]
    # the last interval end's TOD (MRMTREND's header TOD) moved 10 years on
    at = mon.find(last["tod"].to_bytes(8, "big"), last["offset"])  # in the interval-end record
    assert at >= last["offset"]
    mon[at:at + 8] = (last["tod"] + 10 * 365 * 86400 * 10**6 * L.TOD_PER_US).to_bytes(8, "big")
    f = tmp_path / "jump.mon"
    f.write_bytes(bytes(mon))
    p = run_cli("report", f, "--fcx", "144")
    assert "time jumps" in p.stdout + p.stderr, p.stdout[-2000:]
    p = run_cli("twin", f)
    assert p.returncode == 2 and "time jumps" in p.stderr and "Traceback" not in p.stderr
