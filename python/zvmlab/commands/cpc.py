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
          "polarization": c["polarization"], "busy": 0.0,
          **{k: c[k] for k in ("capped", "abscap", "group") if k in c}}
    spec = {"shared": c["shared"], "dedicated": c["dedicated"], "lpars": [me, *c["lpars"]]}
    if c.get("groups"):
        spec["groups"] = c["groups"]
    return spec


def cap_limits(spec: dict, entitlements: list[float]) -> list[float | None]:
    """Each LPAR's cap in cores (None: not capped), as the engine's ``prsm::limits`` computes it:
    initial capping at the entitlement, an absolute cap, and a group's cap divided by weight among
    the members by what they want (partners: busy x logical cores; the simulated LPAR: all)."""
    from ..lab.solver import water_fill

    inf = float("inf")
    out = []
    for lp, e in zip(spec["lpars"], entitlements):
        x = inf
        if lp.get("capped"):
            x = e
        if lp.get("abscap") is not None:
            x = min(x, lp["abscap"])
        out.append(x)
    for g in spec.get("groups", []):
        js = [j for j, lp in enumerate(spec["lpars"]) if lp.get("group") == g["name"]]
        w = [float(spec["lpars"][j]["weight"]) for j in js]
        want = [min(out[j], spec["lpars"][j]["logical"] * (1.0 if j == 0 else spec["lpars"][j].get("busy", 0.0)))
                for j in js]
        got = water_fill(g["abscap"], w, want)
        for k, j in enumerate(js):
            out[j] = min(out[j], max(got[k], g["abscap"] * w[k] / sum(w)))
    return [None if x == inf else x for x in out]


def describe(sc: scenario.Scenario) -> dict:
    spec = cpc_spec(sc)
    pol = engine.polarize(spec)
    caps = cap_limits(spec, [lp["entitlement"] for lp in pol["lpars"]])
    lpars = []
    for lp, sp, cap in zip(pol["lpars"], spec["lpars"], caps):
        homes: dict[str, list[int]] = {}
        for core in lp["cores"]:
            homes.setdefault(core["pol"], []).append(core["home"])
        lpars.append({
            "name": lp["name"], "weight": lp["weight"], "logical": lp["logical"],
            "dedicated": lp["dedicated"], "polarization": lp["polarization"],
            "entitlement": lp["entitlement"], "entitlement_pct": 100.0 * lp["entitlement"],
            "vh": lp["vh"], "vm": lp["vm"], "vl": lp["vl"], "hz": lp["hz"], "ded": lp["ded"],
            "physical": {k: sorted(set(v)) for k, v in homes.items()},
            "capped": bool(sp.get("capped")), "abscap": sp.get("abscap"), "group": sp.get("group"),
            "cap_cores": cap,
        })
    return {"scenario": sc.path, "shared_ifls": pol["shared"], "dedicated_ifls": pol["dedicated"],
            "simulated_lpar": sc.cpc["name"] if sc.cpc else None,
            "vh_total": pol["vh_total"], "vh_physical": pol["vh_physical"],
            "non_vh_total": pol["non_vh_total"], "non_vh_physical": pol["non_vh_physical"],
            "lpars": lpars, "groups": spec.get("groups", [])}


def _capping_text(lp: dict) -> str:
    parts = (["initial"] if lp["capped"] else []) + ([f"abs {lp['abscap']:g}"] if lp["abscap"] is not None else []) \
        + ([f"group {lp['group']}"] if lp["group"] else [])
    return ", ".join(parts) or "-"


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
    capping = any(lp["cap_cores"] is not None for lp in d["lpars"])
    cols = ["LPAR", "Weight", "Logical", "Entitled %", "Vh", "Vm", "Vl", "Hz", "Ded", "Vh physical",
            "Others on physical"] + (["Capping", "Cap (cores)"] if capping else [])
    for col in cols:
        t.add_column(col, justify="left" if col in ("LPAR", "Vh physical", "Others on physical", "Capping")
                     else "right")
    for lp in d["lpars"]:
        name = lp["name"] + (" *" if lp["name"] == d["simulated_lpar"] else "")
        others = sorted({h for k, v in lp["physical"].items() if k != "Vh" for h in v})
        t.add_row(name, "ded" if lp["dedicated"] else str(lp["weight"]), str(lp["logical"]),
                  f"{lp['entitlement_pct']:.0f}", str(lp["vh"]), str(lp["vm"]), str(lp["vl"]), str(lp["hz"]),
                  str(lp["ded"]), _ranges(lp["physical"].get("Vh", [])), _ranges(others),
                  *([_capping_text(lp), "" if lp["cap_cores"] is None else f"{lp['cap_cores']:.2f}"]
                    if capping else []))
    console.print(t)
    for g in d["groups"]:
        console.print(f"capping group {safe(g['name'])}: its members together at most {g['abscap']:g} processors")
    console.print(f"{d['vh_total']} Vh on {d['vh_physical']} physical cores; "
                  f"{d['non_vh_total']} non-Vh on {d['non_vh_physical']} physical cores "
                  f"(* = the LPAR z/VM runs in)")
