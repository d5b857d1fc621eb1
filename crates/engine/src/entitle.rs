//! The 6.4 scheduler's entitlement water-fill kept between passes (issue 16): a pass costs in
//! proportion to the users whose demand it measured, not to all logged-on users.
//!
//! Each user's smoothed demand decays by the same factor every pass while the user wants no
//! processor, so it is kept as `g x q x 2^-36` processors: one global scale `g` (the product of
//! the decay factors, renormalized into `q` when it gets small) and a per-user integer `q` that
//! changes only for a user that used or wanted a processor. The integer sum of `q` is exact,
//! so the total demand does not depend on the order of updates.
//!
//! Water-filling capacity `n` over users with weights `w` (normalized shares) and bounds
//! `cap = min(demand, bound)` gives every user `min(cap, w x L)` for the one water level `L`
//! where the allocations add up to `n` (`L` infinite when all caps fit). Only the users above
//! the level decide `L`, so it is found from the top: users in decreasing `cap / w` (a max-heap
//! for the users bounded by their demand, whose order the common decay does not change, and a
//! short list of those at their fixed bound) are moved above one by one until the next one's
//! `cap / w` is at most the level the users above leave (the heap is put in order the first
//! time a pass needs it; while every demand fits it is only the set of users with a demand).
//! A user's allocation is then read on demand (`alloc`), not written for every user every
//! pass. LIMITSOFT users get above their maximum only capacity nobody else wants: a second
//! water-fill over them alone.

use crate::waterfill::WaterFill;
use std::collections::BinaryHeap;

const NONE: u32 = u32::MAX;
/// `slot` of a user at its fixed bound: this bit and its index in `clamped`.
const CLAMP_BIT: u32 = 1 << 31;
/// Demand units per processor at scale 1 (`q` counts 2^-36 processors / `g`).
const UNIT: f64 = (1u64 << 36) as f64;
/// The scale is folded into `q` when it falls below this: demands are at most 64 processors
/// (virtual CPUs), so `q` stays below 2^62.
const G_MIN: f64 = 1.0 / (1u64 << 20) as f64;

pub struct Entitlement {
    /// Per user: weight (normalized share), fixed bound (virtual CPUs, LIMITHARD and LIMITSOFT
    /// maxima), demand at scale `g`, place (heap slot, `CLAMP_BIT | index`, or NONE), and what
    /// the second (LIMITSOFT) fill gave it.
    w: Vec<f64>,
    bound: Vec<f64>,
    q: Vec<u64>,
    /// `q` as a float (demand / g in units of 2^-36 processors).
    qf: Vec<f64>,
    slot: Vec<u32>,
    more: Vec<f64>,
    /// Max-heap of the users bounded by their demand (q > 0), keyed by q / w; kept in heap
    /// order only once a fill has needed it (`ordered`: the water level is below some demand),
    /// until the next renormalization or reset (an unordered heap is just the set).
    heap: Vec<(f64, u32)>,
    ordered: bool,
    sum_q: u128,
    /// Users whose demand exceeds their fixed bound.
    clamped: Vec<u32>,
    g: f64,
    /// UNIT / g: quanta per processor of demand added now.
    per_g: f64,
    level: f64,
    /// LIMITSOFT users and their bound above the maximum (virtual CPUs).
    soft: Vec<(u32, f64)>,
    gen: u64,
    /// The heap users in the order of the last pass that sorted them all (`prev_valid`: since
    /// then no user was re-placed wholesale), and the users whose key changed since (`dirty`).
    prev: Vec<u32>,
    prev_valid: bool,
    dirty: Vec<bool>,
    dirty_list: Vec<u32>,
    // Buffers kept between passes.
    cand: BinaryHeap<(u64, u32)>,
    kept: Vec<u128>,
    moved: Vec<u128>,
    merged: Vec<u128>,
    order: Vec<u128>,
    sw: Vec<f64>,
    sc: Vec<f64>,
    wf: WaterFill,
}

impl Default for Entitlement {
    fn default() -> Self {
        Entitlement {
            w: Vec::new(),
            bound: Vec::new(),
            q: Vec::new(),
            qf: Vec::new(),
            slot: Vec::new(),
            more: Vec::new(),
            heap: Vec::new(),
            ordered: false,
            sum_q: 0,
            clamped: Vec::new(),
            g: 1.0,
            per_g: UNIT,
            level: f64::INFINITY,
            soft: Vec::new(),
            gen: 0,
            prev: Vec::new(),
            prev_valid: false,
            dirty: Vec::new(),
            dirty_list: Vec::new(),
            cand: BinaryHeap::new(),
            kept: Vec::new(),
            moved: Vec::new(),
            merged: Vec::new(),
            order: Vec::new(),
            sw: Vec::new(),
            sc: Vec::new(),
            wf: WaterFill::default(),
        }
    }
}

impl Entitlement {
    /// Set every user's weight, fixed bound and LIMITSOFT bound (`soft`: user, bound above its
    /// maximum); demands are kept (start, SET SHARE, processors varied), new users' are zero.
    /// Returns the number of users it knew before.
    pub fn set_users(&mut self, w: &[f64], bound: &[f64], soft: &[(u32, f64)]) -> usize {
        let (known, n) = (self.q.len(), w.len());
        self.w.clear();
        self.w.extend_from_slice(w);
        self.bound.clear();
        self.bound.extend_from_slice(bound);
        self.q.resize(n, 0);
        self.qf.resize(n, 0.0);
        self.dirty.resize(n, false);
        self.slot.clear();
        self.slot.resize(n, NONE);
        self.more.clear();
        self.more.resize(n, 0.0);
        self.soft.clear();
        self.soft.extend_from_slice(soft);
        self.reattach_all();
        known
    }

    /// Fill pass counter: a user's allocation read after pass `gen` stays valid until the next.
    #[inline(always)]
    pub fn gen(&self) -> u64 {
        self.gen
    }

    /// How many users it knows (set by `set_users`).
    pub fn users(&self) -> usize {
        self.q.len()
    }

    /// Smoothed demand of user `u` (processors).
    #[inline]
    pub fn demand(&self, u: usize) -> f64 {
        self.g * (self.qf[u] / UNIT)
    }

    /// Every demand decays by `f` (0 < f <= 1).
    pub fn decay(&mut self, f: f64) {
        self.g *= f;
        if self.g < G_MIN {
            self.renormalize();
        }
        self.per_g = UNIT / self.g;
    }

    /// Add `x` processors to user `u`'s demand (after this pass's `decay`).
    pub fn add(&mut self, u: usize, x: f64) {
        // Rounded to the nearest quantum (x >= 0; NaN and below half a quantum add nothing).
        let dq = (x * self.per_g + 0.5) as u64;
        if dq == 0 {
            return;
        }
        let s = self.slot[u];
        let q = self.q[u].saturating_add(dq);
        let qf = q as f64;
        if s != NONE && s & CLAMP_BIT == 0 && self.g * (qf / UNIT) <= self.bound[u] {
            // Still bounded by its demand: its key grows in place.
            self.sum_q += (q - self.q[u]) as u128;
            self.q[u] = q;
            self.qf[u] = qf;
            self.heap[s as usize].0 = qf / self.w[u];
            self.mark_dirty(u);
            if self.ordered {
                self.sift_up(s as usize);
            }
            return;
        }
        self.detach(u);
        self.q[u] = q;
        self.qf[u] = qf;
        self.attach(u);
    }

    /// Water-fill `n` processors; afterwards `alloc` gives each user's share of them.
    pub fn fill(&mut self, n: f64) {
        self.gen += 1;
        self.unclamp();
        let s = self.g / UNIT;
        let total = s * self.sum_q as f64 + self.clamped_sum();
        let n = n.max(0.0);
        self.level = if total <= n {
            f64::INFINITY
        } else {
            self.level_from_top(n, total)
        };
        for &(u, _) in &self.soft {
            self.more[u as usize] = 0.0;
        }
        let left = if self.level.is_finite() {
            0.0
        } else {
            n - total
        };
        if left > 1e-9 && !self.soft.is_empty() {
            self.fill_soft(left);
        }
    }

    /// User `u`'s allocation from the last `fill` (processors).
    #[inline]
    pub fn alloc(&self, u: usize) -> f64 {
        let w = self.w[u];
        if w <= 0.0 {
            return 0.0;
        }
        let cap = self.demand(u).min(self.bound[u]);
        cap.min(w * self.level) + self.more[u]
    }

    /// The water level of the last fill (infinite when every demand fitted).
    pub fn level(&self) -> f64 {
        self.level
    }

    fn clamped_sum(&self) -> f64 {
        self.clamped.iter().map(|&u| self.bound[u as usize]).sum()
    }

    /// The water level when the demands do not all fit. From the top of the ordered heap while
    /// few users are above the level; when many are (more than an eighth), sorting them all is
    /// cheaper than walking the heap, so the heap is left unordered until the level is back
    /// among a few users.
    fn level_from_top(&mut self, n: f64, total: f64) -> f64 {
        let budget = 16 + self.heap.len() / 8;
        if self.ordered {
            if let (Some(level), _) = self.walk(n, total, false, budget) {
                return level;
            }
            self.ordered = false;
        }
        let (level, steps) = self.walk(n, total, true, usize::MAX);
        if steps < budget {
            self.heapify();
        }
        level.unwrap_or(f64::INFINITY)
    }

    /// Users in decreasing `cap / w` move above the level until the next one's is at most the
    /// level the ones above leave. The users at their bound (and with `all`, every user) are
    /// sorted; without `all` the heap users come from the top of the ordered heap. Gives up
    /// (None) after `budget` users; returns how many it moved.
    fn walk(&mut self, n: f64, total: f64, all: bool, budget: usize) -> (Option<f64>, usize) {
        let s = self.g / UNIT;
        // Sorted as integers (key bits above the user: the keys are positive), walked from the
        // end.
        let packed = |k: f64, u: u32| ((k.to_bits() as u128) << 64) | u as u128;
        self.order.clear();
        for &u in &self.clamped {
            let w = self.w[u as usize];
            self.order.push(packed(self.bound[u as usize] / w, u));
        }
        self.order.sort_unstable();
        if all {
            // The heap users sorted (`sort_heap_keys`), merged with those at their bound.
            self.sort_heap_keys(s);
            let mut out = std::mem::take(&mut self.moved);
            merge_into(&self.order, &self.kept, &mut out);
            std::mem::swap(&mut self.order, &mut out);
            self.moved = out;
        }
        let key = |e: u128| f64::from_bits((e >> 64) as u64);
        let nth = |order: &[u128], i: usize| order.len().checked_sub(i + 1).map(|j| order[j]);
        self.cand.clear();
        if let (false, Some(&(y, _))) = (all, self.heap.first()) {
            self.cand.push(((y * s).to_bits(), 0));
        }
        let (mut below, mut wa, mut ci) = (total, 0.0, 0);
        for steps in 1.. {
            if steps > budget {
                return (None, steps);
            }
            let hk = self.cand.peek().map(|&(k, _)| f64::from_bits(k));
            let ck = nth(&self.order, ci).map(key);
            let from_heap = match (hk, ck) {
                (None, None) => return (Some(f64::INFINITY), steps),
                (Some(h), Some(c)) => h >= c,
                (h, _) => h.is_some(),
            };
            let u = if from_heap {
                let (_, i) = self.cand.pop().unwrap();
                self.push_children(i as usize, s);
                self.heap[i as usize].1 as usize
            } else {
                ci += 1;
                nth(&self.order, ci - 1).unwrap() as u32 as usize
            };
            below -= if self.slot[u] & CLAMP_BIT != 0 {
                self.bound[u]
            } else {
                s * self.qf[u]
            };
            wa += self.w[u];
            let level = (n - below.max(0.0)) / wa;
            let next = match (self.cand.peek(), nth(&self.order, ci)) {
                (None, None) => return (Some(n / wa), steps),
                (Some(&(k, _)), None) => f64::from_bits(k),
                (None, Some(c)) => key(c),
                (Some(&(k, _)), Some(c)) => f64::from_bits(k).max(key(c)),
            };
            if next <= level {
                return (Some(level), steps);
            }
        }
        unreachable!()
    }

    /// User `u`'s heap key changed (or it joined the heap) since the last full sort.
    #[inline(always)]
    fn mark_dirty(&mut self, u: usize) {
        if !self.dirty[u] {
            self.dirty[u] = true;
            self.dirty_list.push(u as u32);
        }
    }

    /// Every heap user's key at scale `s`, sorted, into `kept`; their order is kept for the next
    /// time. The users whose key did not change since the last full sort keep their order
    /// (their keys all scale by the same `s`), so only the changed ones are sorted and merged
    /// in: a pass costs in proportion to the users it measured, plus one sweep. If scaling made
    /// two kept keys equal out of order (rounding; the user breaks the tie), all are sorted.
    /// Either way the result is the one sorted order of the same keys.
    fn sort_heap_keys(&mut self, s: f64) {
        let packed = |k: f64, u: u32| ((k.to_bits() as u128) << 64) | u as u128;
        let (mut kept, mut moved) = (
            std::mem::take(&mut self.kept),
            std::mem::take(&mut self.moved),
        );
        kept.clear();
        moved.clear();
        let mut in_order = self.prev_valid;
        if in_order {
            for &u in &self.prev {
                let sl = self.slot[u as usize];
                if sl == NONE || sl & CLAMP_BIT != 0 || self.dirty[u as usize] {
                    continue;
                }
                let k = packed(self.heap[sl as usize].0 * s, u);
                if kept.last().is_some_and(|&l| l > k) {
                    in_order = false;
                    break;
                }
                kept.push(k);
            }
        }
        if in_order {
            for &u in &self.dirty_list {
                let sl = self.slot[u as usize];
                if sl != NONE && sl & CLAMP_BIT == 0 {
                    moved.push(packed(self.heap[sl as usize].0 * s, u));
                }
            }
            in_order = kept.len() + moved.len() == self.heap.len();
        }
        if in_order {
            moved.sort_unstable();
            let mut out = std::mem::take(&mut self.merged);
            merge_into(&kept, &moved, &mut out);
            std::mem::swap(&mut kept, &mut out);
            self.merged = out;
        } else {
            kept.clear();
            kept.extend(self.heap.iter().map(|&(y, u)| packed(y * s, u)));
            kept.sort_unstable();
        }
        #[cfg(debug_assertions)]
        {
            let mut all: Vec<u128> = self.heap.iter().map(|&(y, u)| packed(y * s, u)).collect();
            all.sort_unstable();
            assert_eq!(all, kept, "the kept order and the merge are the full sort");
        }
        for &u in &self.dirty_list {
            self.dirty[u as usize] = false;
        }
        self.dirty_list.clear();
        self.prev.clear();
        self.prev.extend(kept.iter().map(|&k| k as u32));
        self.prev_valid = true;
        self.kept = kept;
        self.moved = moved;
    }

    fn push_children(&mut self, i: usize, s: f64) {
        for c in [2 * i + 1, 2 * i + 2] {
            if let Some(&(y, _)) = self.heap.get(c) {
                self.cand.push(((y * s).to_bits(), c as u32));
            }
        }
    }

    /// LIMITSOFT users share what is left, each up to its demand (within its virtual CPUs)
    /// less what the first fill gave it.
    fn fill_soft(&mut self, left: f64) {
        self.sw.clear();
        self.sc.clear();
        for &(u, b) in &self.soft {
            let u = u as usize;
            let first = self.alloc(u);
            self.sw.push(self.w[u]);
            self.sc.push((self.demand(u).min(b) - first).max(0.0));
        }
        let more = self.wf.fill(left, &self.sw, &self.sc);
        for (k, &(u, _)) in self.soft.iter().enumerate() {
            self.more[u as usize] = more[k];
        }
    }

    /// Clamped users whose decayed demand is back within their bound return to the heap.
    fn unclamp(&mut self) {
        let mut k = 0;
        while k < self.clamped.len() {
            let u = self.clamped[k] as usize;
            if self.demand(u) <= self.bound[u] {
                self.detach(u);
                self.attach(u);
            } else {
                k += 1;
            }
        }
    }

    /// Fold the scale into every demand (users whose demand rounds to nothing leave).
    #[cold]
    fn renormalize(&mut self) {
        let g = self.g;
        for (q, qf) in self.q.iter_mut().zip(self.qf.iter_mut()) {
            if *q > 0 {
                *q = (*qf * g + 0.5) as u64;
                *qf = *q as f64;
            }
        }
        self.g = 1.0;
        self.reattach_all();
    }

    fn reattach_all(&mut self) {
        self.prev_valid = false;
        self.heap.clear();
        self.ordered = false;
        self.clamped.clear();
        self.sum_q = 0;
        self.slot.iter_mut().for_each(|s| *s = NONE);
        for u in 0..self.q.len() {
            self.attach(u);
        }
    }

    /// Place user `u` by its demand: nowhere (none), at its bound, or on the heap.
    fn attach(&mut self, u: usize) {
        if self.q[u] == 0 || self.w[u] <= 0.0 {
            return;
        }
        if self.demand(u) > self.bound[u] {
            self.slot[u] = CLAMP_BIT | self.clamped.len() as u32;
            self.clamped.push(u as u32);
            return;
        }
        self.sum_q += self.q[u] as u128;
        self.mark_dirty(u);
        let i = self.heap.len();
        self.heap.push((self.qf[u] / self.w[u], u as u32));
        self.slot[u] = i as u32;
        if self.ordered {
            self.sift_up(i);
        }
    }

    fn detach(&mut self, u: usize) {
        let s = self.slot[u];
        if s == NONE {
            return;
        }
        self.slot[u] = NONE;
        if s & CLAMP_BIT != 0 {
            let k = (s & !CLAMP_BIT) as usize;
            self.clamped.swap_remove(k);
            if let Some(&m) = self.clamped.get(k) {
                self.slot[m as usize] = CLAMP_BIT | k as u32;
            }
            return;
        }
        self.sum_q -= self.q[u] as u128;
        let i = s as usize;
        let last = self.heap.pop().unwrap();
        if i < self.heap.len() {
            self.heap[i] = last;
            self.slot[last.1 as usize] = i as u32;
            if self.ordered {
                self.sift_up(i);
                self.sift_down(self.slot[last.1 as usize] as usize);
            }
        }
    }

    fn heapify(&mut self) {
        for i in (0..self.heap.len() / 2).rev() {
            self.sift_down(i);
        }
        self.ordered = true;
    }

    fn sift_up(&mut self, mut i: usize) {
        let e = self.heap[i];
        while i > 0 {
            let p = (i - 1) / 2;
            if self.heap[p].0 >= e.0 {
                break;
            }
            self.heap[i] = self.heap[p];
            self.slot[self.heap[i].1 as usize] = i as u32;
            i = p;
        }
        self.heap[i] = e;
        self.slot[e.1 as usize] = i as u32;
    }

    fn sift_down(&mut self, mut i: usize) {
        let e = self.heap[i];
        let n = self.heap.len();
        loop {
            let mut c = 2 * i + 1;
            if c >= n {
                break;
            }
            if c + 1 < n && self.heap[c + 1].0 > self.heap[c].0 {
                c += 1;
            }
            if self.heap[c].0 <= e.0 {
                break;
            }
            self.heap[i] = self.heap[c];
            self.slot[self.heap[i].1 as usize] = i as u32;
            i = c;
        }
        self.heap[i] = e;
        self.slot[e.1 as usize] = i as u32;
    }
}

/// `a` and `b`, each sorted, merged into `out` (cleared first).
fn merge_into(a: &[u128], b: &[u128], out: &mut Vec<u128>) {
    out.clear();
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::waterfill::water_fill;

    /// The full water-fill of the same demands, as the scheduler's pass did it for all users:
    /// first up to min(demand, bound), then what is left over the LIMITSOFT users.
    fn full(e: &Entitlement, n: f64, soft: &[(u32, f64)]) -> Vec<f64> {
        let users = e.w.len();
        let cap: Vec<f64> = (0..users).map(|u| e.demand(u).min(e.bound[u])).collect();
        let mut a = water_fill(n, &e.w, &cap);
        let left = n - a.iter().sum::<f64>();
        if left > 1e-9 && !soft.is_empty() {
            let mut cap2 = vec![0.0; users];
            for &(u, b) in soft {
                let u = u as usize;
                cap2[u] = (e.demand(u).min(b) - a[u]).max(0.0);
            }
            for (x, m) in a.iter_mut().zip(water_fill(left, &e.w, &cap2)) {
                *x += m;
            }
        }
        a
    }

    /// Random sequences of passes (demand decays for all, grows for a few, shares reset now
    /// and then): the incremental fill gives every user what the full water-fill of the same
    /// demands gives, within 1e-9 processors per processor of capacity (different order of
    /// floating-point sums), and each demand follows the exponential smoothing
    /// `d <- (1 - a) d + a x` within 1e-9 relative plus 1e-9 processors (2^-36 quanta).
    #[test]
    fn incremental_fill_equals_the_full_water_fill() {
        let mut r = Rng::new(16);
        for case in 0..400u64 {
            let users = 1 + r.below(200) as usize;
            let n = 1.0 + r.below(64) as f64;
            let mut e = Entitlement::default();
            let (mut w, mut bound, mut soft) = (vec![], vec![], vec![]);
            let setup = |r: &mut Rng, w: &mut Vec<f64>, b: &mut Vec<f64>, s: &mut Vec<_>| {
                w.clear();
                b.clear();
                s.clear();
                for u in 0..users {
                    let nv = 1.0 + r.below(4) as f64;
                    w.push(match r.below(10) {
                        0 => 0.0,
                        1 => 1.0 / users as f64, // ties
                        _ => r.exp(1.0 / users as f64),
                    });
                    let max = if r.below(5) == 0 {
                        r.unit() * n
                    } else {
                        f64::INFINITY
                    };
                    b.push(nv.min(max));
                    if max.is_finite() && r.below(2) == 0 {
                        s.push((u as u32, nv));
                    }
                }
            };
            setup(&mut r, &mut w, &mut bound, &mut soft);
            e.set_users(&w, &bound, &soft);
            let mut want: Vec<f64> = vec![0.0; users];
            for (u, x) in want.iter_mut().enumerate() {
                *x = 1.0 + r.below(4) as f64;
                e.add(u, *x);
            }
            for pass in 0..60 {
                if r.below(25) == 0 {
                    setup(&mut r, &mut w, &mut bound, &mut soft);
                    e.set_users(&w, &bound, &soft);
                }
                let a = match r.below(4) {
                    0 => 0.9,
                    1 => 1.0 - 1e-9,
                    _ => r.unit(),
                };
                e.decay(1.0 - a);
                for x in want.iter_mut() {
                    *x *= 1.0 - a;
                }
                for _ in 0..r.below(users as u64 / 3 + 2) {
                    let u = r.below(users as u64) as usize;
                    let d = a * r.unit() * 3.0;
                    e.add(u, d);
                    want[u] += d;
                }
                e.fill(n);
                let f = full(&e, n, &soft);
                for u in 0..users {
                    let (got, exp) = (e.alloc(u), f[u]);
                    assert!(
                        (got - exp).abs() <= 1e-9 * n,
                        "case {case} pass {pass} user {u}: {got} vs {exp}"
                    );
                    if w[u] > 0.0 {
                        let err = (e.demand(u) - want[u]).abs();
                        assert!(
                            err <= 1e-9 * want[u] + 1e-9,
                            "case {case} demand {u}: {} vs {}",
                            e.demand(u),
                            want[u]
                        );
                    }
                }
                let sum: f64 = (0..users).map(|u| e.alloc(u)).sum();
                assert!(
                    sum <= n * (1.0 + 1e-9),
                    "case {case} pass {pass}: {sum} > {n}"
                );
            }
        }
    }
}
