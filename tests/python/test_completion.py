"""Shell completion (bash protocol of click): levels, report ids, scenario files, workload names."""

import os
import subprocess
import sys

from conftest import ROOT


def complete(line: str) -> list[str]:
    words = line.split(" ")
    env = {**os.environ, "_ZVMLAB_COMPLETE": "bash_complete", "COMP_WORDS": line, "COMP_CWORD": str(len(words) - 1)}
    p = subprocess.run([sys.executable, "-m", "zvmlab"], env=env, capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    return [x.split(",", 1)[1] for x in p.stdout.splitlines() if "," in x]


def test_levels_for_every_level_option():
    assert "zvm-6.4" in complete("zvmlab run scenarios/showcase.toml --level zvm-6")
    assert complete("zvmlab sweep x.toml --level vmesa") == ["vmesa-2.3.0", "vmesa-2.4.0"]
    assert set(complete("zvmlab bisect x --base zvm-5")) == {"zvm-5.2", "zvm-5.3"}
    assert "zvm-6.3" in complete("zvmlab suite regression --compare zvm-6.3")


def test_report_ids_also_after_a_comma():
    assert "FCX144" in complete("zvmlab report runs --fcx FCX14")
    assert complete("zvmlab report runs --fcx FCX144,USTA") == ["FCX144,USTAT"]


def test_scenario_files_and_directories():
    got = complete("zvmlab run scenarios/sh")
    assert got == ["scenarios/showcase.toml"]
    assert "scenarios/replicate/" in complete("zvmlab validate scenarios/rep")


def test_workload_names():
    assert "apache-cpu" in complete("zvmlab workloads apa")
