"""The Solver of seed 000's Solver / Runner / Comparator method: the correct CPU answer for a
share scenario, computed by mathematics rather than by running anything.

Pure Python (standard library only); it never imports the engine.

Definitions and where they come from
------------------------------------
- **Capacity** is the LPAR's logical processors x 100 % ("LPAR has two logical processors, so it
  has 200% to give": seed 000, "Infinite Demand, Unequal Share"). Answers are in percent of one
  processor.
- **Demand** is what the user would consume with the system to itself, already capped by the
  caller at its virtual CPUs x 100 %. A user never gets more than its demand.
- **Minimum shares -> weights** (IBM SET SHARE text, cp-model section 4.5): ABSOLUTE shares are
  taken first as fractions of the whole system; RELATIVE users divide what is left in proportion
  to their relative shares. If the ABSOLUTE shares sum above ``ABS_CAP`` (0.99, cp-model 4.5
  "[K/A]", the engine's parameter ``sched.abs_cap``) they are scaled down together to
  ``ABS_CAP``, so relative users always keep a positive weight. The normalized share (a fraction of
  the system) is the user's weight, and ``weight x capacity`` is its **entitlement**.
- **Entitlement plus excess** (seed 000, "Distribution of Excess": users wanting less than their
  entitlement leave excess that goes to the users who want more "in correct proportion"; cp-model
  4.6 Solver steps 0-3): capacity is water-filled, weighted max-min fair. There is one water level
  ``L`` and every user gets ``min(cap_i, w_i x L)``, with ``L`` chosen so the capacity is used up,
  or ``L`` infinite if every user reaches its cap. ``cap_i`` is the demand and, for LIMITHARD and
  (in the first pass) LIMITSOFT users, also the maximum share. Since weights sum to at most 1,
  every user gets at least ``min(cap_i, entitlement_i)``.
- **Maximum shares** (IBM SET SHARE: a target maximum of the scheduled CPU resource).
  ABSOLUTE: percent of the whole system, never scaled. RELATIVE (choice, documented here because
  IBM's public text does not give the formula): normalized like a minimum share, i.e.
  ``(1 - sum of scaled ABSOLUTE minimums) x max / (sum of the RELATIVE minimum shares)``, so a
  RELATIVE maximum equal to the user's RELATIVE minimum caps it at its own entitlement and twice
  its minimum allows twice its entitlement. This is the normalization the engine uses
  (crates/engine/src/scheduler.rs ``normalized``), so the Solver and the simulator agree. If no
  user has a RELATIVE minimum share there is nothing to be relative to and a RELATIVE maximum
  sets no limit (the engine behaves the same way). LIMITSOFT or LIMITHARD without a maximum share
  means the maximum equals the minimum ("ABSOLUTE 20% LIMITHARD", the scenario loader's reading of
  SET SHARE).
- **LIMITHARD** (seed 002: "limit regardless of capacity"): never more than the maximum, even on
  an idle system.
- **LIMITSOFT** (seed 002: "limit unless extra capacity exists"; cp-model 4.6 step 4): a first
  water-fill caps soft-limited users at their maximum. Capacity still left after it is, by
  construction, capacity no user wants at the first pass's caps (every user is at its demand or
  limit); it is water-filled again, by the same weights, over the soft-limited users that want
  more. No user that is not soft-limited ever loses anything to a soft-limited user's excess.

- **CPU pools** (z/VM 6.3 VM65418 and later; docs/research/machines-and-caches.md section 4): a
  pool caps what its members get together (``pools``: name -> percent of one processor); shares
  still divide it. Weighted max-min fairness with the extra bounds: members of a pool whose limit
  binds share the pool at a pool level ``L_p <= L`` (each ``min(cap_i, w_i x L_p)``), everyone
  else is at the system level as before. Computed by filling without the pools and fixing, one
  at a time, a pool whose members got more than its limit (its limit water-filled among them, the
  rest refilled): what is left for the others only grows, so a pool over its limit stays over it.
  The LIMITSOFT pass respects what is left of each pool. Tested against brute-force enumeration of
  which users and pools bind (tests/python/test_solver_pools.py).

Guarantees (tested in tests/python/test_solver.py and test_solver_props.py): the answer never
gives out more than the capacity (exactly, in floating point: ``math.fsum`` and ``sum`` of the
answer are both <= capacity), never more than a demand or a LIMITHARD maximum, and it is work
conserving: it equals ``min(capacity, sum of what users can take)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, Sequence

ABS_CAP = 0.99  # ABSOLUTE minimum shares are scaled down to this fraction of the system when they sum above it

_KINDS = ("relative", "absolute")
_LIMITS = ("none", "soft", "hard")


@dataclass(frozen=True)
class Share:
    kind: Literal["relative", "absolute"]
    value: float  # relative 1..10000; absolute percent of the whole system 0.1..100


@dataclass(frozen=True)
class UserSpec:
    userid: str
    demand_pct: float  # percent of one processor wanted (math.inf = unlimited), capped by the caller at vcpus x 100
    min_share: Share
    max_share: Share | None = None
    limit: Literal["none", "soft", "hard"] = "none"
    pool: str | None = None  # the CPU pool it is scheduled to (solve's ``pools`` gives the limits)


@dataclass
class Solution:
    users: dict[str, float]  # percent of one processor each user gets
    capacity_pct: float = 0.0
    weights: dict[str, float] = field(default_factory=dict)  # normalized minimum share (fraction of system)
    entitlement: dict[str, float] = field(default_factory=dict)  # weight x capacity, percent
    caps: dict[str, float] = field(default_factory=dict)  # maximum share in percent (inf if none / NOLIMIT)
    binding: dict[str, str] = field(default_factory=dict)  # demand | limit | share | soft-excess | pool
    # Water level of the first pass, in percent per unit of weight: a user held back by capacity
    # (binding "share") gets exactly weight x level. Infinite when capacity does not bind.
    level: float = math.inf
    # Water level of the LIMITSOFT pass over the capacity nobody else wants (0 if there was none).
    soft_level: float = 0.0

    def to_json(self) -> dict:
        return {"users": dict(self.users)}


def _check(capacity_pct: float, users: Sequence[UserSpec]) -> None:
    if not (isinstance(capacity_pct, (int, float)) and math.isfinite(capacity_pct) and capacity_pct >= 0):
        raise ValueError(f"capacity must be a finite number >= 0 (percent of one processor), not {capacity_pct!r}")
    seen: set[str] = set()
    for u in users:
        if u.userid in seen:
            raise ValueError(f"userid {u.userid!r} appears twice; userids must be unique")
        seen.add(u.userid)
        if math.isnan(u.demand_pct) or u.demand_pct < 0:
            raise ValueError(f"{u.userid}: demand must be >= 0 percent (math.inf = unlimited), not {u.demand_pct!r}")
        if u.limit not in _LIMITS:
            raise ValueError(f"{u.userid}: limit must be one of {_LIMITS}, not {u.limit!r}")
        for what, s in (("minimum", u.min_share), ("maximum", u.max_share)):
            if s is None:
                if what == "minimum":
                    raise ValueError(f"{u.userid}: a minimum share is required")
                continue
            if s.kind not in _KINDS:
                raise ValueError(f"{u.userid}: {what} share kind must be 'relative' or 'absolute', not {s.kind!r}")
            if not (math.isfinite(s.value) and s.value > 0):
                raise ValueError(f"{u.userid}: {what} share must be a finite number > 0, not {s.value!r}")
            if s.kind == "absolute" and s.value > 100:
                raise ValueError(f"{u.userid}: an ABSOLUTE {what} share is at most 100 %, not {s.value!r}")


def _norm(v: Share, abs_sum: float, rel_sum: float, is_min: bool, abs_cap: float = ABS_CAP) -> float:
    """A share as a fraction of the system (see the module docstring for the rules)."""
    scale = abs_cap / abs_sum if abs_sum > abs_cap else 1.0
    if v.kind == "absolute":
        return v.value / 100.0 * (scale if is_min else 1.0)
    if rel_sum <= 0:
        return math.inf  # a RELATIVE maximum with no RELATIVE users to be relative to: no limit
    left = max(0.0, 1.0 - abs_sum * scale)
    return left * v.value / rel_sum


def _fill(capacity: float, weights: Sequence[float], caps: Sequence[float]) -> tuple[list[float], float]:
    """Weighted max-min fair water-filling: ``(allocation, level)``.

    Every user ``i`` gets ``min(caps[i], weights[i] * level)``; ``level`` is infinite when every
    user reaches its cap. Users are visited in order of the level at which they saturate
    (``cap / weight``); ties are broken by index, which only matters at rounding level.
    """
    n = len(weights)
    alloc = [0.0] * n
    live = [i for i in range(n) if caps[i] > 0 and weights[i] > 0]
    live.sort(key=lambda i: (caps[i] / weights[i], i))
    left = max(0.0, capacity)
    wsum = math.fsum(weights[i] for i in live)
    for k, i in enumerate(live):
        level = left / wsum if wsum > 0 else 0.0
        if caps[i] <= weights[i] * level:
            alloc[i] = caps[i]
            left = max(0.0, left - caps[i])
            wsum -= weights[i]
        else:
            for j in live[k:]:
                alloc[j] = min(caps[j], weights[j] * level)
            return alloc, level
    return alloc, math.inf


def _fill_pooled(capacity: float, w: Sequence[float], caps: Sequence[float], member: Sequence[str | None],
                 pool_caps: dict[str, float]) -> tuple[list[float], float, set[str]]:
    """``_fill`` with pools: ``(allocation, level, pools whose limit binds)`` (module docstring)."""
    n = len(w)
    fixed: dict[str, list[float]] = {}
    left = max(0.0, capacity)
    while True:
        free = [0.0 if member[i] in fixed else caps[i] for i in range(n)]
        alloc, level = _fill(left, w, free)
        for p, got in fixed.items():
            for i, a in zip([i for i in range(n) if member[i] == p], got):
                alloc[i] = a
        over = None
        for p in sorted(pool_caps):
            if p in fixed:
                continue
            if math.fsum(alloc[i] for i in range(n) if member[i] == p) > pool_caps[p] * (1 + 1e-12):
                over = p
                break
        if over is None:
            return alloc, level, set(fixed)
        mine = [i for i in range(n) if member[i] == over]
        fixed[over] = _fill(pool_caps[over], [w[i] for i in mine], [caps[i] for i in mine])[0]
        left = max(0.0, left - pool_caps[over])


def water_fill(capacity: float, weights: Sequence[float], caps: Sequence[float]) -> list[float]:
    """Weighted max-min fair allocation of ``capacity`` with upper bounds ``caps``."""
    return _fill(capacity, weights, caps)[0]


def _within(capacity: float, alloc: list[float]) -> None:
    """Trim rounding so the allocation never sums above the capacity (fsum and left-to-right sum)."""
    for _ in range(64):
        over = max(math.fsum(alloc), sum(alloc)) - capacity
        if over <= 0:
            return
        j = max(range(len(alloc)), key=lambda i: alloc[i])
        alloc[j] = max(0.0, min(alloc[j] - over, math.nextafter(alloc[j], -math.inf)))


def solve(capacity_pct: float, users: Sequence[UserSpec], *, abs_cap: float = ABS_CAP,
          pools: dict[str, float] | None = None) -> Solution:
    """The correct answer for a share scenario: percent of one processor for each user.

    ``capacity_pct`` is processors x 100; ``pools`` gives each CPU pool's limit in percent of one
    processor (users name theirs in ``UserSpec.pool``). Raises ``ValueError`` on input no scenario can have
    (negative or NaN demand or capacity, non-positive shares, duplicate userids).
    """
    _check(capacity_pct, users)
    capacity_pct = float(capacity_pct)
    w, maxes = _weights_and_maxes(capacity_pct, users, abs_cap)
    demand = [float(u.demand_pct) for u in users]
    cap1 = [min(d, m) for d, m in zip(demand, maxes)]
    member = [u.pool for u in users]
    pool_caps = _pool_caps(users, pools)
    bound: set[str] = set()
    if pool_caps:
        alloc, level, bound = _fill_pooled(capacity_pct, w, cap1, member, pool_caps)
    else:
        alloc, level = _fill(capacity_pct, w, cap1)
    binding: dict[str, str] = {}
    soft_level = 0.0
    left = capacity_pct - math.fsum(alloc)
    if left > 0 and math.isinf(level):
        soft_level = _soft_excess(left, users, w, demand, alloc, pool_caps, binding)
    _within(capacity_pct, alloc)
    for i, u in enumerate(users):
        binding.setdefault(u.userid, _binds(alloc[i], demand[i], maxes[i], u.pool in bound))
    return Solution(
        users={u.userid: a for u, a in zip(users, alloc)},
        capacity_pct=capacity_pct,
        weights={u.userid: x for u, x in zip(users, w)},
        entitlement={u.userid: x * capacity_pct for u, x in zip(users, w)},
        caps={u.userid: m for u, m in zip(users, maxes)},
        binding=binding,
        level=level,
        soft_level=soft_level,
    )


def _weights_and_maxes(capacity_pct: float, users: Sequence[UserSpec], abs_cap: float) -> tuple[list[float], list[float]]:
    """Each user's normalized minimum share (its weight) and its maximum in percent (inf: no limit)."""
    abs_sum = math.fsum(u.min_share.value / 100 for u in users if u.min_share.kind == "absolute")
    rel_sum = math.fsum(u.min_share.value for u in users if u.min_share.kind == "relative")
    w = [_norm(u.min_share, abs_sum, rel_sum, True, abs_cap) for u in users]
    maxes = []
    for u in users:
        if u.limit == "none":
            maxes.append(math.inf)
        else:
            m = u.max_share if u.max_share is not None else u.min_share
            maxes.append(_norm(m, abs_sum, rel_sum, False, abs_cap) * capacity_pct)
    return w, maxes


def _pool_caps(users: Sequence[UserSpec], pools: dict[str, float] | None) -> dict[str, float]:
    """The limits of the pools that have members; every member's pool must have one."""
    member = [u.pool for u in users]
    pool_caps = {p: float(c) for p, c in (pools or {}).items() if p in member}
    for u in users:
        if u.pool is not None and u.pool not in (pools or {}):
            raise ValueError(f"{u.userid}: CPU pool {u.pool!r} has no limit in pools")
    return pool_caps


def _soft_excess(left: float, users: Sequence[UserSpec], w: list[float], demand: list[float], alloc: list[float],
                 pool_caps: dict[str, float], binding: dict[str, str]) -> float:
    """What is left after the fill goes to LIMITSOFT users still wanting more (within their
    pools' rest), by weight; updates ``alloc`` and ``binding``, returns the soft water level."""
    n = len(users)
    member = [u.pool for u in users]
    cap2 = [(demand[i] - alloc[i]) if users[i].limit == "soft" and demand[i] > alloc[i] else 0.0 for i in range(n)]
    if not any(c > 0 for c in cap2):
        return 0.0
    if pool_caps:
        rest = {p: max(0.0, c - math.fsum(alloc[i] for i in range(n) if member[i] == p))
                for p, c in pool_caps.items()}
        more, soft_level, _ = _fill_pooled(left, w, cap2, member, rest)
    else:
        more, soft_level = _fill(left, w, cap2)
    for i, m in enumerate(more):
        if m > 0:
            alloc[i] = min(demand[i], alloc[i] + m)
            binding[users[i].userid] = "soft-excess"
    return soft_level


def _binds(alloc: float, demand: float, cap: float, pool_bound: bool) -> str:
    """What holds a user at its allocation: its demand, its limit, its pool, or its share."""
    if alloc >= demand - 1e-9:
        return "demand"
    if alloc >= cap - 1e-9:
        return "limit"
    return "pool" if pool_bound else "share"
