"""Shell completion values: CP levels, report ids, scenario files, workload names.

Click completes the commands and options itself (``_ZVMLAB_COMPLETE=bash_source zvmlab``, README
"Shell completion"); these functions complete the values: ``--level``/``--base``/``--compare``
with the engine's levels, ``--fcx`` with report ids (after a comma too), scenario FILE arguments
with ``.toml`` files and directories. ``attach`` wires them to every command by parameter name.
"""

from __future__ import annotations

import os
from pathlib import Path

import click
from click.shell_completion import CompletionItem


def levels(ctx, param, incomplete: str) -> list[CompletionItem]:
    from . import engine

    return [CompletionItem(lv["name"]) for lv in engine.levels() if lv["name"].startswith(incomplete)]


def fcx(ctx, param, incomplete: str) -> list[CompletionItem]:
    from .perfkit import REPORTS

    head, _, last = incomplete.rpartition(",")
    prefix = head + "," if head else ""
    ids = [s.fcx for s in REPORTS.values()] + [s.name for s in REPORTS.values()]
    return [CompletionItem(prefix + i) for i in ids if i.upper().startswith(last.upper())]


def scenarios(ctx, param, incomplete: str) -> list[CompletionItem]:
    """``.toml`` files and directories starting with ``incomplete``."""
    d, _, stem = incomplete.rpartition(os.sep)
    base = Path(d) if d else Path(".")
    try:
        entries = sorted(base.iterdir())
    except OSError:
        return []
    out = []
    for e in entries:
        if not e.name.startswith(stem) or (e.name.startswith(".") and not stem.startswith(".")):
            continue
        text = os.path.join(d, e.name) if d else e.name
        if e.is_dir():
            out.append(CompletionItem(text + os.sep, type="plain"))
        elif e.suffix == ".toml":
            out.append(CompletionItem(text))
    return out


def workloads(ctx, param, incomplete: str) -> list[CompletionItem]:
    from .lab import workloads as wl

    return [CompletionItem(w.name) for w in wl.load() if w.name.startswith(incomplete)]


_BY_NAME = {"level": levels, "levels": levels, "base_level": levels, "compare_level": levels, "fcx": fcx}
# FILE arguments that are scenarios (report's PATH is a run directory or a monitor file: the shell's own)
_SCENARIO_ARGS = {"file", "files"}


def attach(group: click.Group) -> None:
    """Give every command's level, report-id and scenario parameters their completion."""
    for cmd in _commands(group):
        for p in cmd.params:
            fn = _BY_NAME.get(p.name or "")
            if fn is None and isinstance(p, click.Argument) and p.name in _SCENARIO_ARGS:
                fn = scenarios
            if fn is None and cmd.name == "workloads" and p.name == "name":
                fn = workloads
            if fn is not None and getattr(p, "_custom_shell_complete", None) is None:
                p._custom_shell_complete = fn  # click's hook for a parameter's shell_complete=


def _commands(group: click.Group):
    for c in group.commands.values():
        yield c
        if isinstance(c, click.Group):
            yield from _commands(c)
