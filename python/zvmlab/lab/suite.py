"""Regression suites: a matrix of scenarios run at a base and a comparison level over seeds.

A suite file (``scenarios/suites/NAME.toml``) describes cells as the union of cross products
(``[[matrix]]``: every axis a list of values, ``family`` always among them, ``exclude`` a list
of partial cells to leave out). Each cell's scenario is its family's ``template`` with
``{{ expression }}`` placeholders filled in from the cell's axis values and from
``[values.AXIS.VALUE]`` tables (numbers, strings; ``+ - * / // % **``, ``min``, ``max``,
``round``, ``int``, ``ceil`` are allowed). The family names the workload the cell stands for
(``intended``) and what runs today (``today``): when a workload lands in the engine, only its
family's template changes. The suite adds ``title`` and ``[run]`` (``duration``, ``interval``);
the level and the seed are not part of the scenario text (the store records them per run), so a
cell's scenario hash is the same on both levels and every seed.

Running a suite (:func:`run`) plans every (cell, level, seed) run, skips those already in the
store (resume), runs the rest on an executor storing each as it finishes, then compares the
levels per cell with :mod:`zvmlab.lab.stats` and summarizes the suite.
"""

from __future__ import annotations

import ast
import difflib
import fnmatch
import itertools
import math
import operator
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .. import scenario
from ..errors import InputError
from . import stats

ROOT = Path(__file__).resolve().parents[3]
SUITES = ROOT / "scenarios" / "suites"

_TOP = {"title", "description", "duration", "interval", "seed", "threshold", "alpha", "confidence", "id", "matrix",
        "values", "family"}
_FAMILY = {"intended", "today", "template"}
_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)


@dataclass
class Family:
    name: str
    intended: str
    today: str
    template: str


@dataclass
class Cell:
    id: str
    family: str
    axes: dict[str, Any]
    text: str
    name: str  # for messages


@dataclass
class Suite:
    name: str
    path: Path
    title: str
    duration: str
    interval: str
    seed: int
    threshold: float
    alpha: float
    confidence: float
    families: dict[str, Family]
    cells: list[Cell] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# Expressions in templates
# --------------------------------------------------------------------------------------------

def _pow(a: Any, b: Any) -> Any:
    """``a ** b``, refused when the result would be beyond any count or size (9**9**9 took for ever)."""
    if (isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a) > 1 and b > 0
            and b * math.log2(abs(a)) > 1024):
        raise ValueError("a power beyond 2**1024")
    return operator.pow(a, b)


def _mul(a: Any, b: Any) -> Any:
    """``a * b``, refused for a text repeated more than 10000 times (gigabytes of memory)."""
    if (isinstance(a, str) and isinstance(b, int) and b > 10_000) or (isinstance(b, str) and isinstance(a, int)
                                                                       and a > 10_000):
        raise ValueError("a text repeated more than 10000 times")
    return operator.mul(a, b)


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: _mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: _pow}
_FUNCS = {"min": min, "max": max, "round": round, "int": int, "ceil": math.ceil}


def evaluate(expr: str, names: dict[str, Any]) -> Any:
    """Evaluate a template expression: numbers, strings, names, arithmetic and a few functions."""

    def ev(n: ast.AST) -> Any:
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float, str)):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in names:
                close = difflib.get_close_matches(n.id, list(names), n=1)
                raise KeyError(f"unknown name {n.id!r}" + (f"; did you mean {close[0]!r}?" if close else ""))
            return names[n.id]
        if isinstance(n, ast.BinOp) and type(n.op) in _BINOPS:
            return _BINOPS[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _FUNCS and not n.keywords):
            return _FUNCS[n.func.id](*[ev(a) for a in n.args])
        raise ValueError(f"{ast.dump(n)[:40]}... is not allowed (numbers, names, + - * / // % **, "
                         f"{', '.join(_FUNCS)})")

    return ev(ast.parse(expr.strip(), mode="eval"))


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return str(v)


def render(template: str, names: dict[str, Any], where: str, file: str) -> str:
    def sub(m: re.Match) -> str:
        try:
            return _fmt(evaluate(m.group(1), names))
        except (KeyError, ValueError, TypeError, SyntaxError, ArithmeticError, RecursionError) as e:
            msg = e.args[0] if isinstance(e, KeyError) else str(e)
            raise InputError(f"cannot fill in {{{{{m.group(1)}}}}}: {msg}", file=file, field=where,
                             fix=f"names here: {', '.join(sorted(names))}") from None

    return _PLACEHOLDER.sub(sub, template)


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------

def known_suites() -> list[str]:
    return sorted(p.stem for p in SUITES.glob("*.toml"))


def resolve(name_or_path: str) -> Path:
    p = Path(name_or_path)
    if p.suffix == ".toml" or "/" in name_or_path:
        if not p.is_file():
            raise InputError("no such suite file", file=str(p), fix=f"known suites: {', '.join(known_suites())}")
        return p
    q = SUITES / f"{name_or_path}.toml"
    if not q.is_file():
        close = difflib.get_close_matches(name_or_path, known_suites(), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InputError(f"unknown suite {name_or_path!r}", field="SUITE",
                         fix=f"{hint}known suites: {', '.join(known_suites())} (in scenarios/suites/), or give a path")
    return q


def load(name_or_path: str, duration: str | None = None) -> Suite:
    """Read a suite file and expand its cells (each cell's scenario is validated)."""
    path = resolve(name_or_path)
    file = str(path)
    doc = _read_suite(path, file)
    dur = duration or doc.get("duration", "10s")
    scenario.parse_duration(dur, where="--duration" if duration else "duration", file=None if duration else file)
    interval = doc.get("interval", dur)
    scenario.parse_duration(interval, where="interval", file=file)
    seed = doc.get("seed", 1)
    # --repeat runs up to 1,000 seeds from it, each one a scenario file's seed.
    top = scenario.MAX_SEED - 999
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= top:
        raise InputError(f"{seed!r} is not a seed", file=file, field="seed", fix=f"a whole number 0 .. {top}")
    families = _families(doc.get("family", {}), file)
    values_in = doc.get("values", {})
    if not isinstance(values_in, dict):
        raise InputError("must be a table", file=file, field="values", fix="write [values.AXIS.VALUE] tables")

    suite = Suite(path.stem, path, str(doc.get("title", path.stem)), dur, interval, seed,
                  _num(doc, "threshold", 0.02, 0.0, 1.0, file), _num(doc, "alpha", 0.05, 1e-9, 0.5, file),
                  _num(doc, "confidence", 0.95, 0.5, 0.9999, file), families)
    matrices = doc.get("matrix", [])
    if not isinstance(matrices, list) or not matrices:
        raise InputError("no matrix", file=file, field="matrix", fix="add [[matrix]] tables of axes, e.g. family = [...]")
    id_template = doc.get("id")
    seen: dict[str, int] = {}
    loaded_cache: dict[str, Any] = {}
    for mi, m in enumerate(matrices):
        axes, exclude = _matrix_axes(m, f"matrix[{mi}]", families, file)
        names_ = list(axes)
        for combo in itertools.product(*(axes[k] for k in names_)):
            cell = dict(zip(names_, combo))
            if any(all(cell.get(k) == v for k, v in e.items()) for e in exclude):
                continue
            names = _cell_names(cell, values_in, file)
            suite.cells.append(_cell(suite, cell, names, id_template, mi, seen, loaded_cache, file))
    return suite


def _read_suite(path: Path, file: str) -> dict:
    """The suite file's TOML, with only the keys a suite has at its top."""
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read: {e}", file=file) from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"not valid TOML: {e}", file=file) from None
    for k in doc:
        if k not in _TOP:
            close = difflib.get_close_matches(k, list(_TOP), n=1)
            raise InputError(f"unknown key {k!r}", file=file, field=k,
                             fix=(f"did you mean {close[0]!r}? " if close else "") + f"accepted: {', '.join(sorted(_TOP))}")
    return doc


def _num(doc: dict, k: str, default: float, lo: float, hi: float, file: str) -> float:
    """The number the suite gives as ``k`` (else ``default``), in [lo, hi]."""
    v = doc.get(k, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
        raise InputError(f"{v!r} is out of range", file=file, field=k, fix=f"a number in [{lo:g}, {hi:g}]")
    return float(v)


def _families(fams_in: Any, file: str) -> dict[str, Family]:
    """The [family.NAME] tables: what each cell stands for, what runs today, and its template."""
    if not isinstance(fams_in, dict) or not fams_in:
        raise InputError("no families", file=file, field="family",
                         fix='add [family.NAME] tables with intended, today and template')
    families: dict[str, Family] = {}
    for fname, f in fams_in.items():
        where = f"family.{fname}"
        if not isinstance(f, dict):
            raise InputError("must be a table", file=file, field=where, fix="write [family.NAME]")
        for k in f:
            if k not in _FAMILY:
                raise InputError(f"unknown key {k!r}", file=file, field=f"{where}.{k}", fix=f"accepted: {', '.join(sorted(_FAMILY))}")
        for k in _FAMILY:
            if not isinstance(f.get(k), str) or not f[k].strip():
                raise InputError(f"missing {k}" if k not in f else "must be text", file=file, field=f"{where}.{k}",
                                 fix="intended: the workload the cell stands for; today: what runs now; "
                                     "template: the scenario text with {{ placeholders }}")
        families[fname] = Family(fname, f["intended"].strip(), f["today"].strip(), f["template"])
    return families


def _matrix_axes(m: Any, where: str, families: dict[str, Family], file: str) -> tuple[dict[str, list], list[dict]]:
    """A [[matrix]] table's axes (a family axis of known families among them) and its exclusions."""
    if not isinstance(m, dict) or "family" not in m:
        raise InputError("needs a family axis", file=file, field=where, fix='e.g. family = ["apache-cpu"]')
    exclude = m.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(e, dict) for e in exclude):
        raise InputError("must be a list of tables", file=file, field=f"{where}.exclude",
                         fix='e.g. exclude = [{ smt = "smt2", cores = 64 }]')
    axes = {k: v for k, v in m.items() if k != "exclude"}
    for k, v in axes.items():
        if not isinstance(v, list) or not v or not all(isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in v):
            raise InputError("must be a non-empty list of values", file=file, field=f"{where}.{k}",
                             fix=f'e.g. {k} = ["a", "b"] or {k} = [1, 2]')
    for e in exclude:
        for k in e:
            if k not in axes:
                raise InputError(f"exclude names {k!r}, which is not an axis", file=file, field=f"{where}.exclude",
                                 fix=f"axes: {', '.join(axes)}")
    for f in axes["family"]:
        if f not in families:
            close = difflib.get_close_matches(str(f), list(families), n=1)
            raise InputError(f"unknown family {f!r}", file=file, field=f"{where}.family",
                             fix=(f"did you mean {close[0]!r}? " if close else "") + f"families: {', '.join(families)}")
    return axes, exclude


def _cell_names(cell: dict[str, Any], values_in: dict, file: str) -> dict[str, Any]:
    """The names a cell's templates see: its axes, and the [values.AXIS.VALUE] tables of their values."""
    names: dict[str, Any] = dict(cell)
    for axis, val in cell.items():
        extra = values_in.get(axis, {}).get(str(val), {})
        if not isinstance(extra, dict):
            raise InputError("must be a table", file=file, field=f"values.{axis}.{val}",
                             fix=f"write [values.{axis}.{val}] with name = value lines")
        names.update(extra)
    return names


def _cell(suite: Suite, cell: dict[str, Any], names: dict[str, Any], id_template: Any, mi: int,
          seen: dict[str, int], loaded_cache: dict[str, Any], file: str) -> Cell:
    """One cell of matrix[mi]: its id (unique among ``seen``) and its scenario text, validated once."""
    where = f"matrix[{mi}]"
    cid = (render(id_template, names, "id", file) if isinstance(id_template, str)
           else "-".join(_fmt(v) for v in cell.values()))
    if cid in seen:
        raise InputError(f"cell {cid!r} appears twice (matrix[{seen[cid]}] and {where})", file=file,
                         field=where, fix="cells must be unique: check the matrices and the id template")
    seen[cid] = mi
    fam = suite.families[cell["family"]]
    body = render(fam.template, names, f"family.{fam.name}.template (cell {cid})", file)
    title = f"{suite.name}/{cid}: {fam.intended} (today: {fam.today})"
    text = (f"# suite {suite.name}, cell {cid}\n"
            f"title = {_toml_str(title)}\n\n"
            f"{body.strip()}\n\n"
            f"[run]\nduration = {_toml_str(suite.duration)}\ninterval = {_toml_str(suite.interval)}\n")
    cname = f"{file} (cell {cid}, from family.{fam.name}.template)"
    if text not in loaded_cache:
        loaded_cache[text] = scenario.loads(text, cname)
    return Cell(cid, fam.name, cell, text, cname)


def _toml_str(s: str) -> str:
    import json

    return json.dumps(s, ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Planning and running
# --------------------------------------------------------------------------------------------

def select(suite: Suite, only: str | None) -> list[Cell]:
    if not only:
        return suite.cells
    pats = [p.strip() for p in only.split(",") if p.strip()]
    cells = [c for c in suite.cells if any(fnmatch.fnmatchcase(c.id, p) for p in pats)]
    if not cells:
        raise InputError(f"no cell of suite {suite.name} matches {only!r}", field="--only",
                         fix=f"cell ids look like {suite.cells[0].id}; use * wildcards, comma-separated")
    return cells


def check_level(level: str, where: str) -> str:
    """The level's canonical name, or an InputError naming the option and the known levels."""
    return scenario._check_level(level, file=None, line=None, where=where)


def plan(suite: Suite, cells: list[Cell], base: str, compare: str, repeat: int) -> list:
    """One RunSpec per (cell, level, seed), each labelled with its suite and cell."""
    from .executor import make_spec

    base, compare = check_level(base, "--base"), check_level(compare, "--compare")
    if repeat < 1:
        raise InputError(f"{repeat} is not a number of runs", field="--repeat", fix="use 1 or more (2+ for intervals)")

    specs = []
    loaded: dict[str, Any] = {}
    for c in cells:
        if c.text not in loaded:
            loaded[c.text] = scenario.loads(c.text, c.name)
        attrs = {"family": c.family, **{k: v for k, v in c.axes.items()}}
        for lv in dict.fromkeys((base, compare)):  # once when base == compare (an A/A comparison)
            for k in range(repeat):
                specs.append(make_spec(c.text, c.name, lv, suite.seed + k,
                                       labels=((f"suite:{suite.name}", c.id, attrs),), loaded=loaded[c.text]))
    return specs


FLUSH_S = 0.5  # finished runs are written to the store at least this often (one transaction per batch)


def execute(specs: list, executor, store, progress: Callable[[int, int], None] | None = None) -> tuple[int, int]:
    """Run the specs not in the store yet and store them as they finish. Returns (run, reused).

    Finished runs are written in batches, one transaction each, at least every ``FLUSH_S``
    seconds, and always when the loop ends: on success, on an error and on Ctrl-C. Only a hard
    kill (SIGKILL, power loss) can lose finished runs, those of the last half second.
    """
    import time

    from .executor import versions

    uniq: dict[str, Any] = {}
    labels: dict[str, list] = {}
    for s in specs:
        uniq.setdefault(s.key, s)
        labels.setdefault(s.key, []).extend(s.labels)
    have = store.has(uniq)
    store.add_labels((c, i, k, a) for k in have for c, i, a in labels[k])
    todo = [s for k, s in uniq.items() if k not in have]
    total, done = len(uniq), len(have)
    if progress:
        progress(done, total)
    mine = versions()
    pending: list[dict] = []
    last = time.monotonic()
    ok = False
    try:
        for spec, res in executor.run(todo):
            if res["versions"] != mine:
                raise InputError(f"a run came back from zvmlab {res['versions']}, this is {mine}", field="--executor",
                                 fix="run the workers from the same zvmlab installation")
            pending.append(dict(key=spec.key, scenario_text=spec.text, scenario_hash=spec.scenario_hash,
                                title=spec.title, level=spec.level, switches=spec.switches, seed=spec.seed,
                                zvmlab_version=mine["zvmlab"], engine_version=mine["engine"], summary=res["summary"],
                                wall_s=res["wall_s"], labels=labels[spec.key]))
            done += 1
            if time.monotonic() - last >= FLUSH_S:
                store.put_many(pending)
                pending.clear()
                last = time.monotonic()
            if progress:
                progress(done, total)
        ok = True
    finally:
        if pending:
            try:
                store.put_many(pending)
            except Exception:
                if ok:
                    raise  # nothing else went wrong: this is the error to report
    return len(todo), len(have)


def analyze(suite: Suite, cells: list[Cell], specs: list, metrics: dict[str, dict], base: str, compare: str,
            repeat: int) -> dict:
    """Per-cell ETRR/ITRR with intervals and tests, and the suite summary (deterministic JSON)."""
    by_cell: dict[str, dict[str, list[dict]]] = {}
    for s in specs:
        for _, item, _ in s.labels:
            by_cell.setdefault(item, {}).setdefault(s.level, []).append(metrics[s.key])
    rows = []
    for c in cells:
        runs = by_cell[c.id]
        b, k = runs.get(base, []), runs.get(compare, [])
        if base == compare:  # an A/A comparison: the same runs on both sides
            b = k = runs[base]
        row: dict[str, Any] = {"id": c.id, "family": c.family, "intended": suite.families[c.family].intended,
                               "axes": c.axes}
        for m, ratio_name in (("etr", "etrr"), ("itr", "itrr")):
            bv = [r[m] for r in sorted(b, key=lambda r: r["seed"])]
            kv = [r[m] for r in sorted(k, key=lambda r: r["seed"])]
            row[f"{m}_base"] = sum(bv) / len(bv) if bv else None
            row[f"{m}_compare"] = sum(kv) / len(kv) if kv else None
            r = stats.ratio(bv, kv, confidence=suite.confidence)
            row[ratio_name] = r.to_json() | {"verdict": stats.verdict(r.ratio, suite.threshold)}
        rows.append(row)
    summary = {}
    for name in ("etrr", "itrr"):
        ps = [r[name]["p"] for r in rows]
        for r, bh, holm in zip(rows, stats.bh_adjust(ps), stats.holm_adjust(ps)):
            r[name]["p_bh"] = bh
            r[name]["p_holm"] = holm
        summary[name] = stats.describe([r[name]["ratio"] for r in rows], ps, threshold=suite.threshold, alpha=suite.alpha)
    return {
        "suite": suite.name, "title": suite.title, "base": base, "compare": compare, "repeat": repeat,
        "seeds": [suite.seed + k for k in range(repeat)], "duration": suite.duration, "cells": len(rows),
        "confidence": suite.confidence, "method": stats.METHOD, "scenarios": rows, "summary": summary,
    }


def run(suite: Suite, base: str, compare: str, repeat: int, executor, store, only: str | None = None,
        progress: Callable[[int, int], None] | None = None) -> tuple[dict, tuple[int, int]]:
    """Plan, run what the store lacks, analyze. Returns (result, (runs made, runs reused))."""
    base, compare = check_level(base, "--base"), check_level(compare, "--compare")
    cells = select(suite, only)
    specs = plan(suite, cells, base, compare, repeat)
    made = execute(specs, executor, store, progress)
    metrics = store.metrics(s.key for s in specs)
    missing = [s for s in specs if s.key not in metrics]
    if missing:  # pragma: no cover - execute stores every run or raises
        raise RuntimeError(f"{len(missing)} runs missing from the store after the suite")
    return analyze(suite, cells, specs, metrics, base, compare, repeat), made
