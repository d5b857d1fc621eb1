"""The workload library: the named workloads of IBM's reports (``scenarios/workloads/library.toml``).

Each entry names a workload, the seed and configuration table it comes from, the scenario file
that instantiates it, and the replicate rows that use it. A workload not modelled yet says so
with the reason instead of naming a scenario.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = ROOT / "scenarios"
LIBRARY = SCENARIOS / "workloads" / "library.toml"

_KEYS = {"name", "title", "seed", "config", "scenario", "rows", "status", "reason"}


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    seed: str
    config: str
    scenario: Path | None
    rows: list[str] = field(default_factory=list)
    status: str = "modelled"
    reason: str = ""

    def to_json(self) -> dict:
        return {"name": self.name, "title": self.title, "seed": self.seed, "config": self.config,
                "scenario": str(self.scenario.relative_to(ROOT)) if self.scenario else None,
                "rows": list(self.rows), "status": self.status, "reason": self.reason}


def load(path: Path = LIBRARY, base: Path = SCENARIOS) -> list[Workload]:
    """Read and check the library: known keys, unique names, scenario files that exist (paths
    relative to ``base``, the scenarios directory)."""
    where = str(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as e:
        raise InputError(f"cannot read the workload library: {e.strerror}", file=where) from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"not valid TOML: {e}", file=where) from None
    out: list[Workload] = []
    for i, w in enumerate(data.get("workload", [])):
        at = f"workload[{i}]"
        unknown = sorted(set(w) - _KEYS)
        if unknown:
            raise InputError(f"unknown key '{unknown[0]}'", file=where, field=at,
                             fix=f"known: {', '.join(sorted(_KEYS))}")
        for k in ("name", "title", "seed", "config"):
            if not isinstance(w.get(k), str) or not w[k]:
                raise InputError(f"'{k}' is required (a string)", file=where, field=at)
        status = w.get("status", "modelled")
        scen = None
        if status == "modelled":
            if not isinstance(w.get("scenario"), str):
                raise InputError("'scenario' is required for a modelled workload", file=where,
                                 field=f"{at}.scenario", fix='a path under scenarios/, or status = "not modelled yet" with a reason')
            scen = base / w["scenario"]
            if not scen.is_file():
                raise InputError(f"scenario file {w['scenario']} does not exist", file=where,
                                 field=f"{at}.scenario")
        elif not w.get("reason"):
            raise InputError("a workload that is not modelled needs a 'reason'", file=where, field=at)
        if any(x.name == w["name"] for x in out):
            raise InputError(f"workload name '{w['name']}' appears twice", file=where, field=f"{at}.name")
        out.append(Workload(w["name"], w["title"], w["seed"], w["config"], scen,
                            list(w.get("rows", [])), status, w.get("reason", "")))
    return out


def find(name: str, path: Path = LIBRARY) -> Workload:
    lib = load(path)
    for w in lib:
        if w.name == name:
            return w
    raise InputError(f"no workload named '{name}'", field="NAME",
                     fix=f"known: {', '.join(w.name for w in lib)}")
