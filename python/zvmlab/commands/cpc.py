"""zvmlab cpc: the CPC of a scenario as PR/SM sees it.

Every LPAR's entitlement (weight share of the shared physical IFLs), its vertical-high /
vertical-medium / vertical-low counts (or horizontal / dedicated), and where its logical cores
sit on the physical cores. The arithmetic is the engine's (``prsm.rs``), the same the simulator
runs with.
"""

from __future__ import annotations

import click
from rich.table import Table

from .. import engine, scenario
from ..errors import InputError
from ..output import console, print_json, safe


def _ranges(xs: list[int]) -> str:
    """[0, 1, 2, 5, 7, 8] -> "0-2,5,7-8"."""
    out: list[str] = []
    xs = sorted(set(xs))
    i = 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else f"{xs[i]}-{xs[j]}")
        i = j + 1
    return ",".join(out) or "-"


def cpc_spec(sc: scenario.Scenario) -> dict:
    """The whole CPC of a scenario in the engine's form, the simulated LPAR first."""
    if sc.cpc is None:
        raise InputError("the scenario has no [cpc] section", file=sc.path, field="cpc",
                         fix="add [cpc] with shared_ifls and [[cpc.lpar]] partners, and system.weight")
    c = sc.cpc
    me = {"name": c["name"], "weight": c["weight"], "logical": sc.processors, "dedicated": False,
          "polarization": c["polarization"], "busy": 0.0}
    return {"shared": c["shared"], "dedicated": c["dedicated"], "lpars": [me, *c["lpars"]]}


def describe(sc: scenario.Scenario) -> dict:
    pol = engine.polarize(cpc_spec(sc))
    lpars = []
    for lp in pol["lpars"]:
        homes: dict[str, list[int]] = {}
        for core in lp["cores"]:
            homes.setdefault(core["pol"], []).append(core["home"])
        lpars.append({
            "name": lp["name"], "weight": lp["weight"], "logical": lp["logical"],
            "dedicated": lp["dedicated"], "polarization": lp["polarization"],
            "entitlement": lp["entitlement"], "entitlement_pct": 100.0 * lp["entitlement"],
            "vh": lp["vh"], "vm": lp["vm"], "vl": lp["vl"], "hz": lp["hz"], "ded": lp["ded"],
            "physical": {k: sorted(set(v)) for k, v in homes.items()},
        })
    return {"scenario": sc.path, "shared_ifls": pol["shared"], "dedicated_ifls": pol["dedicated"],
            "simulated_lpar": sc.cpc["name"] if sc.cpc else None,
            "vh_total": pol["vh_total"], "vh_physical": pol["vh_physical"],
            "non_vh_total": pol["non_vh_total"], "non_vh_physical": pol["non_vh_physical"],
            "lpars": lpars}


@click.command("cpc")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def cpc(file: str, as_json: bool) -> None:
    """Show PR/SM's view of FILE's CPC: entitlement, Vh/Vm/Vl and physical placement per LPAR."""
    sc = scenario.load(file)
    d = describe(sc)
    if as_json:
        print_json(d)
        return
    t = Table(title=f"CPC of {safe(file)}: {d['shared_ifls']} shared + {d['dedicated_ifls']} dedicated IFLs",
              title_justify="left")
    for col in ("LPAR", "Weight", "Logical", "Entitled %", "Vh", "Vm", "Vl", "Hz", "Ded",
                "Vh physical", "Others on physical"):
        t.add_column(col, justify="left" if col in ("LPAR", "Vh physical", "Others on physical") else "right")
    for lp in d["lpars"]:
        name = lp["name"] + (" *" if lp["name"] == d["simulated_lpar"] else "")
        others = sorted({h for k, v in lp["physical"].items() if k != "Vh" for h in v})
        t.add_row(name, "ded" if lp["dedicated"] else str(lp["weight"]), str(lp["logical"]),
                  f"{lp['entitlement_pct']:.0f}", str(lp["vh"]), str(lp["vm"]), str(lp["vl"]), str(lp["hz"]),
                  str(lp["ded"]), _ranges(lp["physical"].get("Vh", [])), _ranges(others))
    console.print(t)
    console.print(f"{d['vh_total']} Vh on {d['vh_physical']} physical cores; "
                  f"{d['non_vh_total']} non-Vh on {d['non_vh_physical']} physical cores "
                  f"(* = the LPAR z/VM runs in)")
