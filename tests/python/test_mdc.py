"""The minidisk cache: scenario options ([mdc], workload mdc / extent), their errors, and the
FCX178-like counters in the run summary."""

import pytest
from conftest import assert_bad_scenario, run_json

BASE = """
[system]
level = "zvm-6.2"
processors = 2
[run]
duration = "10s"
interval = "5s"
[mdc]
storage = "4M"
[[guest]]
userid = "READER"
workload = { kind = "dasd-io", volume = "E100", type = "eckd", cpu = "20us", ios = 10, blocks = 1, mdc = true, extent = "16M" }
"""


def test_mdc_counters_and_hit_ratio(tmp_path):
    f = tmp_path / "m.toml"
    f.write_text(BASE)
    r = run_json("run", f, "--json")
    m = r["dasd"]["mdc"]
    # 1024 frames of cache over 4096 blocks read at random: hit ratio 1/4.
    assert m["max_frames"] == 1024 and 0 < m["frames"] <= 1024
    assert abs(m["hit_ratio"] - 0.25) < 0.02
    assert m["inserts"] == m["reads"] - m["hits"] and m["steals"] > 0
    assert m["frames_below_2g"] + m["frames_above_2g"] == m["frames"]
    off = BASE.replace(", mdc = true, extent = \"16M\"", "")
    f.write_text(off)
    r2 = run_json("run", f, "--json")
    assert r2["dasd"]["mdc"]["reads"] == 0
    assert r["dasd"]["users"]["READER"]["tx_per_s"] > 1.05 * r2["dasd"]["users"]["READER"]["tx_per_s"]


@pytest.mark.parametrize("old,new,field,words", [
    ('type = "eckd"', 'type = "scsi"', "workload.mdc", "not eligible"),
    ("mdc = true", 'mdc = "yes"', "workload.mdc", "not true or false"),
    (', extent = "16M"', "", "workload.extent", "missing extent"),
    ('storage = "4M"', 'storage = "lots"', "mdc.storage", "not a storage size"),
    ('storage = "4M"', 'size = "4M"', "mdc.size", "unknown key"),
    ('[mdc]\nstorage = "4M"\n', "", "mdc.storage", "no minidisk cache"),
])
def test_bad_mdc_options(tmp_path, old, new, field, words):
    assert_bad_scenario(tmp_path, BASE, old, new, field, words)


def test_extent_smaller_than_an_io(tmp_path):
    assert_bad_scenario(tmp_path, BASE.replace("blocks = 1", "blocks = 8"), 'extent = "16M"', 'extent = "4K"',
                        "workload.extent", "smaller than one I/O")


PAGED = """
[system]
level = "LEVEL"
processors = 2
[run]
duration = "2s"
interval = "1s"
[storage]
real = "3G"
prefill = true
paging_volumes = [{ type = "eckd", size = "4G", count = 8 }]
[mdc]
storage = "64M"
[[guest]]
userid = "PAGER"
storage = "4G"
refs = { pattern = "uniform", range = "3G" }
workload = { kind = "cpu-bound", tx_cpu = "20us", dist = "fixed" }
[[guest]]
userid = "READER"
workload = { kind = "dasd-io", volume = "E100", type = "eckd", cpu = "20us", ios = 10, blocks = 1, mdc = true, extent = "1G" }
"""


def test_a_cache_and_guest_pages_beyond_storage_need_paging_volumes(tmp_path):
    # Without paging volumes, the guests' 3G of pages and the cache's 64M must fit in real storage
    # together: the cache steals guest pages for its frames, and a stolen page must go somewhere
    # (before this was checked, such a scenario ran into a panic in the engine's page-in).
    base = PAGED.replace("LEVEL", "zvm-6.4").replace("prefill = true\n", "")
    no_volumes = 'paging_volumes = [{ type = "eckd", size = "4G", count = 8 }]\n'
    assert_bad_scenario(tmp_path, base, no_volumes, "", "mdc.storage", "minidisk cache of up to 16384 frames")
    # 3G + 64M fit in 3200M: no paging volume needed.
    f = tmp_path / "fits.toml"
    f.write_text(base.replace(no_volumes, "").replace('real = "3G"', 'real = "3200M"').replace('"2s"', '"1s"'))
    r = run_json("run", f, "--json")
    assert r["dasd"]["mdc"]["reads"] > 0 and r["storage"]["pages_written"] == 0


def test_mdc_frames_below_2g_only_with_elective_use(tmp_path):
    """With a paging model, MDC frames come from real storage: at 6.1 (elective below-2GB use)
    below 2 GB first, at 6.2 above it (FCX178 MDCSTOR <2GB / >2GB)."""
    f = tmp_path / "p.toml"
    out = {}
    for lv in ("zvm-6.1", "zvm-6.2"):
        f.write_text(PAGED.replace("LEVEL", lv))
        out[lv] = run_json("run", f, "--json")["dasd"]["mdc"]
    assert out["zvm-6.1"]["frames_below_2g"] > 0
    assert out["zvm-6.2"]["frames_below_2g"] == 0 and out["zvm-6.2"]["frames_above_2g"] > 0


def test_arbiter_sizes_the_cache_against_paging(tmp_path):
    """The arbiter (every mdc.arbiter_interval): with a heavy pager and a cache whose reads are
    few and rarely hit (1 GB read at random through 64 MB), a frame is worth more to user pages, so
    the cache's target shrinks below its maximum and frames go back; with the pager gone and
    a small hot extent it stays at its maximum."""
    f = tmp_path / "p.toml"
    f.write_text(PAGED.replace("LEVEL", "zvm-6.2").replace('duration = "2s"', 'duration = "6s"')
                 .replace('ios = 10, blocks = 1,', 'ios = 1, blocks = 1, think = "5ms",'))
    m = run_json("run", f, "--json")["dasd"]["mdc"]
    assert m["arbiter_shrinks"] > 0 and m["target_frames"] < m["max_frames"]
    assert m["frames"] <= m["target_frames"]
    quiet = (PAGED.replace("LEVEL", "zvm-6.2").replace('duration = "2s"', 'duration = "6s"')
             .replace('refs = { pattern = "uniform", range = "3G" }', 'refs = { pattern = "uniform", range = "8M" }')
             .replace('extent = "1G"', 'extent = "16M"'))
    f.write_text(quiet)
    m = run_json("run", f, "--json")["dasd"]["mdc"]
    assert m["arbiter_shrinks"] == 0 and m["target_frames"] == m["max_frames"], m


def test_mdcstor_report_agrees_with_the_run_summary(tmp_path):
    """FCX178 MDCSTOR from the monitor data (zvmlab MDC fields of D3R1) on an MDC-only run (no
    paging model: the storage reports stay empty): reads, hits and the final size as the summary."""
    import json
    from conftest import zvmlab
    f = tmp_path / "m.toml"
    f.write_text(BASE)
    d = tmp_path / "run"
    p = zvmlab("run", f, "--out", d)
    assert p.returncode == 0, p.stderr
    s = json.loads((d / "summary.json").read_text())["dasd"]["mdc"]
    p = zvmlab("report", d, "--fcx", "MDCSTOR", "--format", "json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)["reports"]["FCX178"]["tables"]["mdc"]["rows"]
    data = [r for r in rows if r["row"] == "data"]
    secs = json.loads((d / "summary.json").read_text())["duration_s"]
    assert sum(r["reads"] for r in data) * 5 == pytest.approx(s["reads"], rel=1e-9)
    assert sum(r["hits"] for r in data) * 5 == pytest.approx(s["hits"], rel=1e-9)
    mean = next(r for r in rows if r["row"] == ">>Mean>>")
    assert mean["ratio"] == pytest.approx(s["hit_ratio"], rel=1e-9) and secs == 10
    assert data[-1]["below"] + data[-1]["above"] == pytest.approx(s["frames"] * 4096 / 2**20)
    assert mean["max"] == pytest.approx(s["max_frames"] * 4096 / 2**20)
    # no paging model: AUXLOG has no storage data
    p = zvmlab("report", d, "--fcx", "AUXLOG")
    assert p.returncode == 0 and "No " in p.stdout
