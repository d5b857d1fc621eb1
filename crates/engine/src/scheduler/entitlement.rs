//! 6.4's entitlement pass, incremental: the users runnable since the last pass are
//! measured, the water-fill (`entitle.rs`) is kept between passes, and each user's target rate
//! is derived from it. With CPU pools `entitle_pools.rs` does the full pass instead.

use super::{to_time, Scheduler};
use crate::config::Limit;
use crate::guest::{User, VState, Vcpu};
use crate::level::Sched;
use crate::queue::Time;

/// 6.4's entitlement: measured demand, the water-fill, and each user's target rate.
impl Scheduler {
    /// The pass over the users measured since the last (`dt` ns ago; 0: only the water-fill
    /// is redone, at the start and after SET SHARE), without CPU pools (`entitle_pools.rs`
    /// does the full pass with them). The processors' work is charged up to `now` first.
    pub(crate) fn entitlement_pass(
        &mut self,
        dt: Time,
        now: Time,
        users: &[User],
        vcpus: &mut [Vcpu],
    ) {
        if dt > 0 {
            #[cfg(debug_assertions)]
            self.check_untouched(users);
            let alpha = 1.0 - (-(dt as f64) / self.tau).exp();
            let touched = std::mem::take(&mut self.touched);
            let mut adds = std::mem::take(&mut self.adds);
            adds.clear();
            for &u in &touched {
                let d = self.measure_demand(u as usize, dt, now, &users[u as usize], vcpus);
                adds.push((u, alpha * d));
            }
            self.ent.decay(1.0 - alpha);
            for &(u, x) in &adds {
                self.ent.add(u as usize, x);
            }
            // Users still runnable are measured again at the next pass.
            let mut kept = touched;
            kept.retain(|&u| {
                let s = &mut self.users[u as usize];
                s.touched = s.n_runnable > 0;
                s.touched
            });
            kept.append(&mut self.touched);
            self.touched = kept;
            self.adds = adds;
            self.sys_pending += self.cost_entitle * users.len() as u64;
        } else {
            self.entitlement_setup(users);
        }
        self.ent.fill(self.n_cpu);
        for k in 0..self.touched.len() {
            let u = self.touched[k] as usize;
            self.user_rates(u, &users[u]);
        }
    }

    /// A user becomes runnable: the next pass measures it, and its rates are derived from the
    /// last pass now, so that a runnable (touched) user's rates are always current.
    #[inline]
    pub(crate) fn touch(&mut self, u: usize, us: &User) {
        if !self.users[u].touched {
            self.users[u].touched = true;
            self.touched.push(u as u32);
            if self.sched == Sched::EntitlementExcess && !self.full {
                self.user_rates(u, us);
            }
        }
    }

    /// Debug builds: a user dispatched or charged has rates from the last pass (it is touched).
    #[inline(always)]
    pub(crate) fn debug_rates_fresh(&self, u: usize) {
        debug_assert!(
            self.full || self.users[u].fill_gen == self.ent.gen(),
            "user {u}"
        );
    }

    /// 6.4: user `u`'s demand over the last `dt` ns up to `now` (processors, at most its
    /// virtual CPUs): CPU used plus time spent wanting a processor.
    pub(crate) fn measure_demand(
        &mut self,
        u: usize,
        dt: Time,
        now: Time,
        us: &User,
        vcpus: &mut [Vcpu],
    ) -> f64 {
        let s = &mut self.users[u];
        for &v in &us.vcpus {
            let vc = &mut vcpus[v as usize];
            if matches!(vc.state, VState::Ready | VState::Eligible | VState::Limited) {
                s.want_ns += now - vc.want_since;
                vc.want_since = now;
            }
        }
        // Its allocation from the last pass (current: it is touched, or the pass is full).
        debug_assert!(self.full || s.fill_gen == self.ent.gen());
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
        let at_max = alloc >= 0.999 * us.max_all.map_or(nv, |m| (m * self.n_cpu).min(nv));
        if at_max && alloc > 0.0 && used_w + want >= 0.98 * target {
            let (vtime, slice) = (self.vtime, self.slice as f64);
            let bound = 2.0 * slice / self.users[u].rate_v;
            let shift = ((target - used_w) / alloc).min(bound);
            if shift > 0.0 {
                let lo = vtime.saturating_sub(to_time(bound));
                for &v in &us.vcpus {
                    let vc = &mut vcpus[v as usize];
                    vc.vtag = vc.vtag.saturating_sub(to_time(shift)).max(lo.min(vc.vtag));
                }
            }
        }
        ((used_w + want) / dt as f64).min(nv)
    }

    /// Debug builds: a user the pass does not measure used and wanted nothing since the last.
    #[cfg(debug_assertions)]
    fn check_untouched(&self, users: &[User]) {
        for (i, (u, s)) in users.iter().zip(&self.users).enumerate() {
            if !s.touched {
                let used = u.acct.virt_ns + u.acct.cp_ns;
                assert_eq!(used, s.used_mark, "user {i} used CPU untouched");
                assert_eq!(s.want_ns, 0, "user {i} wanted CPU untouched");
                assert_eq!(s.n_runnable, 0, "user {i} runnable untouched");
            }
        }
    }

    /// A user's fixed bounds in the 6.4 water-fill (processors): its virtual CPUs within a
    /// LIMITHARD maximum, and its LIMITSOFT maximum (infinite when it has none).
    pub(super) fn fill_bounds(&self, us: &User) -> (f64, f64) {
        let nv = us.vcpus.len() as f64;
        let hard = match us.share.limit {
            Limit::Hard => self.limit_rate(us),
            _ => f64::INFINITY,
        };
        let soft = match us.share.limit {
            Limit::Soft => us.max_all.map(|m| m * self.n_cpu).unwrap_or(f64::INFINITY),
            _ => f64::INFINITY,
        };
        (nv.min(hard), soft)
    }

    /// 6.4: every user's weight (normalized share) and bounds for the water-fill: virtual
    /// CPUs, LIMITHARD and LIMITSOFT maxima; LIMITSOFT users may get above their maximum only
    /// what nobody else wants (the second fill, within their virtual CPUs).
    fn entitlement_setup(&mut self, users: &[User]) {
        let (mut w, mut bound, mut soft) = (Vec::new(), Vec::new(), Vec::new());
        for (i, u) in users.iter().enumerate() {
            let (vh, sm) = self.fill_bounds(u);
            w.push(u.ns_all);
            bound.push(vh.min(sm));
            if sm.is_finite() {
                soft.push((i as u32, vh));
            }
        }
        let known = self.ent.set_users(&w, &bound, &soft);
        // A user starts out wanting all its virtual CPUs.
        for (u, us) in users.iter().enumerate().skip(known) {
            self.ent.add(u, us.vcpus.len() as f64);
        }
        for (u, us) in users.iter().enumerate() {
            if self.users[u].n_runnable > 0 {
                self.touch(u, us);
            }
        }
    }

    /// 6.4: user `u`'s target rate from the last water-fill, derived for the users the pass
    /// keeps measuring and for a user when it becomes runnable (a pass does not write every
    /// user's).
    #[inline(always)]
    pub(crate) fn user_rates(&mut self, u: usize, us: &User) {
        if self.users[u].fill_gen != self.ent.gen() {
            self.derive_rates(u, us);
        }
    }

    #[inline(never)]
    fn derive_rates(&mut self, u: usize, us: &User) {
        let a = self.ent.alloc(u);
        let rate = self.target_rate(u, us, a);
        let s = &mut self.users[u];
        s.alloc = a;
        s.fill_gen = self.ent.gen();
        if rate == s.rate {
            return; // the same figures as before (often: a user held at its entitlement floor)
        }
        self.set_user_rate(u, us, rate);
    }

    /// 6.4: user `u`'s target rate (processors) for an allocation `a`: never below its
    /// entitlement (bounded by virtual CPUs, any maximum and a CPU pool member's share of the
    /// pool), so that a user that wants little keeps a prompt dispatch when it does want the
    /// processor.
    #[inline]
    pub(crate) fn target_rate(&self, u: usize, us: &User, a: f64) -> f64 {
        let n = self.n_cpu;
        let nv = us.vcpus.len() as f64;
        let mut floor = (us.ns_all * n).min(nv);
        if let Some(m) = us.max_all {
            floor = floor.min(m * n);
        }
        let pool_ns = self.users[u].pool_ns;
        if pool_ns.is_finite() {
            // A CPU pool member's entitlement is at most its share of the pool.
            floor = floor.min(pool_ns * n);
        }
        a.max(floor).max(1e-6)
    }

    /// User `u`'s rates per virtual CPU for a target `rate` (processors).
    #[inline]
    pub(crate) fn set_user_rate(&mut self, u: usize, us: &User, rate: f64) {
        let slice = self.slice as f64;
        let nv = us.vcpus.len() as f64;
        let s = &mut self.users[u];
        s.rate = rate;
        s.rate_v = rate / nv;
        s.inv_rate_v = nv / rate;
        s.slice_v = to_time(slice * nv / rate);
    }
}

#[cfg(test)]
mod tests {
    //! The parts of the 6.4 pass that are one user's arithmetic: the target rate's floor and the
    //! measured demand with its error feedback (DSPSLICE 5 ms).

    use super::super::tests::{new64, rel, share, user, vcpu};
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn target_rate_is_never_below_the_bounded_entitlement() {
        let mut s = new64(4, 1);
        let mut u = user(share(rel(100.0), None, Limit::None), vec![0, 1]);
        u.ns_all = 0.25; // entitlement 0.25 x 4 = 1 processor
        assert_eq!(s.target_rate(0, &u, 0.3), 1.0);
        assert_eq!(s.target_rate(0, &u, 1.5), 1.5);
        // Bounded by its virtual CPUs, a maximum share, a CPU pool member's share.
        u.ns_all = 0.75;
        assert_eq!(s.target_rate(0, &u, 0.0), 2.0);
        u.max_all = Some(0.125);
        assert_eq!(s.target_rate(0, &u, 0.0), 0.5);
        s.set_pool_ns(0, 0.0625);
        assert_eq!(s.target_rate(0, &u, 0.0), 0.25);
        // Never zero.
        u.ns_all = 0.0;
        assert_eq!(s.target_rate(0, &u, 0.0), 1e-6);
    }

    /// User 0 with two virtual CPUs: 40 ms used since the last pass (30 guest + 10 CP).
    fn measured() -> (Scheduler, User, Vec<Vcpu>) {
        let mut s = new64(2, 1);
        let mut u = user(share(rel(100.0), None, Limit::None), vec![0, 1]);
        (u.acct.virt_ns, u.acct.cp_ns) = (30 * MS, 10 * MS);
        s.users[0].fill_gen = s.ent.gen();
        let mut vs = vec![vcpu(0, 0), vcpu(0, 1)];
        (vs[0].state, vs[0].want_since) = (VState::Ready, 40 * MS);
        (vs[1].state, vs[1].want_since) = (VState::Running, 0);
        (s, u, vs)
    }

    #[test]
    fn demand_is_cpu_used_plus_time_wanting_over_the_interval_at_most_the_vcpus() {
        let (mut s, u, mut vs) = measured();
        s.users[0].want_ns = 5 * MS;
        // (40 used + 5 + 60 wanting) / 100.
        let d = s.measure_demand(0, 100 * MS, 100 * MS, &u, &mut vs);
        assert!((d - 1.05).abs() < 1e-12, "{d}");
        assert_eq!((s.users[0].used_mark, s.users[0].want_ns), (40 * MS, 0));
        assert_eq!((vs[0].want_since, vs[1].want_since), (100 * MS, 0));
        // Over a shorter interval: at most its two virtual CPUs.
        let (mut s, u, mut vs) = measured();
        assert_eq!(s.measure_demand(0, 20 * MS, 100 * MS, &u, &mut vs), 2.0);
    }

    #[test]
    fn a_user_held_at_its_maximum_that_got_less_moves_its_tags_earlier_bounded() {
        // Allocation 2 (all its virtual CPUs) over 100 ms: a target of 200 ms of CPU.
        let setup = |used: Time, alloc: f64| {
            let (mut s, mut u, mut vs) = measured();
            (u.acct.virt_ns, u.acct.cp_ns) = (used, 0);
            s.users[0].alloc = alloc;
            s.set_user_rate(0, &u, 2.0); // rate per virtual CPU 1: bound 2 x 5 ms
            s.vtime = 100 * MS;
            (vs[0].vtag, vs[1].vtag) = (150 * MS, 95 * MS);
            s.measure_demand(0, 100 * MS, 100 * MS, &u, &mut vs);
            (vs[0].vtag, vs[1].vtag)
        };
        // 150 used + 60 wanting >= 0.98 x 200: shift (200 - 150) / 2 = 25 ms, bounded to
        // 10 ms, and not below the list's virtual time less the bound (90 ms).
        assert_eq!(setup(150 * MS, 2.0), (140 * MS, 90 * MS));
        // 190 used: shift 5 ms.
        assert_eq!(setup(190 * MS, 2.0), (145 * MS, 90 * MS));
        // Not at its maximum (allocation 1 of 2 virtual CPUs): no shift, although it got 60 of
        // a 100 ms target and wanted more.
        assert_eq!(setup(60 * MS, 1.0), (150 * MS, 95 * MS));
        // Wanted less than its target: no shift (100 + 60 < 196).
        assert_eq!(setup(100 * MS, 2.0), (150 * MS, 95 * MS));
        // A maximum share: at it with allocation 0.25 x 2 = 0.5; target 50 ms, used 30 ms.
        let (mut s, mut u, mut vs) = measured();
        u.max_all = Some(0.25);
        (u.acct.virt_ns, u.acct.cp_ns) = (30 * MS, 0);
        s.users[0].alloc = 0.5;
        s.set_user_rate(0, &u, 0.5); // rate per virtual CPU 0.25: bound 40 ms
        s.vtime = 100 * MS;
        vs[0].vtag = 150 * MS;
        s.measure_demand(0, 100 * MS, 100 * MS, &u, &mut vs);
        // (50 - 30) / 0.5 = 40 ms.
        assert_eq!(vs[0].vtag, 110 * MS);
    }
}
