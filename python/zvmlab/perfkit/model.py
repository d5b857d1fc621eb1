"""What a report is, independent of how it is shown: header facts, tables of typed columns
(with Perfkit-style column groups), key/value sections and per-interval plots."""

from __future__ import annotations

from dataclasses import dataclass, field

# Row kinds: data rows, and the summary rows Perfkit marks in the first column.
DATA, MEAN, TOTAL = "data", ">>Mean>>", ">System<"


@dataclass(frozen=True)
class Column:
    key: str
    head: tuple[str, str]  # two header lines, e.g. ("Interval", "End Time")
    kind: str = "pct"  # pct | num | int | ratio | text | rate
    width: int = 6
    group: str | None = None  # a column group label, drawn as <--- label ---> over its columns
    unit: str = ""  # for CSV/JSON headers and HTML titles
    extension: bool = False  # a zvmlab addition (not a Perfkit column): marked with '*'

    @property
    def numeric(self) -> bool:
        return self.kind != "text"


@dataclass
class Table:
    name: str
    columns: list[Column]
    rows: list[dict] = field(default_factory=list)
    # the columns that identify a row (to match rows of two runs for --vs)
    key: tuple[str, ...] = ()

    def add(self, kind: str = DATA, **values) -> None:
        self.rows.append({"_kind": kind, **values})


@dataclass
class Plot:
    title: str
    ylabel: str
    x: list[float]  # interval end, seconds since the start of the data
    series: dict[str, list]  # label -> values (None: no value)
    kind: str = "line"  # line | stack (stacked areas) | bar (grouped bars at categories)
    categories: list[str] | None = None  # bar labels (kind = bar)
    xlabel: str = "seconds"


@dataclass
class Report:
    fcx: str  # e.g. "FCX144"
    name: str  # e.g. "PROCLOG"
    title: str  # e.g. "Processor Activity, by Time"
    meta: dict  # from/to/seconds/system/level/source
    tables: list[Table] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ident(self) -> str:
        return f"{self.fcx} {self.name}"
