"""zvmlab levels: the CP levels and their mechanism switches."""

from __future__ import annotations

import click
from rich.table import Table

from .. import engine
from ..output import console, print_json


@click.command("levels")
@click.option("--matrix", is_flag=True, help="One table: every switch (rows) at every level (columns).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def levels(matrix: bool, as_json: bool) -> None:
    """List CP levels: each is a set of mechanism switches, never a table of outcomes.

    By default each level is shown with the switches that differ from the level before it (the
    first level with all of its switches), which is what a release changed; --matrix shows
    every switch at every level.
    """
    lv = engine.levels()
    if as_json:
        print_json(lv)
        return
    switches = sorted({k for level in lv for k in level["switches"]})
    if matrix:
        t = Table(title="Mechanism switches by CP level", title_justify="left")
        t.add_column("Switch", no_wrap=True, min_width=15)
        for level in lv:
            t.add_column(level["name"], overflow="fold")
        for s in switches:
            t.add_row(s, *[str(level["switches"].get(s, "")) for level in lv])
        console.print(t)
        return
    t = Table(title="CP levels (switches that differ from the level above; `zvmlab levels --matrix` for all)",
              title_justify="left")
    t.add_column("Level", no_wrap=True)
    t.add_column("Title", overflow="fold")
    t.add_column("Switches", overflow="fold")
    prev: dict | None = None
    for level in lv:
        sw = level["switches"]
        changed = [s for s in switches if prev is None or sw.get(s) != prev.get(s)]
        t.add_row(level["name"], level["title"], ", ".join(f"{s}={sw.get(s, '')}" for s in changed))
        prev = sw
    console.print(t)
