"""Channel paths (issue 22): scenario keys, located errors, and the workload-library scenario
where two ESCON paths, not the paging volumes, limit the paging rate."""

import pytest

from conftest import ROOT, assert_bad_scenario, run_json
from zvmlab.scenario import loads

SCEN = ROOT / "scenarios" / "channels-paging.toml"


def test_channel_keys_reach_the_engine():
    s = loads(SCEN.read_text())
    c = s.engine_config()["channels"]
    assert c == {"chpids": [{"id": "40", "type": "escon"}, {"id": "41", "type": "escon"}],
                 "paths": ["40", "41"], "cu_class": "ess"}
    # Without [[chpid]] and paths the engine form has no channels key (runs stay as before).
    base = (ROOT / "scenarios" / "replicate" / "d11-alias.toml").read_text()
    assert "channels" not in loads(base).engine_config()


@pytest.mark.parametrize("old,new,field,words", [
    ('paths = ["40", "41"]', "paths = []", "cu.paths", "a control unit with no path"),
    ('paths = ["40", "41"]', 'paths = ["40", "42"]', "cu.paths", "no [[chpid]]"),
    ('paths = ["40", "41"]', 'paths = ["40", "40"]', "cu.paths", "listed twice"),
    ('paths = ["40", "41"]', 'paths = ["40", "41", "42", "43", "44", "45", "46", "47", "48"]', "cu.paths",
     "not 1-8"),
    ('paths = ["40", "41"]', 'paths = ["40"]\nclass = "2107"', "cu.class", "not ess or 3990"),
    ('paths = ["40", "41"]', 'path = ["40"]', "cu.path", "did you mean 'paths'"),
    ('id = "41"', 'id = "4G"', "chpid[1].id", "not a CHPID"),
    ('id = "41"', 'id = "40"', "chpid[1].id", "defined twice"),
    ('type = "escon"', 'type = "escom"', "chpid[0].type", "did you mean 'escon'"),
    # a non-string type is a located error, not a TypeError (found by a helper's mutation run)
    ('type = "escon"', "type = []", "chpid[0].type", "unknown channel type"),
    ('type = "escon"', "type = {}", "chpid[0].type", "unknown channel type"),
    ('id = "41"\ntype = "escon"', 'id = "41"\ntype = "ficon"', "cu.paths", "different types"),
    ('level = "zvm-5.3"', 'level = "vmesa-2.3.0"', "chpid", "does not know"),
    ('[cu]\npaths = ["40", "41"]', "", "cu.paths", "the control unit has none"),
    ('type = "eckd", size = "2G"', 'type = "edev", size = "2G"', "cu.paths", "without ECKD volumes"),
])
def test_bad_channel_input_is_located(tmp_path, old, new, field, words):
    base = SCEN.read_text()
    if "does not know" in words:
        base = base.replace('type = "escon"', 'type = "ficon"')
    assert_bad_scenario(tmp_path, base, old, new, field, words)


def _run(tmp_path, text, name):
    f = tmp_path / f"{name}.toml"
    f.write_text(text.replace('duration = "20s"', 'duration = "4s"'))
    return run_json("run", f, "--json")


def test_two_escon_paths_bind_and_more_paths_or_ficon_relieve(tmp_path):
    """The channels bind: the two ESCON paths are nearly always busy and most starts wait for
    one (pend well above the device's own), while each volume is far from busy; four ESCON
    paths or two FICON paths carry more paging with less pend."""
    esc = SCEN.read_text()
    four = esc.replace('[cu]\npaths = ["40", "41"]', '[[chpid]]\nid = "42"\ntype = "escon"\n\n[[chpid]]\nid = "43"\n'
                       'type = "escon"\n\n[cu]\npaths = ["40", "41", "42", "43"]')
    ficon = esc.replace('type = "escon"', 'type = "ficon"')
    r2, r4, rf = (_run(tmp_path, t, n) for t, n in ((esc, "e2"), (four, "e4"), (ficon, "f2")))
    c2 = r2["channels"]
    assert all(p["busy_pct"] > 95 for p in c2["paths"])
    assert c2["delayed_pct"] > 80
    dev = r2["devices"][0]
    assert dev["pend_ms"] > 3 * 0.15 and dev["util_pct"] < 60
    # Conservation: every start ran on a path or still waits.
    assert sum(p["stats"]["ios"] for p in c2["paths"]) <= c2["starts"]
    assert c2["starts"] == sum(d["stats"]["ios"] for d in r2["devices"])
    for r in (r4, rf):
        assert r["storage"]["faults"] > 1.3 * r2["storage"]["faults"]
        assert r["devices"][0]["pend_ms"] < 0.5 * dev["pend_ms"]
        assert r["channels"]["path_wait_ms"] < 0.2 * c2["path_wait_ms"]
    # FICON carries several I/Os at once on a path; ESCON never more than one.
    assert max(p["max_concurrent"] for p in rf["channels"]["paths"]) > 1
    assert max(p["max_concurrent"] for p in c2["paths"]) == 1


def test_ficon_switches_change_what_they_say(tmp_path):
    """Prefetch under Synchronize Control and the nullification window (VM/ESA 2.4, seed 002):
    off, a FICON I/O pays a round trip per CCW after the first (connect) and the window (pend);
    the window is avoided only on an ESS."""
    ficon = SCEN.read_text().replace('type = "escon"', 'type = "ficon"')
    base = _run(tmp_path, ficon, "on")
    assert base["channels"]["nullification_ms"] == 0 and base["channels"]["interlock_ms_per_ccw"] == 0
    off = ficon.replace('level = "zvm-5.3"', 'level = "zvm-5.3"\nswitches = { ficon_prefetch = "off", '
                        'nullification = "waits" }')
    r = _run(tmp_path, off, "off")
    assert r["channels"]["nullification_ms"] > 0 and r["channels"]["interlock_ms_per_ccw"] > 0
    d0, d1 = base["devices"][0], r["devices"][0]
    assert d1["connect_ms"] > d0["connect_ms"] and d1["pend_ms"] > d0["pend_ms"]
    cls = _run(tmp_path, ficon.replace('paths = ["40", "41"]', 'paths = ["40", "41"]\nclass = "3990"'), "c3990")
    assert cls["channels"]["nullification_ms"] > 0 and cls["channels"]["interlock_ms_per_ccw"] == 0


PAV = ROOT / "scenarios" / "pav-minidisks.toml"


@pytest.mark.parametrize("old,new,field,words", [
    ('pav = "static"', 'pav = "basic"', "cu.pav", "not hyper, static or dynamic"),
    ('aliases = 6', '', "cu.aliases", "missing"),
    ('aliases = 6', 'aliases = 6\npaging_alias = true', "cu.paging_alias", "HyperPAV only"),
    ('aliases = 6', 'aliases = 6\nshare = { paging = 1, minidisk = 2 }', "cu.share", "HyperPAV only"),
    ('level = "zvm-5.3"', 'level = "vmesa-2.4.0"', "cu.pav", "no PAV minidisk support"),
    ('type = "eckd"', 'type = "edev"', "cu.pav", "without ECKD minidisk volumes"),
])
def test_bad_pav_input_is_located(tmp_path, old, new, field, words):
    base = PAV.read_text()
    if "edev" in new:
        base = base.replace('type = "eckd"', 'type = "edev"')
        old, new = 'pav = "static"', 'pav = "static"\n'
    assert_bad_scenario(tmp_path, base, old, new, field, words)


def test_dynamic_pav_moves_aliases_to_the_busy_volume(tmp_path):
    """Static PAV keeps two aliases on each base: the busy volume queues while the quiet ones
    leave theirs idle. Dynamic PAV moves aliases to the busy volume (each move a state change):
    its I/O rate rises and the paced quiet volumes still get their rate."""
    text = PAV.read_text().replace('duration = "20s"', 'duration = "8s"')
    st = _run(tmp_path, text, "static")
    dy = _run(tmp_path, text.replace('pav = "static"', 'pav = "dynamic"'), "dynamic")
    assert st["pav"]["moves"] == 0 and [b for _, b in st["pav"]["bound"]] == [2, 2, 2]
    assert dy["pav"]["moves"] >= 2
    bound = dict(dy["pav"]["bound"])
    assert bound["MD0001"] > 2 and sum(bound.values()) == 6
    hot = lambda r: next(d for d in r["devices"] if d["name"] == "MD0001")  # noqa: E731
    assert hot(dy)["io_rate"] > 1.5 * hot(st)["io_rate"]
    assert hot(dy)["aliases_in_use"] > hot(st)["aliases_in_use"]
    for r in (st, dy):
        for u, x in r["dasd"]["users"].items():
            if u.startswith("COLD"):
                assert not x["saturated"]


def _run_with_monitor(tmp_path, text, name):
    from zvmlab import engine, scenario
    from zvmlab.perfkit import load
    cfg = scenario.loads(text, f"{name}.toml").with_overrides(duration="3s").engine_config()
    cfg["interval_ns"] = 10**9
    summary, mon = engine.simulate(cfg, monitor=True)
    f = tmp_path / f"{name}.mon"
    f.write_bytes(mon)
    return summary, load(str(f)).m


def test_channel_records_agree_with_the_summary(tmp_path):
    """FCX107 CHANNEL from the monitor data (D15R13 ZVMCHP) gives the run summary's path busy,
    I/O rate and concurrency; FICON devices say their active time is measured by hardware."""
    from zvmlab.perfkit import REPORTS
    for text, hw in ((SCEN.read_text(), False), (SCEN.read_text().replace('type = "escon"', 'type = "ficon"'), True)):
        summary, m = _run_with_monitor(tmp_path, text, "hw" if hw else "sw")
        t = REPORTS["FCX107"].build(m).tables[0]
        means = {row["chpid"]: row for row in t.rows if row["_kind"] != "data"}
        for p in summary["channels"]["paths"]:
            row = means[p["chpid"]]
            assert row["busy"] == pytest.approx(p["busy_pct"], abs=1e-6)
            assert row["rate"] == pytest.approx(p["io_rate"], rel=1e-9)
            assert row["conc"] == pytest.approx(p["mean_concurrent"], abs=1e-6)
        assert m.dev_chan and all(c["channel"] and c["hw_active"] == hw and c["paths"] == 2
                                  for c in m.dev_chan.values())


def test_pav_state_changes_are_recorded(tmp_path):
    """Each dynamic PAV alias move is one D15R15 ZVMSTC record; FCX131 DEVCONF counts them."""
    from zvmlab.perfkit import REPORTS
    summary, m = _run_with_monitor(tmp_path, PAV.read_text().replace('pav = "static"', 'pav = "dynamic"'), "pav")
    assert summary["pav"]["moves"] >= 1 and len(m.pav_moves) == summary["pav"]["moves"]
    rows = [r for r in REPORTS["FCX131"].build(m).tables[0].rows if r["_kind"] == "data"]
    assert sum(r["moved_in"] for r in rows) == sum(r["moved_out"] for r in rows) == summary["pav"]["moves"]
    assert {r["volser"]: r["pav"] for r in rows} == dict(summary["pav"]["bound"])


def test_a_path_shared_with_other_lpars(tmp_path):
    """With a [cpc], a path may be shared (MIF): the other LPARs' starts take the path too, so
    this LPAR's starts wait longer; the summary and FCX107 split the busy time by LPAR."""
    from zvmlab.perfkit import REPORTS
    cpc = ('\n[cpc]\nshared_ifls = 4\n\n[[cpc.lpar]]\nname = "OTHER"\nweight = 50\nlogical = 2\n'
           'polarization = "horizontal"\nbusy = 0.2\n')
    four = SCEN.read_text().replace('[cu]\npaths = ["40", "41"]', '[[chpid]]\nid = "42"\ntype = "escon"\n\n'
                                    '[[chpid]]\nid = "43"\ntype = "escon"\n\n[cu]\npaths = ["40", "41", "42", "43"]')
    base = four.replace('processors = 2', 'processors = 2\nweight = 50\npolarization = "horizontal"') + cpc
    shared = base.replace('id = "40"\ntype = "escon"', 'id = "40"\ntype = "escon"\npartner_io_rate = 1500')
    own, sh = _run(tmp_path, base, "own"), _run(tmp_path, shared, "shared")
    p40 = next(p for p in sh["channels"]["paths"] if p["chpid"] == "40")
    assert p40["partner_io_rate"] == pytest.approx(1500, rel=0.1)
    assert p40["busy_pct"] > p40["own_busy_pct"] + 20
    others = [p for p in sh["channels"]["paths"] if p["chpid"] != "40"]
    assert all(p["partner_io_rate"] == 0 and p["busy_pct"] == pytest.approx(p["own_busy_pct"], abs=0.01)
               for p in others)
    assert sh["channels"]["path_wait_ms"] > 1.5 * own["channels"]["path_wait_ms"]
    summary, m = _run_with_monitor(tmp_path, shared, "shared-mon")
    means = {r["chpid"]: r for r in REPORTS["FCX107"].build(m).tables[0].rows if r["_kind"] != "data"}
    for p in summary["channels"]["paths"]:
        assert means[p["chpid"]]["own"] == pytest.approx(p["own_busy_pct"], abs=1e-6)
        assert means[p["chpid"]]["prate"] == pytest.approx(p["partner_io_rate"], rel=1e-9)


@pytest.mark.parametrize("new,field,words", [
    ('partner_io_rate = -5', "chpid[0].partner_io_rate", "out of range"),
    ('partner_io_rate = 100', "chpid[0].partner_io_rate", "without a [cpc]"),
])
def test_bad_shared_path_input_is_located(tmp_path, new, field, words):
    base = SCEN.read_text()
    assert_bad_scenario(tmp_path, base, 'id = "40"\ntype = "escon"', f'id = "40"\ntype = "escon"\n{new}', field,
                        words)
