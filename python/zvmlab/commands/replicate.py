"""zvmlab replicate: IBM's published experiments, published figure beside simulated figure."""

from __future__ import annotations

import contextlib
from collections import Counter
from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from ..errors import InputError
from ..output import check_file_target, check_result_dir, console, dumps, err_console, write_file, write_stdout
from ._lab_options import SEED, param_overrides, param_scalings


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    return f"{v:.4g}" if abs(v) < 1000 else f"{v:,.0f}"


@click.command("replicate")
@click.option("--only", help="Comma-separated row ids (e.g. A1,A2) or sections (A,B,...).")
@click.option("--seed", type=SEED, help="First seed of every row (default: each scenario's own).")
@click.option("--seeds", "n_seeds", type=click.IntRange(min=1, max=50), default=3, show_default=True,
              help="Seeds per metric: verdicts are taken on the mean and on each seed; a verdict the seeds "
                   "disagree on is 'not resolved'.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Local processes to run in (default: the number of CPUs).")
@click.option("--robustness", is_flag=True,
              help="Also rerun every predicted pass with each assumed parameter its runs read at x0.5 and x2; "
                   "a pass that flips is 'fragile'.")
@click.option("--executor", "executor_spec", default=None,
              help="Where the runs execute: local (default, --jobs processes) or dask://HOST:PORT.")
@click.option("--store", "store_path", type=click.Path(dir_okay=False), default=None,
              help="Results store that keeps every finished run, so an interrupted replicate resumes and a "
                   "second one reuses them (default runs/replicate.duckdb; keyed by the engine build).")
@click.option("--param", "param_specs", multiple=True, metavar="NAME=VALUE",
              help="Override a parameter in every scenario run (repeatable; not in suite and scaling rows), e.g. "
                   "--param cache.warmth=1 to measure the cache warmth model on.")
@click.option("--scale", "scale_specs", multiple=True, metavar="NAME=FACTOR",
              help="Multiply a parameter by FACTOR in every scenario run: the scenario's own value where it sets "
                   "one, else the table's; a value it would take out of the parameter's range is refused "
                   "(repeatable; not in suite and scaling rows, nor a shape sweep's own parameter), e.g. "
                   "--param cpu.cpi_cp=4 --scale path.vnet_msg=0.75 to refit a calibrated CP path to a new CPI "
                   "to first order.")
@click.option("--no-store", is_flag=True, help="Keep no runs (every run again, nothing written but the outputs).")
@click.option("--all-rows", is_flag=True, help="Also list rows that are not modelled yet or out of scope.")
@click.option("--json", "json_file", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the results as JSON to this file ('-' for stdout).")
@click.option("--markdown", "md_file", type=click.Path(dir_okay=False),
              help="Write a Markdown table with one line per row (per basis: metrics passing / judged, or why not run).")
@click.option("--html", "html_dir", type=click.Path(file_okay=False),
              help="Write an HTML report (table and charts) into this directory.")
def replicate(only: str | None, seed: int | None, n_seeds: int, jobs: int | None, robustness: bool,
              executor_spec: str | None, store_path: str | None, param_specs: tuple, scale_specs: tuple,
              no_store: bool, all_rows: bool, json_file: str | None, md_file: str | None, html_dir: str | None) -> None:
    """Run every modelled row of shared/EXPERIMENTS.md at its base and comparison level.

    Every metric says its basis (what a pass proves): predicted, calibrated or construction;
    the headline counts predicted metrics on their own."""
    import os

    from ..lab import replicate as rep
    from ..output import progress

    rows = _select(rep.load_catalogue(), only)
    params = _params(param_specs)
    scale = tuple(sorted(param_scalings(scale_specs).items()))
    both = sorted(set(dict(params)) & set(dict(scale)))
    if both:
        raise InputError(f"{both[0]} is both set (--param) and scaled (--scale)", field="--scale",
                         fix="give each parameter one of the two")
    if seed is not None:
        from ..scenario import check_seeds

        check_seeds(seed, n_seeds)
    if (params or scale) and robustness:
        field = "--param" if params else "--scale"
        raise InputError(f"--robustness perturbs the table's defaults, not {field} changes", field=field,
                         fix=f"run --robustness without {field}")
    if no_store and (store_path or robustness or executor_spec):
        raise InputError("--no-store runs locally without a store", field="--no-store",
                         fix="leave out --store, --executor and --robustness, or --no-store")
    # Outputs that cannot be written are refused before the first run, not after the last.
    for path, field in ((md_file, "--markdown"), (json_file if json_file != "-" else None, "--json")):
        if path:
            check_file_target(path, field)
    if html_dir:
        check_result_dir(html_dir, force=True, field="--html")
    show = json_file != "-"
    with _lab(executor_spec, jobs, None if no_store else store_path or "") as (executor, store):
        with progress("replicate", show) as update:
            results = rep.replicate(rows, progress=lambda d, n, rid: update(d, max(n, 1)), seed=seed, seeds=n_seeds,
                                    jobs=jobs or os.cpu_count() or 1, executor=executor, store=store,
                                    params=params, scale=scale)
        summary = {"headline": rep.headline(results), "counts": rep.counts(results), "seeds": n_seeds}
        if params or scale:  # what the figures were run with, beside them
            summary.update(params=dict(params), scale=dict(scale))
        if robustness:
            def save(_rid: str) -> None:  # after each row: what is known so far survives an interrupt
                from ..lab import replicate_robust as rob

                summary.update(headline=rep.headline(results), robustness=rob.summary(results))
                _write(results, summary, None, md_file, json_file if json_file != "-" else None, quiet=True)

            _robustness(rows, results, seed, n_seeds, executor, store, show, save)
    _write(results, summary, html_dir, md_file, json_file)
    if json_file == "-":
        return
    console.print(table(results, all_rows))
    by_row: dict[str, str] = {}
    for r in results:
        cur = by_row.get(r["id"])
        by_row[r["id"]] = r["verdict"] if cur in (None, rep.PASS) else cur
    counts = Counter(by_row.values())
    console.print("rows: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    console.print(f"metrics: {summary['headline']}")
    from ..lab.replicate_html import changed_line

    if changed_line(summary):
        console.print(changed_line(summary))
    if json_file:
        err_console.print(f"JSON written to {escape(str(json_file))}")


def _params(specs: tuple) -> tuple:
    """--param NAME=VALUE overrides, checked against the parameter table (name and range)."""
    return tuple(sorted(param_overrides(specs).items()))


def _select(rows: list, only: str | None) -> list:
    if not only:
        return rows
    want = {w.strip().upper() for w in only.split(",") if w.strip()}
    known = {r.id for r in rows} | {r.id[0] for r in rows}
    bad = sorted(want - known)
    if bad:
        raise InputError(f"unknown row id(s) {', '.join(bad)}", field="--only",
                         fix="ids look like A1, B4; sections are A-F; `zvmlab replicate --all-rows` lists them")
    return [r for r in rows if r.id in want or r.id[0] in want]


@contextlib.contextmanager
def _lab(executor_spec: str | None, jobs: int | None, store_path: str | None):
    """The executor and the store replicate runs into (no store: (None, None), local runs)."""
    from ..lab import executor as ex
    from ..lab import replicate as rep
    from ..lab.store import Store

    if store_path is None:
        yield None, None
        return
    path = Path(store_path or rep.ROOT / "runs" / "replicate.duckdb")
    path.parent.mkdir(parents=True, exist_ok=True)
    executor = ex.make(executor_spec, jobs if executor_spec in (None, "local") else None)
    try:
        with Store.open(path) as store:
            yield executor, store
    finally:
        executor.close()


def _robustness(rows, results, seed, n_seeds, executor, store, show, on_row) -> None:
    import time

    from ..lab import replicate as rep
    from ..lab import replicate_robust as rob
    from ..output import progress

    seed_of = {r.id: rep.seeds_for(r, seed, n_seeds) for r in rows if r.status == "modelled"}
    t0 = time.monotonic()
    with progress("robustness", show) as update:
        rob.check(rows, results, seed_of, executor, store, on_row=on_row,
                  progress=lambda d, n, what: update(d, max(n, 1)))
    err_console.print(f"robustness: {time.monotonic() - t0:.0f} s on {executor.description}")


def _write(results: list[dict], summary: dict, html_dir, md_file, json_file, quiet: bool = False) -> None:
    if html_dir:
        from ..lab import replicate_html

        page = replicate_html.write(results, html_dir, summary)
        err_console.print(f"HTML report: {escape(str(page))}")
    if md_file:
        write_file(md_file, markdown(results, summary))
        if not quiet:
            err_console.print(f"Markdown written to {escape(str(md_file))}")
    if json_file:
        text = dumps({"summary": summary, "rows": results})
        if json_file == "-":
            write_stdout(text)
            return
        write_file(json_file, text)


def _sides(d: dict | None, key_b: str = "base", key_c: str = "compare") -> str:
    if not d:
        return ""
    b, c = _fmt(d.get(key_b)), _fmt(d.get(key_c))
    return f"{b} → {c}" if b and c else b or c


def _spread(r: dict) -> str:
    """The seeds' range of the judged value, as ± half the range."""
    sp = r.get("spread") or {}
    key = "ratio" if "ratio" in sp else "compare" if "compare" in sp else "base"
    x = sp.get(key) or {}
    if x.get("min") is None or x.get("max") is None or x["max"] == x["min"]:
        return ""
    return f"±{_fmt((x['max'] - x['min']) / 2)}"


def table(results: list[dict], all_rows: bool = False) -> Table:
    """The terminal table: one line per metric, readable at 100 columns (levels in the JSON)."""
    from ..lab import replicate as rep

    t = Table(title="zvmlab replicate: published (IBM) vs simulated (zvmlab), base → comparison",
              title_justify="left")
    for c in ("Id", "Metric", "Basis", "Published", "Simulated", "Seeds", "Tol.", "Verdict"):
        t.add_column(c, justify="right" if c in ("Published", "Simulated", "Seeds") else "left", overflow="fold")
    colors = {rep.PASS: "green", rep.MISS: "red", rep.UNRESOLVED: "yellow"}
    for r in results:
        if r["metric"] is None:
            if all_rows:
                t.add_row(r["id"], escape(r["what"]), "", escape(r["published"]), "", "", "",
                          escape(f"{r['verdict']} ({r['reason']})"))
            continue
        v = r["verdict"]
        if r.get("robust") is False:
            v_txt = f"[{colors.get(v, 'yellow')}]{v}[/] (fragile: " + ", ".join(
                f"{f['param']} x{f['factor']:g}" for f in r.get("fragile", [])[:3]) + ")"
        else:
            v_txt = f"[{colors.get(v, 'yellow')}]{v}[/]" + (" (robust)" if r.get("robust") else "")
        t.add_row(r["id"], escape(r["metric"]), {"predicted": "P", "calibrated": "C", "construction": "K"}.get(
            r.get("basis"), "?"), escape(_sides(r["published"])), escape(_sides(r["simulated"])), _spread(r),
            r["tolerance"], v_txt)
    t.caption = "Basis: P predicted (kind P, must emerge), C calibrated (set a parameter), K true by construction"
    return t


def markdown(results: list[dict], summary: dict | None = None) -> str:
    """One line per catalogue row: per basis, metrics passing / judged (with the not-resolved and,
    after --robustness, the fragile ones), or the row's verdict and its reason. A run with
    --param or --scale says so above the table."""
    from ..lab import replicate as rep
    from ..lab.replicate_html import changed_line

    order: list[str] = []
    rows: dict[str, dict] = {}
    for r in results:
        if r["id"] not in rows:
            order.append(r["id"])
            rows[r["id"]] = {"what": r["what"], "verdict": r["verdict"], "reason": r.get("reason", ""),
                             **{b: [] for b in rep.BASES}}
        if r["metric"] is not None:
            rows[r["id"]][r.get("basis", "predicted")].append(r)
    changed = changed_line(summary or {})
    out = [f"{changed}.", ""] if changed else []
    out += ["| Row | Experiment | Predicted | Calibrated | By construction |", "|---|---|---|---|---|"]
    for i in order:
        x = rows[i]
        what = x["what"] if len(x["what"]) <= 60 else x["what"][:57] + "..."
        if any(x[b] for b in rep.BASES):
            cells = [_cell(x[b]) for b in rep.BASES]
        else:
            reason = x["reason"] if len(x["reason"]) <= 60 else x["reason"][:57] + "..."
            cells = [f"{x['verdict']} ({reason})" if reason else x["verdict"], "", ""]
        out.append("| " + " | ".join(c.replace("|", "/") for c in [i, what] + cells) + " |")
    return "\n".join(out) + "\n"


def _cell(ms: list[dict]) -> str:
    from ..lab import replicate as rep

    if not ms:
        return ""
    passed = sum(m["verdict"] == rep.PASS for m in ms)
    extra = []
    unres = sum(m["verdict"] == rep.UNRESOLVED for m in ms)
    if unres:
        extra.append(f"{unres} not resolved")
    fragile = sum(m.get("robust") is False for m in ms)
    if fragile:
        extra.append(f"{fragile} fragile")
    return f"{passed}/{len(ms)} pass" + (f" ({', '.join(extra)})" if extra else "")
