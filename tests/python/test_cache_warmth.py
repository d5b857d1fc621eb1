"""Cache warmth (issue 18 item 1, crates/engine/src/cache.rs): footprints per level, PR/SM
placement feeding them, the switch, and what the summary shows."""

import dataclasses

import pytest

from conftest import ROOT
from zvmlab import engine, scenario

ON = {"cache.warmth": 1.0}
OFF = {"cache.warmth": 0.0}

# A mixed workload (interactive users beside CPU-bound ones) in an LPAR of 8 logical cores entitled
# to 4 (weight 250 of 1000 on 16 shared cores), next to a busy partner.
MIXED = """
[system]
level = "zvm-6.4"
machine = "z14"
processors = 8
weight = 250
polarization = "{pol}"

[cpc]
shared_ifls = 16

[[cpc.lpar]]
name = "PROD"
weight = 750
logical = 16
busy = 0.9

[run]
duration = "20s"
interval = "5s"
seed = {seed}

[params]
"cache.warmth" = {warm}

[[guest]]
userid = "TX"
count = 12
workload = {{ kind = "transactional", think = "20ms", cpu = "2ms" }}

[[guest]]
userid = "BAT"
count = 2
workload = {{ kind = "cpu-bound", demand = 0.5 }}
"""


def run(pol, warm=1, seed=1):
    return engine.simulate(scenario.loads(MIXED.format(pol=pol, warm=warm, seed=seed), "mixed.toml").engine_config())


def cpu_per_tx(s):
    tx = sum(u["transactions"] for u in s["users"] if u["userid"].startswith("TX"))
    cpu = sum(u["cpu_pct"] for u in s["users"] if u["userid"].startswith("TX"))
    return cpu / max(1, tx)


@pytest.mark.parametrize("seed", [1, 2])
def test_vertical_polarization_lowers_cpu_per_transaction_and_the_summary_shows_why(seed):
    v, h = run("vertical", seed=seed), run("horizontal", seed=seed)
    assert cpu_per_tx(v) < cpu_per_tx(h), (cpu_per_tx(v), cpu_per_tx(h))
    cv, ch = v["cpi"], h["cpi"]
    # Why: vertical-highs keep their physical core, so footprints survive in L2 (hits) and the
    # reload stalls (CPI) fall; horizontal floats every logical core among the partner's work.
    assert cv["cache"]["footprint_hits"][0] > ch["cache"]["footprint_hits"][0]
    assert cv["cache"]["reload_cycles_per_dispatch"] < ch["cache"]["reload_cycles_per_dispatch"]
    assert cv["cpi"] < ch["cpi"]
    assert len(cv["cpi_per_processor"]) == 8 and all(c >= 1.0 for c in cv["cpi_per_processor"])
    assert sum(cv["dispatch_moves"]) > 0


def test_without_the_model_polarization_leaves_cpi_unchanged():
    v, h = run("vertical", warm=0), run("horizontal", warm=0)
    assert v["cpi"]["cpi"] == pytest.approx(h["cpi"]["cpi"])
    assert v["cpi"]["cache"]["enabled"] is False and v["cpi"]["cache"]["reload_cycles_per_dispatch"] == 0


def test_a_virtual_cpu_that_never_moves_runs_no_slower():
    """One cpu-bound guest alone on a processor (it never moves) against the same guest with
    company it trades processors with: its CPU per unit of work is no lower with company."""
    base = scenario.load(ROOT / "scenarios" / "replicate" / "b1-nonsmt.toml").with_overrides(duration="2s")
    alone = dataclasses.replace(base, processors=1, params={**base.params, **ON},
                                guests=[dataclasses.replace(base.guests[0], count=1)])
    crowd = dataclasses.replace(base, processors=2, params={**base.params, **ON},
                                guests=[dataclasses.replace(base.guests[0], count=6)])
    a, c = engine.simulate(alone.engine_config()), engine.simulate(crowd.engine_config())
    assert a["cpi"]["dispatch_moves"][1:] == [0, 0, 0]
    assert sum(c["cpi"]["dispatch_moves"][1:]) > 0
    assert a["cpi"]["cpi"] <= c["cpi"]["cpi"]
    assert a["cpi"]["cache"]["footprint_hits"][0] >= c["cpi"]["cache"]["footprint_hits"][0]


@pytest.mark.parametrize("name", ["b1-smt2.toml", "b8-like"])
def test_smt2_core_capacity_stays_within_one_and_two_with_the_cache_model(name):
    if name == "b8-like":
        sc = scenario.load(ROOT / "scenarios" / "replicate" / "b7-apache.toml")
        sc = dataclasses.replace(sc, smt="smt2", processors=8)
    else:
        sc = scenario.load(ROOT / "scenarios" / "replicate" / name)
    sc = dataclasses.replace(sc.with_overrides(duration="3s"), params={**sc.params, **ON})
    s = engine.simulate(sc.engine_config())
    smt = s["smt"]
    assert 1.0 - 1e-9 <= smt["capacity_factor"] <= 2.0, smt
    assert s["cpi"]["cache"]["enabled"]


def test_the_switch_off_is_the_model_before_issue_18():
    sc = scenario.load(ROOT / "scenarios" / "replicate" / "b7-apache.toml").with_overrides(duration="1s")
    off = engine.simulate(sc.engine_config())  # off by default (README, cache warmth)
    on = engine.simulate(dataclasses.replace(sc, params={**sc.params, **ON}).engine_config())
    explicit = engine.simulate(dataclasses.replace(sc, params={**sc.params, **OFF}).engine_config())
    for s in (off, explicit):
        for k in ("wall_s", "events_per_s"):  # this machine's speed
            s.pop(k)
    assert off == explicit
    assert off["cpi"]["cache"]["footprint_hits"] == [0, 0, 0]
    for name in ("cache.footprint_kb", "cache.cp_shared"):
        assert name not in off["params_read"] and name in on["params_read"]
    assert on["cpi"]["cache"]["reload_pct_of_guest"] > 0
    assert off["cpi"]["cache"]["coherence_pct_of_cp"] == 0 < on["cpi"]["cache"]["coherence_pct_of_cp"]


@pytest.mark.parametrize("cores", [[1, 8, 16, 32]])
def test_cp_coherence_stall_grows_with_the_spread_of_the_lpar(cores):
    # The same Apache stand-in (scaled as Table 2) on more chips: CP's misses to shared lines come
    # from farther away, so its share of stall grows; one core has no other writer.
    sc = scenario.load(ROOT / "scenarios" / "replicate" / "b7-apache.toml").with_overrides(duration="1s")
    got = []
    for n in cores:
        s = engine.simulate(dataclasses.replace(sc, processors=n, params={**sc.params, **ON}).engine_config())
        got.append(s["cpi"]["cache"]["coherence_pct_of_cp"])
    assert got[0] == 0, got
    assert all(a < b for a, b in zip(got, got[1:])), got
    none = engine.simulate(dataclasses.replace(sc, processors=16, params={**sc.params, **ON, "cache.cp_shared": 0.0})
                           .engine_config())
    assert none["cpi"]["cache"]["coherence_pct_of_cp"] == 0


def test_monitor_domain_15_has_moves_hits_and_reload_per_processor():
    from zvmlab.monitor import read

    cfg = scenario.loads(MIXED.format(pol="horizontal", warm=1, seed=1), "mixed.toml").engine_config()
    s, mon = engine.simulate(cfg, monitor=True)
    rows = read(mon).rows("ZVMPRP")
    last = {}
    for r in rows:
        last[r["ZVMPRP_CPUAD"]] = r
    assert sorted(last) == list(range(8))
    moves = [sum(last[c][f"ZVMPRP_MOVE{k}"] for c in last) for k in range(4)]
    # The last sample is taken at the end of the run: its counters are the summary's.
    assert moves == s["cpi"]["dispatch_moves"]
    disps = sum(last[c]["ZVMPRP_DISPS"] for c in last)
    hits = sum(last[c]["ZVMPRP_HITL2"] for c in last) / 1000 / disps
    assert hits == pytest.approx(s["cpi"]["cache"]["footprint_hits"][0], rel=1e-3)
    assert all(last[c]["ZVMPRP_HITL2"] <= last[c]["ZVMPRP_HITL3"] <= last[c]["ZVMPRP_HITL4"] for c in last)
    assert sum(last[c]["ZVMPRP_RELOADTM"] for c in last) > 0


def test_replicate_param_overrides_are_checked():
    from conftest import zvmlab

    for spec, words in (("cache.warm=1", "known parameter"), ("cache.warmth=3", "outside"),
                        ("cache.warmth", "NAME=VALUE")):
        p = zvmlab("replicate", "--only", "B1", "--no-store", "--param", spec)
        assert p.returncode == 2 and "--param" in p.stderr and words in p.stderr, p.stderr


def test_replicate_param_reaches_every_scenario_run():
    from zvmlab.lab import replicate as rep
    from zvmlab.lab import replicate_runs as R

    rows = [r for r in rep.load_catalogue() if r.id == "B10"]
    reqs = R.plan(rows, {"B10": [1]}, (), (("cache.warmth", 1.0),))
    assert reqs and all(dict(q.params) == {"cache.warmth": 1.0} for q in reqs)


def test_replicate_param_and_scale_reach_sweep_metrics_too():
    """A4's shape metrics sweep srm.dspslice: --param and --scale apply to those runs as well (they
    were left out of them before), and the swept parameter keeps the sweep's values."""
    from zvmlab.lab import replicate as rep
    from zvmlab.lab import replicate_runs as R

    rows = [r for r in rep.load_catalogue() if r.id == "A4"]
    assert any(m.sweep for m in rows[0].metrics)
    reqs = R.plan(rows, {"A4": [1]}, (("path.dispatch", 0.5),), (("cache.warmth", 1.0),))
    assert reqs and all(dict(q.params).get("cache.warmth") == 1.0 for q in reqs)
    assert all(dict(q.scale) == {"path.dispatch": 0.5} for q in reqs)
    swept = sorted({dict(q.params)["srm.dspslice"] for q in reqs if "srm.dspslice" in dict(q.params)})
    assert swept == [1, 2, 4, 8, 16, 32]


def test_replicate_scale_multiplies_the_scenario_value_where_it_sets_one():
    from zvmlab.lab.replicate_runs import apply

    d8 = scenario.load(ROOT / "scenarios" / "replicate" / "d8-apache-paging.toml")
    b7 = scenario.load(ROOT / "scenarios" / "replicate" / "b7-apache.toml")
    own = d8.params["path.vnet_msg"]
    table = {p["name"]: p["default"] for p in engine.params()}
    assert "path.vnet_msg" not in b7.params
    assert apply(d8, None, {}, {"path.vnet_msg": 0.75}).params["path.vnet_msg"] == own * 0.75
    assert apply(b7, None, {}, {"path.vnet_msg": 0.75}).params["path.vnet_msg"] == table["path.vnet_msg"] * 0.75


def test_replicate_scale_leaves_the_swept_parameter_at_the_sweeps_values():
    from zvmlab.lab import replicate as rep
    from zvmlab.lab import replicate_runs as R

    rows = [r for r in rep.load_catalogue() if r.id == "A4"]
    reqs = R.plan(rows, {"A4": [1]}, (("srm.dspslice", 0.5), ("path.dispatch", 0.5)), ())
    sweeps = [q for q in reqs if "srm.dspslice" in dict(q.params)]
    assert sweeps and all(dict(q.scale) == {"path.dispatch": 0.5} for q in sweeps)


def test_a_scaled_run_differs_and_runs_the_same_through_the_executor():
    """--scale reaches the engine (a longer fault path costs more CP per page moved), and the
    store/Dask path (executor.run_one on the request's spec) runs what RunReq.execute runs."""
    from zvmlab.lab import executor
    from zvmlab.lab import replicate_runs as R

    plain = R.RunReq.make("d6-eckd.toml", None, "zvm-5.3", 4)
    scaled = R.RunReq.make("d6-eckd.toml", None, "zvm-5.3", 4, scale={"storage.path_fault": 2.0})
    a, b = plain.execute(), scaled.execute()
    assert b["tv_ratio"] > a["tv_ratio"] and b["itr"] < a["itr"]
    via = executor.run_one(R.spec_of(scaled))["summary"]
    assert via["tv_ratio"] == b["tv_ratio"] and via["events"] == b["events"]
    assert R.spec_of(scaled).key != R.spec_of(plain).key


def test_replicate_scale_is_checked():
    from conftest import zvmlab

    for args, words in ((("--scale", "path.vnet=0.5"), "known parameter"),
                        (("--scale", "path.vnet_msg=0"), "above 0"),
                        (("--scale", "path.vnet_msg=nan"), "above 0"),
                        (("--scale", "path.vnet_msg"), "NAME=FACTOR"),
                        (("--scale", "cpu.cpi_cp=100"), "outside"),
                        (("--scale", "cpu.cpi_cp=2", "--param", "cpu.cpi_cp=4"), "both set"),
                        (("--scale", "cpu.cpi_cp=2", "--robustness"), "--robustness"),
                        (("--scale", "cache.warmth=2"), "a switch"),
                        (("--scale", "cpu.cpi_cp=2", "--scale", "cpu.cpi_cp=1.5"), "scaled twice")):
        p = zvmlab("replicate", "--only", "B1", *args)
        assert p.returncode == 2 and "--scale" in p.stderr and words in p.stderr, (args, p.stderr)
        assert "Traceback" not in p.stderr
    # d6-eckd.toml sets its own clock (1.2 GHz): x0.1 is inside the range for the table's value
    # (5.2 -> 0.52) but not for the scenario's (0.12); refused before any run, naming the file.
    p = zvmlab("replicate", "--only", "D6", "--no-store", "--scale", "cpu.clock_ghz=0.1")
    assert p.returncode == 2 and "d6-eckd.toml: cpu.clock_ghz = 1.2 x 0.1" in p.stderr, p.stderr


def test_replicate_json_says_what_was_changed(tmp_path):
    import json

    from conftest import zvmlab

    out = tmp_path / "r.json"
    p = zvmlab("replicate", "--only", "A1", "--seeds", "1", "--no-store", "-j", "1", "--json", out,
               "--param", "cpu.cpi_cp=4", "--scale", "path.dispatch=0.75")
    assert p.returncode == 0, p.stderr
    summary = json.loads(out.read_text())["summary"]
    assert summary["params"] == {"cpu.cpi_cp": 4.0} and summary["scale"] == {"path.dispatch": 0.75}
    p = zvmlab("replicate", "--only", "A1", "--seeds", "1", "--no-store", "-j", "1", "--html", tmp_path / "h",
               "--param", "cpu.cpi_cp=4", "--scale", "path.dispatch=0.75")
    said = "Parameters changed from the table in every scenario run: cpu.cpi_cp = 4, path.dispatch x0.75"
    assert p.returncode == 0 and said in p.stdout, p.stdout
    assert said in (tmp_path / "h" / "index.html").read_text()


def test_same_seed_same_results_with_the_model_on():
    def once():
        s = run("horizontal", seed=3)
        for k in ("wall_s", "events_per_s"):
            s.pop(k, None)
        return s

    assert once() == once()


def test_sibling_sharing_charges_multi_way_guests_only():
    # cache.guest_shared (0 by default): DayTrader's 2-way and 4-way guests pay for lines their
    # other virtual CPUs wrote; the same work in one-way guests pays nothing.
    sc = scenario.load(ROOT / "scenarios" / "replicate" / "b4-daytrader.toml").with_overrides(duration="2s")
    sc = dataclasses.replace(sc, processors=16)

    def go(gs, one_way=False):
        s = dataclasses.replace(sc, params={**sc.params, **ON, "cache.guest_shared": gs})
        cfg = s.engine_config()
        if one_way:
            for g in cfg["guests"]:
                g["vcpus"] = 1
        return engine.simulate(cfg)

    base, shared = go(0.0), go(0.3)
    assert base["cpi"]["cache"]["sibling_pct_of_guest"] == 0
    assert shared["cpi"]["cache"]["sibling_pct_of_guest"] > 1
    assert shared["itr"] < base["itr"]
    assert go(1.0, one_way=True)["cpi"]["cache"]["sibling_pct_of_guest"] == 0
    off = engine.simulate(sc.engine_config())
    assert "cache.guest_shared" not in off["params_read"] and "cache.guest_shared" in base["params_read"]


def test_memory_homed_on_the_other_node_costs_only_an_lpar_that_spans_it():
    # z13: 16 cores are one L4 node (every memory home local), 32 span the drawer's two. The
    # Apache stand-in scaled as the catalogue runs B10 (z/VM 6.3, guests in proportion to cores).
    from zvmlab.lab.replicate_runs import apply

    sc = scenario.load(ROOT / "scenarios" / "replicate" / "b7-apache.toml").with_overrides(duration="5s",
                                                                                         level="zvm-6.3")

    def sourcing(n, x):
        at = {"processors": n, "counts": {"CLI": 3 * n // 4, "SRV": 2 * n}}
        cfg = apply(sc, at, {**ON, "cache.mem_remote": x}).engine_config()
        return engine.simulate(cfg)["cpi"]["sourcing_cycles_per_miss"]

    assert sourcing(16, 1.0) == sourcing(16, 2.19)
    assert sourcing(32, 2.19) > sourcing(32, 1.0) + 1
