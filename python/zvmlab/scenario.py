"""Scenario files: TOML a z/VM analyst can read, validated with messages that name the fix.

A scenario describes the LPAR (``[system]``), the run (``[run]``), optional model parameters
(``[params]``), the guests (``[[guest]]``) and timed CP commands (``[[action]]``). ``load`` reads
and validates a file and returns a :class:`Scenario`; ``Scenario.engine_config()`` is the
normalized form the Rust engine runs (all times in integer nanoseconds).

Every rule raises :class:`~zvmlab.errors.InputError` naming the file, the line (where it can be
found), the field, what is wrong and what is accepted.
"""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from .errors import InputError, table_array
from . import capping, contract, cpupools

# The scenario contract's vocabulary and limits come from the engine (contract.rs).
SMT_MODES = contract.vocabulary("smt")
MACHINES = contract.vocabulary("machine")
DEFAULT_MACHINE = contract.word("default_machine")
MAX_SMT_CORES = contract.limit("smt_processors")[1]  # seed 000: with SMT only the first 32 cores are used
MAX_DRAWERS = contract.limit("drawers")[1]  # each machine has its own (cpu.<machine>.drawers)
DISTS = contract.vocabulary("dist")
CRYPTOS = contract.vocabulary("crypto")  # crypto statements of an SSL server (CRYPTO APVIRT)
MAX_PROCESSORS = contract.limit("processors")[1]
MAX_VCPUS = contract.limit("vcpus")[1]
MAX_COUNT = contract.limit("count")[1]
MAX_SEED = contract.limit("seed")[1]  # what a scenario file holds (TOML integers are signed 64-bit)
REL_SHARE = contract.limit("relative_share")
ABS_SHARE = contract.limit("absolute_share")
MAX_ABS_SUM = contract.limit("absolute_share_sum")[1]  # ABSOLUTE minimum shares of all userids together, %
WEIGHT = contract.limit("weight")
ALIASES = contract.limit("aliases")
MAX_CU_PATHS = contract.limit("cu_paths")[1]

_UNITS_NS = {
    "ns": 1,
    "us": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "min": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z]+)\s*$", re.IGNORECASE)
# CP's userids: 1-8 characters, letters, digits and @ # $ _ - (upper case; fullmatch, so no newline).
MAX_NAME = contract.word("max_name")
_USERID = re.compile("[" + re.escape(contract.word("name_chars")) + "]{1,%d}" % MAX_NAME)
MAX_SCENARIO_BYTES = 4 << 20  # a scenario is a few KB; 4 MB holds 10,000 guest tables
MAX_DEPTH = 8  # tables and arrays nested deeper than this are no scenario

# Allowed keys per table, with a one-line description used in messages.
_TOP_KEYS = {"system": "the LPAR", "run": "run length and sampling", "params": "model parameters",
             "guest": "guest virtual machines ([[guest]])", "action": "timed CP commands ([[action]])",
             "title": "a title for reports", "description": "free text",
             "cpupool": "CPU pools: [[cpupool]] name, limithard = \"25%\" or capacity = 1.5, type = \"IFL\" "
                        "(DEFINE CPUPOOL); guests join with pool = \"NAME\"",
             "storage": "real storage for guest pages and paging volumes ([storage])",
             "cpc": "the CPC around the LPAR: physical IFLs and partner LPARs ([cpc], [[cpc.lpar]])",
             "mdc": "the minidisk cache: [mdc] storage = \"1G\" (SET MDCACHE STORAGE)",
             "volume": "DASD volumes the minidisks live on: [[volume]] name, type, size (optional; "
                       "with them minidisk extents are checked)",
             "cu": "the control unit of the ECKD volumes: [cu] aliases = 15 (HyperPAV), paging_alias = true "
                   "(SET PAGING ALIAS ON), share = { paging = 100, minidisk = 200 } (SET CU ... SHARE), "
                   "paths = [\"40\", \"41\"] (its channel paths)",
             "chpid": "channel paths: [[chpid]] id = \"40\", type = \"escon\" | \"ficon\" | ... (issue 22)"}
_CU_KEYS = {"aliases": f"HyperPAV alias exposures of the control unit, {ALIASES[0]}-{ALIASES[1]}",
            "paging_alias": "SET PAGING ALIAS ON: paging I/O may use the aliases (z/VM 6.4+); default false",
            "share": "SET CU ... SHARE: { paging = 100, minidisk = 200 } relative shares of the aliases",
            "paths": "the control unit's channel paths, 1-8 CHPID ids of [[chpid]] tables, in rotation order",
            "class": "ess (2105 and later, default) | 3990: the nullification window is avoided only on an ESS",
            "pav": "hyper (HyperPAV, default) | static (aliases bound to bases) | dynamic (moved by workload "
                   "management)"}
# --- channel paths (issue 22) ---
# Channel path types and the first level that knows each (crates/engine/src/channel.rs KINDS).
_CHPID_TYPES = {t: contract.word("chpid_first_level")[t] for t in contract.vocabulary("chpid_type")}
_CHPID_KEYS = {"id": "the CHPID: two hex digits, e.g. \"40\"",
               "type": "channel type: " + " | ".join(_CHPID_TYPES),
               "partner_io_rate": "a path shared with the [cpc]'s other LPARs: the I/Os per second they start on it"}
_CHPID_RE = re.compile(r"[0-9A-F]{2}")
_DASD_VOLUME_KEYS = {"name": "volume name, as workloads name it (volume = ...)",
                     "type": "eckd | edev | scsi",
                     "size": "capacity: a size such as \"20G\" or a 3390 model (3390-3, 3390-9, 3390-27, 3390-54)"}
# 3390 models: cylinders; a cylinder is 15 tracks of 12 4 KB blocks (180 pages).
_3390_MODELS = {"3390-3": 3339, "3390-9": 10017, "3390-27": 32760, "3390-54": 65520}
_SYSTEM_KEYS = {"level": "CP level", "processors": "logical cores (logical processors when not SMT-2)",
                "smt": " | ".join(SMT_MODES),
                "machine": " | ".join(MACHINES) + " (chips, drawers, clock, SMT, caches)",
                "drawers": "drawers the LPAR's cores span (default: as few as fit)",
                "switches": "mechanism switches set on top of the level, e.g. { sched = \"entitlement-excess\" }",
                "lpar": "name of the LPAR z/VM runs in (with [cpc])",
                "weight": f"PR/SM weight of the LPAR, {WEIGHT[0]}-{WEIGHT[1]} (with [cpc])",
                "polarization": "vertical | horizontal (SET SRM POLARIZATION, with [cpc])",
                "unparking": "large | medium | small (SET SRM UNPARKING, vertical only, with [cpc])",
                "excessuse": "high | medium | low | none (SET SRM EXCESSUSE, with [cpc])",
                "dspwdmethod": "reshuffle | rebalance (SET SRM DSPWDMETHOD; multithreading needs reshuffle)",
                **capping.SYSTEM_KEYS}
_LPAR_ONLY = ("lpar", "weight", "polarization", "unparking", "excessuse", *capping.SYSTEM_KEYS)
_CPC_KEYS = {"shared_ifls": "shared physical IFLs (the pool PR/SM dispatches shared logical cores on)",
             "dedicated_ifls": "dedicated physical IFLs",
             "lpar": "partner partitions: [[cpc.lpar]] with name, weight, logical, busy",
             "group": "absolute capping groups: [[cpc.group]] with name, abscap (processors)"}
_CPC_LPAR_KEYS = {"name": "LPAR name, 1-8 characters", "weight": "PR/SM weight 1-999 (shared LPARs)",
                  "logical": "logical cores",
                  "busy": "fraction of its logical cores it keeps busy, 0-1, or a list of them taken in turn",
                  "busy_period": "with a list of busy fractions: how long each holds, e.g. \"10s\"",
                  "dedicated": "true: dedicated physical cores", "polarization": "vertical | horizontal",
                  **capping.LPAR_KEYS}
POLARIZATIONS = contract.vocabulary("polarization")
UNPARKINGS = contract.vocabulary("unparking")
EXCESSUSES = contract.vocabulary("excessuse")
DSPWDMETHODS = contract.vocabulary("dspwdmethod")
MAX_IFLS = contract.limit("ifls")[1]
_RUN_KEYS = {"duration": "run length", "interval": "monitor sample interval", "seed": "random seed",
             "tx_unit": "completed requests per reported transaction (a workload whose published ETR counts "
                        "transactions of its own), e.g. 14.4; default 1"}
MAX_TX_UNIT = float(contract.limit("tx_unit")[1])
_GUEST_KEYS = {"userid": "z/VM userid", "share": "SET SHARE operands", "workload": "what it runs",
               "vcpus": "virtual CPUs", "count": "number of identical guests",
               "quickdsp": "SET QUICKDSP ON: true or false",
               "pool": "the CPU pool it is scheduled to ([[cpupool]] name; SCHEDULE userid TO POOL)",
               "storage": "virtual storage size, e.g. \"512M\"",
               "refs": "page references, one per transaction (servers: touches = N per request): "
                       "{ pattern = \"uniform\", range = \"480M\" } "
                       "or { pattern = \"strided\", range = \"120G\", stride = \"4K\" }"}
_STORAGE_KEYS = {"real": "storage (frames) available for pageable guest pages, e.g. \"180M\"",
                 "prefill": "start in a paging steady state (true) instead of empty storage",
                 "paging_volumes": "CP-owned paging volumes: [{ type = \"eckd\" | \"edev\", size = \"2G\", count = 2 }]",
                 "paging_hpf": "SET PAGING HPF ON: page to ECKD volumes with zHPF transport-mode I/O (z/VM 6.4+)",
                 "encrypt_paging": "SET ENCRYPT PAGING ON with a cipher: \"aes128\" | \"aes192\" | \"aes256\" "
                                   "(VM65993, a z14)"}
PAGING_CIPHERS = contract.vocabulary("paging_cipher")
_REFS_KEYS = {"uniform": {"pattern", "range", "touches"}, "strided": {"pattern", "range", "stride", "touches"},
              "hotset": {"pattern", "range", "hot", "hot_fraction", "touches"}}
_VOLUME_KEYS = {"type", "size", "count", "xiv"}
PAGE = 4096
MAX_GUEST_PAGES = contract.limit("guest_pages")[1]  # 1 TB
MAX_SIZE = contract.limit("size_pages")[1] * PAGE  # 8 TB: larger than any z/VM LPAR, volume or virtual machine
MAX_REAL = contract.limit("real_pages")[1] * PAGE  # z/VM 7.3 supports up to 4 TB of real storage
MAX_REF_PAGES = contract.limit("ref_pages")[1]  # pages with references, all guests together (16 TB)
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*([KMGT]?)B?\s*$", re.IGNORECASE)
_ACTION_KEYS = {"at": "time into the run",
                "command": "the CP command, e.g. \"SET SHARE USER1 RELATIVE 200\" or \"SET MULTITHREAD 2\""}
_WORKLOAD_KEYS = {
    "cpu-bound": {"kind": "", "demand": "fraction of one processor per virtual CPU, (0, 1]",
                  "tx_cpu": "CPU per transaction (or per burst when demand < 1)", "dist": "exp | fixed"},
    "transactional": {"kind": "", "think": "think time between transactions", "cpu": "CPU per transaction",
                      "dist": "exp | fixed"},
    "memtst": {"kind": "", "cpu": "guest CPU between storage-key operations (ISKE) on the hot page",
               "dist": "exp | fixed"},
    "client": {"kind": "", "cpu": "client CPU per request", "servers": "userid of the server guests it drives",
               "window": "requests outstanding per virtual CPU (>= 1)", "dist": "exp | fixed",
               "bytes": "payload per request, e.g. \"2K\" or 1920 (what an SSL server enciphers)",
               "connect": "true: each request opens a new connection (a TLS handshake at an SSL server)"},
    "server": {"kind": "", "cpu": "server CPU per request", "dist": "exp | fixed",
               "forward": "userid of the server guests the request goes on to (a chain); the last replies"},
    "ssl-server": {"kind": "", "cpu": "SSL server CPU per request besides the TLS work", "dist": "exp | fixed",
                   "forward": "userid of the server guests the request goes on to",
                   "cipher": "rsa-aes256 | rsa-aes128-sha256 (default: the level's default cipher)",
                   "crypto": "\"apvirt\": a CRYPTO APVIRT directory statement (used from PI72106 on)"},
    "dump": {"kind": "", "volume": "the ECKD dump volume", "size": "storage dumped, e.g. \"4G\""},
    "dasd-io": {"kind": "", "volume": "volume name (guests naming it share it)", "type": "eckd | edev | scsi | vdisk",
                "method": "ssch | diag250", "cpu": "guest CPU per transaction", "ios": "I/Os per transaction",
                "blocks": "4 KB blocks per I/O", "think": "think time between transactions", "write": "true | false",
                "window": "I/Os in flight per virtual CPU (1: waits for each)", "dist": "exp | fixed",
                "mdc": "SET MDC ON for this device: true | false (default false)",
                "extent": "minidisk data the I/Os read at random, e.g. \"400M\" (with mdc = true)",
                "rate": "I/Os per second the guest starts (a paced driver such as IO3390) instead of a think time; "
                        "a rate the I/O cannot meet is reported as saturation",
                "start": "where the minidisk begins on its [[volume]], e.g. \"0\" or \"2G\" (default: after the last)",
                "size": "the minidisk's size, e.g. \"10G\" (checked against its [[volume]])"},
    "format": {"kind": "", "volume": "volume name", "type": "eckd | edev", "size": "minidisk size, e.g. \"10G\"",
               "blocks": "4 KB blocks per write",
               "start": "where the minidisk begins on its [[volume]] (default: after the last)"},
}
DASD_TYPES = contract.vocabulary("dasd_type")
FORMAT_TYPES = contract.vocabulary("format_type")
VOLUME_TYPES = contract.vocabulary("volume_type")
PAGING_VOLUME_TYPES = contract.vocabulary("paging_volume_type")
SSL_CIPHERS = contract.vocabulary("ssl_cipher")
SERVER_KINDS = contract.vocabulary("server_kind")
DASD_METHODS = contract.vocabulary("dasd_method")
CU_CLASSES = contract.vocabulary("cu_class")
PAV_MODES = contract.vocabulary("pav_mode")


# --------------------------------------------------------------------------------------------
# Scalars
# --------------------------------------------------------------------------------------------

def parse_duration(text: Any, *, where: str = "duration", file: str | None = None,
                   line: int | None = None, allow_zero: bool = False) -> int:
    """Parse "10m", "60s", "5ms", "250us", "2h", "1.5s" into integer nanoseconds."""
    fix = 'write a number with a unit: ns, us, ms, s, m (minutes) or h, e.g. "10m", "60s", "500ms"'
    if isinstance(text, bool) or not isinstance(text, str):
        raise InputError(f"{text!r} is not a duration", file=file, line=line, field=where, fix=fix)
    m = _DURATION.match(text)
    if not m or m.group(2).lower() not in _UNITS_NS:
        raise InputError(f"cannot read duration {text!r}", file=file, line=line, field=where, fix=fix)
    ns = round(float(m.group(1)) * _UNITS_NS[m.group(2).lower()])
    if ns < 0 or (ns == 0 and not allow_zero):
        raise InputError(f"duration {text!r} must be positive", file=file, line=line, field=where, fix=fix)
    if ns >= 2**63:
        raise InputError(f"duration {text!r} is too long", file=file, line=line, field=where,
                         fix="keep durations below about 290 years")
    return ns


def check_userid(text: Any, *, file: str | None = None, line: int | None = None, field: str = "userid") -> str:
    """A z/VM userid by CP's rules (the one place they are checked); returns it in upper case."""
    if not isinstance(text, str) or not _USERID.fullmatch(text.upper()):
        raise InputError(f"{text!r} is not a z/VM userid", file=file, line=line, field=field,
                         fix="1-8 characters: letters, digits and @ # $ _ -")
    return text.upper()


def format_duration(ns: int) -> str:
    for unit in ("h", "m", "s", "ms", "us"):
        if ns % _UNITS_NS[unit] == 0:
            return f"{ns // _UNITS_NS[unit]}{unit}"
    return f"{ns}ns"


@dataclass(frozen=True)
class ShareValue:
    kind: str  # "relative" | "absolute"
    value: float

    def __str__(self) -> str:
        v = f"{self.value:g}"
        return f"RELATIVE {v}" if self.kind == "relative" else f"ABSOLUTE {v}%"


@dataclass(frozen=True)
class Share:
    """SET SHARE operands: a target minimum share, an optional maximum share and its limit type."""

    min: ShareValue
    max: ShareValue | None = None
    limit: str = "none"  # none | soft | hard

    def __str__(self) -> str:
        s = str(self.min)
        if self.max is not None:
            if self.max != self.min:
                s += f" {self.max}"
            s += {"soft": " LIMITSOFT", "hard": " LIMITHARD", "none": " NOLIMIT"}[self.limit]
        return s

    def to_engine(self) -> dict:
        d: dict[str, Any] = {"min": {"kind": self.min.kind, "value": self.min.value}, "limit": self.limit}
        if self.max is not None:
            d["max"] = {"kind": self.max.kind, "value": self.max.value}
        return d


_SHARE_FIX = ('use z/VM SET SHARE syntax: "RELATIVE n" (1-10000) or "ABSOLUTE n%" (0.1-100), optionally '
              'followed by a maximum share and LIMITSOFT | LIMITHARD | NOLIMIT, e.g. "ABSOLUTE 20% LIMITHARD", '
              '"RELATIVE 100 ABSOLUTE 30% LIMITSOFT"')
_KEYWORDS = ("RELATIVE", "ABSOLUTE", "LIMITSOFT", "LIMITHARD", "NOLIMIT")


def _share_word(w: str) -> str | None:
    """Match a keyword. Keywords are written out in full: CP would accept abbreviations such as
    REL or ABS, but in a scenario file a truncated word is far more often a typo (issue 2)."""
    w = w.upper()
    return w if w in _KEYWORDS else None


def parse_share(text: Any, *, where: str = "share", file: str | None = None, line: int | None = None) -> Share:
    """Parse SET SHARE operands.

    A single share followed by a limit type ("ABSOLUTE 20% LIMITHARD") means the maximum equals
    the minimum, as in the issue's examples; CP itself asks for the maximum to be written out.
    """
    def bad(msg: str) -> InputError:
        return InputError(msg, file=file, line=line, field=where, fix=_SHARE_FIX)

    if not isinstance(text, str):
        raise bad(f"{text!r} is not a share")
    words = text.split()
    if not words:
        raise bad("the share is empty")
    values, limit = _share_operands(text, words, bad)
    return _share_of(values, limit, text, bad)


def _share_operands(text: str, words: list[str], bad: Callable[[str], InputError]) -> tuple[list[ShareValue],
                                                                                              str | None]:
    """The share values (one or two) and the limit type (soft, hard, none or not given) of ``words``."""
    values: list[ShareValue] = []
    limit: str | None = None
    i = 0
    while i < len(words):
        w = words[i]
        k = _share_word(w)
        if k is None:
            close = difflib.get_close_matches(w.upper(), _KEYWORDS, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise bad(f"unknown word {w!r} in share {text!r}{hint}")
        if k in ("RELATIVE", "ABSOLUTE"):
            if limit is not None:
                raise bad(f"{k} after the limit type in {text!r}")
            if len(values) == 2:
                raise bad(f"more than two shares in {text!r}")
            if i + 1 >= len(words):
                raise bad(f"{k} needs a value in {text!r}")
            values.append(_share_value(k, words[i + 1], bad))
            i += 2
        else:
            if limit is not None:
                raise bad(f"two limit types in {text!r}")
            if not values:
                raise bad(f"{k} must follow a share in {text!r}")
            limit = {"LIMITSOFT": "soft", "LIMITHARD": "hard", "NOLIMIT": "none"}[k]
            i += 1
    return values, limit


def _share_value(k: str, raw: str, bad: Callable[[str], InputError]) -> ShareValue:
    """The value ``raw`` of a RELATIVE or ABSOLUTE (``k``) share, in range."""
    num = raw[:-1] if raw.endswith("%") else raw
    if k == "RELATIVE" and raw.endswith("%"):
        raise bad(f"a RELATIVE share is a number, not a percentage ({raw!r})")
    try:
        v = float(num)
    except ValueError:
        raise bad(f"{k} value {raw!r} is not a number") from None
    if not math.isfinite(v):
        raise bad(f"{k} value {raw!r} is not a number")
    if k == "RELATIVE" and not (REL_SHARE[0] <= v <= REL_SHARE[1] and v == int(v)):
        raise bad(f"RELATIVE share {raw} is out of range; it must be a whole number "
                  f"{REL_SHARE[0]:g}-{REL_SHARE[1]:g}")
    if k == "ABSOLUTE" and not (ABS_SHARE[0] <= v <= ABS_SHARE[1]):
        raise bad(f"ABSOLUTE share {raw} is out of range; it must be 0.1%-100%")
    return ShareValue("relative" if k == "RELATIVE" else "absolute", v)


def _share_of(values: list[ShareValue], limit: str | None, text: str, bad: Callable[[str], InputError]) -> Share:
    """The Share of the parsed values and limit type: a lone share with a limit is also the maximum."""
    if not values:
        raise bad(f"no share value in {text!r}")
    mn = values[0]
    mx = values[1] if len(values) == 2 else None
    if mx is not None and limit is None:
        raise bad(f"a maximum share needs LIMITSOFT, LIMITHARD or NOLIMIT after it in {text!r}")
    if mx is None and limit in ("soft", "hard"):
        mx = mn
    if mx is not None and mx.kind == mn.kind and mx.value < mn.value:
        raise bad(f"the maximum share {mx} is below the minimum share {mn}")
    if limit == "none":
        mx = None
    return Share(mn, mx, limit or "none")


# --------------------------------------------------------------------------------------------
# The scenario
# --------------------------------------------------------------------------------------------

@dataclass
class Workload:
    kind: str
    demand: float | None = None
    tx_cpu_ns: int | None = None
    think_ns: int | None = None
    cpu_ns: int | None = None
    dist: str = "exp"
    servers: str | None = None
    window: int | None = None
    dasd: dict | None = None  # dasd-io and format: the engine's fields, already checked
    extra: dict | None = None  # issue 6: bytes/connect (client), forward/cipher/crypto (servers), dump fields
    minidisk: dict | None = None  # dasd-io/format: start/size in pages when given (checked against [[volume]])

    def to_engine(self) -> dict:
        d: dict[str, Any] = {"kind": self.kind, "dist": self.dist}
        if self.kind == "cpu-bound":
            if self.demand is not None:
                d["demand"] = self.demand
            if self.tx_cpu_ns is not None:
                d["tx_cpu_ns"] = self.tx_cpu_ns
        elif self.kind in ("dasd-io", "format", "dump"):
            d = {"kind": self.kind, **(self.dasd or {})}
        elif self.kind == "client":
            d.update(cpu_ns=self.cpu_ns, servers=self.servers, window=self.window)
        elif self.kind in SERVER_KINDS or self.kind == "memtst":
            d["cpu_ns"] = self.cpu_ns
        else:
            d["think_ns"] = self.think_ns
            d["cpu_ns"] = self.cpu_ns
        if self.extra:
            d.update(self.extra)
        return d

    def demand_per_vcpu(self) -> float:
        """Fraction of one processor each virtual CPU wants when nothing holds it back.

        Clients and servers of the virtual network want what the other side lets them do; the
        Solver treats them as wanting a whole processor.
        """
        if self.kind == "cpu-bound":
            return 1.0 if self.demand is None else self.demand
        if self.kind in ("client", "server", "ssl-server", "dasd-io", "format", "dump", "memtst"):
            return 1.0
        assert self.cpu_ns is not None and self.think_ns is not None
        return self.cpu_ns / (self.cpu_ns + self.think_ns)


@dataclass
class Guest:
    userid: str
    share: Share
    workload: Workload
    vcpus: int = 1
    count: int = 1
    quickdsp: bool = False
    storage_pages: int | None = None
    refs: dict | None = None
    pool: str | None = None  # the CPU pool it is scheduled to (cpupools.py)

    def userids(self) -> list[str]:
        return [self.userid] if self.count == 1 else [f"{self.userid}{k}" for k in range(self.count)]


@dataclass
class Action:
    at_ns: int
    userid: str
    share: Share | None
    command: str
    threads: int | None = None  # SET MULTITHREAD: active threads per core
    engine: dict | None = None  # a CPU pool command: the engine's action (cpupools.py), without at_ns


@dataclass
class Scenario:
    path: str
    level: str
    processors: int
    smt: str
    duration_ns: int
    interval_ns: int
    seed: int
    guests: list[Guest]
    params: dict[str, float] = field(default_factory=dict)
    actions: list[Action] = field(default_factory=list)
    title: str = ""
    switches: dict[str, str] = field(default_factory=dict)
    storage: dict | None = None
    machine: str | None = None
    drawers: int | None = None
    cpc: dict | None = None
    mdc: dict | None = None
    hyperpav: dict | None = None
    dspwdmethod: str = "reshuffle"
    tx_unit: float = 1.0  # completed requests per reported transaction ([run] tx_unit)
    channels: dict | None = None  # [[chpid]] and [cu] paths (issue 22)
    pav: dict | None = None  # [cu] pav = "static" | "dynamic" (issue 22)
    cpupools: list[dict] = field(default_factory=list)  # [[cpupool]] with members (cpupools.py)

    def engine_config(self) -> dict:
        cfg = self._engine_config()
        if self.machine is not None:
            cfg["machine"] = self.machine
        if self.drawers is not None:
            cfg["drawers"] = self.drawers
        for g, e in zip(self.guests, cfg["guests"]):
            if g.storage_pages is not None:
                e["storage_pages"] = g.storage_pages
            if g.refs is not None:
                refs = dict(g.refs)
                touches = refs.pop("touches", None)
                e["refs"] = refs
                if touches is not None:
                    e["touches"] = touches
        if self.storage is not None:
            cfg["storage"] = self.storage
        if self.cpc is not None:
            cfg["cpc"] = {k: (list(map(dict, v)) if k == "lpars" else v) for k, v in self.cpc.items()}
        if self.mdc is not None:
            cfg["mdc"] = dict(self.mdc)
        if self.hyperpav is not None:
            cfg["hyperpav"] = dict(self.hyperpav)
        if self.pav is not None:
            cfg["pav"] = dict(self.pav)
        if self.channels is not None:
            cfg["channels"] = {k: (list(map(dict, v)) if k == "chpids" else v) for k, v in self.channels.items()}
        if self.dspwdmethod != "reshuffle":
            cfg["dspwdmethod"] = self.dspwdmethod
        if self.tx_unit != 1.0:
            # A reporting unit: the engine divides the summary's transaction counts, ETR and ITR.
            cfg["tx_unit"] = self.tx_unit
        if self.cpupools:
            cfg["cpupools"] = [dict(p, members=list(p["members"])) for p in self.cpupools]
        return cfg

    def _engine_config(self) -> dict:
        return {
            "level": self.level,
            "processors": self.processors,
            "smt": self.smt,
            "duration_ns": self.duration_ns,
            "interval_ns": self.interval_ns,
            "seed": self.seed,
            "params": dict(self.params),
            "switches": dict(self.switches),
            "guests": [
                {"userid": g.userid, "vcpus": g.vcpus, "share": g.share.to_engine(),
                 "workload": g.workload.to_engine(), "count": g.count, "quickdsp": g.quickdsp}
                for g in self.guests
            ],
            "actions": [
                {"at_ns": a.at_ns, **a.engine} if a.engine is not None
                else {"kind": "set-multithreading", "at_ns": a.at_ns, "threads": a.threads} if a.share is None
                else {"kind": "set-share", "at_ns": a.at_ns, "userid": a.userid, "share": a.share.to_engine()}
                for a in self.actions
            ],
        }

    def userids(self) -> list[str]:
        return [u for g in self.guests for u in g.userids()]

    def with_overrides(self, *, level: str | None = None, seed: int | None = None,
                       duration: str | None = None, switches: dict[str, str] | None = None,
                       level_field: str = "--level", machine: str | None = None) -> "Scenario":
        s = self
        if machine is not None:
            if machine not in MACHINES:
                raise InputError(f"{machine!r} is not a modelled machine", field="--machine",
                                 fix=f"accepted: {', '.join(MACHINES)}")
            _check_machine(machine, s.processors, s.smt, s.drawers, s.params, s.storage, file=None,
                           ln=lambda *_: None)
            s = replace(s, machine=machine)
        if switches is not None:
            from . import engine

            engine.switches(s.level, switches)
            s = replace(s, switches=dict(switches))
        if level is not None:
            s = replace(s, level=_check_level(level, file=None, line=None, where=level_field))
        if level is not None or switches is not None:
            try:
                _check_level_features(s.level, dict(s.switches), s.smt, s.actions, s.cpupools, file=self.path,
                                      ln=lambda *_: None)
            except InputError as e:
                raise InputError(e.message, file=self.path, field=level_field if level is not None else "--switch",
                                 fix=e.fix) from None
        if seed is not None:
            check_seeds(seed, 1)
            s = replace(s, seed=seed)
        if duration is not None:
            d = parse_duration(duration, where="--duration")
            s = replace(s, duration_ns=d, interval_ns=min(s.interval_ns, d))
        return s


def check_seeds(first: int, n: int, field: str = "--seed") -> None:
    """Refuse a first seed whose ``n`` seeds (first .. first + n - 1) do not all fit a scenario
    file's seed (0 .. MAX_SEED), before anything runs."""
    if not 0 <= first <= MAX_SEED:
        raise InputError(f"seed {first} is out of range", field=field, fix=f"use 0 .. {MAX_SEED}")
    if first + n - 1 > MAX_SEED:
        raise InputError(f"{n} seeds from {first} go beyond the largest seed, {MAX_SEED}", field=field,
                         fix=f"use a first seed of at most {MAX_SEED - n + 1}")


class _Lines:
    """Find the line of a key in a TOML file (tomllib does not report positions)."""

    _HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")

    def __init__(self, text: str):
        # (table, index) -> [(line number, text)]: a lookup costs the lines of one table, so
        # validating is linear in the size of the file.
        self.tables: dict[tuple[str, int], list[tuple[int, str]]] = {}
        table, counts, index = "", {}, 0
        for n, raw in enumerate(text.splitlines(), 1):
            m = self._HEADER.match(raw)
            if m:
                table = m.group(2).strip().strip("\"'")
                if m.group(1) == "[[":
                    counts[table] = counts.get(table, -1) + 1
                    index = counts[table]
                else:
                    index = 0
            self.tables.setdefault((table, index), []).append((n, raw))

    def find(self, table: str, key: str | None = None, index: int = 0) -> int | None:
        """The line of ``key`` in the table, else the table's first line."""
        rows = self.tables.get((table, index), [])
        if key is None or not rows:
            return rows[0][0] if rows else None
        return self.find_key(table, key, index) or rows[0][0]

    def find_key(self, table: str, key: str, index: int = 0) -> int | None:
        """The line where ``key`` is set in the table, or None."""
        pat = re.compile(r"^\s*[\"']?" + re.escape(key) + r"[\"']?\s*=")
        inline = re.compile(r"[{,]\s*" + re.escape(key) + r"\s*=")
        for n, raw in self.tables.get((table, index), []):
            if pat.match(raw) or inline.search(raw):
                return n
        return None


def _check_tree(doc: dict, file: str, lines: _Lines) -> None:
    """Before any field is read: no nesting deeper than MAX_DEPTH, no integer beyond 64 bits."""
    stack: list[tuple[Any, str, str, int, int]] = [(doc, "", "", 0, 0)]  # node, field, table, index, depth
    while stack:
        node, where, table, index, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > MAX_DEPTH:
                raise InputError("nested too deeply", file=file, line=lines.find(table, None, index), field=where,
                                 fix=f"a scenario nests tables and arrays at most {MAX_DEPTH} levels")
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for k, v in items:
                sub = f"{where}[{k}]" if isinstance(node, list) else (f"{where}.{k}" if where else str(k))
                t, i = (str(k), 0) if depth == 0 else (table, index)
                if depth == 1 and isinstance(node, list):
                    i = k
                stack.append((v, sub, t, i, depth + 1))
        elif isinstance(node, int) and not isinstance(node, bool) and not -(2**63) <= node < 2**63:
            key = where.rsplit(".", 1)[-1].split("[")[0]
            raise InputError(f"{len(str(abs(node)))}-digit number is beyond any range", file=file,
                             line=lines.find(table, key, index), field=where,
                             fix="give a value in the field's range (`zvmlab params` lists parameter ranges)")


def _check_level(level: Any, *, file, line, where) -> str:
    from . import engine

    names = [lv["name"] for lv in engine.levels()]
    if not isinstance(level, str) or level.lower() not in [n.lower() for n in names]:
        close = difflib.get_close_matches(str(level), names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InputError(f"unknown level {level!r}", file=file, line=line, field=where,
                         fix=f"{hint}known levels: {', '.join(names)} (`zvmlab levels` shows their switches)")
    return next(n for n in names if n.lower() == level.lower())


def _unknown_keys(d: dict, allowed: dict, *, file, lines: _Lines, table: str, index: int, where: str) -> None:
    for k in d:
        if k not in allowed:
            close = difflib.get_close_matches(k, list(allowed), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise InputError(f"unknown key {k!r}", file=file, line=lines.find(table, k, index),
                             field=f"{where}.{k}" if where else k,
                             fix=f"{hint}accepted here: {', '.join(allowed)}")


def _int(v: Any, lo: int, hi: int, *, file, line, where, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError(f"{v!r} is not a whole number", file=file, line=line, field=where,
                         fix=f"{what} must be a whole number {lo}-{hi}")
    if not lo <= v <= hi:
        raise InputError(f"{v} is out of range", file=file, line=line, field=where,
                         fix=f"{what} must be {lo}-{hi}")
    return v


def _param_value(v: Any, info: dict, *, file, line) -> float:
    """A [params] value inside the parameter's physical range (the engine refuses the same)."""
    lo, hi, unit = info.get("min", 0.0), info.get("max", math.inf), info["unit"]
    fix = f"{info['name']} is {lo:g} to {hi:g} {unit} (default {info['default']:g})"
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InputError(f"{v!r} is not a number", file=file, line=line, field=f"params.{info['name']}", fix=fix)
    if not lo <= v <= hi:  # NaN and infinities fail here too
        raise InputError(f"{v!r} is out of range", file=file, line=line, field=f"params.{info['name']}", fix=fix)
    return float(v)


def _flatten_params(d: dict, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten_params(v, name + "."))
        else:
            out[name] = v
    return out


_SET_SHARE = re.compile(r"^\s*SET\s+SHARE\s+(\S+)\s+(.*)$", re.IGNORECASE)
# SET MULTITHREAD [ALL | TYPE IFL] 1|2 (threads per core; MULTITHREADING accepted as written in seed 000)
_SET_MT = re.compile(r"^\s*SET\s+MULTITHREAD(?:ING)?\s+(?:ALL\s+|TYPE\s+IFL\s+)?([12])\s*$", re.IGNORECASE)


class _Doc:
    """A parsed scenario file: its tables, where each key is written, and the file's name."""

    def __init__(self, text: str, file: str):
        self.file = file
        if len(text) > MAX_SCENARIO_BYTES:
            raise InputError(f"{len(text):,} characters: larger than a scenario can be ({MAX_SCENARIO_BYTES:,})",
                             file=file, fix="a scenario is a small TOML file; use count = N for many alike guests")
        try:
            self.doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise InputError(f"not valid TOML: {e}", file=file,
                             fix="a scenario is a TOML file with [system], [run] and [[guest]] tables") from None
        except RecursionError:
            raise InputError("arrays or tables nested too deeply", file=file,
                             fix=f"a scenario nests at most {MAX_DEPTH} levels") from None
        self.lines = _Lines(text)
        _check_tree(self.doc, file, self.lines)
        _unknown_keys(self.doc, _TOP_KEYS, file=file, lines=self.lines, table="", index=0, where="")

    def ln(self, table: str, key: str | None, index: int = 0) -> int | None:
        return self.lines.find(table, key, index)

    def table(self, name: str) -> dict:
        t = self.doc.get(name, {})
        if not isinstance(t, dict):
            raise InputError(f"{name} must be a table", file=self.file, line=self.lines.find("", name), field=name,
                             fix=f"write it as [{name}]")
        return t

    def unknown_keys(self, d: dict, allowed: dict, table: str) -> None:
        _unknown_keys(d, allowed, file=self.file, lines=self.lines, table=table, index=0, where=table)


def loads(text: str, path: str = "<scenario>") -> Scenario:
    """Validate scenario text; ``path`` is used in messages. One parser per table, in the order
    their rules are checked (the first broken rule is the one reported)."""
    d = _Doc(text, path)
    file, lines, ln = path, d.lines, d.ln
    system, run = d.table("system"), d.table("run")
    d.unknown_keys(system, _SYSTEM_KEYS, "system")
    d.unknown_keys(run, _RUN_KEYS, "run")
    sysv = _system(system, d)
    duration, interval, seed, tx_unit = _run(run, d)
    params = _params(d.table("params"), d)
    guests, seen = _guests(d.doc.get("guest", []), d)
    pools = _cpupools(d.doc, guests, file=file, lines=lines, ln=ln)
    actions = _actions(d.doc.get("action", []), d, sysv["smt"], seen)
    timed = [(a.at_ns, i, a.engine) for i, a in enumerate(actions) if a.engine is not None]
    cpupools.check_sequence(pools, {u: p["name"] for p in pools for u in p["members"]}, timed, set(seen),
                            file=file, ln=ln)
    _check_absolute_sum(guests, actions, file=file, ln=ln)
    actions.sort(key=lambda a: a.at_ns)
    storage = _storage(d.table("storage"), guests, file=file, ln=ln)
    level, smt, machine, drawers = sysv["level"], sysv["smt"], sysv["machine"], sysv["drawers"]
    _check_machine(machine or DEFAULT_MACHINE, sysv["processors"], smt, drawers, params, storage, file=file, ln=ln)
    mdc = _mdc(d.table("mdc"), guests, file=file, ln=ln)
    _check_mdc_fits(storage, mdc, guests, file=file, ln=ln)
    hyperpav = _cu(d.table("cu"), storage, guests, file=file, ln=ln)
    channels = _channels(d.doc.get("chpid", []), d.table("cu"), storage, guests, level, "cpc" in d.doc, file=file,
                         lines=lines)
    pav = _pav(d.table("cu"), guests, level, file=file, ln=ln)
    cpc = _cpc(d.table("cpc"), system, sysv["processors"], level, dict(sysv["switches"]), file=file, lines=lines)
    if cpc is not None and smt != "off":
        raise InputError(f"smt = {smt!r} with a [cpc] is not modelled yet (PR/SM dispatches logical cores, whose "
                         "threads the SMT model does not suspend together)", file=file, line=ln("system", "smt"),
                         field="system.smt", fix='use smt = "off" with [cpc], or leave [cpc] out')
    _check_level_features(level, dict(sysv["switches"]), smt, actions, pools, file=file, ln=ln)
    title = d.doc.get("title", "")
    if not isinstance(title, str):
        raise InputError("must be a string", file=file, line=ln("", "title"), field="title", fix='e.g. title = "A1"')
    return Scenario(path=path, level=level, processors=sysv["processors"], smt=smt, duration_ns=duration,
                    interval_ns=interval, seed=seed, guests=guests, params=params, actions=actions, title=title,
                    switches=dict(sysv["switches"]), storage=storage, machine=machine, drawers=drawers, cpc=cpc,
                    mdc=mdc, hyperpav=hyperpav, dspwdmethod=sysv["dspwd"], tx_unit=tx_unit, channels=channels,
                    pav=pav, cpupools=pools)


def _system(system: dict, d: _Doc) -> dict[str, Any]:
    """[system]: level, processors, SMT, dispatcher method, machine, drawers, switches."""
    file, ln = d.file, d.ln
    level = _check_level(system.get("level", "zvm-6.4"), file=file, line=ln("system", "level"), where="system.level")
    if "processors" not in system:
        raise InputError("missing", file=file, field="system.processors",
                         fix="say how many logical processors the LPAR has, e.g. processors = 2")
    processors = _int(system["processors"], 1, MAX_PROCESSORS, file=file, line=ln("system", "processors"),
                      where="system.processors", what="the number of logical processors")
    smt = system.get("smt", "off")
    if smt not in SMT_MODES:
        raise InputError(f"{smt!r} is not an SMT mode", file=file, line=ln("system", "smt"), field="system.smt",
                         fix=f"accepted: {', '.join(SMT_MODES)}")
    if smt != "off" and processors > MAX_SMT_CORES:
        raise InputError(f"{processors} cores with smt = {smt!r}: z/VM multithreads at most {MAX_SMT_CORES} cores",
                         file=file, line=ln("system", "processors"), field="system.processors",
                         fix=f"use processors <= {MAX_SMT_CORES} with SMT, or smt = \"off\" (up to {MAX_PROCESSORS} cores)")
    dspwd = _choice(system.get("dspwdmethod", "reshuffle"), DSPWDMETHODS, file=file,
                    line=ln("system", "dspwdmethod"), where="system.dspwdmethod")
    if dspwd == "rebalance" and smt != "off":
        raise InputError(f"dspwdmethod = \"rebalance\" with smt = {smt!r}: multithreading requires SET SRM "
                         "DSPWDMETHOD RESHUFFLE", file=file, line=ln("system", "dspwdmethod"),
                         field="system.dspwdmethod", fix='use dspwdmethod = "reshuffle" (the default) or smt = "off"')
    machine = system.get("machine")
    if machine is not None and machine not in MACHINES:
        raise InputError(f"{machine!r} is not a modelled machine", file=file, line=ln("system", "machine"),
                         field="system.machine", fix=f"accepted: {', '.join(MACHINES)}")
    drawers = system.get("drawers")
    if drawers is not None:
        drawers = _int(drawers, 1, min(MAX_DRAWERS, processors), file=file, line=ln("system", "drawers"),
                       where="system.drawers", what="the number of drawers the LPAR spans")
    return {"level": level, "processors": processors, "smt": smt, "dspwd": dspwd, "machine": machine,
            "drawers": drawers, "switches": _switches(system.get("switches", {}), level, d)}


def _check_level_features(level: str, switches: dict, smt: str, actions: list, pools: list, *, file, ln) -> None:
    """What the level does not have is refused (the engine's switches multithreading and
    cpu_pools; the engine refuses the same)."""
    from . import engine

    sw = engine.switches(level, switches)
    if (smt != "off" or any(a.threads is not None for a in actions)) and sw.get("multithreading") == "unsupported":
        raise InputError(f"level {level} has no multithreading (SET MULTITHREAD came with z/VM 6.3 on the z13)",
                         file=file, line=ln("system", "smt"), field="system.smt",
                         fix='use smt = "off", or a level from zvm-6.3 on')
    defined = any((a.engine or {}).get("kind") == "define-cpupool" for a in actions)
    if (pools or defined) and sw.get("cpu_pools") == "unsupported":
        raise InputError(f"level {level} has no CPU pools (DEFINE CPUPOOL came with z/VM 6.3, VM65418)",
                         file=file, line=ln("system", "level"), field="cpupool",
                         fix="use a level from zvm-6.3 on, or leave the CPU pools out")


def _switches(switches: Any, level: str, d: _Doc) -> dict[str, str]:
    """[system] switches: mechanism switches by name on top of the level's."""
    if not isinstance(switches, dict) or not all(isinstance(v, str) for v in switches.values()):
        raise InputError("must be a table of names and string values", file=d.file, line=d.ln("system", "switches"),
                         field="system.switches", fix='e.g. switches = { sched = "entitlement-excess" }')
    if switches:
        from . import engine

        try:
            engine.switches(level, switches)
        except InputError as e:
            raise InputError(e.message, file=d.file, line=d.ln("system", "switches"), field="system.switches",
                             fix="`zvmlab levels` shows the switches and their values") from None
    return switches


def _run(run: dict, d: _Doc) -> tuple[int, int, int, float]:
    """[run]: duration, interval (at most the duration), seed, tx_unit."""
    file, ln = d.file, d.ln
    if "duration" not in run:
        raise InputError("missing", file=file, field="run.duration", fix='say how long to run, e.g. duration = "10m"')
    duration = parse_duration(run["duration"], where="run.duration", file=file, line=ln("run", "duration"))
    interval = parse_duration(run.get("interval", "60s"), where="run.interval", file=file, line=ln("run", "interval"))
    interval = min(interval, duration)
    seed = _int(run.get("seed", 1), 0, MAX_SEED, file=file, line=ln("run", "seed"), where="run.seed",
                what="the seed")
    tx_unit = _tx_unit(run.get("tx_unit", 1.0), file=file, line=ln("run", "tx_unit"))
    return duration, interval, seed, tx_unit


def _params(table: dict, d: _Doc) -> dict[str, float]:
    """[params]: model parameters by name (nested tables join their names with dots)."""
    params_in = _flatten_params(table)
    params: dict[str, float] = {}
    if not params_in:
        return params
    from . import engine

    known = {p["name"]: p for p in engine.params()}
    lines = d.lines
    for k, v in params_in.items():
        head, _, last = k.rpartition(".")
        line = (lines.find_key("params", k) or lines.find_key(f"params.{head}", last)
                or lines.find_key("params", last) or d.ln("params", None))
        if k not in known:
            close = difflib.get_close_matches(k, list(known), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise InputError(f"unknown parameter {k!r}", file=d.file, line=line, field=f"params.{k}",
                             fix=f"{hint}`zvmlab params` lists them")
        params[k] = _param_value(v, known[k], file=d.file, line=line)
    return params


def _guests(raw_guests: Any, d: _Doc) -> tuple[list[Guest], dict[str, int]]:
    """[[guest]] tables, then the rules between guests; returns them and userid -> table index."""
    if not isinstance(raw_guests, list) or not raw_guests:
        raise InputError("no guests", file=d.file, field="guest",
                         fix='add at least one [[guest]] with userid, share and workload')
    guests = [_guest(g, i, d) for i, g in enumerate(raw_guests)]
    seen: dict[str, int] = {}
    for i, g in enumerate(guests):
        for u in g.userids():
            if u in seen:
                raise InputError(f"userid {u} is defined twice (guest[{seen[u]}] and guest[{i}])", file=d.file,
                                 line=d.ln("guest", "userid", i), field=f"guest[{i}].userid",
                                 fix="userids must be unique")
            seen[u] = i
    _check_guest_links(guests, d)
    return guests, seen


def _guest(g: Any, i: int, d: _Doc) -> Guest:
    """One [[guest]] table."""
    file, ln, where = d.file, d.ln, f"guest[{i}]"
    if not isinstance(g, dict):
        raise InputError("must be a table", file=file, field=where, fix="write guests as [[guest]] tables")
    _unknown_keys(g, _GUEST_KEYS, file=file, lines=d.lines, table="guest", index=i, where=where)
    if "userid" not in g:
        raise InputError("missing userid", file=file, line=ln("guest", None, i), field=f"{where}.userid",
                         fix='give each guest a z/VM userid, e.g. userid = "USER0"')
    count = _int(g.get("count", 1), 1, MAX_COUNT, file=file, line=ln("guest", "count", i), where=f"{where}.count",
                 what="count")
    uline = ln("guest", "userid", i)
    userid = check_userid(g["userid"], file=file, line=uline, field=f"{where}.userid")
    if count > 1 and len(userid) + len(str(count - 1)) > MAX_NAME:
        raise InputError(f"with count = {count} the userids {userid}0..{userid}{count - 1} exceed {MAX_NAME} "
                         "characters", file=file, line=uline, field=f"{where}.userid",
                         fix="shorten the userid prefix")
    vcpus = _int(g.get("vcpus", 1), 1, MAX_VCPUS, file=file, line=ln("guest", "vcpus", i),
                 where=f"{where}.vcpus", what="vcpus")
    share = parse_share(g.get("share", "RELATIVE 100"), where=f"{where}.share", file=file,
                        line=ln("guest", "share", i))
    workload = _workload(g.get("workload"), file=file, line=ln("guest", "workload", i), where=f"{where}.workload")
    quickdsp = g.get("quickdsp", False)
    if not isinstance(quickdsp, bool):
        raise InputError(f"{quickdsp!r} is not true or false", file=file, line=ln("guest", "quickdsp", i),
                         field=f"{where}.quickdsp", fix="write quickdsp = true or quickdsp = false")
    spages, refs = _guest_storage(g, file=file, line=lambda k: ln("guest", k, i), where=where)
    pool = None
    if "pool" in g:
        pool = cpupools.pool_name(g["pool"], file=file, line=ln("guest", "pool", i), field=f"{where}.pool")
    return Guest(userid, share, workload, vcpus, count, quickdsp, spages, refs, pool)


def _check_guest_links(guests: list[Guest], d: _Doc) -> None:
    """Rules between guests: page touches, one device type per volume, [[volume]] extents,
    server chains, clients' servers."""
    file, ln = d.file, d.ln
    for i, g in enumerate(guests):
        if g.refs and g.refs.get("touches", 1) > 1 and g.workload.kind not in SERVER_KINDS:
            raise InputError("touches > 1 needs a server workload", file=file, line=ln("guest", "refs", i),
                             field=f"guest[{i}].refs.touches",
                             fix="a server request is run in that many pieces, a page referenced before each; "
                                 "other workloads reference one page per transaction")
    vol_types: dict[str, tuple[str, int]] = {}
    for i, g in enumerate(guests):
        if g.workload.dasd:
            v, t = g.workload.dasd["volume"], g.workload.dasd.get("type", "eckd")
            if vol_types.setdefault(v, (t, i))[0] != t:
                raise InputError(f"volume {v} is {vol_types[v][0]} in guest[{vol_types[v][1]}] and {t} here", file=file,
                                 line=ln("guest", "workload", i), field=f"guest[{i}].workload.type",
                                 fix="a volume has one device type; name another volume")
    _dasd_volumes(d.doc.get("volume", []), guests, vol_types, file=file, ln=ln)
    server_groups = {g.userid for g in guests if g.workload.kind in SERVER_KINDS}
    _check_forward(guests, server_groups, file=file, ln=ln)
    for i, g in enumerate(guests):
        if g.workload.kind == "client" and g.workload.servers is not None:
            g.workload.servers = g.workload.servers.upper()
            if g.workload.servers not in server_groups:
                raise InputError(f"servers = {g.workload.servers!r} names no guest with a server workload", file=file,
                                 line=ln("guest", "workload", i), field=f"guest[{i}].workload.servers",
                                 fix=("server guests here: " + ", ".join(sorted(server_groups))) if server_groups
                                 else 'add a [[guest]] with workload = { kind = "server", cpu = "..." }')


def _actions(raw_actions: Any, d: _Doc, smt: str, seen: dict[str, int]) -> list[Action]:
    """[[action]] tables: timed CP commands (SET SHARE, SET MULTITHREAD, the CPU pool commands)."""
    file, ln = d.file, d.ln
    actions: list[Action] = []
    for i, where, a in table_array(raw_actions, field="action", file=file, fix="write [[action]] tables",
                                   item_fix="write actions as [[action]] tables"):
        _unknown_keys(a, _ACTION_KEYS, file=file, lines=d.lines, table="action", index=i, where=where)
        for k in _ACTION_KEYS:
            if k not in a:
                raise InputError(f"missing {k}", file=file, line=ln("action", None, i), field=f"{where}.{k}",
                                 fix='e.g. at = "5m", command = "SET SHARE USER1 RELATIVE 200"')
        at = parse_duration(a["at"], where=f"{where}.at", file=file, line=ln("action", "at", i), allow_zero=True)
        actions.append(_command(a["command"], at, where, ln("action", "command", i), d, smt, seen))
    return actions


def _command(cmd: Any, at: int, where: str, cline: int | None, d: _Doc, smt: str, seen: dict[str, int]) -> Action:
    """One timed CP command."""
    file = d.file
    pc = cpupools.command(cmd, file=file, line=cline, field=f"{where}.command") if isinstance(cmd, str) else None
    if pc is not None:
        return Action(at, pc.get("userid", ""), None, cmd, engine=pc)
    mt = _SET_MT.match(cmd) if isinstance(cmd, str) else None
    if mt:
        if smt == "off":
            raise InputError("SET MULTITHREAD needs an SMT mode", file=file, line=cline, field=f"{where}.command",
                             fix='set system.smt = "smt1" or "smt2" (non-SMT to SMT needs a re-IPL)')
        return Action(at, "", None, cmd, int(mt.group(1)))
    m = _SET_SHARE.match(cmd) if isinstance(cmd, str) else None
    if not m:
        raise InputError(f"unsupported command {cmd!r}", file=file, line=cline, field=f"{where}.command",
                         fix='supported: "SET SHARE userid <share operands>", "SET MULTITHREAD 1|2"; '
                             + cpupools.COMMANDS_FIX)
    uid = m.group(1).upper()
    if uid not in seen:
        raise InputError(f"SET SHARE names unknown userid {uid}", file=file, line=cline, field=f"{where}.command",
                         fix=f"known userids: {', '.join(list(seen)[:12])}")
    share = parse_share(m.group(2), where=f"{where}.command", file=file, line=cline)
    return Action(at, uid, share, cmd)


def _cpupools(doc: dict, guests: list[Guest], *, file, lines, ln) -> list[dict]:
    """[[cpupool]] tables and the guests scheduled to them (guest ``pool``)."""
    def unknown(t, allowed, *, table, index, where):
        _unknown_keys(t, allowed, file=file, lines=lines, table=table, index=index, where=where)

    pools = cpupools.tables(doc.get("cpupool", []), file=file, ln=ln, unknown_keys=unknown)
    by_name = {p["name"]: p for p in pools}
    for i, g in enumerate(guests):
        if g.pool is None:
            continue
        if g.pool not in by_name:
            raise InputError(f"pool = {g.pool!r} names no CPU pool", file=file, line=ln("guest", "pool", i),
                             field=f"guest[{i}].pool",
                             fix=("pools defined: " + ", ".join(by_name)) if by_name
                             else 'define it: [[cpupool]] name = "%s", limithard = "25%%"' % g.pool)
        by_name[g.pool]["members"].extend(g.userids())
    return pools


def _tx_unit(v: Any, *, file, line) -> float:
    """[run] tx_unit: completed requests (client replies) per reported transaction, > 0."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 < v <= MAX_TX_UNIT) or v != v:
        raise InputError(f"tx_unit {v!r} is out of range", file=file, line=line, field="run.tx_unit",
                         fix="completed requests per reported transaction: a number above 0, e.g. tx_unit = 14.4")
    return float(v)


def _check_absolute_sum(guests: list["Guest"], actions: list["Action"], *, file: str | None, ln) -> None:
    """ABSOLUTE minimum shares over the contract's ``absolute_share_sum`` (100 % of the system)
    cannot all be met: CP would scale them down and nobody would get the share the scenario asks
    for. Checked for the shares at the start and after each timed SET SHARE, in time order (the
    engine's Config::check refuses the same)."""
    current = {u: g.share for g in guests for u in g.userids()}
    where_of = {u: i for i, g in enumerate(guests) for u in g.userids()}
    most = MAX_ABS_SUM + contract.word("sum_slack")

    def total() -> float:
        return sum(sh.min.value for sh in current.values() if sh.min.kind == "absolute")

    def fail(field: str, line, when: str) -> None:
        holders = sorted((u for u, sh in current.items() if sh.min.kind == "absolute"),
                         key=lambda u: -current[u].min.value)
        names = ", ".join(f"{u} {current[u].min.value:g}%" for u in holders[:6])
        shown = f"{total():g}" if float(f"{total():g}") > MAX_ABS_SUM else repr(total())  # never "100 % > 100 %"
        raise InputError(f"ABSOLUTE shares sum to {shown} % of the system{when}, more than {MAX_ABS_SUM:g} % "
                         f"({names}{', ...' if len(holders) > 6 else ''})", file=file, line=line, field=field,
                         fix=f"lower them so they sum to at most {MAX_ABS_SUM:g} %; the rest of the system goes to "
                             "RELATIVE users")

    if total() > most:
        i = where_of[max((u for u, sh in current.items() if sh.min.kind == "absolute"),
                         key=lambda u: current[u].min.value)]
        fail(f"guest[{i}].share", ln("guest", "share", i), "")
    # In time order (a stable sort, as the run takes them); named by their place in the file.
    for k, a in sorted(enumerate(actions), key=lambda ka: ka[1].at_ns):
        if a.share is None:
            continue
        current[a.userid] = a.share
        if total() > most:
            fail(f"action[{k}].command", ln("action", "command", k), f" after {a.command!r}")


def machine_figures(machine: str, params: dict[str, float] | None = None) -> dict[str, float]:
    """A machine's rows of the parameter table (``cpu.<machine>.*``, ``cache.<machine>.*``, with
    the scenario's overrides), keyed by the part after the machine's name."""
    from . import engine

    table = {p["name"]: p["default"] for p in engine.params()} | dict(params or {})
    out = {}
    for kind in ("cpu", "cache"):
        prefix = f"{kind}.{machine}."
        out |= {k[len(prefix):]: v for k, v in table.items() if k.startswith(prefix)}
    return out


def _cores_per_drawer(machine: str, params: dict[str, float]) -> int:
    """Cores per drawer of a machine from the parameter table (with the scenario's overrides)."""
    f = machine_figures(machine, params)
    return max(1, round(f["cores_per_chip"])) * max(1, round(f["chips_per_drawer"]))


def _check_machine(machine: str, processors: int, smt: str, drawers: int | None, params: dict[str, float],
                   storage: dict | None, *, file: str | None, ln: Any) -> None:
    """What the machine allows (as the engine's machine.rs): SMT, z/VM's largest LPAR, its drawers,
    encrypted paging (z14 and later)."""
    f = machine_figures(machine, params)
    if smt != "off" and f["smt"] < 0.5:
        raise InputError(f"smt = {smt!r} on a {machine}: the {machine} has no SMT (multithreading came with the z13)",
                         file=file, line=ln("system", "smt"), field="system.smt",
                         fix='use smt = "off", or machine = "z13" or later')
    largest = max(1, round(f["max_lpar_cores"]))
    if processors > largest:
        raise InputError(f"{processors} cores on a {machine}: z/VM runs at most {largest} logical processors in an "
                         f"LPAR of a {machine}", file=file, line=ln("system", "processors"), field="system.processors",
                         fix=f"use processors <= {largest}, or a later machine")
    per, most = _cores_per_drawer(machine, params), max(1, round(f["drawers"]))
    need = -(-processors // per)
    if need > most:
        raise InputError(f"{processors} cores: a {machine} has at most {most} drawers of {per} cores", file=file,
                         line=ln("system", "processors"), field="system.processors",
                         fix=f"use processors <= {most * per}")
    if drawers is not None and drawers < need:
        raise InputError(f"{processors} cores of a {machine} ({per} cores per drawer) need at least {need} drawers",
                         file=file, line=ln("system", "drawers"), field="system.drawers",
                         fix=f"use drawers = {need}..{min(most, processors)}, or leave it out")
    if drawers is not None and drawers > most:
        raise InputError(f"a {machine} has at most {most} drawers, not {drawers}", file=file,
                         line=ln("system", "drawers"), field="system.drawers",
                         fix=f"use drawers = {need}..{min(most, processors)}, or leave it out")
    if storage and storage.get("encrypt") and MACHINES.index(machine) < MACHINES.index(
            contract.word("first_encrypt_machine")):
        raise InputError(f"encrypted paging on a {machine}", file=file, line=ln("storage", "encrypt_paging"),
                         field="storage.encrypt_paging",
                         fix="z/VM encrypts pages with the z14's CPACF (VM65993): use machine = \"z14\" or later, or "
                             "leave encrypt_paging out")


def parse_size(text: Any, *, where: str, file: str | None, line: int | None, hi: int = MAX_SIZE,
               why: str = "") -> int:
    """A storage size ("512M", "2G", "4K"; binary units) in 4 KB pages, at most ``hi`` bytes."""
    m = _SIZE.match(text) if isinstance(text, str) else None
    if not m:
        raise InputError(f"{text!r} is not a storage size", file=file, line=line, field=where,
                         fix='write a number with K, M, G or T (binary units), e.g. "512M"')
    mult = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2).upper()]
    size = float(m.group(1)) * mult
    if size > hi:
        raise InputError(f"{text!r} is above {hi >> 40}T", file=file, line=line, field=where,
                         fix=f"give at most {hi >> 40}T{f' ({why})' if why else ''}")
    pages = int(size) // PAGE
    if pages <= 0:
        raise InputError(f"{text!r} is less than one 4 KB page", file=file, line=line, field=where,
                         fix='sizes are at least "4K"')
    return pages


def _guest_storage(g: dict, *, file, line, where) -> tuple[int | None, dict | None]:
    """A guest's storage size (pages) and its page-reference pattern (refs), each None when absent."""
    spages = None
    if "storage" in g:
        spages = parse_size(g["storage"], where=f"{where}.storage", file=file, line=line("storage"),
                            hi=MAX_GUEST_PAGES * PAGE, why="the supported virtual machine size")
    if "refs" not in g:
        return spages, None
    return spages, _refs(g, spages, file=file, rl=line("refs"), rw=f"{where}.refs")


def _refs(g: dict, spages: int | None, *, file, rl, rw: str) -> dict:
    """refs = { pattern, range, touches, stride | hot, hot_fraction }: within the guest's storage."""
    r = g["refs"]
    if not isinstance(r, dict) or not isinstance(r.get("pattern"), str) or r["pattern"] not in _REFS_KEYS:
        raise InputError(f"{r!r} is not a page-reference pattern", file=file, line=rl, field=rw,
                         fix='e.g. refs = { pattern = "uniform", range = "480M" }; patterns: uniform, strided')
    extra = set(r) - _REFS_KEYS[r["pattern"]]
    if extra:
        raise InputError(f"unknown key {sorted(extra)[0]!r} for {r['pattern']} references", file=file, line=rl,
                         field=rw, fix=f"accepted: {', '.join(sorted(_REFS_KEYS[r['pattern']]))}")
    if spages is None:
        raise InputError("page references need the guest's storage size", file=file, line=rl, field=rw,
                         fix='add storage = "512M" to the guest')
    if "range" not in r:
        raise InputError("missing range", file=file, line=rl, field=f"{rw}.range", fix='e.g. range = "480M"')
    rng = parse_size(r["range"], where=f"{rw}.range", file=file, line=rl)
    if rng > spages:
        raise InputError(f"range {r['range']!r} is outside the guest's storage {g['storage']!r}", file=file,
                         line=rl, field=f"{rw}.range", fix="references must stay within the guest's storage")
    out: dict[str, Any] = {"pattern": r["pattern"], "range_pages": rng}
    if "touches" in r:
        out["touches"] = _int(r["touches"], *contract.limit("touches"), file=file, line=rl, where=f"{rw}.touches",
                              what="page references per request")
    if r["pattern"] == "strided":
        if "stride" not in r:
            raise InputError("missing stride", file=file, line=rl, field=f"{rw}.stride", fix='e.g. stride = "4K"')
        out["stride_pages"] = parse_size(r["stride"], where=f"{rw}.stride", file=file, line=rl)
    if r["pattern"] == "hotset":
        out.update(_hotset(r, rng, file=file, rl=rl, rw=rw))
    return out


def _hotset(r: dict, rng: int, *, file, rl, rw: str) -> dict:
    """A hot-set pattern's hot pages (the first part of the range) and the share of references to them."""
    for k in ("hot", "hot_fraction"):
        if k not in r:
            raise InputError(f"missing {k}", file=file, line=rl, field=f"{rw}.{k}",
                             fix='e.g. refs = { pattern = "hotset", range = "4G", hot = "512M", hot_fraction = 0.9 }')
    hot = parse_size(r["hot"], where=f"{rw}.hot", file=file, line=rl)
    hf = r["hot_fraction"]
    if isinstance(hf, bool) or not isinstance(hf, (int, float)) or not 0 <= hf <= 1:
        raise InputError(f"{hf!r} is not a fraction in [0, 1]", file=file, line=rl, field=f"{rw}.hot_fraction",
                         fix="e.g. hot_fraction = 0.9")
    if hot >= rng:
        raise InputError(f"hot set {r['hot']!r} is not smaller than the range {r['range']!r}", file=file,
                         line=rl, field=f"{rw}.hot", fix="the hot set is the first part of the range")
    return {"hot_pages": hot, "hot_fraction": float(hf)}


def _storage(st: dict, guests: list[Guest], *, file, ln) -> dict | None:
    """[storage]: real storage and paging (volumes, zHPF, encryption); None without the table."""
    with_refs = [g for g in guests if g.refs is not None]
    if not st:
        if with_refs:
            raise InputError("guests with page references need real storage", file=file, field="storage",
                             fix='add [storage] with real = "180M" and paging_volumes')
        return None
    frames = _real_frames(st, file=file, ln=ln)
    _check_referenced_total(guests, with_refs, file=file, ln=ln)
    prefill = st.get("prefill", False)
    if not isinstance(prefill, bool):
        raise InputError(f"{prefill!r} is not true or false", file=file, line=ln("storage", "prefill"),
                         field="storage.prefill", fix="write prefill = true or prefill = false")
    vols = _paging_volumes(st.get("paging_volumes", []), file=file, vline=ln("storage", "paging_volumes"))
    need = _referenced_pages(guests)
    if need > frames and not vols:
        raise InputError(f"storage-constrained ({need} pages referenced, {frames} frames) with no paging volumes",
                         file=file, line=ln("storage", None), field="storage.paging_volumes",
                         fix='add paging_volumes = [{ type = "eckd", size = "2G" }] or more real storage')
    hpf = _paging_hpf(st, vols, file=file, ln=ln)
    out = {"frames": frames, "prefill": prefill, "paging_volumes": vols}
    if hpf:
        out["hpf"] = True
    if "encrypt_paging" in st:
        out["encrypt"] = _paging_cipher(st["encrypt_paging"], file=file, ln=ln)
    return out


def _real_frames(st: dict, *, file, ln) -> int:
    """The [storage] table's keys checked, and its real storage in frames."""
    for k in st:
        if k not in _STORAGE_KEYS:
            close = difflib.get_close_matches(k, list(_STORAGE_KEYS), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise InputError(f"unknown key {k!r}", file=file, line=ln("storage", k), field=f"storage.{k}",
                             fix=f"{hint}accepted: {', '.join(_STORAGE_KEYS)}")
    if "real" not in st:
        raise InputError("missing", file=file, line=ln("storage", None), field="storage.real",
                         fix='say how much real storage guest pages may use, e.g. real = "180M"')
    return parse_size(st["real"], where="storage.real", file=file, line=ln("storage", "real"), hi=MAX_REAL,
                      why="z/VM 7.3 supports up to 4 TB of real storage")


def _check_referenced_total(guests: list[Guest], with_refs: list[Guest], *, file, ln) -> None:
    """The guests with page references (``with_refs``) stay within what the storage model handles."""
    total = sum(g.storage_pages * g.count for g in with_refs)
    if total > MAX_REF_PAGES:
        i = max(range(len(guests)), key=lambda i: (guests[i].storage_pages or 0) * guests[i].count
                if guests[i].refs is not None else 0)
        raise InputError(f"guests with page references total {total * PAGE >> 30:,} GB", file=file,
                         line=ln("guest", "storage", i), field=f"guest[{i}].storage",
                         fix="the storage model handles up to 16 TB of referenced guest storage in all")


def _paging_volumes(vols_in: Any, *, file, vline) -> list[dict]:
    """storage.paging_volumes (written on line ``vline``), as the engine's volume groups."""
    if not isinstance(vols_in, list):
        raise InputError("must be an array of tables", file=file, line=vline, field="storage.paging_volumes",
                         fix='e.g. paging_volumes = [{ type = "eckd", size = "2G", count = 2 }]')
    return [_paging_volume(v, j, file=file, vline=vline) for j, v in enumerate(vols_in)]


def _paging_volume(v: Any, j: int, *, file, vline) -> dict:
    """One group of alike paging volumes, storage.paging_volumes[j]."""
    w = f"storage.paging_volumes[{j}]"
    if not isinstance(v, dict) or set(v) - _VOLUME_KEYS or "type" not in v or "size" not in v:
        raise InputError(f"{v!r} is not a paging volume", file=file, line=vline, field=w,
                         fix='{ type = "eckd" | "edev", size = "2G", count = 1 }')
    if v["type"] not in PAGING_VOLUME_TYPES:
        raise InputError(f"device type {v['type']!r} is not modelled", file=file, line=vline, field=f"{w}.type",
                         fix='use "eckd" (3390) or "edev" (emulated FBA on SCSI)')
    count = _int(v.get("count", 1), *contract.limit("volume_count"), file=file, line=vline, where=f"{w}.count", what="count")
    xiv = v.get("xiv", False)
    if not isinstance(xiv, bool) or (xiv and v["type"] != "edev"):
        raise InputError(f"xiv = {xiv!r} is not valid here", file=file, line=vline, field=f"{w}.xiv",
                         fix='xiv = true marks an EDEV on an IBM XIV (type = "edev"); leave it out otherwise')
    vol = {"type": v["type"], "slots": parse_size(v["size"], where=f"{w}.size", file=file, line=vline),
           "count": count}
    if xiv:
        vol["xiv"] = True
    return vol


def _paging_hpf(st: dict, vols: list[dict], *, file, ln) -> bool:
    """storage.paging_hpf (SET PAGING HPF ON), which needs ECKD paging volumes."""
    hpf = st.get("paging_hpf", False)
    if not isinstance(hpf, bool):
        raise InputError(f"{hpf!r} is not true or false", file=file, line=ln("storage", "paging_hpf"),
                         field="storage.paging_hpf", fix="paging_hpf = true is SET PAGING HPF ON (default false)")
    if hpf and not any(v["type"] == "eckd" for v in vols):
        raise InputError("SET PAGING HPF ON without ECKD paging volumes", file=file,
                         line=ln("storage", "paging_hpf"), field="storage.paging_hpf",
                         fix='zHPF is FICON (3390) I/O: add eckd paging volumes, or leave paging_hpf out')
    return hpf


def _paging_cipher(c: Any, *, file, ln) -> str:
    """storage.encrypt_paging: the SET ENCRYPT PAGING algorithm."""
    if c not in PAGING_CIPHERS:
        raise InputError(f"{c!r} is not a paging cipher", file=file, line=ln("storage", "encrypt_paging"),
                         field="storage.encrypt_paging",
                         fix="SET ENCRYPT PAGING ON ALGORITHM: aes128, aes192 or aes256; leave it out for off")
    return c


def _cu(t: dict, storage: dict | None, guests: list[Guest], *, file, ln) -> dict | None:
    """[cu]: the ECKD volumes' control unit with HyperPAV aliases (SET PAGING ALIAS, SET CU SHARE)."""
    if not t:
        return None
    for k in t:
        if k not in _CU_KEYS:
            close = difflib.get_close_matches(k, list(_CU_KEYS), n=1)
            raise InputError(f"unknown key {k!r}", file=file, line=ln("cu", k), field=f"cu.{k}",
                             fix=(f"did you mean {close[0]!r}? " if close else "") + "accepted: " + ", ".join(_CU_KEYS))
    if "aliases" not in t and "paths" in t:
        return None  # a control unit with channel paths and no HyperPAV aliases (_channels)
    if t.get("pav", "hyper") != "hyper":
        return None  # static or dynamic PAV (_pav)
    if "aliases" not in t:
        raise InputError("missing", file=file, line=ln("cu", None), field="cu.aliases",
                         fix="how many HyperPAV alias exposures the control unit has, e.g. aliases = 15")
    aliases = _int(t["aliases"], *ALIASES, file=file, line=ln("cu", "aliases"), where="cu.aliases", what="aliases")
    pa = t.get("paging_alias", False)
    if not isinstance(pa, bool):
        raise InputError(f"{pa!r} is not true or false", file=file, line=ln("cu", "paging_alias"),
                         field="cu.paging_alias", fix="paging_alias = true is SET PAGING ALIAS ON (default false)")
    share = t.get("share", {"paging": 100, "minidisk": 100})
    if not isinstance(share, dict) or set(share) - {"paging", "minidisk"}:
        raise InputError(f"{share!r} is not a share table", file=file, line=ln("cu", "share"), field="cu.share",
                         fix="share = { paging = 100, minidisk = 200 }")
    shares = {}
    for k in ("paging", "minidisk"):
        v = share.get(k, 100)
        lo, hi = contract.limit("cu_share")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (lo <= v <= hi):
            raise InputError(f"share {k} = {v!r} is out of range", file=file, line=ln("cu", "share"),
                             field=f"cu.share.{k}", fix=f"a relative share {lo:g}-{hi:g} (SET CU ... SHARE)")
        shares[k] = float(v)
    eckd_paging = bool(storage) and any(v["type"] == "eckd" for v in storage.get("paging_volumes", []))
    eckd_mdisk = any(g.workload.dasd and g.workload.kind in ("dasd-io", "format") and
                     g.workload.dasd.get("type") == "eckd" for g in guests)
    if not (eckd_paging or eckd_mdisk):
        raise InputError("HyperPAV aliases without ECKD volumes", file=file, line=ln("cu", None), field="cu.aliases",
                         fix="aliases serve 3390 (eckd) paging volumes and minidisks: add some, or leave [cu] out")
    if pa and not eckd_paging:
        raise InputError("SET PAGING ALIAS ON without ECKD paging volumes", file=file, line=ln("cu", "paging_alias"),
                         field="cu.paging_alias", fix='add eckd paging volumes in [storage], or leave paging_alias out')
    return {"aliases": aliases, "paging_alias": pa, "share_paging": shares["paging"],
            "share_minidisk": shares["minidisk"]}


def _eckd_volumes(storage: dict | None, guests: list[Guest]) -> bool:
    """Whether the scenario has ECKD paging volumes or ECKD minidisk volumes."""
    if storage and any(v["type"] == "eckd" for v in storage.get("paging_volumes", [])):
        return True
    return any(g.workload.dasd and g.workload.kind in ("dasd-io", "format", "dump") and
               g.workload.dasd.get("type", "eckd") == "eckd" for g in guests)


def _chpids(raw: Any, level: str, has_cpc: bool, *, file, lines) -> list[dict]:
    """[[chpid]] tables: id (two hex digits) and a type the level knows."""
    from . import engine

    order = [lv["name"] for lv in engine.levels()]
    out: list[dict] = []
    for i, where, c in table_array(raw, field="chpid", file=file, line=lines.find("", "chpid"),
                                   message="chpid must be an array of tables",
                                   fix='write channel paths as [[chpid]] tables: id = "40", type = "ficon"',
                                   item_fix="write channel paths as [[chpid]] tables"):
        _unknown_keys(c, _CHPID_KEYS, file=file, lines=lines, table="chpid", index=i, where=where)
        cid = _chpid_id(c, out, file=file, line=lines.find("chpid", "id", i), where=where)
        ctype = _chpid_type(c, level, order, file=file, line=lines.find("chpid", "type", i), where=where)
        entry: dict = {"id": cid, "type": ctype}
        if "partner_io_rate" in c:
            rate = _partner_rate(c["partner_io_rate"], has_cpc, file=file,
                                 line=lines.find("chpid", "partner_io_rate", i), where=where)
            if rate:
                entry["partner_io_rate"] = rate
        out.append(entry)
    return out


def _chpid_id(c: dict, out: list[dict], *, file, line, where) -> str:
    """A CHPID: two hex digits, not defined before."""
    cid = c.get("id")
    if not isinstance(cid, str) or not _CHPID_RE.fullmatch(cid.upper()):
        raise InputError(f"id {cid!r} is not a CHPID", file=file, line=line,
                         field=f"{where}.id", fix='a CHPID is two hex digits, e.g. id = "40"')
    cid = cid.upper()
    if any(o["id"] == cid for o in out):
        raise InputError(f"CHPID {cid} is defined twice", file=file, line=line,
                         field=f"{where}.id", fix="give each [[chpid]] its own id")
    return cid


def _chpid_type(c: dict, level: str, order: list[str], *, file, line, where) -> str:
    """A channel type the contract knows and the level has (FICON from its first level)."""
    ctype = c.get("type")
    if not isinstance(ctype, str) or ctype not in _CHPID_TYPES:
        close = difflib.get_close_matches(str(ctype), list(_CHPID_TYPES), n=1)
        raise InputError(f"unknown channel type {ctype!r}", file=file, line=line,
                         field=f"{where}.type", fix=(f"did you mean {close[0]!r}? " if close else "")
                         + "known: " + ", ".join(_CHPID_TYPES))
    first = _CHPID_TYPES[ctype]
    if order.index(level) < order.index(first):
        raise InputError(f"level {level} does not know {ctype} channels", file=file, line=line,
                         field=f"{where}.type",
                         fix=f"{ctype} channels need level {first} or later; use type = \"escon\" or a later level")
    return ctype


def _partner_rate(rate: Any, has_cpc: bool, *, file, line, where) -> float:
    """I/Os per second other LPARs start on a shared path (only with a [cpc])."""
    lo, hi = contract.limit("partner_io_rate")
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not lo <= rate <= hi:
        raise InputError(f"partner_io_rate {rate!r} is out of range", file=file, line=line,
                         field=f"{where}.partner_io_rate", fix=f"I/Os per second, {lo:g} to {hi:.0f}")
    if rate and not has_cpc:
        raise InputError("a shared channel path without a [cpc]", file=file, line=line,
                         field=f"{where}.partner_io_rate",
                         fix="other LPARs share channels on a CPC: add [cpc] tables, or leave it out")
    return float(rate)


def _channels(raw: Any, cu: dict, storage: dict | None, guests: list[Guest], level: str, has_cpc: bool, *,
              file, lines) -> dict | None:
    """[[chpid]] and [cu] paths: the channel paths of the ECKD volumes' control unit."""
    ln = lambda t, k, i=0: lines.find(t, k, i)  # noqa: E731
    if not raw and "paths" not in cu:
        if "class" in cu:
            raise InputError("a control unit class without channel paths", file=file, line=ln("cu", "class"),
                             field="cu.class", fix='add paths = ["40", ...] and [[chpid]] tables, or leave class out')
        return None
    chpids = _chpids(raw, level, has_cpc, file=file, lines=lines)
    paths = cu.get("paths")
    if paths is None:
        raise InputError("channel paths defined but the control unit has none", file=file, line=ln("cu", None),
                         field="cu.paths", fix='say which [[chpid]] paths reach it: [cu] paths = ["40", "41"]')
    if not isinstance(paths, list) or not paths or len(paths) > MAX_CU_PATHS:
        raise InputError("a control unit with no path" if paths == [] else f"{paths!r} is not 1-8 CHPID ids",
                         file=file, line=ln("cu", "paths"), field="cu.paths",
                         fix='a control unit has 1 to 8 channel paths: paths = ["40", "41"]')
    ids = [str(p).upper() for p in paths]
    known = {c["id"]: str(c["type"]) for c in chpids}
    for p in ids:
        if p not in known:
            raise InputError(f"path {p} is no [[chpid]]", file=file, line=ln("cu", "paths"), field="cu.paths",
                             fix="defined CHPIDs: " + (", ".join(known) or "none; add [[chpid]] tables"))
    if len(set(ids)) != len(ids):
        raise InputError("a path is listed twice", file=file, line=ln("cu", "paths"), field="cu.paths",
                         fix="list each CHPID once")
    if len({known[p] for p in ids}) > 1:
        raise InputError("the paths are of different types", file=file, line=ln("cu", "paths"), field="cu.paths",
                         fix="a control unit's path group here is all ESCON or all one FICON feature")
    cls = cu.get("class", "ess")
    if cls not in CU_CLASSES:
        raise InputError(f"class {cls!r} is not ess or 3990", file=file, line=ln("cu", "class"), field="cu.class",
                         fix='class = "ess" (2105 and later) or "3990"')
    if not _eckd_volumes(storage, guests):
        raise InputError("channel paths without ECKD volumes", file=file, line=ln("cu", "paths"), field="cu.paths",
                         fix="the paths reach 3390 (eckd) paging volumes and minidisks: add some, or leave them out")
    return {"chpids": chpids, "paths": ids, "cu_class": cls}


def _pav(cu: dict, guests: list[Guest], level: str, *, file, ln) -> dict | None:
    """[cu] pav = "static" | "dynamic": alias exposures bound to the ECKD minidisk volumes' bases."""
    from . import engine

    mode = cu.get("pav", "hyper")
    if mode not in ("hyper", *PAV_MODES):
        raise InputError(f"pav {mode!r} is not hyper, static or dynamic", file=file, line=ln("cu", "pav"),
                         field="cu.pav", fix='pav = "hyper" (HyperPAV, default), "static" or "dynamic"')
    if mode == "hyper":
        return None
    for k in ("paging_alias", "share"):
        if k in cu:
            raise InputError(f"{k} applies to HyperPAV only", file=file, line=ln("cu", k), field=f"cu.{k}",
                             fix=f'leave {k} out with pav = "{mode}", or use pav = "hyper"')
    if "aliases" not in cu:
        raise InputError("missing", file=file, line=ln("cu", None), field="cu.aliases",
                         fix=f"how many alias exposures the control unit has for {mode} PAV, e.g. aliases = 8")
    aliases = _int(cu["aliases"], *ALIASES, file=file, line=ln("cu", "aliases"), where="cu.aliases", what="aliases")
    order = [lv["name"] for lv in engine.levels()]
    if order.index(level) < order.index(contract.word("first_pav_level")):
        raise InputError(f"level {level} has no PAV minidisk support", file=file, line=ln("cu", "pav"),
                         field="cu.pav", fix="PAV volumes as minidisks came with z/VM 5.2 (VM63952): use zvm-5.2 or "
                                             "later")
    if not any(g.workload.dasd and g.workload.kind in ("dasd-io", "format") and
               g.workload.dasd.get("type", "eckd") == "eckd" for g in guests):
        raise InputError("PAV aliases without ECKD minidisk volumes", file=file, line=ln("cu", "pav"),
                         field="cu.pav", fix="static and dynamic PAV serve minidisk I/O to 3390 (eckd) volumes "
                                             "(CP paging does not use them): add some, or leave pav out")
    return {"mode": mode, "aliases": aliases}


def _mdc(t: dict, guests: list[Guest], *, file, ln) -> dict | None:
    """The [mdc] table: the minidisk cache's real storage (SET MDCACHE STORAGE)."""
    users = [g for g in guests if g.workload.dasd and g.workload.dasd.get("mdc")]
    if not t:
        if users:
            raise InputError(f"guest {users[0].userid} has mdc = true but there is no minidisk cache", file=file,
                             line=ln("mdc", None), field="mdc.storage", fix='add [mdc] with storage = "1G"')
        return None
    for k in t:
        if k != "storage":
            raise InputError(f"unknown key {k!r}", file=file, line=ln("mdc", k), field=f"mdc.{k}",
                             fix="accepted: storage")
    if "storage" not in t:
        raise InputError("missing", file=file, line=ln("mdc", None), field="mdc.storage",
                         fix='say how much real storage the minidisk cache may use, e.g. storage = "1G"')
    frames = parse_size(t["storage"], where="mdc.storage", file=file, line=ln("mdc", "storage"))
    if frames <= 0:
        raise InputError(f"{t['storage']!r} is no storage", file=file, line=ln("mdc", "storage"),
                         field="mdc.storage", fix='e.g. storage = "1G"')
    return {"frames": frames}


def _referenced_pages(guests: list[Guest]) -> int:
    """The pages the guests' reference patterns cover, all guests of each group together."""
    return sum(g.refs["range_pages"] * g.count for g in guests if g.refs is not None)


def _check_mdc_fits(storage: dict | None, mdc: dict | None, guests: list[Guest], *, file, ln) -> None:
    """The minidisk cache takes its frames from [storage]'s, stealing guest pages when none is free:
    without paging volumes the guests' pages and the cache must fit together (the engine's rule)."""
    if storage is None or mdc is None or storage["paging_volumes"]:
        return
    need = _referenced_pages(guests)
    frames = storage["frames"]
    if need + mdc["frames"] > frames:
        raise InputError(f"storage-constrained ({need} pages referenced and a minidisk cache of up to "
                         f"{mdc['frames']} frames, {frames} frames) with no paging volumes", file=file,
                         line=ln("mdc", "storage"), field="mdc.storage",
                         fix=(f"a cache of at most {frames - need} frames, " if frames > need else "")
                         + 'more real storage, or paging_volumes = [{ type = "eckd", size = "2G" }] in [storage]')


def _choice(v: Any, options: tuple[str, ...], *, file, line, where: str) -> str:
    if not isinstance(v, str) or v.lower() not in options:
        close = difflib.get_close_matches(str(v).lower(), list(options), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InputError(f"{v!r} is not accepted", file=file, line=line, field=where,
                         fix=f"{hint}accepted: {', '.join(options)}")
    return v.lower()


def _weight(v: Any, *, file, line, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError(f"{v!r} is not a whole number", file=file, line=line, field=where,
                         fix=f"a shared LPAR's PR/SM weight is a whole number {WEIGHT[0]}-{WEIGHT[1]}")
    if not WEIGHT[0] <= v <= WEIGHT[1]:
        raise InputError(f"weight {v} is out of range" + (" (a shared LPAR with weight 0 gets no entitlement)"
                                                          if v == 0 else ""),
                         file=file, line=line, field=where,
                         fix=f"a shared LPAR's PR/SM weight must be {WEIGHT[0]}-{WEIGHT[1]}")
    return v


def _cpc(cpc: dict, system: dict, processors: int, level: str, switches: dict[str, str], *, file,
         lines: _Lines) -> dict | None:
    """The [cpc] section and the LPAR keys of [system] (PR/SM, polarization, parking)."""
    ln = lines.find
    if not cpc:
        _no_lpar_keys(system, file=file, ln=ln)
        return None
    _unknown_keys(cpc, _CPC_KEYS, file=file, lines=lines, table="cpc", index=0, where="cpc")
    shared, dedicated = _cpc_ifls(cpc, processors, file=file, ln=ln)
    weight = _lpar_weight(system, file=file, ln=ln)
    from . import engine

    sw = engine.switches(level, switches)
    pol = _polarization(system, level, sw, file=file, ln=ln)
    unparking = _unparking(system, pol, level, sw, file=file, ln=ln)
    excessuse = _choice(system.get("excessuse", "medium"), EXCESSUSES, file=file, line=ln("system", "excessuse"),
                        where="system.excessuse")
    name = _lpar_name(system.get("lpar", "ZVM"), file=file, line=ln("system", "lpar"), field="system.lpar")
    partners_in = cpc.get("lpar", [])
    if not isinstance(partners_in, list):
        raise InputError("must be an array of tables", file=file, line=ln("cpc", "lpar"), field="cpc.lpar",
                         fix="write partner partitions as [[cpc.lpar]] tables")
    cap_groups = capping.groups(cpc.get("group", []), file=file, ln=ln,
                                unknown_keys=lambda t, a, **kw: _unknown_keys(t, a, file=file, lines=lines, **kw))
    gnames = {g["name"] for g in cap_groups}
    my_caps = capping.lpar(system, keys={"capped": "capped", "abscap": "abscap", "group": "capgroup"}, file=file,
                           line=lambda k: ln("system", k), where="system", group_names=gnames)
    partners = _cpc_partners(partners_in, name, shared, dedicated, gnames, file=file, lines=lines)
    out: dict[str, Any] = {"shared": shared, "dedicated": dedicated, "lpars": partners, "name": name,
                           "weight": weight, "polarization": pol, "excessuse": excessuse}
    if unparking is not None:
        out["unparking"] = unparking
    out |= my_caps
    if cap_groups:
        out["groups"] = cap_groups
    return out


def _no_lpar_keys(system: dict, *, file, ln) -> None:
    """Without a [cpc], [system] may carry none of the keys that describe an LPAR."""
    for k in _LPAR_ONLY:
        if k in system:
            raise InputError("applies only to an LPAR on a described CPC", file=file, line=ln("system", k),
                             field=f"system.{k}",
                             fix="add a [cpc] section with shared_ifls (and [[cpc.lpar]] partners), "
                                 f"or remove system.{k}")


def _cpc_ifls(cpc: dict, processors: int, *, file, ln) -> tuple[int, int]:
    """The CPC's shared and dedicated IFLs, with room for the scenario's logical processors."""
    if "shared_ifls" not in cpc:
        raise InputError("missing", file=file, line=ln("cpc", None), field="cpc.shared_ifls",
                         fix="say how many shared physical IFLs the CPC has, e.g. shared_ifls = 16")
    shared = _int(cpc["shared_ifls"], 1, MAX_IFLS, file=file, line=ln("cpc", "shared_ifls"), where="cpc.shared_ifls",
                  what="the number of shared physical IFLs")
    dedicated = _int(cpc.get("dedicated_ifls", 0), 0, MAX_IFLS, file=file, line=ln("cpc", "dedicated_ifls"),
                     where="cpc.dedicated_ifls", what="the number of dedicated physical IFLs")
    if processors > shared:
        raise InputError(f"{processors} logical processors but the CPC has {shared} shared physical IFLs",
                         file=file, line=ln("system", "processors"), field="system.processors",
                         fix=f"an LPAR may have at most {shared} shared logical cores here: lower "
                             "system.processors or raise cpc.shared_ifls")
    return shared, dedicated


def _lpar_weight(system: dict, *, file, ln) -> int:
    """The z/VM LPAR's PR/SM weight (system.weight), required with a [cpc]."""
    if "weight" not in system:
        raise InputError("missing", file=file, line=ln("system", None), field="system.weight",
                         fix="give the LPAR's PR/SM weight, 1-999, e.g. weight = 30")
    return _weight(system["weight"], file=file, line=ln("system", "weight"), where="system.weight")


def _polarization(system: dict, level: str, sw: dict, *, file, ln) -> str:
    """system.polarization: vertical by default where the level (switches ``sw``) has it."""
    vertical_ok = sw.get("polarization") == "vertical"
    pol = _choice(system.get("polarization", "vertical" if vertical_ok else "horizontal"), POLARIZATIONS,
                  file=file, line=ln("system", "polarization"), where="system.polarization")
    if pol == "vertical" and not vertical_ok:
        raise InputError(f"level {level} runs horizontally polarized only (vertical came with z/VM 6.3)", file=file,
                         line=ln("system", "polarization"), field="system.polarization",
                         fix='set polarization = "horizontal" or use level zvm-6.3 or later')
    return pol


def _unparking(system: dict, pol: str, level: str, sw: dict, *, file, ln) -> str | None:
    """system.unparking (SET SRM UNPARKING), or None when not given."""
    if "unparking" not in system:
        return None
    if pol == "horizontal":
        raise InputError("SET SRM UNPARKING applies only to a vertically polarized LPAR", file=file,
                         line=ln("system", "unparking"), field="system.unparking",
                         fix='remove system.unparking or set polarization = "vertical"')
    unparking = _choice(system["unparking"], UNPARKINGS, file=file, line=ln("system", "unparking"),
                        where="system.unparking")
    if unparking != "large" and sw.get("unparking") != "vm66063":
        raise InputError(f"UNPARKING {unparking.upper()} needs VM66063; level {level} unparks every core that "
                         "appears powered (LARGE)", file=file, line=ln("system", "unparking"),
                         field="system.unparking",
                         fix='use level = "zvm-6.4-vm65988-vm66063", or add switches = { unparking = "vm66063" } '
                             'to [system] (the APAR), or use "large"')
    return unparking


def _lpar_name(name: Any, *, file, line, field: str) -> str:
    """An LPAR name: a string of 1-8 printable ASCII characters, no blanks (compared in upper case,
    as the HMC shows them; the engine's rule)."""
    if not isinstance(name, str) or not 1 <= len(name) <= 8 or not all("!" <= c <= "~" for c in name):
        raise InputError(f"{name!r} is not an LPAR name", file=file, line=line, field=field,
                         fix="an LPAR name has 1-8 printable ASCII characters and no blanks")
    return name


def _cpc_partners(partners_in: list, name: str, shared: int, dedicated: int, gnames: set, *, file,
                  lines: _Lines) -> list[dict]:
    """The [[cpc.lpar]] partner partitions, as the engine's LPAR fields."""
    names = {name.upper(): "system.lpar"}
    partners = []
    ded_used = 0
    for i, lp in enumerate(partners_in):
        partner = _cpc_partner(lp, i, names, shared, dedicated, ded_used, gnames, file=file, lines=lines)
        if partner["dedicated"]:
            ded_used += partner["logical"]
        partners.append(partner)
    return partners


def _cpc_partner(lp: Any, i: int, names: dict[str, str], shared: int, dedicated: int, ded_used: int, gnames: set,
                 *, file, lines: _Lines) -> dict:
    """One [[cpc.lpar]] partner (its name is added to ``names``; ``ded_used`` dedicated IFLs are taken)."""
    where = f"cpc.lpar[{i}]"
    line = lambda k, i=i: lines.find("cpc.lpar", k, i)  # noqa: E731
    if not isinstance(lp, dict):
        raise InputError("must be a table", file=file, field=where, fix="write [[cpc.lpar]] tables")
    _unknown_keys(lp, _CPC_LPAR_KEYS, file=file, lines=lines, table="cpc.lpar", index=i, where=where)
    for k in ("name", "logical"):
        if k not in lp:
            raise InputError(f"missing {k}", file=file, line=line(None), field=f"{where}.{k}",
                             fix='e.g. [[cpc.lpar]] name = "PROD" weight = 70 logical = 4 busy = 0.9')
    pname = _lpar_name(lp["name"], file=file, line=line("name"), field=f"{where}.name")
    if pname.upper() in names:
        raise InputError(f"LPAR name {pname!r} is used twice (also {names[pname.upper()]})", file=file,
                         line=line("name"), field=f"{where}.name", fix="give every LPAR its own name")
    names[pname.upper()] = f"{where}.name"
    ded, logical, pweight = _partner_cores(lp, where, line, shared, dedicated, ded_used, file=file)
    busy, busy_fields = _partner_busy(lp, where, line, file=file)
    ppol = _choice(lp.get("polarization", "vertical"), POLARIZATIONS, file=file, line=line("polarization"),
                   where=f"{where}.polarization")
    partner = {"name": pname, "weight": pweight, "logical": logical, "dedicated": ded,
               "polarization": ppol, "busy": busy}
    partner |= busy_fields
    partner |= capping.lpar(lp, keys={"capped": "capped", "abscap": "abscap", "group": "group"}, file=file,
                            line=line, where=where, group_names=gnames, dedicated=ded)
    return partner


def _partner_cores(lp: dict, where: str, line, shared: int, dedicated: int, ded_used: int, *,
                   file) -> tuple[bool, int, int]:
    """A partner's (dedicated, logical cores, weight), its cores within the IFLs left (``ded_used`` taken)."""
    ded = lp.get("dedicated", False)
    if not isinstance(ded, bool):
        raise InputError(f"{ded!r} is not true or false", file=file, line=line("dedicated"),
                         field=f"{where}.dedicated", fix="write dedicated = true or dedicated = false")
    limit = dedicated if ded else shared
    logical = _int(lp["logical"], 1, MAX_IFLS, file=file, line=line("logical"), where=f"{where}.logical",
                   what="the number of logical cores")
    if ded:
        if ded_used + logical > dedicated:
            raise InputError(f"dedicated LPARs need {ded_used + logical} dedicated IFLs but the CPC has {dedicated}",
                             file=file, line=line("logical"), field=f"{where}.logical",
                             fix="raise cpc.dedicated_ifls or give dedicated LPARs fewer logical cores")
    elif logical > limit:
        raise InputError(f"{logical} logical cores but the CPC has {shared} shared physical IFLs", file=file,
                         line=line("logical"), field=f"{where}.logical",
                         fix=f"a shared LPAR may have at most {shared} logical cores here")
    if ded:
        if "weight" in lp:
            raise InputError("a dedicated LPAR has no weight", file=file, line=line("weight"),
                             field=f"{where}.weight", fix="remove weight or set dedicated = false")
        return ded, logical, 0
    if "weight" not in lp:
        raise InputError("missing weight", file=file, line=line(None), field=f"{where}.weight",
                         fix="a shared LPAR needs a PR/SM weight 1-999")
    return ded, logical, _weight(lp["weight"], file=file, line=line("weight"), where=f"{where}.weight")


def _partner_busy(lp: dict, where: str, line, *, file) -> tuple[float, dict]:
    """A partner's busy fraction, and with a list of them the engine's pattern fields."""
    busy = lp.get("busy", 0.0)
    pattern = busy if isinstance(busy, list) else [busy]
    if not pattern:
        raise InputError("empty list", file=file, line=line("busy"), field=f"{where}.busy",
                         fix="give a busy fraction 0-1, or a list of them, e.g. busy = [0.4, 0.9]")
    for b in pattern:
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not 0 <= b <= 1:
            raise InputError(f"busy {b!r} is out of range", file=file, line=line("busy"), field=f"{where}.busy",
                             fix="busy is the fraction of its logical cores the partner keeps busy, 0-1")
    if not isinstance(busy, list):
        if "busy_period" in lp:
            raise InputError("busy_period needs a list of busy fractions", file=file, line=line("busy_period"),
                             field=f"{where}.busy_period", fix="e.g. busy = [0.4, 0.9] busy_period = \"10s\"")
        return float(busy), {}
    if "busy_period" not in lp:
        raise InputError("missing busy_period", file=file, line=line("busy"), field=f"{where}.busy_period",
                         fix='with a list of busy fractions, say how long each holds, e.g. busy_period = "10s"')
    period = parse_duration(lp["busy_period"], where=f"{where}.busy_period", file=file, line=line("busy_period"))
    return float(pattern[0]), {"busy_pattern": [float(b) for b in pattern], "busy_period_ns": period}


def _workload(w: Any, *, file, line, where) -> Workload:
    """A guest's workload table, checked for its kind."""
    kind = _workload_kind(w, file=file, line=line, where=where)
    dist = w.get("dist", "exp")
    if dist not in DISTS:
        raise InputError(f"{dist!r} is not a distribution", file=file, line=line, field=f"{where}.dist",
                         fix=f"accepted: {', '.join(DISTS)}")
    wl = Workload(kind=kind, dist=dist)
    if kind == "cpu-bound":
        _cpu_bound_workload(wl, w, file=file, line=line, where=where)
    elif kind in ("dasd-io", "format"):
        _minidisk_workload(wl, w, kind, file=file, line=line, where=where)
    elif kind == "dump":
        _dump_workload(wl, w, file=file, line=line, where=where)
    elif kind in ("client", "server", "ssl-server"):
        _net_workload(wl, w, kind, file=file, line=line, where=where)
    elif kind == "memtst":
        if "cpu" not in w:
            raise InputError("missing cpu", file=file, line=line, field=f"{where}.cpu",
                             fix='e.g. workload = { kind = "memtst", cpu = "20us" }')
        wl.cpu_ns = parse_duration(w["cpu"], where=f"{where}.cpu", file=file, line=line)
    else:
        for k in ("think", "cpu"):
            if k not in w:
                raise InputError(f"missing {k}", file=file, line=line, field=f"{where}.{k}",
                                 fix='e.g. workload = { kind = "transactional", think = "7ms", cpu = "1ms" }')
        wl.think_ns = parse_duration(w["think"], where=f"{where}.think", file=file, line=line, allow_zero=True)
        wl.cpu_ns = parse_duration(w["cpu"], where=f"{where}.cpu", file=file, line=line)
    return wl


def _workload_kind(w: Any, *, file, line, where) -> str:
    """The kind of a workload table whose keys all belong to that kind."""
    kinds = ", ".join(_WORKLOAD_KEYS)
    if w is None:
        raise InputError("missing", file=file, line=line, field=where,
                         fix=f'e.g. workload = {{ kind = "cpu-bound" }}; kinds: {kinds}')
    if not isinstance(w, dict):
        raise InputError(f"{w!r} is not a table", file=file, line=line, field=where,
                         fix=f'e.g. workload = {{ kind = "cpu-bound" }}; kinds: {kinds}')
    kind = w.get("kind")
    if not isinstance(kind, str) or kind not in _WORKLOAD_KEYS:
        close = difflib.get_close_matches(str(kind), list(_WORKLOAD_KEYS), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InputError(f"unknown workload kind {kind!r}", file=file, line=line, field=f"{where}.kind",
                         fix=f"{hint}kinds: {kinds}")
    allowed = _WORKLOAD_KEYS[kind]
    for k in w:
        if k not in allowed:
            close = difflib.get_close_matches(k, list(allowed), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise InputError(f"unknown key {k!r} for a {kind} workload", file=file, line=line, field=f"{where}.{k}",
                             fix=f"{hint}accepted: {', '.join(a for a in allowed if a != 'kind')}")
    return kind


def _cpu_bound_workload(wl: Workload, w: dict, *, file, line, where) -> None:
    """Set a cpu-bound workload's demand and transaction CPU time on ``wl``."""
    if "demand" in w:
        d = w["demand"]
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not (0 < d <= 1):
            raise InputError(f"demand {d!r} is out of range", file=file, line=line, field=f"{where}.demand",
                             fix="demand is the fraction of one processor each virtual CPU wants, in (0, 1]; "
                                 "leave it out for infinite demand")
        wl.demand = float(d)
    if "tx_cpu" in w:
        wl.tx_cpu_ns = parse_duration(w["tx_cpu"], where=f"{where}.tx_cpu", file=file, line=line)


def _minidisk_workload(wl: Workload, w: dict, kind: str, *, file, line, where) -> None:
    """Set a dasd-io or format workload's device fields and minidisk extent on ``wl``."""
    wl.dasd = _dasd_workload(w, kind, file=file, line=line, where=where)
    md: dict[str, Any] = {}
    if "start" in w:
        st = w["start"]
        md["start"] = 0 if st in ("0", 0) else parse_size(st, where=f"{where}.start", file=file, line=line)
    if "size" in w:
        md["pages"] = wl.dasd.get("size_mb", 0) * 256 or parse_size(w["size"], where=f"{where}.size",
                                                                       file=file, line=line)
    wl.minidisk = md


def _dump_workload(wl: Workload, w: dict, *, file, line, where) -> None:
    """Set a dump workload's volume and size on ``wl``."""
    for k in ("volume", "size"):
        if k not in w:
            raise InputError(f"missing {k}", file=file, line=line, field=f"{where}.{k}",
                             fix='e.g. workload = { kind = "dump", volume = "DUMP01", size = "4G" }')
    vol = w["volume"]
    if not isinstance(vol, str) or not vol:
        raise InputError(f"{vol!r} is not a volume name", file=file, line=line, field=f"{where}.volume",
                         fix='e.g. volume = "DUMP01"')
    pages = parse_size(w["size"], where=f"{where}.size", file=file, line=line)
    if pages < 256:
        raise InputError(f"{w['size']!r} is smaller than 1 MB", file=file, line=line, field=f"{where}.size",
                         fix='the storage the dump writes, e.g. "4G"')
    wl.dasd = {"volume": vol.upper(), "size_mb": pages // 256}


def _net_workload(wl: Workload, w: dict, kind: str, *, file, line, where) -> None:
    """Set a client's, server's or ssl-server's CPU time, options, servers and window on ``wl``."""
    eg = ('e.g. workload = { kind = "client", cpu = "400us", servers = "SERVER", window = 4 }' if kind == "client"
          else f'e.g. workload = {{ kind = "{kind}", cpu = "200us" }}')
    wl.extra = _net_options(w, kind, file=file, line=line, where=where)
    need = ("cpu", "servers", "window") if kind == "client" else ("cpu",)
    for k in need:
        if k not in w:
            raise InputError(f"missing {k}", file=file, line=line, field=f"{where}.{k}", fix=eg)
    wl.cpu_ns = parse_duration(w["cpu"], where=f"{where}.cpu", file=file, line=line)
    if kind != "client":
        return
    sv, win = w["servers"], w["window"]
    if not isinstance(sv, str) or not sv:
        raise InputError(f"{sv!r} is not a userid", file=file, line=line, field=f"{where}.servers",
                         fix="the userid of a [[guest]] whose workload kind is \"server\"")
    lo, hi = contract.limit("client_window")
    if isinstance(win, bool) or not isinstance(win, int) or not (lo <= win <= hi):
        raise InputError(f"window {win!r} is out of range", file=file, line=line, field=f"{where}.window",
                         fix=f"requests a client virtual CPU keeps outstanding: an integer {lo}..{hi}")
    wl.servers, wl.window = sv, win


def _net_options(w: dict, kind: str, *, file, line, where) -> dict:
    """Issue 6 options of clients and servers, as the engine's fields."""
    if kind == "client":
        return _client_options(w, file=file, line=line, where=where)
    out: dict[str, Any] = {}
    if "forward" in w:
        f = w["forward"]
        if not isinstance(f, str) or not f:
            raise InputError(f"{f!r} is not a userid", file=file, line=line, field=f"{where}.forward",
                             fix='the userid of the server guests the request goes on to, e.g. forward = "TCPIP"')
        out["forward"] = f.upper()
    if kind == "ssl-server":
        out.update(_ssl_options(w, file=file, line=line, where=where))
    return out


def _client_options(w: dict, *, file, line, where) -> dict:
    """A client's payload bytes per request and whether each request opens a connection."""
    out: dict[str, Any] = {}
    if "bytes" in w:
        out["bytes"] = _payload_bytes(w["bytes"], file=file, line=line, where=where)
    if "connect" in w:
        if not isinstance(w["connect"], bool):
            raise InputError(f"{w['connect']!r} is not true or false", file=file, line=line,
                             field=f"{where}.connect", fix="connect = true: each request opens a new connection")
        out["connect"] = w["connect"]
    return out


def _payload_bytes(raw: Any, *, file, line, where) -> int:
    """bytes = 1920 or bytes = "1M": payload bytes per request within the contract's range."""
    b = raw
    if isinstance(b, bool) or not isinstance(b, (int, str)):
        raise InputError(f"bytes {b!r} is not a size", file=file, line=line, field=f"{where}.bytes",
                         fix='payload bytes per request: a whole number such as 1920 or a size such as "1M"')
    if isinstance(b, str):
        m = _SIZE.match(b)
        if not m:
            raise InputError(f"bytes {b!r} is not a size", file=file, line=line, field=f"{where}.bytes",
                             fix='e.g. bytes = 1920 or bytes = "1M"')
        mult = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2).upper()]
        b = float(m.group(1)) * mult
    if not (contract.limit("bytes")[0] <= b <= contract.limit("bytes")[1]):
        raise InputError(f"bytes {raw!r} is out of range", file=file, line=line,
                         field=f"{where}.bytes", fix="payload bytes per request, 0..16G")
    return int(b)


def _ssl_options(w: dict, *, file, line, where) -> dict:
    """An SSL server's cipher (one zvmlab models; the level's default without one) and CRYPTO APVIRT."""
    out: dict[str, Any] = {}
    if "cipher" in w:
        if w["cipher"] not in SSL_CIPHERS:
            close = difflib.get_close_matches(str(w["cipher"]), list(SSL_CIPHERS), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise InputError(f"{w['cipher']!r} is not a cipher zvmlab models", file=file, line=line,
                             field=f"{where}.cipher",
                             fix=f"{hint}accepted: {', '.join(SSL_CIPHERS)}; leave it out for the level's default")
        out["cipher"] = w["cipher"]
    if "crypto" in w:
        if w["crypto"] not in CRYPTOS:
            raise InputError(f"{w['crypto']!r} is not a crypto statement zvmlab models", file=file, line=line,
                             field=f"{where}.crypto", fix='crypto = "apvirt" (CRYPTO APVIRT), or leave it out')
        out["crypto"] = w["crypto"]
    return out


def _check_forward(guests, server_groups: set, *, file, ln) -> None:
    """A server's ``forward`` names a server group, and chains never loop."""
    fwd = {}
    for i, g in enumerate(guests):
        f = (g.workload.extra or {}).get("forward")
        if f is None:
            continue
        if f not in server_groups:
            raise InputError(f"forward = {f!r} names no guest with a server workload", file=file,
                             line=ln("guest", "workload", i), field=f"guest[{i}].workload.forward",
                             fix=("server guests here: " + ", ".join(sorted(server_groups))) if server_groups
                             else 'add a [[guest]] with workload = { kind = "server", cpu = "..." }')
        fwd[g.userid] = (f, i)
    for start, (_, i) in fwd.items():
        at, seen = start, set()
        while at in fwd and at not in seen:
            seen.add(at)
            at = fwd[at][0]
            if at == start:
                raise InputError(f"forward makes a loop back to {start}", file=file,
                                 line=ln("guest", "workload", i), field=f"guest[{i}].workload.forward",
                                 fix="end the chain at a server without forward: that one replies")


def _dasd_volumes(raw: Any, guests: list[Guest], vol_types: dict, *, file, ln) -> None:
    """[[volume]]: the DASD volumes minidisks live on. With them, each minidisk (a [[guest]]
    table's dasd-io or format workload; the guests of one table share it) must name a declared
    volume of its type, fit on it, and not overlap another table's minidisk."""
    if not isinstance(raw, list):
        raise InputError("must be an array of tables", file=file, field="volume",
                         fix='write [[volume]] tables, e.g. name = "EF0100", type = "edev", size = "20G"')
    if not raw:
        return
    vols: dict[str, tuple[str, int, int]] = {}
    for j, v in enumerate(raw):
        name, t, pages = _dasd_volume(v, j, vols, file=file, ln=ln)
        vols[name] = (t, pages, j)
    placed: dict[str, list[tuple[int, int, int]]] = {}
    for i, g in enumerate(guests):
        if not g.workload.dasd or g.workload.kind not in ("dasd-io", "format"):
            continue
        _place_minidisk(g, i, vols, placed, file=file, ln=ln)


def _dasd_volume(v: Any, j: int, vols: dict[str, tuple[str, int, int]], *, file, ln) -> tuple[str, str, int]:
    """The (label, type, pages) of volume[j], a label not among ``vols`` already declared."""
    w = f"volume[{j}]"
    if not isinstance(v, dict):
        raise InputError("must be a table", file=file, field=w, fix="write volumes as [[volume]] tables")
    for k in v:
        if k not in _DASD_VOLUME_KEYS:
            close = difflib.get_close_matches(k, list(_DASD_VOLUME_KEYS), n=1)
            raise InputError(f"unknown key {k!r}", file=file, line=ln("volume", k, j), field=f"{w}.{k}",
                             fix=(f"did you mean {close[0]!r}? " if close else "") +
                             "keys: " + ", ".join(_DASD_VOLUME_KEYS))
    for k in ("name", "type", "size"):
        if k not in v:
            raise InputError(f"missing {k}", file=file, line=ln("volume", None, j), field=f"{w}.{k}",
                             fix=f"{k}: {_DASD_VOLUME_KEYS[k]}")
    name = v["name"]
    if not isinstance(name, str) or not re.match(r"^[A-Za-z0-9@#$]{1,6}$", name):
        raise InputError(f"{name!r} is not a volume label", file=file, line=ln("volume", "name", j),
                         field=f"{w}.name", fix="1-6 characters: letters, digits and @ # $")
    name = name.upper()
    if name in vols:
        raise InputError(f"volume {name} is declared twice (volume[{vols[name][2]}] and {w})", file=file,
                         line=ln("volume", "name", j), field=f"{w}.name", fix="volume labels must be unique")
    t = v["type"]
    if t not in VOLUME_TYPES:
        raise InputError(f"{t!r} is not a device type zvmlab models", file=file, line=ln("volume", "type", j),
                         field=f"{w}.type", fix="accepted: eckd (3390), edev (FBA emulated on SCSI), "
                         "scsi (dedicated); a VDISK is not a volume")
    return name, t, _dasd_volume_pages(v["size"], t, w, j, file=file, ln=ln)


def _dasd_volume_pages(size: Any, t: str, w: str, j: int, *, file, ln) -> int:
    """A volume's size in pages: a 3390 model (eckd only) or a size such as "20G"."""
    if isinstance(size, str) and size.strip().lower() in _3390_MODELS:
        if t != "eckd":
            raise InputError(f"{size} is a 3390 model but the volume is {t}", file=file,
                             line=ln("volume", "size", j), field=f"{w}.size",
                             fix='give an edev or scsi volume a size such as "20G"')
        return _3390_MODELS[size.strip().lower()] * 180
    return parse_size(size, where=f"{w}.size", file=file, line=ln("volume", "size", j))


def _place_minidisk(g: Guest, i: int, vols: dict[str, tuple[str, int, int]],
                    placed: dict[str, list[tuple[int, int, int]]], *, file, ln) -> None:
    """Place guest[i]'s minidisk on its declared volume, clear of those ``placed`` before it."""
    vol, t = g.workload.dasd["volume"], g.workload.dasd["type"]
    line = ln("guest", "workload", i)
    if t == "vdisk":
        return
    if vol not in vols:
        raise InputError(f"volume {vol} is not declared", file=file, line=line, field=f"guest[{i}].workload.volume",
                         fix="declared volumes: " + ", ".join(sorted(vols)) + "; add a [[volume]] for it")
    vt, cap, j = vols[vol]
    if vt != t:
        raise InputError(f"volume {vol} is {vt} (volume[{j}]) but this workload says {t}", file=file, line=line,
                         field=f"guest[{i}].workload.type", fix=f'write type = "{vt}"')
    md = g.workload.minidisk or {}
    if not md:
        return  # no extent given: the guests use the volume as a whole (shared)
    here = placed.setdefault(vol, [])
    start = md.get("start", max((e for _, e, _ in here), default=0))
    pages = md.get("pages", cap - start)
    if pages <= 0 or start + pages > cap:
        raise InputError(f"the minidisk ({start + max(pages, 0)} pages to its end) runs past volume {vol} "
                         f"({cap} pages)", file=file, line=line, field=f"guest[{i}].workload.size",
                         fix=f"make it fit in {cap * PAGE >> 20} MB, or use a larger volume")
    for s0, e0, i0 in here:
        if start < e0 and s0 < start + pages:
            raise InputError(f"the minidisk overlaps guest[{i0}]'s on volume {vol} (pages {s0}-{e0 - 1})",
                             file=file, line=line, field=f"guest[{i}].workload.start",
                             fix=f"start it at or after {e0 * PAGE >> 20} MB, or name another volume")
    here.append((start, start + pages, i))


def _dasd_workload(w: dict, kind: str, *, file, line, where) -> dict:
    """The engine fields of a dasd-io or format workload, checked."""
    _dasd_device(w, kind, file=file, line=line, where=where)
    d: dict[str, Any] = {"volume": w["volume"].upper(), "type": w["type"],
                         "blocks": _io_count(w, "blocks", contract.limit("blocks")[1], file=file, line=line,
                                             where=where)}
    if kind == "format":
        pages = parse_size(w["size"], where=f"{where}.size", file=file, line=line)
        if pages < 256:
            raise InputError(f"{w['size']!r} is smaller than 1 MB", file=file, line=line, field=f"{where}.size",
                             fix='a minidisk size such as "10G"')
        d["size_mb"] = pages // 256
        return d
    _dasd_io(d, w, file=file, line=line, where=where)
    return d


def _dasd_device(w: dict, kind: str, *, file, line, where) -> None:
    """A dasd-io or format workload has its required keys, a volume name and a device type of its kind."""
    eg = ('e.g. workload = { kind = "dasd-io", volume = "EF0100", type = "edev", cpu = "360us", ios = 100, blocks = 1 }'
          if kind == "dasd-io" else
          'e.g. workload = { kind = "format", volume = "EF0100", type = "edev", size = "10G", blocks = 1024 }')
    need = ("volume", "type", "cpu", "ios", "blocks") if kind == "dasd-io" else ("volume", "type", "size", "blocks")
    for k in need:
        if k not in w:
            raise InputError(f"missing {k}", file=file, line=line, field=f"{where}.{k}", fix=eg)
    vol = w["volume"]
    if not isinstance(vol, str) or not vol:
        raise InputError(f"{vol!r} is not a volume name", file=file, line=line, field=f"{where}.volume", fix=eg)
    types = DASD_TYPES if kind == "dasd-io" else FORMAT_TYPES
    if w["type"] not in types:
        raise InputError(f"{w['type']!r} is not a device type zvmlab models here", file=file, line=line,
                         field=f"{where}.type", fix=f"accepted: {', '.join(types)}")


def _io_count(w: dict, k: str, hi: int, *, file, line, where) -> int:
    """The whole number 1..hi a DASD workload gives as ``k`` (blocks, window, ios)."""
    v = w[k]
    if isinstance(v, bool) or not isinstance(v, int) or not (1 <= v <= hi):
        raise InputError(f"{k} {v!r} is out of range", file=file, line=line, field=f"{where}.{k}",
                         fix=f"a whole number 1..{hi}")
    return v


def _dasd_io(d: dict[str, Any], w: dict, *, file, line, where) -> None:
    """Add a dasd-io workload's I/O fields (method, window, cache, pacing, costs) to ``d``."""
    method = w.get("method", "ssch")
    if method not in DASD_METHODS:
        raise InputError(f"{method!r} is not an I/O method", file=file, line=line, field=f"{where}.method",
                         fix=f"accepted: {', '.join(DASD_METHODS)}")
    write = w.get("write", False)
    if not isinstance(write, bool):
        raise InputError(f"{write!r} is not true or false", file=file, line=line, field=f"{where}.write",
                         fix="write = true for writes, false (the default) for reads")
    if "window" in w:
        d["window"] = _io_count(w, "window", contract.limit("io_window")[1], file=file, line=line, where=where)
    d.update(_dasd_mdc(w, d["blocks"], file=file, line=line, where=where))
    if "rate" in w:
        d["rate"] = _io_rate(w, file=file, line=line, where=where)
    d.update(method=method, write=write,
             ios=_io_count(w, "ios", contract.limit("ios")[1], file=file, line=line, where=where),
             dist=w.get("dist", "exp"),
             cpu_ns=parse_duration(w["cpu"], where=f"{where}.cpu", file=file, line=line),
             think_ns=parse_duration(w.get("think", "0s"), where=f"{where}.think", file=file, line=line,
                                     allow_zero=True))


def _dasd_mdc(w: dict, blocks: int, *, file, line, where) -> dict[str, Any]:
    """A dasd-io workload's minidisk cache fields: mdc and the extent its I/Os read, or none."""
    mdc = w.get("mdc", False)
    if not isinstance(mdc, bool):
        raise InputError(f"{mdc!r} is not true or false", file=file, line=line, field=f"{where}.mdc",
                         fix="mdc = true caches this device's data in the minidisk cache; false (default) does not")
    if not mdc:
        if "extent" in w:
            raise InputError("extent without mdc = true", file=file, line=line, field=f"{where}.extent",
                             fix="add mdc = true, or leave extent out")
        return {}
    if w["type"] in ("scsi", "vdisk"):
        raise InputError(f"a {w['type']} device is not eligible for the minidisk cache", file=file, line=line,
                         field=f"{where}.mdc", fix="MDC caches eckd and edev minidisks read through CP; "
                         "leave mdc out for a dedicated SCSI device or a VDISK")
    if "extent" not in w:
        raise InputError("missing extent (the data the I/Os read)", file=file, line=line,
                         field=f"{where}.extent", fix='e.g. extent = "400M" with mdc = true')
    ext = parse_size(w["extent"], where=f"{where}.extent", file=file, line=line)
    if ext < blocks:
        raise InputError(f"extent {w['extent']!r} is smaller than one I/O ({blocks} blocks)", file=file,
                         line=line, field=f"{where}.extent", fix="give an extent of at least one I/O's blocks")
    return {"mdc": True, "extent_blocks": ext}


def _io_rate(w: dict, *, file, line, where) -> float:
    """A paced dasd-io workload's rate in I/Os per second (with no think time)."""
    r = w["rate"]
    if isinstance(r, bool) or not isinstance(r, (int, float)) or not (0 < r <= contract.limit("io_rate")[1]):
        raise InputError(f"rate {r!r} is not an I/O rate", file=file, line=line, field=f"{where}.rate",
                         fix="I/Os per second, a number > 0, e.g. rate = 1233")
    if "think" in w:
        raise InputError("both rate and think", file=file, line=line, field=f"{where}.rate",
                         fix="a paced driver (rate) sets its own pauses: leave think out, or rate")
    return float(r)


def load(path: str | Path) -> Scenario:
    """Read and validate a scenario file."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            data = f.read(MAX_SCENARIO_BYTES + 1)  # never more: /dev/zero is not a scenario
    except FileNotFoundError:
        raise InputError("no such file", file=str(p), fix="give the path of a scenario .toml file") from None
    except IsADirectoryError:
        raise InputError("is a directory", file=str(p), fix="give the path of a scenario .toml file") from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", file=str(p)) from None
    if len(data) > MAX_SCENARIO_BYTES:
        raise InputError(f"larger than a scenario can be ({MAX_SCENARIO_BYTES:,} bytes)", file=str(p),
                         fix="a scenario is a small TOML file; use count = N for many alike guests")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text (byte {e.start})", file=str(p),
                         fix="a scenario is a UTF-8 TOML text file") from None
    return loads(text, str(p))
