//! HyperPAV alias pools (rows D11, D12): the pool is never over-committed, entitlements add up
//! to it, every I/O is accounted for, and same seed gives the same bytes.

use proptest::prelude::*;
use serde_json::{json, Value};

fn farms(aliases: u32, sp: f64, sm: f64, paging_alias: bool, level: &str, seed: u64) -> Value {
    let cfg = json!({
        "level": level, "processors": 4, "duration_ns": 500_000_000u64,
        "interval_ns": 250_000_000u64, "seed": seed,
        "guests": [
            {"userid": "VS", "count": 4, "vcpus": 2, "storage_pages": 32768,
             "refs": {"pattern": "uniform", "range_pages": 32768},
             "workload": {"kind": "cpu-bound", "tx_cpu_ns": 20000, "dist": "fixed"}},
            {"userid": "MD", "count": 6,
             "workload": {"kind": "dasd-io", "volume": "MD01", "type": "eckd", "cpu_ns": 50000,
                          "ios": 1, "blocks": 1, "window": 4}}],
        "storage": {"frames": 32768, "prefill": true,
                    "paging_volumes": [{"type": "eckd", "slots": 262144, "count": 2}]},
        "hyperpav": {"aliases": aliases, "paging_alias": paging_alias,
                     "share_paging": sp, "share_minidisk": sm}
    });
    serde_json::from_str(&zvm::run_json(&cfg.to_string()).unwrap()).unwrap()
}

fn f(v: &Value, a: &str, b: &str) -> f64 {
    v["hyperpav"][a][b].as_f64().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, rng_seed: proptest::test_runner::RngSeed::Fixed(7),
                                        ..ProptestConfig::default() })]
    #[test]
    fn pool_is_never_overcommitted_and_io_is_conserved(aliases in 1u32..20, sp in 1.0f64..300.0,
                                                       sm in 1.0f64..300.0, pa in any::<bool>(),
                                                       seed in 0u64..1000) {
        let v = farms(aliases, sp, sm, pa, "zvm-6.4", seed);
        let n = aliases as f64;
        // Entitlements add up to the pool (minidisk gets it all without paging aliases).
        let (ep, em) = (f(&v, "entitlement", "paging"), f(&v, "entitlement", "minidisk"));
        prop_assert!((ep + em - n).abs() < 1e-9, "{ep} + {em} vs {n}");
        if !pa { prop_assert!(ep == 0.0 && f(&v, "max_in_use", "paging") == 0.0); }
        // Never more aliases in use than the pool has.
        let (mp, mm) = (f(&v, "mean_in_use", "paging"), f(&v, "mean_in_use", "minidisk"));
        prop_assert!(mp + mm <= n + 1e-9, "mean in use {mp} + {mm} > {n}");
        prop_assert!(f(&v, "max_in_use", "paging") <= n && f(&v, "max_in_use", "minidisk") <= n);
        // Every paging page moved went through a paging volume; every guest I/O through its
        // minidisk volume (I/Os queued at the end are counted by the device when they start).
        let st = &v["storage"];
        let devs = v["devices"].as_array().unwrap();
        let pages: u64 = devs.iter().filter(|d| d["name"].as_str().unwrap().starts_with("PAGE"))
            .map(|d| d["stats"]["pages"].as_u64().unwrap()).sum();
        let moved = st["pages_read"].as_u64().unwrap() + st["pages_written"].as_u64().unwrap();
        prop_assert!(pages <= moved && pages + 128 >= moved, "{} vs {}", pages, moved);
        let mdisk: u64 = devs.iter().filter(|d| d["name"] == "MD01")
            .map(|d| d["stats"]["ios"].as_u64().unwrap()).sum();
        let guest: u64 = v["dasd"]["users"].as_object().unwrap().values()
            .map(|u| u["ios"].as_u64().unwrap()).sum();
        prop_assert!(mdisk <= guest && mdisk + 24 >= guest, "{} vs {}", mdisk, guest);
    }
}

#[test]
fn aliases_serve_paging_only_with_set_paging_alias_at_a_level_that_has_it() {
    let on = farms(8, 100.0, 100.0, true, "zvm-6.4", 1);
    let off = farms(8, 100.0, 100.0, false, "zvm-6.4", 1);
    let old = farms(8, 100.0, 100.0, true, "zvm-6.3", 1);
    assert!(f(&on, "mean_in_use", "paging") > 0.5);
    assert_eq!(f(&off, "max_in_use", "paging"), 0.0);
    assert_eq!(
        f(&old, "max_in_use", "paging"),
        0.0,
        "6.3 has no paging aliases"
    );
    assert!(
        on["storage"]["paging_response_ms"].as_f64()
            < off["storage"]["paging_response_ms"].as_f64()
    );
    assert_eq!(
        serde_json::to_string(&farms(8, 100.0, 200.0, true, "zvm-6.4", 3)["hyperpav"]).unwrap(),
        serde_json::to_string(&farms(8, 100.0, 200.0, true, "zvm-6.4", 3)["hyperpav"]).unwrap()
    );
}
