//! Interval sampling (the engine side of CP monitor sample records) and the run summary.
//!
//! Every `interval` the monitor brings each processor's accounting up to the instant and records
//! per-user and per-processor deltas. The monitor-data issue writes these as MONWRITE records.

pub mod snapshot;

use crate::entity::Entity;
use crate::guest::Acct;
use crate::queue::Time;
use crate::sim::Sim;
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
    pub intervals: Vec<IntervalRec>,
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
}

impl Sim {
    pub(crate) fn monitor_sample(&mut self) {
        self.charge_all();
        self.prsm_sample();
        let users = self
            .users
            .iter()
            .zip(self.mon.prev_users.iter_mut())
            .map(|(u, p)| {
                let d = UserDelta {
                    virt_ns: u.acct.virt_ns - p.virt_ns,
                    cp_ns: u.acct.cp_ns - p.cp_ns,
                    tx_done: u.acct.tx_done - p.tx_done,
                };
                *p = u.acct.clone();
                d
            })
            .collect();
        let lpus = self
            .lpus
            .iter()
            .zip(self.mon.prev_lpus.iter_mut())
            .map(|(l, p)| {
                let d = LpuDelta {
                    busy_ns: l.busy_ns - p.0,
                    sys_ns: l.sys_ns - p.1,
                };
                *p = (l.busy_ns, l.sys_ns);
                d
            })
            .collect();
        let mut devices = Vec::new();
        if let Some(pg) = &self.paging {
            self.mon
                .prev_devs
                .resize(pg.devs.len(), crate::io::DevStats::default());
            for (d, p) in pg.devs.iter().zip(self.mon.prev_devs.iter_mut()) {
                devices.push(d.stats.since(p));
                *p = d.stats.clone();
            }
        }
        let locks = std::array::from_fn(|i| self.locks.counters[i].since(&self.mon.prev_locks[i]));
        self.mon.prev_locks = self.locks.counters;
        let cores = if self.cpu.track {
            self.cpu.sync(self.now);
            let t = self.cpu.totals();
            let p = std::mem::replace(&mut self.mon.prev_cores, t);
            Some((t.0 - p.0, t.1 - p.1, self.cpu.cores * self.cpu.threads))
        } else {
            None
        };
        if !self.pools.is_empty() {
            self.pools_sample(self.mon.last);
        }
        self.mon.intervals.push(IntervalRec {
            start: self.mon.last,
            end: self.now,
            users,
            lpus,
            devices,
            locks,
            cores,
            snap: self.monitor_snapshot(),
        });
        self.mon.last = self.now;
        if self.now < self.end {
            self.q.schedule(
                Entity::Monitor,
                (self.now + self.cfg.interval_ns).min(self.end),
            );
        }
    }

    /// Time user `u`'s virtual CPUs spent in each state (crate::guest::VState) up to `now`.
    pub fn user_state_time(
        &self,
        u: &crate::guest::User,
        now: Time,
    ) -> [Time; crate::guest::N_VSTATES] {
        let mut t = [0; crate::guest::N_VSTATES];
        for &v in &u.vcpus {
            for (a, b) in t.iter_mut().zip(self.vcpus[v as usize].state_time(now)) {
                *a += b;
            }
        }
        t
    }

    /// User `u`'s wait states up to `now` as USTAT shows them: time per state, dormant without
    /// the part while the user was test-idle, and that part (the summary's `wait_states` and the
    /// monitor's MRUSEACT both take them from here).
    pub fn user_wait_states(
        &self,
        u: &crate::guest::User,
        now: Time,
    ) -> ([Time; crate::guest::N_VSTATES], Time) {
        let mut t = self.user_state_time(u, now);
        let ti = u.sch.tidle_time(now);
        let d = crate::guest::VState::Dormant as usize;
        t[d] = t[d].saturating_sub(ti);
        (t, ti)
    }

    /// The run summary (call after the run; deterministic for a given scenario, level and seed).
    pub fn summary(&self) -> Summary {
        let dur = self.now.max(1) as f64;
        let p = (self.cpu.cores * self.cpu.threads) as f64;
        let busy: u64 = self.lpus.iter().map(|l| l.busy_ns).sum();
        // Logical-processor time online (SET MULTITHREAD moves it during the run).
        let capacity = if self.cpu.switches == 0 {
            dur * p
        } else {
            self.cpu.online_total(self.now) as f64
        };
        let sys: u64 = self.lpus.iter().map(|l| l.sys_ns).sum();
        let virt: u64 = self.users.iter().map(|u| u.acct.virt_ns).sum();
        let tx: u64 = self.users.iter().map(|u| u.acct.tx_done).sum();
        let busy_frac = busy as f64 / capacity;
        let etr = tx as f64 / (dur / 1e9);
        let pct = |ns: u64| 100.0 * ns as f64 / dur;
        let users = self.user_summaries(dur);
        let intervals = self.interval_summaries();
        let mut s = Summary {
            level: self.level.name.to_string(),
            switches: self.level.switches.to_map(),
            seed: self.cfg.seed,
            processors: p as u32,
            duration_s: dur / 1e9,
            events: self.events,
            transactions: tx,
            etr,
            itr: if busy_frac > 0.0 {
                etr / busy_frac
            } else {
                0.0
            },
            tv_ratio: if virt > 0 {
                busy as f64 / virt as f64
            } else {
                0.0
            },
            avg_processor_busy_pct: 100.0 * busy_frac,
            system_pct: 100.0 * sys as f64 / dur,
            response_ms: self.resp.summary(None),
            users,
            processor_detail: self
                .lpus
                .iter()
                .map(|l| ProcessorSummary {
                    busy_pct: pct(l.busy_ns),
                    system_pct: pct(l.sys_ns),
                })
                .collect(),
            intervals,
            storage: self.storage_summary(),
            locks: crate::locks::Locks::summary(&self.locks.counters, dur),
            smt: self.smt_summary(busy, dur),
            cpi: self.cpi_summary(),
            devices: {
                let mut d = self.device_summaries();
                if let Some(m) = self.dasd.as_ref() {
                    d.extend(m.devs.iter().map(|x| x.summary(dur)));
                }
                d
            },
            lpar: self.lpar_summary(),
            vnet: self.vnet.as_ref().map(|n| n.summary(dur / 1e9)),
            dasd: self.dasd_summary(),
            hyperpav: self.hyperpav_summary(),
            channels: self.channel_summary(),
            pav: self.pav_summary(),
            servers: self.servers_summary(),
            scheduler: self.sched.stats.clone(),
            params_read: crate::params::names_read(
                self.params_read.union(crate::params::reads_taken()),
            ),
            tx_unit: None,
            requests: None,
            cpupools: self.pools_summary(),
        };
        s.apply_tx_unit(self.cfg.tx_unit);
        s
    }

    /// Each user's figures over the run (`dur`: the run's length, ns).
    fn user_summaries(&self, dur: f64) -> Vec<UserSummary> {
        let pct = |ns: u64| 100.0 * ns as f64 / dur;
        self.users
            .iter()
            .enumerate()
            .map(|(ui, u)| UserSummary {
                userid: u.userid.clone(),
                cpu_pct: pct(u.acct.virt_ns + u.acct.cp_ns),
                virtual_pct: pct(u.acct.virt_ns),
                cp_pct: pct(u.acct.cp_ns),
                transactions: u.acct.tx_done,
                tx_started: u.acct.tx_started,
                tx_in_flight: u.acct.tx_started - u.acct.tx_done,
                response_ms: self.resp.summary(Some(ui)),
                mt1_cpu_pct: pct(u.acct.virt_ns + u.acct.cp_ns)
                    - pct(u.acct.smt_shared_ns) * (1.0 - self.cpu.c2 / 2.0),
                prorated_cpu_pct: pct(u.acct.virt_ns + u.acct.cp_ns)
                    - pct(u.acct.smt_shared_ns) / 2.0,
                wait_states: {
                    let (t, ti) = self.user_wait_states(u, self.now);
                    let all = (t.iter().sum::<Time>() + ti).max(1) as f64;
                    let mut m: BTreeMap<&'static str, f64> = crate::guest::VState::NAMES
                        .iter()
                        .zip(t)
                        .map(|(n, x)| (*n, 100.0 * x as f64 / all))
                        .collect();
                    m.insert("test_idle", 100.0 * ti as f64 / all);
                    m
                },
            })
            .collect()
    }

    /// Each monitor interval's figures.
    fn interval_summaries(&self) -> Vec<IntervalSummary> {
        self.mon
            .intervals
            .iter()
            .map(|iv| {
                let len = (iv.end - iv.start).max(1) as f64;
                let ipct = |ns: u64| 100.0 * ns as f64 / len;
                let mut users = BTreeMap::new();
                let mut detail = Vec::new();
                for (u, d) in self.users.iter().zip(&iv.users) {
                    users.insert(u.userid.clone(), ipct(d.virt_ns + d.cp_ns));
                    detail.push(UserInterval {
                        userid: u.userid.clone(),
                        cpu_pct: ipct(d.virt_ns + d.cp_ns),
                        virtual_pct: ipct(d.virt_ns),
                        cp_pct: ipct(d.cp_ns),
                        transactions: d.tx_done,
                    });
                }
                let ibusy: u64 = iv.lpus.iter().map(|l| l.busy_ns).sum();
                let isys: u64 = iv.lpus.iter().map(|l| l.sys_ns).sum();
                let itx: u64 = iv.users.iter().map(|d| d.tx_done).sum();
                IntervalSummary {
                    start_s: iv.start as f64 / 1e9,
                    end_s: iv.end as f64 / 1e9,
                    users,
                    user_detail: detail,
                    processors: iv
                        .lpus
                        .iter()
                        .map(|l| ProcessorSummary {
                            busy_pct: ipct(l.busy_ns),
                            system_pct: ipct(l.sys_ns),
                        })
                        .collect(),
                    busy_ns: ibusy,
                    system_ns: isys,
                    transactions: itx,
                    etr: itx as f64 / (len / 1e9),
                    requests: None,
                    locks: crate::locks::Locks::summary(&iv.locks, len),
                    smt: iv.cores.map(|(t1, t2, online)| {
                        let core = (t1 + t2) as f64;
                        let f = |x: f64, y: f64| if y > 0.0 { x / y } else { 0.0 };
                        SmtInterval {
                            core_busy_pct: 100.0 * core / (len * self.cpu.cores as f64),
                            thread_density: f(ibusy as f64, core),
                            capacity_factor: f(t1 as f64 + self.cpu.c2 * t2 as f64, core),
                            logical_cpus: online,
                        }
                    }),
                    devices: match &self.paging {
                        Some(pg) => pg
                            .devs
                            .iter()
                            .zip(&iv.devices)
                            .map(|(d, s)| {
                                crate::io::DeviceInterval::new(&d.name, d.servers, s, len)
                            })
                            .collect(),
                        None => Vec::new(),
                    },
                }
            })
            .collect()
    }

    /// SMT measures (cp-model §2.3, §2.4): raw thread time, MT-1 equivalent, prorated core time.
    fn smt_summary(&self, busy: u64, dur: f64) -> SmtSummary {
        let (t1, t2) = if self.cpu.track {
            // Counters are synced at every monitor sample, the last one at the end of the run.
            let mut c = self.cpu.core_state.clone();
            let now = self.now;
            c.iter_mut().for_each(|c| {
                let dt = now.saturating_sub(c.since);
                match c.nbusy {
                    1 => c.t1 += dt,
                    2 => c.t2 += dt,
                    _ => {}
                }
            });
            c.iter().fold((0, 0), |a, c| (a.0 + c.t1, a.1 + c.t2))
        } else {
            (busy, 0)
        };
        let core = (t1 + t2) as f64;
        let mt1 = t1 as f64 + self.cpu.c2 * t2 as f64;
        let f = |x: f64, y: f64| if y > 0.0 { x / y } else { 0.0 };
        let max_cf = if self.cpu.n_lpus > self.cpu.cores {
            self.cpu.c2
        } else {
            1.0
        };
        SmtSummary {
            mode: self.cpu.mode.word().to_string(),
            cores: self.cpu.cores,
            threads_per_core: self.cpu.threads,
            logical_cpus: self.cpu.cores * self.cpu.threads,
            core_busy_pct: 100.0 * core / (dur * self.cpu.cores as f64),
            thread_busy_pct: 100.0 * busy as f64 / dur,
            thread_density: f(busy as f64, core),
            capacity_factor: f(mt1, core),
            max_capacity_factor: max_cf,
            productivity: f(f(mt1, core), max_cf),
            raw_thread_s: busy as f64 / 1e9,
            mt1_equivalent_s: mt1 / 1e9,
            prorated_core_s: core / 1e9,
            multithreading_switches: self.cpu.switches,
        }
    }

    /// The drawer CPI model's figures for this LPAR (averages over its cores).
    fn cpi_summary(&self) -> CpiSummary {
        let t = &self.cpu.topo;
        let n = t.cores.max(1) as f64;
        // Cycles are busy wall time; instructions are the nominal work done (wall x the core's
        // speed factor) less the cross-drawer sourcing stalls, at the one-chip CPI.
        let cores = t.cores.max(1);
        let (mut busy, mut nominal) = (0.0, 0.0);
        for (l, lp) in self.lpus.iter().enumerate() {
            busy += lp.busy_ns as f64;
            nominal += lp.busy_ns as f64 * t.factor[l % cores as usize];
        }
        let m = self.params.l1_miss_per_instr();
        let cpi_ref = t
            .cpi
            .iter()
            .zip(&t.factor)
            .map(|(c, f)| c * f)
            .next()
            .unwrap_or(1.0);
        let work = nominal
            - self.cpu.reload_charged as f64
            - self.warm.reload_ns as f64
            - self.warm.coherence_ns as f64;
        let cpi = if busy > 0.0 && work > 0.0 {
            cpi_ref * busy / work
        } else {
            t.cpi.iter().sum::<f64>() / n
        };
        let stretch = cpi / (t.cpi.iter().sum::<f64>() / n);
        CpiSummary {
            drawers: t.drawers,
            chips: t.chip.iter().max().map_or(0, |c| c + 1),
            sourcing_cycles_per_miss: if m > 0.0 {
                (cpi - self.params.cpi_inf()) / m
            } else {
                t.sourcing.iter().sum::<f64>() / n
            },
            cpi,
            speed_factor: t.factor.iter().sum::<f64>() / n / stretch,
            min_speed_factor: t.factor.iter().cloned().fold(1.0, f64::min) / stretch,
            dispatch_moves: self.cpu.moves,
            message_distances: self.cpu.msg_dist,
            cpi_per_processor: self.cpi_per_processor(cpi_ref),
            cache: self.warm.summary(
                self.users.iter().map(|u| u.acct.virt_ns).sum(),
                self.users.iter().map(|u| u.acct.cp_ns).sum(),
            ),
        }
    }

    /// CPI of each logical processor: its cycles (busy wall time) over its instructions (the
    /// nominal work it did less the cache reload and coherence stalls charged on it).
    fn cpi_per_processor(&self, cpi_ref: f64) -> Vec<f64> {
        let t = &self.cpu.topo;
        let cores = t.cores.max(1) as usize;
        self.lpus
            .iter()
            .enumerate()
            .map(|(l, lp)| {
                let busy = lp.busy_ns as f64;
                let stall = self.warm.lp_reload_ns.get(l).copied().unwrap_or(0) as f64
                    + self.warm.lp_coherence_ns.get(l).copied().unwrap_or(0) as f64;
                let work = busy * t.factor[l % cores] - stall;
                if busy > 0.0 && work > 0.0 {
                    cpi_ref * busy / work
                } else {
                    t.cpi[l % cores]
                }
            })
            .collect()
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
    fn apply_tx_unit(&mut self, unit: f64) {
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
