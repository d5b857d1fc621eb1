//! Dispatch vectors: indexed 4-ary min-heaps of ready virtual CPUs (issue 16).
//!
//! Each vector orders its virtual CPUs by a key, (deadline, sequence) packed in one `u128`
//! (the sequence is unique, so the order is total). A virtual CPU has at most one entry in
//! all vectors: pushing it again moves its entry (in place when it stays on the same vector).
//!
//! The scheduler used to keep binary heaps with lazy deletion, where a push of a virtual CPU
//! already queued left its old entry behind as stale, skipped when popped; those stale
//! entries counted in a vector's length, and lengths decide behaviour (which vector a
//! processor steals from, whether an idle processor is woken). To keep every run identical,
//! the old key of a moved entry is kept as a *ghost* on its vector (a plain min-heap of keys):
//! `pop` returns ghosts and entries in one key order and `len` counts both, so a vector's
//! keys, length and pop order are exactly those of the lazy heap. Ghosts arise only when a
//! queued virtual CPU is queued again (a LIMITSOFT user's background period ends), so they
//! are rare and their heap is usually empty.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

const NONE: u32 = u32::MAX;

/// The key of an entry: deadline, then the scheduler's push sequence.
#[inline(always)]
pub fn key(deadline: u64, seq: u64) -> u128 {
    ((deadline as u128) << 64) | seq as u128
}

/// What `DispatchVectors::pop` took off a vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Popped {
    /// The entry of a virtual CPU (now off every vector).
    Entry(u32),
    /// The old key of an entry that was moved (nothing to dispatch).
    Ghost,
}

/// One vector: the heap (keys and their virtual CPUs side by side) and its ghosts.
#[derive(Clone, Debug, Default)]
struct Vector {
    keys: Vec<u128>,
    vcpu: Vec<u32>,
    ghosts: BinaryHeap<Reverse<u128>>,
}

#[derive(Clone, Debug, Default)]
pub struct DispatchVectors {
    vecs: Vec<Vector>,
    /// Per virtual CPU: its vector and its slot there (NONE: not queued).
    on: Vec<u32>,
    slot: Vec<u32>,
}

impl DispatchVectors {
    pub fn new(n: usize) -> Self {
        DispatchVectors {
            vecs: vec![Vector::default(); n],
            on: Vec::new(),
            slot: Vec::new(),
        }
    }

    /// Number of vectors.
    pub fn count(&self) -> usize {
        self.vecs.len()
    }

    /// Make `n` vectors (never fewer than now).
    pub fn resize(&mut self, n: usize) {
        if self.vecs.len() < n {
            self.vecs.resize_with(n, Vector::default);
        }
    }

    /// Entries and ghosts on vector `i` (the lazy heap's length).
    #[inline(always)]
    pub fn len(&self, i: usize) -> usize {
        let d = &self.vecs[i];
        d.keys.len() + d.ghosts.len()
    }

    #[inline(always)]
    pub fn is_empty(&self, i: usize) -> bool {
        let d = &self.vecs[i];
        d.keys.is_empty() && d.ghosts.is_empty()
    }

    pub fn total_len(&self) -> usize {
        (0..self.vecs.len()).map(|i| self.len(i)).sum()
    }

    pub fn all_empty(&self) -> bool {
        (0..self.vecs.len()).all(|i| self.is_empty(i))
    }

    /// Queue virtual CPU `v` on vector `i` with key `k`; an entry it already has elsewhere
    /// (or here) leaves its key behind as a ghost.
    #[inline]
    pub fn push(&mut self, i: usize, k: u128, v: u32) {
        let vu = v as usize;
        if vu >= self.on.len() {
            self.on.resize(vu + 1, NONE);
            self.slot.resize(vu + 1, NONE);
        }
        let from = self.on[vu];
        if from == NONE {
            let d = &mut self.vecs[i];
            let s = d.keys.len();
            d.keys.push(k);
            d.vcpu.push(v);
            self.on[vu] = i as u32;
            self.sift_up(i, s, k, v);
            return;
        }
        let s = self.slot[vu] as usize;
        let old = self.vecs[from as usize].keys[s];
        self.vecs[from as usize].ghosts.push(Reverse(old));
        if from as usize == i {
            self.resift(i, s, k, v);
        } else {
            self.remove_at(from as usize, s);
            self.push(i, k, v);
        }
    }

    /// `v` is queued no more through its entry (it went to a processor directly): its entry,
    /// if any, becomes a ghost.
    pub fn forget(&mut self, v: u32) {
        let vu = v as usize;
        if vu < self.on.len() && self.on[vu] != NONE {
            let (i, s) = (self.on[vu] as usize, self.slot[vu] as usize);
            let old = self.vecs[i].keys[s];
            self.vecs[i].ghosts.push(Reverse(old));
            self.remove_at(i, s);
        }
    }

    /// Take the smallest key off vector `i` (entry or ghost).
    #[inline]
    pub fn pop(&mut self, i: usize) -> Option<Popped> {
        let d = &mut self.vecs[i];
        let top = d.keys.first().copied();
        if let Some(&Reverse(g)) = d.ghosts.peek() {
            if top.is_none_or(|k| g < k) {
                d.ghosts.pop();
                return Some(Popped::Ghost);
            }
        }
        top?;
        let v = d.vcpu[0];
        self.remove_at(i, 0);
        Some(Popped::Entry(v))
    }

    /// Empty vector `i`: its entries in key order (ghosts are dropped).
    pub fn take(&mut self, i: usize) -> Vec<(u128, u32)> {
        let d = std::mem::take(&mut self.vecs[i]);
        let mut out: Vec<(u128, u32)> = d.keys.into_iter().zip(d.vcpu).collect();
        out.sort_unstable();
        for &(_, v) in &out {
            self.on[v as usize] = NONE;
            self.slot[v as usize] = NONE;
        }
        out
    }

    /// Remove the entry in slot `s` of vector `i`.
    #[inline]
    fn remove_at(&mut self, i: usize, s: usize) {
        let d = &mut self.vecs[i];
        let gone = d.vcpu[s];
        self.on[gone as usize] = NONE;
        self.slot[gone as usize] = NONE;
        let k = d.keys.pop().expect("entry");
        let v = d.vcpu.pop().expect("entry");
        if s < d.keys.len() {
            self.resift(i, s, k, v);
        }
    }

    /// Put (k, v) in slot `s` of vector `i` and move it up or down to its place.
    #[inline]
    fn resift(&mut self, i: usize, s: usize, k: u128, v: u32) {
        self.on[v as usize] = i as u32;
        if s > 0 && k < self.vecs[i].keys[(s - 1) >> 2] {
            self.sift_up(i, s, k, v);
        } else {
            self.sift_down(i, s, k, v);
        }
    }

    #[inline(always)]
    fn place(&mut self, i: usize, s: usize, k: u128, v: u32) {
        let d = &mut self.vecs[i];
        d.keys[s] = k;
        d.vcpu[s] = v;
        self.slot[v as usize] = s as u32;
    }

    fn sift_up(&mut self, i: usize, mut s: usize, k: u128, v: u32) {
        while s > 0 {
            let p = (s - 1) >> 2;
            let (pk, pv) = (self.vecs[i].keys[p], self.vecs[i].vcpu[p]);
            if pk <= k {
                break;
            }
            self.place(i, s, pk, pv);
            s = p;
        }
        self.place(i, s, k, v);
    }

    fn sift_down(&mut self, i: usize, mut s: usize, k: u128, v: u32) {
        let n = self.vecs[i].keys.len();
        loop {
            let c0 = (s << 2) + 1;
            if c0 >= n {
                break;
            }
            let keys = &self.vecs[i].keys;
            let mut m = c0;
            for c in c0 + 1..(c0 + 4).min(n) {
                if keys[c] < keys[m] {
                    m = c;
                }
            }
            let (mk, mv) = (keys[m], self.vecs[i].vcpu[m]);
            if mk >= k {
                break;
            }
            self.place(i, s, mk, mv);
            s = m;
        }
        self.place(i, s, k, v);
    }

    /// Heap order and index agree (tests).
    pub fn check(&self) -> bool {
        for (i, d) in self.vecs.iter().enumerate() {
            for s in 1..d.keys.len() {
                if d.keys[(s - 1) / 4] > d.keys[s] {
                    return false;
                }
            }
            for (s, &v) in d.vcpu.iter().enumerate() {
                if self.on[v as usize] != i as u32 || self.slot[v as usize] != s as u32 {
                    return false;
                }
            }
        }
        let queued = self.on.iter().filter(|&&o| o != NONE).count();
        queued == self.vecs.iter().map(|d| d.keys.len()).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The lazy-deletion heaps the vectors replace: every push adds an entry; an entry is
    /// live while it is its virtual CPU's latest push.
    #[derive(Default)]
    struct Lazy {
        heaps: Vec<BinaryHeap<Reverse<(u128, u32)>>>,
        latest: std::collections::HashMap<u32, u128>,
    }

    impl Lazy {
        fn pop(&mut self, i: usize) -> Option<Popped> {
            let Reverse((k, v)) = self.heaps[i].pop()?;
            if self.latest.get(&v) == Some(&k) {
                self.latest.remove(&v);
                Some(Popped::Entry(v))
            } else {
                Some(Popped::Ghost)
            }
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Push(usize, u64, u32),
        Pop(usize),
        Forget(u32),
        Take(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0usize..3, 0u64..20, 0u32..12).prop_map(|(i, d, v)| Op::Push(i, d, v)),
            3 => (0usize..3).prop_map(Op::Pop),
            1 => (0u32..12).prop_map(Op::Forget),
            1 => (0usize..3).prop_map(Op::Take),
        ]
    }

    proptest! {
        /// Same pops (entry or ghost, and which virtual CPU) and same lengths as lazy
        /// deletion, on random pushes, re-pushes across vectors, pops, forgets and takes.
        #[test]
        fn matches_lazy_deletion(ops in proptest::collection::vec(op(), 1..300)) {
            let mut dv = DispatchVectors::new(3);
            let mut lazy = Lazy { heaps: vec![BinaryHeap::new(); 3], ..Default::default() };
            let mut seq = 0u64;
            for o in ops {
                match o {
                    Op::Push(i, d, v) => {
                        seq += 1;
                        let k = key(d, seq);
                        dv.push(i, k, v);
                        lazy.heaps[i].push(Reverse((k, v)));
                        lazy.latest.insert(v, k);
                    }
                    Op::Pop(i) => prop_assert_eq!(dv.pop(i), lazy.pop(i)),
                    Op::Forget(v) => {
                        dv.forget(v);
                        lazy.latest.remove(&v);
                    }
                    Op::Take(i) => {
                        let got = dv.take(i);
                        let mut want: Vec<(u128, u32)> = std::mem::take(&mut lazy.heaps[i])
                            .into_iter()
                            .map(|Reverse(e)| e)
                            .filter(|(k, v)| lazy.latest.get(v) == Some(k))
                            .collect();
                        want.sort_unstable();
                        for (_, v) in &want {
                            lazy.latest.remove(v);
                        }
                        prop_assert_eq!(got, want);
                    }
                }
                prop_assert!(dv.check());
                for i in 0..3 {
                    prop_assert_eq!(dv.len(i), lazy.heaps[i].len());
                }
            }
        }
    }
}
