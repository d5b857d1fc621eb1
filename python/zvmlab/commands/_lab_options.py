"""Options every lab command that runs many simulations shares: where the runs execute and the
results store that keeps finished ones (so an interrupted sweep or suite resumes)."""

from __future__ import annotations

import math

from typing import Callable, TypeVar

import click

from .. import contract
from ..errors import InputError

F = TypeVar("F", bound=Callable)

#: --seed of every command: the seeds a scenario file holds (0 .. the contract's "seed" limit).
SEED = click.IntRange(min=0, max=contract.limit("seed")[1])


def param_option(f: F) -> F:
    """--param NAME=VALUE (repeatable): a model parameter overridden for every run of the command."""
    return click.option("--param", "param_specs", multiple=True, metavar="NAME=VALUE",
                        help="Override a model parameter (repeatable), e.g. --param cache.warmth=1 to run with the "
                             "cache warmth model on; `zvmlab params` lists them with their ranges.")(f)


def _name_number(spec: str) -> tuple[str, float | None]:
    """NAME=NUMBER as (name, number); the number None when it is missing or not one."""
    name, eq, text = spec.partition("=")
    try:
        return name.strip(), float(text) if eq else None
    except ValueError:
        return name.strip(), None


def param_overrides(specs: tuple) -> dict[str, float]:
    """--param NAME=VALUE overrides, checked against the parameter table (name and range)."""
    from .. import engine

    table = {p["name"]: p for p in engine.params()}
    out = {}
    for spec in specs:
        name, value = _name_number(spec)
        if name not in table:
            raise InputError(f"{spec!r} is not NAME=VALUE with a known parameter", field="--param",
                             fix="e.g. --param cache.warmth=1 (`zvmlab params` lists them)")
        if value is None or not math.isfinite(value):
            t = table[name]
            raise InputError(f"{spec!r} is not NAME=VALUE: {name} is known, its value must be a number", field="--param",
                             fix=f"a value in [{t['min']}, {t['max']}] {t['unit']}")
        t = table[name]
        if not float(t["min"]) <= value <= float(t["max"]):
            raise InputError(f"{name} = {value} is outside [{t['min']}, {t['max']}] {t['unit']}", field="--param",
                             fix="use a value within the parameter's range")
        out[name] = value
    return out


def param_scalings(specs: tuple) -> dict[str, float]:
    """--scale NAME=FACTOR: a parameter times a factor, checked against the table (name, a finite
    factor above 0, and the table's value times it inside the parameter's range)."""
    from .. import engine

    table = {p["name"]: p for p in engine.params()}
    out = {}
    for spec in specs:
        name, factor = _name_number(spec)
        if name not in table or factor is None or not math.isfinite(factor) or factor <= 0:
            raise InputError(f"{spec!r} is not NAME=FACTOR with a known parameter and a factor above 0",
                             field="--scale", fix="e.g. --scale path.vnet_msg=0.75 (`zvmlab params` lists them)")
        t = table[name]
        if name in out:
            raise InputError(f"{name} is scaled twice", field="--scale", fix="give each parameter one factor")
        if str(t["unit"]).startswith("switch"):
            raise InputError(f"{name} is a switch ({t['unit']}), not a quantity to scale", field="--scale",
                             fix=f"set it with --param {name}=VALUE")
        v = float(t["default"]) * factor
        if not float(t["min"]) <= v <= float(t["max"]):
            raise InputError(f"{name} x {factor:g} = {v:g} is outside [{t['min']}, {t['max']}] {t['unit']}",
                             field="--scale", fix="use a factor that keeps the parameter within its range")
        out[name] = factor
    return out


def executor_options(f: F) -> F:
    """--executor (local or dask://HOST:PORT), --jobs/-j and --store, as `suite` and `sweep` take them."""
    for opt in reversed((
        click.option("--executor", "executor_spec", default="local", show_default=True,
                     help="Where runs execute: local (a process pool) or dask://HOST:PORT (a Dask scheduler)."),
        click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                     help="Processes of the local executor (default: the number of CPUs)."),
        click.option("--store", "store_path", type=click.Path(dir_okay=False), default="runs/store.duckdb",
                     show_default=True, help="The results store (DuckDB); finished runs in it are reused."),
    )):
        f = opt(f)
    return f
