//! Storage below 2 GB's wiring (below2g.rs holds the frames below the line and their
//! counters): CP work that needs a frame below 2 GB, and the stealing of guest frames there.

use crate::below2g::*;
use crate::entity::Entity;
use crate::io::IoReq;
use crate::sim::Sim;
use crate::units::NONE;

impl Sim {
    /// CP takes its below-2GB frames for virtual CPU `v`'s page-in (see the module comment).
    pub(crate) fn take_below_for_io(&mut self, v: u32) {
        let now = self.now;
        let pg = self.paging.as_mut().unwrap();
        let before = pg.st.pending_writes.len();
        let examined = pg.take_below_frames();
        if examined == 0 {
            return;
        }
        let (done, hold) = pg.below_scan(now, examined);
        set(&mut pg.deferred_until, v, done);
        pg.deferrals += 1;
        pg.defer_wait_ns += done - now;
        self.sched.sys_pending += hold;
        // The changed pages whose frames the search took are written before CP uses them.
        let victims = pg.st.pending_writes.len() - before;
        if victims > 0 {
            pg.st.pending_writes.truncate(before);
            set(&mut pg.awaiting_write, v, true);
            self.write_victims(v, victims as u32);
        }
        self.mdc_surrender();
    }

    /// One page-out I/O of `n` changed pages stolen for `v`'s deferred below-2GB request; its
    /// completion lets the request go on (`victim_written`). The I/O holds its own below-2GB
    /// frames like any paging I/O (their searches' victims are written later, in blocks).
    fn write_victims(&mut self, v: u32, n: u32) {
        let now = self.now;
        let pg = self.paging.as_mut().unwrap();
        if pg.devs.is_empty() {
            set(&mut pg.awaiting_write, v, false);
            return;
        }
        let examined = pg.take_below_frames();
        let (_, search) = pg.below_scan(now, examined);
        pg.victim_writes += 1;
        let (io, d, done) = pg.page_out(n, v, now);
        if let Some(t) = done {
            self.q.schedule(Entity::PagingDevice(d), t);
        }
        self.sched.sys_pending += io + search + self.locks.slots(now);
        self.alias_kick();
    }

    /// `v`'s page-in can start: no deferred request pending, or the scan has found its frame
    /// and the stolen page has been written.
    fn pagein_ready(&self, v: u32) -> bool {
        let Some(pg) = self.paging.as_ref() else {
            return true;
        };
        get(&pg.deferred_until, v) <= self.now && !get(&pg.awaiting_write, v)
    }

    /// `v` entered page wait: start its page-in now, or mark it pending and wake at the end of
    /// the scan's search (the write's completion wakes it too).
    pub(crate) fn pagein_when_ready(&mut self, v: u32) {
        if self.pagein_ready(v) {
            self.submit_pagein(v);
            return;
        }
        let until = get(&self.paging.as_ref().unwrap().deferred_until, v);
        let e = Entity::Vcpu(v);
        if until > self.now && self.q.is_scheduled(e) {
            // The virtual CPU's own event is taken (cannot happen in page wait): no deferral.
            self.submit_pagein(v);
            return;
        }
        if until > self.now {
            self.q.schedule(e, until);
        }
        set(&mut self.paging.as_mut().unwrap().pagein_pending, v, true);
    }

    /// Virtual CPU `v`'s own event while in page wait: the scan's search for it is done.
    pub(crate) fn deferred_pagein(&mut self, v: u32) {
        self.start_if_ready(v);
    }

    /// The page-out of the page stolen for `v`'s below-2GB request completed.
    pub(crate) fn victim_written(&mut self, v: u32) {
        set(&mut self.paging.as_mut().unwrap().awaiting_write, v, false);
        self.start_if_ready(v);
    }

    fn start_if_ready(&mut self, v: u32) {
        let pending = self
            .paging
            .as_ref()
            .is_some_and(|pg| get(&pg.pagein_pending, v));
        if pending && self.pagein_ready(v) && self.vcpus[v as usize].pagein != NONE {
            self.submit_pagein(v);
        }
    }

    /// Start virtual CPU `v`'s page-in I/O now.
    fn submit_pagein(&mut self, v: u32) {
        let d = self.vcpus[v as usize].pagein;
        let now = self.now;
        let pg = self.paging.as_mut().unwrap();
        set(&mut pg.pagein_pending, v, false);
        set(&mut pg.deferred_until, v, 0);
        let r = IoReq {
            pages: 1,
            read: true,
            waiter: v,
            queued: now,
            tag: pg.vpage[v as usize],
        };
        if let Some(t) = pg.devs[d as usize].submit(now, r) {
            self.q.schedule(Entity::PagingDevice(d), t);
        }
        self.alias_kick();
    }
}
