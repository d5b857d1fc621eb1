//! PR/SM and z/VM parking through the whole simulator (issue 4).

use zvm::{Config, Sim};

fn cfg(unparking: &str, extra: &str) -> Config {
    let j = format!(
        r#"{{"level": "zvm-6.4", "processors": 8, "duration_ns": 60000000000, "interval_ns": 10000000000,
        "seed": 3, "switches": {{"unparking": "vm66063"}},
        "guests": [{{"userid": "U", "count": 12, "workload": {{"kind": "cpu-bound", "demand": 0.25}}}}],
        "cpc": {{"shared": 16, "weight": 300, "polarization": "vertical", {unparking} {extra}
                 "lpars": [{{"name": "PROD", "weight": 700, "logical": 12, "busy": 0.4}}]}}}}"#
    );
    Config::from_json(&j).expect("config")
}

fn run(c: Config) -> zvm::monitor::Summary {
    let mut s = Sim::new(c).unwrap();
    s.run();
    s.summary()
}

#[test]
fn unparking_models_order_and_costs() {
    let mut out = Vec::new();
    for m in ["large", "medium", "small"] {
        let s = run(cfg(&format!(r#""unparking": "{m}","#), ""));
        let l = s.lpar.clone().unwrap();
        eprintln!(
            "{m}: unparked {:.2} vl {:.2} lpmgt {:.3} cpc {:.3} sys {:.3} susp {:.2} busy {:.2} etr {:.2} wakes {} avail {:?}",
            l.unparked_avg, l.unparked_vl_avg, l.lpmgt_pct, l.cpc_lpmgt_pct, s.system_pct,
            l.susp_pct, s.avg_processor_busy_pct, s.etr, l.wakes, l.availability
        );
        out.push((l, s.system_pct));
    }
    let (large, medium, small) = (&out[0], &out[1], &out[2]);
    assert!(small.0.unparked_avg <= medium.0.unparked_avg + 1e-9);
    assert!(medium.0.unparked_avg <= large.0.unparked_avg + 1e-9);
    assert!(medium.0.unparked_vl_avg < large.0.unparked_vl_avg);
    assert!(medium.0.lpmgt_pct < large.0.lpmgt_pct);
    assert!(medium.1 < large.1);
}

#[test]
fn bad_cpc_configs_are_errors_not_panics() {
    let base = |cpc: &str, processors: u32| {
        format!(
            r#"{{"level": "zvm-6.4", "processors": {processors}, "duration_ns": 1000000000, "interval_ns": 1000000000,
            "guests": [{{"userid": "U", "workload": {{"kind": "cpu-bound"}}}}], "cpc": {cpc}}}"#
        )
    };
    let cases = [
        (r#"{"shared": 4, "weight": 0}"#, 2, "weight"),
        (r#"{"shared": 4, "weight": 30}"#, 6, "shared physical"),
        (
            r#"{"shared": 4, "weight": 30, "polarization": "horizontal", "unparking": "small"}"#,
            2,
            "vertically",
        ),
        (
            r#"{"shared": 4, "weight": 30, "lpars": [{"name": "P", "weight": 0, "logical": 2}]}"#,
            2,
            "weight",
        ),
        (
            r#"{"shared": 4, "weight": 30, "lpars": [{"name": "P", "weight": 70, "logical": 2, "busy": 2.0}]}"#,
            2,
            "busy",
        ),
        (
            r#"{"shared": 4, "weight": 30, "lpars": [{"name": "ZVM", "weight": 70, "logical": 2}]}"#,
            2,
            "twice",
        ),
        (
            r#"{"shared": 4, "weight": 30, "lpars": [{"name": "D", "logical": 2, "dedicated": true}]}"#,
            2,
            "dedicated",
        ),
    ];
    for (cpc, p, word) in cases {
        let e = Config::from_json(&base(cpc, p)).expect_err(cpc);
        assert!(e.contains(word), "{cpc}: {e}");
    }
    // Level switches: vertical needs 6.3+, MEDIUM/SMALL need VM66063.
    let lv = |level: &str, cpc: &str| base(cpc, 2).replace("\"zvm-6.4\"", &format!("\"{level}\""));
    let e = Sim::new(Config::from_json(&lv("zvm-6.2", r#"{"shared": 4, "weight": 30}"#)).unwrap())
        .err()
        .unwrap();
    assert!(e.contains("6.3"), "{e}");
    let e = Sim::new(
        Config::from_json(&lv(
            "zvm-6.4",
            r#"{"shared": 4, "weight": 30, "unparking": "small"}"#,
        ))
        .unwrap(),
    )
    .err()
    .unwrap();
    assert!(e.contains("VM66063"), "{e}");
    assert!(Sim::new(
        Config::from_json(&lv(
            "zvm-6.2",
            r#"{"shared": 4, "weight": 30, "polarization": "horizontal"}"#
        ))
        .unwrap()
    )
    .is_ok());
}

#[test]
fn horizontal_lpar_beside_a_busy_partner_runs_at_its_weight_share() {
    // Two 4-way partitions, weights 30/70, 4 shared cores, partner always busy: each of our
    // logical processors is powered 30 % of the time it wants to run.
    let j = r#"{"level": "zvm-6.4", "processors": 4, "duration_ns": 20000000000, "interval_ns": 10000000000,
        "guests": [{"userid": "U", "count": 4, "workload": {"kind": "cpu-bound"}}],
        "cpc": {"shared": 4, "weight": 30, "polarization": "horizontal",
                "lpars": [{"name": "P", "weight": 70, "logical": 4, "busy": 1.0, "polarization": "horizontal"}]}}"#;
    let s = run(Config::from_json(j).unwrap());
    let l = s.lpar.unwrap();
    for a in &l.availability {
        assert!((a - 0.3).abs() < 1e-9);
    }
    // Busy (CPU time) is 30 % of wall time per processor; the rest is suspended.
    assert!(
        (s.avg_processor_busy_pct - 30.0).abs() < 0.5,
        "{}",
        s.avg_processor_busy_pct
    );
    assert!((l.susp_pct - 280.0).abs() < 2.0, "{}", l.susp_pct);
    // Suspended-and-resumed running is redispatched once per PR/SM dispatch interval.
    assert!(l.prsm_dispatches as f64 >= 4.0 * 20.0 / (l.dispatch_interval_ms / 1e3) * 0.9);
}

#[test]
fn parked_processors_take_no_work() {
    // SMALL keeps about 5 of the 8 cores unparked for 3 cores of demand: the last processors
    // run nothing once the first parking decision (2 s) has been made.
    let mut c = cfg(r#""unparking": "small","#, "");
    c.interval_ns = 2_000_000_000;
    let s = run(c);
    let l = s.lpar.as_ref().unwrap();
    let top = l.availability.iter().filter(|a| **a > 0.0).count();
    assert!(top < 8, "{:?}", l.availability);
    for iv in s.intervals.iter().skip(1) {
        for p in &iv.processors[7..] {
            assert_eq!(p.busy_pct, 0.0, "interval ending {}", iv.end_s);
        }
    }
}

mod random {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, rng_seed: proptest::test_runner::RngSeed::Fixed(24), failure_persistence: None, ..ProptestConfig::default() })]
        /// Any CPC and parking model: the run ends, every processor's wall time holds its busy
        /// and suspended time, availabilities are shares, unparked counts stay in range, and
        /// the same input gives the same run.
        #[test]
        fn random_cpcs_run_and_conserve(shared in 2u32..24, procs in 1u32..8, w in 1u32..999,
                                        pw in 1u32..999, plog in 1u32..24, busy in 0.0f64..=1.0,
                                        demand in 0.05f64..=1.0, users in 1u32..12, model in 0usize..3,
                                        horizontal in any::<bool>()) {
            let procs = procs.min(shared);
            let plog = plog.min(shared);
            let m = ["large", "medium", "small"][model];
            let (pol, unp) = if horizontal { ("horizontal", String::new()) }
                             else { ("vertical", format!(r#""unparking": "{m}","#)) };
            let j = format!(
                r#"{{"level": "zvm-6.4", "processors": {procs}, "duration_ns": 5000000000,
                "interval_ns": 1000000000, "seed": 5, "switches": {{"unparking": "vm66063"}},
                "guests": [{{"userid": "U", "count": {users}, "workload": {{"kind": "cpu-bound", "demand": {demand}}}}}],
                "cpc": {{"shared": {shared}, "weight": {w}, "polarization": "{pol}", {unp}
                         "lpars": [{{"name": "P", "weight": {pw}, "logical": {plog}, "busy": {busy}}}]}}}}"#
            );
            let s1 = run(Config::from_json(&j).unwrap());
            let s2 = run(Config::from_json(&j).unwrap());
            let l = s1.lpar.clone().unwrap();
            prop_assert_eq!(s1.events, s2.events);
            prop_assert!(l.unparked_avg >= 1.0 - 1e-9 && l.unparked_avg <= procs as f64 + 1e-9);
            prop_assert!(l.availability.iter().all(|a| (0.0..=1.0).contains(a)));
            let busy_sum: f64 = s1.processor_detail.iter().map(|p| p.busy_pct).sum();
            // Busy + suspended fit in the processors' wall time (percent of one processor).
            prop_assert!(busy_sum + l.susp_pct <= 100.0 * procs as f64 + 1e-6,
                         "busy {busy_sum} susp {}", l.susp_pct);
            // The LPAR never runs more than the pool can give it.
            prop_assert!(busy_sum <= 100.0 * shared as f64 + 1e-6);
        }
    }
}

#[test]
fn excessuse_orders_large_unparking_and_none_keeps_vertical_lows_parked() {
    let mut n = Vec::new();
    for x in ["high", "medium", "low", "none"] {
        let s = run(cfg(
            r#""unparking": "large","#,
            &format!(r#""excessuse": "{x}","#),
        ));
        let l = s.lpar.unwrap();
        n.push((l.unparked_avg, l.unparked_vl_avg, l.vh + l.vm));
    }
    for w in n.windows(2) {
        assert!(w[0].0 >= w[1].0 - 1e-9, "{n:?}");
    }
    // NONE: only Vh and Vm cores (after the first decision at IPL, which sees no excess either).
    assert_eq!(n[3].1, 0.0, "{n:?}");
    assert_eq!(n[3].0, n[3].2 as f64, "{n:?}");
}

#[test]
fn lpar_intervals_add_up_to_the_run() {
    let j = r#"{"level": "zvm-6.4", "processors": 4, "duration_ns": 20000000000, "interval_ns": 5000000000,
        "switches": {"unparking": "vm66063"},
        "guests": [{"userid": "U", "count": 6, "workload": {"kind": "cpu-bound", "demand": 0.3}}],
        "cpc": {"shared": 6, "weight": 30, "unparking": "large", "excessuse": "high",
                "lpars": [{"name": "P", "weight": 70, "logical": 6, "busy": 0.5,
                           "busy_pattern": [0.2, 1.0], "busy_period_ns": 3000000000}]}}"#;
    let s = run(Config::from_json(j).unwrap());
    let l = s.lpar.unwrap();
    assert_eq!(l.intervals.len(), 4);
    let mean = |f: &dyn Fn(&zvm::lpar::LparInterval) -> f64| {
        l.intervals.iter().map(f).sum::<f64>() / l.intervals.len() as f64
    };
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b.abs().max(1.0);
    assert!(close(mean(&|i| i.unparked_avg), l.unparked_avg), "{l:?}");
    assert!(close(mean(&|i| i.unparked_vl_avg), l.unparked_vl_avg));
    assert!(close(mean(&|i| i.susp_pct), l.susp_pct));
    // A dispatch is counted when its run starts: events at the very end of the run, after the
    // last sample, add a dispatch or two to the run's total.
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-3 * b.abs();
    assert!(near(mean(&|i| i.lpmgt_pct), l.lpmgt_pct), "{l:?}");
    assert!(near(mean(&|i| i.cpc_lpmgt_pct), l.cpc_lpmgt_pct));
    // The partner's swings reach this LPAR: some suspension, not all the time.
    assert!(l.susp_pct > 0.0);
}
