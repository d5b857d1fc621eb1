//! Guest DASD I/O's wiring (dasd.rs holds the minidisk volumes, minidisk cache and their
//! counters): a virtual CPU's I/O started through CP (chargeable CP path), minidisk cache hits,
//! the I/O wait, and the volume's completion waking the virtual CPU.

use crate::dasd::*;
use crate::entity::Entity;
use crate::guest::VState;
use crate::queue::Time;
use crate::sim::Sim;
use crate::units::NONE;

impl Sim {
    /// Size the per-virtual-CPU state once the virtual CPUs exist.
    pub(crate) fn dasd_init(&mut self) {
        let Some(d) = self.dasd.as_mut() else { return };
        let users: Vec<usize> = self.vcpus.iter().map(|vc| vc.user as usize).collect();
        d.size_for(&users);
    }

    /// `v`'s guest CPU piece ended on processor `l`: start its next I/O, or end the transaction.
    /// Returns false if `v` does no DASD I/O (the caller goes on as usual).
    pub(crate) fn dasd_burst_done(&mut self, l: u32, v: u32) -> bool {
        let u = self.vcpus[v as usize].user as usize;
        let Some(d) = self.dasd.as_mut() else {
            return false;
        };
        if !d.has_program(u) {
            return false;
        }
        if d.take_io(v) {
            self.dasd_start_io(l, v, u);
        } else {
            self.dasd_transaction_done(l, v, u);
        }
        true
    }

    /// `v` (of user `u`) starts its transaction's next I/O on processor `l`: through the
    /// minidisk cache when it has one, then as a VDISK move, an asynchronous (queued) I/O, or
    /// a synchronous I/O the virtual CPU waits for.
    #[inline]
    fn dasd_start_io(&mut self, l: u32, v: u32, u: usize) {
        let Some(insert) = self.dasd_mdc_lookup(l, v, u) else {
            return;
        };
        self.vcpus[v as usize].cp_owed += insert;
        match self.dasd.as_mut().unwrap().io_path(v, u) {
            IoPath::Vdisk => self.dasd_vdisk_io(l, v, u),
            IoPath::Queued => self.dasd_async_io(l, v, u),
            IoPath::Sync(cost) => {
                let vc = &mut self.vcpus[v as usize];
                vc.cp_owed += cost;
                vc.pagewait = true; // a CP-only run, then the wait for the device
                self.continue_run(l, v);
            }
        }
    }

    /// The minidisk cache's look-up for `v`'s I/O: a read hit is a move from the cache (CP
    /// time, no device I/O, no wait; `v` goes on and None is returned); a miss or a write goes
    /// to the device, and the result is the CP time of the insert it costs (0: none, or no cache).
    #[inline]
    fn dasd_mdc_lookup(&mut self, l: u32, v: u32, u: usize) -> Option<Time> {
        let d = self.dasd.as_mut().unwrap();
        let st = self.paging.as_mut().map(|pg| pg.storage_mut());
        let vc = &mut self.vcpus[v as usize];
        let (cost, next) = match d.mdc_lookup(u, &mut vc.rng, st) {
            MdcLookup::Device(insert) => return Some(insert),
            MdcLookup::Hit(cost, next) => (cost, next),
        };
        vc.cp_owed += cost;
        vc.remaining = next.draw(&mut vc.rng);
        self.continue_run(l, v);
        None
    }

    /// A VDISK I/O: CP translates the channel program and moves the data itself, CP time on
    /// processor `l`, then the guest goes on. The request is serialized: before the fix all of
    /// it under one system-wide lock, after it only the move, per VDISK.
    #[inline]
    fn dasd_vdisk_io(&mut self, l: u32, v: u32, u: usize) {
        let (cost, move_ns, vol, next) = self.dasd.as_mut().unwrap().vdisk_io(u);
        let rate = self.lpus[l as usize].rate;
        let (hold, which) = match self.level.switches.vdisk_lock {
            crate::level::VdiskLock::WholeIo => (cost, None),
            crate::level::VdiskLock::PerVdiskMove => (move_ns, Some(vol)),
        };
        let wall = self
            .locks
            .vdisk(l, self.now, crate::cpu::wall_for(hold, rate, 0), which);
        self.lpus[l as usize].sys_owed += crate::cpu::slice_work(wall, rate);
        let vc = &mut self.vcpus[v as usize];
        vc.cp_owed += cost;
        vc.remaining = next.draw(&mut vc.rng);
        self.continue_run(l, v);
    }

    /// An asynchronous I/O (a Linux guest's block layer): the I/O is queued on its volume now;
    /// the virtual CPU runs the I/O's CP path and goes on with its next piece of work unless
    /// its window of I/Os in flight is full (then it waits for a completion).
    #[inline]
    fn dasd_async_io(&mut self, l: u32, v: u32, u: usize) {
        let io = self.dasd.as_mut().unwrap().queue_io(v, u, self.now);
        if let Some(t) = io.done {
            self.q.schedule(Entity::Minidisk(io.vol), t);
        }
        self.alias_kick();
        let vc = &mut self.vcpus[v as usize];
        vc.cp_owed += io.cost;
        if io.full {
            vc.pagewait = true; // CP-only run, then wait for a completion
        } else {
            vc.remaining = io.next.draw(&mut vc.rng);
        }
        self.continue_run(l, v);
    }

    /// `v`'s transaction is complete (its last piece of guest CPU ran): count it, then start
    /// the next one at once, or think (a paced driver: until its next transaction is due), or
    /// stop for good after a FORMAT.
    #[inline]
    fn dasd_transaction_done(&mut self, l: u32, v: u32, u: usize) {
        let end = self.dasd.as_mut().unwrap().end_transaction(v, u, self.now);
        self.users[u].acct.tx_done += 1;
        let trivial = self.sched.user(u).class <= 1;
        self.resp.end(v, u, self.now, trivial);
        if !end.format && end.think <= 0.0 {
            self.dasd_next_transaction(l, v, u, end.next);
        } else {
            self.dasd_think(l, v, &end);
        }
    }

    /// No think time: `v`'s next transaction starts at once, on processor `l` while its time
    /// slice lasts.
    #[inline]
    fn dasd_next_transaction(&mut self, l: u32, v: u32, u: usize, next: Piece) {
        self.users[u].acct.tx_started += 1;
        self.resp.begin(v, self.now);
        let vc = &mut self.vcpus[v as usize];
        vc.remaining = next.draw(&mut vc.rng);
        if vc.slice_left > 0 {
            self.continue_run(l, v);
        } else {
            self.slice_end(l, v);
        }
    }

    /// `v` leaves processor `l` dormant: for its think time (drawn, or a paced driver's wait
    /// until its next transaction is due), or for good after a FORMAT.
    #[inline]
    fn dasd_think(&mut self, l: u32, v: u32, end: &TxEnd) {
        if end.format {
            self.q.cancel(Entity::Vcpu(v)); // done for good
        } else if end.paced {
            self.q
                .schedule(Entity::Vcpu(v), self.now + (end.think + 0.5) as Time);
        } else {
            let t = draw(&mut self.vcpus[v as usize].rng, end.think, end.next.dist);
            self.q.schedule(Entity::Vcpu(v), self.now + t);
        }
        self.release_for_wait(l, v, VState::Dormant);
        self.dispatch_next(l);
    }

    /// The I/O's CP path is done: `v` leaves processor `l` and waits for its device.
    /// Returns false if `v` has no minidisk I/O starting (a page fault's wait instead).
    pub(crate) fn enter_io_wait(&mut self, l: u32, v: u32) -> bool {
        let u = self.vcpus[v as usize].user as usize;
        let Some(d) = self.dasd.as_mut() else {
            return false;
        };
        match d.start_wait(v, u, self.now) {
            IoWait::None => return false,
            // An asynchronous virtual CPU with a full window: wait for a completion.
            IoWait::WindowFull => {}
            IoWait::Started(vol, done) => {
                if let Some(t) = done {
                    self.q.schedule(Entity::Minidisk(vol), t);
                }
                self.alias_kick();
            }
        }
        self.release_for_wait(l, v, VState::IoWait);
        self.dispatch_next(l);
        true
    }

    /// A minidisk volume's I/O completed: its guest continues.
    pub(crate) fn mdisk_event(&mut self, vol: u32) {
        let now = self.now;
        let dev = self.dasd.as_mut().expect("dasd").device_mut(vol);
        let r = dev.complete(now);
        if let Some(t) = dev.next_completion() {
            self.q.schedule(Entity::Minidisk(vol), t);
        }
        if self.aliases.is_some() {
            self.alias_kick();
        }
        let Some(r) = r else { return };
        let v = r.waiter;
        if v == NONE {
            return;
        }
        let u = self.vcpus[v as usize].user as usize;
        let d = self.dasd.as_mut().expect("dasd");
        let Some((next, queued)) = d.io_done(v, u) else {
            return;
        };
        let vc = &mut self.vcpus[v as usize];
        vc.pagewait = false;
        // An asynchronous I/O's CP-only run may still be on a processor: it then runs on
        // without waiting.
        let runs_on = queued && vc.state != VState::IoWait;
        if !runs_on {
            vc.set_state(VState::Dormant, now);
        } else if vc.state == VState::Running {
            // Its run's end goes on with the next piece within its slice (`lpu_event`).
            vc.run_on = true;
        }
        vc.remaining = next.draw(&mut vc.rng);
        if !runs_on {
            self.vcpu_runnable(v);
        }
    }

    pub fn dasd_summary(&self) -> Option<DasdSummary> {
        Some(
            self.dasd
                .as_ref()?
                .summary(self.now, &self.users, &self.vcpus),
        )
    }
}

impl Sim {
    /// The MDC arbiter's pass when its period is up (called from the scheduler's tick): sizes
    /// the cache against paging (mdc.rs). Nothing to do without a cache or a paging model.
    pub(crate) fn mdc_arbiter(&mut self) {
        let (Some(d), Some(pg)) = (self.dasd.as_mut(), self.paging.as_mut()) else {
            return;
        };
        d.arbitrate_mdc(self.now, pg.storage_mut());
    }
}
