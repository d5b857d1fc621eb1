"""The web view's routes (Starlette, Jinja2 templates, Plotly charts).

/                          runs, stores and replicate pages under the root
/run?path=R                a run: headline figures, users, a chart, links to its reports
/report?path=R[&fcx=ID]    its Perfkit-style reports (the same HTML as `zvmlab report --format html`)
/compare?a=R1&b=R2[&fcx=]  two runs side by side (`zvmlab report R1 --vs R2`)
/store?path=S              a store's collections (suites, sweeps)
/collection?path=S&c=C[&metric=M]   a collection's runs and a metric across its points or cells
/replicate?path=P          replicate's HTML page
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from ..errors import InputError
from . import discover, figures

TEMPLATES = Path(__file__).parent / "templates"


def plotly_js() -> Path:
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


class View:
    def __init__(self, root: Path, store_file: Path | None = None):
        self.root = root.resolve()
        self.store_file = store_file.resolve() if store_file else None
        self.t = Jinja2Templates(directory=str(TEMPLATES))

    # -- helpers ---------------------------------------------------------------------------------
    def page(self, request: Request, name: str, status: int = 200, **ctx: Any) -> Response:
        return self.t.TemplateResponse(request, name, {"root": str(self.root), **ctx}, status_code=status)

    def error(self, request: Request, message: str, status: int = 404) -> Response:
        return self.page(request, "error.html", status=status, message=message)

    def path(self, request: Request, key: str = "path") -> Path | None:
        return discover.inside(self.root, request.query_params.get(key, ""))

    # -- routes ----------------------------------------------------------------------------------
    async def home(self, request: Request) -> Response:
        found = discover.scan(self.root, self.store_file)
        return self.page(request, "home.html", found=found)

    async def run(self, request: Request) -> Response:
        d = self.path(request)
        if d is None or not (d / "summary.json").is_file():
            return self.error(request, "no such run directory under the root")
        try:
            s = json.loads((d / "summary.json").read_text())
        except (OSError, ValueError) as e:
            return self.error(request, f"cannot read its summary.json: {e}", 422)
        from ..tables import users

        rel = str(d.relative_to(self.root))
        others = [r.rel for r in discover.scan(self.root).runs if r.rel != rel]
        return self.page(request, "run.html", rel=rel, s=s, users=users(s), fig=figures.user_cpu(s),
                         has_monitor=(d / "monitor.mon").is_file(), others=others, reports=_report_ids())

    async def report(self, request: Request) -> Response:
        d = self.path(request)
        if d is None:
            return self.error(request, "no such run under the root")
        other = request.query_params.get("vs")
        b = discover.inside(self.root, other) if other else None
        if other and b is None:
            return self.error(request, "no such run under the root (vs)")
        return self._report(request, d, b)

    async def compare(self, request: Request) -> Response:
        a, b = self.path(request, "a"), self.path(request, "b")
        if a is None or b is None:
            return self.error(request, "choose two runs under the root (a and b)")
        return self._report(request, a, b)

    def _report(self, request: Request, a: Path, b: Path | None) -> Response:
        from ..commands.report import _specs
        from ..perfkit import load, render, response

        try:
            specs = _specs(request.query_params.get("fcx") or None)
            sa = load(str(a))
            ra = [s.build(sa.m) for s in specs]
            response.augment(ra, sa.summary)
            title, dashed = f"zvmlab reports: {sa.label}", None
            if b is not None:
                sb = load(str(b))
                rb = [s.build(sb.m) for s in specs]
                response.augment(rb, sb.summary)
                la, lb = (sa.label, sb.label) if sa.label != sb.label else (f"A:{sa.label}", f"B:{sb.label}")
                ra = [render.compare(x, y, la, lb) for x, y in zip(ra, rb)]
                title, dashed = f"zvmlab reports: {la} vs {lb}", f"({lb})"
        except InputError as e:
            return self.error(request, str(e).replace(str(self.root) + "/", ""), 422)
        body = render.html_text(ra, title, describe=sa.data.describe(), dashed_suffix=dashed)
        back = '<p style="font-family:sans-serif;margin:1rem 2rem"><a href="/">&larr; zvmlab serve</a></p>'
        return HTMLResponse(body.replace("<body>", "<body>" + back, 1))

    async def store(self, request: Request) -> Response:
        p = self.path(request)
        if p is None or not p.is_file():
            return self.error(request, "no such store under the root")
        from ..lab.store import Store

        try:
            with Store.open(p, read_only=True) as st:
                cols = st.collections().to_dict("records")
                counts = st.counts()
        except InputError as e:
            return self.error(request, str(e), 422)
        return self.page(request, "store.html", rel=str(p.relative_to(self.root)), collections=cols, counts=counts)

    async def collection(self, request: Request) -> Response:
        p = self.path(request)
        c = request.query_params.get("c", "")
        metric = request.query_params.get("metric", "etr")
        if p is None or not p.is_file():
            return self.error(request, "no such store under the root")
        if metric not in figures.METRICS:
            return self.error(request, f"unknown metric {metric!r}: one of {', '.join(figures.METRICS)}", 422)
        try:
            rows, xname = _collection_rows(p, c)
        except InputError as e:
            return self.error(request, str(e), 422)
        if not rows:
            return self.error(request, f"no collection {c!r} in this store")
        return self.page(request, "collection.html", rel=str(p.relative_to(self.root)), c=c, rows=rows,
                         metric=metric, metrics=figures.METRICS, fig=figures.metric_across(rows, metric, xname))

    async def replicate(self, request: Request) -> Response:
        p = self.path(request)
        if p is None or p.name != "index.html" or not p.is_file():
            return self.error(request, "no replicate page there")
        return FileResponse(p, media_type="text/html")

    async def plotly(self, request: Request) -> Response:
        return FileResponse(plotly_js(), media_type="application/javascript")


def _report_ids() -> list[str]:
    from ..perfkit import REPORTS

    return [f"{s.fcx}" for s in REPORTS.values()]


def _collection_rows(p: Path, c: str) -> tuple[list[dict], str]:
    """The runs of collection ``c``, each with ``x``: the sweep point's value (one parameter) or the item."""
    from ..lab.store import Store

    with Store.open(p, read_only=True) as st:
        df = st.query("SELECT l.item, l.attrs, r.key, r.level, r.seed, r.processors, r.etr, r.itr, r.tv_ratio, "
                      "r.busy_pct, r.resp_mean_ms, r.resp_p90_ms FROM labels l JOIN runs r USING (key) "
                      "WHERE l.collection = ? ORDER BY l.item, r.level, r.seed", [c])
    rows = json.loads(df.to_json(orient="records"))
    names: set[str] = set()
    for r in rows:
        attrs = json.loads(r.pop("attrs") or "{}") if isinstance(r.get("attrs"), str) else (r.pop("attrs", None) or {})
        point = attrs.get("point") if isinstance(attrs, dict) else None
        if isinstance(point, dict) and len(point) == 1:
            (name, value), = point.items()
            names.add(name)
            r["x"] = value
        else:
            r["x"] = r["item"]
    return rows, (names.pop() if len(names) == 1 else "item")


async def _no_icon(request: Request) -> Response:
    return Response(status_code=204)


def make_app(root: Path, store_file: Path | None = None) -> Starlette:
    v = View(root, store_file)
    routes = [Route("/", v.home), Route("/run", v.run), Route("/report", v.report), Route("/compare", v.compare),
              Route("/store", v.store), Route("/collection", v.collection), Route("/replicate", v.replicate),
              Route("/static/plotly.min.js", v.plotly), Route("/favicon.ico", _no_icon)]
    return Starlette(routes=routes)
