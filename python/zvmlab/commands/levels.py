"""zvmlab levels: the CP levels and their mechanism switches."""

from __future__ import annotations

import click
from rich.table import Table

from .. import engine
from ..output import console, print_json


@click.command("levels")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def levels(as_json: bool) -> None:
    """List CP levels: each is a set of mechanism switches, never a table of outcomes."""
    lv = engine.levels()
    if as_json:
        print_json(lv)
        return
    switches = sorted({k for level in lv for k in level["switches"]})
    t = Table(title="CP levels and mechanism switches", title_justify="left")
    t.add_column("Level")
    t.add_column("Title")
    for s in switches:
        t.add_column(s)
    for level in lv:
        t.add_row(level["name"], level["title"], *[str(level["switches"].get(s, "")) for s in switches])
    console.print(t)
