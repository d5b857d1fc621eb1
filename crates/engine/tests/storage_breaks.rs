//! Where storage management breaks (issue 17, docs/research/where-cp-breaks.md §3, §7.3-7.10;
//! what was built: docs/research/where-cp-breaks-model.md, "Storage"): the cache misses of each
//! frame moved under RSA2GLCK (`storage.misses_per_frame`), 6.4's queued frame returns (switch
//! `frame_returns`), guest PTE reads waiting for a holding key update (`pte_lock = iske-reads`),
//! and below-2GB requests deferred to the demand scan and to the page-out of the frame's page
//! (below2g.rs). Each acts where it should and nowhere else; processor time is conserved.

use proptest::prelude::*;
use serde_json::{json, Value};
use zvm::cpu::ONE;
use zvm::level::{self, FrameReplenish, FrameReturns, FrameZones, LockLine, Switches};
use zvm::locks::{LockId, Locks};
use zvm::params::Params;

fn params(misses: f64) -> Params {
    Params {
        lock_line_cycles: 0.0,
        misses_per_frame: misses,
        ..Params::default()
    }
}

fn switches(level: &str) -> Switches {
    level::find(level).unwrap().switches
}

/// Expected hold of one frame under RSA2GLCK (ns): list work plus the misses.
fn frame_ns(p: &Params) -> f64 {
    (p.lock_hold_frame * p.cpi_cp + p.misses_per_frame * p.cycles_remote) / p.clock_ghz
}

/// With lagging lists (one frame per lock hold) a second processor asking at the same instant
/// spins for exactly the first one's hold: the list work plus `misses_per_frame` misses.
#[test]
fn frame_holds_carry_their_misses_and_nothing_else_does() {
    for m in [0.0, 1.0, 2.0, 4.0] {
        let p = params(m);
        let mut l = Locks::new(&p, &switches("zvm-6.3-compat"), 4);
        assert!(
            (l.hold_frame as f64 - frame_ns(&p)).abs() <= 1.0,
            "m = {m}: hold {} vs {}",
            l.hold_frame,
            frame_ns(&p)
        );
        assert_eq!(l.frames(0, 0, 1, ONE), 0);
        assert_eq!(l.frames(1, 0, 1, ONE), l.hold_frame);
        // The other storage and paging locks do not read the parameter.
        assert_eq!(l.slots(0), 0);
        assert_eq!(l.slots(0), l.hold_slot);
    }
    let (p0, p2) = (params(0.0), params(2.0));
    let (l0, l2) = (
        Locks::new(&p0, &switches("zvm-6.3"), 4),
        Locks::new(&p2, &switches("zvm-6.3"), 4),
    );
    assert_eq!(l0.hold_slot, l2.hold_slot);
    assert_eq!(l0.hold_dispatch, l2.hold_dispatch);
    assert!(l2.hold_frame > l0.hold_frame);
}

/// One zone, refills of 16: processor 0 refills at T (the lock busy 16 frames); processor 2
/// returns 4 stolen frames at T + 1 with frames still on its own list. Through 6.3 it spins for
/// the lock and holds it for its 4 frames; at 6.4 it pushes them on the return queue without
/// spinning and the next refill (processor 3) chains them under its own hold.
#[test]
fn queued_returns_do_not_spin_and_the_next_holder_drains_them() {
    let p = params(1.0);
    let h = Locks::new(&p, &switches("zvm-6.3"), 8).hold_frame as f64;
    let run = |returns: FrameReturns| {
        let mut sw = switches("zvm-6.3");
        sw.frame_returns = returns;
        let mut l = Locks::new(&p, &sw, 8);
        let t0 = 1_000_000;
        assert_eq!(l.frames(2, 0, 1, ONE), 0); // processor 2's list filled long before
        assert_eq!(l.frames(0, t0, 1, ONE), 0);
        let ret = l.frames(2, t0 + 1, 5, ONE);
        let queued = l.frames_queued();
        // Processor 3 refills long after; processor 4 asks 1 ns later and waits for its hold.
        let t1 = 2 * t0;
        assert_eq!(l.frames(3, t1, 1, ONE), 0);
        let after = l.frames(4, t1 + 1, 1, ONE);
        (ret, queued, after, l.frames_queued())
    };
    let (ret_w, q_w, after_w, left_w) = run(FrameReturns::Wait);
    let (ret_q, q_q, after_q, left_q) = run(FrameReturns::Queued);
    assert!((ret_w as f64 - (16.0 * h - 1.0)).abs() <= 2.0, "{ret_w}");
    assert_eq!((q_w, left_w), (0, 0));
    assert_eq!(ret_q, 0, "a queued return does not spin");
    assert_eq!((q_q, left_q), (4, 0));
    // The drained frames lengthen the next holder's hold by their 4 frames.
    assert!(
        (after_w as f64 - (16.0 * h - 1.0)).abs() <= 2.0,
        "{after_w}"
    );
    assert!(
        (after_q as f64 - (20.0 * h - 1.0)).abs() <= 2.0,
        "{after_q}"
    );
}

/// A fault that returns nothing is unaffected by the return switch, and 6.4 is the only level
/// that queues.
#[test]
fn only_zvm64_queues_frame_returns() {
    for l in level::levels() {
        let queued = l.switches.frame_returns == FrameReturns::Queued;
        assert_eq!(queued, l.name.starts_with("zvm-6.4"), "{}", l.name);
    }
    let p = params(1.0);
    for returns in [FrameReturns::Wait, FrameReturns::Queued] {
        let mut sw = switches("zvm-6.3");
        sw.frame_returns = returns;
        let mut l = Locks::new(&p, &sw, 4);
        let spins: Vec<u64> = (0..4).map(|c| l.frames(c, 0, 1, ONE)).collect();
        let want: Vec<u64> = (0..4).map(|k| k * 16 * l.hold_frame).collect();
        assert_eq!(spins, want);
    }
}

/// After the fix ISKE reads the key without taking the PTE lock: it waits only while a key
/// update holds the lock bit of the same user's page, and reads alone never spin.
#[test]
fn pte_reads_wait_only_for_a_holding_update() {
    let p = params(0.0);
    let mut l = Locks::new(&p, &switches("zvm-6.3"), 8);
    assert_eq!(l.guest_pte(0, 0, 0, true, 100), 0);
    assert_eq!(l.guest_pte(1, 10, 0, false, 100), 90);
    assert_eq!(l.guest_pte(2, 10, 1, false, 100), 0, "another user's page");
    assert_eq!(l.guest_pte(3, 200, 0, false, 100), 0, "the update is done");
    let c = l.counters[LockId::GuestPte as usize];
    assert_eq!(
        (c.acquires_excl, c.acquires_shared, c.colls_shared),
        (1, 3, 1)
    );
    assert_eq!(c.spin_shared_ns, 90);
    let mut r = Locks::new(&p, &switches("zvm-6.3"), 8);
    for k in 0..1000u64 {
        assert_eq!(r.guest_pte((k % 8) as u32, k / 3, 0, false, 500), 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, rng_seed: proptest::test_runner::RngSeed::Fixed(17), failure_persistence: None, ..ProptestConfig::default() })]

    /// No storage switch or parameter in its range makes a frame hold negative or unbounded:
    /// every request's extra time is at most everything queued ahead of it (all frames moved
    /// so far, each a full per-frame hold, plus every line transfer and stretch), and the
    /// return queues never hold more frames than were returned.
    #[test]
    fn frame_holds_stay_bounded_under_every_switch(
        reqs in prop::collection::vec((0u64..3000, 1u64..6, 0u32..16), 1..200),
        misses in 0.0f64..=4.0,
        batch in 1.0f64..=64.0,
        zones in 1.0f64..=64.0,
        line in prop::sample::select(vec![0.0, 150.0, 2000.0]),
        queued in any::<bool>(),
        lagging in any::<bool>(),
        shared_line in any::<bool>(),
        zoned in any::<bool>(),
    ) {
        let p = Params {
            lock_line_cycles: line,
            misses_per_frame: misses,
            cpu_list_batch: batch,
            lock_frame_zones: zones,
            ..Params::default()
        };
        let mut sw = switches("zvm-6.3");
        sw.frame_returns = if queued { FrameReturns::Queued } else { FrameReturns::Wait };
        sw.frame_replenish = if lagging { FrameReplenish::Lagging } else { FrameReplenish::DemandSensitive };
        sw.lock_line = if shared_line { LockLine::Shared } else { LockLine::Own };
        sw.frame_zones = if zoned { FrameZones::Zoned } else { FrameZones::One };
        let mut l = Locks::new(&p, &sw, 16);
        let per_frame = l.hold_frame as f64;
        let line_ns = line / p.clock_ghz;
        let (mut t, mut moved, mut returned) = (0u64, 0f64, 0u64);
        for (k, (dt, frames, cpu)) in reqs.iter().enumerate() {
            t += dt;
            let extra = l.frames(*cpu, t, *frames, ONE);
            moved += *frames as f64 + batch.round();
            returned += frames - 1;
            // Each earlier request wrote the line at most once, invalidated at most k copies
            // and stretched its hold by at most k transfers per touch.
            let bound = moved * per_frame + line_ns * (k as f64 + 1.0) * (3.0 * k as f64 + 4.0) + 2.0 * k as f64 + 2.0;
            prop_assert!((extra as f64) <= bound, "request {}: extra {} > bound {}", k, extra, bound);
            prop_assert!(l.frames_queued() <= returned);
            if !queued {
                prop_assert_eq!(l.frames_queued(), 0);
            }
        }
        let c = l.counters[LockId::Rsa2glck as usize];
        prop_assert!(c.colls_excl <= c.acquires_excl);
    }
}

fn virstor(level: &str, frames: u64, params: Value, seed: u64) -> Value {
    let cfg = json!({
        "level": level, "processors": 2, "duration_ns": 1_000_000_000u64,
        "interval_ns": 500_000_000u64, "seed": seed, "params": params,
        "guests": [{"userid": "VIRSTOR", "count": 2, "storage_pages": 1u64 << 20,
                    "refs": {"pattern": "uniform", "range_pages": 786432},
                    "workload": {"kind": "cpu-bound", "tx_cpu_ns": 2000, "dist": "fixed"}}],
        "storage": {"frames": frames, "prefill": true,
                    "paging_volumes": [{"type": "eckd", "slots": 1u64 << 21, "count": 8}]}
    });
    serde_json::from_str(&zvm::run_json(&cfg.to_string()).unwrap()).unwrap()
}

/// The deferral acts only where the below-2GB list runs dry: at 6.1 (elective use) with
/// storage above the line, page-ins are deferred to the demand scan and to the page-out of
/// the stolen page; at 6.2, or with no storage above 2 GB, nothing is deferred. Deterministic.
#[test]
fn below_2g_deferral_acts_only_with_elective_use_above_the_line() {
    let f = |v: &Value, k: &str| v["storage"][k].as_f64().unwrap();
    let a = virstor("zvm-6.1", 1 << 20, json!({}), 7);
    assert!(f(&a, "below_2g_deferrals_per_s") > 100.0);
    assert!(f(&a, "below_2g_victim_writes_per_s") > 100.0);
    assert!(f(&a, "below_2g_defer_wait_ms") > 0.0);
    let b = virstor("zvm-6.2", 1 << 20, json!({}), 7);
    assert_eq!(f(&b, "below_2g_deferrals_per_s"), 0.0);
    assert_eq!(f(&b, "below_2g_victim_writes_per_s"), 0.0);
    // Less real storage than the frames below 2 GB (2 GB less CP's fixed 32 MB): no storage
    // above the line, nothing to defer.
    let c = virstor("zvm-6.1", 500_000, json!({}), 7);
    assert_eq!(f(&c, "below_2g_deferrals_per_s"), 0.0);
    let again = virstor("zvm-6.1", 1 << 20, json!({}), 7);
    assert_eq!(a["storage"], again["storage"]);
    assert_eq!(a["locks"], again["locks"]);
    // Each deferred page-in waits for a page-out: at 6.1 it waits longer than without it.
    let none = virstor(
        "zvm-6.1",
        1 << 20,
        json!({"storage.below2g_per_paging_io": 0.0}),
        7,
    );
    assert_eq!(f(&none, "below_2g_deferrals_per_s"), 0.0);
    assert!(f(&a, "touches_per_s") < f(&none, "touches_per_s"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, rng_seed: proptest::test_runner::RngSeed::Fixed(71), failure_persistence: None, ..ProptestConfig::default() })]

    /// Processor time is conserved with the storage mechanisms on, at every level that
    /// changes them: busy = guest + chargeable CP + system, no processor busier than the
    /// clock, and the lock spin and line time inside system time.
    #[test]
    fn storage_mechanisms_conserve_processor_time(
        level in prop::sample::select(vec!["zvm-6.1", "zvm-6.2", "zvm-6.3-compat", "zvm-6.3", "zvm-6.4"]),
        misses in 0.0f64..=4.0,
        seed in 0u64..1000,
    ) {
        let cfg = json!({
            "level": level, "processors": 4, "duration_ns": 300_000_000u64,
            "interval_ns": 100_000_000u64, "seed": seed,
            "params": {"storage.misses_per_frame": misses},
            "guests": [{"userid": "V", "count": 6, "storage_pages": 1u64 << 18,
                        "refs": {"pattern": "uniform", "range_pages": 200000},
                        "workload": {"kind": "cpu-bound", "tx_cpu_ns": 1000, "dist": "fixed"}}],
            "storage": {"frames": 600000u64, "prefill": true,
                        "paging_volumes": [{"type": "eckd", "slots": 1u64 << 21, "count": 4}]}
        });
        let mut sim = zvm::Sim::new(serde_json::from_value(cfg).unwrap()).unwrap();
        sim.run();
        let busy: u64 = sim.lpus.iter().map(|l| l.busy_ns).sum();
        let sys: u64 = sim.lpus.iter().map(|l| l.sys_ns).sum();
        let user: u64 = sim.users.iter().map(|u| u.acct.virt_ns + u.acct.cp_ns).sum();
        prop_assert_eq!(busy, sys + user);
        for l in &sim.lpus {
            prop_assert!(l.busy_ns <= sim.now);
        }
        let lock_ns: u64 = sim.lock_counters().iter().map(|c| c.spin_excl_ns + c.spin_shared_ns + c.line_ns).sum();
        let acquires: u64 = sim.lock_counters().iter().map(|c| c.acquires()).sum();
        prop_assert!(lock_ns <= sys + sim.sys_outstanding() + 2 * acquires);
    }
}

/// A push on a zone's return queue is one interlocked update of its head: a line transfer when
/// another processor wrote the head last, none when this one did (and never a spin).
#[test]
fn return_queue_push_pays_a_transfer_only_when_the_line_moves() {
    let p = Params {
        lock_line_cycles: 550.0,
        ..params(1.0)
    };
    let mut sw = switches("zvm-6.4");
    sw.frame_zones = FrameZones::One;
    let mut l = Locks::new(&p, &sw, 4);
    let line = (550.0 / p.clock_ghz).round() as u64;
    // Fill the lists of processors 0 and 1 (refills; the lock's own line costs apart).
    l.frames(0, 0, 1, ONE);
    l.frames(1, 1_000_000, 1, ONE);
    assert_eq!(l.frames(0, 2_000_000, 3, ONE), line, "first push by 0");
    assert_eq!(l.frames(0, 2_100_000, 3, ONE), 0, "0 wrote the head last");
    assert_eq!(l.frames(1, 2_200_000, 2, ONE), line, "the head moves to 1");
    assert_eq!(l.frames_queued(), 5);
}
