"""Golden files: every report's text, CSV and JSON layout (and --vs) from two fixed monitor files.

The inputs (tests/python/golden/a.mon, b.mon) are committed monitor data, so these tests check
the report layouts, not the engine: a scheduler change does not touch them.

Regenerate the expected outputs after an intended layout change:
    ZVMLAB_REGEN_GOLDEN=1 .venv/bin/python -m pytest -q tests/python/test_report_golden.py
and the inputs too (after a change of the monitor writer):
    ZVMLAB_REGEN_GOLDEN=inputs .venv/bin/python -m pytest -q tests/python/test_report_golden.py
then review `git diff tests/python/golden/`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from io_scenarios import io_config, lpar_config
from zvmlab import engine
from zvmlab.perfkit import REPORTS, load, render

GOLDEN = Path(__file__).parent / "golden"
REGEN = os.environ.get("ZVMLAB_REGEN_GOLDEN", "")
MS = 1_000_000


def _guest(userid, workload, share=100.0, vcpus=1):
    return {"userid": userid, "vcpus": vcpus, "count": 1, "quickdsp": False,
            "share": {"min": {"kind": "relative", "value": share}, "limit": "none"}, "workload": workload}


def _inputs() -> dict[str, dict]:
    guests = [_guest("LINUX01", {"kind": "cpu-bound", "dist": "exp"}, 100.0, 2),
              _guest("LINUX02", {"kind": "cpu-bound", "dist": "exp", "demand": 0.3}, 200.0),
              _guest("CMS1", {"kind": "transactional", "think_ns": 40 * MS, "cpu_ns": 4 * MS, "dist": "exp"})]
    base = {"processors": 3, "smt": "off", "duration_ns": 300 * 10**9, "interval_ns": 60 * 10**9, "params": {},
            "switches": {}, "guests": guests, "actions": []}
    return {"a.mon": {**base, "level": "zvm-6.4", "seed": 1}, "b.mon": {**base, "level": "zvm-5.3", "seed": 2},
            # paging and minidisk volumes, for the device and paging reports
            "c.mon": io_config(seed=3), "d.mon": io_config(seed=4, level="zvm-5.3", vol_type="edev"),
            # LPARs under PR/SM (vertical with parking; horizontal) and SMT-2, for the LPAR reports
            "e.mon": lpar_config(seed=1), "f.mon": lpar_config(seed=2, level="zvm-6.3", polarization="horizontal"),
            "g.mon": lpar_config(seed=3, smt="smt2"),
            # a HyperPAV pool shared by paging and minidisk I/O (FCX327 HPALIAS)
            "h.mon": _hyperpav_config(),
            # a minidisk cache (FCX178 MDCSTOR)
            "i.mon": _mdc_config(),
            # CPU pools, one defined during the run, in a capped LPAR (FCX308 CPLCONF, FCX309 CPLACT)
            "j.mon": _pool_config(),
            # channel paths (FCX107 CHANNEL) and dynamic PAV (FCX131 DEVCONF), issue 22
            "k.mon": _scenario_config("pav-minidisks.toml", 'pav = "dynamic"'),
            "l.mon": _scenario_config("channels-paging-ficon.toml"),
            "m.mon": _scenario_config("channels-paging.toml"),
            # the scheduler's queues (D0R10 MRSYTSCG, FCX145 SCHEDLOG): a DSPBUF that holds
            # long-running users on the eligible list, beside a QUICKDSP user
            "n.mon": _dspbuf_config()}


def _dspbuf_config() -> dict:
    from zvmlab import scenario
    text = """
[system]
level = "zvm-6.4"
processors = 2
[run]
duration = "5s"
interval = "1s"
seed = 5
[params]
"srm.dspbuf_e1" = 5
"srm.dspbuf_e2" = 4
"srm.dspbuf_e3" = 2
[[guest]]
userid = "CPU"
count = 4
workload = { kind = "cpu-bound" }
[[guest]]
userid = "CMS"
count = 3
workload = { kind = "transactional", think = "30ms", cpu = "3ms" }
[[guest]]
userid = "Q"
quickdsp = true
workload = { kind = "transactional", think = "50ms", cpu = "2ms" }
"""
    return scenario.loads(text, "n.toml").engine_config()


def _scenario_config(name: str, pav: str | None = None) -> dict:
    from conftest import ROOT
    from zvmlab import scenario
    text = (ROOT / "scenarios" / name).read_text()
    if pav:
        text = text.replace('pav = "static"', pav)
    cfg = scenario.loads(text, name).with_overrides(duration="5s").engine_config()
    return {**cfg, "interval_ns": 10**9}


def _pool_config() -> dict:
    from zvmlab import scenario
    text = """
[system]
level = "zvm-6.4"
processors = 2
weight = 50
abscap = 1.8
[cpc]
shared_ifls = 4
[[cpc.lpar]]
name = "OTHER"
weight = 50
logical = 2
busy = 0.5
[run]
duration = "5s"
interval = "1s"
seed = 5
[[cpupool]]
name = "LINUXP"
limithard = "40%"
[[guest]]
userid = "LNX"
count = 2
pool = "LINUXP"
workload = { kind = "cpu-bound" }
[[guest]]
userid = "TEST"
workload = { kind = "cpu-bound", demand = 0.5 }
[[action]]
at = "2s"
command = "DEFINE CPUPOOL TESTP CAPACITY 0.2 TYPE IFL"
[[action]]
at = "2s"
command = "SCHEDULE TEST TO POOL TESTP"
"""
    return scenario.loads(text, "j.toml").engine_config()


def _mdc_config() -> dict:
    from zvmlab import scenario
    text = """
[system]
level = "zvm-6.2"
processors = 2
[run]
duration = "5s"
interval = "1s"
seed = 9
[mdc]
storage = "4M"
[[guest]]
userid = "READER"
count = 2
workload = { kind = "dasd-io", volume = "E100", type = "eckd", cpu = "20us", ios = 10, blocks = 1, mdc = true, extent = "16M" }
"""
    return scenario.loads(text, "i.toml").engine_config()


def _hyperpav_config() -> dict:
    from conftest import ROOT
    from zvmlab import scenario
    sc = scenario.load(ROOT / "scenarios" / "replicate" / "d12-cu-share.toml")
    cfg = sc.with_overrides(duration="5s").engine_config()
    return {**cfg, "interval_ns": 10**9, "processors": 4}


# The input (and --vs input) of each report that does not read a.mon (b.mon).
INPUTS = {**{f: ("c", "d") for f in ("FCX108", "FCX109", "FCX146", "FCX113", "FCX114")},
          "FCX126": ("e", "f"), "FCX302": ("e", "f"), "FCX304": ("g", "e"), "FCX327": ("h", "c"), "FCX178": ("i", "a"),
          "FCX308": ("j", "a"), "FCX309": ("j", "a"), "FCX107": ("m", "l"), "FCX131": ("k", "m"),
          "FCX145": ("n", "a")}


@pytest.fixture(scope="module")
def sources():
    if REGEN == "inputs":
        for name, cfg in _inputs().items():
            (GOLDEN / name).write_bytes(engine.simulate(cfg, monitor=True)[1])
    cwd = os.getcwd()
    os.chdir(GOLDEN)  # relative paths: the JSON names its source the same on every machine
    try:
        yield {n: load(f"{n}.mon") for n in "abcdefghijklmn"}
    finally:
        os.chdir(cwd)


def check(name: str, got: str) -> None:
    f = GOLDEN / name
    if REGEN:
        f.write_text(got)
    assert f.exists(), f"{f} missing: regenerate (see the module docstring)"
    assert got == f.read_text(), f"{name} differs from the golden file; if intended, regenerate and review"


@pytest.mark.parametrize("fcx", list(REPORTS))
def test_report_layouts(sources, fcx):
    a = sources[INPUTS.get(fcx, "ab")[0]]
    r = REPORTS[fcx].build(a.m)
    stem = f"{fcx}-{REPORTS[fcx].name}"
    check(f"{stem}.txt", render.text([r]))
    check(f"{stem}.csv", render.csv_text(r))
    check(f"{stem}.json", render.json_text([r]))


@pytest.mark.parametrize("fcx", list(REPORTS))
def test_vs_layouts(sources, fcx):
    a, b = (sources[n] for n in INPUTS.get(fcx, "ab"))
    r = render.compare(REPORTS[fcx].build(a.m), REPORTS[fcx].build(b.m), "a", "b")
    check(f"{fcx}-{REPORTS[fcx].name}-vs.txt", render.text([r]))


def test_golden_inputs_are_read_cleanly(sources):
    for n, s in sources.items():
        assert s.data.problems == [] and len(s.m.intervals) == 5
        assert len(s.m.cpus) == {"a": 3, "b": 3, "c": 2, "d": 2, "g": 8, "i": 2, "j": 2, "l": 2, "m": 2, "n": 2}.get(n, 4)
    h = sources["h"].m
    assert h.hpp_info["aliases"] == 15 and h.hpp_info["ent_pg"] == 5.0 and h.hpp_info["ent_md"] == 10.0
    for n in "cd":
        m = sources[n].m
        assert len(m.devs) == 4 and m.has_storage and sum(m.dev_info[d]["paging"] for d in m.devs) == 2
    for n in "ef":
        assert len(sources[n].m.lpars) == 3 and sources[n].m.phys
    assert sources["g"].m.prp[0]["core2"][0] > 0
    # DSPBUF 5 4 2: two long-running users held on the eligible list at every sample
    scg = sources["n"].m.scg
    assert scg["e3up"] == [2] * 5 and scg["q3up"] == [2] * 5 and not sources["a"].m.scg


def test_device_busy_is_per_base_exposure_with_hyperpav(sources):
    """HyperPAV: a volume's I/Os also run on aliases, so its service time exceeds the interval;
    FCX108/FCX109 %Busy is the bases' own (<= 100 %), the alias time is recorded apart."""
    m = sources["h"].m
    aliased = [d for d in m.devs if any(m.dev[d]["alias"])]
    assert aliased, "the HyperPAV input ran no I/O on an alias"
    over = [d for d in aliased if sum(m.dev[d]["busy"]) / 1e9 / sum(iv.len_ns / 1e9 for iv in m.intervals) > 1.0]
    assert over, "no volume's service time exceeded the elapsed time: the check below could not fail"
    for fcx in ("FCX108", "FCX109"):
        t = REPORTS[fcx].build(m).tables[0]
        busy = [row["busy"] for row in t.rows if row.get("busy") is not None]
        assert busy and all(0.0 <= b <= 100.0 + 1e-6 for b in busy), (fcx, busy)
