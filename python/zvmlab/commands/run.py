"""zvmlab run: simulate a scenario and report ETR, ITR, T/V and per-user CPU."""

from __future__ import annotations

import csv
import dataclasses
import shutil
from pathlib import Path

import click
from rich.table import Table

from .. import admission, engine, scenario, tables
from ..lab import scaling_why
from ..errors import InputError
from ..output import check_result_dir, console, dumps, print_json, progress, result_dir, safe
from ._lab_options import SEED, param_option, param_overrides

# Keys that measure the machine running zvmlab, not the simulated system: kept out of the
# deterministic summary and written to timing.json.
TIMING_KEYS = ("wall_s", "events_per_s")


def run_scenario(path: str, level: str | None = None, seed: int | None = None, duration: str | None = None,
                 show_progress: bool = True, monitor: list | None = None,
                 max_memory: str | None = None, params: dict | None = None) -> tuple[scenario.Scenario, dict]:
    """Load and run a scenario. With a list as ``monitor``, appends the run's monitor data to it.
    A run whose memory estimate exceeds the limit is refused before it starts. ``params``
    overrides model parameters (over the scenario's [params])."""
    sc = with_params(scenario.load(path).with_overrides(level=level, seed=seed, duration=duration), params)
    admission.admit(sc, max_memory, has_option=True)
    with progress(f"{Path(path).name} ({sc.level})", show_progress) as update:
        try:
            if monitor is not None:
                summary, mon = engine.simulate(sc.engine_config(), progress=update, monitor=True)
                monitor.append(mon)
            else:
                summary = engine.simulate(sc.engine_config(), progress=update)
        except InputError as e:
            e.file = e.file or sc.path  # an engine refusal: name the scenario it came from
            raise
    summary["scenario"] = sc.path
    summary["title"] = sc.title
    return sc, summary


def with_params(sc: scenario.Scenario, params: dict | None) -> scenario.Scenario:
    """The scenario with model parameters overridden (--param), over its own [params]."""
    return dataclasses.replace(sc, params={**sc.params, **params}) if params else sc


def deterministic(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in TIMING_KEYS}


def write_run_dir(out: str, sc: scenario.Scenario, summary: dict, force: bool, monitor: bytes | None = None) -> None:
    with result_dir(out, force) as d:
        (d / "summary.json").write_text(dumps(deterministic(summary)))
        if monitor is not None:
            (d / "monitor.mon").write_bytes(monitor)  # MONWRITE format; `zvmlab report` reads it
        (d / "timing.json").write_text(dumps({k: summary[k] for k in TIMING_KEYS} | {"events": summary["events"]}))
        (d / "engine-config.json").write_text(dumps(sc.engine_config()))
        shutil.copyfile(sc.path, d / "scenario.toml")
        users = [u["userid"] for u in summary["users"]]
        with open(d / "intervals.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["start_s", "end_s", "etr", *[f"{u}_cpu_pct" for u in users]])
            for iv in summary["intervals"]:
                w.writerow([f"{iv['start_s']:.6f}", f"{iv['end_s']:.6f}", f"{iv['etr']:.6f}",
                            *[f"{iv['users'][u]:.6f}" for u in users]])
        # Tidy tables (one row per observation, no summary rows), as CSV and Parquet.
        (d / "tables").mkdir()
        for frame in tables.run_tables(deterministic(summary)):
            frame.write(d / "tables")


def conditions(s: dict) -> list[str]:
    """What went wrong in the simulated system (not in the input): paging space exhausted,
    paced I/O drivers that could not keep their rate."""
    out = []
    pg = s.get("storage") or {}
    if pg.get("paging_space_exhausted_at_s") is not None:
        out.append(f"paging space exhausted at {pg['paging_space_exhausted_at_s']:g} s: "
                   "add paging volumes ([storage] paging_volumes) or real storage")
    users = ((s.get("dasd") or {}).get("users") or {})
    sat = [(u, d) for u, d in users.items() if d.get("saturated")]
    if sat:
        u, d = sat[0]
        more = f" (and {len(sat) - 1} more users)" if len(sat) > 1 else ""
        out.append(f"I/O saturated: {u} offered {d['offered_io_per_s']:.0f} I/O/s, did "
                   f"{d['ios'] / max(s['duration_s'], 1e-9):.0f}, {d['behind_s']:.2f} s behind at the end{more}")
    return out


def response_line(r: dict | None) -> str:
    """The system's transaction response time in one line (empty without transactions)."""
    if not r or not r.get("count"):
        return "  Response time: no transactions completed"
    return (f"  Response time {r['mean']:.3f} ms mean, p50 {r['p50']:.3f}, p90 {r['p90']:.3f}, p99 {r['p99']:.3f} ms;"
            f" trivial {r['trivial']:,} ({r['trivial_mean']:.3f} ms), non-trivial {r['nontrivial']:,}"
            f" ({r['nontrivial_mean']:.3f} ms)")


def print_summary(sc: scenario.Scenario, s: dict, max_cols: int = 10) -> None:
    _print_headline(sc, s)
    for line in _notices(sc, s):
        console.print(f"  [bold yellow]{line}[/bold yellow]")
    _print_users(sc, s)
    _print_intervals(s, max_cols)
    print_subsystems(s)


def _print_headline(sc: scenario.Scenario, s: dict) -> None:
    """The run in a few lines: ETR, ITR, T/V, busy; SMT and CPI; response time; the engine's
    speed; the LPAR under PR/SM."""
    title = safe(sc.title or Path(sc.path).name)
    console.print(f"[bold]{title}[/bold]  level {s['level']}, {s['processors']} processors, "
                  f"{s['duration_s']:g} s simulated, seed {s['seed']}")
    console.print(f"  ETR {s['etr']:.3f} tx/s   ITR {s['itr']:.3f} tx/s   T/V {s['tv_ratio']:.4f}   "
                  f"processor busy {s['avg_processor_busy_pct']:.2f} %   system {s['system_pct']:.2f} %")
    why = scaling_why.breakdown_or_none(s)
    if why is not None:
        lock = f" ({why['top_lock']})" if why["spin_us_per_tx"] >= 0.005 and why["top_lock"] else ""
        console.print(f"  CPU per transaction {why['cpu_us_per_tx']:.1f} us: guest {why['guest_us_per_tx']:.1f}, "
                      f"CP {why['cp_us_per_tx']:.1f}, SMT {why['smt_us_per_tx']:.1f}, lock spin "
                      f"{why['spin_us_per_tx']:.2f}{lock}")
    smt, cpi = s.get("smt") or {}, s.get("cpi") or {}
    if smt.get("mode", "off") != "off" or cpi.get("speed_factor", 1.0) < 1.0:
        console.print(f"  {smt['mode']}: {smt['cores']} cores, {smt['logical_cpus']} logical CPUs   "
                      f"core busy {smt['core_busy_pct']:.2f} %   thread density {smt['thread_density']:.3f}   "
                      f"capacity factor {smt['capacity_factor']:.3f}   {cpi['drawers']} drawer(s), "
                      f"CPI {cpi['cpi']:.2f}, speed {cpi['speed_factor']:.3f}")
    cache = cache_line(cpi)
    if cache:
        console.print(cache)
    console.print(response_line(s.get("response_ms")))
    console.print(f"  {s['events']:,} events in {s['wall_s']:.3f} s ({s['events_per_s'] / 1e6:.2f} M events/s)")
    lp = s.get("lpar")
    if lp:
        console.print(f"  LPAR {lp['name']}: entitled {100 * lp['entitlement']:.0f} %, {lp['vh']} Vh {lp['vm']} Vm "
                      f"{lp['vl']} Vl {lp['hz']} Hz, unparking {lp['unparking']}: {lp['unparked_avg']:.2f} unparked "
                      f"({lp['unparked_vl_avg']:.2f} Vl), %LPmgt {lp['cpc_lpmgt_pct']:.3f} (this LPAR "
                      f"{lp['lpmgt_pct']:.3f}), %Susp {lp['susp_pct']:.1f}")


def cache_line(cpi: dict) -> str:
    """With the cache warmth model on (issue 18): where the CPI went, in one line. Empty when off."""
    c = cpi.get("cache") or {}
    if not c.get("enabled"):
        return ""
    hits = " ".join(f"L{k + 2} {h:.2f}" for k, h in enumerate(c.get("footprint_hits", [])))
    moves = cpi.get("dispatch_moves") or []
    total = max(1, sum(moves))
    where = ", ".join(f"{name} {100 * n / total:.0f} %" for name, n in
                      zip(("same core", "chip", "drawer", "other drawer"), moves))
    return (f"  cache warmth: footprint hits {hits}; reload {c.get('reload_pct_of_guest', 0):.1f} % of guest CPU "
            f"(sibling sharing {c.get('sibling_pct_of_guest', 0):.1f} %); CP coherence stall "
            f"{c.get('coherence_pct_of_cp', 0):.1f} % of CP; {cpi.get('sourcing_cycles_per_miss', 0):.1f} sourcing "
            f"cycles per L1 miss; dispatches: {where}")


def _notices(sc: scenario.Scenario, s: dict) -> list[str]:
    """Conditions of the run and settings its level ignores."""
    lines = conditions(s)
    storage = sc.engine_config().get("storage") or {}
    if storage.get("hpf") and not (s.get("storage") or {}).get("hpf"):
        lines.append(f"SET PAGING HPF ON ignored: level {s['level']} has no zHPF paging (z/VM 6.4 and later)")
    if storage.get("encrypt") and not (s.get("storage") or {}).get("encryption"):
        lines.append(f"SET ENCRYPT PAGING ignored: level {s['level']} has no encrypted paging (VM65993, "
                     "e.g. zvm-6.4-1q17)")
    late = [a for a in sc.actions if a.at_ns >= sc.duration_ns]
    if late:
        lines.append(f"{len(late)} timed command{'s' if len(late) > 1 else ''} at or after the run's end "
                     f"({sc.duration_ns / 1e9:g} s) did not run: {late[0].command} at {late[0].at_ns / 1e9:g} s"
                     + (" and later ones" if len(late) > 1 else ""))
    if sc.dspwdmethod != "reshuffle":
        from .. import engine
        if engine.switches(s["level"], sc.switches).get("dv") != "local":
            lines.append(f"SET SRM DSPWDMETHOD {sc.dspwdmethod.upper()} has no effect at level {s['level']}: its "
                         "dispatcher looks aside at every dispatch vector's head (one ordered list, no steals)")
    return lines


def _print_users(sc: scenario.Scenario, s: dict) -> None:
    """Users (FCX112/FCX114-like): CPU, T/V, transactions, response time, where their virtual
    CPUs spent the run."""
    shares = {u: str(g.share) for g in sc.guests for u in g.userids()}
    t = Table(title="Users (100 % = one processor)", title_justify="left")
    ws = lambda u, k: (u.get("wait_states") or {}).get(k, 0.0)  # noqa: E731
    rs = lambda u, k: (u.get("response_ms") or {}).get(k, 0.0)  # noqa: E731
    for col in ("Userid", "Share", "CPU %", "Virtual %", "CP %", "T/V", "Transactions", "Resp ms", "p90 ms",
                "%RUN", "%CPU wait", "%PGW", "%IOW", "%EL+LIM"):
        t.add_column(col, justify="left" if col in ("Userid", "Share") else "right")
    for u in s["users"]:
        tv = u["cpu_pct"] / u["virtual_pct"] if u["virtual_pct"] > 0 else 0.0
        t.add_row(u["userid"], shares.get(u["userid"], ""), f"{u['cpu_pct']:.2f}", f"{u['virtual_pct']:.2f}",
                  f"{u['cp_pct']:.2f}", f"{tv:.3f}", f"{u['transactions']:,}", f"{rs(u, 'mean'):.3f}",
                  f"{rs(u, 'p90'):.3f}", f"{ws(u, 'running'):.1f}",
                  f"{ws(u, 'cpu_wait'):.1f}", f"{ws(u, 'page_wait'):.1f}", f"{ws(u, 'io_wait'):.1f}",
                  f"{ws(u, 'eligible') + ws(u, 'limited'):.1f}")
    console.print(t)
    console.print("  Resp ms, p90 ms: transaction response time (think time excluded), mean and 90th percentile")
    console.print("  %RUN ... %EL+LIM: percent of the user's virtual-CPU time running, waiting for a processor, "
                  "in page wait, in I/O wait, on the eligible or limit list (the rest dormant; FCX114 USTAT)")


def _print_intervals(s: dict, max_cols: int) -> None:
    """CPU % of the first ``max_cols`` users and ETR per interval."""
    users = [u["userid"] for u in s["users"]]
    shown = users[:max_cols]
    t = Table(title="CPU % by interval", title_justify="left")
    t.add_column("End (s)", justify="right")
    for u in shown:
        t.add_column(u, justify="right")
    t.add_column("ETR", justify="right")
    for iv in s["intervals"]:
        t.add_row(f"{iv['end_s']:g}", *[f"{iv['users'][u]:.2f}" for u in shown], f"{iv['etr']:.2f}")
    console.print(t)
    if len(users) > len(shown):
        console.print(f"  ({len(users) - len(shown)} more users: see --json or --out)")


def _per_move(us: float | None) -> str:
    return "n/a per move (no page moved)" if us is None else f"{us:.2f} us/move"


def print_subsystems(s: dict, max_rows: int = 8) -> None:
    """Storage and paging, devices, guest DASD I/O and spin locks, when the run has them."""
    st = s.get("storage")
    if st:
        console.print(f"  Storage: {st['frames']:,} frames, {st['resident_pages']:,} resident pages, "
                      f"fault rate {st['fault_rate']:.4f}, {st['moves_per_s']:,.0f} page moves/s "
                      f"({st['pages_read']:,} read, {st['pages_written']:,} written), page wait "
                      f"{st['page_wait_ms']:.3f} ms, CP {_per_move(st['cp_us_per_move'])}, slots used "
                      f"{st['slots_used']:,} of {st['slots']:,}")
    devs = s.get("devices") or []
    if devs:
        # HyperPAV: Util % is the bases' own; aliases busy with a volume's I/O are a column.
        aliases = any(d.get("aliases_in_use", 0) > 0 for d in devs)
        t = Table(title="Devices (FCX108-like)", title_justify="left")
        for col in ("Device", "Type", "I/O/s", "Pages/I/O", "Util %", *(("Aliases",) if aliases else ()),
                    "Pend ms", "Disc ms", "Conn ms", "Queue ms", "Resp ms"):
            t.add_column(col, justify="left" if col in ("Device", "Type") else "right")
        for d in sorted(devs, key=lambda d: -d["io_rate"])[:max_rows]:
            t.add_row(d["name"], d["type"], f"{d['io_rate']:,.1f}", f"{d['pages_per_io']:.2f}",
                      f"{d['util_pct']:.1f}", *((f"{d.get('aliases_in_use', 0):.2f}",) if aliases else ()),
                      f"{d['pend_ms']:.3f}", f"{d['disconnect_ms']:.3f}",
                      f"{d['connect_ms']:.3f}", f"{d['queue_ms']:.3f}", f"{d['response_ms']:.3f}")
        console.print(t)
        if aliases:
            console.print("  Util %: the base exposures' own busy; Aliases: mean HyperPAV aliases busy with "
                          "the volume's I/O.")
        if len(devs) > max_rows:
            console.print(f"  ({len(devs) - max_rows} more devices: see --json)")
    print_channels(s)
    dusers = (s.get("dasd") or {}).get("users") or {}
    if dusers:
        t = Table(title="Guest DASD I/O", title_justify="left")
        for col in ("Userid", "I/Os", "KB/s", "Tx/s", "CP us/I/O", "CP us/KB", "Virt us/tx"):
            t.add_column(col, justify="left" if col == "Userid" else "right")
        for u, d in list(dusers.items())[:max_rows]:
            t.add_row(u, f"{d['ios']:,}", f"{d['kb_per_s']:,.0f}", f"{d['tx_per_s']:,.1f}",
                      f"{d['cp_us_per_io']:.2f}", f"{d['cp_us_per_kb']:.3f}", f"{d['virtual_us_per_tx']:.1f}")
        console.print(t)
    locks = [(n, d) for n, d in (s.get("locks") or {}).items() if d.get("collisions")]
    if locks:
        t = Table(title="Spin locks with collisions (FCX265-like)", title_justify="left")
        for col in ("Lock", "Acquires/s", "Colls/s", "us/coll", "Spin %busy"):
            t.add_column(col, justify="left" if col == "Lock" else "right")
        for n, d in sorted(locks, key=lambda x: -x[1]["spin_pct_busy"])[:max_rows]:
            t.add_row(n, f"{d['acquires_per_s']:,.0f}", f"{d['colls_per_s']:,.1f}", f"{d['avg_spin_us']:.2f}",
                      f"{d['spin_pct_busy']:.3f}")
        console.print(t)


def print_channels(s: dict) -> None:
    """Channel paths (FCX107-like) and static/dynamic PAV, when the run has them (issue 22)."""
    ch = s.get("channels")
    if ch:
        t = Table(title="Channel paths (FCX107-like)", title_justify="left")
        for col in ("CHPID", "Type", "%Busy", "I/O/s", "MB/s", "Mean conc", "Max conc"):
            t.add_column(col, justify="left" if col in ("CHPID", "Type") else "right")
        for p in ch["paths"]:
            t.add_row(p["chpid"], p["type"], f"{p['busy_pct']:.1f}", f"{p['io_rate']:,.1f}", f"{p['mb_per_s']:.2f}",
                      f"{p['mean_concurrent']:.2f}", str(p["max_concurrent"]))
        console.print(t)
        console.print(f"  Control unit ({ch['cu_class']}) paths {', '.join(ch['cu_paths'])}: "
                      f"{ch['delayed_pct']:.1f} % of {ch['starts']:,} starts waited for a path, "
                      f"{ch['path_wait_ms']:.3f} ms per start (in pend).")
    pav = s.get("pav")
    if pav:
        bound = ", ".join(f"{n} {b}" for n, b in pav["bound"])
        console.print(f"  PAV ({pav['mode']}): {pav['aliases']} aliases, bound at the end: {bound}; "
                      f"{pav['moves']} alias moves (state changes).")


@click.command("run")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--level", help="CP level to run (overrides [system] level); see `zvmlab levels`.")
@click.option("--seed", type=SEED, help="Random seed (overrides [run] seed).")
@click.option("--duration", help='Simulated time (overrides [run] duration), e.g. "60s", "10m".')
@click.option("--out", "out", type=click.Path(file_okay=False), help="Write the summary and all run output here.")
@click.option("--force", is_flag=True, help="Replace an existing --out directory.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
@click.option("--max-memory", metavar="SIZE", help='Refuse a run estimated to need more memory, e.g. "4G" '
              "(default: ZVMLAB_MAX_MEMORY, else the memory available here).")
@param_option
def run(file: str, level: str | None, seed: int | None, duration: str | None, out: str | None, force: bool,
        as_json: bool, max_memory: str | None, param_specs: tuple) -> None:
    """Simulate scenario FILE and report ETR, ITR, T/V and CPU per user and interval."""
    mon: list = []
    params = param_overrides(param_specs)
    if out:
        check_result_dir(out, force)  # before the run: an --out that cannot be written wastes no run
    sc, summary = run_scenario(file, level, seed, duration, monitor=mon if out else None, max_memory=max_memory,
                               params=params)
    if out:
        write_run_dir(out, sc, summary, force, monitor=mon[0])
    if as_json:
        print_json(summary)
    else:
        print_summary(sc, summary)
        if out:
            console.print(f"  written to {safe(out)}/")
