//! Guest DASD I/O's wiring (dasd.rs holds the minidisk volumes, minidisk cache and their
//! counters): a virtual CPU's I/O started through CP (chargeable CP path), minidisk cache hits,
//! the I/O wait, and the volume's completion waking the virtual CPU.

use crate::config::Dist;
use crate::dasd::*;
use crate::entity::Entity;
use crate::guest::VState;
use crate::io::IoReq;
use crate::queue::Time;
use crate::sim::Sim;
use crate::units::NONE;

impl Sim {
    /// Size the per-virtual-CPU state once the virtual CPUs exist.
    pub(crate) fn dasd_init(&mut self) {
        let n = self.vcpus.len();
        let Some(d) = self.dasd.as_mut() else { return };
        d.pending = vec![NONE; n];
        d.inflight = vec![0; n];
        d.blocked = vec![false; n];
        d.due = vec![0.0; n];
        d.io_left = (0..n)
            .map(|v| {
                let u = self.vcpus[v].user as usize;
                d.prog[u].as_ref().map_or(0, |p| p.ios)
            })
            .collect();
    }

    /// `v`'s guest CPU piece ended on processor `l`: start its next I/O, or end the transaction.
    /// Returns false if `v` does no DASD I/O (the caller goes on as usual).
    pub(crate) fn dasd_burst_done(&mut self, l: u32, v: u32) -> bool {
        let u = self.vcpus[v as usize].user as usize;
        let Some(d) = self.dasd.as_mut() else {
            return false;
        };
        if d.prog[u].is_none() {
            return false;
        }
        if d.io_left[v as usize] > 0 {
            d.io_left[v as usize] -= 1;
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
        let d = self.dasd.as_mut().unwrap();
        let p = d.prog[u].as_ref().unwrap();
        if p.vdisk {
            self.dasd_vdisk_io(l, v, u);
        } else if p.window > 1 {
            self.dasd_async_io(l, v, u);
        } else {
            d.pending[v as usize] = p.vol;
            let vc = &mut self.vcpus[v as usize];
            vc.cp_owed += p.cost;
            vc.pagewait = true; // a CP-only run, then the wait for the device
            self.continue_run(l, v);
        }
    }

    /// The minidisk cache's look-up for `v`'s I/O: a read hit is a move from the cache (CP
    /// time, no device I/O, no wait; `v` goes on and None is returned); a miss or a write goes
    /// to the device, and the result is the CP time of the insert it costs (0: none, or no cache).
    #[inline]
    fn dasd_mdc_lookup(&mut self, l: u32, v: u32, u: usize) -> Option<Time> {
        let d = self.dasd.as_mut().unwrap();
        let p = d.prog[u].as_ref().unwrap();
        let Some(m) = d.mdc.as_mut().filter(|_| p.mdc) else {
            return Some(0);
        };
        let unit = self.vcpus[v as usize].rng.below(p.units);
        let key = ((p.vol as u64) << 40) | unit;
        if p.write {
            return Some(if m.write(key) { p.insert_cost } else { 0 });
        }
        if !m.read(
            key,
            p.blocks,
            self.paging.as_mut().map(|pg| pg.storage_mut()),
        ) {
            return Some(p.insert_cost);
        }
        let (cost, cpu, dist, blocks) = (p.hit_cost, p.cpu, p.dist, p.blocks);
        d.ios[u] += 1;
        d.blocks[u] += blocks as u64;
        let vc = &mut self.vcpus[v as usize];
        vc.cp_owed += cost;
        vc.remaining = draw(&mut vc.rng, cpu, dist);
        self.continue_run(l, v);
        None
    }

    /// A VDISK I/O: CP translates the channel program and moves the data itself, CP time on
    /// processor `l`, then the guest goes on. The request is serialized: before the fix all of
    /// it under one system-wide lock, after it only the move, per VDISK.
    #[inline]
    fn dasd_vdisk_io(&mut self, l: u32, v: u32, u: usize) {
        let d = self.dasd.as_mut().unwrap();
        let p = d.prog[u].as_ref().unwrap();
        let (cost, move_ns, cpu, dist, blocks, vol) =
            (p.cost, p.move_ns, p.cpu, p.dist, p.blocks, p.vol);
        d.ios[u] += 1;
        d.blocks[u] += blocks as u64;
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
        vc.remaining = draw(&mut vc.rng, cpu, dist);
        self.continue_run(l, v);
    }

    /// An asynchronous I/O (a Linux guest's block layer): the I/O is queued on its volume now;
    /// the virtual CPU runs the I/O's CP path and goes on with its next piece of work unless
    /// its window of I/Os in flight is full (then it waits for a completion).
    #[inline]
    fn dasd_async_io(&mut self, l: u32, v: u32, u: usize) {
        let d = self.dasd.as_mut().unwrap();
        let p = d.prog[u].as_ref().unwrap();
        let (vol, cost, cpu, dist) = (p.vol, p.cost, p.cpu, p.dist);
        let r = IoReq {
            pages: p.blocks,
            read: !p.write,
            waiter: v,
            queued: self.now,
            tag: NONE,
        };
        let xfer = p.xfer;
        d.ios[u] += 1;
        d.blocks[u] += r.pages as u64;
        d.inflight[v as usize] += 1;
        let full = d.inflight[v as usize] >= p.window;
        if let Some(t) = d.devs[vol as usize].submit_xfer(self.now, r, xfer) {
            self.q.schedule(Entity::Minidisk(vol), t);
        }
        self.alias_kick();
        let vc = &mut self.vcpus[v as usize];
        vc.cp_owed += cost;
        if full {
            self.dasd.as_mut().unwrap().blocked[v as usize] = true;
            vc.pagewait = true; // CP-only run, then wait for a completion
        } else {
            vc.remaining = draw(&mut vc.rng, cpu, dist);
        }
        self.continue_run(l, v);
    }

    /// `v`'s transaction is complete (its last piece of guest CPU ran): count it, then start
    /// the next one at once, or think (a paced driver: until its next transaction is due), or
    /// stop for good after a FORMAT.
    #[inline]
    fn dasd_transaction_done(&mut self, l: u32, v: u32, u: usize) {
        let d = self.dasd.as_mut().unwrap();
        let p = d.prog[u].as_ref().unwrap();
        let (ios, format, mut think, cpu, dist) = (p.ios, p.format, p.think, p.cpu, p.dist);
        let paced = p.pace > 0.0;
        d.io_left[v as usize] = ios;
        self.users[u].acct.tx_done += 1;
        let trivial = self.sched.users[u].class <= 1;
        self.resp.end(v, u, self.now, trivial);
        if format {
            d.finished[u] = Some(self.now);
        }
        if paced {
            // The driver's schedule: the next transaction is due one period after this one
            // was; late, it starts at once (and stays behind).
            d.due[v as usize] += p.pace;
            think = (d.due[v as usize] - self.now as f64).max(0.0);
        }
        if !format && think <= 0.0 {
            self.dasd_next_transaction(l, v, u, cpu, dist);
        } else {
            self.dasd_think(l, v, format, paced, think, dist);
        }
    }

    /// No think time: `v`'s next transaction starts at once, on processor `l` while its time
    /// slice lasts.
    #[inline]
    fn dasd_next_transaction(&mut self, l: u32, v: u32, u: usize, cpu: f64, dist: Dist) {
        self.users[u].acct.tx_started += 1;
        self.resp.begin(v, self.now);
        let vc = &mut self.vcpus[v as usize];
        vc.remaining = draw(&mut vc.rng, cpu, dist);
        if vc.slice_left > 0 {
            self.continue_run(l, v);
        } else {
            self.slice_end(l, v);
        }
    }

    /// `v` leaves processor `l` dormant: for its think time (drawn, or a paced driver's wait
    /// until its next transaction is due), or for good after a FORMAT.
    #[inline]
    fn dasd_think(&mut self, l: u32, v: u32, format: bool, paced: bool, think: f64, dist: Dist) {
        if format {
            self.q.cancel(Entity::Vcpu(v)); // done for good
        } else if paced {
            self.q
                .schedule(Entity::Vcpu(v), self.now + (think + 0.5) as Time);
        } else {
            let t = draw(&mut self.vcpus[v as usize].rng, think, dist);
            self.q.schedule(Entity::Vcpu(v), self.now + t);
        }
        self.release_for_wait(l, v, VState::Dormant);
        self.dispatch_next(l);
    }

    /// The I/O's CP path is done: `v` leaves processor `l` and waits for its device.
    /// Returns false if `v` has no minidisk I/O starting (a page fault's wait instead).
    pub(crate) fn enter_io_wait(&mut self, l: u32, v: u32) -> bool {
        let now = self.now;
        let Some(d) = self.dasd.as_mut() else {
            return false;
        };
        let vol = d.pending[v as usize];
        if vol == NONE {
            if !d.blocked[v as usize] {
                return false;
            }
            // An asynchronous virtual CPU with a full window: wait for a completion.
            self.release_for_wait(l, v, VState::IoWait);
            self.dispatch_next(l);
            return true;
        }
        let u = self.vcpus[v as usize].user as usize;
        let p = d.prog[u].as_ref().expect("dasd program");
        let r = IoReq {
            pages: p.blocks,
            read: !p.write,
            waiter: v,
            queued: now,
            tag: NONE,
        };
        d.ios[u] += 1;
        d.blocks[u] += p.blocks as u64;
        if let Some(t) = d.devs[vol as usize].submit_xfer(now, r, p.xfer) {
            self.q.schedule(Entity::Minidisk(vol), t);
        }
        self.alias_kick();
        self.release_for_wait(l, v, VState::IoWait);
        self.dispatch_next(l);
        true
    }

    /// A minidisk volume's I/O completed: its guest continues.
    pub(crate) fn mdisk_event(&mut self, vol: u32) {
        let now = self.now;
        let d = self.dasd.as_mut().expect("dasd");
        let dev = &mut d.devs[vol as usize];
        let r = dev.complete(now);
        if let Some(t) = dev.next_completion() {
            self.q.schedule(Entity::Minidisk(vol), t);
        }
        if self.aliases.is_some() {
            self.alias_kick();
        }
        let d = self.dasd.as_mut().expect("dasd");
        let Some(r) = r else { return };
        let v = r.waiter;
        if v == NONE {
            return;
        }
        let u = self.vcpus[v as usize].user as usize;
        let p = d.prog[u].as_ref().expect("dasd program");
        let (cpu, dist) = (p.cpu, p.dist);
        if p.window > 1 {
            d.inflight[v as usize] -= 1;
            // Only a virtual CPU waiting for room in its window is woken.
            if !std::mem::take(&mut d.blocked[v as usize]) {
                return;
            }
            // Its CP-only run may still be on a processor: it then runs on without waiting.
            if self.vcpus[v as usize].state != VState::IoWait {
                let vc = &mut self.vcpus[v as usize];
                vc.pagewait = false;
                vc.remaining = draw(&mut vc.rng, cpu, dist);
                return;
            }
        }
        d.pending[v as usize] = NONE;
        let now = self.now;
        let vc = &mut self.vcpus[v as usize];
        vc.pagewait = false;
        vc.set_state(VState::Dormant, now);
        vc.remaining = draw(&mut vc.rng, cpu, dist);
        self.vcpu_runnable(v);
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
        let now = self.now;
        let (Some(d), Some(pg)) = (self.dasd.as_mut(), self.paging.as_mut()) else {
            return;
        };
        let (period, bias, step, last) = d.mdc_arbiter;
        let Some(m) = d.mdc.as_mut() else {
            return;
        };
        if now < last + period {
            return;
        }
        d.mdc_arbiter.3 = now;
        let st = pg.storage_mut();
        m.arbitrate((now - last) as f64 / 1e9, st.faults, st, bias, step);
    }
}
