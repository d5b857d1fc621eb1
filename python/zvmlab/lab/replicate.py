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
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import engine, scenario
from ..errors import InputError

ROOT = Path(__file__).resolve().parents[3]
CATALOGUE = ROOT / "scenarios" / "replicate" / "catalogue.toml"

PASS, MISS, NOT_MODELLED, OUT_OF_SCOPE = "pass", "miss", "not modelled yet", "out of scope"


@dataclass
class Tolerance:
    value: float
    relative: bool

    @classmethod
    def parse(cls, text: str, where: str) -> "Tolerance":
        t = str(text).strip()
        try:
            if t.endswith("pp"):
                return cls(float(t[:-2]), False)
            if t.endswith("%"):
                return cls(float(t[:-1]) / 100, True)
        except ValueError:
            pass
        raise InputError(f"bad tolerance {text!r}", file=str(CATALOGUE), field=where,
                         fix='write "2pp" (absolute) or "20%" (relative)')

    def ok(self, simulated: float, published: float) -> bool:
        bound = self.value * abs(published) if self.relative else self.value
        return abs(simulated - published) <= bound + 1e-12

    def __str__(self) -> str:
        return f"{self.value * 100:g}%" if self.relative else f"{self.value:g}pp"


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
    published_ratio: float | None = None
    # Suite rows: this metric's own pair of levels (F2 compares 6.4 GA -> 1Q17 and 1Q17 -> 3Q17).
    base: str | None = None
    compare: str | None = None


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


def load_catalogue(path: Path = CATALOGUE) -> list[Row]:
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise InputError(f"cannot read the catalogue: {e}", file=str(path)) from None
    rows = []
    for i, r in enumerate(doc.get("row", [])):
        metrics = [Metric(m["name"], m["value"], Tolerance.parse(m.get("tolerance", "0pp"), f"row[{i}].metric"),
                          m.get("published_base"), m.get("published_compare"), m.get("scenario"), m.get("sweep"),
                          _check_at(m.get("at"), f"row[{i}].metric.at", path), m.get("divide_by"),
                          _check_at(m.get("divide_at"), f"row[{i}].metric.divide_at", path),
                          m.get("published_ratio"), m.get("base"), m.get("compare"))
                   for m in r.get("metric", [])]
        rows.append(Row(r["id"], r["seed"], r.get("section", ""), r["what"], r["published"], r["kind"],
                        r["status"], r.get("reason", ""), r.get("scenario"), r.get("base"), r.get("compare"),
                        metrics, r.get("suite"), r.get("scaling")))
    return rows


_AT = re.compile(r"([A-Za-z0-9_.]+)@([A-Za-z0-9_.\-]+\.toml)")


def _resolve(expr: str, run_of: Callable[[str], dict | None]) -> str:
    """Replace every ``path@scenario.toml`` in ``expr`` by its value in that scenario's run."""
    def sub(m: re.Match) -> str:
        other = run_of(m.group(2))
        return repr(_lookup(other, m.group(1)) if other is not None else math.nan)
    return _AT.sub(sub, expr)


_AT_KEYS = ("processors", "counts", "smt")


def _check_at(at, where: str, path: Path) -> dict | None:
    if at is None:
        return None
    if not isinstance(at, dict) or set(at) - set(_AT_KEYS):
        raise InputError(f"{at!r} is not a configuration", file=str(path), field=where,
                         fix=f"a table with keys among {', '.join(_AT_KEYS)}")
    return at


def configure(sc: scenario.Scenario, at: dict | None) -> scenario.Scenario:
    """The scenario at a metric's configuration: processors, SMT mode, guest counts by userid."""
    from dataclasses import replace

    if not at:
        return sc
    guests = list(sc.guests)
    for uid, n in (at.get("counts") or {}).items():
        k = next((i for i, g in enumerate(guests) if g.userid == uid.upper()), None)
        if k is None:
            raise InputError(f"no guest {uid} in {sc.path}", file=str(CATALOGUE), field="metric.at.counts",
                             fix="name a guest group's userid")
        guests[k] = replace(guests[k], count=int(n))
    return replace(sc, processors=int(at.get("processors", sc.processors)), smt=str(at.get("smt", sc.smt)),
                   guests=guests)


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
    return float(cur)  # type: ignore[arg-type]


def _judge(sim: float, published, tol: Tolerance) -> str | None:
    if published is None:
        return None
    if math.isnan(sim):
        return MISS
    if published == "tracks":
        return PASS if tol.ok(sim, 0.0) else MISS
    if published == "deviated":
        return MISS if tol.ok(sim, 0.0) else PASS
    if isinstance(published, str) and published.startswith(("at most ", "at least ")):
        # "at most 1": not above 1 by more than the tolerance (N(small) <= N(medium)).
        x = float(published.split()[2])
        bound = tol.value * abs(x) if tol.relative else tol.value
        ok = sim <= x + bound + 1e-12 if published.startswith("at most") else sim >= x - bound - 1e-12
        return PASS if ok else MISS
    if isinstance(published, str) and published.split()[0] in ("below", "above"):
        # "below 80": clearly below (by more than the tolerance); "above 80" likewise.
        word, x = published.split()[0], float(published.split()[1])
        if tol.ok(sim, x):
            return MISS
        return PASS if (sim < x) == (word == "below") else MISS
    return PASS if tol.ok(sim, float(published)) else MISS


def judge_shape(xs: list[float], ys: list[float], shape: str) -> str:
    """Shape rules for sweep rows: "decreasing", "increasing", "flat above X" (what is saved
    beyond X is under a fifth of what is saved up to X), "u-shaped" (worst at both ends)."""
    if any(math.isnan(y) for y in ys) or len(ys) < 3:
        return MISS
    if shape in ("decreasing", "increasing"):
        sign = -1 if shape == "decreasing" else 1
        ok = all(sign * (b - a) >= -1e-9 * max(1.0, abs(a)) for a, b in zip(ys, ys[1:])) and sign * (ys[-1] - ys[0]) > 0
        return PASS if ok else MISS
    if shape.startswith("flat above"):
        x0 = float(shape.split()[-1])
        k = min(range(len(xs)), key=lambda i: abs(xs[i] - x0))
        before, after = abs(ys[0] - ys[k]), abs(ys[k] - ys[-1])
        return PASS if before > 0 and after < 0.2 * before else MISS
    if shape == "u-shaped":
        inner = min(ys[1:-1])
        return PASS if ys[0] > inner and ys[-1] > inner else MISS
    raise InputError(f"unknown shape {shape!r}", file=str(CATALOGUE),
                     fix='use "decreasing", "increasing", "flat above X" or "u-shaped"')


def run_level(sc: scenario.Scenario, level: str, seed: int | None = None, check: bool = False) -> dict:
    """One run of a row's scenario; with ``check``, also its comparison against the Solver."""
    s = sc.with_overrides(level=level, seed=seed)
    summary = engine.simulate(s.engine_config())
    if check:
        from . import comparator

        summary["check"] = comparator.compare(s, summary, "sim", level).to_json()
    return summary


def replicate(rows: list[Row], progress: Callable[[int, int, str], None] | None = None,
              seed: int | None = None) -> list[dict]:
    """Run every modelled row; returns one result per metric (or per row when not modelled)."""
    out: list[dict] = []
    todo = [r for r in rows if r.status == "modelled"]
    done = 0
    for r in rows:
        base_info = {"id": r.id, "seed_report": r.seed, "section": r.section, "what": r.what, "kind": r.kind}
        if r.status == "modelled":
            # how the row is modelled and what the runs found (the catalogue's `reason`)
            base_info["model"] = r.reason or ""
        if r.status != "modelled":
            out.append(base_info | {"metric": None, "published": r.published, "simulated": None,
                                    "tolerance": None, "reason": r.reason,
                                    "verdict": OUT_OF_SCOPE if r.status == "out-of-scope" else NOT_MODELLED})
            continue
        if progress:
            progress(done, len(todo), r.id)
        if r.suite or r.scaling:
            out.extend(_suite_row(r, seed, base_info))
            done += 1
            if progress:
                progress(done, len(todo), r.id)
            continue
        cache: dict[tuple[str, str, str], dict] = {}
        need_check = any("check." in m.value for m in r.metrics)

        def runs_of(name: str, at: dict | None) -> dict[str, dict]:
            sc = configure(scenario.load(ROOT / "scenarios" / "replicate" / name), at)
            out_runs = {}
            for side, lv in (("base", r.base), ("compare", r.compare)):
                if lv:
                    key = (name, lv, json.dumps(at, sort_keys=True))
                    if key not in cache:
                        cache[key] = run_level(sc, lv, seed, need_check)
                    out_runs[side] = cache[key]
            return out_runs

        for m in r.metrics:
            if m.sweep:
                out.append(base_info | _sweep_metric(r, m, seed))
                continue
            runs = runs_of(m.scenario or str(r.scenario), m.at)
            sim = {side: _lookup(run, _resolve(m.value, lambda name, side=side: runs_of(name, m.at).get(side)))
                   for side, run in runs.items()}
            if m.divide_by:
                # A ratio of two scenarios at the same level (e.g. SMT-2 / non-SMT ETR).
                dens = runs_of(m.divide_by, m.divide_at)
                sim = {side: (v / d if (d := _lookup(dens[side], m.value)) else math.nan) for side, v in sim.items()}
            if m.published_ratio is not None:
                b, c = sim.get("base", math.nan), sim.get("compare", math.nan)
                ratio = c / b if b else math.nan
                out.append(base_info | {
                    "metric": m.name,
                    "base_level": r.base, "compare_level": r.compare,
                    "published": {"base": None, "compare": m.published_ratio},
                    "simulated": {"compare": None if math.isnan(ratio) else ratio,
                                  "base_value": None if math.isnan(b) else b,
                                  "compare_value": None if math.isnan(c) else c},
                    "tolerance": str(m.tolerance),
                    "verdict": _judge(ratio, m.published_ratio, m.tolerance) or MISS,
                    "reason": "",
                })
                continue
            verdicts = [v for v in (_judge(sim.get("base", math.nan), m.published_base, m.tolerance),
                                    _judge(sim.get("compare", math.nan), m.published_compare, m.tolerance)) if v]
            out.append(base_info | {
                "metric": m.name,
                "base_level": r.base, "compare_level": r.compare,
                "published": {"base": m.published_base, "compare": m.published_compare},
                "simulated": {k: (None if math.isnan(v) else v) for k, v in sim.items()},
                "tolerance": str(m.tolerance),
                "verdict": MISS if MISS in verdicts else PASS,
                "reason": "",
            })
        done += 1
        if progress:
            progress(done, len(todo), r.id)
    return out


def _suite_row(r: Row, seed: int | None, base_info: dict) -> list[dict]:
    """A row measured on a regression suite (one suite run at the row's two levels) or on a
    scaling experiment of its scenario at its comparison level (``cores.N.FIELD``)."""
    if r.scaling:
        from . import scaling

        sc = scenario.load(ROOT / "scenarios" / "replicate" / str(r.scenario)).with_overrides(
            level=r.compare, seed=seed)
        res = scaling.run(sc, [int(n) for n in r.scaling["cores"]])
        doc: dict = {"cores": {str(x["cores"]): x for x in res["rows"]}}
    else:
        from . import replicate_suite

        docs: dict[tuple[str, str], dict] = {}
        for m in r.metrics:
            pair = (str(m.base or r.base), str(m.compare or r.compare))
            if pair not in docs:
                docs[pair] = replicate_suite.measure(str(r.suite), pair[0], pair[1], seed)
    out = []
    for m in r.metrics:
        if not r.scaling:
            doc = docs[(str(m.base or r.base), str(m.compare or r.compare))]
        v = _lookup(doc, m.value)
        out.append(base_info | {
            "metric": m.name,
            "base_level": m.base or r.base, "compare_level": m.compare or r.compare,
            "published": {"base": m.published_base, "compare": m.published_compare},
            "simulated": {"compare": None if math.isnan(v) else v},
            "tolerance": str(m.tolerance),
            "verdict": _judge(v, m.published_compare, m.tolerance) or MISS,
            "reason": "",
        })
    return out


def _sweep_metric(r: Row, m: Metric, seed: int | None) -> dict:
    """A shape metric: the scenario run at each value of a parameter, at each side's level."""
    sc = configure(scenario.load(ROOT / "scenarios" / "replicate" / str(m.scenario or r.scenario)), m.at)
    param, values = m.sweep["param"], [float(v) for v in m.sweep["values"]]
    series: dict[str, list[float]] = {}
    verdicts = []
    for side, lv, published in (("base", r.base, m.published_base), ("compare", r.compare, m.published_compare)):
        if not lv or published is None:
            continue
        ys = []
        for v in values:
            s = sc.with_overrides(level=lv, seed=seed)
            s.params = dict(s.params) | {param: v}
            ys.append(_lookup(engine.simulate(s.engine_config()), m.value))
        series[side] = ys
        verdicts.append(judge_shape(values, ys, str(published)))
    fmt = lambda ys: " ".join(f"{y:.3g}" for y in ys)  # noqa: E731
    return {
        "metric": f"{m.name} at {param} = {' '.join(f'{v:g}' for v in values)}",
        "base_level": r.base, "compare_level": r.compare,
        "published": {"base": m.published_base, "compare": m.published_compare},
        "simulated": {k: fmt(v) for k, v in series.items()},
        "series": {"param": param, "values": values, **series},
        "tolerance": "shape",
        "verdict": MISS if MISS in verdicts else PASS,
        "reason": "",
    }


def _one(args: tuple[Row, int | None]) -> list[dict]:
    row, seed = args
    return replicate([row], seed=seed)


def replicate_parallel(rows: list[Row], jobs: int, progress: Callable[[int, int, str], None] | None = None,
                       seed: int | None = None) -> list[dict]:
    """`replicate` with modelled rows spread over ``jobs`` processes; same results, same order."""
    if jobs <= 1:
        return replicate(rows, progress=progress, seed=seed)
    import concurrent.futures as cf
    import multiprocessing as mp

    modelled = [r for r in rows if r.status == "modelled"]
    results: dict[str, list[dict]] = {}
    with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn")) as pool:
        futures = {pool.submit(_one, (r, seed)): r.id for r in modelled}
        for k, f in enumerate(cf.as_completed(futures), 1):
            results[futures[f]] = f.result()
            if progress:
                progress(k, len(modelled), futures[f])
    out: list[dict] = []
    for r in rows:
        out.extend(results[r.id] if r.status == "modelled" else replicate([r]))
    return out
