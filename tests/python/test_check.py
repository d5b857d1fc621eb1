"""solve / check end to end: the Comparator against the Solver, with the sim and cgroup runners."""

import json
import os

import pytest

from conftest import ROOT, run_json, zvmlab
from zvmlab.lab import cgroup_runner

A1 = ROOT / "scenarios" / "replicate" / "a1.toml"
A2 = ROOT / "scenarios" / "replicate" / "a2.toml"


def test_solve_a1_is_the_published_correct_answer():
    s = run_json("solve", A1, "--json")
    assert s["users"] == pytest.approx({"USER0": 25.0, "USER1": 50.0, "USER2": 25.0, "USER3": 100.0}, abs=1e-6)


def test_check_sim_json_and_plot(tmp_path):
    png = tmp_path / "a1.png"
    r = run_json("check", A1, "--json", "--duration", "6m", "--plot", png)
    for k in ("max_abs_error_pct", "mean_abs_error_pct", "users", "intervals", "excluded"):
        assert k in r
    assert set(r["users"]) == {"USER0", "USER1", "USER2", "USER3"}
    assert r["excluded"][0]["reason"] == "warm-up"
    assert len(r["intervals"]) == 6
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"


def test_check_before_after_levels(tmp_path):
    r = run_json("check", A1, "--json", "--duration", "4m", "--level", "zvm-6.3", "--level", "zvm-6.4",
                 "--plot", tmp_path / "a1.svg")
    assert [x["level"] for x in r["runs"]] == ["zvm-6.3", "zvm-6.4"]
    assert (tmp_path / "a1.svg").read_text().lstrip().startswith("<?xml")


def test_check_rejects_bad_plot_name(tmp_path):
    p = zvmlab("check", A1, "--plot", tmp_path / "x.gif")
    assert p.returncode == 2 and "--plot" in p.stderr


@pytest.mark.skipif(cgroup_runner.available() is not None, reason=f"cgroups: {cgroup_runner.available()}")
def test_check_cgroup_runner_a1():
    """A1 on this machine's 2 CPUs with real processes: the kernel's error is reported, not judged."""
    quiet = os.getloadavg()[0] < 1.0  # nothing else running before the test (the 1-min average)
    p = zvmlab("check", A1, "--runner", "cgroup", "--duration", "4s", "--interval", "1s", "--json")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["runner"] == "cgroup"
    assert len(r["intervals"]) == 4
    obs = {u: v["observed"] for u, v in r["users"].items()}
    assert sum(obs.values()) <= 200 * 1.05  # the kernel cannot give out more than 2 CPUs
    # Four hungry processes keep the CPUs busy, unless other work on this machine takes them
    # (builds running beside the tests): then only the proportions are the kernel's doing.
    if quiet and os.getloadavg()[0] < 3:
        assert sum(obs.values()) > 100
    assert sum(obs.values()) > 5
    # cpu.weight 100/200/100/400: the order of what each got follows the shares under any load.
    assert obs["USER3"] > obs["USER1"] > max(obs["USER0"], obs["USER2"])
    assert r["max_abs_error_pct"] >= 0
    print("cgroup runner A1 error vs solver:", r["max_abs_error_pct"], r["mean_abs_error_pct"])


def test_check_with_every_interval_excluded_says_nothing_was_compared():
    p = zvmlab("check", A1, "--duration", "3m", "--warmup", "10")
    assert p.returncode == 0, p.stderr
    assert "nothing compared: every interval is excluded (warm-up)" in p.stdout and "max |error|" not in p.stdout
    r = run_json("check", A1, "--duration", "3m", "--warmup", "10", "--json")
    assert r["max_abs_error_pct"] is None and r["mean_abs_error_pct"] is None


def test_an_excluded_interval_names_the_command_that_changed_it():
    r = run_json("check", ROOT / "scenarios" / "cpupool.toml", "--json")
    reasons = {e["reason"] for e in r["excluded"]} - {"warm-up"}
    assert reasons and all("SET SHARE" not in x for x in reasons), reasons
    assert any(x.startswith(("SET CPUPOOL", "SCHEDULE")) for x in reasons), reasons
