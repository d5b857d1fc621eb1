"""Where a scaling series stops scaling, and why: processor time per transaction by cause.

A capacity planner's first question of a larger LPAR is where it stops paying. ``zvmlab scaling``
answers where with ITR against the CAF expectation; this module answers why, from each run's
summary, in processor (thread) microseconds per transaction:

- **guest**: the guests' virtual time (SIE);
- **spin**: CP spinning on its locks (each lock's spin time, FCX265's "Spin %busy");
- **CP**: the rest of CP's time, chargeable to users or not (dispatching, paging, messages);
- **SMT**: on SMT-2, thread time beyond its MT-1 equivalent (a thread slowed by its busy
  sibling), taken from guest and CP time in proportion.

The four add up to the run's busy time per transaction (= processors / ITR) exactly, because the
engine conserves processor time (busy = users' CP + virtual + system time; spin is part of it).

Growth from the series' first run to another is split into parts that add up exactly:

- **CPI**: the same instructions take more cycles (cache sourcing as the LPAR spreads over chips
  and drawers): the non-spin time x (1 - CPI0 / CPI);
- **spin**: spin time per transaction, this run's less the first's;
- **guest path** and **CP path**: more time per transaction at the first run's CPI (more
  instructions per transaction);
- **SMT**: more thread time lost to busy siblings, at the first run's CPI.
"""

from __future__ import annotations

import textwrap
from typing import Any

#: ITR below this fraction of the CAF expectation counts as "stopped scaling" (default of --knee).
KNEE = 0.90


def breakdown(summary: dict[str, Any]) -> dict[str, Any] | None:
    """Processor time per transaction (us) by cause from one run's summary; None without
    transactions."""
    tx = summary.get("transactions") or 0
    if not isinstance(tx, (int, float)):
        return None
    if tx <= 0:
        return None
    us = 1e6 * summary["duration_s"] / 100.0 / tx  # percent of one processor -> us per transaction
    users = summary["users"]
    guest = sum(u["virtual_pct"] for u in users) * us
    cp_all = (sum(u["cp_pct"] for u in users) + summary["system_pct"]) * us
    spins = {name: lk["spin_pct_busy"] * us for name, lk in summary["locks"].items() if lk["spin_pct_busy"] > 0}
    spin = sum(spins.values())
    top = max(sorted(spins), key=lambda n: spins[n]) if spins else None
    # SMT: thread time beyond its MT-1 equivalent (threads slowed by a busy sibling), taken from
    # guest and CP time alike (spin is wall time on a thread and stays as measured).
    smt = max(0.0, summary["smt"]["raw_thread_s"] - summary["smt"]["mt1_equivalent_s"]) * 1e6 / tx
    work = guest + cp_all - spin
    keep = 1.0 - smt / work if work > 0 else 1.0
    cpi = summary["cpi"]
    return {"cpu_us_per_tx": guest + cp_all, "guest_us_per_tx": guest * keep,
            "cp_us_per_tx": (cp_all - spin) * keep, "smt_us_per_tx": smt, "spin_us_per_tx": spin,
            "top_lock": top, "top_lock_us_per_tx": spins.get(top, 0.0) if top else 0.0,
            "cpi": cpi["cpi"], "chips": cpi["chips"], "drawers": cpi["drawers"]}


def growth(base: dict[str, Any], row: dict[str, Any]) -> dict[str, float]:
    """The change of processor time per transaction from ``base`` to ``row`` (both breakdowns),
    in percent of the base's, split into parts that add up to ``total``."""
    b0, c0, cn = base["cpu_us_per_tx"], base["cpi"], row["cpi"]
    keep = c0 / cn if cn > 0 else 1.0  # the share of this run's non-spin time left at the base's CPI
    work = ("guest_us_per_tx", "cp_us_per_tx", "smt_us_per_tx")
    parts = {
        "cpi": sum(row[k] for k in work) * (1.0 - keep),
        "spin": row["spin_us_per_tx"] - base["spin_us_per_tx"],
        "guest_path": row["guest_us_per_tx"] * keep - base["guest_us_per_tx"],
        "cp_path": row["cp_us_per_tx"] * keep - base["cp_us_per_tx"],
        "smt": row["smt_us_per_tx"] * keep - base["smt_us_per_tx"],
    }
    out = {k: 100.0 * v / b0 for k, v in parts.items()}
    out["total"] = 100.0 * (row["cpu_us_per_tx"] - b0) / b0
    return out


CAUSES = {
    "cpi": "CPI (cache sourcing)",
    "spin": "spin on CP locks",
    "guest_path": "guest path per transaction",
    "cp_path": "CP path per transaction",
    "smt": "SMT (threads slowed by busy siblings)",
}


def knee(rows: list[dict[str, Any]], threshold: float = KNEE) -> dict[str, Any]:
    """Where the series stops scaling (the first run whose ITR falls below ``threshold`` of the
    CAF expectation, else none) and why: the growth of processor time per transaction from the
    first run to that run (or to the last), its parts ranked."""
    at = next((r for r in rows[1:] if r["itr_vs_caf"] is not None and r["itr_vs_caf"] < threshold), None)
    target = at or rows[-1]
    out: dict[str, Any] = {"threshold": threshold, "cores": at["cores"] if at else None,
                           "itr_vs_caf": target["itr_vs_caf"], "from_cores": rows[0]["cores"],
                           "to_cores": target["cores"]}
    if target["why"] is None or "growth" not in target["why"] or len(rows) < 2:
        out["growth"] = None
        return out
    g = target["why"]["growth"]
    out["growth"] = g
    out["causes"] = sorted(CAUSES, key=lambda k: -abs(g[k]))
    out["top_lock"] = target["why"]["top_lock"]
    return out


def explain(rows: list[dict[str, Any]]) -> None:
    """Add to each row's breakdown (``why``, from ``breakdown``) its growth from the first row's."""
    base = rows[0]["why"]
    for r in rows:
        if r["why"] is not None and base is not None and base["cpu_us_per_tx"] > 0:
            r["why"]["growth"] = growth(base, r["why"])


def sentence(k: dict[str, Any]) -> str:
    """The knee in words: where, and the main causes of the growth in CPU per transaction."""
    if k["itr_vs_caf"] is None:
        where = (f"No ITR at {k['from_cores']} cores to form the CAF expectation from (no transactions "
                 "completed there).")
    elif k["cores"] is not None:
        where = (f"Stops scaling at {k['cores']} cores: ITR is {k['itr_vs_caf']:.3f} of the CAF expectation "
                 f"(below {k['threshold']:.2f} for the first time).")
    else:
        where = (f"Scales to {k['to_cores']} cores: ITR stays at or above {k['threshold']:.2f} of the CAF "
                 f"expectation ({k['itr_vs_caf']:.3f} at {k['to_cores']}).")
    g = k.get("growth")
    if g is None:
        return where + " No transactions: the causes need a transactional workload."
    parts = []
    for c in k["causes"]:
        if abs(g[c]) < 0.5:
            continue
        name = CAUSES[c] + (f", mostly {k['top_lock']}" if c == "spin" and k.get("top_lock") else "")
        parts.append(f"{g[c]:+.1f} pp {name}")
    why = "; ".join(parts) if parts else "no part above 0.5 pp"
    return (f"{where} CPU per transaction {'grows' if g['total'] >= 0 else 'falls'} {g['total']:+.1f} % from "
            f"{k['from_cores']} to {k['to_cores']} cores: {why}.")


def breakdown_or_none(summary: Any) -> dict[str, Any] | None:
    """``breakdown`` of a summary read from a file (a run directory's summary.json), None when
    it lacks what the breakdown needs."""
    try:
        return breakdown(summary) if isinstance(summary, dict) else None
    except (AttributeError, KeyError, TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None


def versus(a: dict[str, Any], b: dict[str, Any], la: str, lb: str) -> str:
    """Two runs' processor time per transaction and the change from A to B by cause, in words."""
    g = growth(a, b)
    parts = [f"{g[k]:+.1f} pp {CAUSES[k]}" for k in sorted(CAUSES, key=lambda k: -abs(g[k])) if abs(g[k]) >= 0.05]
    lock = f" (mostly {b['top_lock']})" if g["spin"] >= 0.05 and b["top_lock"] else ""
    text = (f"Why CPU per transaction changed, {lb} against {la}: {a['cpu_us_per_tx']:.1f} -> "
            f"{b['cpu_us_per_tx']:.1f} us ({g['total']:+.1f} %): {'; '.join(parts) or 'no part above 0.05 pp'}"
            f"{lock}. CPI {a['cpi']:.3f} -> {b['cpi']:.3f}; spin {a['spin_us_per_tx']:.2f} -> "
            f"{b['spin_us_per_tx']:.2f} us per transaction.")
    return textwrap.fill(text, width=100, subsequent_indent="  ") + "\n"
