//! Real storage management: guest page states, real frames, and the replacement lists.
//!
//! Page state is 2 bits per guest page (never touched / resident and valid / resident on the
//! aging list, invalid / on DASD only), packed 32 pages to a u64: a 128 GB guest costs 8 MB.
//! Frames are not individually identified: CP's frame lists are modelled as FIFOs of global
//! page numbers, 4 bytes per resident page, so memory grows with real storage,
//! not with virtual storage.
//!
//! Replacement (z/VM 6.3+, switch `agelist = on`): a resident page enters the in-use list at its
//! tail; when free frames run out, frames are taken from the in-use list's head, invalidated and
//! put on the global aging list; the aging list is kept at `storage.agelist_pct` of the frames;
//! pages that reach its head are written out (early write, block paging) and their frames freed.
//! A reference to a page on the aging list revalidates it (CP time, no I/O) and puts it back at
//! the in-use tail. With `agelist = off` pages are stolen straight from the in-use head (FIFO);
//! the pre-6.3 demand scan and reorder are not modelled yet. For uniform random references over
//! P pages with F frames any such policy that does not look at the reference string faults with
//! probability 1 - F/P (test `thrasher_fault_rate`).

use std::collections::VecDeque;

pub const NEVER: u8 = 0;
pub const VALID: u8 = 1;
pub const AGING: u8 = 2;
pub const ON_DASD: u8 = 3;

/// 2-bit page states of one guest.
#[derive(Clone, Debug)]
pub struct PageTable {
    bits: Vec<u64>,
    pub pages: u64,
}

impl PageTable {
    pub fn new(pages: u64) -> Self {
        PageTable {
            bits: vec![0; pages.div_ceil(32) as usize],
            pages,
        }
    }
    #[inline]
    pub fn get(&self, p: u64) -> u8 {
        ((self.bits[(p / 32) as usize] >> ((p % 32) * 2)) & 3) as u8
    }
    #[inline]
    pub fn set(&mut self, p: u64, s: u8) {
        let w = &mut self.bits[(p / 32) as usize];
        let sh = (p % 32) * 2;
        *w = (*w & !(3u64 << sh)) | ((s as u64) << sh);
    }
    pub fn bytes(&self) -> usize {
        self.bits.len() * 8
    }
}

/// What a page reference found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    Valid,
    Revalidated,
    FirstTouch,
    /// On DASD: a page-in is needed (a frame has been reserved for it).
    OnDasd,
}

/// Real storage: frames available for guest pages and the lists over them.
#[derive(Clone, Debug)]
pub struct RealStorage {
    pub tables: Vec<PageTable>,
    pub frames: u64,
    pub free: u64,
    pub in_use: VecDeque<u32>,
    pub aging: VecDeque<u32>,
    pub n_aging: u64,
    pub agelist_target: u64,
    /// Pages written out whose write has not been issued yet (block paging).
    pub pending_writes: Vec<u32>,
    /// First global page number of each user (lists hold 4-byte global page numbers).
    pub base: Vec<u64>,
    // counters
    pub references: u64,
    pub faults: u64,
    pub first_touches: u64,
    pub revalidations: u64,
    pub pages_read: u64,
    pub pages_written: u64,
    pub steals: u64,
    /// Pages that own a slot on the paging volumes (written at least once), and the slots.
    pub slots_used: u64,
    pub slots: u64,
    /// Pages resident or in flight: conservation check; and per user.
    pub resident: u64,
    pub res_user: Vec<u64>,
    /// Per user: pages read back from DASD (faults) and pages stolen to DASD (monitor D4R3).
    pub reads_user: Vec<u64>,
    pub steals_user: Vec<u64>,
}

impl RealStorage {
    pub fn new(
        frames: u64,
        pages_per_user: &[u64],
        agelist_pct: f64,
        agelist_on: bool,
        slots: u64,
    ) -> Self {
        RealStorage {
            tables: pages_per_user.iter().map(|&p| PageTable::new(p)).collect(),
            frames,
            free: frames,
            in_use: VecDeque::new(),
            aging: VecDeque::new(),
            n_aging: 0,
            agelist_target: if agelist_on {
                ((frames as f64 * agelist_pct / 100.0) as u64).max(1)
            } else {
                0
            },
            pending_writes: Vec::new(),
            base: std::iter::once(0)
                .chain(pages_per_user.iter().scan(0u64, |acc, &p| {
                    *acc += p;
                    Some(*acc)
                }))
                .collect(),
            references: 0,
            faults: 0,
            first_touches: 0,
            revalidations: 0,
            pages_read: 0,
            pages_written: 0,
            steals: 0,
            slots_used: 0,
            slots,
            resident: 0,
            res_user: vec![0; pages_per_user.len()],
            reads_user: vec![0; pages_per_user.len()],
            steals_user: vec![0; pages_per_user.len()],
        }
    }

    /// Global page number (4 bytes: all guests with page references total < 16 TB).
    #[inline]
    pub fn gid(&self, user: u32, p: u64) -> u32 {
        (self.base[user as usize] + p) as u32
    }

    #[inline]
    pub fn split(&self, g: u32) -> (usize, u64) {
        let u = self.base.partition_point(|&b| b <= g as u64) - 1;
        (u, g as u64 - self.base[u])
    }

    /// Reference page `p` of `user`. On a fault a frame is obtained at once (stealing if
    /// needed; stolen changed pages go to `pending_writes`).
    pub fn reference(&mut self, user: u32, p: u64) -> Found {
        self.references += 1;
        let t = &mut self.tables[user as usize];
        match t.get(p) {
            VALID => Found::Valid,
            AGING => {
                t.set(p, VALID);
                self.n_aging -= 1;
                self.revalidations += 1;
                self.in_use.push_back(self.gid(user, p));
                Found::Revalidated
            }
            s => {
                t.set(p, VALID);
                self.take_frame();
                self.in_use.push_back(self.gid(user, p));
                self.resident += 1;
                self.res_user[user as usize] += 1;
                if s == NEVER {
                    self.first_touches += 1;
                    Found::FirstTouch
                } else {
                    self.faults += 1;
                    self.pages_read += 1;
                    self.reads_user[user as usize] += 1;
                    Found::OnDasd
                }
            }
        }
    }

    /// Take a free frame, replenishing the free list from the aging list first.
    fn take_frame(&mut self) {
        while self.free == 0 {
            self.steal_one();
        }
        self.free -= 1;
    }

    /// Move frames from the in-use head to the aging list until it has its target size, then
    /// free the frame at the aging head (its page is written out).
    fn steal_one(&mut self) {
        while self.n_aging < self.agelist_target.max(1) {
            match self.in_use.pop_front() {
                Some(id) => {
                    let (u, p) = self.split(id);
                    self.tables[u].set(p, AGING);
                    self.n_aging += 1;
                    self.aging.push_back(id);
                }
                None => break,
            }
        }
        while let Some(id) = self.aging.pop_front() {
            let (u, p) = self.split(id);
            // Entries of pages revalidated since they were queued are stale.
            if self.tables[u].get(p) != AGING {
                continue;
            }
            self.tables[u].set(p, ON_DASD);
            self.n_aging -= 1;
            self.resident -= 1;
            self.res_user[u] -= 1;
            self.steals += 1;
            self.steals_user[u] += 1;
            self.free += 1;
            self.pending_writes.push(id);
            return;
        }
        // Nothing left to steal: every frame is free (cannot happen while free == 0).
        self.free += 1;
    }

    /// Steady state after a long warm-up: pages [0, range) of `user` touched, resident while
    /// free frames last, the rest on DASD (slots used).
    pub fn prefill(&mut self, user: u32, range: u64) {
        self.prefill_pages(user, 0, range);
    }

    /// `prefill` of pages [lo, hi) only (several guests are prefilled interleaved, so that
    /// each holds frames in proportion to its range, as after a long warm-up).
    pub fn prefill_pages(&mut self, user: u32, lo: u64, hi: u64) {
        for p in lo..hi {
            if self.free > 0 {
                self.tables[user as usize].set(p, VALID);
                self.in_use.push_back(self.gid(user, p));
                self.free -= 1;
                self.resident += 1;
                self.res_user[user as usize] += 1;
            } else {
                self.tables[user as usize].set(p, ON_DASD);
            }
        }
        self.first_touches += hi - lo;
        self.slots_used = self.first_touches - self.resident;
    }

    pub fn bytes(&self) -> usize {
        self.tables.iter().map(|t| t.bytes()).sum::<usize>()
            + (self.in_use.capacity() + self.aging.capacity() + self.pending_writes.capacity()) * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn page_table_packs_two_bits() {
        let mut t = PageTable::new(100);
        t.set(33, ON_DASD);
        t.set(34, AGING);
        assert_eq!(t.get(33), ON_DASD);
        assert_eq!(t.get(34), AGING);
        assert_eq!(t.get(32), NEVER);
        t.set(33, VALID);
        assert_eq!(t.get(33), VALID);
        assert_eq!(t.get(34), AGING);
        assert_eq!(t.bytes(), 32);
    }

    /// Skewed references (a hot set): FIFO and random replacement have the same miss ratio
    /// under the independent reference model; the large-cache approximation (page i resident
    /// with probability p_i T / (1 + p_i T), the residencies summing to F) gives it. The aging
    /// list's second chance keeps hot pages better: fewer faults.
    #[test]
    fn hotset_fault_rate_fifo_and_aging_list() {
        let (f, hot, cold, h) = (6000u64, 4000u64, 36000u64, 0.8f64);
        let (ph, pc) = (h / hot as f64, (1.0 - h) / cold as f64);
        let resident =
            |t: f64| hot as f64 * ph * t / (1.0 + ph * t) + cold as f64 * pc * t / (1.0 + pc * t);
        let (mut lo, mut hi) = (0.0f64, 1e12f64);
        for _ in 0..200 {
            let mid = (lo + hi) / 2.0;
            if resident(mid) < f as f64 {
                lo = mid
            } else {
                hi = mid
            }
        }
        let t = lo;
        let want = hot as f64 * ph / (1.0 + ph * t) + cold as f64 * pc / (1.0 + pc * t);
        let mut rates = Vec::new();
        for agelist in [false, true] {
            let mut s = RealStorage::new(f, &[hot + cold], 2.0, agelist, u64::MAX);
            let mut rng = Rng::stream(11, 2);
            let mut draw = |rng: &mut Rng| {
                if rng.unit() < h {
                    rng.below(hot)
                } else {
                    hot + rng.below(cold)
                }
            };
            for _ in 0..300_000 {
                s.reference(0, draw(&mut rng));
                s.pending_writes.clear();
            }
            let (r0, f0) = (s.references, s.faults + s.first_touches);
            for _ in 0..1_500_000 {
                s.reference(0, draw(&mut rng));
                s.pending_writes.clear();
            }
            rates.push((s.faults + s.first_touches - f0) as f64 / (s.references - r0) as f64);
        }
        eprintln!(
            "hotset: FIFO {} aging list {} predicted {want}",
            rates[0], rates[1]
        );
        assert!(
            (rates[0] / want - 1.0).abs() < 0.02,
            "FIFO fault rate {} vs {want}",
            rates[0]
        );
        assert!(
            rates[1] < rates[0],
            "aging list {} vs FIFO {}",
            rates[1],
            rates[0]
        );
    }

    /// Uniform random references over P pages with F frames: fault rate 1 - F/P (any policy
    /// that does not look at the reference string), with and without the aging list.
    #[test]
    fn thrasher_fault_rate() {
        for agelist in [true, false] {
            let (f, p) = (4608u64, 12288u64);
            let mut s = RealStorage::new(f, &[p], 2.0, agelist, u64::MAX);
            let mut rng = Rng::stream(7, 1);
            for _ in 0..200_000 {
                s.reference(0, rng.below(p));
            }
            let (r0, f0) = (s.references, s.faults);
            let n = 1_000_000u64;
            for _ in 0..n {
                s.reference(0, rng.below(p));
                s.pending_writes.clear();
            }
            let rate = (s.faults - f0) as f64 / (s.references - r0) as f64;
            let want = 1.0 - f as f64 / p as f64;
            assert!(
                (rate / want - 1.0).abs() < 0.02,
                "agelist {agelist}: fault rate {rate} vs {want}"
            );
            // Conservation: every frame holds a resident page or is free.
            assert_eq!(s.resident + s.free, f);
            assert_eq!(s.resident, s.in_use.len() as u64 + s.n_aging);
        }
    }
}
