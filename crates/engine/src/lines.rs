//! Where the data a lock protects was last written (issue 17, "where CP breaks").
//!
//! A CP path that holds a lock reads and writes the structure the lock protects (the dispatch
//! list, the adjusted TOD, the paging slot maps). Those lines were last written by the lock's
//! previous holder, so the misses the holder takes on them are sourced from wherever that
//! processor is: its own L2 (no transfer), another core of its chip (L3), another chip of its
//! node (L4), the other node of its drawer, or another drawer. The static CPI the processor runs
//! at already prices an average miss (`Topology::sourcing`); a hold whose protected data comes
//! from farther than that pays the difference for the share `lock.hold_shared_misses` of its
//! misses, so holds, and with them spin and collisions, grow as an LPAR spreads over chips,
//! nodes and drawers (seed 001 Table 13: HCPPGDAL usec per collision 4.82, 7.01, 9.71 at 16, 32
//! and 64 cores while collisions stay flat). A hold whose data is nearer than average is not
//! refunded (the extra is never negative). The extra lengthens the serialised section only: the
//! path's own cost, charged by its caller at the static CPI, already prices its misses on
//! average, so the processor is not charged again.
//!
//! The transfer cost by distance uses the cache model's latencies: the chip's L3
//! (`cache.lat_l3`), the node's L4 (`cache.lat_l4`), the other node of the drawer
//! (`cache.lat_node`) and another drawer (`cpi.cycles_remote`). Nothing here names a workload
//! or a core count: the distances come from the LPAR's placement (`cpu::Topology`, the L4
//! nodes of `cache::Warmth`).

use crate::cpu::Cpu;
use crate::params::Params;

/// Extra hold time per ns of hold, per (previous holder, holder) pair of logical processors.
pub struct HoldLocality {
    n: usize,
    extra: Vec<f64>,
}

/// Cycles to bring a line written by a processor on core `a` to one on core `b`, by
/// `cache::distance` (the sibling thread shares the core's L1 and L2: no transfer).
fn transfer_cycles(p: &Params, cpu: &Cpu, node: &[u32], a: usize, b: usize) -> f64 {
    match crate::cache::distance(&cpu.topo, node, a, b) {
        0 => 0.0,
        1 => p.cache_lat_l3(),
        2 => p.cache_lat_l4(),
        3 => p.cache_lat_node(),
        _ => p.cycles_remote(),
    }
}

impl HoldLocality {
    /// None when the mechanism is off (`lock.hold_shared_misses` = 0: the model before it).
    /// `node` is each core's L4 node, `warm` whether cache warmth sets the processors' speed
    /// (then every core runs at its one-chip CPI).
    pub fn new(p: &Params, cpu: &Cpu, node: &[u32], warm: bool) -> Option<HoldLocality> {
        let share = p.lock_hold_shared_misses();
        if share <= 0.0 || p.l1_miss_per_instr() <= 0.0 {
            return None;
        }
        let n = cpu.n_lpus as usize;
        let cores = cpu.cores.max(1);
        let core = |l: usize| crate::cpu::core_index(l as u32, cores) as usize;
        let mpi = p.l1_miss_per_instr();
        let mut extra = vec![0.0; n * n];
        for b in 0..n {
            let cb = core(b);
            let (cpi, local) = if warm {
                (p.cpi_inf() + mpi * p.cycles_chip(), p.cycles_chip())
            } else {
                (cpu.topo.cpi[cb], cpu.topo.sourcing[cb])
            };
            for a in 0..n {
                let d = transfer_cycles(p, cpu, node, core(a), cb) - local;
                extra[a * n + b] = (share * mpi * d / cpi.max(1e-9)).max(0.0);
            }
        }
        Some(HoldLocality { n, extra })
    }

    /// Extra ns of a hold of `hold` ns on `cpu` whose data `prev` wrote last (0 when either is
    /// unknown or they are the same processor).
    #[inline]
    pub fn extra(&self, prev: u32, cpu: u32, hold: u64) -> u64 {
        let (a, b) = (prev as usize, cpu as usize);
        if a >= self.n || b >= self.n || hold == 0 {
            return 0;
        }
        (hold as f64 * self.extra[a * self.n + b] + 0.5) as u64
    }
}
