//! The event queue: a small indexed 4-ary min-heap for the near events and a bucketed far
//! tier for the rest, one slot per entity.
//!
//! Every entity (logical processor, virtual CPU, device, the monitor, ...) has at most one
//! pending event, its *next* event, so the pending set stays as small as the number of active
//! entities. Ties in time are broken by scheduling order (FIFO), which keeps runs deterministic.
//!
//! Two tiers (issue 16: cost per event flat in the number of guests). The heap holds every
//! pending event before `boundary`, the far tier every one at or after it; so the heap's top
//! is the earliest event, and the heap stays small (the events of one bucket, about a dozen,
//! and those scheduled nearer than the boundary) however many guests' think times are pending.
//! The far tier is a ring of `NB` unsorted buckets of width 2^shift ns (bucket `b` covers
//! `[base + b << shift, base + (b + 1) << shift)`; the ring holds buckets `cb .. cb + NB`, `cb`
//! being the boundary's bucket) and an unsorted overflow list for the events beyond the ring.
//! When the heap runs empty, the next nonempty bucket (a bitmap finds it) is moved into the
//! heap and the boundary moves past it. The overflow is scanned once per epoch (each time the
//! boundary crosses a multiple of `NB` buckets), its events within the ring's reach moved into
//! their buckets. The width adapts at each epoch (halved when the drained buckets held more
//! than 16 events on average, doubled when they held fewer than 4 while the overflow holds more
//! events than the ring) and is halved before a bucket of more than 64 events spread over at
//! least half its width is drained (every event re-bucketed: O(n), rare). An event's position
//! (heap slot, or bucket and index) is kept per entity, so cancel is O(1) in the far tier
//! (swap-remove) and a sift in the heap. The far tier is in use only while there are many
//! pending events: it comes into use when the heap grows beyond `FAR_ON` (128) events, and
//! goes out of use (its events back to the heap) when fewer than `FAR_OFF` (64) are left in
//! it; below that the heap is at most four levels below its top, and an entity's next event
//! moved in place (a processor's, Apache's pattern) costs less than a trip through a bucket.
//!
//! Handoff (replace-top across entities): while an event is handled its entity's slot is the
//! top of the heap. If the handler schedules another entity that had no pending event before
//! it touched the firing entity's own, for a time before the boundary, that entity takes the
//! top slot (one sift down) instead of an insert now and a removal of the fired event at the
//! end; the fired entity keeps its key aside and still counts as scheduled until the handler
//! ends (a virtual CPU's think time handed over to the processor's run end, and back). Keys are
//! unique (time, sequence), so the pop order, and every run, is the same whatever the heap's
//! shape and whichever tier an event waits in.
//!
//! A slot is one `u128`: time (64 bits) | scheduling sequence (32 bits) | entity (32 bits), so
//! one integer comparison orders by (time, FIFO) and four children share a cache line. When
//! the 32-bit sequence would wrap, the pending events are renumbered in order (no change of
//! behaviour, O(n log n) once every 4 billion schedules).

/// Simulated time in nanoseconds (defined with the scenario contract, whose durations are in it).
pub use crate::contract::Time;

const NONE: u32 = u32::MAX;
const ENT_MASK: u128 = 0xFFFF_FFFF;

/// Buckets in the far tier's ring (a power of two, a multiple of 64).
const NB: usize = 256;
const NB64: u64 = NB as u64;
/// A far event's position: `FAR | bucket << IDX_BITS | index`; bucket `NB` is the overflow.
const FAR: u32 = 1 << 31;
const IDX_BITS: u32 = 22;
const IDX_MASK: u32 = (1 << IDX_BITS) - 1;
/// From this many entities on there is no far tier (every event waits in the heap).
const MAX_FAR_ENTITIES: usize = 1 << IDX_BITS;
/// The far tier comes into use when the heap grows beyond `FAR_ON` events, and out of use
/// when fewer than `FAR_OFF` are left in it: a heap of up to 85 events is three levels below
/// its top, and its in-place moves (an entity's next event moved, as a processor's) are
/// cheaper there than a trip through a bucket.
const FAR_ON: usize = 128;
const FAR_OFF: usize = 64;
/// The initial bucket width, 2^18 ns (262 us); it adapts.
const INIT_SHIFT: u32 = 18;
const MAX_SHIFT: u32 = 56;
/// A bucket of more events than this is split (width halved) before it is drained.
const SPLIT: usize = 64;

#[inline(always)]
fn pack(t: Time, seq: u32, e: u32) -> u128 {
    ((t as u128) << 64) | ((seq as u128) << 32) | e as u128
}

#[inline(always)]
fn ent_of(k: u128) -> u32 {
    (k & ENT_MASK) as u32
}

#[inline(always)]
fn time_of_key(k: u128) -> Time {
    (k >> 64) as Time
}

/// The bucket and index of far position `p`.
#[inline(always)]
fn far_slot(p: u32) -> (usize, usize) {
    (((p & !FAR) >> IDX_BITS) as usize, (p & IDX_MASK) as usize)
}

#[derive(Clone, Debug)]
pub struct EventQueue {
    /// The heap: packed (time, seq, entity) per slot, every one before `boundary`.
    heap: Vec<u128>,
    /// Heap slot per entity, or its far position (`FAR | ...`), NONE when the entity has no
    /// pending event.
    pos: Vec<u32>,
    seq: u32,
    /// The entity whose event is being handled (see `begin_fire`), or NONE.
    firing: u32,
    /// The firing entity's event during its handler (`Fired`), and its key.
    fired: Fired,
    fired_key: u128,
    /// Events before this time are in the heap, the others in the far tier (`Time::MAX`: the
    /// far tier is not in use, every event is in the heap).
    boundary: Time,
    /// Boxed: the engine's state keeps its layout (the far tier's fields are read only when
    /// it is in use).
    far: Box<Far>,
    /// The far tier's thresholds (`FAR_ON`, `FAR_OFF`; 0 in tests that keep it in use;
    /// `usize::MAX` when there are too many entities for it).
    far_on_above: usize,
    far_off_below: usize,
}

/// The far tier: a ring of buckets and an overflow list (see the module comment).
#[derive(Clone, Debug)]
struct Far {
    /// `NB` ring buckets, then the overflow list.
    buckets: Vec<Vec<u128>>,
    /// Bit per nonempty ring bucket (the last word holds the overflow's, never read).
    bits: [u64; NB / 64 + 1],
    /// Events in the far tier.
    len: usize,
    /// Bucket `b` starts at `base + b << shift`.
    base: Time,
    shift: u32,
    /// The boundary's bucket: `boundary == base + cb << shift`.
    cb: u64,
    /// Events and nonempty buckets drained into the heap in this epoch (to adapt the width).
    drained: u64,
    drained_buckets: u64,
    /// Kept between rebuilds.
    scratch: Vec<u128>,
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

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue::with_entities(0)
    }
}

impl EventQueue {
    pub fn with_entities(n: usize) -> Self {
        let mut q = EventQueue {
            heap: Vec::with_capacity(n.min(1024)),
            pos: vec![NONE; n],
            seq: 0,
            firing: NONE,
            fired: Fired::AtTop,
            fired_key: 0,
            boundary: Time::MAX,
            far_on_above: FAR_ON,
            far_off_below: FAR_OFF,
            far: Box::new(Far {
                buckets: vec![Vec::new(); NB + 1],
                bits: [0; NB / 64 + 1],
                len: 0,
                base: 0,
                shift: INIT_SHIFT,
                cb: 0,
                drained: 0,
                drained_buckets: 0,
                scratch: Vec::new(),
            }),
        };
        if n > MAX_FAR_ENTITIES {
            q.far_on_above = usize::MAX;
        }
        q
    }

    /// Make room for entity ids below `n`.
    pub fn grow(&mut self, n: usize) {
        if self.pos.len() < n {
            self.pos.resize(n, NONE);
        }
        if n > MAX_FAR_ENTITIES {
            // Too many entities for a far position: every event to the heap, for good.
            self.far_on_above = usize::MAX;
            self.far_off_below = 0;
            if self.boundary != Time::MAX {
                self.far_stop();
            }
        }
    }

    #[inline(always)]
    fn handed_off(&self) -> bool {
        self.fired == Fired::HandedOff
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.heap.len() + self.far.len + self.handed_off() as usize
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Earliest pending event: (time, entity).
    #[inline(always)]
    pub fn peek(&self) -> Option<(Time, u32)> {
        if self.handed_off() {
            return Some((time_of_key(self.fired_key), self.firing));
        }
        // The heap is empty only when the far tier is too (`refill`).
        self.heap.first().map(|&k| (time_of_key(k), ent_of(k)))
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
        } else if p & FAR == 0 {
            Some(self.heap[p as usize])
        } else {
            let (slot, i) = far_slot(p);
            Some(self.far.buckets[slot][i])
        }
    }

    #[inline(always)]
    pub fn time_of(&self, e: u32) -> Option<Time> {
        self.key_of(e).map(time_of_key)
    }

    #[inline(always)]
    pub fn is_scheduled(&self, e: u32) -> bool {
        self.pos[e as usize] != NONE || (e == self.firing && self.handed_off())
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
        let mut all = std::mem::take(&mut self.far.scratch);
        all.clear();
        all.append(&mut self.heap);
        self.far_take_all(&mut all);
        all.sort_unstable();
        for (i, k) in all.iter_mut().enumerate() {
            *k = pack(time_of_key(*k), i as u32 + 1, ent_of(*k));
        }
        self.seq = all.len() as u32;
        // The events before the boundary, a sorted prefix, are the heap (a sorted array is a
        // heap); the others go back to the far tier, bucketed from the boundary.
        let b = self.boundary;
        let near = all.partition_point(|&k| time_of_key(k) < b || b == Time::MAX);
        for &k in &all[..near] {
            let i = self.heap.len();
            self.heap.push(k);
            self.pos[ent_of(k) as usize] = i as u32;
        }
        self.far_reset(self.far.shift);
        for &k in &all[near..] {
            self.far_insert(k);
        }
        self.far.scratch = all;
        if self.heap.is_empty() && self.far.len > 0 {
            self.refill();
        }
        // A handed-off fired event stays first: sequence 0 at its time.
        self.fired_key = pack(time_of_key(self.fired_key), 0, ent_of(self.fired_key));
    }

    /// Set (or move) the next event of entity `e` to time `t`.
    #[inline(always)]
    pub fn schedule(&mut self, e: u32, t: Time) {
        let k = pack(t, self.next_seq(), e);
        if self.boundary == Time::MAX {
            self.schedule_in_heap(e, k);
        } else {
            self.schedule_in_tiers(e, k);
        }
    }

    /// `schedule` while the far tier is not in use: the indexed heap alone.
    #[inline(never)]
    fn schedule_in_heap(&mut self, e: u32, k: u128) {
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
            self.heap_push(k);
            if self.heap.len() > self.far_on_above {
                self.far_start();
            }
        } else {
            let i = p as usize;
            if k < self.heap[i] {
                self.sift_up(i, k);
            } else {
                self.sift_down(i, k);
            }
        }
    }

    /// `schedule` while the far tier is in use.
    #[inline(never)]
    fn schedule_in_tiers(&mut self, e: u32, k: u128) {
        let p = self.pos[e as usize];
        let near = time_of_key(k) < self.boundary;
        if e == self.firing {
            self.fired = Fired::Moved;
        } else if p == NONE
            && self.fired == Fired::AtTop
            && self.firing != NONE
            && near
            && k > self.heap[0]
        {
            self.hand_off(k);
            return;
        }
        if p == NONE {
            if near {
                self.heap_push(k);
            } else {
                self.far_insert(k);
                if self.heap.is_empty() {
                    self.refill();
                }
            }
        } else if p & FAR == 0 {
            let i = p as usize;
            if near {
                if k < self.heap[i] {
                    self.sift_up(i, k);
                } else {
                    self.sift_down(i, k);
                }
            } else {
                self.heap_remove(i);
                self.far_insert(k);
                if self.heap.is_empty() {
                    self.refill();
                }
            }
        } else {
            // From the far tier (the heap is not empty: it holds the earlier events).
            self.far_remove(p);
            if near {
                self.heap_push(k);
            } else {
                self.far_insert(k);
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
        if p & FAR != 0 {
            self.far_remove(p);
            return;
        }
        let i = p as usize;
        self.heap_remove(i);
        if i == 0 && self.heap.is_empty() && self.far.len > 0 {
            self.refill();
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
    fn heap_push(&mut self, k: u128) {
        let i = self.heap.len();
        self.heap.push(k);
        self.sift_up(i, k);
    }

    /// Remove heap slot `i` (its entity's position is the caller's business).
    #[inline(always)]
    fn heap_remove(&mut self, i: usize) {
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

    // ---- the far tier ----

    /// Put `k` (at or after the boundary) in its ring bucket or the overflow.
    #[inline]
    fn far_insert(&mut self, k: u128) {
        let b = (time_of_key(k) - self.far.base) >> self.far.shift;
        let slot = if b.wrapping_sub(self.far.cb) < NB64 {
            b as usize & (NB - 1)
        } else {
            NB
        };
        self.far_push(slot, k);
    }

    #[inline(always)]
    fn far_push(&mut self, slot: usize, k: u128) {
        let v = &mut self.far.buckets[slot];
        let i = v.len();
        v.push(k);
        self.pos[ent_of(k) as usize] = FAR | (slot as u32) << IDX_BITS | i as u32;
        self.far.bits[slot / 64] |= 1 << (slot % 64);
        self.far.len += 1;
    }

    /// Remove the far event at position `p` (swap-remove; the moved event's position follows).
    #[inline]
    fn far_remove(&mut self, p: u32) {
        let (slot, i) = far_slot(p);
        let v = &mut self.far.buckets[slot];
        let last = v.pop().unwrap();
        if i < v.len() {
            v[i] = last;
            self.pos[ent_of(last) as usize] = p;
        } else if v.is_empty() {
            self.far.bits[slot / 64] &= !(1 << (slot % 64));
        }
        self.far.len -= 1;
    }

    /// Move every far event into `all` (their positions are the caller's business).
    fn far_take_all(&mut self, all: &mut Vec<u128>) {
        for v in self.far.buckets.iter_mut() {
            all.append(v);
        }
        self.far.bits = [0; NB / 64 + 1];
        self.far.len = 0;
    }

    /// An empty far tier bucketed from the boundary with width 2^shift.
    fn far_reset(&mut self, shift: u32) {
        debug_assert_eq!(self.far.len, 0);
        self.far.shift = shift;
        self.far.base = self.boundary;
        self.far.cb = 0;
        self.far.drained = 0;
        self.far.drained_buckets = 0;
    }

    /// Bring the far tier into use: every event goes to it, bucketed from the earliest one, and
    /// the first bucket comes back to the heap.
    #[cold]
    #[inline(never)]
    fn far_start(&mut self) {
        let mut all = std::mem::take(&mut self.far.scratch);
        all.clear();
        all.append(&mut self.heap);
        self.boundary = all.iter().map(|&k| time_of_key(k)).min().unwrap_or(0);
        self.far_reset(self.far.shift);
        for &k in &all {
            self.far_insert(k);
        }
        self.far.scratch = all;
        if self.far.len > 0 {
            self.refill();
        }
    }

    /// Put the far tier out of use: its events go to the heap.
    #[cold]
    #[inline(never)]
    fn far_stop(&mut self) {
        let mut all = std::mem::take(&mut self.far.scratch);
        all.clear();
        self.far_take_all(&mut all);
        self.boundary = Time::MAX;
        for &k in &all {
            self.heap_push(k);
        }
        self.far.scratch = all;
    }

    /// Re-bucket every far event with width 2^shift, from the boundary.
    #[cold]
    fn rebuild(&mut self, shift: u32) {
        let mut all = std::mem::take(&mut self.far.scratch);
        all.clear();
        self.far_take_all(&mut all);
        self.far_reset(shift);
        for &k in &all {
            self.far_insert(k);
        }
        self.far.scratch = all;
    }

    /// Move the boundary to the start of bucket `cb` (the buckets before it are empty).
    #[inline]
    fn set_cursor(&mut self, cb: u64) {
        self.far.cb = cb;
        let b = self.far.base as u128 + ((cb as u128) << self.far.shift);
        // At the end of time (the far tier is empty then) the far tier goes out of use.
        self.boundary = b.min(Time::MAX as u128) as Time;
    }

    /// Distance from the boundary's bucket to the first nonempty ring bucket (the ring must
    /// hold an event).
    #[inline]
    fn next_nonempty(&self) -> u64 {
        let s = self.far.cb as usize & (NB - 1);
        let (w0, b0) = (s / 64, s % 64);
        let m = self.far.bits[w0] & (!0u64 << b0);
        if m != 0 {
            return (w0 * 64 + m.trailing_zeros() as usize - s) as u64;
        }
        for j in 1..=NB / 64 {
            let w = (w0 + j) % (NB / 64);
            let mut m = self.far.bits[w];
            if j == NB / 64 {
                m &= !(!0u64 << b0);
            }
            if m != 0 {
                let slot = w * 64 + m.trailing_zeros() as usize;
                return ((slot + NB - s) % NB) as u64;
            }
        }
        unreachable!("next_nonempty on an empty ring")
    }

    /// The boundary is at an epoch's start (`cb` a multiple of `NB`): adapt the width, and
    /// move the overflow's events within the ring's reach into their buckets.
    fn new_epoch(&mut self) {
        let f = &mut self.far;
        if f.drained_buckets > 0 {
            let (n, nb) = (f.drained, f.drained_buckets);
            f.drained = 0;
            f.drained_buckets = 0;
            let overflow = f.buckets[NB].len();
            if n > 16 * nb && f.shift > 0 {
                let s = f.shift - 1;
                self.rebuild(s);
                return;
            }
            if n < 4 * nb && overflow > f.len - overflow && f.shift < MAX_SHIFT {
                let s = f.shift + 1;
                self.rebuild(s);
                return;
            }
        }
        let lim = self.far.cb + NB64;
        let mut ov = std::mem::take(&mut self.far.buckets[NB]);
        let mut j = 0;
        for i in 0..ov.len() {
            let k = ov[i];
            let b = (time_of_key(k) - self.far.base) >> self.far.shift;
            if b < lim {
                self.far.len -= 1;
                self.far_push(b as usize & (NB - 1), k);
            } else {
                ov[j] = k;
                self.pos[ent_of(k) as usize] = FAR | (NB as u32) << IDX_BITS | j as u32;
                j += 1;
            }
        }
        ov.truncate(j);
        self.far.buckets[NB] = ov;
    }

    /// The heap is empty: move the next nonempty bucket into it (the far tier must not be
    /// empty), moving the boundary past it.
    #[inline(never)]
    fn refill(&mut self) {
        debug_assert!(self.heap.is_empty());
        if self.far.len < self.far_off_below {
            self.far_stop();
            return;
        }
        while self.far.len > 0 {
            let overflow = self.far.buckets[NB].len();
            if self.far.len == overflow {
                // The ring is empty: on to the epoch of the earliest overflow event.
                let tmin = self.far.buckets[NB].iter().map(|&k| time_of_key(k)).min();
                let b = (tmin.unwrap() - self.far.base) >> self.far.shift;
                self.set_cursor(b & !(NB64 - 1));
                self.new_epoch();
                continue;
            }
            let target = self.far.cb + self.next_nonempty();
            let epoch_end = (self.far.cb | (NB64 - 1)) + 1;
            if target >= epoch_end {
                self.set_cursor(epoch_end);
                self.new_epoch();
                continue;
            }
            let slot = target as usize & (NB - 1);
            let v = &self.far.buckets[slot];
            if v.len() > SPLIT && self.far.shift > 0 {
                let lo = v.iter().map(|&k| time_of_key(k)).min().unwrap();
                let hi = v.iter().map(|&k| time_of_key(k)).max().unwrap();
                if (hi - lo) >> (self.far.shift - 1) != 0 {
                    // Split it: halve the width, re-bucketing from the bucket's start.
                    self.set_cursor(target);
                    let s = self.far.shift - 1;
                    self.rebuild(s);
                    continue;
                }
            }
            let mut v = std::mem::take(&mut self.far.buckets[slot]);
            for &k in &v {
                self.heap_push(k);
            }
            let n = v.len();
            v.clear();
            self.far.buckets[slot] = v;
            self.far.bits[slot / 64] &= !(1 << (slot % 64));
            self.far.len -= n;
            self.far.drained += n as u64;
            self.far.drained_buckets += 1;
            self.set_cursor(target + 1);
            if self.far.cb & (NB64 - 1) == 0 {
                self.new_epoch();
            }
            return;
        }
    }

    // ---- the heap ----

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

    /// Check the invariants of both tiers and the index (tests).
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
            if self.boundary != Time::MAX && time_of_key(k) >= self.boundary {
                return false;
            }
        }
        // The heap is empty only when everything is.
        if self.heap.is_empty() && self.far.len > 0 {
            return false;
        }
        if self.boundary == Time::MAX && self.far.len > 0 {
            return false;
        }
        let f = &self.far;
        if self.boundary != Time::MAX
            && self.boundary as u128 != f.base as u128 + ((f.cb as u128) << f.shift)
        {
            return false;
        }
        let epoch = f.cb & !(NB64 - 1);
        let mut n = 0;
        for (slot, v) in f.buckets.iter().enumerate() {
            let bit = f.bits[slot / 64] >> (slot % 64) & 1 == 1;
            if slot < NB && bit == v.is_empty() {
                return false;
            }
            for (i, &k) in v.iter().enumerate() {
                n += 1;
                if self.pos[ent_of(k) as usize] != FAR | (slot as u32) << IDX_BITS | i as u32 {
                    return false;
                }
                let t = time_of_key(k);
                if t < self.boundary {
                    return false;
                }
                let b = (t - f.base) >> f.shift;
                let ok = if slot < NB {
                    b >= f.cb && b < f.cb + NB64 && b as usize & (NB - 1) == slot
                } else {
                    // Beyond the ring when it went in, and the epoch's scan.
                    b >= epoch + NB64
                };
                if !ok {
                    return false;
                }
            }
        }
        if n != f.len {
            return false;
        }
        self.pos.iter().filter(|&&p| p != NONE).count() == self.heap.len() + f.len
    }

    /// Test hook: jump the sequence counter (to exercise renumbering).
    #[doc(hidden)]
    pub fn set_seq_for_test(&mut self, s: u32) {
        self.seq = s;
    }

    /// Test hook: keep the far tier in use from now on, with buckets of width 2^shift (to
    /// exercise it with few events and small times).
    #[doc(hidden)]
    pub fn set_bucket_shift_for_test(&mut self, shift: u32) {
        self.far_on_above = 0;
        self.far_off_below = 0;
        if self.boundary == Time::MAX {
            self.far.shift = shift;
            self.far_start();
        } else {
            self.rebuild(shift);
        }
    }

    /// Events in the heap and in the far tier, and the bucket width's log2 (tests, benches).
    #[doc(hidden)]
    pub fn tiers(&self) -> (usize, usize, u32) {
        (self.heap.len(), self.far.len, self.far.shift)
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

    /// A reference priority queue: a binary heap of (time, seq, entity) with lazy deletion,
    /// the current (time, seq) of each entity in a map.
    #[derive(Default)]
    struct Reference {
        heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u64, u32)>>,
        cur: std::collections::HashMap<u32, (u64, u64)>,
        seq: u64,
    }

    impl Reference {
        fn schedule(&mut self, e: u32, t: u64) {
            self.seq += 1;
            self.cur.insert(e, (t, self.seq));
            self.heap.push(std::cmp::Reverse((t, self.seq, e)));
        }
        fn cancel(&mut self, e: u32) {
            self.cur.remove(&e);
        }
        fn peek(&mut self) -> Option<(u64, u32)> {
            while let Some(&std::cmp::Reverse((t, s, e))) = self.heap.peek() {
                if self.cur.get(&e) == Some(&(t, s)) {
                    return Some((t, e));
                }
                self.heap.pop();
            }
            None
        }
    }

    /// What the two-tier test does: schedule an entity near (within 64 ns), far (up to 200,000
    /// ns) or into a cluster (many entities just after a multiple of 2^16, to make buckets
    /// split), cancel one, pop, fire the earliest event with a handler, pop many or schedule
    /// many.
    #[derive(Debug, Clone)]
    enum T {
        Sched(u32, u8, u64),
        Cancel(u32),
        Pop,
        Fire(Vec<(u8, u32, u8, u64)>),
        /// Pop up to this many (the far tier out of use again below `FAR_OFF`).
        Drain(u8),
        /// Schedule entities `from..` up to this many (the far tier into use above `FAR_ON`).
        Fill(u32, u8, u8),
    }

    const TE: u32 = 300;

    fn at(now: u64, kind: u8, d: u64) -> u64 {
        match kind % 8 {
            0 | 1 => now + d % 64,
            2 => now + d % 200_000,
            3 => now + d % 5_000,
            // Just after the next multiple of 2^16 (or the one after): many entities at once.
            _ => (((now >> 16) + 1 + (kind as u64 >> 7)) << 16) | (d % (1 << (d >> 60))),
        }
    }

    fn t_op() -> impl Strategy<Value = T> {
        prop_oneof![
            6 => (0..TE, any::<u8>(), any::<u64>()).prop_map(|(e, k, d)| T::Sched(e, k, d)),
            1 => (0..TE).prop_map(T::Cancel),
            2 => Just(T::Pop),
            3 => proptest::collection::vec((any::<u8>(), 0..TE, any::<u8>(), any::<u64>()), 0..4)
                .prop_map(T::Fire),
            1 => any::<u8>().prop_map(T::Drain),
            1 => (0..TE, any::<u8>(), any::<u8>()).prop_map(|(e, n, k)| T::Fill(e, n, k)),
        ]
    }

    /// Run `ops` on a queue with bucket width 2^shift against the reference (`None`: the
    /// default width and thresholds, the far tier in use only for many events); `now` is the
    /// time of the last event taken (events are scheduled at or after it, as in the engine).
    fn run_two_tiers(ops: &[T], shift: Option<u32>, start_seq: u32) -> Result<(), TestCaseError> {
        let mut q = EventQueue::with_entities(TE as usize);
        if let Some(shift) = shift {
            q.set_bucket_shift_for_test(shift);
        }
        q.set_seq_for_test(start_seq);
        let mut r = Reference::default();
        let mut now = 0u64;
        for o in ops {
            match o {
                T::Sched(e, k, d) => {
                    let t = at(now, *k, *d);
                    r.schedule(*e, t);
                    q.schedule(*e, t);
                }
                T::Cancel(e) => {
                    r.cancel(*e);
                    q.cancel(*e);
                }
                T::Drain(n) => {
                    for _ in 0..*n {
                        let want = r.peek();
                        prop_assert_eq!(q.pop(), want);
                        let Some((t, e)) = want else { break };
                        now = t;
                        r.cancel(e);
                    }
                }
                T::Fill(from, n, k) => {
                    for i in 0..*n as u32 {
                        let e = (from + i) % TE;
                        let t = at(
                            now,
                            k.wrapping_add(i as u8),
                            (i as u64) << 58 | (i * 7919) as u64,
                        );
                        r.schedule(e, t);
                        q.schedule(e, t);
                    }
                }
                T::Pop => {
                    let want = r.peek();
                    prop_assert_eq!(q.pop(), want);
                    if let Some((t, e)) = want {
                        now = t;
                        r.cancel(e);
                    }
                }
                T::Fire(handler) => {
                    let want = r.peek();
                    let got = q.begin_fire();
                    prop_assert_eq!(got, want);
                    let Some((t, me)) = got else { continue };
                    now = t;
                    let mut moved = false;
                    for &(what, o, k, d) in handler {
                        let t2 = at(now, k, d);
                        match what % 4 {
                            0 if o != me => {
                                r.schedule(o, t2);
                                q.schedule(o, t2);
                            }
                            1 if o != me => {
                                r.cancel(o);
                                q.cancel(o);
                            }
                            2 => {
                                moved = true;
                                r.schedule(me, t2);
                                q.schedule(me, t2);
                            }
                            3 => {
                                moved = true;
                                r.cancel(me);
                                q.cancel(me);
                            }
                            _ => {}
                        }
                        prop_assert!(q.check());
                        prop_assert_eq!(q.time_of(me), r.cur.get(&me).map(|v| v.0));
                        prop_assert_eq!(q.peek(), r.peek());
                    }
                    if !moved {
                        r.cancel(me);
                    }
                    q.end_fire();
                }
            }
            prop_assert!(q.check());
            prop_assert_eq!(q.len(), r.cur.len());
            prop_assert_eq!(q.peek(), r.peek());
        }
        // Drain: the whole order.
        while let Some(want) = r.peek() {
            prop_assert_eq!(q.pop(), Some(want));
            r.cancel(want.1);
            prop_assert!(q.check());
        }
        prop_assert!(q.is_empty());
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// The two tiers pop in the order of a reference binary heap under random schedules,
        /// cancels, pops and handlers, with far events crossing the boundary, overflowing the
        /// ring, clustering into buckets that split, and the sequence wrapping.
        #[test]
        fn two_tiers_match_reference_heap(
            ops in proptest::collection::vec(t_op(), 1..1000),
            shift in 0u32..20,
            start_seq in prop::sample::select(vec![0u32, u32::MAX - 300])) {
            run_two_tiers(&ops, Some(shift), start_seq)?;
        }

        /// The same with the default width and thresholds: the far tier comes into use and out
        /// of it as the pending events grow and shrink.
        #[test]
        fn far_tier_in_and_out_of_use(
            ops in proptest::collection::vec(t_op(), 1..1000),
            start_seq in prop::sample::select(vec![0u32, u32::MAX - 300])) {
            run_two_tiers(&ops, None, start_seq)?;
        }
    }

    /// A long hold-model run (many far events, the width adapting from its initial value, then
    /// to a 64 times higher rate)
    /// against the reference heap.
    #[test]
    fn hold_model_matches_reference_heap() {
        let n = 3000u32;
        let mut q = EventQueue::with_entities(n as usize);
        let mut r = Reference::default();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for e in 0..n {
            let t = rnd() % 3_000_000_000;
            q.schedule(e, t);
            r.schedule(e, t);
        }
        for i in 0..300_000u32 {
            let (t, e) = q.begin_fire().unwrap();
            assert_eq!(Some((t, e)), r.peek());
            // Near (a processor's burst) or far (a think time), sometimes another entity; the
            // think times 64 times shorter in the second half (the width must shrink).
            let far = if i < 150_000 {
                3_000_000_000
            } else {
                3_000_000_000 / 64
            };
            let d = if rnd() % 3 == 0 {
                rnd() % 2_000_000
            } else {
                rnd() % far
            };
            if rnd() % 5 == 0 {
                let o = (rnd() % n as u64) as u32;
                if o != e {
                    q.schedule(o, t + d / 2);
                    r.schedule(o, t + d / 2);
                }
            }
            q.schedule(e, t + d);
            r.schedule(e, t + d);
            q.end_fire();
            if i % 10_000 == 0 {
                assert!(q.check());
            }
        }
        assert!(q.check());
        let (heap, far, _) = q.tiers();
        assert!(heap < 200, "heap {heap} far {far}");
    }

    #[test]
    fn times_near_the_end_of_time() {
        let mut q = EventQueue::with_entities(8);
        let ts = [
            u64::MAX,
            u64::MAX - 1,
            5,
            u64::MAX,
            1 << 63,
            u64::MAX - (1 << 40),
            7,
            0,
        ];
        let mut r = Reference::default();
        for (e, &t) in ts.iter().enumerate() {
            q.schedule(e as u32, t);
            r.schedule(e as u32, t);
            assert!(q.check());
        }
        while let Some(want) = r.peek() {
            assert_eq!(q.pop(), Some(want));
            r.cancel(want.1);
            assert!(q.check());
            // Reschedule one of them at the end of time again.
            if want == (5, 2) {
                q.schedule(2, u64::MAX);
                r.schedule(2, u64::MAX);
            }
        }
        assert!(q.is_empty());
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
