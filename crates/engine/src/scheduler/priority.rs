//! Shares, limits and dispatch priority: normalized shares, LIMITHARD and LIMITSOFT
//! accounting, the deadline of a minor time slice (`Sched::DeadlineNs` and 6.4's virtual time
//! tags), and the dispatch vectors.

use super::{least_loaded, normalized, to_time, Scheduler, FAR};
use crate::config::{Limit, ShareKind};
use crate::guest::{User, VState, Vcpu};
use crate::level::{LimitHard, Sched};
use crate::queue::Time;
use crate::units::NONE;
use std::cmp::Reverse;

/// Shares, limits and dispatch priority.
impl Scheduler {
    /// Normalized minimum and maximum shares over all logged-on users (start and SET SHARE).
    pub(crate) fn normalize_shares(&self, users: &mut [User]) {
        let abs: f64 = users
            .iter()
            .filter(|u| u.share.min.kind == ShareKind::Absolute)
            .map(|u| u.share.min.value / 100.0)
            .sum();
        let rel: f64 = users
            .iter()
            .filter(|u| u.share.min.kind == ShareKind::Relative)
            .map(|u| u.share.min.value)
            .sum();
        let cap = self.abs_cap;
        for u in users {
            u.ns_all = normalized(&u.share.min, abs, rel, cap, true).max(1e-9);
            u.max_all = match (u.share.max, u.share.limit) {
                (Some(m), Limit::Soft | Limit::Hard) => Some(normalized(&m, abs, rel, cap, false)),
                _ => None,
            };
        }
    }

    /// User `i` joins the dispatch and eligible lists' share sums.
    pub(crate) fn list_sums_add(&mut self, i: usize, user: &User) {
        let s = &user.share.min;
        let c = match s.kind {
            ShareKind::Relative => (s.value, 0.0),
            ShareKind::Absolute => (0.0, s.value / 100.0),
        };
        self.list_rel += c.0;
        self.list_abs += c.1;
        self.users[i].in_sums = c;
    }

    pub(crate) fn list_sums_remove(&mut self, i: usize) {
        let c = std::mem::take(&mut self.users[i].in_sums);
        self.list_rel -= c.0;
        self.list_abs -= c.1;
        if self.list_rel < 1e-9 {
            self.list_rel = 0.0;
        }
        if self.list_abs < 1e-12 {
            self.list_abs = 0.0;
        }
    }

    /// z/VM <= 6.3 normalized share of user `u`: over the users on the dispatch and eligible
    /// lists.
    #[inline]
    fn ns_lists(&self, u: usize, us: &User) -> f64 {
        let (a, r) = (self.list_abs, self.list_rel);
        let mut ns = normalized(&us.share.min, a, r, self.abs_cap, true);
        if let (Some(m), Limit::Soft | Limit::Hard) = (us.share.max, us.share.limit) {
            ns = ns.min(normalized(&m, a, r, self.abs_cap, false));
        }
        // A CPU pool member: at most its share of the pool's limit (sim/pools.rs
        // `pool_ns_refresh`), as a LIMITHARD user is held to its maximum share.
        ns.min(self.users[u].pool_ns)
    }

    /// A user's LIMITHARD (or, in 6.4, LIMITSOFT) maximum in processors (infinite when none).
    #[inline]
    pub(crate) fn limit_rate(&self, us: &User) -> f64 {
        match (us.share.max, us.share.limit) {
            (Some(m), Limit::Hard | Limit::Soft) => {
                let f = match self.sched {
                    Sched::DeadlineNs => {
                        normalized(&m, self.list_abs, self.list_rel, self.abs_cap, false)
                    }
                    Sched::EntitlementExcess => us.max_all.unwrap_or(1.0),
                };
                (f * self.n_cpu).max(1e-6)
            }
            _ => f64::INFINITY,
        }
    }

    /// Adjusted TOD at `now`: real time less the system time (per processor, over
    /// `processors`) spent so far.
    #[inline(always)]
    pub(crate) fn atod(&self, now: Time, processors: usize) -> Time {
        now.saturating_sub(self.sys_total / processors as u64)
    }

    /// Dispatch priority of `vc` (of user `u`) for its next minor time slice. In 6.4 a virtual
    /// CPU that starts a transaction starts at the list's virtual time (nothing banked while
    /// idle); one coming off the limit list wanted the processor all along and keeps at most
    /// one slice of lag. `release_base`: the instant a CPU pool releasing it held it (0: none).
    #[inline]
    pub(crate) fn priority(&mut self, vc: &mut Vcpu, us: &User, at: PriorityAt) -> Time {
        let u = vc.user as usize;
        let f = self.iabias(vc.tx_slices + 1);
        let nv = us.vcpus.len() as f64;
        match self.sched {
            Sched::DeadlineNs => {
                let ns_v = (self.ns_lists(u, us) / nv).max(1e-12);
                let mut off = self.slice as f64 / (ns_v * self.n_cpu) * f;
                let delay = std::mem::take(&mut self.users[u].el_delay) as f64;
                off -= off.min(delay);
                // A CPU pool releasing it: the deadline counts from when the pool held it.
                let atod = self.atod(at.now, at.processors);
                let base = match at.release_base {
                    0 => atod,
                    b => b.min(atod),
                };
                base.saturating_add(to_time(off))
            }
            Sched::EntitlementExcess => {
                // LIMITSOFT over its maximum: runs only when nobody else wants the processor.
                let bg = if us.share.limit == Limit::Soft && self.users[u].lim_until > at.now {
                    FAR
                } else {
                    0
                };
                self.debug_rates_fresh(u);
                let one = self.users[u].slice_v;
                if vc.tx_slices == 0 {
                    vc.vtag = vc.vtag.max(self.vtime);
                } else if at.from_limit {
                    vc.vtag = vc.vtag.max(self.vtime.saturating_sub(2 * one));
                }
                vc.start = vc.vtag;
                vc.vtag
                    .saturating_add(to_time(one as f64 * f))
                    .saturating_add(bg)
            }
        }
    }

    /// Queue `v` on dispatch vector `dv` with deadline `d`, or hand it straight to the idle
    /// processor that `make_ready` found (the most urgent ready virtual CPU). Returns the
    /// sequence number of its entry.
    #[inline(always)]
    pub(crate) fn enqueue(&mut self, v: u32, dv: usize, d: Time) -> u64 {
        let seq = self.next_seq();
        if self.direct_ok && d < FAR {
            self.direct = v;
        } else {
            self.dvs[dv].push(Reverse((d, seq, v)));
        }
        seq
    }

    /// End of a run of `vc` (of user `u`) that used `used` ns: advance its virtual deadline
    /// and charge the CPU against a LIMITHARD (6.4: LIMITSOFT) maximum.
    #[inline]
    pub(crate) fn end_run(&mut self, vc: &mut Vcpu, us: &User, used: Time, now: Time) {
        let u = vc.user as usize;
        if self.sched == Sched::EntitlementExcess {
            self.debug_rates_fresh(u);
            vc.vtag = vc
                .vtag
                .saturating_add(to_time(used as f64 * self.users[u].inv_rate_v));
        }
        let method = match (us.share.limit, self.sched) {
            (Limit::Hard, _) => self.limithard,
            // 6.4 tracks a LIMITSOFT user's consumption the same way (over it: background).
            (Limit::Soft, Sched::EntitlementExcess) => LimitHard::Consumption,
            _ => return,
        };
        let r = self.limit_rate(us);
        if !r.is_finite() {
            return;
        }
        let nv = us.vcpus.len() as f64;
        match method {
            LimitHard::Consumption => {
                let depth = self.bucket_slices * self.slice as f64 * nv;
                let s = &mut self.users[u];
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
                vc.limit_until = now + to_time(used as f64 / (r / nv));
            }
            LimitHard::Deadline240 => {
                vc.limit_until = vc.run_start + to_time(used as f64 / (r / nv));
            }
        }
    }

    /// Until when a LIMITHARD maximum holds `vc` (of user `u`) on the limit list (0: it
    /// does not).
    #[inline]
    pub(crate) fn limit_until(&self, vc: &Vcpu, us: &User) -> Time {
        match (us.share.limit, self.limithard) {
            (Limit::Hard, LimitHard::Consumption) => self.users[vc.user as usize].lim_until,
            (Limit::Hard, _) => vc.limit_until,
            _ => 0,
        }
    }
}

/// What a dispatch priority is computed at: the instant, the processors the adjusted TOD is
/// spread over, a CPU pool's release instant (0: none), and whether the virtual CPU comes off
/// the limit list.
#[derive(Clone, Copy)]
pub(crate) struct PriorityAt {
    pub now: Time,
    pub processors: usize,
    pub release_base: Time,
    pub from_limit: bool,
}

/// The dispatch vectors.
impl Scheduler {
    /// Should `make_ready` hand the next readied virtual CPU straight to an idle processor
    /// (`idle`: one is idle)? Only with one shared vector and nobody queued on it.
    #[inline(always)]
    pub(crate) fn set_direct_ok(&mut self, idle: bool) {
        self.direct_ok = !self.local && idle && self.dvs[0].is_empty();
    }

    #[inline(always)]
    pub(crate) fn clear_direct_ok(&mut self) {
        self.direct_ok = false;
    }

    /// The virtual CPU handed straight to an idle processor, if any.
    #[inline(always)]
    pub(crate) fn take_direct(&mut self) -> Option<u32> {
        if self.direct != NONE {
            return Some(std::mem::replace(&mut self.direct, NONE));
        }
        None
    }

    /// Ready virtual CPUs queued on vector `dv` (stale entries included).
    #[inline(always)]
    pub(crate) fn dv_len(&self, dv: usize) -> usize {
        self.dvs[dv].len()
    }

    /// The next live entry of vector `i` (stale entries, of virtual CPUs queued again or no
    /// longer ready, are dropped on the way).
    #[inline(always)]
    pub(crate) fn pop_ready(&mut self, i: usize, vcpus: &[Vcpu]) -> Option<u32> {
        while let Some(Reverse((_, seq, v))) = self.dvs[i].pop() {
            let vc = &vcpus[v as usize];
            if vc.heap_seq == seq && vc.state == VState::Ready {
                return Some(v);
            }
        }
        None
    }

    /// Processor `l`'s own vector is empty: the vector to steal from, the longest other one
    /// (RESHUFFLE), or the nearest non-empty one by topology, the longest among equally near
    /// ones (REBALANCE).
    pub(crate) fn steal_from(&self, l: u32, topo: &crate::cpu::Topology) -> Option<usize> {
        let mut best = None;
        let mut best_key = (usize::MAX, 0usize);
        for (i, d) in self.dvs.iter().enumerate() {
            if d.is_empty() {
                continue;
            }
            let dist = if self.rebalance {
                topo.distance(l, i as u32)
            } else {
                0
            };
            if dist < best_key.0 || (dist == best_key.0 && d.len() > best_key.1) {
                best_key = (dist, d.len());
                best = Some(i);
            }
        }
        best
    }

    /// Processor `from` was parked: the live entries of its dispatch vector move, with their
    /// deadlines and sequence numbers, to the vectors of unparked processors `0..n`, each to the
    /// processor with the fewest virtual CPUs homed on it (`homes`, kept up to date); each moved
    /// virtual CPU takes its new vector as home.
    pub(crate) fn move_parked_dv(
        &mut self,
        from: usize,
        n: u32,
        homes: &mut [u32],
        vcpus: &mut [Vcpu],
    ) {
        if !self.local || from >= self.dvs.len() || n == 0 {
            return;
        }
        let entries = std::mem::take(&mut self.dvs[from]).into_sorted_vec();
        for Reverse((d, seq, v)) in entries.into_iter().rev() {
            let vc = &mut vcpus[v as usize];
            if vc.heap_seq != seq || vc.state != VState::Ready {
                continue; // stale
            }
            let to = least_loaded(homes, n);
            let old = vc.home as usize;
            if old < homes.len() && homes[old] > 0 {
                homes[old] -= 1;
            }
            homes[to as usize] += 1;
            vc.home = to;
            self.dvs[to as usize].push(Reverse((d, seq, v)));
        }
    }
}
