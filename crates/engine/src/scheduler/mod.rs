//! The CP scheduler: lists, transaction classes, admission, shares, limits and dispatch priority.
//!
//! Lists (cp-model §4.1). A user is on the **dormant** list while idle, on the **eligible** list
//! while it waits for admission, and on the **dispatch** list while it may compete for processors.
//! A user that goes idle stays on the dispatch list as *test-idle* for `srm.test_idle` and is
//! dropped to the dormant list by the scheduler's periodic pass if it has not woken. A new
//! transaction starts as E1; a dispatch-list stay lasts at most the class's elapsed time slice
//! (`srm.ets_e1` x ratios), after which the user is dropped, advanced to the next class (E2, E3)
//! and goes through admission again. Admission counts dispatch-list openings per class
//! (SET SRM DSPBUF, cp-model §4.3); the eligible list is ordered by eligible priority
//! (TOD + elapsed time slice / normalized share). Storage-based admission (STORBUF, LDUBUF,
//! MAXWSS) waits for the storage issue.
//!
//! Dispatch priority (cp-model §4.4). Runnable virtual CPUs sit on dispatch vectors ordered by a
//! deadline; each is run for at most one minor time slice (SET SRM DSPSLICE) and then gets a new
//! deadline. Two mechanisms, chosen by the level (`level::Sched`):
//! - `DeadlineNs` (z/VM <= 6.3): deadline = adjusted TOD + DSPSLICE / (NS x processors) x IABIAS
//!   factor, NS being the share normalized over the users currently on the dispatch and
//!   eligible lists (test-idle users included). The deadline restarts from the current TOD at
//!   each slice end, so a user that lost time is not made whole, and users that want little
//!   but hold a large share shrink everyone else's NS.
//! - `EntitlementExcess` (z/VM 6.4): every scheduler tick the demand of each user is measured
//!   (CPU used + time spent wanting a processor, smoothed over `sched.demand_tau`), and capacity
//!   is water-filled over users by normalized share, each bounded by its demand, its virtual
//!   CPUs and a LIMITHARD maximum; LIMITSOFT users get above their maximum only what nobody else
//!   wants. The result is each user's target rate. A virtual CPU's deadline is a virtual time
//!   tag: it advances by CPU used / target rate, it carries over between slices (a user that
//!   was held back keeps its place), and it starts at the list's virtual time (the largest
//!   start tag dispatched) when the virtual CPU starts a transaction (nothing banked while
//!   idle); off the limit list it keeps at most two slices of lag. A user held at its maximum
//!   share that got less than its target in a tick has its tags moved earlier by the shortfall
//!   (bounded), because proportional sharing among whoever competes at each instant would let
//!   intermittent users take from it as from everyone. LIMITSOFT: a user whose consumption is
//!   over its maximum is queued in the background (behind every other user) until it is back
//!   within it, and a background run is preempted when anyone else becomes ready with no idle
//!   processor, so it gets above its maximum only capacity nobody else wants at that moment.
//!
//! LIMITHARD (`level::LimitHard`): the consumption method keeps a CPU credit per user that grows
//! at limit x elapsed time, bounded by `srm.limit_bucket` slices per virtual CPU; a user in
//! debt waits on the limit list until the debt is repaid. The deadline methods (VM/ESA) hold each
//! virtual CPU after a run of `c` until `c / (limit / vcpus)` after the run's end (2.3.0) or its
//! start (2.4.0); both split the limit evenly over the virtual CPUs (so a virtual MP user with
//! idle virtual CPUs is held below its limit).
//!
//! Dispatch vectors (`level::DvSelect`): z/VM <= 6.3 levels run each processor's own vector and
//! steal from the longest other vector only when their own is empty; 6.4 looks aside at all of
//! them (one ordered list). With local vectors, which users share a vector decides who gets
//! what, whatever their shares (A1's deviation).

use crate::config::{ShareKind, ShareValue};
use crate::guest::{UList, UserSched};
use crate::level::{DvSelect, Level, LimitHard, Sched, StorageAdmission};
use crate::params::Params;
use crate::queue::Time;
use crate::units::{path_ns, NONE};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

mod entitle_pools;
mod entitlement;
mod lists;
pub use lists::QueueCounts;
mod priority;

pub(crate) use entitle_pools::FillBufs;
pub(crate) use lists::Wake;
pub(crate) use priority::PriorityAt;

type Entry = Reverse<(Time, u64, u32)>;

/// A deadline far enough out to mean "never" but safe to add to.
pub const FAR: Time = 1 << 62;

#[inline(always)]
fn to_time(x: f64) -> Time {
    if x >= FAR as f64 {
        FAR
    } else if x <= 0.0 {
        0
    } else {
        // Below FAR (2^62) the signed conversion is exact and cheaper than the unsigned one.
        x as i64 as Time
    }
}

pub struct Scheduler {
    /// Dispatch vectors: one per logical processor (`DvSelect::Local`) or one shared ordered
    /// dispatch list (`DvSelect::LookAside`). Entries: (deadline, sequence, virtual CPU).
    dvs: Vec<BinaryHeap<Entry>>,
    /// Each user's scheduling state (lists, class, test-idle, limits, 6.4 rates, storage
    /// admission), indexed by user.
    users: Vec<UserSched>,
    sched: Sched,
    limithard: LimitHard,
    local: bool,
    /// SET SRM DSPWDMETHOD REBALANCE: steal from the nearest non-empty vector (else the longest).
    rebalance: bool,
    seq: u64,
    /// Fast path: `make_ready` found an idle processor and an empty shared dispatch list, so
    /// the virtual CPU goes straight to that processor instead of through the heap.
    direct_ok: bool,
    direct: u32,
    /// Minor time slice (ns).
    slice: Time,
    /// Period of the scheduler's own pass (ns).
    tick: Time,
    test_idle: Time,
    /// Idle processors signalled when a virtual CPU is readied (`sched.wake_fanout`).
    wake_fanout: u32,
    /// Elapsed time slice per class 1..3 (ns); index 0 unused.
    ets: [Time; 4],
    dspbuf: [f64; 4],
    /// Storage admission: STORBUF and LDUBUF barriers (fractions) per class, MAXWSS (fraction),
    /// the loading test (page-ins per slice of CPU); pageable frames and paging exposures (0
    /// without a storage model: no storage barrier); working sets and loading users on the
    /// dispatch list per class.
    storbuf: [f64; 4],
    ldubuf: [f64; 4],
    maxwss: f64,
    loading_faults: f64,
    dpa: f64,
    exposures: f64,
    wss_q: [f64; 4],
    load_q: [u32; 4],
    /// Interactive bias factor per slice of a transaction (index k-1), 1 beyond the table.
    iab: Vec<f64>,
    tau: f64,
    bucket_slices: f64,
    abs_cap: f64,
    cost_dlist: Time,
    cost_limit: Time,
    cost_entitle: Time,
    /// Nonchargeable CP work done by the scheduler, run by the next processor that dispatches.
    sys_pending: Time,
    /// All system time so far (ns, summed over processors): adjusted TOD stops during it.
    sys_total: u64,
    /// Eligible list: (eligible priority, sequence, user).
    elist: BinaryHeap<Entry>,
    /// Test-idle users in order of going idle: (since, user).
    tidle: VecDeque<(Time, u32)>,
    /// Users on the dispatch list per class (Q1..Q3); index 0 unused.
    nq: [u32; 4],
    /// Shares of the users on the dispatch and eligible lists (relative sum, absolute fraction sum).
    list_rel: f64,
    list_abs: f64,
    /// 6.4: the dispatch list's virtual time (largest start tag dispatched).
    vtime: Time,
    /// Processors running a LIMITSOFT user in the background.
    bg_running: u32,
    last_tick: Time,
    n_cpu: f64,
    /// Counters for the summary and tests.
    stats: SchedStats,
    /// 6.4: the entitlement water-fill kept between passes, the users it measures next pass
    /// (runnable since the last), and a buffer of their demand increments.
    ent: crate::entitle::Entitlement,
    touched: Vec<u32>,
    adds: Vec<(u32, f64)>,
    /// With CPU pools the pass is the full one over every user (`entitle_pools.rs`); true once
    /// it has taken over (pools are never removed, only marked deleted).
    full: bool,
    fill_bufs: FillBufs,
}

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SchedStats {
    pub dlist_adds: u64,
    pub elist_adds: u64,
    pub limit_list_adds: u64,
    pub steals: u64,
    /// Admissions refused because the working set did not fit under STORBUF, or a loading user
    /// did not fit under LDUBUF (counted once per eligible-list head and scheduler pass).
    pub storbuf_holds: u64,
    pub ldubuf_holds: u64,
    /// Users dropped from the dispatch list because their working set exceeded MAXWSS.
    pub maxwss_drops: u64,
}

impl Scheduler {
    /// The run's scheduler for the online processors, with storage admission's view of the
    /// frames and paging exposures (`storage`: None without a storage model).
    pub fn for_run(
        cfg: &crate::config::Config,
        params: &Params,
        level: &Level,
        cpu: &crate::cpu::Cpu,
        storage: Option<(u64, usize)>,
        users: Vec<UserSched>,
    ) -> Scheduler {
        let p_online = cpu.cores * cpu.threads;
        let mut sched = Scheduler::new(params, level, p_online);
        sched.rebalance = cfg.dspwdmethod == crate::config::Dspwd::Rebalance;
        sched.set_processors(p_online, cpu.n_lpus);
        sched.users = users;
        if let Some((frames, exposures)) = storage {
            sched.dpa = frames as f64;
            sched.exposures = exposures as f64;
        }
        sched
    }

    pub fn new(p: &Params, level: &Level, processors: u32) -> Self {
        let ms = 1e6;
        let e1 = (p.ets_e1() * ms).max(1.0);
        let e2 = e1 * p.ets_ratio_e2().max(1.0);
        let e3 = e2 * p.ets_ratio_e3().max(1.0);
        let local = level.switches.dv == DvSelect::Local;
        let n_dv = if local { processors as usize } else { 1 };
        Scheduler {
            dvs: (0..n_dv).map(|_| BinaryHeap::new()).collect(),
            users: Vec::new(),
            direct_ok: false,
            direct: NONE,
            sched: level.switches.sched,
            limithard: level.switches.limithard,
            local,
            rebalance: false,
            seq: 0,
            slice: ((p.dspslice() * ms).round() as Time).max(1),
            tick: ((p.sched_tick() * ms).round() as Time).max(1),
            test_idle: (p.test_idle() * ms).round() as Time,
            wake_fanout: (p.wake_fanout().round() as u32).max(1),
            ets: [0, e1 as Time, e2 as Time, e3 as Time],
            dspbuf: [0.0, p.dspbuf_e1(), p.dspbuf_e2(), p.dspbuf_e3()],
            storbuf: {
                let d = match level.switches.storage_admission {
                    StorageAdmission::Classic => [125.0, 105.0, 95.0],
                    StorageAdmission::Overcommit => [300.0, 250.0, 200.0],
                };
                let v = [p.storbuf_e1(), p.storbuf_e2(), p.storbuf_e3()];
                let f = |i: usize| if v[i] > 0.0 { v[i] } else { d[i] } / 100.0;
                [0.0, f(0), f(1), f(2)]
            },
            ldubuf: match level.switches.storage_admission {
                StorageAdmission::Classic => [
                    0.0,
                    p.ldubuf_e1() / 100.0,
                    p.ldubuf_e2() / 100.0,
                    p.ldubuf_e3() / 100.0,
                ],
                StorageAdmission::Overcommit => [0.0, f64::INFINITY, f64::INFINITY, f64::INFINITY],
            },
            maxwss: p.maxwss() / 100.0,
            loading_faults: p.loading_faults(),
            dpa: 0.0,
            exposures: 0.0,
            wss_q: [0.0; 4],
            load_q: [0; 4],
            iab: {
                let (int, d) = (
                    (p.iabias_intensity() / 100.0).clamp(0.0, 1.0),
                    p.iabias_duration().round().max(0.0) as u32,
                );
                (1..=d)
                    .map(|k| 1.0 - int * (d - k + 1) as f64 / d as f64)
                    .collect()
            },
            tau: (p.demand_tau() * ms).max(1.0),
            bucket_slices: p.limit_bucket(),
            abs_cap: p.abs_cap(),
            cost_dlist: path_ns(p, p.path_dlist(), 0.0),
            cost_limit: path_ns(p, p.path_limit(), 0.0),
            cost_entitle: path_ns(p, p.path_entitle(), 0.0),
            sys_pending: 0,
            sys_total: 0,
            elist: BinaryHeap::new(),
            tidle: VecDeque::new(),
            nq: [0; 4],
            list_rel: 0.0,
            list_abs: 0.0,
            vtime: 0,
            bg_running: 0,
            last_tick: 0,
            n_cpu: processors as f64,
            stats: SchedStats::default(),
            ent: Default::default(),
            touched: Vec::new(),
            adds: Vec::new(),
            full: false,
            fill_bufs: Default::default(),
        }
    }

    /// Logical processors online (SET MULTITHREAD changes it): the share normalization counts
    /// the online ones; local dispatch vectors exist for every allocated one.
    pub(crate) fn set_processors(&mut self, online: u32, allocated: u32) {
        self.n_cpu = online as f64;
        if self.local && self.dvs.len() < allocated as usize {
            self.dvs.resize_with(allocated as usize, BinaryHeap::new);
        }
    }

    /// A virtual CPU waits for a processor (stale dispatch-vector entries count).
    pub(crate) fn has_ready(&self) -> bool {
        self.direct != NONE || !self.is_empty()
    }

    /// Virtual CPUs waiting on dispatch vectors (stale entries included).
    pub fn len(&self) -> usize {
        self.dvs.iter().map(|d| d.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.dvs.iter().all(|d| d.is_empty())
    }

    pub fn eligible_len(&self) -> usize {
        self.elist.len()
    }

    /// The next sequence number of a dispatch-vector or eligible-list entry.
    #[inline(always)]
    pub(super) fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Interactive bias factor on the offset of slice `k` (1-based) of a transaction
    /// (cp-model §4.2 [A]): 1 - intensity x (duration - k + 1) / duration for k <= duration.
    #[inline(always)]
    fn iabias(&self, k: u32) -> f64 {
        *self.iab.get(k as usize - 1).unwrap_or(&1.0)
    }

    /// Can one more user of class `k`, with projected working set `ws` (pages), loading or
    /// not, enter the dispatch list? Barrier j (1..=k) counts the users of classes j and above
    /// (cp-model §4.3): DSPBUF openings, STORBUF storage, LDUBUF loading users per paging
    /// exposure. A barrier with none of those users on the dispatch list lets one in whatever
    /// its working set (assumed: else a user larger than the barrier would never run).
    fn admissible(&mut self, k: u8, ws: f64, loading: bool) -> bool {
        let k = k.clamp(1, 3) as usize;
        for j in 1..=k {
            let n: u32 = self.nq[j..].iter().sum();
            if (n + 1) as f64 > self.dspbuf[j] {
                return false;
            }
            if n == 0 || self.dpa <= 0.0 {
                continue;
            }
            let w: f64 = self.wss_q[j..].iter().sum();
            if w + ws > self.storbuf[j] * self.dpa {
                self.stats.storbuf_holds += 1;
                return false;
            }
            if loading && self.exposures > 0.0 {
                let l: u32 = self.load_q[j..].iter().sum();
                if (l + 1) as f64 > self.ldubuf[j] * self.exposures {
                    self.stats.ldubuf_holds += 1;
                    return false;
                }
            }
        }
        true
    }

    /// A user of class `c` counted as (`ws`, `loading`) joins / leaves the dispatch list's
    /// per-class counts.
    fn q_add(&mut self, c: u8, ws: f64, loading: bool) {
        self.nq[c as usize] += 1;
        self.wss_q[c as usize] += ws;
        self.load_q[c as usize] += loading as u32;
    }

    fn q_remove(&mut self, c: u8, ws: f64, loading: bool) {
        self.nq[c as usize] -= 1;
        self.wss_q[c as usize] = (self.wss_q[c as usize] - ws).max(0.0);
        self.load_q[c as usize] -= loading as u32;
    }
}

/// What the wiring reads and tells the scheduler (its state is its own).
impl Scheduler {
    /// The dispatch-priority mechanism of the level.
    #[inline(always)]
    pub(crate) fn kind(&self) -> Sched {
        self.sched
    }

    /// Local dispatch vectors (z/VM <= 6.3), else one shared ordered list.
    #[inline(always)]
    pub(crate) fn local(&self) -> bool {
        self.local
    }

    /// The minor time slice (ns).
    #[inline(always)]
    pub(crate) fn slice(&self) -> Time {
        self.slice
    }

    /// Period of the scheduler's own pass (ns).
    #[inline(always)]
    pub(crate) fn tick(&self) -> Time {
        self.tick
    }

    /// Logical processors online.
    #[inline(always)]
    pub(crate) fn online(&self) -> f64 {
        self.n_cpu
    }

    /// LIMITHARD credit bucket depth (slices per virtual CPU).
    pub(crate) fn bucket_slices(&self) -> f64 {
        self.bucket_slices
    }

    /// Idle processors signalled when a virtual CPU is readied.
    #[inline(always)]
    pub(crate) fn wake_fanout(&self) -> u32 {
        self.wake_fanout
    }

    /// Nonchargeable CP work for the next processor that dispatches.
    #[inline(always)]
    pub(crate) fn add_system(&mut self, t: Time) {
        self.sys_pending += t;
    }

    /// The nonchargeable CP work waiting for a processor, taken by the one that dispatches.
    #[inline(always)]
    pub(crate) fn take_system(&mut self) -> Time {
        std::mem::take(&mut self.sys_pending)
    }

    /// The nonchargeable CP work waiting for a processor (ns).
    pub(crate) fn system_pending(&self) -> Time {
        self.sys_pending
    }

    /// System time run on a processor (ns): the adjusted TOD stops during it.
    #[inline(always)]
    pub(crate) fn count_system(&mut self, t: Time) {
        self.sys_total += t;
    }

    /// A virtual CPU goes on the limit list: the scheduler's path is system time.
    #[inline]
    pub(crate) fn limit_list_add(&mut self) {
        self.sys_pending += self.cost_limit;
        self.stats.limit_list_adds += 1;
    }

    /// A processor took a virtual CPU from another's dispatch vector.
    #[inline(always)]
    pub(crate) fn count_steal(&mut self) {
        self.stats.steals += 1;
    }

    /// Processors running a LIMITSOFT user in the background.
    #[inline(always)]
    pub(crate) fn bg_running(&self) -> u32 {
        self.bg_running
    }

    /// A background run ended.
    #[inline(always)]
    pub(crate) fn bg_ended(&mut self) {
        self.bg_running -= 1;
    }

    /// The scheduler's counters so far.
    pub fn stats(&self) -> &SchedStats {
        &self.stats
    }

    /// User `u`'s scheduling state (read only: lists, class, limits, pool, rates).
    #[inline(always)]
    pub fn user(&self, u: usize) -> &UserSched {
        &self.users[u]
    }

    /// Is user `u` on the dispatch or eligible list (its share counts in the lists' sums)?
    pub(crate) fn listed(&self, u: usize) -> bool {
        self.users[u].list != UList::Dormant
    }

    /// A first touch of a page by user `u` (the stay's working-set count).
    #[inline]
    pub(crate) fn count_first_touch(&mut self, u: usize) {
        self.users[u].firsts += 1;
    }

    /// A page-in for user `u` (the stay's working-set count and the loading test).
    #[inline]
    pub(crate) fn count_pagein(&mut self, u: usize) {
        self.users[u].pageins += 1;
    }

    /// User `u` joins CPU pool `p` (NONE: leaves its pool).
    pub(crate) fn set_pool(&mut self, u: usize, p: u32) {
        self.users[u].pool = p;
    }

    /// User `u`'s share of its pool's limit, as a fraction of the system (infinite: no pool).
    pub(crate) fn set_pool_ns(&mut self, u: usize, ns: f64) {
        self.users[u].pool_ns = ns;
    }

    /// Every user's CPU pool (NONE: none), in user order.
    pub(crate) fn pools_of(&self) -> impl Iterator<Item = u32> + '_ {
        self.users.iter().map(|s| s.pool)
    }
}

/// Share value as a fraction of the system, given the absolute sum and relative sum of the set
/// it is normalized over (ABSOLUTE first, RELATIVE in proportion over what is left).
#[inline(always)]
fn normalized(v: &ShareValue, abs: f64, rel: f64, abs_cap: f64, is_min: bool) -> f64 {
    let scale = if abs > abs_cap { abs_cap / abs } else { 1.0 };
    match v.kind {
        ShareKind::Absolute => v.value / 100.0 * if is_min { scale } else { 1.0 },
        ShareKind::Relative => (1.0 - abs * scale).max(0.0) * v.value / rel.max(1e-9),
    }
}

/// The processor among `0..n` with the fewest virtual CPUs homed on it (the lowest number among
/// equals).
pub(crate) fn least_loaded(homes: &[u32], n: u32) -> u32 {
    (0..n.min(homes.len() as u32))
        .min_by_key(|&l| (homes[l as usize], l))
        .unwrap_or(0)
}

#[cfg(test)]
pub(super) mod tests {
    //! Unit tests of the admission barriers and the constructor, and the helpers the tests of
    //! `priority.rs` and `lists.rs` build their pieces with (no simulation).

    use super::*;
    use crate::config::{Dist, Limit, Share};
    use crate::guest::{Acct, User, Vcpu};
    use crate::level::{DvSelect, LimitHard, Sched, StorageAdmission};
    use crate::workload::Program;

    /// A level with the given scheduler switches (the rest from the first level).
    pub(crate) fn level(sched: Sched, limithard: LimitHard, dv: DvSelect) -> Level {
        let mut l = crate::level::levels().remove(0);
        l.switches.sched = sched;
        l.switches.limithard = limithard;
        l.switches.dv = dv;
        l
    }

    /// A scheduler for `params` and `level` over `processors`, with `n_users` users in their
    /// default scheduling state.
    pub(crate) fn sched_with(p: &Params, l: &Level, processors: u32, n_users: usize) -> Scheduler {
        let mut s = Scheduler::new(p, l, processors);
        s.users = vec![UserSched::default(); n_users];
        s
    }

    /// The parameters of `old` and `new64`: the defaults (DSPSLICE 5 ms, ETS E1 50 ms, E2 400,
    /// E3 2400, test-idle 300 ms, LIMITHARD bucket 4 slices, loading test 5 page-ins per slice)
    /// but IABIAS 50 2, whose factors 0.5, 0.75, then 1 are exact in binary.
    pub(crate) fn params() -> Params {
        Params {
            iabias_intensity: 50.0,
            ..Params::default()
        }
    }

    /// A z/VM <= 6.3 scheduler (deadline priority, local vectors, the given LIMITHARD method,
    /// classic storage admission) with `params()`.
    pub(crate) fn old(limithard: LimitHard, processors: u32, n_users: usize) -> Scheduler {
        let l = level(Sched::DeadlineNs, limithard, DvSelect::Local);
        sched_with(&params(), &l, processors, n_users)
    }

    /// A z/VM 6.4 scheduler (virtual time tags, one shared list, consumption LIMITHARD).
    pub(crate) fn new64(processors: u32, n_users: usize) -> Scheduler {
        let l = level(
            Sched::EntitlementExcess,
            LimitHard::Consumption,
            DvSelect::LookAside,
        );
        sched_with(&params(), &l, processors, n_users)
    }

    pub(crate) fn rel(v: f64) -> ShareValue {
        ShareValue {
            kind: ShareKind::Relative,
            value: v,
        }
    }

    pub(crate) fn abs(v: f64) -> ShareValue {
        ShareValue {
            kind: ShareKind::Absolute,
            value: v,
        }
    }

    pub(crate) fn share(min: ShareValue, max: Option<ShareValue>, limit: Limit) -> Share {
        Share { min, max, limit }
    }

    /// A user with share `sh` and virtual CPUs `vcpus` (a hungry program, never run here).
    pub(crate) fn user(sh: Share, vcpus: Vec<u32>) -> User {
        User {
            acct: Acct::default(),
            vcpus,
            program: Program::Hungry {
                tx: 1e6,
                dist: Dist::Fixed,
            },
            ns_all: 0.0,
            share: sh,
            userid: "U".into(),
            max_all: None,
        }
    }

    /// A dormant virtual CPU of user `u` homed on processor `home`.
    pub(crate) fn vcpu(u: u32, home: u32) -> Vcpu {
        Vcpu::new(u, crate::rng::Rng::stream(1, u as u64), home)
    }

    #[test]
    fn new_converts_the_srm_settings() {
        let p = Params {
            storbuf_e2: 80.0,
            ..Params::default()
        };
        let l = level(Sched::DeadlineNs, LimitHard::Consumption, DvSelect::Local);
        let s = sched_with(&p, &l, 3, 0);
        assert_eq!(s.slice, 5_000_000);
        assert_eq!(s.ets, [0, 50_000_000, 400_000_000, 2_400_000_000]);
        // IABIAS 90 2: 1 - 0.9 x 2/2, 1 - 0.9 x 1/2, then 1.
        assert!((s.iabias(1) - 0.1).abs() < 1e-12, "{:?}", s.iab);
        assert!((s.iabias(2) - 0.55).abs() < 1e-12, "{:?}", s.iab);
        assert_eq!((s.iab.len(), s.iabias(3), s.iabias(9)), (2, 1.0, 1.0));
        assert_eq!(old(LimitHard::Consumption, 1, 0).iab, vec![0.5, 0.75]);
        assert_eq!(s.dvs.len(), 3, "one local vector per processor");
        // The first level is classic storage admission: STORBUF 125 105 95 unless set.
        assert_eq!(l.switches.storage_admission, StorageAdmission::Classic);
        assert_eq!(s.storbuf, [0.0, 1.25, 0.80, 0.95]);
        assert_eq!(s.ldubuf, [0.0, 1.0, 0.75, 0.6]);
        let mut l = level(
            Sched::EntitlementExcess,
            LimitHard::Consumption,
            DvSelect::LookAside,
        );
        l.switches.storage_admission = StorageAdmission::Overcommit;
        let s = sched_with(&Params::default(), &l, 3, 0);
        assert_eq!(s.dvs.len(), 1, "one shared list");
        assert_eq!(s.storbuf, [0.0, 3.0, 2.5, 2.0]);
        assert!(s.ldubuf[1..].iter().all(|x| x.is_infinite()));
    }

    /// DSPBUF 5 3 2: barrier j counts the users of classes j and above.
    #[test]
    fn dspbuf_barrier_j_counts_classes_j_and_above() {
        let mut p = Params::default();
        (p.dspbuf_e1, p.dspbuf_e2, p.dspbuf_e3) = (5.0, 3.0, 2.0);
        let l = level(Sched::DeadlineNs, LimitHard::Consumption, DvSelect::Local);
        let mut s = sched_with(&p, &l, 2, 0);
        for c in 1..=3 {
            s.q_add(c, 0.0, false);
        }
        // Q1 Q2 Q3 = 1 1 1: barrier 3 sees 1 (+1 <= 2), barrier 2 sees 2 (+1 <= 3).
        assert!(s.admissible(3, 0.0, false));
        s.q_add(3, 0.0, false);
        // 1 1 2: barrier 3 full (3 > 2); barrier 2 sees 3 (+1 > 3); barrier 1 sees 4 (+1 <= 5).
        assert!(!s.admissible(3, 0.0, false));
        assert!(!s.admissible(2, 0.0, false));
        assert!(s.admissible(1, 0.0, false));
        s.q_add(1, 0.0, false);
        assert!(!s.admissible(1, 0.0, false), "barrier 1 counts all 5");
        // Class 0 is tested as class 1 (QUICKDSP users are never on the eligible list).
        assert!(!s.admissible(0, 0.0, false));
        // E0 (QUICKDSP) users are not counted; class 0 is tested as class 1.
        s.q_remove(1, 0.0, false);
        s.q_add(0, 0.0, false);
        assert!(s.admissible(1, 0.0, false));
        assert!(s.admissible(0, 0.0, false));
        assert_eq!(s.stats.storbuf_holds + s.stats.ldubuf_holds, 0);
    }

    /// STORBUF 125 105 95 of 1000 pageable frames: the working sets of classes j and above plus
    /// the newcomer's against storbuf_j x DPA; a hold is counted.
    #[test]
    fn storbuf_barriers_weigh_working_sets_per_class() {
        let mut s = old(LimitHard::Consumption, 2, 0);
        s.dpa = 1000.0;
        s.q_add(1, 200.0, false);
        s.q_add(3, 900.0, false);
        // Class 3, ws 100: barrier 1 1200 <= 1250, barrier 2 1000 <= 1050, barrier 3 1000 > 950.
        assert!(!s.admissible(3, 100.0, false));
        assert_eq!(s.stats.storbuf_holds, 1);
        // Class 2, ws 100: barriers 1 and 2 only.
        assert!(s.admissible(2, 100.0, false));
        // Class 1, ws 151: 1100 + 151 > 1250.
        assert!(!s.admissible(1, 151.0, false));
        assert!(s.admissible(1, 150.0, false), "at the barrier is inside");
        assert_eq!(s.stats.storbuf_holds, 2);
        // Without a storage model (no pageable frames) no storage barrier.
        s.dpa = 0.0;
        assert!(s.admissible(3, 1e9, false));
        assert_eq!(s.stats.storbuf_holds, 2);
    }

    /// LDUBUF 100 75 60 of 4 exposures: 4, 3 and 2.4 loading users of classes j and above.
    #[test]
    fn ldubuf_barriers_count_loading_users_per_exposure() {
        let mut s = old(LimitHard::Consumption, 2, 0);
        s.dpa = 1e9;
        s.exposures = 4.0;
        s.q_add(3, 0.0, true);
        s.q_add(3, 0.0, true);
        // Class 3 loading: barrier 3 sees 2 (+1 > 2.4).
        assert!(!s.admissible(3, 0.0, true));
        assert_eq!(s.stats.ldubuf_holds, 1);
        assert!(
            s.admissible(3, 0.0, false),
            "a non-loading user is not held"
        );
        // Class 2 loading: barrier 2 sees 2 (+1 <= 3), barrier 1 (+1 <= 4).
        assert!(s.admissible(2, 0.0, true));
        s.q_add(1, 0.0, true);
        s.q_add(1, 0.0, true);
        // Barrier 1 sees 4 (+1 > 4).
        assert!(!s.admissible(1, 0.0, true));
        assert_eq!(s.stats.ldubuf_holds, 2);
        // No paging exposures: no LDUBUF barrier.
        s.exposures = 0.0;
        assert!(s.admissible(1, 0.0, true));
        assert_eq!(s.stats.storbuf_holds, 0);
        // Loading users Q1 Q2 = 2 1: a class 2 loading newcomer passes barrier 1 (3 + 1 <= 4)
        // and barrier 2, which does not count Q1 (1 + 1 <= 3).
        let mut s = old(LimitHard::Consumption, 2, 0);
        (s.dpa, s.exposures) = (1e9, 4.0);
        s.q_add(1, 0.0, true);
        s.q_add(1, 0.0, true);
        s.q_add(2, 0.0, true);
        assert!(s.admissible(2, 0.0, true));
        s.q_add(1, 0.0, true);
        assert!(!s.admissible(2, 0.0, true), "barrier 1: 4 + 1 > 4");
    }

    /// A barrier with none of its users on the dispatch list lets one in, however large its
    /// working set and loading or not.
    #[test]
    fn an_empty_barrier_lets_one_in() {
        let mut s = old(LimitHard::Consumption, 2, 0);
        s.dpa = 100.0;
        s.exposures = 0.5; // LDUBUF 100%: not even one loading user per barrier
        assert!(s.admissible(1, 1e6, true));
        assert!(s.admissible(3, 1e6, true));
        // A class 1 user fills barrier 1 only: a class 2 newcomer is held at barrier 1.
        s.q_add(1, 10.0, false);
        assert!(!s.admissible(2, 1e6, false));
        assert!(!s.admissible(2, 0.0, true));
        // A class 2 user (working set 0) on barriers 1 and 2, none on barrier 3: a class 3
        // newcomer of 100 pages passes 1 (100 <= 125) and 2 (100 <= 105) and is let through
        // barrier 3 although 100 > 95.
        let mut s = old(LimitHard::Consumption, 2, 0);
        s.dpa = 100.0;
        s.q_add(2, 0.0, false);
        assert!(s.admissible(3, 100.0, false));
        assert!(!s.admissible(3, 106.0, false), "barrier 2: 106 > 105");
    }

    #[test]
    fn q_add_and_q_remove_keep_per_class_counts() {
        let mut s = old(LimitHard::Consumption, 2, 0);
        s.q_add(2, 50.0, true);
        s.q_add(2, 30.0, false);
        assert_eq!(
            (s.nq, s.wss_q[2], s.load_q),
            ([0, 0, 2, 0], 80.0, [0, 0, 1, 0])
        );
        s.q_remove(2, 50.0, true);
        assert_eq!(
            (s.nq, s.wss_q[2], s.load_q),
            ([0, 0, 1, 0], 30.0, [0, 0, 0, 0])
        );
        s.q_remove(2, 40.0, false);
        assert_eq!(s.wss_q[2], 0.0, "never below zero");
    }

    #[test]
    fn normalized_shares_absolute_first_relative_over_the_rest() {
        // ABSOLUTE 30% then RELATIVE 100 and 300 over the 70% left.
        let (a, r) = (0.3, 400.0);
        assert_eq!(normalized(&abs(30.0), a, r, 0.99, true), 0.3);
        assert!((normalized(&rel(100.0), a, r, 0.99, true) - 0.175).abs() < 1e-12);
        assert!((normalized(&rel(300.0), a, r, 0.99, true) - 0.525).abs() < 1e-12);
        // ABSOLUTE over the cap (120% > 99%): minima scaled to the cap, a maximum is not;
        // relative users share the 1% left.
        let (a, r) = (1.2, 100.0);
        assert!((normalized(&abs(60.0), a, r, 0.99, true) - 0.495).abs() < 1e-12);
        assert_eq!(normalized(&abs(60.0), a, r, 0.99, false), 0.6);
        assert!((normalized(&rel(100.0), a, r, 0.99, true) - 0.01).abs() < 1e-12);
    }

    #[test]
    fn least_loaded_takes_the_fewest_homed_lowest_first() {
        assert_eq!(least_loaded(&[3, 1, 1, 0], 3), 1);
        assert_eq!(least_loaded(&[3, 1, 1, 0], 4), 3);
        assert_eq!(least_loaded(&[], 4), 0);
    }

    #[test]
    fn to_time_clamps() {
        assert_eq!(to_time(-1.0), 0);
        assert_eq!(to_time(2.9), 2);
        assert_eq!(to_time(1e30), FAR);
    }
}
