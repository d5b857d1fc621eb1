//! The record layouts zvmlab writes, every field with its provenance. This table is the one
//! source of truth: the Python reader loads it through `monitor_layouts_json` (docs/research/
//! monitor-layouts.md gives the sources).
//!
//! Two kinds of records:
//! - IBM's records (domains 0..11): only fields whose offsets are published ("ibm:<release>",
//!   read on IBM's monitor-record page of that release) or inferred from the zpmd decoder's
//!   z/VM 5.3 field order ("zpmd:5.3"; IBM's pages give the record and its structure, the
//!   excerpts we could read stop before the field). A record is written up to the end of its
//!   last such field: its length (MRHDRLEN) tells a reader that the later fields IBM defines
//!   are absent, so they read as missing, never as zero. No zvmlab figure is on a byte IBM
//!   defines.
//! - zvmlab's records: domain [`ZVM_DOMAIN`] (15, a domain IBM does not use: IBM's domains are
//!   0..11), records 1..11, all fields "zvmlab". A tool that reads IBM's layouts skips them as
//!   an unknown domain.

use serde::Serialize;

/// zvmlab's own domain (IBM's monitor domains are 0 to 11; MWTCADMA has bits for 0 to 15).
pub const ZVM_DOMAIN: u8 = 15;

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
    /// "ibm:<page release>" (confirmed), "zpmd:5.3" (inferred), or "zvmlab" (zvmlab's record).
    pub source: &'static str,
}

/// An array of entries after the record's fixed part (IBM's MRSYTLCK): the header fields
/// `count`, `size` and `first` give the number of entries, their size and the displacement of
/// the first from the start of the record; entry fields' offsets are from the entry's start.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Array {
    pub count: &'static str,
    pub size: &'static str,
    pub first: &'static str,
    pub entry_len: u16,
    pub fields: &'static [Field],
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Layout {
    pub domain: u8,
    pub record: u16,
    pub name: &'static str,
    pub title: &'static str,
    /// The record length zvmlab writes (MRHDRLEN), header included (arrays: the fixed part).
    pub len: u16,
    pub fields: &'static [Field],
    pub array: Option<Array>,
    /// Where the record's number, name and structure come from.
    pub source: &'static str,
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

const fn z(name: &'static str, offset: u16, len: u8, kind: Kind) -> Field {
    f(name, offset, len, kind, "zvmlab")
}

const fn zrec(
    record: u16,
    name: &'static str,
    title: &'static str,
    len: u16,
    fields: &'static [Field],
) -> Layout {
    Layout {
        domain: ZVM_DOMAIN,
        record,
        name,
        title,
        len,
        fields,
        array: None,
        source: "zvmlab",
    }
}

use Kind::*;

pub const MTRSYS: Layout = Layout {
    domain: 1,
    record: 4,
    name: "MRMTRSYS",
    title: "System Configuration Data",
    len: 168,
    fields: &[
        f("MTRSYS_HCPCPEID", 28, 8, Char, "zpmd:5.3"),
        f("MTRSYS_SYSTODST", 36, 8, Tod, "zpmd:5.3"),
        f("MTRSYS_SYSZONE", 80, 4, Uint, "zpmd:5.3"),
        f("MTRSYS_SYSTMID", 88, 8, Char, "zpmd:5.3"),
        f("MTRSYS_CPUCOUNT", 152, 2, Uint, "zpmd:5.3"),
        f("MTRSYS_CPUCFGCT", 154, 2, Uint, "zpmd:5.3"),
        f("MTRSYS_LPARNAME", 160, 8, Char, "zpmd:5.3"),
    ],
    array: None,
    source: "ibm:mon730",
};

/// D1R6 MRMTRDEV (configuration, per real device): the device number only. IBM's page (mon730)
/// gives the record (320 bytes) and its first field names; the offset is zpmd's (its D1R6 is
/// marked untested); the record ends after it.
pub const MTRDEV: Layout = Layout {
    domain: 1,
    record: 6,
    name: "MRMTRDEV",
    title: "Device Configuration Data",
    len: 28,
    fields: &[f("MTRDEV_RDEVDEV", 26, 2, Uint, "zpmd:alpha")],
    array: None,
    source: "ibm:mon730",
};

pub const SYTPRP: Layout = Layout {
    domain: 0,
    record: 2,
    name: "MRSYTPRP",
    title: "Processor Data (per processor)",
    len: 105,
    fields: &[
        f("SYTPRP_PFXCPUAD", 20, 2, Uint, "ibm:mon640"),
        f("SYTPRP_PLSCUHAF", 22, 2, Uint, "ibm:mon640"),
        f("SYTPRP_PFXPRBTM", 24, 8, Timerdown, "ibm:mon640"),
        f("SYTPRP_PFXUTIME", 32, 8, Tod, "ibm:mon640"),
        f("SYTPRP_PFXTMSYS", 40, 8, Tod, "zpmd:5.3"),
        f("SYTPRP_PFXTOTWT", 68, 8, Tod, "zpmd:5.3"),
        f("SYTPRP_PFXCPUTY", 104, 1, Uint, "zpmd:5.3"),
    ],
    array: None,
    source: "ibm:mon640",
};

pub const USEACT: Layout = Layout {
    domain: 4,
    record: 3,
    name: "MRUSEACT",
    title: "User Activity Data (per virtual CPU)",
    len: 30,
    fields: &[
        f("USEACT_VMDUSER", 20, 8, Char, "ibm:mon520"),
        f("USEACT_VMDCPUAD", 28, 2, Uint, "ibm:mon520"),
    ],
    array: None,
    source: "ibm:mon730",
};

/// MRSYTLCK: one record per interval, a header and one 32-byte entry per formal spin lock
/// (structure: IBM's prolog, mon530..mon730; offsets: zpmd's D0R23, inferred). IBM's third
/// section (shared-exclusive lock extensions) is not written.
pub const SYTLCK: Layout = Layout {
    domain: 0,
    record: 23,
    name: "MRSYTLCK",
    title: "Formal Spin Lock Data",
    len: 32,
    fields: &[
        f("SYTLCK_CALNMLKS", 20, 4, Uint, "zpmd:5.3"),
        f("SYTLCK_CALENTSZ", 24, 2, Uint, "zpmd:5.3"),
        f("SYTLCK_CALENTDSP", 26, 2, Uint, "zpmd:5.3"),
    ],
    array: Some(Array {
        count: "SYTLCK_CALNMLKS",
        size: "SYTLCK_CALENTSZ",
        first: "SYTLCK_CALENTDSP",
        entry_len: 32,
        fields: &[
            f("SYTLCK_CALLCKID", 0, 8, Char, "zpmd:5.3"),
            f("SYTLCK_CALXSCNT", 8, 4, Uint, "zpmd:5.3"),
            f("SYTLCK_CALXTIME", 12, 8, Tod, "zpmd:5.3"),
            f("SYTLCK_CALSSCNT", 20, 4, Uint, "zpmd:5.3"),
            f("SYTLCK_CALSTIME", 24, 8, Tod, "zpmd:5.3"),
        ],
    }),
    source: "ibm:mon730",
};

/// D0R10 MRSYTSCG (sample, one per interval): the scheduler's queues at the sample, as
/// cardinal counts. IBM's mon440 page gives the record (140 bytes) and its first five fields;
/// the excerpt stops there. The next nine follow in zpmd's later branch (its D0R10, marked
/// untested): eligible-list users of class 1..3, 2..3 and 3, and the loading users of the
/// dispatch and eligible lists in the same classes, read with the same cumulative meaning as
/// IBM's dispatch-list counts (SRMC2DSP "includes all Q2 and Q3 users, but does not include Q1
/// or Q0 users"). The record ends after them.
pub const SYTSCG: Layout = Layout {
    domain: 0,
    record: 10,
    name: "MRSYTSCG",
    title: "Scheduler Activity (global)",
    len: 48,
    fields: &[
        f("SYTSCG_SRMCDISP", 20, 2, Uint, "ibm:mon440"),
        f("SYTSCG_SRMCDLDG", 22, 2, Uint, "ibm:mon440"),
        f("SYTSCG_SRMC1DSP", 24, 2, Uint, "ibm:mon440"),
        f("SYTSCG_SRMC2DSP", 26, 2, Uint, "ibm:mon440"),
        f("SYTSCG_SRMC3DSP", 28, 2, Uint, "ibm:mon440"),
        f("SYTSCG_SRMC1ELG", 30, 2, Uint, "zpmd:alpha"),
        f("SYTSCG_SRMC2ELG", 32, 2, Uint, "zpmd:alpha"),
        f("SYTSCG_SRMC3ELG", 34, 2, Uint, "zpmd:alpha"),
        f("SYTSCG_SRMC1DLD", 36, 2, Uint, "zpmd:alpha"),
        f("SYTSCG_SRMC2DLD", 38, 2, Uint, "zpmd:alpha"),
        f("SYTSCG_SRMC3DLD", 40, 2, Uint, "zpmd:alpha"),
        f("SYTSCG_SRMC1ELD", 42, 2, Uint, "zpmd:alpha"),
        f("SYTSCG_SRMC2ELD", 44, 2, Uint, "zpmd:alpha"),
        f("SYTSCG_SRMC3ELD", 46, 2, Uint, "zpmd:alpha"),
    ],
    array: None,
    source: "ibm:mon440",
};

pub const STOASP: Layout = Layout {
    domain: 3,
    record: 4,
    name: "MRSTOASP",
    title: "Auxiliary Storage Management (per exposure)",
    len: 71,
    fields: &[
        f("STOASP_CALVSER", 20, 6, Char, "zpmd:5.3"),
        f("STOASP_RDEVDEV", 26, 2, Uint, "zpmd:5.3"),
        f("STOASP_CALPAGE", 36, 4, Uint, "zpmd:5.3"),
        f("STOASP_CALFLAG1", 70, 1, Uint, "zpmd:5.3"),
    ],
    array: None,
    source: "ibm:mon750",
};

pub const MTREND: Layout = Layout {
    domain: 1,
    record: 11,
    name: "MRMTREND",
    title: "Interval End",
    len: 20,
    fields: &[],
    array: None,
    source: "ibm:mon730",
};

pub const MTREOF: Layout = Layout {
    domain: 1,
    record: 13,
    name: "MRMTREOF",
    title: "End of Frame",
    len: 20,
    fields: &[],
    array: None,
    source: "ibm:mon730",
};

/// D15R1 (configuration): who wrote the data, the simulated level and the sample interval.
pub const ZVMSYS: Layout = zrec(
    1,
    "ZVMSYS",
    "zvmlab: system configuration",
    64,
    &[
        z("ZVMSYS_ORIGIN", 20, 8, Char),
        z("ZVMSYS_LEVEL", 28, 16, Char),
        z("ZVMSYS_INTERVAL", 44, 8, Tod),
        z("ZVMSYS_CPUS", 52, 2, Uint),
        z("ZVMSYS_SMT", 54, 1, Uint),
    ],
);

/// D15R2 (configuration): one per paging and minidisk volume (device number, volser, kind).
pub const ZVMDVC: Layout = zrec(
    2,
    "ZVMDVC",
    "zvmlab: device configuration",
    48,
    &[
        z("ZVMDVC_DEVNO", 20, 2, Uint),
        z("ZVMDVC_VOLSER", 22, 6, Char),
        z("ZVMDVC_TYPE", 28, 1, Uint),
        z("ZVMDVC_FLAGS", 29, 1, Uint),
        z("ZVMDVC_EXPOSURES", 30, 2, Uint),
        z("ZVMDVC_SLOTS", 32, 8, Uint),
    ],
);

/// D15R3: per logical processor, what IBM's MRSYTPRP bytes we can place do not hold: PR/SM,
/// parking and SMT (FCX304 PRCLOG), and how SYTPRP_PFXPRBTM was obtained; since issue 18 the
/// cache model's counters: dispatches by how far the virtual CPU moved (same core, chip,
/// drawer, other drawer), footprint hits per level (thousandths of a dispatch, cumulative:
/// their sum over dispatches x 1000) and the reload stall time (cache.rs).
pub const ZVMPRP: Layout = zrec(
    3,
    "ZVMPRP",
    "zvmlab: processor data",
    116,
    &[
        z("ZVMPRP_CPUAD", 20, 2, Uint),
        z("ZVMPRP_CORE", 22, 2, Uint),
        z("ZVMPRP_POLAR", 24, 1, Uint),
        z("ZVMPRP_FLAGS", 25, 1, Uint),
        z("ZVMPRP_SUSPTM", 28, 8, Tod),
        z("ZVMPRP_PARKTM", 36, 8, Tod),
        z("ZVMPRP_CORE1TM", 44, 8, Tod),
        z("ZVMPRP_CORE2TM", 52, 8, Tod),
        z("ZVMPRP_MOVE0", 60, 4, Uint),
        z("ZVMPRP_MOVE1", 64, 4, Uint),
        z("ZVMPRP_MOVE2", 68, 4, Uint),
        z("ZVMPRP_MOVE3", 72, 4, Uint),
        z("ZVMPRP_HITL2", 76, 8, Uint),
        z("ZVMPRP_HITL3", 84, 8, Uint),
        z("ZVMPRP_HITL4", 92, 8, Uint),
        z("ZVMPRP_RELOADTM", 100, 8, Tod),
        z("ZVMPRP_DISPS", 108, 8, Uint),
    ],
);

/// D15R4: per user, CPU time, transactions, paging and wait states (FCX112, FCX113, FCX114).
pub const ZVMUSE: Layout = zrec(
    4,
    "ZVMUSE",
    "zvmlab: user activity",
    184,
    &[
        z("ZVMUSE_USERID", 20, 8, Char),
        z("ZVMUSE_VCPUS", 28, 2, Uint),
        z("ZVMUSE_TTIME", 32, 8, Tod),
        z("ZVMUSE_VTIME", 40, 8, Tod),
        z("ZVMUSE_TXDONE", 48, 8, Uint),
        z("ZVMUSE_PGREADS", 56, 8, Uint),
        z("ZVMUSE_PGSTEALS", 64, 8, Uint),
        z("ZVMUSE_RESPAGES", 72, 8, Uint),
        z("ZVMUSE_STDORM", 80, 8, Tod),
        z("ZVMUSE_STELIG", 88, 8, Tod),
        z("ZVMUSE_STLIMIT", 96, 8, Tod),
        z("ZVMUSE_STCPUWT", 104, 8, Tod),
        z("ZVMUSE_STRUN", 112, 8, Tod),
        z("ZVMUSE_STPGWT", 120, 8, Tod),
        z("ZVMUSE_STIOWT", 128, 8, Tod),
        z("ZVMUSE_STTIDL", 136, 8, Tod),
        // Storage: virtual storage size and working set (the pages its program references,
        // known exactly to the simulator; IBM's VMDWSSPR is CP's estimate), in pages.
        z("ZVMUSE_VSIZE", 144, 8, Uint),
        z("ZVMUSE_WSS", 152, 8, Uint),
        // Minidisk I/O: the device its program uses (0: none), cumulative I/Os and blocks,
        // flags (USEFLAG_*).
        z("ZVMUSE_IODEV", 160, 2, Uint),
        z("ZVMUSE_IOFLAGS", 162, 1, Uint),
        z("ZVMUSE_IOS", 168, 8, Uint),
        z("ZVMUSE_IOBLKS", 176, 8, Uint),
    ],
);

/// D15R5: per device, cumulative I/O counters and times (FCX108 DEVICE). BUSYTM books an
/// I/O's whole service when its completion is known (service per I/O over SSCH, which counts
/// starts); BUSYEL is the service elapsed at the sample (behind channel paths with that of the
/// I/Os in connect, which BUSYTM books when their connect ends), and ALIASTM the time on
/// HyperPAV aliases elapsed at the sample (time busy: neither ahead of the sample nor running
/// backwards).
pub const ZVMDEV: Layout = zrec(
    5,
    "ZVMDEV",
    "zvmlab: device activity",
    120,
    &[
        z("ZVMDEV_DEVNO", 20, 2, Uint),
        z("ZVMDEV_SSCH", 24, 8, Uint),
        z("ZVMDEV_BLOCKS", 32, 8, Uint),
        z("ZVMDEV_READS", 40, 8, Uint),
        z("ZVMDEV_WRITES", 48, 8, Uint),
        z("ZVMDEV_PENDTM", 56, 8, Tod),
        z("ZVMDEV_DISCTM", 64, 8, Tod),
        z("ZVMDEV_CONNTM", 72, 8, Tod),
        z("ZVMDEV_QUEUETM", 80, 8, Tod),
        z("ZVMDEV_BUSYTM", 88, 8, Tod),
        z("ZVMDEV_MAXQUEUE", 96, 8, Uint),
        z("ZVMDEV_ALIASTM", 104, 8, Tod),
        z("ZVMDEV_BUSYEL", 112, 8, Tod),
    ],
);

/// D15R6: storage and paging, and the minidisk cache (FCX103/FCX113/FCX146, FCX178 MDCSTOR).
pub const ZVMSTO: Layout = zrec(
    6,
    "ZVMSTO",
    "zvmlab: storage",
    156,
    &[
        z("ZVMSTO_FLAGS", 20, 1, Uint),
        z("ZVMSTO_FRAMES", 28, 8, Uint),
        z("ZVMSTO_RESIDENT", 36, 8, Uint),
        z("ZVMSTO_PGREADS", 44, 8, Uint),
        z("ZVMSTO_PGWRITES", 52, 8, Uint),
        z("ZVMSTO_FAULTS", 60, 8, Uint),
        z("ZVMSTO_FIRSTTCH", 68, 8, Uint),
        z("ZVMSTO_SLOTS", 76, 8, Uint),
        z("ZVMSTO_SLOTSUSED", 84, 8, Uint),
        z("ZVMSTO_MDCMAX", 92, 8, Uint),
        z("ZVMSTO_MDCTARGT", 100, 8, Uint),
        z("ZVMSTO_MDCBELOW", 108, 8, Uint),
        z("ZVMSTO_MDCABOVE", 116, 8, Uint),
        z("ZVMSTO_MDCREADS", 124, 8, Uint),
        z("ZVMSTO_MDCHITS", 132, 8, Uint),
        z("ZVMSTO_MDCINS", 140, 8, Uint),
        z("ZVMSTO_MDCSTEAL", 148, 8, Uint),
    ],
);

/// D15R7: per LPAR of the CPC (FCX126 LPAR).
pub const ZVMCUP: Layout = zrec(
    7,
    "ZVMCUP",
    "zvmlab: logical partitions",
    48,
    &[
        z("ZVMCUP_LPNAME", 20, 8, Char),
        z("ZVMCUP_LPNUM", 28, 2, Uint),
        z("ZVMCUP_LCPUS", 30, 2, Uint),
        z("ZVMCUP_WEIGHT", 32, 4, Uint),
        z("ZVMCUP_ENTMIL", 36, 4, Uint),
        z("ZVMCUP_FLAGS", 40, 1, Uint),
        z("ZVMCUP_VH", 41, 1, Uint),
        z("ZVMCUP_VM", 42, 1, Uint),
        z("ZVMCUP_VL", 43, 1, Uint),
        z("ZVMCUP_HZ", 44, 1, Uint),
        z("ZVMCUP_DED", 45, 1, Uint),
        // A partner's demand (fraction of its logical cores kept busy, in 1/1000; the engine
        // models it, it does not measure it; 0 for z/VM's own LPAR) and polarization mode.
        z("ZVMCUP_BUSYMIL", 46, 2, Uint),
    ],
);

/// D15R8: the CPC's physical processors and PR/SM counters (FCX302 PHYSLOG).
pub const ZVMCUM: Layout = zrec(
    8,
    "ZVMCUM",
    "zvmlab: physical processors",
    72,
    &[
        z("ZVMCUM_SHARED", 20, 2, Uint),
        z("ZVMCUM_DEDIC", 22, 2, Uint),
        z("ZVMCUM_LPDISP", 24, 8, Uint),
        z("ZVMCUM_CPCDISP", 32, 8, Uint),
        z("ZVMCUM_LPMGTTM", 40, 8, Tod),
        z("ZVMCUM_CPCMGTTM", 48, 8, Tod),
        z("ZVMCUM_UNPARKTM", 56, 8, Tod),
        z("ZVMCUM_UNPARKVL", 64, 8, Tod),
    ],
);

/// D15R9: the HyperPAV alias pool (FCX327-style pool figures).
pub const ZVMHPP: Layout = zrec(
    9,
    "ZVMHPP",
    "zvmlab: HyperPAV pool",
    96,
    &[
        z("ZVMHPP_POOL", 20, 2, Uint),
        z("ZVMHPP_ALIASES", 22, 2, Uint),
        z("ZVMHPP_FLAGS", 24, 1, Uint),
        z("ZVMHPP_ENTPG", 28, 4, Uint),
        z("ZVMHPP_ENTMD", 32, 4, Uint),
        z("ZVMHPP_SHRPG", 36, 4, Uint),
        z("ZVMHPP_SHRMD", 40, 4, Uint),
        z("ZVMHPP_INUSEPG", 44, 8, Tod),
        z("ZVMHPP_INUSEMD", 52, 8, Tod),
        z("ZVMHPP_MAXPG", 60, 2, Uint),
        z("ZVMHPP_MAXMD", 62, 2, Uint),
        z("ZVMHPP_TAKENPG", 64, 8, Uint),
        z("ZVMHPP_TAKENMD", 72, 8, Uint),
        z("ZVMHPP_QUEUEDPG", 80, 8, Uint),
        z("ZVMHPP_QUEUEDMD", 88, 8, Uint),
    ],
);

/// D15R10: per lock zvmlab models (IBM's formal spin locks and its own), with acquires.
pub const ZVMLCK: Layout = zrec(
    10,
    "ZVMLCK",
    "zvmlab: locks",
    76,
    &[
        z("ZVMLCK_NAME", 20, 8, Char),
        z("ZVMLCK_ACQEXCL", 28, 8, Uint),
        z("ZVMLCK_ACQSHR", 36, 8, Uint),
        z("ZVMLCK_COLLEXCL", 44, 8, Uint),
        z("ZVMLCK_COLLSHR", 52, 8, Uint),
        z("ZVMLCK_SPINEXCL", 60, 8, Tod),
        z("ZVMLCK_SPINSHR", 68, 8, Tod),
    ],
);

/// D15R11: one per CPU pool (pools.rs), cumulative. IBM's D5R19 MRPRCCPU carries the same
/// figures (CPU used, time limited, times limited, members), but only its first fields' places
/// were read (pool name at 20, flags at 28, docs/research/machines-and-caches.md §4), so the
/// pool figures go in zvmlab's domain.
pub const ZVMCPL: Layout = zrec(
    11,
    "ZVMCPL",
    "zvmlab: CPU pool",
    72,
    &[
        z("ZVMCPL_NAME", 20, 8, Char),
        z("ZVMCPL_FLAGS", 28, 1, Uint),
        z("ZVMCPL_CPUTY", 29, 1, Uint),
        z("ZVMCPL_MEMBERS", 30, 2, Uint),
        z("ZVMCPL_LIMITV", 32, 4, Uint),
        z("ZVMCPL_LIMITC", 36, 4, Uint),
        z("ZVMCPL_CPUTIME", 40, 8, Tod),
        z("ZVMCPL_LIMTIME", 48, 8, Tod),
        z("ZVMCPL_LIMCOUNT", 56, 8, Uint),
    ],
);

/// D15R12: per capped LPAR of the CPC (FCX126 LPAR, FCX306 LSHARACT's capping fields; IBM's
/// D0R16/D0R17 capping fields were not read): its capping as configured and its cap now.
pub const ZVMCAP: Layout = zrec(
    12,
    "ZVMCAP",
    "zvmlab: LPAR capping",
    56,
    &[
        z("ZVMCAP_LPNAME", 20, 8, Char),
        z("ZVMCAP_LPNUM", 28, 2, Uint),
        z("ZVMCAP_FLAGS", 30, 1, Uint),
        z("ZVMCAP_ABSCAP", 32, 4, Uint),
        z("ZVMCAP_CAPMIL", 36, 4, Uint),
        z("ZVMCAP_GROUP", 40, 8, Char),
        z("ZVMCAP_GRPCAP", 48, 4, Uint),
    ],
);

// --- channel paths and PAV (issue 22) ---
// IBM's per-channel record (D0R20 MRSYTEPM, extended channel measurement) and the device
// record's hardware/software active-time bit (D6R3 MRIODDEV) have no field offsets in the
// public excerpts read (docs/research/channels.md §5), nor D6R20 MRIODSTC's: zvmlab's own
// records carry the figures.

/// D15R13: per channel path, cumulative (FCX107 CHANNEL, FCX215 FCHANNEL figures).
pub const ZVMCHP: Layout = zrec(
    13,
    "ZVMCHP",
    "zvmlab: channel path measurement",
    84,
    &[
        z("ZVMCHP_CHPID", 20, 1, Uint),
        // 1 ESCON, 2 FICON, 3 FICON Express8S, 4 FICON Express16S.
        z("ZVMCHP_TYPE", 21, 1, Uint),
        z("ZVMCHP_SLOTS", 22, 2, Uint),
        z("ZVMCHP_MAXCONC", 24, 4, Uint),
        z("ZVMCHP_IOS", 28, 8, Uint),
        z("ZVMCHP_BYTES", 36, 8, Uint),
        // Time with an I/O in connect on the path, and the integral of I/Os in connect.
        z("ZVMCHP_BUSYTM", 44, 8, Tod),
        z("ZVMCHP_CONCTM", 52, 8, Tod),
        // The control unit's starts that found no path free (cumulative).
        z("ZVMCHP_CUDELAY", 60, 8, Uint),
        // A path shared with other LPARs: this LPAR's part of the busy time, their I/Os.
        z("ZVMCHP_OWNBUSY", 68, 8, Tod),
        z("ZVMCHP_PARTIOS", 76, 8, Uint),
    ],
);

/// D15R14: per device behind channel paths or with static/dynamic PAV.
pub const ZVMDCH: Layout = zrec(
    14,
    "ZVMDCH",
    "zvmlab: device channel and PAV state",
    32,
    &[
        z("ZVMDCH_DEVNO", 20, 2, Uint),
        // ZVMDCH flags: active time measured by the channel subsystem (hardware) rather than
        // computed by CP (software); behind channel paths; a PAV base (static or dynamic).
        z("ZVMDCH_FLAGS", 22, 1, Uint),
        z("ZVMDCH_PATHS", 23, 1, Uint),
        z("ZVMDCH_ALIASES", 24, 2, Uint),
        z("ZVMDCH_CU", 26, 2, Uint),
    ],
);

/// D15R15: a PAV alias moved between bases (the state change CP records; one per move, in
/// the interval it happened).
pub const ZVMSTC: Layout = zrec(
    15,
    "ZVMSTC",
    "zvmlab: PAV state change",
    40,
    &[
        z("ZVMSTC_WHEN", 20, 8, Tod),
        z("ZVMSTC_FROM", 28, 2, Uint),
        z("ZVMSTC_TO", 30, 2, Uint),
        // 1: an alias moved by workload management (IBM's code X'1F', PSF manage alias).
        z("ZVMSTC_CODE", 32, 1, Uint),
    ],
);

/// Every record zvmlab writes.
pub const LAYOUTS: &[Layout] = &[
    MTRSYS, MTRDEV, SYTPRP, USEACT, SYTLCK, SYTSCG, STOASP, MTREND, MTREOF, ZVMSYS, ZVMDVC, ZVMPRP,
    ZVMUSE, ZVMDEV, ZVMSTO, ZVMCUP, ZVMCUM, ZVMHPP, ZVMLCK, ZVMCPL, ZVMCAP, ZVMCHP, ZVMDCH, ZVMSTC,
];

/// The layout table as JSON (what the Python reader decodes with).
pub fn layouts_json() -> String {
    serde_json::to_string(LAYOUTS).unwrap_or_default()
}
