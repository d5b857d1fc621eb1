"""The results store: every run the lab makes, in an embedded DuckDB database.

One file (default ``runs/store.duckdb``, ``--store PATH`` on the commands) holds:

* ``scenarios``: scenario text by its SHA-256 (``scenario_hash``) and title;
* ``runs``: one row per run, keyed by a deterministic, timestamp-free ``key`` (SHA-256 of the
  scenario hash, level, the level's effective mechanism switches, seed, zvmlab and engine
  versions: the same run is the same key on any machine and any day), with those inputs as
  columns, the headline results as columns (``etr``, ``itr``, ``tv_ratio``, ``busy_pct``,
  ``transactions``, ...), the whole summary as canonical JSON (``summary``, without the
  per-interval data and without timing), and ``wall_s`` (this machine's time, not the model's);
* ``intervals`` and ``interval_users``: the per-interval monitor data (one row per interval, and
  per interval per user), for bulk analysis and Parquet export;
* ``run_users``: one row per run per user: CPU and transaction response time (``resp_mean_ms``,
  ``resp_p50_ms``, ``resp_p90_ms``, ``resp_p99_ms``, ``trivial``, ``nontrivial``; the same
  columns for the whole system are in ``runs``);
* ``labels``: which collection (``suite:regression``, ``sweep:FILE``) and item (cell, sweep point)
  asked for a run, with its attributes as JSON; one run can serve several collections.

Each run is written in one transaction (its scenario, run row, intervals and labels together),
so an interrupted suite leaves only whole runs behind and resumes from them. A file that is not
a DuckDB database, or is truncated, gives an InputError naming the file. From Python::

    from zvmlab.lab.store import Store
    with Store.open("runs/store.duckdb", read_only=True) as st:
        df = st.query("select level, avg(itr) from runs group by level")   # a pandas DataFrame
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..errors import InputError

DEFAULT_PATH = Path("runs") / "store.duckdb"
SCHEMA_VERSION = "1"

_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS meta (name VARCHAR PRIMARY KEY, value VARCHAR)",
    "CREATE TABLE IF NOT EXISTS scenarios (scenario_hash VARCHAR PRIMARY KEY, title VARCHAR, text VARCHAR)",
    """CREATE TABLE IF NOT EXISTS runs (
        key VARCHAR PRIMARY KEY, scenario_hash VARCHAR, level VARCHAR, switches JSON, seed UBIGINT,
        zvmlab_version VARCHAR, engine_version VARCHAR, processors INTEGER, duration_s DOUBLE,
        etr DOUBLE, itr DOUBLE, tv_ratio DOUBLE, busy_pct DOUBLE, system_pct DOUBLE,
        transactions BIGINT, events BIGINT, summary JSON, wall_s DOUBLE)""",
    """CREATE TABLE IF NOT EXISTS intervals (
        key VARCHAR, idx INTEGER, start_s DOUBLE, end_s DOUBLE, transactions BIGINT, etr DOUBLE,
        busy_pct DOUBLE, devices JSON, PRIMARY KEY (key, idx))""",
    """CREATE TABLE IF NOT EXISTS interval_users (
        key VARCHAR, idx INTEGER, userid VARCHAR, cpu_pct DOUBLE, virtual_pct DOUBLE, cp_pct DOUBLE,
        transactions BIGINT)""",
    """CREATE TABLE IF NOT EXISTS labels (
        collection VARCHAR, item VARCHAR, key VARCHAR, attrs JSON, PRIMARY KEY (collection, item, key))""",
    # Transaction response time (added to schema 1 in place: a store made before has NULLs there).
    *[f"ALTER TABLE runs ADD COLUMN IF NOT EXISTS {c} {t}" for c, t in (
        ("resp_mean_ms", "DOUBLE"), ("resp_p50_ms", "DOUBLE"), ("resp_p90_ms", "DOUBLE"), ("resp_p99_ms", "DOUBLE"),
        ("trivial", "BIGINT"), ("nontrivial", "BIGINT"))],
    """CREATE TABLE IF NOT EXISTS run_users (
        key VARCHAR, userid VARCHAR, cpu_pct DOUBLE, virtual_pct DOUBLE, cp_pct DOUBLE, transactions BIGINT,
        resp_mean_ms DOUBLE, resp_p50_ms DOUBLE, resp_p90_ms DOUBLE, resp_p99_ms DOUBLE, trivial BIGINT,
        nontrivial BIGINT, PRIMARY KEY (key, userid))""",
]
TABLES = ("scenarios", "runs", "intervals", "interval_users", "labels", "run_users")
# Tables every store has had since schema 1 (a read-only store made before the others may lack them).
_CORE_TABLES = ("scenarios", "runs", "intervals", "interval_users", "labels")
_RESP = ("mean", "p50", "p90", "p99")
_TIMING = ("wall_s", "events_per_s")


def canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def run_key(scenario_hash: str, level: str, switches: dict, seed: int, zvmlab_version: str,
            engine_version: str) -> str:
    """The deterministic key of a run: the same inputs give the same key, with no timestamp."""
    return sha256(canonical({"scenario_hash": scenario_hash, "level": level, "switches": switches, "seed": seed,
                             "zvmlab": zvmlab_version, "engine": engine_version}))


def _x(con, sql: str, params: list | None = None) -> list:
    """Execute and consume the result (DuckDB wants every result finished before the next)."""
    return con.execute(sql, params or []).fetchall()


def _interrupted(e: BaseException) -> bool:
    """Is ``e`` DuckDB's report of a query cut short by SIGINT?"""
    return "interrupted" in str(e).lower()


def _bad_store(path: Path, e: Exception) -> InputError:
    text = str(e)
    if "lock" in text.lower():
        return InputError("the store is in use by another zvmlab process", file=str(path),
                          fix="wait for it to finish, or name another file with --store")
    return InputError(f"not a usable DuckDB store ({text.splitlines()[0] if text else type(e).__name__})",
                      file=str(path), fix="the file is corrupt or not a zvmlab store: move it aside and run again "
                                          "(the runs are made anew), or name another file with --store")


class Store:
    """An open results store. Use :meth:`open` as a context manager."""

    def __init__(self, con, path: Path, read_only: bool):
        self.con = con
        self.path = path
        self.read_only = read_only

    # ---------------------------------------------------------------- opening
    @classmethod
    @contextlib.contextmanager
    def open(cls, path: str | Path = DEFAULT_PATH, read_only: bool = False) -> Iterator["Store"]:
        import duckdb

        p = Path(path)
        if p.exists() and p.is_dir():
            raise InputError("is a directory", file=str(p), fix="name a file, e.g. --store runs/store.duckdb")
        if read_only and not p.exists():
            raise InputError("no such store", file=str(p),
                             fix="run `zvmlab suite` or `zvmlab sweep` first, or name the store with --store")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise InputError(f"cannot create the store's directory: {e.strerror}", file=str(p)) from None
        try:
            con = duckdb.connect(str(p), read_only=read_only)
        except duckdb.Error as e:
            raise _bad_store(p, e) from None
        st = cls(con, p, read_only)
        try:
            st._init()
            yield st
        finally:
            with contextlib.suppress(Exception):
                con.close()

    def _init(self) -> None:
        import duckdb

        try:
            self._refuse_foreign()
            if not self.read_only:
                self.con.begin()
                for stmt in _SCHEMA:
                    _x(self.con, stmt)
                _x(self.con, "INSERT OR IGNORE INTO meta VALUES ('schema', ?)", [SCHEMA_VERSION])
                self.con.commit()
            rows = self.con.execute("SELECT value FROM meta WHERE name = 'schema'").fetchall()
            row = rows[0] if rows else None
            for t in _CORE_TABLES:  # read every table's catalogue entry: a damaged file fails here, not later
                self.con.execute(f"SELECT count(*) FROM {t}").fetchall()
        except duckdb.CatalogException:
            raise InputError("not a zvmlab store (no zvmlab tables in it)", file=str(self.path),
                             fix="name another file with --store") from None
        except (duckdb.IOException, duckdb.SerializationException, duckdb.InternalException) as e:
            with contextlib.suppress(Exception):
                self.con.rollback()
            raise _bad_store(self.path, e) from None
        if row is None or row[0] != SCHEMA_VERSION:
            raise InputError(f"store schema {row[0] if row else '?'} is not the one this zvmlab writes ({SCHEMA_VERSION})",
                             file=str(self.path), fix="name another file with --store")

    def _refuse_foreign(self) -> None:
        """A database with tables but no zvmlab schema mark is someone else's: refused untouched."""
        names = {r[0] for r in _x(self.con, "SELECT table_name FROM information_schema.tables")}
        if not names:
            return  # a new, empty store
        mark = _x(self.con, "SELECT value FROM meta WHERE name = 'schema'") if "meta" in names else []
        if not mark:
            raise InputError(f"not a zvmlab store (it has other tables: {', '.join(sorted(names)[:5])})",
                             file=str(self.path), fix="name another file with --store (this one is left as it is)")

    def _guard(self, fn, *args):
        """Run ``fn``; a damaged file (I/O or deserialization error) becomes an InputError."""
        import duckdb

        try:
            return fn(*args)
        except duckdb.TransactionException:
            # A transaction left aborted by an interrupt that landed mid-write: roll it back
            # (the write it belonged to is all or nothing) and run this request again.
            with contextlib.suppress(Exception):
                self.con.rollback()
            return fn(*args)
        except (duckdb.IOException, duckdb.SerializationException) as e:
            raise _bad_store(self.path, e) from None
        except duckdb.InterruptException:
            raise KeyboardInterrupt from None
        except RuntimeError as e:
            # DuckDB turns a Ctrl-C that arrives during a query into "Query interrupted" (the
            # transaction is rolled back): it is the user's interrupt, not an internal error.
            if _interrupted(e):
                raise KeyboardInterrupt from None
            raise

    # ---------------------------------------------------------------- writing
    def has(self, keys: Iterable[str]) -> set[str]:
        """The keys among ``keys`` that are already in the store."""
        import pandas as pd

        ks = sorted(set(keys))
        if not ks:
            return set()

        def q():
            df = pd.DataFrame({"key": ks})
            self.con.register("_want", df)
            try:
                return {r[0] for r in self.con.execute("SELECT r.key FROM runs r JOIN _want w USING (key)").fetchall()}
            finally:
                self.con.unregister("_want")

        return self._guard(q)

    def add_labels(self, labels: Iterable[tuple[str, str, str, dict]]) -> None:
        """Record (collection, item, key, attrs) for runs already in the store; one transaction."""
        import pandas as pd

        rows = [(c, i, k, canonical(a)) for c, i, k, a in labels]
        if not rows:
            return

        def q():
            df = pd.DataFrame(rows, columns=["collection", "item", "key", "attrs"])
            self.con.begin()
            try:
                self.con.register("_labels", df)
                _x(self.con, "INSERT OR IGNORE INTO labels SELECT collection, item, key, attrs::JSON FROM _labels")
                self.con.unregister("_labels")
                self.con.commit()
            except BaseException:
                self.con.rollback()
                raise

        self._guard(q)

    def put(self, **run) -> None:
        """Write one finished run in one transaction; see :meth:`put_many` for the fields."""
        self.put_many([run])

    def put_many(self, runs: list[dict]) -> None:
        """Write finished runs (scenario, run row, intervals, labels) in one transaction: all or none.

        Each run is a dict with key, scenario_text, scenario_hash, title, level, switches, seed,
        zvmlab_version, engine_version, summary, wall_s and labels ((collection, item, attrs), ...).
        A run whose key is in the store already only adds its labels.
        """
        if not runs:
            return
        t = _tables_of(runs)
        frames = _frames(t)
        self._guard(lambda: self._insert(list(t["runs"]), frames))

    def _insert(self, keys: list[str], frames: dict) -> None:
        """Insert the frames in one transaction; runs already stored get only their labels."""
        import pandas as pd

        con = self.con
        con.begin()
        try:
            con.register("_want", pd.DataFrame({"key": keys}))
            # runs already stored (made for another collection): only their labels are new
            _x(con, "CREATE OR REPLACE TEMP TABLE _old AS SELECT key FROM runs JOIN _want USING (key)")
            for name, (df, sql) in frames.items():
                if len(df):
                    con.register(name, df)
                    _x(con, sql)
                    con.unregister(name)
            con.commit()
        except BaseException:
            with contextlib.suppress(Exception):
                con.rollback()
            raise
        finally:
            with contextlib.suppress(Exception):
                con.unregister("_want")

    # ---------------------------------------------------------------- reading
    def query(self, sql: str, params: list | None = None):
        """Run SQL; returns a pandas DataFrame."""
        import duckdb

        fix = f"tables: {', '.join(TABLES)}; `zvmlab store schema` shows their columns"
        try:
            res = self.con.execute(sql, params or [])
            if res is None:  # nothing to run: an empty text or only a comment
                raise InputError("the query is empty", field="SQL", fix=fix)
            return res.df()
        except (duckdb.ProgrammingError, duckdb.DataError, duckdb.NotSupportedError, duckdb.IntegrityError,
                duckdb.PermissionException, duckdb.DependencyException, duckdb.SequenceException) as e:
            # the query's own fault: a syntax error, an unknown name, an overflow, a read-only statement
            raise InputError(f"bad query: {str(e).splitlines()[0]}", field="SQL", fix=fix) from None
        except (duckdb.IOException, duckdb.SerializationException) as e:
            if isinstance(e, duckdb.IOException) and str(self.path.name) not in str(e):
                # a file the query itself reads (read_csv('...')), not the store
                raise InputError(f"bad query: {str(e).splitlines()[0]}", field="SQL", fix=fix) from None
            raise _bad_store(self.path, e) from None

    def metrics(self, keys: Iterable[str]) -> dict[str, dict]:
        """Headline results by key: etr, itr, tv_ratio, busy_pct, seed, level, resp_mean_ms, resp_p90_ms and
        ``users`` (userid -> cpu_pct)."""
        import pandas as pd

        ks = sorted(set(keys))
        if not ks:
            return {}

        def q():
            self.con.register("_want", pd.DataFrame({"key": ks}))
            try:
                rows = self.con.execute("SELECT key, etr, itr, tv_ratio, busy_pct, seed, level, resp_mean_ms, "
                                        "resp_p90_ms FROM runs JOIN _want USING (key)").fetchall()
                users = self.con.execute("SELECT key, userid, cpu_pct FROM run_users JOIN _want USING (key) "
                                         "ORDER BY key, userid").fetchall()
            finally:
                self.con.unregister("_want")
            out = {r[0]: {"etr": r[1], "itr": r[2], "tv_ratio": r[3], "busy_pct": r[4], "seed": r[5],
                          "level": r[6], "resp_mean_ms": r[7], "resp_p90_ms": r[8], "users": {}} for r in rows}
            for k, u, c in users:
                out[k]["users"][u] = c
            return out

        return self._guard(q)

    def summary(self, key: str) -> dict | None:
        rows = self._guard(lambda: self.con.execute("SELECT summary FROM runs WHERE key = ?", [key]).fetchall())
        return json.loads(rows[0][0]) if rows else None

    def runs(self, collection: str | None = None):
        """The runs (without the summary JSON) as a DataFrame; of one collection if given."""
        cols = ("r.key, l.collection, l.item, r.level, r.seed, r.processors, r.etr, r.itr, r.tv_ratio, r.busy_pct, "
                "r.transactions, r.wall_s, r.scenario_hash")
        if collection is None:
            return self.query(f"SELECT {cols} FROM runs r LEFT JOIN labels l USING (key) ORDER BY l.collection, l.item, "
                              "r.level, r.seed")
        return self.query(f"SELECT {cols} FROM runs r JOIN labels l USING (key) WHERE l.collection = ? "
                          "ORDER BY l.item, r.level, r.seed", [collection])

    def collections(self):
        return self.query("SELECT collection, count(DISTINCT item) AS items, count(DISTINCT key) AS runs "
                          "FROM labels GROUP BY collection ORDER BY collection")

    def tables(self) -> tuple[str, ...]:
        """The store's tables (a store made before ``run_users`` existed, opened read-only, lacks it)."""
        have = {r[0] for r in self._guard(lambda: self.con.execute(
            "SELECT table_name FROM information_schema.tables").fetchall())}
        return tuple(t for t in TABLES if t in have)

    def counts(self) -> dict[str, int]:
        return {t: int(self._guard(lambda t=t: self.con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0]))
                for t in self.tables()}

    def export_parquet(self, directory: str | Path) -> list[Path]:
        """Write every table as ``TABLE.parquet`` into ``directory`` (written beside, then renamed)."""
        d = Path(directory)
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise InputError(f"cannot create the directory: {e.strerror}", file=str(d)) from None
        out = []
        for t in self.tables():
            dest = d / f"{t}.parquet"
            tmp = d / f".{t}.parquet.tmp"
            path_sql = str(tmp).replace("'", "''")
            try:
                self._guard(lambda t=t, path_sql=path_sql: _x(
                    self.con, f"COPY (SELECT * FROM {t} ORDER BY ALL) TO '{path_sql}' (FORMAT PARQUET)"))
                tmp.replace(dest)
            except BaseException:  # an error or Ctrl-C: no half-written file left behind
                tmp.unlink(missing_ok=True)
                raise
            out.append(dest)
        return out


_RESP_COLS = ("resp_mean_ms", "resp_p50_ms", "resp_p90_ms", "resp_p99_ms", "trivial", "nontrivial")
_RUN_COLS = ("key, scenario_hash, level, switches, seed, zvmlab_version, engine_version, processors, duration_s, etr, "
             "itr, tv_ratio, busy_pct, system_pct, transactions, events, summary, wall_s, " + ", ".join(_RESP_COLS))


def _resp_cols(r: dict | None) -> tuple:
    """The response-time columns of a summary's ``response_ms`` (NULLs without one)."""
    if not r:
        return (None,) * len(_RESP_COLS)
    return (*(r.get(k) for k in _RESP), r.get("trivial"), r.get("nontrivial"))


def _busy(interval: dict) -> float | None:
    procs = interval.get("processors")
    if not procs:
        return None
    return sum(p.get("busy_pct", 0.0) for p in procs) / len(procs)


def _tables_of(runs: list[dict]) -> dict[str, Any]:
    """The rows of each table for ``runs``: scenarios and runs by key (first wins), run users,
    intervals, interval users and labels."""
    t: dict[str, Any] = {"scenarios": {}, "runs": {}, "run_users": [], "intervals": [], "interval_users": [],
                         "labels": []}
    for r in runs:
        key, summary = r["key"], r["summary"]
        t["labels"] += [(c, i, key, canonical(a)) for c, i, a in r.get("labels", ())]
        if key in t["runs"]:
            continue
        t["scenarios"].setdefault(r["scenario_hash"], (r["scenario_hash"], r["title"], r["scenario_text"]))
        t["runs"][key] = _run_row(r)
        t["run_users"] += [(key, u.get("userid"), u.get("cpu_pct"), u.get("virtual_pct"), u.get("cp_pct"),
                            u.get("transactions"), *_resp_cols(u.get("response_ms"))) for u in summary.get("users", [])]
        for i, x in enumerate(summary.get("intervals", [])):
            t["intervals"].append((key, i, x.get("start_s"), x.get("end_s"), x.get("transactions"), x.get("etr"),
                                   _busy(x), canonical(x["devices"]) if x.get("devices") else None))
            t["interval_users"] += [(key, i, u.get("userid"), u.get("cpu_pct"), u.get("virtual_pct"), u.get("cp_pct"),
                                     u.get("transactions")) for u in x.get("user_detail", [])]
    return t


def _run_row(r: dict) -> tuple:
    """One run's row of the runs table (its summary less timing and intervals as JSON)."""
    summary = r["summary"]
    s = {k: v for k, v in summary.items() if k not in _TIMING and k != "intervals"}
    return (r["key"], r["scenario_hash"], r["level"], canonical(r["switches"]), r["seed"], r["zvmlab_version"],
            r["engine_version"], summary.get("processors"), summary.get("duration_s"), summary.get("etr"),
            summary.get("itr"), summary.get("tv_ratio"), summary.get("avg_processor_busy_pct"),
            summary.get("system_pct"), summary.get("transactions"), summary.get("events"), canonical(s),
            r.get("wall_s"), *_resp_cols(summary.get("response_ms")))


def _frames(t: dict[str, Any]) -> dict[str, tuple]:
    """Each table's rows as a DataFrame with the SQL that inserts it (new runs only, labels always)."""
    import pandas as pd

    return {
        "_sc": (pd.DataFrame(list(t["scenarios"].values()), columns=["scenario_hash", "title", "text"]),
                "INSERT OR IGNORE INTO scenarios SELECT * FROM _sc"),
        "_runs": (pd.DataFrame(list(t["runs"].values()), columns=[
            "key", "scenario_hash", "level", "switches", "seed", "zvmlab_version", "engine_version", "processors",
            "duration_s", "etr", "itr", "tv_ratio", "busy_pct", "system_pct", "transactions", "events", "summary",
            "wall_s", *_RESP_COLS]).astype({"trivial": "Int64", "nontrivial": "Int64"}),
            f"INSERT INTO runs ({_RUN_COLS}) SELECT key, scenario_hash, level, switches::JSON, seed, zvmlab_version, "
            "engine_version, processors, duration_s, etr, itr, tv_ratio, busy_pct, system_pct, transactions, events, "
            f"summary::JSON, wall_s, {', '.join(_RESP_COLS)} FROM _runs WHERE key NOT IN (SELECT key FROM _old)"),
        "_ru": (pd.DataFrame(t["run_users"], columns=["key", "userid", "cpu_pct", "virtual_pct", "cp_pct",
                                                      "transactions", *_RESP_COLS]).astype(
            {"transactions": "Int64", "trivial": "Int64", "nontrivial": "Int64"}),
            "INSERT OR IGNORE INTO run_users SELECT * FROM _ru WHERE key NOT IN (SELECT key FROM _old)"),
        "_iv": (pd.DataFrame(t["intervals"], columns=["key", "idx", "start_s", "end_s", "transactions", "etr",
                                                      "busy_pct", "devices"]).astype({"transactions": "Int64"}),
                "INSERT INTO intervals SELECT key, idx, start_s, end_s, transactions, etr, busy_pct, devices::JSON "
                "FROM _iv WHERE key NOT IN (SELECT key FROM _old)"),
        "_iu": (pd.DataFrame(t["interval_users"], columns=["key", "idx", "userid", "cpu_pct", "virtual_pct", "cp_pct",
                                                           "transactions"]).astype({"transactions": "Int64"}),
                "INSERT INTO interval_users SELECT * FROM _iu WHERE key NOT IN (SELECT key FROM _old)"),
        "_lab": (pd.DataFrame(t["labels"], columns=["collection", "item", "key", "attrs"]),
                 "INSERT OR IGNORE INTO labels SELECT collection, item, key, attrs::JSON FROM _lab"),
    }
