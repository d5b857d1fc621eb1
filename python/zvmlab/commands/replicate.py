"""zvmlab replicate: IBM's published experiments, published figure beside simulated figure."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click
from rich.table import Table

from ..errors import InputError
from ..output import console, dumps, err_console


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    return f"{v:.4g}" if abs(v) < 1000 else f"{v:,.0f}"


@click.command("replicate")
@click.option("--only", help="Comma-separated row ids (e.g. A1,A2) or sections (A,B,...).")
@click.option("--seed", type=click.IntRange(min=0), help="Override every scenario's seed.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Processes to run rows in (default: the number of CPUs).")
@click.option("--all-rows", is_flag=True, help="Also list rows that are not modelled yet or out of scope.")
@click.option("--json", "json_file", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the results as JSON to this file ('-' for stdout).")
@click.option("--markdown", "md_file", type=click.Path(dir_okay=False),
              help="Write a Markdown table with one line per row (metrics passing / judged, or why not run).")
@click.option("--html", "html_dir", type=click.Path(file_okay=False),
              help="Write an HTML report (table and charts) into this directory.")
def replicate(only: str | None, seed: int | None, jobs: int | None, all_rows: bool, json_file: str | None,
              md_file: str | None, html_dir: str | None) -> None:
    """Run every modelled row of shared/EXPERIMENTS.md at its base and comparison level."""
    from ..lab import replicate as rep
    from ..output import progress

    rows = rep.load_catalogue()
    if only:
        want = {w.strip().upper() for w in only.split(",") if w.strip()}
        known = {r.id for r in rows} | {r.id[0] for r in rows}
        bad = sorted(want - known)
        if bad:
            raise InputError(f"unknown row id(s) {', '.join(bad)}", field="--only",
                             fix="ids look like A1, B4; sections are A-F; `zvmlab replicate --all-rows` lists them")
        rows = [r for r in rows if r.id in want or r.id[0] in want]
    with progress("replicate", json_file != "-") as update:
        import os

        results = rep.replicate_parallel(rows, jobs or os.cpu_count() or 1,
                                         progress=lambda d, n, rid: update(d, max(n, 1)), seed=seed)
    if html_dir:
        from ..lab import replicate_html

        page = replicate_html.write(results, html_dir)
        err_console.print(f"HTML report: {page}")
    if md_file:
        tmp = Path(md_file).with_name(f".{Path(md_file).name}.tmp")
        tmp.write_text(markdown(results))
        tmp.replace(md_file)
        err_console.print(f"Markdown written to {md_file}")
    if json_file:
        text = dumps({"rows": results})
        if json_file == "-":
            click.echo(text, nl=False)
            return
        tmp = Path(json_file).with_name(f".{Path(json_file).name}.tmp")
        tmp.write_text(text)
        tmp.replace(json_file)
    t = Table(title="zvmlab replicate: published (IBM) vs simulated (zvmlab)", title_justify="left")
    for c in ("Id", "Metric", "Levels", "Published base", "Published comp.", "Simulated base", "Simulated comp.",
              "Tol.", "Verdict"):
        t.add_column(c, justify="right" if c.startswith(("Published", "Simulated")) else "left", overflow="fold")
    colors = {rep.PASS: "green", rep.MISS: "red"}
    for r in results:
        if r["metric"] is None:
            if not all_rows:
                continue
            t.add_row(r["id"], r["what"], "", r["published"], "", "", "", "",
                      f"{r['verdict']} ({r['reason']})")
            continue
        pub, sim = r["published"], r["simulated"]
        v = r["verdict"]
        t.add_row(r["id"], r["metric"], rep.levels_label(r), _fmt(pub.get("base")),
                  _fmt(pub.get("compare")), _fmt(sim.get("base")), _fmt(sim.get("compare")), r["tolerance"],
                  f"[{colors.get(v, 'yellow')}]{v}[/]")
    console.print(t)
    by_row: dict[str, str] = {}
    for r in results:
        cur = by_row.get(r["id"])
        by_row[r["id"]] = r["verdict"] if cur in (None, rep.PASS) else cur
    counts = Counter(by_row.values())
    console.print("rows: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    if json_file:
        err_console.print(f"JSON written to {json_file}")


def markdown(results: list[dict]) -> str:
    """One line per catalogue row: metrics passing / judged, or the verdict and its reason."""
    from ..lab import replicate as rep

    order: list[str] = []
    rows: dict[str, dict] = {}
    for r in results:
        if r["id"] not in rows:
            order.append(r["id"])
            rows[r["id"]] = {"what": r["what"], "judged": 0, "passed": 0, "verdict": r["verdict"],
                             "reason": r.get("reason", "")}
        x = rows[r["id"]]
        if r["metric"] is not None and r["verdict"] in (rep.PASS, rep.MISS):
            x["judged"] += 1
            x["passed"] += r["verdict"] == rep.PASS
    out = ["| Row | Experiment | Result |", "|---|---|---|"]
    for i in order:
        x = rows[i]
        what = x["what"] if len(x["what"]) <= 70 else x["what"][:67] + "..."
        if x["judged"]:
            res = f"{x['passed']}/{x['judged']} pass"
        else:
            reason = x["reason"] if len(x["reason"]) <= 60 else x["reason"][:57] + "..."
            res = f"{x['verdict']} ({reason})" if reason else x["verdict"]
        out.append(f"| {i} | {what.replace('|', '/')} | {res.replace('|', '/')} |")
    return "\n".join(out) + "\n"
