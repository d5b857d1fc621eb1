"""Fuzzing the scenario loader: whatever the text, the loader returns a Scenario or raises
InputError naming the file; and whatever it accepts, the engine accepts too."""

import json
import re

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from zvmlab import _engine, contract
from zvmlab.errors import InputError
from zvmlab.scenario import Share, ShareValue, loads, parse_duration, parse_share

GOOD = """[system]
level = "zvm-6.4"
processors = 2
smt = "off"
[run]
duration = "1m"
interval = "10s"
seed = 3
[[guest]]
userid = "USER0"
share = "RELATIVE 100 ABSOLUTE 30% LIMITSOFT"
workload = { kind = "cpu-bound" }
[[guest]]
userid = "USER1"
vcpus = 2
count = 3
share = "ABSOLUTE 20% LIMITHARD"
workload = { kind = "transactional", think = "10ms", cpu = "2ms" }
[[action]]
at = "30s"
command = "SET SHARE USER0 RELATIVE 300"
"""

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(text):
    try:
        sc = loads(text, "fuzz.toml")
    except InputError as e:
        assert e.file == "fuzz.toml"
        assert str(e).startswith("fuzz.toml")
        return None
    # Whatever the front accepts, the engine must accept (and not panic).
    _engine.Simulation(json.dumps(sc.engine_config()))
    return sc


def test_good_scenario_loads():
    sc = check(GOOD)
    assert sc is not None
    assert sc.userids() == ["USER0", "USER10", "USER11", "USER12"]
    assert sc.actions[0].at_ns == 30_000_000_000


@FUZZ
@given(st.text(max_size=400))
@example("[system]\nprocessors = 1e999")
@example("[[guest]]\nuserid = 1")
@example("guest = 5")
@example("[params]\n\"srm.dspslice\" = -1")
def test_arbitrary_text(text):
    check(text)


@FUZZ
@given(st.data())
def test_mutated_scenario(data):
    """Delete, duplicate or replace a slice of a good scenario."""
    text = GOOD
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + 20)))
        op = data.draw(st.sampled_from(["delete", "dup", "replace"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "dup":
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i] + data.draw(st.text(alphabet='0123456789-.%"=[]{}, abcRELATIVEABSOLUTELIMIT\n',
                                                 max_size=10)) + text[j:]
    check(text)


values = st.one_of(st.integers(-5, 200), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
                   st.booleans(), st.just("10s"), st.just("0ms"), st.lists(st.integers(), max_size=2))


@FUZZ
@given(st.sampled_from(["processors", "smt", "level", "duration", "interval", "seed", "vcpus", "count", "share",
                        "userid", "demand", "at"]), values)
def test_field_values(key, value):
    """Put arbitrary values into each field (rendered as TOML)."""
    def toml(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            return {float("inf"): "inf", float("-inf"): "-inf"}.get(v, "nan" if v != v else repr(v))
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(map(toml, v)) + "]"
        return str(v)

    lines = GOOD.splitlines()
    out = []
    for ln in lines:
        if ln.split("=")[0].strip() == key:
            ln = f"{key} = {toml(value)}"
        elif key == "demand" and "cpu-bound" in ln:
            ln = f'workload = {{ kind = "cpu-bound", demand = {toml(value)} }}'
        out.append(ln)
    check("\n".join(out) + "\n")


share_values = st.one_of(
    st.builds(ShareValue, st.just("relative"), st.integers(1, 10000).map(float)),
    st.builds(ShareValue, st.just("absolute"), st.integers(1, 1000).map(lambda x: x / 10)),
)


@FUZZ
@given(share_values, st.one_of(st.none(), share_values), st.sampled_from(["none", "soft", "hard"]))
def test_share_text_round_trip(mn, mx, limit):
    if mx is not None and mx.kind == mn.kind and mx.value < mn.value:
        mn, mx = mx, mn
    if limit == "none":
        mx = None
    elif mx is None:
        mx = mn
    share = Share(mn, mx, limit)
    assert parse_share(str(share)) == share


@FUZZ
@given(st.text(max_size=30))
def test_share_parser_total(text):
    try:
        parse_share(text)
    except InputError as e:
        assert "SET SHARE" in str(e)


@given(st.integers(0, 10**6), st.sampled_from(["ns", "us", "ms", "s", "m", "h"]))
def test_duration_units(n, unit):
    scale = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}[unit]
    if n == 0:
        assert parse_duration(f"{n}{unit}", allow_zero=True) == 0
    else:
        assert parse_duration(f"{n}{unit}") == n * scale



# ABSOLUTE minimum shares over the contract's absolute_share_sum: random guests (counts, shares
# near the limit) and SET SHARE actions (ties, out of file order), given to the loader as a
# scenario and to the engine as the loader's configuration of the same scenario written with
# RELATIVE shares, every share then put in by hand. Both must give the same verdict (issue 16
# item 4); where the loader accepts, its configuration must be the one made by hand.
ABS_SUM = contract.limit("absolute_share_sum")[1]
sum_shares = st.one_of(
    st.builds(ShareValue, st.just("relative"), st.sampled_from([1.0, 100.0, 10000.0])),
    st.builds(ShareValue, st.just("absolute"), st.integers(1, 600).map(lambda x: x / 10)),
    st.builds(ShareValue, st.just("absolute"), st.sampled_from([ABS_SUM / k for k in (1, 2, 3, 4, 5, 6, 8, 10)])),
)


def shares_scenario(guests, actions, share_of) -> str:
    text = GOOD[:GOOD.index("[[guest]]")]
    for i, (count, sh) in enumerate(guests):
        text += (f'[[guest]]\nuserid = "G{i}"\ncount = {count}\nshare = "{share_of(sh)}"\n'
                 'workload = { kind = "cpu-bound" }\n')
    for at, uid, sh in actions:
        text += f'[[action]]\nat = "{at}s"\ncommand = "SET SHARE {uid} {share_of(sh)}"\n'
    return text


@FUZZ
@given(st.data())
def test_absolute_share_sum_same_verdict(data):
    guests = data.draw(st.lists(st.tuples(st.integers(1, 4), sum_shares), min_size=1, max_size=4), label="guests")
    userids = [f"G{i}" if n == 1 else f"G{i}{k}" for i, (n, _) in enumerate(guests) for k in range(n)]
    actions = data.draw(st.lists(st.tuples(st.sampled_from([10, 20, 30]), st.sampled_from(userids), sum_shares),
                                 max_size=4), label="actions")

    def text_of(v: ShareValue) -> str:
        return f"RELATIVE {v.value!r}" if v.kind == "relative" else f"ABSOLUTE {v.value!r}%"

    try:
        sc = loads(shares_scenario(guests, actions, text_of), "sums.toml")
        loader, mine = None, sc.engine_config()
    except InputError as e:
        loader, mine = str(e), None
    cfg = loads(shares_scenario(guests, actions, lambda v: "RELATIVE 100"), "sums.toml").engine_config()
    for g, (_, sh) in zip(cfg["guests"], guests):
        g["share"] = Share(sh).to_engine()
    timed = sorted(actions, key=lambda a: a[0])  # the loader's configuration has them in time order
    for a, (_, _, sh) in zip(cfg["actions"], timed):
        a["share"] = Share(sh).to_engine()
    engine = contract.validate(cfg)
    event("refused" if loader else "accepted")
    assert (loader is None) == (engine is None), f"loader {loader!r}, engine {engine!r}"
    assert loader is None or "ABSOLUTE shares sum to" in loader, loader
    if mine is not None:
        assert mine == cfg


# A key and its value on a line or inside an inline table (the value: a string, a one-line array or
# a bare word up to the next comma, brace or line end).
_KV = re.compile(r'((?:^|[{,])\s*"?[A-Za-z_][A-Za-z0-9_.]*"?\s*=\s*)("[^"\n]*"|\[[^\]\n]*\]|[^,}\n\[{]+)', re.M)


def _scenario_files():
    from conftest import ROOT

    return sorted(p for p in (ROOT / "scenarios").rglob("*.toml")
                  if p.name != "catalogue.toml" and "suites" not in p.parts)


def test_every_field_of_every_scenario_takes_a_wrong_type_without_a_traceback():
    """Each value of each shipped scenario (top-level keys and keys inside inline tables) replaced,
    one at a time, by an empty array, an empty table, -1 and a stray word: the loader returns a
    scenario or raises InputError naming the file, never another exception (a `[[chpid]]
    type = []` once raised TypeError: unhashable type)."""
    tried = 0
    for path in _scenario_files():
        text = path.read_text()
        for m in _KV.finditer(text):
            for bad in ("[]", "{}", "-1", '"?"'):
                mutated = text[:m.start(2)] + bad + text[m.end(2):]
                try:
                    sc = loads(mutated, "fuzz.toml")
                    sc.engine_config()
                except InputError as e:
                    assert e.file == "fuzz.toml", (path.name, m.group(0), bad)
                except Exception as e:  # noqa: BLE001 - the point of the test
                    raise AssertionError(f"{path.name}: {m.group(0).strip()!r} -> {bad}: {e!r}") from e
                tried += 1
    assert tried > 3000
