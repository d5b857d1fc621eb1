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
