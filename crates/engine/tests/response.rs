//! Transaction response time (response.rs) against queueing theory: Little's law on a closed
//! interactive workload (N = X (R + Z), with the engine's own CP costs), the exact mean of the
//! machine-repairman model (R = N / X - Z with X from the M/M/c//N solution), and the trivial /
//! non-trivial split by scheduler class.

use zvm::bench::{mmcn_throughput, reference_config};
use zvm::config::{Dist, Workload};
use zvm::Sim;

const MS: u64 = 1_000_000;

fn run(cfg: zvm::Config) -> zvm::monitor::Summary {
    let mut sim = Sim::new(cfg).expect("config");
    sim.run();
    sim.summary()
}

/// Closed FCFS network with no CP cost: the mean response time is the exact one.
#[test]
fn mean_response_matches_machine_repairman_solution() {
    for (n, c, think, burst) in [(1u32, 1u32, 4.0, 1.0), (12, 2, 7.0, 1.0), (40, 4, 5.0, 0.8)] {
        let s = run(reference_config(n, c, think, burst, 40_000, 3));
        let x = mmcn_throughput(n, c, think, burst); // per ms
        let exact_r = n as f64 / x - think;
        let r = s.response_ms.mean;
        eprintln!("n={n} c={c}: mean R {r:.4} ms, exact {exact_r:.4} ms");
        assert!(
            (r - exact_r).abs() < 0.04 * exact_r,
            "n={n} c={c}: mean {r:.4} ms, exact {exact_r:.4} ms"
        );
        assert!(s.response_ms.p50 <= s.response_ms.p90 && s.response_ms.p90 <= s.response_ms.p99);
        // One guest alone on one processor never queues: R is its exponential burst, whose
        // median is ln 2 x mean and 99th percentile ln 100 x mean.
        if n == 1 {
            assert!((s.response_ms.p50 - burst * 2f64.ln()).abs() < 0.05 * burst);
            assert!((s.response_ms.p99 - burst * 100f64.ln()).abs() < 0.1 * burst * 4.6);
        }
    }
}

/// Little's law with the real scheduler and CP path lengths: the N users each cycle through a
/// think (Z) and a transaction (R), so N = X (R + Z) up to the transactions open at the end.
#[test]
fn littles_law_holds_with_cp_costs() {
    let (n, think_ms) = (30u32, 6.0);
    let mut cfg = reference_config(n, 2, think_ms, 0.5, 20_000, 9);
    cfg.params.clear(); // the parameter table's CP costs and slice
    cfg.guests[0].workload = Workload::Transactional {
        think_ns: (think_ms * MS as f64) as u64,
        cpu_ns: MS / 2,
        dist: Dist::Exp,
    };
    let s = run(cfg);
    let x = s.transactions as f64 / (s.duration_s * 1e3); // per ms
    let r = s.response_ms.mean;
    let n_little = x * (r + think_ms);
    eprintln!("X {x:.4}/ms, R {r:.4} ms, Z {think_ms} ms: X(R+Z) = {n_little:.3}, N = {n}");
    assert!(
        (n_little - n as f64).abs() < 0.02 * n as f64,
        "X(R+Z) = {n_little:.3}, N = {n}"
    );
    // Per user the same law with N = 1.
    let u = &s.users[0];
    assert_eq!(u.response_ms.count, u.transactions);
    let sum: u64 = s.users.iter().map(|u| u.response_ms.count).sum();
    assert_eq!(sum, s.response_ms.count);
}

/// Short transactions end in E1 (trivial); one that outlasts the E1 elapsed time slice is
/// dropped to E2/E3 before it ends (non-trivial).
#[test]
fn trivial_and_nontrivial_by_class() {
    let mut cfg = reference_config(4, 2, 10.0, 1.0, 20_000, 5);
    cfg.params.clear();
    let mut long = cfg.guests[0].clone();
    long.userid = "LONG".into();
    long.count = 1;
    long.workload = Workload::Transactional {
        think_ns: 100 * MS,
        cpu_ns: 400 * MS,
        dist: Dist::Fixed,
    };
    cfg.guests.push(long);
    let s = run(cfg);
    let short = &s.users[0].response_ms;
    assert!(
        short.trivial as f64 > 0.95 * short.count as f64,
        "{short:?}"
    );
    let long = &s
        .users
        .iter()
        .find(|u| u.userid == "LONG")
        .unwrap()
        .response_ms;
    assert!(long.count > 10 && long.nontrivial == long.count, "{long:?}");
    assert!(long.mean >= 400.0);
    assert_eq!(
        s.response_ms.trivial + s.response_ms.nontrivial,
        s.response_ms.count
    );
}
