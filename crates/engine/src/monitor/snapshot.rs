//! What a monitor sample records beyond the interval deltas: cumulative counters at the sample.

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
    pub states: Vec<[u64; crate::guest::N_VSTATES]>,
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
    /// Per user: virtual storage and working set in pages (0: no storage model).
    pub mem: Vec<(u64, u64)>,
    /// Per user with a minidisk program: its volume (index into the minidisk volumes), I/Os and
    /// blocks done, writes, MDC, paced.
    pub io: Vec<Option<UserIo>>,
    /// CPU pools at the sample (pools.rs).
    pub pools: Vec<crate::pools::PoolSnap>,
    /// Channel paths and PAV (issue 22): None without them.
    pub chan: Option<ChanSnap>,
    /// The scheduler's queues at the sample (D0R10 MRSYTSCG, FCX145 SCHEDLOG).
    pub queues: crate::scheduler::QueueCounts,
}

/// Channel paths and PAV at a sample (issue 22).
#[derive(Clone, Debug, Default)]
pub struct ChanSnap {
    /// Per path: CHPID, type code, slots, counters (busy time brought up to the sample).
    pub paths: Vec<(u64, u64, u32, crate::channel::PathStats)>,
    /// Starts that waited for a path.
    pub delayed: u64,
    /// Per device, in the snapshot's device order: behind paths, paths, bound PAV aliases,
    /// a PAV base.
    pub devs: Vec<(bool, u32, u32, bool)>,
    /// Active time measured by the channel subsystem (FICON paths) rather than by CP.
    pub hw_active: bool,
    /// PAV alias moves so far: (time, from minidisk volume, to minidisk volume).
    pub moves: Vec<(u64, u32, u32)>,
}

/// A user's minidisk I/O figures, as minidisk I/O keeps them.
pub use crate::dasd::UserIo;

#[derive(Clone, Copy, Debug, Default)]
pub struct LpuSnap {
    pub core: u32,
    pub susp_ns: u64,
    pub parked_ns: u64,
    pub parked: bool,
    pub core_t: Option<(u64, u64)>,
    /// Dispatches on it by how far the virtual CPU moved; footprint hits per level (x 1000,
    /// cumulative), reload stall ns and dispatches (cache.rs).
    pub moves: [u64; 4],
    pub hits: [u64; 3],
    pub reload_ns: u64,
    pub disps: u64,
}

#[derive(Clone, Debug)]
pub struct DevSnap {
    pub name: String,
    pub dtype: crate::io::DevType,
    pub paging: bool,
    pub servers: u32,
    pub slots: u64,
    pub stats: crate::io::DevStats,
    /// Busy and alias time elapsed up to the sample (`Device::elapsed`).
    pub elapsed: (u64, u64),
}

/// The storage record's counters, as paging keeps them.
pub use crate::paging::StorageCounters as StoSnap;

/// One device's entry in the sample: its name, type, exposures, slots and cumulative
/// counters (FCX108/FCX109 device activity; `paging`: a CP paging volume).
pub(crate) fn dev_snap(d: &crate::io::Device, paging: bool, now: u64) -> DevSnap {
    DevSnap {
        name: d.name.clone(),
        dtype: d.dtype,
        paging,
        servers: d.servers,
        slots: d.slots,
        stats: d.stats.clone(),
        elapsed: d.elapsed(now),
    }
}
