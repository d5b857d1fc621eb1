"""The runs behind `zvmlab replicate`: planned first, executed anywhere, then read back.

A metric's values come from runs named by a :class:`RunReq` (scenario file, configuration,
level, seed, parameter overrides). :func:`execute_plan` evaluates every row once with a
recording :class:`Runs` (which only notes the requests), runs the requests on local processes or
on a lab executor with a results store (so an interrupted replicate keeps what finished and
resumes), and returns a :class:`Runs` that answers every request of the real evaluation.
Suite rows (F1, F2) and scaling rows (B11) are requests of their own kinds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from .. import engine, scenario
from ..errors import InputError

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = ROOT / "scenarios" / "replicate"


def configure(sc: scenario.Scenario, at: dict | None) -> scenario.Scenario:
    """The scenario at a metric's configuration: processors, SMT mode, guest counts by userid."""
    if not at:
        return sc
    guests = list(sc.guests)
    for uid, n in (at.get("counts") or {}).items():
        k = next((i for i, g in enumerate(guests) if g.userid == uid.upper()), None)
        if k is None:
            raise InputError(f"no guest {uid} in {sc.path}", file=str(SCENARIOS / "catalogue.toml"),
                             field="metric.at.counts", fix="name a guest group's userid")
        guests[k] = replace(guests[k], count=int(n))
    return replace(sc, processors=int(at.get("processors", sc.processors)), smt=str(at.get("smt", sc.smt)),
                   guests=guests)


def apply(sc: scenario.Scenario, at: dict | None, params: dict[str, float],
          scale: dict[str, float] | None = None) -> scenario.Scenario:
    """A configuration, parameter overrides and parameter scalings (each parameter times a
    factor: the scenario's own value where it sets one, else the table's; kept inside the
    parameter's physical range) on top of a scenario: what a RunReq runs."""
    s = configure(sc, at)
    if params:
        s = replace(s, params=dict(s.params) | dict(params))
    if scale:
        # each scaled value stays inside the parameter's physical range (the table's min and max)
        table = {p["name"]: p for p in engine.params()}

        def scaled(k: str, f: float) -> float:
            t = table[k]
            return min(max(s.params.get(k, float(t["default"])) * f, float(t["min"])), float(t["max"]))

        s = replace(s, params=dict(s.params) | {k: scaled(k, f) for k, f in scale.items()})
    return s


def scaled_out_of_range(reqs: list, scale: dict[str, float]) -> list[str]:
    """Each planned scenario run whose own value of a scaled parameter would leave the parameter's
    range (``apply`` keeps it inside by clamping, which a requested factor must not be): one line
    each, naming the scenario file, the parameter, its value and the factor."""
    if not scale:
        return []
    table = {p["name"]: p for p in engine.params()}
    bad: dict[str, str] = {}
    for q in reqs:
        if not isinstance(q, RunReq) or q.scenario in bad:
            continue
        s = configure(scenario.load(SCENARIOS / q.scenario), json.loads(q.at) or None)
        for k, f in scale.items():
            t = table[k]
            v = s.params.get(k, float(t["default"]))
            if not float(t["min"]) <= v * f <= float(t["max"]):
                bad[q.scenario] = (f"{q.scenario}: {k} = {v:g} x {f:g} = {v * f:g} is outside "
                                   f"[{t['min']}, {t['max']}] {t['unit']}")
                break
    return sorted(bad.values())


@dataclass(frozen=True)
class RunReq:
    """One run of a replicate scenario: file, configuration (canonical JSON), level, seed,
    parameter overrides and scalings ((name, value), ... sorted), and whether to compare it with
    the Solver."""

    scenario: str
    at: str
    level: str
    seed: int
    params: tuple = ()
    check: bool = False
    scale: tuple = ()

    @classmethod
    def make(cls, name: str, at: dict | None, level: str, seed: int, params: tuple | dict = (),
             check: bool = False, scale: tuple | dict = ()) -> "RunReq":
        p = tuple(sorted(dict(params).items()))
        return cls(name, json.dumps(at or {}, sort_keys=True), level, seed, p, check, tuple(sorted(dict(scale).items())))

    def loaded(self) -> scenario.Scenario:
        sc = scenario.load(SCENARIOS / self.scenario)
        return apply(sc, json.loads(self.at) or None, dict(self.params), dict(self.scale)).with_overrides(
            level=self.level, seed=self.seed)

    def execute(self) -> dict:
        s = self.loaded()
        summary = engine.simulate(s.engine_config())
        for k in ("wall_s", "events_per_s"):
            summary.pop(k, None)
        if self.check:
            from . import comparator

            summary["check"] = comparator.compare(s, summary, "sim", self.level).to_json()
        return summary


@dataclass(frozen=True)
class SuiteReq:
    """A regression suite at two levels with one seed (rows F1, F2)."""

    suite: str
    base: str
    compare: str
    seed: int

    def execute(self) -> dict:
        from . import replicate_suite

        return replicate_suite.measure(self.suite, self.base, self.compare, self.seed)


@dataclass(frozen=True)
class ScalingReq:
    """A scaling experiment of a scenario at one level (row B11)."""

    scenario: str
    level: str
    seed: int
    cores: tuple

    def execute(self) -> dict:
        from . import scaling

        sc = scenario.load(SCENARIOS / self.scenario).with_overrides(level=self.level, seed=self.seed)
        res = scaling.run(sc, list(self.cores))
        return {"cores": {str(x["cores"]): x for x in res["rows"]}}


def _execute(req) -> dict:
    return req.execute()


class Runs:
    """Answers run requests: records them (``record=True``: every answer is empty) or returns
    the results given, running any request it has no result for in this process."""

    def __init__(self, record: bool = False, done: dict | None = None):
        self.record = record
        self.done: dict = dict(done or {})
        self.wanted: dict = {}

    def get(self, req) -> dict:
        if req in self.done:
            return self.done[req]
        if self.record:
            self.wanted.setdefault(req, None)
            return {}
        self.done[req] = req.execute()
        return self.done[req]


def _suite_reqs(r, seeds: list[int]) -> list:
    if r.scaling:
        return [ScalingReq(str(r.scenario), str(r.compare), s, tuple(int(n) for n in r.scaling["cores"]))
                for s in seeds]
    pairs = dict.fromkeys((str(m.base or r.base), str(m.compare or r.compare)) for m in r.metrics)
    return [SuiteReq(str(r.suite), b, c, s) for b, c in pairs for s in seeds]


def plan(rows: list, seed_of: dict[str, list[int]], scale: tuple = (), params: tuple = ()) -> list:
    """Every request the rows' evaluation will make, in order, without running anything."""
    from .replicate import evaluate_row

    rec = Runs(record=True)
    for r in rows:
        if r.suite or r.scaling:
            for q in _suite_reqs(r, seed_of[r.id]):
                rec.wanted.setdefault(q, None)
        else:
            evaluate_row(r, seed_of[r.id], rec, scale, params)
    return list(rec.wanted)


def execute_plan(rows: list, seed_of: dict[str, list[int]], progress: Callable | None = None, jobs: int = 1,
                 executor=None, store=None, params: tuple = (), scale: tuple = ()) -> Runs:
    """Plan the rows' runs and run them: on ``jobs`` local processes, or (runs only) on
    ``executor`` with ``store`` keeping each finished run."""
    reqs = plan(rows, seed_of, scale, params)
    done: dict = {}
    if store is not None:
        runs = [q for q in reqs if isinstance(q, RunReq)]
        done.update(stored_runs(runs, executor, store, progress))
        reqs = [q for q in reqs if not isinstance(q, RunReq)]
    if reqs:
        from .executor import LocalExecutor

        n = len(reqs)
        for k, (q, res) in enumerate(LocalExecutor(jobs).run(reqs, fn=_execute), 1):
            done[q] = res
            if progress:
                progress(k, n, _label(q))
    return Runs(done=done)


def _label(q) -> str:
    return getattr(q, "scenario", None) or getattr(q, "suite", "")


def spec_of(q: RunReq):
    """The lab executor's RunSpec for a request (its store key covers the overrides)."""
    from .executor import make_spec

    path = SCENARIOS / q.scenario
    text = path.read_text()
    over = {"at": json.loads(q.at), "params": dict(q.params), "check": q.check, "scale": dict(q.scale)}
    return make_spec(text, str(path), q.level, q.seed, labels=(("replicate", q.scenario, {}),), overrides=over)


def stored_runs(reqs: list[RunReq], executor, store, progress: Callable | None = None) -> dict:
    """Run requests through the lab executor into the store (reusing what it has)."""
    from . import executor as ex
    from . import suite as st

    specs = [spec_of(q) for q in reqs]
    own = executor is None
    executor = executor or ex.make(None)
    try:
        st.execute(specs, executor, store, (lambda d, n: progress(d, n, "runs")) if progress else None)
    finally:
        if own:
            executor.close()
    return {q: store.summary(s.key) for q, s in zip(reqs, specs)}


def sweep_metric(r, m, seeds: list[int], runs: Runs, scale: tuple = (), params: tuple = ()) -> dict:
    """A shape metric: the scenario run at each value of a parameter, at each side's level and
    seed; the shape judged on the mean series and on each seed's (all must agree). ``params``
    and ``scale`` apply to every run as in the other metrics (the swept parameter takes the
    sweep's values)."""
    from . import replicate_judge as J
    from .replicate import _lookup

    param, values = m.sweep["param"], [float(v) for v in m.sweep["values"]]
    scale = tuple((k, f) for k, f in scale if k != param)  # the swept parameter runs at the sweep's values
    series: dict[str, list[float]] = {}
    verdicts = []
    for side, lv, published in (("base", r.base, m.published_base), ("compare", r.compare, m.published_compare)):
        if not lv or published is None:
            continue
        per_seed = [[_lookup(runs.get(RunReq.make(str(m.scenario or r.scenario), m.at, lv, s,
                                                  dict(params) | {param: v}, scale=scale)), m.value)
                     for v in values]
                    for s in seeds]
        ys = [sum(col) / len(col) for col in zip(*per_seed)]
        series[side] = ys
        v = J.judge_shape(values, ys, str(published))
        if any(J.judge_shape(values, p, str(published)) != v for p in per_seed):
            v = J.UNRESOLVED
        verdicts.append(v)
    fmt = lambda ys: " ".join(f"{y:.3g}" for y in ys)  # noqa: E731
    verdict = J.MISS if J.MISS in verdicts else J.UNRESOLVED if J.UNRESOLVED in verdicts else J.PASS
    out = {
        "metric": f"{m.name} at {param} = {' '.join(f'{v:g}' for v in values)}",
        "base_level": r.base, "compare_level": r.compare,
        "published": {"base": m.published_base, "compare": m.published_compare},
        "simulated": {k: fmt(v) for k, v in series.items()},
        "series": {"param": param, "values": values, **series},
        "tolerance": "shape", "verdict": verdict, "reason": "", "basis": m.basis, "seeds": seeds,
    }
    if m.why:
        out["why"] = m.why
    return out


def suite_row(r, seeds: list[int], base_info: dict, runs: Runs) -> list[dict]:
    """A row measured on a regression suite (one suite run per pair of levels and seed) or on a
    scaling experiment of its scenario at its comparison level (``cores.N.FIELD``)."""
    from . import replicate_judge as J
    from .replicate import _lookup, _result

    out = []
    for m in r.metrics:
        b, c = str(m.base or r.base), str(m.compare or r.compare)
        per_seed = []
        for s in seeds:
            doc = runs.get(ScalingReq(str(r.scenario), c, s, tuple(int(n) for n in r.scaling["cores"]))
                           if r.scaling else SuiteReq(str(r.suite), b, c, s))
            v = _lookup(doc, m.value)
            per_seed.append({"compare": v})
        verdict, means, spread = J.over_seeds(m, per_seed)
        out.append(_result(base_info, r, m, verdict, means, spread, seeds, base_level=m.base or r.base,
                           compare_level=m.compare or r.compare))
    return out
