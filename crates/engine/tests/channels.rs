//! Channel paths and PAV (issue 22) through whole runs: random path groups, types, paging and
//! minidisk loads. Every start reaches a path (or still waits at the end), a path never holds
//! more I/Os than its slots nor is busy more than the run, the device times add up, and the
//! same seed gives the same bytes. Bad channel input is an error, not a panic.

use proptest::prelude::*;
use serde_json::{json, Value};

const TYPES: [&str; 4] = ["escon", "ficon", "ficon-express8s", "ficon-express16s"];

fn cfg(
    paths: usize,
    ctype: &str,
    volumes: u32,
    mdisk: bool,
    pav: Option<&str>,
    seed: u64,
) -> Value {
    let ids: Vec<String> = (0..paths).map(|i| format!("{:02X}", 0x40 + i)).collect();
    let mut guests = vec![json!({"userid": "THR", "count": 4, "storage_pages": 32768,
        "refs": {"pattern": "uniform", "range_pages": 30000},
        "workload": {"kind": "cpu-bound", "tx_cpu_ns": 30000, "dist": "fixed"}})];
    if mdisk {
        guests.push(json!({"userid": "MD", "count": 6,
            "workload": {"kind": "dasd-io", "volume": "MD01", "type": "eckd", "cpu_ns": 50000,
                         "ios": 1, "blocks": 1, "window": 4}}));
    }
    let mut c = json!({
        "level": "zvm-6.3", "processors": 2, "duration_ns": 400_000_000u64,
        "interval_ns": 200_000_000u64, "seed": seed, "guests": guests,
        "storage": {"frames": 16384, "prefill": true,
                    "paging_volumes": [{"type": "eckd", "slots": 262144, "count": volumes}]},
        "channels": {"chpids": ids.iter().map(|i| json!({"id": i, "type": ctype})).collect::<Vec<_>>(),
                     "paths": ids}
    });
    if let Some(mode) = pav {
        c["pav"] = json!({"mode": mode, "aliases": 3});
    }
    c
}

fn run(c: &Value) -> Value {
    serde_json::from_str(&zvm::run_json(&c.to_string()).unwrap()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, rng_seed: proptest::test_runner::RngSeed::Fixed(22),
                                        ..ProptestConfig::default() })]
    #[test]
    fn starts_are_conserved_and_paths_never_overcommitted(paths in 1usize..5, t in 0usize..4,
                                                          volumes in 1u32..12, mdisk in any::<bool>(),
                                                          seed in 0u64..1000) {
        let v = run(&cfg(paths, TYPES[t], volumes, mdisk, None, seed));
        let ch = &v["channels"];
        let ps = ch["paths"].as_array().unwrap();
        prop_assert_eq!(ps.len(), paths);
        let dur = v["duration_s"].as_f64().unwrap();
        let slots = [1, 32, 64, 64][t];
        let mut on_paths = 0;
        for p in ps {
            prop_assert!(p["busy_pct"].as_f64().unwrap() <= 100.0 + 1e-9);
            prop_assert!(p["max_concurrent"].as_u64().unwrap() <= slots);
            prop_assert!(p["mean_concurrent"].as_f64().unwrap() <= p["max_concurrent"].as_f64().unwrap() + 1e-9);
            on_paths += p["stats"]["ios"].as_u64().unwrap();
        }
        // Every start went to a path or waits for one; all are the devices' starts.
        let starts = ch["starts"].as_u64().unwrap();
        let dev: u64 = v["devices"].as_array().unwrap().iter().map(|d| d["stats"]["ios"].as_u64().unwrap()).sum();
        prop_assert_eq!(starts, dev);
        prop_assert!(on_paths <= starts && starts - on_paths <= 64, "{} of {}", on_paths, starts);
        // A device's service time is its pend, connect and disconnect; none is negative.
        for d in v["devices"].as_array().unwrap() {
            let s = &d["stats"];
            let parts = ["pend_ns", "connect_ns", "disconnect_ns"].iter().map(|k| s[*k].as_u64().unwrap()).sum::<u64>();
            let busy = s["busy_ns"].as_u64().unwrap();
            prop_assert!(parts <= busy + 3 * s["ios"].as_u64().unwrap() && busy <= parts + 3 * s["ios"].as_u64().unwrap(),
                         "{}: {} vs {}", d["name"], parts, busy);
            prop_assert!(d["util_pct"].as_f64().unwrap() <= 100.0 + 1e-6);
        }
        prop_assert!(dur > 0.0);
    }
}

#[test]
fn same_seed_same_bytes_with_channels_and_dynamic_pav() {
    let c = cfg(2, "escon", 6, true, Some("dynamic"), 5);
    let a = zvm::run_json(&c.to_string()).unwrap();
    assert_eq!(a, zvm::run_json(&c.to_string()).unwrap());
    let v: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["pav"]["mode"], "dynamic");
    let bound: u64 = v["pav"]["bound"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b[1].as_u64().unwrap())
        .sum();
    assert_eq!(bound, 3, "aliases are moved, never lost");
}

#[test]
fn more_paths_never_wait_longer_for_one() {
    // The same load on one, two and four ESCON paths: the mean wait for a path falls.
    let w: Vec<f64> = [1, 2, 4]
        .iter()
        .map(|&n| {
            run(&cfg(n, "escon", 8, false, None, 9))["channels"]["path_wait_ms"]
                .as_f64()
                .unwrap()
        })
        .collect();
    assert!(w[0] > w[1] && w[1] > w[2], "{w:?}");
}

#[test]
fn bad_channel_input_is_an_error() {
    let mut c = cfg(2, "escon", 2, false, None, 1);
    c["channels"]["cu_class"] = json!("ess");
    for (path, val, words) in [
        ("/channels/paths", json!([]), "1 to 8"),
        ("/channels/paths", json!(["40", "77"]), "no defined chpid"),
        ("/channels/paths", json!(["40", "40"]), "listed twice"),
        (
            "/channels/chpids/0/type",
            json!("bus-and-tag"),
            "channels.chpids[0].type: unknown channel type `bus-and-tag`, expected one of `escon`, `ficon`,",
        ),
        (
            "/channels/cu_class",
            json!("2107"),
            "channels.cu_class: unknown control unit class `2107`, expected `ess` or `3990`",
        ),
        ("/level", json!("vmesa-2.3.0"), "does not know"),
    ] {
        let saved = c.clone();
        if path == "/level" {
            c["level"] = val;
            c["channels"]["chpids"][0]["type"] = json!("ficon");
            c["channels"]["chpids"][1]["type"] = json!("ficon");
        } else {
            *c.pointer_mut(path).unwrap_or_else(|| panic!("{path}")) = val;
        }
        let e = zvm::run_json(&c.to_string()).unwrap_err();
        assert!(e.contains(words), "{path}: {e}");
        c = saved;
    }
    let mut p = cfg(2, "escon", 2, false, Some("sideways"), 1);
    assert!(zvm::run_json(&p.to_string())
        .unwrap_err()
        .contains("pav.mode: unknown PAV mode `sideways`, expected `static` or `dynamic`"));
    p["pav"]["mode"] = json!("static");
    assert!(zvm::run_json(&p.to_string())
        .unwrap_err()
        .contains("without ECKD minidisk volumes"));
}
