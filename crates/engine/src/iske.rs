//! CP's simulation of guest ISKE (storage-key operations) for memtst guests (row C2): which
//! users issue them and what one costs. The dispatcher runs one at the end of such a guest's
//! burst (sim/dispatcher.rs `iske`).

use crate::config::{Config, Workload};
use crate::level::Level;
use crate::params::Params;
use crate::queue::Time;
use crate::units::path_ns;

/// Which users issue ISKEs, the chargeable path, the part under the PTE lock, whether an ISKE
/// locks the PTE, and the fraction of key operations that update the key.
pub(crate) struct Iske {
    pub users: Vec<bool>,
    pub path: Time,
    pub hold: Time,
    pub always_lock: bool,
    pub update_fraction: f64,
}

impl Iske {
    /// The scenario's ISKE simulation, when it has memtst guests.
    pub fn for_config(cfg: &Config, params: &Params, level: &Level) -> Option<Iske> {
        let memtst: Vec<bool> = cfg
            .guests
            .iter()
            .flat_map(|g| {
                std::iter::repeat_n(
                    matches!(g.workload, Workload::Memtst { .. }),
                    g.count as usize,
                )
            })
            .collect();
        memtst.iter().any(|&m| m).then(|| Iske {
            users: memtst,
            path: path_ns(params, params.path_iske(), 0.0),
            hold: path_ns(params, params.lock_hold_pte(), 0.0),
            always_lock: level.switches.pte_lock == crate::level::PteLock::IskeLocks,
            update_fraction: params.key_update_fraction().clamp(0.0, 1.0),
        })
    }
}
