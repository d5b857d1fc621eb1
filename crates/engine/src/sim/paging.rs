//! Paging's wiring (paging.rs and storage.rs hold real storage, page state and the paging
//! volumes): a virtual CPU's page fault, its page wait and resumption, page writes, and the
//! storage figures of the run summary.

use crate::config::Refs;
use crate::entity::Entity;
use crate::guest::VState;
use crate::io::DeviceSummary;
use crate::paging::*;
use crate::queue::Time;
use crate::sim::Sim;
use crate::storage::Found;
use crate::units::NONE;

impl Sim {
    /// A burst (one touch) of `v` on processor `l` begins with a page reference. Returns true
    /// when the virtual CPU now runs the fault's CP time and then waits for a page-in.
    pub(crate) fn page_touch(&mut self, l: u32, v: u32) -> bool {
        let u = self.vcpus[v as usize].user as usize;
        let Some(page) = self.next_page(u, v) else {
            return false;
        };
        let pg = self.paging.as_mut().unwrap();
        pg.touches += 1;
        if pg.out_of_space.is_some() {
            // No slot to write to: CP cannot free frames; the guest stays in page wait.
            self.vcpus[v as usize].pagewait = true;
            self.vcpus[v as usize].pagein = NONE;
            self.start_pagewait_run(l, v, 0);
            return true;
        }
        let steals = pg.st.steals;
        let (reqs, frees) = (pg.st.pgmbk_requests, pg.st.pgmbk_frees);
        let found = pg.st.reference(u as u32, page);
        self.frame_work(l, v, found, steals, (reqs, frees));
        let pg = self.paging.as_mut().unwrap();
        match found {
            Found::Valid => self.join_pagein(l, v, page),
            Found::Revalidated => {
                self.vcpus[v as usize].cp_owed += pg.cost_reval;
                false
            }
            Found::FirstTouch => {
                self.sched.users[u].firsts += 1;
                self.vcpus[v as usize].cp_owed += pg.cost_first;
                false
            }
            Found::OnDasd => self.start_pagein(l, v, page),
        }
    }

    /// The page user `u`'s virtual CPU `v` references next, drawn by the user's reference
    /// pattern (None: the user has no storage model).
    fn next_page(&mut self, u: usize, v: u32) -> Option<u64> {
        let pg = self.paging.as_mut().unwrap();
        let r = pg.refs[u].clone()?;
        Some(match r {
            Refs::Uniform { range_pages } => self.vcpus[v as usize].rng.below(range_pages),
            Refs::Hotset {
                range_pages,
                hot_pages,
                hot_fraction,
            } => {
                let rng = &mut self.vcpus[v as usize].rng;
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
                let c = pg.cursor[u];
                pg.cursor[u] = (c + stride_pages) % range_pages;
                c
            }
        })
    }

    /// CP's frame work after virtual CPU `v`'s reference on processor `l`: the page tables
    /// freed and needed (row D3; `pgmbks` the PGMBK requests and frees counted before it), the
    /// frames taken from and returned to the available list under the frame lock (`steals`
    /// counted before it), the page-outs of stolen changed pages, and the pre-6.3 reorder of a
    /// faulting guest due for it.
    fn frame_work(&mut self, l: u32, v: u32, found: Found, steals: u64, pgmbks: (u64, u64)) {
        let u = self.vcpus[v as usize].user as usize;
        let pg = self.paging.as_mut().unwrap();
        let (reqs, frees) = pgmbks;
        let (freed, needed) = (pg.st.pgmbk_frees - frees, pg.st.pgmbk_requests - reqs);
        if freed + needed > 0 {
            self.contiguous_frames(l, freed, needed);
        }
        let pg = self.paging.as_mut().unwrap();
        let faulted = matches!(found, Found::OnDasd | Found::FirstTouch);
        if faulted {
            // Frames taken from (and stolen frames returned to) the available list.
            let frames = 1 + pg.st.steals - steals;
            let rate = self.lpus[l as usize].rate;
            let wall = self.locks.frames(l, self.now, frames, rate);
            self.lpus[l as usize].sys_owed += crate::cpu::slice_work(wall, rate);
        }
        self.flush_writes(false);
        let pg = self.paging.as_mut().unwrap();
        // Pre-6.3 reorder: a faulting guest due for it has all its resident frames walked first.
        if pg.reorder && faulted && self.now >= pg.last_reorder[u] + pg.reorder_interval {
            pg.last_reorder[u] = self.now;
            let c = (pg.st.res_user[u] as f64 * pg.reorder_page_ns) as Time;
            pg.reorders += 1;
            pg.reorder_ns += c;
            pg.reorder_max_ns = pg.reorder_max_ns.max(c);
            self.vcpus[v as usize].cp_owed += c;
        }
    }

    /// A resident page whose page-in another virtual CPU started: `v` waits for the same I/O
    /// (after the fault's CP time on processor `l`). Returns true when it waits.
    fn join_pagein(&mut self, l: u32, v: u32, page: u64) -> bool {
        let u = self.vcpus[v as usize].user;
        let pg = self.paging.as_mut().unwrap();
        if pg.inflight.is_empty() {
            return false;
        }
        let g = pg.st.gid(u, page);
        let Some(w) = pg.inflight.get_mut(&g) else {
            return false;
        };
        w.push(v);
        pg.shared_waits += 1;
        let cp = pg.cost_fault;
        let vc = &mut self.vcpus[v as usize];
        vc.pagewait = true;
        vc.pagein = NONE;
        self.start_pagewait_run(l, v, cp);
        true
    }

    /// A page on DASD: `v` runs the fault's CP path on processor `l` (below-2GB frames for the
    /// I/O, the SSCH, any decryption) and then waits for the page-in from the page's volume.
    fn start_pagein(&mut self, l: u32, v: u32, page: u64) -> bool {
        let u = self.vcpus[v as usize].user;
        self.sched.users[u as usize].pageins += 1;
        // CP's below-2GB frames for the page-in: when none is on the below-2GB available list
        // the request is deferred to the below-2GB demand scan.
        self.take_below_for_io(v);
        let pg = self.paging.as_mut().unwrap();
        let g = pg.st.gid(u, page);
        pg.inflight.insert(g, Vec::new());
        if pg.vpage.len() <= v as usize {
            pg.vpage.resize(v as usize + 1, NONE);
        }
        pg.vpage[v as usize] = g;
        let d = pg.volume_of(g as u64);
        // Decrypting the page read is on the page-in's path (chargeable).
        pg.decrypted += (pg.cost_decrypt > 0) as u64;
        let cp = pg.cost_fault + pg.cost_io[d] + pg.cost_ssch[d] + pg.cost_decrypt;
        let vc = &mut self.vcpus[v as usize];
        vc.pagewait = true;
        vc.pagein = d as u32;
        self.start_pagewait_run(l, v, cp);
        true
    }

    /// Row D3: `freed` page tables (PGMBKs, two contiguous frames each) went back with their
    /// segments' last pages and `needed` are wanted by processor `l`. With coalescing a freed
    /// table's frames go back as a pair and the next request takes it; without, they go back
    /// singly and a request searches the available frames for one whose neighbour is free
    /// (geometric, `storage.avail_fraction`), system time under RSAAVLLK.
    fn contiguous_frames(&mut self, l: u32, freed: u64, needed: u64) {
        let now = self.now;
        let rate = self.lpus[l as usize].rate;
        let pg = self.paging.as_mut().unwrap();
        if pg.coalesce {
            pg.pairs += freed;
        }
        let mut hold = 0.0;
        for _ in 0..needed {
            let x = if pg.coalesce && pg.pairs > 0 {
                pg.pairs -= 1;
                1
            } else {
                let v = 1.0 - pg.contig_rng.unit();
                ((v.ln() / (1.0 - pg.pair_q).ln()).ceil() as u64).max(1)
            };
            pg.contig_searches += 1;
            pg.contig_examined += x;
            hold += x as f64 * pg.search_ns;
        }
        if hold > 0.0 {
            let wall = self.locks.below2g_search(l, now, hold as Time, rate);
            let pg = self.paging.as_mut().unwrap();
            pg.contig_ns += wall;
            self.lpus[l as usize].sys_owed += crate::cpu::slice_work(wall, rate);
        }
    }

    fn start_pagewait_run(&mut self, l: u32, v: u32, cp: Time) {
        self.vcpus[v as usize].cp_owed += cp;
        self.continue_run(l, v);
    }

    /// Issue block page-outs for stolen pages (all of them when `all`).
    fn flush_writes(&mut self, all: bool) {
        let now = self.now;
        let Some(pg) = self.paging.as_mut() else {
            return;
        };
        if pg.st.pending_writes.is_empty() || pg.devs.is_empty() {
            return;
        }
        // Slots: every touched page that is not resident is on DASD (or being written).
        pg.st.slots_used = pg.st.first_touches - pg.st.resident;
        if pg.st.slots_used > pg.st.slots && pg.out_of_space.is_none() {
            pg.out_of_space = Some(now);
        }
        let mut sys = 0;
        // One path: its uses of the volume list and its below-2GB searches are one hold each.
        let (mut blocks, mut search) = (0u64, 0 as Time);
        while pg.st.pending_writes.len() >= pg.block || (all && !pg.st.pending_writes.is_empty()) {
            let n = pg.block.min(pg.st.pending_writes.len());
            // CP's below-2GB frames for the write I/O (searched for when none is free).
            let examined = pg.take_below_frames();
            if examined > 0 {
                search += (examined as f64 * pg.search_ns) as Time;
            }
            pg.st.pending_writes.drain(..n);
            let (io, d, done) = pg.page_out(n as u32, NONE, now);
            sys += io;
            blocks += 1;
            if let Some(t) = done {
                self.q.schedule(Entity::PagingDevice(d), t);
            }
        }
        if search > 0 {
            // The write's below-2GB frames come from the same demand scan (the write itself
            // is not held back: a simplification).
            let pg = self.paging.as_mut().unwrap();
            let (_, hold) = pg.below_scan(now, 0);
            pg.scan_free += search;
            pg.search_wall_ns += search;
            sys += hold + search;
        }
        sys += self.locks.slots_n(now, blocks);
        self.alias_kick();
        self.sched.sys_pending += sys;
        self.mdc_surrender();
    }

    /// MDC frames CP's below-2GB search took: the cache drops their units.
    pub(crate) fn mdc_surrender(&mut self) {
        let (Some(pg), Some(d)) = (self.paging.as_mut(), self.dasd.as_mut()) else {
            return;
        };
        if pg.st.mdc_surrendered > 0 {
            if let Some(m) = d.mdc.as_mut() {
                m.surrender_below(&mut pg.st);
            }
        }
    }

    /// The fault's CP time is done: `v` leaves processor `l` and waits for its page-in, which
    /// starts now, or when its deferred below-2GB request is satisfied (below2g.rs).
    pub(crate) fn enter_page_wait(&mut self, l: u32, v: u32) {
        self.release_for_page_wait(l, v, VState::PageWait);
        if self.vcpus[v as usize].pagein != NONE {
            self.pagein_when_ready(v);
        }
        self.dispatch_next(l);
    }

    /// A paging device's I/O completed.
    pub(crate) fn device_event(&mut self, d: u32) {
        let now = self.now;
        let pg = self.paging.as_mut().unwrap();
        let dev = &mut pg.devs[d as usize];
        let r = dev.complete(now);
        if let Some(t) = dev.next_completion() {
            self.q.schedule(Entity::PagingDevice(d), t);
        }
        if self.aliases.is_some() {
            self.alias_kick();
        }
        let pg = self.paging.as_mut().unwrap();
        if r.is_some() {
            for _ in 0..pg.below_per_io {
                pg.st.cp_release_below();
            }
        }
        if let Some(r) = r {
            if !r.read && r.waiter != NONE {
                // A changed page stolen for a deferred below-2GB request is written out.
                self.victim_written(r.waiter);
                return;
            }
            if r.read && r.waiter != NONE {
                let pg = self.paging.as_mut().unwrap();
                pg.wait_ns += now - r.queued;
                pg.waits += 1;
                let others = pg.inflight.remove(&r.tag).unwrap_or_default();
                // The page's slot is given back under HCPPGDAL (assumed: with the 6.3 aging
                // list a changed page is written again anyway, so a page read back keeps no slot).
                self.sched.sys_pending += self.locks.slots(now);
                self.sched.sys_pending += self.locks.atod_updates(now, 1 + others.len() as u64);
                for v in std::iter::once(r.waiter).chain(others) {
                    self.vcpus[v as usize].pagewait = false;
                    self.page_wait_done(v);
                }
            }
        }
    }

    pub fn storage_summary(&self) -> Option<StorageSummary> {
        let busy: u64 = self.lpus.iter().map(|l| l.busy_ns).sum();
        let virt: u64 = self.users.iter().map(|u| u.acct.virt_ns).sum();
        Some(self.paging.as_ref()?.summary(self.now, busy, virt))
    }

    pub fn device_summaries(&self) -> Vec<DeviceSummary> {
        match &self.paging {
            Some(pg) => pg.device_summaries(self.now),
            None => Vec::new(),
        }
    }
}
