//! z/VM CPU pools (z/VM 6.3 APAR VM65418 and later; issue 18 item 2).
//!
//! `DEFINE CPUPOOL name LIMITHARD n% | CAPACITY n TYPE CP|IFL` creates a pool; `SCHEDULE userid
//! TO POOL name` makes a user a member (`NOPOOL` takes it out); `SET CPUPOOL` changes the limit;
//! `DELETE CPUPOOL` removes an empty pool. A pool caps the CPU its members consume together
//! (IBM 630cpupl: "group capping"; LIMBK, "limiting block for a CPU pool"): LIMITHARD n% is n % of
//! the online logical processors (each counted as 100 %, following SET MULTITHREAD here as VARY
//! would), CAPACITY n is n processors' worth, never more than those online
//! (docs/research/machines-and-caches.md §4).
//!
//! Enforcement reuses the consumption method of a user's LIMITHARD (scheduler.rs,
//! `LimitHard::Consumption`) at the pool level [I: the interval CP measures pool consumption
//! over is not public]: the pool keeps a CPU credit that grows at its limit x elapsed time,
//! bounded by `srm.limit_bucket` minor time slices per processor of the limit (at least one);
//! each member's run is charged to it at the run's end; while the credit is negative every
//! member's virtual CPU that wants a processor waits on the limit list until the debt is repaid.
//! Members still compete by their shares for what the pool allows, and a member's own LIMITHARD
//! applies as well (the more restrictive wins). In 6.4 the entitlement pass also water-fills
//! within each pool (`pool_fill`), so members' target rates add up to no more than the pool.

use crate::config::{Action, PoolCfg, PoolType};
use crate::entity::Entity;
use crate::guest::VState;
use crate::queue::Time;
use crate::sim::Sim;
use crate::units::NONE;
use serde::Serialize;

/// One defined pool (a deleted pool keeps its slot so user indices stay valid).
#[derive(Clone, Debug)]
pub struct Pool {
    pub name: String,
    pub ptype: PoolType,
    /// LIMITHARD as a fraction of the online processors, or CAPACITY in processors.
    pub limithard: Option<f64>,
    pub capacity: Option<f64>,
    pub deleted: bool,
    pub members: u32,
    credit: f64,
    last: Time,
    until: Time,
    lim_start: Time,
    lim_acc: Time,
    pub used_ns: u64,
    pub limited_count: u64,
    /// Counters at the last monitor sample (used, limited time, limited count).
    mark: (u64, Time, u64),
    pub intervals: Vec<PoolInterval>,
    /// Members' virtual CPUs the pool holds on the limit list (released together), with the
    /// adjusted TOD at which each was held.
    held: Vec<(u32, Time)>,
}

/// A pool's figures in one monitor interval (D5R19 PRCCPU: CPU used, time limited, times
/// limited, members).
#[derive(Clone, Debug, Serialize)]
pub struct PoolInterval {
    pub start_s: f64,
    pub end_s: f64,
    /// CPU used by the members, percent of one processor.
    pub cpu_pct: f64,
    /// The pool's limit in this interval at its end, percent of one processor.
    pub limit_pct: f64,
    /// Share of the interval the pool was limited (members held on the limit list), percent.
    pub limited_pct: f64,
    pub limited_count: u64,
    pub members: u32,
}

/// A pool at a monitor sample (cumulative counters; monwrite's D15R11 ZVMCPL).
#[derive(Clone, Debug, Default)]
pub struct PoolSnap {
    pub name: String,
    pub ptype: PoolType,
    pub limited: bool,
    pub capacity: bool,
    pub deleted: bool,
    pub members: u32,
    /// LIMITHARD percent or CAPACITY processors, as given; the limit in processors (0: none).
    pub limit_value: f64,
    pub limit_processors: f64,
    pub used_ns: u64,
    pub limited_ns: u64,
    pub limited_count: u64,
}

/// The pools over the run (FCX308 CPLCONF, FCX309 CPLACT).
#[derive(Clone, Debug, Serialize)]
pub struct PoolSummary {
    pub name: String,
    #[serde(rename = "type")]
    pub ptype: PoolType,
    /// "limithard" or "capacity", and the value as given (percent or processors).
    pub limit_kind: &'static str,
    pub limit_value: f64,
    pub limit_pct: f64,
    pub cpu_pct: f64,
    pub limited_pct: f64,
    pub limited_count: u64,
    pub members: u32,
    pub deleted: bool,
    pub intervals: Vec<PoolInterval>,
}

impl Pool {
    fn new(c: &PoolCfg, now: Time) -> Pool {
        Pool {
            name: c.name.clone(),
            ptype: c.ptype,
            limithard: c.limithard_pct.map(|p| p / 100.0),
            capacity: c.capacity,
            deleted: false,
            members: 0,
            credit: 0.0,
            last: now,
            until: 0,
            lim_start: 0,
            lim_acc: 0,
            used_ns: 0,
            limited_count: 0,
            mark: (0, 0, 0),
            intervals: Vec::new(),
            held: Vec::new(),
        }
    }

    /// The pool's limit in processors with `online` processors online (infinite: no limit).
    pub fn rate(&self, online: f64) -> f64 {
        match (self.limithard, self.capacity) {
            (Some(f), _) if f >= 1.0 => f64::INFINITY,
            (Some(f), _) => (f * online).max(1e-6),
            (None, Some(c)) => c.min(online).max(1e-6),
            (None, None) => f64::INFINITY,
        }
    }

    /// Charge `used` ns of a member's run at `now`; the pool waits until its debt is repaid.
    fn charge(&mut self, used: u64, now: Time, rate: f64, slice: f64, bucket: f64) {
        self.used_ns += used;
        if !rate.is_finite() {
            self.last = now;
            return;
        }
        let depth = bucket * slice * rate.max(1.0);
        self.credit = (self.credit + rate * (now - self.last) as f64).min(depth) - used as f64;
        self.last = now;
        self.set_until(now, rate);
    }

    fn set_until(&mut self, now: Time, rate: f64) {
        let until = if self.credit < 0.0 && rate.is_finite() {
            now + (-self.credit / rate).ceil() as Time
        } else {
            0
        };
        if until > now && self.until <= now {
            // A new limited period: close the last one.
            self.lim_acc += self.until.saturating_sub(self.lim_start);
            self.lim_start = now;
            self.limited_count += 1;
        }
        if until > now || self.until > now {
            self.until = until.max(now);
        }
    }

    fn limited_ns(&self, now: Time) -> Time {
        self.lim_acc + self.until.min(now).saturating_sub(self.lim_start)
    }
}

/// The pools of a run.
#[derive(Clone, Debug, Default)]
pub struct Pools {
    pub list: Vec<Pool>,
    /// While the pool releases a held virtual CPU: the adjusted TOD it was held at (z/VM <= 6.3
    /// deadlines count from it, so the members' order follows their shares and their waits,
    /// not the order they are released in); 0 otherwise.
    pub release_base: Time,
}

impl Pools {
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.list
            .iter()
            .position(|p| !p.deleted && p.name.eq_ignore_ascii_case(name))
    }
}

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
            } => self.set_cpupool(name, *limithard_pct, *capacity),
            Action::DeleteCpupool { name, .. } => self.delete_cpupool(name),
            Action::SchedulePool { userid, pool, .. } => {
                self.schedule_pool(userid, pool.as_deref())
            }
            _ => Ok(()),
        }
    }

    fn define_cpupool(&mut self, c: &PoolCfg) -> Result<(), String> {
        if self.pools.find(&c.name).is_some() {
            return Err(format!("DEFINE CPUPOOL {}: the pool exists", c.name));
        }
        self.pools.list.push(Pool::new(c, self.now));
        Ok(())
    }

    fn set_cpupool(&mut self, name: &str, lh: Option<f64>, cap: Option<f64>) -> Result<(), String> {
        let i = self
            .pools
            .find(name)
            .ok_or_else(|| format!("SET CPUPOOL {name}: no such pool"))?;
        let (now, slice, bucket, n) = self.pool_consts();
        let p = &mut self.pools.list[i];
        let r = p.rate(n);
        p.charge(0, now, r, slice, bucket);
        p.limithard = lh.map(|x| x / 100.0);
        p.capacity = cap;
        let r = p.rate(n);
        p.set_until(now, r);
        self.pool_ns_refresh();
        self.refresh_entitlement(0);
        Ok(())
    }

    fn delete_cpupool(&mut self, name: &str) -> Result<(), String> {
        let i = self
            .pools
            .find(name)
            .ok_or_else(|| format!("DELETE CPUPOOL {name}: no such pool"))?;
        if self.pools.list[i].members > 0 {
            return Err(format!(
                "DELETE CPUPOOL {name}: the pool has members (SCHEDULE them NOPOOL first)"
            ));
        }
        self.pools.list[i].deleted = true;
        Ok(())
    }

    /// SCHEDULE userid TO POOL name (Some) or NOPOOL (None).
    fn schedule_pool(&mut self, userid: &str, pool: Option<&str>) -> Result<(), String> {
        let u = self
            .users
            .iter()
            .position(|x| x.userid == userid)
            .ok_or_else(|| format!("SCHEDULE {userid}: unknown userid"))?;
        let to = match pool {
            Some(name) => self.pools.find(name).ok_or_else(|| {
                format!("SCHEDULE {userid} TO POOL {name}: no such pool (DEFINE CPUPOOL it first)")
            })? as u32,
            None => NONE,
        };
        let from = self.users[u].sch.pool;
        if from != NONE {
            self.pools.list[from as usize].members -= 1;
        }
        if to != NONE {
            self.pools.list[to as usize].members += 1;
        }
        self.users[u].sch.pool = to;
        self.pool_ns_refresh();
        self.refresh_entitlement(0);
        Ok(())
    }

    /// Each member's share of its pool's limit as a fraction of the system: the pool's limit
    /// divided among the members by their normalized shares (z/VM <= 6.3 deadlines use it as a
    /// maximum share). Recomputed when shares, members or limits change.
    pub(crate) fn pool_ns_refresh(&mut self) {
        let n = self.sched.n_cpu;
        let mut sums = vec![0.0; self.pools.list.len()];
        for u in &self.users {
            if u.sch.pool != NONE {
                sums[u.sch.pool as usize] += u.ns_all;
            }
        }
        for u in &mut self.users {
            u.sch.pool_ns = match u.sch.pool {
                NONE => f64::INFINITY,
                p => {
                    let r = self.pools.list[p as usize].rate(n) / n;
                    if r.is_finite() {
                        r * u.ns_all / sums[p as usize].max(1e-12)
                    } else {
                        f64::INFINITY
                    }
                }
            };
        }
    }

    fn pool_consts(&self) -> (Time, f64, f64, f64) {
        (
            self.now,
            self.sched.slice as f64,
            self.sched.bucket_slices,
            self.sched.n_cpu,
        )
    }

    /// Until when user `u`'s pool holds its virtual CPUs (0: not held, or no pool).
    #[inline(always)]
    pub(crate) fn pool_until(&self, u: usize) -> Time {
        match self.users[u].sch.pool {
            NONE => 0,
            p => self.pools.list[p as usize].until,
        }
    }

    /// `v` goes on the limit list because its pool is in debt: the pool will release it.
    pub(crate) fn pool_held(&mut self, v: u32) {
        let p = self.users[self.vcpus[v as usize].user as usize].sch.pool;
        let t = self.atod().max(1);
        self.pools.list[p as usize].held.push((v, t));
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
        self.sched.sys_pending += self.sched.cost_limit;
        self.sched.stats.limit_list_adds += 1;
        true
    }

    /// The end of a limit-list wait of `v`: if its pool held it, the pool releases every
    /// virtual CPU it holds at once, onto the dispatch vectors by their priorities, and then
    /// wakes idle processors, so the members' shares (not the order of their wake-ups) decide
    /// who runs first. False if `v`'s pool did not hold it.
    pub(crate) fn pool_release(&mut self, v: u32) -> bool {
        let p = self.users[self.vcpus[v as usize].user as usize].sch.pool;
        if p == NONE || self.pools.list[p as usize].held.is_empty() {
            return false;
        }
        if self.pools.list[p as usize].until > self.now {
            // Still in debt (its user's own limit released it): wait for the pool.
            let until = self.pools.list[p as usize].until;
            self.q.schedule(Entity::Vcpu(v), until);
            return true;
        }
        let held = std::mem::take(&mut self.pools.list[p as usize].held);
        let mut offered = 0;
        for (w, t) in held.into_iter().chain([(v, 0)]) {
            self.pools.release_base = t;
            if self.vcpus[w as usize].state == VState::Limited && self.offer(w, true) {
                offered += 1;
            }
        }
        self.pools.release_base = 0;
        for _ in 0..offered {
            let Some(l) = self.idle.pop() else { break };
            self.dispatch_next(l);
        }
        true
    }

    /// Charge a member's run to its pool.
    #[inline]
    pub(crate) fn pool_charge(&mut self, u: usize, used: u64) {
        let p = self.users[u].sch.pool;
        if p == NONE {
            return;
        }
        let (now, slice, bucket, n) = self.pool_consts();
        let pool = &mut self.pools.list[p as usize];
        let r = pool.rate(n);
        pool.charge(used, now, r, slice, bucket);
    }

    /// 6.4 entitlement with pools: the water-fill over users (`alloc`, by weights `w` and
    /// bounds `cap`) is redone while some pool's members get more than its limit: such a pool's
    /// members get its limit water-filled among them, and the others share what is left. A pool
    /// over its limit stays over it as others are fixed (what is left for the rest only grows),
    /// so at most one pass per pool.
    pub(crate) fn pool_fill(&self, alloc: &mut [f64], w: &[f64], cap: &[f64]) {
        let n = self.sched.n_cpu;
        let np = self.pools.list.len();
        let pool_of: Vec<u32> = self.users.iter().map(|u| u.sch.pool).collect();
        let mut fixed = vec![false; np];
        let mut left = n;
        loop {
            let mut over = None;
            for (p, &done) in fixed.iter().enumerate() {
                if done {
                    continue;
                }
                let sum: f64 = (0..alloc.len())
                    .filter(|&i| pool_of[i] == p as u32)
                    .map(|i| alloc[i])
                    .sum();
                let r = self.pools.list[p].rate(n);
                if sum > r * (1.0 + 1e-12) {
                    over = Some((p, r));
                    break;
                }
            }
            let Some((p, r)) = over else { return };
            fixed[p] = true;
            let mine: Vec<usize> = (0..alloc.len())
                .filter(|&i| pool_of[i] == p as u32)
                .collect();
            let mw: Vec<f64> = mine.iter().map(|&i| w[i]).collect();
            let mc: Vec<f64> = mine.iter().map(|&i| cap[i]).collect();
            for (k, a) in crate::waterfill::water_fill(r, &mw, &mc)
                .into_iter()
                .enumerate()
            {
                alloc[mine[k]] = a;
            }
            left -= r;
            let free: Vec<f64> = (0..alloc.len())
                .map(|i| {
                    let q = pool_of[i];
                    if q != NONE && fixed[q as usize] {
                        0.0
                    } else {
                        cap[i]
                    }
                })
                .collect();
            let rest = crate::waterfill::water_fill(left.max(0.0), w, &free);
            for i in 0..alloc.len() {
                if pool_of[i] == NONE || !fixed[pool_of[i] as usize] {
                    alloc[i] = rest[i];
                }
            }
        }
    }

    /// Monitor sample: each pool's figures since the last one (D5R19 PRCCPU).
    pub(crate) fn pools_sample(&mut self, start: Time) {
        let (now, n) = (self.now, self.sched.n_cpu);
        let len = (now - start).max(1) as f64;
        for p in &mut self.pools.list {
            let lim = p.limited_ns(now);
            let (u0, l0, c0) = p.mark;
            p.intervals.push(PoolInterval {
                start_s: start as f64 / 1e9,
                end_s: now as f64 / 1e9,
                cpu_pct: 100.0 * (p.used_ns - u0) as f64 / len,
                limit_pct: limit_pct(p.rate(n)),
                limited_pct: 100.0 * (lim - l0) as f64 / len,
                limited_count: p.limited_count - c0,
                members: p.members,
            });
            p.mark = (p.used_ns, lim, p.limited_count);
        }
    }

    /// The pools now, for the monitor records.
    pub(crate) fn pools_snapshot(&self) -> Vec<PoolSnap> {
        let n = self.sched.n_cpu;
        self.pools
            .list
            .iter()
            .map(|p| {
                let r = p.rate(n);
                PoolSnap {
                    name: p.name.clone(),
                    ptype: p.ptype,
                    limited: p.until > self.now,
                    capacity: p.limithard.is_none(),
                    deleted: p.deleted,
                    members: p.members,
                    limit_value: p.limithard.map(|f| f * 100.0).or(p.capacity).unwrap_or(0.0),
                    limit_processors: if r.is_finite() { r } else { 0.0 },
                    used_ns: p.used_ns,
                    limited_ns: p.limited_ns(self.now),
                    limited_count: p.limited_count,
                }
            })
            .collect()
    }

    /// The pools over the run (None without pools).
    pub(crate) fn pools_summary(&self) -> Option<Vec<PoolSummary>> {
        if self.pools.is_empty() {
            return None;
        }
        let dur = self.now.max(1) as f64;
        let n = self.sched.n_cpu;
        Some(
            self.pools
                .list
                .iter()
                .map(|p| PoolSummary {
                    name: p.name.clone(),
                    ptype: p.ptype,
                    limit_kind: if p.limithard.is_some() {
                        "limithard"
                    } else {
                        "capacity"
                    },
                    limit_value: p.limithard.map(|f| f * 100.0).or(p.capacity).unwrap_or(0.0),
                    limit_pct: limit_pct(p.rate(n)),
                    cpu_pct: 100.0 * p.used_ns as f64 / dur,
                    limited_pct: 100.0 * p.limited_ns(self.now) as f64 / dur,
                    limited_count: p.limited_count,
                    members: p.members,
                    deleted: p.deleted,
                    intervals: p.intervals.clone(),
                })
                .collect(),
        )
    }
}

/// A limit in percent of one processor (JSON has no infinity: no limit is -1).
fn limit_pct(rate: f64) -> f64 {
    if rate.is_finite() {
        100.0 * rate
    } else {
        -1.0
    }
}

/// The pools at the start and the timed pool commands make sense in time order: members and
/// SCHEDULE name known users and defined pools, DEFINE does not redefine, SET and DELETE name a
/// defined pool, DELETE only an empty one.
pub fn check_sequence(
    cfg: &crate::config::Config,
    actions: &[Action],
    users: &[crate::guest::User],
) -> Result<(), String> {
    let known = |u: &str| users.iter().any(|x| x.userid == u);
    let (mut pools, mut member) = check_start_pools(cfg, &known)?;
    for a in actions {
        check_pool_action(a, &mut pools, &mut member, &known)?;
    }
    Ok(())
}

/// The pools a check follows: each defined pool (by its upper-case name) with its member count.
type PoolCounts = std::collections::BTreeMap<String, u32>;
/// The pool (upper-case name) each userid in a pool is a member of.
type Membership = std::collections::BTreeMap<String, String>;

/// A pool's name as CP compares it (upper case).
fn pool_key(s: &str) -> String {
    s.to_ascii_uppercase()
}

/// The pools at the start: each defined once, its members known userids, none in two pools.
fn check_start_pools(
    cfg: &crate::config::Config,
    known: &impl Fn(&str) -> bool,
) -> Result<(PoolCounts, Membership), String> {
    let mut pools = PoolCounts::new();
    let mut member = Membership::new();
    for c in &cfg.cpupools {
        if pools.insert(pool_key(&c.name), 0).is_some() {
            return Err(format!("CPU pool {} is defined twice", c.name));
        }
        for m in &c.members {
            if !known(m) {
                return Err(format!("CPU pool {}: member {m} is no userid", c.name));
            }
            if member.insert(m.clone(), pool_key(&c.name)).is_some() {
                return Err(format!("{m} is a member of two CPU pools"));
            }
            *pools.get_mut(&pool_key(&c.name)).unwrap() += 1;
        }
    }
    Ok((pools, member))
}

/// One timed pool command against the pools so far (DEFINE, SET, DELETE, SCHEDULE), which
/// it then changes as CP would.
fn check_pool_action(
    a: &Action,
    pools: &mut PoolCounts,
    member: &mut Membership,
    known: &impl Fn(&str) -> bool,
) -> Result<(), String> {
    match a {
        Action::DefineCpupool { pool, .. } => {
            if !pool.members.is_empty() {
                return Err(format!(
                    "DEFINE CPUPOOL {}: members join with SCHEDULE",
                    pool.name
                ));
            }
            if pools.insert(pool_key(&pool.name), 0).is_some() {
                return Err(format!("DEFINE CPUPOOL {}: the pool exists", pool.name));
            }
        }
        Action::SetCpupool { name, .. } if !pools.contains_key(&pool_key(name)) => {
            return Err(format!("SET CPUPOOL {name}: no such pool"));
        }
        Action::DeleteCpupool { name, .. } => match pools.get(&pool_key(name)) {
            None => return Err(format!("DELETE CPUPOOL {name}: no such pool")),
            Some(n) if *n > 0 => {
                return Err(format!("DELETE CPUPOOL {name}: the pool has members"))
            }
            Some(_) => {
                pools.remove(&pool_key(name));
            }
        },
        Action::SchedulePool { userid, pool, .. } => {
            check_schedule(userid, pool.as_deref(), pools, member, known)?
        }
        _ => {}
    }
    Ok(())
}

/// SCHEDULE `userid` TO POOL `pool` (None: out of its pool): a known userid and a defined
/// pool; it leaves its old pool and joins the new one.
fn check_schedule(
    userid: &str,
    pool: Option<&str>,
    pools: &mut PoolCounts,
    member: &mut Membership,
    known: &impl Fn(&str) -> bool,
) -> Result<(), String> {
    if !known(userid) {
        return Err(format!("SCHEDULE {userid}: unknown userid"));
    }
    if let Some(p) = pool {
        if !pools.contains_key(&pool_key(p)) {
            return Err(format!("SCHEDULE {userid} TO POOL {p}: no such pool"));
        }
    }
    if let Some(old) = member.remove(userid) {
        *pools.get_mut(&old).unwrap() -= 1;
    }
    if let Some(p) = pool {
        member.insert(userid.to_string(), pool_key(p));
        *pools.get_mut(&pool_key(p)).unwrap() += 1;
    }
    Ok(())
}
