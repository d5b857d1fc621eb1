//! Lock holds priced by where their protected data was last written (crate::lines, issue 17):
//! the extra grows with the distance between consecutive holders, so with the LPAR's spread
//! over chips, nodes and drawers; it is zero for a processor that held the lock last, and the
//! mechanism off (`lock.hold_shared_misses` = 0) is the model before it.

use zvm::cache::Warmth;
use zvm::config::Config;
use zvm::cpu::Cpu;
use zvm::level;
use zvm::lines::HoldLocality;
use zvm::locks::{LockId, Locks, Mode};
use zvm::params::Params;

const HOLD: u64 = 1_000_000;

fn placed(cores: u32, share: f64) -> (Params, Cpu, Vec<u32>) {
    let p = Params {
        lock_hold_shared_misses: share,
        ..Params::default()
    };
    let cfg = Config {
        machine: Some("z13".into()),
        ..Config::base("zvm-6.3", cores, 1_000_000, 1_000_000, vec![])
    };
    let cpu = Cpu::from_config(&cfg, &p).unwrap();
    let node = Warmth::new(&p, &cpu.machine, &cpu.topo, 1, cpu.n_lpus as usize)
        .node
        .clone();
    (p, cpu, node)
}

fn locality(cores: u32, share: f64) -> Option<HoldLocality> {
    let (p, cpu, node) = placed(cores, share);
    HoldLocality::new(&p, &cpu, &node, false)
}

#[test]
fn off_when_no_share_of_the_misses_is_remote() {
    assert!(locality(64, 0.0).is_none());
    assert!(locality(64, 0.5).is_some());
}

#[test]
fn extra_grows_with_the_distance_from_the_previous_holder() {
    // z13, 64 cores over two drawers of 32: chips of 8, chips 0-2 in node 0 and chip 3 in
    // node 1 of drawer 0; cores 32-63 in drawer 1.
    let l = locality(64, 0.5).unwrap();
    let x = |prev: u32| l.extra(prev, 0, HOLD);
    assert_eq!(x(0), 0, "the same processor wrote the data: no transfer");
    let (chip, node, other_node, drawer) = (x(1), x(8), x(24), x(40));
    assert!(chip <= node, "{chip} {node}");
    assert!(node < other_node, "{node} {other_node}");
    assert!(other_node < drawer, "{other_node} {drawer}");
    assert!(
        drawer > 0 && drawer < 3 * HOLD,
        "a hold grows, it does not explode: {drawer}"
    );
    assert_eq!(l.extra(zvm::sim::NONE, 0, HOLD), 0, "no known processor");
}

#[test]
fn mean_extra_grows_as_the_lpar_spreads() {
    let mean = |cores: u32| {
        let l = locality(cores, 0.5).unwrap();
        let mut s = 0u64;
        for a in 0..cores {
            for b in 0..cores {
                s += l.extra(a, b, HOLD);
            }
        }
        s as f64 / f64::from(cores * cores)
    };
    let (m16, m32, m64) = (mean(16), mean(32), mean(64));
    assert!(m16 > 0.0);
    assert!(m32 > m16 * 1.1, "one node -> two nodes: {m16} {m32}");
    assert!(m64 > m32 * 1.3, "one drawer -> two: {m32} {m64}");
}

#[test]
fn a_hold_after_a_distant_holder_lasts_longer() {
    let run = |share: f64, second: u32| {
        let (p, cpu, node) = placed(64, share);
        let sw = &level::find("zvm-6.3").unwrap().switches;
        let mut locks = Locks::new(&p, sw, 64);
        locks.set_locality(HoldLocality::new(&p, &cpu, &node, false), 1);
        locks.acquire(LockId::Hcppgdal, Mode::Excl, 0, 0, 5_000);
        locks.acquire(LockId::Hcppgdal, Mode::Excl, 100_000, second, 5_000)
    };
    let (near, far, off) = (run(0.5, 0), run(0.5, 40), run(0.0, 40));
    assert_eq!(near.line, 0, "same processor, own lock word and data");
    assert_eq!(near.end - near.start, 5_000);
    assert_eq!(
        far.line, off.line,
        "the lock word costs the same: {far:?} {off:?}"
    );
    assert!(
        far.end - far.start > 5_000 + far.line,
        "the data from another drawer lengthens the hold: {far:?}"
    );
    assert_eq!(
        off.end - off.start,
        5_000 + off.line,
        "off: the model before"
    );
    assert_eq!(far.spin, 0);
}
