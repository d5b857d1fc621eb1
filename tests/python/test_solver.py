"""The Solver (seed 000's Solver / Runner / Comparator): properties on random share scenarios and
worked examples, including the published correct answers of A1 and A2 (shared/EXPERIMENTS.md).

The properties are checked against definitions restated here, not against the Solver's own
bookkeeping: an independent reference (water level found by bisection), a pairwise max-min
fairness certificate, the minimum-share guarantee, the LIMITSOFT rule, and invariances.
test_solver_props.py holds an earlier, smaller set of properties; this file adds to it.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from zvmlab.lab.solver import ABS_CAP, Share, Solution, UserSpec, solve, water_fill

PROPS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
INF = math.inf


def rel(v: float) -> Share:
    return Share("relative", float(v))


def ab(v: float) -> Share:
    return Share("absolute", float(v))


def tol(cap: float) -> float:
    return 1e-9 * max(1.0, cap)


# -------------------------------------------------------------------------------------------
# Independent restatement of the definitions (module docstring of zvmlab.lab.solver).

def ref_weights(users):
    """Normalized minimum shares: ABSOLUTE first (scaled to ABS_CAP if over), RELATIVE share the rest."""
    a = sum(u.min_share.value / 100 for u in users if u.min_share.kind == "absolute")
    r = sum(u.min_share.value for u in users if u.min_share.kind == "relative")
    f = ABS_CAP / a if a > ABS_CAP else 1.0
    rest = 1.0 - a * f
    return {u.userid: (u.min_share.value / 100 * f if u.min_share.kind == "absolute"
                       else rest * u.min_share.value / r) for u in users}, rest, r


def ref_max(users, cap):
    """Maximum share in percent of one processor (inf for NOLIMIT)."""
    _, rest, r = ref_weights(users)
    out = {}
    for u in users:
        if u.limit == "none":
            out[u.userid] = INF
            continue
        m = u.max_share or u.min_share
        if m.kind == "absolute":
            out[u.userid] = m.value / 100 * cap
        else:
            out[u.userid] = INF if r == 0 else rest * m.value / r * cap
    return out


def ref_fill(cap, w, caps):
    """Weighted max-min fair allocation by bisection on the water level."""
    if sum(caps) <= cap:
        return list(caps)
    lo, hi = 0.0, cap / min(w) + 1.0
    for _ in range(300):
        mid = (lo + hi) / 2
        if sum(min(c, x * mid) for x, c in zip(w, caps)) < cap:
            lo = mid
        else:
            hi = mid
    return [min(c, x * hi) for x, c in zip(w, caps)]


def ref_solve(cap, users):
    w, _, _ = ref_weights(users)
    mx = ref_max(users, cap)
    ids = [u.userid for u in users]
    c1 = [min(u.demand_pct, mx[u.userid]) for u in users]
    a1 = ref_fill(cap, [w[i] for i in ids], c1)
    left = cap - sum(a1)
    soft = [u.limit == "soft" for u in users]
    c2 = [(u.demand_pct - a) if s else 0.0 for u, a, s in zip(users, a1, soft)]
    idx = [k for k in range(len(users)) if c2[k] > 0]
    a2 = [0.0] * len(users)
    if left > 1e-9 * max(1.0, cap) and idx:
        part = ref_fill(left, [w[ids[k]] for k in idx], [c2[k] for k in idx])
        for k, v in zip(idx, part):
            a2[k] = v
    return {i: x + y for i, x, y in zip(ids, a1, a2)}, dict(zip(ids, c1))


def achievable(u: UserSpec, mx: dict) -> float:
    """What a user could take with the system to itself (LIMITSOFT is no bound then)."""
    return min(u.demand_pct, mx[u.userid]) if u.limit == "hard" else u.demand_pct


# -------------------------------------------------------------------------------------------
# Random scenarios: 1-10 users, 1-64 processors, mixed shares, limits and demands.

min_shares = st.one_of(st.integers(1, 10000).map(rel), st.integers(1, 1000).map(lambda x: ab(x / 10)))
# Demand as a fraction of the user's virtual CPUs (inf = unlimited); round values make ties.
fractions = st.one_of(st.just(INF), st.just(1.0), st.just(0.0), st.sampled_from([0.01, 0.02, 0.25, 0.5, 0.8]),
                      st.floats(0.0, 1.0))
users_ = st.tuples(st.integers(1, 8), fractions, min_shares, st.sampled_from(["none", "soft", "hard"]),
                   st.one_of(st.none(), min_shares))


@st.composite
def scenarios(draw):
    """(capacity, users): 1-64 processors, 1-10 users with mixed shares, limits and demands
    (demand capped at the user's virtual CPUs x 100, as the caller does)."""
    cap = draw(st.integers(1, 64)) * 100.0
    specs = draw(st.lists(users_, min_size=1, max_size=10))
    return cap, [UserSpec(f"USER{i}", INF if math.isinf(f) else f * v * 100.0, mn, mx, lim)
                 for i, (v, f, mn, lim, mx) in enumerate(specs)]


# -------------------------------------------------------------------------------------------
# Properties.

@PROPS
@given(scenarios())
def test_never_more_than_capacity_demand_or_hard_limit_exactly(sc):
    """No tolerance: the Solver must never give out more than the capacity (issue 3)."""
    cap, users = sc
    sol = solve(cap, users)
    got = sol.users
    mx = ref_max(users, cap)
    assert math.fsum(got.values()) <= cap
    assert sum(got.values()) <= cap
    for u in users:
        g = got[u.userid]
        assert 0.0 <= g <= u.demand_pct, u
        assert sol.caps[u.userid] == pytest.approx(mx[u.userid], rel=1e-12)
        if u.limit == "hard":
            assert g <= sol.caps[u.userid], u


@PROPS
@given(scenarios())
def test_work_conserving(sc):
    """Total = min(capacity, what all users together can take): no capacity is left idle while a
    user that is not at its demand or LIMITHARD maximum still wants more."""
    cap, users = sc
    got = solve(cap, users).users
    mx = ref_max(users, cap)
    want = min(cap, math.fsum(achievable(u, mx) for u in users))
    assert math.fsum(got.values()) == pytest.approx(want, rel=1e-9, abs=tol(cap))


@PROPS
@given(scenarios())
def test_matches_independent_reference(sc):
    cap, users = sc
    got = solve(cap, users).users
    want, _ = ref_solve(cap, users)
    for u in users:
        assert got[u.userid] == pytest.approx(want[u.userid], rel=1e-7, abs=1e-6), u


@PROPS
@given(scenarios())
def test_max_min_fair_certificate(sc):
    """Pairwise certificate of weighted max-min fairness (first pass, before LIMITSOFT excess):
    a user below its cap (demand, and maximum for limited users) gets at least as much per unit
    of weight as any other user. Together with work conservation this fixes the answer."""
    cap, users = sc
    sol = solve(cap, users)
    w, _, _ = ref_weights(users)
    _, c1 = ref_solve(cap, users)
    # The first-pass amount: a soft-limited user's excess comes only from the second pass.
    first = {u.userid: min(sol.users[u.userid], c1[u.userid]) for u in users}
    for i in users:
        gi = first[i.userid]
        if gi < c1[i.userid] - 1e-6:
            for j in users:
                assert first[j.userid] / w[j.userid] <= gi / w[i.userid] * (1 + 1e-7) + 1e-6, (i, j)


@PROPS
@given(scenarios())
def test_certificate_from_the_water_level(sc):
    """The Solution's level is a checkable certificate: every user gets min(cap, w x level) in the
    first pass, and a finite level means the capacity is used up."""
    cap, users = sc
    sol = solve(cap, users)
    w, _, _ = ref_weights(users)
    _, c1 = ref_solve(cap, users)
    for u in users:
        first = min(sol.users[u.userid], c1[u.userid])
        assert first == pytest.approx(min(c1[u.userid], w[u.userid] * sol.level), rel=1e-7, abs=1e-6)
    if math.isfinite(sol.level):
        assert math.fsum(sol.users.values()) == pytest.approx(cap, rel=1e-9, abs=tol(cap))


@PROPS
@given(scenarios())
def test_minimum_share_guarantee(sc):
    """Every user gets at least its entitlement (normalized minimum share x capacity), or all it
    wants (demand, LIMITHARD/LIMITSOFT maximum) if that is less."""
    cap, users = sc
    got = solve(cap, users).users
    w, _, _ = ref_weights(users)
    mx = ref_max(users, cap)
    for u in users:
        floor = min(u.demand_pct, mx[u.userid], w[u.userid] * cap)
        assert got[u.userid] >= floor - 1e-6 * max(1.0, floor), u


@PROPS
@given(scenarios())
def test_limitsoft_rule(sc):
    """A LIMITSOFT user goes above its maximum only with capacity no other user wants: then every
    user that is not soft-limited has everything it can take."""
    cap, users = sc
    got = solve(cap, users).users
    mx = ref_max(users, cap)
    if any(u.limit == "soft" and got[u.userid] > mx[u.userid] + 1e-6 for u in users):
        for u in users:
            if u.limit != "soft":
                assert got[u.userid] >= achievable(u, mx) - 1e-6, u
    # And no soft-limited user is above its maximum while any soft-limited user wanting more is
    # below its own maximum (the excess pass starts only when the first pass is saturated).
    over = [u for u in users if u.limit == "soft" and got[u.userid] > mx[u.userid] + 1e-6]
    if over:
        for u in users:
            if u.limit == "soft":
                assert got[u.userid] >= min(u.demand_pct, mx[u.userid]) - 1e-6, u


@PROPS
@given(scenarios())
def test_limitsoft_excess_never_taken_from_others(sc):
    """Making every LIMITSOFT a LIMITHARD changes nothing for users that are not soft-limited."""
    cap, users = sc
    a = solve(cap, users).users
    hard = [UserSpec(u.userid, u.demand_pct, u.min_share, u.max_share, "hard" if u.limit == "soft" else u.limit)
            for u in users]
    b = solve(cap, hard).users
    for u in users:
        if u.limit != "soft":
            assert a[u.userid] == pytest.approx(b[u.userid], rel=1e-9, abs=1e-6)
        else:
            assert a[u.userid] >= b[u.userid] - 1e-6


@PROPS
@given(scenarios(), st.randoms(use_true_random=False))
def test_permutation_invariance(sc, rnd):
    cap, users = sc
    a = solve(cap, users).users
    shuffled = list(users)
    rnd.shuffle(shuffled)
    b = solve(cap, shuffled).users
    assert list(b) == [u.userid for u in shuffled]
    for k in a:
        assert a[k] == pytest.approx(b[k], rel=1e-9, abs=1e-6)


@PROPS
@given(scenarios(), st.floats(0.01, 100.0))
def test_relative_shares_are_scale_free(sc, k):
    """Multiplying every RELATIVE share (minimum and maximum) by k changes nothing."""
    cap, users = sc

    def scale(s):
        return Share("relative", s.value * k) if s is not None and s.kind == "relative" else s

    scaled = [UserSpec(u.userid, u.demand_pct, scale(u.min_share), scale(u.max_share), u.limit) for u in users]
    a, b = solve(cap, users).users, solve(cap, scaled).users
    for key in a:
        assert a[key] == pytest.approx(b[key], rel=1e-7, abs=1e-6)


@PROPS
@given(scenarios(), st.floats(0.125, 8.0))
def test_homogeneous_in_capacity_and_demand(sc, k):
    """Scaling capacity and every demand by k scales every answer by k."""
    cap, users = sc
    a = solve(cap, users).users
    b = solve(cap * k, [UserSpec(u.userid, u.demand_pct * k, u.min_share, u.max_share, u.limit) for u in users]).users
    for key in a:
        assert b[key] == pytest.approx(a[key] * k, rel=1e-7, abs=1e-6)


@PROPS
@given(scenarios(), st.integers(1, 16))
def test_more_capacity_never_hurts(sc, extra):
    cap, users = sc
    a = solve(cap, users).users
    b = solve(cap + extra * 100.0, users).users
    for key in a:
        assert b[key] >= a[key] - 1e-6


@PROPS
@given(scenarios(), st.data())
def test_more_demand_helps_only_its_owner(sc, data):
    """If one user wants more, it never gets less and nobody else gets more."""
    cap, users = sc
    i = data.draw(st.integers(0, len(users) - 1))
    u = users[i]
    assume(math.isfinite(u.demand_pct))
    bigger = data.draw(st.one_of(st.just(INF), st.floats(u.demand_pct, u.demand_pct + 800.0)))
    more = list(users)
    more[i] = UserSpec(u.userid, bigger, u.min_share, u.max_share, u.limit)
    a, b = solve(cap, users).users, solve(cap, more).users
    assert b[u.userid] >= a[u.userid] - 1e-6
    for v in users:
        if v.userid != u.userid:
            assert b[v.userid] <= a[v.userid] + 1e-6


@PROPS
@given(scenarios())
def test_solution_bookkeeping(sc):
    cap, users = sc
    sol = solve(cap, users)
    w, _, _ = ref_weights(users)
    assert sol.to_json() == {"users": sol.users}
    assert json.loads(json.dumps(sol.to_json(), allow_nan=False))["users"].keys() == sol.users.keys()
    assert math.fsum(sol.weights.values()) <= 1.0 + 1e-12
    for u in users:
        assert sol.weights[u.userid] == pytest.approx(w[u.userid], rel=1e-12)
        assert sol.entitlement[u.userid] == pytest.approx(w[u.userid] * cap, rel=1e-12)
        assert sol.binding[u.userid] in ("demand", "limit", "share", "soft-excess")
        if sol.binding[u.userid] == "soft-excess":
            assert u.limit == "soft"


# -------------------------------------------------------------------------------------------
# Worked examples.

def test_a1_infinite_demand_unequal_share_published_answer():
    """A1 (seed 000): 2 logical processors, four hungry users RELATIVE 100/200/100/400 ->
    25/50/25/100 % (the published correct answer)."""
    users = [UserSpec(f"USER{i}", INF, rel(s)) for i, s in enumerate([100, 200, 100, 400])]
    got = solve(200.0, users).users
    assert got == pytest.approx({"USER0": 25.0, "USER1": 50.0, "USER2": 25.0, "USER3": 100.0}, abs=1e-9)
    # The same with demands capped at one virtual CPU each (the scenario file's guests).
    users = [UserSpec(u.userid, 100.0, u.min_share) for u in users]
    assert solve(200.0, users).users == pytest.approx(got, abs=1e-9)


@pytest.mark.parametrize("small", [0.0, 0.5, 2.0, 5.0])
def test_a2_distribution_of_excess_published_answer(small):
    """A2 (seed 000): users 0 and 1 RELATIVE 10000 want almost nothing; users 2-4 RELATIVE
    100/200/300 want all they can get: 2-4 get their entitlement plus the excess, in proportion
    1:2:3, and the whole 200 % is used."""
    users = [UserSpec("USER0", small, rel(10000)), UserSpec("USER1", small, rel(10000)),
             UserSpec("USER2", 100.0, rel(100)), UserSpec("USER3", 100.0, rel(200)), UserSpec("USER4", 100.0, rel(300))]
    sol = solve(200.0, users)
    got = sol.users
    assert got["USER0"] == got["USER1"] == small
    assert got["USER3"] / got["USER2"] == pytest.approx(2.0) and got["USER4"] / got["USER2"] == pytest.approx(3.0)
    assert math.fsum(got.values()) == pytest.approx(200.0)
    # Entitlement plus excess, spelled out: entitlement = share / 20600 x 200 %; the excess of
    # users 0 and 1 (entitlement - demand) goes to 2, 3, 4 in proportion 1:2:3.
    ent = {u.userid: u.min_share.value / 20600 * 200 for u in users}
    excess = sum(ent[k] - small for k in ("USER0", "USER1"))
    for k, part in (("USER2", 1), ("USER3", 2), ("USER4", 3)):
        assert sol.entitlement[k] == pytest.approx(ent[k])
        assert got[k] == pytest.approx(ent[k] + excess * part / 6)
    if small == 2.0:  # the scenario file's choice (scenarios/replicate/a2.toml)
        assert got["USER2"] == pytest.approx(196 / 6) and got["USER4"] == pytest.approx(98.0)


def test_vm65288_equal_shares_equal_cpu():
    """Seed 000 (VM65288): four guests, equal relative share, all infinitely hungry, get equal CPU."""
    for cpus in (1, 2, 3, 4):
        got = solve(cpus * 100.0, [UserSpec(f"U{i}", INF, rel(100)) for i in range(4)]).users
        assert got == pytest.approx({f"U{i}": cpus * 25.0 for i in range(4)})


@pytest.mark.parametrize("busy", [False, True])
def test_a3_limithard_20pct_on_a_4way(busy):
    """A3 (seed 002): LIMITHARD ABSOLUTE 20 % on a 4-way is 80 % of one processor, busy or idle."""
    users = [UserSpec("LIMITED", 100.0, ab(20), ab(20), "hard")]
    if busy:
        users += [UserSpec(f"HOG{i}", 100.0, rel(100)) for i in range(4)]
    got = solve(400.0, users).users
    assert got["LIMITED"] == pytest.approx(80.0)
    if busy:
        assert math.fsum(got.values()) == pytest.approx(400.0)
        assert got["HOG0"] == pytest.approx(80.0)
    else:  # LIMITSOFT on the idle system may use the whole virtual CPU
        soft = [UserSpec("LIMITED", 100.0, ab(20), ab(20), "soft")]
        assert solve(400.0, soft).users["LIMITED"] == pytest.approx(100.0)


def test_limitsoft_gets_only_unwanted_capacity():
    soft = UserSpec("SOFT", INF, rel(100), ab(20), "soft")
    got = solve(100.0, [soft, UserSpec("HOG", INF, rel(100))]).users
    assert got == pytest.approx({"SOFT": 20.0, "HOG": 80.0})
    got = solve(100.0, [soft, UserSpec("LIGHT", 30.0, rel(100))]).users
    assert got == pytest.approx({"SOFT": 70.0, "LIGHT": 30.0})
    # Two soft-limited users share the unwanted capacity by their shares (1:3).
    users = [UserSpec("S1", INF, rel(100), ab(10), "soft"), UserSpec("S2", INF, rel(300), ab(10), "soft"),
             UserSpec("LIGHT", 40.0, rel(100))]
    got = solve(100.0, users).users
    assert got["LIGHT"] == pytest.approx(40.0)
    assert got["S1"] == pytest.approx(10 + 40 / 4) and got["S2"] == pytest.approx(10 + 40 * 3 / 4)


def test_absolute_shares_first_and_relative_share_the_rest():
    # ABSOLUTE 50 % of a 2-way is 100 %; two RELATIVE users share the other 100 % in 1:3.
    users = [UserSpec("ABS", INF, ab(50)), UserSpec("R1", INF, rel(100)), UserSpec("R3", INF, rel(300))]
    sol = solve(200.0, users)
    assert sol.users == pytest.approx({"ABS": 100.0, "R1": 25.0, "R3": 75.0})
    assert sol.entitlement == pytest.approx(sol.users)
    # An absolute user that wants little leaves its excess to the others, by their shares.
    users[0] = UserSpec("ABS", 20.0, ab(50))
    assert solve(200.0, users).users == pytest.approx({"ABS": 20.0, "R1": 45.0, "R3": 135.0})


def test_absolute_shares_over_99_pct_are_scaled_down():
    users = [UserSpec("A", INF, ab(60)), UserSpec("B", INF, ab(60)), UserSpec("R", INF, rel(1))]
    sol = solve(100.0, users)
    assert sol.weights["A"] == pytest.approx(ABS_CAP / 2) and sol.weights["R"] == pytest.approx(1 - ABS_CAP)
    assert sol.users == pytest.approx({"A": 49.5, "B": 49.5, "R": 1.0})


def test_absolute_shares_alone_split_in_proportion():
    users = [UserSpec("A", INF, ab(10)), UserSpec("B", INF, ab(30))]
    assert solve(400.0, users).users == pytest.approx({"A": 100.0, "B": 300.0})


def test_relative_maximum_is_normalized_like_the_minimum():
    # RELATIVE 100 LIMITHARD RELATIVE 50 beside a RELATIVE 100: max = 50 / 200 of the system.
    users = [UserSpec("LIM", INF, rel(100), rel(50), "hard"), UserSpec("OTHER", INF, rel(100))]
    sol = solve(100.0, users)
    assert sol.caps["LIM"] == pytest.approx(25.0)
    assert sol.users == pytest.approx({"LIM": 25.0, "OTHER": 75.0})
    # A RELATIVE maximum equal to the minimum caps the user at its entitlement even when idle.
    users = [UserSpec("LIM", INF, rel(100), rel(100), "hard"), UserSpec("IDLE", 0.0, rel(300))]
    assert solve(200.0, users).users["LIM"] == pytest.approx(50.0)
    # With no RELATIVE users there is nothing to be relative to: no limit.
    users = [UserSpec("LIM", INF, ab(10), rel(100), "hard"), UserSpec("A", 0.0, ab(10))]
    assert solve(200.0, users).users["LIM"] == pytest.approx(200.0)


def test_limit_without_a_maximum_means_maximum_equals_minimum():
    users = [UserSpec("LIM", INF, ab(20), None, "hard")]
    assert solve(400.0, users).users["LIM"] == pytest.approx(80.0)


def test_nolimit_ignores_a_maximum_share():
    users = [UserSpec("U", INF, ab(20), ab(20), "none")]
    assert solve(400.0, users).users["U"] == pytest.approx(400.0)


def test_hard_maximum_below_entitlement_frees_capacity():
    users = [UserSpec("LIM", INF, rel(300), ab(10), "hard"), UserSpec("B", INF, rel(100))]
    sol = solve(100.0, users)
    assert sol.users == pytest.approx({"LIM": 10.0, "B": 90.0})
    assert sol.binding == {"LIM": "limit", "B": "share"}


def test_edge_cases():
    assert solve(200.0, []).users == {}
    assert solve(0.0, [UserSpec("U", INF, rel(100))]).users == {"U": 0.0}
    sol = solve(100.0, [UserSpec("U", 0.0, rel(100)), UserSpec("V", 10.0, rel(100))])
    assert sol.users == {"U": 0.0, "V": 10.0} and math.isinf(sol.level)


@pytest.mark.parametrize("cap,users,msg", [
    (-1.0, [], "capacity"),
    (math.nan, [], "capacity"),
    (math.inf, [], "capacity"),
    (100.0, [UserSpec("U", -1.0, rel(100))], "demand"),
    (100.0, [UserSpec("U", math.nan, rel(100))], "demand"),
    (100.0, [UserSpec("U", 1.0, rel(0))], "share"),
    (100.0, [UserSpec("U", 1.0, ab(150))], "100"),
    (100.0, [UserSpec("U", 1.0, Share("weird", 1.0))], "kind"),
    (100.0, [UserSpec("U", 1.0, rel(1), rel(1), "sometimes")], "limit"),
    (100.0, [UserSpec("U", 1.0, rel(1)), UserSpec("U", 2.0, rel(1))], "twice"),
])
def test_bad_input_is_a_clear_error(cap, users, msg):
    with pytest.raises(ValueError, match=msg):
        solve(cap, users)


def test_solution_to_json_shape():
    sol = solve(200.0, [UserSpec("USER0", INF, rel(100)), UserSpec("USER1", INF, rel(300))])
    assert isinstance(sol, Solution)
    assert sol.to_json() == {"users": {"USER0": pytest.approx(50.0), "USER1": pytest.approx(150.0)}}
    json.dumps(sol.to_json(), allow_nan=False)


# water_fill on its own: the water level found by bisection agrees.
@PROPS
@given(st.lists(st.tuples(st.floats(0.01, 100), st.floats(0, 500)), min_size=1, max_size=12), st.floats(0, 2000))
def test_water_fill_against_bisection(items, capacity):
    """Water level found by bisection on sum(min(cap, w*level)) = capacity agrees."""
    w = [a for a, _ in items]
    c = [b for _, b in items]
    got = water_fill(capacity, w, c)
    if capacity >= sum(c):
        assert got == pytest.approx(c, abs=1e-6)
        return
    lo, hi = 0.0, max(ci / wi for wi, ci in zip(w, c)) + 1
    for _ in range(200):
        mid = (lo + hi) / 2
        if sum(min(ci, wi * mid) for wi, ci in zip(w, c)) < capacity:
            lo = mid
        else:
            hi = mid
    want = [min(ci, wi * lo) for wi, ci in zip(w, c)]
    assert got == pytest.approx(want, abs=1e-5)
