//! The event queue: an indexed 4-ary min-heap with one slot per entity.
//!
//! Every entity (logical processor, virtual CPU, device, the monitor, ...) has at most one
//! pending event, its *next* event, so the pending set stays as small as the number of active
//! entities. Rescheduling an entity moves its slot in place (one sift), which is the cheap
//! "replace top" when the entity that just fired schedules its own next event.
//! Ties in time are broken by scheduling order (FIFO), which keeps runs deterministic.
//!
//! Handoff (replace-top across entities): while an event is handled its entity's slot is the
//! top of the heap. If the handler schedules another entity that had no pending event before
//! it touched the firing entity's own, that entity takes the top slot (one sift down) instead
//! of an insert now and a removal of the fired event at the end; the fired entity keeps its
//! key aside and still counts as scheduled until the handler ends (a virtual CPU's think time
//! handed over to the processor's run end, and back). Keys are unique (time, sequence), so the
//! pop order, and every run, is the same whatever the heap's shape.
//!
//! A heap slot is one `u128`: time (64 bits) | scheduling sequence (32 bits) | entity (32 bits),
//! so one integer comparison orders by (time, FIFO) and four children share a cache line. When
//! the 32-bit sequence would wrap, the pending events are renumbered in order (no change of
//! behaviour, O(n log n) once every 4 billion schedules).

/// Simulated time in nanoseconds (defined with the scenario contract, whose durations are in it).
pub use crate::contract::Time;

const NONE: u32 = u32::MAX;
const ENT_MASK: u128 = 0xFFFF_FFFF;

#[inline(always)]
fn pack(t: Time, seq: u32, e: u32) -> u128 {
    ((t as u128) << 64) | ((seq as u128) << 32) | e as u128
}

#[inline(always)]
fn ent_of(k: u128) -> u32 {
    (k & ENT_MASK) as u32
}

#[derive(Clone, Debug, Default)]
pub struct EventQueue {
    /// The heap: packed (time, seq, entity) per slot.
    heap: Vec<u128>,
    /// Heap slot per entity, NONE when the entity has no pending event.
    pos: Vec<u32>,
    seq: u32,
    /// The entity whose event is being handled (see `begin_fire`), or NONE.
    firing: u32,
    /// The firing entity's event during its handler (`Fired`), and its key.
    fired: Fired,
    fired_key: u128,
}

/// Where the firing entity's event is while it is handled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Fired {
    /// In the top slot: `end_fire` removes it.
    #[default]
    AtTop,
    /// The handler scheduled or cancelled the entity: nothing left to do.
    Moved,
    /// Its slot went to another entity: out of the heap, still pending until `end_fire`.
    HandedOff,
}

impl EventQueue {
    pub fn with_entities(n: usize) -> Self {
        EventQueue {
            heap: Vec::with_capacity(n),
            pos: vec![NONE; n],
            seq: 0,
            firing: NONE,
            fired: Fired::AtTop,
            fired_key: 0,
        }
    }

    /// Make room for entity ids below `n`.
    pub fn grow(&mut self, n: usize) {
        if self.pos.len() < n {
            self.pos.resize(n, NONE);
        }
    }

    #[inline(always)]
    fn handed_off(&self) -> bool {
        self.fired == Fired::HandedOff
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.heap.len() + self.handed_off() as usize
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Earliest pending event: (time, entity).
    #[inline(always)]
    pub fn peek(&self) -> Option<(Time, u32)> {
        if self.handed_off() {
            return Some(((self.fired_key >> 64) as Time, self.firing));
        }
        self.heap.first().map(|&k| ((k >> 64) as Time, ent_of(k)))
    }

    /// Start handling the earliest event: returns it and remembers its entity. Unless the
    /// handler schedules or cancels that entity's next event, `end_fire` removes it.
    #[inline(always)]
    pub fn begin_fire(&mut self) -> Option<(Time, u32)> {
        let top = self.peek()?;
        self.firing = top.1;
        self.fired = Fired::AtTop;
        Some(top)
    }

    /// Finish handling the event returned by `begin_fire`.
    #[inline(always)]
    pub fn end_fire(&mut self) {
        let e = self.firing;
        if e != NONE && self.fired == Fired::AtTop {
            self.cancel(e);
        }
        self.firing = NONE;
        self.fired = Fired::AtTop;
    }

    /// The full ordering key of the pending event of `e`.
    #[inline(always)]
    pub fn key_of(&self, e: u32) -> Option<u128> {
        if e == self.firing && self.handed_off() {
            return Some(self.fired_key);
        }
        let p = self.pos[e as usize];
        if p == NONE {
            None
        } else {
            Some(self.heap[p as usize])
        }
    }

    #[inline(always)]
    pub fn time_of(&self, e: u32) -> Option<Time> {
        self.key_of(e).map(|k| (k >> 64) as Time)
    }

    #[inline(always)]
    pub fn is_scheduled(&self, e: u32) -> bool {
        self.key_of(e).is_some()
    }

    #[inline(always)]
    fn next_seq(&mut self) -> u32 {
        if self.seq == u32::MAX {
            self.renumber();
        }
        self.seq += 1;
        self.seq
    }

    /// Renumber the pending events' sequence numbers 1..n in their current order.
    #[cold]
    fn renumber(&mut self) {
        self.heap.sort_unstable();
        for (i, k) in self.heap.iter_mut().enumerate() {
            let t = (*k >> 64) as Time;
            *k = pack(t, i as u32 + 1, ent_of(*k));
        }
        // A sorted array is a heap.
        for (i, &k) in self.heap.iter().enumerate() {
            self.pos[ent_of(k) as usize] = i as u32;
        }
        self.seq = self.heap.len() as u32;
        // A handed-off fired event stays first: sequence 0 at its time.
        self.fired_key = pack((self.fired_key >> 64) as Time, 0, ent_of(self.fired_key));
    }

    /// Set (or move) the next event of entity `e` to time `t`.
    #[inline]
    pub fn schedule(&mut self, e: u32, t: Time) {
        let k = pack(t, self.next_seq(), e);
        let p = self.pos[e as usize];
        if e == self.firing {
            self.fired = Fired::Moved;
        } else if p == NONE && self.fired == Fired::AtTop && self.firing != NONE && k > self.heap[0]
        {
            // Not earlier than the fired event (always, as no event is scheduled in the past).
            self.hand_off(k);
            return;
        }
        if p == NONE {
            let i = self.heap.len();
            self.heap.push(k);
            self.sift_up(i, k);
        } else {
            let i = p as usize;
            if k < self.heap[i] {
                self.sift_up(i, k);
            } else {
                self.sift_down(i, k);
            }
        }
    }

    /// The firing entity's top slot goes to the new key `k` of an entity with no pending event.
    #[inline(always)]
    fn hand_off(&mut self, k: u128) {
        self.fired_key = self.heap[0];
        self.pos[self.firing as usize] = NONE;
        self.fired = Fired::HandedOff;
        self.sift_down(0, k);
    }

    /// Remove the pending event of `e`, if any.
    #[inline]
    pub fn cancel(&mut self, e: u32) {
        if e == self.firing {
            self.fired = Fired::Moved;
        }
        let p = self.pos[e as usize];
        if p == NONE {
            return;
        }
        self.pos[e as usize] = NONE;
        let i = p as usize;
        let last = self.heap.pop().unwrap();
        if i == self.heap.len() {
            return;
        }
        if last < self.heap[i] {
            self.sift_up(i, last);
        } else {
            self.sift_down(i, last);
        }
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, u32)> {
        let top = self.peek()?;
        self.cancel(top.1);
        Some(top)
    }

    #[inline(always)]
    fn place(&mut self, i: usize, k: u128) {
        // SAFETY: callers pass i < heap.len(), and every entity id in the heap is < pos.len()
        // (schedule indexes pos[e] before inserting e).
        unsafe {
            *self.heap.get_unchecked_mut(i) = k;
            *self.pos.get_unchecked_mut(ent_of(k) as usize) = i as u32;
        }
    }

    #[inline(always)]
    fn sift_up(&mut self, mut i: usize, k: u128) {
        while i > 0 {
            let p = (i - 1) >> 2;
            // SAFETY: p < i < heap.len().
            let pk = unsafe { *self.heap.get_unchecked(p) };
            if pk <= k {
                break;
            }
            self.place(i, pk);
            i = p;
        }
        self.place(i, k);
    }

    /// The slot of the smallest of the children `c0..` (up to four, those below `n`). Only
    /// indices are carried between the comparisons (the keys are reloaded from the L1): two
    /// 128-bit keys per pair would not fit the registers beside the loop's state.
    ///
    /// # Safety
    /// `c0 < n <= heap.len()`.
    #[inline(always)]
    unsafe fn min_child(&self, c0: usize, n: usize) -> usize {
        let h = self.heap.as_ptr();
        let at = |i: usize| *h.add(i);
        if c0 + 3 < n {
            let i1 = c0 + (at(c0 + 1) < at(c0)) as usize;
            let i2 = c0 + 2 + (at(c0 + 3) < at(c0 + 2)) as usize;
            return if at(i2) < at(i1) { i2 } else { i1 };
        }
        let mut m = c0;
        for c in c0 + 1..n {
            if at(c) < at(m) {
                m = c;
            }
        }
        m
    }

    /// Move `k` down from slot `i`: walk the hole down along the smallest children to a leaf
    /// (three comparisons per level, none against `k`), then sift `k` up from there. The new
    /// key usually belongs near the bottom (a later event), so this beats the classic loop.
    #[inline(always)]
    fn sift_down(&mut self, mut i: usize, k: u128) {
        let n = self.heap.len();
        let start = i;
        loop {
            let c0 = (i << 2) + 1;
            if c0 >= n {
                break;
            }
            // SAFETY: c0 < n, and every c read below is < n.
            let m = unsafe { self.min_child(c0, n) };
            // SAFETY: m < n.
            self.place(i, unsafe { *self.heap.get_unchecked(m) });
            i = m;
        }
        // The hole is at leaf i: sift k up, but not above where it started.
        while i > start {
            let p = (i - 1) >> 2;
            // SAFETY: p < i < n.
            let pk = unsafe { *self.heap.get_unchecked(p) };
            if pk <= k {
                break;
            }
            self.place(i, pk);
            i = p;
        }
        self.place(i, k);
    }

    /// Check the heap invariant and the index (tests).
    pub fn check(&self) -> bool {
        if self.handed_off()
            && (self.pos[self.firing as usize] != NONE
                || self.heap.first().is_some_and(|&k| k < self.fired_key))
        {
            return false;
        }
        for i in 1..self.heap.len() {
            if self.heap[(i - 1) / 4] > self.heap[i] {
                return false;
            }
        }
        for (i, &k) in self.heap.iter().enumerate() {
            if self.pos[ent_of(k) as usize] != i as u32 {
                return false;
            }
        }
        self.pos.iter().filter(|&&p| p != NONE).count() == self.heap.len()
    }

    /// Test hook: jump the sequence counter (to exercise renumbering).
    #[doc(hidden)]
    pub fn set_seq_for_test(&mut self, s: u32) {
        self.seq = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Sched(u32, u64),
        Cancel(u32),
        Pop,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u32..40, 0u64..1000).prop_map(|(e, t)| Op::Sched(e, t)),
            (0u32..40).prop_map(Op::Cancel),
            Just(Op::Pop),
        ]
    }

    proptest! {
        /// The indexed heap behaves like a reference model: a map entity -> (time, seq),
        /// popped in (time, seq) order.
        #[test]
        fn matches_reference_model(ops in proptest::collection::vec(op(), 1..400)) {
            let mut q = EventQueue::with_entities(40);
            let mut model: std::collections::BTreeMap<u32, (u64, u64)> = Default::default();
            let mut seq = 0u64;
            for o in ops {
                match o {
                    Op::Sched(e, t) => { seq += 1; model.insert(e, (t, seq)); q.schedule(e, t); }
                    Op::Cancel(e) => { model.remove(&e); q.cancel(e); }
                    Op::Pop => {
                        let want = model.iter().min_by_key(|(_, v)| **v).map(|(e, v)| (v.0, *e));
                        let got = q.pop();
                        prop_assert_eq!(got, want);
                        if let Some((_, e)) = want { model.remove(&e); }
                    }
                }
                prop_assert!(q.check());
                prop_assert_eq!(q.len(), model.len());
            }
        }
    }

    /// What a handler does while its event fires: schedule another entity `dt` from now,
    /// cancel another entity, reschedule itself `dt` from now, or cancel itself.
    #[derive(Debug, Clone)]
    enum H {
        Other(u32, u64),
        CancelOther(u32),
        Again(u64),
        Stop,
    }

    fn handler_op() -> impl Strategy<Value = H> {
        prop_oneof![
            3 => (0u32..20, 0u64..50).prop_map(|(e, d)| H::Other(e, d)),
            1 => (0u32..20).prop_map(H::CancelOther),
            2 => (0u64..50).prop_map(H::Again),
            1 => Just(H::Stop),
        ]
    }

    proptest! {
        /// begin_fire/end_fire: the fired entity is removed unless its handler rescheduled or
        /// cancelled it, and it counts as scheduled (with its key) until then even when its
        /// slot was handed to another entity; sequence renumbering near the wrap keeps FIFO
        /// order.
        #[test]
        fn fire_protocol_and_renumbering(
            ops in proptest::collection::vec(
                (0u32..20, 0u64..50, proptest::collection::vec(handler_op(), 0..4)), 1..300),
            start_seq in prop::sample::select(vec![0u32, u32::MAX - 40])) {
            let mut q = EventQueue::with_entities(20);
            q.set_seq_for_test(start_seq);
            let mut model: std::collections::BTreeMap<u32, (u64, u64)> = Default::default();
            let mut seq = 0u64;
            for (e, t, handler) in ops {
                seq += 1;
                model.insert(e, (t, seq));
                q.schedule(e, t);
                let want = model.iter().min_by_key(|(_, v)| **v).map(|(e, v)| (v.0, *e)).unwrap();
                let got = q.begin_fire().unwrap();
                prop_assert_eq!(got, want);
                let (now, me) = got;
                let mut moved = false;
                for h in handler {
                    match h {
                        H::Other(o, d) if o != me => {
                            seq += 1;
                            model.insert(o, (now + d, seq));
                            q.schedule(o, now + d);
                        }
                        H::CancelOther(o) if o != me => { model.remove(&o); q.cancel(o); }
                        H::Again(d) => {
                            seq += 1;
                            moved = true;
                            model.insert(me, (now + d, seq));
                            q.schedule(me, now + d);
                        }
                        H::Stop => { moved = true; model.remove(&me); q.cancel(me); }
                        _ => {}
                    }
                    prop_assert!(q.check());
                    prop_assert_eq!(q.len(), model.len());
                    prop_assert_eq!(q.time_of(me), model.get(&me).map(|v| v.0));
                    let first = model.iter().min_by_key(|(_, v)| **v).map(|(e, v)| (v.0, *e));
                    prop_assert_eq!(q.peek(), first);
                }
                if !moved {
                    model.remove(&me);
                }
                q.end_fire();
                prop_assert!(q.check());
                prop_assert_eq!(q.len(), model.len());
            }
        }
    }

    #[test]
    fn fifo_among_equal_times() {
        let mut q = EventQueue::with_entities(5);
        for e in [3, 1, 4, 0, 2] {
            q.schedule(e, 10);
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|x| x.1)).collect();
        assert_eq!(order, vec![3, 1, 4, 0, 2]);
    }
}
