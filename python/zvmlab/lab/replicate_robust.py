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
          progress: Callable[[int, int, str], None] | None = None,
          on_row: Callable[[str], None] | None = None) -> list[dict]:
    """Mark each predicted pass ``robust`` (True/False) with the ``fragile`` perturbations that
    flip it; other metrics get ``robust`` = None. Rows are checked one at a time (``on_row``
    is called after each, so a caller can save what is known). Returns the results, annotated
    in place."""
    assumed = assumed_params()
    for x in results:
        if x.get("metric") is not None:
            x.setdefault("robust", None)
    todo = _scenario_rows(rows, results)
    for k, r in enumerate(todo, 1):
        check_row(r, results, seed_of[r.id][:1], assumed, executor, store,
                  _stage(progress, f"{r.id} ({k}/{len(todo)} rows)"))
        if on_row:
            on_row(r.id)
    return results


def check_row(r, results: list[dict], first: list[int], assumed: set[str], executor, store,
              progress: Callable[[int, int, str], None] | None = None) -> None:
    """One row: its runs at the first seed (what they read), then each assumed parameter they
    read at each factor; a predicted pass that misses under one of them is fragile."""
    from .replicate import evaluate_row
    from .replicate_runs import Runs

    mine = [q for q in plan([r], {r.id: first}) if isinstance(q, RunReq)]
    base = stored_runs(mine, executor, store, progress)
    read = set().union(*(base[q].get("params_read", []) for q in mine)) & assumed
    perturb = [(p, f) for p in sorted(read) for f in FACTORS]
    reqs = [q for p, f in perturb for q in plan([r], {r.id: first}, ((p, f),)) if isinstance(q, RunReq)]
    runs = Runs(done=stored_runs(list(dict.fromkeys(reqs)), executor, store, progress) | base)
    mine_results = [x for x in results if x["id"] == r.id and x.get("metric") is not None]
    # by position: evaluate_row gives the row's metrics in catalogue order (names may repeat)
    passes = {k: x for k, x in enumerate(mine_results)
              if x.get("basis") == "predicted" and x["verdict"] == J.PASS}
    for x in passes.values():
        x["robust"], x["fragile"], x["perturbations"] = True, [], len(perturb)
    for p, f in perturb:
        for k, y in enumerate(evaluate_row(r, first, runs, ((p, f),))):
            x = passes.get(k)
            if x is not None and y["verdict"] != J.PASS:
                x["robust"] = False
                x["fragile"].append({"param": p, "factor": f, "simulated": y["simulated"]})


def _stage(progress, label: str):
    if progress is None:
        return None
    return lambda d, n, _x: progress(d, n, label)


def summary(results: list[dict]) -> dict:
    """Predicted passes checked, robust, fragile, and the parameters that flip passes most."""
    checked = [x for x in results if x.get("robust") is not None]
    fragile = [x for x in checked if x["robust"] is False]
    by_param: dict[str, int] = {}
    for x in fragile:
        for p in {f["param"] for f in x["fragile"]}:
            by_param[p] = by_param.get(p, 0) + 1
    return {"checked": len(checked), "robust": len(checked) - len(fragile), "fragile": len(fragile),
            "fragile_by_param": dict(sorted(by_param.items(), key=lambda kv: (-kv[1], kv[0])))}
