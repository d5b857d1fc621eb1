import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the same examples every time (a red CI does not land): derandomized, no example
# database. `HYPOTHESIS_PROFILE=explore pytest ...` searches with fresh random examples.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

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


def assert_bad_scenario(tmp_path, base: str, old: str, new: str, field: str, words: str) -> None:
    """`base` with `old` replaced by `new` is refused: one message naming `field` (with `words`)
    from the loader, and from `zvmlab run` exit 2 with no traceback."""
    from zvmlab import scenario
    from zvmlab.errors import InputError

    bad = base.replace(old, new, 1)
    assert bad != base
    with pytest.raises(InputError) as e:
        scenario.loads(bad, "bad.toml")
    assert field in str(e.value) and words in str(e.value), str(e.value)
    f = tmp_path / "bad.toml"
    f.write_text(bad)
    p = zvmlab("run", f)
    assert p.returncode == 2 and "Traceback" not in p.stderr and field in p.stderr
