"""The Runner for real Linux: a share scenario instantiated with cgroups and CPU-burning processes.

Seed 000's method runs each scenario on a real system and mines the observed CPU per user per
interval. Here the "system" is this Linux machine: each guest becomes a cgroup, each virtual CPU
a process that burns CPU (all the time for infinite demand, or in bursts with sleeps between them
for a partial demand), the LPAR's processors a cpuset. CPU is measured from the cgroups' own
accounting every interval. The result has the same shape as a simulator run, so the Comparator
treats both runners alike.

Mapping of SET SHARE to the kernel (the kernel has no notion of an absolute share):
- the minimum shares are normalized as CP normalizes them (ABSOLUTE first as a fraction of the
  system, RELATIVE in proportion over the rest) and become cpu.shares (v1) / cpu.weight (v2);
- a LIMITHARD maximum becomes a CFS bandwidth quota (cpu.cfs_quota_us / cpu.max);
- LIMITSOFT has no kernel equivalent: it is run as NOLIMIT and reported in ``notes``.
How closely the kernel then matches the Solver is a finding, not a pass/fail.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..scenario import Guest, Scenario, ShareValue

PERIOD_US = 100_000
BURST_S = 0.010  # assumed: CPU burst of a partial-demand worker (short against the 100 ms interval)

_WORKER = r"""
import ctypes, os, signal, sys, time
signal.pthread_sigmask(signal.SIG_SETMASK, [])  # started with the runner's stop signals held
try:  # die with the runner, even if it is killed (Linux PR_SET_PDEATHSIG)
    ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)
except Exception:
    pass
demand, burst, end = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
if sys.stdin.readline() != "go\n":  # wait until placed in its cgroup; EOF: the runner is gone
    sys.exit(0)
pc = time.perf_counter
sleep = burst * (1 - demand) / demand if demand < 1 else 0.0
while True:
    t = pc()
    if time.time() >= end:
        break
    if sleep == 0.0:
        while pc() - t < 0.05:
            pass
        continue
    # Burn `burst` seconds of CPU (thread CPU time), then sleep: demand = burst / (burst + sleep).
    c0 = time.thread_time()
    while time.thread_time() - c0 < burst:
        pass
    time.sleep(sleep)
"""


@dataclass
class _Group:
    userid: str
    cpu_dir: Path
    acct_file: Path
    procs: list


class CgroupUnavailable(InputError):
    pass


_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


@contextlib.contextmanager
def _signals_held():
    """Hold Ctrl-C, SIGTERM and SIGHUP until the block ends (they are delivered then), so that a
    worker is never started without being tracked: an untracked worker would outlive the runner
    and keep its caller's pipes open. The signals are masked in this thread, and, because the
    kernel gives a process's signal to any thread that does not mask it (a progress bar's, a
    pool's) and Python then runs the handler in the main thread, each one caught meanwhile is
    recorded by a stand-in handler and raised again after the block."""
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers can only be set from the main thread, where the runner runs
        return
    caught: list[int] = []
    handlers = {sig: signal.signal(sig, lambda s, _f: caught.append(s)) for sig in _STOP_SIGNALS}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
        for sig, h in handlers.items():
            signal.signal(sig, h)
        for sig in dict.fromkeys(caught):
            signal.raise_signal(sig)


def _find_cgroup() -> tuple[str, Path, Path, Path | None]:
    """(version, cpu controller dir, cpuacct dir, cpuset dir) of a writable hierarchy."""
    root = Path("/sys/fs/cgroup")
    v2 = root / "cgroup.controllers"
    if v2.exists() and "cpu" in v2.read_text().split():
        return "v2", root, root, root if "cpuset" in v2.read_text().split() else None
    cpu, acct, cpuset = root / "cpu", root / "cpuacct", root / "cpuset"
    if (cpu / "cpu.shares").exists() and (acct / "cpuacct.usage").exists():
        return "v1", cpu, acct, cpuset if (cpuset / "cpuset.cpus").exists() else None
    raise CgroupUnavailable("no writable cgroup cpu controller found under /sys/fs/cgroup",
                            field="--runner cgroup", fix="run on Linux as root with cgroup v1 cpu,cpuacct or v2 cpu")


_NAME = re.compile(r"zvmlab-(\d+)-\d+")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _tasks(d: Path) -> list[int]:
    out = []
    for name in ("tasks", "cgroup.procs"):
        with contextlib.suppress(OSError, ValueError):
            out += [int(x) for x in (d / name).read_text().split()]
    return out


def remove_leftovers(roots: list[Path], say=None) -> int:
    """Remove the cgroups of earlier runs whose zvmlab process is gone (killed: SIGKILL cannot be
    caught), killing any worker still in them; returns how many directories were removed."""
    removed = 0
    for root in dict.fromkeys(roots):
        try:
            tops = sorted(d for d in root.iterdir() if d.is_dir() and _NAME.fullmatch(d.name))
        except OSError:
            continue
        for top in tops:
            if _alive(int(_NAME.fullmatch(top.name).group(1))):
                continue  # another runner at work
            removed += _remove([top, *sorted((d for d in top.rglob("*") if d.is_dir()), key=lambda d: len(d.parts))])
    if removed and say:
        say(f"removed {removed} cgroup(s) left behind by a killed zvmlab run")
    return removed


def _remove(dirs: list[Path]) -> int:
    """Remove cgroup directories (parents first in ``dirs``; removed children first), killing any
    process still in them; returns how many were removed."""
    n = 0
    for d in reversed(dirs):
        for pid in _tasks(d):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        n += _rmdir(d)
    return n


def _rmdir(d: Path) -> bool:
    for _ in range(150):  # a killed process leaves its cgroup when it has exited: up to 3 s
        try:
            d.rmdir()
            return True
        except FileNotFoundError:
            return False
        except OSError:
            time.sleep(0.02)
    return False


def normalized_shares(sc: Scenario) -> dict[str, float]:
    """Each user's normalized minimum share (fraction of the system), as CP normalizes it."""
    users = [(u, g.share.min) for g in sc.guests for u in g.userids()]
    absolute = sum(s.value / 100 for _, s in users if s.kind == "absolute")
    scale = min(1.0, 0.99 / absolute) if absolute > 0 else 1.0
    rel = sum(s.value for _, s in users if s.kind == "relative")
    left = max(0.0, 1.0 - absolute * scale)
    return {u: (s.value / 100 * scale if s.kind == "absolute" else left * s.value / rel) for u, s in users}


def available() -> str | None:
    """None when the cgroup runner can run here, else the reason it cannot."""
    if not sys.platform.startswith("linux"):
        return "not Linux"
    if os.geteuid() != 0:
        return "not root"
    try:
        _find_cgroup()
    except CgroupUnavailable as e:
        return e.message
    return None


def run(sc: Scenario, duration_s: float, interval_s: float, cpus: list[int] | None = None) -> dict:
    """Run the share scenario for ``duration_s`` on real processors; returns a run summary."""
    why = available()
    if why:
        raise CgroupUnavailable(f"the cgroup runner cannot run here: {why}", field="--runner cgroup",
                                fix="use --runner sim, or run as root on Linux with cgroups")
    version, cpu_root, acct_root, cpuset_root = _find_cgroup()
    remove_leftovers([r for r in (cpu_root, acct_root, cpuset_root) if r is not None],
                     say=lambda m: print(f"zvmlab: note: {m}", file=sys.stderr))
    ncpu = os.cpu_count() or 1
    cpus = cpus if cpus is not None else list(range(min(sc.processors, ncpu)))
    notes = []
    if sc.processors > len(cpus):
        notes.append(f"scenario has {sc.processors} processors; this machine gives {len(cpus)}")
    weights = normalized_shares(sc)
    name = f"zvmlab-{os.getpid()}-{time.monotonic_ns()}"
    made: list[Path] = []
    groups: list[_Group] = []
    end = time.time() + duration_s + 1.0
    pin = cpus if cpuset_root is None and len(cpus) < ncpu else None
    try:
        top, top_acct, top_set = _make_top(name, version, cpu_root, acct_root, cpuset_root, cpus, ncpu, made, notes)
        task_set = top_set if top_set is not None and version == "v1" else None
        for g in sc.guests:
            for uid in g.userids():
                group, acct_dir = _make_user(g, uid, top, top_acct, version, weights, cpus, made, notes)
                groups.append(group)
                demand = g.workload.demand_per_vcpu()
                _start_workers(group, acct_dir, task_set, g.vcpus, demand, end, version, pin)
        for group in groups:
            for p in group.procs:
                p.stdin.write("go\n")
                p.stdin.flush()
        elapsed, intervals, totals = _measure(groups, version, duration_s, interval_s)
    finally:
        _stop(groups, made)
    return {
        "runner": "cgroup",
        "cgroup_version": version,
        "processors": len(cpus),
        "duration_s": elapsed,
        "users": [{"userid": u, "cpu_pct": 100.0 * ns / 1e9 / elapsed if elapsed else 0.0} for u, ns in totals.items()],
        "intervals": intervals,
        "notes": sorted(set(notes)),
    }


def _mk(p: Path, made: list[Path]) -> Path:
    """Make the cgroup directory ``p``, recorded in ``made`` for removal."""
    p.mkdir()
    made.append(p)
    return p


def _make_top(name: str, version: str, cpu_root: Path, acct_root: Path, cpuset_root: Path | None, cpus: list[int],
              ncpu: int, made: list[Path], notes: list[str]) -> tuple[Path, Path, Path | None]:
    """The run's own cgroups (cpu, cpuacct, cpuset; one directory in v2), the LPAR's processors its cpuset."""
    top = _mk(cpu_root / name, made)
    top_acct = top if acct_root == cpu_root else _mk(acct_root / name, made)
    top_set = None
    if cpuset_root is not None:
        top_set = top if cpuset_root == cpu_root else _mk(cpuset_root / name, made)
        if version == "v1":
            (top_set / "cpuset.mems").write_text((cpuset_root / "cpuset.mems").read_text().strip() or "0")
        (top_set / "cpuset.cpus").write_text(",".join(map(str, cpus)))
    elif len(cpus) < ncpu:
        notes.append("no cpuset controller: processes are pinned with sched_setaffinity")
    if version == "v2":
        (top / "cgroup.subtree_control").write_text("+cpu" + (" +cpuset" if cpuset_root is not None else ""))
    return top, top_acct, top_set


def _make_user(g: Guest, uid: str, top: Path, top_acct: Path, version: str, weights: dict[str, float], cpus: list[int],
               made: list[Path], notes: list[str]) -> tuple[_Group, Path]:
    """A user's cgroup with its share as a weight and its hard limit as a quota; (group, cpuacct dir)."""
    d = _mk(top / uid, made)
    a = d if top_acct == top else _mk(top_acct / uid, made)
    w = max(2, round(weights[uid] * 10000))
    if version == "v1":
        (d / "cpu.shares").write_text(str(w))
    else:
        (d / "cpu.weight").write_text(str(min(10000, max(1, round(weights[uid] * 10000)))))
    if g.share.limit == "hard" and g.share.max is not None:
        _write_quota(d, g.share.max, g.share.min, weights[uid], len(cpus), version)
    elif g.share.limit == "soft":
        notes.append(f"{uid}: LIMITSOFT has no kernel equivalent; run as NOLIMIT")
    acct = a / ("cpuacct.usage" if version == "v1" else "cpu.stat")
    return _Group(uid, d, acct, []), a


def _write_quota(d: Path, mx: ShareValue, mn: ShareValue, weight: float, ncpus: int, version: str) -> None:
    """A LIMITHARD maximum share as the CFS bandwidth quota of cgroup ``d``."""
    if mx.kind == "absolute":
        cap = mx.value / 100 * ncpus
    else:
        cap = mx.value / mn.value * weight * ncpus
    quota = max(1000, round(cap * PERIOD_US))
    if version == "v1":
        (d / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (d / "cpu.cfs_quota_us").write_text(str(quota))
    else:
        (d / "cpu.max").write_text(f"{quota} {PERIOD_US}")


def _start_workers(group: _Group, acct_dir: Path, task_set: Path | None, vcpus: int, demand: float, end: float,
                   version: str, pin: list[int] | None) -> None:
    """Start a burner per virtual CPU, each tracked in ``group`` before it is put in its cgroups."""
    for _ in range(vcpus):
        with _signals_held():  # a signal cannot land between the fork and the tracking
            p = subprocess.Popen([sys.executable, "-c", _WORKER, str(demand), str(BURST_S), str(end)],
                                 stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, text=True)
            group.procs.append(p)  # tracked before it enters a cgroup: always killed
        for target in {group.cpu_dir, acct_dir} | ({task_set} if task_set is not None else set()):
            (target / ("tasks" if version == "v1" else "cgroup.procs")).write_text(str(p.pid))
        if pin is not None:
            os.sched_setaffinity(p.pid, pin)


def _usage(g: _Group, version: str) -> int:
    """A user's CPU time so far, in nanoseconds, from its cgroup's accounting."""
    t = g.acct_file.read_text()
    if version == "v1":
        return int(t)
    for line in t.splitlines():
        if line.startswith("usage_usec"):
            return int(line.split()[1]) * 1000
    return 0


def _measure(groups: list[_Group], version: str, duration_s: float,
             interval_s: float) -> tuple[float, list[dict], dict[str, int]]:
    """Sample each user's CPU every interval for the run; (elapsed seconds, intervals, CPU ns per user)."""
    t0 = time.monotonic()
    prev = {g.userid: _usage(g, version) for g in groups}
    prev_t = t0
    intervals = []
    totals = {g.userid: 0 for g in groups}
    k = 1
    while True:
        target = t0 + k * interval_s
        if target > t0 + duration_s + 1e-9:
            break
        time.sleep(max(0.0, target - time.monotonic()))
        now = time.monotonic()
        cur = {g.userid: _usage(g, version) for g in groups}
        length = now - prev_t
        users = {u: 100.0 * (cur[u] - prev[u]) / 1e9 / length for u in cur}
        for u in cur:
            totals[u] += cur[u] - prev[u]
        intervals.append({"start_s": prev_t - t0, "end_s": now - t0, "users": users})
        prev, prev_t = cur, now
        k += 1
    return prev_t - t0, intervals, totals


def _stop(groups: list[_Group], made: list[Path]) -> None:
    """Kill and reap every worker started, then remove the cgroups made."""
    for g in groups:
        for p in g.procs:
            try:
                p.send_signal(signal.SIGKILL)
            except ProcessLookupError:
                pass
    for g in groups:
        for p in g.procs:
            p.wait()
            if p.stdin:
                p.stdin.close()
    _remove(made)
