"""[run] tx_unit: a workload whose published ETR counts transactions of its own (seed 001's
Apache DASD paging, row D8) reports completed requests divided by the unit."""

import pytest
from conftest import assert_bad_scenario
from zvmlab import engine, scenario

BASE = """
[system]
level = "zvm-6.3"
processors = 2
[run]
duration = "1s"
interval = "500ms"
seed = 3
[[guest]]
userid = "CLI"
count = 2
workload = { kind = "client", cpu = "200us", servers = "SRV", window = 2 }
[[guest]]
userid = "SRV"
workload = { kind = "server", cpu = "100us" }
"""


def _run(text: str) -> dict:
    return engine.simulate(scenario.loads(text).engine_config())


@pytest.mark.parametrize("unit", [2.0, 14.4, 0.5])
def test_the_unit_divides_the_counts_and_leaves_the_run_alone(unit):
    one = _run(BASE)
    u = _run(BASE.replace("seed = 3", f"seed = 3\ntx_unit = {unit}"))
    # The simulation is the same (same events, busy, T/V); only the reporting unit differs.
    assert u["events"] == one["events"] and u["tv_ratio"] == one["tv_ratio"]
    assert u["requests"] == one["transactions"] > 0 and u["tx_unit"] == unit
    assert u["etr"] == pytest.approx(one["etr"] / unit, rel=1e-12)
    assert u["itr"] == pytest.approx(one["itr"] / unit, rel=1e-12)
    assert u["transactions"] == round(one["transactions"] / unit)
    for a, b in zip(u["intervals"], one["intervals"]):
        assert a["etr"] == pytest.approx(b["etr"] / unit, rel=1e-12) and a["requests"] == b["transactions"]


def test_without_a_unit_the_summary_is_unchanged():
    s = scenario.loads(BASE)
    assert s.tx_unit == 1.0 and "tx_unit" not in s.engine_config()
    r = _run(BASE)
    assert "tx_unit" not in r and "requests" not in r


@pytest.mark.parametrize("bad", ["0", "-1", '"14"', "true", "1e9", "nan"])
def test_a_bad_unit_is_refused_naming_the_field(tmp_path, bad):
    assert_bad_scenario(tmp_path, BASE, "seed = 3", f"seed = 3\ntx_unit = {bad}", "run.tx_unit", "tx_unit")
