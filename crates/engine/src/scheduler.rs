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

use crate::config::{Limit, ShareKind, ShareValue};
use crate::entity::Entity;
use crate::guest::{UList, UserSched, VState};
use crate::level::{DvSelect, Level, LimitHard, Sched, StorageAdmission};
use crate::params::Params;
use crate::queue::Time;
use crate::sim::Sim;
use crate::units::{path_ns, NONE};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

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
        x as Time
    }
}

pub struct Scheduler {
    /// Dispatch vectors: one per logical processor (`DvSelect::Local`) or one shared ordered
    /// dispatch list (`DvSelect::LookAside`). Entries: (deadline, sequence, virtual CPU).
    dvs: Vec<BinaryHeap<Entry>>,
    /// Each user's scheduling state (lists, class, test-idle, limits, 6.4 rates, storage
    /// admission), indexed by user.
    pub users: Vec<UserSched>,
    pub sched: Sched,
    pub limithard: LimitHard,
    pub local: bool,
    /// SET SRM DSPWDMETHOD REBALANCE: steal from the nearest non-empty vector (else the longest).
    pub rebalance: bool,
    seq: u64,
    /// Fast path: `make_ready` found an idle processor and an empty shared dispatch list, so
    /// the virtual CPU goes straight to that processor instead of through the heap.
    direct_ok: bool,
    direct: u32,
    /// Minor time slice (ns).
    pub slice: Time,
    /// Period of the scheduler's own pass (ns).
    pub tick: Time,
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
    pub dpa: f64,
    pub exposures: f64,
    wss_q: [f64; 4],
    load_q: [u32; 4],
    /// Interactive bias factor per slice of a transaction (index k-1), 1 beyond the table.
    iab: Vec<f64>,
    pub(crate) tau: f64,
    pub(crate) bucket_slices: f64,
    pub abs_cap: f64,
    cost_dlist: Time,
    pub(crate) cost_limit: Time,
    pub(crate) cost_entitle: Time,
    /// Nonchargeable CP work done by the scheduler, run by the next processor that dispatches.
    pub sys_pending: Time,
    /// All system time so far (ns, summed over processors): adjusted TOD stops during it.
    pub sys_total: u64,
    /// Eligible list: (eligible priority, sequence, user).
    elist: BinaryHeap<Entry>,
    /// Test-idle users in order of going idle: (since, user).
    tidle: VecDeque<(Time, u32)>,
    /// Users on the dispatch list per class (Q1..Q3); index 0 unused.
    pub nq: [u32; 4],
    /// Shares of the users on the dispatch and eligible lists (relative sum, absolute fraction sum).
    list_rel: f64,
    list_abs: f64,
    /// 6.4: the dispatch list's virtual time (largest start tag dispatched).
    pub vtime: Time,
    /// Processors running a LIMITSOFT user in the background.
    pub bg_running: u32,
    last_tick: Time,
    pub(crate) n_cpu: f64,
    /// Counters for the summary and tests.
    pub stats: SchedStats,
    /// 6.4: the entitlement water-fill kept between passes, the users it measures next pass
    /// (runnable since the last), and a buffer of their demand increments.
    pub(crate) ent: crate::entitle::Entitlement,
    touched: Vec<u32>,
    adds: Vec<(u32, f64)>,
    /// With CPU pools the pass is the full one over every user (`entitle_pools.rs`); true once
    /// it has taken over (pools are never removed, only marked deleted).
    pub(crate) full: bool,
    pub(crate) fill_bufs: crate::entitle_pools::FillBufs,
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

impl Sim {
    /// Normalized minimum and maximum shares over all logged-on users (start and SET SHARE).
    pub(crate) fn normalize_shares(&mut self) {
        let abs: f64 = self
            .users
            .iter()
            .filter(|u| u.share.min.kind == ShareKind::Absolute)
            .map(|u| u.share.min.value / 100.0)
            .sum();
        let rel: f64 = self
            .users
            .iter()
            .filter(|u| u.share.min.kind == ShareKind::Relative)
            .map(|u| u.share.min.value)
            .sum();
        let cap = self.sched.abs_cap;
        for u in &mut self.users {
            u.ns_all = normalized(&u.share.min, abs, rel, cap, true).max(1e-9);
            u.max_all = match (u.share.max, u.share.limit) {
                (Some(m), Limit::Soft | Limit::Hard) => Some(normalized(&m, abs, rel, cap, false)),
                _ => None,
            };
        }
        if !self.pools.is_empty() {
            self.pool_ns_refresh();
        }
    }

    pub(crate) fn list_sums_add(&mut self, i: usize) {
        let s = &self.users[i].share.min;
        let c = match s.kind {
            ShareKind::Relative => (s.value, 0.0),
            ShareKind::Absolute => (0.0, s.value / 100.0),
        };
        self.sched.list_rel += c.0;
        self.sched.list_abs += c.1;
        self.sched.users[i].in_sums = c;
    }

    pub(crate) fn list_sums_remove(&mut self, i: usize) {
        let c = std::mem::take(&mut self.sched.users[i].in_sums);
        self.sched.list_rel -= c.0;
        self.sched.list_abs -= c.1;
        if self.sched.list_rel < 1e-9 {
            self.sched.list_rel = 0.0;
        }
        if self.sched.list_abs < 1e-12 {
            self.sched.list_abs = 0.0;
        }
    }

    /// z/VM <= 6.3 normalized share: over the users on the dispatch and eligible lists.
    #[inline]
    fn ns_lists(&self, u: usize) -> f64 {
        let (a, r) = (self.sched.list_abs, self.sched.list_rel);
        let us = &self.users[u];
        let mut ns = normalized(&us.share.min, a, r, self.sched.abs_cap, true);
        if let (Some(m), Limit::Soft | Limit::Hard) = (us.share.max, us.share.limit) {
            ns = ns.min(normalized(&m, a, r, self.sched.abs_cap, false));
        }
        // A CPU pool member: at most its share of the pool's limit (sim/pools.rs `pool_ns_refresh`), as a LIMITHARD
        // user is held to its maximum share.
        ns.min(self.sched.users[u].pool_ns)
    }

    /// LIMITHARD (or, in 6.4, LIMITSOFT) maximum in processors (infinite when none).
    #[inline]
    pub(crate) fn limit_rate(&self, u: usize) -> f64 {
        let us = &self.users[u];
        match (us.share.max, us.share.limit) {
            (Some(m), Limit::Hard | Limit::Soft) => {
                let f = match self.sched.sched {
                    Sched::DeadlineNs => normalized(
                        &m,
                        self.sched.list_abs,
                        self.sched.list_rel,
                        self.sched.abs_cap,
                        false,
                    ),
                    Sched::EntitlementExcess => us.max_all.unwrap_or(1.0),
                };
                (f * self.sched.n_cpu).max(1e-6)
            }
            _ => f64::INFINITY,
        }
    }

    /// Adjusted TOD: real time less the system time (per processor) spent so far.
    #[inline(always)]
    pub(crate) fn atod(&self) -> Time {
        self.now
            .saturating_sub(self.sched.sys_total / self.lpus.len() as u64)
    }

    /// Dispatch priority of `v` for its next minor time slice. In 6.4 a virtual CPU that starts
    /// a transaction starts at the list's virtual time (nothing banked while idle); one coming
    /// off the limit list wanted the processor all along and keeps at most one slice of lag.
    #[inline]
    fn priority(&mut self, v: u32, from_limit: bool) -> Time {
        let vc = &self.vcpus[v as usize];
        let u = vc.user as usize;
        let f = self.sched.iabias(vc.tx_slices + 1);
        let nv = self.users[u].vcpus.len() as f64;
        match self.sched.sched {
            Sched::DeadlineNs => {
                let ns_v = (self.ns_lists(u) / nv).max(1e-12);
                let mut off = self.sched.slice as f64 / (ns_v * self.sched.n_cpu) * f;
                let delay = std::mem::take(&mut self.sched.users[u].el_delay) as f64;
                off -= off.min(delay);
                // A CPU pool releasing it: the deadline counts from when the pool held it.
                let base = match self.pools.release_base() {
                    0 => self.atod(),
                    b => b.min(self.atod()),
                };
                base.saturating_add(to_time(off))
            }
            Sched::EntitlementExcess => {
                // LIMITSOFT over its maximum: runs only when nobody else wants the processor.
                let bg = if self.users[u].share.limit == Limit::Soft
                    && self.sched.users[u].lim_until > self.now
                {
                    FAR
                } else {
                    0
                };
                self.debug_rates_fresh(u);
                let one = self.sched.users[u].slice_v;
                let vtime = self.sched.vtime;
                let vc = &mut self.vcpus[v as usize];
                if vc.tx_slices == 0 {
                    vc.vtag = vc.vtag.max(vtime);
                } else if from_limit {
                    vc.vtag = vc.vtag.max(vtime.saturating_sub(2 * one));
                }
                vc.start = vc.vtag;
                vc.vtag
                    .saturating_add(to_time(one as f64 * f))
                    .saturating_add(bg)
            }
        }
    }

    /// Put `v` on a dispatch vector with a fresh minor time slice.
    #[inline]
    fn push_ready(&mut self, v: u32, from_limit: bool) {
        let d = self.priority(v, from_limit);
        self.sched.seq += 1;
        let seq = self.sched.seq;
        let now = self.now;
        let vc = &mut self.vcpus[v as usize];
        vc.deadline = d;
        vc.heap_seq = seq;
        vc.set_state(VState::Ready, now);
        vc.slice_left = self.sched.slice;
        if self.sched.direct_ok && d < FAR {
            // It is the most urgent ready virtual CPU, and an idle processor takes it now.
            self.sched.direct = v;
            return;
        }
        let dv = if self.sched.local {
            vc.home as usize
        } else {
            0
        };
        self.sched.dvs[dv].push(Reverse((d, seq, v)));
        if d >= FAR {
            // Background (LIMITSOFT over its maximum) until its consumption is back in line.
            let u = self.vcpus[v as usize].user as usize;
            self.q
                .schedule(Entity::Vcpu(v), self.sched.users[u].lim_until);
        }
    }

    /// A waiting virtual CPU's background period is over: requeue it at its normal priority.
    /// It wanted a processor all along, like a virtual CPU leaving the limit list, so it keeps
    /// the same bounded lag (two slices): a tag left far behind would let it take everyone's
    /// turn until it is over its maximum again, and whom it displaces would not follow shares.
    pub(crate) fn reprioritize(&mut self, v: u32) {
        if self.vcpus[v as usize].deadline >= FAR {
            self.push_ready(v, true);
        }
    }

    /// A runnable virtual CPU of a dispatch-list user wants a processor: hold it on the limit
    /// list if its user is over a LIMITHARD maximum, else put it on a dispatch vector.
    /// Returns true if it went on a dispatch vector.
    #[inline]
    pub(crate) fn offer(&mut self, v: u32, from_limit: bool) -> bool {
        let u = self.vcpus[v as usize].user as usize;
        let pool_until = self.pool_until(u);
        if self.users[u].share.limit == Limit::Hard || pool_until > self.now {
            let mut until = match (self.users[u].share.limit, self.sched.limithard) {
                (Limit::Hard, LimitHard::Consumption) => self.sched.users[u].lim_until,
                (Limit::Hard, _) => self.vcpus[v as usize].limit_until,
                _ => 0,
            };
            // A CPU pool in debt holds its members too (pools.rs).
            until = until.max(pool_until);
            if until > self.now {
                if pool_until > self.now {
                    self.pool_held(v);
                }
                self.vcpus[v as usize].set_state(VState::Limited, self.now);
                self.q.schedule(Entity::Vcpu(v), until);
                self.sched.sys_pending += self.sched.cost_limit;
                self.sched.stats.limit_list_adds += 1;
                return false;
            }
        }
        self.push_ready(v, from_limit);
        true
    }

    /// `v` wants a processor: offer it, and wake an idle processor if it went on a vector.
    #[inline]
    pub(crate) fn make_ready(&mut self, v: u32, from_limit: bool) {
        self.sched.direct_ok =
            !self.sched.local && !self.idle.is_empty() && self.sched.dvs[0].is_empty();
        let offered = self.offer(v, from_limit);
        self.sched.direct_ok = false;
        if offered {
            if let Some(l) = self.idle.pop() {
                self.dispatch_next(l);
                self.signal_idle(self.sched.wake_fanout - 1);
            } else if self.sched.bg_running > 0 && self.vcpus[v as usize].deadline < FAR {
                // A LIMITSOFT user over its maximum only gets capacity nobody else wants.
                if let Some(l) = self.lpus.iter().position(|lp| lp.bg) {
                    self.preempt(l as u32);
                }
            }
        }
    }

    /// `k` more idle processors signalled for the same readying: each wakes and looks at the
    /// dispatch list (`Locks::signalled`: a woken processor looks even if its last look found
    /// nothing); one that finds the work gone waits again after its wake and look.
    fn signal_idle(&mut self, k: u32) {
        for _ in 0..k {
            let Some(l) = self.idle.pop() else { break };
            self.locks.signalled(l);
            self.dispatch_next(l);
        }
    }

    /// The next virtual CPU for processor `l`, if any (dispatch-vector choice by level).
    #[inline]
    pub(crate) fn pick(&mut self, l: u32) -> Option<u32> {
        if self.sched.direct != NONE {
            return Some(std::mem::replace(&mut self.sched.direct, NONE));
        }
        if !self.sched.local {
            return self.pop_live(0);
        }
        if let Some(v) = self.pop_live(l as usize) {
            return Some(v);
        }
        // Own vector empty: steal the most urgent entry of the longest other vector (RESHUFFLE),
        // or of the nearest non-empty one by topology, the longest among equally near ones
        // (REBALANCE).
        loop {
            let mut best = None;
            let mut best_key = (usize::MAX, 0usize);
            for (i, d) in self.sched.dvs.iter().enumerate() {
                if d.is_empty() {
                    continue;
                }
                let dist = if self.sched.rebalance {
                    self.cpu.topo.distance(l, i as u32)
                } else {
                    0
                };
                if dist < best_key.0 || (dist == best_key.0 && d.len() > best_key.1) {
                    best_key = (dist, d.len());
                    best = Some(i);
                }
            }
            let i = best?;
            if let Some(v) = self.pop_live(i) {
                self.sched.stats.steals += 1;
                return Some(v);
            }
        }
    }

    /// Processor `from` was parked: the live entries of its dispatch vector move, with their
    /// deadlines and sequence numbers, to the vectors of unparked processors `0..n`, each to the
    /// processor with the fewest virtual CPUs homed on it (`homes`, kept up to date); each moved
    /// virtual CPU takes its new vector as home.
    pub(crate) fn move_parked_dv(&mut self, from: usize, n: u32, homes: &mut [u32]) {
        if !self.sched.local || from >= self.sched.dvs.len() || n == 0 {
            return;
        }
        let entries = std::mem::take(&mut self.sched.dvs[from]).into_sorted_vec();
        for Reverse((d, seq, v)) in entries.into_iter().rev() {
            let vc = &self.vcpus[v as usize];
            if vc.heap_seq != seq || vc.state != VState::Ready {
                continue; // stale
            }
            let to = least_loaded(homes, n);
            let old = vc.home as usize;
            if old < homes.len() && homes[old] > 0 {
                homes[old] -= 1;
            }
            homes[to as usize] += 1;
            self.vcpus[v as usize].home = to;
            self.sched.dvs[to as usize].push(Reverse((d, seq, v)));
        }
    }

    #[inline(always)]
    fn pop_live(&mut self, i: usize) -> Option<u32> {
        while let Some(Reverse((_, seq, v))) = self.sched.dvs[i].pop() {
            let vc = &self.vcpus[v as usize];
            if vc.heap_seq == seq && vc.state == VState::Ready {
                if !self.pools.is_empty() && self.pool_hold_at_dispatch(v) {
                    continue;
                }
                return Some(v);
            }
        }
        None
    }

    /// Bookkeeping when `v` is dispatched on processor `l`.
    #[inline(always)]
    pub(crate) fn on_dispatch(&mut self, v: u32, l: u32) {
        if self.vcpus[v as usize].deadline >= FAR {
            self.lpus[l as usize].bg = true;
            self.sched.bg_running += 1;
        }
        let vc = &mut self.vcpus[v as usize];
        let u = vc.user as usize;
        self.sched.users[u].want_ns += self.now - vc.want_since;
        let d = self.cpu.topo.distance(vc.home, l);
        self.cpu.moves[d] += 1;
        self.cpu.lp_moves[l as usize][d] += 1;
        if self.warm.on {
            self.cache_dispatch(v, l);
        }
        let vc = &mut self.vcpus[v as usize];
        vc.home = l;
        vc.run_start = self.now;
        vc.run_used = 0;
        // The list's virtual time: the start tag the dispatched entry was queued with (so a
        // later feedback shift of a waiting entry does not move it).
        // A LIMITSOFT user running in the background does not move it either.
        if self.sched.vtime < vc.start && vc.deadline < FAR {
            self.sched.vtime = vc.start;
        }
    }

    /// End of a run of `v` (slice end or going idle): advance its virtual deadline and charge
    /// the CPU it used against a LIMITHARD maximum.
    #[inline]
    pub(crate) fn end_run(&mut self, v: u32) {
        let vc = &mut self.vcpus[v as usize];
        let used = std::mem::take(&mut vc.run_used);
        let u = vc.user as usize;
        self.pool_charge(u, used);
        if self.sched.sched == Sched::EntitlementExcess {
            self.debug_rates_fresh(u);
            let vc = &mut self.vcpus[v as usize];
            vc.vtag = vc
                .vtag
                .saturating_add(to_time(used as f64 * self.sched.users[u].inv_rate_v));
        }
        let method = match (self.users[u].share.limit, self.sched.sched) {
            (Limit::Hard, _) => self.sched.limithard,
            // 6.4 tracks a LIMITSOFT user's consumption the same way (over it: background).
            (Limit::Soft, Sched::EntitlementExcess) => LimitHard::Consumption,
            _ => return,
        };
        let r = self.limit_rate(u);
        if !r.is_finite() {
            return;
        }
        let nv = self.users[u].vcpus.len() as f64;
        let now = self.now;
        match method {
            LimitHard::Consumption => {
                let depth = self.sched.bucket_slices * self.sched.slice as f64 * nv;
                let s = &mut self.sched.users[u];
                s.lim_credit =
                    (s.lim_credit + r * (now - s.lim_last) as f64).min(depth) - used as f64;
                s.lim_last = now;
                s.lim_until = if s.lim_credit < 0.0 {
                    now + to_time(-s.lim_credit / r)
                } else {
                    0
                };
            }
            LimitHard::DeadlineOld => {
                let vc = &mut self.vcpus[v as usize];
                vc.limit_until = now + to_time(used as f64 / (r / nv));
            }
            LimitHard::Deadline240 => {
                let vc = &mut self.vcpus[v as usize];
                vc.limit_until = vc.run_start + to_time(used as f64 / (r / nv));
            }
        }
    }

    /// A dormant virtual CPU starts a transaction.
    pub(crate) fn vcpu_runnable(&mut self, v: u32) {
        let u = self.vcpus[v as usize].user as usize;
        {
            let vc = &mut self.vcpus[v as usize];
            vc.tx_slices = 0;
            vc.want_since = self.now;
            vc.set_state(VState::Eligible, self.now);
        }
        self.sched.users[u].n_runnable += 1;
        self.touch(u);
        match self.sched.users[u].list {
            UList::Dormant if self.sched.users[u].quickdsp => {
                // SET QUICKDSP ON: class E0, straight onto the dispatch list (no admission
                // barrier, not counted against DSPBUF).
                self.sched.users[u].class = 0;
                self.list_sums_add(u);
                self.dlist_add(u);
            }
            UList::Dormant => {
                self.sched.users[u].class = 1;
                self.list_sums_add(u);
                self.elist_add(u, false);
                self.admit_from_elist();
            }
            UList::Eligible => {}
            UList::Dispatch => {
                let s = &mut self.sched.users[u];
                if s.tidle {
                    // A new transaction of a test-idle user: back to Q1, no drop and re-add
                    // (a dispatch-list update, under the scheduler lock held exclusive).
                    s.end_tidle(self.now);
                    self.sched.sys_pending += self.locks.ready_update(self.now);
                    let c = if s.quickdsp { 0 } else { 1 };
                    let (old, ws, ld) = (s.class, s.dl_wss, s.dl_loading);
                    s.class = c;
                    s.dl_since = self.now;
                    self.sched.q_remove(old, ws, ld);
                    self.sched.q_add(c, ws, ld);
                }
                self.ready_lock();
                self.make_ready(v, false);
            }
        }
    }

    /// A virtual CPU of a user on the dispatch list is readied from a wait (a message, an I/O
    /// completion, a page-in): before the exploitation SPE the state change is done under the
    /// scheduler lock held exclusive (`Locks::vcpu_ready`); any spin and line time run on the
    /// next processor that dispatches.
    fn ready_lock(&mut self) {
        self.sched.sys_pending += self.locks.vcpu_ready(self.now);
    }

    /// `v`'s page-in is done. A page wait is CP's, not the guest's: the user stayed on the
    /// dispatch list (not test-idle, no new transaction, no interactive bias again); `v` goes
    /// back on a dispatch vector keeping its priority with the limit list's bounded lag, or
    /// waits for its user's admission if the user was moved to the eligible list meanwhile.
    pub(crate) fn page_wait_done(&mut self, v: u32) {
        let u = self.vcpus[v as usize].user as usize;
        self.vcpus[v as usize].want_since = self.now;
        // The user stayed on the dispatch list: readying its VMDBK puts it back on a dispatch
        // vector and changes no scheduler list, so from the exploitation SPE on the scheduler
        // lock is not taken exclusive here (a test-idle user's new transaction is:
        // `vcpu_runnable`); before it the readying is an exclusive hold (`ready_lock`).
        if self.sched.users[u].list == UList::Dispatch {
            if !self.stay_ended(v) {
                self.ready_lock();
                self.make_ready(v, true);
            }
        } else {
            self.vcpus[v as usize].set_state(VState::Eligible, self.now);
        }
    }

    /// `v` finished a transaction and thinks.
    pub(crate) fn vcpu_idle(&mut self, v: u32) {
        let u = self.vcpus[v as usize].user as usize;
        let s = &mut self.sched.users[u];
        s.n_runnable -= 1;
        if s.n_runnable > 0 {
            return;
        }
        match s.list {
            UList::Dispatch => {
                s.tidle = true;
                s.tidle_since = self.now;
                self.sched.tidle.push_back((self.now, u as u32));
                // A one-CPU user's virtual CPU is `v` (not its list, another allocation).
                let dormant = if self.users[u].vcpus.len() == 1 {
                    (self.vcpus[v as usize].state == VState::Dormant) as u32
                } else {
                    self.users[u]
                        .vcpus
                        .iter()
                        .filter(|&&w| self.vcpus[w as usize].state == VState::Dormant)
                        .count() as u32
                };
                self.sched.users[u].tidle_vcpus = dormant;
            }
            UList::Eligible => {
                s.list = UList::Dormant;
                self.list_sums_remove(u);
            }
            UList::Dormant => {}
        }
    }

    /// `v`'s minor time slice ended and it is still runnable.
    pub(crate) fn slice_end_requeue(&mut self, v: u32) {
        let u = self.vcpus[v as usize].user as usize;
        self.vcpus[v as usize].want_since = self.now;
        let s = &self.sched.users[u];
        if s.list != UList::Dispatch {
            self.vcpus[v as usize].set_state(VState::Eligible, self.now);
            return;
        }
        if self.stay_ended(v) {
            return;
        }
        // The processor it ran on dispatches next: it takes `v` again unless a more urgent
        // virtual CPU waits, and only then is an idle processor woken for `v` (handing `v` to
        // an idle processor while its own goes idle would only move it, and under SMT land it
        // beside a busy sibling).
        self.requeue_ready(v);
    }

    /// At a slice end or a page-in's end of `v`, is its user's dispatch-list stay over? If so
    /// the user is dropped to the eligible list (next class) and true is returned, `v` waiting
    /// there. The stay ends when the class's elapsed time slice is used up, or (MAXWSS) when
    /// the working set is over the limit: then the user goes "well out" in the eligible list
    /// (cp-model §4.3). E0 (QUICKDSP) users have no elapsed time slice.
    fn stay_ended(&mut self, v: u32) -> bool {
        let u = self.vcpus[v as usize].user as usize;
        let s = &self.sched.users[u];
        let over_wss = self.sched.maxwss < 99.0
            && self
                .paging
                .as_ref()
                .is_some_and(|pg| pg.resident(u) as f64 > self.sched.maxwss * self.sched.dpa);
        if s.class == 0 || !(over_wss || self.now - s.dl_since >= self.sched.ets[s.class as usize])
        {
            return false;
        }
        self.vcpus[v as usize].set_state(VState::Eligible, self.now);
        self.dlist_drop(u);
        let s = &mut self.sched.users[u];
        s.class = (s.class + 1).min(3);
        for k in 0..self.users[u].vcpus.len() {
            let w = self.users[u].vcpus[k] as usize;
            if matches!(self.vcpus[w].state, VState::Ready | VState::Limited) {
                self.vcpus[w].set_state(VState::Eligible, self.now);
            }
        }
        if over_wss {
            self.sched.stats.maxwss_drops += 1;
        }
        self.elist_add(u, over_wss);
        self.admit_from_elist();
        true
    }

    /// `v` is ready again at the end of its slice on the processor that now dispatches next.
    fn requeue_ready(&mut self, v: u32) {
        if !self.offer(v, false) {
            return;
        }
        let dv = if self.sched.local {
            self.vcpus[v as usize].home as usize
        } else {
            0
        };
        if self.sched.dvs[dv].len() > 1 {
            if let Some(l) = self.idle.pop() {
                self.dispatch_next(l);
            }
        }
    }

    /// The end of `v`'s wait on the limit list.
    pub(crate) fn limit_release(&mut self, v: u32) {
        if self.pool_release(v) {
            return;
        }
        self.make_ready(v, true);
    }

    /// `u` joins the eligible list; `well_out` (dropped for MAXWSS) adds an E3 elapsed time
    /// slice to its eligible priority (assumed: how far "well out" is, cp-model §4.3, is not public).
    fn elist_add(&mut self, u: usize, well_out: bool) {
        let ns = self.users[u].ns_all;
        let mut ets = self.sched.ets[self.sched.users[u].class as usize] as f64;
        if well_out {
            ets += self.sched.ets[3] as f64;
        }
        let prio = self
            .atod()
            .saturating_add(to_time(ets / (ns * self.sched.n_cpu)));
        self.sched.seq += 1;
        let seq = self.sched.seq;
        let s = &mut self.sched.users[u];
        s.list = UList::Eligible;
        s.el_since = self.now;
        s.el_seq = seq;
        self.sched.elist.push(Reverse((prio, seq, u as u32)));
        self.sched.stats.elist_adds += 1;
    }

    /// Admit eligible users in eligible-priority order while the DSPBUF barriers allow.
    fn admit_from_elist(&mut self) {
        while let Some(&Reverse((_, seq, u))) = self.sched.elist.peek() {
            let s = &self.sched.users[u as usize];
            if s.list != UList::Eligible || s.el_seq != seq {
                self.sched.elist.pop();
                continue;
            }
            let (c, ws, ld) = (s.class, s.wss, s.loading);
            if !self.sched.admissible(c, ws, ld) {
                break;
            }
            self.sched.elist.pop();
            self.dlist_add(u as usize);
        }
    }

    fn dlist_add(&mut self, u: usize) {
        let now = self.now;
        let cpu = self.users[u].acct.virt_ns + self.users[u].acct.cp_ns;
        let resident = self.paging.as_ref().map_or(0, |pg| pg.resident(u));
        let s = &mut self.sched.users[u];
        s.list = UList::Dispatch;
        s.stay_res = resident;
        s.stay_in = s.pageins + s.firsts;
        s.dl_since = now;
        s.el_delay = now - s.el_since;
        s.end_tidle(now);
        s.dl_wss = s.wss;
        s.dl_loading = s.loading;
        s.stay_pageins = s.pageins;
        s.stay_cpu = cpu;
        let (c, ws, ld) = (s.class, s.wss, s.loading);
        self.sched.q_add(c, ws, ld);
        self.sched.sys_pending += self.sched.cost_dlist;
        self.sched.sys_pending += self.locks.dlist_update(self.now);
        self.sched.stats.dlist_adds += 1;
        for k in 0..self.users[u].vcpus.len() {
            let v = self.users[u].vcpus[k];
            if self.vcpus[v as usize].state == VState::Eligible {
                self.make_ready(v, false);
            }
        }
    }

    fn dlist_drop(&mut self, u: usize) {
        let guest_pages = self.paging.as_ref().map_or(0, |pg| pg.guest_pages(u));
        let cpu = self.users[u].acct.virt_ns + self.users[u].acct.cp_ns;
        let slice = self.sched.slice as f64;
        let loading_faults = self.sched.loading_faults;
        let s = &mut self.sched.users[u];
        let (c, ws, ld) = (s.class, s.dl_wss, s.dl_loading);
        // Working-set projection at the drop (cp-model §6.7, the VM/370 rule). What the stay
        // used: the pages resident when it began plus those brought in during it (page-ins and
        // first touches), at most the guest's pages [A: CP's exact count of pages referenced in
        // the stay is not public; pages stolen from the user while it ran count, because it
        // needed them]; averaged with the last projection when the trend reverses.
        let used = ((s.stay_res + s.pageins + s.firsts - s.stay_in).min(guest_pages)) as f64;
        let trend = (used - s.wss).signum() as i8;
        s.wss = if trend != 0 && s.wss_trend != 0 && trend != s.wss_trend {
            (used + s.wss) / 2.0
        } else {
            used
        };
        if trend != 0 {
            s.wss_trend = trend;
        }
        let slices = ((cpu - s.stay_cpu) as f64 / slice).max(1.0);
        s.loading = (s.pageins - s.stay_pageins) as f64 >= loading_faults * slices;
        self.sched.q_remove(c, ws, ld);
        self.sched.sys_pending += self.sched.cost_dlist;
        self.sched.sys_pending += self.locks.dlist_update(self.now);
    }

    /// The scheduler's periodic pass: drop expired test-idle users, admit from the eligible
    /// list, and (6.4) refresh measured demand and entitlement.
    pub(crate) fn sched_tick(&mut self) {
        while let Some(&(t, u)) = self.sched.tidle.front() {
            if t + self.sched.test_idle > self.now {
                break;
            }
            self.sched.tidle.pop_front();
            let u = u as usize;
            let s = &self.sched.users[u];
            if s.tidle && s.tidle_since == t && s.list == UList::Dispatch {
                self.dlist_drop(u);
                let now = self.now;
                let s = &mut self.sched.users[u];
                s.end_tidle(now);
                s.list = UList::Dormant;
                self.list_sums_remove(u);
            }
        }
        self.admit_from_elist();
        if self.dasd.is_some() {
            self.mdc_arbiter();
        }
        let dt = self.now - self.sched.last_tick;
        self.sched.last_tick = self.now;
        self.refresh_entitlement(dt);
        if self.now < self.end {
            self.q.schedule(
                Entity::Scheduler,
                (self.now + self.sched.tick).min(self.end),
            );
        }
    }

    /// 6.4: measure demand over the last `dt` ns and water-fill entitlement plus excess into
    /// each user's target rate. With `dt == 0` only the water-fill is redone (start, SET SHARE).
    /// Only the users that were runnable since the last pass are measured (the others used
    /// and wanted nothing: their demand decays with everyone's, `entitle::Entitlement`).
    pub(crate) fn refresh_entitlement(&mut self, dt: Time) {
        if self.sched.sched != Sched::EntitlementExcess {
            return;
        }
        if !self.pools.is_empty() {
            // CPU pools: the full pass over every user, their limits in the water-fill.
            return self.refresh_entitlement_full(dt);
        }
        if dt > 0 {
            self.charge_all();
            #[cfg(debug_assertions)]
            self.check_untouched();
            let alpha = 1.0 - (-(dt as f64) / self.sched.tau).exp();
            let touched = std::mem::take(&mut self.sched.touched);
            let mut adds = std::mem::take(&mut self.sched.adds);
            adds.clear();
            for &u in &touched {
                let d = self.measure_demand(u as usize, dt);
                adds.push((u, alpha * d));
            }
            self.sched.ent.decay(1.0 - alpha);
            for &(u, x) in &adds {
                self.sched.ent.add(u as usize, x);
            }
            // Users still runnable are measured again at the next pass.
            let mut kept = touched;
            kept.retain(|&u| {
                let s = &mut self.sched.users[u as usize];
                s.touched = s.n_runnable > 0;
                s.touched
            });
            kept.append(&mut self.sched.touched);
            self.sched.touched = kept;
            self.sched.adds = adds;
            self.sched.sys_pending += self.sched.cost_entitle * self.users.len() as u64;
        } else {
            self.entitlement_setup();
        }
        self.sched.ent.fill(self.sched.n_cpu);
        for k in 0..self.sched.touched.len() {
            self.user_rates(self.sched.touched[k] as usize);
        }
    }

    /// A user becomes runnable: the next pass measures it, and its rates are derived from the
    /// last pass now, so that a runnable (touched) user's rates are always current.
    #[inline]
    pub(crate) fn touch(&mut self, u: usize) {
        if !self.sched.users[u].touched {
            self.sched.users[u].touched = true;
            self.sched.touched.push(u as u32);
            if self.sched.sched == Sched::EntitlementExcess && !self.sched.full {
                self.user_rates(u);
            }
        }
    }

    /// Debug builds: a user dispatched or charged has rates from the last pass (it is touched).
    #[inline(always)]
    fn debug_rates_fresh(&self, u: usize) {
        debug_assert!(
            self.sched.full || self.sched.users[u].fill_gen == self.sched.ent.gen(),
            "user {u}"
        );
    }

    /// 6.4: user `u`'s demand over the last `dt` ns (processors, at most its virtual CPUs):
    /// CPU used plus time spent wanting a processor.
    pub(crate) fn measure_demand(&mut self, u: usize, dt: Time) -> f64 {
        let now = self.now;
        let us = &self.users[u];
        let s = &mut self.sched.users[u];
        for &v in &us.vcpus {
            let vc = &mut self.vcpus[v as usize];
            if matches!(vc.state, VState::Ready | VState::Eligible | VState::Limited) {
                s.want_ns += now - vc.want_since;
                vc.want_since = now;
            }
        }
        // Its allocation from the last pass (current: it is touched, or the pass is full).
        debug_assert!(self.sched.full || s.fill_gen == self.sched.ent.gen());
        let alloc = s.alloc;
        let used = us.acct.virt_ns + us.acct.cp_ns;
        let used_w = (used - s.used_mark) as f64;
        let want = s.want_ns as f64;
        s.used_mark = used;
        s.want_ns = 0;
        let nv = us.vcpus.len() as f64;
        // Error feedback for a user held at its maximum share or at all its virtual CPUs
        // (targets that do not depend on other users' demand): proportional sharing among
        // the users competing at each instant would let a user that wakes now and then
        // take from it as from everyone else, and nobody would make it whole. If it
        // wanted at least its target but got less, its virtual deadlines move earlier by
        // the difference, bounded to two slices. (Getting more is already stopped by the
        // limit list, or for LIMITSOFT by running in the background.)
        let target = alloc * dt as f64;
        let at_max = alloc >= 0.999 * us.max_all.map_or(nv, |m| (m * self.sched.n_cpu).min(nv));
        if at_max && alloc > 0.0 && used_w + want >= 0.98 * target {
            let (vtime, slice) = (self.sched.vtime, self.sched.slice as f64);
            let bound = 2.0 * slice / self.sched.users[u].rate_v;
            let shift = ((target - used_w) / alloc).min(bound);
            if shift > 0.0 {
                let lo = vtime.saturating_sub(to_time(bound));
                for &v in &self.users[u].vcpus {
                    let vc = &mut self.vcpus[v as usize];
                    vc.vtag = vc.vtag.saturating_sub(to_time(shift)).max(lo.min(vc.vtag));
                }
            }
        }
        ((used_w + want) / dt as f64).min(nv)
    }

    /// Debug builds: a user the pass does not measure used and wanted nothing since the last.
    #[cfg(debug_assertions)]
    fn check_untouched(&self) {
        for (i, (u, s)) in self.users.iter().zip(&self.sched.users).enumerate() {
            if !s.touched {
                let used = u.acct.virt_ns + u.acct.cp_ns;
                assert_eq!(used, s.used_mark, "user {i} used CPU untouched");
                assert_eq!(s.want_ns, 0, "user {i} wanted CPU untouched");
                assert_eq!(s.n_runnable, 0, "user {i} runnable untouched");
            }
        }
    }

    /// 6.4: every user's weight (normalized share) and bounds for the water-fill: virtual
    /// CPUs, LIMITHARD and LIMITSOFT maxima; LIMITSOFT users may get above their maximum only
    /// what nobody else wants (the second fill, within their virtual CPUs).
    fn entitlement_setup(&mut self) {
        let n = self.sched.n_cpu;
        let (mut w, mut bound, mut soft) = (Vec::new(), Vec::new(), Vec::new());
        for (i, u) in self.users.iter().enumerate() {
            let nv = u.vcpus.len() as f64;
            let hard = if u.share.limit == Limit::Hard {
                self.limit_rate(i)
            } else {
                f64::INFINITY
            };
            let sm = match u.share.limit {
                Limit::Soft => u.max_all.map(|m| m * n).unwrap_or(f64::INFINITY),
                _ => f64::INFINITY,
            };
            w.push(u.ns_all);
            bound.push(nv.min(hard).min(sm));
            if sm.is_finite() {
                soft.push((i as u32, nv.min(hard)));
            }
        }
        let known = self.sched.ent.set_users(&w, &bound, &soft);
        // A user starts out wanting all its virtual CPUs.
        for u in known..self.users.len() {
            let nv = self.users[u].vcpus.len() as f64;
            self.sched.ent.add(u, nv);
        }
        for u in 0..self.users.len() {
            if self.sched.users[u].n_runnable > 0 {
                self.touch(u);
            }
        }
    }

    /// 6.4: user `u`'s target rate from the last water-fill, derived for the users the pass
    /// keeps measuring and for a user when it becomes runnable (a pass does not write every
    /// user's).
    #[inline(always)]
    pub(crate) fn user_rates(&mut self, u: usize) {
        if self.sched.users[u].fill_gen != self.sched.ent.gen() {
            self.derive_rates(u);
        }
    }

    #[inline(never)]
    fn derive_rates(&mut self, u: usize) {
        let a = self.sched.ent.alloc(u);
        let rate = self.target_rate(u, a);
        let s = &mut self.sched.users[u];
        s.alloc = a;
        s.fill_gen = self.sched.ent.gen();
        if rate == s.rate {
            return; // the same figures as before (often: a user held at its entitlement floor)
        }
        self.set_user_rate(u, rate);
    }

    /// 6.4: user `u`'s target rate (processors) for an allocation `a`: never below its
    /// entitlement (bounded by virtual CPUs, any maximum and a CPU pool member's share of the
    /// pool), so that a user that wants little keeps a prompt dispatch when it does want the
    /// processor.
    #[inline]
    pub(crate) fn target_rate(&self, u: usize, a: f64) -> f64 {
        let n = self.sched.n_cpu;
        let us = &self.users[u];
        let nv = us.vcpus.len() as f64;
        let mut floor = (us.ns_all * n).min(nv);
        if let Some(m) = us.max_all {
            floor = floor.min(m * n);
        }
        let pool_ns = self.sched.users[u].pool_ns;
        if pool_ns.is_finite() {
            // A CPU pool member's entitlement is at most its share of the pool.
            floor = floor.min(pool_ns * n);
        }
        a.max(floor).max(1e-6)
    }

    /// User `u`'s rates per virtual CPU for a target `rate` (processors).
    #[inline]
    pub(crate) fn set_user_rate(&mut self, u: usize, rate: f64) {
        let slice = self.sched.slice as f64;
        let nv = self.users[u].vcpus.len() as f64;
        let s = &mut self.sched.users[u];
        s.rate = rate;
        s.rate_v = rate / nv;
        s.inv_rate_v = nv / rate;
        s.slice_v = to_time(slice * nv / rate);
    }
}

/// The processor among `0..n` with the fewest virtual CPUs homed on it (the lowest number among
/// equals).
pub(crate) fn least_loaded(homes: &[u32], n: u32) -> u32 {
    (0..n.min(homes.len() as u32))
        .min_by_key(|&l| (homes[l as usize], l))
        .unwrap_or(0)
}
