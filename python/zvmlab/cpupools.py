"""z/VM CPU pools in scenarios (issue 18): ``[[cpupool]]`` tables, a guest's ``pool``, and the CP
commands DEFINE CPUPOOL, SET CPUPOOL, DELETE CPUPOOL and SCHEDULE as ``[[action]]`` commands.

A pool caps the CPU its members use together: ``LIMITHARD n%`` is n % of the LPAR's online
logical processors, ``CAPACITY n`` is n processors' worth (never more than those online). The
engine enforces it like a user's LIMITHARD (consumption method, crates/engine/src/pools.rs); the
Solver divides the pool among its members by their shares (lab/solver.py).
"""

from __future__ import annotations

import re
from typing import Any

from . import contract
from .errors import InputError, table_array

POOL_TYPES = contract.vocabulary("pool_type")
MAX_CAPACITY = float(contract.limit("pool_capacity")[1])
_NAME = re.compile("[" + re.escape(contract.word("name_chars")) + "]{1,%d}" % contract.word("max_name"))
CPUPOOL_KEYS = {"name": "pool name, 1-8 characters", "limithard": "LIMITHARD: percent of the online logical "
                "processors, e.g. \"25%\"", "capacity": "CAPACITY: processors' worth, e.g. 1.5",
                "type": "IFL | CP (default IFL)"}
_LIMIT = r"(?:LIMITHARD\s+(?P<lh>\S+?)%?|CAPACITY\s+(?P<cap>\S+))"
_DEFINE = re.compile(rf"^\s*DEFINE\s+CPUPOOL\s+(?P<name>\S+)\s+{_LIMIT}(?:\s+TYPE\s+(?P<type>\S+))?\s*$",
                     re.IGNORECASE)
_SET = re.compile(rf"^\s*SET\s+CPUPOOL\s+(?P<name>\S+)\s+{_LIMIT}(?:\s+TYPE\s+(?P<type>\S+))?\s*$", re.IGNORECASE)
_DELETE = re.compile(r"^\s*DELETE\s+CPUPOOL\s+(?P<name>\S+)\s*$", re.IGNORECASE)
_SCHEDULE = re.compile(r"^\s*SCHEDULE\s+(?P<uid>\S+)\s+(?:TO\s+POOL\s+(?P<pool>\S+)|(?P<nopool>NOPOOL))\s*$",
                       re.IGNORECASE)
COMMANDS_FIX = ('pool commands: "DEFINE CPUPOOL name LIMITHARD n% | CAPACITY n [TYPE IFL|CP]", '
                '"SET CPUPOOL name LIMITHARD n% | CAPACITY n", "DELETE CPUPOOL name", '
                '"SCHEDULE userid TO POOL name", "SCHEDULE userid NOPOOL"')


def pool_name(v: Any, *, file, line, field: str) -> str:
    if not isinstance(v, str) or not _NAME.fullmatch(v.upper()):
        raise InputError(f"{v!r} is not a CPU pool name", file=file, line=line, field=field,
                         fix="1-8 characters: letters, digits, @ # $ _ -")
    return v.upper()


def _number(text: Any, *, file, line, field: str, what: str) -> float:
    try:
        x = float(str(text).strip().rstrip("%"))
    except ValueError:
        x = float("nan")
    if isinstance(text, bool) or x != x:
        raise InputError(f"{text!r} is not a number", file=file, line=line, field=field, fix=f"give {what}")
    return x


def limit(lh: Any, cap: Any, *, name: str, file, line, field: str) -> dict:
    """The engine's limit fields from LIMITHARD (percent) or CAPACITY (processors)."""
    if (lh is None) == (cap is None):
        raise InputError(f"CPU pool {name}: give exactly one of LIMITHARD and CAPACITY", file=file, line=line,
                         field=field, fix='e.g. limithard = "25%" or capacity = 1.5')
    if lh is not None:
        p = _number(lh, file=file, line=line, field=field, what='a percentage, e.g. "25%"')
        if not (0 < p <= 100):
            raise InputError(f"LIMITHARD {p:g}% is out of range", file=file, line=line, field=field,
                             fix="LIMITHARD is a percentage of the online processors: above 0 and at most 100 %")
        return {"limithard_pct": p}
    c = _number(cap, file=file, line=line, field=field, what="a number of processors, e.g. 1.5")
    if not (0 < c <= MAX_CAPACITY):
        raise InputError(f"CAPACITY {c:g} is out of range", file=file, line=line, field=field,
                         fix=f"CAPACITY is processors' worth: above 0 and at most {MAX_CAPACITY:g}")
    return {"capacity": c}


def _ptype(v: Any, *, file, line, field: str) -> str:
    t = str(v).upper() if isinstance(v, str) else v
    if t not in POOL_TYPES:
        raise InputError(f"{v!r} is not a CPU pool type", file=file, line=line, field=field,
                         fix="TYPE IFL or TYPE CP")
    return t


def tables(raw: Any, *, file, ln, unknown_keys) -> list[dict]:
    """``[[cpupool]]`` tables -> the engine's pools (members added from the guests later)."""
    out: list[dict] = []
    for i, where, t in table_array(raw, field="cpupool", file=file, fix="write [[cpupool]] tables",
                                   item_fix="write pools as [[cpupool]] tables"):
        unknown_keys(t, CPUPOOL_KEYS, table="cpupool", index=i, where=where)
        if "name" not in t:
            raise InputError("missing name", file=file, line=ln("cpupool", None, i), field=f"{where}.name",
                             fix='e.g. name = "LINUXP"')
        name = pool_name(t["name"], file=file, line=ln("cpupool", "name", i), field=f"{where}.name")
        if any(p["name"] == name for p in out):
            raise InputError(f"CPU pool {name} is defined twice", file=file, line=ln("cpupool", "name", i),
                             field=f"{where}.name", fix="pool names must be unique")
        key = "limithard" if "limithard" in t else "capacity"
        lim = limit(t.get("limithard"), t.get("capacity"), name=name, file=file, line=ln("cpupool", key, i),
                    field=f"{where}.{key}")
        ptype = _ptype(t.get("type", "IFL"), file=file, line=ln("cpupool", "type", i), field=f"{where}.type")
        out.append({"name": name, **lim, "type": ptype, "members": []})
    return out


def command(cmd: str, *, file, line, field: str) -> dict | None:
    """A pool command as the engine's action (without ``at_ns``), or None if ``cmd`` is none."""
    m = _DEFINE.match(cmd)
    if m:
        name = pool_name(m["name"], file=file, line=line, field=field)
        lim = limit(m["lh"], m["cap"], name=name, file=file, line=line, field=field)
        ptype = _ptype(m["type"] or "IFL", file=file, line=line, field=field)
        return {"kind": "define-cpupool", "pool": {"name": name, **lim, "type": ptype, "members": []}}
    m = _SET.match(cmd)
    if m:
        name = pool_name(m["name"], file=file, line=line, field=field)
        return {"kind": "set-cpupool", "name": name,
                **limit(m["lh"], m["cap"], name=name, file=file, line=line, field=field)}
    m = _DELETE.match(cmd)
    if m:
        return {"kind": "delete-cpupool", "name": pool_name(m["name"], file=file, line=line, field=field)}
    m = _SCHEDULE.match(cmd)
    if m:
        pool = None if m["nopool"] else pool_name(m["pool"], file=file, line=line, field=field)
        return {"kind": "schedule-pool", "userid": m["uid"].upper(), "pool": pool}
    if re.match(r"^\s*(DEFINE\s+CPUPOOL|SET\s+CPUPOOL|DELETE\s+CPUPOOL|SCHEDULE)\b", cmd, re.IGNORECASE):
        raise InputError(f"malformed pool command {cmd!r}", file=file, line=line, field=field, fix=COMMANDS_FIX)
    return None


def check_sequence(pools: list[dict], members: dict[str, str], timed: list[tuple[int, int, dict]],
                   userids: set[str], *, file, ln) -> None:
    """Pool commands in time order make sense: SCHEDULE names a known user and a pool defined by
    then, DEFINE does not redefine, SET and DELETE name a defined pool, DELETE only an empty one.
    ``timed`` holds (at_ns, action index, engine action)."""
    live = {p["name"]: sum(1 for v in members.values() if v == p["name"]) for p in pools}
    member = dict(members)
    for _, i, a in sorted(timed, key=lambda x: (x[0], x[1])):
        line, field = ln("action", "command", i), f"action[{i}].command"
        kind = a["kind"]

        def fail(msg: str, fix: str) -> None:
            raise InputError(msg, file=file, line=line, field=field, fix=fix)

        defined = ", ".join(sorted(live)) or "none"
        if kind == "define-cpupool":
            if a["pool"]["name"] in live:
                fail(f"CPU pool {a['pool']['name']} already exists", "SET CPUPOOL changes its limit")
            live[a["pool"]["name"]] = 0
        elif kind in ("set-cpupool", "delete-cpupool") and a["name"] not in live:
            fail(f"no CPU pool {a['name']} at that time", f"pools defined then: {defined}")
        elif kind == "delete-cpupool":
            if live[a["name"]] > 0:
                fail(f"CPU pool {a['name']} still has members", "SCHEDULE them NOPOOL before DELETE CPUPOOL")
            del live[a["name"]]
        elif kind == "schedule-pool":
            uid, pool = a["userid"], a["pool"]
            if uid not in userids:
                fail(f"SCHEDULE names unknown userid {uid}", f"known userids: {', '.join(sorted(userids)[:12])}")
            if pool is not None and pool not in live:
                fail(f"SCHEDULE {uid} TO POOL {pool}: no such pool at that time",
                     f"DEFINE CPUPOOL {pool} first (pools defined then: {defined})")
            old = member.pop(uid, None)
            if old is not None:
                live[old] -= 1
            if pool is not None:
                member[uid] = pool
                live[pool] += 1


def limit_pct(pool: dict, processors: int) -> float:
    """A pool's limit in percent of one processor."""
    if "limithard_pct" in pool:
        return pool["limithard_pct"] * processors
    return min(pool["capacity"], processors) * 100.0


def pools_at(sc, t_ns: int) -> tuple[dict[str, str], dict[str, float]]:
    """Pool membership (userid -> pool) and limits (pool -> percent of one processor) in effect at
    simulated time ``t_ns`` (after every pool command due by then)."""
    pools = {p["name"]: dict(p) for p in sc.cpupools}
    member = {u: p["name"] for p in sc.cpupools for u in p["members"]}
    for a in sc.actions:
        e = getattr(a, "engine", None)
        if e is None or a.at_ns > t_ns:
            continue
        k = e["kind"]
        if k == "define-cpupool":
            pools[e["pool"]["name"]] = dict(e["pool"])
        elif k == "set-cpupool":
            p = {x: v for x, v in pools[e["name"]].items() if x not in ("limithard_pct", "capacity")}
            pools[e["name"]] = {**p, **{x: e[x] for x in ("limithard_pct", "capacity") if x in e}}
        elif k == "delete-cpupool":
            pools.pop(e["name"], None)
        elif k == "schedule-pool":
            member.pop(e["userid"], None)
            if e["pool"] is not None:
                member[e["userid"]] = e["pool"]
    return member, {n: limit_pct(p, sc.processors) for n, p in pools.items()}
