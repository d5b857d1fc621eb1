"""Replicate IBM's published experiments: the catalogue, the runs, the verdicts.

The catalogue (``scenarios/replicate/catalogue.toml``) holds every row of shared/EXPERIMENTS.md:
its published figures (as data), its status (modelled, not modelled yet with the issue that
brings it, out of scope with the reason) and, for modelled rows, a scenario run at a base and a
comparison level plus metrics. A metric names a value of the run (``etr``, ``users.USER0.cpu_pct``,
``check.max_abs_error_pct`` for the error against the Solver, or ``a / b`` of two of these), a
published figure for each side, and a tolerance (``"2pp"`` absolute, ``"20%"`` relative).

A published figure is a number (the simulated value must be within the tolerance of it), or
``"tracks"`` / ``"deviated"`` (the value must be within / beyond the tolerance of zero: used for
errors against the Solver), or ``"below X"`` / ``"above X"`` (clearly below / above X, by more than
the tolerance), or ``"at most X"`` / ``"at least X"`` (not above / below X by more than the
tolerance), or absent. A metric may name its own scenario (a row with two conditions), and a
value may take a term from another scenario's run at the same level: ``lpar.unparked_avg@b12-small.toml``;
``divide_by`` another scenario (at ``divide_at``) makes the value the ratio of the two runs.

Every metric says its **basis** (what a pass proves): ``predicted`` (kind P: the figure must
emerge), ``calibrated`` (a kind-C figure set a parameter, named by ``calibrates``; judged at 5 %
at most) or ``construction`` (a rule, a switch or a read-back parameter makes it true: ``why``
says which). Verdicts are taken over several seeds (``replicate_judge``); the runs are planned
first (``replicate_runs``), executed anywhere, then judged.
"""

from __future__ import annotations

import functools
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import scenario
from ..errors import InputError
from . import replicate_judge as J
from .replicate_judge import MISS, NOT_MODELLED, OUT_OF_SCOPE, PASS, UNRESOLVED, Tolerance, judge_shape  # noqa: F401
from .replicate_runs import ROOT, RunReq, Runs, configure  # noqa: F401

CATALOGUE = ROOT / "scenarios" / "replicate" / "catalogue.toml"
SEEDS = 3  # seeds per metric (EXPERIMENTS.md: verdicts beyond the run-to-run noise)
BASES = ("predicted", "calibrated", "construction")
_judge = J.check_value  # the one-side check, as tests call it


@dataclass
class Metric:
    name: str
    value: str
    tolerance: Tolerance
    published_base: float | str | None = None
    published_compare: float | str | None = None
    scenario: str | None = None
    sweep: dict | None = None  # {"param": "srm.dspslice", "values": [...]}: a shape row
    # Configuration of this metric's runs, on top of the scenario: {"processors": 8,
    # "counts": {"SRV": 12}, "smt": "smt2"} (a column of a published scaling table).
    at: dict | None = None
    divide_by: str | None = None  # another scenario: the value is this run's / that run's (same level)
    divide_at: dict | None = None  # the configuration of the divide_by run (as ``at``)
    # A ratio metric: the simulated compare / base value, judged against this published ratio.
    published_ratio: float | str | None = None
    # Suite rows: this metric's own pair of levels (F2 compares 6.4 GA -> 1Q17 and 1Q17 -> 3Q17).
    base: str | None = None
    compare: str | None = None
    basis: str = "predicted"
    calibrates: str | None = None  # the parameter a calibrated metric set
    why: str | None = None  # what makes a construction metric true
    change: bool = False  # the value is itself a ratio of two levels (a change against 1)


@dataclass
class Row:
    id: str
    seed: str
    section: str
    what: str
    published: str
    kind: str
    status: str
    reason: str = ""
    scenario: str | None = None
    base: str | None = None
    compare: str | None = None
    metrics: list[Metric] = field(default_factory=list)
    # A row measured on a whole regression suite (F1): its name in scenarios/suites/.
    suite: str | None = None
    # A row measured on a scaling experiment of its scenario (B11): {"cores": [4, 8, ...]}.
    scaling: dict | None = None


_METRIC_KEYS = {"name", "value", "tolerance", "published_base", "published_compare", "scenario", "sweep", "at",
                "divide_by", "divide_at", "published_ratio", "base", "compare", "basis", "calibrates", "why",
                "change"}


def _metric(m: dict, where: str, path: Path) -> Metric:
    bad = set(m) - _METRIC_KEYS
    if bad:
        raise InputError(f"unknown key(s) {', '.join(sorted(bad))}", file=str(path), field=where,
                         fix=f"keys are {', '.join(sorted(_METRIC_KEYS))}")
    basis = m.get("basis")
    if basis not in BASES:
        raise InputError(f"basis {basis!r} is not one of {', '.join(BASES)}", file=str(path), field=f"{where}.basis",
                         fix="say what a pass proves: predicted (kind P), calibrated (calibrates = PARAM) or "
                             "construction (why = WHAT MAKES IT TRUE)")
    if basis == "calibrated" and not m.get("calibrates"):
        raise InputError("a calibrated metric names the parameter it set", file=str(path), field=f"{where}.calibrates",
                         fix='calibrates = "a.param.name" (zvmlab params) or "scenario.toml: field"')
    if basis == "construction" and not m.get("why"):
        raise InputError("a construction metric says what makes it true", file=str(path), field=f"{where}.why",
                         fix='why = "the rule, switch or read-back parameter"')
    return Metric(m["name"], m["value"], Tolerance.parse(m.get("tolerance", "0pp"), f"{where}.tolerance", str(path)),
                  m.get("published_base"), m.get("published_compare"), m.get("scenario"), m.get("sweep"),
                  _check_at(m.get("at"), f"{where}.at", path), m.get("divide_by"),
                  _check_at(m.get("divide_at"), f"{where}.divide_at", path),
                  m.get("published_ratio"), m.get("base"), m.get("compare"), basis, m.get("calibrates"),
                  m.get("why"), bool(m.get("change", False)))


def load_catalogue(path: Path = CATALOGUE) -> list[Row]:
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise InputError(f"cannot read the catalogue: {e}", file=str(path)) from None
    rows = []
    for i, r in enumerate(doc.get("row", [])):
        metrics = [_metric(m, f"row[{i}] ({r.get('id')}).metric[{k}]", path) for k, m in enumerate(r.get("metric", []))]
        rows.append(Row(r["id"], r["seed"], r.get("section", ""), r["what"], r["published"], r["kind"],
                        r["status"], r.get("reason", ""), r.get("scenario"), r.get("base"), r.get("compare"),
                        metrics, r.get("suite"), r.get("scaling")))
    return rows


_AT_KEYS = ("processors", "counts", "smt")


def _check_at(at, where: str, path: Path) -> dict | None:
    if at is None:
        return None
    if not isinstance(at, dict) or set(at) - set(_AT_KEYS):
        raise InputError(f"{at!r} is not a configuration", file=str(path), field=where,
                         fix=f"a table with keys among {', '.join(_AT_KEYS)}")
    return at


def levels_label(r: dict) -> str:
    """'base → compare' of a result, or the one level of a row measured at one level."""
    b, c = r.get("base_level"), r.get("compare_level")
    return f"{b} → {c}" if b and c else str(b or c or "")


def _lookup(run: dict, path: str) -> float:
    path = path.strip()
    try:
        return float(path)
    except ValueError:
        pass
    if path.startswith("|") and path.endswith("|") and " - " in path:
        a, b = path[1:-1].rsplit(" - ", 1)
        return abs(_lookup(run, a) - float(b))
    if "/" in path:
        a, b = path.split("/", 1)
        den = _lookup(run, b)
        return _lookup(run, a) / den if den else math.nan
    if "*" in path:
        a, b = path.split("*", 1)
        return _lookup(run, a) * _lookup(run, b)
    cur: object = run
    for part in path.split("."):
        if isinstance(cur, list):
            # a list of users (by userid) or of devices (by name)
            cur = next((x for x in cur if isinstance(x, dict) and part in (x.get("userid"), x.get("name"))), None)
        elif isinstance(cur, dict):
            cur = cur.get(part)
        if cur is None:
            return math.nan
    try:
        return float(cur)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


_AT = re.compile(r"([A-Za-z0-9_.]+)@([A-Za-z0-9_.\-]+\.toml)")


def _resolve(expr: str, run_of: Callable[[str], dict | None]) -> str:
    """Replace every ``path@scenario.toml`` in ``expr`` by its value in that scenario's run."""
    def sub(m: re.Match) -> str:
        other = run_of(m.group(2))
        return repr(_lookup(other, m.group(1)) if other is not None else math.nan)
    return _AT.sub(sub, expr)


def seeds_for(r: Row, seed: int | None, n: int) -> list[int]:
    """The seeds a row runs: its scenario's (or suite's) seed, or ``seed``, and the next n-1."""
    if seed is None:
        if r.suite:
            from . import suite as st

            seed = st.load(r.suite).seed
        elif r.scenario:
            seed = scenario.load(ROOT / "scenarios" / "replicate" / r.scenario).seed
        else:
            seed = 1
    return [seed + k for k in range(max(1, n))]


def metric_values(r: Row, m: Metric, seed: int, runs: Runs, scale: tuple = (), params: tuple = ()) -> dict[str, float]:
    """One metric's simulated values at one seed: ``base``/``compare`` and, for a published
    ratio, ``ratio`` = compare / base."""
    check = any("check." in x.value for x in r.metrics)

    def run(name: str, at: dict | None, level: str) -> dict:
        return runs.get(RunReq.make(name, at, level, seed, params, check, scale))

    sim: dict[str, float] = {}
    for side, lv in (("base", r.base), ("compare", r.compare)):
        if not lv:
            continue
        own = run(m.scenario or str(r.scenario), m.at, lv)
        v = _lookup(own, _resolve(m.value, lambda name, lv=lv: run(name, m.at, lv)))
        if m.divide_by:
            d = _lookup(run(m.divide_by, m.divide_at, lv), m.value)
            v = v / d if d else math.nan
        sim[side] = v
    if m.published_ratio is not None:
        b, c = sim.get("base", math.nan), sim.get("compare", math.nan)
        sim["ratio"] = c / b if b else math.nan
    return sim


def _result(base_info: dict, r: Row, m: Metric, verdict: str, means: dict, spread: dict, seeds: list[int],
            base_level=None, compare_level=None) -> dict:
    sim = {k: (None if math.isnan(v) else v) for k, v in means.items() if k in ("base", "compare")}
    published = {"base": m.published_base, "compare": m.published_compare}
    if m.published_ratio is not None:
        ratio = means.get("ratio", math.nan)
        sim = {"compare": None if math.isnan(ratio) else ratio, "base_value": sim.get("base"),
               "compare_value": sim.get("compare")}
        published = {"base": None, "compare": m.published_ratio}
    out = base_info | {
        "metric": m.name,
        "base_level": base_level if base_level is not None else r.base,
        "compare_level": compare_level if compare_level is not None else r.compare,
        "published": published, "simulated": sim, "tolerance": str(m.tolerance), "verdict": verdict,
        "reason": "", "basis": m.basis, "seeds": seeds, "spread": spread, "value": m.value,
    }
    if m.at:
        out["at"] = m.at
    if r.scenario and not r.suite and not r.scaling:
        out["scenario"] = m.scenario or r.scenario
        out["cores"] = (m.at or {}).get("processors") or _processors(m.scenario or r.scenario)
    if m.calibrates:
        out["calibrates"] = m.calibrates
    if m.why:
        out["why"] = m.why
    return out


@functools.lru_cache(maxsize=None)
def _processors(name: str) -> int | None:
    try:
        return scenario.load(ROOT / "scenarios" / "replicate" / name).processors
    except InputError:
        return None


def evaluate_row(r: Row, seeds: list[int], runs: Runs, scale: tuple = (), params: tuple = ()) -> list[dict]:
    """Every metric of a scenario row over ``seeds`` (runs come from ``runs``), with parameters
    scaled by ``scale`` ((name, factor), ...: the robustness check)."""
    base_info = _base_info(r)
    out = []
    for m in r.metrics:
        if m.sweep:
            from .replicate_runs import sweep_metric

            out.append(base_info | sweep_metric(r, m, seeds, runs, scale, params))
            continue
        per_seed = [metric_values(r, m, s, runs, scale, params) for s in seeds]
        verdict, means, spread = J.over_seeds(m, per_seed)
        out.append(_result(base_info, r, m, verdict, means, spread, seeds))
    return out


def _base_info(r: Row) -> dict:
    info = {"id": r.id, "seed_report": r.seed, "section": r.section, "what": r.what, "kind": r.kind}
    if r.status == "modelled":
        info["model"] = r.reason or ""  # how the row is modelled and what the runs found
    return info


def _not_run(r: Row) -> dict:
    return _base_info(r) | {"metric": None, "published": r.published, "simulated": None, "tolerance": None,
                            "reason": r.reason,
                            "verdict": OUT_OF_SCOPE if r.status == "out-of-scope" else NOT_MODELLED}


def replicate(rows: list[Row], progress: Callable[[int, int, str], None] | None = None,
              seed: int | None = None, seeds: int = SEEDS, jobs: int = 1, executor=None, store=None,
              params: tuple = (), scale: tuple = ()) -> list[dict]:
    """Run every modelled row over ``seeds`` seeds; one result per metric (or per row when not
    modelled). The runs are planned first and run on ``jobs`` local processes (or an executor
    with a store, which keeps finished runs: an interrupted replicate resumes). ``params``
    ((name, value), ...) overrides parameters in every scenario run (not in suite and scaling
    rows), e.g. a model switch measured on and off; ``scale`` ((name, factor), ...) multiplies
    them there (the scenario's own value where it sets one)."""
    from . import replicate_runs as R

    modelled = [r for r in rows if r.status == "modelled"]
    seed_of = {r.id: seeds_for(r, seed, seeds) for r in modelled}
    bad = R.scaled_out_of_range(R.plan(modelled, seed_of, scale, params), dict(scale))
    if bad:
        from ..errors import InputError

        raise InputError(bad[0] + (f" (and {len(bad) - 1} more scenarios)" if len(bad) > 1 else ""),
                         field="--scale", fix="use a factor that keeps every scenario's value within the range")
    runs = R.execute_plan(modelled, seed_of, progress=progress, jobs=jobs, executor=executor, store=store,
                          params=params, scale=scale)
    out: list[dict] = []
    for r in rows:
        if r.status != "modelled":
            out.append(_not_run(r))
        elif r.suite or r.scaling:
            out.extend(R.suite_row(r, seed_of[r.id], _base_info(r), runs))
        else:
            out.extend(evaluate_row(r, seed_of[r.id], runs, scale, params))
    return out


def replicate_parallel(rows: list[Row], jobs: int, progress: Callable[[int, int, str], None] | None = None,
                       seed: int | None = None, seeds: int = SEEDS) -> list[dict]:
    """`replicate` with the runs spread over ``jobs`` processes; same results, same order."""
    return replicate(rows, progress=progress, seed=seed, seeds=seeds, jobs=jobs)


def counts(results: list[dict]) -> dict[str, dict[str, int]]:
    """Metrics by basis and verdict: {"predicted": {"pass": n, "miss": m, ...}, ...}."""
    out: dict[str, dict[str, int]] = {b: {} for b in BASES}
    for x in results:
        if x.get("metric") is None:
            continue
        c = out.setdefault(x.get("basis", "predicted"), {})
        c[x["verdict"]] = c.get(x["verdict"], 0) + 1
    return out


def headline(results: list[dict]) -> str:
    """The figure to quote: predicted metrics within tolerance, apart from the rest."""
    c = counts(results)
    parts = []
    for b in BASES:
        n = sum(c[b].values())
        if not n:
            continue
        extra = f", {c[b][UNRESOLVED]} not resolved" if c[b].get(UNRESOLVED) else ""
        robust = [x for x in results if x.get("basis") == b and x.get("robust") is not None and x["verdict"] == PASS]
        rob = f", {sum(1 for x in robust if x['robust'])} of them robust" if robust else ""
        parts.append(f"{b}: {c[b].get(PASS, 0)} of {n} within tolerance{rob}{extra}")
    return "; ".join(parts)
