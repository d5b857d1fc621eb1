"""A scenario built from monitor data (``zvmlab twin``): the system as the data shows it, each
guest as a workload that wants what the guest used, with a comment per value naming the
records it came from. What-if is an edit of the twin (``apply``).

What the twin takes from the data:
- the level (D15R1 ZVMSYS), processors (D0R2 MRSYTPRP, one per processor), SMT (ZVMSYS), the
  sample interval (ZVMSYS, else the first interval) and the period (the interval-end records);
- per guest: virtual CPUs (D4R3 MRUSEACT, one per virtual CPU), CPU per second (D15R4 ZVMUSE
  total CPU time over the period) and, with transactions (ZVMUSE), CPU per transaction.

What it does not (yet) take, and says so in the file (and ``not_taken`` lists for the command
line to warn about): shares (not in the data), and configuration the data shows that a run of
the twin would leave out: channel paths, HyperPAV alias pools, PAV state, CPU pools, LPAR
capping, the processor clock, client/server chains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import contract
from ..errors import InputError
from .derive import Measurements
from .reader import MonitorData

# A guest using this fraction of its virtual CPUs or more is modelled as wanting all it can get.
SATURATED = 0.97

# Configuration the data shows and the twin does not take yet: record, what it is.
NOT_TAKEN = (("ZVMCHP", "channel paths (D15R13 ZVMCHP)"), ("ZVMHPP", "a HyperPAV alias pool (D15R9 ZVMHPP)"),
             ("ZVMDCH", "device paths and PAV aliases (D15R14 ZVMDCH)"), ("ZVMCPL", "CPU pools (D15R11 ZVMCPL)"),
             ("ZVMCAP", "LPAR capping (D15R12 ZVMCAP)"))


@dataclass
class TwinGuest:
    userid: str
    vcpus: int
    demand: float | None  # per virtual CPU, fraction of one processor; None: all it can get
    tx_cpu_ns: int | None
    think_ns: int | None = None  # a closed loop: think, then tx_cpu_ns of CPU (transactional)
    share: str = "RELATIVE 100"
    notes: list[str] = field(default_factory=list)
    storage_kb: int | None = None  # virtual storage
    wss_kb: int | None = None  # working set (uniform references over it)
    dasd: dict | None = None  # a dasd-io workload's fields (TOML values, already quoted)


@dataclass
class Twin:
    source: str
    level: str
    processors: int
    smt: str
    duration_s: float
    interval_s: float
    guests: list[TwinGuest]
    notes: list[str] = field(default_factory=list)
    edits: list[str] = field(default_factory=list)
    not_taken: list[str] = field(default_factory=list)  # in the data, left out of the twin
    storage: list[str] = field(default_factory=list)  # the [storage] table's lines
    lpar: list[str] = field(default_factory=list)  # [system] lines for the LPAR, then [cpc] tables
    cpc: list[str] = field(default_factory=list)

    def toml(self) -> str:
        q = _quote
        out = [f"# zvmlab twin of {self.source}", "# Each value: where in the monitor data it came from."]
        out += [f"# {n}" for n in self.notes]
        if self.edits:
            out.append("# What-if edits: " + "; ".join(self.edits))
        out += [f"title = {q('Twin of ' + self.source)}", "", "[system]",
                f"level = {q(self.level)}              # D15R1 ZVMSYS_LEVEL",
                f"processors = {self.processors}              # D0R2 MRSYTPRP: one record per processor"
                + (" (thread; two per core with SMT-2)" if self.smt == "smt2" else ""),
                f"smt = {q(self.smt)}                 # D15R1 ZVMSYS_SMT"] + self.lpar + ["", "[run]",
                f"duration = {q(_dur(self.duration_s))}          # the period: first to last interval end (D1R11)",
                f"interval = {q(_dur(self.interval_s))}          # D15R1 ZVMSYS_INTERVAL",
                "seed = 1                    # not in the data"]
        if self.storage:
            out += ["", "[storage]"] + self.storage
        out += self.cpc
        for g in self.guests:
            out += ["", "[[guest]]"] + [f"# {n}" for n in g.notes]
            out += [f"userid = {q(g.userid)}", f"vcpus = {g.vcpus}",
                    f"share = {q(g.share)}" + ("" if g.share != "RELATIVE 100" else "     # not in the data")]
            if g.storage_kb:
                out.append(f"storage = {q(str(g.storage_kb) + 'K')}")
            if g.wss_kb:
                out.append(f"refs = {{ pattern = \"uniform\", range = {q(str(g.wss_kb) + 'K')} }}")
            if g.dasd is not None:
                w = ['kind = "dasd-io"'] + [f"{k} = {v}" for k, v in g.dasd.items()]
            elif g.think_ns is not None:
                w = ['kind = "transactional"', f"think = {q(str(g.think_ns) + 'ns')}",
                     f"cpu = {q(str(g.tx_cpu_ns) + 'ns')}"]
            else:
                w = ['kind = "cpu-bound"']
                if g.demand is not None:
                    w.append(f"demand = {g.demand:.6g}")
                if g.tx_cpu_ns is not None:
                    w.append(f"tx_cpu = {q(str(g.tx_cpu_ns) + 'ns')}")
            out.append("workload = { " + ", ".join(w) + " }")
        return "\n".join(out) + "\n"


def _quote(s: str) -> str:
    """A TOML basic string: backslash, quote and control characters escaped (names decoded
    from EBCDIC may hold anything)."""
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _dur(seconds: float) -> str:
    ms = round(seconds * 1000)
    return f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"


def build(data: MonitorData, m: Measurements, source: str) -> Twin:
    """The twin of the monitor data; InputError when the data lacks what a twin needs."""
    if not m.intervals or not m.cpus:
        raise InputError("no complete interval with processor records (D0R2 MRSYTPRP): nothing to model",
                         file=source)
    level = (m.system.get("level") or "").lower()
    if not level:
        raise InputError("the data does not say which z/VM level it comes from (zvmlab's D15R1 ZVMSYS record)",
                         file=source, fix="write the twin by hand from `zvmlab report` for a real system's data")
    missing = [u for u in m.users if all(v is None for v in m.total_ns.get(u, []))]
    if missing:
        raise InputError(f"no CPU time per user in the data for {', '.join(missing[:5])}"
                         f"{' ...' if len(missing) > 5 else ''} (zvmlab's D15R4 ZVMUSE; IBM's MRUSEACT fields "
                         f"for it are not in the public layouts)", file=source,
                         fix="a twin needs data written by zvmlab, or layouts transcribed for the release")
    dur_ns = m.duration_ns
    rows = [r for r in data.rows("ZVMSYS") if r.get("ZVMSYS_SMT") is not None]
    smt = {0: "off", 1: "smt1", 2: "smt2"}.get(rows[0]["ZVMSYS_SMT"] if rows else 0, "off")
    interval = m.system.get("interval_s") or m.intervals[0].len_ns / 1e9
    guests = [_guest(m, u, dur_ns) for u in m.users]
    notes = ["Shares are not in the data: add them by hand."]
    not_taken = [what for rec, what in NOT_TAKEN if data.rows(rec)]
    if not_taken:
        notes.append("Not taken from the data yet (add by hand; a run of this twin leaves them out, so its "
                     "figures can differ from the data's): " + "; ".join(not_taken) + ".")
    notes.append("Not in the data either: the processor clock (cpu.clock_ghz) and client/server chains.")
    lpar, cpc = _cpc(m, smt, notes)
    return Twin(source, level, _cores(len(m.cpus), smt, source), smt, dur_ns / 1e9, interval, guests, notes,
                not_taken=not_taken, storage=_storage(m), lpar=lpar, cpc=cpc)


def _cores(processor_records: int, smt: str, source: str) -> int:
    """Cores from the processor records: one per processor, so one per thread under SMT-2."""
    per_core = 2 if smt == "smt2" else 1
    if processor_records % per_core:
        raise InputError(f"{processor_records} processor records (D0R2 MRSYTPRP) with SMT-2 (D15R1 ZVMSYS_SMT): "
                         f"not two threads per core", file=source, fix="check that the file holds one system")
    return processor_records // per_core


def _cpc(m: Measurements, smt: str, notes: list[str]) -> tuple[list[str], list[str]]:
    """The LPAR and its CPC from ZVMCUP (per LPAR) and ZVMCUM (physical cores)."""
    own = next((lp for lp in m.lpars if lp["self"]), None)
    if own is None or not m.phys_info.get("shared") or smt != "off":
        return [], []
    pol = lambda lp: "horizontal" if lp.get("horizontal") else "vertical"  # noqa: E731
    lpar = [f"lpar = {_quote(own['name'])}             # D15R7 ZVMCUP (this LPAR)",
            f"weight = {own['weight']}", f"polarization = {_quote(pol(own))}"]
    cpc = ["", "[cpc]", f"shared_ifls = {m.phys_info['shared']}          # D15R8 ZVMCUM_SHARED"]
    if m.phys_info.get("dedicated"):
        cpc.append(f"dedicated_ifls = {m.phys_info['dedicated']}")
    for lp in m.lpars:
        if lp["self"]:
            continue
        cpc += ["", "[[cpc.lpar]]", f"# D15R7 ZVMCUP: LPAR {lp['number']}; busy = its demand (ZVMCUP_BUSYMIL)",
                f"name = {_quote(lp['name'])}", f"logical = {lp['logical']}"]
        cpc.append("dedicated = true" if lp["dedicated"] else f"weight = {lp['weight']}")
        cpc += [f"busy = {lp['busy'] or 0.0:g}", f"polarization = {_quote(pol(lp))}"]
    notes.append("A partner's busy is one figure over the period (a varying demand is not in the data).")
    return lpar, cpc


_DASD_TYPES = {"3390": "eckd", "EDEV": "edev", "SCSI": "scsi"}


def _storage(m: Measurements) -> list[str]:
    """[storage] from ZVMSTO (frames) and the paging volumes (ZVMDVC, slots)."""
    frames = (m.sto_level.get("frames") or [None])[-1] if m.has_storage else None
    if not frames:
        return []
    vols: dict[tuple[str, int], int] = {}
    for d in m.devs:
        i = m.dev_info[d]
        if i["paging"] and i.get("slots"):
            key = (_DASD_TYPES.get(i["type"], "eckd"), i["slots"])
            vols[key] = vols.get(key, 0) + 1
    pv = ", ".join(f'{{ type = "{t}", size = "{slots * 4}K", count = {n} }}' for (t, slots), n in vols.items())
    return [f'real = "{frames * 4}K"           # D15R6 ZVMSTO_FRAMES',
            "prefill = true              # the data starts in a paging steady state (assumed)",
            f"paging_volumes = [{pv}]    # D15R2 ZVMDVC (paging volumes, slots)"]


def _guest(m: Measurements, u: str, dur_ns: int) -> TwinGuest:
    n = m.vcpus.get(u) or 1
    total = sum(v for v in m.total_ns[u] if v is not None)
    virt = sum(v for v in m.virt_ns[u] if v is not None)
    info = m.user_info.get(u, {})
    if info.get("wss"):
        total = virt  # a paging guest: CP's paging work comes from the model
    frac = total / dur_ns / n
    notes = [f"vcpus: {n} MRUSEACT records (D4R3) per sample",
             f"CPU: {100.0 * total / dur_ns:.2f} % of one processor (D15R4 ZVMUSE_TTIME over {dur_ns / 1e9:g} s)"]
    demand: float | None = round(frac, 6)
    if demand is not None and demand <= 0:  # an idle guest: the scenario's smallest demand (0 is refused)
        demand = 1e-6
        notes.append("used no measurable CPU: modelled at the smallest demand, 1e-06 of a processor")
    ust = m.ust.get(u, {})
    idle = sum(sum(v for v in ust.get(k, []) if v is not None) for k in ("dormant", "test_idle")) if ust else None
    if frac >= SATURATED:
        demand = None
        notes.append(f"used {100 * frac:.1f} % of its virtual CPUs: modelled as wanting all it can get")
    elif idle is not None and idle < (1.0 - SATURATED) * dur_ns * n:
        demand = None
        notes.append(f"idle (dormant or test idle, D15R4 ZVMUSE_STDORM/STTIDL) {100 * idle / (dur_ns * n):.1f} % "
                     f"of the time: it waits, but never for work: modelled as wanting all it can get")
    tx = sum(v for v in m.tx.get(u, []) if v is not None) if m.has_appl else 0
    tx_cpu = None
    if tx > 0:
        tx_cpu = max(1, round(virt / tx))
        notes.append(f"transactions: {tx} (D15R4 ZVMUSE_TXDONE): {tx_cpu} ns of virtual CPU each (ZVMUSE_VTIME)")
    g = TwinGuest(u, n, demand, tx_cpu, notes=notes)
    if demand is not None and tx_cpu is not None and idle and not info.get("wss"):
        # it waits for work between transactions: a closed loop, think = its idle time per transaction
        g.think_ns = max(1, round(idle / tx))
        g.notes.append(f"think {g.think_ns} ns per transaction: dormant and test-idle time (D15R4 ZVMUSE_STDORM, "
                       f"ZVMUSE_STTIDL) over its transactions")
    if info.get("vsize"):
        g.storage_kb, g.wss_kb = info["vsize"] * 4, (info.get("wss") or 0) * 4
        g.notes.append(f"storage {info['vsize']} pages, working set {info.get('wss') or 0} pages "
                       f"(D15R4 ZVMUSE_VSIZE, ZVMUSE_WSS; references taken as uniform)")
    g.dasd = _dasd(m, u, tx, virt, n, g.notes)
    return g


def _dasd(m: Measurements, u: str, tx: int, virt: int, n: int, notes: list[str]) -> dict | None:
    """A dasd-io program from ZVMUSE's minidisk fields: per transaction its virtual CPU, I/Os and
    think time (dormant and test-idle time per transaction: ZVMUSE_STDORM, ZVMUSE_STTIDL)."""
    info, io = m.user_info.get(u, {}), m.user_io.get(u, {})
    dev = info.get("iodev")
    if not dev or dev not in m.dev_info or not io.get("ios") or tx <= 0:
        return None
    d = m.dev_info[dev]
    flags = info.get("ioflags") or 0
    ios, blocks = io["ios"], io.get("blocks") or io["ios"]
    out = {"volume": _quote(d["name"]), "type": _quote(_DASD_TYPES.get(d["type"], "eckd")),
           "cpu": _quote(f"{max(1, round(virt / tx))}ns"), "ios": max(1, round(ios / tx)),
           "blocks": max(1, round(blocks / ios))}
    idle = sum(sum(v for v in m.ust.get(u, {}).get(k, []) if v is not None) for k in ("dormant", "test_idle"))
    if flags & 0x20:  # paced: the I/O rate
        out["rate"] = f"{ios / (m.duration_ns / 1e9) / n:.6g}"
    elif idle > 0:
        out["think"] = _quote(f"{round(idle / n / (tx / n))}ns")
    if flags & 0x80:
        out["write"] = "true"
    if flags & 0x40:
        out["mdc"] = "true"
    notes.append(f"minidisk I/O on {d['name']} (device {dev:04X}, D15R2 ZVMDVC): {ios} I/Os, {blocks} blocks, "
                 f"{tx} transactions (D15R4 ZVMUSE_IOS, ZVMUSE_IOBLKS, ZVMUSE_TXDONE)")
    return out


_EDIT = re.compile(r"^\s*([A-Za-z_]+)(?:\.([A-Za-z0-9$#@_]+))?\s*=\s*(.+?)\s*$")


def apply(twin: Twin, edits: list[str]) -> Twin:
    """The twin with what-if edits: processors=N, smt=off|smt1|smt2, level=NAME,
    share.USERID=SHARE (z/VM SET SHARE syntax), vcpus.USERID=N."""
    import copy
    t = copy.deepcopy(twin)
    for e in edits:
        mt = _EDIT.match(e)
        if not mt:
            raise InputError(f"cannot read what-if '{e}'", field="--what-if",
                             fix='write KEY=VALUE, e.g. "processors=12", "smt=smt2", "share.USER1=RELATIVE 200"')
        key, who, val = mt.group(1).lower(), mt.group(2), mt.group(3).strip('"')
        if key == "processors" and who is None:
            if not (val.isdigit() and int(val) > 0):
                raise InputError(f"processors must be a positive number, not '{val}'", field="--what-if",
                                 fix='e.g. "processors=12"')
            t.processors = int(val)
        elif key == "smt" and who is None and val in contract.vocabulary("smt"):
            t.smt = val
        elif key == "level" and who is None:
            t.level = val
        elif key in ("share", "vcpus") and who is not None:
            g = next((g for g in t.guests if g.userid == who.upper()), None)
            if g is None:
                raise InputError(f"no guest {who} in the twin", field="--what-if",
                                 fix="users: " + ", ".join(g.userid for g in t.guests))
            if key == "share":
                g.share = val
            elif val.isdigit() and int(val) > 0:
                g.vcpus = int(val)
            else:
                raise InputError(f"vcpus must be a positive number, not '{val}'", field="--what-if")
        else:
            raise InputError(f"cannot apply what-if '{e}'", field="--what-if",
                             fix="known: processors=N, smt=off|smt1|smt2, level=NAME, share.USERID=SHARE, "
                                 "vcpus.USERID=N")
        t.edits.append(e.strip())
    return t
