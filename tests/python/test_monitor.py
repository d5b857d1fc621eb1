"""Monitor data: the engine's MONWRITE writer against the Python reader.

Round trip (property): for random scenarios, every record the engine writes decodes to the
values the engine recorded; the per-interval and whole-run figures derived from the monitor
data equal the run summary's to the last bit (durations are exact in TOD units).
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from zvmlab import engine
from zvmlab.monitor import layouts as L
from zvmlab.monitor import measure, read
from zvmlab.monitor.derive import tod_datetime

MS = 1_000_000
S = 1_000_000_000

USERID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789#@$"


def config(processors=2, guests=(), duration_s=10.0, interval_s=2.0, seed=1, level="zvm-6.4") -> dict:
    return {"level": level, "processors": processors, "smt": "off", "duration_ns": int(duration_s * S),
            "interval_ns": int(interval_s * S), "seed": seed, "params": {}, "switches": {},
            "guests": list(guests), "actions": []}


def guest(userid, workload, vcpus=1, share=100.0, count=1) -> dict:
    return {"userid": userid, "vcpus": vcpus, "count": count, "quickdsp": False,
            "share": {"min": {"kind": "relative", "value": share}, "limit": "none"}, "workload": workload}


def cpu_bound(demand=None, tx_ms=None):
    w = {"kind": "cpu-bound", "dist": "exp"}
    if demand is not None:
        w["demand"] = demand
    if tx_ms is not None:
        w["tx_cpu_ns"] = tx_ms * MS
    return w


def transactional(think_ms, cpu_ms):
    return {"kind": "transactional", "think_ns": think_ms * MS, "cpu_ns": cpu_ms * MS, "dist": "exp"}


def run(cfg):
    summary, mon = engine.simulate(cfg, monitor=True)
    return summary, mon


def assert_round_trip(summary: dict, mon: bytes) -> None:
    data = read(mon)
    assert data.problems == [], data.problems[:3]
    assert not data.skipped
    assert data.origin == L.ORIGIN_ZVMLAB
    m = measure(data)
    assert m.problems == []
    users = [u["userid"] for u in summary["users"]]
    n_iv, n_cpu = len(summary["intervals"]), summary["processors"]
    # raw records: one MRSYTPRP per processor, one MRUSEACT per virtual CPU and one ZVMUSE per
    # user per interval
    assert len(data.column("MRSYTPRP", "offset")) == n_iv * n_cpu
    assert len(data.column("MRUSEACT", "offset")) == n_iv * sum(m.vcpus[u] for u in users)
    assert data.column("ZVMUSE", "ZVMUSE_USERID") == users * n_iv
    assert data.column("MRUSEACT", "USEACT_VMDUSER") == [u for u in users for _ in range(m.vcpus[u])] * n_iv
    assert data.column("MRSYTPRP", "SYTPRP_PFXCPUAD") == list(range(n_cpu)) * n_iv
    assert data.column("MRMTRSYS", "MTRSYS_CPUCOUNT") == [n_cpu]
    assert data.column("ZVMSYS", "ZVMSYS_LEVEL") == [summary["level"].upper()]
    assert data.end_of_data == [len(mon) - 4096]
    # per interval: the summary's figures, bit for bit
    assert m.cpus == list(range(n_cpu)) and m.users == users
    assert len(m.intervals) == n_iv
    for k, (iv, si) in enumerate(zip(m.intervals, summary["intervals"])):
        assert iv.start_ns / 1e9 == si["start_s"] and iv.end_ns / 1e9 == si["end_s"]
        ln = float(iv.len_ns)
        assert [100.0 * m.busy_ns[c][k] / ln for c in m.cpus] == [p["busy_pct"] for p in si["processors"]]
        assert [100.0 * m.sys_ns[c][k] / ln for c in m.cpus] == [p["system_pct"] for p in si["processors"]]
        assert sum(m.busy_ns[c][k] for c in m.cpus) == si["busy_ns"]
        assert sum(m.sys_ns[c][k] for c in m.cpus) == si["system_ns"]
        for d in si["user_detail"]:
            u = d["userid"]
            assert 100.0 * m.total_ns[u][k] / ln == d["cpu_pct"] == si["users"][u]
            assert 100.0 * m.virt_ns[u][k] / ln == d["virtual_pct"]
            assert 100.0 * (m.total_ns[u][k] - m.virt_ns[u][k]) / ln == d["cp_pct"]
            assert m.tx[u][k] == d["transactions"]
        assert sum(m.tx[u][k] for u in users) / (ln / 1e9) == si["etr"]
        # emulation time is the users' virtual time apportioned to the processors (floors)
        virt = sum(m.virt_ns[u][k] for u in users)
        assert virt - n_cpu <= sum(m.emul_ns[c][k] for c in m.cpus) <= virt
    # whole run
    t = m.totals()
    for key in ("avg_processor_busy_pct", "system_pct", "tv_ratio", "etr", "itr", "duration_s", "transactions"):
        assert t[key] == summary[key], key
    for su in summary["users"]:
        ut = m.user_totals(su["userid"])
        for key in ("cpu_pct", "virtual_pct", "cp_pct", "transactions"):
            assert ut[key] == su[key], (su["userid"], key)


def test_layouts_are_the_engine_export_and_keep_ibm_bytes_ibm():
    ours = {r.name: r for r in L.BASE}
    theirs = engine.monitor_layouts()
    assert sorted(ours) == sorted(r["name"] for r in theirs)
    for r in theirs:
        o = ours[r["name"]]
        assert (o.domain, o.number, o.length) == (r["domain"], r["record"], r["len"])
        assert all(f["offset"] + f["len"] <= r["len"] for f in r["fields"])
        sources = {f.source for f in o.fields + (o.array.fields if o.array else ())}
        if o.domain == L.ZVM_DOMAIN:
            assert sources == {"zvmlab"}, o.name
        else:  # IBM's records: published or inferred places only, and nothing after the last
            assert sources <= {"ibm:mon440", "ibm:mon520", "ibm:mon640", "zpmd:5.3", "zpmd:alpha"}, (o.name, sources)
            assert o.domain <= 11


def test_showcase_round_trip_and_file_shape():
    cfg = config(2, [guest("USER0", cpu_bound()), guest("USER1", cpu_bound(0.3), share=200.0)], 600, 60)
    summary, mon = run(cfg)
    assert len(mon) % 4096 == 0
    # one control record + one frame per set, and the end-of-data block
    assert len(mon) == 4096 * (2 * (1 + len(summary["intervals"])) + 1)
    assert mon[40] == 0xE2 and mon[41] == 0x40  # config set: sample data, monitor domain
    # first record: MRMTRSYS, 20-byte header, big-endian length, TOD at the epoch
    ln, zer, dom, rec, tod = struct.unpack(">HHBxHQ", mon[4096:4096 + 16])
    assert (zer, dom, rec) == (0, 1, 4) and ln >= 20
    assert tod_datetime(tod).isoformat() == "2024-01-01T00:00:00"
    assert_round_trip(summary, mon)


def test_same_seed_same_bytes_different_seed_differs():
    g = [guest("A", transactional(50, 5)), guest("B", cpu_bound(0.5))]
    a = run(config(2, g, 20, 5, seed=3))[1]
    assert a == run(config(2, g, 20, 5, seed=3))[1]
    assert a != run(config(2, g, 20, 5, seed=4))[1]


def test_many_users_span_frames_with_end_of_frame_records():
    cfg = config(4, [guest("CMS", transactional(200, 2), count=150)], 6, 2)
    summary, mon = run(cfg)
    data = read(mon)
    # an interval holds 4 + 150 + 150 records: more than one frame
    assert data.control_records == 4 and len(mon) > 4096 * 2 * 4
    assert_round_trip(summary, mon)


userids = st.text(USERID_CHARS, min_size=1, max_size=6)


@st.composite
def scenarios(draw):
    n = draw(st.integers(1, 5))
    names = draw(st.lists(userids, min_size=n, max_size=n, unique=True))
    gs = []
    for name in names:
        w = draw(st.one_of(
            st.builds(cpu_bound, st.one_of(st.none(), st.floats(0.05, 1.0)), st.one_of(st.none(), st.integers(1, 20))),
            st.builds(transactional, st.integers(0, 100), st.integers(1, 20))))
        gs.append(guest(name, w, vcpus=draw(st.integers(1, 3)), share=float(draw(st.integers(1, 500))),
                        count=draw(st.integers(1, 3))))
    # CP names count > 1 guests USERID0.., which may collide with another group's name
    ids = [g["userid"] + (str(k) if g["count"] > 1 else "") for g in gs for k in range(g["count"])]
    assume(len(ids) == len(set(ids)))
    interval = draw(st.sampled_from([0.25, 0.5, 1.0, 1.5, 3.0]))
    duration = draw(st.sampled_from([1.0, 2.0, 3.7, 5.0]))
    return config(draw(st.integers(1, 4)), gs, duration, interval, draw(st.integers(0, 2**32)),
                  draw(st.sampled_from(["zvm-5.3", "zvm-6.3", "zvm-6.4"])))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_round_trip_property(cfg):
    summary, mon = run(cfg)
    assert_round_trip(summary, mon)


def test_long_userids_and_odd_characters_survive_ebcdic():
    summary, mon = run(config(1, [guest("$ALLOC$", cpu_bound(0.2)), guest("TCPIP#1", cpu_bound(0.1))], 2, 1))
    assert read(mon).column("MRUSEACT", "USEACT_VMDUSER")[:2] == ["$ALLOC$", "TCPIP#1"]
    assert_round_trip(summary, mon)


# -- data not written by zvmlab ------------------------------------------------------------------

def craft(groups: list[list[bytes]], base: int = 0x200000) -> bytes:
    """A MONWRITE file from record groups (each closed by D1R11), one control record each."""
    out = b""
    for recs in groups:
        frames, pos = [bytearray(4096)], 0
        for r in recs + [hdr(1, 11, 20, tod=0)]:
            if pos + len(r) + 20 > 4096 and not r.startswith(hdr(1, 11, 20)[:8]):
                frames[-1][pos:pos + 20] = hdr(1, 13, 20)
                frames.append(bytearray(4096))
                pos = 0
            frames[-1][pos:pos + len(r)] = r
            pos += len(r)
        end = base + 4096 * (len(frames) - 1) + pos - 1
        cr = bytearray(4096)
        cr[40:52] = bytes([0xE2, 0x80, 0x00, 0]) + struct.pack(">II", base, end)
        out += bytes(cr) + b"".join(bytes(f) for f in frames)
    return out


def hdr(dom, rec, ln, tod=0) -> bytes:
    return struct.pack(">HHBxHQI", ln, 0, dom, rec, tod, 0)


def sytprp(cpu, utime, tmsys, tod, ln=108) -> bytes:
    r = bytearray(ln)
    r[:20] = hdr(0, 2, ln, tod)
    struct.pack_into(">H", r, 20, cpu)
    struct.pack_into(">Q", r, 24, L.CPU_TIMER_START - utime // 2)
    struct.pack_into(">Q", r, 32, utime)
    if ln >= 48:
        struct.pack_into(">Q", r, 40, tmsys)
    return bytes(r)


def test_foreign_data_uses_the_first_sample_as_baseline_and_no_zvmlab_fields():
    us = 4096
    t = [10**12 * us + k * 60 * 10**6 * us for k in range(4)]
    groups = [[sytprp(0, 100 * us, 0, t[0]), sytprp(1, 100 * us, 0, t[0])]]
    for k in (1, 2, 3):  # 30 s busy per minute on CPU 0, 15 s on CPU 1; 1 s system time each
        groups.append([sytprp(0, 100 * us + k * 29 * 10**6 * us, k * 10**6 * us, t[k]),
                       sytprp(1, 100 * us + k * 14 * 10**6 * us, k * 10**6 * us, t[k]),
                       hdr(4, 3, 300, t[k]) + bytes(280)])  # a long MRUSEACT: only ibm fields
    # patch the interval-end TODs (craft writes 0)
    data = bytearray(craft(groups))
    for g in range(4):
        frame = g * 8192 + 4096
        end = struct.unpack(">I", data[g * 8192 + 48:g * 8192 + 52])[0] - 0x200000
        struct.pack_into(">Q", data, frame + end - 19 + 8, t[g])
    d = read(bytes(data))
    assert d.problems == [] and d.origin == ""
    assert "ZVMUSE" not in d.tables  # zvmlab's records: a real system has none
    assert d.column("MRUSEACT", "USEACT_VMDUSER") == ["", "", ""]
    m = measure(d)
    assert len(m.intervals) == 3  # the first sample is the baseline
    assert [iv.len_ns for iv in m.intervals] == [60 * S] * 3
    assert m.busy_ns[0] == [30 * S] * 3 and m.busy_ns[1] == [15 * S] * 3
    assert m.emul_ns[0] == [S * 29 // 2] * 3  # descending CPU timer: previous - current
    assert m.totals()["etr"] is None


def test_short_records_decode_only_the_fields_they_hold():
    us = 4096
    d = read(craft([[sytprp(3, 5 * us, 0, 0, ln=40)]]))
    assert d.problems == []
    assert d.column("MRSYTPRP", "SYTPRP_PFXUTIME") == [5 * us]
    assert d.column("MRSYTPRP", "SYTPRP_PFXTMSYS") == [None]  # would start at 40: not in a 40-byte record


def test_unknown_records_are_counted_and_skipped():
    d = read(craft([[hdr(0, 3, 64) + bytes(44), hdr(13, 99, 24) + bytes(4), sytprp(0, 0, 0, 0)]]))
    assert d.problems == []
    assert d.describe()["skipped"] == {"D0R3 MRSYTRSG": 1, "D13R99 D13R99": 1}
    assert len(d.column("MRSYTPRP", "offset")) == 1


def test_bad_data_is_reported_with_offsets():
    good = craft([[sytprp(0, 0, 0, 0)], [sytprp(0, 4096, 0, 0)]])
    # a record whose length runs past its frame
    bad = bytearray(good)
    struct.pack_into(">H", bad, 4096, 5000)
    d = read(bytes(bad))
    assert any(p.offset == 4096 and "runs past its 4096-byte frame" in p.message for p in d.problems)
    # truncated in the middle of a frame
    d = read(good[:-100])
    assert any("not a multiple of 4096" in p.message for p in d.problems)
    assert any("truncated" in p.message for p in d.problems)
    # not monitor data at all
    d = read(b"This is not monitor data.\n" * 400)
    assert d.control_records == 0
    assert any("not monitor data" in p.message for p in d.problems)
    # empty
    assert "empty" in read(b"").problems[0].message


def test_a_damaged_control_record_is_skipped_and_reading_resumes():
    good = craft([[sytprp(0, 0, 0, 0)], [sytprp(0, 4096, 0, 0)], [sytprp(0, 8192, 0, 0)]])
    bad = bytearray(good)
    bad[8192 + 40] = 0x11  # second control record: not E2/C5
    d = read(bytes(bad))
    assert d.problems and d.problems[0].offset == 8192
    # its frame is skipped too (it is not a control record either), the third group is read
    assert len(d.column("MRSYTPRP", "offset")) == 2


@pytest.mark.parametrize("n", [1, 5, 12])
def test_small_and_larger_user_counts(n):
    summary, mon = run(config(1 + n % 3, [guest(f"U{i}", cpu_bound(0.4)) for i in range(n)], 3, 1))
    assert_round_trip(summary, mon)
