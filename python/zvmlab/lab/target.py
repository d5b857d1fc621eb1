"""The share that gives a user a target CPU share when it is busy (`zvmlab solve --target`).

The Solver's answer for a user is non-decreasing in its minimum share, so the smallest share that
reaches the target is found by bisection: over RELATIVE 1-10000 (whole numbers, as SET SHARE takes
them) and over ABSOLUTE 0.1-100 % (in tenths). "Busy" means the user wants all its virtual CPUs
can take (its demand is vcpus x 100 %); every other user keeps the demand its workload gives. The
user's maximum share and limit type stay as in the scenario (a LIMITHARD maximum below the target
makes it unreachable, and the answer says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..errors import InputError
from . import comparator
from .. import cpupools
from . import solver as _solver


@dataclass
class TargetShare:
    userid: str
    target_pct: float
    relative: int | None  # smallest RELATIVE share reaching the target (None: none does)
    relative_gets_pct: float | None
    absolute: float | None  # smallest ABSOLUTE share in percent, in tenths (None: none does)
    absolute_gets_pct: float | None
    best_pct: float  # the most any minimum share gives the user

    def to_json(self) -> dict:
        return dict(self.__dict__)


def parse(spec: str) -> tuple[str, float]:
    uid, _, pct = spec.partition("=")
    t = pct.strip().rstrip("%").strip()
    try:
        v = float(t)
    except ValueError:
        v = math.nan
    if not uid.strip() or not math.isfinite(v):
        raise InputError(f"{spec!r} is not USERID=PERCENT", field="--target",
                         fix="e.g. --target DB=50% (percent of one processor, as in every CPU figure)")
    if v <= 0:
        raise InputError(f"{spec!r}: a target must be above 0 %",
                         field="--target", fix="e.g. --target DB=50% (percent of one processor)")
    return uid.strip().upper(), v


def _gets(sc, users: list, i: int, share: _solver.Share) -> float:
    us = list(users)
    us[i] = replace(us[i], min_share=share)
    _, limits = cpupools.pools_at(sc, 0)
    return _solver.solve(sc.processors * 100.0, us, pools=limits).users[us[i].userid]


def _smallest(ok, lo: float, hi: float, step: float) -> float | None:
    """The smallest multiple of ``step`` in [lo, hi] where ``ok`` holds (``ok`` monotone), or None."""
    a, b = round(lo / step), round(hi / step)
    if not ok(b * step):
        return None
    while a < b:
        m = (a + b) // 2
        if ok(m * step):
            b = m
        else:
            a = m + 1
    return a * step


def share_for(sc, userid: str, target_pct: float, shares: dict | None = None) -> TargetShare:
    users = comparator.solver_users(sc, shares, cpupools.pools_at(sc, 0)[0])
    ids = [u.userid for u in users]
    if userid not in ids:
        raise InputError(f"the scenario has no user {userid!r}", field="--target",
                         fix=f"users: {', '.join(ids[:20])}{' ...' if len(ids) > 20 else ''}")
    i = ids.index(userid)
    g = next(g for g in sc.guests if userid in g.userids())
    most = g.vcpus * 100.0
    if target_pct > min(most, sc.processors * 100.0):
        raise InputError(f"{target_pct:g} % is more than {userid} can use ({g.vcpus} virtual CPU(s), "
                         f"{sc.processors} processors)", field="--target",
                         fix=f"ask for at most {min(most, sc.processors * 100.0):g} %")
    users[i] = replace(users[i], demand_pct=most)  # busy: it wants all its virtual CPUs can take
    eps = 1e-9 * max(1.0, target_pct)

    def reach(kind: str):
        return lambda v: _gets(sc, users, i, _solver.Share(kind, v)) >= target_pct - eps

    rel = _smallest(reach("relative"), 1, 10000, 1)
    ab = _smallest(reach("absolute"), 0.1, 100, 0.1)
    best = max(_gets(sc, users, i, _solver.Share("relative", 10000)),
               _gets(sc, users, i, _solver.Share("absolute", 100)))
    return TargetShare(userid, target_pct,
                       None if rel is None else int(rel),
                       None if rel is None else _gets(sc, users, i, _solver.Share("relative", rel)),
                       None if ab is None else round(ab, 1),
                       None if ab is None else _gets(sc, users, i, _solver.Share("absolute", round(ab, 1))),
                       best)
