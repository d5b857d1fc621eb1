//! The dispatcher: runs virtual CPUs on logical processors.
//!
//! A run on a logical processor is three consecutive segments: system (nonchargeable) CP time
//! owed for earlier work such as a slice end, chargeable CP time for this dispatch (selection
//! plus SIE entry and exit), then guest (virtual) time up to the end of the burst or the minor
//! time slice, whichever comes first. The processor's one pending event is the end of the run.
//! Accounting is exact to the nanosecond, and can be brought up to any instant (monitor samples).

use crate::entity::Entity;
use crate::guest::VState;
use crate::queue::Time;
use crate::sim::Sim;
use crate::units::NONE;
use crate::workload::AfterBurst;

impl Sim {
    /// Account processor `l`'s work from its last accounting instant up to `t`.
    #[inline]
    pub(crate) fn charge(&mut self, l: u32, t: Time) {
        let lp = &mut self.lpus[l as usize];
        let mut dt = t.saturating_sub(lp.charged_to);
        if dt == 0 {
            return;
        }
        lp.charged_to = t;
        // PR/SM: wall time the logical processor waits, not powered, before its work runs.
        let w = dt.min(lp.susp_left);
        lp.susp_left -= w;
        lp.susp_ns += w;
        dt -= w;
        if lp.rate != crate::cpu::ONE {
            // SMT thread speed or drawer CPI (cpu.rs).
            if dt > 0 {
                self.charge_scaled(l, dt);
            }
            return;
        }
        let s = dt.min(lp.sys_left);
        lp.sys_left -= s;
        lp.sys_ns += s;
        lp.busy_ns += s;
        self.sched.count_system(s);
        dt -= s;
        let v = lp.vcpu;
        if v == NONE || dt == 0 {
            return;
        }
        let c = dt.min(lp.cp_left);
        lp.cp_left -= c;
        dt -= c;
        let g = dt.min(lp.virt_left);
        lp.virt_left -= g;
        lp.busy_ns += c + g;
        let vc = &mut self.vcpus[v as usize];
        vc.remaining -= g;
        vc.slice_left -= g;
        vc.run_used += c + g;
        let a = &mut self.users[vc.user as usize].acct;
        a.cp_ns += c;
        a.virt_ns += g;
    }

    /// Start (or continue) running `v` on `l` with `cp` ns of chargeable CP work first.
    #[inline(always)]
    fn start_run(&mut self, l: u32, v: u32, sys: Time, cp: Time) {
        let rate = self.lpus[l as usize].rate;
        let now = self.now;
        let vc = &mut self.vcpus[v as usize];
        vc.set_state(VState::Running, now);
        let cp = cp + std::mem::take(&mut vc.cp_owed);
        let stall = std::mem::take(&mut vc.cp_stall);
        let cp = if self.warm.on {
            let c = self.cpu.core_of(l) as usize;
            cp + self.warm.coherence(l as usize, c, cp) + stall
        } else {
            cp + stall
        };
        let vc = &mut self.vcpus[v as usize];
        // A page fault's run is CP time only; the virtual CPU then waits for its page-in.
        // The minor time slice is CPU (thread) time: the work it allows depends on the rate.
        let virt = if vc.pagewait {
            0
        } else {
            vc.remaining
                .min(crate::cpu::slice_work(vc.slice_left, rate))
        };
        let lp = &mut self.lpus[l as usize];
        lp.vcpu = v;
        lp.sys_left = sys;
        lp.cp_left = cp;
        lp.virt_left = virt;
        lp.frac = 0;
        let run = self.run_wall(l, sys + cp + virt);
        let susp = self.prsm_suspend(l, run);
        self.lpus[l as usize].susp_left = susp;
        self.q.schedule(Entity::Lpu(l), self.now + susp + run);
    }

    /// `v` goes on running on `l` (a CP path of its run continues into guest work): system time
    /// the path left on the processor (spin on a lock it took) runs first, the guest waits for it.
    /// On a processor z/VM has just parked the virtual CPU does not go on: its run ends like a
    /// slice end and it is dispatched on an unparked processor.
    pub(crate) fn continue_run(&mut self, l: u32, v: u32) {
        if self.lpus[l as usize].parked {
            self.slice_end(l, v);
            return;
        }
        if self.warm.on && self.vcpus[v as usize].reload_owed {
            // The dispatch was for CP work only: the guest work that follows pays the reload.
            self.cache_dispatch(v, l);
        }
        let owed = std::mem::take(&mut self.lpus[l as usize].sys_owed);
        self.start_run(l, v, owed, 0)
    }

    /// Processor `l` is free: run the most urgent ready virtual CPU, or go idle.
    #[inline]
    pub(crate) fn dispatch_next(&mut self, l: u32) {
        self.charge(l, self.now);
        // A processor z/VM parked takes no work (and does not look at the dispatch list), nor
        // the system work waiting for the next processor that dispatches.
        let parked = self.lpus[l as usize].parked;
        let pending = if parked { 0 } else { self.sched.take_system() };
        let sys = std::mem::take(&mut self.lpus[l as usize].sys_owed) + pending + self.prsm_wake(l);
        let next = if parked { None } else { self.pick(l) };
        let sys = if parked {
            sys
        } else {
            // Lock time is wall time; the run's segments are work at the processor's rate.
            let rate = self.lpus[l as usize].rate;
            let wall = self.locks.dispatch(l, self.now, next.is_some(), rate);
            sys + crate::cpu::slice_work(wall, rate)
        };
        match next {
            Some(v) => {
                let sys = if std::mem::take(&mut self.vcpus[v as usize].touch_first) {
                    // Its burst's page reference, on this processor (a fault makes the run the
                    // fault's CP time); the frame work's system time runs first.
                    self.page_reference(l, v);
                    sys + std::mem::take(&mut self.lpus[l as usize].sys_owed)
                } else {
                    sys
                };
                self.on_dispatch(v, l);
                self.start_run(l, v, sys, self.cost_dispatch);
                self.cpu_set_busy(l, true);
            }
            None => {
                let lp = &mut self.lpus[l as usize];
                lp.vcpu = NONE;
                lp.cp_left = 0;
                lp.virt_left = 0;
                if sys > 0 {
                    lp.sys_left = sys;
                    lp.frac = 0;
                    let run = self.run_wall(l, sys);
                    let susp = self.prsm_suspend(l, run);
                    self.lpus[l as usize].susp_left = susp;
                    self.q.schedule(Entity::Lpu(l), self.now + susp + run);
                    self.cpu_set_busy(l, true);
                } else {
                    lp.waiting = true;
                    if !lp.parked {
                        self.idle.push(l);
                    }
                    self.cpu_set_busy(l, false);
                }
            }
        }
    }

    /// End a background run on processor `l` now (its minor time slice is cut short).
    pub(crate) fn preempt(&mut self, l: u32) {
        self.charge(l, self.now);
        let lp = &mut self.lpus[l as usize];
        let v = lp.vcpu;
        if v == NONE || lp.sys_left > 0 {
            return;
        }
        // The run's chargeable CP work not done goes with the virtual CPU (all of a fault's or
        // I/O's, of another run what is beyond the dispatch cost: the next dispatch pays it).
        self.move_unfinished_cp_work(l, v);
        let lp = &mut self.lpus[l as usize];
        lp.cp_left = 0;
        lp.virt_left = 0;
        lp.susp_left = 0;
        self.slice_end(l, v);
    }

    /// `v` stops running on processor `l` to wait (`Dormant`: for its next transaction or a
    /// message; `PageWait`: for a page-in or an I/O). The caller dispatches `l` next.
    pub(crate) fn release_for_wait(&mut self, l: u32, v: u32, state: VState) {
        self.release_for_page_wait(l, v, state);
        self.vcpu_idle(v);
        self.wait_lock(l);
    }

    /// A virtual CPU went idle on processor `l`: before the exploitation SPE its state change
    /// is done under the scheduler lock held exclusive there (`Locks::vcpu_wait`); any spin and
    /// line time are system time on `l`, run before whatever `l` dispatches next.
    fn wait_lock(&mut self, l: u32) {
        let rate = self.lpus[l as usize].rate;
        let wall = self.locks.vcpu_wait(l, self.now, rate);
        if wall > 0 {
            self.lpus[l as usize].sys_owed += crate::cpu::slice_work(wall, rate);
        }
    }

    /// `v` leaves processor `l` but its user stays runnable for the scheduler (a CP page wait:
    /// `Scheduler::page_wait_done` makes it ready again).
    pub(crate) fn release_for_page_wait(&mut self, l: u32, v: u32, state: VState) {
        if std::mem::take(&mut self.lpus[l as usize].bg) {
            self.sched.bg_ended();
        }
        self.lpus[l as usize].vcpu = NONE;
        let now = self.now;
        let vc = &mut self.vcpus[v as usize];
        vc.set_state(state, now);
        if matches!(state, VState::PageWait | VState::IoWait) {
            vc.want_since = now;
        }
        self.end_run(v);
    }

    /// End of a run on processor `l`.
    pub(crate) fn lpu_event(&mut self, l: u32) {
        self.charge(l, self.now);
        let v = self.lpus[l as usize].vcpu;
        if v == NONE {
            // A system-only segment is done.
            self.dispatch_next(l);
            return;
        }
        if self.vcpus[v as usize].pagewait {
            if self.dasd.is_some() && self.enter_io_wait(l, v) {
                return;
            }
            self.enter_page_wait(l, v);
            return;
        }
        let u = self.vcpus[v as usize].user as usize;
        let run_on = std::mem::take(&mut self.vcpus[v as usize].run_on);
        if self.vcpus[v as usize].remaining == 0 {
            // Guest DASD I/O: the next I/O starts, or the transaction ends.
            if self.dasd.is_some() && self.dasd_burst_done(l, v) {
                return;
            }
            if self.vnet.is_some() && self.users[u].program.role().is_some() {
                // A request or reply is ready to send through the virtual network.
                self.vnet_burst_done(l, v);
                return;
            }
        }
        let vc = &mut self.vcpus[v as usize];
        if vc.remaining == 0 {
            // The burst is complete: one transaction done.
            self.users[u].acct.tx_done += 1;
            self.tx_end(v);
            let vc = &mut self.vcpus[v as usize];
            match self.users[u]
                .program
                .after_burst(&mut vc.rng, self.now, &mut vc.next_arrival)
            {
                AfterBurst::Continue(work) => {
                    vc.remaining = work;
                    self.users[u].acct.tx_started += 1;
                    self.tx_begin(v);
                    if self.iske.is_some() {
                        self.iske(l, v);
                    }
                    // The next touch of a paging workload references a page first.
                    if self.paging.is_some() && self.page_touch(l, v) {
                        return;
                    }
                    let vc = &mut self.vcpus[v as usize];
                    if vc.slice_left > 0 {
                        // Still within its minor time slice: keeps the processor, no new dispatch
                        // (system time the burst's end left runs first; not on a parked one).
                        self.continue_run(l, v);
                        return;
                    }
                }
                AfterBurst::Think(t) => {
                    self.q.schedule(Entity::Vcpu(v), self.now + t);
                    self.release_for_wait(l, v, VState::Dormant);
                    self.dispatch_next(l);
                    return;
                }
            }
        }
        if run_on && self.vcpus[v as usize].slice_left > 0 {
            // What its CP-only run was to end in a wait for is over (a page-in it joined, an
            // asynchronous I/O's window): the burst goes on within its minor time slice (the
            // CP time used none of it).
            self.continue_run(l, v);
            return;
        }
        self.slice_end(l, v);
    }

    /// A memtst guest's burst ended in a storage-key operation (ISKE), intercepted and simulated
    /// by CP: the path is chargeable CP time of the guest; with the level's `pte_lock` (or for
    /// a key update) the hot page's PTE is locked for part of it, and the spin and line
    /// transfers are nonchargeable time on processor `l`.
    fn iske(&mut self, l: u32, v: u32) {
        let u = self.vcpus[v as usize].user as usize;
        let Some(k) = self.iske.as_ref() else {
            return;
        };
        if !k.users[u] {
            return;
        }
        let (path, hold, always, frac) = (k.path, k.hold, k.always_lock, k.update_fraction);
        let lock = always || self.vcpus[v as usize].rng.unit() < frac;
        let rate = self.lpus[l as usize].rate;
        let wall = self.locks.guest_pte(
            l,
            self.now,
            u as u32,
            lock,
            crate::cpu::wall_for(hold, rate, 0),
        );
        self.vcpus[v as usize].cp_owed += path;
        self.lpus[l as usize].sys_owed += crate::cpu::slice_work(wall, rate);
    }

    /// Minor time slice used up: new dispatch priority (or the limit list, or the eligible
    /// list when the elapsed time slice is over); the slice end is system time.
    pub(crate) fn slice_end(&mut self, l: u32, v: u32) {
        if std::mem::take(&mut self.lpus[l as usize].bg) {
            self.sched.bg_ended();
        }
        let lp = &mut self.lpus[l as usize];
        lp.vcpu = NONE;
        lp.sys_owed += self.cost_slice_end;
        self.locks.slice_end(l);
        self.end_run(v);
        self.vcpus[v as usize].tx_slices += 1;
        self.slice_end_requeue(v);
        self.dispatch_next(l);
    }
}

/// Wiring at a dispatch and at a transaction's ends: the cache footprint model (cache.rs) and
/// the response-time records (response.rs).
impl Sim {
    /// Cache warmth at a dispatch of `v` on `l` (`cache.warmth` on): the run's reload transient
    /// becomes guest work of the burst. A run of CP work only (a page fault's, an I/O's) owes it
    /// to the guest work that follows on the same processor (`continue_run`).
    pub(crate) fn cache_dispatch(&mut self, v: u32, l: u32) {
        let vc = &mut self.vcpus[v as usize];
        vc.reload_owed = vc.pagewait;
        if vc.pagewait {
            return;
        }
        let rate = self.lpus[l as usize].rate;
        let work = vc
            .remaining
            .min(crate::cpu::slice_work(vc.slice_left, rate));
        let c = self.cpu.core_of(l) as usize;
        let t = &self.cpu.topo;
        let at = [c as u32, t.chip[c], self.warm.node[c]];
        let avail = self.lpar.as_deref().map_or(1.0, |st| st.avail(l));
        let sib = &self.users[vc.user as usize].vcpus;
        let reload = self
            .warm
            .dispatch(v as usize, l as usize, at, work, avail, sib);
        self.vcpus[v as usize].remaining += reload;
    }

    /// Virtual CPU `v` starts a transaction now.
    #[inline]
    pub(crate) fn tx_begin(&mut self, v: u32) {
        self.resp.begin(v, self.now);
    }

    /// A transaction of virtual CPU `v` completes now (its user's class decides trivial).
    #[inline]
    pub(crate) fn tx_end(&mut self, v: u32) {
        let u = self.vcpus[v as usize].user as usize;
        let trivial = self.sched.user(u).class <= 1;
        self.resp.end(v, u, self.now, trivial);
    }
}
