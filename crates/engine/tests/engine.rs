//! The engine's integration tests, built as one test binary: one compile and one link of
//! the engine and the test dependencies instead of one per file (`autotests = false` in
//! Cargo.toml). Each file is still a module of its own, named after it: run one with
//! `cargo test -p zvm-engine --test engine -- waits::`.

#[path = "capping.rs"]
mod capping;
#[path = "channels.rs"]
mod channels;
#[path = "common/mod.rs"]
mod common;
#[path = "cpu.rs"]
mod cpu;
#[path = "dasd.rs"]
mod dasd;
#[path = "hold_locality.rs"]
mod hold_locality;
#[path = "hyperpav.rs"]
mod hyperpav;
#[path = "locks.rs"]
mod locks;
#[path = "paging.rs"]
mod paging;
#[path = "pools.rs"]
mod pools;
#[path = "properties.rs"]
mod properties;
#[path = "prsm.rs"]
mod prsm;
#[path = "response.rs"]
mod response;
#[path = "sched_lock_breaks.rs"]
mod sched_lock_breaks;
#[path = "scheduler.rs"]
mod scheduler;
#[path = "servers.rs"]
mod servers;
#[path = "shape.rs"]
mod shape;
#[path = "storage_breaks.rs"]
mod storage_breaks;
#[path = "vnet.rs"]
mod vnet;
#[path = "waits.rs"]
mod waits;

/// With `autotests = false` a file added to `tests/` would not be built at all: each one must be
/// a module above.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = std::fs::read_to_string(dir.join("engine.rs")).expect("tests/engine.rs readable");
    let mut missing = Vec::new();
    for e in std::fs::read_dir(&dir).expect("tests/ readable") {
        let name = e
            .expect("dir entry")
            .file_name()
            .into_string()
            .expect("utf-8 name");
        if name.ends_with(".rs")
            && name != "engine.rs"
            && !this.contains(&format!("#[path = \"{name}\"]"))
        {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "tests/{missing:?} not declared in tests/engine.rs"
    );
}
