//! Unit tests of the channel model on hand-built paths: processor sharing of a path's
//! capacity, the busy and concurrency counters, the rotation over a path group, the FIFO of
//! starts pending, other LPARs' I/O on a shared path, the control unit's path group checks and
//! the run summary.

use super::*;
use crate::rng::Rng;

fn cost(kind: ChanKind, slots: u32) -> PathCost {
    PathCost {
        kind,
        slots,
        ns_per_byte: 0.0,
        per_io_ns: 0.0,
        per_ccw_ns: 0.0,
    }
}

fn path(id: &str, slots: u32) -> Path {
    Path::new(id.into(), cost(ChanKind::Ficon, slots))
}

fn xf(seq: u64, work: f64, asked: Time) -> Xfer {
    Xfer {
        ent: 1,
        seq,
        work,
        bytes: 4096,
        asked,
        granted: 0,
    }
}

/// One control unit over paths of `slots` each.
fn chans(slots: &[u32]) -> Channels {
    let ps = slots
        .iter()
        .enumerate()
        .map(|(i, &s)| path(&format!("{i:02X}"), s))
        .collect();
    Channels::new(ps, vec![(0..slots.len()).collect()])
}

/// A partner LPAR whose next start is at `next` and whose later ones are far away.
fn partner_at(next: Time, work: f64) -> Partner {
    Partner {
        mean_gap_ns: 1e15,
        work,
        next,
        rng: Rng::stream(1, 1),
        waiting: VecDeque::new(),
    }
}

#[test]
fn work_is_per_io_plus_per_ccw_plus_per_byte() {
    let c = PathCost {
        kind: ChanKind::Escon,
        slots: 1,
        ns_per_byte: 2.0,
        per_io_ns: 1000.0,
        per_ccw_ns: 300.0,
    };
    assert_eq!(c.work(0.0, 0.0), 1000.0);
    assert_eq!(c.work(4096.0, 3.0), 1000.0 + 900.0 + 8192.0);
}

#[test]
fn ficon_express_costs_come_from_their_parameters() {
    let p = crate::params::Params::default();
    for (k, rate, iops) in [
        (
            ChanKind::FiconExpress8s,
            p.chan_fex8s_rate(),
            p.chan_fex8s_iops(),
        ),
        (
            ChanKind::FiconExpress16s,
            p.chan_fex16s_rate(),
            p.chan_fex16s_iops(),
        ),
    ] {
        let c = PathCost::new(k, &p);
        assert_eq!(c.kind, k);
        assert_eq!(c.slots, p.chan_fex_exchanges().round() as u32);
        assert!((c.ns_per_byte - 1e3 / rate).abs() < 1e-12);
        assert!((c.per_io_ns - 1e9 / iops).abs() < 1e-6);
        assert_eq!(c.per_ccw_ns, 0.0);
    }
    // ESCON has no channel processor term and holds the path per CCW.
    let e = PathCost::new(ChanKind::Escon, &p);
    assert_eq!(e.per_io_ns, 0.0);
    assert!((e.per_ccw_ns - p.chan_escon_interlock() * 1e3).abs() < 1e-9);
}

#[test]
fn an_idle_path_has_no_event() {
    let p = path("40", 4);
    assert_eq!(p.next_done(), None);
    assert_eq!(p.next_event(), None);
    assert_eq!(p.stats_at(1_000_000).busy_ns, 0);
}

#[test]
fn one_io_alone_takes_its_work() {
    let mut ch = chans(&[4]);
    assert_eq!(ch.request(0, 100, xf(0, 500.0, 100)), Some(0));
    let p = &ch.paths[0];
    assert_eq!(p.next_done(), Some(600));
    assert_eq!(p.active[0].granted, 100);
    assert_eq!((p.stats.ios, p.stats.bytes, p.stats.max_conc), (1, 4096, 1));
    assert!(
        ch.complete(0, 599).is_empty(),
        "not done a nanosecond early"
    );
    let done = ch.complete(0, 600);
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].seq, 0);
    assert!(ch.paths[0].active.is_empty());
    assert_eq!(ch.paths[0].next_done(), None);
}

#[test]
fn concurrent_ios_share_the_path_equally() {
    let mut ch = chans(&[4]);
    ch.request(0, 0, xf(0, 100.0, 0));
    ch.request(0, 0, xf(1, 300.0, 0));
    // Two at half speed: the short one ends at 200, the long one has 200 left, alone.
    assert_eq!(ch.paths[0].next_done(), Some(200));
    let done = ch.complete(0, 200);
    assert_eq!(done.iter().map(|x| x.seq).collect::<Vec<_>>(), [0]);
    assert!((ch.paths[0].active[0].work - 200.0).abs() < 1e-9);
    assert_eq!(ch.paths[0].next_done(), Some(400));
    assert_eq!(ch.complete(0, 400).len(), 1);
}

#[test]
fn a_late_arrival_slows_the_one_in_connect() {
    let mut ch = chans(&[4]);
    ch.request(0, 0, xf(0, 1000.0, 0));
    ch.request(0, 400, xf(1, 100.0, 400));
    // At 400 the first has 600 left; the second needs 100 at half speed: done at 600.
    assert!((ch.paths[0].active[0].work - 600.0).abs() < 1e-9);
    assert_eq!(ch.paths[0].next_done(), Some(600));
    assert_eq!(ch.complete(0, 600)[0].seq, 1);
    // The first had 500 left at 600: alone, it ends at 1100 (work 1000 + 100 of delay).
    assert_eq!(ch.paths[0].next_done(), Some(1100));
}

#[test]
fn next_done_is_at_least_a_nanosecond_later() {
    let mut ch = chans(&[4]);
    ch.request(0, 50, xf(0, 0.0, 50));
    assert_eq!(ch.paths[0].next_done(), Some(51));
    let mut ch = chans(&[4]);
    ch.request(0, 50, xf(0, 0.3, 50));
    assert_eq!(ch.paths[0].next_done(), Some(51));
    // Fractional work rounds up: 2 I/Os of 10.25 need 20.5 ns -> 21.
    let mut ch = chans(&[4]);
    ch.request(0, 0, xf(0, 10.25, 0));
    ch.request(0, 0, xf(1, 10.25, 0));
    assert_eq!(ch.paths[0].next_done(), Some(21));
    assert_eq!(ch.complete(0, 21).len(), 2, "both end together");
}

#[test]
fn busy_time_counts_only_time_with_io_in_connect() {
    let mut ch = chans(&[4]);
    ch.request(0, 100, xf(0, 200.0, 100));
    ch.complete(0, 300);
    ch.request(0, 1000, xf(1, 100.0, 1000));
    ch.request(0, 1000, xf(2, 100.0, 1000));
    ch.complete(0, 1200);
    let s = ch.paths[0].stats_at(5000);
    assert_eq!(s.busy_ns, 200 + 200);
    assert_eq!(s.own_busy_ns, 400);
    // Concurrency integral: 1 x 200 + 2 x 200.
    assert_eq!(s.conc_ns, 200 + 400);
    assert_eq!((s.ios, s.bytes, s.max_conc), (3, 3 * 4096, 2));
}

#[test]
fn stats_at_looks_ahead_without_changing_the_path() {
    let mut ch = chans(&[4]);
    ch.request(0, 0, xf(0, 1000.0, 0));
    let s = ch.paths[0].stats_at(600);
    assert_eq!((s.busy_ns, s.conc_ns), (600, 600));
    assert_eq!(ch.paths[0].stats.busy_ns, 0);
    assert_eq!(ch.paths[0].active[0].work, 1000.0);
    assert_eq!(ch.paths[0].next_done(), Some(1000));
}

#[test]
fn a_full_path_refuses_and_the_start_waits() {
    let mut ch = chans(&[2]);
    assert_eq!(ch.request(0, 0, xf(0, 100.0, 0)), Some(0));
    assert_eq!(ch.request(0, 0, xf(1, 100.0, 0)), Some(0));
    assert_eq!(ch.request(0, 10, xf(2, 100.0, 10)), None);
    assert_eq!(ch.request(0, 20, xf(3, 100.0, 20)), None);
    assert_eq!(ch.delayed, [2]);
    assert_eq!(ch.waiting[0].len(), 2);
    assert_eq!(
        ch.paths[0].stats.ios, 2,
        "a start pending is not on the path yet"
    );
}

#[test]
fn pending_starts_are_served_in_fifo_order_with_their_wait() {
    let mut ch = chans(&[1]);
    ch.request(0, 0, xf(0, 100.0, 0));
    ch.request(0, 10, xf(1, 100.0, 10));
    ch.request(0, 30, xf(2, 100.0, 30));
    let done = ch.complete(0, 100);
    assert_eq!(done[0].seq, 0);
    assert_eq!(ch.paths[0].active[0].seq, 1);
    assert_eq!(ch.paths[0].active[0].granted, 100);
    assert_eq!(ch.wait_ns, [90]);
    ch.complete(0, 200);
    assert_eq!(ch.paths[0].active[0].seq, 2);
    assert_eq!(ch.wait_ns, [90 + 170]);
    ch.complete(0, 300);
    assert!(ch.waiting[0].is_empty() && ch.paths[0].active.is_empty());
    assert_eq!(ch.delayed, [2]);
    assert_eq!(ch.paths[0].stats.ios, 3);
}

#[test]
fn a_freed_path_takes_as_many_pending_starts_as_it_has_slots() {
    let mut ch = chans(&[3]);
    for s in 0..3 {
        ch.request(0, 0, xf(s, 10.0, 0));
    }
    for s in 3..7 {
        assert_eq!(ch.request(0, 1, xf(s, 10.0, 1)), None);
    }
    // All three end together at 30: three pending starts take their slots, one still waits.
    assert_eq!(ch.complete(0, 30).len(), 3);
    assert_eq!(ch.paths[0].active.len(), 3);
    assert_eq!(ch.waiting[0].len(), 1);
    assert_eq!(ch.waiting[0][0].seq, 6);
}

#[test]
fn rotation_starts_each_request_one_path_further() {
    let mut ch = chans(&[8, 8, 8]);
    let got: Vec<_> = (0..7)
        .map(|s| ch.request(0, 0, xf(s, 1e6, 0)).unwrap())
        .collect();
    assert_eq!(got, [0, 1, 2, 0, 1, 2, 0]);
}

#[test]
fn rotation_skips_a_busy_path_to_the_next_one() {
    let mut ch = chans(&[1, 1, 1]);
    assert_eq!(ch.request(0, 0, xf(0, 1e6, 0)), Some(0));
    assert_eq!(ch.request(0, 0, xf(1, 1e6, 0)), Some(1));
    ch.complete(1, 0); // nothing done
                       // Origin 2: path 2 free.
    assert_eq!(ch.request(0, 0, xf(2, 1e6, 0)), Some(2));
    // All busy: the origin still advances.
    assert_eq!(ch.request(0, 0, xf(3, 1e6, 0)), None);
    // A path freed while nothing is pending is found by the rotation.
    let mut ch = chans(&[1, 1, 1]);
    ch.request(0, 0, xf(0, 1e6, 0)); // path 0, origin -> 1
    ch.request(0, 0, xf(1, 10.0, 0)); // path 1, origin -> 2
    ch.request(0, 0, xf(2, 1e6, 0)); // path 2, origin -> 0
    ch.complete(1, 10);
    // Origin 0: path 0 busy, path 1 free.
    assert_eq!(ch.request(0, 20, xf(3, 1e6, 20)), Some(1));
}

#[test]
fn a_group_rotates_over_its_own_paths_in_its_order() {
    let ps = vec![path("10", 4), path("11", 4), path("12", 4)];
    let mut ch = Channels::new(ps, vec![vec![2, 0]]);
    let got: Vec<_> = (0..4)
        .map(|s| ch.request(0, 0, xf(s, 1e6, 0)).unwrap())
        .collect();
    assert_eq!(got, [2, 0, 2, 0]);
    assert_eq!(ch.paths[1].stats.ios, 0);
}

#[test]
fn a_shared_path_serves_the_oldest_start_of_its_control_units() {
    // Path 0 serves both control units; path 1 only the second.
    let ps = vec![path("20", 1), path("21", 1)];
    let mut ch = Channels::new(ps, vec![vec![0], vec![0, 1]]);
    assert_eq!(ch.request(0, 0, xf(0, 100.0, 0)), Some(0));
    assert_eq!(
        ch.request(1, 0, xf(1, 1000.0, 0)),
        Some(1),
        "origin 0, path 0 busy"
    );
    assert_eq!(ch.request(1, 5, xf(2, 100.0, 5)), None);
    assert_eq!(ch.request(0, 7, xf(3, 100.0, 7)), None);
    assert_eq!(ch.delayed, [1, 1]);
    ch.complete(0, 100);
    assert_eq!(
        ch.paths[0].active[0].seq, 2,
        "the second CU's start asked first"
    );
    assert_eq!(ch.wait_ns, [0, 95]);
    ch.complete(0, 200);
    assert_eq!(ch.paths[0].active[0].seq, 3);
    assert_eq!(ch.wait_ns, [193, 95]);
}

#[test]
fn a_path_does_not_serve_a_control_unit_it_is_not_in() {
    let ps = vec![path("30", 1), path("31", 1)];
    let mut ch = Channels::new(ps, vec![vec![0], vec![1]]);
    ch.request(0, 0, xf(0, 100.0, 0));
    ch.request(1, 0, xf(1, 1000.0, 0));
    ch.request(1, 1, xf(2, 100.0, 1));
    ch.complete(0, 100);
    assert!(
        ch.paths[0].active.is_empty(),
        "path 0 is not in CU 1's group"
    );
    assert_eq!(ch.waiting[1].len(), 1);
}

#[test]
fn equal_ask_times_go_by_sequence_number() {
    let mut ch = chans(&[1]);
    ch.request(0, 0, xf(9, 100.0, 0));
    ch.request(0, 0, xf(5, 100.0, 50));
    ch.request(0, 0, xf(4, 100.0, 50));
    // Within one control unit the FIFO order stands: seq 5 was queued first.
    ch.complete(0, 100);
    assert_eq!(ch.paths[0].active[0].seq, 5);
}

#[test]
fn partner_io_takes_a_slot_but_is_not_counted_as_this_lpars() {
    let mut ch = chans(&[2]);
    ch.paths[0].partner = Some(partner_at(100, 50.0));
    assert_eq!(ch.paths[0].next_event(), Some(100));
    let done = ch.complete(0, 100);
    assert!(done.is_empty());
    let p = &ch.paths[0];
    assert_eq!(p.active.len(), 1);
    assert_eq!(p.active[0].ent, PARTNER);
    assert_eq!((p.stats.partner_ios, p.stats.ios, p.stats.bytes), (1, 0, 0));
    assert!(
        p.partner.as_ref().unwrap().next > 100,
        "the next start is later"
    );
    // This LPAR's I/O shares the path with it.
    ch.request(0, 100, xf(0, 50.0, 100));
    assert_eq!(ch.paths[0].next_done(), Some(200));
    let done = ch.complete(0, 200);
    assert_eq!(done.len(), 1, "the partner's I/O is not returned");
    assert_eq!(done[0].seq, 0);
    let s = ch.paths[0].stats_at(200);
    assert_eq!((s.busy_ns, s.own_busy_ns), (100, 50));
}

#[test]
fn partner_starts_wait_for_a_slot_and_the_older_start_goes_first() {
    let mut ch = chans(&[1]);
    ch.request(0, 0, xf(0, 100.0, 0));
    ch.paths[0].partner = Some(partner_at(50, 10.0));
    // The partner's start at 50 finds the slot taken.
    ch.complete(0, 50);
    assert_eq!(ch.paths[0].partner.as_ref().unwrap().waiting.len(), 1);
    ch.request(0, 60, xf(1, 10.0, 60));
    ch.complete(0, 100);
    assert_eq!(ch.paths[0].active[0].ent, PARTNER, "asked at 50, before 60");
    assert!(ch.paths[0].partner.as_ref().unwrap().waiting.is_empty());
    ch.complete(0, 110);
    assert_eq!(ch.paths[0].active[0].seq, 1);
    assert_eq!(ch.wait_ns, [50]);
}

#[test]
fn on_a_tie_this_lpars_start_goes_before_the_partners() {
    let mut ch = chans(&[1]);
    ch.request(0, 0, xf(0, 100.0, 0));
    ch.paths[0].partner = Some(partner_at(50, 10.0));
    ch.complete(0, 50);
    ch.request(0, 50, xf(1, 10.0, 50));
    ch.complete(0, 100);
    assert_eq!(ch.paths[0].active[0].seq, 1);
    assert_eq!(ch.paths[0].active[0].ent, 1);
}

#[test]
fn partner_arrival_gaps_average_the_mean() {
    let mut p = path("50", 1_000_000);
    p.partner = Some(Partner {
        mean_gap_ns: 1000.0,
        work: 0.0,
        next: 1,
        rng: Rng::stream(5, 5),
        waiting: VecDeque::new(),
    });
    let mut ch = Channels::new(vec![p], vec![vec![0]]);
    let end = 10_000_000;
    let mut t = 1;
    while t <= end {
        ch.complete(0, t);
        t = ch.paths[0].next_event().unwrap();
    }
    let n = ch.paths[0].stats.partner_ios as f64;
    assert!(
        (n / 10_000.0 - 1.0).abs() < 0.05,
        "{n} starts in 10 ms at 1 per us"
    );
}

fn ids(paths: &[&str]) -> crate::config::ChannelsCfg {
    crate::config::ChannelsCfg {
        chpids: Vec::new(),
        paths: paths.iter().map(|s| s.to_string()).collect(),
        cu_class: CuClass::Ess,
    }
}

#[test]
fn a_control_unit_path_group_is_checked() {
    let mut ps: Vec<Path> = (0..9).map(|i| path(&format!("{i:02X}"), 4)).collect();
    ps.push(Path::new("E0".into(), cost(ChanKind::Escon, 1)));
    assert_eq!(cu_path_group(&ids(&["03", "01"]), &ps), Ok(vec![3, 1]));
    let eight: Vec<String> = (0..8).map(|i| format!("{i:02X}")).collect();
    let eight: Vec<&str> = eight.iter().map(|s| s.as_str()).collect();
    assert_eq!(cu_path_group(&ids(&eight), &ps).unwrap().len(), 8);
    let nine: Vec<String> = (0..9).map(|i| format!("{i:02X}")).collect();
    let nine: Vec<&str> = nine.iter().map(|s| s.as_str()).collect();
    assert!(cu_path_group(&ids(&nine), &ps)
        .unwrap_err()
        .contains("1 to 8"));
    assert!(cu_path_group(&ids(&[]), &ps)
        .unwrap_err()
        .contains("1 to 8"));
    assert!(cu_path_group(&ids(&["7F"]), &ps)
        .unwrap_err()
        .contains("no defined chpid"));
    assert!(cu_path_group(&ids(&["01", "02", "01"]), &ps)
        .unwrap_err()
        .contains("twice"));
    assert!(cu_path_group(&ids(&["01", "E0"]), &ps)
        .unwrap_err()
        .contains("one channel type"));
    assert!(cu_path_group(&ids(&["E0", "01"]), &ps)
        .unwrap_err()
        .contains("one channel type"));
}

#[test]
fn a_channel_type_is_known_from_its_first_level() {
    let levels = crate::level::names();
    let ch = crate::config::ChpidCfg {
        id: "40".into(),
        ctype: ChanKind::FiconExpress8s,
        partner_io_rate: 0.0,
    };
    let first = levels.iter().position(|n| *n == "zvm-6.1").unwrap();
    assert_eq!(
        chpid_kind(&ch, "zvm-6.1", &levels, first),
        Ok(ChanKind::FiconExpress8s)
    );
    assert_eq!(
        chpid_kind(&ch, "x", &levels, levels.len() - 1),
        Ok(ChanKind::FiconExpress8s)
    );
    let e = chpid_kind(&ch, "older", &levels, first - 1).unwrap_err();
    assert!(e.contains("does not know") && e.contains("zvm-6.1"), "{e}");
}

fn state(kind: ChanKind, prefetch: bool, avoided: bool, class: CuClass) -> ChanState {
    let p = crate::params::Params::default();
    let mut sw = crate::level::find("zvm-7.3")
        .or_else(|| crate::level::find(crate::level::names().last().unwrap()))
        .unwrap()
        .switches;
    sw.ficon_prefetch = if prefetch {
        crate::level::FiconPrefetch::On
    } else {
        crate::level::FiconPrefetch::Off
    };
    sw.nullification = if avoided {
        crate::level::Nullification::Avoided
    } else {
        crate::level::Nullification::Waits
    };
    let c = crate::config::ChannelsCfg {
        chpids: Vec::new(),
        paths: vec!["40".into()],
        cu_class: class,
    };
    let paths = vec![Path::new("40".into(), PathCost::new(kind, &p))];
    chan_state(&p, &sw, &c, paths, vec![0])
}

#[test]
fn delays_outside_the_path_follow_the_switches() {
    let p = crate::params::Params::default();
    let il = p.chan_ficon_interlock() * 1e3;
    let nl = p.chan_nullification() * 1e3;
    let s = state(ChanKind::Ficon, false, false, CuClass::Ess);
    assert_eq!((s.interlock_ns, s.null_ns), (il, nl));
    let s = state(ChanKind::Ficon, true, true, CuClass::Ess);
    assert_eq!((s.interlock_ns, s.null_ns), (0.0, 0.0));
    // Only an ESS avoids the window.
    let s = state(ChanKind::FiconExpress16s, true, true, CuClass::C3990);
    assert_eq!((s.interlock_ns, s.null_ns), (0.0, nl));
    // ESCON pays neither.
    let s = state(ChanKind::Escon, false, false, CuClass::C3990);
    assert_eq!((s.interlock_ns, s.null_ns), (0.0, 0.0));
    assert_eq!(s.ccws_fixed, p.chan_ccws_fixed());
    assert_eq!(s.ch.groups, vec![vec![0]]);
}

#[test]
fn summary_rates_and_percentages() {
    let mut s = state(ChanKind::Ficon, true, true, CuClass::Ess);
    s.ch.paths[0].cost = cost(ChanKind::Ficon, 1);
    // 1 ms run: three I/Os of 100 us, one waits 100 us and one still waits at the end.
    s.ch.request(0, 0, xf(0, 100_000.0, 0));
    s.ch.request(0, 0, xf(1, 100_000.0, 0));
    s.ch.complete(0, 100_000);
    s.ch.complete(0, 200_000);
    s.ch.request(0, 900_000, xf(2, 200_000.0, 900_000));
    s.ch.request(0, 950_000, xf(3, 100_000.0, 950_000));
    let m = s.summary(1_000_000);
    assert_eq!(m.starts, 4, "3 on the path and 1 pending");
    assert_eq!(m.cu_paths, ["40"]);
    assert_eq!(m.paths.len(), 1);
    let p = &m.paths[0];
    assert!((p.io_rate - 3000.0).abs() < 1e-6, "{}", p.io_rate);
    assert!((p.mb_per_s - 3.0 * 4096.0 / 1e6 / 1e-3).abs() < 1e-6);
    // Busy 100 + 100 + 100 us of 1 ms.
    assert!((p.busy_pct - 30.0).abs() < 1e-9, "{}", p.busy_pct);
    assert!((p.own_busy_pct - 30.0).abs() < 1e-9);
    assert!((p.mean_concurrent - 0.3).abs() < 1e-9);
    assert_eq!(p.max_concurrent, 1);
    assert!((m.delayed_pct - 50.0).abs() < 1e-9, "2 of 4 delayed");
    // Waits: 100 us (the one served); the pending one is not counted yet.
    assert!((m.path_wait_ms - 0.1 / 4.0).abs() < 1e-12);
    assert_eq!((m.nullification_ms, m.interlock_ms_per_ccw), (0.0, 0.0));
}

#[test]
fn summary_of_an_empty_run_is_zero() {
    let s = state(ChanKind::Ficon, false, false, CuClass::C3990);
    let m = s.summary(0);
    assert_eq!((m.starts, m.delayed_pct, m.path_wait_ms), (0, 0.0, 0.0));
    assert_eq!(m.paths[0].busy_pct, 0.0);
    let p = crate::params::Params::default();
    assert!((m.nullification_ms - p.chan_nullification() / 1e3).abs() < 1e-12);
    assert!((m.interlock_ms_per_ccw - p.chan_ficon_interlock() / 1e3).abs() < 1e-12);
}

#[test]
fn work_within_half_a_nanoseconds_share_ends_with_the_event() {
    // Two I/Os: the event is at 20 (10 each at half speed); 0.2 left is rounding of the event
    // time (below 0.5 / 2), 0.3 is not.
    let mut ch = chans(&[4]);
    ch.request(0, 0, xf(0, 10.0, 0));
    ch.request(0, 0, xf(1, 10.2, 0));
    assert_eq!(ch.paths[0].next_done(), Some(20));
    assert_eq!(ch.complete(0, 20).len(), 2);
    let mut ch = chans(&[4]);
    ch.request(0, 0, xf(0, 10.0, 0));
    ch.request(0, 0, xf(1, 10.3, 0));
    assert_eq!(ch.complete(0, 20).len(), 1);
    assert_eq!(ch.paths[0].next_done(), Some(21));
    assert_eq!(ch.complete(0, 21).len(), 1);
}

/// Two volumes behind one one-slot path: a long connect (and the other volume's wait for the
/// path) spans monitor samples. At each sample a volume's busy time is its service elapsed
/// (`Device::elapsed`, ZVMDEV_BUSYEL), as for a volume without paths: never ahead of the
/// sample, never backwards, and all of the time since its I/O started. The booked service
/// (BUSYTM, service per I/O) is still the whole I/O, booked when its connect ends. Before the
/// fix an I/O in connect counted nothing at a sample and its whole service in the interval its
/// connect ended in.
#[test]
fn a_connect_spanning_a_sample_counts_its_service_up_to_the_sample() {
    use crate::io::{DevType, Device, IoReq, Service};
    let svc = Service {
        pend: 100.0,
        disconnect: 0.0,
        connect_per_page: 0.0,
    };
    let vol = |i| {
        let mut d = Device::new(format!("V{i}"), DevType::Eckd, 1, svc, 0, Rng::stream(1, i));
        d.chan = Some(0);
        d
    };
    let (mut a, mut b) = (vol(1), vol(2));
    let r = IoReq {
        pages: 1,
        read: true,
        waiter: 0,
        queued: 0,
        tag: 1,
    };
    assert_eq!(a.submit(0, r), None); // no completion until its connect ends
    assert_eq!(b.submit(0, r), None);
    let mut ch = chans(&[1]);
    let (sa, sb) = (a.chan_out.pop().unwrap().seq, b.chan_out.pop().unwrap().seq);
    let x = |seq, ent| Xfer {
        ent,
        ..xf(seq, 10_000.0, 0)
    };
    // a's connect runs 0..10000; b waits for the path until 10000.
    assert_eq!(ch.request(0, 0, x(sa, 1)), Some(0));
    assert_eq!(ch.request(0, 0, x(sb, 2)), None);
    // A sample in the middle of the connect: 4000 ns busy each, nothing booked yet.
    assert_eq!(
        (a.elapsed(4_000), b.elapsed(4_000)),
        ((4_000, 0), (4_000, 0))
    );
    assert_eq!((a.stats.busy_ns, b.stats.busy_ns), (0, 0));
    // a's connect ends at 10000: it completes after its 100 ns pend; b's connect starts.
    let done = ch.complete(0, 10_000);
    assert_eq!(done.len(), 1);
    a.connect_done(
        10_000,
        done[0].seq,
        done[0].granted - done[0].asked,
        0.0,
        0.0,
    );
    assert_eq!(
        (a.stats.busy_ns, a.next_completion()),
        (10_100, Some(10_100))
    );
    assert_eq!((a.elapsed(10_000).0, b.elapsed(10_000).0), (10_000, 10_000));
    assert_eq!(ch.paths[0].next_done(), Some(20_000));
    // Samples every 1000 ns up to b's end: busy never ahead of the sample, never backwards,
    // and equal to the time each volume's I/O was in service.
    let (mut la, mut lb) = (0, 0);
    for t in (1_000..=21_000).step_by(1_000) {
        if t == 11_000 {
            a.complete(10_100);
        }
        if t == 20_000 {
            let done = ch.complete(0, 20_000);
            let w = done[0].granted - done[0].asked;
            assert_eq!(w, 10_000);
            b.connect_done(20_000, done[0].seq, w, 0.0, 0.0);
            assert_eq!(
                (b.stats.busy_ns, b.next_completion()),
                (20_100, Some(20_100))
            );
        }
        let (ea, eb) = (a.elapsed(t).0, b.elapsed(t).0);
        assert_eq!((ea, eb), (t.min(10_100), t.min(20_100)), "at {t}");
        assert!(ea >= la && eb >= lb, "at {t}");
        (la, lb) = (ea, eb);
    }
    // Service per I/O is the booked sum, as without paths: pend (path wait 10000 + 100) and
    // connect 10000.
    assert_eq!((b.stats.pend_ns, b.stats.connect_ns), (10_100, 10_000));
}
