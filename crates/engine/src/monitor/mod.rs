//! Interval sampling (the engine side of CP monitor sample records) and the run summary.
//!
//! Every `interval` the monitor brings each processor's accounting up to the instant and records
//! per-user and per-processor deltas. The monitor-data issue writes these as MONWRITE records.

pub mod snapshot;

use crate::guest::Acct;
use crate::queue::Time;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, Serialize)]
pub struct UserDelta {
    pub virt_ns: u64,
    pub cp_ns: u64,
    pub tx_done: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct LpuDelta {
    pub busy_ns: u64,
    pub sys_ns: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct IntervalRec {
    pub start: Time,
    pub end: Time,
    pub users: Vec<UserDelta>,
    pub lpus: Vec<LpuDelta>,
    /// Paging devices: counters of this interval (empty without a storage model).
    pub devices: Vec<crate::io::DevStats>,
    /// Spin locks: counters of this interval.
    pub locks: [crate::locks::LockCounters; crate::locks::N_LOCKS],
    /// SMT modes: core time with one and with two busy threads in this interval, and the
    /// logical CPUs online at its end.
    pub cores: Option<(u64, u64, u32)>,
    /// Cumulative device and storage counters at the sample (the monitor records' inputs).
    #[serde(skip)]
    pub snap: snapshot::Snapshot,
}

pub struct Monitor {
    prev_users: Vec<Acct>,
    prev_lpus: Vec<(u64, u64)>,
    prev_devs: Vec<crate::io::DevStats>,
    prev_locks: [crate::locks::LockCounters; crate::locks::N_LOCKS],
    prev_cores: (u64, u64),
    last: Time,
    intervals: Vec<IntervalRec>,
}

impl Monitor {
    pub fn new(users: usize, lpus: usize) -> Self {
        Monitor {
            prev_users: vec![Acct::default(); users],
            prev_lpus: vec![(0, 0); lpus],
            prev_devs: Vec::new(),
            prev_locks: Default::default(),
            prev_cores: (0, 0),
            last: 0,
            intervals: Vec::new(),
        }
    }

    /// Each user's deltas since the last sample (`accts`: the users' accounting, in order); the
    /// marks move to now.
    pub fn user_deltas<'a>(&mut self, accts: impl Iterator<Item = &'a Acct>) -> Vec<UserDelta> {
        accts
            .zip(self.prev_users.iter_mut())
            .map(|(a, p)| {
                let d = UserDelta {
                    virt_ns: a.virt_ns - p.virt_ns,
                    cp_ns: a.cp_ns - p.cp_ns,
                    tx_done: a.tx_done - p.tx_done,
                };
                *p = a.clone();
                d
            })
            .collect()
    }

    /// Each logical processor's busy and system time since the last sample (`totals`: the
    /// processors' cumulative (busy, system) ns, in order).
    pub fn lpu_deltas(&mut self, totals: impl Iterator<Item = (u64, u64)>) -> Vec<LpuDelta> {
        totals
            .zip(self.prev_lpus.iter_mut())
            .map(|(t, p)| {
                let d = LpuDelta {
                    busy_ns: t.0 - p.0,
                    sys_ns: t.1 - p.1,
                };
                *p = t;
                d
            })
            .collect()
    }

    /// The paging devices' counters since the last sample.
    pub fn device_deltas(&mut self, devs: &[crate::io::Device]) -> Vec<crate::io::DevStats> {
        self.prev_devs
            .resize(devs.len(), crate::io::DevStats::default());
        let mut out = Vec::with_capacity(devs.len());
        for (d, p) in devs.iter().zip(self.prev_devs.iter_mut()) {
            out.push(d.stats.since(p));
            *p = d.stats.clone();
        }
        out
    }

    /// The spin locks' counters since the last sample.
    pub fn lock_deltas(
        &mut self,
        counters: &[crate::locks::LockCounters; crate::locks::N_LOCKS],
    ) -> [crate::locks::LockCounters; crate::locks::N_LOCKS] {
        let d = std::array::from_fn(|i| counters[i].since(&self.prev_locks[i]));
        self.prev_locks = *counters;
        d
    }

    /// Core time with one and with two busy threads since the last sample (`t`: the totals).
    pub fn core_deltas(&mut self, t: (u64, u64)) -> (u64, u64) {
        let p = std::mem::replace(&mut self.prev_cores, t);
        (t.0 - p.0, t.1 - p.1)
    }

    /// The intervals sampled so far, in time order.
    pub fn intervals(&self) -> &[IntervalRec] {
        &self.intervals
    }

    /// When the interval being sampled started (the last sample, or 0).
    pub fn last(&self) -> Time {
        self.last
    }

    /// Record the interval just sampled; the next starts at its end.
    pub fn push(&mut self, rec: IntervalRec) {
        self.last = rec.end;
        self.intervals.push(rec);
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct SmtSummary {
    /// off | smt1 | smt2 (as configured); threads per core active at the end of the run.
    pub mode: String,
    pub cores: u32,
    pub threads_per_core: u32,
    pub logical_cpus: u32,
    /// Average core busy (a core is busy while any of its threads is), percent of one core.
    pub core_busy_pct: f64,
    /// Sum of logical-CPU (thread) busy, percent of one processor.
    pub thread_busy_pct: f64,
    /// Busy threads per busy core (1..2).
    pub thread_density: f64,
    /// Work done per core-busy time in non-SMT core units (MT-1 equivalent / core busy).
    pub capacity_factor: f64,
    pub max_capacity_factor: f64,
    pub productivity: f64,
    /// The three CPU-time measures, summed over the LPAR (cp-model §2.3).
    pub raw_thread_s: f64,
    pub mt1_equivalent_s: f64,
    pub prorated_core_s: f64,
    pub multithreading_switches: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct SmtInterval {
    pub core_busy_pct: f64,
    pub thread_density: f64,
    pub capacity_factor: f64,
    /// Logical CPUs online at the end of the interval (SET MULTITHREAD).
    pub logical_cpus: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct CpiSummary {
    pub drawers: u32,
    pub chips: u32,
    pub sourcing_cycles_per_miss: f64,
    pub cpi: f64,
    /// Nominal work per wall time of a core running one thread (1.0: one-chip LPAR).
    pub speed_factor: f64,
    pub min_speed_factor: f64,
    /// Dispatches of a virtual CPU by where it last ran: same core, same chip, same drawer,
    /// other drawer (a move re-sources its working set: `cpi.reload_*`).
    pub dispatch_moves: [u64; 4],
    /// Guest LAN / VSWITCH messages by how far their data travelled to the receiver (same
    /// core, same chip, same drawer, other drawer: `cpi.msg_*` cycles each).
    pub message_distances: [u64; 4],
    /// CPI of each logical processor (cycles over instructions, cache reload stalls included).
    pub cpi_per_processor: Vec<f64>,
    /// The cache warmth model (cache.rs): footprint hits per level and reload cost.
    pub cache: crate::cache::CacheSummary,
}

#[derive(Clone, Debug, Serialize)]
pub struct UserSummary {
    pub userid: String,
    /// Percent of one processor: 100 = one processor busy for the whole run.
    pub cpu_pct: f64,
    pub virtual_pct: f64,
    pub cp_pct: f64,
    pub transactions: u64,
    pub tx_started: u64,
    pub tx_in_flight: u64,
    /// Transaction response time (response.rs): mean, p50, p90, p99 in ms, trivial/non-trivial.
    pub response_ms: crate::response::ResponseSummary,
    /// SMT (cp-model §2.3): the user's CPU as MT-1 equivalent time and as prorated core time
    /// (equal to cpu_pct without SMT-2; CP charges raw time, cpu_pct).
    pub mt1_cpu_pct: f64,
    pub prorated_cpu_pct: f64,
    /// Wait-state analysis (Perfkit FCX114 USTAT): percent of the user's virtual-CPU time
    /// (all its virtual CPUs over the run) in each state, exact rather than sampled; the states
    /// add up to 100 (`dormant` excludes `test_idle`: dormant while the user is test-idle).
    pub wait_states: BTreeMap<&'static str, f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ProcessorSummary {
    pub busy_pct: f64,
    pub system_pct: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct UserInterval {
    pub userid: String,
    pub cpu_pct: f64,
    pub virtual_pct: f64,
    pub cp_pct: f64,
    pub transactions: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct IntervalSummary {
    pub start_s: f64,
    pub end_s: f64,
    /// userid -> percent of one processor in this interval.
    pub users: BTreeMap<String, f64>,
    pub user_detail: Vec<UserInterval>,
    pub processors: Vec<ProcessorSummary>,
    pub busy_ns: u64,
    pub system_ns: u64,
    pub transactions: u64,
    pub etr: f64,
    /// Completed requests before the run's transaction unit (absent when tx_unit is 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests: Option<u64>,
    /// Paging devices in this interval (absent without a storage model).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<crate::io::DeviceInterval>,
    /// Spin locks in this interval (FCX265 LOCKLOG per interval).
    pub locks: BTreeMap<String, crate::locks::LockSummary>,
    /// SMT modes: core busy, thread density and capacity factor in this interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smt: Option<SmtInterval>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub level: String,
    /// The mechanism switches the run used (the level's, with any scenario overrides).
    pub switches: BTreeMap<String, String>,
    pub seed: u64,
    pub processors: u32,
    pub duration_s: f64,
    pub events: u64,
    pub transactions: u64,
    /// Transactions per second.
    pub etr: f64,
    /// ETR scaled to a fully busy LPAR.
    pub itr: f64,
    /// Total CPU time (guest + CP, chargeable and system) / guest (virtual) CPU time.
    pub tv_ratio: f64,
    pub avg_processor_busy_pct: f64,
    /// Nonchargeable CP time, percent of one processor.
    pub system_pct: f64,
    /// Transaction response time over every user's transactions (response.rs).
    pub response_ms: crate::response::ResponseSummary,
    pub users: Vec<UserSummary>,
    pub processor_detail: Vec<ProcessorSummary>,
    pub intervals: Vec<IntervalSummary>,
    /// Real storage and paging (issue 5); absent without a storage model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage: Option<crate::paging::StorageSummary>,
    /// Per-device figures (FCX108-style): paging volumes now, minidisk volumes later.
    pub devices: Vec<crate::io::DeviceSummary>,
    /// Spin locks over the run, by lock name (FCX265 LOCKLOG columns).
    pub locks: BTreeMap<String, crate::locks::LockSummary>,
    /// Cores and threads (issue 4): SMT time measures and capacity.
    pub smt: SmtSummary,
    /// The drawer CPI model for this LPAR (issue 4).
    pub cpi: CpiSummary,
    /// PR/SM and parking (issue 4); absent without a [cpc].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lpar: Option<crate::lpar::LparSummary>,
    /// Virtual networking between client and server guests; absent without such workloads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vnet: Option<crate::vnet::VnetSummary>,
    /// Guest DASD I/O per user (rows E1-E3); absent without such workloads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dasd: Option<crate::dasd::DasdSummary>,
    /// The control unit's HyperPAV alias pool (rows D11, D12); absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hyperpav: Option<crate::hyperpav::HyperPavSummary>,
    /// Channel paths and the control unit's path group (issue 22); absent without [[chpid]].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channels: Option<crate::channel::ChannelsSummary>,
    /// Static or dynamic PAV (issue 22); absent without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pav: Option<crate::pav::PavSummary>,
    /// Server chains' CPU per transaction, SSL servers, the crypto adapter (issue 6); absent
    /// without client and server workloads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub servers: Option<crate::ssl::ServersSummary>,
    /// Scheduler list traffic: dispatch-, eligible- and limit-list adds, steals between
    /// dispatch vectors, admissions held by STORBUF / LDUBUF, MAXWSS drops.
    pub scheduler: crate::scheduler::SchedStats,
    /// The parameter-table entries this run read (table order): what its results can depend
    /// on. `zvmlab replicate --robustness` perturbs only these.
    pub params_read: Vec<&'static str>,
    /// The run's transaction unit and its completed requests (absent when tx_unit is 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tx_unit: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests: Option<u64>,
    /// CPU pools (FCX308 CPLCONF, FCX309 CPLACT); absent without pools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpupools: Option<Vec<crate::pools::PoolSummary>>,
}

impl Summary {
    /// Count `unit` completed requests as one transaction ([run] tx_unit): the run's and every
    /// interval's transaction count (rounded half to even), ETR and ITR; per-user counts and
    /// per-request figures stay per request.
    pub(crate) fn apply_tx_unit(&mut self, unit: f64) {
        if unit == 1.0 {
            return;
        }
        let per = |n: u64| (n as f64 / unit).round_ties_even() as u64;
        self.tx_unit = Some(unit);
        self.requests = Some(self.transactions);
        self.transactions = per(self.transactions);
        self.etr /= unit;
        self.itr /= unit;
        for iv in &mut self.intervals {
            iv.requests = Some(iv.transactions);
            iv.transactions = per(iv.transactions);
            iv.etr /= unit;
        }
    }
}
