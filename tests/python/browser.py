"""Headless Chromium for the tests, through Playwright for Python driving Debian's `chromium`
(`make browser` installs it; Playwright's own browser download is never used)."""

from __future__ import annotations

import shutil

import pytest

CHROMIUM = next((shutil.which(b) for b in ("chromium", "chromium-browser") if shutil.which(b)), None)


def skip_reason() -> str | None:
    if CHROMIUM is None:
        return "no Chromium (run `make browser` to install it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (make dev installs it)"
    return None


needs_browser = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")


def launch(p):
    return p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], timeout=60_000)


# Per chart: the plot area (the axes' background patch), the legend box, and how many drawn
# elements (lines, bars, filled areas) the axes hold. Matplotlib's SVG names its groups.
CHART_FACTS = """
() => [...document.querySelectorAll('div.plot svg, .chart svg')].map(svg => {
  const box = el => { if (!el) return null; const r = el.getBoundingClientRect();
                      return {x: r.x, y: r.y, w: r.width, h: r.height}; };
  const axes = svg.querySelector('g[id^="axes_"]');
  const area = axes ? axes.querySelector('g[id^="patch_"]') : null;
  const drawn = axes ? axes.querySelectorAll(
      'g[id^="line2d_"] path, g[id^="PolyCollection_"] path, g[id^="FillBetweenPolyCollection_"] path, g[id^="patch_"] path').length : 0;
  const title = axes ? [...axes.querySelectorAll('g[id^="text_"] text')].map(t => t.textContent).join(' ') : '';
  return {area: box(area), legend: box(svg.querySelector('g[id^="legend_"]')), drawn, title,
          width: svg.getBoundingClientRect().width};
})
"""


def overlap(a: dict, b: dict) -> float:
    """Area of the intersection of two boxes."""
    w = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
    return max(w, 0) * max(h, 0)
