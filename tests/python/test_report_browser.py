"""The HTML report in a real headless browser: Chromium renders it and a screenshot shows the
plots (matplotlib's line colours appear in the pixels). Runs only where Chromium is installed
(`make browser` installs it from Debian packages); skipped otherwise."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from zvmlab.perfkit import build_all, load, render

GOLDEN = Path(__file__).parent / "golden"
BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)

pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium (run `make browser` to install it)")

BLUE, ORANGE = (31, 119, 180), (255, 127, 14)  # matplotlib's first two colours


def screenshot(html: Path, png: Path, height: int) -> None:
    p = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--user-data-dir={png.parent / 'profile'}", f"--window-size=1280,{height}",
                        f"--screenshot={png}", html.as_uri()], capture_output=True, text=True, timeout=120)
    assert png.exists(), p.stderr[-2000:]


def count(img, colour, tol=30) -> int:
    import numpy as np

    a = np.asarray(img, dtype=int)
    return int((np.abs(a - np.array(colour)).max(axis=2) < tol).sum())


def test_html_report_renders_its_plots_in_chromium(tmp_path):
    from PIL import Image

    src = load(str(GOLDEN / "a.mon"))
    html = tmp_path / "report.html"
    html.write_text(render.html_text(build_all(src.m), "zvmlab report", describe=src.data.describe()))
    png = tmp_path / "report.png"
    screenshot(html, png, 1400)
    img = Image.open(png).convert("RGB")
    assert img.size == (1280, 1400)
    # the page is not blank and the first plots (PROCLOG's) are drawn: their lines' colours are there
    assert count(img, BLUE) > 300, "no plot lines in the screenshot"
    assert count(img, ORANGE) > 100
    # the plots sit above the first table, in the top part of the page
    top = img.crop((0, 0, 1280, 500))
    assert count(top, BLUE) > 100
    if os.environ.get("ZVMLAB_KEEP_SCREENSHOT"):
        shutil.copy(png, os.environ["ZVMLAB_KEEP_SCREENSHOT"])


def test_a_page_without_plots_has_none_of_their_colours(tmp_path):
    """The check above can fail: the same page with its SVGs removed shows no plot colours."""
    from PIL import Image
    import re

    src = load(str(GOLDEN / "a.mon"))
    page = render.html_text(build_all(src.m), "zvmlab report")
    html = tmp_path / "bare.html"
    html.write_text(re.sub(r"<svg.*?</svg>", "", page, flags=re.S))
    png = tmp_path / "bare.png"
    screenshot(html, png, 1400)
    img = Image.open(png).convert("RGB")
    assert count(img, ORANGE) < 50


def _replicate_results() -> list[dict]:
    """A scaling row (ITR and T/V at three core counts) and a two-level row, as replicate writes them."""
    def m(name, cores, pub, sim, lo, hi):
        return {"id": "B7", "what": "Apache scaling", "metric": name, "basis": "predicted", "at": {"processors": cores},
                "cores": cores, "base_level": None, "compare_level": "zvm-6.3", "published": {"compare": pub},
                "simulated": {"compare": sim}, "spread": {"compare": {"min": lo, "max": hi}}, "tolerance": "20%",
                "verdict": "pass", "seeds": [1, 2, 3]}
    rows = [m(f"ITR, {c} cores", c, p, s, s * 0.98, s * 1.02) for c, p, s in ((4, 6878, 6900), (16, 23158, 22000),
                                                                                (64, 39698, 37000))]
    rows += [m(f"T/V, {c} cores", c, p, s, s, s) for c, p, s in ((4, 1.13, 1.13), (16, 1.15, 1.14), (64, 2.97, 2.4))]
    rows.append({"id": "C5", "what": "lock manager", "metric": "ETRR", "basis": "construction", "why": "a switch",
                 "base_level": "a", "compare_level": "b", "published": {"base": 1.0, "compare": 2.0},
                 "simulated": {"base": 1.0, "compare": 1.0}, "tolerance": "20%", "verdict": "miss", "seeds": [1]})
    return rows


def test_replicate_report_draws_scaling_rows_as_lines_with_one_axis_per_quantity(tmp_path):
    from PIL import Image

    from zvmlab.lab import replicate_html

    res = _replicate_results()
    svg = replicate_html.scaling_svg("B7", res[:6])
    assert svg.count('id="axes_') == 2  # ITR and T/V apart
    page = replicate_html.write(res, tmp_path / "rep", {"headline": "predicted: 6 of 6 within tolerance"})
    text = page.read_text()
    assert "predicted: 6 of 6" in text and "by construction" in text and "a switch" in text
    png = tmp_path / "rep.png"
    screenshot(page, png, 1600)
    img = Image.open(png).convert("RGB")
    # the simulated lines (orange) and published lines (grey) are drawn below the table
    assert count(img, (230, 85, 13)) > 200, "no simulated line or bar in the screenshot"
