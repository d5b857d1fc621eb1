//! Virtual networking (client and server guests): analytic cycle times, window bounds,
//! conservation of requests, coupling, determinism.

use proptest::prelude::*;
use serde_json::json;
use zvm::config::Config;
use zvm::monitor::Summary;
use zvm::Sim;

const MS: u64 = 1_000_000;

/// CP costs that would blur the analytic checks, set to zero.
fn free_cp() -> serde_json::Value {
    json!({"path.dispatch": 0.0, "hw.sie_cycles": 0.0, "path.slice_end": 0.0, "path.vnet_msg": 0.0,
           "path.dlist_add_drop": 0.0, "path.entitlement_per_user": 0.0, "path.limit_list": 0.0})
}

#[allow(clippy::too_many_arguments)]
fn web(
    procs: u32,
    clients: u32,
    servers: u32,
    server_vcpus: u32,
    c_us: u64,
    s_us: u64,
    window: u32,
    dist: &str,
    secs: u64,
    params: serde_json::Value,
) -> Config {
    let j = json!({
        "level": "zvm-6.4", "processors": procs, "duration_ns": secs * 1000 * MS,
        "interval_ns": 1000 * MS, "seed": 11, "params": params,
        "guests": [
            {"userid": "CL", "count": clients, "vcpus": 1, "quickdsp": true,
             "workload": {"kind": "client", "cpu_ns": c_us * 1000, "servers": "SV", "window": window, "dist": dist}},
            {"userid": "SV", "count": servers, "vcpus": server_vcpus, "quickdsp": true,
             "workload": {"kind": "server", "cpu_ns": s_us * 1000, "dist": dist}}
        ]
    });
    Config::from_json(&j.to_string()).expect("config")
}

fn run(cfg: Config) -> Summary {
    let mut sim = Sim::new(cfg).expect("scenario");
    sim.run();
    sim.summary()
}

fn user<'a>(s: &'a Summary, id: &str) -> &'a zvm::monitor::UserSummary {
    s.users.iter().find(|u| u.userid == id).expect("user")
}

#[test]
fn one_request_at_a_time_is_a_closed_cycle() {
    // Window 1, fixed times, free CP, processors to spare: a transaction every c + s exactly.
    let s = run(web(4, 1, 1, 1, 300, 200, 1, "fixed", 10, free_cp()));
    let expect = 10_000_000 / 500; // 10 s / 500 us
    let got = user(&s, "CL").transactions as i64;
    assert!((got - expect as i64).abs() <= 1, "tx {got} vs {expect}");
    // The server only ever worked when the client waited: both busy fractions add to one.
    let c = user(&s, "CL").cpu_pct;
    let v = user(&s, "SV").cpu_pct;
    assert!(
        (c - 60.0).abs() < 0.2 && (v - 40.0).abs() < 0.2,
        "client {c} server {v}"
    );
}

#[test]
fn a_wide_window_makes_the_slower_side_the_bottleneck() {
    // Pipelined: with a window of 8 the client (300 us) and the server (200 us) overlap on
    // separate processors; throughput is set by the client, 1 / 300 us.
    let s = run(web(4, 1, 1, 1, 300, 200, 8, "fixed", 10, free_cp()));
    let got = s.transactions as f64;
    let expect = 10.0e6 / 300.0;
    assert!(
        (got - expect).abs() / expect < 0.001,
        "tx {got} vs {expect}"
    );
    assert!((user(&s, "CL").cpu_pct - 100.0).abs() < 0.1);
    assert!((user(&s, "SV").cpu_pct - 100.0 * 200.0 / 300.0).abs() < 0.2);
}

#[test]
fn a_saturated_lpar_gives_itr_of_total_cpu_per_transaction() {
    // 2 processors, clients and servers want more than both: busy 100 %, ETR = 2 / (c + s).
    let s = run(web(2, 4, 4, 2, 300, 200, 4, "exp", 20, free_cp()));
    assert!(
        s.avg_processor_busy_pct > 99.9,
        "busy {}",
        s.avg_processor_busy_pct
    );
    let expect = 2.0 / 500e-6;
    assert!(
        (s.etr - expect).abs() / expect < 0.02,
        "etr {} vs {expect}",
        s.etr
    );
    // Each request is served once: server CPU per request is the server's mean.
    let srv_ns: f64 = s
        .users
        .iter()
        .filter(|u| u.userid.starts_with("SV"))
        .map(|u| u.cpu_pct)
        .sum::<f64>()
        / 100.0
        * 20.0e9;
    let per = srv_ns / s.vnet.as_ref().unwrap().requests_served as f64;
    assert!(
        (per - 200_000.0).abs() / 200_000.0 < 0.02,
        "server ns per request {per}"
    );
}

#[test]
fn message_cost_is_chargeable_cp_time_per_message() {
    let mut p = free_cp();
    p["path.vnet_msg"] = json!(10000.0);
    let s = run(web(4, 1, 1, 1, 300, 200, 1, "fixed", 5, p));
    let per_msg_ns = 10000.0 * 3.0 / 5.2; // path x cpi_cp / clock
    let cp_ns: f64 = s.users.iter().map(|u| u.cp_pct).sum::<f64>() / 100.0 * 5.0e9;
    let tx = s.transactions as f64;
    let per_tx = cp_ns / tx;
    assert!(
        (per_tx - 2.0 * per_msg_ns).abs() / (2.0 * per_msg_ns) < 0.01,
        "cp per tx {per_tx}"
    );
    assert!(s.tv_ratio > 1.0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, rng_seed: proptest::test_runner::RngSeed::Fixed(24), failure_persistence: None, ..ProptestConfig::default() })]

    /// Requests are conserved: every reply answers a request; what is in flight is bounded by
    /// the window (plus the request being built); capacity is never exceeded; same seed, same run.
    #[test]
    fn requests_are_conserved(procs in 1u32..6, clients in 1u32..5, servers in 1u32..5,
                              svc in 1u32..4, window in 1u32..6, c in 50u64..800, sv in 50u64..800) {
        let cfg = web(procs, clients, servers, svc, c, sv, window, "exp", 2, json!({}));
        let a = run(cfg.clone());
        for u in a.users.iter().filter(|u| u.userid.starts_with("CL")) {
            prop_assert!(u.tx_started >= u.transactions);
            prop_assert!(u.tx_started - u.transactions <= window as u64 + 1,
                         "{} in flight, window {window}", u.tx_started - u.transactions);
        }
        for u in a.users.iter().filter(|u| u.userid.starts_with("SV")) {
            prop_assert_eq!(u.transactions, 0);
        }
        // Every request sent is answered, queued at a server, or being served; nothing else.
        let n = a.vnet.as_ref().expect("vnet summary");
        let sent: u64 = a.users.iter().filter(|u| u.userid.starts_with("CL")).map(|u| u.tx_started).sum();
        let building: u64 = a.users.iter().filter(|u| u.userid.starts_with("CL"))
            .map(|u| u.tx_started - u.transactions).sum();
        prop_assert_eq!(n.requests_served, a.transactions);
        prop_assert!(n.requests_queued + n.requests_in_service <= building);
        prop_assert!(sent >= n.requests_served + n.requests_queued + n.requests_in_service);
        prop_assert_eq!(n.messages, 2 * n.requests_served + n.requests_queued + n.requests_in_service);
        prop_assert!(a.avg_processor_busy_pct <= 100.0 + 1e-9);
        let cpu: f64 = a.users.iter().map(|u| u.cpu_pct).sum::<f64>() + a.system_pct;
        prop_assert!(cpu <= 100.0 * procs as f64 + 1e-6);
        let b = run(cfg);
        prop_assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    }
}

#[test]
fn servers_with_a_file_cache_page_when_storage_is_short() {
    // Servers touch a page of their 64 MB file cache per request; 16 MB of frames: they fault,
    // wait for page-ins, and the clients' rate drops against the storage-rich run.
    let mk = |frames: u64| {
        let mut j =
            serde_json::to_value(web(2, 2, 2, 1, 200, 200, 4, "exp", 4, json!({}))).unwrap();
        j["guests"][1]["storage_pages"] = json!(16384);
        j["guests"][1]["refs"] = json!({"pattern": "uniform", "range_pages": 16384});
        j["storage"] = json!({"frames": frames, "prefill": true,
                              "paging_volumes": [{"type": "eckd", "slots": 100000, "count": 2}]});
        Config::from_json(&j.to_string()).expect("config")
    };
    let rich = run(mk(40000));
    let short = run(mk(4096));
    let st = short.storage.as_ref().expect("storage");
    assert!(st.faults > 1000, "faults {}", st.faults);
    assert!(rich.storage.as_ref().unwrap().faults < st.faults / 10);
    assert!(
        short.etr < 0.8 * rich.etr,
        "short {} rich {}",
        short.etr,
        rich.etr
    );
    assert_eq!(
        short.vnet.as_ref().unwrap().requests_served,
        short.transactions
    );
}

#[test]
fn data_moving_between_drawers_costs_cp_time_in_proportion_to_messages() {
    // 64 cores of a z14 span two drawers. Short requests (many messages per unit of work) pay
    // the cross-drawer sourcing of their messages' data; long ones hardly; with the cost set
    // to zero only the drawer's static mix remains.
    let short = |p: serde_json::Value| run(web(64, 48, 32, 4, 60, 120, 8, "exp", 1, p));
    let long = run(web(64, 48, 32, 4, 6000, 12000, 8, "exp", 1, json!({})));
    let s = short(json!({}));
    let off = short(json!({"cpi.msg_remote": 0.0}));
    let d = s.cpi.message_distances;
    let all: u64 = d.iter().sum();
    assert!(
        all > 0 && d[3] * 3 > all,
        "about half the messages cross drawers: {d:?}"
    );
    assert!(
        s.cpi.sourcing_cycles_per_miss > 3.0 * off.cpi.sourcing_cycles_per_miss,
        "{} vs {}",
        s.cpi.sourcing_cycles_per_miss,
        off.cpi.sourcing_cycles_per_miss
    );
    assert!(long.cpi.sourcing_cycles_per_miss < 1.2 * off.cpi.sourcing_cycles_per_miss);
    // The sourcing is chargeable CP time: T/V rises with it.
    assert!(
        s.tv_ratio > off.tv_ratio + 0.5,
        "{} vs {}",
        s.tv_ratio,
        off.tv_ratio
    );
    // Never more CPU than the processors had.
    for r in [&s, &off, &long] {
        assert!(r.avg_processor_busy_pct <= 100.0 + 1e-9);
    }
}
