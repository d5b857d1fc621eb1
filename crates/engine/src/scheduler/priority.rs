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
    /// two slices of lag. `release_base`: the instant a CPU pool releasing it held it (0: none).
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

#[cfg(test)]
mod tests {
    //! Dispatch priority, LIMITHARD/LIMITSOFT accounting and the dispatch vectors, with
    //! hand-computed figures (DSPSLICE 5 ms, IABIAS 50 2: factors 0.5, 0.75, then 1).

    use super::super::tests::{abs, new64, old, rel, share, user, vcpu};
    use super::*;
    use crate::cpu::{CpiModel, Topology};
    use crate::level::LimitHard;

    const MS: Time = 1_000_000;

    fn at(now: Time) -> PriorityAt {
        PriorityAt {
            now,
            processors: 2,
            release_base: 0,
            from_limit: false,
        }
    }

    /// Two processors; user 0 RELATIVE 100 (one virtual CPU), user 1 RELATIVE 300 (two), both
    /// on the lists: normalized shares 0.25 and 0.75.
    fn two_users() -> (Scheduler, Vec<User>) {
        let mut s = old(LimitHard::Consumption, 2, 2);
        let us = vec![
            user(share(rel(100.0), None, Limit::None), vec![0]),
            user(share(rel(300.0), None, Limit::None), vec![1, 2]),
        ];
        s.list_sums_add(0, &us[0]);
        s.list_sums_add(1, &us[1]);
        (s, us)
    }

    #[test]
    fn deadline_is_atod_plus_dspslice_over_ns_per_vcpu_times_processors_times_iabias() {
        let (mut s, us) = two_users();
        let now = 1000 * MS;
        let mut vc = vcpu(0, 0);
        vc.tx_slices = 2; // third slice: factor 1
                          // 5 ms / (0.25 x 2) = 10 ms.
        assert_eq!(s.priority(&mut vc, &us[0], at(now)), now + 10 * MS);
        vc.tx_slices = 0; // first slice: factor 0.5
        assert_eq!(s.priority(&mut vc, &us[0], at(now)), now + 5 * MS);
        vc.tx_slices = 1; // second slice: factor 0.75
        assert_eq!(s.priority(&mut vc, &us[0], at(now)), now + 7_500_000);
        // Two virtual CPUs share 0.75: 5 ms / (0.375 x 2) = 6.67 ms (truncated).
        let mut v1 = vcpu(1, 1);
        v1.tx_slices = 5;
        assert_eq!(s.priority(&mut v1, &us[1], at(now)), now + 6_666_666);
        // The adjusted TOD stops during system time: 4 ms over 2 processors.
        s.count_system(4 * MS);
        assert_eq!(s.atod(now, 2), now - 2 * MS);
        assert_eq!(s.atod(now, 4), now - MS);
        vc.tx_slices = 2;
        assert_eq!(s.priority(&mut vc, &us[0], at(now)), now - 2 * MS + 10 * MS);
        // Four processors online: the offset halves (the adjusted TOD spread over `processors`).
        s.set_processors(4, 4);
        assert_eq!(s.priority(&mut vc, &us[0], at(now)), now - 2 * MS + 5 * MS);
        // A user leaving the lists grows the others' normalized share: 5 ms / (1 x 4).
        s.list_sums_remove(1);
        assert_eq!(
            s.priority(&mut vc, &us[0], at(now)),
            now - 2 * MS + 1_250_000
        );
    }

    #[test]
    fn deadline_ns_is_capped_by_a_maximum_share_and_a_cpu_pool() {
        let mut s = old(LimitHard::Consumption, 2, 2);
        let us = [
            user(share(rel(100.0), None, Limit::None), vec![0]),
            user(share(rel(700.0), Some(abs(12.5)), Limit::Hard), vec![1]),
        ];
        s.list_sums_add(0, &us[0]);
        s.list_sums_add(1, &us[1]);
        let now = 1000 * MS;
        let mut vc = vcpu(1, 0);
        vc.tx_slices = 2;
        // NS min(700/800, 0.125) = 0.125: 5 ms / 0.25 = 20 ms.
        assert_eq!(s.priority(&mut vc, &us[1], at(now)), now + 20 * MS);
        // LIMITSOFT caps the normalized share too.
        let soft = user(share(rel(700.0), Some(abs(12.5)), Limit::Soft), vec![1]);
        assert_eq!(s.priority(&mut vc, &soft, at(now)), now + 20 * MS);
        // A maximum without a limit type does not: 5 ms / (0.875 x 2).
        let none = user(share(rel(700.0), Some(abs(12.5)), Limit::None), vec![1]);
        assert_eq!(s.priority(&mut vc, &none, at(now)), now + 2_857_142);
        // A CPU pool member: at most its share of the pool's limit.
        let mut v0 = vcpu(0, 0);
        v0.tx_slices = 2;
        assert_eq!(s.priority(&mut v0, &us[0], at(now)), now + 20 * MS);
        s.set_pool_ns(0, 0.0625);
        assert_eq!(s.priority(&mut v0, &us[0], at(now)), now + 40 * MS);
    }

    #[test]
    fn deadline_less_eligible_delay_taken_once_and_bounded() {
        let (mut s, us) = two_users();
        let now = 1000 * MS;
        let mut vc = vcpu(0, 0);
        vc.tx_slices = 2;
        s.users[0].el_delay = 3 * MS;
        assert_eq!(s.priority(&mut vc, &us[0], at(now)), now + 7 * MS);
        assert_eq!(s.users[0].el_delay, 0, "taken once");
        assert_eq!(s.priority(&mut vc, &us[0], at(now)), now + 10 * MS);
        // A delay longer than the offset brings the deadline to the adjusted TOD, not before.
        s.users[0].el_delay = 50 * MS;
        assert_eq!(s.priority(&mut vc, &us[0], at(now)), now);
    }

    #[test]
    fn deadline_counts_from_a_pool_release_base_only_if_earlier() {
        let (mut s, us) = two_users();
        let now = 1000 * MS;
        let mut vc = vcpu(0, 0);
        vc.tx_slices = 2;
        let mut a = at(now);
        a.release_base = 900 * MS;
        assert_eq!(s.priority(&mut vc, &us[0], a), 900 * MS + 10 * MS);
        a.release_base = 1100 * MS;
        assert_eq!(s.priority(&mut vc, &us[0], a), now + 10 * MS);
        // Earlier than the adjusted TOD, not than the TOD.
        s.count_system(40 * MS);
        a.release_base = 990 * MS;
        assert_eq!(s.priority(&mut vc, &us[0], a), 980 * MS + 10 * MS);
    }

    /// 6.4 user 0: target rate 0.5 of a processor on one virtual CPU, so a slice of 5 ms is
    /// 10 ms of virtual time and a ns used advances the tag by 2.
    fn one_64(sh: crate::config::Share) -> (Scheduler, User) {
        let mut s = new64(2, 1);
        let mut u = user(sh, vec![0]);
        u.max_all = sh.max.map(|m| m.value / 100.0);
        s.set_user_rate(0, &u, 0.5);
        s.users[0].fill_gen = s.ent.gen();
        (s, u)
    }

    #[test]
    fn set_user_rate_derives_per_vcpu_rates() {
        let (s, _) = one_64(share(rel(100.0), None, Limit::None));
        let r = &s.users[0];
        assert_eq!(
            (r.rate, r.rate_v, r.inv_rate_v, r.slice_v),
            (0.5, 0.5, 2.0, 10 * MS)
        );
        let mut s = new64(2, 1);
        let u = user(share(rel(100.0), None, Limit::None), vec![0, 1, 2, 3]);
        s.set_user_rate(0, &u, 2.0);
        let r = &s.users[0];
        assert_eq!((r.rate_v, r.inv_rate_v, r.slice_v), (0.5, 2.0, 10 * MS));
    }

    #[test]
    fn vtag_starts_a_transaction_at_the_list_virtual_time() {
        let (mut s, u) = one_64(share(rel(100.0), None, Limit::None));
        s.vtime = 100 * MS;
        let mut vc = vcpu(0, 0);
        vc.vtag = 50 * MS;
        // First slice: nothing banked while idle; offset one slice x 0.5.
        assert_eq!(s.priority(&mut vc, &u, at(0)), 105 * MS);
        assert_eq!((vc.vtag, vc.start), (100 * MS, 100 * MS));
        // A tag ahead of the list's virtual time is kept.
        vc.vtag = 150 * MS;
        assert_eq!(s.priority(&mut vc, &u, at(0)), 155 * MS);
        assert_eq!(vc.start, 150 * MS);
        // Within a transaction the tag carries over however far behind (factor 1 from slice 3).
        vc.vtag = 50 * MS;
        vc.tx_slices = 3;
        assert_eq!(s.priority(&mut vc, &u, at(0)), 60 * MS);
        assert_eq!(vc.start, 50 * MS);
    }

    #[test]
    fn vtag_off_the_limit_list_keeps_at_most_two_slices_of_lag() {
        let (mut s, u) = one_64(share(rel(100.0), None, Limit::None));
        s.vtime = 100 * MS;
        let mut vc = vcpu(0, 0);
        vc.tx_slices = 3;
        vc.vtag = 50 * MS;
        let mut a = at(0);
        a.from_limit = true; // coming off the limit list (or out of the background)
                             // max(50, 100 - 2 x 10) = 80.
        assert_eq!(s.priority(&mut vc, &u, a), 90 * MS);
        assert_eq!((vc.vtag, vc.start), (80 * MS, 80 * MS));
        // Less lag than that: kept.
        vc.vtag = 95 * MS;
        assert_eq!(s.priority(&mut vc, &u, a), 105 * MS);
        // Early in the virtual time: no underflow.
        s.vtime = 5 * MS;
        vc.vtag = 0;
        assert_eq!(s.priority(&mut vc, &u, a), 10 * MS);
    }

    #[test]
    fn limitsoft_over_its_maximum_is_queued_in_the_background() {
        let (mut s, u) = one_64(share(rel(100.0), Some(abs(25.0)), Limit::Soft));
        let mut vc = vcpu(0, 0);
        vc.tx_slices = 3;
        vc.vtag = 100 * MS;
        s.users[0].lim_until = 20 * MS;
        assert_eq!(s.priority(&mut vc, &u, at(10 * MS)), 110 * MS + FAR);
        // Back within its maximum at lim_until.
        assert_eq!(s.priority(&mut vc, &u, at(20 * MS)), 110 * MS);
        // LIMITHARD is held on the limit list instead, never in the background.
        let (mut s, u) = one_64(share(rel(100.0), Some(abs(25.0)), Limit::Hard));
        s.users[0].lim_until = 20 * MS;
        assert_eq!(s.priority(&mut vc, &u, at(10 * MS)), 110 * MS);
    }

    #[test]
    fn limit_rate_in_processors() {
        let (mut s, _) = two_users();
        let none = user(share(rel(100.0), Some(abs(25.0)), Limit::None), vec![0]);
        assert!(s.limit_rate(&none).is_infinite());
        // <= 6.3: the maximum normalized over the lists: RELATIVE 200 of 400, on 2 processors.
        let hard = user(share(rel(100.0), Some(rel(200.0)), Limit::Hard), vec![0]);
        assert_eq!(s.limit_rate(&hard), 1.0);
        let soft = user(share(rel(100.0), Some(abs(25.0)), Limit::Soft), vec![0]);
        assert_eq!(s.limit_rate(&soft), 0.5);
        s.set_processors(4, 4);
        assert_eq!(s.limit_rate(&soft), 1.0);
        // 6.4: the maximum over all logged-on users.
        let (s, mut u) = one_64(share(rel(100.0), Some(abs(25.0)), Limit::Hard));
        assert_eq!(s.limit_rate(&u), 0.5);
        u.max_all = Some(0.125);
        assert_eq!(
            s.limit_rate(&u),
            0.25,
            "normalized over all users, not the lists"
        );
    }

    #[test]
    fn normalize_shares_over_all_users() {
        let s = old(LimitHard::Consumption, 2, 3);
        let mut us = vec![
            user(share(abs(30.0), None, Limit::None), vec![0]),
            user(share(rel(100.0), Some(rel(100.0)), Limit::None), vec![1]),
            user(share(rel(300.0), Some(rel(150.0)), Limit::Soft), vec![2]),
        ];
        s.normalize_shares(&mut us);
        assert_eq!(us[0].ns_all, 0.3);
        assert!((us[1].ns_all - 0.175).abs() < 1e-12);
        assert!((us[2].ns_all - 0.525).abs() < 1e-12);
        assert_eq!(us[1].max_all, None, "a maximum without a limit type");
        assert!((us[2].max_all.unwrap() - 0.2625).abs() < 1e-12);
    }

    #[test]
    fn list_sums_follow_the_listed_users() {
        let mut s = old(LimitHard::Consumption, 2, 2);
        let a = user(share(abs(20.0), None, Limit::None), vec![0]);
        let r = user(share(rel(300.0), None, Limit::None), vec![1]);
        s.list_sums_add(0, &a);
        s.list_sums_add(1, &r);
        assert_eq!((s.list_abs, s.list_rel), (0.2, 300.0));
        s.list_sums_remove(0);
        assert_eq!((s.list_abs, s.list_rel), (0.0, 300.0));
        s.list_sums_remove(0);
        assert_eq!((s.list_abs, s.list_rel), (0.0, 300.0), "removed once");
    }

    /// LIMITHARD ABSOLUTE 25% on two processors: 0.5 of a processor; two virtual CPUs, so a
    /// bucket of 4 slices x 5 ms x 2 = 40 ms of credit.
    fn hard_user() -> User {
        user(share(rel(100.0), Some(abs(25.0)), Limit::Hard), vec![0, 1])
    }

    #[test]
    fn limithard_consumption_credit_and_debt() {
        let mut s = old(LimitHard::Consumption, 2, 1);
        let u = hard_user();
        let mut vc = vcpu(0, 0);
        // Credit 0.5 x 10 ms - 2 ms = 3 ms.
        s.end_run(&mut vc, &u, 2 * MS, 10 * MS);
        assert_eq!(s.users[0].lim_credit, 3e6);
        assert_eq!((s.users[0].lim_last, s.users[0].lim_until), (10 * MS, 0));
        assert_eq!(s.limit_until(&vc, &u), 0);
        // 3 + 0.5 x 2 - 6 = -2 ms: in debt until 12 + 2 / 0.5 = 16 ms.
        s.end_run(&mut vc, &u, 6 * MS, 12 * MS);
        assert_eq!(s.users[0].lim_credit, -2e6);
        assert_eq!(s.users[0].lim_until, 16 * MS);
        assert_eq!(s.limit_until(&vc, &u), 16 * MS);
        assert_eq!(vc.limit_until, 0, "the deadline methods' field is not used");
        // The debt is repaid at the rate: -2 + 0.5 x 8 = 2 ms.
        s.end_run(&mut vc, &u, 0, 20 * MS);
        assert_eq!((s.users[0].lim_credit, s.users[0].lim_until), (2e6, 0));
        // The credit is bounded by the bucket before the run is charged: 40 - 1 ms.
        let mut s = old(LimitHard::Consumption, 2, 1);
        s.end_run(&mut vc, &u, MS, 1000 * MS);
        assert_eq!(s.users[0].lim_credit, 39e6);
    }

    #[test]
    fn limithard_deadline_methods_hold_each_vcpu_by_its_even_split() {
        let u = hard_user();
        // 2.3.0: after the run's end, 1 ms / (0.5 / 2) = 4 ms.
        let mut s = old(LimitHard::DeadlineOld, 2, 1);
        let mut vc = vcpu(0, 0);
        vc.run_start = 7 * MS;
        s.end_run(&mut vc, &u, MS, 10 * MS);
        assert_eq!(vc.limit_until, 14 * MS);
        assert_eq!(s.limit_until(&vc, &u), 14 * MS);
        assert_eq!((s.users[0].lim_credit, s.users[0].lim_until), (0.0, 0));
        // 2.4.0: after the run's start.
        let mut s = old(LimitHard::Deadline240, 2, 1);
        s.end_run(&mut vc, &u, MS, 10 * MS);
        assert_eq!(vc.limit_until, 11 * MS);
        assert_eq!(s.limit_until(&vc, &u), 11 * MS);
        // LIMITSOFT (and no limit) is not charged before 6.4.
        let soft = user(share(rel(100.0), Some(abs(25.0)), Limit::Soft), vec![0, 1]);
        let mut vc = vcpu(0, 0);
        s.end_run(&mut vc, &soft, MS, 10 * MS);
        assert_eq!((vc.limit_until, s.limit_until(&vc, &soft)), (0, 0));
        let mut s = old(LimitHard::Consumption, 2, 1);
        s.end_run(&mut vc, &soft, MS, 10 * MS);
        assert_eq!((s.users[0].lim_credit, s.users[0].lim_last), (0.0, 0));
    }

    #[test]
    fn vtag_advances_by_cpu_used_over_the_rate_and_limitsoft_is_charged_in_6_4() {
        let (mut s, u) = one_64(share(rel(100.0), Some(abs(25.0)), Limit::Soft));
        let mut vc = vcpu(0, 0);
        vc.vtag = 100 * MS;
        s.end_run(&mut vc, &u, 3 * MS, 10 * MS);
        assert_eq!(vc.vtag, 106 * MS);
        // LIMITSOFT 25% of 2 = 0.5, one virtual CPU (bucket 20 ms): 5 - 3 = 2 ms of credit.
        assert_eq!(s.users[0].lim_credit, 2e6);
        // 2 + 1 - 8 = -5 ms: over its maximum until 12 + 10 ms, then in the background.
        s.end_run(&mut vc, &u, 8 * MS, 12 * MS);
        assert_eq!(vc.vtag, 122 * MS);
        assert_eq!(s.users[0].lim_until, 22 * MS);
        assert_eq!(s.limit_until(&vc, &u), 0, "not held on the limit list");
        vc.tx_slices = 3;
        assert_eq!(s.priority(&mut vc, &u, at(12 * MS)), 132 * MS + FAR);
        // No maximum: only the tag moves.
        let (mut s, u) = one_64(share(rel(100.0), None, Limit::None));
        s.end_run(&mut vc, &u, MS, 10 * MS);
        assert_eq!(vc.vtag, 124 * MS);
        assert_eq!((s.users[0].lim_credit, s.users[0].lim_until), (0.0, 0));
    }

    #[test]
    fn enqueue_hands_straight_to_an_idle_processor_only_on_a_shared_empty_list() {
        let mut s = new64(2, 1);
        s.set_direct_ok(true);
        let seq = s.enqueue(7, 0, 100);
        assert_eq!((s.len(), s.has_ready()), (0, true));
        assert_eq!((s.take_direct(), s.take_direct()), (Some(7), None));
        // A background deadline is never handed over.
        let seq2 = s.enqueue(8, 0, FAR + 1);
        assert!(seq2 > seq);
        assert_eq!((s.len(), s.take_direct()), (1, None));
        s.set_direct_ok(true);
        assert!(!s.direct_ok, "the list is not empty");
        // Local vectors: never.
        let mut s = old(LimitHard::Consumption, 2, 1);
        s.set_direct_ok(true);
        s.enqueue(3, 1, 100);
        assert_eq!((s.dv_len(1), s.take_direct()), (1, None));
    }

    #[test]
    fn pop_ready_skips_stale_entries() {
        let mut s = old(LimitHard::Consumption, 1, 1);
        let mut vs: Vec<Vcpu> = (0..3).map(|_| vcpu(0, 0)).collect();
        for v in &mut vs {
            v.state = VState::Ready;
        }
        let stale1 = s.enqueue(1, 0, 10); // queued again below
        vs[0].heap_seq = s.enqueue(0, 0, 20);
        vs[2].heap_seq = s.enqueue(2, 0, 5);
        vs[2].state = VState::Running; // no longer ready
        vs[1].heap_seq = s.enqueue(1, 0, 30);
        assert_ne!(stale1, vs[1].heap_seq);
        assert_eq!(s.pop_ready(0, &vs), Some(0));
        assert_eq!(s.pop_ready(0, &vs), Some(1));
        assert_eq!(s.pop_ready(0, &vs), None);
        assert!(s.is_empty());
    }

    /// Six processors: cores 0 1 | 2 on drawer 0 (chips 0 0 1), 3 4 | 5 on drawer 1.
    fn six() -> (Scheduler, Topology) {
        let mut s = old(LimitHard::Consumption, 6, 1);
        for (dv, n) in [(1, 1), (2, 2), (3, 3), (4, 4), (5, 4)] {
            for _ in 0..n {
                s.enqueue(0, dv, 1);
            }
        }
        let topo = Topology::new(
            6,
            2,
            2,
            &CpiModel::from_params(&crate::params::Params::default()),
        );
        assert_eq!(
            (
                topo.distance(0, 1),
                topo.distance(0, 2),
                topo.distance(0, 3)
            ),
            (1, 2, 3)
        );
        (s, topo)
    }

    #[test]
    fn reshuffle_steals_from_the_longest_other_vector() {
        let (mut s, topo) = six();
        assert_eq!(s.steal_from(0, &topo), Some(4), "the first of the longest");
        s.dvs[4].clear();
        assert_eq!(s.steal_from(0, &topo), Some(5));
        for d in &mut s.dvs {
            d.clear();
        }
        assert_eq!(s.steal_from(0, &topo), None);
    }

    #[test]
    fn rebalance_steals_from_the_nearest_then_longest() {
        let (mut s, topo) = six();
        s.rebalance = true;
        assert_eq!(s.steal_from(0, &topo), Some(1), "same chip");
        s.dvs[1].clear();
        assert_eq!(s.steal_from(0, &topo), Some(2), "same drawer");
        s.dvs[2].clear();
        assert_eq!(s.steal_from(0, &topo), Some(4), "other drawer: the longest");
        s.dvs[4].clear();
        assert_eq!(s.steal_from(0, &topo), Some(5));
    }

    #[test]
    fn move_parked_dv_moves_live_entries_to_the_least_loaded() {
        let mut s = old(LimitHard::Consumption, 3, 1);
        let mut vs: Vec<Vcpu> = (0..3).map(|_| vcpu(0, 2)).collect();
        for v in &mut vs {
            v.state = VState::Ready;
        }
        vs[0].heap_seq = s.enqueue(0, 2, 10);
        s.enqueue(1, 2, 15); // stale
        vs[1].heap_seq = 99;
        vs[2].heap_seq = s.enqueue(2, 2, 20);
        let mut homes = vec![1, 0, 3];
        s.move_parked_dv(2, 2, &mut homes, &mut vs);
        assert!(s.dvs[2].is_empty());
        // Earliest deadline first: v0 to processor 1 (0 homed), then v2 to 0 (1 each: lowest).
        assert_eq!((vs[0].home, vs[1].home, vs[2].home), (1, 2, 0));
        assert_eq!(homes, vec![2, 1, 1]);
        assert_eq!(s.pop_ready(1, &vs), Some(0));
        assert_eq!(s.pop_ready(0, &vs), Some(2));
        assert!(s.is_empty(), "the stale entry is dropped");
    }
}
