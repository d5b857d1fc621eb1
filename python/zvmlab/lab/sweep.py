"""Parameter sweeps: one scenario at every point of a grid of parameter values.

``--param NAME=V1,V2,...`` (repeatable; the grid is their cross product) names a value of the
scenario file:

* ``processors``, ``smt``, ``level``, ``switches.NAME`` (in ``[system]``); ``seed``, ``duration``,
  ``interval`` (in ``[run]``); or any key written as ``system.KEY``, ``run.KEY``, ``storage.KEY``;
* a model parameter (``srm.dspslice``, ``cpu.clock_ghz``: ``zvmlab params`` lists them), also as
  ``params.NAME``;
* a guest's key: ``guest.USERID.KEY`` (``count``, ``vcpus``, ``share``, ``storage``, ``quickdsp``)
  or its workload's: ``guest.USERID.workload.KEY`` (``demand``, ``tx_cpu``, ``think``, ``cpu``,
  ``dist``); ``guest[0].count`` names the first ``[[guest]]``.

A name the scenario does not have is an InputError before anything runs. Each point's scenario
is the file with the values written in (``point_text``), validated like any scenario, so a
value out of range names the point and the field. Runs go through the same executors and store
as suites (collection ``sweep:FILE``): a sweep run twice reuses its finished runs.
"""

from __future__ import annotations

import difflib
import itertools
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .. import engine, scenario
from ..errors import InputError

_ALIASES = {"processors": ("system", "processors"), "smt": ("system", "smt"), "level": ("system", "level"),
            "seed": ("run", "seed"), "duration": ("run", "duration"), "interval": ("run", "interval")}
_GUEST = re.compile(r"^guest(?:\.([^.\[\]]+)|\[(\d+)\])\.(workload\.)?([A-Za-z_]+)$")


@dataclass
class Param:
    name: str
    values: list[Any]
    path: tuple  # where in the TOML document


def parse_value(text: str) -> Any:
    t = text.strip()
    if re.fullmatch(r"[+-]?\d+", t):
        return int(t)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", t):
        return float(t)
    if t in ("true", "false"):
        return t == "true"
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'":
        return t[1:-1]
    return t


def _accepted(doc: dict) -> list[str]:
    names = list(_ALIASES)
    for g in doc.get("guest", []) if isinstance(doc.get("guest"), list) else []:
        if isinstance(g, dict) and isinstance(g.get("userid"), str):
            names += [f"guest.{g['userid'].upper()}.{k}" for k in ("count", "vcpus", "share")]
    return names + ["switches.NAME (zvmlab levels)", "a model parameter (zvmlab params)"]


def _switch_names() -> list[str]:
    lv = engine.levels()
    return sorted({k for x in lv for k in x.get("switches", {})})


def _unknown(n: str, doc: dict, file: str, why: str = "") -> InputError:
    """No such sweep parameter: the message names the closest accepted one."""
    acc = _accepted(doc)
    close = difflib.get_close_matches(
        n, acc + [f"switches.{k}" for k in _switch_names()] + [p["name"] for p in engine.params()], n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return InputError(f"the scenario has no parameter {n!r}{why}", file=file, field="--param",
                      fix=f"{hint}accepted: {', '.join(acc)}")


def resolve(name: str, doc: dict, file: str) -> tuple:
    """The document path of a sweep parameter, or an InputError if the scenario has no such thing."""
    n = name.strip()
    if n in _ALIASES:
        return _ALIASES[n]
    if n.startswith("switches."):
        if n[9:] not in _switch_names():
            raise _unknown(n, doc, file, " (not a mechanism switch: `zvmlab levels` lists them)")
        return ("system", "switches", n[9:])
    head, _, rest = n.partition(".")
    if head in ("system", "run", "storage") and rest and "." not in rest:
        return _table_key(n, head, rest, doc, file)
    model = {p["name"] for p in engine.params()}
    pname = rest if head == "params" else n
    if pname in model:
        return ("params", pname)
    m = _GUEST.match(n)
    if m:
        return _guest_key(n, m, doc, file)
    raise _unknown(n, doc, file)


def _table_key(n: str, head: str, rest: str, doc: dict, file: str) -> tuple:
    """system.KEY, run.KEY or storage.KEY: a key the table accepts (storage only with a [storage])."""
    allowed = {"system": scenario._SYSTEM_KEYS, "run": scenario._RUN_KEYS, "storage": scenario._STORAGE_KEYS}[head]
    if rest not in allowed:
        raise _unknown(n, doc, file)
    if head == "storage" and "storage" not in doc:
        raise _unknown(n, doc, file, " (the scenario has no [storage] table)")
    return (head, rest)


def _guest_key(n: str, m: re.Match, doc: dict, file: str) -> tuple:
    """guest.USERID.KEY, guest.N.KEY or guest.USERID.workload.KEY: the guest exists and has the key."""
    guests = doc.get("guest", [])
    if m.group(2) is not None:
        i = int(m.group(2))
        if i >= len(guests):
            raise _unknown(n, doc, file, f" (the scenario has {len(guests)} guest(s))")
    else:
        ids = [str(g.get("userid", "")).upper() for g in guests]
        uid = m.group(1).upper()
        if uid not in ids:
            close = difflib.get_close_matches(uid, ids, n=1)
            raise InputError(f"the scenario has no guest {uid!r}", file=file, field="--param",
                             fix=(f"did you mean {close[0]!r}? " if close else "") + f"guests: {', '.join(ids)}")
        i = ids.index(uid)
    key = m.group(4)
    if m.group(3):
        kind = guests[i].get("workload", {}).get("kind")
        allowed = [k for k in scenario._WORKLOAD_KEYS.get(kind, {}) if k != "kind"]
        if key not in allowed:
            raise _unknown(n, doc, file, f" (a {kind} workload has {', '.join(allowed)})")
        return ("guest", i, "workload", key)
    if key not in scenario._GUEST_KEYS or key in ("userid", "workload", "refs"):
        raise _unknown(n, doc, file, " (guest keys: count, vcpus, share, storage, quickdsp)")
    return ("guest", i, key)


def parse_params(specs: list[str], doc: dict, file: str) -> list[Param]:
    out: list[Param] = []
    for s in specs:
        if "=" not in s:
            raise InputError(f"{s!r} is not NAME=VALUES", field="--param", fix="e.g. --param processors=4,8,16,32,64")
        name, _, vals = s.partition("=")
        values = [parse_value(v) for v in vals.split(",") if v.strip()]
        if not values:
            raise InputError(f"no values for {name.strip()!r}", field="--param", fix="e.g. --param processors=4,8,16")
        if any(p.name == name.strip() for p in out):
            raise InputError(f"{name.strip()!r} is given twice", field="--param", fix="give each parameter once")
        out.append(Param(name.strip(), values, resolve(name, doc, file)))
    if not out:
        raise InputError("nothing to sweep", field="--param", fix="e.g. --param processors=4,8,16,32,64")
    return out


def _set(doc: dict, path: tuple, value: Any) -> None:
    cur: Any = doc
    if path[0] == "params":
        params = scenario._flatten_params(doc.get("params", {}))
        params[path[1]] = value
        doc["params"] = params
        return
    for k in path[:-1]:
        if isinstance(cur, list):
            cur = cur[k]
        else:
            cur = cur.setdefault(k, {})
    cur[path[-1]] = value


# ------------------------------------------------------------------ a small TOML writer

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if _BARE.match(k) else json.dumps(k, ensure_ascii=False)


def _val(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v != v:
            return "nan"
        if v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_val(x)}" for k, x in v.items()) + " }" if v else "{}"
    if isinstance(v, list):
        return "[" + ", ".join(_val(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} in TOML")


def dumps(doc: dict) -> str:
    """TOML text of a scenario document (scalars, tables, arrays of tables; values inline)."""
    lines: list[str] = []
    tables = {k: v for k, v in doc.items() if isinstance(v, dict)}
    arrays = {k: v for k, v in doc.items() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)}
    for k, v in doc.items():
        if k not in tables and k not in arrays:
            lines.append(f"{_key(k)} = {_val(v)}")
    for k, t in tables.items():
        lines += ["", f"[{_key(k)}]"] + [f"{_key(a)} = {_val(b)}" for a, b in t.items()]
    for k, arr in arrays.items():
        for t in arr:
            lines += ["", f"[[{_key(k)}]]"] + [f"{_key(a)} = {_val(b)}" for a, b in t.items()]
    return "\n".join(lines).lstrip("\n") + "\n"


def point_name(point: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in point.items())


def points(params: list[Param]) -> list[dict[str, Any]]:
    return [dict(zip([p.name for p in params], combo)) for combo in itertools.product(*(p.values for p in params))]


def point_text(doc: dict, params: list[Param], point: dict[str, Any]) -> str:
    import copy

    d = copy.deepcopy(doc)
    for p in params:
        _set(d, p.path, point[p.name])
    return dumps(d)


def plan(file: str, specs: list[str], repeat: int = 1, level: str | None = None, seed: int | None = None,
         duration: str | None = None):
    """Resolve the parameters and build the run specs: returns (params, points, specs)."""
    from .executor import make_spec

    path = Path(file)
    scenario.load(path)  # the file itself must be a valid scenario
    doc = tomllib.loads(path.read_text())
    params = parse_params(specs, doc, str(path))
    if duration is not None:
        if any(p.path == ("run", "duration") for p in params):
            raise InputError("--duration and --param duration=... both set the duration", field="--duration",
                             fix="give one of them")
        d = scenario.parse_duration(duration, where="--duration")
        run_t = doc.setdefault("run", {})
        run_t["duration"] = duration
        iv = run_t.get("interval")
        if isinstance(iv, str) and scenario.parse_duration(iv, allow_zero=True) > d:
            run_t["interval"] = duration  # as `run --duration` does: the interval is at most the run
    if level and any(p.path == ("system", "level") for p in params):
        raise InputError("--level and --param level=... both set the level", field="--level", fix="give one of them")
    if repeat < 1:
        raise InputError(f"{repeat} is not a number of runs", field="--repeat", fix="use 1 or more")
    lv = scenario._check_level(level, file=None, line=None, where="--level") if level else None
    pts = points(params)
    out = []
    for pt in pts:
        text = point_text(doc, params, pt)
        name = f"{path} [sweep {point_name(pt)}]"
        try:
            sc = scenario.loads(text, name)
        except InputError as e:
            # the point's text is written by the sweep: its line numbers are not the file's
            e.line = None
            e.message = f"{e.field}: {e.message}" if e.field else e.message
            e.field = "--param"
            raise

        s0 = sc.seed if seed is None else seed
        scenario.check_seeds(s0, repeat, field="--seed" if seed is not None else "--repeat")
        for k in range(repeat):
            out.append(make_spec(text, name, lv or sc.level, s0 + k,
                                 labels=((f"sweep:{path}", point_name(pt), {"point": pt}),), loaded=sc))
    return params, pts, out


def run(file: str, specs_in: list[str], executor, store, repeat: int = 1, level: str | None = None,
        seed: int | None = None, progress: Callable[[int, int], None] | None = None,
        duration: str | None = None) -> tuple[dict, tuple[int, int]]:
    """Run a sweep; returns (result, (runs made, runs reused)).

    Each point has the means (and with ``repeat`` > 1 standard deviations) of etr, itr, tv_ratio,
    busy_pct, resp_mean_ms and resp_p90_ms (transaction response time), and ``cpu_pct``: userid ->
    mean CPU percent of one processor.
    """
    from . import suite as suite_mod

    params, pts, specs = plan(file, specs_in, repeat, level, seed, duration)
    made = suite_mod.execute(specs, executor, store, progress)
    metrics = store.metrics(s.key for s in specs)
    rows = []
    for i, pt in enumerate(pts):
        ms = [metrics[s.key] for s in specs[i * repeat:(i + 1) * repeat]]
        row: dict[str, Any] = {"point": pt, "level": specs[i * repeat].level, "seeds": [m["seed"] for m in ms]}
        for m in ("etr", "itr", "tv_ratio", "busy_pct", "resp_mean_ms", "resp_p90_ms"):
            vals = [x.get(m) or 0.0 for x in ms]
            mean = sum(vals) / len(vals)
            row[m] = mean
            row[f"{m}_sd"] = (sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)) ** 0.5 if len(vals) > 1 else None
        users = sorted({u for x in ms for u in x.get("users", {})})
        row["cpu_pct"] = {u: sum(x.get("users", {}).get(u, 0.0) for x in ms) / len(ms) for u in users}
        rows.append(row)
    return {"file": str(file), "params": {p.name: p.values for p in params}, "repeat": repeat, "points": rows}, made
