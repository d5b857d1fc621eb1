//! Cache warmth (issue 18 item 1): each virtual CPU's footprint in the cache hierarchy.
//!
//! State (docs/research/machines-and-caches.md §3.2, after Thiebaut & Stone, "Footprints in the
//! Cache", 1987): per virtual CPU the fraction of its footprint (`cache.footprint_kb`) still
//! resident in the L2 of the core it last ran on, the L3 of that chip and the L4 of that drawer
//! (sizes per machine from the parameter table; the L4 is per node: a z13 drawer has two). Per core, chip and drawer a counter of the
//! lines placed there by everything that ran.
//!
//! - A dispatch of `v` on a core: its warmth at each level is what it left there, decayed by the
//!   lines others placed in that cache since (`w x exp(-u / capacity)`); a cache it did not run
//!   under last time holds none of it. Its run of `W` ns makes `m = W x` L1-miss rate misses,
//!   which touch `F (1 - exp(-m / F))` distinct lines of its footprint `F`; of those, the ones not
//!   warm in L2 are re-sourced from L3, L4 or beyond at `cache.lat_l3`, `cache.lat_l4`,
//!   `cpi.cycles_remote` cycles: the reload transient, added to the run's guest work. The touched
//!   lines then warm every level on the core's path and count as others' lines for everyone else.
//! - PR/SM: a shared logical core that is not powered all the time (availability `a < 1`: a
//!   vertical-medium or -low, or any core under horizontal polarization) shares its physical core
//!   with other partitions, which place `W (1/a - 1)` ns worth of lines there during the run; a
//!   vertical-high (its own physical core) never loses its footprint that way.
//! - SMT: the two threads of a core share its L2 counter, so a sibling decays a thread's footprint.
//! - Coherence misses: a share `cache.cp_shared` of the L1 misses of CP path lengths (at the
//!   workload rate `cpi.l1_miss_per_instr`, over CP's `cpu.cpi_cp`) go to lines
//!   shared between processors (dispatch lists, VMDBKs, lock words, message buffers), last
//!   written by CP on another processor: each is sourced from a processor drawn from the LPAR's
//!   cores (same core `cpi.cycles_chip`, same chip `cache.lat_l3`, another chip of the L4 node
//!   `cache.lat_l4`, beyond `cpi.cycles_remote`), whatever the footprints. That cost grows with
//!   the spread of the LPAR, not with its virtual CPUs' moves: the stall lengthens the run's
//!   chargeable CP time (`coherence`).
//!
//! - Memory homes (`cache.mem_remote`): a line reloaded from beyond the L4 comes from memory,
//!   homed on the LPAR's L4 nodes in proportion to its cores there; one homed on another node
//!   costs `cache.mem_remote` times one homed on the core's own (`memory_mix`). One node: every
//!   home local; a z13 LPAR of 32 cores spans the drawer's two nodes and pays for the far half.
//! - Sibling sharing (`cache.guest_shared`, 0 by default): a share of a multi-way guest's misses
//!   go to lines its other virtual CPUs write (the guest kernel's run queues, a JVM heap), each
//!   last written by one of its virtual CPUs alike and sourced from the core that one last ran
//!   on; a one-way guest pays none. So spreading a guest's virtual CPUs costs, and keeping them
//!   on one chip (what z/VM's dispatcher aims at, "to maximize cache reuses") does not.
//!
//! With the model on (`cache.warmth = 1`) the static within-drawer sourcing mix of `cpu.rs` is off
//! (every core at its one-chip CPI): where the misses are sourced follows from where virtual CPUs
//! ran. Off (`0`): the static mix, no footprints (the model before issue 18).

use crate::machine::Machine;
use crate::params::Params;

/// Levels tracked: L2 (per core), L3 (per chip), L4 (per drawer).
pub const LEVELS: usize = 3;

#[derive(Clone, Debug, Default)]
struct Footprint {
    /// Core, chip and drawer it last ran on (`u32::MAX`: never ran).
    at: [u32; LEVELS],
    /// Warmth at each level when it left, and the level's fill counter then.
    warm: [f64; LEVELS],
    stamp: [f64; LEVELS],
}

/// What the model reports (summary `cpi.cache`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct CacheSummary {
    pub enabled: bool,
    pub footprint_kb: f64,
    /// Dispatches that found their footprint (mean warmth at dispatch), per level L2, L3, L4.
    pub footprint_hits: [f64; LEVELS],
    /// Reload cycles per dispatch and as a share of the guest work done.
    pub reload_cycles_per_dispatch: f64,
    pub reload_pct_of_guest: f64,
    /// Coherence stalls (misses to shared lines) as a share of the chargeable CP time.
    pub coherence_pct_of_cp: f64,
    /// Sibling-sharing stalls (misses to lines the guest's other virtual CPUs wrote,
    /// `cache.guest_shared`) as a share of the guest work done; part of the reload.
    pub sibling_pct_of_guest: f64,
}

pub struct Warmth {
    pub on: bool,
    footprint: f64,
    footprint_kb: f64,
    /// Capacity in lines of one L2, L3, L4.
    cap: [f64; LEVELS],
    /// Cycles to re-source a line from L3, L4, beyond L4.
    lat: [f64; LEVELS],
    /// L1 misses per nominal ns, and ns per cycle.
    miss_per_ns: f64,
    ns_per_cycle: f64,
    /// Lines placed per core, chip, L4 node.
    fill: [Vec<f64>; LEVELS],
    /// The L4 node of each core (a z13 drawer has two, each with its own L4).
    pub node: Vec<u32>,
    /// The chip and drawer of each core (`cpu::Topology`'s, kept here for sibling distances).
    chip: Vec<u32>,
    drawer: Vec<u32>,
    v: Vec<Footprint>,
    hits: [f64; LEVELS],
    pub dispatches: u64,
    pub reload_ns: u64,
    /// Per logical processor: reload work (nominal ns) charged on it, and the footprint hits of
    /// its dispatches per level (sums of warmth at dispatch).
    pub lp_reload_ns: Vec<u64>,
    lp_hits: Vec<[f64; LEVELS]>,
    /// Per core: coherence stall (nominal ns) per nominal ns of CP work run there.
    coh: Vec<f64>,
    /// Coherence stalls charged, in total and per logical processor (nominal ns).
    pub coherence_ns: u64,
    pub lp_coherence_ns: Vec<u64>,
    /// Sibling sharing: share of a guest's misses to lines its other virtual CPUs write, and the
    /// extra cycles of such a line by distance from its writer's core (`distance`'s classes).
    guest_shared: f64,
    ladder: [f64; 5],
    /// Sibling-sharing stalls charged as guest work (nominal ns).
    pub sibling_ns: u64,
    /// Per core: cycles of a line sourced beyond the L4, by where the LPAR's memory is homed.
    beyond: Vec<f64>,
}

/// Per core: the extra sourcing cycles of a miss to a line last written on a core drawn from
/// the LPAR's cores, over one on the own core (`lat`: same chip, same L4 node, beyond).
fn shared_mix(topo: &crate::cpu::Topology, node: &[u32], own: f64, lat: [f64; 3]) -> Vec<f64> {
    let n = topo.cores as usize;
    (0..n)
        .map(|c| {
            let sum: f64 = (0..n)
                .map(|d| match distance(topo, node, d, c) {
                    0 => own,
                    1 => lat[0],
                    2 => lat[1],
                    _ => lat[2],
                })
                .sum();
            (sum / n.max(1) as f64 - own).max(0.0)
        })
        .collect()
}

/// How far a line travels between cores `a` and `b`: 0 the same core, 1 the same chip, 2 the
/// same L4 node, 3 the drawer's other node, 4 another drawer (`node`: each core's L4 node).
pub(crate) fn distance(topo: &crate::cpu::Topology, node: &[u32], a: usize, b: usize) -> usize {
    distance_in(&topo.chip, node, &topo.drawer, a, b)
}

/// `distance` from each core's chip, L4 node and drawer.
fn distance_in(chip: &[u32], node: &[u32], drawer: &[u32], a: usize, b: usize) -> usize {
    if a == b {
        0
    } else if chip[a] == chip[b] {
        1
    } else if node.get(a) == node.get(b) {
        2
    } else if drawer[a] == drawer[b] {
        3
    } else {
        4
    }
}

/// The L4 node of each core: a drawer's chips split evenly over its nodes, in chip order.
fn l4_nodes(topo: &crate::cpu::Topology, m: &Machine) -> Vec<u32> {
    let per_node = m.chips_per_drawer.div_ceil(m.nodes_per_drawer).max(1);
    (0..topo.cores as usize)
        .map(|c| {
            let d = topo.drawer[c];
            let first = (0..c)
                .find(|&k| topo.drawer[k] == d)
                .map_or(topo.chip[c], |k| topo.chip[k]);
            d * m.nodes_per_drawer + ((topo.chip[c] - first) / per_node).min(m.nodes_per_drawer - 1)
        })
        .collect()
}

/// Per core: the cycles of a line sourced beyond the L4 (from memory), `local` when homed on the
/// core's own L4 node and `remote x local` when homed on another; the LPAR's memory is homed on
/// its nodes in proportion to its cores there.
fn memory_mix(node: &[u32], local: f64, remote: f64) -> Vec<f64> {
    if remote == 1.0 {
        return vec![local; node.len()]; // every home alike, exactly (no rounding of the mix)
    }
    let n = node.len().max(1) as f64;
    node.iter()
        .map(|&own| {
            let here = node.iter().filter(|&&x| x == own).count() as f64 / n;
            local * (here + (1.0 - here) * remote)
        })
        .collect()
}

/// Lines of a KB figure (256-byte lines on every machine, ECAG).
fn lines(kb: f64) -> f64 {
    kb * 1024.0 / 256.0
}

impl Warmth {
    pub fn new(
        p: &Params,
        m: &Machine,
        topo: &crate::cpu::Topology,
        vcpus: usize,
        lpus: usize,
    ) -> Self {
        let on = p.cache_warmth() >= 0.5;
        let chips = topo.chip.iter().max().map_or(1, |c| c + 1) as usize;
        let node = l4_nodes(topo, m);
        let nodes = node.iter().max().map_or(1, |c| c + 1) as usize;
        let n = |k: usize| if on { k } else { 0 };
        let cpi_ref = p.cpi_inf() + p.l1_miss_per_instr() * p.cycles_chip();
        let ghz = p.clock_ghz();
        let (fk, l3, l4, mem) = if on {
            (
                p.cache_footprint_kb(),
                p.cache_lat_l3(),
                p.cache_lat_l4(),
                p.cycles_remote(),
            )
        } else {
            (0.0, 0.0, 0.0, 0.0)
        };
        let coh = if on {
            // Extra cycles per CP instruction over CP's cycles per instruction (CP path lengths
            // become time at cpu.cpi_cp).
            let k = p.cache_cp_shared() * p.l1_miss_per_instr() / p.cpi_cp().max(1e-9);
            shared_mix(topo, &node, p.cycles_chip(), [l3, l4, mem])
                .iter()
                .map(|x| k * x)
                .collect()
        } else {
            Vec::new()
        };
        let own = p.cycles_chip();
        let ladder = [
            0.0,
            (l3 - own).max(0.0),
            (l4 - own).max(0.0),
            (p.cache_lat_node() - own).max(0.0),
            (mem - own).max(0.0),
        ];
        let beyond = if on {
            memory_mix(&node, mem, p.cache_mem_remote())
        } else {
            Vec::new()
        };
        Warmth {
            on,
            coh,
            beyond,
            chip: if on { topo.chip.clone() } else { Vec::new() },
            drawer: if on { topo.drawer.clone() } else { Vec::new() },
            guest_shared: if on { p.cache_guest_shared() } else { 0.0 },
            ladder,
            sibling_ns: 0,
            coherence_ns: 0,
            lp_coherence_ns: vec![0; n(lpus)],
            footprint: lines(fk).max(1.0),
            footprint_kb: fk,
            cap: [lines(m.l2_kb), lines(m.l3_kb), lines(m.l4_kb)],
            lat: [l3, l4, mem],
            node,
            miss_per_ns: p.l1_miss_per_instr() * ghz / cpi_ref.max(1e-9),
            ns_per_cycle: 1.0 / ghz.max(1e-9),
            fill: [
                vec![0.0; n(topo.cores as usize)],
                vec![0.0; n(chips)],
                vec![0.0; n(nodes)],
            ],
            v: vec![
                Footprint {
                    at: [u32::MAX; LEVELS],
                    ..Default::default()
                };
                n(vcpus)
            ],
            hits: [0.0; LEVELS],
            dispatches: 0,
            reload_ns: 0,
            lp_reload_ns: vec![0; n(lpus)],
            lp_hits: vec![[0.0; LEVELS]; n(lpus)],
        }
    }

    /// Virtual CPU `v` dispatched on processor `l` (core, chip, drawer `at`) for `work` nominal ns
    /// of guest work, on a logical core powered a fraction `avail` of the time: the reload work
    /// (nominal ns) its run pays. Updates the footprints and fill counters.
    pub fn dispatch(
        &mut self,
        v: usize,
        l: usize,
        at: [u32; LEVELS],
        work: u64,
        avail: f64,
        siblings: &[u32],
    ) -> u64 {
        let sib = self.sibling_stall(v, at[0], work, siblings);
        let f = self.footprint;
        let fp = &self.v[v];
        // Warmth now: what it left under this cache, less what others placed there since.
        let mut w = [0.0; LEVELS];
        for k in 0..LEVELS {
            if fp.at[k] == at[k] {
                let u = self.fill[k][at[k] as usize] - fp.stamp[k];
                w[k] = fp.warm[k] * (-u.max(0.0) / self.cap[k]).exp();
            }
        }
        // Inclusive hierarchy: what L2 holds, L3 holds; what L3 holds, L4 holds.
        w[1] = w[1].max(w[0]);
        w[2] = w[2].max(w[1]);
        for (k, &x) in w.iter().enumerate() {
            self.hits[k] += x;
            self.lp_hits[l][k] += x;
        }
        self.dispatches += 1;
        let m = work as f64 * self.miss_per_ns;
        let g = 1.0 - (-m / f).exp();
        let touched = f * g;
        let cycles = touched
            * ((w[1] - w[0]) * self.lat[0]
                + (w[2] - w[1]) * self.lat[1]
                + (1.0 - w[2]) * self.beyond[at[0] as usize]);
        let reload = (cycles * self.ns_per_cycle).round() as u64 + sib;
        self.reload_ns += reload;
        self.lp_reload_ns[l] += reload;
        // The run warms its footprint on the core's path and fills those caches for the others;
        // other partitions fill them while this logical core is not powered.
        let others = if avail < 1.0 {
            (work as f64 * (1.0 / avail.max(1e-6) - 1.0) * self.miss_per_ns).min(1e12)
        } else {
            0.0
        };
        let fp = &mut self.v[v];
        for k in 0..LEVELS {
            let c = at[k] as usize;
            self.fill[k][c] += touched;
            fp.at[k] = at[k];
            fp.warm[k] = (1.0 - (1.0 - w[k]) * (1.0 - g)).min((self.cap[k] / f).min(1.0));
            fp.stamp[k] = self.fill[k][c];
            self.fill[k][c] += others;
        }
        reload
    }

    /// The stall (nominal ns) of `work`'s misses to lines the guest's other virtual CPUs
    /// write: each such line last written by one of the guest's `siblings` alike (`v` itself
    /// included, at no cost), sourced from the core that one last ran on.
    fn sibling_stall(&mut self, v: usize, core: u32, work: u64, siblings: &[u32]) -> u64 {
        if self.guest_shared <= 0.0 || siblings.len() < 2 {
            return 0;
        }
        let extra: f64 = siblings
            .iter()
            .filter(|&&s| s as usize != v)
            .filter_map(|&s| {
                let at = self.v[s as usize].at[0];
                (at != u32::MAX).then(|| self.ladder[self.core_distance(core, at)])
            })
            .sum::<f64>()
            / siblings.len() as f64;
        let misses = work as f64 * self.miss_per_ns * self.guest_shared;
        let stall = (misses * extra * self.ns_per_cycle).round() as u64;
        self.sibling_ns += stall;
        stall
    }

    /// `distance` between two cores from the fields kept here.
    fn core_distance(&self, a: u32, b: u32) -> usize {
        distance_in(&self.chip, &self.node, &self.drawer, a as usize, b as usize)
    }

    /// CP work `cp` (nominal ns) about to run on processor `l` of core `c`: the coherence stall
    /// (nominal ns) its misses to shared lines add.
    pub fn coherence(&mut self, l: usize, c: usize, cp: u64) -> u64 {
        let extra = (cp as f64 * self.coh[c]).round() as u64;
        self.coherence_ns += extra;
        self.lp_coherence_ns[l] += extra;
        extra
    }

    /// Footprint hits of processor `l`'s dispatches per level, in thousandths (the monitor's).
    pub fn lp_hits(&self, l: usize) -> [u64; LEVELS] {
        self.lp_hits
            .get(l)
            .map_or([0; LEVELS], |h| h.map(|x| (x * 1000.0).round() as u64))
    }

    pub fn summary(&self, guest_ns: u64, cp_ns: u64) -> CacheSummary {
        let d = self.dispatches.max(1) as f64;
        CacheSummary {
            enabled: self.on,
            footprint_kb: self.footprint_kb,
            footprint_hits: self.hits.map(|h| h / d),
            reload_cycles_per_dispatch: self.reload_ns as f64 / self.ns_per_cycle / d,
            reload_pct_of_guest: 100.0 * self.reload_ns as f64 / guest_ns.max(1) as f64,
            coherence_pct_of_cp: 100.0 * self.coherence_ns as f64 / cp_ns.max(1) as f64,
            sibling_pct_of_guest: 100.0 * self.sibling_ns as f64 / guest_ns.max(1) as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::{CpiModel, Topology};

    fn model(cores: u32) -> Warmth {
        let p = Params {
            cache_warmth: 1.0,
            ..Params::default()
        };
        let m = Machine::from_params("z13", &p).unwrap();
        let t = Topology::new(cores, cores.div_ceil(48), 8, &CpiModel::from_params(&p));
        Warmth::new(&p, &m, &t, 8, cores as usize)
    }

    fn at(w: &Warmth, c: u32) -> [u32; LEVELS] {
        [c, c / 8, w.node[c as usize]]
    }

    #[test]
    fn staying_put_never_costs_more_than_moving() {
        // Random histories (fixed seed): the same next dispatch of vCPU 0 on its last core costs
        // no more than on another core of the chip, which costs no more than another chip's.
        let mut r = crate::rng::Rng::new(18);
        for _ in 0..300 {
            let mut w = model(64);
            for _ in 0..(r.next_u64() % 40) {
                let v = (r.next_u64() % 8) as usize;
                let c = (r.next_u64() % 64) as u32;
                let work = r.next_u64() % 2_000_000;
                let avail = if r.next_u64().is_multiple_of(2) {
                    1.0
                } else {
                    0.5
                };
                let a = at(&w, c);
                w.dispatch(v, c as usize, a, work, avail, &[]);
            }
            let last = w.v[0].at[0];
            let work = 1 + r.next_u64() % 2_000_000;
            let cost = |c: u32| {
                let mut x = Warmth {
                    v: w.v.clone(),
                    fill: w.fill.clone(),
                    lp_reload_ns: w.lp_reload_ns.clone(),
                    ..model(64)
                };
                let a = at(&x, c);
                x.dispatch(0, c as usize, a, work, 1.0, &[])
            };
            if last == u32::MAX {
                continue;
            }
            let same = cost(last);
            let chip = cost(last / 8 * 8 + (last + 1) % 8);
            let far = cost((last + 24) % 64);
            assert!(same <= chip && chip <= far, "{same} {chip} {far}");
        }
    }

    #[test]
    fn coherence_stall_is_the_shared_mix_and_grows_with_the_spread() {
        // z13: 8-core chips, 3 chips per L4 node. Analytic mix of the extra cycles of a shared
        // line over the own core, for a core of a 16-core (two-chip, one-node) LPAR.
        let p = Params {
            cache_warmth: 1.0,
            ..Params::default()
        };
        let (own, l3, l4, far) = (
            p.cycles_chip,
            p.cache_lat_l3,
            p.cache_lat_l4,
            p.cycles_remote,
        );
        let w = model(16);
        let mix = (own + 7.0 * l3 + 8.0 * l4) / 16.0 - own;
        let k = p.cache_cp_shared * p.l1_miss_per_instr * mix / p.cpi_cp;
        assert!((w.coh[0] - k).abs() < 1e-12, "{} {k}", w.coh[0]);
        // 32 cores: four chips, the fourth in the other node of the drawer.
        let w32 = model(32);
        let mix32 = (own + 7.0 * l3 + 16.0 * l4 + 8.0 * far) / 32.0 - own;
        assert!(
            (w32.coh[0] - p.cache_cp_shared * p.l1_miss_per_instr * mix32 / p.cpi_cp).abs() < 1e-12
        );
        // One core: every shared line is its own; more chips never cost less.
        assert_eq!(model(1).coh[0], 0.0);
        let mean = |w: &Warmth| w.coh.iter().sum::<f64>() / w.coh.len() as f64;
        let spread: Vec<f64> = [1, 4, 8, 16, 24, 32, 48, 64]
            .iter()
            .map(|&n| mean(&model(n)))
            .collect();
        assert!(spread.windows(2).all(|x| x[0] <= x[1]), "{spread:?}");
        // The stall is charged per CP ns and counted.
        let mut w = model(16);
        let extra = w.coherence(3, 0, 1_000_000);
        assert_eq!(extra, (1e6 * k).round() as u64);
        assert_eq!((w.coherence_ns, w.lp_coherence_ns[3]), (extra, extra));
    }

    fn with_sharing(cores: u32, gs: f64) -> Warmth {
        let p = Params {
            cache_warmth: 1.0,
            cache_guest_shared: gs,
            ..Params::default()
        };
        let m = Machine::from_params("z13", &p).unwrap();
        let t = Topology::new(cores, cores.div_ceil(48), 8, &CpiModel::from_params(&p));
        Warmth::new(&p, &m, &t, 8, cores as usize)
    }

    #[test]
    fn a_guests_spread_virtual_cpus_pay_for_the_lines_they_share() {
        // z13, 64 cores over two drawers: vCPUs 0-3 are one 4-way guest, 4 a one-way guest.
        let p = Params::default();
        let own = p.cycles_chip;
        let guest = [0u32, 1, 2, 3];
        let run = |w: &mut Warmth, v: usize, c: u32, sib: &[u32]| {
            let a = at(w, c);
            w.dispatch(v, c as usize, a, 1_000_000, 1.0, sib)
        };
        // Off (0): the same cost as before the mechanism, wherever the siblings ran.
        let (mut off, mut zero) = (model(64), with_sharing(64, 0.0));
        for (k, c) in [(1, 9), (2, 30), (3, 40)] {
            run(&mut off, k, c, &guest);
            run(&mut zero, k, c, &guest);
        }
        assert_eq!(run(&mut off, 0, 0, &guest), run(&mut zero, 0, 0, &guest));
        // On: siblings last on the same chip cost less than on another chip of the node, which
        // costs less than another drawer; the stall is the ladder's mean over the guest's vCPUs.
        let stall = |sib_cores: [u32; 3]| {
            let mut w = with_sharing(64, 0.3);
            for (k, &c) in sib_cores.iter().enumerate() {
                run(&mut w, k + 1, c, &guest);
            }
            let before = w.sibling_ns;
            run(&mut w, 0, 0, &guest);
            w.sibling_ns - before
        };
        let (chip, node, far) = (stall([1, 2, 3]), stall([8, 9, 10]), stall([40, 41, 42]));
        assert!(0 < chip && chip < node && node < far, "{chip} {node} {far}");
        let w = with_sharing(64, 0.3);
        let misses = 1e6 * w.miss_per_ns * 0.3;
        let want = misses * 3.0 * (p.cache_lat_l3 - own) / 4.0 * w.ns_per_cycle;
        assert_eq!(chip, want.round() as u64);
        // A one-way guest shares with nobody, and a sibling that never ran costs nothing.
        let mut w = with_sharing(64, 1.0);
        run(&mut w, 1, 40, &guest);
        run(&mut w, 4, 0, &[4]);
        assert_eq!(w.sibling_ns, 0);
        run(&mut w, 0, 0, &[0, 5]);
        assert_eq!(w.sibling_ns, 0);
    }

    #[test]
    fn memory_homes_follow_the_lpars_nodes() {
        // z13 (8-core chips, 3 chips per L4 node): 16 cores are one node, every home local;
        // 32 cores are 24 + 8 on the drawer's two nodes.
        let p = Params::default();
        let (local, x) = (p.cycles_remote, p.cache_mem_remote);
        assert!(model(16).beyond.iter().all(|&b| b == local));
        let w = model(32);
        let far = |here: f64| local * (here + (1.0 - here) * x);
        assert!((w.beyond[0] - far(0.75)).abs() < 1e-9 && (w.beyond[31] - far(0.25)).abs() < 1e-9);
        // x = 1: the model before memory homes, exactly.
        assert!(memory_mix(&w.node, local, 1.0).iter().all(|&b| b == local));
        // A vCPU reloading from memory on the small node pays more than on the large one.
        let mut w = model(32);
        let (a, b) = (at(&w, 0), at(&w, 31));
        assert!(
            w.dispatch(0, 0, a, 1_000_000, 1.0, &[]) < w.dispatch(1, 31, b, 1_000_000, 1.0, &[])
        );
    }

    #[test]
    fn a_cold_start_pays_the_whole_touched_footprint_and_a_warm_rerun_nothing() {
        let mut w = model(16);
        let first = w.dispatch(0, 0, [0, 0, 0], 10_000_000, 1.0, &[]);
        assert!(first > 0);
        let again = w.dispatch(0, 0, [0, 0, 0], 10_000_000, 1.0, &[]);
        assert!(again * 100 < first, "{first} {again}");
        // Others filling the core's L2 many times over make it cold at L2 (but warm at L3).
        for k in 1..8 {
            w.dispatch(k, 0, [0, 0, 0], 50_000_000, 1.0, &[]);
        }
        let after = w.dispatch(0, 0, [0, 0, 0], 10_000_000, 1.0, &[]);
        assert!(after > again, "{again} {after}");
        assert!(after < first, "{after} {first}");
    }
}
