"""Every HTML report, and a --vs page, in headless Chromium: no console errors, every chart has
drawn data, and no legend covers its plot area (charts.py puts legends outside)."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser import CHART_FACTS, launch, needs_browser, overlap
from zvmlab.perfkit import build_all, load, render

GOLDEN = Path(__file__).parent / "golden"
INPUTS = ["a.mon", "c.mon", "e.mon", "g.mon", "h.mon", "i.mon"]

pytestmark = needs_browser


def _pages(tmp_path: Path) -> list[Path]:
    out = []
    for name in INPUTS:
        src = load(str(GOLDEN / name))
        p = tmp_path / f"{name}.html"
        p.write_text(render.html_text(build_all(src.m), name, describe=src.data.describe()))
        out.append(p)
    a, b = load(str(GOLDEN / "a.mon")), load(str(GOLDEN / "b.mon"))
    vs = [render.compare(ra, rb, "a", "b") for ra, rb in zip(build_all(a.m), build_all(b.m))]
    p = tmp_path / "vs.html"
    p.write_text(render.html_text(vs, "a vs b", dashed_suffix="(b)"))
    return out + [p]


def test_every_report_page_shows_its_charts_cleanly(tmp_path):
    from playwright.sync_api import sync_playwright

    pages = _pages(tmp_path)
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            n_charts = 0
            for html in pages:
                page.goto(html.as_uri(), timeout=60_000)
                charts = page.evaluate(CHART_FACTS)
                n_charts += len(charts)
                for c in charts:
                    where = f"{html.name}: {c['title'][:60]!r}"
                    assert c["area"] and c["area"]["w"] > 100 and c["area"]["h"] > 50, where
                    assert c["drawn"] > 0, f"empty chart in {where}"
                    if c["legend"]:
                        assert overlap(c["area"], c["legend"]) == 0, f"legend over the plot in {where}"
            assert not errors, errors
            assert n_charts >= 20
        finally:
            browser.close()


def test_the_check_can_fail_a_legend_inside_the_plot(tmp_path):
    """A chart drawn the old way (legend at 'best', inside the axes) is caught by the same check."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from playwright.sync_api import sync_playwright

    fig, ax = plt.subplots(figsize=(6, 3))
    for k in range(8):
        ax.plot([0, 1, 2], [k, k + 1, k], label=f"series {k}")
    ax.legend(loc="center")
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    page_file = tmp_path / "bad.html"
    page_file.write_text(f'<html><body><div class="plot">{buf.getvalue()[buf.getvalue().find("<svg"):]}</div></body></html>')
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page()
            page.goto(page_file.as_uri(), timeout=60_000)
            (c,) = page.evaluate(CHART_FACTS)
        finally:
            browser.close()
    assert c["drawn"] > 0 and overlap(c["area"], c["legend"]) > 0


@pytest.mark.parametrize("n", [3, 30])
def test_charts_fold_many_series_with_distinct_colours(n):
    from zvmlab.perfkit.charts import TOP, _colours, limit_series
    from zvmlab.perfkit.model import Plot

    p = Plot("t", "%", [1.0, 2.0], {f"U{i}": [float(i), float(i + 1)] for i in range(n)}, kind="stack")
    s = limit_series(p, compare=False)
    assert len(s) == min(n, TOP)
    if n > TOP:
        others = next(k for k in s if k.startswith("others"))
        assert s[others][0] == sum(range(n - TOP + 1))  # the smallest series, summed
    cols = _colours(list(s), compare=False)
    named = [cols[k] for k in s if not k.startswith("others")]
    assert len(set(named)) == len(named)  # distinct colours among the named series
