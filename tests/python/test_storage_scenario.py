"""Scenario keys for storage and paging (issue 5): parsing, engine form, located errors."""

import re

import pytest

from zvmlab.errors import InputError
from zvmlab.scenario import loads

BASE = """
[system]
level = "zvm-6.3"
processors = 2
[run]
duration = "5s"
{storage}
[[guest]]
userid = "THR"
{guest}
workload = {{ kind = "cpu-bound", tx_cpu = "50us", dist = "fixed" }}
"""

GOOD_ST = '[storage]\nreal = "16M"\nprefill = true\npaging_volumes = [{ type = "eckd", size = "1G", count = 2 }]'
GOOD_G = 'storage = "64M"\nrefs = { pattern = "uniform", range = "48M" }'


def test_storage_keys_reach_the_engine():
    s = loads(BASE.format(storage=GOOD_ST, guest=GOOD_G))
    c = s.engine_config()
    assert c["storage"] == {"frames": 4096, "prefill": True,
                            "paging_volumes": [{"type": "eckd", "slots": 262144, "count": 2}]}
    assert c["guests"][0]["storage_pages"] == 16384
    assert c["guests"][0]["refs"] == {"pattern": "uniform", "range_pages": 12288}
    # A scenario without storage sends exactly what it sent before.
    plain = loads(BASE.format(storage="", guest="")).engine_config()
    assert "storage" not in plain and "refs" not in plain["guests"][0]


def test_thrasher_runs_and_reports_devices():
    from zvmlab import engine

    s = loads(BASE.format(storage=GOOD_ST, guest=GOOD_G))
    out = engine.simulate(s.engine_config())
    assert out["storage"]["fault_rate"] == pytest.approx(1 - 4096 / 12288, rel=0.05)
    assert len(out["devices"]) == 2


@pytest.mark.parametrize("storage,guest,field", [
    (GOOD_ST, 'storage = "64M"\nrefs = { pattern = "uniform", range = "65M" }', "guest[0].refs.range"),
    (GOOD_ST, 'storage = "2T"', "guest[0].storage"),
    (GOOD_ST, 'storage = "lots"', "guest[0].storage"),
    (GOOD_ST, 'refs = { pattern = "uniform", range = "48M" }', "guest[0].refs"),
    (GOOD_ST, 'storage = "64M"\nrefs = { pattern = "zipf", range = "48M" }', "guest[0].refs"),
    (GOOD_ST, 'storage = "64M"\nrefs = { pattern = "strided", range = "48M" }', "guest[0].refs.stride"),
    ("", GOOD_G, "storage"),
    ('[storage]\nreal = "16M"', GOOD_G, "storage.paging_volumes"),
    ('[storage]\nreal = "16M"\npaging_volumes = [{ type = "xiv", size = "1G" }]', GOOD_G,
     "storage.paging_volumes[0].type"),
    ('[storage]\nreel = "16M"', GOOD_G, "storage.reel"),
    ('[storage]\nprefill = true', GOOD_G, "storage.real"),
])
def test_bad_storage_input_is_located(storage, guest, field):
    with pytest.raises(InputError) as e:
        loads(BASE.format(storage=storage, guest=guest))
    assert e.value.field == field


def test_hotset_refs():
    s = loads(BASE.format(storage=GOOD_ST, guest='storage = "64M"\nrefs = { pattern = "hotset", range = "48M", '
                                               'hot = "8M", hot_fraction = 0.9 }'))
    assert s.engine_config()["guests"][0]["refs"] == {"pattern": "hotset", "range_pages": 12288,
                                                      "hot_pages": 2048, "hot_fraction": 0.9}
    for bad, field in [('hot = "48M", hot_fraction = 0.9', "guest[0].refs.hot"),
                       ('hot = "8M", hot_fraction = 1.5', "guest[0].refs.hot_fraction"),
                       ('hot = "8M"', "guest[0].refs.hot_fraction")]:
        with pytest.raises(InputError) as e:
            loads(BASE.format(storage=GOOD_ST, guest=f'storage = "64M"\nrefs = {{ pattern = "hotset", range = "48M", {bad} }}'))
        assert e.value.field == field


def test_xiv_marks_only_edev_paging_volumes(tmp_path):
    from conftest import ROOT, assert_bad_scenario

    base = (ROOT / "scenarios" / "replicate" / "d14-xiv.toml").read_text()
    assert_bad_scenario(tmp_path, base, 'type = "edev", size = "4G", count = 4, xiv = true',
                        'type = "eckd", size = "4G", count = 4, xiv = true', "storage.paging_volumes[0].xiv",
                        "not valid here")
    assert_bad_scenario(tmp_path, base, "xiv = true", 'xiv = "yes"', "storage.paging_volumes[0].xiv",
                        "not valid here")


def test_paging_hpf_needs_eckd_volumes_and_a_level_that_has_it(tmp_path):
    """SET PAGING HPF ON (row D10): accepted with ECKD paging volumes; at 6.4 paging runs in
    transport mode (shorter service), at 6.3 the setting is ignored and the run says so."""
    from conftest import ROOT, assert_bad_scenario, run_json, zvmlab
    base = (ROOT / "scenarios" / "replicate" / "d10-hpf.toml").read_text()
    assert_bad_scenario(tmp_path, base, "paging_hpf = true", 'paging_hpf = "on"', "storage.paging_hpf",
                        "not true or false")
    assert_bad_scenario(tmp_path, base, 'type = "eckd", size = "2G"', 'type = "edev", size = "2G"',
                        "storage.paging_hpf", "without ECKD paging volumes")
    f = tmp_path / "h.toml"
    f.write_text(base.replace('duration = "4s"', 'duration = "1s"'))
    on = run_json("run", f, "--json")["storage"]
    old = run_json("run", f, "--json", "--level", "zvm-6.3")["storage"]
    assert on["hpf"] and not old["hpf"]
    assert on["paging_service_ms"] < 0.9 * old["paging_service_ms"]
    p = zvmlab("run", f, "--level", "zvm-6.3")
    assert p.returncode == 0 and "SET PAGING HPF ON ignored" in p.stdout


@pytest.mark.parametrize("old,new,field,words", [
    ("aliases = 15", "aliases = 0", "cu.aliases", "out of range"),
    ("aliases = 15", "aliases = 300", "cu.aliases", "out of range"),
    ("aliases = 15\n", "", "cu.aliases", "missing"),
    ("paging_alias = true", 'paging_alias = "yes"', "cu.paging_alias", "not true or false"),
    ("share = { paging = 100, minidisk = 200 }", "share = { paging = -5, minidisk = 200 }", "cu.share.paging",
     "out of range"),
    ("share = { paging = 100, minidisk = 200 }", "share = { paging = 100, tape = 200 }", "cu.share",
     "not a share table"),
    ("paging_alias = true", "paging_alias = true\nalias = 3", "cu.alias", "did you mean 'aliases'"),
    ('paging_volumes = [{ type = "eckd", size = "4G", count = 2 }]',
     'paging_volumes = [{ type = "edev", size = "4G", count = 2 }]', "cu.paging_alias", "without ECKD paging"),
])
def test_bad_control_unit_input_is_located(tmp_path, old, new, field, words):
    from conftest import ROOT, assert_bad_scenario
    base = (ROOT / "scenarios" / "replicate" / "d12-cu-share.toml").read_text()
    assert_bad_scenario(tmp_path, base, old, new, field, words)


def test_aliases_need_eckd_volumes(tmp_path):
    from conftest import ROOT, assert_bad_scenario
    base = (ROOT / "scenarios" / "replicate" / "d11-noalias.toml").read_text()
    assert_bad_scenario(tmp_path, base, 'type = "eckd", size = "4G"', 'type = "edev", size = "4G"', "cu.aliases",
                        "without ECKD volumes")


def test_encrypted_paging_ciphers_machine_and_level(tmp_path):
    """SET ENCRYPT PAGING (row D13): a known cipher on a z14, in effect with VM65993 (1Q17 stack
    here) and ignored, with a note, before it; longer keys cost more per page; decryption less."""
    from conftest import ROOT, assert_bad_scenario, run_json, zvmlab
    base = (ROOT / "scenarios" / "replicate" / "d13-aes256.toml").read_text()
    assert_bad_scenario(tmp_path, base, 'encrypt_paging = "aes256"', 'encrypt_paging = "des"',
                        "storage.encrypt_paging", "not a paging cipher")
    assert_bad_scenario(tmp_path, base, "processors = 8", 'processors = 8\nmachine = "z13"',
                        "storage.encrypt_paging", "on a z13")
    f = tmp_path / "e.toml"
    f.write_text(base.replace('duration = "4s"', 'duration = "1s"'))
    e256 = run_json("run", f, "--json")["storage"]["encryption"]
    f128 = tmp_path / "e128.toml"
    f128.write_text(f.read_text().replace('"aes256"', '"aes128"'))
    e128 = run_json("run", f128, "--json")["storage"]["encryption"]
    assert e256["encrypt_us_per_page"] > e128["encrypt_us_per_page"] > e128["decrypt_us_per_page"] > 0
    assert e256["pages_encrypted_per_s"] > 0 and e256["pages_decrypted_per_s"] > 0
    assert "encryption" not in run_json("run", f, "--json", "--level", "zvm-6.4")["storage"]
    p = zvmlab("run", f, "--level", "zvm-6.4")
    assert p.returncode == 0 and "SET ENCRYPT PAGING ignored" in p.stdout


def _d8_short(tmp_path):
    from conftest import ROOT
    base = (ROOT / "scenarios" / "replicate" / "d8-apache-paging.toml").read_text()
    f = tmp_path / "d8.toml"
    f.write_text(base.replace('duration = "10s"', 'duration = "2s"').replace('interval = "5s"', 'interval = "1s"'))
    n = int(re.search(r'range = "1G", touches = (\d+)', base).group(1))  # calibrated on row D8
    return base, f, n


def test_server_page_references_per_request(tmp_path):
    """refs.touches (row D8): a server request references about that many pages; only servers
    take it."""
    from conftest import assert_bad_scenario, run_json
    base, f, n = _d8_short(tmp_path)
    s = run_json("run", f, "--json")
    served = s["vnet"]["requests_served"] + s["vnet"]["requests_in_service"]
    refs = s["storage"]["references"]
    assert n > 1 and n * s["vnet"]["requests_served"] <= refs <= n * served, (n, refs, served)
    assert_bad_scenario(tmp_path, base, f'range = "1G", touches = {n}', 'range = "1G", touches = 0',
                        "guest[1].refs.touches", "out of range")
    bad = base.replace('workload = { kind = "client", cpu = "360us", servers = "SRV", window = 8 }',
                       'refs = { pattern = "uniform", range = "512M", touches = 4 }\n'
                       'workload = { kind = "client", cpu = "360us", servers = "SRV", window = 8 }')
    assert_bad_scenario(tmp_path, bad, "touches = 4", "touches = 5", "guest[0].refs.touches", "needs a server")


def test_every_server_request_references_touches_pages(tmp_path):
    """A request handed to a waiting server virtual CPU (vnet_kick_server) references its first
    page when that virtual CPU is dispatched, as a request it takes from its queue does at once
    (it ran its first piece without one: touches - 1 pages per such request, found on branch
    calibrate, fixed at stop 24)."""
    from conftest import run_json
    _, f, n = _d8_short(tmp_path)
    s = run_json("run", f, "--json")
    served = s["vnet"]["requests_served"] + s["vnet"]["requests_in_service"]
    assert n * s["vnet"]["requests_served"] <= s["storage"]["references"] <= n * served
