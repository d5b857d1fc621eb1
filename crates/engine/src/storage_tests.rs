//! Unit tests of `RealStorage` on small hand-built states: frame conservation, the replacement
//! lists' order, the 2 GB line, the minidisk cache's frames and the per-user and per-segment
//! accounting.

use super::*;
use crate::rng::Rng;

/// One user of `pages` pages on `frames` frames, FIFO replacement (aging list off).
fn fifo(frames: u64, pages: u64) -> RealStorage {
    RealStorage::new(frames, &[pages], 2.0, false, u64::MAX)
}

fn ok(s: &RealStorage) {
    s.check_frames().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn new_storage_is_all_free() {
    let s = RealStorage::new(1000, &[10, 0, 7], 2.0, true, 50);
    assert_eq!((s.frames, s.free, s.resident), (1000, 1000, 0));
    assert_eq!((s.free_below, s.frames_below), (1000, 1000));
    assert_eq!(s.base, vec![0, 10, 10, 17]);
    assert_eq!(s.res_user, vec![0, 0, 0]);
    assert_eq!(
        s.seg_res.iter().map(|v| v.len()).collect::<Vec<_>>(),
        [1, 0, 1]
    );
    assert_eq!(s.slots, 50);
    assert!(s.in_use.is_empty() && s.aging.is_empty() && s.pending_writes.is_empty());
    ok(&s);
}

#[test]
fn frames_below_the_line_are_capped_at_2g() {
    let s = fifo(FRAMES_BELOW_2G + 5, 1);
    assert_eq!(s.frames_below, FRAMES_BELOW_2G);
    assert_eq!(s.free_below, FRAMES_BELOW_2G);
    assert_eq!(s.free_above(), 5);
    ok(&s);
}

#[test]
fn agelist_target_is_a_percentage_of_the_frames_at_least_one() {
    assert_eq!(
        RealStorage::new(1000, &[1], 2.0, true, 0).agelist_target,
        20
    );
    // 999 x 2.5 % = 24.975: truncated.
    assert_eq!(RealStorage::new(999, &[1], 2.5, true, 0).agelist_target, 24);
    assert_eq!(RealStorage::new(10, &[1], 2.0, true, 0).agelist_target, 1);
    assert_eq!(
        RealStorage::new(1000, &[1], 2.0, false, 0).agelist_target,
        0
    );
}

#[test]
fn page_table_words_and_boundaries() {
    let mut t = PageTable::new(65);
    assert_eq!(t.bytes(), 3 * 8);
    assert_eq!(PageTable::new(64).bytes(), 2 * 8);
    assert_eq!(PageTable::new(0).bytes(), 0);
    for p in [0u64, 31, 32, 63, 64] {
        assert_eq!(t.get(p), NEVER);
    }
    t.set(31, ON_DASD);
    t.set(32, VALID);
    t.set(64, AGING);
    t.set(0, ON_DASD);
    assert_eq!(
        [
            t.get(0),
            t.get(1),
            t.get(30),
            t.get(31),
            t.get(32),
            t.get(33),
            t.get(63),
            t.get(64)
        ],
        [ON_DASD, NEVER, NEVER, ON_DASD, VALID, NEVER, NEVER, AGING]
    );
    // Overwriting with a state with fewer bits set clears the old bits.
    t.set(31, VALID);
    assert_eq!(t.get(31), VALID);
    t.set(31, NEVER);
    assert_eq!(t.get(31), NEVER);
    assert_eq!(t.get(32), VALID);
}

#[test]
fn gid_and_split_round_trip_across_users() {
    let s = RealStorage::new(10, &[5, 0, 3, 300], 2.0, false, 0);
    for (u, pages) in [(0u32, 5u64), (2, 3), (3, 300)] {
        for p in [0, pages / 2, pages - 1] {
            let g = s.gid(u, p);
            assert_eq!(s.split(g), (u as usize, p), "user {u} page {p}");
        }
    }
    // The user with no pages owns no global page number.
    assert_eq!(s.gid(0, 4), 4);
    assert_eq!(s.gid(2, 0), 5);
    assert_eq!(s.split(5), (2, 0));
    assert_eq!(s.split(8), (3, 0));
}

#[test]
fn first_touch_takes_a_frame_and_builds_a_pgmbk() {
    let mut s = fifo(10, 600);
    assert_eq!(s.reference(0, 3), Found::FirstTouch);
    assert_eq!((s.references, s.first_touches, s.faults), (1, 1, 0));
    assert_eq!((s.resident, s.free, s.res_user[0]), (1, 9, 1));
    assert_eq!(s.tables[0].get(3), VALID);
    assert_eq!(s.in_use, [3]);
    assert_eq!(s.pgmbk_requests, 1);
    // Same segment: no new PGMBK; the next segment needs one.
    assert_eq!(s.reference(0, 255), Found::FirstTouch);
    assert_eq!(s.pgmbk_requests, 1);
    assert_eq!(s.reference(0, 256), Found::FirstTouch);
    assert_eq!(s.pgmbk_requests, 2);
    assert_eq!(s.seg_res[0], vec![2, 1, 0]);
    ok(&s);
}

#[test]
fn a_valid_page_costs_nothing_but_the_reference() {
    let mut s = fifo(10, 20);
    s.reference(0, 1);
    let before = s.clone();
    assert_eq!(s.reference(0, 1), Found::Valid);
    assert_eq!(s.references, before.references + 1);
    assert_eq!(
        (
            s.resident,
            s.free,
            s.first_touches,
            s.faults,
            s.pgmbk_requests
        ),
        (
            before.resident,
            before.free,
            before.first_touches,
            before.faults,
            before.pgmbk_requests
        )
    );
    assert_eq!(s.in_use, before.in_use);
}

#[test]
fn exactly_full_storage_steals_nothing_and_one_more_steals_one() {
    let mut s = fifo(8, 20);
    for p in 0..8 {
        s.reference(0, p);
    }
    assert_eq!((s.free, s.resident, s.steals), (0, 8, 0));
    assert!(s.pending_writes.is_empty());
    ok(&s);
    s.reference(0, 8);
    assert_eq!(
        (s.free, s.resident, s.steals, s.steals_user[0]),
        (0, 8, 1, 1)
    );
    assert_eq!(s.pending_writes, [0], "the in-use head goes first");
    assert_eq!(s.tables[0].get(0), ON_DASD);
    ok(&s);
}

#[test]
fn fifo_steals_in_reference_order() {
    let mut s = fifo(5, 20);
    let order = [7u64, 2, 9, 4, 0];
    for &p in &order {
        s.reference(0, p);
    }
    for p in 10..15 {
        s.reference(0, p);
    }
    assert_eq!(s.pending_writes, order.map(|p| p as u32));
    assert_eq!(s.steals, 5);
    assert!(s.in_use.iter().eq([10u32, 11, 12, 13, 14].iter()));
    ok(&s);
}

#[test]
fn a_stolen_page_faults_back_from_dasd() {
    let mut s = RealStorage::new(2, &[1, 4], 2.0, false, u64::MAX);
    s.reference(1, 0);
    s.reference(1, 1);
    s.reference(1, 2); // steals user 1's page 0
    assert_eq!(s.reference(1, 0), Found::OnDasd);
    assert_eq!(
        (s.faults, s.pages_read, s.reads_user[1], s.reads_user[0]),
        (1, 1, 1, 0)
    );
    assert_eq!(s.first_touches, 3, "a page-in is not a first touch");
    assert_eq!((s.steals, s.steals_user[1]), (2, 2));
    assert_eq!(s.res_user, vec![0, 2]);
    ok(&s);
}

#[test]
fn aging_list_keeps_its_target_and_steals_its_head() {
    // 100 frames, 10 %: an aging list of 10.
    let mut s = RealStorage::new(100, &[200], 10.0, true, u64::MAX);
    assert_eq!(s.agelist_target, 10);
    for p in 0..100 {
        s.reference(0, p);
    }
    s.reference(0, 100);
    assert_eq!(s.pending_writes, [0]);
    assert_eq!(s.n_aging, 9);
    for p in 1..10 {
        assert_eq!(s.tables[0].get(p), AGING, "page {p}");
    }
    assert_eq!(s.tables[0].get(10), VALID);
    assert_eq!(s.in_use.len(), 91);
    assert_eq!(s.resident, 100);
    ok(&s);
}

#[test]
fn revalidation_needs_no_frame_and_no_io() {
    let mut s = RealStorage::new(100, &[200], 10.0, true, u64::MAX);
    for p in 0..101 {
        s.reference(0, p);
    }
    let (read, free, res, steals) = (s.pages_read, s.free, s.resident, s.steals);
    assert_eq!(s.reference(0, 5), Found::Revalidated);
    assert_eq!(s.revalidations, 1);
    assert_eq!(
        (s.pages_read, s.free, s.resident, s.steals),
        (read, free, res, steals)
    );
    assert_eq!(s.n_aging, 8);
    assert_eq!(s.tables[0].get(5), VALID);
    assert_eq!(s.in_use.back(), Some(&5), "back at the in-use tail");
    ok(&s);
}

#[test]
fn a_revalidated_pages_old_aging_entry_is_skipped() {
    let mut s = RealStorage::new(100, &[200], 10.0, true, u64::MAX);
    for p in 0..101 {
        s.reference(0, p);
    }
    s.reference(0, 5);
    // Four more faults steal pages 1..=4; the fifth skips page 5's stale entry and takes 6.
    for p in 101..106 {
        s.reference(0, p);
        ok(&s);
    }
    assert_eq!(s.pending_writes, [0, 1, 2, 3, 4, 6]);
    assert_eq!(s.tables[0].get(5), VALID);
    assert_eq!(
        s.n_aging,
        s.agelist_target - 1,
        "refilled to its target, less the steal"
    );
}

#[test]
fn per_user_counters_add_up() {
    let mut s = RealStorage::new(50, &[100, 100, 100], 4.0, true, u64::MAX);
    let mut rng = Rng::stream(3, 9);
    for i in 0..5000u64 {
        let r = s.reference((i % 3) as u32, rng.below(100));
        assert!(matches!(
            r,
            Found::Valid | Found::Revalidated | Found::FirstTouch | Found::OnDasd
        ));
    }
    assert_eq!(s.res_user.iter().sum::<u64>(), s.resident);
    assert_eq!(s.steals_user.iter().sum::<u64>(), s.steals);
    assert_eq!(s.reads_user.iter().sum::<u64>(), s.pages_read);
    assert_eq!(s.pages_read, s.faults);
    assert_eq!(s.steals as usize, s.pending_writes.len());
    assert_eq!(s.resident, 50);
    // Every touched page is resident or stolen: first touches = resident + stolen - read back.
    assert_eq!(s.first_touches, s.resident + s.steals - s.pages_read);
    for u in 0..3 {
        let t = &s.tables[u];
        let valid = (0..100)
            .filter(|&p| matches!(t.get(p), VALID | AGING))
            .count() as u64;
        assert_eq!(valid, s.res_user[u], "user {u}");
        assert_eq!(
            s.seg_res[u].iter().map(|&c| c as u64).sum::<u64>(),
            s.res_user[u]
        );
    }
    ok(&s);
}

#[test]
fn the_last_page_out_of_a_segment_frees_its_pgmbk() {
    let mut s = fifo(1, 600);
    s.reference(0, 0);
    assert_eq!((s.pgmbk_requests, s.pgmbk_frees), (1, 0));
    s.reference(0, 300); // segment 1; page 0 stolen empties segment 0
    assert_eq!((s.pgmbk_requests, s.pgmbk_frees), (2, 1));
    assert_eq!(s.seg_res[0], vec![0, 1, 0]);
    s.reference(0, 0); // back to segment 0; segment 1 emptied
    assert_eq!((s.pgmbk_requests, s.pgmbk_frees), (3, 2));
    ok(&s);
}

#[test]
fn check_frames_reports_each_kind_of_violation() {
    let mut s = fifo(10, 20);
    for p in 0..4 {
        s.reference(0, p);
    }
    ok(&s);
    let mut t = s.clone();
    t.free += 1;
    assert!(t.check_frames().unwrap_err().contains("!= frames"));
    let mut t = s.clone();
    t.free_below -= 1;
    assert!(t.check_frames().unwrap_err().contains("below 2 GB"));
    let mut t = s.clone();
    t.in_use.push_back(7);
    t.resident += 1;
    t.free -= 1;
    t.below.push(7);
    t.free_below -= 1;
    assert!(t.check_frames().unwrap_err().contains("segment counts"));
    let mut t = s.clone();
    t.in_use.pop_front();
    assert!(t.check_frames().unwrap_err().contains("list entries"));
}

#[test]
fn with_nothing_to_steal_a_phantom_frame_is_added() {
    let mut s = fifo(0, 4);
    assert_eq!(s.reference(0, 2), Found::FirstTouch);
    assert_eq!((s.frames, s.free, s.resident), (1, 0, 1));
    assert_eq!(s.steals, 0);
}

#[test]
fn without_elective_use_user_pages_stay_above_the_line() {
    let mut s = fifo(10, 20);
    s.set_below_2g(4, false);
    assert_eq!((s.frames_below, s.free_below, s.free_above()), (4, 4, 6));
    assert_eq!(s.user_frames_free(), 6);
    for p in 0..6 {
        s.reference(0, p);
    }
    assert_eq!((s.free, s.free_below, s.user_frames_free()), (4, 4, 0));
    assert_eq!(s.steals, 0);
    s.reference(0, 6);
    assert_eq!(s.steals, 1, "steals rather than use a below-2GB frame");
    assert_eq!((s.free, s.free_below, s.resident), (4, 4, 6));
    assert!(s.below.is_empty());
    ok(&s);
}

#[test]
fn with_elective_use_user_pages_take_below_frames_first() {
    let mut s = fifo(10, 20);
    s.set_below_2g(4, true);
    assert_eq!(s.user_frames_free(), 10);
    for p in 0..3 {
        s.reference(0, p);
    }
    assert_eq!(s.below, [0, 1, 2]);
    assert_eq!((s.free_below, s.free_above()), (1, 6));
    for p in 3..10 {
        s.reference(0, p);
    }
    assert_eq!(s.below.len(), 4);
    assert_eq!((s.free, s.free_below), (0, 0));
    // Stealing the below-2GB page 0 frees a below frame, which the new page takes.
    s.reference(0, 10);
    assert_eq!(s.pending_writes, [0]);
    let mut b = s.below.clone();
    b.sort();
    assert_eq!(b, [1, 2, 3, 10]);
    ok(&s);
}

#[test]
fn set_below_2g_clamps_to_the_frames_and_keeps_held_frames() {
    let mut s = fifo(10, 20);
    s.set_below_2g(50, false);
    assert_eq!((s.frames_below, s.free_below), (10, 10));
    for p in 0..3 {
        s.reference(0, p);
    }
    // All storage below the line: user pages use it even without elective use.
    assert_eq!(s.below.len(), 3);
    s.set_below_2g(5, false);
    assert_eq!((s.frames_below, s.free_below), (5, 2));
    ok(&s);
}

#[test]
fn cp_takes_free_below_frames_and_gives_them_back() {
    let mut s = fifo(10, 20);
    s.set_below_2g(4, false);
    let mut rng = Rng::stream(1, 1);
    assert_eq!(s.cp_take_below(&mut rng), 0);
    assert_eq!((s.cp_below, s.free_below, s.free), (1, 3, 9));
    ok(&s);
    s.cp_release_below();
    assert_eq!((s.cp_below, s.free_below, s.free), (0, 4, 10));
    // Releasing with nothing held changes nothing.
    s.cp_release_below();
    assert_eq!((s.cp_below, s.free_below, s.free), (0, 4, 10));
    ok(&s);
}

#[test]
fn cp_finds_nothing_when_it_holds_every_below_frame() {
    let mut s = fifo(10, 20);
    s.set_below_2g(2, false);
    let mut rng = Rng::stream(1, 2);
    s.cp_take_below(&mut rng);
    s.cp_take_below(&mut rng);
    assert_eq!(s.cp_take_below(&mut rng), 0);
    assert_eq!((s.cp_below, s.below_short, s.below_searches), (2, 1, 0));
    assert_eq!((s.free, s.free_below), (8, 0));
    ok(&s);
}

#[test]
fn with_no_storage_above_the_line_cp_takes_nothing() {
    let mut s = fifo(10, 20);
    let mut rng = Rng::stream(1, 3);
    assert_eq!(s.cp_take_below(&mut rng), 0);
    assert_eq!((s.cp_below, s.free, s.free_below), (0, 10, 10));
}

#[test]
fn cp_search_steals_a_valid_user_page_below_the_line() {
    let mut s = fifo(10, 20);
    s.set_below_2g(4, true);
    for p in 0..10 {
        s.reference(0, p);
    }
    let mut rng = Rng::stream(4, 4);
    let x = s.cp_take_below(&mut rng);
    assert!(x >= 1, "frames examined {x}");
    assert_eq!((s.below_searches, s.below_examined), (1, x));
    assert_eq!(
        (s.cp_below, s.resident, s.steals, s.free, s.free_below),
        (1, 9, 1, 0, 0)
    );
    assert_eq!(s.pending_writes.len(), 1);
    let victim = s.pending_writes[0];
    assert!(victim < 4, "a below-2GB page: {victim}");
    assert_eq!(s.tables[0].get(victim as u64), ON_DASD);
    assert_eq!(s.below.len(), 3);
    assert!(!s.below.contains(&victim));
    ok(&s);
    // The victim's in-use entry is skipped when it comes up: the next steal takes the oldest
    // page still resident.
    s.reference(0, 10);
    let oldest = (0..4u32).find(|&p| p != victim).unwrap();
    assert_eq!(s.pending_writes, [victim, oldest]);
    ok(&s);
    // A stolen page faults back in.
    assert_eq!(s.reference(0, victim as u64), Found::OnDasd);
    ok(&s);
}

#[test]
fn cp_search_takes_a_below_mdc_frame_when_no_user_page_is_there() {
    let mut s = fifo(10, 20);
    s.set_below_2g(4, true);
    for _ in 0..4 {
        assert!(s.take_mdc_frame(), "below 2 GB first with elective use");
    }
    assert_eq!((s.mdc_below, s.free_below), (4, 0));
    let mut rng = Rng::stream(2, 2);
    // All below-2GB frames are MDC's: q = 1, one frame examined.
    assert_eq!(s.cp_take_below(&mut rng), 1);
    assert_eq!(
        (s.mdc_below, s.mdc_frames, s.mdc_surrendered, s.cp_below),
        (3, 3, 1, 1)
    );
    assert_eq!((s.below_searches, s.below_examined), (1, 1));
    ok(&s);
}

#[test]
fn mdc_frames_come_and_go_with_conservation() {
    let mut s = fifo(10, 20);
    s.set_below_2g(4, false);
    assert!(!s.take_mdc_frame(), "above without elective use");
    assert_eq!(
        (s.free, s.free_below, s.mdc_frames, s.mdc_below),
        (9, 4, 1, 0)
    );
    ok(&s);
    s.release_mdc_frame(false);
    assert_eq!((s.free, s.free_below, s.mdc_frames), (10, 4, 0));
    s.set_below_2g(4, true);
    assert!(s.take_mdc_frame());
    assert_eq!(
        (s.free, s.free_below, s.mdc_frames, s.mdc_below),
        (9, 3, 1, 1)
    );
    ok(&s);
    s.release_mdc_frame(true);
    assert_eq!(
        (s.free, s.free_below, s.mdc_frames, s.mdc_below),
        (10, 4, 0, 0)
    );
    ok(&s);
}

#[test]
fn mdc_steals_a_user_page_when_storage_is_full() {
    let mut s = fifo(10, 20);
    s.set_below_2g(4, false);
    for p in 0..6 {
        s.reference(0, p);
    }
    assert!(!s.take_mdc_frame());
    assert_eq!((s.resident, s.mdc_frames, s.steals, s.free), (5, 1, 1, 4));
    assert_eq!(s.pending_writes, [0]);
    ok(&s);
}

#[test]
fn prefill_makes_a_prefix_resident_and_the_rest_on_dasd() {
    let mut s = fifo(10, 20);
    s.prefill(0, 15);
    assert_eq!(
        (s.resident, s.free, s.first_touches, s.slots_used),
        (10, 0, 15, 5)
    );
    assert!((0..10).all(|p| s.tables[0].get(p) == VALID));
    assert!((10..15).all(|p| s.tables[0].get(p) == ON_DASD));
    assert!((15..20).all(|p| s.tables[0].get(p) == NEVER));
    assert_eq!(s.pgmbk_requests, 0, "prefill builds no PGMBK on demand");
    ok(&s);
    assert_eq!(s.reference(0, 12), Found::OnDasd);
    assert_eq!(s.reference(0, 17), Found::FirstTouch);
    ok(&s);
}

#[test]
fn prefill_pages_in_turns_and_below_the_line() {
    let mut s = RealStorage::new(10, &[8, 8], 2.0, false, u64::MAX);
    s.set_below_2g(4, false);
    s.prefill_pages(0, 0, 2);
    s.prefill_pages(1, 0, 2);
    s.prefill_pages(0, 2, 4);
    s.prefill_pages(1, 2, 4);
    // Six frames above the line: user 0 got 4, user 1 its first 2.
    assert_eq!(s.res_user, vec![4, 2]);
    assert_eq!((s.first_touches, s.slots_used), (8, 2));
    assert_eq!(s.tables[1].get(2), ON_DASD);
    assert_eq!(s.free, 4);
    assert!(s.below.is_empty());
    ok(&s);
}

#[test]
fn prefill_spread_places_every_page_and_accounts_slots() {
    let mut s = fifo(4, 12);
    s.prefill_spread(0, 0, 12, 4, 12);
    s.prefill_spread_rest(0, 12);
    let valid: Vec<u64> = (0..12).filter(|&p| s.tables[0].get(p) == VALID).collect();
    assert_eq!(valid, [0, 3, 6, 9]);
    assert!((0..12).all(|p| matches!(s.tables[0].get(p), VALID | ON_DASD)));
    assert_eq!((s.resident, s.first_touches, s.slots_used), (4, 12, 8));
    ok(&s);
}

#[test]
fn spread_page_formula() {
    assert_eq!(spread_page(0, 3, 10), 0);
    assert_eq!(spread_page(1, 3, 10), 3);
    assert_eq!(spread_page(2, 3, 10), 6);
    assert_eq!(spread_page(5, 0, 10), 50, "n = 0 counts as 1");
    // No overflow in the product.
    assert_eq!(spread_page(1 << 40, 1 << 41, 1 << 40), 1 << 39);
}

#[test]
fn geometric_trials() {
    let mut rng = Rng::stream(8, 8);
    assert_eq!(geometric(&mut rng, 1.0), 1);
    assert_eq!(geometric(&mut rng, 2.0), 1);
    let n = 100_000;
    let sum: u64 = (0..n).map(|_| geometric(&mut rng, 0.25)).sum();
    let m = sum as f64 / n as f64;
    assert!((m / 4.0 - 1.0).abs() < 0.02, "mean {m} vs 4");
    assert!((0..1000).all(|_| geometric(&mut rng, 0.5) >= 1));
}

#[test]
fn bytes_grow_with_the_lists() {
    let mut s = fifo(100, 1000);
    let b0 = s.bytes();
    assert_eq!(
        b0,
        PageTable::new(1000).bytes() + 4 * 2,
        "tables and segment counts"
    );
    for p in 0..100 {
        s.reference(0, p);
    }
    assert!(s.bytes() >= b0 + 100 * 4);
}
