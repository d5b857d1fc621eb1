//! Channel paths (CHPIDs) between the CPC and the control unit (issue 22).
//!
//! A control unit reaches the CPC through a path group of one to eight channel paths of one
//! type. An I/O started on a device behind it needs a path for its *connect* phase (commands
//! and data moving); when no path of the group can take it, the I/O waits in the channel
//! subsystem (start pending) and its pend time grows. The rest of the I/O (the fixed pend, the
//! device's disconnect time) does not hold a path.
//!
//! A path serves up to `slots` I/Os at once and shares its capacity equally between them
//! (processor sharing): an I/O's *work* is the channel time it needs alone on the path.
//! - ESCON is circuit-switched: one I/O at a time (`slots` 1), work = per-CCW interlocks +
//!   bytes at the ESCON rate. One path is an M/M/1 (FCFS) server for the connect phase.
//! - FICON is packet-switched: up to `slots` open exchanges share the link; work = the channel
//!   processor's time per I/O (1 / its small-block I/O rate) + bytes at the link rate. With
//!   unlimited slots a path is an M/G/1 processor-sharing server; with K slots, limited PS.
//!
//! Path selection is the channel subsystem's rotation: each start begins one path further
//! along the group's list and takes the first path with a free slot. A path that frees a slot
//! takes the oldest start pending among the control units it serves.
//!
//! Delays that hold no channel capacity are added to the I/O after its connect: a FICON channel
//! program without prefetch under Synchronize Control waits one round trip per CCW after the
//! first (`ficon_prefetch` switch), and a control unit that is not ESS-class, or a level that
//! does not avoid it, waits for the nullification-window handshake (`nullification` switch).

use crate::queue::Time;
use serde::Serialize;
use std::collections::VecDeque;

/// A channel path type (CHPID type and feature; its word and first level in contract.rs).
pub use crate::contract::ChanKind;
use crate::contract::CuClass;

/// What a path type costs an I/O (ns), from the parameter table.
#[derive(Clone, Copy, Debug)]
pub struct PathCost {
    pub kind: ChanKind,
    /// I/Os in data transfer at once.
    pub slots: u32,
    /// Channel time per byte alone on the path (ns).
    pub ns_per_byte: f64,
    /// Channel time per I/O alone on the path (FICON: the channel processor; ns).
    pub per_io_ns: f64,
    /// Path-holding time per CCW (ESCON's interlock; ns).
    pub per_ccw_ns: f64,
}

impl PathCost {
    pub fn new(kind: ChanKind, p: &crate::params::Params) -> PathCost {
        let (rate, iops, slots, ccw) = match kind {
            ChanKind::Escon => (p.chan_escon_rate(), 0.0, 1.0, p.chan_escon_interlock()),
            ChanKind::Ficon => (
                p.chan_ficon_rate(),
                p.chan_ficon_iops(),
                p.chan_ficon_exchanges(),
                0.0,
            ),
            ChanKind::FiconExpress8s => (
                p.chan_fex8s_rate(),
                p.chan_fex8s_iops(),
                p.chan_fex_exchanges(),
                0.0,
            ),
            ChanKind::FiconExpress16s => (
                p.chan_fex16s_rate(),
                p.chan_fex16s_iops(),
                p.chan_fex_exchanges(),
                0.0,
            ),
        };
        PathCost {
            kind,
            slots: (slots.round() as u32).max(1),
            // MB/s = 1e6 bytes per 1e9 ns.
            ns_per_byte: 1e3 / rate,
            per_io_ns: if iops > 0.0 { 1e9 / iops } else { 0.0 },
            per_ccw_ns: ccw * 1e3,
        }
    }

    /// Channel work of an I/O moving `bytes` with `ccws` CCWs (ns alone on the path).
    pub fn work(&self, bytes: f64, ccws: f64) -> f64 {
        self.per_io_ns + self.per_ccw_ns * ccws + self.ns_per_byte * bytes
    }
}

/// An I/O in the channel subsystem: waiting for a path or in connect on one.
#[derive(Clone, Copy, Debug)]
pub struct Xfer {
    /// The device's event entity and the I/O's number on that device.
    pub ent: u32,
    pub seq: u64,
    /// Channel work left (ns alone on the path), and the bytes it moves.
    pub work: f64,
    pub bytes: u64,
    /// When it asked for a path, and when it got one.
    pub asked: Time,
    pub granted: Time,
}

/// Counters of one path (CPMF-like: busy time, I/Os, bytes, concurrency).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PathStats {
    pub ios: u64,
    pub bytes: u64,
    /// Time with at least one I/O in connect (ns): the path's busy time.
    pub busy_ns: u64,
    /// Integral of I/Os in connect over time (I/O-ns): mean concurrent operations.
    pub conc_ns: u128,
    /// Most I/Os in connect at once.
    pub max_conc: u32,
    /// A path shared with other LPARs of the CPC: their I/Os on it, and the part of `busy_ns`
    /// that was this LPAR's (each I/O in connect counts its share of the path).
    pub partner_ios: u64,
    pub own_busy_ns: u64,
}

/// Other LPARs' I/O on a shared path (MIF): Poisson starts of a fixed channel work.
#[derive(Clone, Debug)]
pub struct Partner {
    pub mean_gap_ns: f64,
    pub work: f64,
    pub next: Time,
    pub rng: crate::rng::Rng,
    /// Their starts waiting for a slot of this path (FIFO).
    pub waiting: VecDeque<Xfer>,
}

/// The `ent` of a partner LPAR's I/O (no device of this run).
pub const PARTNER: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct Path {
    pub id: String,
    pub cost: PathCost,
    pub active: Vec<Xfer>,
    /// Last time the active work was brought up to date.
    last: Time,
    pub stats: PathStats,
    /// Other LPARs' I/O when the path is shared (None: this LPAR's own).
    pub partner: Option<Partner>,
}

impl Path {
    pub fn new(id: String, cost: PathCost) -> Path {
        Path {
            id,
            cost,
            active: Vec::new(),
            last: 0,
            stats: PathStats::default(),
            partner: None,
        }
    }

    /// The path's counters as they would be at `now` (the active I/Os served up to it).
    pub fn stats_at(&self, now: Time) -> PathStats {
        let mut q = self.clone();
        q.advance(now);
        q.stats
    }

    fn has_slot(&self) -> bool {
        (self.active.len() as u32) < self.cost.slots
    }

    /// Serve the active I/Os up to `now`: each gets an equal share of the path.
    fn advance(&mut self, now: Time) {
        let dt = now.saturating_sub(self.last);
        self.last = now.max(self.last);
        let n = self.active.len();
        if n == 0 || dt == 0 {
            return;
        }
        let own = self.active.iter().filter(|x| x.ent != PARTNER).count();
        let s = &mut self.stats;
        s.busy_ns += dt;
        s.own_busy_ns += dt * own as u64 / n as u64;
        s.conc_ns += dt as u128 * n as u128;
        let share = dt as f64 / n as f64;
        for x in &mut self.active {
            x.work -= share;
        }
    }

    /// When the next active I/O finishes its connect (None: the path is idle).
    pub fn next_done(&self) -> Option<Time> {
        let n = self.active.len() as f64;
        let w = self
            .active
            .iter()
            .map(|x| x.work)
            .fold(f64::INFINITY, f64::min);
        w.is_finite()
            .then(|| self.last + (w.max(0.0) * n).ceil().max(1.0) as Time)
    }

    /// The path's next event: a connect ending or another LPAR's start.
    pub fn next_event(&self) -> Option<Time> {
        let arr = self.partner.as_ref().map(|p| p.next);
        match (self.next_done(), arr) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Other LPARs' starts due at `now`: each takes a slot or waits for one.
    fn partner_arrivals(&mut self, now: Time) {
        while let Some(p) = self.partner.as_mut().filter(|p| p.next <= now) {
            let x = Xfer {
                ent: PARTNER,
                seq: 0,
                work: p.work,
                bytes: 0,
                asked: p.next,
                granted: p.next,
            };
            p.next += (p.rng.exp(p.mean_gap_ns).round() as Time).max(1);
            self.stats.partner_ios += 1;
            if self.has_slot() {
                self.begin(now, x);
            } else {
                self.partner.as_mut().unwrap().waiting.push_back(x);
            }
        }
    }

    fn begin(&mut self, now: Time, mut x: Xfer) {
        self.advance(now);
        x.granted = now;
        if x.ent != PARTNER {
            self.stats.ios += 1;
            self.stats.bytes += x.bytes;
        }
        self.active.push(x);
        self.stats.max_conc = self.stats.max_conc.max(self.active.len() as u32);
    }

    /// The I/Os whose connect is done at `now` (their work is used up).
    fn finish(&mut self, now: Time) -> Vec<Xfer> {
        self.advance(now);
        // Work below a nanosecond's share is rounding of the event time.
        let eps = 0.5 / self.active.len().max(1) as f64 + 1e-9;
        let mut done = Vec::new();
        let mut i = 0;
        while i < self.active.len() {
            if self.active[i].work <= eps {
                done.push(self.active.remove(i));
            } else {
                i += 1;
            }
        }
        done
    }
}

/// The channel subsystem of the run: paths and the control units' path groups.
#[derive(Clone, Debug)]
pub struct Channels {
    pub paths: Vec<Path>,
    /// Per control unit: its paths (indexes into `paths`) in rotation order, the next start's
    /// rotation origin, and its starts pending for a path (FIFO).
    pub groups: Vec<Vec<usize>>,
    rot: Vec<usize>,
    pub waiting: Vec<VecDeque<Xfer>>,
    /// Starts that found no path free, and their total wait (ns), per control unit.
    pub delayed: Vec<u64>,
    pub wait_ns: Vec<u64>,
}

impl Channels {
    pub fn new(paths: Vec<Path>, groups: Vec<Vec<usize>>) -> Channels {
        let n = groups.len();
        Channels {
            paths,
            groups,
            rot: vec![0; n],
            waiting: vec![VecDeque::new(); n],
            delayed: vec![0; n],
            wait_ns: vec![0; n],
        }
    }

    /// An I/O of control unit `cu` asks for a path at `now`. Returns the path it started on.
    pub fn request(&mut self, cu: usize, now: Time, x: Xfer) -> Option<usize> {
        let g = &self.groups[cu];
        let r = self.rot[cu];
        self.rot[cu] = (r + 1) % g.len();
        let free = (0..g.len())
            .map(|i| g[(r + i) % g.len()])
            .find(|&p| self.paths[p].has_slot());
        match free {
            Some(p) => {
                self.paths[p].begin(now, x);
                Some(p)
            }
            None => {
                self.delayed[cu] += 1;
                self.waiting[cu].push_back(x);
                None
            }
        }
    }

    /// Path `p`'s event at `now`: the I/Os whose connect ended, after which the path takes
    /// the oldest starts pending of the control units it serves while it has slots.
    pub fn complete(&mut self, p: usize, now: Time) -> Vec<Xfer> {
        let mut done = self.paths[p].finish(now);
        done.retain(|x| x.ent != PARTNER);
        self.paths[p].partner_arrivals(now);
        while self.paths[p].has_slot() {
            let oldest = (0..self.groups.len())
                .filter(|&c| self.groups[c].contains(&p))
                .filter_map(|c| self.waiting[c].front().map(|x| (x.asked, x.seq, c)))
                .min();
            let partner = self.paths[p]
                .partner
                .as_ref()
                .and_then(|q| q.waiting.front())
                .map(|x| x.asked);
            match (oldest, partner) {
                (Some((asked, _, c)), q) if q.is_none_or(|q| asked <= q) => {
                    let x = self.waiting[c].pop_front().unwrap();
                    self.wait_ns[c] += now - asked;
                    self.paths[p].begin(now, x);
                }
                (_, Some(_)) => {
                    let q = self.paths[p].partner.as_mut().unwrap();
                    let x = q.waiting.pop_front().unwrap();
                    self.paths[p].begin(now, x);
                }
                _ => break,
            }
        }
        done
    }
}

/// The channel model of a run: the subsystem, the cost of the control unit's path type, and
/// the delays its I/Os pay outside the path (ns).
#[derive(Clone, Debug)]
pub struct ChanState {
    pub ch: Channels,
    pub cost: PathCost,
    /// CCWs per I/O besides one per page.
    pub ccws_fixed: f64,
    /// Per CCW after the first, without prefetch on FICON (counted as connect).
    pub interlock_ns: f64,
    /// Per I/O, the nullification window when not avoided (counted as pend).
    pub null_ns: f64,
    pub cu_class: CuClass,
}

/// Other LPARs' I/O on a shared path: `rate` starts per second of one-page work.
fn partner(
    cfg: &crate::config::Config,
    p: &crate::params::Params,
    cost: &PathCost,
    rate: f64,
    i: usize,
) -> Result<Partner, String> {
    if cfg.cpc.is_none() {
        return Err(
            "a channel path shared with other LPARs (partner_io_rate) needs a [cpc]".into(),
        );
    }
    if !rate.is_finite() || rate > 1e7 {
        return Err(format!(
            "partner_io_rate {rate} is out of range (0 to 10 000 000 per second)"
        ));
    }
    let pages = p.chan_partner_pages().round().max(1.0);
    let mut rng = crate::rng::Rng::stream(cfg.seed, 970_000 + i as u64);
    let gap = 1e9 / rate;
    let first = (rng.exp(gap).round() as Time).max(1);
    Ok(Partner {
        mean_gap_ns: gap,
        work: cost.work(pages * 4096.0, pages + p.chan_ccws_fixed()),
        next: first,
        rng,
        waiting: VecDeque::new(),
    })
}

/// The type of channel path `ch` (a [[chpid]] table), when the run's level (index `at` in
/// `levels`) already knows it.
fn chpid_kind(
    ch: &crate::config::ChpidCfg,
    level: &str,
    levels: &[&str],
    at: usize,
) -> Result<ChanKind, String> {
    let k = ch.ctype;
    let first = levels
        .iter()
        .position(|n| *n == k.first_level())
        .unwrap_or(0);
    if at < first {
        return Err(format!(
            "chpid {}: level {} does not know {k} channels (first at {})",
            ch.id,
            level,
            k.first_level()
        ));
    }
    Ok(k)
}

/// Channel path `ch` of kind `kind`, the `i`-th defined: its type's costs, and the other
/// LPARs' I/O on it when it is shared (`partner_io_rate`).
fn chpid_path(
    cfg: &crate::config::Config,
    p: &crate::params::Params,
    ch: &crate::config::ChpidCfg,
    kind: ChanKind,
    i: usize,
) -> Result<Path, String> {
    let mut path = Path::new(ch.id.clone(), PathCost::new(kind, p));
    if ch.partner_io_rate.is_nan() || ch.partner_io_rate < 0.0 {
        return Err(format!(
            "chpid {}: partner_io_rate must be 0 or more",
            ch.id
        ));
    }
    if ch.partner_io_rate > 0.0 {
        path.partner = Some(partner(cfg, p, &path.cost, ch.partner_io_rate, i)?);
    }
    Ok(path)
}

/// The channel paths the [[chpid]] tables define, in order: each type known to the level,
/// each CHPID defined once.
fn chpid_paths(
    cfg: &crate::config::Config,
    p: &crate::params::Params,
    c: &crate::config::ChannelsCfg,
) -> Result<Vec<Path>, String> {
    let levels = crate::level::names();
    let at = levels.iter().position(|n| *n == cfg.level).unwrap_or(0);
    let mut paths = Vec::new();
    for ch in &c.chpids {
        let k = chpid_kind(ch, &cfg.level, &levels, at)?;
        if paths.iter().any(|q: &Path| q.id == ch.id) {
            return Err(format!("chpid {} is defined twice", ch.id));
        }
        let path = chpid_path(cfg, p, ch, k, paths.len())?;
        paths.push(path);
    }
    Ok(paths)
}

/// The control unit's path group: the indices of its 1 to 8 channel paths, each a defined
/// CHPID listed once, all of one channel type.
fn cu_path_group(c: &crate::config::ChannelsCfg, paths: &[Path]) -> Result<Vec<usize>, String> {
    if c.paths.is_empty() || c.paths.len() > 8 {
        return Err(format!(
            "the control unit has {} channel paths; it needs 1 to 8",
            c.paths.len()
        ));
    }
    let mut group = Vec::new();
    for id in &c.paths {
        let Some(i) = paths.iter().position(|q| &q.id == id) else {
            return Err(format!("control unit path {id} is no defined chpid"));
        };
        if group.contains(&i) {
            return Err(format!("control unit path {id} is listed twice"));
        }
        group.push(i);
    }
    let kind = paths[group[0]].cost.kind;
    if group.iter().any(|&i| paths[i].cost.kind != kind) {
        return Err("the control unit's paths must all be of one channel type".into());
    }
    Ok(group)
}

/// Marks the ECKD volumes as reached through the control unit's path group (group 0).
fn mark_cu_devices<'a>(volumes: impl Iterator<Item = &'a mut crate::io::Device>) {
    for d in volumes {
        if d.dtype == crate::io::DevType::Eckd {
            d.chan = Some(0);
        }
    }
}

/// The channel model of the control unit's path group: the subsystem, the path type's cost,
/// and the delays outside the path (FICON's CCW interlock without prefetch, the nullification
/// window unless an ESS avoids it).
fn chan_state(
    p: &crate::params::Params,
    sw: &crate::level::Switches,
    c: &crate::config::ChannelsCfg,
    paths: Vec<Path>,
    group: Vec<usize>,
) -> ChanState {
    let cost = paths[group[0]].cost;
    let ficon = cost.kind.is_ficon();
    let prefetch = sw.ficon_prefetch == crate::level::FiconPrefetch::On;
    let avoided =
        sw.nullification == crate::level::Nullification::Avoided && c.cu_class == CuClass::Ess;
    ChanState {
        ch: Channels::new(paths, vec![group]),
        cost,
        ccws_fixed: p.chan_ccws_fixed(),
        interlock_ns: if ficon && !prefetch {
            p.chan_ficon_interlock() * 1e3
        } else {
            0.0
        },
        null_ns: if ficon && !avoided {
            p.chan_nullification() * 1e3
        } else {
            0.0
        },
        cu_class: c.cu_class,
    }
}

/// The channel model of a scenario, or None without [[chpid]] tables. Marks the ECKD volumes
/// among `volumes` (paging, then minidisks) as reached through the control unit's path group.
pub fn channels_for<'a>(
    cfg: &crate::config::Config,
    p: &crate::params::Params,
    sw: &crate::level::Switches,
    volumes: impl Iterator<Item = &'a mut crate::io::Device>,
) -> Result<Option<ChanState>, String> {
    let Some(c) = cfg.channels.as_ref() else {
        return Ok(None);
    };
    let paths = chpid_paths(cfg, p, c)?;
    let group = cu_path_group(c, &paths)?;
    mark_cu_devices(volumes);
    Ok(Some(chan_state(p, sw, c, paths, group)))
}

/// One channel path over the run (FCX107 CHANNEL-like, with FCX215's bytes).
#[derive(Clone, Debug, Serialize)]
pub struct PathSummary {
    pub chpid: String,
    #[serde(rename = "type")]
    pub kind: ChanKind,
    /// I/Os whose connect ran on the path, per second, and megabytes moved per second.
    pub io_rate: f64,
    pub mb_per_s: f64,
    /// Percent of the time with an I/O in connect (ESCON: the path's busy time; FICON under
    /// processor sharing: the share of its capacity used), all LPARs'.
    pub busy_pct: f64,
    /// This LPAR's part of it, and the I/Os per second other LPARs start on a shared path.
    pub own_busy_pct: f64,
    pub partner_io_rate: f64,
    /// Mean and most I/Os in connect at once (FICON: open exchanges in data transfer).
    pub mean_concurrent: f64,
    pub max_concurrent: u32,
    pub stats: PathStats,
}

/// The channel model in the run summary (`channels`).
#[derive(Clone, Debug, Serialize)]
pub struct ChannelsSummary {
    pub paths: Vec<PathSummary>,
    /// The control unit: class, path group, starts that found no path free (share of all
    /// starts, percent) and the mean wait of a start for a path (ms, over all starts).
    pub cu_class: CuClass,
    pub cu_paths: Vec<String>,
    pub starts: u64,
    pub delayed_pct: f64,
    pub path_wait_ms: f64,
    /// FICON delays outside the path: per I/O, the nullification window and the interlocks of
    /// a channel program that is not prefetched (ms, for a one-page I/O).
    pub nullification_ms: f64,
    pub interlock_ms_per_ccw: f64,
}

impl ChanState {
    /// The channel model over the run up to `now` (the run summary's `channels`).
    pub fn summary(&self, now: Time) -> ChannelsSummary {
        let c = self;
        let now = now.max(1);
        let secs = now as f64 / 1e9;
        let paths =
            c.ch.paths
                .iter()
                .map(|p| {
                    let s = p.stats_at(now);
                    PathSummary {
                        chpid: p.id.clone(),
                        kind: p.cost.kind,
                        io_rate: s.ios as f64 / secs,
                        mb_per_s: s.bytes as f64 / 1e6 / secs,
                        busy_pct: 100.0 * s.busy_ns as f64 / now as f64,
                        own_busy_pct: 100.0 * s.own_busy_ns as f64 / now as f64,
                        partner_io_rate: s.partner_ios as f64 / secs,
                        mean_concurrent: s.conc_ns as f64 / now as f64,
                        max_concurrent: s.max_conc,
                        stats: s,
                    }
                })
                .collect::<Vec<_>>();
        let starts: u64 = paths.iter().map(|p| p.stats.ios).sum::<u64>()
            + c.ch.waiting.iter().map(|w| w.len() as u64).sum::<u64>();
        let n = starts.max(1) as f64;
        ChannelsSummary {
            cu_class: c.cu_class,
            cu_paths: c.ch.groups[0]
                .iter()
                .map(|&i| c.ch.paths[i].id.clone())
                .collect(),
            starts,
            delayed_pct: 100.0 * c.ch.delayed.iter().sum::<u64>() as f64 / n,
            path_wait_ms: c.ch.wait_ns.iter().sum::<u64>() as f64 / n / 1e6,
            nullification_ms: c.null_ns / 1e6,
            interlock_ms_per_ccw: c.interlock_ns / 1e6,
            paths,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Poisson starts to one control unit with paths `paths`; work drawn by `work`. Returns
    /// per start (work, time from asking to the end of connect).
    fn drive(
        paths: Vec<PathCost>,
        lambda_per_ms: f64,
        n: usize,
        work: impl FnMut(&mut Rng) -> f64,
    ) -> Vec<(f64, f64)> {
        drive_ch(paths, lambda_per_ms, n, work).0
    }

    /// As `drive`, also returning the channel subsystem and the time of the last event.
    fn drive_ch(
        paths: Vec<PathCost>,
        lambda_per_ms: f64,
        n: usize,
        mut work: impl FnMut(&mut Rng) -> f64,
    ) -> (Vec<(f64, f64)>, Channels, Time) {
        let ps = paths
            .into_iter()
            .enumerate()
            .map(|(i, c)| Path::new(format!("{i:02X}"), c))
            .collect::<Vec<_>>();
        let np = ps.len();
        let mut ch = Channels::new(ps, vec![(0..np).collect()]);
        let mut arr = Rng::stream(7, 1);
        let mut wr = Rng::stream(7, 2);
        let mut next_arr = arr.exp(1e6 / lambda_per_ms) as Time;
        let mut works = std::collections::HashMap::new();
        let mut out = Vec::new();
        let mut seq = 0u64;
        let mut now = 0;
        while out.len() < n {
            let next_path = (0..np)
                .filter_map(|p| ch.paths[p].next_done().map(|t| (t, p)))
                .min();
            match next_path {
                Some((t, p)) if t < next_arr => {
                    now = t;
                    for x in ch.complete(p, t) {
                        let w: f64 = works.remove(&x.seq).unwrap();
                        out.push((w, (t - x.asked) as f64));
                    }
                }
                _ => {
                    now = next_arr;
                    let w = work(&mut wr);
                    works.insert(seq, w);
                    let x = Xfer {
                        ent: 0,
                        seq,
                        work: w,
                        bytes: 0,
                        asked: next_arr,
                        granted: 0,
                    };
                    ch.request(0, next_arr, x);
                    seq += 1;
                    next_arr += arr.exp(1e6 / lambda_per_ms) as Time;
                }
            }
        }
        (out, ch, now)
    }

    fn cost(slots: u32) -> PathCost {
        PathCost {
            kind: if slots == 1 {
                ChanKind::Escon
            } else {
                ChanKind::Ficon
            },
            slots,
            ns_per_byte: 0.0,
            per_io_ns: 0.0,
            per_ccw_ns: 0.0,
        }
    }

    fn mean(v: &[(f64, f64)]) -> f64 {
        v.iter().map(|x| x.1).sum::<f64>() / v.len() as f64
    }

    #[test]
    fn one_escon_path_is_mm1() {
        // Connect 0.4 ms exponential, 1.75 starts per ms: rho = 0.7, T = S / (1 - rho).
        let out = drive(vec![cost(1)], 1.75, 1_000_000, |r| r.exp(0.4e6));
        let want = 0.4e6 / (1.0 - 0.7);
        let got = mean(&out);
        assert!((got / want - 1.0).abs() < 0.02, "M/M/1 {got} vs {want}");
    }

    #[test]
    fn two_escon_paths_are_mm2() {
        // M/M/2, a = lambda S = 1.6: P(wait) = 2 rho^2 / (1 + rho), W = P S / (2 - a).
        let out = drive(vec![cost(1), cost(1)], 4.0, 1_000_000, |r| r.exp(0.4e6));
        let rho = 0.8;
        let pw = 2.0 * rho * rho / (1.0 + rho);
        let want = 0.4e6 + pw * 0.4e6 / (2.0 - 1.6);
        let got = mean(&out);
        assert!((got / want - 1.0).abs() < 0.02, "M/M/2 {got} vs {want}");
    }

    #[test]
    fn ficon_path_is_processor_sharing() {
        // M/G/1-PS with two sizes (0.1 and 0.9 ms, equally likely; E[S] = 0.5 ms) at rho 0.6:
        // E[T | x] = x / (1 - rho) for each size, which FCFS would not give (its wait does not
        // depend on the size).
        let out = drive(vec![cost(100_000)], 1.2, 1_000_000, |r| {
            if r.below(2) == 0 {
                0.1e6
            } else {
                0.9e6
            }
        });
        for x in [0.1e6, 0.9e6] {
            let v: Vec<_> = out.iter().copied().filter(|o| o.0 == x).collect();
            let want = x / (1.0 - 0.6);
            let got = mean(&v);
            assert!(
                (got / want - 1.0).abs() < 0.02,
                "PS size {x}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn limited_ficon_exchanges_with_exponential_work_is_mm1() {
        // LPS-K with exponential work: the number in system is M/M/1's for any K.
        let out = drive(vec![cost(4)], 1.6, 1_000_000, |r| r.exp(0.5e6));
        let want = 0.5e6 / (1.0 - 0.8);
        let got = mean(&out);
        assert!((got / want - 1.0).abs() < 0.02, "LPS-4 {got} vs {want}");
    }

    #[test]
    fn busy_time_and_concurrency_follow_littles_law() {
        // A FICON path at rho 0.6: busy 60 % of the time; mean I/Os in connect = lambda E[T]
        // (Little), which for PS is rho / (1 - rho).
        let (out, ch, end) = drive_ch(vec![cost(32)], 1.2, 400_000, |r| r.exp(0.5e6));
        let s = &ch.paths[0].stats;
        let busy = s.busy_ns as f64 / end as f64;
        assert!((busy / 0.6 - 1.0).abs() < 0.02, "busy {busy}");
        let conc = s.conc_ns as f64 / end as f64;
        let little = out.len() as f64 / end as f64 * mean(&out);
        assert!(
            (conc / little - 1.0).abs() < 0.02,
            "N {conc} vs Little {little}"
        );
        assert!((conc / 1.5 - 1.0).abs() < 0.03, "N {conc} vs rho/(1-rho)");
    }

    #[test]
    fn path_costs_come_from_the_table() {
        let p = crate::params::Params::default();
        let e = PathCost::new(ChanKind::Escon, &p);
        assert_eq!(e.slots, 1);
        // 4 KB at 17 MB/s = 240.9 us, plus 3 CCWs of 20 us.
        assert!((e.work(4096.0, 3.0) - (4096.0 * 1e3 / 17.0 + 60e3)).abs() < 1e-6);
        let f = PathCost::new(ChanKind::Ficon, &p);
        assert_eq!(f.slots, 32);
        // The channel processor's 1/6000 s per I/O plus 4 KB at 100 MB/s; no per-CCW hold.
        assert!((f.work(4096.0, 3.0) - (1e9 / 6000.0 + 40960.0)).abs() < 1e-6);
    }
}

#[cfg(test)]
#[path = "channel_tests.rs"]
mod unit;
