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
