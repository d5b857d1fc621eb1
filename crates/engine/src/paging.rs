//! The paging subsystem: page references of workload programs, page faults, page-in I/O the
//! virtual CPU waits for, block page-out of stolen frames, paging volumes and slot space.
//!
//! A scenario without `storage` has no `Paging` at all: the dispatcher tests one `Option` per
//! completed burst and nothing else.
//!
//! CP time: a reference that needs CP (first touch, revalidation, fault) is chargeable CP time
//! of the faulting user, run on its processor before the page wait (or before guest time); the
//! per-page I/O path of a page-in is chargeable too; stealing frames and the page-out path are
//! system (nonchargeable) time. A virtual CPU in page wait has left its processor (state
//! `PageWait`, not runnable for the scheduler) until its page-in completes.

use crate::below2g::{get, set};
use crate::config::{Config, PagingCipher, PagingVolume, PagingVolumeType, Refs, StorageCfg};
use crate::io::IoReq;
use crate::io::{DevType, Device, DeviceSummary, Service};
use crate::level::{EdevPaging, Switches};
use crate::params::Params;
use crate::queue::Time;
use crate::rng::Rng;
use crate::storage::{Found, RealStorage};
use crate::units::{path_ns, NONE};
use serde::Serialize;

pub struct Paging {
    st: RealStorage,
    devs: Vec<Device>,
    /// Per-device CP cost per page moved.
    cost_io: Vec<Time>,
    refs: Vec<Option<Refs>>,
    cursor: Vec<u64>,
    cost_fault: Time,
    cost_first: Time,
    cost_reval: Time,
    cost_steal: Time,
    /// CP time of one paging I/O whatever its pages (`paging.path_ssch`), per volume (lower
    /// for an ECKD volume driven in zHPF transport mode).
    cost_ssch: Vec<Time>,
    /// SET PAGING HPF ON in effect (asked for, and the level supports it).
    hpf: bool,
    /// Encrypted paging (VM65993): the cipher in effect, CP time (ns) to encrypt a page written
    /// and to decrypt a page read, and the pages and time spent on each.
    cipher: Option<PagingCipher>,
    cost_encrypt: Time,
    cost_decrypt: Time,
    encrypted: u64,
    decrypted: u64,
    block: usize,
    next_vol: usize,
    out_of_space: Option<Time>,
    wait_ns: u64,
    waits: u64,
    touches: u64,
    /// Pre-6.3 reorder: on, cost per resident page, interval, last reorder per user.
    reorder: bool,
    reorder_page_ns: f64,
    reorder_interval: Time,
    last_reorder: Vec<Time>,
    reorders: u64,
    reorder_ns: u64,
    reorder_max_ns: u64,
    /// Page-ins in flight: global page number -> other virtual CPUs waiting for the same page.
    inflight: std::collections::HashMap<u32, Vec<u32>>,
    /// Per virtual CPU: the page of its pending page-in.
    vpage: Vec<u32>,
    shared_waits: u64,
    /// Below-2GB frames CP holds per paging I/O, and the search cost per frame examined (ns
    /// at nominal speed); the I/Os holding them; the RNG of the searches.
    below_per_io: u64,
    search_ns: f64,
    /// Row D3: contiguous frames for page tables. Coalescing at release (switch
    /// frame_coalesce), pairs of free frames on hand, the probability that a free frame's
    /// neighbour is free, searches and frames examined, their time.
    coalesce: bool,
    pairs: u64,
    pair_q: f64,
    contig_searches: u64,
    contig_examined: u64,
    contig_ns: u64,
    contig_rng: Rng,
    below_rng: Rng,
    search_wall_ns: u64,
    /// The below-2GB demand scan, one task (seed 003: the 6.2 RSMBK's deferred frame request
    /// queue RSADefFRQ): when it is free; per virtual CPU, the instant the scan satisfies its
    /// deferred below-2GB request (its page-in starts then, 0: none); deferrals and their wait.
    scan_free: Time,
    deferred_until: Vec<Time>,
    deferrals: u64,
    defer_wait_ns: u64,
    /// Per virtual CPU: its below-2GB request waits for the write of the changed page whose
    /// frame the scan took; its page-in waits to be started.
    awaiting_write: Vec<bool>,
    pagein_pending: Vec<bool>,
    victim_writes: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct EncryptSummary {
    pub cipher: PagingCipher,
    pub pages_encrypted_per_s: f64,
    pub pages_decrypted_per_s: f64,
    pub encrypt_us_per_page: f64,
    pub decrypt_us_per_page: f64,
    pub encrypt_pct: f64,
    pub decrypt_pct: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct StorageSummary {
    /// Paging I/Os (start subchannels) and pages per paging I/O (row D9).
    pub paging_ios: u64,
    pub pages_per_io: f64,
    /// CP time (chargeable and nonchargeable) per page touch, microseconds (row D9).
    pub cp_us_per_touch: f64,
    /// Mean device service time of a paging I/O (pend + disconnect + connect), ms; whether
    /// paging ran in zHPF transport mode (row D10).
    pub paging_service_ms: f64,
    pub hpf: bool,
    /// Mean response (queue + service) of a paging I/O, ms, and paging I/Os in service per
    /// paging volume on average (above 1 only with HyperPAV aliases; rows D11, D12).
    pub paging_response_ms: f64,
    pub paging_concurrency: f64,
    /// Row D3: page tables freed and requested, searches for contiguous frames, frames examined
    /// per search, and their time (ms per second of run).
    pub pgmbk_frees: u64,
    pub pgmbk_requests: u64,
    pub contig_examined_per_search: f64,
    pub contig_search_ms_per_s: f64,
    /// Encrypted paging (row D13; absent when off): cipher, pages encrypted and decrypted per
    /// second, CP time per page for each, and each as percent of one processor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encryption: Option<EncryptSummary>,
    pub frames: u64,
    pub resident_pages: u64,
    pub references: u64,
    pub first_touches: u64,
    pub revalidations: u64,
    pub faults: u64,
    pub fault_rate: f64,
    pub pages_read: u64,
    pub pages_written: u64,
    pub pages_pending_write: u64,
    /// Pages moved (read + written) per second, per reference.
    pub moves_per_s: f64,
    pub touches_per_s: f64,
    pub moves_per_touch: f64,
    /// All CP time (chargeable + system), microseconds per page moved; None (null) when no
    /// page moved (no figure, rather than all CP time over one move).
    pub cp_us_per_move: Option<f64>,
    pub virt_us_per_touch: f64,
    pub page_wait_ms: f64,
    pub slots: u64,
    pub slots_used: u64,
    /// Set when the paging volumes filled up: the time (s) CP ran out of paging space.
    pub paging_space_exhausted_at_s: Option<f64>,
    /// Memory of the page tables and lists (bytes).
    pub model_bytes: u64,
    /// Pre-6.3 reorders: count, longest (ms, the guest waits that long) and total CP (ms).
    pub reorders: u64,
    pub reorder_max_ms: f64,
    pub reorder_total_ms: f64,
    /// Faults on a page whose page-in another virtual CPU had started (no second I/O).
    pub shared_page_waits: u64,
    /// The 2 GB line (FCX113 UPAGE R<2GB): user pages resident below it, free frames below
    /// it, CP's searches for a below-2GB frame, frames examined per search, and the wall time
    /// of the searches (RSAAVLLK spin included), ms per second of run.
    pub resident_below_2g: u64,
    pub free_below_2g: u64,
    pub below_2g_searches: u64,
    pub below_2g_examined_per_search: f64,
    pub below_2g_search_ms_per_s: f64,
    /// Page-ins whose below-2GB request was deferred to the demand scan, per second, and their
    /// mean wait for it (ms).
    pub below_2g_deferrals_per_s: f64,
    pub below_2g_defer_wait_ms: f64,
    /// Page-outs of changed user pages whose below-2GB frames the scan took, per second.
    pub below_2g_victim_writes_per_s: f64,
}

impl Paging {
    /// Real storage and paging for the scenario, with each user's pages and page references
    /// (users in guest order; None: the scenario has no storage model).
    pub fn for_config(
        cfg: &Config,
        params: &Params,
        level: &crate::level::Level,
    ) -> Option<Paging> {
        let mut pages = Vec::new();
        let mut refs = Vec::new();
        for g in &cfg.guests {
            for _ in 0..g.count {
                pages.push(if g.refs.is_some() {
                    g.storage_pages.unwrap_or(0)
                } else {
                    0
                });
                refs.push(g.refs.clone());
            }
        }
        Paging::new(cfg, params, &level.switches, cfg.seed, &pages, refs)
    }

    /// User `u`'s resident pages now.
    #[inline]
    pub fn resident(&self, u: usize) -> u64 {
        self.st.res_user[u]
    }

    /// User `u`'s guest pages (the size of its page table).
    pub fn guest_pages(&self, u: usize) -> u64 {
        self.st.tables[u].pages
    }

    /// Pageable frames of real storage.
    pub fn frames(&self) -> u64 {
        self.st.frames
    }

    /// Paging exposures (volumes).
    pub fn exposures(&self) -> usize {
        self.devs.len()
    }

    pub fn new(
        cfg: &Config,
        p: &Params,
        sw: &Switches,
        seed: u64,
        pages: &[u64],
        refs: Vec<Option<Refs>>,
    ) -> Option<Paging> {
        let sc = cfg.storage.as_ref()?;
        let ms = 1e6;
        let hpf = sc.hpf && sw.paging_hpf == crate::level::PagingHpf::Supported;
        let (cipher, cost_encrypt, cost_decrypt) = paging_cipher(sc, p, sw);
        let PagingVolumes {
            devs,
            cost_io,
            cost_ssch,
            slots,
        } = paging_volumes(sc, p, sw, seed, hpf);
        let st = real_storage(sc, p, sw, pages, &refs, slots);
        // A prefill that leaves more pages off storage than there are slots starts with the
        // paging space exhausted (the first block write would find it; a run with none left
        // more slots used than exist and reported no exhaustion).
        let out_of_space = (st.slots_used > st.slots).then_some(0);
        Some(Paging {
            st,
            devs,
            cost_io,
            cursor: vec![0; refs.len()],
            refs,
            cost_fault: path_ns(p, p.path_fault(), 0.0),
            cost_first: path_ns(p, p.path_first_touch(), 0.0),
            cost_reval: path_ns(p, p.path_revalidate(), 0.0),
            cost_steal: path_ns(p, p.path_steal(), 0.0),
            cost_ssch,
            hpf,
            cipher,
            cost_encrypt,
            cost_decrypt,
            encrypted: 0,
            decrypted: 0,
            block: (match sw.paging_payload {
                crate::level::PagingPayload::Classic => p.block_pages(),
                crate::level::PagingPayload::Large => p.block_pages_64(),
            } as usize)
                .max(1),
            next_vol: 0,
            out_of_space,
            wait_ns: 0,
            waits: 0,
            touches: 0,
            reorder: sw.reorder == crate::level::Reorder::On,
            reorder_page_ns: p.path_reorder_page() * p.cpi_cp() / p.clock_ghz(),
            reorder_interval: (p.reorder_interval() * ms) as Time,
            last_reorder: vec![0; pages.len()],
            reorders: 0,
            reorder_ns: 0,
            reorder_max_ns: 0,
            inflight: Default::default(),
            vpage: Vec::new(),
            shared_waits: 0,
            below_per_io: p.below2g_per_io().round() as u64,
            // Each frame examined: its path plus one cache miss sourced from beyond the drawer (the
            // frame table of a large storage is far larger than the caches).
            search_ns: (p.path_frame_search() * p.cpi_cp() + p.cycles_remote()) / p.clock_ghz(),
            coalesce: sw.frame_coalesce == crate::level::FrameCoalesce::On,
            pairs: 0,
            pair_q: p.avail_fraction().clamp(1e-6, 1.0),
            contig_searches: 0,
            contig_examined: 0,
            contig_ns: 0,
            contig_rng: Rng::stream(seed, 920_000),
            below_rng: Rng::stream(seed, 910_000),
            search_wall_ns: 0,
            scan_free: 0,
            deferred_until: Vec::new(),
            deferrals: 0,
            defer_wait_ns: 0,
            awaiting_write: Vec::new(),
            pagein_pending: Vec::new(),
            victim_writes: 0,
        })
    }

    /// The below-2GB demand scan examines `examined` frames for a request made at `now`: it
    /// serves requests one after another. Returns when this one is satisfied and the scan's
    /// time (system time, nominal speed).
    fn below_scan(&mut self, now: Time, examined: u64) -> (Time, Time) {
        let hold = (examined as f64 * self.search_ns) as Time;
        let start = self.scan_free.max(now);
        self.scan_free = start + hold;
        self.search_wall_ns += hold;
        (self.scan_free, hold)
    }

    /// The volume that holds a page's slot (slots spread over the volumes).
    fn volume_of(&self, id: u64) -> usize {
        (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize % self.devs.len().max(1)
    }
}

/// The frame counters before a page reference, for CP's frame work after it
/// (`Paging::reference`).
#[derive(Clone, Copy, Debug)]
pub struct FrameMark {
    steals: u64,
    pgmbk_requests: u64,
    pgmbk_frees: u64,
}

/// The storage record's cumulative counters (the monitor's `StoSnap`): frames, residency,
/// paging I/O, faults, slots.
#[derive(Clone, Copy, Debug, Default)]
pub struct StorageCounters {
    pub frames: u64,
    pub resident: u64,
    pub pages_read: u64,
    pub pages_written: u64,
    pub faults: u64,
    pub first_touches: u64,
    pub slots: u64,
    pub slots_used: u64,
}

/// A page touch: the reference, what it costs CP, and the frame work after it.
impl Paging {
    /// Counts a touch; false when paging space ran out (CP cannot free frames, the guest stays
    /// in page wait).
    pub fn begin_touch(&mut self) -> bool {
        self.touches += 1;
        self.out_of_space.is_none()
    }

    /// The page user `u` references next, drawn by its reference pattern with `rng` (its
    /// virtual CPU's); None: the user has no storage model.
    pub fn next_page(&mut self, u: usize, rng: &mut Rng) -> Option<u64> {
        let r = self.refs[u].as_ref()?;
        Some(match *r {
            Refs::Uniform { range_pages } => rng.below(range_pages),
            Refs::Hotset {
                range_pages,
                hot_pages,
                hot_fraction,
            } => {
                if rng.unit() < hot_fraction {
                    rng.below(hot_pages)
                } else {
                    hot_pages + rng.below(range_pages - hot_pages)
                }
            }
            Refs::Strided {
                range_pages,
                stride_pages,
            } => {
                let c = self.cursor[u];
                self.cursor[u] = (c + stride_pages) % range_pages;
                c
            }
        })
    }

    /// User `u` references `page`: what it found, and the frame counters before it.
    pub fn reference(&mut self, u: u32, page: u64) -> (Found, FrameMark) {
        let mark = FrameMark {
            steals: self.st.steals,
            pgmbk_requests: self.st.pgmbk_requests,
            pgmbk_frees: self.st.pgmbk_frees,
        };
        (self.st.reference(u, page), mark)
    }

    /// Page tables (PGMBKs) freed and requested since `m`.
    pub fn pgmbks_since(&self, m: FrameMark) -> (u64, u64) {
        (
            self.st.pgmbk_frees - m.pgmbk_frees,
            self.st.pgmbk_requests - m.pgmbk_requests,
        )
    }

    /// Frames a fault took from the available list since `m`: its own and the stolen ones.
    pub fn frames_taken_since(&self, m: FrameMark) -> u64 {
        1 + self.st.steals - m.steals
    }

    /// Chargeable CP time of a reference that found `f` without a page-in (0: none).
    pub fn touch_cost(&self, f: Found) -> Time {
        match f {
            Found::Revalidated => self.cost_reval,
            Found::FirstTouch => self.cost_first,
            Found::Valid | Found::OnDasd => 0,
        }
    }

    /// Pre-6.3 reorder: when faulting user `u` is due for it at `now`, all its resident frames
    /// are walked first; returns that CP time.
    pub fn reorder_due(&mut self, u: usize, now: Time) -> Option<Time> {
        if !(self.reorder && now >= self.last_reorder[u] + self.reorder_interval) {
            return None;
        }
        self.last_reorder[u] = now;
        let c = (self.st.res_user[u] as f64 * self.reorder_page_ns) as Time;
        self.reorders += 1;
        self.reorder_ns += c;
        self.reorder_max_ns = self.reorder_max_ns.max(c);
        Some(c)
    }

    /// Row D3: `freed` page tables went back and `needed` are wanted. With coalescing a freed
    /// table's frames go back as a pair and the next request takes it; without, a request
    /// searches the available frames for one whose neighbour is free (geometric). Returns the
    /// searches' time (ns at nominal speed).
    pub fn contiguous_search(&mut self, freed: u64, needed: u64) -> f64 {
        if self.coalesce {
            self.pairs += freed;
        }
        let mut hold = 0.0;
        for _ in 0..needed {
            let x = if self.coalesce && self.pairs > 0 {
                self.pairs -= 1;
                1
            } else {
                let v = 1.0 - self.contig_rng.unit();
                ((v.ln() / (1.0 - self.pair_q).ln()).ceil() as u64).max(1)
            };
            self.contig_searches += 1;
            self.contig_examined += x;
            hold += x as f64 * self.search_ns;
        }
        hold
    }

    /// The contiguous-frame searches took `wall` (under RSAAVLLK).
    pub fn contiguous_waited(&mut self, wall: Time) {
        self.contig_ns += wall;
    }
}

/// Page-ins: started, shared by other virtual CPUs, completed.
impl Paging {
    /// Virtual CPU `v` of user `u` faults on resident `page` whose page-in another virtual CPU
    /// started: it waits for the same I/O. Returns the fault's CP time, or None (no such I/O).
    pub fn join_pagein(&mut self, u: u32, page: u64, v: u32) -> Option<Time> {
        if self.inflight.is_empty() {
            return None;
        }
        let g = self.st.gid(u, page);
        self.inflight.get_mut(&g)?.push(v);
        self.shared_waits += 1;
        Some(self.cost_fault)
    }

    /// Virtual CPU `v` of user `u` starts the page-in of `page`: the volume that holds it and
    /// the fault's chargeable CP time (fault, I/O path, SSCH, decryption).
    pub fn begin_pagein(&mut self, u: u32, page: u64, v: u32) -> (u32, Time) {
        let g = self.st.gid(u, page);
        self.inflight.insert(g, Vec::new());
        if self.vpage.len() <= v as usize {
            self.vpage.resize(v as usize + 1, NONE);
        }
        self.vpage[v as usize] = g;
        let d = self.volume_of(g as u64);
        // Decrypting the page read is on the page-in's path (chargeable).
        self.decrypted += (self.cost_decrypt > 0) as u64;
        let cp = self.cost_fault + self.cost_io[d] + self.cost_ssch[d] + self.cost_decrypt;
        (d as u32, cp)
    }

    /// Start virtual CPU `v`'s page-in on volume `d` at `now` (its deferral over): the
    /// completion if it starts at once.
    pub fn submit_pagein(&mut self, v: u32, d: u32, now: Time) -> Option<Time> {
        set(&mut self.pagein_pending, v, false);
        set(&mut self.deferred_until, v, 0);
        let r = IoReq {
            pages: 1,
            read: true,
            waiter: v,
            queued: now,
            tag: self.vpage[v as usize],
        };
        self.devs[d as usize].submit(now, r)
    }

    /// The page-in of global page `tag` completed after `wait`: the other virtual CPUs that
    /// waited for it.
    pub fn pagein_done(&mut self, tag: u32, wait: Time) -> Vec<u32> {
        self.wait_ns += wait;
        self.waits += 1;
        self.inflight.remove(&tag).unwrap_or_default()
    }

    /// A paging I/O completed: CP gives back its below-2GB frames.
    pub fn release_below_frames(&mut self) {
        for _ in 0..self.below_per_io {
            self.st.cp_release_below();
        }
    }
}

/// Block page-out of stolen pages.
impl Paging {
    /// Issue block page-outs for the pages stolen (all of them when `all`) at `now`; `started`
    /// is told each volume's completion when its I/O starts at once. Returns the system time
    /// and the blocks written (None: nothing to write or no volume).
    pub fn write_blocks(
        &mut self,
        all: bool,
        now: Time,
        mut started: impl FnMut(u32, Time),
    ) -> Option<(Time, u64)> {
        if self.st.pending_writes.is_empty() || self.devs.is_empty() {
            return None;
        }
        self.count_slots(now);
        let mut sys = 0;
        // One path: its uses of the volume list and its below-2GB searches are one hold each.
        let (mut blocks, mut search) = (0u64, 0 as Time);
        while self.st.pending_writes.len() >= self.block
            || (all && !self.st.pending_writes.is_empty())
        {
            let n = self.block.min(self.st.pending_writes.len());
            // CP's below-2GB frames for the write I/O (searched for when none is free).
            let examined = self.take_below_frames();
            if examined > 0 {
                search += (examined as f64 * self.search_ns) as Time;
            }
            self.st.pending_writes.drain(..n);
            let (io, d, done) = self.page_out(n as u32, NONE, now);
            sys += io;
            blocks += 1;
            if let Some(t) = done {
                started(d, t);
            }
        }
        if search > 0 {
            sys += self.scan_for_writes(now, search);
        }
        Some((sys, blocks))
    }

    /// Slots: every touched page that is not resident is on DASD (or being written); paging
    /// space ran out at `now` when they are more than the slots.
    fn count_slots(&mut self, now: Time) {
        self.st.slots_used = self.st.first_touches - self.st.resident;
        if self.st.slots_used > self.st.slots && self.out_of_space.is_none() {
            self.out_of_space = Some(now);
        }
    }

    /// The writes' below-2GB frames come from the same demand scan, which their `search`
    /// occupies (the write itself is not held back: a simplification). Returns the system time.
    fn scan_for_writes(&mut self, now: Time, search: Time) -> Time {
        let (_, hold) = self.below_scan(now, 0);
        self.scan_free += search;
        self.search_wall_ns += search;
        hold + search
    }
}

/// Below-2GB frames for paging I/O (below2g.rs): a page-in's deferred request, the page-out of
/// the changed pages the scan took, and when the page-in may start.
impl Paging {
    /// CP takes its below-2GB frames for virtual CPU `v`'s page-in at `now`. None: every one
    /// was free. Else the request is deferred to the demand scan: the scan's system time and
    /// the changed pages whose frames it took (to be written before CP uses them).
    pub fn defer_below(&mut self, v: u32, now: Time) -> Option<(Time, u32)> {
        let before = self.st.pending_writes.len();
        let examined = self.take_below_frames();
        if examined == 0 {
            return None;
        }
        let (done, hold) = self.below_scan(now, examined);
        set(&mut self.deferred_until, v, done);
        self.deferrals += 1;
        self.defer_wait_ns += done - now;
        let victims = self.st.pending_writes.len() - before;
        if victims > 0 {
            self.st.pending_writes.truncate(before);
            set(&mut self.awaiting_write, v, true);
        }
        Some((hold, victims as u32))
    }

    /// One page-out I/O at `now` of `n` changed pages stolen for `v`'s deferred request, with
    /// its own below-2GB frames: its system time, volume and completion if it starts at once.
    /// None: no paging volume (the request no longer waits for a write).
    pub fn write_victims(
        &mut self,
        v: u32,
        n: u32,
        now: Time,
    ) -> Option<(Time, u32, Option<Time>)> {
        if self.devs.is_empty() {
            self.victim_written(v);
            return None;
        }
        let examined = self.take_below_frames();
        let (_, search) = self.below_scan(now, examined);
        self.victim_writes += 1;
        let (io, d, done) = self.page_out(n, v, now);
        Some((io + search, d, done))
    }

    /// The page-out of the page stolen for `v`'s request completed.
    pub fn victim_written(&mut self, v: u32) {
        set(&mut self.awaiting_write, v, false);
    }

    /// `v`'s page-in can start at `now`: no deferred request pending, or the scan has found its
    /// frame and the stolen page has been written.
    pub fn pagein_ready(&self, v: u32, now: Time) -> bool {
        get(&self.deferred_until, v) <= now && !get(&self.awaiting_write, v)
    }

    /// When the scan satisfies `v`'s deferred request (0: none).
    pub fn deferred_until(&self, v: u32) -> Time {
        get(&self.deferred_until, v)
    }

    /// `v`'s page-in waits to be started (its request deferred, or its victim being written).
    pub fn set_pagein_pending(&mut self, v: u32) {
        set(&mut self.pagein_pending, v, true);
    }

    /// Whether `v`'s page-in waits to be started.
    pub fn pagein_pending(&self, v: u32) -> bool {
        get(&self.pagein_pending, v)
    }
}

/// What others see of paging: the volumes (for the I/O subsystems), real storage (shared with
/// the minidisk cache) and the monitor's counters.
impl Paging {
    /// The paging volumes, in order (`Entity::PagingDevice` numbers them).
    pub fn devices(&self) -> &[Device] {
        &self.devs
    }

    pub fn devices_mut(&mut self) -> &mut [Device] {
        &mut self.devs
    }

    pub fn device_mut(&mut self, d: u32) -> &mut Device {
        &mut self.devs[d as usize]
    }

    /// Real storage, which the minidisk cache shares with paging (its frames, the below-2GB
    /// frames CP's search took from it, the faults its arbiter weighs).
    pub fn storage_mut(&mut self) -> &mut RealStorage {
        &mut self.st
    }

    /// The storage record's counters now.
    pub fn counters(&self) -> StorageCounters {
        let s = &self.st;
        StorageCounters {
            frames: s.frames,
            resident: s.resident,
            pages_read: s.pages_read,
            pages_written: s.pages_written,
            faults: s.faults,
            first_touches: s.first_touches,
            slots: s.slots,
            slots_used: s.slots_used,
        }
    }

    /// Per user: pages read, pages stolen and resident pages.
    pub fn user_counters(&self) -> Vec<(u64, u64, u64)> {
        let s = &self.st;
        (0..s.res_user.len())
            .map(|u| (s.reads_user[u], s.steals_user[u], s.res_user[u]))
            .collect()
    }

    /// Per user: virtual storage and working set (the range it references), in pages.
    pub fn user_storage(&self) -> Vec<(u64, u64)> {
        (0..self.st.tables.len())
            .map(|u| {
                let wss = self
                    .refs
                    .get(u)
                    .and_then(|r| r.as_ref())
                    .map_or(0, |r| r.range());
                (self.st.tables[u].pages, wss)
            })
            .collect()
    }
}

/// The paging volumes (SET PAGING HPF, EDEV paging by level) and the CP path of each one's I/O.
struct PagingVolumes {
    devs: Vec<Device>,
    cost_io: Vec<Time>,
    cost_ssch: Vec<Time>,
    slots: u64,
}

/// Encrypted paging (VM65993): the cipher and the CP cost to encrypt and decrypt one page. AES
/// rounds by key length (FIPS 197); the cipher's cycles per byte and round are the CPACF figure
/// the SSL server uses (ssl.aes_cycles_per_byte_round).
fn paging_cipher(sc: &StorageCfg, p: &Params, sw: &Switches) -> (Option<PagingCipher>, Time, Time) {
    let cipher = sc
        .encrypt
        .filter(|_| sw.paging_encrypt == crate::level::PagingEncrypt::Vm65993);
    let rounds = cipher.map_or(0.0, PagingCipher::rounds);
    let aes = 4096.0 * rounds * p.ssl_aes_cpb_round() / p.clock_ghz();
    let setup = if rounds > 0.0 {
        path_ns(p, p.crypt_setup(), 0.0) as f64
    } else {
        0.0
    };
    let cost_encrypt = (setup + aes).round() as Time;
    let cost_decrypt = (setup + aes * p.decrypt_factor().max(0.0)).round() as Time;
    (cipher, cost_encrypt, cost_decrypt)
}

/// Every paging volume of the scenario as a device, numbered PAGE00, PAGE01, ...
fn paging_volumes(
    sc: &StorageCfg,
    p: &Params,
    sw: &Switches,
    seed: u64,
    hpf: bool,
) -> PagingVolumes {
    let mut vols = PagingVolumes {
        devs: Vec::new(),
        cost_io: Vec::new(),
        cost_ssch: Vec::new(),
        slots: 0,
    };
    for v in &sc.paging_volumes {
        for _ in 0..v.count {
            let k = vols.devs.len();
            // zHPF transport mode (ECKD only): shorter pend and connect, a smaller SSCH path.
            let tm = hpf && v.dtype == PagingVolumeType::Eckd;
            let ssch = p.path_ssch()
                * if tm {
                    p.hpf_ssch_factor().max(0.0)
                } else {
                    1.0
                };
            vols.cost_ssch.push(path_ns(p, ssch, 0.0));
            let (dt, servers, svc, path) = paging_device(v, p, sw, tm);
            vols.slots += v.slots;
            vols.devs.push(Device::new(
                format!("PAGE{k:02}"),
                dt,
                servers,
                svc,
                v.slots,
                Rng::stream(seed, 900_000 + k as u64),
            ));
            vols.cost_io.push(path_ns(p, path, 0.0));
        }
    }
    vols
}

/// One paging volume's device type, servers (concurrent I/Os), service times and CP I/O path:
/// an ECKD volume (zHPF transport mode `tm` shortens pend and connect), or an EDEV driven by FBA
/// emulation or, from the level that has it, directly by the SCSI driver (an XIV before VM65929
/// one I/O at a time).
fn paging_device(
    v: &PagingVolume,
    p: &Params,
    sw: &Switches,
    tm: bool,
) -> (DevType, u32, Service, f64) {
    let ms = 1e6;
    if v.dtype == PagingVolumeType::Eckd {
        let (pf, cf) = if tm {
            (
                p.hpf_pend_factor().max(0.0),
                p.hpf_connect_factor().max(0.0),
            )
        } else {
            (1.0, 1.0)
        };
        let svc = Service {
            pend: p.eckd_pend() * ms * pf,
            disconnect: p.eckd_disconnect() * ms,
            connect_per_page: p.eckd_connect() * ms * cf,
        };
        return (DevType::Eckd, 1, svc, p.path_io_eckd());
    }
    let svc = Service {
        pend: p.edev_pend() * ms,
        disconnect: p.edev_disconnect() * ms,
        connect_per_page: p.edev_connect() * ms,
    };
    let serial_xiv = v.xiv && sw.xiv_io == crate::level::XivIo::Serial;
    match sw.edev_paging {
        EdevPaging::FbaEmulation => (DevType::Edev, 1, svc, p.path_io_edev_fba()),
        EdevPaging::ScsiDirect => {
            let servers = if serial_xiv {
                1
            } else {
                p.edev_queue_depth().max(1.0) as u32
            };
            (DevType::Edev, servers, svc, p.path_io_edev_scsi())
        }
    }
}

/// Real storage: the pageable frames, the guests' page tables, the aging list by level, the
/// frames below 2 GB left to users (and their elective use by level), and, with `[storage]
/// prefill`, the steady state after a long warm-up.
fn real_storage(
    sc: &StorageCfg,
    p: &Params,
    sw: &Switches,
    pages: &[u64],
    refs: &[Option<Refs>],
    slots: u64,
) -> RealStorage {
    let mut st = RealStorage::new(
        sc.frames,
        pages,
        p.agelist_pct(),
        sw.agelist == crate::level::AgeList::On,
        slots,
    );
    let frames_below = (crate::storage::FRAMES_BELOW_2G as f64 - p.cp_below2g_frames()).max(0.0);
    st.set_below_2g(
        frames_below as u64,
        sw.below2g == crate::level::Below2g::Elective,
    );
    if sc.prefill {
        prefill(&mut st, refs);
    }
    st
}

/// Guests' pages are prefilled interleaved in chunks of this many pages, so that every guest ends
/// up with its share of the frames.
const PREFILL_CHUNK: u64 = 256;

/// Steady state after a long warm-up (`[storage] prefill`): every guest's reference range
/// touched, frames shared among the guests by the interleaved walk, the rest on DASD. A guest
/// whose references are uniform holds its frames spread over its range (its steady state);
/// the others hold the front of their range (a hot set's hot pages, a stride's start).
fn prefill(st: &mut RealStorage, refs: &[Option<Refs>]) {
    let counts = prefill_counts(st.user_frames_free(), refs);
    let mut lo = 0;
    while refs.iter().flatten().any(|r| r.range() > lo) {
        for (u, r) in refs.iter().enumerate() {
            let Some(r) = r else { continue };
            let hi = (lo + PREFILL_CHUNK).min(r.range());
            if hi <= lo {
                continue;
            }
            match *r {
                Refs::Uniform { range_pages } => {
                    st.prefill_spread(u as u32, lo, hi, counts[u], range_pages)
                }
                _ => st.prefill_pages(u as u32, lo, hi),
            }
        }
        lo += PREFILL_CHUNK;
    }
    for (u, r) in refs.iter().enumerate() {
        if let Some(Refs::Uniform { range_pages }) = *r {
            st.prefill_spread_rest(u as u32, range_pages);
            debug_assert_eq!(st.res_user[u], counts[u]);
        }
    }
}

/// How many frames each guest holds after the interleaved walk of `prefill`, with `free`
/// frames to share.
fn prefill_counts(mut free: u64, refs: &[Option<Refs>]) -> Vec<u64> {
    let mut counts = vec![0; refs.len()];
    let mut lo = 0;
    while refs.iter().flatten().any(|r| r.range() > lo) {
        for (u, r) in refs.iter().enumerate() {
            let Some(r) = r else { continue };
            let take = (lo + PREFILL_CHUNK)
                .min(r.range())
                .saturating_sub(lo)
                .min(free);
            counts[u] += take;
            free -= take;
        }
        lo += PREFILL_CHUNK;
    }
    counts
}

impl Paging {
    /// The run summary's `storage` at `now`, given the processors' busy time and the guests'
    /// virtual time (CP time is their difference).
    pub fn summary(&self, now: Time, busy: u64, virt: u64) -> StorageSummary {
        let pg = self;
        let s = &pg.st;
        let dur = now.max(1) as f64 / 1e9;
        let moves = s.pages_read + s.pages_written;
        let ios: u64 = pg.devs.iter().map(|d| d.stats.ios).sum();
        let io_pages: u64 = pg.devs.iter().map(|d| d.stats.pages).sum();
        StorageSummary {
            paging_ios: ios,
            pages_per_io: io_pages as f64 / ios.max(1) as f64,
            cp_us_per_touch: (busy - virt) as f64 / 1e3 / pg.touches.max(1) as f64,
            paging_service_ms: {
                let svc: u64 = pg
                    .devs
                    .iter()
                    .map(|d| d.stats.pend_ns + d.stats.disconnect_ns + d.stats.connect_ns)
                    .sum();
                svc as f64 / 1e6 / ios.max(1) as f64
            },
            hpf: pg.hpf,
            pgmbk_frees: s.pgmbk_frees,
            pgmbk_requests: s.pgmbk_requests,
            contig_examined_per_search: pg.contig_examined as f64
                / pg.contig_searches.max(1) as f64,
            contig_search_ms_per_s: pg.contig_ns as f64 / 1e6 / dur,
            encryption: pg.cipher.map(|c| EncryptSummary {
                cipher: c,
                pages_encrypted_per_s: pg.encrypted as f64 / dur,
                pages_decrypted_per_s: pg.decrypted as f64 / dur,
                encrypt_us_per_page: pg.cost_encrypt as f64 / 1e3,
                decrypt_us_per_page: pg.cost_decrypt as f64 / 1e3,
                encrypt_pct: 100.0 * (pg.encrypted * pg.cost_encrypt) as f64 / (dur * 1e9),
                decrypt_pct: 100.0 * (pg.decrypted * pg.cost_decrypt) as f64 / (dur * 1e9),
            }),
            paging_response_ms: {
                let t: u64 = pg
                    .devs
                    .iter()
                    .map(|d| d.stats.busy_ns + d.stats.queue_ns)
                    .sum();
                t as f64 / 1e6 / ios.max(1) as f64
            },
            paging_concurrency: {
                let b: u64 = pg.devs.iter().map(|d| d.stats.busy_ns).sum();
                b as f64 / (dur * 1e9) / pg.devs.len().max(1) as f64
            },
            frames: s.frames,
            resident_pages: s.resident,
            references: s.references,
            first_touches: s.first_touches,
            revalidations: s.revalidations,
            faults: s.faults,
            fault_rate: s.faults as f64 / s.references.max(1) as f64,
            pages_read: s.pages_read,
            pages_written: s.pages_written,
            pages_pending_write: s.pending_writes.len() as u64,
            moves_per_s: moves as f64 / dur,
            touches_per_s: pg.touches as f64 / dur,
            moves_per_touch: moves as f64 / pg.touches.max(1) as f64,
            cp_us_per_move: (moves > 0).then(|| (busy - virt) as f64 / 1e3 / moves as f64),
            virt_us_per_touch: virt as f64 / 1e3 / pg.touches.max(1) as f64,
            page_wait_ms: pg.wait_ns as f64 / 1e6 / pg.waits.max(1) as f64,
            slots: s.slots,
            slots_used: s.slots_used,
            paging_space_exhausted_at_s: pg.out_of_space.map(|t| t as f64 / 1e9),
            model_bytes: (s.bytes() + pg.devs.len() * 256) as u64,
            reorders: pg.reorders,
            reorder_max_ms: pg.reorder_max_ns as f64 / 1e6,
            reorder_total_ms: pg.reorder_ns as f64 / 1e6,
            shared_page_waits: pg.shared_waits,
            resident_below_2g: s.below.len() as u64,
            free_below_2g: s.free_below,
            below_2g_searches: s.below_searches,
            below_2g_examined_per_search: s.below_examined as f64 / s.below_searches.max(1) as f64,
            below_2g_search_ms_per_s: pg.search_wall_ns as f64 / 1e6 / dur,
            below_2g_deferrals_per_s: pg.deferrals as f64 / dur,
            below_2g_defer_wait_ms: pg.defer_wait_ns as f64 / 1e6 / pg.deferrals.max(1) as f64,
            below_2g_victim_writes_per_s: pg.victim_writes as f64 / dur,
        }
    }

    /// CP takes the below-2GB frames one paging I/O needs (`below_per_io`): the frames its
    /// searches examined (0: every one was free).
    fn take_below_frames(&mut self) -> u64 {
        let mut examined = 0;
        for _ in 0..self.below_per_io {
            examined += self.st.cp_take_below(&mut self.below_rng);
        }
        examined
    }

    /// A page-out I/O of `n` pages to the next paging volume in turn at `now` (`waiter`: the
    /// virtual CPU that waits for it, or NONE): the system time it costs (steal, I/O and
    /// encryption per page, one SSCH), the volume, and its completion if it starts at once.
    fn page_out(&mut self, n: u32, waiter: u32, now: Time) -> (Time, u32, Option<Time>) {
        let d = self.next_vol;
        self.next_vol = (self.next_vol + 1) % self.devs.len();
        self.st.pages_written += n as u64;
        self.encrypted += if self.cost_encrypt > 0 { n as u64 } else { 0 };
        let sys =
            (self.cost_steal + self.cost_io[d] + self.cost_encrypt) * n as Time + self.cost_ssch[d];
        let r = crate::io::IoReq {
            pages: n,
            read: false,
            waiter,
            queued: now,
            tag: crate::units::NONE,
        };
        (sys, d as u32, self.devs[d].submit(now, r))
    }

    /// The paging volumes' figures at `now`.
    pub fn device_summaries(&self, now: Time) -> Vec<DeviceSummary> {
        self.devs
            .iter()
            .map(|d| d.summary(now.max(1) as f64))
            .collect()
    }
}

#[cfg(test)]
#[path = "paging_tests.rs"]
mod tests;
