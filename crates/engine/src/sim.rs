//! The simulation: entities, the event loop, and the wiring between CP's subsystems.
//!
//! Entities and their one pending event each:
//! - the monitor (interval sample), the command queue (timed CP commands such as SET SHARE),
//! - each logical processor (end of its current run: burst end, slice end, or CP work done),
//! - each virtual CPU (end of its think time: a new transaction arrives).
//!
//! Logic for each lives in its subsystem module (`dispatcher`, `scheduler`, `monitor`).

use crate::config::{Action, Config, Share, Workload};
use crate::level::{self, Level};
use crate::params::Params;
use crate::queue::{EventQueue, Time};
use crate::rng::Rng;
use crate::scheduler::Scheduler;
use crate::workload::Program;

pub const NONE: u32 = u32::MAX;
pub(crate) const ENT_MONITOR: u32 = 0;
pub(crate) const ENT_COMMANDS: u32 = 1;
pub(crate) const ENT_SCHED: u32 = 2;
pub(crate) const ENT_FIRST_LPU: u32 = 3;

/// The user numbers of the guests of group `userid` (users are numbered in guest order).
fn server_users(cfg: &Config, userid: &str) -> Vec<u32> {
    let mut n = 0u32;
    let mut out = Vec::new();
    for g in &cfg.guests {
        for _ in 0..g.count {
            if g.userid == userid {
                out.push(n);
            }
            n += 1;
        }
    }
    out
}

/// `x.round() as Time` (half away from zero, negative and NaN to 0, saturating) without libm's
/// `round`: `x - trunc(x)` is exact for every finite `x`, so this is the same function.
#[inline(always)]
pub fn round_ns(x: f64) -> Time {
    let t = x as Time;
    if x - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

/// Convert a path length (instructions) plus hardware cycles to nanoseconds of CPU.
pub fn path_ns(p: &Params, instructions: f64, cycles: f64) -> Time {
    round_ns((instructions * p.cpi_cp() + cycles) / p.clock_ghz())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VState {
    /// Idle between transactions (its user may still be test-idle on the dispatch list).
    Dormant,
    /// Runnable, but its user waits on the eligible list for admission.
    Eligible,
    /// Runnable, held back by a LIMITHARD maximum share (limit list / limit deadline).
    Limited,
    /// On a dispatch vector, waiting for a processor.
    Ready,
    /// Running on a logical processor.
    Running,
    /// Waiting for a page-in (paging); not runnable.
    PageWait,
    /// Waiting for a guest DASD I/O (its window full, or a synchronous I/O); not runnable.
    IoWait,
}

/// Number of `VState`s (the index of each is its discriminant).
pub const N_VSTATES: usize = 7;

impl VState {
    /// Names of the states in index order, as the run summary and the monitor data give them
    /// (Perfkit FCX114 USTAT's columns: dormant, eligible, limit list, waiting for a processor,
    /// running, page wait, I/O wait).
    pub const NAMES: [&'static str; N_VSTATES] = [
        "dormant",
        "eligible",
        "limited",
        "cpu_wait",
        "running",
        "page_wait",
        "io_wait",
    ];
}

/// Which of CP's scheduler lists a user is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UList {
    Dormant,
    Eligible,
    Dispatch,
}

/// The owner of a pending event: a subsystem and the entity's number within it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entity {
    Monitor,
    Commands,
    Scheduler,
    Lpu(u32),
    Vcpu(u32),
    PagingDevice(u32),
    Minidisk(u32),
    Crypto,
    Channel(u32),
}

/// A virtual CPU (a VMDBK).
#[derive(Clone, Debug)]
pub struct Vcpu {
    pub user: u32,
    pub state: VState,
    /// CPU work left in the current burst (ns at nominal speed).
    pub remaining: Time,
    /// Minor time slice left.
    pub slice_left: Time,
    /// Dispatch priority (deadline) of its current dispatch-vector entry.
    pub deadline: Time,
    pub rng: Rng,
    /// Home dispatch vector (the logical processor it last ran on).
    pub home: u32,
    /// Sequence number of its live dispatch-vector entry (older entries are stale).
    pub heap_seq: u64,
    /// Since when it has wanted a processor without running (Ready, Eligible or Limited).
    pub want_since: Time,
    /// Dispatch instant of the current run, and CPU (guest + chargeable CP) used in it.
    pub run_start: Time,
    pub run_used: Time,
    /// Minor time slices completed in the current transaction (interactive bias).
    pub tx_slices: u32,
    /// Next arrival of work (open-stream workloads).
    pub next_arrival: Time,
    /// 6.4 scheduler: virtual start tag (ns of the dispatch list's virtual time), and the tag
    /// its current dispatch-vector entry was queued with.
    pub vtag: Time,
    pub start: Time,
    /// LIMITHARD deadline methods: not dispatchable before this instant.
    pub limit_until: Time,
    /// Chargeable CP time owed (page-fault handling), run at the head of its next run.
    pub cp_owed: Time,
    /// CP sourcing stall owed (message data from another drawer, vnet.rs): run with `cp_owed`,
    /// already a stall (the coherence model does not lengthen it).
    pub cp_stall: Time,
    /// Its current run is a page fault's CP time, after which it waits for a page-in.
    pub pagewait: bool,
    /// Paging device of that page-in (NONE: none can be started).
    pub pagein: u32,
    /// Since when it has been in `state`, and the time it spent in each state before that
    /// (index: the state's discriminant): the user wait-state analysis (FCX114 USTAT), exact
    /// rather than sampled.
    pub state_since: Time,
    pub state_ns: [Time; N_VSTATES],
}

impl Vcpu {
    /// A dormant virtual CPU of user `user` homed on processor `home`.
    pub fn new(user: u32, rng: Rng, home: u32) -> Vcpu {
        Vcpu {
            user,
            state: VState::Dormant,
            remaining: 0,
            slice_left: 0,
            deadline: 0,
            rng,
            home,
            heap_seq: 0,
            want_since: 0,
            run_start: 0,
            run_used: 0,
            tx_slices: 0,
            vtag: 0,
            start: 0,
            limit_until: 0,
            next_arrival: 0,
            cp_owed: 0,
            cp_stall: 0,
            pagewait: false,
            pagein: NONE,
            state_since: 0,
            state_ns: [0; N_VSTATES],
        }
    }

    /// Enter state `s` at `now`, accounting the time spent in the state it leaves.
    #[inline(always)]
    pub fn set_state(&mut self, s: VState, now: Time) {
        self.state_ns[self.state as usize] += now.saturating_sub(self.state_since);
        self.state_since = now;
        self.state = s;
    }

    /// Time spent in each state from the start of the run up to `now`.
    pub fn state_time(&self, now: Time) -> [Time; N_VSTATES] {
        let mut t = self.state_ns;
        t[self.state as usize] += now.saturating_sub(self.state_since);
        t
    }
}

/// Per-user counters, cumulative since the start of the run.
#[derive(Clone, Debug, Default)]
pub struct Acct {
    pub virt_ns: u64,
    pub cp_ns: u64,
    pub tx_started: u64,
    pub tx_done: u64,
    /// SMT: raw CPU time (virt + cp) run beside a busy sibling thread; the MT-1 equivalent and
    /// prorated times are derived from it (cp-model §2.3).
    pub smt_shared_ns: u64,
}

/// A guest virtual machine (its base VMDBK carries the share).
#[derive(Clone, Debug)]
pub struct User {
    pub userid: String,
    pub share: Share,
    pub program: Program,
    pub vcpus: Vec<u32>,
    /// Normalized share over all logged-on users (fraction of the whole system).
    pub ns_all: f64,
    /// Maximum share over all logged-on users (fraction of the system), if any.
    pub max_all: Option<f64>,
    pub acct: Acct,
    pub sch: UserSched,
}

/// A user's scheduler state (lists, transaction class, measured demand, limits).
#[derive(Clone, Debug)]
pub struct UserSched {
    pub list: UList,
    /// SET QUICKDSP ON: transaction class E0, never held on the eligible list.
    pub quickdsp: bool,
    /// Transaction class 1..3 (E1..E3 on the eligible list, Q1..Q3 on the dispatch list).
    pub class: u8,
    /// Entry into the dispatch list (elapsed time slice) / into the eligible list.
    pub dl_since: Time,
    pub el_since: Time,
    /// Time spent on the eligible list before the current dispatch-list stay (taken once).
    pub el_delay: Time,
    /// Virtual CPUs that are runnable (Ready, Running, Eligible or Limited).
    pub n_runnable: u32,
    /// Test-idle: on the dispatch list with no runnable virtual CPU since `tidle_since`.
    pub tidle: bool,
    pub tidle_since: Time,
    /// Virtual-CPU time spent dormant while test-idle before the current period (FCX114 USTAT
    /// %TI), and the user's dormant virtual CPUs in the current period (constant within it: any
    /// of them becoming runnable ends the period).
    pub tidle_ns: Time,
    pub tidle_vcpus: u32,
    /// Share counted in the list normalization sums (relative, absolute fraction).
    pub in_sums: (f64, f64),
    /// Sequence number of its live eligible-list entry.
    pub el_seq: u64,
    /// 6.4 measurement: CPU at the last tick, time wanting CPU since; measured at the next
    /// scheduler pass (runnable since the last one). The smoothed demand is the scheduler's.
    pub used_mark: u64,
    pub want_ns: u64,
    pub touched: bool,
    /// 6.4 target rate (processors; NaN before the first) and per virtual CPU, used to
    /// advance virtual deadlines.
    pub rate: f64,
    pub rate_v: f64,
    /// 1 / rate_v, and one minor time slice at that rate (virtual ns), kept for the hot path.
    pub inv_rate_v: f64,
    pub slice_v: Time,
    /// 6.4 entitlement plus excess from the last water-fill (processors), and the water-fill
    /// these rates were derived from (`Entitlement::gen`).
    pub alloc: f64,
    pub fill_gen: u64,
    /// Consumption method: CPU credit (ns) at `lim_last`; not dispatchable before `lim_until`.
    pub lim_credit: f64,
    pub lim_last: Time,
    pub lim_until: Time,
    /// The CPU pool the user is scheduled to (pools.rs; NONE: none).
    pub pool: u32,
    /// Its share of the pool's limit (fraction of the system; infinite outside a pool).
    pub pool_ns: f64,
    /// Storage admission (STORBUF, LDUBUF, MAXWSS): projected working set (pages), the sign of
    /// its last change, loading user or not, page-ins and first touches so far, and at the
    /// stay's start the page-ins, pages brought in, resident pages and CPU; what the current
    /// dispatch-list stay was counted as.
    pub wss: f64,
    pub wss_trend: i8,
    pub loading: bool,
    pub pageins: u64,
    pub firsts: u64,
    pub stay_pageins: u64,
    pub stay_in: u64,
    pub stay_res: u64,
    pub stay_cpu: u64,
    pub dl_wss: f64,
    pub dl_loading: bool,
}

impl UserSched {
    /// The user stops being test-idle at `now` (a new transaction, or the drop after the grace
    /// period): the period counts towards its test-idle time.
    #[inline]
    pub fn end_tidle(&mut self, now: Time) {
        if self.tidle {
            self.tidle_ns += now.saturating_sub(self.tidle_since) * self.tidle_vcpus as Time;
            self.tidle = false;
        }
    }

    /// Virtual-CPU time spent dormant while test-idle, up to `now`.
    pub fn tidle_time(&self, now: Time) -> Time {
        self.tidle_ns
            + if self.tidle {
                now.saturating_sub(self.tidle_since) * self.tidle_vcpus as Time
            } else {
                0
            }
    }
}

impl Default for UserSched {
    fn default() -> Self {
        UserSched {
            list: UList::Dormant,
            quickdsp: false,
            class: 1,
            dl_since: 0,
            el_since: 0,
            el_delay: 0,
            n_runnable: 0,
            tidle: false,
            tidle_since: 0,
            tidle_ns: 0,
            tidle_vcpus: 0,
            in_sums: (0.0, 0.0),
            el_seq: 0,
            used_mark: 0,
            want_ns: 0,
            touched: false,
            rate: f64::NAN,
            rate_v: 1.0,
            inv_rate_v: 1.0,
            slice_v: 0,
            alloc: 0.0,
            fill_gen: u64::MAX,
            lim_credit: 0.0,
            lim_last: 0,
            lim_until: 0,
            pool: NONE,
            pool_ns: f64::INFINITY,
            wss: 0.0,
            wss_trend: 0,
            loading: false,
            pageins: 0,
            firsts: 0,
            stay_pageins: 0,
            stay_in: 0,
            stay_res: 0,
            stay_cpu: 0,
            dl_wss: 0.0,
            dl_loading: false,
        }
    }
}

/// A logical processor of the LPAR.
#[derive(Clone, Debug, Default)]
pub struct Lpu {
    /// Virtual CPU being run, or NONE.
    pub vcpu: u32,
    /// Time up to which this processor's work has been accounted.
    pub charged_to: Time,
    /// Nonchargeable CP (system) time left at the head of the current run.
    pub sys_left: Time,
    /// Chargeable CP time left (after system time, before guest time).
    pub cp_left: Time,
    /// Guest (virtual) time of the current run, not yet accounted.
    pub virt_left: Time,
    /// System time owed for work already done (slice end), run before the next dispatch.
    pub sys_owed: Time,
    pub busy_ns: u64,
    pub sys_ns: u64,
    /// Running a LIMITSOFT user in the background (preempted when anyone else wants it).
    pub bg: bool,
    /// Speed: nominal work-ns per wall-ns (fixed point, `cpu::ONE` = 1.0), the fraction of a
    /// work-ns done and not yet accounted, and whether the thread is busy (SMT modes; cpu.rs).
    pub rate: u64,
    pub frac: u64,
    pub busy: bool,
    /// Busy wall time not matched by nominal work (slow threads): work done = busy_ns - slow_ns.
    pub slow_ns: u64,
    /// PR/SM (with a [cpc]): wall time left suspended (not powered) at the head of the run,
    /// and the total suspended; parked by z/VM; in an enabled wait (waking it is a dispatch).
    pub susp_left: Time,
    pub susp_ns: u64,
    pub parked: bool,
    pub waiting: bool,
    /// Parked time up to `parked_since` (the last park), for the monitor (D0R2).
    pub parked_ns: u64,
    pub parked_since: Time,
}

pub struct Sim {
    pub cfg: Config,
    pub params: Params,
    /// The parameters read while the run was built (the summary adds those read later).
    pub params_read: crate::params::ReadSet,
    pub level: Level,
    pub now: Time,
    pub end: Time,
    pub events: u64,
    pub(crate) q: EventQueue,
    pub lpus: Vec<Lpu>,
    pub vcpus: Vec<Vcpu>,
    pub users: Vec<User>,
    pub(crate) idle: Vec<u32>,
    pub(crate) sched: Scheduler,
    pub(crate) first_vcpu: u32,
    pub(crate) actions: Vec<Action>,
    pub(crate) next_action: usize,
    pub(crate) cost_dispatch: Time,
    pub(crate) cost_slice_end: Time,
    pub(crate) mon: crate::monitor::Monitor,
    /// Real storage and paging (None: the scenario has no storage model).
    pub(crate) paging: Option<Box<crate::paging::Paging>>,
    /// Entity number of the first paging device (after the virtual CPUs).
    pub(crate) first_dev: u32,
    /// CP's spin locks (crate::locks).
    pub(crate) locks: crate::locks::Locks,
    /// Cores, drawers, SMT threads and their speeds (cpu.rs).
    pub cpu: crate::cpu::Cpu,
    /// Cache footprints of the virtual CPUs (cache.rs; off unless `cache.warmth`).
    pub warm: crate::cache::Warmth,
    /// The LPAR under PR/SM and z/VM parking (None: no [cpc] in the scenario).
    pub(crate) lpar: Option<Box<crate::lpar::LparState>>,
    /// Virtual networking between client and server guests (None: no such workload).
    pub(crate) vnet: Option<Box<crate::vnet::Vnet>>,
    /// Guest DASD I/O to minidisk volumes (None: no such workload), and the entity number of
    /// its first volume (after the paging devices).
    pub(crate) dasd: Option<Box<crate::dasd::Dasd>>,
    /// The control unit's HyperPAV alias pool (hyperpav.rs), if the scenario has one.
    pub(crate) aliases: Option<crate::hyperpav::AliasPool>,
    pub(crate) first_mdev: u32,
    /// SSL servers and the crypto adapter (issue 6; None: no SSL server), and the adapter's
    /// entity number (after the minidisk volumes).
    pub(crate) ssl: Option<Box<crate::ssl::Ssl>>,
    pub(crate) first_crypto: u32,
    /// Channel paths (issue 22; None: no [[chpid]] in the scenario), and the entity number of
    /// the first path (after the crypto adapter).
    pub(crate) chan: Option<Box<crate::channel::ChanState>>,
    pub(crate) first_chan: u32,
    /// Static or dynamic PAV (pav.rs; None: not in the scenario).
    pub(crate) pav: Option<Box<crate::pav::Pav>>,
    /// memtst guests' simulated storage-key operations (None: no memtst workload).
    pub(crate) iske: Option<Box<Iske>>,
    /// Transaction response times (response.rs).
    pub(crate) resp: crate::response::Responses,
    /// CPU pools (pools.rs; empty: none defined).
    pub(crate) pools: crate::pools::Pools,
}

/// CP's simulation of guest ISKE for memtst guests (row C2): which users issue them, the
/// chargeable path, the part under the PTE lock, and whether an ISKE locks the PTE.
pub(crate) struct Iske {
    pub users: Vec<bool>,
    pub path: Time,
    pub hold: Time,
    pub always_lock: bool,
    pub update_fraction: f64,
}

/// The CP level (with the scenario's switch overrides) and the parameter table (with its
/// overrides).
fn level_and_params(cfg: &Config) -> Result<(Level, Params), String> {
    let mut level = level::find(&cfg.level).ok_or_else(|| {
        format!(
            "unknown level '{}'; known: {}",
            cfg.level,
            level::names().join(", ")
        )
    })?;
    level.switches = level.switches.with_overrides(&cfg.switches)?;
    let mut params = Params::default();
    // The machine's clock, unless the scenario sets cpu.clock_ghz itself (below).
    let name = cfg.machine.as_deref().unwrap_or(crate::machine::DEFAULT);
    if let Some(m) = crate::machine::Machine::from_params(name, &params) {
        params.clock_ghz = m.ghz;
    }
    for (k, v) in &cfg.params {
        params.set(k, *v)?;
    }
    Ok((level, params))
}

/// The users (one per guest of each group) and their virtual CPUs, homed round robin over
/// the `p_online` processors.
fn guests(cfg: &Config, params: &Params, p_online: u32) -> Result<(Vec<User>, Vec<Vcpu>), String> {
    let mut users = Vec::new();
    let mut vcpus = Vec::new();
    let ms = 1e6;
    for g in &cfg.guests {
        for k in 0..g.count {
            let userid = if g.count > 1 {
                format!("{}{}", g.userid, k)
            } else {
                g.userid.clone()
            };
            let uid = users.len() as u32;
            let servers = match &g.workload {
                crate::config::Workload::Client { servers, .. } => server_users(cfg, servers),
                crate::config::Workload::Server {
                    forward: Some(f), ..
                }
                | crate::config::Workload::SslServer {
                    forward: Some(f), ..
                } => server_users(cfg, f),
                _ => Vec::new(),
            };
            let program = Program::new(
                &g.workload,
                params.tx_cpu_default() * ms,
                params.burst_default() * ms,
                servers,
            );
            let mut ids = Vec::new();
            for _ in 0..g.vcpus {
                let id = vcpus.len() as u32;
                ids.push(id);
                vcpus.push(Vcpu::new(
                    uid,
                    Rng::stream(cfg.seed, 1000 + id as u64),
                    id % p_online,
                ));
            }
            let sch = UserSched {
                quickdsp: g.quickdsp,
                ..Default::default()
            };
            users.push(User {
                userid,
                share: g.share,
                program,
                vcpus: ids,
                ns_all: 0.0,
                max_all: None,
                acct: Acct::default(),
                sch,
            });
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for u in &users {
        if !seen.insert(u.userid.clone()) {
            return Err(format!("userid {} is defined twice", u.userid));
        }
    }
    Ok((users, vcpus))
}

/// The scenario's timed CP commands in time order (each SET SHARE must name a user).
fn timed_actions(cfg: &Config, users: &[User]) -> Result<Vec<Action>, String> {
    let mut actions = cfg.actions.clone();
    for a in &actions {
        if let Action::SetShare { userid, .. } = a {
            if !users.iter().any(|u| &u.userid == userid) {
                return Err(format!("action SET SHARE names unknown userid {userid}"));
            }
        }
    }
    actions.sort_by_key(|a| a.at_ns());
    crate::pools::check_sequence(cfg, &actions, users)?;
    Ok(actions)
}

/// Real storage and paging, with each user's pages and page references (None: no storage model).
fn paging_for(cfg: &Config, params: &Params, level: &Level) -> Option<Box<crate::paging::Paging>> {
    let mut pages = Vec::new();
    let mut refs = Vec::new();
    for g in &cfg.guests {
        for _ in 0..g.count {
            pages.push(if g.refs.is_some() {
                g.storage_pages.unwrap_or(0)
            } else {
                0
            });
            refs.push(g.refs.clone());
        }
    }
    crate::paging::Paging::new(cfg, params, &level.switches, cfg.seed, &pages, refs).map(Box::new)
}

/// The control unit's HyperPAV alias pool, if the scenario has one; marks the ECKD paging
/// and minidisk volumes it serves.
fn alias_pool(
    cfg: &Config,
    level: &Level,
    paging: Option<&mut crate::paging::Paging>,
    dasd: Option<&mut crate::dasd::Dasd>,
) -> Option<crate::hyperpav::AliasPool> {
    let h = cfg.hyperpav.as_ref()?;
    let paging_on =
        h.paging_alias && level.switches.paging_alias == crate::level::PagingAlias::Supported;
    if let Some(pg) = paging {
        for d in pg.devs.iter_mut() {
            if paging_on && d.dtype == crate::io::DevType::Eckd {
                d.pool_kind = Some(crate::hyperpav::PAGING);
            }
        }
    }
    if let Some(dd) = dasd {
        for d in dd.devs.iter_mut() {
            if d.dtype == crate::io::DevType::Eckd {
                d.pool_kind = Some(crate::hyperpav::MINIDISK);
            }
        }
    }
    Some(crate::hyperpav::AliasPool::new(
        h.aliases,
        h.share_paging,
        h.share_minidisk,
        paging_on,
    ))
}

/// The scheduler for the online processors, with storage admission's view of the frames and
/// paging exposures.
fn scheduler_for(
    cfg: &Config,
    params: &Params,
    level: &Level,
    cpu: &crate::cpu::Cpu,
    paging: Option<&crate::paging::Paging>,
) -> Scheduler {
    let p_online = cpu.cores * cpu.threads;
    let mut sched = Scheduler::new(params, level, p_online);
    sched.rebalance = cfg.dspwdmethod == crate::config::Dspwd::Rebalance;
    sched.set_processors(p_online, cpu.n_lpus);
    if let Some(pg) = paging {
        sched.dpa = pg.st.frames as f64;
        sched.exposures = pg.devs.len() as f64;
    }
    sched
}

/// Virtual networking, when any guest is a client or a server.
fn vnet_for(
    cfg: &Config,
    params: &Params,
    users: &[User],
    n_vcpus: usize,
) -> Option<Box<crate::vnet::Vnet>> {
    users.iter().any(|u| u.program.role().is_some()).then(|| {
        let mut n = crate::vnet::Vnet::new(
            n_vcpus,
            users.len(),
            path_ns(params, params.path_vnet_msg(), 0.0),
        );
        n.touches = cfg
            .guests
            .iter()
            .flat_map(|g| std::iter::repeat_n(g.touches.max(1), g.count as usize))
            .collect();
        Box::new(n)
    })
}

/// CP's simulation of storage keys for memtst guests, when there are any.
fn iske_for(cfg: &Config, params: &Params, level: &Level) -> Option<Box<Iske>> {
    let memtst: Vec<bool> = cfg
        .guests
        .iter()
        .flat_map(|g| {
            std::iter::repeat_n(
                matches!(g.workload, Workload::Memtst { .. }),
                g.count as usize,
            )
        })
        .collect();
    memtst.iter().any(|&m| m).then(|| {
        Box::new(Iske {
            users: memtst,
            path: path_ns(params, params.path_iske(), 0.0),
            hold: path_ns(params, params.lock_hold_pte(), 0.0),
            always_lock: level.switches.pte_lock == crate::level::PteLock::IskeLocks,
            update_fraction: params.key_update_fraction().clamp(0.0, 1.0),
        })
    })
}

impl Sim {
    /// Build the run: level and parameters, guests, then each subsystem from its own
    /// constructor, then the first events.
    pub fn new(cfg: Config) -> Result<Sim, String> {
        crate::params::reads_reset();
        cfg.check()?;
        let (level, mut params) = level_and_params(&cfg)?;
        let cpu = crate::cpu::Cpu::from_config(&cfg, &params)?;
        let p = cpu.n_lpus;
        let p_online = cpu.cores * cpu.threads;
        let first_vcpu = ENT_FIRST_LPU + p;
        let (users, vcpus) = guests(&cfg, &params, p_online)?;
        let actions = timed_actions(&cfg, &users)?;
        let mut paging = paging_for(&cfg, &params, &level);
        let first_dev = first_vcpu + vcpus.len() as u32;
        let n_dev = paging.as_ref().map_or(0, |p| p.devs.len());
        let mut dasd = crate::dasd::Dasd::new(
            &cfg.guests,
            &params,
            &level.switches,
            cfg.seed,
            cfg.mdc.as_ref(),
        )?
        .map(Box::new);
        let first_mdev = first_dev + n_dev as u32;
        let aliases = alias_pool(&cfg, &level, paging.as_deref_mut(), dasd.as_deref_mut());
        let n_mdev = dasd.as_ref().map_or(0, |d| d.devs.len());
        let ssl = crate::ssl::Ssl::new(&cfg, &params, &level.switches, cfg.seed).map(Box::new);
        let first_crypto = first_mdev + n_mdev as u32;
        let chan = crate::channel::channels_for(
            &cfg,
            &params,
            &level.switches,
            paging.as_deref_mut(),
            dasd.as_deref_mut(),
        )?
        .map(Box::new);
        let first_chan = first_crypto + 1;
        if cfg.pav.is_some() && cfg.hyperpav.is_some() {
            return Err("a control unit has HyperPAV or static/dynamic PAV, not both".into());
        }
        let pav = crate::pav::pav_for(&cfg, &params, dasd.as_deref_mut())?.map(Box::new);
        let n_chan = chan.as_ref().map_or(0, |c| c.ch.paths.len());
        let n_ent = first_vcpu as usize + vcpus.len() + n_dev + n_mdev + 1 + n_chan;
        if level.switches.dispatch_path == crate::level::DispatchPath::PreSpecialty {
            params.path_dispatch =
                (params.path_dispatch() - params.path_dispatch_specialty()).max(0.0);
        }
        let sched = scheduler_for(&cfg, &params, &level, &cpu, paging.as_deref());
        let cost_dispatch = path_ns(&params, params.path_dispatch(), params.hw_sie_cycles());
        let cost_slice_end = path_ns(&params, params.path_slice_end(), 0.0);
        let lpus = (0..p)
            .map(|l| Lpu {
                vcpu: NONE,
                rate: cpu.rate1[cpu.core_of(l) as usize],
                ..Default::default()
            })
            .collect();
        let mon = crate::monitor::Monitor::new(users.len(), p as usize);
        let locks = crate::locks::Locks::new(&params, &level.switches, p);
        let lpar = match &cfg.cpc {
            Some(c) => Some(Box::new(crate::lpar::LparState::new(
                c,
                p,
                &params,
                &level.switches,
            )?)),
            None => None,
        };
        let vnet = vnet_for(&cfg, &params, &users, vcpus.len());
        let iske = iske_for(&cfg, &params, &level);
        let warm =
            crate::cache::Warmth::new(&params, &cpu.machine, &cpu.topo, vcpus.len(), p as usize);
        let (n_vcpus_resp, n_users_resp) = (vcpus.len(), users.len());
        let sim = Sim {
            end: cfg.duration_ns,
            level,
            params,
            params_read: Default::default(),
            now: 0,
            events: 0,
            q: EventQueue::with_entities(n_ent),
            lpus,
            vcpus,
            users,
            idle: (0..p_online).rev().collect(),
            sched,
            first_vcpu,
            actions,
            next_action: 0,
            cost_dispatch,
            cost_slice_end,
            mon,
            paging,
            first_dev,
            locks,
            cpu,
            warm,
            lpar,
            vnet,
            dasd,
            aliases,
            first_mdev,
            ssl,
            first_crypto,
            chan,
            first_chan,
            pav,
            iske,
            resp: crate::response::Responses::new(n_vcpus_resp, n_users_resp),
            pools: Default::default(),
            cfg,
        };
        let mut sim = sim;
        sim.pools_init()?;
        Ok(sim.start())
    }

    /// The state at time 0: devices, parking, shares and entitlement, the monitor's, the
    /// scheduler's and the commands' first events, and each virtual CPU's first wake-up.
    fn start(mut self) -> Sim {
        self.dasd_init();
        if let Some(n) = self.lpar.as_ref().map(|s| s.unparked) {
            self.apply_parking(n);
        }
        self.normalize_shares();
        self.refresh_entitlement(0);
        self.q
            .schedule(ENT_MONITOR, self.cfg.interval_ns.min(self.end));
        self.q.schedule(ENT_SCHED, self.sched.tick.min(self.end));
        if let Some(a) = self.actions.first() {
            self.q.schedule(ENT_COMMANDS, a.at_ns());
        }
        for v in 0..self.vcpus.len() as u32 {
            let u = self.vcpus[v as usize].user as usize;
            if self.users[u].program.waits_for_messages() {
                if let Some(n) = self.vnet.as_mut() {
                    n.waiting[v as usize] = true;
                }
                continue;
            }
            let first = self.users[u]
                .program
                .first_wake(&mut self.vcpus[v as usize].rng);
            match first {
                None => self.begin_transaction(v),
                Some(t) => {
                    self.vcpus[v as usize].next_arrival = t;
                    self.q.schedule(self.first_vcpu + v, t)
                }
            }
        }
        self.io_after_event();
        self.params_read = crate::params::reads_taken();
        self
    }

    /// Run every event with time <= `t` (capped at the end of the run).
    pub fn run_until(&mut self, t: Time) {
        let stop = t.min(self.end);
        while let Some((te, _)) = self.q.peek() {
            if te > stop {
                break;
            }
            let (_, e) = self.q.begin_fire().unwrap_or((te, 0));
            self.now = te;
            self.events += 1;
            if self.pav.is_some() {
                // Dynamic PAV's mover before the event: a move at a sample instant is in it.
                self.pav_pass();
            }
            self.fire(e);
            if self.chan.is_some() {
                self.chan_pump();
            }
            // Removes the event unless its handler scheduled the entity's next one.
            self.q.end_fire();
        }
        self.now = self.now.max(stop);
    }

    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    pub fn finished(&self) -> bool {
        self.now >= self.end
    }

    /// Which subsystem entity `e` belongs to, and its number there. Entities are numbered in
    /// blocks: the monitor, the command queue, the scheduler, the logical processors, the
    /// virtual CPUs, the paging devices, the minidisk volumes, the crypto adapter.
    #[inline(always)]
    pub(crate) fn entity(&self, e: u32) -> Entity {
        if e >= self.first_vcpu {
            if e < self.first_dev {
                Entity::Vcpu(e - self.first_vcpu)
            } else if e >= self.first_chan {
                Entity::Channel(e - self.first_chan)
            } else if e >= self.first_crypto {
                Entity::Crypto
            } else if e >= self.first_mdev {
                Entity::Minidisk(e - self.first_mdev)
            } else {
                Entity::PagingDevice(e - self.first_dev)
            }
        } else if e >= ENT_FIRST_LPU {
            Entity::Lpu(e - ENT_FIRST_LPU)
        } else if e == ENT_MONITOR {
            Entity::Monitor
        } else if e == ENT_SCHED {
            Entity::Scheduler
        } else {
            Entity::Commands
        }
    }

    /// Hand entity `e`'s event to its subsystem.
    #[inline(always)]
    fn fire(&mut self, e: u32) {
        match self.entity(e) {
            Entity::Lpu(l) => self.lpu_event(l),
            Entity::Vcpu(v) => self.vcpu_wake(v),
            Entity::PagingDevice(d) => self.device_event(d),
            Entity::Minidisk(d) => self.mdisk_event(d),
            Entity::Crypto => self.crypto_event(),
            Entity::Channel(p) => self.chan_event(p),
            Entity::Monitor => self.monitor_sample(),
            Entity::Scheduler => {
                self.sched_tick();
                self.prsm_tick();
            }
            Entity::Commands => self.command_due(),
        }
    }

    /// A virtual CPU's own event: end of its think time (a new transaction arrives), the end
    /// of its wait on the limit list, or the end of a LIMITSOFT background period.
    fn vcpu_wake(&mut self, v: u32) {
        match self.vcpus[v as usize].state {
            VState::Dormant => self.begin_transaction(v),
            VState::Limited => self.limit_release(v),
            VState::Ready => self.reprioritize(v),
            VState::PageWait => self.deferred_pagein(v),
            _ => {}
        }
    }

    pub(crate) fn begin_transaction(&mut self, v: u32) {
        let vc = &mut self.vcpus[v as usize];
        let u = vc.user as usize;
        vc.remaining = self.users[u]
            .program
            .burst(&mut vc.rng, &mut vc.next_arrival);
        self.users[u].acct.tx_started += 1;
        self.tx_begin(v);
        self.vcpu_runnable(v);
    }

    /// Timed CP commands.
    fn command_due(&mut self) {
        while self.next_action < self.actions.len() {
            let at_ns = self.actions[self.next_action].at_ns();
            if at_ns > self.now {
                self.q.schedule(ENT_COMMANDS, at_ns);
                return;
            }
            match self.actions[self.next_action].clone() {
                Action::SetShare { userid, share, .. } => self.set_share(&userid, share),
                Action::SetMultithreading { threads, .. } => self.set_multithreading(threads),
                a => {
                    // Checked before the run (pools::check_sequence): cannot fail here.
                    let _ = self.pool_action(&a);
                }
            }
            self.next_action += 1;
        }
    }

    /// SET SHARE userid ...
    pub fn set_share(&mut self, userid: &str, share: Share) {
        if let Some(i) = self.users.iter().position(|u| u.userid == userid) {
            let listed = self.users[i].sch.list != crate::sim::UList::Dormant;
            if listed {
                self.list_sums_remove(i);
            }
            self.users[i].share = share;
            if listed {
                self.list_sums_add(i);
            }
        }
        self.normalize_shares();
        self.refresh_entitlement(0);
    }

    /// Bring every processor's accounting up to `now` (monitor samples, end of run).
    pub(crate) fn charge_all(&mut self) {
        for l in 0..self.lpus.len() as u32 {
            self.charge(l, self.now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::round_ns;

    #[test]
    fn round_ns_is_libm_round() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            0.49999999999999994,
            1.5,
            2.5,
            -0.5,
            -0.7,
            -3.2,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4503599627370495.5,
            9007199254740993.0,
            1.8446744073709552e19,
            1e30,
            f64::MAX,
            f64::MIN_POSITIVE,
        ];
        let mut r = crate::rng::Rng::new(7);
        let random = (0..1_000_000).map(|k| {
            let x = r.unit() * 10f64.powi((k % 24) - 4);
            if k % 3 == 0 {
                x.floor() + 0.5
            } else {
                x
            }
        });
        for x in edges.into_iter().chain(random) {
            assert_eq!(round_ns(x), x.round() as u64, "{x}");
        }
    }
}
