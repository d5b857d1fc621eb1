//! Storage below 2 GB's wiring (below2g.rs holds the frames below the line and their
//! counters; paging.rs the deferred requests): CP work that needs a frame below 2 GB, and the
//! stealing of guest frames there.

use crate::entity::Entity;
use crate::sim::Sim;
use crate::units::NONE;

impl Sim {
    /// CP takes its below-2GB frames for virtual CPU `v`'s page-in (see below2g.rs).
    pub(crate) fn take_below_for_io(&mut self, v: u32) {
        let now = self.now;
        let pg = self.paging.as_mut().unwrap();
        let Some((hold, victims)) = pg.defer_below(v, now) else {
            return;
        };
        self.sched.add_system(hold);
        // The changed pages whose frames the search took are written before CP uses them.
        if victims > 0 {
            self.write_victims(v, victims);
        }
        self.mdc_surrender();
    }

    /// One page-out I/O of `n` changed pages stolen for `v`'s deferred below-2GB request; its
    /// completion lets the request go on (`victim_written`). The I/O holds its own below-2GB
    /// frames like any paging I/O (their searches' victims are written later, in blocks).
    fn write_victims(&mut self, v: u32, n: u32) {
        let now = self.now;
        let pg = self.paging.as_mut().unwrap();
        let Some((sys, d, done)) = pg.write_victims(v, n, now) else {
            return;
        };
        if let Some(t) = done {
            self.q.schedule(Entity::PagingDevice(d), t);
        }
        let t = sys + self.locks.slots(now);
        self.sched.add_system(t);
        self.alias_kick();
    }

    /// `v`'s page-in can start: no deferred request pending, or the scan has found its frame
    /// and the stolen page has been written.
    fn pagein_ready(&self, v: u32) -> bool {
        self.paging
            .as_ref()
            .is_none_or(|pg| pg.pagein_ready(v, self.now))
    }

    /// `v` entered page wait: start its page-in now, or mark it pending and wake at the end of
    /// the scan's search (the write's completion wakes it too).
    pub(crate) fn pagein_when_ready(&mut self, v: u32) {
        if self.pagein_ready(v) {
            self.submit_pagein(v);
            return;
        }
        let until = self.paging.as_ref().unwrap().deferred_until(v);
        let e = Entity::Vcpu(v);
        if until > self.now && self.q.is_scheduled(e) {
            // The virtual CPU's own event is taken (cannot happen in page wait): no deferral.
            self.submit_pagein(v);
            return;
        }
        if until > self.now {
            self.q.schedule(e, until);
        }
        self.paging.as_mut().unwrap().set_pagein_pending(v);
    }

    /// Virtual CPU `v`'s own event while in page wait: the scan's search for it is done.
    pub(crate) fn deferred_pagein(&mut self, v: u32) {
        self.start_if_ready(v);
    }

    /// The page-out of the page stolen for `v`'s below-2GB request completed.
    pub(crate) fn victim_written(&mut self, v: u32) {
        self.paging.as_mut().unwrap().victim_written(v);
        self.start_if_ready(v);
    }

    fn start_if_ready(&mut self, v: u32) {
        let pending = self.paging.as_ref().is_some_and(|pg| pg.pagein_pending(v));
        if pending && self.pagein_ready(v) && self.vcpus[v as usize].pagein != NONE {
            self.submit_pagein(v);
        }
    }

    /// Start virtual CPU `v`'s page-in I/O now.
    fn submit_pagein(&mut self, v: u32) {
        let d = self.vcpus[v as usize].pagein;
        let pg = self.paging.as_mut().unwrap();
        if let Some(t) = pg.submit_pagein(v, d, self.now) {
            self.q.schedule(Entity::PagingDevice(d), t);
        }
        self.alias_kick();
    }
}
