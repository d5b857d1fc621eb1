"""Verdicts of `zvmlab replicate`: a simulated figure against a published one, over seeds.

The rules are those of shared/EXPERIMENTS.md:

* A figure passes when it is within the metric's tolerance of the published figure (or on the
  right side of a published bound: ``"below X"``, ``"above X"``, ``"at most X"``, ``"at least X"``;
  or near / away from zero: ``"tracks"``, ``"deviated"``).
* A **change** passes only with the published direction. A change is a published ratio
  (``published_ratio``, or a ``divide_by`` ratio of two runs), or a metric published at both
  levels. Where the published change is at least :data:`EFFECT` (relative), the simulated
  change must go the same way by at least half the published change (:data:`SHARE`; the
  criterion EXPERIMENTS.md gives for F1 and issue 17 for D1/D2) and by :data:`FLAT` at least:
  "no effect" never passes a published effect, whatever the tolerance.
* **Seeds.** A metric runs over several seeds. The verdict is taken on the mean over the seeds
  and on every seed alone; when they do not all agree, the margin is inside the seed spread and
  the verdict is :data:`UNRESOLVED`.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from ..errors import InputError

PASS, MISS, UNRESOLVED = "pass", "miss", "not resolved"
NOT_MODELLED, OUT_OF_SCOPE = "not modelled yet", "out of scope"

# A published change smaller than this (relative) is "no change": no direction is required of
# the simulation (the suite's own threshold for "same" is ±2 % too).
EFFECT = 0.02
# A simulated change smaller than this (relative) is no effect: it never passes a published one.
FLAT = 0.005
# A simulated change must reach this share of the published change (same direction).
SHARE = 0.5


@dataclass
class Tolerance:
    value: float
    relative: bool

    @classmethod
    def parse(cls, text: str, where: str, file: str = "") -> "Tolerance":
        t = str(text).strip()
        try:
            if t.endswith("pp"):
                return cls(float(t[:-2]), False)
            if t.endswith("%"):
                return cls(float(t[:-1]) / 100, True)
        except ValueError:
            pass
        raise InputError(f"bad tolerance {text!r}", file=file, field=where,
                         fix='write "2pp" (absolute) or "20%" (relative)')

    def bound(self, published: float) -> float:
        return self.value * abs(published) if self.relative else self.value

    def ok(self, simulated: float, published: float) -> bool:
        return abs(simulated - published) <= self.bound(published) + 1e-12

    def __str__(self) -> str:
        return f"{self.value * 100:g}%" if self.relative else f"{self.value:g}pp"


def check_value(sim: float, published, tol: Tolerance) -> str | None:
    """One side of a metric against its published figure (None: nothing published)."""
    if published is None:
        return None
    if math.isnan(sim):
        return MISS
    if published == "tracks":
        return PASS if tol.ok(sim, 0.0) else MISS
    if published == "deviated":
        return MISS if tol.ok(sim, 0.0) else PASS
    if isinstance(published, str):
        word, _, rest = published.partition(" ")
        if word == "at":  # "at most X" / "at least X": not beyond X by more than the tolerance
            how, x = rest.split()[0], float(rest.split()[1])
            b = tol.bound(x)
            return PASS if (sim <= x + b + 1e-12 if how == "most" else sim >= x - b - 1e-12) else MISS
        if word in ("below", "above"):
            # clearly below / above X: by more than the tolerance, and by FLAT of X at least
            x = float(rest)
            margin = max(tol.bound(x), FLAT * abs(x))
            return PASS if (sim < x - margin if word == "below" else sim > x + margin) else MISS
    return PASS if tol.ok(sim, float(published)) else MISS


def changes(metric, vals: dict[str, float]) -> list[tuple[float, float]]:
    """The changes a metric publishes, each as (published, simulated) ratios: a published ratio
    (compare / base); each side of a ``divide_by`` metric (a ratio of two runs, so a change
    against 1); or a figure published at both levels (compare / base)."""
    r = metric.published_ratio
    if isinstance(r, (int, float)):
        return [(float(r), vals.get("ratio", math.nan))]
    pb, pc = metric.published_base, metric.published_compare
    num = lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)  # noqa: E731
    if metric.divide_by or getattr(metric, "change", False):
        return [(float(x), vals.get(side, math.nan)) for side, x in (("base", pb), ("compare", pc)) if num(x)]
    if num(pb) and num(pc) and pb:
        b, c = vals.get("base", math.nan), vals.get("compare", math.nan)
        return [(float(pc) / float(pb), c / b if b else math.nan)]
    return []


def check_direction(published: float | None, simulated: float) -> str | None:
    """A published change (as a ratio) against the simulated one: the same direction, by at
    least SHARE of the published change and FLAT; None when the published change is below
    EFFECT (no direction to check)."""
    if published is None or abs(published - 1.0) < EFFECT:
        return None
    if math.isnan(simulated):
        return MISS
    need = max(FLAT, SHARE * abs(published - 1.0))
    up = published > 1.0
    return PASS if (simulated - 1.0 >= need - 1e-12 if up else 1.0 - simulated >= need - 1e-12) else MISS


def point_verdict(metric, vals: dict[str, float]) -> str:
    """The verdict of one metric on one set of values: ``base``/``compare`` (the two levels) and
    ``ratio`` (compare / base, for published ratios)."""
    tol = metric.tolerance
    checks: list[str | None] = []
    if metric.published_ratio is not None:
        checks.append(check_value(vals.get("ratio", math.nan), metric.published_ratio, tol))
    else:
        checks.append(check_value(vals.get("base", math.nan), metric.published_base, tol))
        checks.append(check_value(vals.get("compare", math.nan), metric.published_compare, tol))
    checks.extend(check_direction(p, s) for p, s in changes(metric, vals))
    got = [c for c in checks if c]
    if not got:
        return MISS
    return MISS if MISS in got else PASS


def over_seeds(metric, per_seed: list[dict[str, float]]) -> tuple[str, dict[str, float], dict[str, dict]]:
    """The verdict over seeds: the verdict of the means if every seed alone gives it too, else
    UNRESOLVED. Returns (verdict, means, spread per key)."""
    keys = sorted({k for v in per_seed for k in v})
    means, spread = {}, {}
    for k in keys:
        xs = [v.get(k, math.nan) for v in per_seed]
        good = [x for x in xs if not math.isnan(x)]
        means[k] = statistics.fmean(good) if len(good) == len(xs) and good else math.nan
        spread[k] = {"values": [None if math.isnan(x) else x for x in xs],
                     "sd": statistics.stdev(good) if len(good) > 1 else 0.0,
                     "min": min(good) if good else None, "max": max(good) if good else None}
    verdict = point_verdict(metric, means)
    if len(per_seed) > 1 and any(point_verdict(metric, v) != verdict for v in per_seed):
        verdict = UNRESOLVED
    return verdict, means, spread


def judge_shape(xs: list[float], ys: list[float], shape: str, file: str = "") -> str:
    """Shape rules for sweep rows: "decreasing", "increasing" (monotone, and the ends apart by
    FLAT at least: a flat line fails), "flat above X" (what is saved beyond X is under a fifth
    of what is saved up to X), "u-shaped" (worst at both ends, by FLAT at least)."""
    if any(math.isnan(y) for y in ys) or len(ys) < 3:
        return MISS
    scale = max(abs(ys[0]), abs(ys[-1]), 1e-12)
    if shape in ("decreasing", "increasing"):
        sign = -1 if shape == "decreasing" else 1
        mono = all(sign * (b - a) >= -1e-9 * max(1.0, abs(a)) for a, b in zip(ys, ys[1:]))
        return PASS if mono and sign * (ys[-1] - ys[0]) >= FLAT * scale else MISS
    if shape.startswith("flat above"):
        x0 = float(shape.split()[-1])
        k = min(range(len(xs)), key=lambda i: abs(xs[i] - x0))
        before, after = abs(ys[0] - ys[k]), abs(ys[k] - ys[-1])
        return PASS if before >= FLAT * scale and after < 0.2 * before else MISS
    if shape == "u-shaped":
        inner = min(ys[1:-1])
        m = FLAT * max(abs(inner), 1.0)
        return PASS if ys[0] > inner + m and ys[-1] > inner + m else MISS
    raise InputError(f"unknown shape {shape!r}", file=file,
                     fix='use "decreasing", "increasing", "flat above X" or "u-shaped"')
