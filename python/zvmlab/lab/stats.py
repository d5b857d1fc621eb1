"""Statistics for comparing two CP levels: ratios with confidence intervals, tests, suite summaries.

IBM reports a level comparison as ratios, comparison / base: ETRR = ETR(compare) / ETR(base) and
ITRR likewise. With repeated seeds each side is a small sample, and this module answers "how
sure are we" with one named method throughout:

* **Ratio:** the ratio of the geometric means, ``exp(mean(log y) - mean(log x))`` for base
  values ``x`` and comparison values ``y``. Logs make a ratio a difference, and an effect of
  +10 % and one of -10 % symmetric (ratio 1.1 vs 1/1.1).
* **Confidence interval:** a Welch t-interval on the difference of mean log values, with the
  Welch-Satterthwaite degrees of freedom, exponentiated back to a ratio:
  ``exp(d ± t(1 - α/2, ν) · se)``, ``se = sqrt(s²x/nx + s²y/ny)`` (``s`` on logs). It does not
  assume equal variances on both sides. Needs at least two runs per side.
* **Significance test:** Welch's two-sample t-test on log metric, two-sided (the test whose
  inversion is the interval above: p < α exactly when the 1 - α interval excludes 1). Seeds are
  shared between the two levels (common random numbers), which the unpaired test ignores: that
  makes it conservative, never anti-conservative, for positively correlated pairs.
* **Many scenarios at once:** Benjamini-Hochberg adjusted p-values (false discovery rate) and
  Holm adjusted p-values (family-wise error rate), both over the scenarios of a suite.
* **Suite summary:** mean and (sample, n - 1) standard deviation of the per-scenario ratios, as
  in IBM's reports, their geometric mean, and counts better / worse / same, where "same" means
  ``|ratio - 1| <= threshold`` (default 2 %).

Degenerate samples are reported, not hidden: with fewer than two runs per side the interval and
p-value are ``None``; when every log value on both sides is the same (zero spread) the interval
is the point and p is 1 if the means agree, else 0; a non-positive or non-finite value (a run
with no transactions) makes the ratio ``None`` with a reason.

Pure Python/numpy: the Student t distribution is computed from the regularized incomplete beta
function (continued fraction, Lentz's method); tests check every function against scipy.stats.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

import numpy as np

METHOD = {
    "ratio": "ratio of geometric means, comparison / base",
    "interval": "Welch t-interval on the difference of mean log metric (Welch-Satterthwaite df), exponentiated",
    "test": "Welch's two-sample t-test on log metric, two-sided",
    "multiple_testing": "Benjamini-Hochberg (FDR) and Holm (FWER) adjusted p-values over the suite's scenarios",
}


# --------------------------------------------------------------------------------------------
# The Student t distribution
# --------------------------------------------------------------------------------------------

def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = tiny if abs(d) < tiny else d
    d = 1.0 / d
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if not (a > 0 and b > 0):
        raise ValueError("betainc needs a > 0 and b > 0")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_sf2(t: float, df: float) -> float:
    """Two-sided tail probability P(|T| >= |t|) of Student's t with ``df`` (> 0, not nec. whole)."""
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    if math.isinf(df):
        return math.erfc(abs(t) / math.sqrt(2.0))
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    half = 0.5 * t_sf2(t, df)
    return 1.0 - half if t > 0 else half


def t_ppf(p: float, df: float) -> float:
    """The quantile of Student's t: the t with P(T <= t) = p (0 < p < 1)."""
    if not 0.0 < p < 1.0:
        if p == 0.0:
            return -math.inf
        if p == 1.0:
            return math.inf
        raise ValueError("t_ppf needs 0 <= p <= 1")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_ppf(1.0 - p, df)
    # p > 0.5: bracket then bisect on the two-sided tail 2(1-p), which is precise far out.
    target = 2.0 * (1.0 - p)
    lo, hi = 0.0, 1.0
    while t_sf2(hi, df) > target:
        lo, hi = hi, hi * 2.0
        if hi > 1e300:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_sf2(mid, df) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-14 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


# --------------------------------------------------------------------------------------------
# Two samples: ratio, interval, test
# --------------------------------------------------------------------------------------------

@dataclass
class Welch:
    """Welch's t-test of mean(y) - mean(x) (here: on logs)."""

    diff: float
    se: float
    df: float | None
    t: float | None
    p: float | None


def welch(x: Sequence[float], y: Sequence[float]) -> Welch:
    """Welch's two-sample t-test of ``mean(y) - mean(x)``; two-sided p-value."""
    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    nx, ny = len(xa), len(ya)
    if nx == 0 or ny == 0:
        raise ValueError("welch needs at least one value per sample")
    diff = float(ya.mean() - xa.mean())
    if nx < 2 or ny < 2:
        return Welch(diff, math.nan, None, None, None)
    vx, vy = float(xa.var(ddof=1)) / nx, float(ya.var(ddof=1)) / ny
    se2 = vx + vy
    if se2 <= 0.0 or se2 < 1e-30 * max(1.0, diff * diff):
        # no spread at all: the difference is exact
        return Welch(diff, 0.0, None, None, 1.0 if diff == 0.0 else 0.0)
    se = math.sqrt(se2)
    df = se2 * se2 / (vx * vx / (nx - 1) + vy * vy / (ny - 1))
    t = diff / se
    return Welch(diff, se, df, t, t_sf2(t, df))


@dataclass
class Ratio:
    """A comparison/base ratio over repeated runs, with its interval and test."""

    ratio: float | None
    lo: float | None
    hi: float | None
    p: float | None
    df: float | None
    n_base: int
    n_compare: int
    reason: str = ""

    def to_json(self) -> dict:
        return asdict(self)


def ratio(base: Sequence[float], compare: Sequence[float], confidence: float = 0.95) -> Ratio:
    """The ratio of geometric means compare / base with a Welch t-interval on logs and Welch's test.

    See the module docstring for the method and the degenerate cases.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")
    b, c = [float(v) for v in base], [float(v) for v in compare]
    nb, nc = len(b), len(c)
    if nb == 0 or nc == 0:
        return Ratio(None, None, None, None, None, nb, nc, "no runs")
    if not all(math.isfinite(v) and v > 0 for v in b + c):
        return Ratio(None, None, None, None, None, nb, nc, "a run has a non-positive or non-finite value")
    w = welch(np.log(b), np.log(c))
    r = math.exp(w.diff)
    if nb < 2 or nc < 2:
        return Ratio(r, None, None, None, None, nb, nc, "an interval needs two runs per level (--repeat 2 or more)")
    if w.se == 0.0:
        return Ratio(r, r, r, w.p, None, nb, nc, "no spread between runs: the ratio is exact")
    assert w.df is not None
    q = t_ppf(0.5 + confidence / 2.0, w.df)
    return Ratio(r, math.exp(w.diff - q * w.se), math.exp(w.diff + q * w.se), w.p, w.df, nb, nc)


# --------------------------------------------------------------------------------------------
# Many tests at once
# --------------------------------------------------------------------------------------------

def _valid(ps: Sequence[float | None]) -> tuple[list[int], np.ndarray]:
    idx = [i for i, p in enumerate(ps) if p is not None and not math.isnan(p)]
    arr = np.array([ps[i] for i in idx], dtype=float)
    if np.any((arr < 0) | (arr > 1)):
        raise ValueError("p-values must be in [0, 1]")
    return idx, arr


def bh_adjust(ps: Sequence[float | None]) -> list[float | None]:
    """Benjamini-Hochberg adjusted p-values (step-up; None stays None and is not counted).

    ``adj(i) = min over j >= i of m/j * p(j)`` for p sorted ascending, capped at 1; reject at
    FDR q where ``adj <= q``.
    """
    idx, p = _valid(ps)
    out: list[float | None] = [None] * len(ps)
    m = len(p)
    if m == 0:
        return out
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    adj = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    for k, o in enumerate(order):
        out[idx[o]] = float(adj[k])
    return out


def holm_adjust(ps: Sequence[float | None]) -> list[float | None]:
    """Holm adjusted p-values (step-down Bonferroni; None stays None and is not counted).

    ``adj(i) = max over j <= i of (m - j + 1) * p(j)`` for p sorted ascending, capped at 1;
    reject at family-wise level α where ``adj <= α``.
    """
    idx, p = _valid(ps)
    out: list[float | None] = [None] * len(ps)
    m = len(p)
    if m == 0:
        return out
    order = np.argsort(p, kind="stable")
    scaled = p[order] * (m - np.arange(m))
    adj = np.minimum(1.0, np.maximum.accumulate(scaled))
    for k, o in enumerate(order):
        out[idx[o]] = float(adj[k])
    return out


# --------------------------------------------------------------------------------------------
# Suite summary
# --------------------------------------------------------------------------------------------

BETTER, WORSE, SAME = "better", "worse", "same"


def verdict(r: float | None, threshold: float) -> str | None:
    """better / worse / same for a ratio (higher is better for ETR and ITR)."""
    if r is None:
        return None
    if r > 1.0 + threshold:
        return BETTER
    if r < 1.0 - threshold:
        return WORSE
    return SAME


def describe(ratios: Iterable[float | None], ps: Sequence[float | None], threshold: float = 0.02,
             alpha: float = 0.05) -> dict:
    """Summary of one metric's per-scenario ratios: n, mean, sd, geometric mean, min, max, counts
    better / worse / same at ``threshold``, and how many differ significantly at ``alpha`` after
    Benjamini-Hochberg and after Holm (split into better and worse)."""
    rs = list(ratios)
    ps = list(ps)
    if len(ps) != len(rs):
        raise ValueError("one p-value (or None) per ratio")
    vals = np.array([r for r in rs if r is not None], dtype=float)
    n = len(vals)
    out: dict = {"n": n, "threshold": threshold, "alpha": alpha}
    if n:
        out |= {"mean": float(vals.mean()), "sd": float(vals.std(ddof=1)) if n > 1 else None,
                "geomean": float(np.exp(np.log(vals).mean())), "min": float(vals.min()), "max": float(vals.max())}
    else:
        out |= {"mean": None, "sd": None, "geomean": None, "min": None, "max": None}
    vs = [verdict(r, threshold) for r in rs]
    out |= {BETTER: vs.count(BETTER), WORSE: vs.count(WORSE), SAME: vs.count(SAME)}
    for name, adj in (("bh", bh_adjust(ps)), ("holm", holm_adjust(ps))):
        sig = [(r, a) for r, a in zip(rs, adj) if r is not None and a is not None and a <= alpha]
        out[f"significant_{name}"] = {BETTER: sum(1 for r, _ in sig if r > 1.0),
                                      WORSE: sum(1 for r, _ in sig if r < 1.0)}
    out["tested"] = sum(1 for r, p in zip(rs, ps) if r is not None and p is not None)
    return out
