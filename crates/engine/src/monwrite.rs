//! Monitor data in MONWRITE format: the engine's interval samples as CP monitor records.
//!
//! What the bytes look like (shared/research/monitor-data.md; "confirmed" = read on IBM's
//! monitor-record and control-block pages, "inferred" = our reading of them or of the zpmd
//! decoder's z/VM 5.3 field order, "zvmlab" = placed by us where IBM's offsets are not yet
//! transcribed):
//!
//! - Every record starts with the 20-byte MRRECHDR (confirmed): length (2, counts the header),
//!   zeros (2), domain (1), reserved (1), record number (2), TOD clock of the build (8),
//!   reserved (4). Integers are big-endian, character fields EBCDIC (code page 037), padded
//!   with EBCDIC blanks.
//! - TOD clock: bit 51 = 1 microsecond, epoch 1900-01-01 (confirmed). A run's simulated time 0
//!   is [`EPOCH_UNIX_S`]; a record's TOD = that instant + simulated time, so the same run gives
//!   the same bytes. Durations (CPU times) are in the same units, floor(ns * 4096 / 1000): a
//!   reader recovers the engine's nanoseconds exactly as ceil(units * 1000 / 4096).
//! - Records are packed back to back in 4096-byte frames and never span a frame; a frame whose
//!   next record would not fit ends with D1R13 MRMTREOF, and each interval's last frame ends
//!   with D1R11 MRMTREND (both confirmed). The initial configuration set also ends with D1R11.
//! - The file is a sequence of 4096-byte blocks: a MONWRITE control record (MWTBK, confirmed
//!   layout: a 40-byte IUCV buffer, then 12-byte control-area entries: type X'E2' sample /
//!   X'C5' event, domain bits, start and end address in the monitor DCSS), followed by the DCSS
//!   frames that hold the records from start to end (inferred: frames floor(start/4096) ..
//!   floor(end/4096), first record at start mod 4096; the end address is the last byte of the
//!   last record). We leave the IUCV buffer zero (its IPARML contents are not modelled) and
//!   write one control record with one entry per configuration set and per interval.
//!
//! Records written (the table [`LAYOUTS`] gives every field with its provenance):
//! - D1R4 MRMTRSYS (configuration, once): processors, system and LPAR name, IPL time, level.
//! - D0R2 MRSYTPRP (per logical processor, every interval): cumulative time charged to users,
//!   system time and wait time. The emulation-time field is all ones: the engine does not
//!   account guest time per processor (zvmlab convention: all ones = not measured).
//! - D4R3 MRUSEACT (per user, every interval): cumulative total and virtual CPU time. One
//!   record per user, carrying the user's totals: the engine accounts per user, not per
//!   virtual CPU.
//! - D10R2 MRAPLSDT (per user, every interval): application data, as a workload driver would
//!   report through DIAGNOSE X'DC': cumulative transactions completed (gives ETR).
//! - D0R23 MRSYTLCK (per formal spin lock, every interval): cumulative acquires, collisions and
//!   spin time, exclusive and shared (zvmlab placement: IBM's offsets are not transcribed).
//! - D6R3 MRIODDEV (per paging and minidisk volume, every interval): cumulative SSCHs, blocks,
//!   reads, writes and pend/disconnect/connect/queue/service time (zvmlab placement).
//! - D3R4 MRSTOASP (per paging volume): volser, device number, slots (zpmd 5.3 offsets).
//! - D3R1 MRSTORSG: frames, resident pages, pages read/written, faults, slots used (zvmlab).
//! - D4R3 MRUSEACT also carries the user's page reads, steals and resident pages (zvmlab).
//! - D0R2 MRSYTPRP also carries core, polarization, suspended and parked time and the core's
//!   one- and two-thread time (zvmlab, bytes 108..144); D0R16 MRSYTCUP (per LPAR of the CPC)
//!   and D0R17 MRSYTCUM (PR/SM dispatches and management time, unparked time) with a [cpc].
//! - D1R11 MRMTREND and D1R13 MRMTREOF (control).
//!
//! Later issues add records by adding a layout to [`LAYOUTS`] and a producer in
//! [`interval_records`] (scheduler D2R4/R5, HyperPAV D6R28/D1R20, park/unpark D5R16); inputs the
//! interval deltas do not hold go into [`Snapshot`], taken at every sample.

use crate::sim::Sim;
use serde::Serialize;

pub const FRAME: usize = 4096;
/// Simulated time 0 as seconds since 1970-01-01 UTC (2024-01-01 00:00:00 UTC).
pub const EPOCH_UNIX_S: u64 = 1_704_067_200;
/// TOD clock value of 1970-01-01 00:00:00 UTC.
pub const TOD_1970: u64 = 0x7D91_048B_CA00_0000;
/// Monitor DCSS addresses (zvmlab): the configuration area, then the sample area.
pub const DCSS_CONFIG: u32 = 0x0100_0000;
pub const DCSS_SAMPLE: u32 = 0x0110_0000;
/// The origin mark in MTRSYS_HCPCPEID: data written by zvmlab.
pub const ORIGIN: &str = "ZVMLAB";
/// Initial value of a descending CPU-timer field (confirmed for SYTPRP_PFXPRBTM, mon640).
pub const CPU_TIMER_START: u64 = 0x7FFF_FFFF_0000_0000;
/// zvmlab convention: a CPU-timer field the simulator does not measure holds all ones.
pub const NOT_MEASURED: u64 = u64::MAX;

/// Simulated nanoseconds as TOD-clock units (bit 51 = 1 us, so 4096 units per microsecond).
pub fn ns_to_tod_units(ns: u64) -> u64 {
    ((ns as u128 * 512) / 125) as u64
}

/// The TOD clock at simulated time `ns`.
pub fn tod_at(ns: u64) -> u64 {
    TOD_1970 + EPOCH_UNIX_S * 1_000_000 * 4096 + ns_to_tod_units(ns)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Unsigned big-endian integer.
    Uint,
    /// EBCDIC characters, blank padded.
    Char,
    /// A TOD-clock value or a duration in TOD units (ascending).
    Tod,
    /// A CPU-timer style duration that counts down from CPU_TIMER_START.
    Timerdown,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Field {
    pub name: &'static str,
    pub offset: u16,
    pub len: u8,
    pub kind: Kind,
    /// Where the offset comes from: "ibm:<page release>" (confirmed), "zpmd:5.3" (inferred
    /// from the zpmd decoder's field order), or "zvmlab" (our placement).
    pub source: &'static str,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Layout {
    pub domain: u8,
    pub record: u16,
    pub name: &'static str,
    pub title: &'static str,
    /// The record length zvmlab writes (MRHDRLEN), header included.
    pub len: u16,
    pub fields: &'static [Field],
}

const fn f(name: &'static str, offset: u16, len: u8, kind: Kind, source: &'static str) -> Field {
    Field {
        name,
        offset,
        len,
        kind,
        source,
    }
}

use Kind::*;

pub const MTRSYS: Layout = Layout {
    domain: 1,
    record: 4,
    name: "MRMTRSYS",
    title: "System Configuration Data",
    len: 200,
    fields: &[
        f("MTRSYS_HCPCPEID", 28, 8, Char, "zpmd:5.3"),
        f("MTRSYS_SYSTODST", 36, 8, Tod, "zpmd:5.3"),
        f("MTRSYS_SYSZONE", 80, 4, Uint, "zpmd:5.3"),
        f("MTRSYS_SYSTMID", 88, 8, Char, "zpmd:5.3"),
        f("MTRSYS_CPUCOUNT", 152, 2, Uint, "zpmd:5.3"),
        f("MTRSYS_CPUCFGCT", 154, 2, Uint, "zpmd:5.3"),
        f("MTRSYS_LPARNAME", 160, 8, Char, "zpmd:5.3"),
        f("MTRSYS_ZVMLEVEL", 184, 16, Char, "zvmlab"),
    ],
};

pub const SYTPRP: Layout = Layout {
    domain: 0,
    record: 2,
    name: "MRSYTPRP",
    title: "Processor Data (per processor)",
    len: 144,
    fields: &[
        f("SYTPRP_PFXCPUAD", 20, 2, Uint, "ibm:mon640"),
        f("SYTPRP_PLSCUHAF", 22, 2, Uint, "ibm:mon640"),
        f("SYTPRP_PFXPRBTM", 24, 8, Timerdown, "ibm:mon640"),
        f("SYTPRP_PFXUTIME", 32, 8, Tod, "ibm:mon640"),
        f("SYTPRP_PFXTMSYS", 40, 8, Tod, "zpmd:5.3"),
        f("SYTPRP_PFXTOTWT", 68, 8, Tod, "zpmd:5.3"),
        f("SYTPRP_PFXCPUTY", 104, 1, Uint, "zpmd:5.3"),
        // PR/SM, parking and SMT (FCX304 PRCLOG), placed by zvmlab after the 5.3 record: the
        // core of the thread, its polarization (POLAR_*), flags (X'80' parked at the sample),
        // cumulative suspended and parked time, and its core's time with one and with two
        // busy threads (all ones without SMT tracking).
        f("SYTPRP_CORE", 108, 2, Uint, "zvmlab"),
        f("SYTPRP_POLAR", 110, 1, Uint, "zvmlab"),
        f("SYTPRP_FLAGS", 111, 1, Uint, "zvmlab"),
        f("SYTPRP_SUSPTM", 112, 8, Tod, "zvmlab"),
        f("SYTPRP_PARKTM", 120, 8, Tod, "zvmlab"),
        f("SYTPRP_CORE1TM", 128, 8, Tod, "zvmlab"),
        f("SYTPRP_CORE2TM", 136, 8, Tod, "zvmlab"),
    ],
};

pub const USEACT: Layout = Layout {
    domain: 4,
    record: 3,
    name: "MRUSEACT",
    title: "User Activity Data",
    len: 152,
    fields: &[
        f("USEACT_VMDUSER", 20, 8, Char, "ibm:mon520"),
        f("USEACT_VMDCPUAD", 28, 2, Uint, "ibm:mon520"),
        f("USEACT_VMDTTIME", 40, 8, Tod, "zvmlab"),
        f("USEACT_VMDVTIME", 48, 8, Tod, "zvmlab"),
        f("USEACT_VCPUCNT", 56, 2, Uint, "zvmlab"),
        // Paging (cumulative page reads from DASD, pages stolen to DASD) and resident pages
        // at the sample (FCX113 UPAGE).
        f("USEACT_PGREADS", 64, 8, Uint, "zvmlab"),
        f("USEACT_PGSTEALS", 72, 8, Uint, "zvmlab"),
        f("USEACT_RESPAGES", 80, 8, Uint, "zvmlab"),
        // Wait-state analysis (FCX114 USTAT): cumulative time the user's virtual CPUs spent in
        // each state (crate::sim::VState), exact rather than IBM's high-frequency samples.
        f("USEACT_STDORM", 88, 8, Tod, "zvmlab"),
        f("USEACT_STELIG", 96, 8, Tod, "zvmlab"),
        f("USEACT_STLIMIT", 104, 8, Tod, "zvmlab"),
        f("USEACT_STCPUWT", 112, 8, Tod, "zvmlab"),
        f("USEACT_STRUN", 120, 8, Tod, "zvmlab"),
        f("USEACT_STPGWT", 128, 8, Tod, "zvmlab"),
        f("USEACT_STIOWT", 136, 8, Tod, "zvmlab"),
        // Test idle: dormant while the user stays on the dispatch list (not in USEACT_STDORM).
        f("USEACT_STTIDL", 144, 8, Tod, "zvmlab"),
    ],
};

pub const APLSDT: Layout = Layout {
    domain: 10,
    record: 2,
    name: "MRAPLSDT",
    title: "Application Data Sample Record",
    len: 68,
    fields: &[
        f("APLSDT_USERID", 20, 8, Char, "zvmlab"),
        f("APLSDT_CALDATOF", 28, 2, Uint, "zvmlab"),
        f("APLSDT_DATALEN", 30, 2, Uint, "zvmlab"),
        f("APLSDT_PRODID", 32, 16, Char, "zvmlab"),
        // Application data (located by APLSDT_CALDATOF; 52 = the 52-byte APLSDT_APHDR, ibm:mon750).
        f("ADATA_TXDONE", 52, 8, Uint, "zvmlab"),
        f("ADATA_TXSTART", 60, 8, Uint, "zvmlab"),
    ],
};

pub const SYTLCK: Layout = Layout {
    domain: 0,
    record: 23,
    name: "MRSYTLCK",
    title: "Formal Spin Lock Data",
    len: 76,
    fields: &[
        f("SYTLCK_LOCKNAME", 20, 8, Char, "zvmlab"),
        f("SYTLCK_ACQEXCL", 28, 8, Uint, "zvmlab"),
        f("SYTLCK_ACQSHR", 36, 8, Uint, "zvmlab"),
        f("SYTLCK_COLLEXCL", 44, 8, Uint, "zvmlab"),
        f("SYTLCK_COLLSHR", 52, 8, Uint, "zvmlab"),
        f("SYTLCK_SPINEXCL", 60, 8, Tod, "zvmlab"),
        f("SYTLCK_SPINSHR", 68, 8, Tod, "zvmlab"),
    ],
};

pub const IODDEV: Layout = Layout {
    domain: 6,
    record: 3,
    name: "MRIODDEV",
    title: "Device Activity",
    len: 120,
    fields: &[
        // IBM's MRIODDEV offsets are not transcribed (monitor-data.md 1.5): every field is
        // placed by zvmlab; the names follow IBM's (SCM* = subchannel measurement), the widths
        // are 8 bytes (IBM's SCM counters are 2 and 4 bytes in 128-microsecond units).
        f("IODDEV_RDEVDEV", 20, 2, Uint, "zvmlab"),
        f("IODDEV_RDEVSER", 22, 6, Char, "zvmlab"),
        f("IODDEV_RDEVTYPE", 28, 1, Uint, "zvmlab"),
        f("IODDEV_CALFLAG1", 29, 1, Uint, "zvmlab"),
        f("IODDEV_EXPOSURES", 30, 2, Uint, "zvmlab"),
        f("IODDEV_SCMSSCH", 32, 8, Uint, "zvmlab"),
        f("IODDEV_BLOCKS", 40, 8, Uint, "zvmlab"),
        f("IODDEV_RDEVRDCT", 48, 8, Uint, "zvmlab"),
        f("IODDEV_RDEVWRCT", 56, 8, Uint, "zvmlab"),
        f("IODDEV_SCMFPTIM", 64, 8, Tod, "zvmlab"),
        f("IODDEV_SCMDDTIM", 72, 8, Tod, "zvmlab"),
        f("IODDEV_SCMCNTIM", 80, 8, Tod, "zvmlab"),
        f("IODDEV_QUEUETIM", 88, 8, Tod, "zvmlab"),
        f("IODDEV_BUSYTIM", 96, 8, Tod, "zvmlab"),
        f("IODDEV_MAXQUEUE", 104, 8, Uint, "zvmlab"),
        // HyperPAV: service time of the volume's I/Os that ran on aliases (FCX108 %Busy is
        // the bases' own: IODDEV_BUSYTIM minus this).
        f("IODDEV_ALIASTIM", 112, 8, Tod, "zvmlab"),
    ],
};

/// IODDEV_RDEVTYPE codes (zvmlab).
pub const DEVTYPE_ECKD: u64 = 1;
pub const DEVTYPE_EDEV: u64 = 2;
pub const DEVTYPE_SCSI: u64 = 3;
/// IODDEV_CALFLAG1 bits (zvmlab): a CP-owned paging volume, a minidisk volume.
pub const DEVFLAG_PAGING: u64 = 0x80;
pub const DEVFLAG_MINIDISK: u64 = 0x40;
/// Device numbers zvmlab gives: paging volume k is 0x1000 + k, minidisk volume i 0x2000 + i.
pub const DEVNO_PAGING: u64 = 0x1000;
pub const DEVNO_MINIDISK: u64 = 0x2000;

pub const STOASP: Layout = Layout {
    domain: 3,
    record: 4,
    name: "MRSTOASP",
    title: "Auxiliary Storage Management (per exposure)",
    len: 172,
    fields: &[
        f("STOASP_CALVSER", 20, 6, Char, "zpmd:5.3"),
        f("STOASP_RDEVDEV", 26, 2, Uint, "zpmd:5.3"),
        f("STOASP_CALPAGE", 36, 4, Uint, "zpmd:5.3"),
        f("STOASP_CALFLAG1", 70, 1, Uint, "zpmd:5.3"),
    ],
};

pub const STORSG: Layout = Layout {
    domain: 3,
    record: 1,
    name: "MRSTORSG",
    title: "Real Storage Management (global)",
    len: 176,
    fields: &[
        // zvmlab placement after IBM's first fields (CALSSUBT, RSASAVFR, RSAMAXPP: mon630).
        f("STORSG_FRAMES", 40, 8, Uint, "zvmlab"),
        f("STORSG_RESIDENT", 48, 8, Uint, "zvmlab"),
        f("STORSG_PGREADS", 56, 8, Uint, "zvmlab"),
        f("STORSG_PGWRITES", 64, 8, Uint, "zvmlab"),
        f("STORSG_FAULTS", 72, 8, Uint, "zvmlab"),
        f("STORSG_FIRSTTCH", 80, 8, Uint, "zvmlab"),
        f("STORSG_SLOTS", 88, 8, Uint, "zvmlab"),
        f("STORSG_SLOTSUSED", 96, 8, Uint, "zvmlab"),
        // What the record carries (STOFLAG_*), then the minidisk cache (FCX178 MDCSTOR):
        // its maximum and target (frames), frames in use below / above 2 GB at the sample,
        // cumulative reads, hits, inserts and steals (all zvmlab's).
        f("STORSG_ZVMFLAGS", 104, 1, Uint, "zvmlab"),
        f("STORSG_MDCMAX", 112, 8, Uint, "zvmlab"),
        f("STORSG_MDCTARGT", 120, 8, Uint, "zvmlab"),
        f("STORSG_MDCBELOW", 128, 8, Uint, "zvmlab"),
        f("STORSG_MDCABOVE", 136, 8, Uint, "zvmlab"),
        f("STORSG_MDCREADS", 144, 8, Uint, "zvmlab"),
        f("STORSG_MDCHITS", 152, 8, Uint, "zvmlab"),
        f("STORSG_MDCINS", 160, 8, Uint, "zvmlab"),
        f("STORSG_MDCSTEAL", 168, 8, Uint, "zvmlab"),
    ],
};

/// STORSG_ZVMFLAGS bits: the storage and paging fields are measured; the MDC fields are.
pub const STOFLAG_PAGING: u64 = 0x80;
pub const STOFLAG_MDC: u64 = 0x40;

pub const SYTCUP: Layout = Layout {
    domain: 0,
    record: 16,
    name: "MRSYTCUP",
    title: "CPU Utilization in a Logical Partition",
    len: 48,
    fields: &[
        // One record per LPAR of the CPC per interval; IBM's offsets are not transcribed, all
        // fields are zvmlab's (configuration: the partners' demand is not measured).
        f("SYTCUP_LPNAME", 20, 8, Char, "zvmlab"),
        f("SYTCUP_LPNUM", 28, 2, Uint, "zvmlab"),
        f("SYTCUP_LCPUS", 30, 2, Uint, "zvmlab"),
        f("SYTCUP_WEIGHT", 32, 4, Uint, "zvmlab"),
        f("SYTCUP_ENTMIL", 36, 4, Uint, "zvmlab"),
        f("SYTCUP_FLAGS", 40, 1, Uint, "zvmlab"),
        f("SYTCUP_VH", 41, 1, Uint, "zvmlab"),
        f("SYTCUP_VM", 42, 1, Uint, "zvmlab"),
        f("SYTCUP_VL", 43, 1, Uint, "zvmlab"),
        f("SYTCUP_HZ", 44, 1, Uint, "zvmlab"),
        f("SYTCUP_DED", 45, 1, Uint, "zvmlab"),
    ],
};

pub const SYTCUM: Layout = Layout {
    domain: 0,
    record: 17,
    name: "MRSYTCUM",
    title: "Physical CPU Utilization",
    len: 72,
    fields: &[
        // One record per interval (zvmlab placement): shared and dedicated physical cores,
        // cumulative PR/SM dispatches and management time (this LPAR's, the CPC's), and the
        // unparked-core time integrals (core time, all unparked and vertical-low unparked).
        f("SYTCUM_SHARED", 20, 2, Uint, "zvmlab"),
        f("SYTCUM_DEDIC", 22, 2, Uint, "zvmlab"),
        f("SYTCUM_LPDISP", 24, 8, Uint, "zvmlab"),
        f("SYTCUM_CPCDISP", 32, 8, Uint, "zvmlab"),
        f("SYTCUM_LPMGTTM", 40, 8, Tod, "zvmlab"),
        f("SYTCUM_CPCMGTTM", 48, 8, Tod, "zvmlab"),
        f("SYTCUM_UNPARKTM", 56, 8, Tod, "zvmlab"),
        f("SYTCUM_UNPARKVL", 64, 8, Tod, "zvmlab"),
    ],
};

/// SYTPRP_POLAR codes (zvmlab): no PR/SM model, vertical high/medium/low, horizontal, dedicated.
pub const POLAR_NONE: u64 = 0;
pub const POLAR_VH: u64 = 1;
pub const POLAR_VM: u64 = 2;
pub const POLAR_VL: u64 = 3;
pub const POLAR_HZ: u64 = 4;
pub const POLAR_DED: u64 = 5;
/// SYTPRP_FLAGS bit: parked at the sample. SYTCUP_FLAGS bits: the LPAR z/VM runs in, dedicated.
pub const PRPFLAG_PARKED: u64 = 0x80;
pub const CUPFLAG_SELF: u64 = 0x80;
pub const CUPFLAG_DEDICATED: u64 = 0x40;

pub const IODHPP: Layout = Layout {
    domain: 6,
    record: 28,
    name: "MRIODHPP",
    title: "HyperPAV Pool Activity",
    len: 96,
    fields: &[
        // Record number and name confirmed (seed 000: z/VM 6.4 GA monitor record changes,
        // D6R28 MRIODHPP); one record per pool per interval, every field placed by zvmlab:
        // cumulative alias time in use (TOD units) and counts per I/O type (paging, minidisk).
        f("IODHPP_POOL", 20, 2, Uint, "zvmlab"),
        f("IODHPP_ALIASES", 22, 2, Uint, "zvmlab"),
        f("IODHPP_FLAGS", 24, 1, Uint, "zvmlab"),
        f("IODHPP_ENTPG", 28, 4, Uint, "zvmlab"),
        f("IODHPP_ENTMD", 32, 4, Uint, "zvmlab"),
        f("IODHPP_SHRPG", 36, 4, Uint, "zvmlab"),
        f("IODHPP_SHRMD", 40, 4, Uint, "zvmlab"),
        f("IODHPP_INUSEPG", 44, 8, Tod, "zvmlab"),
        f("IODHPP_INUSEMD", 52, 8, Tod, "zvmlab"),
        f("IODHPP_MAXPG", 60, 2, Uint, "zvmlab"),
        f("IODHPP_MAXMD", 62, 2, Uint, "zvmlab"),
        f("IODHPP_TAKENPG", 64, 8, Uint, "zvmlab"),
        f("IODHPP_TAKENMD", 72, 8, Uint, "zvmlab"),
        f("IODHPP_QUEUEDPG", 80, 8, Uint, "zvmlab"),
        f("IODHPP_QUEUEDMD", 88, 8, Uint, "zvmlab"),
    ],
};

/// IODHPP_FLAGS bit: SET PAGING ALIAS ON in effect. Entitlements and shares are in 1/100.
pub const HPPFLAG_PAGING: u64 = 0x80;

pub const MTREND: Layout = Layout {
    domain: 1,
    record: 11,
    name: "MRMTREND",
    title: "Interval End",
    len: 20,
    fields: &[],
};

pub const MTREOF: Layout = Layout {
    domain: 1,
    record: 13,
    name: "MRMTREOF",
    title: "End of Frame",
    len: 20,
    fields: &[],
};

/// Every record zvmlab writes.
pub const LAYOUTS: &[Layout] = &[
    MTRSYS, SYTPRP, USEACT, APLSDT, SYTLCK, IODDEV, STOASP, STORSG, SYTCUP, SYTCUM, IODHPP, MTREND,
    MTREOF,
];

/// The product id of zvmlab's workload APPLDATA (APLSDT_PRODID).
pub const APPL_PRODID: &str = "ZVMLAB  WORKLOAD";

/// The writer's layout table as JSON (the Python reader checks its own table against it).
pub fn layouts_json() -> String {
    serde_json::to_string(LAYOUTS).unwrap_or_default()
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

/// Build one record: the header with `tod`, then the named fields (zeros elsewhere).
pub fn build(l: &Layout, tod: u64, vals: &[(&str, Val)]) -> Vec<u8> {
    let mut r = vec![0u8; l.len as usize];
    r[0..2].copy_from_slice(&l.len.to_be_bytes());
    r[4] = l.domain;
    r[6..8].copy_from_slice(&l.record.to_be_bytes());
    r[8..16].copy_from_slice(&tod.to_be_bytes());
    for (name, v) in vals {
        let Some(fd) = l.fields.iter().find(|fd| fd.name == *name) else {
            debug_assert!(false, "{} has no field {}", l.name, name);
            continue;
        };
        let (o, n) = (fd.offset as usize, fd.len as usize);
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

/// A MONWRITE control record (MWTBK) with the given control-area entries.
fn mwtbk(entries: &[[u8; 12]]) -> Vec<u8> {
    let mut b = vec![0u8; FRAME];
    for (i, e) in entries.iter().enumerate().take((FRAME - 40) / 12) {
        b[40 + 12 * i..52 + 12 * i].copy_from_slice(e);
    }
    b
}

/// What the monitor records beyond the interval deltas of [`crate::monitor::IntervalRec`]:
/// cumulative device and storage counters at the sample instant (as CP's records carry them).
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// Paging volumes, then minidisk volumes: (name, type, exposures, slots, counters).
    pub devices: Vec<DevSnap>,
    pub storage: Option<StoSnap>,
    /// Per user: (pages read, pages stolen, resident pages); empty without a storage model.
    pub users: Vec<(u64, u64, u64)>,
    /// Per user: time its virtual CPUs spent in each state up to the sample (dormant without
    /// test idle), and test idle (FCX114 USTAT; `Sim::user_wait_states`).
    pub states: Vec<[u64; crate::sim::N_VSTATES]>,
    pub tidle: Vec<u64>,
    /// Per logical processor: (core, suspended ns, parked ns, parked now, core time with one
    /// busy thread, with two: None without SMT tracking).
    pub lpus: Vec<LpuSnap>,
    /// PR/SM counters (Sim::prsm_monitor_counters); None without a [cpc].
    pub prsm: Option<(u64, f64, u64, f64, f64)>,
    /// The minidisk cache at the sample: max, target, below, above, reads, hits, inserts, steals.
    pub mdc: Option<[u64; 8]>,
    /// The HyperPAV pool (hyperpav.rs) at the sample, alias time integrated to it; None
    /// without a [cu].
    pub hpp: Option<(crate::hyperpav::AliasPool, [u64; 2])>,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LpuSnap {
    pub core: u32,
    pub susp_ns: u64,
    pub parked_ns: u64,
    pub parked: bool,
    pub core_t: Option<(u64, u64)>,
}

#[derive(Clone, Debug)]
pub struct DevSnap {
    pub name: String,
    pub dtype: crate::io::DevType,
    pub paging: bool,
    pub servers: u32,
    pub slots: u64,
    pub stats: crate::io::DevStats,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct StoSnap {
    pub frames: u64,
    pub resident: u64,
    pub pages_read: u64,
    pub pages_written: u64,
    pub faults: u64,
    pub first_touches: u64,
    pub slots: u64,
    pub slots_used: u64,
}

impl Sim {
    /// The cumulative device and storage counters now (taken at every monitor sample).
    pub(crate) fn monitor_snapshot(&self) -> Snapshot {
        let dev = |d: &crate::io::Device, paging: bool| DevSnap {
            name: d.name.clone(),
            dtype: d.dtype,
            paging,
            servers: d.servers,
            slots: d.slots,
            stats: d.stats.clone(),
        };
        let mut devices = Vec::new();
        if let Some(pg) = &self.paging {
            devices.extend(pg.devs.iter().map(|d| dev(d, true)));
        }
        if let Some(m) = &self.dasd {
            devices.extend(m.devs.iter().map(|d| dev(d, false)));
        }
        let storage = self.paging.as_ref().map(|pg| {
            let s = &pg.st;
            StoSnap {
                frames: s.frames,
                resident: s.resident,
                pages_read: s.pages_read,
                pages_written: s.pages_written,
                faults: s.faults,
                first_touches: s.first_touches,
                slots: s.slots,
                slots_used: s.slots_used,
            }
        });
        let users = self.paging.as_ref().map_or(Vec::new(), |pg| {
            let s = &pg.st;
            (0..s.res_user.len())
                .map(|u| (s.reads_user[u], s.steals_user[u], s.res_user[u]))
                .collect()
        });
        let lpus = self
            .lpus
            .iter()
            .enumerate()
            .map(|(l, x)| {
                let core = self.cpu.core_of(l as u32);
                LpuSnap {
                    core,
                    susp_ns: x.susp_ns,
                    parked_ns: x.parked_ns
                        + if x.parked {
                            self.now - x.parked_since
                        } else {
                            0
                        },
                    parked: x.parked,
                    core_t: if self.cpu.track {
                        let c = &self.cpu.core_state[core as usize];
                        Some((c.t1, c.t2))
                    } else {
                        None
                    },
                }
            })
            .collect();
        let hpp = self.aliases.as_ref().map(|p| {
            let mut p = p.clone();
            p.account(self.now);
            let queued = self.alias_queued();
            (p, queued)
        });
        let mdc = self.dasd.as_ref().and_then(|d| d.mdc.as_ref()).map(|c| {
            [
                c.max_frames,
                c.cap_frames,
                c.used_below,
                c.used_frames - c.used_below.min(c.used_frames),
                c.reads,
                c.hits,
                c.inserts,
                c.steals,
            ]
        });
        let (states, tidle) = self
            .users
            .iter()
            .map(|u| self.user_wait_states(u, self.now))
            .unzip();
        Snapshot {
            devices,
            storage,
            users,
            states,
            tidle,
            lpus,
            prsm: self.prsm_monitor_counters(),
            mdc,
            hpp,
        }
    }
}

/// Cumulative counters up to the end of interval `k` (the engine keeps interval deltas).
struct Cum {
    lpu_user: Vec<u64>,
    lpu_sys: Vec<u64>,
    lpu_busy: Vec<u64>,
    virt: Vec<u64>,
    total: Vec<u64>,
    tx: Vec<u64>,
    locks: [crate::locks::LockCounters; crate::locks::N_LOCKS],
}

fn config_records(sim: &Sim) -> Vec<Vec<u8>> {
    let p = sim.lpus.len() as u64;
    vec![build(
        &MTRSYS,
        tod_at(0),
        &[
            ("MTRSYS_HCPCPEID", Val::S(ORIGIN)),
            ("MTRSYS_SYSTODST", Val::U(tod_at(0))),
            ("MTRSYS_SYSZONE", Val::U(0)),
            ("MTRSYS_SYSTMID", Val::S(ORIGIN)),
            ("MTRSYS_CPUCOUNT", Val::U(p)),
            ("MTRSYS_CPUCFGCT", Val::U(p)),
            ("MTRSYS_LPARNAME", Val::S(ORIGIN)),
            ("MTRSYS_ZVMLEVEL", Val::S(&sim.level.name.to_uppercase())),
        ],
    )]
}

/// SYTPRP_POLAR of a logical core.
fn polar(sim: &Sim, core: u32) -> u64 {
    let Some(st) = sim.lpar.as_deref() else {
        return POLAR_NONE;
    };
    match st.pol.lpars[0].cores.get(core as usize).map(|c| c.pol) {
        Some(crate::prsm::Pol::Vh) => POLAR_VH,
        Some(crate::prsm::Pol::Vm) => POLAR_VM,
        Some(crate::prsm::Pol::Vl) => POLAR_VL,
        Some(crate::prsm::Pol::Hz) => POLAR_HZ,
        Some(crate::prsm::Pol::Ded) => POLAR_DED,
        None => POLAR_NONE,
    }
}

/// The sample records of one interval (cumulative counters in `c`, sampled at `end`).
fn interval_records(sim: &Sim, c: &Cum, end: u64, snap: &Snapshot) -> Vec<Vec<u8>> {
    let tod = tod_at(end);
    let mut out = Vec::new();
    if snap.storage.is_some() || snap.mdc.is_some() {
        let st = snap.storage.unwrap_or_default();
        let md = snap.mdc.unwrap_or([0; 8]);
        let flags = if snap.storage.is_some() {
            STOFLAG_PAGING
        } else {
            0
        } | if snap.mdc.is_some() { STOFLAG_MDC } else { 0 };
        out.push(build(
            &STORSG,
            tod,
            &[
                ("STORSG_FRAMES", Val::U(st.frames)),
                ("STORSG_RESIDENT", Val::U(st.resident)),
                ("STORSG_PGREADS", Val::U(st.pages_read)),
                ("STORSG_PGWRITES", Val::U(st.pages_written)),
                ("STORSG_FAULTS", Val::U(st.faults)),
                ("STORSG_FIRSTTCH", Val::U(st.first_touches)),
                ("STORSG_SLOTS", Val::U(st.slots)),
                ("STORSG_SLOTSUSED", Val::U(st.slots_used)),
                ("STORSG_ZVMFLAGS", Val::U(flags)),
                ("STORSG_MDCMAX", Val::U(md[0])),
                ("STORSG_MDCTARGT", Val::U(md[1])),
                ("STORSG_MDCBELOW", Val::U(md[2])),
                ("STORSG_MDCABOVE", Val::U(md[3])),
                ("STORSG_MDCREADS", Val::U(md[4])),
                ("STORSG_MDCHITS", Val::U(md[5])),
                ("STORSG_MDCINS", Val::U(md[6])),
                ("STORSG_MDCSTEAL", Val::U(md[7])),
            ],
        ));
    }
    let (mut np, mut nm) = (0u64, 0u64);
    for d in &snap.devices {
        let devno = if d.paging {
            np += 1;
            DEVNO_PAGING + np - 1
        } else {
            nm += 1;
            DEVNO_MINIDISK + nm - 1
        };
        let dtype = match d.dtype {
            crate::io::DevType::Eckd => DEVTYPE_ECKD,
            crate::io::DevType::Edev => DEVTYPE_EDEV,
            crate::io::DevType::Scsi => DEVTYPE_SCSI,
        };
        if d.paging {
            out.push(build(
                &STOASP,
                tod,
                &[
                    ("STOASP_CALVSER", Val::S(&d.name)),
                    ("STOASP_RDEVDEV", Val::U(devno)),
                    ("STOASP_CALPAGE", Val::U(d.slots.min(u32::MAX as u64))),
                    ("STOASP_CALFLAG1", Val::U(0)),
                ],
            ));
        }
        let s = &d.stats;
        out.push(build(
            &IODDEV,
            tod,
            &[
                ("IODDEV_RDEVDEV", Val::U(devno)),
                ("IODDEV_RDEVSER", Val::S(&d.name)),
                ("IODDEV_RDEVTYPE", Val::U(dtype)),
                (
                    "IODDEV_CALFLAG1",
                    Val::U(if d.paging {
                        DEVFLAG_PAGING
                    } else {
                        DEVFLAG_MINIDISK
                    }),
                ),
                ("IODDEV_EXPOSURES", Val::U(d.servers.min(0xFFFF) as u64)),
                ("IODDEV_SCMSSCH", Val::U(s.ios)),
                ("IODDEV_BLOCKS", Val::U(s.pages)),
                ("IODDEV_RDEVRDCT", Val::U(s.reads)),
                ("IODDEV_RDEVWRCT", Val::U(s.writes)),
                ("IODDEV_SCMFPTIM", Val::U(ns_to_tod_units(s.pend_ns))),
                ("IODDEV_SCMDDTIM", Val::U(ns_to_tod_units(s.disconnect_ns))),
                ("IODDEV_SCMCNTIM", Val::U(ns_to_tod_units(s.connect_ns))),
                ("IODDEV_QUEUETIM", Val::U(ns_to_tod_units(s.queue_ns))),
                ("IODDEV_BUSYTIM", Val::U(ns_to_tod_units(s.busy_ns))),
                ("IODDEV_MAXQUEUE", Val::U(s.max_queue)),
                ("IODDEV_ALIASTIM", Val::U(ns_to_tod_units(s.alias_ns))),
            ],
        ));
    }
    for i in 0..sim.lpus.len() {
        let lp = snap.lpus.get(i).copied().unwrap_or_default();
        out.push(build(
            &SYTPRP,
            tod,
            &[
                ("SYTPRP_PFXCPUAD", Val::U(i as u64)),
                ("SYTPRP_PFXPRBTM", Val::U(NOT_MEASURED)),
                ("SYTPRP_PFXUTIME", Val::U(ns_to_tod_units(c.lpu_user[i]))),
                ("SYTPRP_PFXTMSYS", Val::U(ns_to_tod_units(c.lpu_sys[i]))),
                (
                    "SYTPRP_PFXTOTWT",
                    Val::U(ns_to_tod_units(end.saturating_sub(c.lpu_busy[i]))),
                ),
                ("SYTPRP_PFXCPUTY", Val::U(0)),
                ("SYTPRP_CORE", Val::U(lp.core as u64)),
                ("SYTPRP_POLAR", Val::U(polar(sim, lp.core))),
                (
                    "SYTPRP_FLAGS",
                    Val::U(if lp.parked { PRPFLAG_PARKED } else { 0 }),
                ),
                ("SYTPRP_SUSPTM", Val::U(ns_to_tod_units(lp.susp_ns))),
                ("SYTPRP_PARKTM", Val::U(ns_to_tod_units(lp.parked_ns))),
                (
                    "SYTPRP_CORE1TM",
                    Val::U(lp.core_t.map_or(NOT_MEASURED, |t| ns_to_tod_units(t.0))),
                ),
                (
                    "SYTPRP_CORE2TM",
                    Val::U(lp.core_t.map_or(NOT_MEASURED, |t| ns_to_tod_units(t.1))),
                ),
            ],
        ));
    }
    if let (Some(st), Some((own, cpc, c_disp, un, unvl))) = (sim.lpar.as_deref(), snap.prsm) {
        for (i, l) in st.pol.lpars.iter().enumerate() {
            out.push(build(
                &SYTCUP,
                tod,
                &[
                    ("SYTCUP_LPNAME", Val::S(&l.name.to_uppercase())),
                    ("SYTCUP_LPNUM", Val::U(i as u64 + 1)),
                    ("SYTCUP_LCPUS", Val::U(l.logical as u64)),
                    ("SYTCUP_WEIGHT", Val::U(l.weight as u64)),
                    (
                        "SYTCUP_ENTMIL",
                        Val::U((l.entitlement * 1000.0).round().max(0.0) as u64),
                    ),
                    (
                        "SYTCUP_FLAGS",
                        Val::U(
                            if i == 0 { CUPFLAG_SELF } else { 0 }
                                | if l.dedicated { CUPFLAG_DEDICATED } else { 0 },
                        ),
                    ),
                    ("SYTCUP_VH", Val::U(l.vh.min(255) as u64)),
                    ("SYTCUP_VM", Val::U(l.vm.min(255) as u64)),
                    ("SYTCUP_VL", Val::U(l.vl.min(255) as u64)),
                    ("SYTCUP_HZ", Val::U(l.hz.min(255) as u64)),
                    ("SYTCUP_DED", Val::U(l.ded.min(255) as u64)),
                ],
            ));
        }
        out.push(build(
            &SYTCUM,
            tod,
            &[
                ("SYTCUM_SHARED", Val::U(st.spec.shared as u64)),
                ("SYTCUM_DEDIC", Val::U(st.spec.dedicated as u64)),
                ("SYTCUM_LPDISP", Val::U(own)),
                ("SYTCUM_CPCDISP", Val::U(cpc.round() as u64)),
                ("SYTCUM_LPMGTTM", Val::U(ns_to_tod_units(own * c_disp))),
                (
                    "SYTCUM_CPCMGTTM",
                    Val::U(ns_to_tod_units((cpc * c_disp as f64).round() as u64)),
                ),
                (
                    "SYTCUM_UNPARKTM",
                    Val::U(ns_to_tod_units(un.round() as u64)),
                ),
                (
                    "SYTCUM_UNPARKVL",
                    Val::U(ns_to_tod_units(unvl.round() as u64)),
                ),
            ],
        ));
    }
    if let Some((p, queued)) = &snap.hpp {
        let c = |x: f64| (x * 100.0).round().max(0.0) as u64;
        out.push(build(
            &IODHPP,
            tod,
            &[
                ("IODHPP_POOL", Val::U(0)),
                ("IODHPP_ALIASES", Val::U(p.total as u64)),
                (
                    "IODHPP_FLAGS",
                    Val::U(if p.paging { HPPFLAG_PAGING } else { 0 }),
                ),
                ("IODHPP_ENTPG", Val::U(c(p.entitled[0]))),
                ("IODHPP_ENTMD", Val::U(c(p.entitled[1]))),
                ("IODHPP_SHRPG", Val::U(c(p.shares[0]))),
                ("IODHPP_SHRMD", Val::U(c(p.shares[1]))),
                (
                    "IODHPP_INUSEPG",
                    Val::U(ns_to_tod_units(p.in_use_ns[0] as u64)),
                ),
                (
                    "IODHPP_INUSEMD",
                    Val::U(ns_to_tod_units(p.in_use_ns[1] as u64)),
                ),
                ("IODHPP_MAXPG", Val::U(p.max_in_use[0] as u64)),
                ("IODHPP_MAXMD", Val::U(p.max_in_use[1] as u64)),
                ("IODHPP_TAKENPG", Val::U(p.taken[0])),
                ("IODHPP_TAKENMD", Val::U(p.taken[1])),
                ("IODHPP_QUEUEDPG", Val::U(queued[0])),
                ("IODHPP_QUEUEDMD", Val::U(queued[1])),
            ],
        ));
    }
    for (k, u) in sim.users.iter().enumerate() {
        let pgu = snap.users.get(k).copied().unwrap_or((0, 0, 0));
        let st = snap
            .states
            .get(k)
            .copied()
            .unwrap_or([0; crate::sim::N_VSTATES]);
        let tu = |s: crate::sim::VState| Val::U(ns_to_tod_units(st[s as usize]));
        use crate::sim::VState as S;
        out.push(build(
            &USEACT,
            tod,
            &[
                ("USEACT_VMDUSER", Val::S(&u.userid)),
                ("USEACT_VMDCPUAD", Val::U(0)),
                ("USEACT_VMDTTIME", Val::U(ns_to_tod_units(c.total[k]))),
                ("USEACT_VMDVTIME", Val::U(ns_to_tod_units(c.virt[k]))),
                ("USEACT_VCPUCNT", Val::U(u.vcpus.len() as u64)),
                ("USEACT_PGREADS", Val::U(pgu.0)),
                ("USEACT_PGSTEALS", Val::U(pgu.1)),
                ("USEACT_RESPAGES", Val::U(pgu.2)),
                ("USEACT_STDORM", tu(S::Dormant)),
                ("USEACT_STELIG", tu(S::Eligible)),
                ("USEACT_STLIMIT", tu(S::Limited)),
                ("USEACT_STCPUWT", tu(S::Ready)),
                ("USEACT_STRUN", tu(S::Running)),
                ("USEACT_STPGWT", tu(S::PageWait)),
                ("USEACT_STIOWT", tu(S::IoWait)),
                (
                    "USEACT_STTIDL",
                    Val::U(ns_to_tod_units(snap.tidle.get(k).copied().unwrap_or(0))),
                ),
            ],
        ));
    }
    for (k, u) in sim.users.iter().enumerate() {
        out.push(build(
            &APLSDT,
            tod,
            &[
                ("APLSDT_USERID", Val::S(&u.userid)),
                ("APLSDT_CALDATOF", Val::U(52)),
                ("APLSDT_DATALEN", Val::U(16)),
                ("APLSDT_PRODID", Val::S(APPL_PRODID)),
                ("ADATA_TXDONE", Val::U(c.tx[k])),
                // Transactions started are not sampled per interval by the engine.
                ("ADATA_TXSTART", Val::U(0)),
            ],
        ));
    }
    for (i, l) in c.locks.iter().enumerate() {
        // The formal locks always; the others once something took them.
        if i >= 4 && l.acquires() == 0 {
            continue;
        }
        out.push(build(
            &SYTLCK,
            tod,
            &[
                ("SYTLCK_LOCKNAME", Val::S(crate::locks::NAMES[i])),
                ("SYTLCK_ACQEXCL", Val::U(l.acquires_excl)),
                ("SYTLCK_ACQSHR", Val::U(l.acquires_shared)),
                ("SYTLCK_COLLEXCL", Val::U(l.colls_excl)),
                ("SYTLCK_COLLSHR", Val::U(l.colls_shared)),
                ("SYTLCK_SPINEXCL", Val::U(ns_to_tod_units(l.spin_excl_ns))),
                ("SYTLCK_SPINSHR", Val::U(ns_to_tod_units(l.spin_shared_ns))),
            ],
        ));
    }
    out
}

/// The run's monitor data as a MONWRITE file: the configuration set, then one sample set per
/// monitor interval. Deterministic: the same run gives the same bytes.
pub fn write(sim: &Sim) -> Vec<u8> {
    let mut out = Vec::new();
    let (frames, e) = pack(&config_records(sim), DCSS_CONFIG, tod_at(0));
    out.extend(mwtbk(&[e]));
    out.extend(frames);
    let nl = sim.lpus.len();
    let nu = sim.users.len();
    let mut c = Cum {
        lpu_user: vec![0; nl],
        lpu_sys: vec![0; nl],
        lpu_busy: vec![0; nl],
        virt: vec![0; nu],
        total: vec![0; nu],
        tx: vec![0; nu],
        locks: Default::default(),
    };
    for iv in &sim.mon.intervals {
        for (i, d) in iv.lpus.iter().enumerate().take(nl) {
            c.lpu_busy[i] += d.busy_ns;
            c.lpu_sys[i] += d.sys_ns;
            c.lpu_user[i] += d.busy_ns - d.sys_ns.min(d.busy_ns);
        }
        for (k, d) in iv.users.iter().enumerate().take(nu) {
            c.virt[k] += d.virt_ns;
            c.total[k] += d.virt_ns + d.cp_ns;
            c.tx[k] += d.tx_done;
        }
        for (a, d) in c.locks.iter_mut().zip(&iv.locks) {
            *a = a.plus(d);
        }
        let (frames, e) = pack(
            &interval_records(sim, &c, iv.end, &iv.snap),
            DCSS_SAMPLE,
            tod_at(iv.end),
        );
        out.extend(mwtbk(&[e]));
        out.extend(frames);
    }
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
        for l in LAYOUTS {
            let mut used = vec![false; l.len as usize];
            used[..20].iter_mut().for_each(|u| *u = true);
            for fd in l.fields {
                let (o, n) = (fd.offset as usize, fd.len as usize);
                assert!(o >= 20 && o + n <= l.len as usize, "{} {}", l.name, fd.name);
                for u in &mut used[o..o + n] {
                    assert!(!*u, "{} {} overlaps", l.name, fd.name);
                    *u = true;
                }
            }
        }
    }

    #[test]
    fn blocks_frames_and_control_records() {
        let s = sim(4, 3);
        let b = s.monitor_bytes();
        assert_eq!(b.len() % FRAME, 0);
        // config set + 5 intervals, each one control record and one frame
        assert_eq!(b.len(), FRAME * 2 * 6);
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
