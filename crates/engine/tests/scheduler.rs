//! Scheduler tests: the z/VM 6.4 level against an independent solver (weighted max-min fair
//! water-filling), the older levels' published deviations as emergent effects, LIMITHARD,
//! LIMITSOFT, SET SHARE during a run, eligible-list admission, conservation and determinism.
//!
//! The solver here is written independently of the engine's (bisection on the water level
//! instead of a sorted pass) so that a shared mistake cannot hide.

use proptest::prelude::*;
use zvm::config::{Action, Config, Dist, Guest, Limit, Share, ShareKind, ShareValue, Workload};
use zvm::monitor::Summary;
use zvm::Sim;

const S: u64 = 1_000_000_000;

#[derive(Clone, Debug)]
struct Spec {
    vcpus: u32,
    min: ShareValue,
    max: Option<ShareValue>,
    limit: Limit,
    /// Demand per virtual CPU (None = infinite).
    demand: Option<f64>,
}

fn rel(v: f64) -> ShareValue {
    ShareValue {
        kind: ShareKind::Relative,
        value: v,
    }
}

fn abs(v: f64) -> ShareValue {
    ShareValue {
        kind: ShareKind::Absolute,
        value: v,
    }
}

fn hungry(min: ShareValue) -> Spec {
    Spec {
        vcpus: 1,
        min,
        max: None,
        limit: Limit::None,
        demand: None,
    }
}

fn config(level: &str, n: u32, secs: u64, interval_s: u64, specs: &[Spec]) -> Config {
    let guests = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let w = Workload::CpuBound {
                demand: s.demand,
                tx_cpu_ns: None,
                dist: Dist::Fixed,
            };
            Guest {
                vcpus: s.vcpus,
                share: Share {
                    min: s.min,
                    max: s.max,
                    limit: s.limit,
                },
                ..Guest::new(format!("U{i}"), w)
            }
        })
        .collect();
    Config {
        seed: 7,
        ..Config::base(level, n, secs * S, interval_s * S, guests)
    }
}

fn run(cfg: Config) -> Summary {
    let mut sim = Sim::new(cfg).expect("scenario");
    sim.run();
    sim.summary()
}

// ---------------------------------------------------------------------------------------------
// The reference solver, in percent of one processor.

/// Share values as fractions of the system (ABSOLUTE first, RELATIVE over what is left).
fn fractions(specs: &[Spec]) -> (Vec<f64>, Vec<Option<f64>>) {
    let a: f64 = specs
        .iter()
        .filter(|s| s.min.kind == ShareKind::Absolute)
        .map(|s| s.min.value / 100.0)
        .sum();
    let r: f64 = specs
        .iter()
        .filter(|s| s.min.kind == ShareKind::Relative)
        .map(|s| s.min.value)
        .sum();
    let scale = if a > 0.99 { 0.99 / a } else { 1.0 };
    let left = 1.0 - a * scale;
    let f = |v: &ShareValue, min: bool| match v.kind {
        ShareKind::Absolute => v.value / 100.0 * if min { scale } else { 1.0 },
        ShareKind::Relative => left * v.value / r,
    };
    let mins = specs.iter().map(|s| f(&s.min, true)).collect();
    let maxs = specs
        .iter()
        .map(|s| {
            if s.limit == Limit::None {
                None
            } else {
                s.max.map(|m| f(&m, false))
            }
        })
        .collect();
    (mins, maxs)
}

/// Water level by bisection: sum_i min(cap_i, level * w_i) = c (or everyone capped).
fn fill(c: f64, w: &[f64], cap: &[f64]) -> Vec<f64> {
    let total: f64 = cap.iter().sum();
    if total <= c {
        return cap.to_vec();
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let given = |l: f64| w.iter().zip(cap).map(|(w, c)| (l * w).min(*c)).sum::<f64>();
    while given(hi) < c {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if given(mid) < c {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    w.iter().zip(cap).map(|(w, c)| (hi * w).min(*c)).collect()
}

/// The correct answer: each user's CPU in percent of one processor.
fn solve(n: u32, specs: &[Spec]) -> Vec<f64> {
    let c = n as f64;
    let (w, maxs) = fractions(specs);
    let cap: Vec<f64> = specs
        .iter()
        .zip(&maxs)
        .map(|(s, m)| {
            let d = s
                .demand
                .map(|d| d * s.vcpus as f64)
                .unwrap_or(s.vcpus as f64);
            let hard = if s.limit == Limit::Hard {
                m.unwrap() * c
            } else {
                f64::INFINITY
            };
            d.min(hard)
        })
        .collect();
    let soft: Vec<f64> = specs
        .iter()
        .zip(&maxs)
        .map(|(s, m)| {
            if s.limit == Limit::Soft {
                m.unwrap() * c
            } else {
                f64::INFINITY
            }
        })
        .collect();
    let cap1: Vec<f64> = cap.iter().zip(&soft).map(|(a, b)| a.min(*b)).collect();
    let mut a = fill(c, &w, &cap1);
    let left = c - a.iter().sum::<f64>();
    if left > 1e-9 {
        let cap2: Vec<f64> = (0..a.len())
            .map(|i| {
                if soft[i].is_finite() {
                    (cap[i] - a[i]).max(0.0)
                } else {
                    0.0
                }
            })
            .collect();
        let more = fill(left, &w, &cap2);
        for (x, m) in a.iter_mut().zip(more) {
            *x += m;
        }
    }
    a.iter().map(|x| x * 100.0).collect()
}

#[test]
fn solver_examples() {
    // A1: 25/50/25/100 on 200 %.
    let a1: Vec<Spec> = [100.0, 200.0, 100.0, 400.0]
        .iter()
        .map(|&v| hungry(rel(v)))
        .collect();
    let x = solve(2, &a1);
    for (got, want) in x.iter().zip([25.0, 50.0, 25.0, 100.0]) {
        assert!((got - want).abs() < 1e-6, "{x:?}");
    }
    // A2: entitlement plus excess in 1:2:3, capped at one processor each.
    let mut a2 = vec![
        Spec {
            demand: Some(0.01),
            ..hungry(rel(10000.0))
        },
        Spec {
            demand: Some(0.01),
            ..hungry(rel(10000.0))
        },
    ];
    a2.extend([100.0, 200.0, 300.0].iter().map(|&v| hungry(rel(v))));
    let x = solve(2, &a2);
    assert!(
        (x[2] - 33.0).abs() < 1e-6 && (x[3] - 66.0).abs() < 1e-6 && (x[4] - 99.0).abs() < 1e-6,
        "{x:?}"
    );
}

/// Per-interval comparison after `warm` seconds: (max abs error, mean abs error) in points.
fn errors(sum: &Summary, want: &[f64], warm: f64) -> (f64, f64) {
    let mut max: f64 = 0.0;
    let (mut tot, mut k) = (0.0, 0);
    for iv in sum.intervals.iter().filter(|iv| iv.start_s >= warm - 1e-9) {
        for (i, w) in want.iter().enumerate() {
            let e = (iv.users[&format!("U{i}")] - w).abs();
            max = max.max(e);
            tot += e;
            k += 1;
        }
    }
    (max, tot / k.max(1) as f64)
}

/// Each user's CPU % averaged over the intervals starting at or after `warm` seconds.
fn averages(sum: &Summary, n_users: usize, warm: f64) -> Vec<f64> {
    let ivs: Vec<_> = sum
        .intervals
        .iter()
        .filter(|iv| iv.start_s >= warm - 1e-9)
        .collect();
    (0..n_users)
        .map(|i| {
            ivs.iter().map(|iv| iv.users[&format!("U{i}")]).sum::<f64>() / ivs.len().max(1) as f64
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Random share scenarios on the z/VM 6.4 level.

/// A random user. `soft_and_mp_hard`: also LIMITSOFT maxima and LIMITHARD on virtual MP users.
fn arb_spec(soft_and_mp_hard: bool) -> impl Strategy<Value = Spec> {
    let min = prop_oneof![
        4 => prop::sample::select(vec![1.0, 10.0, 50.0, 100.0, 150.0, 200.0, 400.0, 1000.0, 10000.0]).prop_map(rel),
        1 => (1u32..=25).prop_map(|v| abs(v as f64)),
    ];
    let demand = prop_oneof![
        2 => Just(None),
        1 => (1u32..=5).prop_map(|d| Some(d as f64 / 10.0)),
    ];
    let soft_w = if soft_and_mp_hard { 1 } else { 0 };
    let limit = prop_oneof![
        3 => Just((Limit::None, None)),
        1 => (5u32..=60).prop_map(|m| (Limit::Hard, Some(abs(m as f64)))),
        soft_w => (5u32..=60).prop_map(|m| (Limit::Soft, Some(abs(m as f64)))),
    ];
    (
        prop_oneof![3 => Just(1u32), 1 => Just(2u32)],
        min,
        demand,
        limit,
    )
        .prop_map(move |(vcpus, min, demand, (limit, max))| {
            let mut max = max;
            if let (Some(m), ShareKind::Absolute) = (max, min.kind) {
                // SET SHARE rejects a maximum below the minimum.
                max = Some(abs(m.value.max(min.value)));
            }
            let vcpus = if limit == Limit::Hard && !soft_and_mp_hard {
                1
            } else {
                vcpus
            };
            Spec {
                vcpus,
                min,
                max,
                limit,
                demand,
            }
        })
}

fn arb_scenario(soft_and_mp_hard: bool) -> impl Strategy<Value = (u32, Vec<Spec>)> {
    (
        1u32..=4,
        prop::collection::vec(arb_spec(soft_and_mp_hard), 2..=6),
    )
        .prop_filter("absolute shares fit", |(_, specs)| {
            specs
                .iter()
                .filter(|s| s.min.kind == ShareKind::Absolute)
                .map(|s| s.min.value)
                .sum::<f64>()
                <= 90.0
        })
        // Known deviation, kept out of the random search and pinned in `critical_load`: when
        // the total demand is (almost) exactly the capacity, the fluid answer needs partial
        // users' work delayed to fill gaps, while 6.4 serves them at once (interactive bias).
        .prop_filter("not critically loaded", |(n, specs)| !critical(*n, specs))
}

/// Total demand (what each user would take alone, a LIMITHARD maximum included) within 10 % of
/// the capacity: the fluid answer then needs every gap filled at once, which a discrete
/// dispatcher cannot (`critical_load`).
fn critical(n: u32, specs: &[Spec]) -> bool {
    let d: f64 = specs
        .iter()
        .map(|s| {
            let d = s.demand.unwrap_or(1.0) * s.vcpus as f64;
            match (s.limit, s.max) {
                (Limit::Hard, Some(m)) => d.min(m.value / 100.0 * n as f64),
                _ => d,
            }
        })
        .sum();
    (d - n as f64).abs() <= 0.1 * n as f64
}

#[test]
fn critical_load() {
    let mut specs: Vec<Spec> = (0..3).map(|_| hungry(rel(1.0))).collect();
    specs.insert(
        2,
        Spec {
            demand: Some(0.5),
            ..hungry(rel(1.0))
        },
    );
    specs.insert(
        3,
        Spec {
            demand: Some(0.5),
            ..hungry(rel(1.0))
        },
    );
    let sum = run(config("zvm-6.4", 4, SECS, INTERVAL_S, &specs));
    let want = solve(4, &specs);
    let (max, _) = errors(&sum, &want, WARM_S);
    // The partial users get their 50 %, the hungry ones lose about 6 points of 100: not the
    // solver's answer. Pinned here so a change in either direction is seen.
    assert!((sum.users[2].cpu_pct - 50.0).abs() < 0.5, "{:?}", sum.users);
    assert!(max > 3.0 && max < 8.0, "max error {max}");
}

/// Monitor interval 2 s (z/VM's default is 60 s; 2 s keeps the test short while a 5 ms slice
/// is still fine-grained against it), the first 4 s are warm-up.
const WARM_S: f64 = 4.0;
const SECS: u64 = 20;
const INTERVAL_S: u64 = 2;

/// Conservation and LIMITHARD, in every interval of any run.
fn check_invariants(sum: &Summary, n: u32, specs: &[Spec]) -> Result<(), TestCaseError> {
    let (_, maxs) = fractions(specs);
    for iv in &sum.intervals {
        let len = iv.end_s - iv.start_s;
        let total: f64 = iv.users.values().sum();
        // Never more than the processors, CP system time included.
        prop_assert!(total + 100.0 * iv.system_ns as f64 / 1e9 / len <= 100.0 * n as f64 + 1e-6);
        for (i, s) in specs.iter().enumerate() {
            if s.limit == Limit::Hard {
                let cap = maxs[i].unwrap() * 100.0 * n as f64;
                let got = iv.users[&format!("U{i}")];
                // One interval may hold at most the saved credit (srm.limit_bucket = 4 slices
                // per virtual CPU) plus one slice run into debt: 25 ms per virtual CPU.
                prop_assert!(
                    got <= cap + 2.5 / len * s.vcpus as f64 + 1e-6,
                    "LIMITHARD {cap} exceeded: {got}"
                );
            }
        }
    }
    Ok(())
}

proptest! {
    // A fixed sample of scenarios so CI is repeatable; `survey` (ignored) looks at 400 and
    // prints how often and where the 6.4 level strays from the solver.
    #![proptest_config(ProptestConfig {
        cases: 48,
        rng_seed: proptest::test_runner::RngSeed::Fixed(3),
        failure_persistence: None,
        .. ProptestConfig::default()
    })]

    /// Relative and absolute shares, infinite and partial demand, virtual MP users, LIMITHARD
    /// on virtual uniprocessors: the 6.4 level tracks the solver in every monitor interval.
    #[test]
    fn zvm64_tracks_the_solver((n, specs) in arb_scenario(false)) {
        let sum = run(config("zvm-6.4", n, SECS, INTERVAL_S, &specs));
        let want = solve(n, &specs);
        let (max, mean) = errors(&sum, &want, WARM_S);
        // Per user, averaged over the intervals after warm-up: within 1.5 points of the solver.
        let avg = averages(&sum, specs.len(), WARM_S);
        let worst = avg.iter().zip(&want).map(|(a, w)| (a - w).abs()).fold(0.0, f64::max);
        prop_assert!(worst <= 1.5 && mean <= 1.0,
            "average error {worst:.2}, per-interval mean {mean:.2} max {max:.2}; want {want:?} got {avg:?}");
        check_invariants(&sum, n, &specs)?;
    }

    /// With LIMITSOFT maxima and LIMITHARD on virtual MP users the 6.4 level is only near the
    /// solver (see `survey`); the invariants hold always, and the run average stays close.
    #[test]
    fn zvm64_limits_keep_invariants((n, specs) in arb_scenario(true)) {
        let sum = run(config("zvm-6.4", n, SECS, INTERVAL_S, &specs));
        check_invariants(&sum, n, &specs)?;
        let want = solve(n, &specs);
        let (_, mean) = errors(&sum, &want, WARM_S);
        // `survey`: 390 of 400 within 1 point per user per interval; the rest (a LIMITSOFT user
        // preempted when partial users' bursts overlap, LIMITHARD virtual MP users whose
        // virtual CPUs leave the limit list together) stay under a mean error of 2.4 points.
        prop_assert!(mean <= 3.0, "mean {mean:.2} want {want:?}");
    }

    /// The older levels keep the same invariants.
    #[test]
    fn old_levels_keep_invariants((n, specs) in arb_scenario(true), level in prop::sample::select(vec!["vmesa-2.3.0", "vmesa-2.4.0", "zvm-6.3"])) {
        let sum = run(config(level, n, 10, INTERVAL_S, &specs));
        check_invariants(&sum, n, &specs)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Published before/after differences (A1, A2, A3) and the cost of short slices (A4).

fn a1() -> Vec<Spec> {
    [100.0, 200.0, 100.0, 400.0]
        .iter()
        .map(|&v| hungry(rel(v)))
        .collect()
}

fn a2() -> Vec<Spec> {
    let mut s = vec![
        Spec {
            demand: Some(0.01),
            ..hungry(rel(10000.0))
        },
        Spec {
            demand: Some(0.01),
            ..hungry(rel(10000.0))
        },
    ];
    s.extend([100.0, 200.0, 300.0].iter().map(|&v| hungry(rel(v))));
    s
}

#[test]
fn a1_infinite_demand_unequal_share() {
    let want = solve(2, &a1());
    let new = run(config("zvm-6.4", 2, 20, 2, &a1()));
    let old = run(config("zvm-6.3", 2, 20, 2, &a1()));
    let (max_new, _) = errors(&new, &want, 2.0);
    let (_, mean_old) = errors(&old, &want, 2.0);
    assert!(
        max_new < 1.0,
        "6.4 should track the solver: max error {max_new}"
    );
    assert!(mean_old > 10.0, "6.3 should deviate: mean error {mean_old}");
}

#[test]
fn a2_distribution_of_excess() {
    let want = solve(2, &a2());
    let new = run(config("zvm-6.4", 2, 20, 2, &a2()));
    let old = run(config("zvm-6.3", 2, 20, 2, &a2()));
    let (max_new, _) = errors(&new, &want, 2.0);
    let (_, mean_old) = errors(&old, &want, 2.0);
    assert!(
        max_new < 1.5,
        "6.4 should track the solver: max error {max_new}"
    );
    assert!(mean_old > 10.0, "6.3 should deviate: mean error {mean_old}");
    // 6.4: users 2, 3, 4 in proportion 1:2:3.
    let u = |s: &Summary, i: usize| s.users[i].cpu_pct;
    assert!(
        (u(&new, 3) / u(&new, 2) - 2.0).abs() < 0.05
            && (u(&new, 4) / u(&new, 2) - 3.0).abs() < 0.08
    );
}

fn a3(level: &str, busy: u32, slice_ms: Option<f64>) -> Summary {
    let mut specs = vec![Spec {
        vcpus: 1,
        min: rel(100.0),
        max: Some(abs(20.0)),
        limit: Limit::Hard,
        demand: None,
    }];
    for _ in 0..busy {
        specs.push(Spec {
            demand: Some(0.9),
            ..hungry(rel(100.0))
        });
    }
    let mut cfg = config(level, 4, 10, 1, &specs);
    if let Some(s) = slice_ms {
        cfg.params.insert("srm.dspslice".into(), s);
    }
    run(cfg)
}

#[test]
fn a3_limithard_on_idle_and_busy_system() {
    let lim = |s: &Summary| s.users[0].cpu_pct;
    // Idle system: 2.3.0 holds the user well below 80 % of a processor; 2.4.0 and 6.4 track it.
    let (old, fix, new) = (
        a3("vmesa-2.3.0", 0, None),
        a3("vmesa-2.4.0", 0, None),
        a3("zvm-6.4", 0, None),
    );
    assert!(lim(&old) < 60.0, "2.3.0 idle {}", lim(&old));
    assert!((lim(&fix) - 80.0).abs() < 1.0, "2.4.0 idle {}", lim(&fix));
    assert!((lim(&new) - 80.0).abs() < 1.0, "6.4 idle {}", lim(&new));
    // Busy system (4 other users wanting 90 % each).
    let (old, fix, new) = (
        a3("vmesa-2.3.0", 4, None),
        a3("vmesa-2.4.0", 4, None),
        a3("zvm-6.4", 4, None),
    );
    assert!(lim(&fix) - 80.0 > lim(&old) - 80.0 && lim(&old) < 60.0);
    assert!((lim(&new) - 80.0).abs() < 2.0, "6.4 busy {}", lim(&new));
    for s in [&old, &fix, &new] {
        for iv in &s.intervals {
            assert!(
                iv.users["U0"] <= 80.0 + 1.0,
                "LIMITHARD exceeded: {}",
                iv.users["U0"]
            );
        }
    }
}

#[test]
fn a4_shorter_slices_cost_more_system_time() {
    let sys: Vec<f64> = [1.0, 2.0, 8.0, 50.0]
        .iter()
        .map(|&s| a3("vmesa-2.4.0", 4, Some(s)).system_pct)
        .collect();
    assert!(
        sys.windows(2).all(|w| w[0] > w[1]),
        "system time should fall as the slice grows: {sys:?}"
    );
    // Diminishing returns: going from 8 to 50 ms saves less than going from 1 to 2 ms.
    assert!(sys[2] - sys[3] < sys[0] - sys[1], "{sys:?}");
}

// ---------------------------------------------------------------------------------------------
// Mechanisms one at a time.

#[test]
fn limitsoft_gets_only_unwanted_capacity() {
    let soft = Spec {
        vcpus: 1,
        min: rel(100.0),
        max: Some(abs(20.0)),
        limit: Limit::Soft,
        demand: None,
    };
    // Another user wants everything: the soft-limited user is held to 20 %.
    let s = run(config(
        "zvm-6.4",
        1,
        10,
        1,
        &[soft.clone(), hungry(rel(100.0))],
    ));
    assert!(
        (s.users[0].cpu_pct - 20.0).abs() < 1.0,
        "{}",
        s.users[0].cpu_pct
    );
    // The other wants 30 %: the soft-limited user gets the 70 % nobody else wants.
    let s = run(config(
        "zvm-6.4",
        1,
        10,
        1,
        &[
            soft,
            Spec {
                demand: Some(0.3),
                ..hungry(rel(100.0))
            },
        ],
    ));
    assert!(
        (s.users[0].cpu_pct - 70.0).abs() < 1.5,
        "{}",
        s.users[0].cpu_pct
    );
}

#[test]
fn set_share_during_the_run() {
    let mut cfg = config(
        "zvm-6.4",
        1,
        20,
        1,
        &[hungry(rel(100.0)), hungry(rel(100.0))],
    );
    cfg.actions.push(Action::SetShare {
        at_ns: 10 * S,
        userid: "U1".into(),
        share: Share {
            min: rel(300.0),
            max: None,
            limit: Limit::None,
        },
    });
    let s = run(cfg);
    let at = |k: usize, u: &str| s.intervals[k].users[u];
    assert!((at(5, "U0") - 50.0).abs() < 1.0 && (at(5, "U1") - 50.0).abs() < 1.0);
    assert!((at(15, "U0") - 25.0).abs() < 1.0 && (at(15, "U1") - 75.0).abs() < 1.0);
}

#[test]
fn dspbuf_forms_an_eligible_list() {
    let specs: Vec<Spec> = (0..4).map(|_| hungry(rel(100.0))).collect();
    let mut cfg = config("zvm-6.4", 4, 10, 1, &specs);
    cfg.params.insert("srm.dspbuf_e1".into(), 2.0);
    let s = run(cfg);
    let total: f64 = s.users.iter().map(|u| u.cpu_pct).sum();
    // Only two users may be on the dispatch list at a time: two processors' worth in all...
    assert!(total < 201.0 && total > 195.0, "{total}");
    // ...shared in turn through the eligible list.
    for u in &s.users {
        assert!(u.cpu_pct > 30.0, "{} got {}", u.userid, u.cpu_pct);
    }
}

#[test]
fn runs_are_deterministic_and_conserve_time() {
    let mut specs = a2();
    specs[0].vcpus = 2;
    specs.push(Spec {
        vcpus: 1,
        min: abs(10.0),
        max: Some(abs(15.0)),
        limit: Limit::Hard,
        demand: None,
    });
    for level in zvm::level::names() {
        let a = run(config(level, 3, 5, 1, &specs));
        let b = run(config(level, 3, 5, 1, &specs));
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap(),
            "{level}"
        );
        for iv in &a.intervals {
            let len_ns = (iv.end_s - iv.start_s) * 1e9;
            let user_ns: f64 = iv.users.values().map(|p| p / 100.0 * len_ns).sum();
            // Processor busy time = user CPU (guest + chargeable CP) + system time, within rounding.
            let busy = iv.busy_ns as f64;
            assert!(
                (busy - user_ns - iv.system_ns as f64).abs() < 1e3,
                "{level}: {busy} vs {user_ns} + {}",
                iv.system_ns
            );
            assert!(busy <= 3.0 * len_ns + 1.0);
        }
    }
}

/// Error statistics over many random scenarios (run by hand: `cargo test --release --test
/// scheduler survey -- --ignored --nocapture`).
#[test]
#[ignore]
fn survey() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strat = arb_scenario(true);
    let mut worst = Vec::new();
    let mut cat: Vec<Vec<f64>> = vec![Vec::new(); 4];
    let mut avg_cat: Vec<Vec<f64>> = vec![Vec::new(); 4];
    for _ in 0..400 {
        let (n, specs) = strat.new_tree(&mut runner).unwrap().current();
        let sum = run(config("zvm-6.4", n, SECS, INTERVAL_S, &specs));
        let want = solve(n, &specs);
        let (max, mean) = errors(&sum, &want, WARM_S);
        let avg = averages(&sum, specs.len(), WARM_S);
        let avg_err = avg
            .iter()
            .zip(&want)
            .map(|(a, w)| (a - w).abs())
            .fold(0.0, f64::max);
        let hard_mp = specs.iter().any(|s| s.limit == Limit::Hard && s.vcpus > 1);
        let soft = specs.iter().any(|s| s.limit == Limit::Soft);
        avg_cat[(hard_mp as usize) * 2 + soft as usize].push(avg_err);
        cat[(hard_mp as usize) * 2 + soft as usize].push(max);
        worst.push((max, mean, hard_mp, n, specs));
    }
    for (i, c) in cat.iter().enumerate() {
        let over2 = c.iter().filter(|&&m| m > 2.0).count();
        let over1 = c.iter().filter(|&&m| m > 1.0).count();
        let a15 = avg_cat[i].iter().filter(|&&m| m > 1.5).count();
        println!("hard-mp {} soft {}: {} scenarios, per-interval max error > 1: {over1}, > 2: {over2}; run-average error > 1.5: {a15}", i / 2, i % 2, c.len());
    }
    worst.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
    let over = |t: f64| worst.iter().filter(|w| w.0 > t).count();
    println!(
        "max error > 1: {}, > 1.5: {}, > 2: {}, > 3: {} of {}",
        over(1.0),
        over(1.5),
        over(2.0),
        over(3.0),
        worst.len()
    );
    for w in worst
        .iter()
        .filter(|w| !w.2 && !w.4.iter().any(|s| s.limit == Limit::Soft))
        .take(3)
    {
        println!(
            "BASE max {:.2} mean {:.2} n {} {:?}",
            w.0,
            w.1,
            w.3,
            w.4.iter()
                .map(|s| (
                    s.vcpus,
                    s.min.value,
                    s.min.kind == ShareKind::Absolute,
                    s.limit,
                    s.max.map(|m| m.value),
                    s.demand
                ))
                .collect::<Vec<_>>()
        );
    }
    for w in worst.iter().take(8) {
        println!(
            "max {:.2} mean {:.2} hard-mp {} n {} {:?}",
            w.0,
            w.1,
            w.2,
            w.3,
            w.4.iter()
                .map(|s| (
                    s.vcpus,
                    s.min.value,
                    s.min.kind == ShareKind::Absolute,
                    s.limit,
                    s.max.map(|m| m.value),
                    s.demand
                ))
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn quickdsp_user_skips_the_eligible_list() {
    // DSPBUF lets two users on the dispatch list at a time; with four hungry users on four
    // processors two always wait on the eligible list. A QUICKDSP user (class E0) never waits
    // and is not counted against DSPBUF, so it gets a full processor all the time.
    let specs: Vec<Spec> = (0..5).map(|_| hungry(rel(100.0))).collect();
    let mut cfg = config("zvm-6.4", 4, 10, 1, &specs);
    cfg.params.insert("srm.dspbuf_e1".into(), 2.0);
    cfg.guests[4].quickdsp = true;
    let s = run(cfg);
    let q = &s.users[4];
    assert!(q.cpu_pct > 98.0, "QUICKDSP user got {}", q.cpu_pct);
    let others: f64 = s.users[..4].iter().map(|u| u.cpu_pct).sum();
    assert!(others < 201.0 && others > 195.0, "{others}");
}
