"""`zvmlab replicate --robustness`: does a predicted pass hang on one assumed parameter?

For every row with a predicted metric that passes, each *assumed* parameter (its source in the
parameter table says "assumed") that the row's runs read (the engine's ``params_read``) is set to
half and to twice its value (the scenario's own value where it sets one, else the table's), one
at a time, and the row's predicted metrics are judged again at the row's first seed. A pass that
turns into a miss is **fragile**, and the parameters that flip it are named. The runs go through
the lab executor (local processes or Dask) into a results store, so an interrupted job resumes
where it stopped.
"""

from __future__ import annotations

from typing import Callable

from . import replicate_judge as J
from .replicate_runs import RunReq, plan, stored_runs

FACTORS = (0.5, 2.0)


def assumed_params() -> set[str]:
    from .. import engine

    return {p["name"] for p in engine.params() if str(p["source"]).startswith("assumed")}


def _predicted_passes(results: list[dict], rid: str) -> list[dict]:
    return [x for x in results if x["id"] == rid and x.get("metric") is not None
            and x.get("basis") == "predicted" and x["verdict"] == J.PASS]


def _scenario_rows(rows: list, results: list[dict]) -> list:
    return [r for r in rows if r.status == "modelled" and not (r.suite or r.scaling)
            and _predicted_passes(results, r.id)]


def check(rows: list, results: list[dict], seed_of: dict[str, list[int]], executor, store,
          progress: Callable[[int, int, str], None] | None = None) -> list[dict]:
    """Mark each predicted pass ``robust`` (True/False) with the ``fragile`` perturbations that
    flip it; other metrics get ``robust`` = None. Returns the results, annotated in place."""
    from .replicate import evaluate_row
    from .replicate_runs import Runs

    assumed = assumed_params()
    todo = _scenario_rows(rows, results)
    first = {r.id: seed_of[r.id][:1] for r in todo}
    # the rows' own runs at their first seed: what they read
    base_reqs = plan(todo, first)
    base = stored_runs([q for q in base_reqs if isinstance(q, RunReq)], executor, store,
                       _stage(progress, "reads"))
    perturb: dict[str, list[tuple[str, float]]] = {}
    for r in todo:
        mine = [q for q in plan([r], first) if isinstance(q, RunReq)]
        read = set().union(*(base[q].get("params_read", []) for q in mine)) & assumed
        perturb[r.id] = [(p, f) for p in sorted(read) for f in FACTORS]
    reqs = []
    for r in todo:
        for p, f in perturb[r.id]:
            reqs.extend(q for q in plan([r], first, ((p, f),)) if isinstance(q, RunReq))
    done = stored_runs(list(dict.fromkeys(reqs)), executor, store, _stage(progress, "perturbed runs"))
    runs = Runs(done=done | base)
    for r in todo:
        passes = {x["metric"]: x for x in _predicted_passes(results, r.id)}
        for x in passes.values():
            x["robust"], x["fragile"], x["perturbations"] = True, [], len(perturb[r.id])
        for p, f in perturb[r.id]:
            for y in evaluate_row(r, first[r.id], runs, ((p, f),)):
                x = passes.get(y["metric"])
                if x is not None and y["verdict"] != J.PASS:
                    x["robust"] = False
                    x["fragile"].append({"param": p, "factor": f, "simulated": y["simulated"]})
    for x in results:
        if x.get("metric") is not None:
            x.setdefault("robust", None)
    return results


def _stage(progress, label: str):
    if progress is None:
        return None
    return lambda d, n, _x: progress(d, n, label)


def count_runs(rows: list, results: list[dict], seed_of: dict[str, list[int]]) -> int:
    """How many perturbed runs a robustness check would plan at most (every assumed
    parameter read by anything, before the reads are known)."""
    todo = _scenario_rows(rows, results)
    first = {r.id: seed_of[r.id][:1] for r in todo}
    n = sum(1 for q in plan(todo, first) if isinstance(q, RunReq))
    return n * len(assumed_params()) * len(FACTORS)
