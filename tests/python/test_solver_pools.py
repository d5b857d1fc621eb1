"""The Solver with CPU pools against brute-force enumeration, on random scenarios.

Brute force: every assignment of "held at its bound" / "at its level" to each user, and of
"binding" / "not binding" to each pool and to the system, gives a candidate allocation by solving
the linear equations of that assignment (members of a binding pool at the pool's level, the
others at the system level; a binding pool's members use exactly its limit; a binding system uses
exactly its capacity). A candidate is the weighted max-min fair answer when it satisfies every
optimality condition: each user at its bound has a bound no higher than its weight times its
level, each user at its level gets no more than its bound, a binding pool's level is at most the
system level, no pool and no system is over its limit, and a system or pool that is not binding
has no user at its level left to grow. Every valid candidate must equal the Solver's answer.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest

from zvmlab.lab import solver

TOL = 1e-6


def _candidates(cap_total: float, w: list[float], caps: list[float], member: list[str | None],
                pool_caps: dict[str, float]):
    n, pools = len(w), sorted(pool_caps)
    for held in itertools.product((True, False), repeat=n):
        for pbind in itertools.product((True, False), repeat=len(pools)):
            binding = {p for p, b in zip(pools, pbind) if b}
            for sys_bind in (True, False):
                alloc = _solve_case(cap_total, w, caps, member, pool_caps, held, binding, sys_bind)
                if alloc is not None:
                    yield alloc


def _solve_case(cap_total, w, caps, member, pool_caps, held, binding, sys_bind):
    n = len(w)
    lp: dict[str, float] = {}
    for p in binding:
        mine = [i for i in range(n) if member[i] == p]
        free_w = sum(w[i] for i in mine if not held[i])
        fixed = sum(caps[i] for i in mine if held[i])
        if free_w <= 0 or fixed > pool_caps[p] + TOL:
            return None
        lp[p] = (pool_caps[p] - fixed) / free_w
    outside = [i for i in range(n) if not held[i] and member[i] not in binding]
    if sys_bind:
        used = sum(caps[i] for i in range(n) if held[i])
        used += sum(w[i] * lp[member[i]] for i in range(n) if not held[i] and member[i] in binding)
        ow = sum(w[i] for i in outside)
        if ow <= 0:
            return None
        level = (cap_total - used) / ow
        if level < -TOL:
            return None
    else:
        if outside:
            return None  # a user at an infinite level
        level = math.inf
    if any(v > level + TOL or v < -TOL for v in lp.values()):
        return None
    alloc = []
    for i in range(n):
        lv = lp[member[i]] if member[i] in binding else level
        if held[i]:
            if caps[i] > w[i] * lv + TOL:
                return None
            alloc.append(caps[i])
        else:
            if w[i] * lv > caps[i] + TOL:
                return None
            alloc.append(w[i] * lv)
    for p, c in pool_caps.items():
        if sum(alloc[i] for i in range(n) if member[i] == p) > c + TOL:
            return None
    if sum(alloc) > cap_total + TOL:
        return None
    return alloc


def _random_case(rng: random.Random):
    processors = rng.randint(1, 6)
    n = rng.randint(2, 6)
    pools = {f"P{k}": rng.choice([rng.uniform(5, 100 * processors), 100.0 * rng.randint(1, processors)])
             for k in range(rng.randint(1, 2))}
    users = []
    for k in range(n):
        vcpus = rng.randint(1, 3)
        demand = rng.choice([100.0 * vcpus, rng.uniform(1, 100 * vcpus)])
        share = solver.Share("relative", float(rng.choice([50, 100, 100, 200, 300, 1000])))
        limit, mx = "none", None
        if rng.random() < 0.2:
            limit, mx = "hard", solver.Share("relative", share.value * rng.choice([1, 2]))
        users.append(solver.UserSpec(f"U{k}", demand, share, mx, limit,
                                     pool=rng.choice([None, *pools])))
    return processors * 100.0, users, pools


@pytest.mark.parametrize("seed", range(300))
def test_solver_with_pools_matches_enumeration(seed):
    rng = random.Random(seed)
    cap_total, users, pools = _random_case(rng)
    got = solver.solve(cap_total, users, pools=pools)
    # The Solver's own weights and bounds (first pass; no LIMITSOFT users here).
    w = [got.weights[u.userid] for u in users]
    caps = [min(u.demand_pct, got.caps[u.userid]) for u in users]
    member = [u.pool for u in users]
    live = {p: c for p, c in pools.items() if p in member}
    cands = list(_candidates(cap_total, w, caps, member, live))
    assert cands, f"no valid candidate (seed {seed})"
    for alloc in cands:
        for u, a in zip(users, alloc):
            assert got.users[u.userid] == pytest.approx(a, abs=1e-6), (seed, u.userid, alloc, got.users)


def test_issue_example_pool_of_one_processor():
    """Issue 18: two hungry users and one wanting 10 %, in a pool capped at one processor on a
    4-way, get 45/45/10; individual ABSOLUTE 8.3 % LIMITHARD caps each at 33 % instead."""
    rel = solver.Share("relative", 100)
    users = [solver.UserSpec("A", 100.0, rel, pool="P"), solver.UserSpec("B", 100.0, rel, pool="P"),
             solver.UserSpec("C", 10.0, rel, pool="P"), solver.UserSpec("D", 100.0, rel)]
    got = solver.solve(400.0, users, pools={"P": 100.0}).users
    assert got == pytest.approx({"A": 45.0, "B": 45.0, "C": 10.0, "D": 100.0})


def test_shares_divide_the_pool_and_the_rest_goes_to_others():
    users = [solver.UserSpec("A", math.inf, solver.Share("relative", 300), pool="P"),
             solver.UserSpec("B", math.inf, solver.Share("relative", 100), pool="P"),
             solver.UserSpec("C", 150.0, solver.Share("relative", 100))]
    got = solver.solve(300.0, users, pools={"P": 120.0})
    assert got.users == pytest.approx({"A": 90.0, "B": 30.0, "C": 150.0})
    assert got.binding["A"] == "pool" and got.binding["C"] == "demand"


def test_a_pool_that_does_not_bind_changes_nothing():
    rng = random.Random(5)
    for _ in range(50):
        cap_total, users, _ = _random_case(rng)
        big = {"P0": 1e9, "P1": 1e9}
        assert solver.solve(cap_total, users, pools=big).users == pytest.approx(
            solver.solve(cap_total, [u.__class__(**{**u.__dict__, "pool": None}) for u in users]).users)


def test_unknown_pool_is_an_error():
    with pytest.raises(ValueError, match="no limit"):
        solver.solve(100.0, [solver.UserSpec("A", 50.0, solver.Share("relative", 100), pool="X")], pools={})
