"""The Python API: scenarios, runs, sweeps and reports as objects and tidy tables.

    import zvmlab
    sc = zvmlab.load("scenarios/showcase.toml").with_(processors=4, smt="smt2")
    res = zvmlab.run(sc, seed=7)
    res.summary["etr"], res.summary["response_ms"]["p90"]
    res.users.to_pandas()            # also .to_polars(), .to_arrow(); shows as a table in notebooks

Every input is checked as the command line checks it: a bad value raises
:class:`zvmlab.InputError` naming the field and the fix.
"""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from . import admission, engine, scenario, tables
from .errors import InputError
from .tables import Frame

_KWARGS = {"processors", "smt", "level", "seed", "duration", "interval"}


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: its TOML text, where it came from, and the loaded form."""

    text: str
    name: str
    loaded: scenario.Scenario = field(repr=False)

    @property
    def title(self) -> str:
        return self.loaded.title

    @property
    def level(self) -> str:
        return self.loaded.level

    @property
    def processors(self) -> int:
        return self.loaded.processors

    @property
    def userids(self) -> list[str]:
        return [u for g in self.loaded.guests for u in g.userids()]

    def with_(self, overrides: Mapping[str, Any] | None = None, **kw: Any) -> "Scenario":
        """A copy with values changed, checked like a file: ``with_(processors=12, smt="smt2")``;
        names with dots in a mapping: ``with_({"srm.dspslice": 2, "guest.WEB.count": 8})``
        (the names ``zvmlab sweep --param`` accepts)."""
        from .lab import sweep as sw

        bad = [k for k in kw if k not in _KWARGS]
        if bad:
            raise InputError(f"unknown keyword {bad[0]!r}", field="with_",
                             fix=f"keywords: {', '.join(sorted(_KWARGS))}; other names go in a mapping, "
                                 "e.g. with_({'srm.dspslice': 2, 'guest.WEB.count': 8})")
        changes = {**(overrides or {}), **kw}
        doc = tomllib.loads(self.text)
        out = copy.deepcopy(doc)
        for k, v in changes.items():
            sw._set(out, sw.resolve(k, doc, self.name), v)
        text = sw.dumps(out)
        label = ", ".join(f"{k}={v}" for k, v in changes.items())
        name = f"{self.name} [{label}]" if label else self.name
        return Scenario(text, name, scenario.loads(text, name))

    def _repr_html_(self) -> str:
        import html

        sc = self.loaded
        return (f"<p><b>{html.escape(sc.title or self.name)}</b>: level {html.escape(sc.level)}, "
                f"{sc.processors} processors, SMT {html.escape(sc.smt)}, {len(self.userids)} guests, "
                f"{sc.duration_ns / 1e9:g} s, seed {sc.seed}</p>")


def load(path: str | Path) -> Scenario:
    """Read and validate a scenario file."""
    p = Path(path)
    sc = scenario.load(p)
    return Scenario(p.read_text(encoding="utf-8"), str(p), sc)


def loads(text: str, name: str = "<scenario>") -> Scenario:
    """Validate scenario TOML text."""
    return Scenario(text, name, scenario.loads(text, name))


@dataclass
class Result:
    """One run: ``summary`` (the run's JSON summary as a dict) and tidy tables."""

    scenario: Scenario
    summary: dict
    monitor: bytes = field(repr=False, default=b"")

    @property
    def intervals(self) -> Frame:
        return tables.intervals(self.summary)

    @property
    def users(self) -> Frame:
        return tables.users(self.summary)

    @property
    def user_intervals(self) -> Frame:
        return tables.user_intervals(self.summary)

    @property
    def processors(self) -> Frame:
        return tables.processors(self.summary)

    @property
    def devices(self) -> Frame:
        return tables.devices(self.summary)

    def reports(self, fcx: str | None = None) -> dict[str, "Report"]:
        """Perfkit-style reports of this run's monitor data (all, or ``fcx="FCX112,FCX114"``)."""
        from .monitor import measure, read

        data = read(self.monitor, self.scenario.name)
        m = measure(data)
        m.tx_unit = float(self.summary.get("tx_unit", 1.0))  # as `zvmlab report` reads a run directory
        return _reports(m, fcx, self.summary)

    def _repr_html_(self) -> str:
        s = self.summary
        r = s.get("response_ms") or {}
        head = (f"<p><b>{s.get('title') or self.scenario.name}</b>: level {s['level']}, {s['processors']} "
                f"processors, {s['duration_s']:g} s, seed {s['seed']}<br>ETR {s['etr']:.3f}/s, ITR {s['itr']:.3f}/s, "
                f"T/V {s['tv_ratio']:.4f}, busy {s['avg_processor_busy_pct']:.2f} %, response "
                f"{r.get('mean', 0.0):.3f} ms mean, p90 {r.get('p90', 0.0):.3f} ms</p>")
        return head + self.users._repr_html_()


def run(sc: Scenario | str | Path, seed: int | None = None, level: str | None = None,
        duration: str | None = None) -> Result:
    """Run a scenario (an object from :func:`load`, or a path); deterministic for a seed."""
    if not isinstance(sc, Scenario):
        sc = load(sc)
    eff = sc.loaded.with_overrides(level=level, seed=seed, duration=duration)
    admission.admit(eff)  # as the command line: a run that would not fit in memory raises InputError first
    summary, mon = engine.simulate(eff.engine_config(), monitor=True)
    for k in ("wall_s", "events_per_s"):
        summary.pop(k, None)  # this machine's speed, not the model's: kept out of the result
    summary["scenario"] = sc.name
    summary["title"] = eff.title
    return Result(sc, summary, mon)


@dataclass
class Report:
    """One Perfkit-style report: its id, title, notes and tables (tidy frames by table name)."""

    fcx: str
    name: str
    title: str
    notes: list[str]
    tables: dict[str, Frame]

    def _repr_html_(self) -> str:
        import html

        return (f"<h4>{html.escape(self.fcx)} {html.escape(self.name)}: {html.escape(self.title)}</h4>"
                + "".join(t._repr_html_() for t in self.tables.values()))


def _reports(m, fcx: str | None, summary: dict | None = None) -> dict[str, Report]:
    from .commands.report import _specs
    from .perfkit import response

    built = [s.build(m) for s in _specs(fcx)]
    response.augment(built, summary)
    return {r.fcx: Report(r.fcx, r.name, r.title, list(r.notes),
                          {f.name.rsplit("-", 1)[-1]: f for f in tables.report_frames(r)}) for r in built}


def reports(path: str | Path, fcx: str | None = None) -> dict[str, Report]:
    """Reports of a run directory (``zvmlab run --out``) or a MONWRITE file, by FCX id."""
    from .perfkit import load as load_source

    src = load_source(str(path))
    return _reports(src.m, fcx, src.summary)


def sweep(sc: Scenario | str | Path, params: Mapping[str, list], repeat: int = 1, store: str | Path | None = None,
          jobs: int = 1, level: str | None = None, seed: int | None = None, duration: str | None = None) -> Frame:
    """Run ``sc`` at every combination of ``params`` (name -> values, the names of ``zvmlab sweep
    --param``); one row per point: the parameters, etr, itr, tv_ratio, busy_pct, resp_mean_ms,
    resp_p90_ms and ``cpu_USERID`` per guest. Runs go to ``store`` (a temporary one if None)."""
    import tempfile

    from .lab import executor as ex
    from .lab import sweep as sw
    from .lab.store import Store

    if not isinstance(sc, Scenario):
        sc = load(sc)
    specs = [f"{k}={','.join(str(v) for v in vals)}" for k, vals in params.items()]
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "scenario.toml"
        file.write_text(sc.text)
        path = Path(store) if store is not None else Path(tmp) / "store.duckdb"
        executor = ex.make("local", jobs)
        try:
            with Store.open(path) as st:
                res, _ = sw.run(str(file), specs, executor, st, repeat, level, seed, duration=duration)
        finally:
            executor.close()
    names = list(res["params"])
    users = sorted({u for p in res["points"] for u in p.get("cpu_pct", {})})
    metrics = ["level", "etr", "itr", "tv_ratio", "busy_pct", "resp_mean_ms", "resp_p90_ms"]
    rows = [{**p["point"], **{m: p.get(m) for m in metrics}, **{f"cpu_{u}": p["cpu_pct"].get(u) for u in users}}
            for p in res["points"]]
    return Frame("sweep", names + metrics + [f"cpu_{u}" for u in users], rows)


def replicate(only: str | None = None, jobs: int = 1, seed: int | None = None) -> Frame:
    """IBM's published experiments beside the simulator's (``zvmlab replicate``): one row per metric."""
    from .lab import replicate as rp

    rows = rp.load_catalogue()
    if only:
        want = {w.strip().upper() for w in only.split(",") if w.strip()}
        rows = [r for r in rows if r.id.upper() in want or r.section.upper() in want]
        if not rows:
            raise InputError(f"no catalogue row matches {only!r}", field="only", fix="e.g. only='A1,B4' or 'A'")
    out = rp.replicate_parallel(rows, jobs, seed=seed)
    cols = ["id", "metric", "published", "simulated", "tolerance", "verdict"]
    return Frame("replicate", cols, [{c: (str(r.get(c)) if c in ("published", "tolerance") and r.get(c) is not None
                                          else r.get(c)) for c in cols} for r in out])
