//! PR/SM: the CPC's shared physical cores, LPAR weights, entitlement, vertical polarization,
//! placement, the pool's fluid share of capacity, and z/VM's parking/unparking (VM66063).
//!
//! Everything here is pure arithmetic on a CPC description, so it can be tested on its own
//! (cp-model §1.2-1.4, §3.3). The simulator uses it through a thin hook (`sim/lpar.rs`, `sim/dispatcher.rs`):
//! a logical processor that is not powered all the time loses wall time to PR/SM suspension
//! before its work runs, parked processors take no work, and PR/SM dispatches are counted.
//!
//! - Entitlement (cp-model §1.2): E = shared physical cores × weight / Σ weights of the shared
//!   LPARs. An LPAR cannot be entitled to more than its logical cores; what it cannot hold is
//!   shared again by weight among the others ([A]: the water-fill PR/SM's weight rule implies).
//!   Exact rational arithmetic (`Ent`), so the polarization thresholds never round wrongly.
//! - Vertical polarization (cp-model §1.3): E integral: E vertical-highs; frac(E) >= 1/2: floor(E)
//!   Vh + 1 Vm; frac(E) < 1/2: floor(E)-1 Vh + 2 Vm (0 Vh + 1 Vm below one core); the rest Vl.
//! - Placement: every Vh on its own physical core; every other shared logical core (Vm, Vl,
//!   horizontal) on the physical cores left over, round robin; dedicated cores on dedicated ones.

/// The CPC PR/SM works on is configuration data, its SRM settings are words of the contract.
pub use crate::config::{CapGroup, CpcSpec, LparSpec};
pub use crate::contract::{ExcessUse, Polarization, Unparking};
use serde::Serialize;

/// An exact entitlement in cores: num / den.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Ent {
    pub num: u128,
    pub den: u128,
}

impl Ent {
    pub fn cores(&self) -> f64 {
        self.num as f64 / self.den as f64
    }
    pub fn floor(&self) -> u32 {
        (self.num / self.den) as u32
    }
    fn frac_num(&self) -> u128 {
        self.num % self.den
    }
    pub fn is_integral(&self) -> bool {
        self.frac_num() == 0
    }
    /// ceil(E) in cores.
    pub fn ceil(&self) -> u32 {
        self.floor() + u32::from(!self.is_integral())
    }
}

/// Polarization of one logical core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Pol {
    /// Vertical-high: 100 % of a physical core.
    Vh,
    /// Vertical-medium: part of a core.
    Vm,
    /// Vertical-low: no entitlement; runs on capacity others leave unused.
    Vl,
    /// Horizontal: the LPAR's entitlement spread evenly over its logical cores.
    Hz,
    /// Dedicated: its own physical core, not in the shared pool.
    Ded,
}

impl LparSpec {
    /// The partner's busy fraction at time `t` (ns).
    pub fn busy_at(&self, t: u64) -> f64 {
        if self.busy_pattern.is_empty() || self.busy_period_ns == 0 {
            return self.busy;
        }
        let k = (t / self.busy_period_ns) as usize % self.busy_pattern.len();
        self.busy_pattern[k]
    }
}

/// One logical core after polarization and placement.
#[derive(Clone, Debug, Serialize)]
pub struct Core {
    pub pol: Pol,
    /// Entitlement of this core, in cores (1 for Vh and dedicated, 0 for Vl).
    pub ent: f64,
    /// Home physical core: its own for Vh/dedicated, a pool core for the others.
    pub home: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct LparPol {
    pub name: String,
    pub weight: u32,
    pub logical: u32,
    pub dedicated: bool,
    pub polarization: Polarization,
    /// Entitlement in cores (exact as num/den in `ent`).
    pub entitlement: f64,
    pub ent: Ent,
    pub vh: u32,
    pub vm: u32,
    pub vl: u32,
    pub hz: u32,
    pub ded: u32,
    pub cores: Vec<Core>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CpcPol {
    pub shared: u32,
    pub dedicated: u32,
    pub lpars: Vec<LparPol>,
    /// Vertical-highs in the CPC, and the physical cores they occupy (one each).
    pub vh_total: u32,
    pub vh_physical: u32,
    /// Shared logical cores that are not vertical-high, and the physical cores left for them.
    pub non_vh_total: u32,
    pub non_vh_physical: u32,
}

/// The most each LPAR may use (cores; infinite: not capped), issue 18 (PR/SM Planning Guide,
/// docs/research/machines-and-caches.md §5): initial capping holds an LPAR at its entitlement
/// (its weight's share; it gets none of the capacity others leave), an absolute cap at that many
/// processors, and a capping group's members together at the group's cap, which PR/SM divides by
/// weight among the members that want it (each member's want: `want[j]` cores, what it would
/// use uncapped). The effective limit is the smallest of them.
pub fn limits(cpc: &CpcSpec, ents: &[Ent], want: &[f64]) -> Vec<f64> {
    let mut out: Vec<f64> = cpc
        .lpars
        .iter()
        .zip(ents)
        .map(|(l, e)| {
            let mut x = f64::INFINITY;
            if l.capped {
                x = e.cores();
            }
            if let Some(c) = l.abscap {
                x = x.min(c);
            }
            x
        })
        .collect();
    for g in &cpc.groups {
        let members: Vec<usize> = (0..cpc.lpars.len())
            .filter(|&j| cpc.lpars[j].group.as_deref() == Some(g.name.as_str()))
            .collect();
        let w: Vec<f64> = members
            .iter()
            .map(|&j| cpc.lpars[j].weight as f64)
            .collect();
        let cap: Vec<f64> = members.iter().map(|&j| want[j].min(out[j])).collect();
        let got = crate::waterfill::water_fill(g.abscap, &w, &cap);
        // What a member's want leaves of its weight share goes to the others; a member is held
        // to its share plus that (never below its share, so its own want can grow into it).
        let wsum: f64 = w.iter().sum();
        for (k, &j) in members.iter().enumerate() {
            let share = if wsum > 0.0 {
                g.abscap * w[k] / wsum
            } else {
                0.0
            };
            out[j] = out[j].min(got[k].max(share));
        }
    }
    out
}

/// Entitlement of every LPAR (dedicated ones: their logical cores, outside the pool).
pub fn entitlements(cpc: &CpcSpec) -> Vec<Ent> {
    let mut out = dedicated_entitlements(cpc);
    share_pool_by_weight(cpc, &mut out);
    out.into_iter()
        .map(|e| e.unwrap_or(Ent { num: 0, den: 1 }))
        .collect()
}

/// A dedicated LPAR is entitled to its logical cores; the shared ones are still open (None).
fn dedicated_entitlements(cpc: &CpcSpec) -> Vec<Option<Ent>> {
    let n = cpc.lpars.len();
    let mut out: Vec<Option<Ent>> = vec![None; n];
    for (i, l) in cpc.lpars.iter().enumerate() {
        if l.dedicated {
            out[i] = Some(Ent {
                num: l.logical as u128,
                den: 1,
            });
        }
    }
    out
}

/// Water-fill: an LPAR whose weight share exceeds its logical cores holds its logical cores;
/// the rest of the pool is shared again by weight among the others.
fn share_pool_by_weight(cpc: &CpcSpec, out: &mut [Option<Ent>]) {
    let mut pool = cpc.shared as u128;
    loop {
        let wsum = open_weight(cpc, out);
        if wsum == 0 {
            break;
        }
        if !hold_logical_cores(cpc, out, &mut pool, wsum) {
            for (i, l) in cpc.lpars.iter().enumerate() {
                if out[i].is_none() {
                    out[i] = Some(Ent {
                        num: pool * l.weight as u128,
                        den: wsum,
                    });
                }
            }
            break;
        }
    }
}

/// The weight of the LPARs whose entitlement is still open.
fn open_weight(cpc: &CpcSpec, out: &[Option<Ent>]) -> u128 {
    cpc.lpars
        .iter()
        .enumerate()
        .filter(|(i, _)| out[*i].is_none())
        .map(|(_, l)| l.weight as u128)
        .sum()
}

/// Each open LPAR whose weight share of `pool` exceeds its logical cores is entitled to its
/// logical cores, which leave the pool; whether any was.
fn hold_logical_cores(cpc: &CpcSpec, out: &mut [Option<Ent>], pool: &mut u128, wsum: u128) -> bool {
    let mut capped = false;
    for (i, l) in cpc.lpars.iter().enumerate() {
        if out[i].is_none() && *pool * l.weight as u128 > l.logical as u128 * wsum {
            out[i] = Some(Ent {
                num: l.logical as u128,
                den: 1,
            });
            *pool -= l.logical as u128;
            capped = true;
        }
    }
    capped
}

/// Vertical-high and vertical-medium counts for entitlement `e` (cp-model §1.3).
pub fn vertical_counts(e: Ent) -> (u32, u32) {
    let fl = e.floor();
    if e.is_integral() {
        (fl, 0)
    } else if 2 * e.frac_num() >= e.den {
        (fl, 1)
    } else if fl == 0 {
        (0, 1)
    } else {
        (fl - 1, 2)
    }
}

/// `n` logical cores of polarity `pol`, each entitled to `ent` cores, not yet placed.
fn unplaced_cores(cores: &mut Vec<Core>, n: u32, pol: Pol, ent: f64) {
    cores.extend((0..n).map(|_| Core { pol, ent, home: 0 }));
}

/// LPAR `l` with entitlement `e`, polarized: its logical cores dedicated, horizontal (each an
/// equal share of its entitlement) or vertical (Vh, Vm sharing what the Vh leave, Vl).
fn polarize_lpar(l: &LparSpec, e: Ent) -> LparPol {
    let (mut vh, mut vm, mut vl, mut hz, mut ded) = (0, 0, 0, 0, 0);
    let mut cores = Vec::new();
    if l.dedicated {
        ded = l.logical;
        unplaced_cores(&mut cores, ded, Pol::Ded, 1.0);
    } else if l.polarization == Polarization::Horizontal {
        hz = l.logical;
        let per = e.cores() / l.logical as f64;
        unplaced_cores(&mut cores, hz, Pol::Hz, per);
    } else {
        (vh, vm) = vertical_counts(e);
        vl = l.logical - vh - vm;
        let vm_ent = if vm > 0 {
            (e.cores() - vh as f64) / vm as f64
        } else {
            0.0
        };
        unplaced_cores(&mut cores, vh, Pol::Vh, 1.0);
        unplaced_cores(&mut cores, vm, Pol::Vm, vm_ent);
        unplaced_cores(&mut cores, vl, Pol::Vl, 0.0);
    }
    LparPol {
        name: l.name.clone(),
        weight: l.weight,
        logical: l.logical,
        dedicated: l.dedicated,
        polarization: l.polarization,
        entitlement: e.cores(),
        ent: e,
        vh,
        vm,
        vl,
        hz,
        ded,
        cores,
    }
}

/// Places every Vh on its own physical core, from core 0 on, in LPAR order.
fn place_vh(lpars: &mut [LparPol]) {
    let mut next = 0u32;
    for l in lpars.iter_mut() {
        for c in l.cores.iter_mut().filter(|c| c.pol == Pol::Vh) {
            c.home = next;
            next += 1;
        }
    }
}

/// Places the other logical cores: shared ones (Vm, Vl, horizontal) round robin on the
/// `shared` pool's cores the `vh_total` Vh leave (over the whole pool when the Vh take every
/// core), dedicated ones on the dedicated cores after the pool.
fn place_others(lpars: &mut [LparPol], shared: u32, vh_total: u32) {
    let pool_first = vh_total;
    // With every shared core taken by a Vh, the others float over the whole pool.
    let (pool_lo, pool_n) = if shared > vh_total {
        (pool_first, shared - vh_total)
    } else {
        (0, shared.max(1))
    };
    let mut k = 0u32;
    let mut dnext = shared;
    for l in lpars.iter_mut() {
        for c in l.cores.iter_mut() {
            match c.pol {
                Pol::Vm | Pol::Vl | Pol::Hz => {
                    c.home = pool_lo + k % pool_n;
                    k += 1;
                }
                Pol::Ded => {
                    c.home = dnext;
                    dnext += 1;
                }
                Pol::Vh => {}
            }
        }
    }
}

/// Polarize and place the whole CPC.
pub fn polarize(cpc: &CpcSpec) -> Result<CpcPol, String> {
    cpc.check()?;
    let ents = entitlements(cpc);
    let mut lpars: Vec<LparPol> = cpc
        .lpars
        .iter()
        .zip(&ents)
        .map(|(l, &e)| polarize_lpar(l, e))
        .collect();
    // Placement: Vh on physical cores 0.., one each; the rest of the shared pool for the others.
    let vh_total: u32 = lpars.iter().map(|l| l.vh).sum();
    let non_vh_total: u32 = lpars.iter().map(|l| l.vm + l.vl + l.hz).sum();
    place_vh(&mut lpars);
    place_others(&mut lpars, cpc.shared, vh_total);
    Ok(CpcPol {
        shared: cpc.shared,
        dedicated: cpc.dedicated,
        lpars,
        vh_total,
        vh_physical: vh_total,
        non_vh_total,
        non_vh_physical: cpc.shared.saturating_sub(vh_total),
    })
}

// ---------------------------------------------------------------------------------------------
// The pool's fluid share of capacity (cp-model §1.4, [A]).

/// Share of a physical core each logical core gets while it wants to run (fluid PR/SM,
/// placement-aware). LPAR j keeps its first `unparked[j]` cores (Vh, Vm, Vl order) busy a
/// fraction `d[j]` of the time each (z/VM spreads its work over its unparked cores); the others
/// get nothing.
/// - A vertical-high has its own physical core: it gets all it wants.
/// - Every other shared core (Vm, Vl, horizontal) runs on whatever physical capacity the
///   vertical-highs leave: the pool's non-Vh cores plus idle time on the Vh cores. From it each
///   core is first guaranteed min(d, its entitlement), then the rest goes by LPAR weight to the
///   LPARs that want more (uncapped, cp-model §1.2), and evenly among an LPAR's cores.
/// - Dedicated cores get what they want on their own cores, outside the pool.
pub fn pool_share(pol: &CpcPol, weights: &[u32], unparked: &[u32], d: &[f64]) -> Vec<Vec<f64>> {
    pool_share_capped(
        pol,
        weights,
        unparked,
        d,
        &vec![f64::INFINITY; pol.lpars.len()],
    )
}

/// `pool_share` with capping: LPAR j gets at most `limits[j]` cores in all (what its cap would
/// let it take beyond its guaranteed part goes to the others; a guaranteed part above the cap,
/// vertical-highs included, is scaled down to it).
pub fn pool_share_capped(
    pol: &CpcPol,
    weights: &[u32],
    unparked: &[u32],
    d: &[f64],
    limits: &[f64],
) -> Vec<Vec<f64>> {
    let mut out: Vec<Vec<f64>> = pol.lpars.iter().map(|l| vec![0.0; l.cores.len()]).collect();
    let mut caps: Vec<Vec<(usize, f64)>> = vec![Vec::new(); pol.lpars.len()];
    let used = guaranteed_share(pol, unparked, d, &mut out, &mut caps);
    let used = scale_to_limits(&mut out, limits, used);
    let left = (pol.shared as f64 - used).max(0.0);
    let w: Vec<f64> = weights.iter().map(|&x| x as f64).collect();
    let cap = wants_within_limits(&caps, &out, limits);
    let extra = crate::waterfill::water_fill(left, &w, &cap);
    spread_extra(&mut out, &caps, &extra);
    out
}

/// Each unparked core's guaranteed part into `out`: a dedicated core or a vertical-high all it
/// wants, any other shared core min(d, its entitlement), with what it wants beyond that into
/// `caps` (core, want); the pool capacity the guaranteed parts use (dedicated cores aside).
fn guaranteed_share(
    pol: &CpcPol,
    unparked: &[u32],
    d: &[f64],
    out: &mut [Vec<f64>],
    caps: &mut [Vec<(usize, f64)>],
) -> f64 {
    let mut used = 0.0;
    for (j, l) in pol.lpars.iter().enumerate() {
        let dj = d[j].clamp(0.0, 1.0);
        let n = (unparked[j] as usize).min(l.cores.len());
        for (k, c) in l.cores.iter().enumerate().take(n) {
            match c.pol {
                Pol::Ded => out[j][k] = dj,
                Pol::Vh => {
                    out[j][k] = dj;
                    used += dj;
                }
                Pol::Vm | Pol::Vl | Pol::Hz => {
                    let g = dj.min(c.ent);
                    out[j][k] = g;
                    used += g;
                    if dj > g {
                        caps[j].push((k, dj - g));
                    }
                }
            }
        }
    }
    used
}

/// An LPAR whose guaranteed part alone is above its cap has every core scaled down to it;
/// the pool capacity `used` then.
fn scale_to_limits(out: &mut [Vec<f64>], limits: &[f64], mut used: f64) -> f64 {
    let mut over = false;
    for (j, o) in out.iter_mut().enumerate() {
        let g: f64 = o.iter().sum();
        if limits[j].is_finite() && g > limits[j] {
            // The guaranteed part alone is above the cap: every core of j scaled down to it.
            let f = limits[j] / g;
            used -= g * (1.0 - f);
            o.iter_mut().for_each(|x| *x *= f);
            over = true;
        }
    }
    if over {
        used = used.max(0.0);
    }
    used
}

/// What each LPAR wants beyond its guaranteed part, held to what its cap leaves.
fn wants_within_limits(caps: &[Vec<(usize, f64)>], out: &[Vec<f64>], limits: &[f64]) -> Vec<f64> {
    caps.iter()
        .enumerate()
        .map(|(j, c)| {
            let want: f64 = c.iter().map(|x| x.1).sum();
            if limits[j].is_finite() {
                want.min((limits[j] - out[j].iter().sum::<f64>()).max(0.0))
            } else {
                want
            }
        })
        .collect()
}

/// LPAR j's share `extra[j]` of the rest of the pool, spread evenly over its cores that want
/// more (each up to what it wants).
fn spread_extra(out: &mut [Vec<f64>], caps: &[Vec<(usize, f64)>], extra: &[f64]) {
    for (j, cj) in caps.iter().enumerate() {
        if cj.is_empty() || extra[j] <= 0.0 {
            continue;
        }
        let ones = vec![1.0; cj.len()];
        let c: Vec<f64> = cj.iter().map(|x| x.1).collect();
        for ((k, _), e) in cj
            .iter()
            .zip(crate::waterfill::water_fill(extra[j], &ones, &c))
        {
            out[j][*k] += e;
        }
    }
}

/// PR/SM dispatch interval (cp-model §1.4): k × shared physical / active shared logical cores,
/// clamped to [t_min, t_max] (all in ms).
pub fn dispatch_interval_ms(
    shared: u32,
    active_logical: u32,
    k: f64,
    t_min: f64,
    t_max: f64,
) -> f64 {
    let r = if active_logical == 0 {
        1.0
    } else {
        shared as f64 / active_logical as f64
    };
    (k * r).clamp(t_min, t_max.max(t_min))
}

// ---------------------------------------------------------------------------------------------
// z/VM vertical mode: parking and unparking (VM66063, cp-model §3.3).

/// How many logical cores z/VM keeps unparked (cp-model §3.3, [A] shaped to seed 000):
/// - `powered` P = min(logical, E + f(EXCESSUSE) × projected excess): what appears powered;
/// - LARGE: every core that appears powered, ceil(P);
/// - MEDIUM: the Vh and Vm cores plus the vertical-lows needed and powered,
///   max(Vh+Vm, ceil(min(need, P)));
/// - SMALL: only the cores needed and powered, ceil(min(need, P)).
///
/// All clamped to 1..logical. Since Vh+Vm = ceil(E) <= ceil(P), SMALL <= MEDIUM <= LARGE.
pub fn unparked_count(
    model: Unparking,
    logical: u32,
    vh_vm: u32,
    ent: f64,
    excess: f64,
    excess_factor: f64,
    need: f64,
) -> u32 {
    let ceil = |x: f64| (x - 1e-9).ceil().max(0.0) as u32;
    let p = (ent + excess_factor.clamp(0.0, 1.0) * excess.max(0.0)).min(logical as f64);
    let m = need.max(0.0).min(p);
    let n = match model {
        Unparking::Large => ceil(p).max(vh_vm),
        Unparking::Medium => vh_vm.max(ceil(m)),
        Unparking::Small => ceil(m),
    };
    n.clamp(1, logical.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lpar(name: &str, weight: u32, logical: u32) -> LparSpec {
        LparSpec {
            name: name.into(),
            weight,
            logical,
            dedicated: false,
            polarization: Polarization::Vertical,
            busy: 0.0,
            busy_pattern: vec![],
            busy_period_ns: 0,
            capped: false,
            abscap: None,
            group: None,
        }
    }

    /// Row B13 (seed 000): the CPC of the VM66063 charts. Weights in the ratio of the published
    /// entitlements (688 : 1978 hundredths of a core = 344 : 989, PR/SM weights are 1..999),
    /// logical cores = Vh + Vm + Vl as published. The counts and placement must come out of
    /// the arithmetic.
    fn b13() -> CpcSpec {
        CpcSpec {
            shared: 86,
            dedicated: 0,
            groups: vec![],
            lpars: vec![
                lpar("A", 344, 12),
                lpar("B", 989, 24),
                lpar("C", 989, 24),
                lpar("D", 989, 28),
                lpar("E", 989, 28),
            ],
        }
    }

    #[test]
    fn b13_polarization_test() {
        let p = polarize(&b13()).unwrap();
        let got: Vec<(u32, u32, u32)> = p.lpars.iter().map(|l| (l.vh, l.vm, l.vl)).collect();
        assert_eq!(
            got,
            vec![(6, 1, 5), (19, 1, 4), (19, 1, 4), (19, 1, 8), (19, 1, 8)]
        );
        assert!((p.lpars[0].entitlement - 6.88).abs() < 1e-12);
        assert!((p.lpars[1].entitlement - 19.78).abs() < 1e-12);
        assert_eq!(p.vh_total, 82);
        assert_eq!(p.vh_physical, 82);
        assert_eq!(p.non_vh_total, 34);
        assert_eq!(p.non_vh_physical, 4);
        let homes: std::collections::BTreeSet<u32> = p
            .lpars
            .iter()
            .flat_map(|l| l.cores.iter())
            .filter(|c| c.pol != Pol::Vh)
            .map(|c| c.home)
            .collect();
        assert_eq!(homes.into_iter().collect::<Vec<_>>(), vec![82, 83, 84, 85]);
    }

    #[test]
    fn busy_pattern_test() {
        let mut l = lpar("P", 1, 1);
        l.busy = 0.3;
        assert_eq!(l.busy_at(123), 0.3);
        l.busy_pattern = vec![0.5, 0.9];
        l.busy_period_ns = 10;
        assert_eq!(
            (l.busy_at(0), l.busy_at(9), l.busy_at(10), l.busy_at(25)),
            (0.5, 0.5, 0.9, 0.5)
        );
    }

    #[test]
    fn vertical_count_rule_test() {
        let e = |num: u128, den: u128| Ent { num, den };
        assert_eq!(vertical_counts(e(688, 100)), (6, 1));
        assert_eq!(vertical_counts(e(650, 100)), (6, 1));
        assert_eq!(vertical_counts(e(649, 100)), (5, 2));
        assert_eq!(vertical_counts(e(700, 100)), (7, 0));
        assert_eq!(vertical_counts(e(30, 100)), (0, 1));
        assert_eq!(vertical_counts(e(130, 100)), (0, 2));
    }

    #[test]
    fn entitlement_capped_at_logical_cores_test() {
        // Weight 900 of 1000 on 10 cores would be 9 cores, but the LPAR has only 2 logical.
        let c = CpcSpec {
            shared: 10,
            dedicated: 0,
            groups: vec![],
            lpars: vec![lpar("BIG", 900, 2), lpar("OTHER", 100, 10)],
        };
        let e = entitlements(&c);
        assert_eq!(e[0].cores(), 2.0);
        assert_eq!(e[1].cores(), 8.0);
    }

    #[test]
    fn unparking_examples_test() {
        // E = 6.88 (6 Vh + 1 Vm), 12 logical, 3 cores of excess, 2.5 cores needed.
        let f = |m| unparked_count(m, 12, 7, 6.88, 3.0, 1.0, 2.5);
        assert_eq!(f(Unparking::Large), 10);
        assert_eq!(f(Unparking::Medium), 7);
        assert_eq!(f(Unparking::Small), 3);
        // EXCESSUSE NONE: no vertical-low is ever unparked.
        assert_eq!(
            unparked_count(Unparking::Large, 12, 7, 6.88, 3.0, 0.0, 12.0),
            7
        );
    }

    fn share_all(c: &CpcSpec, d: &[f64]) -> Vec<Vec<f64>> {
        let p = polarize(c).unwrap();
        let w: Vec<u32> = c.lpars.iter().map(|l| l.weight).collect();
        let n: Vec<u32> = c.lpars.iter().map(|l| l.logical).collect();
        pool_share(&p, &w, &n, d)
    }

    #[test]
    fn pool_share_examples_test() {
        // A5-like: 4 shared cores, weights 30/70, both horizontal 4-ways, partner busy: each
        // of our cores is powered 30 % of the time.
        let mut c = CpcSpec {
            shared: 4,
            dedicated: 0,
            groups: vec![],
            lpars: vec![lpar("VM", 30, 4), lpar("OTHER", 70, 4)],
        };
        for l in c.lpars.iter_mut() {
            l.polarization = Polarization::Horizontal;
        }
        let got = share_all(&c, &[1.0, 1.0]);
        assert!(got[0].iter().all(|x| (x - 0.3).abs() < 1e-9), "{got:?}");
        // Partner idle: ours run whenever they want.
        let got = share_all(&c, &[1.0, 0.0]);
        assert!(got[0].iter().all(|x| (x - 1.0).abs() < 1e-9));
        // Partner at half: 2 cores left for us.
        let got = share_all(&c, &[1.0, 0.5]);
        assert!((got[0].iter().sum::<f64>() - 2.0).abs() < 1e-9);
    }

    #[test]
    fn crowded_vertical_lows_test() {
        // B13's CPC with every partner 95 % busy on all its cores: the Vh keep their cores,
        // our vertical-lows share what the partners' Vh leave with the partners' Vm and Vl.
        let got = share_all(&b13(), &[0.4, 0.95, 0.95, 0.95, 0.95]);
        let a = &got[0];
        assert!(a[..6].iter().all(|x| (x - 0.4).abs() < 1e-12));
        assert!((a[6] - 0.4).abs() < 1e-12); // Vm: 0.4 is within its 0.88
        assert!(a[7..].iter().all(|x| *x < 0.4 - 1e-3), "{a:?}");
    }

    fn arb_cpc() -> impl Strategy<Value = CpcSpec> {
        (1u32..=128).prop_flat_map(|shared| {
            (
                Just(shared),
                proptest::collection::vec(
                    (1u32..=999, 1u32..=shared, any::<bool>(), 0.0f64..=1.0),
                    1..8,
                ),
            )
                .prop_map(|(shared, ls)| CpcSpec {
                    shared,
                    dedicated: 0,
                    groups: vec![],
                    lpars: ls
                        .into_iter()
                        .enumerate()
                        .map(|(i, (w, n, h, b))| LparSpec {
                            name: format!("L{i}"),
                            weight: w,
                            logical: n,
                            dedicated: false,
                            polarization: if h {
                                Polarization::Horizontal
                            } else {
                                Polarization::Vertical
                            },
                            busy: b,
                            busy_pattern: vec![],
                            busy_period_ns: 0,
                            capped: false,
                            abscap: None,
                            group: None,
                        })
                        .collect(),
                })
        })
    }

    proptest! {
        #[test]
        fn polarization_properties(cpc in arb_cpc()) {
            let p = polarize(&cpc).unwrap();
            // Σ entitlement = shared pool (or every logical core, if there are fewer).
            let total: f64 = p.lpars.iter().map(|l| l.entitlement).sum();
            let logical: u32 = cpc.lpars.iter().map(|l| l.logical).sum();
            let want = (cpc.shared.min(logical)) as f64;
            prop_assert!((total - want).abs() < 1e-9, "sum {total} vs {want}");
            let mut vh_homes = std::collections::BTreeSet::new();
            for l in &p.lpars {
                // Every logical core has exactly one polarization.
                prop_assert_eq!(l.vh + l.vm + l.vl + l.hz + l.ded, l.logical);
                prop_assert_eq!(l.cores.len() as u32, l.logical);
                prop_assert!(l.entitlement <= l.logical as f64 + 1e-12);
                // Vh never exceeds the entitlement; Vh + Vm covers it exactly.
                prop_assert!(l.vh as f64 <= l.entitlement + 1e-12);
                if l.polarization == Polarization::Vertical {
                    prop_assert_eq!(l.vh + l.vm, l.ent.ceil());
                    let s: f64 = l.cores.iter().map(|c| c.ent).sum();
                    prop_assert!((s - l.entitlement).abs() < 1e-9);
                    prop_assert!(l.cores.iter().all(|c| c.ent <= 1.0 + 1e-12));
                }
                for c in &l.cores {
                    prop_assert!(c.home < cpc.shared);
                    if c.pol == Pol::Vh {
                        // Vh cores never share a physical core.
                        prop_assert!(vh_homes.insert(c.home));
                    }
                }
            }
            // Non-Vh cores stay off the Vh physical cores (when any core is left for them).
            if p.vh_total < cpc.shared {
                for l in &p.lpars {
                    for c in l.cores.iter().filter(|c| c.pol != Pol::Vh) {
                        prop_assert!(!vh_homes.contains(&c.home));
                    }
                }
            }
            prop_assert_eq!(p.vh_physical + p.non_vh_physical, cpc.shared);
        }

        /// Capping (issue 18): no LPAR gets more than its limit; initial capping holds it at its
        /// entitlement at most; a capping group's members stay within the group's cap together;
        /// uncapped LPARs never get less than without the others' caps; the pool is never
        /// overcommitted.
        #[test]
        fn capped_shares_never_exceed_their_caps(
            mut cpc in arb_cpc(),
            kinds in proptest::collection::vec(0u8..4, 8),
            caps in proptest::collection::vec(0.01f64..6.0, 8),
            gcap in 0.01f64..8.0,
            demand in 0.0f64..=1.0,
        ) {
            cpc.groups = vec![CapGroup { name: "G".into(), abscap: gcap }];
            for (j, l) in cpc.lpars.iter_mut().enumerate() {
                match kinds[j % kinds.len()] {
                    1 => l.capped = true,
                    2 => l.abscap = Some(caps[j % caps.len()]),
                    3 => l.group = Some("G".into()),
                    _ => {}
                }
            }
            let p = polarize(&cpc).unwrap();
            let ents = entitlements(&cpc);
            let w: Vec<u32> = cpc.lpars.iter().map(|l| l.weight).collect();
            let n: Vec<u32> = cpc.lpars.iter().map(|l| l.logical).collect();
            let d: Vec<f64> = cpc.lpars.iter().map(|l| if l.busy > 0.0 { l.busy } else { demand }).collect();
            let want: Vec<f64> = cpc.lpars.iter().zip(&d).map(|(l, x)| l.logical as f64 * x).collect();
            let lim = limits(&cpc, &ents, &want);
            let got = pool_share_capped(&p, &w, &n, &d, &lim);
            let free = pool_share(&p, &w, &n, &d);
            let total: f64 = got.iter().flatten().sum();
            prop_assert!(total <= cpc.shared as f64 + 1e-9);
            let mut group = 0.0;
            for (j, l) in cpc.lpars.iter().enumerate() {
                let s: f64 = got[j].iter().sum();
                prop_assert!(s <= lim[j] + 1e-9, "LPAR {j}: {s} > cap {}", lim[j]);
                if l.capped {
                    prop_assert!(s <= ents[j].cores() + 1e-9);
                }
                if let Some(c) = l.abscap {
                    prop_assert!(s <= c + 1e-9);
                }
                if l.group.is_some() {
                    group += s;
                } else if !lim[j].is_finite() {
                    let f: f64 = free[j].iter().sum();
                    prop_assert!(s >= f - 1e-9, "uncapped LPAR {j} lost: {s} < {f}");
                }
            }
            prop_assert!(group <= gcap + 1e-9, "group {group} > {gcap}");
        }

        #[test]
        fn pool_share_properties(cpc in arb_cpc(), ours in 0.0f64..=1.0) {
            let p = polarize(&cpc).unwrap();
            let w: Vec<u32> = cpc.lpars.iter().map(|l| l.weight).collect();
            let n: Vec<u32> = cpc.lpars.iter().map(|l| l.logical).collect();
            let d: Vec<f64> = cpc.lpars.iter().enumerate()
                .map(|(i, l)| if i == 0 { ours } else { l.busy }).collect();
            let got = pool_share(&p, &w, &n, &d);
            let sum: f64 = got.iter().flatten().sum();
            prop_assert!(sum <= cpc.shared as f64 + 1e-6);
            for (j, l) in p.lpars.iter().enumerate() {
                for (k, c) in l.cores.iter().enumerate() {
                    let x = got[j][k];
                    prop_assert!(x <= d[j] + 1e-9);
                    // Every core gets at least its entitlement of what it wants; a Vh all of it.
                    prop_assert!(x + 1e-9 >= d[j].min(c.ent));
                    if c.pol == Pol::Vh { prop_assert!((x - d[j]).abs() < 1e-12); }
                }
            }
            // Capacity left idle only when every core has all it wants.
            if sum < cpc.shared as f64 - 1e-6 {
                for (j, g) in got.iter().enumerate() {
                    prop_assert!(g.iter().all(|x| (x - d[j]).abs() < 1e-6));
                }
            }
        }

        #[test]
        fn unparking_monotone(logical in 1u32..=64, efrac in 0.0f64..=1.0, excess in 0.0f64..64.0,
                              fx in 0.0f64..=1.0, util in 0.0f64..=1.0) {
            // Any entitlement up to the logical cores, any utilization and excess projection.
            let e = Ent { num: (efrac * logical as f64 * 1000.0).round() as u128, den: 1000 };
            let (vh, vm) = vertical_counts(e);
            let need = util * logical as f64;
            let f = |m| unparked_count(m, logical, vh + vm, e.cores(), excess, fx, need);
            let (s, m, l) = (f(Unparking::Small), f(Unparking::Medium), f(Unparking::Large));
            prop_assert!(s <= m && m <= l, "{s} {m} {l}");
            prop_assert!(l <= logical && s >= 1);
            // MEDIUM keeps every Vh and Vm unparked.
            prop_assert!(m >= (vh + vm).min(logical));
        }

    }
}
