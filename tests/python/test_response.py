"""Transaction response time through the front: run (text, JSON), sweep (and its per-guest CPU and
--duration) and the store's columns. The engine's own tests check the figures against queueing
theory (crates/engine/tests/response.rs); these check that they arrive, consistently."""

import json

from conftest import run_json, zvmlab

SCEN = """
[system]
processors = 2
[run]
duration = "4s"
interval = "2s"
[[guest]]
userid = "DB"
workload = { kind = "cpu-bound", demand = 0.5 }
[[guest]]
userid = "WEB"
count = 6
workload = { kind = "transactional", think = "7ms", cpu = "1ms", dist = "exp" }
"""


def _scen(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(SCEN)
    return p


def test_run_json_has_response_per_user_and_system(tmp_path):
    s = run_json("run", _scen(tmp_path), "--json")
    r = s["response_ms"]
    assert r["count"] > 1000 and r["trivial"] + r["nontrivial"] == r["count"]
    assert 0 < r["p50"] <= r["p90"] <= r["p99"]
    assert sum(u["response_ms"]["count"] for u in s["users"]) == r["count"]
    web = [u for u in s["users"] if u["userid"].startswith("WEB")]
    # Little's law over the closed users: N = X (R + Z) (Z's sample mean varies by about 2 % here).
    x = sum(u["transactions"] for u in web) / s["duration_s"] / 1e3
    r = sum(u["transactions"] * u["response_ms"]["mean"] for u in web) / sum(u["transactions"] for u in web)
    assert abs(x * (r + 7.0) - len(web)) < 0.06 * len(web), x * (r + 7.0)


def test_run_text_shows_response(tmp_path):
    p = zvmlab("run", _scen(tmp_path))
    assert p.returncode == 0, p.stderr
    assert "Response time" in p.stdout and "Resp ms" in p.stdout and "trivial" in p.stdout


def test_sweep_response_guest_cpu_duration_and_store(tmp_path):
    st = tmp_path / "st.duckdb"
    res = run_json("sweep", _scen(tmp_path), "-p", "processors=1,2", "--duration", "2s", "--store", st, "-j", "1",
                   "--json")
    a, b = res["points"]
    assert a["resp_mean_ms"] > b["resp_mean_ms"] > 0  # one processor queues more
    assert set(a["cpu_pct"]) == {"DB", *(f"WEB{i}" for i in range(6))}
    assert 45 < b["cpu_pct"]["DB"] < 55
    p = zvmlab("sweep", _scen(tmp_path), "-p", "processors=2", "--duration", "2s", "--store", st, "--user", "db")
    assert p.returncode == 0 and "DB" in p.stdout and "WEB" not in p.stdout, p.stderr
    bad = zvmlab("sweep", _scen(tmp_path), "-p", "processors=2", "--duration", "2s", "--store", st, "--user", "NOPE")
    assert bad.returncode == 2 and "NOPE" in bad.stderr
    q = zvmlab("store", "query", "--store", st, "--json",
               "select r.duration_s, r.resp_mean_ms, r.trivial, u.userid, u.resp_p90_ms from runs r "
               "join run_users u using (key) where u.userid = 'WEB0' order by r.processors")
    assert q.returncode == 0, q.stderr
    rows = json.loads(q.stdout)
    assert len(rows) == 2 and all(r["duration_s"] == 2.0 and r["resp_mean_ms"] > 0 and r["resp_p90_ms"] > 0
                                  for r in rows)
