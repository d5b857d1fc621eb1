"""The scenario contract, from the engine (crates/engine/src/contract.rs; issue 16 item 4).

The vocabulary (SMT modes, machines, device types, ...), the numeric limits and the cross-field
rules of a scenario are stated once, in Rust, where ``Config::check`` refuses what breaks them.
The loader (scenario.py, cpupools.py, capping.py) reads them here and words each refusal with
the file, line and field; tests/python/test_contract.py feeds random configurations to both and
requires the same verdict.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from . import _engine


@functools.cache
def _contract() -> dict[str, Any]:
    return json.loads(_engine.contract_json())


def vocabulary(name: str) -> tuple[str, ...]:
    """The accepted names of one vocabulary (``smt``, ``machine``, ``dasd_type``, ...)."""
    return tuple(_contract()["vocabulary"][name])


def word(name: str) -> Any:
    """A single entry of the vocabulary (``default_machine``, ``first_pav_level``, ...)."""
    return _contract()["vocabulary"][name]


def limit(name: str) -> tuple[Any, Any]:
    """The lowest and highest accepted value of one limit (``processors``, ``aliases``, ...)."""
    lo, hi = _contract()["limits"][name]
    return lo, hi


def rules() -> list[str]:
    """The cross-field rules the engine enforces, in words."""
    return list(_contract()["rules"])


def validate(config: dict) -> str | None:
    """The engine's verdict on an engine configuration: None (accepted) or its message."""
    try:
        _engine.validate_json(json.dumps(config))
    except _engine.EngineError as e:
        return str(e)
    return None
