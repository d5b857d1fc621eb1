//! The simulation: entities, the event loop, and the wiring between CP's subsystems.
//!
//! Entities and their one pending event each:
//! - the monitor (interval sample), the command queue (timed CP commands such as SET SHARE),
//! - each logical processor (end of its current run: burst end, slice end, or CP work done),
//! - each virtual CPU (end of its think time: a new transaction arrives).
//!
//! Each subsystem module (`scheduler/`, `paging.rs`, `lpar.rs`, ...) holds its state and the
//! logic over it; the files of this folder are the wiring: the dispatcher (`dispatcher.rs`, the
//! handler of processor events), and per subsystem what it does to virtual CPUs, processors and
//! the queue (`io.rs`, `paging.rs`, `lpar.rs`, `monitor.rs`, ...). `tests/shape.rs` checks that
//! no other module imports `Sim` but those it lists.

use crate::config::{Action, Config, Share};
mod below2g;
mod dasd;
mod dispatcher;
mod io;
mod lpar;
mod monitor;
mod paging;
mod pools;
mod processors;
mod scheduler;
mod ssl;
mod vnet;

pub use crate::entity::Entity;
pub use crate::guest::{Acct, UList, User, UserSched, VState, Vcpu, N_VSTATES};
use crate::level::Level;
use crate::params::Params;
use crate::queue::Time;
use crate::scheduler::Scheduler;

pub use crate::units::{path_ns, round_ns, NONE};

/// A logical processor of the LPAR.
///
/// Layout (`repr(C)`, 64-byte aligned): what accounting a run (`charge`) reads and writes is
/// the first cache line; the owed system time, the speed fraction and the totals the monitor
/// reads are the second.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct Lpu {
    /// Virtual CPU being run, or NONE.
    pub vcpu: u32,
    /// Running a LIMITSOFT user in the background (preempted when anyone else wants it).
    pub bg: bool,
    /// (See `rate`.)
    pub busy: bool,
    /// (See `susp_left`.)
    pub parked: bool,
    pub waiting: bool,
    /// Time up to which this processor's work has been accounted.
    pub charged_to: Time,
    /// PR/SM (with a [cpc]): wall time left suspended (not powered) at the head of the run,
    /// and the total suspended; parked by z/VM; in an enabled wait (waking it is a dispatch).
    pub susp_left: Time,
    /// Speed: nominal work-ns per wall-ns (fixed point, `cpu::ONE` = 1.0), the fraction of a
    /// work-ns done and not yet accounted, and whether the thread is busy (SMT modes; cpu.rs).
    pub rate: u64,
    /// Nonchargeable CP (system) time left at the head of the current run.
    pub sys_left: Time,
    /// Chargeable CP time left (after system time, before guest time).
    pub cp_left: Time,
    /// Guest (virtual) time of the current run, not yet accounted.
    pub virt_left: Time,
    pub busy_ns: u64,
    pub frac: u64,
    /// System time owed for work already done (slice end), run before the next dispatch.
    pub sys_owed: Time,
    pub sys_ns: u64,
    pub susp_ns: u64,
    /// Busy wall time not matched by nominal work (slow threads): work done = busy_ns - slow_ns.
    pub slow_ns: u64,
    /// Parked time up to `parked_since` (the last park), for the monitor (D0R2).
    pub parked_ns: u64,
    pub parked_since: Time,
}

impl Lpu {
    /// The LPAR's logical processors, idle, each at its core's speed.
    fn for_cpu(cpu: &crate::cpu::Cpu) -> Vec<Lpu> {
        (0..cpu.n_lpus)
            .map(|l| Lpu {
                vcpu: NONE,
                rate: cpu.rate1[cpu.core_of(l) as usize],
                ..Default::default()
            })
            .collect()
    }
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
    /// The event queue, addressed by entity (entity.rs).
    pub(crate) q: crate::entity::Agenda,
    pub lpus: Vec<Lpu>,
    pub vcpus: Vec<Vcpu>,
    pub users: Vec<User>,
    pub(crate) idle: Vec<u32>,
    pub(crate) sched: Scheduler,
    pub(crate) actions: Vec<Action>,
    pub(crate) next_action: usize,
    pub(crate) cost_dispatch: Time,
    pub(crate) cost_slice_end: Time,
    pub(crate) mon: crate::monitor::Monitor,
    /// Real storage and paging (None: the scenario has no storage model).
    pub(crate) paging: Option<Box<crate::paging::Paging>>,
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
    /// SSL servers and the crypto adapter (issue 6; None: no SSL server), and the adapter's
    /// entity number (after the minidisk volumes).
    pub(crate) ssl: Option<Box<crate::ssl::Ssl>>,
    /// Channel paths (issue 22; None: no [[chpid]] in the scenario), and the entity number of
    /// the first path (after the crypto adapter).
    pub(crate) chan: Option<Box<crate::channel::ChanState>>,
    /// Static or dynamic PAV (pav.rs; None: not in the scenario).
    pub(crate) pav: Option<Box<crate::pav::Pav>>,
    /// memtst guests' simulated storage-key operations (None: no memtst workload).
    pub(crate) iske: Option<Box<crate::iske::Iske>>,
    /// Transaction response times (response.rs).
    pub(crate) resp: crate::response::Responses,
    /// CPU pools (pools.rs; empty: none defined).
    pub(crate) pools: crate::pools::Pools,
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

impl Sim {
    /// Build the run: the level and parameters, the processors, the guests and their timed
    /// commands, then each subsystem from its own constructor, then the first events. Only the
    /// wiring is here: each subsystem builds its state from the configuration.
    pub fn new(cfg: Config) -> Result<Sim, String> {
        crate::params::reads_reset();
        cfg.check()?;
        let (level, params) = crate::level::level_and_params(&cfg)?;
        let cpu = crate::cpu::Cpu::from_config(&cfg, &params)?;
        let (p, p_online) = (cpu.n_lpus, cpu.cores * cpu.threads);
        let (users, vcpus, scheds) = crate::guest::guests(&cfg, &params, p_online)?;
        let actions = timed_actions(&cfg, &users)?;
        let io = io::IoSubsystems::for_config(&cfg, &params, &level)?;
        let lpar = match &cfg.cpc {
            Some(c) => Some(crate::lpar::LparState::new(c, p, &params, &level.switches)?),
            None => None,
        };
        let (n_vcpus, n_users) = (vcpus.len(), users.len());
        let mut sim = Sim {
            q: crate::entity::Agenda::new(io.entity_counts(p, n_vcpus as u32)),
            sched: Scheduler::for_run(&cfg, &params, &level, &cpu, io.storage_view(), scheds),
            cost_dispatch: path_ns(&params, params.path_dispatch(), params.hw_sie_cycles()),
            cost_slice_end: path_ns(&params, params.path_slice_end(), 0.0),
            lpus: Lpu::for_cpu(&cpu),
            idle: (0..p_online).rev().collect(),
            mon: crate::monitor::Monitor::new(n_users, p as usize),
            locks: crate::locks::Locks::new(&params, &level.switches, p),
            warm: crate::cache::Warmth::new(&params, &cpu.machine, &cpu.topo, n_vcpus, p as usize),
            lpar: lpar.map(Box::new),
            vnet: crate::vnet::Vnet::for_run(&cfg, &params, &users, n_vcpus).map(Box::new),
            ssl: crate::ssl::Ssl::new(&cfg, &params, &level.switches, cfg.seed).map(Box::new),
            iske: crate::iske::Iske::for_config(&cfg, &params, &level).map(Box::new),
            resp: crate::response::Responses::new(n_vcpus, n_users),
            pools: Default::default(),
            paging: io.paging,
            dasd: io.dasd,
            aliases: io.aliases,
            chan: io.chan,
            pav: io.pav,
            cpu,
            users,
            vcpus,
            actions,
            next_action: 0,
            end: cfg.duration_ns,
            now: 0,
            events: 0,
            level,
            params,
            params_read: Default::default(),
            cfg,
        };
        let locality =
            crate::lines::HoldLocality::new(&sim.params, &sim.cpu, &sim.warm.node, sim.warm.on);
        sim.locks.set_locality(locality, sim.cfg.seed);
        sim.pools_init()?;
        Ok(sim.start())
    }

    /// The state at time 0: devices, parking, shares and entitlement, the monitor's, the
    /// scheduler's and the commands' first events, and each virtual CPU's first wake-up.
    fn start(mut self) -> Sim {
        self.dasd_init();
        if let Some(n) = self.lpar.as_ref().map(|s| s.unparked()) {
            self.apply_parking(n);
        }
        self.normalize_shares();
        self.refresh_entitlement(0);
        self.q
            .schedule(Entity::Monitor, self.cfg.interval_ns.min(self.end));
        self.q
            .schedule(Entity::Scheduler, self.sched.tick().min(self.end));
        if let Some(a) = self.actions.first() {
            self.q.schedule(Entity::Commands, a.at_ns());
        }
        for v in 0..self.vcpus.len() as u32 {
            let u = self.vcpus[v as usize].user as usize;
            if self.users[u].program.waits_for_messages() {
                if let Some(n) = self.vnet.as_mut() {
                    n.wait(v);
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
                    self.q.schedule(Entity::Vcpu(v), t)
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
        while let Some(te) = self.q.next_time() {
            if te > stop {
                break;
            }
            let Some((_, e)) = self.q.begin_fire() else {
                break;
            };
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

    /// The time of the next pending event, if any (to step a run event by event).
    pub fn next_event_time(&self) -> Option<Time> {
        self.q.next_time()
    }

    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    pub fn finished(&self) -> bool {
        self.now >= self.end
    }

    /// Hand entity `e`'s event to its subsystem.
    #[inline(always)]
    fn fire(&mut self, e: Entity) {
        match e {
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
                self.q.schedule(Entity::Commands, at_ns);
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
            let listed = self.sched.listed(i);
            if listed {
                self.sched.list_sums_remove(i);
            }
            self.users[i].share = share;
            if listed {
                self.sched.list_sums_add(i, &self.users[i]);
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

/// The spin locks and CP time owed, for tests and the summary.
impl Sim {
    /// Cumulative counters of every lock (indexed by `LockId`).
    pub fn lock_counters(&self) -> &[crate::locks::LockCounters; crate::locks::N_LOCKS] {
        &self.locks.counters
    }

    /// Nonchargeable CP time already owed but not yet run (spin included): the head segments
    /// still running, the processors' owed time and the scheduler's pending work.
    pub fn sys_outstanding(&self) -> Time {
        self.lpus
            .iter()
            .map(|l| l.sys_left + l.sys_owed)
            .sum::<Time>()
            + self.sched.system_pending()
    }
}
