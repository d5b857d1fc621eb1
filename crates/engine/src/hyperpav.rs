//! HyperPAV: a logical control unit's pool of alias exposures (rows D11, D12).
//!
//! A 3390 volume has one base exposure: without aliases it serves one I/O at a time. With
//! HyperPAV, an I/O to a busy base runs on a free alias of the volume's control unit, bound to
//! that one I/O: at its completion the alias goes back to the pool. z/VM uses aliases for guest
//! minidisk I/O (since 5.3) and, with SET PAGING ALIAS ON (6.4, switch `paging_alias`), for
//! paging I/O. SET CU ... SHARE divides the pool between the two I/O types: each type's
//! entitlement is aliases x its share / the sum of the shares (15 aliases at 100 : 200 -> 5 :
//! 10; 16 at 140 : 20 -> 14 : 2, seed 000). A type below its entitlement takes a free alias; a
//! type at or above it takes one only while no I/O of the other type waits for an alias
//! (assumed: the seed gives the entitlement arithmetic, not the lending rule). When an alias is
//! freed, the waiting type furthest below its entitlement gets it.
//!
//! The pool owns its membership (which paging and minidisk volumes draw on it, as which type)
//! and its counts; a volume (`io::Device`) only lends an alias to its first waiting I/O and
//! hands back those it no longer needs, through its methods.

use crate::entity::Entity;
use crate::queue::Time;
use serde::Serialize;

/// I/O types sharing the pool.
pub const PAGING: usize = 0;
pub const MINIDISK: usize = 1;

#[derive(Clone, Debug)]
pub struct AliasPool {
    pub total: u32,
    /// Entitlement of each type (aliases).
    pub entitled: [f64; 2],
    pub shares: [f64; 2],
    /// Paging I/O may use aliases (SET PAGING ALIAS ON and a level that has it).
    pub paging: bool,
    pub in_use: [u32; 2],
    /// Integral of aliases in use over time (alias-ns), maximum in use, aliases taken, and
    /// I/Os that found no alias they could take (they waited on their volume).
    pub in_use_ns: [u128; 2],
    pub max_in_use: [u32; 2],
    pub taken: [u64; 2],
    pub refused: [u64; 2],
    last: Time,
    /// The volumes drawing on the pool, each with its I/O type: the ECKD paging volumes (with
    /// paging aliases on) then the ECKD minidisk volumes, in device order.
    pub members: Vec<(Entity, usize)>,
}

impl AliasPool {
    pub fn new(total: u32, share_paging: f64, share_minidisk: f64, paging: bool) -> AliasPool {
        // The shares are 1..10000 (Config::check refuses others; no clamping here).
        let shares = [share_paging, share_minidisk];
        // Without paging aliases the minidisk I/O has the whole pool.
        let sum = if paging {
            shares[0] + shares[1]
        } else {
            shares[1]
        };
        let ent = |k: usize| {
            if sum <= 0.0 || (k == PAGING && !paging) {
                0.0
            } else {
                total as f64 * shares[k] / sum
            }
        };
        AliasPool {
            total,
            entitled: [ent(PAGING), ent(MINIDISK)],
            shares,
            paging,
            in_use: [0; 2],
            in_use_ns: [0; 2],
            max_in_use: [0; 2],
            taken: [0; 2],
            refused: [0; 2],
            last: 0,
            members: Vec::new(),
        }
    }

    /// The scenario's alias pool, if it has one, with the ECKD paging volumes (when paging may
    /// use aliases) and the ECKD minidisk volumes as its members (`paging`, `minidisks`: the
    /// two subsystems' device lists, if they exist).
    pub fn for_config(
        cfg: &crate::config::Config,
        level: &crate::level::Level,
        paging: Option<&[crate::io::Device]>,
        minidisks: Option<&[crate::io::Device]>,
    ) -> Option<AliasPool> {
        let h = cfg.hyperpav.as_ref()?;
        let paging_on =
            h.paging_alias && level.switches.paging_alias == crate::level::PagingAlias::Supported;
        let mut pool = AliasPool::new(h.aliases, h.share_paging, h.share_minidisk, paging_on);
        let eckd = |d: &crate::io::Device| d.dtype == crate::io::DevType::Eckd;
        if let Some(pg) = paging.filter(|_| paging_on) {
            let vols = pg.iter().enumerate().filter(|(_, d)| eckd(d));
            pool.members
                .extend(vols.map(|(i, _)| (Entity::PagingDevice(i as u32), PAGING)));
        }
        if let Some(dd) = minidisks {
            let vols = dd.iter().enumerate().filter(|(_, d)| eckd(d));
            pool.members
                .extend(vols.map(|(i, _)| (Entity::Minidisk(i as u32), MINIDISK)));
        }
        Some(pool)
    }

    /// Which member volume gets a free alias now, given each member's I/Os waiting for an
    /// exposure (`queued`, in member order): of the types with I/O waiting, furthest below its
    /// entitlement first, the first type that may take one gives it to its volume with the
    /// longest queue (the first such volume on a tie). None: no alias is given.
    pub fn grant(&self, queued: &[usize]) -> Option<usize> {
        let mut waiting = [false; 2];
        for (&(_, k), &n) in self.members.iter().zip(queued) {
            waiting[k] |= n > 0;
        }
        for k in self.order(waiting) {
            if !self.may_take(k, waiting[1 - k]) {
                continue;
            }
            let best = (0..queued.len())
                .filter(|&m| self.members[m].1 == k && queued[m] > 0)
                .max_by_key(|&m| (queued[m], std::cmp::Reverse(m)));
            if best.is_some() {
                return best;
            }
        }
        None
    }

    /// Bring the time integral up to `now`.
    pub fn account(&mut self, now: Time) {
        let dt = now.saturating_sub(self.last) as u128;
        for k in 0..2 {
            self.in_use_ns[k] += dt * self.in_use[k] as u128;
        }
        self.last = now.max(self.last);
    }

    /// Whether type `k` may take a free alias now; `other_waiting`: an I/O of the other type
    /// waits for one.
    pub fn may_take(&self, k: usize, other_waiting: bool) -> bool {
        if k == PAGING && !self.paging {
            return false;
        }
        if self.in_use[0] + self.in_use[1] >= self.total {
            return false;
        }
        (self.in_use[k] as f64) < self.entitled[k] - 1e-9 || !other_waiting
    }

    pub fn take(&mut self, k: usize, now: Time) {
        self.account(now);
        self.in_use[k] += 1;
        self.taken[k] += 1;
        self.max_in_use[k] = self.max_in_use[k].max(self.in_use[k]);
    }

    pub fn give_back(&mut self, k: usize, now: Time) {
        self.account(now);
        self.in_use[k] = self.in_use[k].saturating_sub(1);
    }

    /// Of the types with I/O waiting, the order to offer a freed alias in: furthest below its
    /// entitlement first.
    pub fn order(&self, waiting: [bool; 2]) -> Vec<usize> {
        let mut ks: Vec<usize> = (0..2).filter(|&k| waiting[k]).collect();
        ks.sort_by(|&a, &b| {
            let da = self.in_use[a] as f64 - self.entitled[a];
            let db = self.in_use[b] as f64 - self.entitled[b];
            da.partial_cmp(&db).unwrap_or(std::cmp::Ordering::Equal)
        });
        ks
    }

    pub fn summary(&self, now: Time) -> HyperPavSummary {
        let mut p = self.clone();
        p.account(now);
        let secs = now.max(1) as f64;
        let fig = |v: [f64; 2]| TypeFigures {
            paging: v[0],
            minidisk: v[1],
        };
        HyperPavSummary {
            aliases: self.total,
            paging_alias: self.paging,
            share: fig(self.shares),
            entitlement: fig(self.entitled),
            mean_in_use: fig([p.in_use_ns[0] as f64 / secs, p.in_use_ns[1] as f64 / secs]),
            max_in_use: fig([self.max_in_use[0] as f64, self.max_in_use[1] as f64]),
            taken: fig([self.taken[0] as f64, self.taken[1] as f64]),
            refused: fig([self.refused[0] as f64, self.refused[1] as f64]),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct TypeFigures {
    pub paging: f64,
    pub minidisk: f64,
}

/// The pool in the run summary (`hyperpav`; an HPALIAS-like view).
#[derive(Clone, Debug, Serialize)]
pub struct HyperPavSummary {
    pub aliases: u32,
    pub paging_alias: bool,
    pub share: TypeFigures,
    pub entitlement: TypeFigures,
    pub mean_in_use: TypeFigures,
    pub max_in_use: TypeFigures,
    pub taken: TypeFigures,
    pub refused: TypeFigures,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entitlements_follow_the_shares() {
        // Seed 000: 15 aliases at 100 : 200 -> 5 : 10; 16 at 140 : 20 -> 14.00 : 2.00 (test).
        let p = AliasPool::new(15, 100.0, 200.0, true);
        assert_eq!(p.entitled, [5.0, 10.0]);
        let p = AliasPool::new(16, 140.0, 20.0, true);
        assert_eq!(p.entitled, [14.0, 2.0]);
        // Without SET PAGING ALIAS ON the minidisk I/O has the whole pool.
        let p = AliasPool::new(16, 140.0, 20.0, false);
        assert_eq!(p.entitled, [0.0, 16.0]);
        assert!(!p.may_take(PAGING, false));
    }

    #[test]
    fn a_free_alias_goes_to_the_longest_queue_of_the_type_furthest_below_its_entitlement() {
        let mut p = AliasPool::new(3, 100.0, 200.0, true); // 1 : 2
        p.members = vec![
            (Entity::PagingDevice(0), PAGING),
            (Entity::PagingDevice(1), PAGING),
            (Entity::Minidisk(0), MINIDISK),
            (Entity::Minidisk(1), MINIDISK),
        ];
        assert_eq!(p.grant(&[0, 0, 0, 0]), None, "nothing waits");
        assert_eq!(p.grant(&[1, 3, 0, 0]), Some(1), "longest paging queue");
        assert_eq!(p.grant(&[2, 2, 0, 0]), Some(0), "the first volume on a tie");
        assert_eq!(
            p.grant(&[5, 0, 0, 1]),
            Some(3),
            "0 of 2 is further below than 0 of 1"
        );
        p.take(PAGING, 0);
        assert_eq!(
            p.grant(&[5, 0, 0, 1]),
            Some(3),
            "paging at its 1: minidisk first"
        );
        p.take(MINIDISK, 0);
        p.take(MINIDISK, 0);
        assert_eq!(p.grant(&[5, 0, 0, 1]), None, "pool empty");
        p.give_back(MINIDISK, 0);
        assert_eq!(
            p.grant(&[5, 0, 0, 1]),
            Some(3),
            "minidisk below its entitlement first"
        );
        assert_eq!(
            p.grant(&[5, 0, 0, 0]),
            Some(0),
            "lent while minidisk does not wait"
        );
    }

    #[test]
    fn a_type_over_its_entitlement_borrows_only_while_the_other_does_not_wait() {
        let mut p = AliasPool::new(3, 100.0, 200.0, true); // 1 : 2
        p.take(PAGING, 0);
        assert!(
            p.may_take(PAGING, false),
            "lends while minidisk I/O does not wait"
        );
        assert!(!p.may_take(PAGING, true), "not while it waits");
        assert!(p.may_take(MINIDISK, true));
        p.take(PAGING, 1);
        p.take(MINIDISK, 2);
        assert!(!p.may_take(MINIDISK, false), "pool empty");
        p.give_back(PAGING, 3);
        assert_eq!(p.order([true, true]), vec![MINIDISK, PAGING]);
        // 3 ns at 1 paging alias, 1 ns at 2, ...: the integral.
        p.account(10);
        assert_eq!(p.in_use_ns[PAGING], 1 + 2 * 2 + 7);
    }
}

#[cfg(test)]
#[path = "hyperpav_tests.rs"]
mod unit;
