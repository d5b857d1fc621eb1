//! The processor hardware under CP: cores in chips in drawers, SMT threads, and a CPI model.
//!
//! Logical processors (CP's logical CPUs) are threads. Non-SMT and SMT-1 run one thread per
//! core; SMT-2 two. Numbering is thread-major: logical processor `l` is thread `l / cores` of core
//! `l % cores`, so the first `cores` logical processors are the same in every mode (SMT-1 is the
//! non-SMT code path with one thread per core: seed 000 row B2).
//!
//! Speed. Work (guest bursts and CP path lengths) is in nominal ns: the time it takes on a
//! thread alone on a core of a one-chip LPAR. A thread runs at `rate` work-ns per wall-ns:
//! `rate = cpi_factor(core) x (1 if its sibling is idle, C2 / 2 if both threads are busy)`, so a
//! core delivers 1.0 (one busy thread) or C2 (two) of a non-SMT core (cp-model §2.2, row B1).
//! Rates are fixed point (`ONE` = 1.0, 32 fractional bits) and each logical processor carries
//! the fraction of a work-ns it has done, so progress is exact over any number of rate changes.
//! When a thread starts or stops, its sibling is accounted up to now at its old rate and its one
//! pending run-end event is recomputed at its new rate.
//!
//! CPI (cp-model §1.1): `CPI = CPI_inf + (L1 misses / instruction) x sourcing cycles per miss`.
//! Within a drawer a miss is sourced where the line was last used, taken to be any of the
//! drawer's cores alike (CP and guests move between logical processors); a core's sourcing
//! cycles are the shares of its drawer's cores on its own chip and on other chips times the
//! cycles of each distance (`cpi.cycles_chip`, `cpi.cycles_drawer`). The speed factor of a core
//! is CPI(1-core LPAR) / CPI(core): 1.0 while the LPAR fits on one chip, lower as it spreads
//! over the chips of a drawer. Across drawers only data that moves pays: a guest LAN / VSWITCH
//! message's CP path writes into the receiver's buffers and control blocks, last touched on the
//! processor where the receiving guest last took a message, and pays `cpi.msg_remote` cycles
//! when that is in another drawer (`vnet.rs`; chargeable CP time of the sender). So the
//! two-drawer rolloff is not a property of the LPAR but of the workload: how much data it moves
//! between cores per unit of work (seed 001 Table 9: Apache CPU scalability, small transactions
//! through the virtual network; DayTrader and Apache DASD paging, with far fewer messages per
//! unit of work, show little or none). The run's `cpi` summary adds the cross-drawer sourcing
//! time charged to the cores' CPI. Dispatches are counted by how far a virtual CPU moved
//! (`dispatch_moves`) and messages by how far their data went (`message_distances`).

use crate::queue::Time;

/// The core of logical processor `l` (thread-major numbering): `l % cores`, without a division
/// for the one or two threads a core has.
#[inline(always)]
pub fn core_index(l: u32, cores: u32) -> u32 {
    if l < cores {
        l
    } else if l - cores < cores {
        l - cores
    } else {
        l % cores
    }
}

/// Fixed-point 1.0 of a rate (work-ns per wall-ns).
pub const ONE: u64 = 1 << 32;
const FRAC_MASK: u128 = (1u128 << 32) - 1;

/// `system.smt`: off, or the SMT mode with one or two active threads per core (contract.rs).
pub use crate::contract::SmtMode;

/// z/VM's limits on logical cores (seed 000): non-SMT up to 64, SMT only on the first 32.
pub const MAX_CORES: u32 = crate::contract::MAX_PROCESSORS;
pub const MAX_SMT_CORES: u32 = crate::contract::MAX_SMT_CORES;
/// Drawers of the largest CPC modelled (a z15 has five; `machine.rs` has each machine's).
pub const MAX_DRAWERS: u32 = crate::contract::MAX_DRAWERS;

/// Where each core of the LPAR sits, and its CPI.
#[derive(Clone, Debug)]
pub struct Topology {
    pub cores: u32,
    pub drawers: u32,
    pub cores_per_chip: u32,
    /// Per core: chip index and drawer index.
    pub chip: Vec<u32>,
    pub drawer: Vec<u32>,
    /// Per core: sourcing cycles per L1 miss, CPI, and speed factor (<= 1).
    pub sourcing: Vec<f64>,
    pub cpi: Vec<f64>,
    pub factor: Vec<f64>,
    /// Distance class per pair of cores (`cores x cores`, row-major), for `distance`.
    dist: Vec<u8>,
}

/// The CPI model's constants (from the parameter table).
#[derive(Clone, Copy, Debug)]
pub struct CpiModel {
    pub cpi_inf: f64,
    pub miss_per_instr: f64,
    pub cycles_chip: f64,
    pub cycles_drawer: f64,
    /// Sourcing cycles of a message's data by distance: same core, same chip, same drawer,
    /// other drawer (within a drawer the static mix already has it).
    pub reload: [f64; 4],
}

impl CpiModel {
    pub fn from_params(p: &crate::params::Params) -> Self {
        CpiModel {
            cpi_inf: p.cpi_inf(),
            miss_per_instr: p.l1_miss_per_instr(),
            cycles_chip: p.cycles_chip(),
            cycles_drawer: p.cycles_drawer(),
            reload: [0.0, 0.0, 0.0, p.msg_remote()],
        }
    }
    pub fn cpi(&self, sourcing: f64) -> f64 {
        self.cpi_inf + self.miss_per_instr * sourcing
    }
}

impl Topology {
    /// Distance class of two logical processors' cores: 0 same core, 1 same chip, 2 same
    /// drawer, 3 another drawer.
    #[inline]
    pub fn distance(&self, a: u32, b: u32) -> usize {
        let n = self.cores.max(1);
        let (a, b) = (core_index(a, n) as usize, core_index(b, n) as usize);
        match self.dist.get(a * n as usize + b) {
            Some(&d) => d as usize,
            None => self.core_distance(a, b),
        }
    }

    /// Distance class of two cores (what `dist` holds).
    fn core_distance(&self, a: usize, b: usize) -> usize {
        if a == b {
            0
        } else if self.chip[a] == self.chip[b] {
            1
        } else if self.drawer[a] == self.drawer[b] {
            2
        } else {
            3
        }
    }

    /// Place `cores` over `drawers` drawers (as evenly as possible, drawer by drawer), filling
    /// chips of `cores_per_chip` within a drawer.
    pub fn new(cores: u32, drawers: u32, cores_per_chip: u32, m: &CpiModel) -> Topology {
        let cores_per_chip = cores_per_chip.max(1);
        let drawers = drawers.clamp(1, cores.max(1));
        let mut chip = Vec::with_capacity(cores as usize);
        let mut drawer = Vec::with_capacity(cores as usize);
        let mut next_chip = 0;
        for d in 0..drawers {
            // Cores of drawer d: an even split, the first drawers taking the remainder.
            let n = cores / drawers + u32::from(d < cores % drawers);
            for k in 0..n {
                chip.push(next_chip + k / cores_per_chip);
                drawer.push(d);
            }
            next_chip += n.div_ceil(cores_per_chip);
        }
        let mut sourcing = Vec::with_capacity(cores as usize);
        for c in 0..cores as usize {
            let same_chip = chip.iter().filter(|&&x| x == chip[c]).count() as f64;
            let same_drawer = drawer.iter().filter(|&&x| x == drawer[c]).count() as f64;
            let s = (same_chip * m.cycles_chip + (same_drawer - same_chip) * m.cycles_drawer)
                / same_drawer;
            sourcing.push(s);
        }
        let cpi_ref = m.cpi(m.cycles_chip);
        let cpi: Vec<f64> = sourcing.iter().map(|&s| m.cpi(s)).collect();
        let factor = cpi
            .iter()
            .map(|&c| if c > 0.0 { (cpi_ref / c).min(1.0) } else { 1.0 })
            .collect();
        let mut t = Topology {
            cores,
            drawers,
            cores_per_chip,
            chip,
            drawer,
            sourcing,
            cpi,
            factor,
            dist: Vec::new(),
        };
        let n = cores as usize;
        t.dist = (0..n * n)
            .map(|k| t.core_distance(k / n, k % n) as u8)
            .collect();
        t
    }
}

/// Per-core SMT state and counters.
#[derive(Clone, Debug, Default)]
pub struct CoreState {
    /// Busy threads now (0..2) and since when.
    pub nbusy: u8,
    pub since: Time,
    /// Time with exactly one / two busy threads.
    pub t1: u64,
    pub t2: u64,
}

pub struct Cpu {
    pub mode: SmtMode,
    /// The machine generation (machine.rs).
    pub machine: crate::machine::Machine,
    pub topo: Topology,
    pub cores: u32,
    /// Active threads per core now (1 or 2; SET MULTITHREAD changes it in SMT modes).
    pub threads: u32,
    /// Logical processors allocated: cores, or 2 x cores when SMT-2 is or may become active.
    pub n_lpus: u32,
    /// Core capacity with two busy threads (x a non-SMT core).
    pub c2: f64,
    /// Per core: rate of a thread alone, and of each of two busy threads.
    pub rate1: Vec<u64>,
    pub rate2: Vec<u64>,
    /// Track busy threads per core (SMT modes): sibling rates and thread-density counters.
    pub track: bool,
    pub core_state: Vec<CoreState>,
    /// Logical processors online (SET MULTITHREAD takes second threads on and off line), and
    /// online time accumulated before `online_since`.
    pub online: Vec<bool>,
    pub online_ns: Vec<u64>,
    pub online_since: Vec<Time>,
    /// Dispatches of a virtual CPU by where it ran before: the same core, another core of the
    /// same chip, another chip of the same drawer, another drawer.
    pub moves: [u64; 4],
    /// The same per logical processor (where the virtual CPU was dispatched).
    pub lp_moves: Vec<[u64; 4]>,
    /// Sourcing work (nominal ns) of a message's data by distance (`CpiModel::reload`), and the
    /// total charged.
    pub reload_ns: [Time; 4],
    pub reload_charged: u64,
    /// Messages by the distance their data travelled (as `moves`).
    pub msg_dist: [u64; 4],
    pub switches: u64,
}

impl Cpu {
    pub fn new(mode: SmtMode, topo: Topology, c2: f64, may_smt2: bool) -> Cpu {
        let cores = topo.cores;
        let threads = if mode == SmtMode::Smt2 { 2 } else { 1 };
        let n_lpus = if mode == SmtMode::Smt2 || may_smt2 {
            2 * cores
        } else {
            cores
        };
        let fx = |f: f64| ((f * ONE as f64).round() as u64).clamp(1, ONE);
        let rate1 = topo.factor.iter().map(|&f| fx(f)).collect();
        let rate2 = topo.factor.iter().map(|&f| fx(f * c2 / 2.0)).collect();
        let online = (0..n_lpus).map(|l| l < cores * threads).collect();
        Cpu {
            mode,
            machine: crate::machine::Machine::from_params(
                crate::machine::DEFAULT,
                &crate::params::Params::default(),
            )
            .expect("the default machine is in the table"),
            cores,
            threads,
            n_lpus,
            c2,
            rate1,
            rate2,
            track: mode != SmtMode::Off,
            core_state: vec![CoreState::default(); cores as usize],
            online,
            online_ns: vec![0; n_lpus as usize],
            online_since: vec![0; n_lpus as usize],
            moves: [0; 4],
            lp_moves: vec![[0; 4]; n_lpus as usize],
            reload_ns: [0; 4],
            reload_charged: 0,
            msg_dist: [0; 4],
            switches: 0,
            topo,
        }
    }

    /// The scenario's processors: `processors` logical cores of `machine`, over `drawers`.
    pub fn from_config(
        cfg: &crate::config::Config,
        p: &crate::params::Params,
    ) -> Result<Cpu, String> {
        let mode = cfg.smt;
        let name = cfg.machine.as_deref().unwrap_or(crate::machine::DEFAULT);
        let machine = crate::machine::Machine::from_params(name, p)
            .ok_or_else(|| crate::contract::unknown_machine(name))?;
        let cores = cfg.processors;
        machine.check(cores, mode)?;
        let (cpc, per_drawer) = (machine.cores_per_chip, machine.cores_per_drawer());
        let need = cores.div_ceil(per_drawer);
        let drawers = cfg.drawers.unwrap_or(need);
        if drawers < need {
            return Err(format!(
                "system.drawers = {drawers}: {cores} cores of a {name} ({per_drawer} cores per drawer) need at least {need} drawers"
            ));
        }
        if drawers > machine.drawers {
            return Err(format!(
                "system.drawers = {drawers}: a {name} has at most {} drawers",
                machine.drawers
            ));
        }
        // With the cache warmth model on, where misses are sourced follows from where virtual
        // CPUs ran (cache.rs): every core at its one-chip CPI here.
        let mut m = CpiModel::from_params(p);
        if p.cache_warmth() >= 0.5 {
            m.cycles_drawer = m.cycles_chip;
        }
        let topo = Topology::new(cores, drawers, cpc, &m);
        let may_smt2 = cfg.actions.iter().any(|a| {
            matches!(
                a,
                crate::config::Action::SetMultithreading { threads: 2, .. }
            )
        });
        let mut cpu = Cpu::new(mode, topo, p.smt_c2().clamp(1.0, 2.0), may_smt2);
        cpu.machine = machine;
        let m = CpiModel::from_params(p);
        for k in 0..4 {
            cpu.reload_ns[k] = (m.reload[k].max(0.0) / p.clock_ghz().max(1e-9)).round() as Time;
        }
        Ok(cpu)
    }

    #[inline(always)]
    pub fn core_of(&self, l: u32) -> u32 {
        core_index(l, self.cores)
    }

    #[inline(always)]
    pub fn sibling(&self, l: u32) -> u32 {
        if l < self.cores {
            l + self.cores
        } else {
            l - self.cores
        }
    }

    /// Bring the per-core counters up to `now`.
    pub fn sync(&mut self, now: Time) {
        for c in &mut self.core_state {
            let dt = now.saturating_sub(c.since);
            match c.nbusy {
                1 => c.t1 += dt,
                2 => c.t2 += dt,
                _ => {}
            }
            c.since = now;
        }
    }

    /// Core time with one and with two busy threads, summed over cores (after `sync`).
    pub fn totals(&self) -> (u64, u64) {
        self.core_state
            .iter()
            .fold((0, 0), |a, c| (a.0 + c.t1, a.1 + c.t2))
    }

    pub fn online_total(&self, now: Time) -> u64 {
        (0..self.n_lpus as usize)
            .map(|l| {
                self.online_ns[l]
                    + if self.online[l] {
                        now - self.online_since[l]
                    } else {
                        0
                    }
            })
            .sum()
    }
}

/// Nominal work done in `dt` wall ns at `rate`, with the carried fraction `frac`.
#[inline]
pub(crate) fn work_in(dt: Time, rate: u64, frac: &mut u64) -> u64 {
    let acc = *frac as u128 + dt as u128 * rate as u128;
    *frac = (acc & FRAC_MASK) as u64;
    (acc >> 32) as u64
}

/// Nominal work a thread at `rate` does in `slice` ns of CPU time (minor time slices are CPU
/// time, cp-model §4.2).
#[inline(always)]
pub fn slice_work(slice: Time, rate: u64) -> u64 {
    if rate == ONE {
        slice
    } else {
        ((slice as u128 * rate as u128) >> 32) as u64
    }
}

/// Wall ns needed to do `work` nominal ns at `rate`, given the carried fraction `frac`.
#[inline(always)]
pub fn wall_for(work: u64, rate: u64, frac: u64) -> Time {
    if rate == ONE {
        return work;
    }
    wall_for_scaled(work, rate, frac)
}

/// `wall_for` at a rate other than 1.0. Exact in 64 bits while `work << 32` fits (work below
/// about 4.3 s, every run in practice); the 128-bit division only beyond.
#[inline]
fn wall_for_scaled(work: u64, rate: u64, frac: u64) -> Time {
    if work < 1 << 32 {
        let need = (work << 32).saturating_sub(frac);
        return need.div_ceil(rate);
    }
    let need = ((work as u128) << 32).saturating_sub(frac as u128);
    need.div_ceil(rate as u128) as Time
}

/// `a * b / c` rounded down, for `b <= c` (so the result fits): 64-bit division when the
/// product fits, 128-bit only beyond (same result either way).
#[inline(always)]
pub(crate) fn mul_div(a: u64, b: u64, c: u64) -> u64 {
    match a.checked_mul(b) {
        Some(x) => x / c,
        None => (a as u128 * b as u128 / c as u128) as u64,
    }
}

/// Wall time `dt` of `w` work-ns split over the system, CP and guest segments (`s` and `c`
/// work-ns of it, the guest the rest) in proportion, rounded down for the first two: the
/// parts add up to `dt` exactly. A segment with no work gets no wall time without a division
/// (the common case: the whole run is one segment); the figures are `mul_div`'s either way.
#[inline(always)]
pub(crate) fn split_wall(dt: Time, s: u64, c: u64, w: u64) -> (Time, Time, Time) {
    if s == w {
        return (dt, 0, 0);
    }
    let ws = if s == 0 { 0 } else { mul_div(dt, s, w) };
    let wc = if c == 0 { 0 } else { mul_div(dt, c, w) };
    (ws, wc, dt - ws - wc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> CpiModel {
        CpiModel::from_params(&crate::params::Params::default())
    }

    #[test]
    fn placement_fills_chips_then_drawers() {
        let t = Topology::new(20, 1, 8, &model());
        assert_eq!(t.chip[7], 0);
        assert_eq!(t.chip[8], 1);
        assert_eq!(t.chip[19], 2);
        let t = Topology::new(64, 2, 8, &model());
        assert_eq!(t.drawer[31], 0);
        assert_eq!(t.drawer[32], 1);
        assert_eq!(t.chip[32], 4, "a drawer starts a new chip");
    }

    #[test]
    fn spreading_over_chips_costs_speed_and_only_moving_data_pays_across_drawers() {
        let one = Topology::new(16, 1, 8, &model());
        let chip = Topology::new(8, 1, 8, &model());
        assert!(
            chip.factor.iter().all(|&f| f == 1.0),
            "one chip: nominal speed"
        );
        assert!(one.factor[0] < 1.0);
        // 64 cores over two drawers of 32: each core's static mix is a 32-core drawer's.
        let two = Topology::new(64, 2, 8, &model());
        let d32 = Topology::new(32, 1, 8, &model());
        assert_eq!(two.factor[0], d32.factor[0]);
        assert_eq!(
            (two.distance(0, 1), two.distance(0, 8), two.distance(0, 40)),
            (1, 2, 3)
        );
        let r = model().reload;
        assert!(r[0] == 0.0 && r[3] > 0.0, "{r:?}");
    }

    #[test]
    fn fixed_point_64_bit_paths_equal_the_128_bit_arithmetic() {
        let mut r = crate::rng::Rng::new(16);
        for k in 0..200_000u32 {
            // Small and huge operands alike (the 128-bit fallbacks must be taken too).
            let bits = 1 + (k % 64);
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            let (a, c) = (r.next_u64() & mask, (r.next_u64() & mask).max(1));
            let b = r.next_u64() % (c + 1);
            let wide = (a as u128 * b as u128 / c as u128) as u64;
            assert_eq!(mul_div(a, b, c), wide, "{a} {b} {c}");
            let (rate, frac) = ((r.next_u64() % ONE).max(1), r.next_u64() & 0xFFFF_FFFF);
            let work = a >> (k % 40);
            let need = ((work as u128) << 32).saturating_sub(frac as u128);
            let wide = need.div_ceil(rate as u128) as Time;
            assert_eq!(
                wall_for_scaled(work, rate, frac),
                wide,
                "{work} {rate} {frac}"
            );
        }
    }

    /// The split of a charge's wall time over its segments conserves it exactly, gives each
    /// segment its proportional share rounded down (within 1 ns of the exact quotient; the
    /// guest, the remainder, within 2 ns above), and is the plain `mul_div` split bit for bit.
    #[test]
    fn wall_split_conserves_time_within_a_nanosecond_of_exact() {
        let mut r = crate::rng::Rng::new(17);
        for k in 0..200_000u32 {
            let dt = r.next_u64() >> (1 + k % 63);
            let w = (r.next_u64() >> (1 + (k / 7) % 63)).max(1);
            let s = match k % 4 {
                0 => 0,
                1 => w,
                _ => r.next_u64() % (w + 1),
            };
            let c = match k % 3 {
                0 => 0,
                _ => r.next_u64() % (w - s + 1),
            };
            let g = w - s - c;
            let (ws, wc, wg) = split_wall(dt, s, c, w);
            assert_eq!(ws + wc + wg, dt, "{dt} {s} {c} {w}");
            let exact = |x: u64| dt as f64 * x as f64 / w as f64;
            for (got, x) in [(ws, s), (wc, c)] {
                let e = exact(x);
                assert!(got as f64 <= e * (1.0 + 1e-12) && got as f64 >= e - 1.0 - e * 1e-12);
            }
            let eg = exact(g);
            assert!(wg as f64 >= eg * (1.0 - 1e-12) && wg as f64 <= eg + 2.0 + eg * 1e-12);
            let plain = (mul_div(dt, s, w), mul_div(dt, c, w));
            assert_eq!((ws, wc), plain, "{dt} {s} {c} {w}");
        }
    }

    #[test]
    fn wall_for_inverts_work_in() {
        for &(work, rate) in &[
            (1u64, ONE / 3),
            (10_000_000, ONE * 5 / 8),
            (123_457, ONE - 1),
        ] {
            let mut frac = 0;
            let wall = wall_for(work, rate, 0);
            assert!(work_in(wall, rate, &mut frac) >= work);
            let mut frac = 0;
            assert!(work_in(wall - 1, rate, &mut frac) < work);
        }
    }
}
