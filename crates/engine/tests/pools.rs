//! CPU pools (issue 18, pools.rs): a pool never uses more than its limit in any monitor interval
//! (property, both dispatcher generations), its members divide it by their shares (z/VM 6.4),
//! non-members keep what the pool's bursts would otherwise take, timed pool commands, bad
//! sequences are refused, a pool defined mid-run that binds nobody changes nobody's share (the
//! scheduler pass handed from incremental to full), and a run is deterministic.

use proptest::prelude::*;
use zvm::config::{
    Action, Config, Dist, Guest, Limit, PoolCfg, PoolType, Share, ShareKind, ShareValue, Workload,
};
use zvm::monitor::Summary;
use zvm::Sim;

const S: u64 = 1_000_000_000;

fn guest(userid: &str, rel: f64, demand: Option<f64>) -> Guest {
    let w = Workload::CpuBound {
        demand,
        tx_cpu_ns: None,
        dist: Dist::Fixed,
    };
    Guest {
        share: Share {
            min: ShareValue {
                kind: ShareKind::Relative,
                // A RELATIVE share is a whole number (Config::check refuses others).
                value: rel.round().max(1.0),
            },
            max: None,
            limit: Limit::None,
        },
        ..Guest::new(userid, w)
    }
}

fn pool(name: &str, limithard: Option<f64>, capacity: Option<f64>, members: &[&str]) -> PoolCfg {
    PoolCfg {
        name: name.into(),
        limithard_pct: limithard,
        capacity,
        ptype: PoolType::Ifl,
        members: members.iter().map(|m| m.to_string()).collect(),
    }
}

fn config(level: &str, n: u32, secs: u64, guests: Vec<Guest>, pools: Vec<PoolCfg>) -> Config {
    Config {
        seed: 11,
        cpupools: pools,
        ..Config::base(level, n, secs * S, S, guests)
    }
}

fn run(cfg: Config) -> Summary {
    let mut sim = Sim::new(cfg).expect("scenario");
    sim.run();
    sim.summary()
}

fn cpu(s: &Summary, u: &str) -> f64 {
    s.users.iter().find(|x| x.userid == u).unwrap().cpu_pct
}

/// Over one interval a pool may exceed its limit by its credit bucket (srm.limit_bucket = 4
/// minor time slices per processor of limit) plus the runs in flight when it went into debt
/// (one slice per processor): in percent of one processor over a 1-second interval.
fn slack(n: u32, limit_pct: f64) -> f64 {
    let slice_pct = 100.0 * 5e-3; // srm.dspslice 5 ms over 1 s
    (4.0 * (limit_pct / 100.0).max(1.0) + n as f64) * slice_pct
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]
    #[test]
    fn a_pool_never_exceeds_its_limit_in_any_interval(
        n in 1u32..=4,
        members in 1usize..=4,
        others in 0usize..=2,
        pct in 5.0f64..=90.0,
        by_capacity in any::<bool>(),
        shares in proptest::collection::vec(50.0f64..=400.0, 6),
        old in any::<bool>(),
    ) {
        let mut guests = Vec::new();
        let mut names = Vec::new();
        for (k, &sh) in shares.iter().enumerate().take(members) {
            names.push(format!("M{k}"));
            guests.push(guest(&format!("M{k}"), sh, None));
        }
        for k in 0..others {
            guests.push(guest(&format!("O{k}"), shares[4 + k], None));
        }
        let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let p = if by_capacity {
            pool("P", None, Some(pct / 100.0 * n as f64), &refs)
        } else {
            pool("P", Some(pct), None, &refs)
        };
        let level = if old { "zvm-6.3" } else { "zvm-6.4" };
        let s = run(config(level, n, 6, guests, vec![p]));
        let ps = &s.cpupools.as_ref().unwrap()[0];
        for iv in &ps.intervals {
            prop_assert!(iv.cpu_pct <= iv.limit_pct + slack(n, iv.limit_pct),
                "{level}: {:.2} % used, limit {:.2} % ({n} processors)", iv.cpu_pct, iv.limit_pct);
        }
        // Where the limit binds (members want more than it), the pool is held some of the time.
        if members as f64 * 100.0 > ps.limit_pct * 1.05 {
            prop_assert!(ps.limited_count > 0);
        }
    }
}

#[test]
fn members_divide_the_pool_by_share_and_others_keep_theirs() {
    let guests = vec![
        guest("BIG", 200.0, None),
        guest("LNX0", 100.0, None),
        guest("LNX1", 100.0, None),
        guest("BATCH", 100.0, None),
    ];
    let p = pool("P", Some(25.0), None, &["BIG", "LNX0", "LNX1"]);
    let s = run(config("zvm-6.4", 2, 20, guests, vec![p]));
    assert!(
        (cpu(&s, "BIG") - 25.0).abs() < 1.5,
        "BIG {}",
        cpu(&s, "BIG")
    );
    assert!(
        (cpu(&s, "LNX0") - 12.5).abs() < 1.5,
        "LNX0 {}",
        cpu(&s, "LNX0")
    );
    assert!(
        (cpu(&s, "LNX1") - 12.5).abs() < 1.5,
        "LNX1 {}",
        cpu(&s, "LNX1")
    );
    assert!(cpu(&s, "BATCH") > 98.0, "BATCH {}", cpu(&s, "BATCH"));
}

#[test]
fn issue_example_two_hogs_and_a_small_user_in_a_one_processor_pool() {
    let guests = vec![
        guest("HOG0", 100.0, None),
        guest("HOG1", 100.0, None),
        guest("SMALL", 100.0, Some(0.1)),
        guest("OTHER", 100.0, None),
    ];
    let p = pool("P", None, Some(1.0), &["HOG0", "HOG1", "SMALL"]);
    let s = run(config("zvm-6.4", 4, 20, guests, vec![p]));
    for (u, want) in [("HOG0", 45.0), ("HOG1", 45.0), ("SMALL", 10.0)] {
        assert!((cpu(&s, u) - want).abs() < 2.0, "{u} {}", cpu(&s, u));
    }
}

#[test]
fn timed_pool_commands_take_effect() {
    let guests = vec![guest("A", 100.0, None), guest("B", 100.0, None)];
    let mut cfg = config("zvm-6.4", 2, 30, guests, vec![]);
    cfg.actions = vec![
        Action::DefineCpupool {
            at_ns: 10 * S,
            pool: pool("P", None, Some(0.5), &[]),
        },
        Action::SchedulePool {
            at_ns: 10 * S,
            userid: "A".into(),
            pool: Some("P".into()),
        },
        Action::SetCpupool {
            at_ns: 20 * S,
            name: "P".into(),
            limithard_pct: Some(10.0),
            capacity: None,
        },
    ];
    let s = run(cfg);
    let a = |k: usize| s.intervals[k].users["A"];
    assert!(a(5) > 98.0, "before DEFINE: {}", a(5));
    assert!((a(15) - 50.0).abs() < 3.0, "CAPACITY 0.5: {}", a(15));
    assert!((a(25) - 20.0).abs() < 3.0, "LIMITHARD 10% of 2: {}", a(25));
    assert!(s.intervals[25].users["B"] > 98.0);
}

/// z/VM 6.4: defining a pool mid-run hands the incremental scheduler pass over to the full
/// one (entitle_pools.rs) with every user's smoothed demand; a pool whose limit binds nobody
/// then changes nobody's share: each user's CPU in every interval after it is as in the same
/// run without the pool (debug builds also check the incremental pass's bookkeeping up to it).
#[test]
fn a_pool_defined_mid_run_that_binds_nobody_changes_nobody() {
    let guests = || {
        vec![
            guest("A", 100.0, None),
            guest("B", 300.0, None),
            guest("C", 100.0, None),
            guest("D", 100.0, Some(0.2)),
        ]
    };
    let plain = run(config("zvm-6.4", 2, 12, guests(), vec![]));
    let mut cfg = config("zvm-6.4", 2, 12, guests(), vec![]);
    cfg.actions = vec![
        Action::DefineCpupool {
            at_ns: 4 * S + S / 3,
            pool: pool("P", None, Some(2.0), &[]),
        },
        Action::SchedulePool {
            at_ns: 6 * S,
            userid: "A".into(),
            pool: Some("P".into()),
        },
    ];
    let pooled = run(cfg);
    for k in 0..12 {
        for u in ["A", "B", "C", "D"] {
            let (x, y) = (plain.intervals[k].users[u], pooled.intervals[k].users[u]);
            assert!(
                (x - y).abs() < 1.0,
                "interval {k} {u}: {x} without the pool, {y} with"
            );
        }
    }
    // B all of its virtual CPU, D its 0.2, A and C the 0.8 left between them.
    let i = &pooled.intervals[10].users;
    assert!(i["B"] > 97.0 && (i["D"] - 20.0).abs() < 3.0, "{i:?}");
    assert!(
        (i["A"] - 40.0).abs() < 3.0 && (i["C"] - 40.0).abs() < 3.0,
        "{i:?}"
    );
}

#[test]
fn bad_pool_sequences_are_refused() {
    let g = || vec![guest("A", 100.0, None)];
    let mut c = config(
        "zvm-6.4",
        1,
        1,
        g(),
        vec![pool("P", Some(101.0), None, &[])],
    );
    assert!(Sim::new(c.clone()).err().unwrap().contains("LIMITHARD"));
    c.cpupools = vec![pool("P", Some(50.0), None, &["NOBODY"])];
    assert!(Sim::new(c.clone()).is_err());
    c.cpupools = vec![];
    c.actions = vec![Action::SchedulePool {
        at_ns: S / 2,
        userid: "A".into(),
        pool: Some("NOPE".into()),
    }];
    assert!(Sim::new(c.clone()).err().unwrap().contains("no such pool"));
    c.cpupools = vec![pool("P", Some(50.0), None, &["A"])];
    c.actions = vec![Action::DeleteCpupool {
        at_ns: S / 2,
        name: "P".into(),
    }];
    assert!(Sim::new(c).err().unwrap().contains("has members"));
}

#[test]
fn runs_with_pools_are_deterministic() {
    let mk = || {
        config(
            "zvm-6.3",
            2,
            5,
            vec![
                guest("A", 100.0, None),
                guest("B", 300.0, None),
                guest("C", 100.0, None),
            ],
            vec![pool("P", Some(30.0), None, &["A", "B"])],
        )
    };
    let a = serde_json::to_string(&run(mk())).unwrap();
    let b = serde_json::to_string(&run(mk())).unwrap();
    assert_eq!(a, b);
}
