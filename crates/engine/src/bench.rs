//! The reference model of shared/research/des-anchors.md, run through the real engine.
//!
//! Closed finite-source network (machine repairman, M/M/c//N): N guests alternate an exponential
//! think time and an exponential CPU burst on c logical processors served in arrival order.
//! Time unit of the model: 1 ms. CP costs are set to zero and the minor time slice to effectively
//! infinite so that the engine's dispatcher is exactly FCFS and the exact solution applies.

use crate::config::{Config, Dist, Guest, Workload};
use crate::sim::Sim;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

const MS: u64 = 1_000_000;

/// Exact throughput (per time unit) of the M/M/c//N machine-repairman model.
pub fn mmcn_throughput(n: u32, c: u32, think_mean: f64, burst_mean: f64) -> f64 {
    let (lam, mu) = (1.0 / think_mean, 1.0 / burst_mean);
    // Birth-death chain on k = number of guests at the processors; work in logs for stability.
    let mut logp = vec![0.0f64; n as usize + 1];
    for k in 1..=n as usize {
        let birth = (n as f64 - (k as f64 - 1.0)) * lam;
        let death = (k.min(c as usize)) as f64 * mu;
        logp[k] = logp[k - 1] + birth.ln() - death.ln();
    }
    let m = logp.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = logp.iter().map(|l| (l - m).exp()).collect();
    let z: f64 = w.iter().sum();
    w.iter()
        .enumerate()
        .map(|(k, p)| p / z * (k.min(c as usize)) as f64 * mu)
        .sum()
}

pub fn reference_config(
    n: u32,
    c: u32,
    think_ms: f64,
    burst_ms: f64,
    horizon_ms: u64,
    seed: u64,
) -> Config {
    let mut params = BTreeMap::new();
    params.insert("path.dispatch".to_string(), 0.0);
    params.insert("hw.sie_cycles".to_string(), 0.0);
    params.insert("path.slice_end".to_string(), 0.0);
    params.insert("srm.dspslice".to_string(), 1e9); // ms: never preempt, so the queue is FCFS
                                                    // The scheduler lock's holds are parts of those paths; no cache-line cost either.
    for k in [
        "lock.line_cycles",
        "lock.hold_dispatch",
        "lock.hold_requeue",
        "lock.hold_ready",
    ] {
        params.insert(k.to_string(), 0.0);
    }
    params.insert("cpi.l1_miss_per_instr".to_string(), 0.0); // every processor at speed 1.0 (no drawer CPI)
    Config {
        seed,
        params,
        ..Config::base(
            "zvm-6.4",
            c,
            horizon_ms * MS,
            (horizon_ms * MS / 10).max(1),
            vec![Guest {
                count: n,
                ..Guest::new(
                    "CL",
                    Workload::Transactional {
                        think_ns: (think_ms * MS as f64) as u64,
                        cpu_ns: (burst_ms * MS as f64) as u64,
                        dist: Dist::Exp,
                    },
                )
            }],
        )
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    pub model: String,
    pub horizon: f64,
    pub bursts: u64,
    pub events: u64,
    pub wall_s: f64,
    pub bursts_per_s: f64,
    pub events_per_s: f64,
    pub ns_per_event: f64,
    pub throughput: f64,
    pub exact_throughput: f64,
    pub throughput_error_pct: f64,
}

pub fn run_reference(horizon_ms: u64, seed: u64) -> Result<BenchResult, String> {
    let (n, c, think, burst) = (500u32, 64u32, 7.0, 1.0);
    let cfg = reference_config(n, c, think, burst, horizon_ms, seed);
    let t0 = Instant::now();
    let mut sim = Sim::new(cfg)?;
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let bursts: u64 = sim.users.iter().map(|u| u.acct.tx_done).sum();
    let x = bursts as f64 / horizon_ms as f64;
    let exact = mmcn_throughput(n, c, think, burst);
    Ok(BenchResult {
        model: format!("closed M/M/c//N: {n} guests, {c} processors, think Exp({think}), burst Exp({burst}), FCFS"),
        horizon: horizon_ms as f64,
        bursts,
        events: sim.events,
        wall_s: wall,
        bursts_per_s: bursts as f64 / wall,
        events_per_s: sim.events as f64 / wall,
        ns_per_event: wall * 1e9 / sim.events.max(1) as f64,
        throughput: x,
        exact_throughput: exact,
        throughput_error_pct: 100.0 * (x - exact) / exact,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_solution_matches_published_anchor() {
        let x = mmcn_throughput(500, 64, 7.0, 1.0);
        assert!((x - 61.506).abs() < 0.001, "{x}");
        // One server, one client: X = 1 / (think + burst).
        assert!((mmcn_throughput(1, 1, 3.0, 1.0) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn engine_reproduces_exact_throughput() {
        let r = run_reference(3_000, 1).unwrap();
        assert!(r.throughput_error_pct.abs() < 1.5, "{r:?}");
    }
}
