"""LPAR capping in scenarios (issue 18): initial capping (``capped = true``: never above the
weight's share of the shared pool), absolute capping (``abscap = 2.5`` processors) and absolute
capping groups (``[[cpc.group]] name, abscap``; members name theirs), for the simulated LPAR in
``[system]`` (``capgroup``) and for partners in ``[[cpc.lpar]]`` (``group``). PR/SM's arithmetic
is the engine's (crates/engine/src/prsm.rs ``limits``)."""

from __future__ import annotations

from typing import Any

from . import contract
from .errors import InputError, table_array

MIN_CAP, MAX_CAP = contract.limit("abscap")  # HMC: an absolute cap of 0.01 to 255.0 processors
SYSTEM_KEYS = {"capped": "initial capping: true or false (never above the weight's share; with [cpc])",
               "abscap": "absolute capping: at most this many processors, e.g. 2.5 (with [cpc])",
               "capgroup": "the absolute capping group ([[cpc.group]] name) the LPAR belongs to (with [cpc])"}
LPAR_KEYS = {"capped": "initial capping: true or false", "abscap": "absolute cap in processors, e.g. 1.5",
             "group": "its absolute capping group ([[cpc.group]] name)"}
GROUP_KEYS = {"name": "group name, 1-8 characters", "abscap": "the members' cap together, in processors"}


def _cap(v: Any, *, file, line, field: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or not MIN_CAP <= v <= MAX_CAP:
        raise InputError(f"absolute cap {v!r} is out of range", file=file, line=line, field=field,
                         fix=f"a number of processors, {MIN_CAP:g} to {MAX_CAP:g}, e.g. abscap = 2.5")
    return float(v)


def groups(raw: Any, *, file, ln, unknown_keys) -> list[dict]:
    """``[[cpc.group]]`` tables."""
    out: list[dict] = []
    for i, where, g in table_array(raw, field="cpc.group", file=file, fix="write [[cpc.group]] tables",
                                   item_fix="write [[cpc.group]] tables"):
        unknown_keys(g, GROUP_KEYS, table="cpc.group", index=i, where=where)
        for k in GROUP_KEYS:
            if k not in g:
                raise InputError(f"missing {k}", file=file, line=ln("cpc.group", None, i), field=f"{where}.{k}",
                                 fix='e.g. [[cpc.group]] name = "LINUXG" abscap = 4')
        name = g["name"]
        if not isinstance(name, str) or not 1 <= len(name) <= 8 or any(x["name"] == name for x in out):
            raise InputError(f"{name!r} is not a new group name", file=file, line=ln("cpc.group", "name", i),
                             field=f"{where}.name", fix="1-8 characters, one name per group")
        out.append({"name": name, "abscap": _cap(g["abscap"], file=file, line=ln("cpc.group", "abscap", i),
                                                 field=f"{where}.abscap")})
    return out


def lpar(t: dict, *, keys: dict[str, str], file, line, where: str, group_names: set[str],
         dedicated: bool = False) -> dict:
    """The engine's capping fields of one LPAR from ``t`` (``keys`` maps engine field -> key)."""
    out: dict[str, Any] = {}
    present = [k for k in keys.values() if k in t]
    if present and dedicated:
        raise InputError("a dedicated LPAR cannot be capped", file=file, line=line(present[0]),
                         field=f"{where}.{present[0]}", fix="remove the capping keys or set dedicated = false")
    k = keys["capped"]
    if k in t:
        if not isinstance(t[k], bool):
            raise InputError(f"{t[k]!r} is not true or false", file=file, line=line(k), field=f"{where}.{k}",
                             fix=f"write {k} = true or {k} = false")
        if t[k]:
            out["capped"] = True
    k = keys["abscap"]
    if k in t:
        out["abscap"] = _cap(t[k], file=file, line=line(k), field=f"{where}.{k}")
    k = keys["group"]
    if k in t:
        if t[k] not in group_names:
            raise InputError(f"{k} = {t[k]!r} names no capping group", file=file, line=line(k),
                             field=f"{where}.{k}",
                             fix=("groups: " + ", ".join(sorted(group_names))) if group_names
                             else 'define it: [[cpc.group]] name = "G1" abscap = 4')
        out["group"] = t[k]
    return out
