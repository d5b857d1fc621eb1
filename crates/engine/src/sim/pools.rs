//! CPU pools' wiring (pools.rs holds the pools, their limits, debts and consumption): DEFINE,
//! SET, DELETE CPUPOOL and SCHEDULE ... TO POOL as commands, a member's share of its pool's
//! limit, a member's virtual CPU held and released, a member's run charged, and the pools' part
//! of the 6.4 entitlement pass, the monitor and the summary.

use crate::config::{Action, PoolCfg};
use crate::entity::Entity;
use crate::guest::VState;
use crate::pools::{PoolClock, PoolSnap, PoolSummary};
use crate::queue::Time;
use crate::sim::Sim;
use crate::units::NONE;

impl Sim {
    /// The pools defined at the start and their members (`[[cpupool]]`).
    pub(crate) fn pools_init(&mut self) -> Result<(), String> {
        for c in self.cfg.cpupools.clone() {
            self.define_cpupool(&c)?;
            for m in &c.members {
                self.schedule_pool(m, Some(&c.name))?;
            }
        }
        Ok(())
    }

    /// Timed pool commands; errors name the command (the front checks them first).
    pub(crate) fn pool_action(&mut self, a: &Action) -> Result<(), String> {
        match a {
            Action::DefineCpupool { pool, .. } => self.define_cpupool(pool),
            Action::SetCpupool {
                name,
                limithard_pct,
                capacity,
                ..
            } => {
                let k = self.pool_clock();
                self.pools.set(name, *limithard_pct, *capacity, k)?;
                self.pool_ns_refresh();
                self.refresh_entitlement(0);
                Ok(())
            }
            Action::DeleteCpupool { name, .. } => self.pools.delete(name),
            Action::SchedulePool { userid, pool, .. } => {
                self.schedule_pool(userid, pool.as_deref())
            }
            _ => Ok(()),
        }
    }

    fn define_cpupool(&mut self, c: &PoolCfg) -> Result<(), String> {
        self.pools.define(c, self.now)
    }

    /// SCHEDULE userid TO POOL name (Some) or NOPOOL (None).
    fn schedule_pool(&mut self, userid: &str, pool: Option<&str>) -> Result<(), String> {
        let u = self
            .users
            .iter()
            .position(|x| x.userid == userid)
            .ok_or_else(|| format!("SCHEDULE {userid}: unknown userid"))?;
        let to = match pool {
            Some(name) => self.pools.number(name).ok_or_else(|| {
                format!("SCHEDULE {userid} TO POOL {name}: no such pool (DEFINE CPUPOOL it first)")
            })?,
            None => NONE,
        };
        self.pools.move_member(self.sched.user(u).pool, to);
        self.sched.set_pool(u, to);
        self.pool_ns_refresh();
        self.refresh_entitlement(0);
        Ok(())
    }

    /// Each member's share of its pool's limit as a fraction of the system: the pool's limit
    /// divided among the members by their normalized shares (z/VM <= 6.3 deadlines use it as a
    /// maximum share). Recomputed when shares, members or limits change.
    pub(crate) fn pool_ns_refresh(&mut self) {
        let n = self.sched.online();
        let mut sums = vec![0.0; self.pools.len()];
        for (u, p) in self.users.iter().zip(self.sched.pools_of()) {
            if p != NONE {
                sums[p as usize] += u.ns_all;
            }
        }
        for (i, u) in self.users.iter().enumerate() {
            let ns = match self.sched.user(i).pool {
                NONE => f64::INFINITY,
                p => {
                    let r = self.pools.rate(p, n) / n;
                    if r.is_finite() {
                        r * u.ns_all / sums[p as usize].max(1e-12)
                    } else {
                        f64::INFINITY
                    }
                }
            };
            self.sched.set_pool_ns(i, ns);
        }
    }

    fn pool_clock(&self) -> PoolClock {
        PoolClock {
            now: self.now,
            slice: self.sched.slice() as f64,
            bucket: self.sched.bucket_slices(),
            online: self.sched.online(),
        }
    }

    /// Until when user `u`'s pool holds its virtual CPUs (0: not held, or no pool).
    #[inline(always)]
    pub(crate) fn pool_until(&self, u: usize) -> Time {
        match self.sched.user(u).pool {
            NONE => 0,
            p => self.pools.until(p),
        }
    }

    /// `v` goes on the limit list because its pool is in debt: the pool will release it.
    pub(crate) fn pool_held(&mut self, v: u32) {
        let p = self.sched.user(self.vcpus[v as usize].user as usize).pool;
        let t = self.atod().max(1);
        self.pools.hold(p, v, t);
    }

    /// A member's virtual CPU chosen for dispatch while its pool is in debt (it was readied
    /// before the debt): it joins the limit list instead of running. True if held.
    pub(crate) fn pool_hold_at_dispatch(&mut self, v: u32) -> bool {
        let u = self.vcpus[v as usize].user as usize;
        let until = self.pool_until(u);
        if until <= self.now {
            return false;
        }
        self.pool_held(v);
        self.vcpus[v as usize].set_state(VState::Limited, self.now);
        self.q.schedule(Entity::Vcpu(v), until);
        self.sched.limit_list_add();
        true
    }

    /// The end of a limit-list wait of `v`: if its pool held it, the pool releases every
    /// virtual CPU it holds at once, onto the dispatch vectors by their priorities, and then
    /// wakes idle processors, so the members' shares (not the order of their wake-ups) decide
    /// who runs first. False if `v`'s pool did not hold it.
    pub(crate) fn pool_release(&mut self, v: u32) -> bool {
        let p = self.sched.user(self.vcpus[v as usize].user as usize).pool;
        if p == NONE || !self.pools.holds_any(p) {
            return false;
        }
        let until = self.pools.until(p);
        if until > self.now {
            // Still in debt (its user's own limit released it): wait for the pool.
            self.q.schedule(Entity::Vcpu(v), until);
            return true;
        }
        let held = self.pools.take_held(p);
        let mut offered = 0;
        for (w, t) in held.into_iter().chain([(v, 0)]) {
            self.pools.set_release_base(t);
            if self.vcpus[w as usize].state == VState::Limited && self.offer(w, true) {
                offered += 1;
            }
        }
        self.pools.set_release_base(0);
        for _ in 0..offered {
            let Some(l) = self.idle.pop() else { break };
            self.dispatch_next(l);
        }
        true
    }

    /// Charge a member's run to its pool.
    #[inline]
    pub(crate) fn pool_charge(&mut self, u: usize, used: u64) {
        let p = self.sched.user(u).pool;
        if p == NONE {
            return;
        }
        let k = self.pool_clock();
        self.pools.charge(p, used, k);
    }

    /// Monitor sample: each pool's figures since `start` (D5R19 PRCCPU).
    pub(crate) fn pools_sample(&mut self, start: Time) {
        self.pools.sample(start, self.now, self.sched.online());
    }

    /// The pools now, for the monitor records.
    pub(crate) fn pools_snapshot(&self) -> Vec<PoolSnap> {
        self.pools.snapshot(self.now, self.sched.online())
    }

    /// The pools over the run (None without pools).
    pub(crate) fn pools_summary(&self) -> Option<Vec<PoolSummary>> {
        self.pools.summary(self.now, self.sched.online())
    }
}
