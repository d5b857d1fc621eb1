//! The 6.4 scheduler pass with CPU pools: the full pass over every user, as before the pass
//! was made incremental (`entitle.rs`), with each pool's limit in the water-fill
//! (`Pools::fill`) and a member's share of its pool as a bound on its entitlement floor
//! (`Scheduler::target_rate`). Once a pool is defined the scheduler keeps this pass (pools are never
//! removed, only marked deleted); runs without pools never take it.

use super::Scheduler;
use crate::guest::{User, Vcpu};
use crate::pools::Pools;
use crate::queue::Time;
use crate::waterfill::WaterFill;

/// The full pass's buffers (weights, bounds, the two water-fills), kept between passes.
#[derive(Default)]
pub(crate) struct FillBufs {
    w: Vec<f64>,
    cap: Vec<f64>,
    soft: Vec<f64>,
    cap1: Vec<f64>,
    cap2: Vec<f64>,
    first: WaterFill,
    more: WaterFill,
    /// Each user's smoothed demand (processors).
    demand: Vec<f64>,
}

impl Scheduler {
    /// 6.4 with CPU pools: measure every user's demand over the last `dt` ns and water-fill
    /// entitlement plus excess into every user's target rate (`dt == 0`: the water-fill only).
    /// The processors' work is charged up to `now` first (the caller's part).
    pub(crate) fn entitlement_pass_full(
        &mut self,
        dt: Time,
        now: Time,
        users: &[User],
        vcpus: &mut [Vcpu],
        pools: &Pools,
    ) {
        if !self.full {
            self.full_pass_takes_over(users);
        }
        if dt > 0 {
            let alpha = 1.0 - (-(dt as f64) / self.tau).exp();
            for (u, us) in users.iter().enumerate() {
                let d = self.measure_demand(u, dt, now, us, vcpus);
                let s = &mut self.fill_bufs.demand[u];
                *s += alpha * (d - *s);
            }
            self.sys_pending += self.cost_entitle * users.len() as u64;
        }
        self.entitlement_fill(users, pools);
    }

    /// The first full pass: each user's demand from the incremental one (a user it never
    /// knew starts out wanting all its virtual CPUs), and nobody left to measure there.
    fn full_pass_takes_over(&mut self, users: &[User]) {
        self.full = true;
        let known = self.ent.users();
        self.fill_bufs.demand = (0..users.len())
            .map(|u| match u < known {
                true => self.ent.demand(u),
                false => users[u].vcpus.len() as f64,
            })
            .collect();
    }

    /// 6.4: water-fill capacity into each user's target rate: first up to each user's demand,
    /// virtual CPUs, LIMITHARD and LIMITSOFT maxima and CPU pool limits, then what is left to
    /// LIMITSOFT users above their maximum.
    fn entitlement_fill(&mut self, users: &[User], pools: &Pools) {
        let n = self.n_cpu;
        let mut b = std::mem::take(&mut self.fill_bufs);
        b.w.clear();
        b.cap.clear();
        b.soft.clear();
        for (i, u) in users.iter().enumerate() {
            let (vh, sm) = self.fill_bounds(u);
            b.w.push(u.ns_all);
            b.cap.push(b.demand[i].min(vh));
            b.soft.push(sm);
        }
        b.cap1.clear();
        b.cap1
            .extend(b.cap.iter().zip(&b.soft).map(|(c, s)| c.min(*s)));
        b.first.fill(n, &b.w, &b.cap1);
        let pool_of: Vec<u32> = self.pools_of().collect();
        pools.fill(n, &pool_of, &mut b.first.alloc, &b.w, &b.cap1);
        let left = n - b.first.alloc.iter().sum::<f64>();
        if left > 1e-9 && !b.soft.iter().any(|s| s.is_finite()) {
            // No LIMITSOFT user: the second fill's bounds are all zero and so is what it
            // gives (adding +0.0 as it did keeps every bit, -0.0 included).
            for a in b.first.alloc.iter_mut() {
                *a += 0.0;
            }
        } else if left > 1e-9 {
            b.cap2.clear();
            b.cap2.extend((0..b.cap.len()).map(|i| {
                if b.soft[i].is_finite() {
                    (b.cap[i] - b.first.alloc[i]).max(0.0)
                } else {
                    0.0
                }
            }));
            b.more.fill(left, &b.w, &b.cap2);
            for (a, m) in b.first.alloc.iter_mut().zip(&b.more.alloc) {
                *a += m;
            }
        }
        for (u, &a) in b.first.alloc.iter().enumerate() {
            let us = &users[u];
            let rate = self.target_rate(u, us, a);
            self.set_user_rate(u, us, rate);
            self.users[u].alloc = a;
        }
        self.fill_bufs = b;
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{Action, Config, PoolCfg};
    use crate::sim::Sim;

    /// A contended 6.4 run (hogs with several virtual CPUs and different shares, a LIMITSOFT
    /// user, many light users) stopped between two scheduler passes.
    fn contended(seed: u64) -> Sim {
        let rel = |v: f64| serde_json::json!({"min": {"kind": "relative", "value": v}});
        let cfg = serde_json::json!({
            "level": "zvm-6.4", "processors": 4, "duration_ns": 20_000_000_000u64,
            "interval_ns": 1_000_000_000u64, "seed": seed,
            "guests": [
                {"userid": "HOG", "count": 5, "vcpus": 2, "share": rel(300.0),
                 "workload": {"kind": "cpu-bound"}},
                {"userid": "SOFT", "vcpus": 2, "workload": {"kind": "cpu-bound"},
                 "share": {"min": {"kind": "relative", "value": 100.0},
                           "max": {"kind": "absolute", "value": 5.0}, "limit": "soft"}},
                {"userid": "LIGHT", "count": 30, "share": rel(50.0),
                 "workload": {"kind": "cpu-bound", "demand": 0.02}},
            ],
        });
        let cfg: Config = serde_json::from_value(cfg).expect("config");
        Sim::new(cfg).expect("scenario")
    }

    /// When a CPU pool is defined, the full pass takes over the incremental pass's demands:
    /// the water-fill of the same demands gives every user what the incremental fill gave it
    /// (within 1e-9 processors per processor: the floating-point sums run in another order), so
    /// the hand-over moves nobody. A pool with no limit and no members changes nothing else.
    #[test]
    fn the_full_pass_takes_over_the_incremental_pass_s_allocations() {
        for (seed, stop) in [(1, 2_300_000_000), (2, 7_050_000_000), (3, 13_000_000_001)] {
            let mut sim = contended(seed);
            sim.run_until(stop);
            let n_users = sim.users.len();
            for u in 0..n_users {
                sim.sched.user_rates(u, &sim.users[u]);
            }
            let before: Vec<f64> = sim.sched.users.iter().map(|s| s.alloc).collect();
            assert!(before.iter().sum::<f64>() > 3.99, "contended: {before:?}");
            assert!(
                sim.sched.ent.level().is_finite(),
                "some user above the level"
            );
            let pool = PoolCfg {
                name: "P".into(),
                limithard_pct: None,
                capacity: None,
                ptype: crate::config::PoolType::Ifl,
                members: vec![],
            };
            sim.pool_action(&Action::DefineCpupool { at_ns: stop, pool })
                .unwrap();
            sim.refresh_entitlement(0);
            assert!(sim.sched.full);
            for (u, b) in before.iter().enumerate() {
                let a = sim.sched.users[u].alloc;
                assert!(
                    (a - b).abs() <= 4e-9,
                    "seed {seed} user {u}: full {a}, incremental {b}"
                );
            }
        }
    }
}
