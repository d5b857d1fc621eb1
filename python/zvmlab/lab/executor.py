"""Where the lab's runs execute: a local process pool (default) or a Dask distributed cluster.

A run is a :class:`RunSpec`: the scenario text, a level and a seed, plus its deterministic store
key. :func:`run_one` executes it anywhere (it needs only zvmlab and its engine), so the same
spec gives byte-identical results in this process, in a pool process or on a Dask worker.

``--executor`` names the executor:

* ``local`` (default): a process pool with ``--jobs`` processes (default: the CPUs here);
  ``--jobs 1`` runs in this process.
* ``dask://HOST:PORT``: the Dask scheduler at ``tcp://HOST:PORT``. Start one with
  ``.venv/bin/dask scheduler --port 8786`` and workers with
  ``.venv/bin/dask worker tcp://HOST:8786 --nthreads 1`` (from a Python environment with this
  zvmlab installed: the workers import it). A scheduler that does not answer, or has no
  workers, or workers with another zvmlab or engine version, is an error (exit 2), never a
  silent fallback to local runs.

Executors yield results as runs finish, so the caller can store each one at once.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from ..errors import InputError

DASK_TIMEOUT_S = float(os.environ.get("ZVMLAB_DASK_TIMEOUT", "10"))
_TIMING = ("wall_s", "events_per_s")


@dataclass(frozen=True)
class RunSpec:
    """One run: scenario text at a level with a seed, and where it belongs."""

    key: str
    text: str
    name: str  # where the text came from, for messages
    scenario_hash: str
    title: str
    level: str
    seed: int
    switches: dict = field(hash=False, compare=False)
    labels: tuple = ()  # ((collection, item, attrs), ...)
    # On top of the text (replicate's runs): {"at": {processors, counts, smt}, "params": {...},
    # "check": bool (compare with the Solver)}; part of the store key through scenario_hash.
    overrides: dict = field(default_factory=dict, hash=False, compare=False)


def versions() -> dict[str, str]:
    """zvmlab's version and the engine's, the latter with a digest of the engine module built
    (a store never reuses a run of another build of the same version)."""
    from .. import __version__, engine

    return {"zvmlab": __version__, "engine": f"{engine.__engine_version__}+{engine_build()}"}


_BUILD: str | None = None


def engine_build() -> str:
    global _BUILD
    if _BUILD is None:
        import hashlib

        from .. import _engine

        with open(_engine.__file__, "rb") as f:
            _BUILD = hashlib.sha256(f.read()).hexdigest()[:12]
    return _BUILD


def make_spec(text: str, name: str, level: str, seed: int, labels: Iterable[tuple[str, str, dict]] = (),
              loaded=None, overrides: dict | None = None) -> RunSpec:
    """Validate ``text`` (unless ``loaded`` is its Scenario already) and build the run's spec."""
    from .. import admission, engine, scenario
    from .store import canonical, run_key, sha256

    sc = loaded if loaded is not None else scenario.loads(text, name)
    s = sc.with_overrides(level=level, seed=seed)
    admission.admit(s)
    sw = engine.switches(s.level, s.switches)
    h = sha256(text + "\n# zvmlab overrides " + canonical(overrides)) if overrides else sha256(text)
    v = versions()
    key = run_key(h, s.level, sw, s.seed, v["zvmlab"], v["engine"])
    return RunSpec(key, text, name, h, sc.title, s.level, s.seed, sw, tuple(labels), dict(overrides or {}))


def run_one(spec: RunSpec) -> dict:
    """Execute one run; returns {key, summary (without timing), wall_s, versions}."""
    from .. import engine, scenario

    s = scenario.loads(spec.text, spec.name)
    o = spec.overrides
    if o:
        from .replicate_runs import apply

        s = apply(s, o.get("at") or None, o.get("params") or {}, o.get("scale") or None)
    s = s.with_overrides(level=spec.level, seed=spec.seed)
    summary = engine.simulate(s.engine_config())
    wall = summary.get("wall_s")
    for k in _TIMING:
        summary.pop(k, None)
    if o.get("check"):
        from . import comparator

        summary["check"] = comparator.compare(s, summary, "sim", spec.level).to_json()
    return {"key": spec.key, "summary": summary, "wall_s": wall, "versions": versions()}


def _die_with_parent() -> None:
    """Linux: this process gets SIGKILL when its parent dies (SIGKILL included), so no pool
    worker outlives the command that started it."""
    import ctypes
    import signal

    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - no prctl
        return


def _quiet_worker(parent: int | None = None) -> None:
    """Pool processes leave Ctrl-C to the parent, which stops the pool and keeps what finished;
    they die with the parent."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    if parent is not None and os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _kill_workers(pool) -> None:
    """Stop a process pool now: kill its workers (a run in progress is lost, finished ones are kept)."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            proc.kill()
        except (OSError, ValueError):
            pass


class LocalExecutor:
    name = "local"

    def __init__(self, jobs: int | None = None):
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.description = f"local ({self.jobs} process{'es' if self.jobs > 1 else ''})"

    def run(self, specs: list[RunSpec], fn: Callable[[RunSpec], dict] = run_one) -> Iterator[tuple[RunSpec, dict]]:
        if not specs:
            return
        if self.jobs == 1 or len(specs) == 1:
            for s in specs:
                yield s, fn(s)
            return
        import concurrent.futures as cf
        import multiprocessing as mp

        pool = cf.ProcessPoolExecutor(max_workers=min(self.jobs, len(specs)), mp_context=mp.get_context("spawn"),
                                      initializer=_quiet_worker, initargs=(os.getpid(),))
        done = False
        try:
            futures = {pool.submit(fn, s): s for s in specs}
            for f in cf.as_completed(futures):
                yield futures[f], f.result()
            done = True
        finally:
            if not done:  # interrupted, an error, or the caller stopped: do not wait for runs in progress
                _kill_workers(pool)
            pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        pass


def _worker_versions() -> dict[str, str]:
    return versions()


class DaskExecutor:
    name = "dask"

    def __init__(self, address: str, timeout: float = DASK_TIMEOUT_S, client=None):
        """Connect to the scheduler at ``address`` (tcp://HOST:PORT), or use a given ``client``."""
        self.address = address
        self._own = client is None
        if client is None:
            try:
                from distributed import Client
            except ImportError:  # pragma: no cover - a dependency of zvmlab
                raise InputError("the Dask executor needs the 'distributed' package", field="--executor",
                                 fix="pip install 'dask[distributed]' (make dev installs it)") from None
            try:
                client = Client(address, timeout=timeout, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as e:
                raise InputError(f"cannot reach the Dask scheduler at {address} ({str(e).splitlines()[0]})",
                                 field="--executor",
                                 fix="start one with `.venv/bin/dask scheduler` and workers with `.venv/bin/dask "
                                     "worker tcp://HOST:PORT`, check the address, or use --executor local") from None
        self.client = client
        try:
            client.wait_for_workers(1, timeout=timeout)
        except (TimeoutError, OSError):
            self.close()
            raise InputError(f"the Dask scheduler at {address} has no workers (waited {timeout:g} s)",
                             field="--executor", fix="start workers with `.venv/bin/dask worker tcp://HOST:PORT`") from None
        mine = versions()
        theirs = client.run(_worker_versions)
        bad = {w: v for w, v in theirs.items() if v != mine}
        if bad:
            w, v = next(iter(bad.items()))
            self.close()
            raise InputError(f"Dask worker {w} runs zvmlab {v.get('zvmlab')} / engine {v.get('engine')}, this is "
                             f"zvmlab {mine['zvmlab']} / engine {mine['engine']}", field="--executor",
                             fix="start the workers from the same zvmlab installation (its .venv)")
        n = len(theirs)
        self.description = f"dask {address} ({n} worker{'s' if n != 1 else ''})"

    def run(self, specs: list[RunSpec], fn: Callable[[RunSpec], dict] = run_one) -> Iterator[tuple[RunSpec, dict]]:
        if not specs:
            return
        from distributed import as_completed

        futures = [self.client.submit(fn, s, key=f"zvmlab-run-{s.key}", pure=False) for s in specs]
        by_key = {f.key: s for f, s in zip(futures, specs)}
        try:
            for f in as_completed(futures, loop=self.client.loop):
                try:
                    res = f.result()
                except InputError:
                    raise
                except Exception as e:
                    raise RuntimeError(f"a run failed on the Dask cluster: {type(e).__name__}: {e}") from e
                yield by_key[f.key], res
        finally:
            self.client.cancel([f for f in futures if not f.done()])

    def close(self) -> None:
        if self._own:
            try:
                self.client.close()
            except Exception:  # pragma: no cover - closing a broken connection
                pass


_DASK = re.compile(r"^dask://([^/:\s]+|\[[0-9a-fA-F:]+\])(?::(\d{1,5}))?/?$")


def make(spec: str | None, jobs: int | None = None):
    """The executor named by ``--executor``: ``local`` or ``dask://HOST:PORT``."""
    s = (spec or "local").strip()
    if s == "local":
        return LocalExecutor(jobs)
    m = _DASK.match(s)
    if m:
        if jobs is not None:
            raise InputError("--jobs is for the local executor", field="--jobs",
                             fix="a Dask cluster runs as many runs at once as its workers have threads")
        port = int(m.group(2) or 8786)
        if not 0 < port < 65536:
            raise InputError(f"port {port} is out of range", field="--executor", fix="e.g. dask://127.0.0.1:8786")
        return DaskExecutor(f"tcp://{m.group(1)}:{port}")
    raise InputError(f"unknown executor {s!r}", field="--executor",
                     fix="use local (a process pool here) or dask://HOST:PORT (a Dask scheduler)")
