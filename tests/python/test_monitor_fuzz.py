"""Fuzzing the monitor reader: random bytes, truncations and bit flips of real output never make
it raise; every problem it reports points inside the file. The corpus under
tests/python/corpus/monitor/ keeps small inputs of each kind (replayed on every run).

Regenerate the corpus (after a change of the writer's format):
    ZVMLAB_REGEN_CORPUS=1 .venv/bin/python -m pytest -q tests/python/test_monitor_fuzz.py
"""

from __future__ import annotations

import functools
import json
import os
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zvmlab import engine
from zvmlab.monitor import measure, read
from zvmlab.monitor.checks import check as bounds
from zvmlab.perfkit import build_all, render

CORPUS = Path(__file__).parent / "corpus" / "monitor"
MS = 1_000_000


@functools.cache
def sample() -> bytes:
    """A small valid file: 2 processors, 3 users, 4 intervals (with APPLDATA)."""
    cfg = {"level": "zvm-6.4", "processors": 2, "smt": "off", "duration_ns": 4_000_000_000,
           "interval_ns": 1_000_000_000, "seed": 7, "params": {}, "switches": {}, "actions": [],
           "guests": [{"userid": u, "vcpus": 1, "count": 1, "quickdsp": False,
                       "share": {"min": {"kind": "relative", "value": 100.0}, "limit": "none"},
                       "workload": {"kind": "transactional", "think_ns": 20 * MS, "cpu_ns": 3 * MS, "dist": "exp"}}
                      for u in ("LINUX01", "LINUX02", "CMS1")]}
    return engine.simulate(cfg, monitor=True)[1]


@functools.cache
def sample_io() -> bytes:
    """A small valid file with paging and minidisk volumes: D6R3, D3R4, D3R1 and D4R3 paging."""
    import sys
    sys.path.insert(0, str(Path(__file__).parent))
    from io_scenarios import io_config
    return engine.simulate(io_config(seed=11, duration_s=3, interval_s=1, real_mb=32), monitor=True)[1]


@functools.cache
def sample_lpar() -> bytes:
    """A small valid file of an LPAR under PR/SM: D0R16, D0R17 and the PR/SM fields of D0R2."""
    import sys
    sys.path.insert(0, str(Path(__file__).parent))
    from io_scenarios import lpar_config
    return engine.simulate(lpar_config(seed=5, duration_s=3, interval_s=1, web=2), monitor=True)[1]


def _record_offset(b: bytes, record: str, i: int = 0) -> int:
    return read(b).column(record, "offset")[i]


def check(data: bytes) -> None:
    """The reader's contract on any input."""
    d = read(data)
    for p in d.problems:
        assert 0 <= p.offset <= len(data), p
        assert p.message
    json.dumps(d.describe())  # the description is JSON-ready
    m = measure(d)
    for iv in m.intervals:
        assert iv.len_ns >= 1
    # no silent impossible figure: one out of physical bounds comes with a data-check note
    notes = bounds(d, m)
    over = [v > iv.len_ns * 1.000001 for s in (m.busy_ns, m.wait_ns, m.emul_ns) for c in m.cpus
            for v, iv in zip(s[c], m.intervals) if v is not None]
    over += [v > iv.len_ns * (m.vcpus.get(u) or 10**9) * 1.000001 for u in m.users
             for v, iv in zip(m.total_ns[u], m.intervals) if v is not None]
    # a base's own busy time (I/Os on HyperPAV aliases are not its exposures'), and the alias time
    over += [v - (a or 0) > iv.len_ns * (m.dev_info[d].get("exposures") or 1) * 1.000001 for d in m.devs
             for v, a, iv in zip(m.dev[d]["busy"], m.dev[d].get("alias") or [None] * len(m.intervals), m.intervals)
             if v is not None]
    over += [(a or 0) > iv.len_ns * m.hpp_info["aliases"] * 1.000001 for d in m.devs if m.hpp_info
             for a, iv in zip(m.dev[d].get("alias") or [], m.intervals)]
    if any(over):
        assert notes
    m.totals()
    for u in m.users:
        m.user_totals(u)
    # the reports on whatever could be read: no crash, JSON without NaN
    reports = build_all(m)
    render.text(reports)
    render.json_text(reports, describe=d.describe())
    for r in reports:
        render.csv_text(r)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=20000))
def test_random_bytes(data):
    check(data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4096), st.integers(0, 3))
def test_random_blocks_behind_a_valid_control_record(block, n):
    """Garbage where frames should be: the record walker meets it."""
    block = block.ljust(4096, b"\x14")
    cr = bytearray(4096)
    cr[40:52] = bytes([0xE2, 0x80, 0, 0]) + struct.pack(">II", 0x100000 + 8 * n, 0x100000 + 4096 * n + 4000)
    check(bytes(cr) + block * (n + 1))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_truncations(data):
    b = sample()
    cut = data.draw(st.integers(0, len(b)))
    check(b[:cut])
    d = read(b[:cut])
    if cut % 4096:
        assert d.problems  # a cut inside a block is always reported


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_truncations_of_io_data(data):
    b = sample_io()
    cut = data.draw(st.integers(0, len(b)))
    check(b[:cut])
    if cut % 4096:
        assert read(b[:cut]).problems


@settings(max_examples=250, deadline=None)
@given(st.data(), st.sampled_from(["ZVMDEV", "MRSTOASP", "ZVMSTO", "MRUSEACT", "ZVMCUP", "ZVMCUM",
                                   "MRSYTPRP"]))
def test_damaged_io_storage_and_lpar_records(data, record):
    """Bit flips and chosen bytes inside the device, storage and LPAR records (their lengths,
    counters, names)."""
    b = bytearray(sample_lpar() if record.startswith("ZVMCU") or record == "MRSYTPRP" else sample_io())
    offs = read(bytes(b)).column(record, "offset")
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.sampled_from(offs)) + data.draw(st.integers(0, 111))
        if at < len(b):
            b[at] = data.draw(st.sampled_from([0, 1, 0x14, 0x7F, 0xFF, b[at] ^ 0x80]))
    check(bytes(b))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_bit_flips(data):
    b = bytearray(sample())
    for _ in range(data.draw(st.integers(1, 8))):
        i = data.draw(st.integers(0, len(b) - 1))
        b[i] ^= 1 << data.draw(st.integers(0, 7))
    check(bytes(b))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_byte_overwrites_in_headers(data):
    """Overwrite bytes inside record headers (lengths, zeros, domains) with chosen values."""
    b = bytearray(sample())
    for _ in range(data.draw(st.integers(1, 4))):
        frame = 4096 * data.draw(st.integers(0, len(b) // 4096 - 1))
        off = frame + data.draw(st.sampled_from([0, 1, 2, 4, 6, 7, 20, 21, 40, 41, 44, 48, 51]))
        b[off] = data.draw(st.sampled_from([0, 1, 0x13, 0x14, 0x7F, 0xE2, 0xC5, 0xFF]))
    check(bytes(b))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.data())
def test_block_swaps_and_duplicates(data):
    """Whole 4096-byte blocks swapped, duplicated or dropped (a file copied out of order)."""
    blocks = [sample_io()[i:i + 4096] for i in range(0, len(sample_io()), 4096)]
    for _ in range(data.draw(st.integers(1, 3))):
        i, j = data.draw(st.integers(0, len(blocks) - 1)), data.draw(st.integers(0, len(blocks) - 1))
        op = data.draw(st.sampled_from(["swap", "dup", "drop"]))
        if op == "swap":
            blocks[i], blocks[j] = blocks[j], blocks[i]
        elif op == "dup":
            blocks.insert(j, blocks[i])
        elif len(blocks) > 1:
            blocks.pop(i)
    check(b"".join(blocks))


def test_concatenated_files_of_two_systems_or_levels_are_flagged():
    a, b = sample(), sample_io()  # zvm-6.4 and the io scenario's level
    other = b.replace(bytes([0xE9, 0xE5, 0xD4, 0xD3, 0xC1, 0xC2]), bytes([0xE2, 0xE8, 0xE2, 0xC2, 0x40, 0x40]))
    for cat in (a + other, other + a, a + a):
        check(cat)
        d = read(cat)
        notes = bounds(d, measure(d))
        assert len(d.end_of_data) == 2
        if cat != a + a:
            assert any("two or more systems" in n for n in notes), notes
        assert any("time runs backwards" in n for n in notes), notes


def corpus_cases() -> dict[str, bytes]:
    """Named inputs of each kind of damage (the corpus)."""
    good = sample()
    cases = {"valid.mon": good}
    cases["truncated-mid-frame.mon"] = good[:4096 * 5 + 1234]
    cases["truncated-at-block.mon"] = good[:4096 * 3]
    b = bytearray(good)
    struct.pack_into(">H", b, _record_offset(good, "MRSYTPRP", 1), 4000)  # second record of the first interval
    cases["length-past-frame.mon"] = bytes(b)
    b = bytearray(good)
    struct.pack_into(">H", b, 4096 * 3, 7)
    cases["length-too-short.mon"] = bytes(b)
    b = bytearray(good)
    b[4096 * 3 + 4] = 42  # domain 42: unknown record
    cases["unknown-domain.mon"] = bytes(b)
    b = bytearray(good)
    b[4096 * 2 + 40] = 0x00  # a control record with no entries
    cases["empty-control-record.mon"] = bytes(b)
    b = bytearray(good)
    struct.pack_into(">II", b, 4096 * 2 + 44, 0x2000000, 0x1000000)  # start after end
    cases["control-start-after-end.mon"] = bytes(b)
    cases["not-monitor-data.mon"] = b"[system]\nlevel = 'zvm-6.4'\n" * 200
    cases["empty.mon"] = b""
    io = sample_io()
    cases["valid-io.mon"] = io
    cases["io-truncated-mid-frame.mon"] = io[:4096 * 3 + 2345]
    b = bytearray(io)
    struct.pack_into(">H", b, _record_offset(io, "ZVMDEV", 1), 4000)  # a device record past its frame
    cases["io-length-past-frame.mon"] = bytes(b)
    b = bytearray(io)
    struct.pack_into(">H", b, _record_offset(io, "MRSTOASP"), 3)  # a paging-volume record's length < header
    cases["io-length-too-short.mon"] = bytes(b)
    lp = sample_lpar()
    cases["valid-lpar.mon"] = lp
    b = bytearray(lp)
    struct.pack_into(">H", b, _record_offset(lp, "ZVMCUM", 1), 4090)  # PR/SM counters past the frame
    cases["lpar-length-past-frame.mon"] = bytes(b)
    cases["lpar-truncated-at-block.mon"] = lp[:4096 * 5]
    return cases


def test_corpus_replays():
    if os.environ.get("ZVMLAB_REGEN_CORPUS"):
        CORPUS.mkdir(parents=True, exist_ok=True)
        for name, b in corpus_cases().items():
            (CORPUS / name).write_bytes(b)
    files = sorted(CORPUS.glob("*.mon"))
    assert len(files) >= 10, "corpus missing; regenerate it (see the module docstring)"
    for f in files:
        check(f.read_bytes())


@pytest.mark.parametrize("name, expect", [
    ("valid.mon", None),
    # written before D0R2 and D4R3 grew (108 and 64 bytes): shorter records decode the fields they hold
    ("valid-older-lengths.mon", None),
    ("truncated-mid-frame.mon", "not a multiple of 4096"),
    ("truncated-at-block.mon", "truncated file"),
    ("length-past-frame.mon", "runs past its 4096-byte frame"),
    ("length-too-short.mon", "shorter than the 20-byte header"),
    ("empty-control-record.mon", "expected a MONWRITE control record"),
    ("control-start-after-end.mon", "expected a MONWRITE control record"),
    ("not-monitor-data.mon", "not monitor data"),
    ("empty.mon", "empty file"),
    ("valid-io.mon", None),
    ("io-truncated-mid-frame.mon", "not a multiple of 4096"),
    ("io-length-past-frame.mon", "runs past its 4096-byte frame"),
    ("io-length-too-short.mon", "shorter than the 20-byte header"),
    ("valid-lpar.mon", None),
    ("lpar-length-past-frame.mon", "runs past its 4096-byte frame"),
    ("lpar-truncated-at-block.mon", "truncated file"),
])
def test_corpus_problems_are_named(name, expect):
    d = read((CORPUS / name).read_bytes())
    if expect is None:
        assert d.problems == []
    else:
        assert any(expect in p.message for p in d.problems), [str(p) for p in d.problems]


def test_unknown_domain_is_skipped_not_fatal():
    d = read((CORPUS / "unknown-domain.mon").read_bytes())
    assert d.problems == []
    assert d.describe()["skipped"] == {"D42R2 D42R2": 1}
    m = measure(d)
    assert len(m.intervals) == 4 and m.busy_ns[0][0] is None  # processor 0's first sample is gone


@pytest.mark.parametrize("name, record, i", [("io-length-past-frame.mon", "ZVMDEV", 1),
                                              ("lpar-length-past-frame.mon", "ZVMCUM", 1)])
def test_damaged_length_is_reported_at_the_record(name, record, i):
    """The problem names the byte offset of the damaged record itself; the records before it in
    its frame and those of every later frame are still read (the rest of its frame is skipped)."""
    good = sample_io() if name.startswith("io") else sample_lpar()
    at = _record_offset(good, record, i)
    d = read((CORPUS / name).read_bytes())
    assert [p.offset for p in d.problems if "runs past" in p.message] == [at]
    frame_end = (at // 4096 + 1) * 4096
    for rec in ("MRSYTPRP", record):
        assert d.column(rec, "offset") == [o for o in read(good).column(rec, "offset") if o < at or o >= frame_end]
