import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOWCASE = ROOT / "scenarios" / "showcase.toml"


def zvmlab(*args, cwd=None):
    """Run the real command line in a subprocess; returns CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "zvmlab", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


@pytest.fixture
def run_cli():
    return zvmlab


@pytest.fixture
def showcase():
    return SHOWCASE


def run_json(*args):
    p = zvmlab(*args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)
