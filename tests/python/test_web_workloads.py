"""Client and server guests over CP's virtual network (the web workloads of seed 001)."""

import pytest
from conftest import ROOT, assert_bad_scenario, run_json
from zvmlab import scenario
from zvmlab.errors import InputError
from zvmlab.lab import replicate

APACHE = ROOT / "scenarios" / "apache-cpu.toml"
DAYTRADER = ROOT / "scenarios" / "daytrader.toml"


def test_apache_runs_and_the_clients_complete_the_transactions():
    r = run_json("run", APACHE, "--duration", "5s", "--json")
    clients = [u for u in r["users"] if u["userid"].startswith("CLI")]
    servers = [u for u in r["users"] if u["userid"].startswith("SRV")]
    assert len(clients) == 3 and len(servers) == 8
    assert sum(u["transactions"] for u in clients) == r["transactions"] > 0
    assert all(u["transactions"] == 0 for u in servers)
    assert r["vnet"]["requests_served"] == r["transactions"]
    # CP time of the messages shows in T/V; the LPAR runs busy, as the workload means it to.
    assert r["tv_ratio"] > 1.05 and r["avg_processor_busy_pct"] > 90


def test_daytrader_is_middleware_rich():
    r = run_json("run", DAYTRADER, "--duration", "10s", "--json")
    assert 1.0 < r["tv_ratio"] < 1.03 and r["etr"] > 0


BASE = """
[system]
level = "zvm-6.4"
processors = 2
[run]
duration = "1s"
interval = "1s"
[[guest]]
userid = "C"
workload = { kind = "client", cpu = "100us", servers = "S", window = 2 }
[[guest]]
userid = "S"
workload = { kind = "server", cpu = "100us" }
"""


@pytest.mark.parametrize("old,new,field,words", [
    ('servers = "S"', 'servers = "X"', "guest[0].workload.servers", "names no guest with a server workload"),
    ("window = 2", "window = 0", "guest[0].workload.window", "out of range"),
    (", window = 2", "", "guest[0].workload.window", "missing window"),
    ('cpu = "100us" }\n', 'cpu = "100us", window = 3 }\n', "guest[1].workload.window", "unknown key"),
    ('kind = "server"', 'kind = "sever"', "guest[1].workload.kind", "did you mean 'server'"),
])
def test_bad_client_server_input_names_the_field(tmp_path, old, new, field, words):
    assert_bad_scenario(tmp_path, BASE, old, new, field, words)


def test_a_client_may_only_drive_server_guests(tmp_path):
    bad = BASE.replace('kind = "server", cpu = "100us"', 'kind = "cpu-bound"')
    with pytest.raises(InputError, match="names no guest with a server workload"):
        scenario.loads(bad, "bad.toml")


def test_replicate_configures_a_metric_at_a_table_column():
    sc = scenario.load(APACHE)
    s = replicate.configure(sc, {"processors": 8, "counts": {"CLI": 6, "SRV": 16}})
    assert s.processors == 8 and [g.count for g in s.guests] == [6, 16]
    assert sc.processors == 4  # the loaded scenario is not changed
    with pytest.raises(InputError, match="no guest"):
        replicate.configure(sc, {"counts": {"NOPE": 1}})
