"""zvmlab report: Performance Toolkit-style reports from monitor data."""

from __future__ import annotations

import sys

import click

from ..errors import InputError
from ..output import plain_lines, write_file
from ..perfkit import REPORTS, find, load, render
from ..perfkit.reports import Spec

FORMATS = ("text", "html", "csv", "json")


def _specs(fcx: str | None) -> list[Spec]:
    if not fcx:
        return list(REPORTS.values())
    out = []
    for part in fcx.split(","):
        spec = find(part)
        if spec not in out:
            out.append(spec)
    return out


def _warn(src) -> None:
    d = src.data
    if d.n_problems:
        first = d.problems[0]
        click.echo(f"zvmlab: warning: {src.path}: {d.n_problems} problem(s) in the monitor data, reported "
                   f"from what could be read; first: {first}", err=True)
    if d.skipped:
        n = sum(d.skipped.values())
        click.echo(f"zvmlab: note: {src.path}: {n} record(s) without a zvmlab layout skipped "
                   f"(see --format json, monitor_data.skipped)", err=True)


@click.command("report")
@click.argument("path", type=click.Path())
@click.option("--fcx", "fcx", metavar="ID[,ID...]",
              help="Report(s) by Perfkit id or name, e.g. FCX144, 144 or PROCLOG (default: all). "
                   + "Known: " + ", ".join(f"{s.fcx} {s.name}" for s in REPORTS.values()) + ".")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text (Perfkit layout), html (with per-interval plots), csv (one report), json.")
@click.option("--vs", "other", type=click.Path(), metavar="OTHER",
              help="A second run directory or monitor file: each cell for PATH (A), OTHER (B) and B-A.")
@click.option("--out", "out", type=click.Path(dir_okay=False), help="Write to this file instead of standard output.")
def report(path: str, fcx: str | None, fmt: str, other: str | None, out: str | None) -> None:
    """Perfkit-style reports (processors, users, locks, devices, paging: see --fcx) from PATH:
    a run directory written by `zvmlab run --out` or a monitor file in MONWRITE format."""
    specs = _specs(fcx)
    if fmt == "csv" and len(specs) != 1:
        raise InputError("CSV holds one report", field="--fcx",
                         fix="choose one with --fcx, e.g. --fcx FCX144 (or use --format json for all)")
    a = load(path)
    _warn(a)
    reports = [s.build(a.m) for s in specs]
    dashed = None
    title = f"zvmlab performance reports: {a.label}"
    if other is not None:
        b = load(other)
        _warn(b)
        la, lb = a.label, b.label
        if la == lb:
            la, lb = f"A:{la}", f"B:{lb}"
        reports = [render.compare(ra, s.build(b.m), la, lb) for ra, s in zip(reports, specs)]
        dashed = f"({lb})"
        title = f"zvmlab performance reports: {la} vs {lb}"
    if fmt == "text":
        body = plain_lines(render.text(reports))  # text from a monitor file never reaches a terminal as codes
    elif fmt == "csv":
        body = render.csv_text(reports[0])
    elif fmt == "json":
        body = render.json_text(reports, describe=a.data.describe())
    else:
        body = render.html_text(reports, title, describe=a.data.describe(), dashed_suffix=dashed)
    if out:
        write_file(out, body)
    else:
        sys.stdout.write(body)
