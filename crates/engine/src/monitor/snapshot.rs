//! What a monitor sample records beyond the interval deltas: cumulative counters at the sample.

use crate::sim::Sim;

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

#[derive(Clone, Copy, Debug, Default)]
pub struct UserIo {
    pub vol: u32,
    pub ios: u64,
    pub blocks: u64,
    pub write: bool,
    pub mdc: bool,
    pub paced: bool,
}

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

/// One device's entry in the sample: its name, type, exposures, slots and cumulative
/// counters (FCX108/FCX109 device activity; `paging`: a CP paging volume).
fn dev_snap(d: &crate::io::Device, paging: bool) -> DevSnap {
    DevSnap {
        name: d.name.clone(),
        dtype: d.dtype,
        paging,
        servers: d.servers,
        slots: d.slots,
        stats: d.stats.clone(),
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
        }
    }

    /// The device records: paging volumes, then minidisk volumes.
    fn snap_devices(&self) -> Vec<DevSnap> {
        let mut devices = Vec::new();
        if let Some(pg) = &self.paging {
            devices.extend(pg.devs.iter().map(|d| dev_snap(d, true)));
        }
        if let Some(m) = &self.dasd {
            devices.extend(m.devs.iter().map(|d| dev_snap(d, false)));
        }
        devices
    }

    /// The storage record (frames, residency, paging I/O, faults, slots); None without a
    /// storage model.
    fn snap_storage(&self) -> Option<StoSnap> {
        self.paging.as_ref().map(|pg| {
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
        })
    }

    /// Per user: pages read, pages stolen and resident pages; empty without a storage model.
    fn snap_user_paging(&self) -> Vec<(u64, u64, u64)> {
        self.paging.as_ref().map_or(Vec::new(), |pg| {
            let s = &pg.st;
            (0..s.res_user.len())
                .map(|u| (s.reads_user[u], s.steals_user[u], s.res_user[u]))
                .collect()
        })
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

    /// The minidisk cache record (FCX178 MDCSTOR): max, target, frames below and above 2 GB,
    /// reads, hits, inserts, steals; None without a cache.
    fn snap_mdc(&self) -> Option<[u64; 8]> {
        self.dasd.as_ref().and_then(|d| d.mdc.as_ref()).map(|c| {
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
        })
    }

    /// Per user: virtual storage and working set in pages; empty without a storage model.
    fn snap_user_storage(&self) -> Vec<(u64, u64)> {
        self.paging.as_ref().map_or(Vec::new(), |pg| {
            (0..pg.st.tables.len())
                .map(|u| {
                    let wss = pg
                        .refs
                        .get(u)
                        .and_then(|r| r.as_ref())
                        .map_or(0, |r| r.range());
                    (pg.st.tables[u].pages, wss)
                })
                .collect()
        })
    }

    /// Per user with a minidisk I/O driver (not a VDISK, not a FORMAT): its volume, I/Os and
    /// blocks done, and whether it writes, uses MDC, is paced.
    fn snap_user_io(&self) -> Vec<Option<UserIo>> {
        self.dasd.as_ref().map_or(Vec::new(), |d| {
            d.prog
                .iter()
                .enumerate()
                .map(|(u, p)| {
                    p.as_ref()
                        .filter(|p| !p.vdisk && !p.format)
                        .map(|p| UserIo {
                            vol: p.vol,
                            ios: d.ios[u],
                            blocks: d.blocks[u],
                            write: p.write,
                            mdc: p.mdc,
                            paced: p.pace > 0.0,
                        })
                })
                .collect()
        })
    }

    /// Per user: time its virtual CPUs spent in each state up to now, and test idle (FCX114
    /// USTAT).
    fn snap_wait_states(&self) -> (Vec<[u64; crate::guest::N_VSTATES]>, Vec<u64>) {
        self.users
            .iter()
            .map(|u| self.user_wait_states(u, self.now))
            .unzip()
    }
}

impl crate::sim::Sim {
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
            .flat_map(|p| p.devs.iter())
            .map(|d| (d, false));
        let mdisk = self
            .dasd
            .iter()
            .flat_map(|d| d.devs.iter())
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
