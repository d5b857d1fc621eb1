"""SET SRM DSPWDMETHOD (issue 4): how an idle logical CPU finds work on other dispatch vectors.

RESHUFFLE (the default) takes the most urgent work of the longest vector wherever it is;
REBALANCE takes it from the nearest non-empty vector by topology. Multithreading requires
RESHUFFLE; the 6.4 dispatcher looks aside at every vector's head, so the method has no effect
there."""

from __future__ import annotations

import json

import pytest

from conftest import assert_bad_scenario, zvmlab
from zvmlab import engine, scenario

BASE = """
[system]
level = "zvm-6.3"
processors = 32
machine = "z13"
dspwdmethod = "reshuffle"
[run]
duration = "4s"
interval = "2s"
seed = 3
[[guest]]
userid = "CLI"
count = 24
workload = { kind = "client", cpu = "360us", servers = "SRV", window = 8 }
[[guest]]
userid = "SRV"
count = 64
vcpus = 4
workload = { kind = "server", cpu = "155us" }
"""


def run(text: str) -> dict:
    return engine.simulate(scenario.loads(text, "d.toml").engine_config())


def far_moves(s: dict) -> float:
    """Share of dispatches that moved a virtual CPU off its chip (to another chip or drawer)."""
    m = s["cpi"]["dispatch_moves"]
    return (m[2] + m[3]) / sum(m)


def test_reshuffle_is_the_default_and_changes_nothing():
    a = run(BASE)
    b = run(BASE.replace('dspwdmethod = "reshuffle"\n', ""))
    assert json.dumps(a["users"]) == json.dumps(b["users"]) and a["etr"] == b["etr"]
    assert "dspwdmethod" not in scenario.loads(BASE, "d.toml").engine_config()


def test_rebalance_keeps_stolen_work_near_its_processor():
    """On a 32-core z13 LPAR (four chips), REBALANCE steals from the nearest vector first, so far
    fewer dispatches move a virtual CPU off its chip than with RESHUFFLE, which balances first."""
    shuffle = run(BASE)
    balance = run(BASE.replace('"reshuffle"', '"rebalance"'))
    assert shuffle["scheduler"]["steals"] > 0 and balance["scheduler"]["steals"] > 0
    assert far_moves(balance) < 0.5 * far_moves(shuffle), (far_moves(balance), far_moves(shuffle))
    # Work is conserved either way: the LPAR stays busy and transactions complete.
    assert balance["avg_processor_busy_pct"] > 90 and balance["transactions"] > 0


def test_rebalance_has_no_effect_at_64():
    """6.4's dispatcher looks aside at every vector's head (one ordered list): no steals, so the
    method changes nothing, and `zvmlab run` says so."""
    text = BASE.replace('level = "zvm-6.3"', 'level = "zvm-6.4"')
    a, b = run(text), run(text.replace('"reshuffle"', '"rebalance"'))
    assert a["etr"] == b["etr"] and a["cpi"]["dispatch_moves"] == b["cpi"]["dispatch_moves"]


def test_zvmlab_run_notes_an_ineffective_method(tmp_path):
    f = tmp_path / "d.toml"
    f.write_text(BASE.replace('level = "zvm-6.3"', 'level = "zvm-6.4"').replace('"reshuffle"', '"rebalance"')
                 .replace('duration = "4s"', 'duration = "1s"').replace('interval = "2s"', 'interval = "1s"'))
    p = zvmlab("run", f)
    assert p.returncode == 0, p.stderr
    assert "DSPWDMETHOD REBALANCE has no effect at level zvm-6.4" in p.stdout


@pytest.mark.parametrize("old,new,words", [
    ('dspwdmethod = "reshuffle"', 'dspwdmethod = "rebalanse"', "did you mean 'rebalance'"),
    ('dspwdmethod = "reshuffle"', 'dspwdmethod = "rebalance"\nsmt = "smt2"', "multithreading requires"),
])
def test_bad_method_is_one_located_message(tmp_path, old, new, words):
    assert_bad_scenario(tmp_path, BASE, old, new, "system.dspwdmethod", words)


def test_engine_refuses_rebalance_with_smt():
    cfg = scenario.loads(BASE.replace('"reshuffle"', '"rebalance"'), "d.toml").engine_config()
    cfg["smt"] = "smt2"
    with pytest.raises(Exception) as e:
        engine.simulate(cfg)
    assert "multithreading requires" in str(e.value)
