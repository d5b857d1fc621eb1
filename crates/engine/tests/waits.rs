//! Random scenarios with the waits that end while a virtual CPU may still be on a processor:
//! page faults and shared page-ins, asynchronous minidisk I/O with a window, and server
//! requests handed to a waiting server (with page references). `cargo test` builds the engine
//! with debug assertions, which check at every readying and dispatch that the virtual CPU runs
//! on no processor, and at every sample that no user was charged above its virtual CPUs; the
//! properties here check the same from outside: no virtual CPU on two processors after any
//! event, a user charged only while running, CPU within capacity in every interval.

use proptest::prelude::*;
use serde_json::{json, Value};
use zvm::sim::VState;
use zvm::Sim;

const MS: u64 = 1_000_000;

fn refs(hot: bool, range: u64) -> Value {
    if hot {
        json!({"pattern": "hotset", "range_pages": range, "hot_pages": range / 20 + 1, "hot_fraction": 0.7})
    } else {
        json!({"pattern": "uniform", "range_pages": range})
    }
}

/// One guest group: a paging CPU user, a minidisk I/O driver with a window, or a client and
/// its servers (the servers with page references).
fn group(
    kind: u8,
    i: usize,
    vcpus: u32,
    count: u32,
    hot: bool,
    window: u32,
    cpu_us: u64,
) -> Vec<Value> {
    let id = format!("G{i}");
    match kind {
        0 => vec![
            json!({"userid": id, "vcpus": vcpus, "count": count, "storage_pages": 8000,
                         "refs": refs(hot, 8000),
                         "workload": {"kind": "cpu-bound", "tx_cpu_ns": cpu_us * 1000, "dist": "exp"}}),
        ],
        1 => vec![json!({"userid": id, "vcpus": vcpus, "count": count,
                         "workload": {"kind": "dasd-io", "volume": format!("V{i}"), "type": "edev",
                                      "method": "ssch", "cpu_ns": cpu_us * 1000, "ios": 3, "blocks": 8,
                                      "dist": "exp", "window": window}})],
        _ => vec![
            json!({"userid": format!("C{i}"), "count": count, "storage_pages": 1000,
                   "workload": {"kind": "client", "dist": "exp", "cpu_ns": cpu_us * 1000,
                                "servers": format!("S{i}"), "window": window}}),
            json!({"userid": format!("S{i}"), "vcpus": vcpus, "count": 1, "storage_pages": 8000,
                   "refs": refs(hot, 8000), "touches": 3,
                   "workload": {"kind": "server", "dist": "exp", "cpu_ns": cpu_us * 1000}}),
        ],
    }
}

fn config_strategy() -> impl Strategy<Value = zvm::Config> {
    let g = (
        0u8..3,
        1u32..4,
        1u32..4,
        any::<bool>(),
        1u32..4,
        20u64..2000,
    );
    (
        1u32..5,
        prop::collection::vec(g, 1..4),
        prop::sample::select(vec!["zvm-6.3", "zvm-6.4", "vmesa-2.4.0"]),
        20u64..3_000,
        any::<bool>(),
        0u64..1000,
        // A fault's CP path (instructions): the default, and long enough for a page-in to end
        // inside it.
        prop::sample::select(vec![4000.0, 300_000.0, 3_000_000.0]),
    )
        .prop_map(|(p, gs, level, frames, prefill, seed, fault)| {
            let guests: Vec<Value> = gs
                .into_iter()
                .enumerate()
                .flat_map(|(i, (k, v, c, hot, w, cpu))| group(k, i, v, c, hot, w, cpu))
                .collect();
            let cfg = json!({"level": level, "processors": p, "duration_ns": 1000 * MS,
                             "params": {"storage.path_fault": fault},
                             "interval_ns": 250 * MS, "seed": seed, "guests": guests,
                             "storage": {"frames": frames, "prefill": prefill,
                                         "paging_volumes": [{"type": "eckd", "slots": 200_000, "count": 2}]}});
            zvm::Config::from_json(&cfg.to_string()).expect("config")
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, rng_seed: proptest::test_runner::RngSeed::Fixed(24), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn waits_that_end_early_never_run_a_virtual_cpu_twice(cfg in config_strategy()) {
        let p = cfg.processors as u64;
        let mut sim = Sim::new(cfg).unwrap();
        while !sim.finished() {
            sim.run_until(sim.next_event_time().unwrap_or(u64::MAX));
            let mut on = vec![false; sim.vcpus.len()];
            for lp in sim.lpus.iter().filter(|lp| lp.vcpu != u32::MAX) {
                prop_assert!(!std::mem::replace(&mut on[lp.vcpu as usize], true),
                    "at {} ns virtual CPU {} runs on two processors", sim.now, lp.vcpu);
            }
        }
        let now = sim.now;
        let s = sim.summary();
        for iv in &s.intervals {
            let len = ((iv.end_s - iv.start_s) * 1e9).round() as u64;
            prop_assert!(iv.busy_ns <= p * len);
            for (u, usr) in iv.user_detail.iter().zip(&sim.users) {
                prop_assert!(u.cpu_pct <= 100.0 * usr.vcpus.len() as f64 + 1e-9, "{} at {} %", u.userid, u.cpu_pct);
            }
        }
        for u in &sim.users {
            let t = sim.user_state_time(u, now);
            prop_assert!(t[VState::Running as usize] >= u.acct.virt_ns + u.acct.cp_ns, "user {}", &u.userid);
        }
    }
}

/// With cache warmth on, a dispatch for CP work only (a fault's) charges no reload; the guest
/// work that follows on the same processor without a new dispatch (a page-in it joined came in
/// during the fault's CP time) pays it. A server of eight virtual CPUs on a hot set of two
/// pages is handed requests while it waits, so its virtual CPUs fault when dispatched and join
/// each other's page-ins. Checked after every event: no processor runs guest work for a virtual
/// CPU that still owes its reload, and the case occurs.
#[test]
fn guest_work_after_a_cp_only_dispatch_pays_its_cache_reload() {
    let mut paid = 0u64;
    for (seed, clients) in [(0u64, 2u32), (1, 8), (2, 24)] {
        let guests = json!([
            {"userid": "C", "count": clients, "storage_pages": 1000,
             "workload": {"kind": "client", "dist": "exp", "cpu_ns": 50_000, "servers": "S", "window": 4}},
            {"userid": "S", "vcpus": 8, "count": 1, "storage_pages": 2000,
             "refs": {"pattern": "hotset", "range_pages": 2000, "hot_pages": 2, "hot_fraction": 0.8},
             "touches": 2, "workload": {"kind": "server", "dist": "exp", "cpu_ns": 100_000}}]);
        let cfg = json!({"level": "zvm-6.4", "processors": 4, "duration_ns": 1000 * MS,
                         "params": {"storage.path_fault": 3_000_000.0, "cache.warmth": 1.0},
                         "interval_ns": 250 * MS, "seed": seed, "guests": guests,
                         "storage": {"frames": 60, "prefill": true,
                                     "paging_volumes": [{"type": "eckd", "slots": 200_000, "count": 2}]}});
        let mut sim = Sim::new(zvm::Config::from_json(&cfg.to_string()).unwrap()).unwrap();
        while !sim.finished() {
            let owed: Vec<bool> = sim.vcpus.iter().map(|v| v.reload_owed).collect();
            sim.run_until(sim.next_event_time().unwrap_or(u64::MAX));
            for lp in sim.lpus.iter().filter(|lp| lp.vcpu != u32::MAX) {
                let v = lp.vcpu as usize;
                assert!(
                    lp.virt_left == 0 || !sim.vcpus[v].reload_owed,
                    "at {} ns virtual CPU {v} runs guest work owing its cache reload",
                    sim.now
                );
                paid += (owed[v] && !sim.vcpus[v].reload_owed && sim.vcpus[v].run_start < sim.now)
                    as u64;
            }
        }
    }
    assert!(
        paid > 0,
        "no reload was owed and paid: the case is not exercised"
    );
}
