//! zvmlab engine: a discrete-event simulator of the z/VM Control Program (CP).
//!
//! Modules are named after CP's subsystems so a z/VM person finds their way by name:
//! `scheduler` (shares, dispatch priority, dispatch list), `monitor` (interval samples),
//! `workload` (guest programs), `level` (CP releases as mechanism switches), `params` (the
//! parameter table), `queue` (the event queue), `rng` (random streams). `sim` keeps the clock,
//! the queue and the wiring: the dispatcher (`sim/dispatcher.rs`, logical processors) and, per
//! subsystem, what it does to virtual CPUs and processors (`sim/<subsystem>.rs`).

pub mod below2g;
pub mod bench;
pub mod cache;
pub mod channel;
pub mod config;
mod config_check;
pub mod contract;
pub mod cpu;
pub mod dasd;
pub mod entitle;
pub mod entity;
pub mod guest;
pub mod hyperpav;
pub mod io;
pub mod iske;
pub mod level;
pub mod lines;
pub mod locks;
pub mod lpar;
pub mod machine;
pub mod mdc;
pub mod monitor;
pub mod monwrite;
pub mod paging;
pub mod params;
pub mod pav;
pub mod pools;
pub mod prsm;
pub mod queue;
pub mod response;
pub mod rng;
pub mod scheduler;
pub mod sim;
pub mod ssl;
pub mod storage;
pub mod units;
pub mod vnet;
pub mod waterfill;
pub mod workload;

pub use config::Config;
pub use sim::Sim;

/// Run a scenario given as normalized JSON; returns the summary as JSON.
pub fn run_json(config: &str) -> Result<String, String> {
    let cfg = Config::from_json(config)?;
    let mut sim = Sim::new(cfg)?;
    sim.run();
    serde_json::to_string(&sim.summary()).map_err(|e| e.to_string())
}
