"""Output helpers: consoles, progress bars, JSON, and result directories written atomically."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .errors import InputError

def _width(stream) -> int | None:
    """Terminals report their width; for files and pipes use $COLUMNS or 160 (tables stay whole)."""
    try:
        if stream.isatty():
            return None
    except (AttributeError, ValueError):
        pass
    try:
        return max(80, int(os.environ.get("COLUMNS", "160")))
    except ValueError:
        return 160


console = Console(highlight=False, width=_width(sys.stdout))
err_console = Console(stderr=True, highlight=False, width=_width(sys.stderr))


def dumps(obj) -> str:
    """Canonical JSON: sorted keys, so the same result is the same bytes."""
    return json.dumps(obj, sort_keys=True, indent=2, allow_nan=False) + "\n"


def print_json(obj) -> None:
    sys.stdout.write(dumps(obj))


@contextlib.contextmanager
def progress(label: str, enabled: bool = True) -> Iterator[Callable[[float, float], None]]:
    """A progress bar on stderr (only when stderr is a terminal); yields update(done, total).

    With ZVMLAB_PROGRESS=lines (logs, CI, scripts that wait for progress), a plain line
    ``label: done/total`` is printed on stderr at each change instead.
    """
    if enabled and os.environ.get("ZVMLAB_PROGRESS") == "lines":
        last: list = [None]

        def line(done: float, total: float) -> None:
            if (done, total) != last[0]:
                last[0] = (done, total)
                print(f"{label}: {done:g}/{total:g}", file=sys.stderr, flush=True)

        yield line
        return
    if not enabled or not err_console.is_terminal:
        yield lambda done, total: None
        return
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.percentage:>5.1f}%"),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=err_console, transient=True) as p:
        task = p.add_task(label, total=1.0)
        yield lambda done, total: p.update(task, completed=done / total if total else 1.0)


@contextlib.contextmanager
def result_dir(path: str | Path, force: bool = False) -> Iterator[Path]:
    """Write a result directory atomically: into a temporary sibling, renamed into place at the end.

    On any error the temporary directory is removed, so no half-written result is left behind.
    """
    dest = Path(path)
    if dest.exists() and not dest.is_dir():
        raise InputError("exists and is not a directory", file=str(dest), fix="choose another --out path")
    if dest.exists() and any(dest.iterdir()) and not force:
        raise InputError("already exists and is not empty", file=str(dest),
                         fix="choose another --out directory or add --force to replace it")
    parent = dest.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=parent))
    except OSError as e:
        raise InputError(f"cannot create the output directory: {e.strerror}", file=str(dest)) from None
    try:
        yield tmp
        if dest.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old.", dir=parent))
            os.rename(dest, old / "x")
            os.rename(tmp, dest)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
