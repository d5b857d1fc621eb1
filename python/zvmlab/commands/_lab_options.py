"""Options every lab command that runs many simulations shares: where the runs execute and the
results store that keeps finished ones (so an interrupted sweep or suite resumes)."""

from __future__ import annotations

from typing import Callable, TypeVar

import click

F = TypeVar("F", bound=Callable)


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
