//! Paging's wiring (paging.rs and storage.rs hold real storage, page state and the paging
//! volumes): a virtual CPU's page fault, its page wait and resumption, page writes, and the
//! storage figures of the run summary.

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
        if !self.page_reference(l, v) {
            return false;
        }
        self.continue_run(l, v);
        true
    }

    /// The page reference at the head of `v`'s burst on processor `l`: the CP time it costs is
    /// owed by `v` (`cp_owed`), the frame work's system time by `l` (`sys_owed`). Returns true
    /// when it faults: `v`'s next run is the fault's CP time, then a wait for the page-in
    /// (`pagewait`), and the caller starts that run.
    pub(crate) fn page_reference(&mut self, l: u32, v: u32) -> bool {
        let u = self.vcpus[v as usize].user as usize;
        let pg = self.paging.as_mut().unwrap();
        let Some(page) = pg.next_page(u, &mut self.vcpus[v as usize].rng) else {
            return false;
        };
        if !pg.begin_touch() {
            // No slot to write to: CP cannot free frames; the guest stays in page wait.
            self.vcpus[v as usize].pagewait = true;
            self.vcpus[v as usize].pagein = NONE;
            return true;
        }
        let (found, mark) = pg.reference(u as u32, page);
        self.frame_work(l, v, found, mark);
        let cost = self.paging.as_ref().unwrap().touch_cost(found);
        match found {
            Found::Valid => self.join_pagein(v, page),
            Found::Revalidated => {
                self.vcpus[v as usize].cp_owed += cost;
                false
            }
            Found::FirstTouch => {
                self.sched.count_first_touch(u);
                self.vcpus[v as usize].cp_owed += cost;
                false
            }
            Found::OnDasd => self.start_pagein(v, page),
        }
    }

    /// CP's frame work after virtual CPU `v`'s reference on processor `l` (`mark`: the frame
    /// counters before it): the page tables freed and needed (row D3), the frames taken from
    /// and returned to the available list under the frame lock, the page-outs of stolen changed
    /// pages, and the pre-6.3 reorder of a faulting guest due for it.
    fn frame_work(&mut self, l: u32, v: u32, found: Found, mark: FrameMark) {
        let u = self.vcpus[v as usize].user as usize;
        let pg = self.paging.as_mut().unwrap();
        let (freed, needed) = pg.pgmbks_since(mark);
        if freed + needed > 0 {
            self.contiguous_frames(l, freed, needed);
        }
        let pg = self.paging.as_mut().unwrap();
        let faulted = matches!(found, Found::OnDasd | Found::FirstTouch);
        if faulted {
            // Frames taken from (and stolen frames returned to) the available list.
            let frames = pg.frames_taken_since(mark);
            let rate = self.lpus[l as usize].rate;
            let wall = self.locks.frames(l, self.now, frames, rate);
            self.lpus[l as usize].sys_owed += crate::cpu::slice_work(wall, rate);
        }
        self.flush_writes(false);
        let pg = self.paging.as_mut().unwrap();
        if faulted {
            if let Some(c) = pg.reorder_due(u, self.now) {
                self.vcpus[v as usize].cp_owed += c;
            }
        }
    }

    /// A resident page whose page-in another virtual CPU started: `v` waits for the same I/O
    /// (after the fault's CP time). Returns true when it waits.
    fn join_pagein(&mut self, v: u32, page: u64) -> bool {
        let u = self.vcpus[v as usize].user;
        let pg = self.paging.as_mut().unwrap();
        let Some(cp) = pg.join_pagein(u, page, v) else {
            return false;
        };
        let vc = &mut self.vcpus[v as usize];
        vc.pagewait = true;
        vc.pagein = NONE;
        vc.cp_owed += cp;
        true
    }

    /// A page on DASD: `v` runs the fault's CP path (below-2GB frames for the I/O, the SSCH,
    /// any decryption) and then waits for the page-in from the page's volume.
    fn start_pagein(&mut self, v: u32, page: u64) -> bool {
        let u = self.vcpus[v as usize].user;
        self.sched.count_pagein(u as usize);
        // CP's below-2GB frames for the page-in: when none is on the below-2GB available list
        // the request is deferred to the below-2GB demand scan.
        self.take_below_for_io(v);
        let pg = self.paging.as_mut().unwrap();
        let (d, cp) = pg.begin_pagein(u, page, v);
        let vc = &mut self.vcpus[v as usize];
        vc.pagewait = true;
        vc.pagein = d;
        vc.cp_owed += cp;
        true
    }

    /// Row D3: `freed` page tables (PGMBKs, two contiguous frames each) went back with their
    /// segments' last pages and `needed` are wanted by processor `l`: the searches for
    /// contiguous frames (`Paging::contiguous_search`) are system time under RSAAVLLK.
    fn contiguous_frames(&mut self, l: u32, freed: u64, needed: u64) {
        let now = self.now;
        let rate = self.lpus[l as usize].rate;
        let pg = self.paging.as_mut().unwrap();
        let hold = pg.contiguous_search(freed, needed);
        if hold > 0.0 {
            let wall = self.locks.below2g_search(l, now, hold as Time, rate);
            let pg = self.paging.as_mut().unwrap();
            pg.contiguous_waited(wall);
            self.lpus[l as usize].sys_owed += crate::cpu::slice_work(wall, rate);
        }
    }

    /// Issue block page-outs for stolen pages (all of them when `all`).
    fn flush_writes(&mut self, all: bool) {
        let now = self.now;
        let Some(pg) = self.paging.as_mut() else {
            return;
        };
        let q = &mut self.q;
        let started = |d, t| q.schedule(Entity::PagingDevice(d), t);
        let Some((mut sys, blocks)) = pg.write_blocks(all, now, started) else {
            return;
        };
        sys += self.locks.slots_n(now, blocks);
        self.alias_kick();
        self.sched.add_system(sys);
        self.mdc_surrender();
    }

    /// MDC frames CP's below-2GB search took: the cache drops their units.
    pub(crate) fn mdc_surrender(&mut self) {
        let (Some(pg), Some(d)) = (self.paging.as_mut(), self.dasd.as_mut()) else {
            return;
        };
        d.surrender_below(pg.storage_mut());
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
        let dev = pg.device_mut(d);
        let r = dev.complete(now);
        if let Some(t) = dev.next_completion() {
            self.q.schedule(Entity::PagingDevice(d), t);
        }
        if self.aliases.is_some() {
            self.alias_kick();
        }
        let pg = self.paging.as_mut().unwrap();
        if r.is_some() {
            pg.release_below_frames();
        }
        if let Some(r) = r {
            if !r.read && r.waiter != NONE {
                // A changed page stolen for a deferred below-2GB request is written out.
                self.victim_written(r.waiter);
                return;
            }
            if r.read && r.waiter != NONE {
                let pg = self.paging.as_mut().unwrap();
                let others = pg.pagein_done(r.tag, now - r.queued);
                // The page's slot is given back under HCPPGDAL (assumed: with the 6.3 aging
                // list a changed page is written again anyway, so a page read back keeps no slot).
                let t = self.locks.slots(now);
                self.sched.add_system(t);
                let t = self.locks.atod_updates(now, 1 + others.len() as u64);
                self.sched.add_system(t);
                for v in std::iter::once(r.waiter).chain(others) {
                    let vc = &mut self.vcpus[v as usize];
                    vc.pagewait = false;
                    match vc.state {
                        // Waiting for this page-in: ready again.
                        VState::PageWait => self.page_wait_done(v),
                        // A virtual CPU that joined this page-in is still on its processor,
                        // running the fault's CP time (`join_pagein`): the page is in before it
                        // would wait, so that run's end resumes its burst (`lpu_event`). Readying
                        // it here would dispatch it a second time while it runs.
                        VState::Running => vc.run_on = true,
                        // Its fault's run was cut short (a slice end on a parked processor, a
                        // preemption) and it is queued already: it runs its burst when next
                        // dispatched, and is not readied twice.
                        _ => {}
                    }
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
