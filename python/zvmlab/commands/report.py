"""zvmlab report: Performance Toolkit-style reports from monitor data."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ..errors import InputError
from ..output import plain_lines, write_file, write_stdout
from ..perfkit import REPORTS, find, load, render, response, select
from ..perfkit.reports import Spec

FORMATS = ("text", "html", "csv", "json", "parquet")


def has_data(r) -> bool:
    """A report the data fills: a table row of data or a plotted value."""
    from ..perfkit.model import DATA

    if any(row["_kind"] == DATA for t in r.tables for row in t.rows):
        return True
    return any(v is not None for p in r.plots for vals in p.series.values() for v in vals)


def _write_parquet(d: Path, reports) -> None:
    """Each report table as a tidy Parquet file (summary rows marked in the `row` column)."""
    from ..tables import report_frames

    if d.exists() and not d.is_dir():
        raise InputError("is a file, not a directory", file=str(d), fix="name a directory for --format parquet")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create the directory: {e.strerror}", file=str(d)) from None
    import pyarrow.parquet as pq

    for r in reports:
        for f in report_frames(r):
            dest = d / f"{f.name}.parquet"
            tmp = d / f".{f.name}.parquet.tmp"
            try:
                pq.write_table(f.to_arrow(), tmp)
                os.replace(tmp, dest)
            except OSError as e:
                tmp.unlink(missing_ok=True)
                raise InputError(f"cannot write: {e.strerror}", file=str(dest)) from None
            except BaseException:  # Ctrl-C: no half-written file left behind
                tmp.unlink(missing_ok=True)
                raise


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


def _check(src, strict: bool) -> None:
    if src.checks and strict:
        more = f" (and {len(src.checks) - 1} more)" if len(src.checks) > 1 else ""
        raise InputError(f"figures outside physical bounds: {src.checks[0]}{more}", file=src.path,
                         fix="drop --strict to report the data with these problems in the notes")


def _noted(r, src):
    r.notes.extend(f"Data check: {c}." for c in src.checks)
    return r


@click.command("report")
@click.argument("path", type=click.Path())
@click.option("--fcx", "fcx", metavar="ID[,ID...]",
              help="Report(s) by Perfkit id or name, e.g. FCX144, 144 or PROCLOG (default: all). "
                   + "Known: " + ", ".join(f"{s.fcx} {s.name}" for s in REPORTS.values()) + ".")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text (Perfkit layout), html (with per-interval plots), csv (one report), json, parquet (every "
                   "table of the reports as FCXnnn-NAME-TABLE.parquet in the --out directory).")
@click.option("--vs", "other", type=click.Path(), metavar="OTHER",
              help="A second run directory or monitor file: each cell for PATH (A), OTHER (B) and B-A.")
@click.option("--out", "out", type=click.Path(), help="Write to this file instead of standard output ('-': standard "
              "output; a directory for --format parquet).")
@click.option("--strict", is_flag=True,
              help="Fail (exit 2) when the data has figures outside physical bounds (a processor above 100 % "
                   "busy, a user above its virtual CPUs, time running backwards, two systems or levels in one "
                   "file) instead of reporting them in the notes.")
@click.option("--from", "frm", metavar="TIME",
              help="First interval end to report after: a clock time HH:MM[:SS] or seconds since the start "
                   "of the data (e.g. 120s), as Perfkit's batch reports select a period.")
@click.option("--to", "to", metavar="TIME", help="Last interval end to report (clock time or seconds).")
def report(path: str, fcx: str | None, fmt: str, other: str | None, out: str | None, strict: bool = False,
           frm: str | None = None, to: str | None = None) -> None:
    """Perfkit-style reports (processors, users, locks, devices, paging: see --fcx) from PATH:
    a run directory written by `zvmlab run --out` or a monitor file in MONWRITE format."""
    specs = _specs(fcx)
    if fmt == "csv" and len(specs) != 1:
        raise InputError("CSV holds one report", field="--fcx",
                         fix="choose one with --fcx, e.g. --fcx FCX144 (or use --format json for all)")
    if out == "-" and fmt != "parquet":
        out = None  # '-' is standard output, as replicate --json - is
    if fmt == "parquet" and (not out or out == "-"):
        raise InputError("Parquet is written to a directory", field="--out",
                         fix="name one: --format parquet --out DIR")
    a = select(load(path), frm, to)
    _warn(a)
    _check(a, strict)
    reports = [_noted(s.build(a.m), a) for s in specs]
    response.augment(reports, a.summary)
    dashed = None
    b, la, lb = None, a.label, ""
    title = f"zvmlab performance reports: {a.label}"
    if other is not None:
        b = select(load(other), frm, to)
        _warn(b)
        _check(b, strict)
        la, lb = a.label, b.label
        if la == lb:
            la, lb = f"A:{la}", f"B:{lb}"
        rbs = [s.build(b.m) for s in specs]
        response.augment(rbs, b.summary)
        reports = [render.compare(ra, rb, la, lb) for ra, rb in zip(reports, rbs)]
        dashed = f"({lb})"
        title = f"zvmlab performance reports: {la} vs {lb}"
    if fmt == "parquet":
        _write_parquet(Path(out), reports)
        return
    if not fcx and fmt in ("text", "html"):
        # Without --fcx: only the reports the data fills (a run without paging has no AUXLOG).
        empty = [r for r in reports if not has_data(r)]
        if len(empty) < len(reports):
            reports = [r for r in reports if has_data(r)]
        if empty:
            click.echo("zvmlab: note: no data for " + ", ".join(f"{r.fcx} {r.name}" for r in empty)
                       + " (not shown; name one with --fcx to see it anyway)", err=True)
    if fmt == "text":
        body = plain_lines(render.text(reports))  # text from a monitor file never reaches a terminal as codes
        if other is not None:
            body += _why(a, b, la, lb)
    elif fmt == "csv":
        body = render.csv_text(reports[0])
    elif fmt == "json":
        body = render.json_text(reports, describe=a.data.describe())
    else:
        body = render.html_text(reports, title, describe=a.data.describe(), dashed_suffix=dashed)
    if out:
        write_file(out, body)
    else:
        write_stdout(body)


def _why(a, b, la: str, lb: str) -> str:
    """With two run directories: their CPU per transaction and the change by cause (scaling_why)."""
    from ..lab import scaling_why

    wa, wb = scaling_why.breakdown_or_none(a.summary), scaling_why.breakdown_or_none(b.summary)
    if wa is None or wb is None or wa["cpu_us_per_tx"] <= 0:
        return ""
    return "\n" + plain_lines(scaling_why.versus(wa, wb, la, lb))
