//! Unit tests of `AliasPool`: the entitlement arithmetic, the lending rule, the order a freed
//! alias is offered in, the choice of volume, and the time integral and counters.

use super::*;
use crate::rng::Rng;

/// A pool with `np` paging volumes then `nm` minidisk volumes as members.
fn pool(total: u32, sp: f64, sm: f64, paging: bool, np: u32, nm: u32) -> AliasPool {
    let mut p = AliasPool::new(total, sp, sm, paging);
    p.members = (0..np)
        .map(|i| (Entity::PagingDevice(i), PAGING))
        .chain((0..nm).map(|i| (Entity::Minidisk(i), MINIDISK)))
        .collect();
    p
}

#[test]
fn fractional_entitlements_sum_to_the_pool() {
    let p = AliasPool::new(10, 100.0, 200.0, true);
    assert!((p.entitled[PAGING] - 10.0 / 3.0).abs() < 1e-12);
    assert!((p.entitled[MINIDISK] - 20.0 / 3.0).abs() < 1e-12);
    assert!((p.entitled[0] + p.entitled[1] - 10.0).abs() < 1e-12);
    assert_eq!(p.shares, [100.0, 200.0]);
    assert_eq!((p.in_use, p.taken, p.refused), ([0, 0], [0, 0], [0, 0]));
}

#[test]
fn equal_shares_halve_the_pool_and_only_the_ratio_matters() {
    assert_eq!(AliasPool::new(8, 100.0, 100.0, true).entitled, [4.0, 4.0]);
    assert_eq!(AliasPool::new(8, 1.0, 3.0, true).entitled, [2.0, 6.0]);
    assert_eq!(AliasPool::new(8, 1000.0, 3000.0, true).entitled, [2.0, 6.0]);
}

#[test]
fn without_paging_aliases_the_paging_share_is_ignored() {
    for sp in [1.0, 100.0, 10_000.0] {
        let p = AliasPool::new(12, sp, 50.0, false);
        assert_eq!(p.entitled, [0.0, 12.0], "share {sp}");
        assert!(!p.paging);
    }
}

#[test]
fn paging_may_never_take_an_alias_without_paging_aliases() {
    let p = AliasPool::new(12, 100.0, 100.0, false);
    assert!(!p.may_take(PAGING, false));
    assert!(!p.may_take(PAGING, true));
    assert!(p.may_take(MINIDISK, false));
    assert!(p.may_take(MINIDISK, true));
}

#[test]
fn an_empty_pool_lends_nothing() {
    let p = pool(0, 100.0, 100.0, true, 1, 1);
    assert_eq!(p.entitled, [0.0, 0.0]);
    for k in [PAGING, MINIDISK] {
        assert!(!p.may_take(k, false));
        assert!(!p.may_take(k, true));
    }
    assert_eq!(p.grant(&[3, 3]), None);
}

#[test]
fn exactly_at_the_entitlement_a_type_yields_to_the_other() {
    let mut p = AliasPool::new(4, 100.0, 100.0, true); // 2 : 2
    p.take(PAGING, 0);
    assert!(p.may_take(PAGING, true), "1 of 2: below");
    p.take(PAGING, 0);
    assert!(!p.may_take(PAGING, true), "2 of 2: at its entitlement");
    assert!(
        p.may_take(PAGING, false),
        "but lends while minidisk does not wait"
    );
    p.take(PAGING, 0);
    assert!(!p.may_take(PAGING, true));
    assert!(p.may_take(MINIDISK, true), "minidisk 0 of 2 still may");
}

#[test]
fn a_fractional_entitlement_allows_the_integer_below_it() {
    let mut p = AliasPool::new(10, 100.0, 200.0, true); // 3.33 : 6.67
    for _ in 0..3 {
        p.take(PAGING, 0);
    }
    assert!(p.may_take(PAGING, true), "3 < 3.33");
    p.take(PAGING, 0);
    assert!(!p.may_take(PAGING, true), "4 > 3.33, with 6 aliases free");
    for _ in 0..5 {
        p.take(MINIDISK, 0);
    }
    assert!(p.may_take(MINIDISK, true), "5 < 6.67 and one alias left");
}

#[test]
fn a_full_pool_refuses_even_when_nothing_else_waits() {
    let mut p = AliasPool::new(3, 100.0, 200.0, true);
    p.take(MINIDISK, 0);
    p.take(MINIDISK, 0);
    assert!(p.may_take(PAGING, true), "2 of 3 in use");
    p.take(PAGING, 0);
    for k in [PAGING, MINIDISK] {
        assert!(!p.may_take(k, false));
        assert!(!p.may_take(k, true));
    }
    // A type borrowing the whole pool fills it too.
    let mut q = AliasPool::new(3, 100.0, 200.0, true);
    for _ in 0..3 {
        assert!(q.may_take(PAGING, false));
        q.take(PAGING, 0);
    }
    assert!(!q.may_take(PAGING, false));
    assert!(!q.may_take(MINIDISK, true));
}

#[test]
fn take_and_give_back_keep_the_counts() {
    let mut p = AliasPool::new(5, 100.0, 100.0, true);
    p.take(PAGING, 0);
    p.take(PAGING, 0);
    p.take(MINIDISK, 0);
    assert_eq!((p.in_use, p.taken, p.max_in_use), ([2, 1], [2, 1], [2, 1]));
    p.give_back(PAGING, 0);
    p.give_back(PAGING, 0);
    assert_eq!((p.in_use, p.taken, p.max_in_use), ([0, 1], [2, 1], [2, 1]));
    p.take(PAGING, 0);
    assert_eq!((p.in_use, p.taken, p.max_in_use), ([1, 1], [3, 1], [2, 1]));
    // Giving back more than was taken does not wrap.
    p.give_back(MINIDISK, 0);
    p.give_back(MINIDISK, 0);
    assert_eq!(p.in_use, [1, 0]);
}

#[test]
fn the_integral_counts_each_type_over_time() {
    let mut p = AliasPool::new(5, 100.0, 100.0, true);
    p.take(MINIDISK, 100); // nothing in use before 100
    p.take(PAGING, 150);
    p.take(MINIDISK, 200);
    p.give_back(MINIDISK, 400);
    p.give_back(PAGING, 1000);
    p.account(1500);
    // Minidisk: 1 over [100, 200), 2 over [200, 400), 1 over [400, 1500).
    assert_eq!(p.in_use_ns[MINIDISK], 100 + 400 + 1100);
    // Paging: 1 over [150, 1000).
    assert_eq!(p.in_use_ns[PAGING], 850);
    // Accounting again at the same time adds nothing.
    p.account(1500);
    assert_eq!(p.in_use_ns, [850, 1600]);
}

#[test]
fn accounting_never_runs_backwards() {
    let mut p = AliasPool::new(5, 100.0, 100.0, true);
    p.take(PAGING, 100);
    p.account(50); // earlier: nothing, and the clock stays at 100
    assert_eq!(p.in_use_ns, [0, 0]);
    p.account(110);
    assert_eq!(p.in_use_ns[PAGING], 10);
}

#[test]
fn order_offers_the_type_furthest_below_first() {
    let mut p = AliasPool::new(10, 100.0, 300.0, true); // 2.5 : 7.5
    assert!(p.order([false, false]).is_empty());
    assert_eq!(p.order([true, false]), vec![PAGING]);
    assert_eq!(p.order([false, true]), vec![MINIDISK]);
    // 0 - 2.5 vs 0 - 7.5: minidisk further below.
    assert_eq!(p.order([true, true]), vec![MINIDISK, PAGING]);
    for _ in 0..6 {
        p.take(MINIDISK, 0);
    }
    // -2.5 vs -1.5: paging now.
    assert_eq!(p.order([true, true]), vec![PAGING, MINIDISK]);
    // By distance, not ratio: minidisk 5 of 7.5 (-2.5, 67 %) before paging 1 of 2.5 (-1.5,
    // 40 %).
    let mut q = AliasPool::new(10, 100.0, 300.0, true);
    q.take(PAGING, 0);
    for _ in 0..5 {
        q.take(MINIDISK, 0);
    }
    assert_eq!(q.order([true, true]), vec![MINIDISK, PAGING]);
}

#[test]
fn order_on_a_tie_keeps_paging_first() {
    let p = AliasPool::new(4, 100.0, 100.0, true);
    assert_eq!(p.order([true, true]), vec![PAGING, MINIDISK]);
}

#[test]
fn grant_picks_the_longest_queue_of_the_type_only() {
    let p = pool(4, 100.0, 100.0, true, 2, 2);
    // Minidisk volume 3 has the longest queue but paging is offered first on the tie.
    assert_eq!(p.grant(&[1, 2, 0, 9]), Some(1));
    assert_eq!(p.grant(&[0, 0, 4, 4]), Some(2), "first on a tie");
    assert_eq!(p.grant(&[0, 0, 3, 4]), Some(3));
}

#[test]
fn grant_without_paging_aliases_serves_only_minidisk() {
    let p = pool(4, 100.0, 100.0, false, 1, 1);
    assert_eq!(p.grant(&[5, 0]), None, "paging I/O may not use an alias");
    assert_eq!(p.grant(&[5, 1]), Some(1));
}

#[test]
fn grant_falls_through_to_the_other_type() {
    // Paging over its entitlement: minidisk is offered the alias first; paging borrows only
    // when minidisk does not wait.
    let mut p = pool(4, 100.0, 300.0, true, 1, 1); // 1 : 3
    p.take(PAGING, 0);
    p.take(PAGING, 0);
    // Paging 2 of 1 (+1), minidisk 0 of 3 (-3): minidisk first and it may.
    assert_eq!(p.grant(&[1, 1]), Some(1));
    // Only paging waits: it borrows past its entitlement.
    assert_eq!(p.grant(&[1, 0]), Some(0));
    p.take(MINIDISK, 0);
    p.take(MINIDISK, 0);
    assert_eq!(p.grant(&[1, 1]), None, "pool full");
}

#[test]
fn grant_refuses_a_type_at_its_entitlement_while_the_other_waits_but_offers_the_other() {
    let mut p = pool(5, 100.0, 400.0, true, 1, 1); // 1 : 4
    for _ in 0..4 {
        p.take(MINIDISK, 0);
    }
    // Minidisk at its 4 (0), paging 0 of 1 (-1): paging first.
    assert_eq!(p.order([true, true]), vec![PAGING, MINIDISK]);
    assert_eq!(p.grant(&[2, 7]), Some(0));
    p.take(PAGING, 0);
    assert_eq!(p.grant(&[2, 7]), None, "pool full");
    p.give_back(MINIDISK, 0);
    // Paging at 1 of 1 (0), minidisk 3 of 4 (-1): minidisk.
    assert_eq!(p.grant(&[2, 7]), Some(1));
}

#[test]
fn grant_ignores_queues_of_zero() {
    let p = pool(4, 100.0, 100.0, true, 3, 0);
    assert_eq!(p.grant(&[0, 0, 1]), Some(2));
    assert_eq!(p.grant(&[0, 0, 0]), None);
}

/// Work conservation and the bound: in random states, a free alias is given whenever a type
/// that may use aliases waits, never beyond the pool, and a type below its entitlement is
/// never passed over for one at or above its own.
#[test]
fn grant_is_work_conserving_and_bounded() {
    let mut rng = Rng::stream(23, 1);
    for case in 0..3000 {
        let total = rng.below(12) as u32;
        let paging = rng.below(4) > 0;
        let sp = 1.0 + rng.below(400) as f64;
        let sm = 1.0 + rng.below(400) as f64;
        let mut p = pool(total, sp, sm, paging, 2, 2);
        let used = if total == 0 {
            0
        } else {
            rng.below(total as u64 + 1) as u32
        };
        for _ in 0..used {
            let k = if paging && rng.below(2) == 0 {
                PAGING
            } else {
                MINIDISK
            };
            p.take(k, 0);
        }
        let q: Vec<usize> = (0..4).map(|_| rng.below(3) as usize).collect();
        let wp = paging && (q[0] + q[1] > 0);
        let wm = q[2] + q[3] > 0;
        let g = p.grant(&q);
        let free = p.in_use[0] + p.in_use[1] < total;
        assert_eq!(g.is_some(), free && (wp || wm), "case {case}: {p:?} {q:?}");
        if let Some(m) = g {
            assert!(q[m] > 0);
            let k = p.members[m].1;
            let other = 1 - k;
            let below = |k: usize| (p.in_use[k] as f64) < p.entitled[k] - 1e-9;
            let waits = [wp, wm];
            if waits[other] {
                assert!(
                    below(k),
                    "case {case}: {k} at its entitlement over a waiting other"
                );
            }
        }
    }
}

#[test]
fn summary_reports_the_means_over_the_run() {
    let mut p = AliasPool::new(6, 100.0, 200.0, true);
    p.take(PAGING, 0);
    p.take(MINIDISK, 0);
    p.take(MINIDISK, 0);
    p.give_back(PAGING, 500);
    p.refused[MINIDISK] = 3;
    let s = p.summary(1000);
    assert_eq!(s.aliases, 6);
    assert!(s.paging_alias);
    assert_eq!((s.share.paging, s.share.minidisk), (100.0, 200.0));
    assert_eq!((s.entitlement.paging, s.entitlement.minidisk), (2.0, 4.0));
    // Paging 1 alias half the time; minidisk 2 all the time.
    assert_eq!((s.mean_in_use.paging, s.mean_in_use.minidisk), (0.5, 2.0));
    assert_eq!((s.max_in_use.paging, s.max_in_use.minidisk), (1.0, 2.0));
    assert_eq!((s.taken.paging, s.taken.minidisk), (1.0, 2.0));
    assert_eq!((s.refused.paging, s.refused.minidisk), (0.0, 3.0));
    // The summary does not disturb the pool's own integral.
    assert_eq!(p.in_use_ns, [500, 1000]);
    p.account(2000);
    assert_eq!(p.in_use_ns, [500, 4000]);
}

#[test]
fn summary_at_time_zero_does_not_divide_by_zero() {
    let p = AliasPool::new(2, 100.0, 100.0, true);
    let s = p.summary(0);
    assert_eq!((s.mean_in_use.paging, s.mean_in_use.minidisk), (0.0, 0.0));
}
