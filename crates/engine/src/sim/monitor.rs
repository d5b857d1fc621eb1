//! The monitor's wiring (monitor/ holds the sampling state and the records' types): an
//! interval sample taken from every subsystem, the cumulative snapshot the MONWRITE records
//! carry, and the run summary assembled from every subsystem's figures.

use crate::entity::Entity;
use crate::monitor::snapshot::*;
use crate::monitor::*;
use crate::queue::Time;
use crate::sim::Sim;
use std::collections::BTreeMap;

impl Sim {
    /// A monitor sample: every processor accounted up to now, the interval's deltas recorded
    /// by the monitor, and the next sample scheduled.
    pub(crate) fn monitor_sample(&mut self) {
        self.charge_all();
        self.prsm_sample();
        let users = self.mon.user_deltas(self.users.iter().map(|u| &u.acct));
        debug_assert!(
            users
                .iter()
                .zip(&self.users)
                .all(|(d, u)| d.virt_ns + d.cp_ns
                    <= u.vcpus.len() as u64 * (self.now - self.mon.last())),
            "a user charged above its virtual CPUs in the interval ending at {} ns",
            self.now
        );
        let lpus = self
            .mon
            .lpu_deltas(self.lpus.iter().map(|l| (l.busy_ns, l.sys_ns)));
        let devices = match &self.paging {
            Some(pg) => self.mon.device_deltas(pg.devices()),
            None => Vec::new(),
        };
        let locks = self.mon.lock_deltas(&self.locks.counters);
        let cores = if self.cpu.track {
            self.cpu.sync(self.now);
            let (a, b) = self.mon.core_deltas(self.cpu.totals());
            Some((a, b, self.cpu.cores * self.cpu.threads))
        } else {
            None
        };
        let start = self.mon.last();
        if !self.pools.is_empty() {
            self.pools_sample(start);
        }
        let snap = self.monitor_snapshot();
        self.mon.push(IntervalRec {
            start,
            end: self.now,
            users,
            lpus,
            devices,
            locks,
            cores,
            snap,
        });
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
        ui: usize,
        now: Time,
    ) -> ([Time; crate::guest::N_VSTATES], Time) {
        let mut t = self.user_state_time(&self.users[ui], now);
        let ti = self.sched.user(ui).tidle_time(now);
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
                    d.extend(m.devices().iter().map(|x| x.summary(dur)));
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
            scheduler: self.sched.stats().clone(),
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
                    let (t, ti) = self.user_wait_states(ui, self.now);
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
        let ivs = self.mon.intervals();
        ivs.iter()
            .enumerate()
            .map(|(k, iv)| {
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
                            .devices()
                            .iter()
                            .zip(&iv.devices)
                            .enumerate()
                            .map(|(i, (d, s))| {
                                // Busy elapsed in the interval: the samples' (paging devices
                                // first in them) difference.
                                let at = |j: usize| ivs[j].snap.devices[i].elapsed;
                                let (e, p) = (at(k), k.checked_sub(1).map_or((0, 0), at));
                                let e = (e.0.saturating_sub(p.0), e.1.saturating_sub(p.1));
                                crate::io::DeviceInterval::new(&d.name, d.servers, s, e, len)
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

impl Sim {
    /// The cumulative device and storage counters now (taken at every monitor sample).
    pub(crate) fn monitor_snapshot(&self) -> Snapshot {
        let (states, tidle) = self.snap_wait_states();
        Snapshot {
            devices: self.snap_devices(),
            storage: self.snap_storage(),
            users: self.snap_user_paging(),
            states,
            tidle,
            lpus: self.snap_lpus(),
            prsm: self.prsm_monitor_counters(),
            mdc: self.snap_mdc(),
            hpp: self.snap_hyperpav(),
            mem: self.snap_user_storage(),
            io: self.snap_user_io(),
            chan: self.chan_snapshot(),
            pools: self.pools_snapshot(),
            queues: self.sched.queue_counts(),
        }
    }

    /// The device records: paging volumes, then minidisk volumes.
    fn snap_devices(&self) -> Vec<DevSnap> {
        let mut devices = Vec::new();
        if let Some(pg) = &self.paging {
            devices.extend(pg.devices().iter().map(|d| dev_snap(d, true, self.now)));
        }
        if let Some(m) = &self.dasd {
            devices.extend(m.devices().iter().map(|d| dev_snap(d, false, self.now)));
        }
        devices
    }

    /// The storage record (frames, residency, paging I/O, faults, slots); None without a
    /// storage model.
    fn snap_storage(&self) -> Option<StoSnap> {
        self.paging.as_ref().map(|pg| pg.counters())
    }

    /// Per user: pages read, pages stolen and resident pages; empty without a storage model.
    fn snap_user_paging(&self) -> Vec<(u64, u64, u64)> {
        self.paging
            .as_ref()
            .map_or(Vec::new(), |pg| pg.user_counters())
    }

    /// The logical processor records: core, suspended and parked time (brought up to now),
    /// SMT core time, and the dispatch-distance and cache-footprint counters.
    fn snap_lpus(&self) -> Vec<LpuSnap> {
        self.lpus
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
                    moves: self.cpu.lp_moves.get(l).copied().unwrap_or_default(),
                    hits: self.warm.lp_hits(l),
                    reload_ns: self.warm.lp_reload_ns.get(l).copied().unwrap_or(0),
                    disps: self.cpu.lp_moves.get(l).map_or(0, |m| m.iter().sum()),
                }
            })
            .collect()
    }

    /// The HyperPAV alias pool with its alias time integrated to now, and the I/Os queued for
    /// an alias; None without a [cu].
    fn snap_hyperpav(&self) -> Option<(crate::hyperpav::AliasPool, [u64; 2])> {
        self.aliases.as_ref().map(|p| {
            let mut p = p.clone();
            p.account(self.now);
            let queued = self.alias_queued();
            (p, queued)
        })
    }

    /// The minidisk cache record (FCX178 MDCSTOR); None without a cache.
    fn snap_mdc(&self) -> Option<[u64; 8]> {
        self.dasd.as_ref().and_then(|d| d.mdc_counters())
    }

    /// Per user: virtual storage and working set in pages; empty without a storage model.
    fn snap_user_storage(&self) -> Vec<(u64, u64)> {
        self.paging
            .as_ref()
            .map_or(Vec::new(), |pg| pg.user_storage())
    }

    /// Per user with a minidisk I/O driver (not a VDISK, not a FORMAT): its volume, I/Os and
    /// blocks done, and whether it writes, uses MDC, is paced.
    fn snap_user_io(&self) -> Vec<Option<UserIo>> {
        self.dasd.as_ref().map_or(Vec::new(), |d| d.user_io())
    }

    /// Per user: time its virtual CPUs spent in each state up to now, and test idle (FCX114
    /// USTAT).
    fn snap_wait_states(&self) -> (Vec<[u64; crate::guest::N_VSTATES]>, Vec<u64>) {
        (0..self.users.len())
            .map(|ui| self.user_wait_states(ui, self.now))
            .unzip()
    }
}

impl Sim {
    /// Channel paths and PAV for a monitor sample (None without either).
    pub(crate) fn chan_snapshot(&self) -> Option<ChanSnap> {
        if self.chan.is_none() && self.pav.is_none() {
            return None;
        }
        let now = self.now;
        let mut snap = ChanSnap::default();
        if let Some(c) = self.chan.as_ref() {
            for p in &c.ch.paths {
                let chpid = u64::from_str_radix(&p.id, 16).unwrap_or(0);
                let code = 1 + crate::channel::ChanKind::ALL
                    .iter()
                    .position(|&k| k == p.cost.kind)
                    .unwrap_or(0) as u64;
                snap.paths
                    .push((chpid, code, p.cost.slots, p.stats_at(now)));
            }
            snap.delayed = c.ch.delayed.iter().sum();
            snap.hw_active = c.cost.kind.is_ficon();
        }
        let npaths = self
            .chan
            .as_ref()
            .map_or(0, |c| c.ch.groups[0].len() as u32);
        let pav = self.pav.is_some();
        let paging = self
            .paging
            .iter()
            .flat_map(|p| p.devices().iter())
            .map(|d| (d, false));
        let mdisk = self
            .dasd
            .iter()
            .flat_map(|d| d.devices().iter())
            .map(|d| (d, true));
        for (d, md) in paging.chain(mdisk) {
            let on = d.chan.is_some();
            let base = pav && md && d.dtype == crate::io::DevType::Eckd;
            snap.devs
                .push((on, if on { npaths } else { 0 }, d.bound, base));
        }
        if let Some(p) = self.pav.as_ref() {
            snap.moves = p.moves.iter().map(|m| (m.at, m.from, m.to)).collect();
        }
        Some(snap)
    }
}
