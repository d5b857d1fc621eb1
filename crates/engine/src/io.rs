//! Devices as queues (the DASD I/O issue reuses this model for minidisks).
//!
//! A device serves up to `servers` I/Os at once (1 for an ECKD volume without aliases and for
//! an EDEV driven through FBA emulation; the SCSI container's queue depth for an EDEV driven
//! directly); further requests wait FIFO. Service time = pend + disconnect + connect, with
//! pend fixed, disconnect exponential (cache misses, seeks: the random part) and connect
//! proportional to the pages moved. Per-device counters give FCX108 DEVICE-style figures:
//! I/O rate, pages per I/O, pend / disconnect / connect / queue times, utilization.

use crate::queue::Time;
use crate::rng::Rng;
use serde::Serialize;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DevType {
    Eckd,
    Edev,
    /// A SCSI LUN on a dedicated FCP subchannel driven by the guest itself (Linux native SCSI).
    Scsi,
}

/// Service-time components of a device (ns).
#[derive(Clone, Copy, Debug)]
pub struct Service {
    pub pend: f64,
    pub disconnect: f64,
    pub connect_per_page: f64,
}

/// One I/O request: pages moved and who waits for it (a virtual CPU, or nobody for writes).
#[derive(Clone, Copy, Debug)]
pub struct IoReq {
    pub pages: u32,
    pub read: bool,
    pub waiter: u32,
    pub queued: Time,
    /// The requester's tag (paging: the global page number of a page-in).
    pub tag: u32,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct DevStats {
    pub ios: u64,
    pub pages: u64,
    pub reads: u64,
    pub writes: u64,
    pub pend_ns: u64,
    pub disconnect_ns: u64,
    pub connect_ns: u64,
    pub queue_ns: u64,
    /// Integral of I/Os in service over time (busy server-ns).
    pub busy_ns: u64,
    pub max_queue: u64,
    /// I/Os that found no exposure free and waited in the queue.
    #[serde(default)]
    pub queued: u64,
    /// HyperPAV: I/Os that ran on an alias (the base exposures all busy at their start) and
    /// their service time (alias server-ns); `busy_ns - alias_ns` is the bases' own busy time.
    #[serde(default)]
    pub alias_ios: u64,
    #[serde(default)]
    pub alias_ns: u64,
}

impl DevStats {
    /// Counters since `p` (an earlier snapshot of the same device).
    pub fn since(&self, p: &DevStats) -> DevStats {
        DevStats {
            ios: self.ios - p.ios,
            pages: self.pages - p.pages,
            reads: self.reads - p.reads,
            writes: self.writes - p.writes,
            pend_ns: self.pend_ns - p.pend_ns,
            disconnect_ns: self.disconnect_ns - p.disconnect_ns,
            connect_ns: self.connect_ns - p.connect_ns,
            queue_ns: self.queue_ns - p.queue_ns,
            busy_ns: self.busy_ns - p.busy_ns,
            max_queue: self.max_queue,
            queued: self.queued - p.queued,
            alias_ios: self.alias_ios - p.alias_ios,
            alias_ns: self.alias_ns - p.alias_ns,
        }
    }
}

/// One device in one monitor interval: I/Os, pages and response time counted by I/O start,
/// busy as elapsed in the interval (`Device::elapsed`: an I/O in service across a sample is
/// busy in both intervals, each for its part).
#[derive(Clone, Debug, Serialize)]
pub struct DeviceInterval {
    pub name: String,
    pub io_rate: f64,
    pub pages_per_io: f64,
    pub response_ms: f64,
    pub util_pct: f64,
}

impl DeviceInterval {
    /// `elapsed`: the bases' and aliases' busy time elapsed in the interval.
    pub fn new(name: &str, servers: u32, d: &DevStats, elapsed: (u64, u64), len_ns: f64) -> Self {
        let n = d.ios.max(1) as f64;
        DeviceInterval {
            name: name.to_string(),
            io_rate: d.ios as f64 / (len_ns / 1e9),
            pages_per_io: d.pages as f64 / n,
            response_ms: (d.busy_ns + d.queue_ns) as f64 / n / 1e6,
            util_pct: 100.0 * elapsed.0.saturating_sub(elapsed.1) as f64
                / (len_ns * servers as f64),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Device {
    pub name: String,
    pub dtype: DevType,
    pub servers: u32,
    pub svc: Service,
    pub slots: u64,
    /// I/Os in service: (completion time, request, runs on a HyperPAV alias, number). Behind
    /// channel paths an I/O's completion is `Time::MAX` until its connect ends (channel.rs).
    pub active: Vec<(Time, IoReq, bool, u64)>,
    pub waiting: VecDeque<IoReq>,
    pub stats: DevStats,
    pub rng: Rng,
    /// Transfer time of each waiting request when its submitter gave one (NaN: connect time
    /// per page from `svc`); parallel to `waiting`.
    waiting_xfer: VecDeque<f64>,
    /// HyperPAV: the aliases it holds now (extra exposures; the pool is hyperpav.rs's), and
    /// those freed by completions and not yet returned to the pool.
    borrowed: u32,
    released: u32,
    /// Channel paths: the control unit whose path group this device is reached through
    /// (None: no channel model, the connect time is the device's own), the starts not yet
    /// handed to the channel subsystem, and the starts in the channel subsystem.
    pub chan: Option<u32>,
    pub chan_out: Vec<ChanStart>,
    /// Static and dynamic PAV: alias exposures bound to this base (pav.rs).
    pub bound: u32,
    chan_in: Vec<ChanStart>,
    seq: u64,
}

/// An I/O started on a device behind channel paths, before its connect ends.
#[derive(Clone, Copy, Debug)]
pub struct ChanStart {
    pub seq: u64,
    pub pages: u32,
    pub read: bool,
    pub started: Time,
    /// The device's fixed pend and its disconnect time (ns), which hold no path.
    pub pend: f64,
    pub disc: f64,
}

impl Device {
    pub fn new(
        name: String,
        dtype: DevType,
        servers: u32,
        svc: Service,
        slots: u64,
        rng: Rng,
    ) -> Self {
        Device {
            name,
            dtype,
            servers: servers.max(1),
            svc,
            slots,
            active: Vec::new(),
            waiting: VecDeque::new(),
            stats: DevStats::default(),
            rng,
            waiting_xfer: VecDeque::new(),
            borrowed: 0,
            released: 0,
            chan: None,
            chan_out: Vec::new(),
            bound: 0,
            chan_in: Vec::new(),
            seq: 0,
        }
    }

    /// Exposures serving I/O now: the base(s) and the aliases held.
    fn capacity(&self) -> usize {
        (self.servers + self.bound + self.borrowed) as usize
    }

    /// Static or dynamic PAV (pav.rs): an alias bound to this base (or moved to it) lets a
    /// waiting I/O start at once. Returns whether one started.
    pub fn bind_alias(&mut self, now: Time) -> bool {
        self.bound += 1;
        self.start_waiting(now)
    }

    /// HyperPAV: with an alias just taken, start the first waiting request on it.
    pub fn start_waiting(&mut self, now: Time) -> bool {
        if self.active.len() >= self.capacity() {
            return false;
        }
        let Some(r) = self.waiting.pop_front() else {
            return false;
        };
        let x = self.waiting_xfer.pop_front().unwrap_or(f64::NAN);
        self.start(now, r, x);
        true
    }

    /// HyperPAV: an alias lent by the pool starts the first waiting request on it. Returns the
    /// volume's next completion if a request started.
    pub fn lend_alias(&mut self, now: Time) -> Option<Time> {
        self.borrowed += 1;
        if self.start_waiting(now) {
            self.next_completion()
        } else {
            None
        }
    }

    /// HyperPAV: the aliases to give back to the pool now, those freed by completions and
    /// those held with nothing to start on.
    pub fn aliases_returned(&mut self) -> u32 {
        let mut n = std::mem::take(&mut self.released);
        while self.release_idle_alias() {
            n += 1;
        }
        n
    }

    /// Requests waiting for an exposure.
    pub fn queued(&self) -> usize {
        self.waiting.len()
    }

    /// HyperPAV: give back an alias the volume holds but has nothing to start on.
    fn release_idle_alias(&mut self) -> bool {
        if self.borrowed > 0 && self.waiting.is_empty() && self.active.len() < self.capacity() {
            self.borrowed -= 1;
            true
        } else {
            false
        }
    }

    /// Queue a request at `now`. Returns the device's next completion time if it changed.
    pub fn submit(&mut self, now: Time, r: IoReq) -> Option<Time> {
        self.submit_xfer(now, r, f64::NAN)
    }

    /// Queue a request whose transfer (connect) time the submitter knows, in ns (writes and
    /// write-same extents of minidisk I/O run at their own rates); NaN: from `svc`.
    pub fn submit_xfer(&mut self, now: Time, r: IoReq, xfer_ns: f64) -> Option<Time> {
        if self.active.len() < self.capacity() {
            self.start(now, r, xfer_ns);
            self.next_completion()
        } else {
            self.waiting.push_back(r);
            self.waiting_xfer.push_back(xfer_ns);
            self.stats.queued += 1;
            self.stats.max_queue = self.stats.max_queue.max(self.waiting.len() as u64);
            None
        }
    }

    fn start(&mut self, now: Time, r: IoReq, xfer_ns: f64) {
        let pend = self.svc.pend;
        let disc = if self.svc.disconnect > 0.0 {
            self.rng.exp(self.svc.disconnect)
        } else {
            0.0
        };
        if self.chan.is_some() {
            self.start_on_channel(now, r, pend, disc);
            return;
        }
        let conn = if xfer_ns.is_nan() {
            self.svc.connect_per_page * r.pages as f64
        } else {
            xfer_ns
        };
        let total = crate::units::round_ns(pend + disc + conn).max(1);
        let on_alias = self.base_busy();
        let s = &mut self.stats;
        s.ios += 1;
        s.pages += r.pages as u64;
        if r.read {
            s.reads += 1;
        } else {
            s.writes += 1;
        }
        s.pend_ns += pend as u64;
        s.disconnect_ns += disc as u64;
        s.connect_ns += conn as u64;
        s.queue_ns += now - r.queued;
        s.busy_ns += total;
        if on_alias {
            s.alias_ios += 1;
            s.alias_ns += total;
        }
        self.active.push((now + total, r, on_alias, 0));
    }

    /// With every base exposure busy, the I/O runs on an alias (HyperPAV binds one to it).
    fn base_busy(&self) -> bool {
        self.active.iter().filter(|a| !a.2).count() >= self.servers as usize
    }

    /// Start behind channel paths: the completion is known when the connect ends
    /// (`connect_done`); the times are counted then.
    fn start_on_channel(&mut self, now: Time, r: IoReq, pend: f64, disc: f64) {
        let s = &mut self.stats;
        s.ios += 1;
        s.pages += r.pages as u64;
        if r.read {
            s.reads += 1;
        } else {
            s.writes += 1;
        }
        s.queue_ns += now - r.queued;
        let on_alias = self.base_busy();
        self.seq += 1;
        self.active.push((Time::MAX, r, on_alias, self.seq));
        let c = ChanStart {
            seq: self.seq,
            pages: r.pages,
            read: r.read,
            started: now,
            pend,
            disc,
        };
        self.chan_out.push(c);
        self.chan_in.push(c);
    }

    /// The connect of I/O `seq` ended at `now`: it completes after `extra_pend` (delays that
    /// hold no path, counted as pend), `extra_conn` (counted as connect), its own pend and its
    /// disconnect. `wait` of the time since its start was spent waiting for a path.
    pub fn connect_done(
        &mut self,
        now: Time,
        seq: u64,
        wait: u64,
        extra_pend: f64,
        extra_conn: f64,
    ) {
        let Some(i) = self.chan_in.iter().position(|c| c.seq == seq) else {
            return;
        };
        let c = self.chan_in.swap_remove(i);
        let tail = crate::units::round_ns(extra_pend + extra_conn + c.pend + c.disc);
        let end = now + tail;
        let total = end - c.started;
        let s = &mut self.stats;
        s.pend_ns += wait + (c.pend + extra_pend) as u64;
        s.disconnect_ns += c.disc as u64;
        s.connect_ns += (now - c.started - wait) + extra_conn as u64;
        s.busy_ns += total;
        if let Some(a) = self.active.iter_mut().find(|a| a.3 == seq) {
            a.0 = end;
            if a.2 {
                self.stats.alias_ns += total;
            }
        }
    }

    /// The earliest known completion (I/Os still in connect on a channel path have none yet).
    pub fn next_completion(&self) -> Option<Time> {
        self.active
            .iter()
            .map(|a| a.0)
            .filter(|&t| t != Time::MAX)
            .min()
    }

    /// Complete the I/O due at `now`; start the next waiting one. Returns the finished request.
    pub fn complete(&mut self, now: Time) -> Option<IoReq> {
        let i = self
            .active
            .iter()
            .enumerate()
            .min_by_key(|(_, a)| a.0)
            .map(|(i, _)| i)?;
        if self.active[i].0 == Time::MAX {
            return None;
        }
        let (_, r, on_alias, _) = self.active.swap_remove(i);
        // HyperPAV binds an alias to one I/O: a completion while aliases are held frees one,
        // and the pool (not this volume) decides who gets it next. The model counts exposures,
        // so when the I/O that ends ran on a base, an I/O still on an alias takes over the base
        // for the rest of its service (its remaining time is the base's, not the alias's).
        if self.borrowed > 0 {
            self.borrowed -= 1;
            self.released += 1;
            if !on_alias {
                if let Some(a) = self.active.iter_mut().filter(|a| a.2).max_by_key(|a| a.0) {
                    a.2 = false;
                    if a.0 != Time::MAX {
                        self.stats.alias_ns -= a.0.saturating_sub(now).min(self.stats.alias_ns);
                    } else if let Some(c) = self.chan_in.iter().find(|c| c.seq == a.3) {
                        // An I/O still in connect counts its service when the connect ends,
                        // all of it as the base's now: its time on the alias so far is
                        // booked here (without it the base read busy above 100 %).
                        self.stats.alias_ns += now - c.started;
                    }
                }
            }
        }
        if self.active.len() < self.capacity() {
            if let Some(n) = self.waiting.pop_front() {
                let x = self.waiting_xfer.pop_front().unwrap_or(f64::NAN);
                self.start(now, n, x);
            }
        }
        Some(r)
    }
}

/// Per-device figures for the run summary (`devices` key).
#[derive(Clone, Debug, Serialize)]
pub struct DeviceSummary {
    pub name: String,
    #[serde(rename = "type")]
    pub dtype: DevType,
    pub servers: u32,
    pub io_rate: f64,
    pub pages_per_io: f64,
    pub pend_ms: f64,
    pub disconnect_ms: f64,
    pub connect_ms: f64,
    pub service_ms: f64,
    pub queue_ms: f64,
    pub response_ms: f64,
    /// Percent of time busy per base exposure (100 % = every base always busy).
    pub util_pct: f64,
    /// HyperPAV: mean number of aliases busy with this volume's I/O.
    pub aliases_in_use: f64,
    pub stats: DevStats,
}

impl Device {
    /// Busy and alias time elapsed up to `now` (ns): an I/O's service is booked whole when its
    /// completion is known, so the part of the I/Os in service that lies after `now` is taken
    /// off (the run summary takes off what lies after the run's end this way). Behind channel
    /// paths an I/O in connect has booked nothing yet (its completion is known when its connect
    /// ends, `connect_done`): its service from its start up to `now` is added, as the alias's
    /// if it runs on one (an I/O in connect that took over a base had its alias time so far
    /// booked then, `complete`). The monitor's samples carry these beside the booked sums: time
    /// busy per interval from these (never above the interval per exposure, never backwards),
    /// service per I/O from the booked ones (counted, as SSCHs are, by I/O start).
    pub fn elapsed(&self, now: Time) -> (u64, u64) {
        let (mut busy, mut alias) = (self.stats.busy_ns, self.stats.alias_ns);
        for &(end, _, on_alias, seq) in &self.active {
            if end == Time::MAX {
                // Behind a channel path, in connect: the service so far, booked at its end.
                let Some(c) = self.chan_in.iter().find(|c| c.seq == seq) else {
                    continue;
                };
                let so_far = now.saturating_sub(c.started);
                busy += so_far;
                if on_alias {
                    alias += so_far;
                }
                continue;
            }
            let ahead = end.saturating_sub(now);
            busy = busy.saturating_sub(ahead);
            if on_alias {
                alias = alias.saturating_sub(ahead);
            }
        }
        (busy, alias)
    }

    pub fn summary(&self, dur_ns: f64) -> DeviceSummary {
        let s = &self.stats;
        // Service is counted when an I/O starts: the part of the I/Os in service that lies
        // after the end of the run is not busy time of the run (`elapsed`). The bases' own busy
        // time: I/Os on HyperPAV aliases are `aliases_in_use`.
        let (busy, alias) = self.elapsed(dur_ns as Time);
        let n = s.ios.max(1) as f64;
        let ms = |x: u64| x as f64 / n / 1e6;
        DeviceSummary {
            name: self.name.clone(),
            dtype: self.dtype,
            servers: self.servers,
            io_rate: s.ios as f64 / (dur_ns / 1e9),
            pages_per_io: s.pages as f64 / n,
            pend_ms: ms(s.pend_ns),
            disconnect_ms: ms(s.disconnect_ns),
            connect_ms: ms(s.connect_ns),
            service_ms: ms(s.busy_ns),
            queue_ms: ms(s.queue_ns),
            response_ms: ms(s.busy_ns + s.queue_ns),
            util_pct: 100.0 * busy.saturating_sub(alias) as f64 / (dur_ns * self.servers as f64),
            aliases_in_use: alias as f64 / dur_ns,
            stats: s.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drive one device with Poisson arrivals (a tiny event loop of its own).
    fn run(servers: u32, svc: Service, lambda_per_ms: f64, n: u64) -> f64 {
        let mut d = Device::new(
            "t".into(),
            DevType::Eckd,
            servers,
            svc,
            0,
            Rng::stream(3, 9),
        );
        let mut arr = Rng::stream(3, 10);
        let mut t_arr: Time = 0;
        let mut resp = 0u128;
        let mut done = 0u64;
        let mut next_arr = arr.exp(1e6 / lambda_per_ms) as Time;
        while done < n {
            let nc = d.next_completion().unwrap_or(Time::MAX);
            if next_arr <= nc {
                t_arr = next_arr;
                d.submit(
                    t_arr,
                    IoReq {
                        pages: 1,
                        read: true,
                        waiter: 0,
                        queued: t_arr,
                        tag: 0,
                    },
                );
                next_arr = t_arr + arr.exp(1e6 / lambda_per_ms) as Time;
            } else {
                let r = d.complete(nc).unwrap();
                resp += (nc - r.queued) as u128;
                done += 1;
            }
        }
        let _ = t_arr;
        resp as f64 / n as f64 / 1e6
    }

    #[test]
    fn mm1_response_time() {
        // S = 0.5 ms exponential, rho = 0.7: R = S / (1 - rho).
        let svc = Service {
            pend: 0.0,
            disconnect: 0.5e6,
            connect_per_page: 0.0,
        };
        let r = run(1, svc, 1.4, 2_000_000);
        let want = 0.5 / (1.0 - 0.7);
        assert!((r / want - 1.0).abs() < 0.02, "M/M/1 R {r} ms vs {want}");
    }

    #[test]
    fn md1_response_time() {
        // Fixed S = 0.5 ms, rho = 0.6: R = S + rho S / (2 (1 - rho)).
        let svc = Service {
            pend: 0.2e6,
            disconnect: 0.0,
            connect_per_page: 0.3e6,
        };
        let r = run(1, svc, 1.2, 2_000_000);
        let want = 0.5 + 0.6 * 0.5 / (2.0 * 0.4);
        assert!((r / want - 1.0).abs() < 0.02, "M/D/1 R {r} ms vs {want}");
    }

    /// Erlang C: probability that an arrival waits in M/M/k with offered load `a` = lambda S.
    fn erlang_c(k: u32, a: f64) -> f64 {
        let mut term = 1.0;
        let mut sum = 1.0;
        for i in 1..k {
            term *= a / i as f64;
            sum += term;
        }
        let top = term * a / k as f64 * k as f64 / (k as f64 - a);
        top / (sum + top)
    }

    #[test]
    fn mmk_erlang_c() {
        // M/M/k with k exposures (a base and k - 1 HyperPAV aliases serving one queue):
        // W = C(k, a) S / (k - a), R = S + W. k = 2 has the closed form 2 rho^2 / (1 + rho).
        assert!((erlang_c(2, 1.6) - 2.0 * 0.64 / 1.8).abs() < 1e-12);
        for (k, s_ms, lambda) in [(2u32, 1.0, 1.6), (4, 1.0, 3.4), (8, 0.5, 14.0)] {
            let svc = Service {
                pend: 0.0,
                disconnect: s_ms * 1e6,
                connect_per_page: 0.0,
            };
            let r = run(k, svc, lambda, 2_000_000);
            let a = lambda * s_ms;
            let want = s_ms + erlang_c(k, a) * s_ms / (k as f64 - a);
            assert!((r / want - 1.0).abs() < 0.02, "M/M/{k} R {r} ms vs {want}");
        }
    }

    fn dev(servers: u32, pend: f64, connect_per_page: f64) -> Device {
        let svc = Service {
            pend,
            disconnect: 0.0,
            connect_per_page,
        };
        Device::new(
            "t".into(),
            DevType::Eckd,
            servers,
            svc,
            0,
            Rng::stream(1, 1),
        )
    }

    fn req(pages: u32, read: bool, queued: Time, tag: u32) -> IoReq {
        IoReq {
            pages,
            read,
            waiter: tag,
            queued,
            tag,
        }
    }

    /// The busy time elapsed at a sample: an I/O in service counts only its part before the
    /// sample, so it never runs ahead of (exposures x elapsed) nor back; the booked sum (for
    /// service per I/O) is the whole I/O from its start.
    #[test]
    fn elapsed_busy_time_counts_the_service_up_to_the_sample() {
        let mut d = dev(1, 100.0, 0.0); // 100 ns per I/O
        assert_eq!(d.submit(0, req(1, true, 0, 1)), Some(100));
        assert_eq!(d.submit(0, req(1, true, 0, 2)), None); // queued behind it
        assert_eq!(d.stats.busy_ns, 100); // booked whole at the start
        let at = |d: &Device, t: Time| d.elapsed(t).0;
        assert_eq!((at(&d, 0), at(&d, 40), at(&d, 100)), (0, 40, 100));
        assert_eq!(d.complete(100).unwrap().tag, 1); // 2 starts at 100, ends at 200
        assert_eq!(d.stats.busy_ns, 200);
        let mut last = 0;
        for t in (100..=200).step_by(10) {
            let b = at(&d, t);
            assert!(b >= last && b <= t, "{t}: {b}");
            last = b;
        }
        assert_eq!((at(&d, 150), d.elapsed(150).1), (150, 0));
    }

    /// One exposure: FIFO, service = pend + connect per page x pages; Little's law on the queue.
    #[test]
    fn one_exposure_fifo_service_and_littles_law() {
        let mut d = dev(1, 100.0, 50.0);
        // Service: 100 + 50 x pages: 150, 200, 250 for 1, 2, 3 pages.
        assert_eq!(d.submit(0, req(1, true, 0, 1)), Some(150));
        assert_eq!(d.submit(0, req(2, false, 0, 2)), None);
        assert_eq!(d.submit(0, req(3, true, 0, 3)), None);
        assert_eq!((d.queued(), d.stats.queued, d.stats.max_queue), (2, 2, 2));
        assert_eq!(d.complete(150).unwrap().tag, 1);
        // The second starts at 150: done at 350; the third at 350: done at 600.
        assert_eq!(d.next_completion(), Some(350));
        assert_eq!(d.complete(350).unwrap().tag, 2);
        assert_eq!(d.next_completion(), Some(600));
        assert_eq!(d.complete(600).unwrap().tag, 3);
        assert!(d.complete(700).is_none());
        let s = &d.stats;
        assert_eq!((s.ios, s.pages, s.reads, s.writes), (3, 6, 2, 1));
        assert_eq!((s.pend_ns, s.connect_ns, s.disconnect_ns), (300, 300, 0));
        assert_eq!(s.busy_ns, 600); // 150 + 200 + 250
                                    // Waits: 0 + 150 + 350 = 500. Little: the queue held 2 over [0, 150) and 1 over
                                    // [150, 350): 2 x 150 + 1 x 200 = 500 request-ns, its mean over 600 ns is 500 / 600 =
                                    // the arrival rate (3 / 600) x the mean wait (500 / 3).
        assert_eq!(s.queue_ns, 500);
        let sum = d.summary(600.0);
        assert!((sum.util_pct - 100.0).abs() < 1e-9); // busy 600 of 600
        assert!((sum.queue_ms - 500.0 / 3.0 / 1e6).abs() < 1e-15);
        assert!((sum.service_ms - 200.0 / 1e6).abs() < 1e-15);
        assert!((sum.response_ms - 1100.0 / 3.0 / 1e6).abs() < 1e-15);
        assert!((sum.pages_per_io - 2.0).abs() < 1e-15);
        // 3 I/Os in 600 ns: 5e6 per s.
        assert!((sum.io_rate - 5e6).abs() < 1e-6);
        // Two more: one starts, one waits; the longest queue is still the earlier 2.
        d.submit(700, req(1, true, 700, 4));
        d.submit(700, req(1, true, 700, 5));
        assert_eq!((d.queued(), d.stats.max_queue), (1, 2));
    }

    /// A transfer time given by the submitter replaces the per-page connect; a zero service
    /// takes 1 ns.
    #[test]
    fn submitted_transfer_time_and_minimum_service() {
        let mut d = dev(1, 100.0, 50.0);
        // 100 + 1000 (not 100 + 4 x 50).
        assert_eq!(d.submit_xfer(10, req(4, true, 10, 0), 1000.0), Some(1110));
        assert_eq!(d.stats.connect_ns, 1000);
        let mut z = dev(1, 0.0, 0.0);
        assert_eq!(z.submit(5, req(1, true, 5, 0)), Some(6));
        assert_eq!(z.stats.busy_ns, 1);
    }

    /// HyperPAV behind a channel path: an I/O on an alias that takes over the base while still
    /// in connect keeps its time on the alias as alias time, so the base is never busier than
    /// the elapsed time (found by test_plausibility_fuzz: an ESCON path and a one-alias pool
    /// gave a volume 200 % busy per exposure and no alias time).
    #[test]
    fn alias_io_in_connect_taking_over_the_base_keeps_its_alias_time() {
        let mut d = dev(1, 0.0, 0.0);
        d.chan = Some(0);
        assert_eq!(d.submit(0, req(1, true, 0, 1)), None); // in connect: no completion yet
        assert_eq!(d.submit(0, req(1, true, 0, 2)), None); // waits for an exposure
        assert_eq!(d.lend_alias(10), None); // 2 starts on the alias at 10, also in connect
        let (s1, s2) = (d.chan_out[0].seq, d.chan_out[1].seq);
        // A sample at 50, both in connect: 1 busy 50 on the base, 2 busy 40 on the alias.
        assert_eq!(d.elapsed(50), (90, 40));
        d.connect_done(100, s1, 0, 0.0, 0.0); // 1's connect ends at 100: it completes then
        assert_eq!(d.next_completion(), Some(100));
        assert_eq!(d.complete(100).unwrap().tag, 1);
        // 2 takes over the base at 100, its 90 ns on the alias booked as alias time.
        assert_eq!(d.stats.alias_ns, 90);
        // A sample at 120: the base busy all 120 ns (1 to 100, 2 from 100), the alias 90.
        assert_eq!(d.elapsed(120), (210, 90));
        d.connect_done(150, s2, 0, 0.0, 0.0);
        assert_eq!(d.complete(150).unwrap().tag, 2);
        // Base: 1 over 0..100 and 2 over 100..150: busy 240 - 90 = 150 of 150 ns.
        assert_eq!(d.stats.busy_ns - d.stats.alias_ns, 150);
        let s = d.summary(150.0);
        assert!(s.util_pct <= 100.0 + 1e-9, "{}", s.util_pct);
        assert!((s.aliases_in_use - 90.0 / 150.0).abs() < 1e-12);
    }

    /// Two exposures serve two I/Os at once; the third waits for the first to end.
    #[test]
    fn two_exposures_in_parallel() {
        let mut d = dev(2, 100.0, 0.0);
        assert_eq!(d.submit(0, req(1, true, 0, 1)), Some(100));
        assert_eq!(d.submit(0, req(1, true, 0, 2)), Some(100));
        assert_eq!(d.submit(0, req(1, true, 0, 3)), None);
        assert_eq!(d.stats.queued, 1);
        d.complete(100);
        assert_eq!(d.next_completion(), Some(100));
        d.complete(100);
        assert_eq!(d.next_completion(), Some(200));
        d.complete(200);
        // Busy 300 server-ns over 200 ns x 2 exposures: 75 %; the third waited 100.
        let sum = d.summary(200.0);
        assert!((sum.util_pct - 75.0).abs() < 1e-9);
        assert_eq!(d.stats.queue_ns, 100);
    }

    /// Utilization counts only the service inside the run: an I/O still in service at the end
    /// has its remaining time taken off.
    #[test]
    fn utilization_excludes_service_after_the_end() {
        let mut d = dev(1, 1000.0, 0.0);
        d.submit(0, req(1, true, 0, 0));
        // At 400 ns: busy 1000 counted at the start, 600 of it after 400: 400 / 400.
        assert!((d.summary(400.0).util_pct - 100.0).abs() < 1e-9);
        d.complete(1000);
        // At 2000 ns: 1000 / 2000.
        assert!((d.summary(2000.0).util_pct - 50.0).abs() < 1e-9);
    }

    /// Interval figures from counter differences.
    #[test]
    fn interval_from_snapshots() {
        let mut d = dev(1, 100.0, 50.0);
        d.submit(0, req(2, true, 0, 0)); // 200
        d.complete(200);
        let (snap, e0) = (d.stats.clone(), d.elapsed(1000));
        d.submit(1000, req(2, true, 1000, 0)); // 1000-1200
        d.submit(1000, req(4, true, 1000, 0)); // waits 200, then 300: done at 1500
        d.complete(1200);
        d.complete(1500);
        let s = d.stats.since(&snap);
        assert_eq!((s.ios, s.pages, s.busy_ns, s.queue_ns), (2, 6, 500, 200));
        let e1 = d.elapsed(2000);
        // Over a 1000 ns interval: 2 I/Os = 2e6 per s, 3 pages each, response (500 + 200) / 2
        // = 350 ns, busy 500 of 1000 = 50 %.
        let iv = DeviceInterval::new("t", 1, &s, (e1.0 - e0.0, e1.1 - e0.1), 1000.0);
        assert!((iv.io_rate - 2e6).abs() < 1e-6);
        assert!((iv.pages_per_io - 3.0).abs() < 1e-12);
        assert!((iv.response_ms - 350.0 / 1e6).abs() < 1e-15);
        assert!((iv.util_pct - 50.0).abs() < 1e-9);
    }

    /// An I/O in service across a sample is busy in both intervals, each for its part, while
    /// its service per I/O counts in the interval it started in.
    #[test]
    fn interval_busy_splits_an_io_across_the_sample() {
        let mut d = dev(1, 100.0, 50.0);
        let e0 = d.elapsed(0);
        d.submit(800, req(4, true, 800, 0)); // 300 ns: 800-1100
        let (s0, e1) = (d.stats.clone(), d.elapsed(1000));
        let a = DeviceInterval::new("t", 1, &s0, (e1.0 - e0.0, e1.1 - e0.1), 1000.0);
        d.complete(1100);
        let e2 = d.elapsed(2000);
        let s = d.stats.since(&s0);
        let b = DeviceInterval::new("t", 1, &s, (e2.0 - e1.0, e2.1 - e1.1), 1000.0);
        assert!((a.util_pct - 20.0).abs() < 1e-9, "{}", a.util_pct);
        assert!((b.util_pct - 10.0).abs() < 1e-9, "{}", b.util_pct);
        assert!((a.response_ms - 300.0 / 1e6).abs() < 1e-15);
        assert_eq!(s.ios, 0);
    }

    /// Static or dynamic PAV: an alias bound to the base is one more exposure; the first
    /// waiting I/O starts on it at once.
    #[test]
    fn bound_pav_alias_starts_the_first_waiting() {
        let mut d = dev(1, 100.0, 0.0);
        d.submit(0, req(1, true, 0, 1));
        d.submit(0, req(1, true, 0, 2));
        d.submit(0, req(1, true, 0, 3));
        // At 50: the alias takes request 2 (done at 150); 3 still waits.
        assert!(d.bind_alias(50));
        assert_eq!(d.queued(), 1);
        assert_eq!(d.active.last().unwrap().1.tag, 2);
        assert_eq!(d.stats.queue_ns, 50);
        // With nothing waiting, binding starts nothing.
        let mut e = dev(1, 100.0, 0.0);
        assert!(!e.bind_alias(0));
        // Two exposures now: after 1 ends at 100, 3 starts (done at 200).
        assert_eq!(d.complete(100).unwrap().tag, 1);
        assert_eq!(d.next_completion(), Some(150));
        assert_eq!(d.complete(150).unwrap().tag, 2);
        assert_eq!(d.complete(200).unwrap().tag, 3);
        // Waits: 2 for 50, 3 for 100.
        assert_eq!(d.stats.queue_ns, 150);
    }

    /// Dynamic PAV moves a bound alias away while its I/O runs (pav.rs: `bound -= 1`): the
    /// volume is over its exposures until an I/O ends; an alias bound again then brings it
    /// back to its exposures, with none free: nothing more starts.
    #[test]
    fn rebound_alias_on_a_full_volume_starts_nothing() {
        let mut d = dev(1, 100.0, 0.0);
        for tag in 1..=3 {
            d.submit(0, req(1, true, 0, tag));
        }
        assert!(d.bind_alias(0)); // 1 and 2 in service, 3 waits
        d.bound -= 1; // the alias moves away: 2 in service on 1 exposure
        assert!(!d.bind_alias(10)); // 2 exposures, 2 busy
        assert_eq!((d.active.len(), d.queued()), (2, 1));
        // 1 and 2 end at 100: 3 starts on the freed exposure.
        d.complete(100);
        d.complete(100);
        assert_eq!(d.next_completion(), Some(200));
    }

    /// HyperPAV: a lent alias serves a waiting I/O; its service is alias time until the base's
    /// I/O ends, then it holds the base; the alias goes back to the pool.
    #[test]
    fn hyperpav_alias_time_and_return() {
        let mut d = dev(1, 100.0, 0.0);
        assert_eq!(d.submit(0, req(1, true, 0, 1)), Some(100));
        assert_eq!(d.submit(0, req(1, true, 0, 2)), None);
        // At 10 the alias starts 2 (done at 110); the volume's next completion is still 100.
        assert_eq!(d.lend_alias(10), Some(100));
        assert_eq!((d.stats.alias_ios, d.stats.alias_ns), (1, 100));
        // 1 ends at 100: the alias is freed, 2 takes over the base for its last 10 ns.
        assert_eq!(d.complete(100).unwrap().tag, 1);
        assert_eq!(d.stats.alias_ns, 90); // 100 - (110 - 100)
        assert_eq!(d.aliases_returned(), 1);
        assert_eq!(d.aliases_returned(), 0);
        assert_eq!(d.complete(110).unwrap().tag, 2);
        // Over 110 ns: the base busy 200 - 90 = 110 (100 %), the alias 90 / 110.
        let s = d.summary(110.0);
        assert!((s.util_pct - 100.0).abs() < 1e-9);
        assert!((s.aliases_in_use - 90.0 / 110.0).abs() < 1e-12);
        // An alias lent with nothing waiting is returned unused.
        assert_eq!(d.lend_alias(200), None);
        assert_eq!(d.aliases_returned(), 1);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

        /// Random arrivals on k exposures: every request completes exactly once, starts in
        /// arrival order, busy time <= k x the span from the first start to the last end, and
        /// the queue's time integral equals the sum of the waits (Little).
        #[test]
        fn requests_complete_once_in_order(
            k in 1u32..4,
            arrivals in proptest::collection::vec((0u64..300, 1u32..5), 1..80),
        ) {
            let mut d = dev(k, 40.0, 30.0);
            let mut t = 0;
            let mut done = vec![0u32; arrivals.len()];
            let mut starts: Vec<u32> = Vec::new();
            let mut area: u128 = 0;
            let mut prev = 0;
            let mut last = 0;
            let mut first = u64::MAX;
            let mut i = 0;
            let svc: u64 = arrivals.iter().map(|a| 40 + 30 * a.1 as u64).sum();
            loop {
                let next_arr = arrivals.get(i).map(|a| t + a.0);
                let nc = d.next_completion();
                let now = match (next_arr, nc) {
                    (None, None) => break,
                    (Some(a), Some(c)) => a.min(c),
                    (Some(a), None) => a,
                    (None, Some(c)) => c,
                };
                area += d.queued() as u128 * (now - prev) as u128;
                prev = now;
                let before = d.stats.ios;
                if nc == Some(now) {
                    let r = d.complete(now).unwrap();
                    done[r.tag as usize] += 1;
                    last = now;
                } else {
                    t = now;
                    first = first.min(now);
                    d.submit(now, req(arrivals[i].1, true, now, i as u32));
                    i += 1;
                }
                // A start pushes its I/O last on the active list.
                if d.stats.ios > before {
                    starts.push(d.active.last().unwrap().1.tag);
                }
                proptest::prop_assert!(d.active.len() <= k as usize);
            }
            proptest::prop_assert!(done.iter().all(|&n| n == 1));
            proptest::prop_assert_eq!(d.stats.ios, arrivals.len() as u64);
            proptest::prop_assert_eq!(d.stats.busy_ns, svc);
            proptest::prop_assert!(d.stats.busy_ns <= k as u64 * (last - first));
            proptest::prop_assert_eq!(area, d.stats.queue_ns as u128);
            // FIFO: started in arrival order.
            proptest::prop_assert_eq!(starts, (0..arrivals.len() as u32).collect::<Vec<_>>());
        }
    }
}
