"""Structure-aware fuzzing (issue 21): scenarios built from the loader's own tables and keys with
values at and beyond every range, and the command line with random options. Seeds are fixed
(the ``ci`` Hypothesis profile derandomizes), so CI is deterministic.

A longer run, for occasional use (a few minutes; fresh random examples with the explore profile):

    ZVMLAB_FUZZ_EXAMPLES=3000 HYPOTHESIS_PROFILE=explore .venv/bin/python -m pytest -q \\
        tests/python/test_fuzz_hostile.py tests/python/test_monitor_fuzz.py tests/python/test_scenario_fuzz.py
"""

from __future__ import annotations

import json
import math
import os
import signal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zvmlab import _engine, admission, engine, scenario
from zvmlab.cli import cli
from zvmlab.errors import InputError

EXAMPLES = int(os.environ.get("ZVMLAB_FUZZ_EXAMPLES", "0"))


def fuzz(n: int):
    return settings(max_examples=EXAMPLES or n, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.function_scoped_fixture])


BASE = {
    "title": "fuzz",
    "system": {"level": "zvm-6.4", "processors": 2},
    "run": {"duration": "2s", "interval": "1s", "seed": 1},
    "guest": [{"userid": "USER0", "share": "RELATIVE 100", "workload": {"kind": "cpu-bound"}},
              {"userid": "WEB", "count": 2, "workload": {"kind": "transactional", "think": "10ms", "cpu": "1ms"}}],
}

# Values at and beyond the ranges the loader and the engine know: numbers at the edges of their
# types, durations and sizes from a nanosecond to beyond the model, hostile text.
NUMBERS = [0, 1, 2, -1, 8, 9, 32, 33, 64, 65, 254, 255, 999, 1000, 10000, 10001, 2**31, 2**32, 2**63 - 1, 2**63,
           -(2**63) - 1, 10**30, 0.0, -0.0, 0.5, 1.0, 1.5, 1e-300, 1e300, math.inf, -math.inf, math.nan]
TEXTS = ["", "0", "1ns", "1us", "1ms", "0s", "1s", "10s", "1m", "24h", "999999999h", "1e3s", "-1s", "4K", "1K",
         "512M", "1G", "64G", "1T", "4T", "5T", "8T", "9T", "99999999999T", "RELATIVE 100", "RELATIVE 0",
         "RELATIVE 10001", "ABSOLUTE 100%", "ABSOLUTE 0.01%", "ABSOLUTE 50% LIMITHARD", "RELATIVE 1 RELATIVE 9 LIMITSOFT",
         "cpu-bound", "transactional", "client", "server", "ssl-server", "dasd-io", "format", "dump", "memtst",
         "eckd", "edev", "scsi", "vdisk", "ssch", "diag250", "exp", "fixed", "zvm-6.4", "zvm-5.4", "smt1", "smt2",
         "off", "z13", "z14", "vertical", "horizontal", "large", "none", "reshuffle", "rebalance", "uniform",
         "strided", "hotset", "aes256", "USER0", "WEB", "A$B", "A\n", "ABCDEFGHI", "[/]", "[link=http://x]y[/link]",
         "\x1b[2J", "SET SHARE USER0 RELATIVE 200", "SET MULTITHREAD 2", "SET SHARE NOBODY RELATIVE 1", "é" * 9]



def _seen() -> dict[str, list]:
    """Values each key has in the repository's scenarios (scalars only): plausible values, so
    that mutations reach past the first check."""
    import tomllib
    from pathlib import Path

    seen: dict[str, set] = {}

    def walk(node):
        for k, v in (node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(v, (dict, list)):
                walk(v)
            elif isinstance(k, str) and not (isinstance(v, float) and v != v):
                seen.setdefault(k, set()).add(v)

    root = Path(__file__).resolve().parents[2]
    for f in sorted([*root.glob("scenarios/**/*.toml"), *root.glob("tests/**/*.toml")]):
        try:
            walk(tomllib.loads(f.read_text()))
        except (OSError, ValueError):
            pass
    return {k: sorted(v, key=repr) for k, v in seen.items()}


SEEN = _seen()

scalars = st.one_of(st.sampled_from(NUMBERS), st.sampled_from(TEXTS), st.booleans(), st.integers(-10, 300))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from(["kind", "type", "size", "count",
                                                                                        "pattern", "range", "x"]),
                                                                       inner, max_size=3)), max_leaves=6)


def _keys() -> dict[str, list[str]]:
    """Every table the loader knows, with its keys (the fuzzer's map of the structure)."""
    s = scenario
    wl = sorted({k for keys in s._WORKLOAD_KEYS.values() for k in keys})
    return {"system": list(s._SYSTEM_KEYS), "run": list(s._RUN_KEYS), "guest": list(s._GUEST_KEYS),
            "storage": list(s._STORAGE_KEYS), "action": list(s._ACTION_KEYS), "cpc": list(s._CPC_KEYS),
            "volume": list(s._DASD_VOLUME_KEYS), "cu": list(s._CU_KEYS), "mdc": ["storage", "x"],
            "workload": wl, "refs": sorted(set().union(*s._REFS_KEYS.values())),
            "params": [p["name"] for p in engine.params()]}


KEYS = _keys()


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if v != v else {math.inf: "inf", -math.inf: "-inf"}.get(v, repr(v))
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(map(toml_value, v)) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {toml_value(x)}" for k, x in v.items()) + " }"
    return str(v)


def to_toml(doc: dict) -> str:
    """A scenario dict as TOML: scalars first, then [tables], then [[arrays of tables]]."""
    out = [f"{json.dumps(k)} = {toml_value(v)}" for k, v in doc.items() if not isinstance(v, (dict, list))
           or (isinstance(v, list) and not all(isinstance(x, dict) for x in v)) or (isinstance(v, list) and not v)]
    for k, v in doc.items():
        if isinstance(v, dict):
            out.append(f"[{json.dumps(k)}]")
            out += [f"{json.dumps(str(kk))} = {toml_value(vv)}" for kk, vv in v.items()]
    for k, v in doc.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for x in v:
                out.append(f"[[{json.dumps(k)}]]")
                out += [f"{json.dumps(str(kk))} = {toml_value(vv)}" for kk, vv in x.items()]
    return "\n".join(out) + "\n"


@st.composite
def scenarios(draw) -> dict:
    """The good scenario with 1-5 structural mutations: a key set to a value at or beyond its
    range, a key removed, a table added (with keys of its kind), a guest or action added."""
    doc = json.loads(json.dumps(BASE))
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 2, 3, 5]))):
        op = draw(st.sampled_from(["set", "set", "set", "workload", "delete", "table", "guest", "param"]))
        table = draw(st.sampled_from(["system", "run", "guest", "storage", "action", "cpc", "volume", "cu", "mdc"]))
        key = draw(st.sampled_from(KEYS[table]))
        val = draw(st.sampled_from(SEEN[key])) if key in SEEN and draw(st.integers(0, 2)) else draw(values)
        if op == "param":
            doc.setdefault("params", {})[draw(st.sampled_from(KEYS["params"]))] = draw(st.sampled_from(NUMBERS))
        elif op == "workload":
            g = draw(st.sampled_from(doc.get("guest") or [{}]))
            w = g.setdefault("workload", {})
            w = w if isinstance(w, dict) else {}
            wkey = draw(st.sampled_from(KEYS["workload"] + ["kind"] * 4))
            w[wkey] = draw(st.sampled_from(SEEN[wkey])) if wkey in SEEN and draw(st.integers(0, 2)) else val
            if draw(st.booleans()):
                g["refs"] = {"pattern": draw(st.sampled_from(["uniform", "strided", "hotset"])),
                             "range": draw(st.sampled_from(TEXTS[13:24]))}
                g["storage"] = draw(st.sampled_from(TEXTS[13:24]))
            g["workload"] = w
        elif op == "delete" and isinstance(doc.get(table), (dict, list)) and doc[table]:
            t = doc[table] if isinstance(doc[table], dict) else doc[table][0]
            t.pop(key, None) if isinstance(t, dict) else None
        elif table in ("guest", "action", "volume"):
            arr = doc.setdefault(table, [])
            if not isinstance(arr, list):
                continue
            if op == "guest" or not arr:
                arr.append({})
            target = arr[draw(st.integers(0, len(arr) - 1))]
            if isinstance(target, dict):
                target[key] = val
        else:
            t = doc.setdefault(table, {})
            if isinstance(t, dict):
                t[key] = val
    return doc


def check(text: str) -> None:
    """The loader's contract: a Scenario or one InputError naming the file; what it accepts, the
    engine accepts and starts (when its memory estimate is small enough to try here)."""
    try:
        sc = scenario.loads(text, "fuzz.toml")
    except InputError as e:
        assert str(e).startswith("fuzz.toml"), str(e)
        return
    est = admission.estimate(sc)
    if est.bytes > 300 << 20:
        return
    cfg = json.dumps(sc.engine_config())
    try:
        sim = _engine.Simulation(cfg)
    except _engine.EngineError as e:
        raise AssertionError(f"the loader accepted what the engine refuses: {e}\n{text}") from None
    sim.run_until(min(sim.end_ns, 20_000_000))


def test_the_base_scenario_loads():
    sc = scenario.loads(to_toml(BASE), "fuzz.toml")
    assert sc.userids() == ["USER0", "WEB0", "WEB1"]


@fuzz(250)
@given(scenarios())
def test_structured_scenarios(doc):
    check(to_toml(doc))


@fuzz(100)
@given(st.sampled_from(KEYS["params"]), st.sampled_from(NUMBERS))
def test_parameters_at_and_beyond_their_range(name, value):
    doc = json.loads(json.dumps(BASE))
    doc["params"] = {name: value}
    check(to_toml(doc))


# ------------------------------------------------------------------ the command line

# Commands that run experiments for minutes whatever their options are left out.
_CHEAP = ["run", "report", "validate", "workloads", "levels", "params", "cpc", "solve", "check", "sweep", "store",
          "bisect"]
OPTION_VALUES = ["", "0", "1", "-1", "2", "99999999999999999999", "1s", "0s", "-1s", "1us", "abc", "zvm-6.4",
                 "zvm-9.9", "FCX144", "144,999", "text", "html", "csv", "json", "sim", "local", "dask://",
                 "dask://127.0.0.1:1", "seed=1", "seed=", "processors=1,2", "x=1", "[/]", "\x1b[31m", "1M", "1T",
                 "select 1", "drop table runs", "ITR", "1,2"]


@pytest.fixture
def cli_env(tmp_path, monkeypatch):
    """A scratch directory with a tiny scenario, a run directory and a store."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(to_toml(BASE))
    (tmp_path / "bad.toml").write_text("[system]\nprocessors = 0\n")
    return tmp_path


@st.composite
def command_lines(draw) -> list[str]:
    name = draw(st.sampled_from(_CHEAP))
    cmd = cli.commands[name]
    argv = [name]
    if hasattr(cmd, "commands"):  # a group: one of its sub-commands
        sub = draw(st.sampled_from(sorted(cmd.commands)))
        argv.append(sub)
        cmd = cmd.commands[sub]
    paths = ["s.toml", "bad.toml", "missing.toml", ".", "/dev/null", "out", "store.duckdb", "s.toml.out"]
    for p in cmd.params:
        if p.param_type_name == "argument" and draw(st.integers(0, 5)) > 0:
            argv.append(draw(st.sampled_from(paths + OPTION_VALUES[:12])))
    for _ in range(draw(st.integers(0, 4))):
        opts = [p for p in cmd.params if p.param_type_name == "option"]
        if not opts:
            break
        p = draw(st.sampled_from(opts))
        argv.append(draw(st.sampled_from(p.opts)))
        if not p.is_flag:
            choices = list(getattr(p.type, "choices", []) or [])
            argv.append(draw(st.sampled_from(choices + OPTION_VALUES + paths)))
    if draw(st.integers(0, 9)) == 0:
        argv.append(draw(st.sampled_from(["--nope", "-Z", "--json=3"])))
    if name in ("sweep",) and "-j" not in argv and "--jobs" not in argv:
        argv += ["-j", "1"]
    if "--runner" in argv:  # the cgroup runner runs in real time
        argv[argv.index("--runner") + 1:argv.index("--runner") + 2] = ["sim"]
    return argv


@fuzz(60)
@given(command_lines())
def test_random_command_lines(cli_env, capsys, argv):
    """Whatever the options: exit 0, 1 (a write the system refused) or 2 (bad input, one
    message), never an internal error or a traceback."""
    from zvmlab.cli import main

    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        with pytest.raises(SystemExit) as e:
            main(argv)
    finally:
        for s, h in saved.items():
            signal.signal(s, h)
    out, err = capsys.readouterr()
    code = e.value.code if isinstance(e.value.code, int) else (0 if e.value.code is None else 2)
    assert code in (0, 1, 2), f"{argv}: exit {code}\n{err}"
    assert "internal error" not in err and "Traceback" not in err, f"{argv}\n{err}"
    if code == 2:
        assert err.strip(), argv
