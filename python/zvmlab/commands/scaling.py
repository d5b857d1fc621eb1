"""zvmlab scaling: ETR, ITR and T/V against cores, with the CAF expectation curve."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click
from rich.table import Table

from .. import admission, scenario
from ..errors import InputError
from ..output import check_file_target, console, print_json, progress, safe
from ._lab_options import param_option, param_overrides
from .run import with_params


@click.command("scaling")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--cores", default="1,2,4,8,16,32", show_default=True, help="Processor counts, comma-separated.")
@click.option("--level", help="CP level (overrides the scenario's).")
@click.option("--machine", help="Machine generation (overrides the scenario's): "
              f"{', '.join(scenario.MACHINES)}.")
@click.option("--duration", help="Simulated time per run (overrides [run] duration).")
@click.option("--scale-guests", is_flag=True,
              help="Scale each guest group's count with the cores (as seed 001's scaling suites add clients and "
                   "servers). Default: the guests stay as in the scenario (your system plus more cores).")
@click.option("--no-scale-count", is_flag=True, hidden=True, help="Guest counts fixed (the default now).")
@click.option("--smt", "smt_modes", help="SMT modes to run, comma-separated (off, smt1, smt2): one curve each; "
              "SMT modes skip core counts above 32. Default: the scenario's.")
@click.option("--knee", type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True), default=0.9,
              show_default=True, help="Stopped scaling: ITR below this fraction of the CAF expectation.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), help="Write the chart (.png or .svg).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@param_option
def scaling(file: str, cores: str, level: str | None, machine: str | None, duration: str | None, scale_guests: bool, no_scale_count: bool,
            smt_modes: str | None, knee: float, plot_path: str | None, as_json: bool, param_specs: tuple) -> None:
    """Run FILE at several processor counts and compare ITR with the CAF expectation (seed 001).

    The guests stay as in FILE (what 4 more cores do for this system); --scale-guests scales
    every guest group's count with the cores instead (a workload that grows with the machine).

    Below the table, why: processor time per transaction split into guest, CP, SMT and lock
    spin, and its growth from the smallest run split into CPI (cache sourcing), spin, guest
    path, CP path and SMT (parts that add up); then where the series stops scaling (--knee) and
    the main causes.

    With --smt off,smt2 each mode is a series (seed 001's Figures 2-5: non-SMT and SMT-2 curves,
    each with the CAF expectation formed from its own smallest run); JSON `rows` is the first
    series and `series` all of them.
    """
    from ..lab import scaling as sc_lab

    if scale_guests and no_scale_count:
        raise InputError("--scale-guests and --no-scale-count contradict each other", field="--scale-guests",
                         fix="give --scale-guests to scale the guests with the cores, nothing to keep them fixed")
    if not 0.0 < knee < 1.0:  # NaN passes click's range check
        raise InputError(f"{knee} is not a fraction", field="--knee", fix="give a number between 0 and 1, e.g. --knee 0.9")
    ns = _core_counts(cores)
    if plot_path and Path(plot_path).suffix.lower() not in (".png", ".svg"):
        raise InputError("unknown plot format", field="--plot", fix="name a .png or .svg file")
    if plot_path:
        check_file_target(plot_path, "--plot")  # before the runs, not after them
    sc = with_params(scenario.load(file).with_overrides(level=level, duration=duration, machine=machine),
                     param_overrides(param_specs))
    _check_machine(sc, ns)
    modes = _smt_modes(smt_modes, sc, ns)
    for m in modes or [sc.smt]:  # a run that would not fit in memory is refused before the first starts
        for n in ns:
            if modes is None or m == "off" or n <= scenario.MAX_SMT_CORES:
                admission.admit(sc_lab.scaled(dataclasses.replace(sc, smt=m), n, sc.processors, scale_guests))
    # The scenario's title names its own configuration; the runs are at other core counts.
    heading = (f"Scaling {Path(file).name} at {','.join(map(str, ns))} cores"
               f"{' (guest counts scaled with cores)' if scale_guests else ''}: {safe(sc.title or '')}").rstrip(": ")
    with progress("scaling", not as_json) as update:
        if modes is None:
            res = sc_lab.run(sc, ns, scale_count=scale_guests, progress=update, knee=knee)
        else:
            res = sc_lab.run_modes(sc, ns, modes, scale_count=scale_guests, progress=update, knee=knee)
    if plot_path:
        sc_lab.plot(res, plot_path, heading)
    if as_json:
        print_json(res)
        return
    for ser in res.get("series") or [{"smt": None, "rows": res["rows"], "knee": res["knee"]}]:
        suffix = f" SMT {ser['smt']}" if ser["smt"] else ""
        _table(heading, sc, ser["rows"], suffix)
        _why(ser["rows"], ser["knee"], suffix)
    if plot_path:
        console.print(f"  chart: {safe(plot_path)}")


def _core_counts(cores: str) -> list[int]:
    """--cores as sorted distinct processor counts, each 1 to the engine's maximum."""
    try:
        ns = sorted({int(x) for x in cores.split(",") if x.strip()})
    except ValueError:
        raise InputError(f"{cores!r} is not a list of whole numbers", field="--cores", fix="e.g. --cores 1,2,4,8") from None
    if not ns or ns[0] < 1 or ns[-1] > scenario.MAX_PROCESSORS:
        raise InputError(f"processor counts must be 1-{scenario.MAX_PROCESSORS}", field="--cores", fix="e.g. 1,2,4,8")
    if len(ns) < 2:
        raise InputError(f"{cores!r} gives one processor count: scaling compares two or more", field="--cores",
                         fix=f"e.g. --cores {ns[0]},{2 * ns[0]} (a single size: zvmlab run FILE)")
    return ns


def _check_machine(sc, ns: list[int]) -> None:
    """The largest count fits an LPAR of the scenario's machine."""
    name = sc.machine or scenario.DEFAULT_MACHINE
    largest = round(scenario.machine_figures(name, sc.params)["max_lpar_cores"])
    if ns[-1] > largest:
        raise InputError(f"{ns[-1]} cores on a {name}: z/VM runs at most {largest} "
                         "logical processors in an LPAR of it", field="--cores",
                         fix=f"use core counts up to {largest}, or a later --machine")


def _smt_modes(smt_modes: str | None, sc, ns: list[int]) -> list[str] | None:
    """--smt as a list of modes (None: one series in the scenario's own mode, which must then
    multithread no more cores than z/VM does)."""
    if smt_modes is None:
        if sc.smt != "off" and ns[-1] > scenario.MAX_SMT_CORES:
            raise InputError(f"{ns[-1]} cores with smt = {sc.smt!r}: z/VM multithreads at most "
                             f"{scenario.MAX_SMT_CORES} cores", field="--cores",
                             fix=f"use core counts up to {scenario.MAX_SMT_CORES}, or a non-SMT scenario")
        return None
    modes = [m.strip() for m in smt_modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in scenario.SMT_MODES]
    if bad or not modes:
        raise InputError(f"{smt_modes!r} is not a list of SMT modes", field="--smt", fix="e.g. --smt off,smt2")
    if any(m != "off" for m in modes) and not _has_smt(sc):
        raise InputError(f"--smt {smt_modes} on a {sc.machine}: the {sc.machine} has no SMT", field="--smt",
                         fix="use --smt off, or a z13 or later --machine")
    return modes


def _has_smt(sc) -> bool:
    return scenario.machine_figures(sc.machine or scenario.DEFAULT_MACHINE, sc.params)["smt"] >= 0.5


def _table(heading: str, sc, rows: list[dict], suffix: str) -> None:
    t = Table(title=f"{heading} ({sc.level}){suffix}", title_justify="left")
    for c in ("Cores", "Guests", "ETR", "ITR", "ITR CAF exp.", "ITR / CAF", "T/V", "Busy %"):
        t.add_column(c, justify="right")
    for r in rows:
        t.add_row(str(r["cores"]), str(r["guests"]), f"{r['etr']:.1f}", f"{r['itr']:.1f}",
                  f"{r['itr_caf_expected']:.1f}", "-" if r["itr_vs_caf"] is None else f"{r['itr_vs_caf']:.3f}", f"{r['tv_ratio']:.3f}",
                  f"{r['avg_processor_busy_pct']:.1f}")
    console.print(t)


def _why(rows: list[dict], knee: dict, suffix: str) -> None:
    """Processor time per transaction by cause and its growth from the smallest run, then the knee."""
    from ..lab import scaling_why

    if rows[0]["why"] is None:
        console.print(f"  {safe(scaling_why.sentence(knee))}")
        return
    t = Table(title=f"Why: processor us per transaction, and its growth from {rows[0]['cores']} cores{suffix}",
              title_justify="left")
    for c in ("Cores", "CPU/tx", "Guest", "CP", "SMT", "Spin", "Top lock", "CPI", "Growth %", "CPI pp",
              "Spin pp", "Guest pp", "CP pp", "SMT pp"):
        t.add_column(c, justify="left" if c == "Top lock" else "right")
    for r in rows:
        w = r["why"]
        if w is None:
            continue
        g = w.get("growth") or {}
        pp = [f"{g[k]:+.1f}" if k in g else "" for k in ("total", "cpi", "spin", "guest_path", "cp_path", "smt")]
        t.add_row(str(r["cores"]), f"{w['cpu_us_per_tx']:.1f}", f"{w['guest_us_per_tx']:.1f}",
                  f"{w['cp_us_per_tx']:.1f}", f"{w['smt_us_per_tx']:.1f}", f"{w['spin_us_per_tx']:.2f}",
                  safe(w["top_lock"] or "-"),
                  f"{w['cpi']:.3f}", *pp)
    console.print(t)
    console.print(f"  {safe(scaling_why.sentence(knee))}")
