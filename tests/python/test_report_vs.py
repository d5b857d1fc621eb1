"""`report --vs`: the union of both sides' rows, A, B, B-A and %-change, and a note naming the rows
one side lacks (an 8-way against a 16-way, different guest sets)."""

from zvmlab.perfkit import render
from zvmlab.perfkit.model import DATA, MEAN, Column, Report, Table


def _rep(procs: list[str], busy: list[float]) -> Report:
    t = Table("processors", [Column("proc", ("", "PROC"), "text", 4), Column("cpu", ("", "%CPU"), "pct", 6)],
              key=("proc",))
    for p, b in zip(procs, busy):
        t.add(DATA, proc=p, cpu=b)
    t.add(MEAN, proc=MEAN, cpu=sum(busy) / len(busy))
    return Report("FCX100", "CPU", "CPU Load", {"from": "", "to": "", "seconds": 1, "system": "S", "level": "L",
                                                 "processors": len(procs)}, [t])


def test_union_of_rows_with_change_and_percent():
    a = _rep(["P00", "P01", "P03"], [50.0, 40.0, 10.0])
    b = _rep(["P00", "P01", "P02", "P04"], [60.0, 40.0, 30.0, 20.0])
    r = render.compare(a, b, "A8", "B16")
    rows = r.tables[0].rows
    assert [x["proc"] for x in rows] == ["P00", "P01", "P02", "P04", "P03", MEAN]
    p00, p02, p03 = rows[0], rows[2], rows[4]
    assert (p00["cpu"], p00["cpu_b"], p00["cpu_delta"], p00["cpu_pctchg"]) == (50.0, 60.0, 10.0, 20.0)
    assert (p02["cpu"], p02["cpu_b"], p02["cpu_delta"], p02["cpu_pctchg"]) == (None, 30.0, None, None)
    assert (p03["cpu"], p03["cpu_b"]) == (10.0, None)
    notes = " ".join(r.notes)
    assert "1 row(s) only in A8: P03" in notes and "2 row(s) only in B16: P02, P04" in notes
    text = render.text([r])
    line = next(x for x in text.splitlines() if x.startswith("P02"))
    assert line.split() == ["P02", "...", "30.0", "...", "..."]
    assert "%" in text.splitlines()[[i for i, x in enumerate(text.splitlines()) if x.startswith("PROC")][0]]


def test_identical_sides_have_no_one_sided_note_and_zero_change():
    a = _rep(["P00"], [50.0])
    r = render.compare(a, _rep(["P00"], [50.0]), "A", "B")
    assert not any("only in" in n for n in r.notes)
    assert r.tables[0].rows[0]["cpu_pctchg"] == 0.0


def _typed(types: dict[str, str]) -> Report:
    t = Table("processors", [Column("proc", ("", "PROC"), "text", 4), Column("type", ("", "Type"), "text", 4),
                             Column("cpu", ("", "%CPU"), "pct", 6)], key=("proc",))
    for p, ty in types.items():
        t.add(DATA, proc=p, type=ty, cpu=50.0)
    return Report("FCX144", "PROCLOG", "Processor Activity", {"from": "", "to": "", "seconds": 1, "system": "S",
                                                               "level": "L", "processors": len(types)}, [t])


def test_a_text_cell_the_sides_differ_in_shows_both():
    """A processor's (a device's, a channel's) type that changed between the runs was shown as A's
    alone, so an IFL compared with a CP, or ESCON with FICON, looked like the same kind."""
    r = render.compare(_typed({"P00": "CP", "P01": "IFL", "P02": "", "P03": "CP"}),
                       _typed({"P00": "CP", "P01": "CP", "P02": "Vh", "P04": "ZIIP"}), "A", "B")
    types = {x["proc"]: x["type"] for x in r.tables[0].rows}
    assert types == {"P00": "CP", "P01": "IFL/CP", "P02": "-/Vh", "P03": "CP", "P04": "ZIIP"}
    assert any("differ in shows A/B" in n for n in r.notes)
    line = next(x for x in render.text([r]).splitlines() if x.startswith("P01"))
    assert line.split()[:2] == ["P01", "IFL/CP"]
