"""`zvmlab serve` end to end: a real server on 127.0.0.1 (an OS-chosen port) driven by headless
Chromium: browse runs, a run's page and chart, its reports, compare two runs, a sweep's metric
chart, replicate's page; paths outside the root are refused. Bounded: every wait has a timeout."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from browser import CHART_FACTS, launch, needs_browser
from conftest import SHOWCASE, zvmlab
from zvmlab.commands.serve import is_loopback, serve


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    r = tmp_path_factory.mktemp("serve")
    text = SHOWCASE.read_text()
    assert "processors = 2" in text
    for name, procs in (("two", 2), ("four", 4)):
        sc = r / f"{name}.toml"
        sc.write_text(text.replace("processors = 2", f"processors = {procs}", 1))
        p = zvmlab("run", sc, "--duration", "6s", "--out", r / "runs" / name)
        assert p.returncode == 0, p.stderr
    p = zvmlab("sweep", SHOWCASE, "-p", "processors=1,2,3", "--duration", "3s", "--store", r / "store.duckdb",
               "-j", "1")
    assert p.returncode == 0, p.stderr
    rep = r / "replicate"
    rep.mkdir()
    (rep / "index.html").write_text("<!DOCTYPE html><html><body><h1 id='rep'>Replicate table</h1></body></html>")
    (rep / "results.json").write_text(json.dumps([]))
    return r


@pytest.fixture(scope="module")
def server(root):
    import uvicorn

    from zvmlab.serve import make_app

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(make_app(root), log_level="warning"))
    t = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    t.start()
    deadline = time.monotonic() + 30
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "the server did not start within 30 s"
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    t.join(timeout=10)
    sock.close()


@pytest.fixture(scope="module")
def page(server):
    pytest.importorskip("playwright.sync_api")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        pg = b.new_page(viewport={"width": 1280, "height": 900})
        pg.set_default_timeout(30_000)
        pg.errors = []
        pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: pg.errors.append(str(e)))
        yield pg
        b.close()


def _plotly_traces(pg, sel: str) -> int:
    pg.wait_for_selector(f"{sel} .main-svg")
    return pg.evaluate(f"() => document.querySelector('{sel}').data.length")


@needs_browser
def test_browse_run_reports_compare_sweep_and_replicate(server, page):
    page.goto(server + "/")
    assert page.locator("#runs tr").count() == 3  # header + two runs
    page.click("text=runs/four")
    assert "4 processors" in page.inner_text("#facts")
    assert page.locator("#headline td").count() == 10
    assert _plotly_traces(page, "#cpu") >= 2
    assert page.locator("#users tr").count() == 1 + 2  # the showcase's USER0 and USER1
    page.click("#all-reports")
    page.wait_for_selector("#FCX112")
    charts = page.evaluate(CHART_FACTS)
    assert charts and all(c["drawn"] > 0 for c in charts)
    assert "Resp" in page.inner_text("#FCX112 table")
    page.goto(server + "/")
    page.select_option("#compare select[name=a]", "runs/four")
    page.select_option("#compare select[name=b]", "runs/two")
    page.fill("#compare input[name=fcx]", "FCX112")
    page.click("#compare button")
    page.wait_for_selector("#FCX112")
    assert "(four vs two)" in page.inner_text("#FCX112 h2")
    page.goto(server + "/")
    page.click("text=store.duckdb")
    page.click("#collections a")
    assert _plotly_traces(page, "#metric") == 1
    xs = page.evaluate("() => document.querySelector('#metric').data[0].x")
    assert xs == [1, 2, 3]
    page.select_option("#metric-form select", "resp_mean_ms")
    page.wait_for_url("**metric=resp_mean_ms**")
    ys = page.evaluate("() => document.querySelector('#metric').data[0].y")
    assert len(ys) == 3 and ys[0] > ys[2] > 0  # one processor queues more than three
    page.goto(server + "/")
    page.click("text=replicate/index.html")
    assert page.inner_text("#rep") == "Replicate table"
    assert not page.errors, page.errors


@needs_browser
def test_paths_outside_the_root_are_refused(server, page):
    for q in ("/run?path=../../etc", "/report?path=/etc", "/store?path=..%2F..%2Fx.duckdb",
              "/replicate?path=../index.html", "/compare?a=runs/two&b=../../"):
        r = page.goto(server + q)
        assert r.status in (404, 422), q
        assert page.locator("#error").count() == 1


def test_loopback_by_default_and_a_warning_otherwise(tmp_path):
    host = next(p for p in serve.params if p.name == "host")
    assert host.default == "127.0.0.1"
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4") and not is_loopback("example.org")
    bad = zvmlab("serve", tmp_path / "nothing-here")
    assert bad.returncode == 2 and "no such file or directory" in bad.stderr
