"""zvmlab.lab.stats against scipy.stats on known samples, plus properties (hypothesis)."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from zvmlab.lab import stats

scipy_stats = pytest.importorskip("scipy.stats")

# Known samples: ETR-like values of a base and a comparison level over five seeds.
BASE = [2007.0, 1991.0, 2013.0, 2002.0, 1998.0]
COMP = [2061.0, 2049.0, 2075.0, 2040.0, 2068.0]
UNEQUAL = ([10.2, 9.8, 10.1], [11.5, 9.0, 12.8, 10.9, 13.3, 8.7])  # unequal n and spread


@pytest.mark.parametrize("df", [1, 1.5, 2, 3.7, 5, 10, 29.3, 100, 1e4])
@pytest.mark.parametrize("t", [-40.0, -3.2, -1.0, -0.1, 0.0, 0.4, 1.96, 2.5, 7.0, 60.0])
def test_t_cdf_matches_scipy(t, df):
    assert stats.t_cdf(t, df) == pytest.approx(scipy_stats.t.cdf(t, df), rel=1e-10, abs=1e-300)
    assert stats.t_sf2(t, df) == pytest.approx(2 * scipy_stats.t.sf(abs(t), df), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("df", [1, 2, 2.6, 4, 7.3, 30, 250])
@pytest.mark.parametrize("p", [1e-6, 0.005, 0.025, 0.05, 0.3, 0.5, 0.8, 0.975, 0.995, 1 - 1e-7])
def test_t_ppf_matches_scipy(p, df):
    assert stats.t_ppf(p, df) == pytest.approx(scipy_stats.t.ppf(p, df), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("a,b,x", [(0.5, 0.5, 0.3), (2.5, 0.5, 0.9), (10, 0.5, 0.01), (1, 1, 0.7), (50, 0.5, 0.999)])
def test_betainc_matches_scipy(a, b, x):
    from scipy.special import betainc

    assert stats.betainc(a, b, x) == pytest.approx(betainc(a, b, x), rel=1e-11)


@pytest.mark.parametrize("x,y", [(BASE, COMP), UNEQUAL, (COMP, BASE)])
def test_welch_matches_scipy_ttest_ind(x, y):
    lx, ly = np.log(x), np.log(y)
    ours = stats.welch(lx, ly)
    ref = scipy_stats.ttest_ind(ly, lx, equal_var=False)
    assert ours.t == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.p == pytest.approx(ref.pvalue, rel=1e-9)
    assert ours.df == pytest.approx(ref.df, rel=1e-12)


@pytest.mark.parametrize("x,y", [(BASE, COMP), UNEQUAL])
@pytest.mark.parametrize("conf", [0.9, 0.95, 0.99])
def test_ratio_interval_matches_scipy_confidence_interval(x, y, conf):
    r = stats.ratio(x, y, confidence=conf)
    ref = scipy_stats.ttest_ind(np.log(y), np.log(x), equal_var=False)
    ci = ref.confidence_interval(confidence_level=conf)
    assert r.ratio == pytest.approx(math.exp(np.log(y).mean() - np.log(x).mean()), rel=1e-12)
    assert r.ratio == pytest.approx(scipy_stats.gmean(y) / scipy_stats.gmean(x), rel=1e-12)
    assert r.lo == pytest.approx(math.exp(ci.low), rel=1e-9)
    assert r.hi == pytest.approx(math.exp(ci.high), rel=1e-9)
    assert r.p == pytest.approx(ref.pvalue, rel=1e-9)


def test_known_sample_is_significantly_better():
    r = stats.ratio(BASE, COMP)
    assert 1.02 < r.ratio < 1.04 and r.lo > 1.0 and r.p < 1e-3
    assert stats.verdict(r.ratio, 0.02) == stats.BETTER
    assert stats.verdict(0.97, 0.02) == stats.WORSE and stats.verdict(1.01, 0.02) == stats.SAME


def test_degenerate_samples():
    one = stats.ratio([100.0], [110.0])
    assert one.ratio == pytest.approx(1.1) and one.lo is None and one.p is None and "two runs" in one.reason
    flat = stats.ratio([5.0, 5.0, 5.0], [5.0, 5.0])
    assert flat.ratio == pytest.approx(1.0) and flat.lo == flat.hi == flat.ratio and flat.p == 1.0
    flat2 = stats.ratio([5.0, 5.0], [6.0, 6.0])
    assert flat2.p == 0.0 and flat2.lo == pytest.approx(1.2)
    zero = stats.ratio([0.0, 3.0], [1.0, 2.0])
    assert zero.ratio is None and "non-positive" in zero.reason
    assert stats.ratio([], [1.0]).ratio is None


P = [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216, 0.222, 0.251, 0.269, 0.275, 0.34,
     0.341, 0.384, 0.569, 0.594, 0.696, 0.762, 0.94, 0.942, 0.975, 0.986]  # Benjamini & Hochberg's example scale


@pytest.mark.parametrize("ps", [P, [0.04, 0.01, 0.03, 0.005], [0.5], [0.2, 0.2, 0.2], list(np.linspace(0, 1, 11))])
def test_bh_matches_scipy(ps):
    ref = scipy_stats.false_discovery_control(ps, method="bh")
    assert stats.bh_adjust(ps) == pytest.approx(list(ref), rel=1e-12)


def test_holm_known_values():
    # sorted 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, then max(0.06, 0.04*1) = 0.06
    assert stats.holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.holm_adjust([0.5, None, 0.01]) == pytest.approx([0.5, None, 0.02])
    assert stats.bh_adjust([None, None]) == [None, None]


def _holm_by_definition(ps):
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out = [0.0] * m
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * ps[i]))
        out[i] = running
    return out


def test_holm_against_bonferroni_rejections():
    # Holm rejects H(1..k) where p(j) <= alpha / (m - j + 1) holds for every j <= k.
    rng = np.random.default_rng(8)
    for _ in range(50):
        ps = list(rng.uniform(0, 0.2, size=rng.integers(1, 15)))
        adj = stats.holm_adjust(ps)
        assert adj == pytest.approx(_holm_by_definition(ps))
        alpha = 0.05
        srt = sorted(ps)
        k = 0
        while k < len(srt) and srt[k] <= alpha / (len(srt) - k):
            k += 1
        assert sum(a <= alpha for a in adj) == k


def test_describe_suite_summary():
    ratios = [1.10, 0.90, 1.00, 1.01, None, 1.30]
    ps = [0.001, 0.02, 0.9, 0.5, None, 0.04]
    d = stats.describe(ratios, ps, threshold=0.02, alpha=0.05)
    vals = np.array([1.10, 0.90, 1.00, 1.01, 1.30])
    assert d["n"] == 5
    assert d["mean"] == pytest.approx(vals.mean()) and d["sd"] == pytest.approx(scipy_stats.tstd(vals))
    assert d["geomean"] == pytest.approx(scipy_stats.gmean(vals))
    assert (d["better"], d["worse"], d["same"]) == (2, 1, 2)
    bh = scipy_stats.false_discovery_control([0.001, 0.02, 0.9, 0.5, 0.04])  # 0.005 0.05 0.9 0.625 0.0667
    assert sum(bh <= 0.05) == 2
    assert d["significant_bh"] == {"better": 1, "worse": 1}
    assert d["significant_holm"] == {"better": 1, "worse": 0}  # 0.001*5 only
    assert d["tested"] == 5


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

pos = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)
samples = st.lists(pos, min_size=2, max_size=8)


@settings(max_examples=150, deadline=None)
@given(samples, samples)
def test_interval_contains_ratio_and_swaps(x, y):
    r = stats.ratio(x, y)
    s = stats.ratio(y, x)
    assert r.ratio is not None and r.lo is not None
    assert r.lo <= r.ratio * (1 + 1e-12) and r.ratio <= r.hi * (1 + 1e-12)
    assert r.ratio * s.ratio == pytest.approx(1.0, rel=1e-9)
    if r.lo != r.hi:
        assert r.lo * s.hi == pytest.approx(1.0, rel=1e-6) and r.hi * s.lo == pytest.approx(1.0, rel=1e-6)
    assert 0.0 <= r.p <= 1.0 and r.p == pytest.approx(s.p, rel=1e-9, abs=1e-15)


@settings(max_examples=100, deadline=None)
@given(samples, samples, st.floats(min_value=1e-3, max_value=1e3))
def test_ratio_scale_invariance(x, y, k):
    a, b = stats.ratio(x, y), stats.ratio([k * v for v in x], [k * v for v in y])
    assert b.ratio == pytest.approx(a.ratio, rel=1e-9)
    if a.p is not None and a.lo != a.hi and a.df is not None and a.df > 1.01:
        assert b.p == pytest.approx(a.p, rel=1e-5, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(samples, samples)
def test_test_and_interval_agree(x, y):
    r = stats.ratio(x, y, confidence=0.95)
    assume(r.p is not None and r.lo != r.hi and abs(r.p - 0.05) > 1e-6)
    assert (r.p < 0.05) == (not (r.lo <= 1.0 <= r.hi))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats(min_value=0, max_value=1)), max_size=30))
def test_adjusted_pvalues_properties(ps):
    bh, holm = stats.bh_adjust(ps), stats.holm_adjust(ps)
    for p, b, h in zip(ps, bh, holm):
        if p is None:
            assert b is None and h is None
            continue
        assert p - 1e-15 <= b <= 1.0 and p - 1e-15 <= h <= 1.0
        assert b <= h + 1e-12  # Holm is never less conservative than BH
    valid = [(p, b, h) for p, b, h in zip(ps, bh, holm) if p is not None]
    for (p1, b1, h1) in valid:  # monotone in the raw p-values
        for (p2, b2, h2) in valid:
            if p1 < p2:
                assert b1 <= b2 + 1e-12 and h1 <= h2 + 1e-12
    if valid:
        ref = scipy_stats.false_discovery_control([p for p, _, _ in valid])
        assert [b for _, b, _ in valid] == pytest.approx(list(ref), rel=1e-9, abs=1e-15)
