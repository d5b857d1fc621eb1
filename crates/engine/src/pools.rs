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

#[cfg(test)]
mod tests {
    //! `Pools`' rules against hand-computed values (times in ns; 1 ms = 1e6 ns).
    use super::*;

    const MS: Time = 1_000_000;

    fn cfg(name: &str, lh: Option<f64>, cap: Option<f64>) -> PoolCfg {
        PoolCfg {
            name: name.into(),
            limithard_pct: lh,
            capacity: cap,
            ptype: PoolType::Ifl,
            members: Vec::new(),
        }
    }

    /// A clock with a 1 ms minor time slice and a bucket of 2 slices, 4 processors online.
    fn clock(now: Time) -> PoolClock {
        PoolClock {
            now,
            slice: MS as f64,
            bucket: 2.0,
            online: 4.0,
        }
    }

    fn one(c: PoolCfg) -> Pools {
        let mut p = Pools::default();
        p.define(&c, 0).unwrap();
        p
    }

    #[test]
    fn the_limit_in_processors() {
        // LIMITHARD 25 % of 4 online = 1 processor; 100 % is no limit at all.
        assert_eq!(one(cfg("P", Some(25.0), None)).rate(0, 4.0), 1.0);
        assert_eq!(one(cfg("P", Some(100.0), None)).rate(0, 4.0), f64::INFINITY);
        // CAPACITY 3 is 3 processors' worth, never more than those online (2).
        assert_eq!(one(cfg("P", None, Some(3.0))).rate(0, 4.0), 3.0);
        assert_eq!(one(cfg("P", None, Some(3.0))).rate(0, 2.0), 2.0);
        // LIMITHARD follows the online processors: 25 % of 8 = 2.
        assert_eq!(one(cfg("P", Some(25.0), None)).rate(0, 8.0), 2.0);
        assert_eq!(limit_pct(1.5), 150.0);
        assert_eq!(limit_pct(f64::INFINITY), -1.0);
    }

    #[test]
    fn a_debt_holds_the_pool_until_it_is_repaid_at_the_limit() {
        // 1 processor's limit. At 1 ms the credit has grown to 1 ms (bucket 2 slices x 1 ms x
        // 1 processor = 2 ms, not reached); a 5 ms run leaves -4 ms, repaid at 1 ns per ns by
        // 1 + 4 = 5 ms.
        let mut p = one(cfg("P", Some(25.0), None));
        p.charge(0, 5 * MS, clock(MS));
        assert_eq!(p.until(0), 5 * MS);
        assert_eq!(p.list[0].limited_count, 1);
        // At 3 ms a 1 ms run: -4 + 2 (grown) - 1 = -3 ms, so held until 3 + 3 = 6 ms; the same
        // limited period (it began at 1 ms and had not ended).
        p.charge(0, MS, clock(3 * MS));
        assert_eq!(p.until(0), 6 * MS);
        assert_eq!(p.list[0].limited_count, 1);
        // Limited from 1 to 6 ms: 5 ms by 10 ms.
        assert_eq!(p.list[0].limited_ns(10 * MS), 5 * MS);
        assert_eq!(p.list[0].used_ns, 6 * MS);
    }

    #[test]
    fn the_credit_is_bounded_by_the_bucket() {
        // Idle for 100 ms, the credit stops at 2 slices x 1 ms x 1 processor = 2 ms: a 3 ms run
        // then leaves -1 ms, held 1 ms.
        let mut p = one(cfg("P", Some(25.0), None));
        p.charge(0, 3 * MS, clock(100 * MS));
        assert_eq!(p.until(0), 101 * MS);
        // A 2 ms run after the same idle time leaves no debt: not held, no limited period.
        let mut q = one(cfg("P", Some(25.0), None));
        q.charge(0, 2 * MS, clock(100 * MS));
        assert_eq!(q.until(0), 0);
        assert_eq!(q.list[0].limited_count, 0);
        // Below one processor the bucket is still one processor's: CAPACITY 0.5 grows 0.5 ns
        // per ns up to 2 slices x 1 ms x max(0.5, 1) = 2 ms.
        let mut h = one(cfg("H", None, Some(0.5)));
        h.charge(0, 3 * MS, clock(100 * MS));
        // -1 ms repaid at 0.5 ns per ns: 2 ms.
        assert_eq!(h.until(0), 102 * MS);
    }

    #[test]
    fn a_second_limited_period_is_counted_and_added() {
        let mut p = one(cfg("P", Some(25.0), None));
        p.charge(0, 3 * MS, clock(MS)); // credit 1 - 3 = -2: held 1..3 ms
        assert_eq!(p.until(0), 3 * MS);
        // At 10 ms the debt is long repaid (credit -2 + 9 = 7, capped at 2), a 4 ms run: -2,
        // held 10..12 ms: a second period.
        p.charge(0, 4 * MS, clock(10 * MS));
        assert_eq!(p.until(0), 12 * MS);
        assert_eq!(p.list[0].limited_count, 2);
        // 2 ms + 2 ms limited by 20 ms; by 11 ms, 2 ms + 1 ms.
        assert_eq!(p.list[0].limited_ns(20 * MS), 4 * MS);
        assert_eq!(p.list[0].limited_ns(11 * MS), 3 * MS);
    }

    #[test]
    fn a_pool_without_a_limit_counts_use_and_never_holds() {
        let mut p = one(cfg("P", Some(100.0), None));
        p.charge(0, 50 * MS, clock(MS));
        assert_eq!(p.until(0), 0);
        assert_eq!(p.list[0].used_ns, 50 * MS);
        assert_eq!(p.list[0].limited_count, 0);
    }

    #[test]
    fn set_cpupool_charges_the_debt_at_the_old_limit_first() {
        // Held until 5 ms at 1 processor (debt 4 ms at 1 ms). SET at 2 ms to 50 % (2
        // processors): the debt is first grown at the old limit (-4 + 1 = -3 ms at 2 ms), then
        // repaid at 2 ns per ns: 2 + 1.5 = 3.5 ms.
        let mut p = one(cfg("P", Some(25.0), None));
        p.charge(0, 5 * MS, clock(MS));
        p.set("p", Some(50.0), None, clock(2 * MS)).unwrap();
        assert_eq!(p.until(0), 3 * MS + MS / 2);
        assert_eq!(p.rate(0, 4.0), 2.0);
        assert!(p.set("Q", Some(50.0), None, clock(2 * MS)).is_err());
    }

    #[test]
    fn define_delete_and_membership_follow_cp() {
        let mut p = Pools::default();
        p.define(&cfg("Linux", None, Some(1.0)), 0).unwrap();
        // Names compare as CP does, in upper case.
        assert!(p.define(&cfg("LINUX", None, Some(2.0)), 0).is_err());
        assert_eq!(p.number("linux"), Some(0));
        p.move_member(NONE, 0);
        assert!(p.delete("LINUX").is_err(), "a pool with a member");
        p.move_member(0, NONE);
        p.delete("LINUX").unwrap();
        assert_eq!(p.number("LINUX"), None);
        assert!(p.delete("LINUX").is_err(), "already deleted");
        // Redefined after the delete: a new slot, the old one kept for user indices.
        p.define(&cfg("LINUX", None, Some(2.0)), 0).unwrap();
        assert_eq!(p.number("LINUX"), Some(1));
        assert_eq!(p.len(), 2);
    }

    #[test]
    fn a_binding_pool_shares_its_limit_and_the_others_the_rest() {
        // 4 processors, users A and B in a pool of CAPACITY 1, C outside; equal weights, no
        // bound. Without the pool each gets 4/3; the pool's 8/3 is over 1, so A and B get 0.5
        // each and C what is left, 3.
        let p = one(cfg("P", None, Some(1.0)));
        let pool_of = [0, 0, NONE];
        let w = [1.0; 3];
        let cap = [4.0; 3];
        let mut alloc = crate::waterfill::water_fill(4.0, &w, &cap);
        p.fill(4.0, &pool_of, &mut alloc, &w, &cap);
        for (a, e) in alloc.iter().zip([0.5, 0.5, 3.0]) {
            assert!((a - e).abs() < 1e-12, "{alloc:?}");
        }
        // Weights divide the pool: 3 : 1 gives 0.75 and 0.25.
        let w = [3.0, 1.0, 1.0];
        let mut alloc = crate::waterfill::water_fill(4.0, &w, &cap);
        p.fill(4.0, &pool_of, &mut alloc, &w, &cap);
        for (a, e) in alloc.iter().zip([0.75, 0.25, 3.0]) {
            assert!((a - e).abs() < 1e-12, "{alloc:?}");
        }
        // A pool that does not bind changes nothing: C bounded at 0.5, A and B want 0.2 each
        // in a pool of 1.
        let cap = [0.2, 0.2, 0.5];
        let mut alloc = crate::waterfill::water_fill(4.0, &w, &cap);
        let before = alloc.clone();
        p.fill(4.0, &pool_of, &mut alloc, &w, &cap);
        assert_eq!(alloc, before);
    }

    #[test]
    fn the_monitor_interval_shows_use_limit_and_limited_time() {
        // 10 ms interval: 6 ms used, limited from 1 to 6 ms (5 ms = 50 %), one limited period,
        // the limit 1 processor = 100 %.
        let mut p = one(cfg("P", Some(25.0), None));
        p.move_member(NONE, 0);
        p.charge(0, 5 * MS, clock(MS));
        p.charge(0, MS, clock(3 * MS));
        p.sample(0, 10 * MS, 4.0);
        let i = &p.list[0].intervals[0];
        assert!((i.cpu_pct - 60.0).abs() < 1e-9, "{i:?}");
        assert!((i.limited_pct - 50.0).abs() < 1e-9, "{i:?}");
        assert_eq!((i.limit_pct, i.limited_count, i.members), (100.0, 1, 1));
        // The next interval counts only what is new: nothing.
        p.sample(10 * MS, 20 * MS, 4.0);
        let j = &p.list[0].intervals[1];
        assert_eq!((j.cpu_pct, j.limited_pct, j.limited_count), (0.0, 0.0, 0));
        let s = &p.summary(20 * MS, 4.0).unwrap()[0];
        assert!((s.cpu_pct - 30.0).abs() < 1e-9 && (s.limited_pct - 25.0).abs() < 1e-9);
        assert_eq!((s.limit_kind, s.limit_value), ("limithard", 25.0));
        let snap = &p.snapshot(4 * MS, 4.0)[0];
        assert!(snap.limited && !snap.capacity);
        assert_eq!((snap.limited_ns, snap.limit_processors), (3 * MS, 1.0));
    }

    proptest::proptest! {
        /// Whatever the runs charged, a pool is never limited longer than the time elapsed, and
        /// over a long enough horizon its members' use is at most its limit x time + the bucket.
        #[test]
        fn use_stays_within_the_limit_and_the_bucket(
            runs in proptest::collection::vec((1u64..5_000_000, 0u64..3_000_000), 1..60),
            lh in 5.0f64..95.0,
        ) {
            let mut p = one(cfg("P", Some(lh), None));
            let rate = lh / 100.0 * 4.0;
            let mut now: Time = 0;
            for (gap, used) in runs {
                // A member runs only when the pool does not hold it.
                now = (now + gap).max(p.until(0));
                p.charge(0, used, clock(now));
            }
            let end = now.max(p.until(0));
            let depth = 2.0 * MS as f64 * rate.max(1.0);
            let used = p.list[0].used_ns as f64;
            proptest::prop_assert!(used <= rate * end as f64 + depth + 1.0);
            proptest::prop_assert!(p.list[0].limited_ns(end) <= end);
        }
    }
}
