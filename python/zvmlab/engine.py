"""The Rust engine, seen from Python: run scenarios, list levels and parameters.

The engine runs many events per call (the front never sits on the hot path); results come back
as JSON and are decoded here. Errors from the engine are turned into InputError.
"""

from __future__ import annotations

import functools
import json
import re
import time
from typing import Callable

from .errors import InputError

try:
    from . import _engine
except ImportError as e:  # pragma: no cover - only without a build
    raise ImportError("the zvmlab engine is not built; run `make dev` (or `pip install .`)") from e

EngineError = _engine.EngineError
__engine_version__ = _engine.__version__


@functools.cache
def _levels() -> tuple:
    return tuple(json.loads(_engine.levels_json()))


def levels() -> list[dict]:
    """CP levels with their mechanism switches."""
    return [dict(lv) for lv in _levels()]


@functools.cache
def _params() -> tuple:
    return tuple(json.loads(_engine.params_json()))


def params() -> list[dict]:
    """The parameter table: name, value, unit, source."""
    return [dict(p) for p in _params()]


def switches(level: str, overrides: dict[str, str] | None = None) -> dict[str, str]:
    """The effective mechanism switches of ``level`` with ``overrides``; InputError if invalid."""
    try:
        return json.loads(_engine.switches_json(level, json.dumps(overrides or {})))
    except EngineError as e:
        raise InputError(str(e)) from None


_AT = re.compile(r"^(.*) at line 1 column (\d+)$", re.DOTALL)


def located(e: Exception, text: str) -> InputError:
    """An engine refusal as an InputError: serde's "at line 1 column N" becomes the field there."""
    msg = str(e)
    m = _AT.match(msg)
    if not m:
        # Not the file's fault alone: the loader checks everything the engine does, so this is a
        # command-line value the command did not check, or a drift between the two (a bug).
        return InputError(f"the engine refused the run: {msg.removeprefix('engine config: ')}",
                          fix="if no option of this command explains it, please report it "
                              "(`zvmlab validate --json FILE` prints the configuration the file gives)")
    where = _by_value(text, json_path_at(text, int(m.group(2)) - 1), m.group(1))
    return InputError(f"the engine refused the value: {m.group(1).removeprefix('engine config: ')}",
                      field=f"engine config {where}" if where else "engine config",
                      fix="this value passed the scenario checks; please report it (see `zvmlab validate --json`)")


def _by_value(text: str, where: str, msg: str) -> str:
    """Serde reports a bad value of an internally tagged object (a workload, an action) at the
    object's end, so the path names its last key; when the message quotes the value and exactly
    one key of that object holds it, name that key instead."""
    quoted = re.search(r"`([^`]*)`|string \"((?:[^\"\\]|\\.)*)\"", msg)
    keys = re.findall(r"\[(\d+)\]|([^.\[\]]+)", where)
    if not quoted or len(keys) < 2:
        return where
    literal = quoted.group(1) if quoted.group(1) is not None else json.loads(f'"{quoted.group(2)}"')
    try:
        obj = json.loads(text)
        for idx, key in keys[:-1]:
            obj = obj[int(idx)] if idx else obj[key]
    except (ValueError, KeyError, IndexError, TypeError):
        return where
    if not isinstance(obj, dict):
        return where
    hits = [k for k, v in obj.items() if not isinstance(v, (dict, list)) and _same(v, literal)]
    if len(hits) != 1:
        return where
    return where[: len(where) - len(keys[-1][1])] + hits[0] if keys[-1][1] else where


def _same(v, literal: str) -> bool:
    """Whether a JSON scalar is the value serde quotes as ``literal``."""
    if isinstance(v, bool) or v is None:
        return json.dumps(v) == literal
    if isinstance(v, (int, float)):
        try:
            return float(literal) == float(v)
        except ValueError:
            return False
    return str(v) == literal


def json_path_at(text: str, pos: int) -> str:
    """The key path (``guests[3].storage_pages``) of the value at character ``pos`` of JSON ``text``."""
    stack: list[list] = []  # [kind, key or index]
    expecting_key, i = False, 0
    while i < min(pos, len(text)):
        c = text[i]
        if c == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if expecting_key and stack and stack[-1][0] == "obj":
                stack[-1][1] = json.loads(text[i:j + 1])
                expecting_key = False
            i = j
        elif c in "{[":
            stack.append(["obj", None] if c == "{" else ["arr", 0])
            expecting_key = c == "{"
        elif c in "}]":
            stack.pop() if stack else None
        elif c == "," and stack:
            if stack[-1][0] == "arr":
                stack[-1][1] += 1
            else:
                expecting_key = True
        i += 1
    out = ""
    for kind, k in stack:
        if kind == "arr":
            out += f"[{k}]"
        elif k is not None:
            out += f".{k}" if out else str(k)
    return out


def simulate(config: dict, progress: Callable[[int, int], None] | None = None, steps: int = 200,
             monitor: bool = False):
    """Run a normalized engine configuration; returns the summary with timing added.

    ``progress(now_ns, end_ns)`` is called between batches of events. With ``monitor=True``
    returns ``(summary, monitor_bytes)``: the run's monitor data in MONWRITE format.
    """
    text = json.dumps(config)
    try:
        sim = _engine.Simulation(text)
    except EngineError as e:
        raise located(e, text) from None
    end = sim.end_ns
    t0 = time.perf_counter()
    advance(sim, end, progress, max(1, end // steps))
    wall = time.perf_counter() - t0
    summary = json.loads(sim.summary_json())
    summary["wall_s"] = wall
    summary["events_per_s"] = summary["events"] / wall if wall > 0 else 0.0
    if monitor:
        return summary, sim.monitor_bytes()
    return summary


# Each call into the engine runs about this long (wall time), so that Ctrl-C and SIGTERM, which
# Python handles between calls, stop a run of any length within a second.
SLICE_S = 0.1


def advance(sim, end: int, progress: Callable[[int, int], None] | None, step: int) -> None:
    """Run ``sim`` to ``end`` in slices of simulated time sized to take about SLICE_S each.

    The results do not depend on the slicing (events run in the same order whatever the stops);
    ``progress(now_ns, end_ns)`` is called after each slice that crossed a ``step`` boundary.
    """
    span = max(1, min(step, 1_000_000))  # start with 1 ms of simulated time (or less)
    mark = 0
    while not sim.finished():
        c0 = time.perf_counter()
        sim.run_until(min(end, sim.now_ns + span))
        dt = time.perf_counter() - c0
        if dt < SLICE_S / 2 and span < step:
            span = min(step, span * 2)
        elif dt > SLICE_S * 2 and span > 1:
            span = max(1, span // 4)
        if progress and (sim.now_ns // step != mark or sim.finished()):
            mark = sim.now_ns // step
            progress(sim.now_ns, end)


def monitor_layouts() -> list[dict]:
    """The monitor record layouts the engine writes (name, domain, record, len, fields)."""
    return json.loads(_engine.monitor_layouts_json())


def mmcn_throughput(n: int, c: int, think: float, burst: float) -> float:
    return _engine.mmcn_throughput(n, c, think, burst)


def bench_reference(horizon_ms: int, seed: int) -> dict:
    return json.loads(_engine.bench_reference(horizon_ms, seed))


def polarize(cpc: dict) -> dict:
    """PR/SM entitlement, vertical polarization and placement of a CPC, by the engine's arithmetic.

    ``cpc`` is the engine's form: ``{"shared", "dedicated", "lpars": [{"name", "weight",
    "logical", "dedicated", "polarization", "busy"}]}``.
    """
    try:
        return json.loads(_engine.polarize_json(json.dumps(cpc)))
    except EngineError as e:
        raise InputError(str(e)) from None
