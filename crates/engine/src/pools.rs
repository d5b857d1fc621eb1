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
use crate::queue::Time;
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
    list: Vec<Pool>,
    /// While the pool releases a held virtual CPU: the adjusted TOD it was held at (z/VM <= 6.3
    /// deadlines count from it, so the members' order follows their shares and their waits,
    /// not the order they are released in); 0 otherwise.
    release_base: Time,
}

/// What a pool's charge needs of the scheduler: the time, the minor time slice (ns), the bucket
/// depth in slices, and the online processors.
#[derive(Clone, Copy, Debug)]
pub struct PoolClock {
    pub now: Time,
    pub slice: f64,
    pub bucket: f64,
    pub online: f64,
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

    /// While a pool releases a held virtual CPU: the adjusted TOD it was held at (0: none).
    #[inline]
    pub fn release_base(&self) -> Time {
        self.release_base
    }

    /// A pool starts (`t` > 0) or ends (0) releasing a virtual CPU held since adjusted TOD `t`.
    #[inline]
    pub fn set_release_base(&mut self, t: Time) {
        self.release_base = t;
    }

    /// DEFINE CPUPOOL.
    pub fn define(&mut self, c: &PoolCfg, now: Time) -> Result<(), String> {
        if self.find(&c.name).is_some() {
            return Err(format!("DEFINE CPUPOOL {}: the pool exists", c.name));
        }
        self.list.push(Pool::new(c, now));
        Ok(())
    }

    /// SET CPUPOOL: the debt so far is charged at the old limit, then the limit changes.
    pub fn set(
        &mut self,
        name: &str,
        lh: Option<f64>,
        cap: Option<f64>,
        k: PoolClock,
    ) -> Result<(), String> {
        let i = self
            .find(name)
            .ok_or_else(|| format!("SET CPUPOOL {name}: no such pool"))?;
        let p = &mut self.list[i];
        let r = p.rate(k.online);
        p.charge(0, k.now, r, k.slice, k.bucket);
        p.limithard = lh.map(|x| x / 100.0);
        p.capacity = cap;
        let r = p.rate(k.online);
        p.set_until(k.now, r);
        Ok(())
    }

    /// DELETE CPUPOOL (an empty pool only).
    pub fn delete(&mut self, name: &str) -> Result<(), String> {
        let i = self
            .find(name)
            .ok_or_else(|| format!("DELETE CPUPOOL {name}: no such pool"))?;
        if self.list[i].members > 0 {
            return Err(format!(
                "DELETE CPUPOOL {name}: the pool has members (SCHEDULE them NOPOOL first)"
            ));
        }
        self.list[i].deleted = true;
        Ok(())
    }

    /// The pool named `name` (defined, not deleted), as a user's pool number.
    pub fn number(&self, name: &str) -> Option<u32> {
        self.find(name).map(|i| i as u32)
    }

    /// A user moves from pool `from` to pool `to` (either NONE: no pool).
    pub fn move_member(&mut self, from: u32, to: u32) {
        if from != NONE {
            self.list[from as usize].members -= 1;
        }
        if to != NONE {
            self.list[to as usize].members += 1;
        }
    }

    /// Pool `p`'s limit in processors with `online` processors online (infinite: no limit).
    pub fn rate(&self, p: u32, online: f64) -> f64 {
        self.list[p as usize].rate(online)
    }

    /// How many pools were defined (deleted ones included: users' pool numbers index them).
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Until when pool `p` holds its members' virtual CPUs (0 or past: not held).
    #[inline(always)]
    pub fn until(&self, p: u32) -> Time {
        self.list[p as usize].until
    }

    /// Virtual CPU `v` is held on the limit list by pool `p` from adjusted TOD `t`.
    pub fn hold(&mut self, p: u32, v: u32, t: Time) {
        self.list[p as usize].held.push((v, t));
    }

    /// Whether pool `p` holds any virtual CPU.
    pub fn holds_any(&self, p: u32) -> bool {
        !self.list[p as usize].held.is_empty()
    }

    /// The virtual CPUs pool `p` held, with their adjusted TODs, in the order held.
    pub fn take_held(&mut self, p: u32) -> Vec<(u32, Time)> {
        std::mem::take(&mut self.list[p as usize].held)
    }

    /// Charge `used` ns of a member's run to pool `p`.
    #[inline]
    pub fn charge(&mut self, p: u32, used: u64, k: PoolClock) {
        let pool = &mut self.list[p as usize];
        let r = pool.rate(k.online);
        pool.charge(used, k.now, r, k.slice, k.bucket);
    }

    /// 6.4 entitlement with pools: the water-fill over users (`alloc`, by weights `w` and
    /// bounds `cap`; `pool_of`: each user's pool or NONE) is redone while some pool's members
    /// get more than its limit: such a pool's members get its limit water-filled among them,
    /// and the others share what is left. A pool over its limit stays over it as others are
    /// fixed (what is left for the rest only grows), so at most one pass per pool.
    pub fn fill(&self, online: f64, pool_of: &[u32], alloc: &mut [f64], w: &[f64], cap: &[f64]) {
        let n = online;
        let np = self.list.len();
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
                let r = self.list[p].rate(n);
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

    /// Monitor sample from `start` to `now`: each pool's figures since the last one (D5R19
    /// PRCCPU).
    pub fn sample(&mut self, start: Time, now: Time, online: f64) {
        let n = online;
        let len = (now - start).max(1) as f64;
        for p in &mut self.list {
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

    /// The pools at `now`, for the monitor records.
    pub fn snapshot(&self, now: Time, online: f64) -> Vec<PoolSnap> {
        let n = online;
        self.list
            .iter()
            .map(|p| {
                let r = p.rate(n);
                PoolSnap {
                    name: p.name.clone(),
                    ptype: p.ptype,
                    limited: p.until > now,
                    capacity: p.limithard.is_none(),
                    deleted: p.deleted,
                    members: p.members,
                    limit_value: p.limithard.map(|f| f * 100.0).or(p.capacity).unwrap_or(0.0),
                    limit_processors: if r.is_finite() { r } else { 0.0 },
                    used_ns: p.used_ns,
                    limited_ns: p.limited_ns(now),
                    limited_count: p.limited_count,
                }
            })
            .collect()
    }

    /// The pools over the run up to `now` (None without pools).
    pub fn summary(&self, now: Time, online: f64) -> Option<Vec<PoolSummary>> {
        if self.is_empty() {
            return None;
        }
        let dur = now.max(1) as f64;
        let n = online;
        Some(
            self.list
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
                    limited_pct: 100.0 * p.limited_ns(now) as f64 / dur,
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
