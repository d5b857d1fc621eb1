//! Server workloads of issue 6 (ssl.rs, vnet.rs chains, dasd.rs dumps): the SSL server's CPU
//! per request and per new connection against its cost formula, the crypto adapter's busy-time
//! conservation and saturation, request conservation along server chains, dump channel
//! programs, validation, determinism.

use proptest::prelude::*;
use serde_json::json;
use zvm::config::Config;
use zvm::monitor::Summary;
use zvm::params::Params;
use zvm::sim::path_ns;
use zvm::Sim;

const MS: u64 = 1_000_000;

/// CP costs that would blur the analytic checks, set to zero.
fn free_cp() -> serde_json::Value {
    json!({"path.dispatch": 0.0, "hw.sie_cycles": 0.0, "path.slice_end": 0.0, "path.vnet_msg": 0.0,
           "path.dlist_add_drop": 0.0, "path.entitlement_per_user": 0.0, "path.limit_list": 0.0})
}

fn cfg(level: &str, secs: u64, params: serde_json::Value, guests: serde_json::Value) -> Config {
    let j = json!({
        "level": level, "processors": 4, "duration_ns": secs * 1000 * MS,
        "interval_ns": 1000 * MS, "seed": 5, "params": params, "guests": guests
    });
    Config::from_json(&j.to_string()).expect("config")
}

fn run(c: Config) -> Summary {
    let mut sim = Sim::new(c).expect("scenario");
    sim.run();
    sim.summary()
}

/// One client (`window` connections) driving one SSL server directly.
fn ssl_pair(
    level: &str,
    bytes: u64,
    connect: bool,
    cipher: Option<&str>,
    crypto: bool,
    window: u32,
    params: serde_json::Value,
) -> Config {
    let mut srv = json!({"kind": "ssl-server", "cpu_ns": 50_000, "dist": "fixed"});
    if let Some(c) = cipher {
        srv["cipher"] = json!(c);
    }
    if crypto {
        srv["crypto"] = json!("apvirt");
    }
    cfg(
        level,
        2,
        params,
        json!([
            {"userid": "CL", "quickdsp": true, "workload": {"kind": "client", "cpu_ns": 20_000,
             "servers": "SSL", "window": window, "bytes": bytes, "connect": connect, "dist": "fixed"}},
            {"userid": "SSL", "quickdsp": true, "workload": srv}
        ]),
    )
}

fn p() -> Params {
    Params::default()
}

/// Cipher cycles per byte of a suite, as the model's documentation states it.
fn cycles_per_byte(p: &Params, cipher: &str) -> f64 {
    match cipher {
        "rsa-aes256" => 14.0 * p.ssl_aes_cpb_round + p.ssl_sha1_cpb,
        _ => 10.0 * p.ssl_aes_cpb_round + p.ssl_sha256_cpb,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, rng_seed: proptest::test_runner::RngSeed::Fixed(12), failure_persistence: None, ..ProptestConfig::default() })]

    /// CPU per request = base + records x record path + bytes x cipher cost per byte, for any
    /// payload, at either SSL server level and cipher.
    #[test]
    fn ssl_cpu_per_request_is_records_plus_bytes_times_cipher(
        bytes in 0u64..200_000, v22 in any::<bool>(), aes256 in any::<bool>()) {
        let q = p();
        let level = if v22 { "zvm-6.4" } else { "zvm-6.3-tls12" };
        let cipher = if aes256 { "rsa-aes256" } else { "rsa-aes128-sha256" };
        let s = run(ssl_pair(level, bytes, false, Some(cipher), false, 1, free_cp()));
        let ssl = &s.servers.as_ref().unwrap().ssl["SSL"];
        let records = (bytes as f64 / q.ssl_record_bytes).ceil().max(1.0);
        let rec = if v22 { q.ssl_path_record_v22 } else { q.ssl_path_record_v21 };
        let expect_us = (50_000.0 + records * path_ns(&q, rec, 0.0) as f64
            + bytes as f64 * cycles_per_byte(&q, cipher) / q.clock_ghz) / 1e3;
        prop_assert!(ssl.requests > 10);
        prop_assert_eq!(ssl.records, records as u64 * ssl.requests);
        // The last request may be cut by the end of the run: its CPU is partly counted.
        let tol = expect_us / ssl.requests as f64 + 0.01;
        prop_assert!((ssl.cpu_us_per_request - expect_us).abs() <= tol,
            "cpu/request {} vs {}", ssl.cpu_us_per_request, expect_us);
    }
}

#[test]
fn a_new_connection_costs_the_handshake_and_the_rsa_operation_unless_the_adapter_takes_it() {
    let q = p();
    let base = 50_000.0 + path_ns(&q, q.ssl_path_record_v22, 0.0) as f64;
    let hs = path_ns(&q, q.ssl_path_handshake, 0.0) as f64;
    // Without crypto support (6.4 GA ignores the CRYPTO statement): handshake + RSA on the CPU.
    for crypto in [false, true] {
        let s = run(ssl_pair("zvm-6.4", 0, true, None, crypto, 1, free_cp()));
        let ssl = &s.servers.as_ref().unwrap().ssl["SSL"];
        let expect = (base + hs + path_ns(&q, q.ssl_path_rsa, 0.0) as f64) / 1e3;
        let got = ssl.cpu_us_per_connection.unwrap();
        assert!(
            (got - expect).abs() < expect / ssl.handshakes as f64 + 0.01,
            "{got} vs {expect}"
        );
        assert_eq!(ssl.handshakes_offloaded, 0);
    }
    // With PI72106 and CRYPTO APVIRT: the AP request and CP's APVIRT simulation instead.
    let s = run(ssl_pair(
        "zvm-6.4-pi72106",
        0,
        true,
        None,
        true,
        1,
        free_cp(),
    ));
    let sv = s.servers.as_ref().unwrap();
    let ssl = &sv.ssl["SSL"];
    let expect = (base
        + hs
        + path_ns(&q, q.ssl_path_ap_request, 0.0) as f64
        + path_ns(&q, q.crypto_path_apvirt, 0.0) as f64)
        / 1e3;
    let got = ssl.cpu_us_per_connection.unwrap();
    assert!(ssl.handshakes_offloaded == ssl.handshakes && ssl.handshakes > 10);
    assert!(
        (got - expect).abs() < expect / ssl.handshakes as f64 + 0.01,
        "{got} vs {expect}"
    );
    // One request at a time: the cycle is client + server pieces + adapter service.
    let cycle_ns = 20_000.0 + expect * 1e3 + q.crypto_rsa_us * 1e3;
    let tx = s.transactions as f64;
    assert!(
        (tx - 2e9 / cycle_ns).abs() <= 2.0,
        "tx {tx} vs {}",
        2e9 / cycle_ns
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, rng_seed: proptest::test_runner::RngSeed::Fixed(8), failure_persistence: None, ..ProptestConfig::default() })]

    /// The adapter's busy time is exactly its operations times the service time, never more
    /// than the run; operations started never exceed the handshakes sent to it, and all but
    /// those still queued or in service were started.
    #[test]
    fn crypto_adapter_busy_time_is_conserved(window in 1u32..40, service_us in 50.0f64..20_000.0) {
        let mut params = free_cp();
        params["crypto.rsa_service_us"] = json!(service_us);
        let s = run(ssl_pair("zvm-6.4-pi72106", 0, true, None, true, window, params));
        let sv = s.servers.as_ref().unwrap();
        let c = sv.crypto.as_ref().unwrap();
        let ssl = &sv.ssl["SSL"];
        let svc = (service_us * 1e3).round() as u64;
        prop_assert_eq!(c.busy_ns, c.ops * svc);
        prop_assert!(c.util_pct <= 100.0 + 1e-9);
        prop_assert!(c.ops <= ssl.handshakes_offloaded);
        prop_assert!(ssl.handshakes_offloaded - c.ops <= window as u64);
        // Completed transactions never exceed what the adapter could serve in the run.
        prop_assert!(s.transactions <= c.ops && c.ops as f64 <= 2e9 / svc as f64 + 1.0);
        // A slow adapter is the bottleneck: busy all the time with a full window.
        if service_us > 5000.0 && window > 4 {
            prop_assert!(c.util_pct > 99.0, "util {}", c.util_pct);
        }
    }
}

#[test]
fn a_server_chain_passes_every_request_through_each_hop() {
    let g = json!([
        {"userid": "CL", "count": 2, "quickdsp": true, "workload": {"kind": "client", "cpu_ns": 30_000,
         "servers": "A", "window": 3, "dist": "exp"}},
        {"userid": "A", "quickdsp": true, "workload": {"kind": "server", "cpu_ns": 40_000, "forward": "B", "dist": "exp"}},
        {"userid": "B", "count": 2, "quickdsp": true, "workload": {"kind": "server", "cpu_ns": 60_000, "forward": "C", "dist": "exp"}},
        {"userid": "C", "quickdsp": true, "workload": {"kind": "server", "cpu_ns": 20_000, "dist": "exp"}}
    ]);
    let s = run(cfg("zvm-6.4", 5, free_cp(), g));
    let n = s.vnet.as_ref().unwrap();
    let tx = s.transactions;
    let window = 6u64;
    // Every completed transaction passed A and B (two hand-overs); at most a window in flight.
    assert_eq!(n.requests_served, tx);
    assert!(n.requests_forwarded >= 2 * tx && n.requests_forwarded <= 2 * (tx + window));
    // Server CPU per transaction: the chain's pieces, 40 + 2 x 60 / 2 ... = 40 + 60 + 20 us.
    let sv = s.servers.as_ref().unwrap();
    assert!(
        (sv.cpu_us_per_tx - 120.0).abs() < 120.0 * 0.03,
        "{}",
        sv.cpu_us_per_tx
    );
    assert_eq!(sv.cp_us_per_tx, 0.0);
}

#[test]
fn dump_channel_programs_follow_the_level() {
    let q = p();
    let g = json!([{"userid": "OPER", "workload": {"kind": "dump", "volume": "DUMP01", "size_mb": 64}}]);
    for (level, pages) in [
        ("zvm-6.4", q.dump_pages_old),
        ("zvm-6.4-vm65989", q.dump_pages_new),
    ] {
        let s = run(cfg(level, 60, free_cp(), g.clone()));
        let d = &s.dasd.as_ref().unwrap().users["OPER"];
        let ios = (64.0 * 256.0 / pages).ceil();
        assert_eq!(d.ios, ios as u64);
        assert_eq!(d.kb, d.ios * 4 * pages as u64);
        // One program at a time: CP's path, then pend + overhead + pages x connect.
        let per_io_ms = path_ns(&q, q.dump_path_io, 0.0) as f64 / 1e6
            + q.eckd_pend
            + q.dump_io_overhead
            + pages * q.eckd_connect;
        let expect = ios * per_io_ms / 1e3;
        let got = d.finished_s.expect("dump finished");
        assert!(
            (got - expect).abs() < expect * 0.01,
            "{level}: {got} vs {expect}"
        );
    }
}

#[test]
fn bad_server_configurations_are_refused() {
    let mk = |fwd_c: &str, cipher: &str| {
        json!({
            "level": "zvm-6.4", "processors": 1, "duration_ns": MS, "interval_ns": MS, "seed": 1,
            "guests": [
                {"userid": "CL", "workload": {"kind": "client", "cpu_ns": 1000, "servers": "A", "window": 1}},
                {"userid": "A", "workload": {"kind": "server", "cpu_ns": 1000, "forward": "S"}},
                {"userid": "S", "workload": {"kind": "ssl-server", "cpu_ns": 1000, "forward": fwd_c, "cipher": cipher}},
                {"userid": "C", "workload": {"kind": "server", "cpu_ns": 1000}}
            ]
        })
        .to_string()
    };
    assert!(Config::from_json(&mk("C", "rsa-aes256")).is_ok());
    assert!(Config::from_json(&mk("A", "rsa-aes256"))
        .unwrap_err()
        .contains("loop"));
    assert!(Config::from_json(&mk("CL", "rsa-aes256"))
        .unwrap_err()
        .contains("names no guest with a server workload"));
    assert!(Config::from_json(&mk("C", "des"))
        .unwrap_err()
        .contains("cipher"));
}

#[test]
fn server_runs_are_deterministic() {
    let a = run(ssl_pair(
        "zvm-6.4-pi72106",
        3000,
        true,
        None,
        true,
        8,
        json!({}),
    ));
    let b = run(ssl_pair(
        "zvm-6.4-pi72106",
        3000,
        true,
        None,
        true,
        8,
        json!({}),
    ));
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, rng_seed: proptest::test_runner::RngSeed::Fixed(16), failure_persistence: None, ..ProptestConfig::default() })]

    /// Along any chain with an SSL server (with or without the crypto adapter), every request a
    /// client sent and has no reply to is in exactly one place: a server queue, a server's
    /// service, or the adapter; and never more than the clients' windows.
    #[test]
    fn requests_are_conserved_along_chains_and_through_the_adapter(
        clients in 1u32..4, window in 1u32..30, hops in 0usize..3, ssl_vcpus in 1u32..3,
        offload in any::<bool>(), connect_every in any::<bool>(), procs in 1u32..5,
        service_us in 50.0f64..5000.0) {
        let mut g = vec![json!({"userid": "CL", "count": clients, "workload": {"kind": "client",
            "cpu_ns": 150_000, "servers": "SSL", "window": window, "bytes": 5000,
            "connect": connect_every, "dist": "exp"}})];
        let mut ssl = json!({"kind": "ssl-server", "cpu_ns": 80_000, "dist": "exp"});
        if offload {
            ssl["crypto"] = json!("apvirt");
        }
        if hops > 0 {
            ssl["forward"] = json!("H0");
        }
        g.push(json!({"userid": "SSL", "vcpus": ssl_vcpus, "workload": ssl}));
        for h in 0..hops {
            let mut w = json!({"kind": "server", "cpu_ns": 60_000, "dist": "exp"});
            if h + 1 < hops {
                w["forward"] = json!(format!("H{}", h + 1));
            }
            g.push(json!({"userid": format!("H{h}"), "count": 2, "workload": w}));
        }
        let mut params = json!({"crypto.rsa_service_us": service_us});
        params["ssl.path_rsa_private"] = json!(2_000_000.0);
        let j = json!({"level": "zvm-6.4-pi72106", "processors": procs, "duration_ns": 2000 * MS,
            "interval_ns": 500 * MS, "seed": 3, "params": params, "guests": g});
        let s = run(Config::from_json(&j.to_string()).unwrap());
        let n = s.vnet.as_ref().unwrap();
        let sv = s.servers.as_ref().unwrap();
        let at_adapter = sv.crypto.as_ref().map_or(0, |c| c.in_flight);
        prop_assert_eq!(n.requests_outstanding,
            n.requests_queued + n.requests_in_service + at_adapter);
        prop_assert!(n.requests_outstanding <= (clients * window) as u64);
        prop_assert_eq!(n.requests_served, s.transactions);
        let k = &sv.ssl["SSL"];
        prop_assert_eq!(k.handshakes_offloaded > 0, offload && connect_every && k.handshakes > 0);
        if let Some(c) = sv.crypto.as_ref() {
            // Handshakes counted for the adapter = sent to it (started + still waiting) + first
            // pieces still running on the server (at most one per virtual CPU); in flight =
            // waiting + (0 or 1) in service.
            let counted = k.handshakes_offloaded;
            prop_assert!(counted + 1 >= c.ops + c.in_flight
                && counted <= c.ops + c.in_flight + ssl_vcpus as u64,
                "counted {} ops {} in flight {}", counted, c.ops, c.in_flight);
        }
    }
}
