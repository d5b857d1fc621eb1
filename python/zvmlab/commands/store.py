"""zvmlab store: look into the results store (DuckDB): what is in it, SQL queries, Parquet export."""

from __future__ import annotations

import click
from rich.table import Table

from ..output import console, err_console, print_json, safe, write_stdout

_STORE = click.option("--store", "store_path", type=click.Path(dir_okay=False), default="runs/store.duckdb",
                      show_default=True, help="The results store.")


@click.group("store")
def store() -> None:
    """The results store of suites and sweeps: ls, query, schema, export."""


def _table(df, title: str | None = None) -> Table:
    t = Table(title=title, title_justify="left")
    for c in df.columns:
        t.add_column(str(c), overflow="fold")
    for row in df.itertuples(index=False):
        t.add_row(*["" if v is None or (isinstance(v, float) and v != v) else
                    (f"{v:.6g}" if isinstance(v, float) else str(v)) for v in row])
    return t


def _records(df) -> list[dict]:
    import json

    return json.loads(df.to_json(orient="records", date_format="iso"))


@store.command("ls")
@_STORE
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def ls(store_path: str, as_json: bool) -> None:
    """Collections (suites, sweeps) in the store, with their items and runs."""
    from ..lab.store import Store

    with Store.open(store_path, read_only=True) as st:
        counts = st.counts()
        cols = st.collections()
        by_level = st.query("SELECT level, count(*) AS runs, min(zvmlab_version) AS zvmlab, "
                            "min(engine_version) AS engine FROM runs GROUP BY level ORDER BY level")
    if as_json:
        print_json({"tables": counts, "collections": _records(cols), "levels": _records(by_level)})
        return
    console.print(f"{safe(store_path)}: " + ", ".join(f"{n} {t}" for t, n in counts.items()))
    console.print(_table(cols, "Collections"))
    console.print(_table(by_level, "Runs by level"))


@store.command("query")
@click.argument("sql")
@_STORE
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON records.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV.")
def query(sql: str, store_path: str, as_json: bool, as_csv: bool) -> None:
    """Run SQL on the store (read-only), e.g.

    zvmlab store query "select l.item, r.level, avg(r.itr) from runs r join labels l using (key) group by all"
    """
    from ..lab.store import Store

    with Store.open(store_path, read_only=True) as st:
        df = st.query(sql)
    if as_json:
        print_json(_records(df))
    elif as_csv:
        write_stdout(df.to_csv(index=False))
    else:
        console.print(_table(df))


@store.command("schema")
@_STORE
def schema(store_path: str) -> None:
    """The store's tables and columns."""
    from ..lab.store import TABLES, Store

    with Store.open(store_path, read_only=True) as st:
        for t in TABLES:
            df = st.query(f"DESCRIBE {t}")
            console.print(f"[bold]{t}[/]: " + ", ".join(f"{n} {ty}" for n, ty in zip(df["column_name"], df["column_type"])))


@store.command("export")
@click.argument("directory", type=click.Path(file_okay=False))
@_STORE
def export(directory: str, store_path: str) -> None:
    """Write every table as Parquet (TABLE.parquet) into DIRECTORY."""
    from ..lab.store import Store

    with Store.open(store_path, read_only=True) as st:
        paths = st.export_parquet(directory)
    for p in paths:
        err_console.print(f"wrote {safe(p)}")
