"""zvmlab bench: the engine's speed on the reference model of des-anchors.md, beside SimPy.

The reference model is a closed network (machine repairman, M/M/c//N): 500 clients with
exponential think time (mean 7) and CPU burst (mean 1) on 64 processors served FCFS. Its exact
throughput is known, so the benchmark also checks the engine's answer. The same model in SimPy
is run in the same process, so the ratio compares like with like on this machine today.
"""

from __future__ import annotations

import platform
import random
import time

import click
from rich.table import Table

from .. import engine
from ..output import console, print_json, progress
from ._lab_options import SEED

N, C, THINK, BURST = 500, 64, 7.0, 1.0


def simpy_reference(horizon: float, seed: int) -> dict | None:
    """The reference model in SimPy; None when SimPy is not installed."""
    try:
        import simpy
    except ImportError:
        return None
    rng = random.Random(seed)
    env = simpy.Environment()
    cpus = simpy.Resource(env, capacity=C)
    done = [0]

    def client(env):
        while True:
            yield env.timeout(rng.expovariate(1.0 / THINK))
            with cpus.request() as req:
                yield req
                yield env.timeout(rng.expovariate(1.0 / BURST))
            done[0] += 1

    for _ in range(N):
        env.process(client(env))
    t0 = time.perf_counter()
    env.run(until=horizon)
    wall = time.perf_counter() - t0
    return {"horizon": horizon, "bursts": done[0], "wall_s": wall, "bursts_per_s": done[0] / wall,
            "throughput": done[0] / horizon, "simpy_version": simpy.__version__}


@click.command("bench")
@click.option("--horizon", type=click.IntRange(min=1000), default=200_000, show_default=True,
              help="Simulated time units (ms) for the engine run.")
@click.option("--simpy-horizon", type=click.IntRange(min=0), default=5_000, show_default=True,
              help="Simulated time units for the SimPy run (0 skips it).")
@click.option("--seed", type=SEED, default=1, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def bench(horizon: int, simpy_horizon: int, seed: int, as_json: bool) -> None:
    """Events per second of the engine on the reference model, and the ratio to SimPy."""
    with progress("engine reference model", not as_json) as update:
        update(0, 2)
        r = engine.bench_reference(horizon, seed)
        update(1, 2)
        s = simpy_reference(float(simpy_horizon), seed) if simpy_horizon else None
        update(2, 2)
    out = {"engine": r, "simpy": s, "exact_throughput": r["exact_throughput"],
           "speedup_vs_simpy": (r["bursts_per_s"] / s["bursts_per_s"]) if s else None,
           "machine": {"python": platform.python_version(), "processor": platform.machine(),
                       "engine": engine.__engine_version__}}
    if as_json:
        print_json(out)
        return
    console.print(f"[bold]Reference model[/bold]: {r['model']}")
    t = Table(title_justify="left")
    t.add_column("")
    t.add_column("zvmlab engine", justify="right")
    if s:
        t.add_column(f"SimPy {s['simpy_version']}", justify="right")
    rows = [
        ("horizon (time units)", f"{r['horizon']:,.0f}", f"{s['horizon']:,.0f}" if s else ""),
        ("bursts", f"{r['bursts']:,}", f"{s['bursts']:,}" if s else ""),
        ("wall s", f"{r['wall_s']:.3f}", f"{s['wall_s']:.3f}" if s else ""),
        ("bursts/s", f"{r['bursts_per_s']:,.0f}", f"{s['bursts_per_s']:,.0f}" if s else ""),
        ("events/s", f"{r['events_per_s']:,.0f}", ""),
        ("ns/event", f"{r['ns_per_event']:.1f}", ""),
        ("throughput", f"{r['throughput']:.4f}", f"{s['throughput']:.4f}" if s else ""),
        ("exact throughput", f"{r['exact_throughput']:.4f}", f"{r['exact_throughput']:.4f}" if s else ""),
        ("error %", f"{r['throughput_error_pct']:+.3f}",
         f"{100 * (s['throughput'] / r['exact_throughput'] - 1):+.3f}" if s else ""),
    ]
    for row in rows:
        t.add_row(*(row if s else row[:2]))
    console.print(t)
    if s:
        console.print(f"engine / SimPy: [bold]{out['speedup_vs_simpy']:.0f}x[/bold] bursts per second")
    else:
        console.print("SimPy is not installed: no comparison (pip install simpy)")
