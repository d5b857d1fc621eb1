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
//!
//! The 2 GB line (seed 003, rows D1 and D2): the frames below 2 GB have their own available
//! list (`free_below`; the rest of `free` is the > 2 GB list). CP needs below-2GB frames for its
//! own use (`cp_take_below`, e.g. per paging I/O); with `elective` below-2GB use (z/VM 6.1 and
//! before) a user page takes a below-2GB frame first when one is available, so CP's frames,
//! once released, end up holding user pages and CP must *search* for a user page in a
//! below-2GB frame and steal it: the frame-owned lists are not ordered by address, so the
//! search examines frames until it meets one below the line, a geometric number with mean
//! resident / resident-below-2GB (test `below2g_search_length`). Without elective use (6.2+)
//! user pages stay above the line while above-2GB frames exist, and CP finds its frames on the
//! below-2GB list. Which user pages hold below-2GB frames: a list with positions (4 + 8 bytes
//! per such page; at most 2 GB / 4 KB of them), so memory stays bounded by the line.

use crate::rng::Rng;
use std::collections::{HashMap, VecDeque};

/// Frames below the 2 GB line (2 GB / 4 KB).
pub const FRAMES_BELOW_2G: u64 = 1 << 19;

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
    /// The 2 GB line: free frames below it (part of `free`), elective use by user pages.
    pub free_below: u64,
    pub frames_below: u64,
    pub elective_below: bool,
    /// User pages resident in below-2GB frames (global page numbers) and their positions.
    pub below: Vec<u32>,
    below_pos: HashMap<u32, u32>,
    /// In-use list entries of pages stolen by a below-2GB search (skipped when they come up).
    tomb: HashMap<u32, u32>,
    /// Below-2GB frames CP holds for its own use.
    pub cp_below: u64,
    pub below_searches: u64,
    pub below_examined: u64,
    /// Times CP found no below-2GB frame at all (every one held by CP).
    pub below_short: u64,
    /// Frames holding minidisk-cache data, and how many of them are below 2 GB; below-2GB MDC
    /// frames CP's search has taken whose cache units the cache has not dropped yet.
    pub mdc_frames: u64,
    pub mdc_below: u64,
    pub mdc_surrendered: u64,
    /// Per user: pages read back from DASD (faults) and pages stolen to DASD (monitor D4R3).
    pub reads_user: Vec<u64>,
    pub steals_user: Vec<u64>,
    /// Per user and 1 MB segment: resident pages (row D3). A segment's page table (PGMBK, two
    /// contiguous frames) exists while it has resident pages: a page brought into a segment
    /// with none needs one (`pgmbk_requests`), the steal of its last page frees it.
    pub seg_res: Vec<Vec<u16>>,
    pub pgmbk_requests: u64,
    pub pgmbk_frees: u64,
}

/// Pages per segment (1 MB of 4 KB pages).
pub const SEG_PAGES: u64 = 256;

/// Trials until the first success with probability `q` each (at least 1).
fn geometric(rng: &mut Rng, q: f64) -> u64 {
    if q >= 1.0 {
        1
    } else {
        let v = 1.0 - rng.unit();
        ((v.ln() / (1.0 - q).ln()).ceil() as u64).max(1)
    }
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
            free_below: frames.min(FRAMES_BELOW_2G),
            frames_below: frames.min(FRAMES_BELOW_2G),
            elective_below: false,
            below: Vec::new(),
            below_pos: HashMap::new(),
            tomb: HashMap::new(),
            cp_below: 0,
            below_searches: 0,
            below_examined: 0,
            below_short: 0,
            mdc_frames: 0,
            mdc_below: 0,
            mdc_surrendered: 0,
            reads_user: vec![0; pages_per_user.len()],
            steals_user: vec![0; pages_per_user.len()],
            seg_res: pages_per_user
                .iter()
                .map(|&p| vec![0; p.div_ceil(SEG_PAGES) as usize])
                .collect(),
            pgmbk_requests: 0,
            pgmbk_frees: 0,
        }
    }

    /// A page of `user` becomes resident: true if its segment had none (a PGMBK is needed).
    fn seg_in(&mut self, user: usize, p: u64) -> bool {
        let c = &mut self.seg_res[user][(p / SEG_PAGES) as usize];
        *c = c.saturating_add(1);
        *c == 1
    }

    /// A page of `user` leaves real storage; the segment's PGMBK goes with its last page.
    fn seg_out(&mut self, user: usize, p: u64) {
        let c = &mut self.seg_res[user][(p / SEG_PAGES) as usize];
        *c = c.saturating_sub(1);
        if *c == 0 {
            self.pgmbk_frees += 1;
        }
    }

    /// The minidisk cache takes a frame (pageable data, like a user page: below 2 GB first with
    /// elective use; a user page is stolen when no frame is free). Returns true if below 2 GB.
    pub fn take_mdc_frame(&mut self) -> bool {
        self.take_frame();
        let below = self.user_frame_below();
        if below {
            self.free_below -= 1;
            self.mdc_below += 1;
        }
        self.free -= 1;
        self.mdc_frames += 1;
        below
    }

    /// The minidisk cache returns a frame (below 2 GB or not) to its available list.
    pub fn release_mdc_frame(&mut self, below: bool) {
        self.mdc_frames -= 1;
        if below {
            self.mdc_below -= 1;
            self.free_below += 1;
        }
        self.free += 1;
    }

    /// Place the 2 GB line: `frames_below` of the frames lie below it (the rest of the DPA
    /// below 2 GB holds CP's nucleus and fixed areas); `elective`: user pages may use them.
    pub fn set_below_2g(&mut self, frames_below: u64, elective: bool) {
        let held = self.frames_below - self.free_below;
        self.frames_below = frames_below.min(self.frames);
        self.free_below = self.frames_below.saturating_sub(held);
        self.elective_below = elective;
    }

    /// Frames in the > 2 GB available list.
    #[inline]
    pub fn free_above(&self) -> u64 {
        self.free - self.free_below
    }

    /// Whether a user page may use a below-2GB frame: with elective use, or when there is no
    /// storage above the line at all (using it there harms nothing).
    #[inline]
    fn user_may_use_below(&self) -> bool {
        self.elective_below || self.frames_below >= self.frames
    }

    /// A free frame a user page may take exists.
    #[inline]
    fn user_frame_free(&self) -> bool {
        self.free_above() > 0 || (self.free_below > 0 && self.user_may_use_below())
    }

    /// Which list a user page's frame comes from: below 2 GB first with elective use;
    /// otherwise above.
    #[inline]
    fn user_frame_below(&self) -> bool {
        self.free_below > 0 && self.user_may_use_below()
    }

    /// Give page `g` a free frame.
    fn assign(&mut self, g: u32) {
        if self.user_frame_below() {
            self.free_below -= 1;
            self.below_pos.insert(g, self.below.len() as u32);
            self.below.push(g);
        }
        self.free -= 1;
    }

    /// Page `g` leaves its frame: the frame goes to its available list.
    fn release(&mut self, g: u32) {
        if !self.below.is_empty() {
            if let Some(i) = self.below_pos.remove(&g) {
                let last = self.below.pop().unwrap();
                if last != g {
                    self.below[i as usize] = last;
                    self.below_pos.insert(last, i);
                }
                self.free_below += 1;
            }
        }
        self.free += 1;
    }

    /// CP takes one below-2GB frame for its own use. Returns the frames examined by the
    /// search for one (0 when the below-2GB available list had a frame). A frame found in use
    /// by a user page is stolen (the page goes to `pending_writes`).
    pub fn cp_take_below(&mut self, rng: &mut Rng) -> u64 {
        if self.frames_below >= self.frames {
            // No storage above the line: CP's frames are taken like any other (not modelled).
            return 0;
        }
        if self.free_below > 0 {
            self.free_below -= 1;
            self.free -= 1;
            self.cp_below += 1;
            return 0;
        }
        // Only pages that are valid (in the in-use list) can be taken; pages on the aging list
        // are left to it.
        let n = self.below.len() as u64;
        // The search walks user frames and MDC frames alike; it meets an MDC frame below
        // 2 GB with its share of the below-2GB frames it can take.
        if self.mdc_below > 0 && rng.below(n + self.mdc_below) >= n {
            let all = (self.resident + self.mdc_frames) as f64;
            let x = geometric(rng, (n + self.mdc_below) as f64 / all);
            self.below_searches += 1;
            self.below_examined += x;
            self.mdc_below -= 1;
            self.mdc_frames -= 1;
            self.mdc_surrendered += 1;
            self.cp_below += 1;
            return x;
        }
        let mut victim = None;
        for _ in 0..8 {
            if n == 0 {
                break;
            }
            let g = self.below[rng.below(n) as usize];
            let (u, p) = self.split(g);
            if self.tables[u].get(p) == VALID {
                victim = Some((g, u, p));
                break;
            }
        }
        let Some((g, u, p)) = victim else {
            self.below_short += 1;
            return 0;
        };
        // Frames examined: geometric, one in resident / below of them is below 2 GB.
        let x = geometric(
            rng,
            (n + self.mdc_below) as f64 / (self.resident + self.mdc_frames).max(n) as f64,
        );
        self.below_searches += 1;
        self.below_examined += x;
        self.tables[u].set(p, ON_DASD);
        self.seg_out(u, p);
        self.resident -= 1;
        self.res_user[u] -= 1;
        self.steals += 1;
        self.steals_user[u] += 1;
        self.pending_writes.push(g);
        *self.tomb.entry(g).or_insert(0) += 1;
        // The frame passes from the page to CP without visiting the available list.
        self.release(g);
        self.free_below -= 1;
        self.free -= 1;
        self.cp_below += 1;
        x
    }

    /// CP returns a below-2GB frame it held.
    pub fn cp_release_below(&mut self) {
        if self.cp_below > 0 && self.frames_below < self.frames {
            self.cp_below -= 1;
            self.free_below += 1;
            self.free += 1;
        }
    }

    /// Frame conservation: every frame holds a resident page, is on one available list, or is
    /// CP's; below-2GB frames likewise. Returns a description of the first violation.
    pub fn check_frames(&self) -> Result<(), String> {
        if self.resident + self.free + self.cp_below + self.mdc_frames != self.frames {
            return Err(format!(
                "resident {} + free {} + CP {} + MDC {} != frames {}",
                self.resident, self.free, self.cp_below, self.mdc_frames, self.frames
            ));
        }
        if self.below.len() as u64 + self.free_below + self.cp_below + self.mdc_below
            != self.frames_below
        {
            return Err(format!(
                "below 2 GB: user {} + free {} + CP {} + MDC {} != {}",
                self.below.len(),
                self.free_below,
                self.cp_below,
                self.mdc_below,
                self.frames_below
            ));
        }
        let live = self.in_use.len() as u64 + self.n_aging
            - self.tomb.values().map(|&c| c as u64).sum::<u64>();
        if live != self.resident {
            return Err(format!("list entries {live} != resident {}", self.resident));
        }
        let seg: u64 = self.seg_res.iter().flatten().map(|&c| c as u64).sum();
        if seg != self.resident {
            return Err(format!(
                "segment counts {seg} != resident {}",
                self.resident
            ));
        }
        Ok(())
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
                if self.seg_in(user as usize, p) {
                    self.pgmbk_requests += 1;
                }
                self.take_frame();
                let g = self.gid(user, p);
                self.assign(g);
                self.in_use.push_back(g);
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

    /// Make sure a frame is free, replenishing the free lists from the aging list first.
    fn take_frame(&mut self) {
        while !self.user_frame_free() {
            self.steal_one();
        }
    }

    /// Move frames from the in-use head to the aging list until it has its target size, then
    /// free the frame at the aging head (its page is written out).
    fn steal_one(&mut self) {
        while self.n_aging < self.agelist_target.max(1) {
            match self.in_use.pop_front() {
                Some(id) => {
                    if !self.tomb.is_empty() {
                        if let Some(c) = self.tomb.get_mut(&id) {
                            *c -= 1;
                            if *c == 0 {
                                self.tomb.remove(&id);
                            }
                            continue;
                        }
                    }
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
            self.seg_out(u, p);
            self.n_aging -= 1;
            self.resident -= 1;
            self.res_user[u] -= 1;
            self.steals += 1;
            self.steals_user[u] += 1;
            self.release(id);
            self.pending_writes.push(id);
            return;
        }
        // Nothing left to steal (cannot happen while a user page needs a frame): a phantom
        // frame above the line keeps the caller from looping.
        self.free += 1;
        self.frames += 1;
    }

    /// Steady state after a long warm-up: pages [0, range) of `user` touched, resident while
    /// free frames last, the rest on DASD (slots used).
    pub fn prefill(&mut self, user: u32, range: u64) {
        self.prefill_pages(user, 0, range);
    }

    /// Frames a user page could take now (above 2 GB, and below where user pages may go).
    pub fn user_frames_free(&self) -> u64 {
        if self.user_may_use_below() {
            self.free
        } else {
            self.free_above()
        }
    }

    /// Page `p` of `user` made resident in a free frame (the caller has checked there is one).
    fn prefill_one(&mut self, user: u32, p: u64) {
        self.tables[user as usize].set(p, VALID);
        self.seg_in(user as usize, p);
        let g = self.gid(user, p);
        self.assign(g);
        self.in_use.push_back(g);
        self.resident += 1;
        self.res_user[user as usize] += 1;
    }

    /// `prefill` of pages [lo, hi) only (several guests are prefilled interleaved, in equal
    /// turns, so that each holds an equal share of the frames or its whole range: paging.rs
    /// `prefill`).
    pub fn prefill_pages(&mut self, user: u32, lo: u64, hi: u64) {
        for p in lo..hi {
            if self.user_frame_free() {
                self.prefill_one(user, p);
            } else {
                self.tables[user as usize].set(p, ON_DASD);
            }
        }
        self.first_touches += hi - lo;
        self.slots_used = self.first_touches - self.resident;
    }

    /// Steady state of a guest whose references are uniform over [0, range) and which holds
    /// `n` frames: after a long warm-up its resident pages are spread evenly over the range
    /// (each page equally likely resident), not a prefix of it. This is the part of the
    /// interleaved walk for the walk's pages [lo, hi): resident pages number lo..min(hi, n),
    /// placed at `spread_page`, so the walk takes as many frames as `prefill_pages` would.
    /// `prefill_spread_rest` then puts every page not placed on DASD.
    pub fn prefill_spread(&mut self, user: u32, lo: u64, hi: u64, n: u64, range: u64) {
        for i in lo..hi.min(n) {
            self.prefill_one(user, spread_page(i, n, range));
        }
        self.first_touches += hi - lo;
        self.slots_used = self.first_touches - self.resident;
    }

    /// After `prefill_spread`: the pages of [0, range) not resident are on DASD.
    pub fn prefill_spread_rest(&mut self, user: u32, range: u64) {
        let t = &mut self.tables[user as usize];
        for p in 0..range {
            if t.get(p) != VALID {
                t.set(p, ON_DASD);
            }
        }
    }

    pub fn bytes(&self) -> usize {
        self.tables.iter().map(|t| t.bytes()).sum::<usize>()
            + (self.in_use.capacity() + self.aging.capacity() + self.pending_writes.capacity()) * 4
            + self.below.capacity() * 4
            + (self.below_pos.len() + self.tomb.len()) * 16
            + self.seg_res.iter().map(|v| v.len() * 2).sum::<usize>()
    }
}

/// The `i`-th of `n` pages spread evenly over [0, range) (n <= range): ⌊i·range/n⌋, strictly
/// increasing in `i`, so the `n` pages are distinct.
pub fn spread_page(i: u64, n: u64, range: u64) -> u64 {
    (i as u128 * range as u128 / n.max(1) as u128) as u64
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
            let draw = |rng: &mut Rng| {
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

    /// Frame conservation under a random mix of references, CP takes and releases of
    /// below-2GB frames, with and without elective use: every frame is resident, on exactly one
    /// available list, or CP's, at every step; user pages stay above the line without elective
    /// use.
    #[test]
    fn frame_conservation_with_the_2g_line() {
        for (elective, agelist) in [(true, false), (false, false), (true, true), (false, true)] {
            let (f, p) = (3000u64, 9000u64);
            let mut s = RealStorage::new(f, &[p / 2, p / 2], 2.0, agelist, u64::MAX);
            s.set_below_2g(400, elective);
            s.prefill(0, 2000);
            let mut rng = Rng::stream(5, 3);
            let mut held = 0;
            let mut mdc: Vec<bool> = Vec::new();
            for i in 0..60_000u64 {
                let r = rng.unit();
                if r < 0.03 {
                    mdc.push(s.take_mdc_frame());
                } else if r < 0.05 && !mdc.is_empty() {
                    let b = mdc.swap_remove(rng.below(mdc.len() as u64) as usize);
                    s.release_mdc_frame(b);
                } else if r < 0.15 {
                    s.cp_take_below(&mut rng);
                    held += 1;
                    // A one-frame MDC unit below 2 GB taken by the search leaves the cache.
                    while s.mdc_surrendered > 0 {
                        s.mdc_surrendered -= 1;
                        let i = mdc
                            .iter()
                            .position(|&b| b)
                            .expect("an MDC frame below 2 GB");
                        mdc.swap_remove(i);
                    }
                } else if r < 0.30 && held > 0 {
                    s.cp_release_below();
                    held -= 1;
                } else {
                    s.reference((i % 2) as u32, rng.below(p / 2));
                }
                s.pending_writes.clear();
                if i % 97 == 0 {
                    s.check_frames().unwrap_or_else(|e| panic!("step {i}: {e}"));
                }
            }
            s.check_frames().unwrap();
            assert_eq!(s.cp_below, held);
            assert_eq!(s.mdc_frames, mdc.len() as u64);
            if !elective {
                assert!(
                    s.below.is_empty(),
                    "user pages below 2 GB without elective use"
                );
                assert_eq!(s.mdc_below, 0, "MDC below 2 GB without elective use");
                assert_eq!(s.below_searches, 0);
            } else {
                assert!(!s.below.is_empty() && s.below_searches > 0);
            }
        }
    }

    /// With elective use, CP's below-2GB frames come back to it only by a search; the frames
    /// examined per search average resident / resident-below-2GB (the frame-owned lists are not
    /// in address order), so the search gets longer as storage above the line grows.
    #[test]
    fn below2g_search_length() {
        for (f, below) in [(20_000u64, 1000u64), (80_000, 1000)] {
            let p = 2 * f;
            let mut s = RealStorage::new(f, &[p], 2.0, false, u64::MAX);
            s.set_below_2g(below, true);
            s.prefill(0, p);
            let mut rng = Rng::stream(9, 4);
            let (mut sum, mut want, mut n) = (0u64, 0f64, 0u64);
            for _ in 0..40_000 {
                let expect = s.resident as f64 / s.below.len() as f64;
                let x = s.cp_take_below(&mut rng);
                if x > 0 {
                    sum += x;
                    want += expect;
                    n += 1;
                }
                s.cp_release_below();
                s.reference(0, rng.below(p));
                s.pending_writes.clear();
            }
            let (got, want) = (sum as f64 / n as f64, want / n as f64);
            assert!(n > 10_000, "searches {n}");
            assert!(
                (got / want - 1.0).abs() < 0.03,
                "frames {f}: examined {got} per search vs {want}"
            );
            assert!((want / (f as f64 / below as f64) - 1.0).abs() < 0.1);
            s.check_frames().unwrap();
        }
    }

    /// A uniformly referenced guest prefilled spread over its range starts in its steady
    /// state: the first references fault at the long-run rate 1 - F/P, and a random page's
    /// 1 MB segment almost always already has a PGMBK (with a prefix, the segments beyond the
    /// resident front have none, so the first references build PGMBKs for all of them).
    #[test]
    fn spread_prefill_is_the_uniform_steady_state() {
        let (f, p) = (20_000u64, 100_000u64);
        let run = |spread: bool| {
            let mut s = RealStorage::new(f, &[p], 2.0, true, u64::MAX);
            if spread {
                s.prefill_spread(0, 0, p, f, p);
                s.prefill_spread_rest(0, p);
            } else {
                s.prefill(0, p);
            }
            s.check_frames().unwrap();
            assert_eq!((s.resident, s.slots_used), (f, p - f));
            let mut rng = Rng::stream(11, 1);
            let n = 20_000u64;
            for _ in 0..n {
                s.reference(0, rng.below(p));
                s.pending_writes.clear();
            }
            s.check_frames().unwrap();
            (s.faults as f64 / n as f64, s.pgmbk_requests)
        };
        let (rate, builds) = run(true);
        let want = 1.0 - f as f64 / p as f64;
        assert!(
            (rate / want - 1.0).abs() < 0.03,
            "fault rate {rate} vs {want}"
        );
        // Stealing can now and then empty a segment of its ~51 pages; a prefix leaves 312 empty.
        assert!(
            builds <= 10,
            "every segment keeps resident pages: {builds} built"
        );
        let (_, prefix_builds) = run(false);
        assert!(
            prefix_builds > 200,
            "a prefix leaves empty segments: {prefix_builds}"
        );
    }

    /// `spread_page` gives `n` distinct pages inside the range, every 1 MB segment of the range
    /// gets its share, and the walk in chunks places the same pages as one call.
    #[test]
    fn spread_pages_are_distinct_and_recognised() {
        for (n, range) in [
            (1u64, 1u64),
            (7, 7),
            (1000, 2600),
            (3, 1 << 28),
            (4096, 4097),
        ] {
            let pages: Vec<u64> = (0..n).map(|i| spread_page(i, n, range)).collect();
            assert!(pages.windows(2).all(|w| w[0] < w[1]), "{n} of {range}");
            assert!(*pages.last().unwrap() < range);
        }
        let (f, p) = (5_000u64, 12_800u64);
        let mut one = RealStorage::new(f, &[p], 2.0, false, u64::MAX);
        one.prefill_spread(0, 0, p, f, p);
        one.prefill_spread_rest(0, p);
        let mut walk = RealStorage::new(f, &[p], 2.0, false, u64::MAX);
        for lo in (0..p).step_by(256) {
            walk.prefill_spread(0, lo, (lo + 256).min(p), f, p);
        }
        walk.prefill_spread_rest(0, p);
        assert_eq!(one.in_use, walk.in_use);
        assert_eq!(one.seg_res, walk.seg_res);
        let (lo, hi) = (f * SEG_PAGES / p, f * SEG_PAGES / p + 1);
        assert!(one.seg_res[0]
            .iter()
            .all(|&c| (lo..=hi).contains(&(c as u64))));
        assert_eq!(
            (0..p).filter(|&q| one.tables[0].get(q) == ON_DASD).count() as u64,
            p - f
        );
    }
}

#[cfg(test)]
#[path = "storage_tests.rs"]
mod unit;
