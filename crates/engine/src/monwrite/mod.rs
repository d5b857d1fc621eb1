//! Monitor data in MONWRITE format: the engine's interval samples as CP monitor records.
//!
//! What the bytes look like (docs/research/monitor-layouts.md gives every source):
//!
//! - Every record starts with the 20-byte MRRECHDR (IBM): length (2, counts the header), zeros
//!   (2), domain (1), reserved (1), record number (2), TOD clock of the build (8), reserved
//!   (4). Integers are big-endian, character fields EBCDIC (code page 037), blank padded.
//! - TOD clock: bit 51 = 1 microsecond, epoch 1900-01-01 (IBM). A run's simulated time 0 is
//!   [`EPOCH_UNIX_S`]; a record's TOD = that instant + simulated time, so the same run gives
//!   the same bytes. Durations (CPU times) are in the same units, floor(ns * 4096 / 1000): a
//!   reader recovers the engine's nanoseconds exactly as ceil(units * 1000 / 4096).
//! - Records are packed back to back in 4096-byte frames and never span a frame; a frame whose
//!   next record would not fit ends with D1R13 MRMTREOF, and each interval's last frame ends
//!   with D1R11 MRMTREND (IBM). The initial configuration set also ends with D1R11.
//! - The file is a sequence of 4096-byte blocks: a MONWRITE control record (MWTBK, IBM's
//!   control-block page: a 40-byte IUCV buffer, then 12-byte control-area entries: type X'E2'
//!   sample / X'C5' event, domain bits, start and end address in the monitor DCSS), followed
//!   by the DCSS frames holding the records from start to end (inferred: frames
//!   floor(start/4096) .. floor(end/4096), first record at start mod 4096; the end address is
//!   the last byte of the last record). The IUCV buffer is left zero (not modelled). The file
//!   ends with a 4096-byte end-of-data block: a control record with no entries (zvmlab's
//!   reading; IBM's description of MONWRITE's last record is not in the public excerpts).
//!
//! Records: [`layouts`] holds the table (IBM's records carry only fields whose place is
//! published or inferred, and end after the last of them; zvmlab's figures go into records of
//! its own domain, [`layouts::ZVM_DOMAIN`]); [`records`] has one producer per record.

mod chan_records;
mod layouts;
mod records;

pub use crate::monitor::snapshot::{ChanSnap, DevSnap, LpuSnap, Snapshot, StoSnap};
pub use layouts::*;

use crate::sim::Sim;

pub const FRAME: usize = 4096;
/// Simulated time 0 as seconds since 1970-01-01 UTC (2024-01-01 00:00:00 UTC).
pub const EPOCH_UNIX_S: u64 = 1_704_067_200;
/// TOD clock value of 1970-01-01 00:00:00 UTC.
pub const TOD_1970: u64 = 0x7D91_048B_CA00_0000;
/// Monitor DCSS addresses (zvmlab): the configuration area, then the sample area.
pub const DCSS_CONFIG: u32 = 0x0100_0000;
pub const DCSS_SAMPLE: u32 = 0x0110_0000;
/// The origin mark in MTRSYS_HCPCPEID and ZVMSYS_ORIGIN: data written by zvmlab.
pub const ORIGIN: &str = "ZVMLAB";
/// Initial value of a descending CPU-timer field (IBM, SYTPRP_PFXPRBTM, mon640).
pub const CPU_TIMER_START: u64 = 0x7FFF_FFFF_0000_0000;

/// ZVMDCH_FLAGS bits: device active time measured by hardware; behind channel paths; a
/// static or dynamic PAV base.
pub const DCHFLAG_HWACTIVE: u64 = 0x80;
pub const DCHFLAG_CHANNEL: u64 = 0x40;
pub const DCHFLAG_PAV: u64 = 0x20;

/// ZVMDVC_TYPE codes.
pub const DEVTYPE_ECKD: u64 = 1;
pub const DEVTYPE_EDEV: u64 = 2;
pub const DEVTYPE_SCSI: u64 = 3;
/// ZVMDVC_FLAGS bits: a CP-owned paging volume, a minidisk volume.
pub const DEVFLAG_PAGING: u64 = 0x80;
pub const DEVFLAG_MINIDISK: u64 = 0x40;
/// Device numbers zvmlab gives: paging volume k is 0x1000 + k, minidisk volume i 0x2000 + i.
pub const DEVNO_PAGING: u64 = 0x1000;
pub const DEVNO_MINIDISK: u64 = 0x2000;
/// ZVMSTO_FLAGS bits: the storage and paging fields are measured; the MDC fields are.
pub const STOFLAG_PAGING: u64 = 0x80;
pub const STOFLAG_MDC: u64 = 0x40;
/// ZVMPRP_POLAR codes: no PR/SM model, vertical high/medium/low, horizontal, dedicated.
pub const POLAR_NONE: u64 = 0;
pub const POLAR_VH: u64 = 1;
pub const POLAR_VM: u64 = 2;
pub const POLAR_VL: u64 = 3;
pub const POLAR_HZ: u64 = 4;
pub const POLAR_DED: u64 = 5;
/// ZVMPRP_FLAGS bits: parked at the sample; SYTPRP_PFXPRBTM apportioned (the engine does not
/// account guest time per processor: the interval's guest share of user time, see records.rs);
/// the core-time fields are measured (SMT tracking).
pub const PRPFLAG_PARKED: u64 = 0x80;
pub const PRPFLAG_PRB_APPORTIONED: u64 = 0x40;
pub const PRPFLAG_CORETM: u64 = 0x20;
/// ZVMUSE_IOFLAGS bits: the program writes; its device has SET MDC ON; it is paced.
pub const USEFLAG_WRITE: u64 = 0x80;
pub const USEFLAG_MDC: u64 = 0x40;
pub const USEFLAG_PACED: u64 = 0x20;
/// ZVMCUP_FLAGS bits: the LPAR z/VM runs in, dedicated, horizontal polarization.
pub const CUPFLAG_SELF: u64 = 0x80;
pub const CUPFLAG_DEDICATED: u64 = 0x40;
pub const CUPFLAG_HORIZONTAL: u64 = 0x20;
/// ZVMHPP_FLAGS bit: SET PAGING ALIAS ON in effect. Entitlements and shares are in 1/100.
pub const HPPFLAG_PAGING: u64 = 0x80;
/// ZVMCPL_FLAGS bits: limited at the sample, CAPACITY limit (else LIMITHARD), deleted.
/// ZVMCPL_CPUTY as MTRCPD_LIMCPUTY (0 CP, 3 IFL); LIMITV: LIMITHARD % or CAPACITY in 1/100;
/// LIMITC: the limit in 1/100 of a processor (0: none).
pub const CPLFLAG_LIMITED: u64 = 0x80;
pub const CPLFLAG_CAPACITY: u64 = 0x40;
pub const CPLFLAG_DELETED: u64 = 0x20;
/// ZVMCAP_FLAGS bits: initial capping, an absolute cap, a capping group. ABSCAP and GRPCAP in
/// 1/100 of a processor; CAPMIL: the LPAR's cap now in 1/1000 of a core (0: none).
pub const CAPFLAG_INITIAL: u64 = 0x80;
pub const CAPFLAG_ABSOLUTE: u64 = 0x40;
pub const CAPFLAG_GROUP: u64 = 0x20;

/// Simulated nanoseconds as TOD-clock units (bit 51 = 1 us, so 4096 units per microsecond).
pub fn ns_to_tod_units(ns: u64) -> u64 {
    ((ns as u128 * 512) / 125) as u64
}

/// The TOD clock at simulated time `ns`.
pub fn tod_at(ns: u64) -> u64 {
    TOD_1970 + EPOCH_UNIX_S * 1_000_000 * 4096 + ns_to_tod_units(ns)
}

/// EBCDIC (code page 037) for the characters monitor names use; others become '?' (X'6F').
pub fn ebcdic(c: u8) -> u8 {
    match c {
        b' ' => 0x40,
        b'.' => 0x4B,
        b'<' => 0x4C,
        b'(' => 0x4D,
        b'+' => 0x4E,
        b'&' => 0x50,
        b'$' => 0x5B,
        b'*' => 0x5C,
        b')' => 0x5D,
        b';' => 0x5E,
        b'-' => 0x60,
        b'/' => 0x61,
        b',' => 0x6B,
        b'%' => 0x6C,
        b'_' => 0x6D,
        b'>' => 0x6E,
        b':' => 0x7A,
        b'#' => 0x7B,
        b'@' => 0x7C,
        b'\'' => 0x7D,
        b'=' => 0x7E,
        b'"' => 0x7F,
        b'a'..=b'i' => 0x81 + (c - b'a'),
        b'j'..=b'r' => 0x91 + (c - b'j'),
        b's'..=b'z' => 0xA2 + (c - b's'),
        b'A'..=b'I' => 0xC1 + (c - b'A'),
        b'J'..=b'R' => 0xD1 + (c - b'J'),
        b'S'..=b'Z' => 0xE2 + (c - b'S'),
        b'0'..=b'9' => 0xF0 + (c - b'0'),
        _ => 0x6F,
    }
}

/// A value for one field.
pub enum Val<'a> {
    U(u64),
    S(&'a str),
}

/// Put the named values into `r` at `base` + each field's offset (a value too wide for its
/// field keeps its low-order bytes).
fn put_fields(r: &mut [u8], base: usize, fields: &[Field], what: &str, vals: &[(&str, Val)]) {
    for (name, v) in vals {
        let Some(fd) = fields.iter().find(|fd| fd.name == *name) else {
            debug_assert!(false, "{what} has no field {name}");
            continue;
        };
        let (o, n) = (base + fd.offset as usize, fd.len as usize);
        let dst = &mut r[o..o + n];
        match v {
            Val::U(x) => {
                let b = x.to_be_bytes();
                dst.copy_from_slice(&b[8 - n..]);
            }
            Val::S(s) => {
                for (i, d) in dst.iter_mut().enumerate() {
                    *d = s.as_bytes().get(i).map_or(0x40, |c| ebcdic(*c));
                }
            }
        }
    }
}

/// Build one record: the header with `tod`, then the named fields (zeros elsewhere).
pub fn build(l: &Layout, tod: u64, vals: &[(&str, Val)]) -> Vec<u8> {
    build_array(l, tod, vals, &[])
}

/// Build a record with an array of entries after its fixed part (the header fields that count
/// and locate the entries are set here).
pub fn build_array(
    l: &Layout,
    tod: u64,
    vals: &[(&str, Val)],
    entries: &[Vec<(&str, Val)>],
) -> Vec<u8> {
    let elen = l.array.map_or(0, |a| a.entry_len as usize);
    let len = l.len as usize + elen * entries.len();
    let mut r = vec![0u8; len];
    r[0..2].copy_from_slice(&(len as u16).to_be_bytes());
    r[4] = l.domain;
    r[6..8].copy_from_slice(&l.record.to_be_bytes());
    r[8..16].copy_from_slice(&tod.to_be_bytes());
    put_fields(&mut r, 0, l.fields, l.name, vals);
    if let Some(a) = l.array {
        let hdr = [
            (a.count, Val::U(entries.len() as u64)),
            (a.size, Val::U(elen as u64)),
            (a.first, Val::U(l.len as u64)),
        ];
        put_fields(&mut r, 0, l.fields, l.name, &hdr);
        for (i, e) in entries.iter().enumerate() {
            put_fields(&mut r, l.len as usize + i * elen, a.fields, l.name, e);
        }
    }
    r
}

fn control(l: &Layout, tod: u64) -> Vec<u8> {
    build(l, tod, &[])
}

/// Pack records into 4096-byte frames starting at DCSS address `base`, ending with D1R11 at
/// `tod`. Returns the frames and the control-area entry (type, domain bits, start, end).
fn pack(records: &[Vec<u8>], base: u32, tod: u64) -> (Vec<u8>, [u8; 12]) {
    let mut frames = vec![0u8; FRAME];
    let mut pos = 0usize;
    let mut domains: u16 = 0;
    let eof = control(&MTREOF, tod);
    let end_rec = control(&MTREND, tod);
    let put = |frames: &mut Vec<u8>, pos: &mut usize, r: &[u8]| {
        let at = frames.len() - FRAME + *pos;
        frames[at..at + r.len()].copy_from_slice(r);
        *pos += r.len();
    };
    for r in records.iter().chain(std::iter::once(&end_rec)) {
        // Keep room for an end-of-frame record after every record but the interval end.
        let room = if r.len() == MTREND.len as usize && r[4] == 1 && r[7] == 11 {
            0
        } else {
            MTREOF.len as usize
        };
        if pos + r.len() + room > FRAME {
            put(&mut frames, &mut pos, &eof);
            frames.resize(frames.len() + FRAME, 0);
            pos = 0;
        }
        domains |= domain_bit(r[4]);
        put(&mut frames, &mut pos, r);
    }
    let end = base + (frames.len() - FRAME + pos) as u32 - 1;
    let mut e = [0u8; 12];
    e[0] = 0xE2; // 'S': sample data
    e[1..3].copy_from_slice(&domains.to_be_bytes());
    e[4..8].copy_from_slice(&base.to_be_bytes());
    e[8..12].copy_from_slice(&end.to_be_bytes());
    (frames, e)
}

/// MWTCADMA bits: X'80' = domain 0 ... X'01' = domain 7 in the first byte, domains 8..15 in
/// the second (the second byte is inferred).
fn domain_bit(d: u8) -> u16 {
    if d < 16 {
        0x8000 >> d
    } else {
        0
    }
}

/// A MONWRITE control record (MWTBK) with the given control-area entries (none: the
/// end-of-data block).
fn mwtbk(entries: &[[u8; 12]]) -> Vec<u8> {
    let mut b = vec![0u8; FRAME];
    for (i, e) in entries.iter().enumerate().take((FRAME - 40) / 12) {
        b[40 + 12 * i..52 + 12 * i].copy_from_slice(e);
    }
    b
}

/// The run's monitor data as a MONWRITE file: the configuration set, one sample set per
/// monitor interval, and the end-of-data block. Deterministic: the same run gives the same bytes.
pub fn write(sim: &Sim) -> Vec<u8> {
    let mut out = Vec::new();
    let (frames, e) = pack(&records::config(sim), DCSS_CONFIG, tod_at(0));
    out.extend(mwtbk(&[e]));
    out.extend(frames);
    let mut c = records::Cum::new(sim);
    for iv in sim.mon.intervals() {
        c.add(iv);
        let recs = records::interval(sim, &c, iv.end, &iv.snap);
        let (frames, e) = pack(&recs, DCSS_SAMPLE, tod_at(iv.end));
        out.extend(mwtbk(&[e]));
        out.extend(frames);
    }
    out.extend(mwtbk(&[]));
    out
}

impl Sim {
    /// The monitor data of the run so far, in MONWRITE format (see [`crate::monwrite`]).
    pub fn monitor_bytes(&self) -> Vec<u8> {
        write(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;

    fn sim(users: usize, procs: u32) -> Sim {
        let guests: Vec<String> = (0..users)
            .map(|i| {
                format!(
                    r#"{{"userid":"U{i}","vcpus":1,"count":1,"quickdsp":false,"share":{{"min":{{"kind":"relative","value":100.0}},"limit":"none"}},"workload":{{"kind":"cpu-bound","dist":"exp","demand":0.5}}}}"#
                )
            })
            .collect();
        let cfg = Config::from_json(&format!(
            r#"{{"level":"zvm-6.4","processors":{procs},"smt":"off","duration_ns":10000000000,"interval_ns":2000000000,"seed":1,"params":{{}},"switches":{{}},"actions":[],"guests":[{}]}}"#,
            guests.join(",")
        ))
        .unwrap();
        let mut s = Sim::new(cfg).unwrap();
        s.run();
        s
    }

    #[test]
    fn tod_units_round_trip_exactly() {
        for ns in [
            0u64,
            1,
            2,
            3,
            999,
            1000,
            123_456_789,
            600_000_000_000,
            u64::MAX / 8,
        ] {
            let t = ns_to_tod_units(ns) as u128;
            let back = (t * 125).div_ceil(512);
            assert_eq!(back as u64, ns);
        }
        // 1970-01-01 + EPOCH: microseconds since 1900 times 4096.
        assert_eq!(tod_at(0) % 4096, 0);
    }

    #[test]
    fn ebcdic_letters_digits() {
        let s: Vec<u8> = "USER0 a9".bytes().map(ebcdic).collect();
        assert_eq!(s, vec![0xE4, 0xE2, 0xC5, 0xD9, 0xF0, 0x40, 0x81, 0xF9]);
    }

    #[test]
    fn fields_fit_and_do_not_overlap() {
        let check = |name: &str, len: usize, start: usize, fields: &[Field]| {
            let mut used = vec![false; len];
            used[..start].iter_mut().for_each(|u| *u = true);
            for fd in fields {
                let (o, n) = (fd.offset as usize, fd.len as usize);
                assert!(n > 0 && o >= start && o + n <= len, "{name} {}", fd.name);
                for u in &mut used[o..o + n] {
                    assert!(!*u, "{name} {} overlaps", fd.name);
                    *u = true;
                }
            }
        };
        for l in LAYOUTS {
            check(l.name, l.len as usize, 20, l.fields);
            if let Some(a) = l.array {
                check(l.name, a.entry_len as usize, 0, a.fields);
            }
            // IBM's records end with their last written field; zvmlab's are in its own domain.
            let zvmlab = l.fields.iter().any(|f| f.source == "zvmlab");
            assert_eq!(zvmlab, l.domain == ZVM_DOMAIN, "{}", l.name);
            if l.domain != ZVM_DOMAIN && !l.fields.is_empty() && l.array.is_none() {
                let end = l.fields.iter().map(|f| f.offset + f.len as u16).max();
                assert_eq!(end, Some(l.len), "{}", l.name);
            }
        }
    }

    #[test]
    fn lock_record_has_ibm_structure() {
        let s = sim(2, 2);
        let c = {
            let mut c = records::Cum::new(&s);
            for iv in s.mon.intervals() {
                c.add(iv);
            }
            c
        };
        let r = records::interval(&s, &c, s.now, &s.mon.intervals()[0].snap);
        let l = r.iter().find(|r| r[4] == 0 && r[7] == 23).unwrap();
        let n = u32::from_be_bytes(l[20..24].try_into().unwrap()) as usize;
        let size = u16::from_be_bytes([l[24], l[25]]) as usize;
        let first = u16::from_be_bytes([l[26], l[27]]) as usize;
        assert_eq!((size, first), (32, 32));
        assert_eq!(l.len(), first + n * size);
        assert_eq!(u16::from_be_bytes([l[0], l[1]]) as usize, l.len());
        let names: Vec<u8> = "SRMSLOCK".bytes().map(ebcdic).collect();
        assert_eq!(&l[first..first + 8], &names[..]);
    }

    #[test]
    fn scheduler_record_carries_the_queues_at_the_sample() {
        // Five half-busy users on two processors: some on the dispatch list at each sample.
        let s = sim(5, 2);
        let c = records::Cum::new(&s);
        let be = |r: &[u8], o: usize| u16::from_be_bytes([r[o], r[o + 1]]) as u32;
        for iv in s.mon.intervals() {
            let r = records::interval(&s, &c, iv.end, &iv.snap);
            let g: Vec<&Vec<u8>> = r.iter().filter(|r| r[4] == 0 && r[7] == 10).collect();
            assert_eq!(g.len(), 1, "one MRSYTSCG per sample");
            let (g, q) = (g[0], &iv.snap.queues);
            assert_eq!((g.len(), be(g, 0)), (48, 48));
            assert_eq!(be(g, 20), q.dispatch);
            let fields = [24, 26, 28, 30, 32, 34].map(|o| be(g, o));
            let want = [q.dispatch_from, q.eligible_from].concat();
            assert_eq!(fields.to_vec(), want);
            assert!(q.dispatch <= 5 && q.dispatch_from[0] <= q.dispatch);
            assert!(q.dispatch_from.windows(2).all(|w| w[0] >= w[1]));
        }
        assert!(s
            .mon
            .intervals()
            .iter()
            .any(|iv| iv.snap.queues.dispatch > 0));
    }

    #[test]
    fn blocks_frames_and_control_records() {
        let s = sim(4, 3);
        let b = s.monitor_bytes();
        assert_eq!(b.len() % FRAME, 0);
        // config set + 5 intervals, each one control record and one frame; end of data
        assert_eq!(b.len(), FRAME * (2 * 6 + 1));
        assert!(b[b.len() - FRAME..].iter().all(|x| *x == 0));
        assert_eq!(b, s.monitor_bytes(), "deterministic");
        for g in 0..6 {
            let cr = &b[2 * g * FRAME..(2 * g + 1) * FRAME];
            assert_eq!(cr[40], 0xE2);
            let start = u32::from_be_bytes(cr[44..48].try_into().unwrap());
            let end = u32::from_be_bytes(cr[48..52].try_into().unwrap());
            assert!(start <= end && ((end - start) as usize) < FRAME);
            let fr = &b[(2 * g + 1) * FRAME..(2 * g + 2) * FRAME];
            // last record is the interval end
            let last = (end - start + 1) as usize - 20;
            assert_eq!(&fr[last..last + 8], &[0, 20, 0, 0, 1, 0, 0, 11]);
        }
    }

    #[test]
    fn many_records_span_frames_with_end_of_frame() {
        let mut records = Vec::new();
        for i in 0..200u64 {
            records.push(build(&SYTPRP, 7, &[("SYTPRP_PFXCPUAD", Val::U(i))]));
        }
        let (frames, e) = pack(&records, DCSS_SAMPLE, 7);
        let end = u32::from_be_bytes(e[8..12].try_into().unwrap());
        assert_eq!(
            frames.len(),
            FRAME * ((end - DCSS_SAMPLE) as usize / FRAME + 1)
        );
        // walk: every frame ends with EOF except the last which has MTREND
        let mut n = 0;
        for (fi, fr) in frames.chunks(FRAME).enumerate() {
            let mut p = 0;
            loop {
                let len = u16::from_be_bytes([fr[p], fr[p + 1]]) as usize;
                let rec = u16::from_be_bytes([fr[p + 6], fr[p + 7]]);
                assert!(p + len <= FRAME);
                if fr[p + 4] == 1 && rec == 13 {
                    assert!(fi + 1 < frames.len() / FRAME);
                    break;
                }
                if fr[p + 4] == 1 && rec == 11 {
                    assert_eq!(fi + 1, frames.len() / FRAME);
                    break;
                }
                n += 1;
                p += len;
            }
        }
        assert_eq!(n, 200);
    }
}
