//! The scheduler's wiring: what its decisions do to virtual CPUs, processors, locks, CPU pools
//! and the event queue. `scheduler/` holds its lists, its users' scheduling state and its
//! policy (shares, limits, dispatch priority, admission, the 6.4 entitlement); here they are
//! applied to the simulation.

use crate::entity::Entity;
use crate::guest::{UList, VState};
use crate::level::Sched;
use crate::queue::Time;
use crate::scheduler::{PriorityAt, Wake, FAR};
use crate::sim::Sim;

/// Shares and entitlement.
impl Sim {
    /// Normalized minimum and maximum shares over all logged-on users (start and SET SHARE).
    pub(crate) fn normalize_shares(&mut self) {
        self.sched.normalize_shares(&mut self.users);
        if !self.pools.is_empty() {
            self.pool_ns_refresh();
        }
    }

    /// Adjusted TOD: real time less the system time (per processor) spent so far.
    #[inline(always)]
    pub(crate) fn atod(&self) -> Time {
        self.sched.atod(self.now, self.lpus.len())
    }

    /// 6.4: measure demand over the last `dt` ns and water-fill entitlement plus excess into
    /// each user's target rate. With `dt == 0` only the water-fill is redone (start, SET SHARE).
    /// Only the users that were runnable since the last pass are measured (the others used
    /// and wanted nothing: their demand decays with everyone's, `entitle::Entitlement`).
    pub(crate) fn refresh_entitlement(&mut self, dt: Time) {
        if self.sched.kind() != Sched::EntitlementExcess {
            return;
        }
        if dt > 0 {
            self.charge_all();
        }
        let (users, vcpus) = (&self.users, &mut self.vcpus);
        if self.pools.is_empty() {
            self.sched.entitlement_pass(dt, self.now, users, vcpus);
        } else {
            // CPU pools: the full pass over every user, their limits in the water-fill.
            self.sched
                .entitlement_pass_full(dt, self.now, users, vcpus, &self.pools);
        }
    }

    /// The scheduler's periodic pass: drop expired test-idle users, admit from the eligible
    /// list, and (6.4) refresh measured demand and entitlement.
    pub(crate) fn sched_tick(&mut self) {
        while let Some(u) = self.sched.expired_tidle(self.now) {
            self.dlist_drop(u);
            self.sched.make_dormant(u, self.now);
        }
        self.admit_from_elist();
        if self.dasd.is_some() {
            self.mdc_arbiter();
        }
        let dt = self.sched.pass_dt(self.now);
        self.refresh_entitlement(dt);
        if self.now < self.end {
            self.q.schedule(
                Entity::Scheduler,
                (self.now + self.sched.tick()).min(self.end),
            );
        }
    }
}

/// Readying virtual CPUs: dispatch vectors, the limit list, idle processors.
impl Sim {
    /// Put `v` on a dispatch vector with a fresh minor time slice.
    #[inline]
    fn push_ready(&mut self, v: u32, from_limit: bool) {
        debug_assert!(
            self.lpus.iter().all(|lp| lp.vcpu != v),
            "virtual CPU {v} readied while it runs"
        );
        let at = PriorityAt {
            now: self.now,
            processors: self.lpus.len(),
            release_base: self.pools.release_base(),
            from_limit,
        };
        let vc = &mut self.vcpus[v as usize];
        let us = &self.users[vc.user as usize];
        let d = self.sched.priority(vc, us, at);
        let dv = if self.sched.local() {
            vc.home as usize
        } else {
            0
        };
        let seq = self.sched.enqueue(v, dv, d);
        vc.deadline = d;
        vc.heap_seq = seq;
        vc.set_state(VState::Ready, at.now);
        vc.slice_left = self.sched.slice();
        if d >= FAR {
            // Background (LIMITSOFT over its maximum) until its consumption is back in line.
            let u = vc.user as usize;
            self.q
                .schedule(Entity::Vcpu(v), self.sched.user(u).lim_until);
        }
    }

    /// A waiting virtual CPU's background period is over: requeue it at its normal priority.
    /// It wanted a processor all along, like a virtual CPU leaving the limit list, so it keeps
    /// the same bounded lag (two slices): a tag left far behind would let it take everyone's
    /// turn until it is over its maximum again, and whom it displaces would not follow shares.
    pub(crate) fn reprioritize(&mut self, v: u32) {
        if self.vcpus[v as usize].deadline >= FAR {
            self.push_ready(v, true);
        }
    }

    /// A runnable virtual CPU of a dispatch-list user wants a processor: hold it on the limit
    /// list if its user is over a LIMITHARD maximum, else put it on a dispatch vector.
    /// Returns true if it went on a dispatch vector.
    #[inline]
    pub(crate) fn offer(&mut self, v: u32, from_limit: bool) -> bool {
        let u = self.vcpus[v as usize].user as usize;
        let pool_until = self.pool_until(u);
        if self.users[u].share.limit == crate::config::Limit::Hard || pool_until > self.now {
            // A CPU pool in debt holds its members too (pools.rs).
            let until = self
                .sched
                .limit_until(&self.vcpus[v as usize], &self.users[u])
                .max(pool_until);
            if until > self.now {
                if pool_until > self.now {
                    self.pool_held(v);
                }
                self.vcpus[v as usize].set_state(VState::Limited, self.now);
                self.q.schedule(Entity::Vcpu(v), until);
                self.sched.limit_list_add();
                return false;
            }
        }
        self.push_ready(v, from_limit);
        true
    }

    /// `v` wants a processor: offer it, and wake an idle processor if it went on a vector.
    #[inline]
    pub(crate) fn make_ready(&mut self, v: u32, from_limit: bool) {
        self.sched.set_direct_ok(!self.idle.is_empty());
        let offered = self.offer(v, from_limit);
        self.sched.clear_direct_ok();
        if offered {
            if let Some(l) = self.idle.pop() {
                self.dispatch_next(l);
                self.signal_idle(self.sched.wake_fanout() - 1);
            } else if self.sched.bg_running() > 0 && self.vcpus[v as usize].deadline < FAR {
                // A LIMITSOFT user over its maximum only gets capacity nobody else wants.
                if let Some(l) = self.lpus.iter().position(|lp| lp.bg) {
                    self.preempt(l as u32);
                }
            }
        }
    }

    /// `k` more idle processors signalled for the same readying: each wakes and looks at the
    /// dispatch list (`Locks::signalled`: a woken processor looks even if its last look found
    /// nothing); one that finds the work gone waits again after its wake and look.
    fn signal_idle(&mut self, k: u32) {
        for _ in 0..k {
            let Some(l) = self.idle.pop() else { break };
            self.locks.signalled(l);
            self.dispatch_next(l);
        }
    }

    /// `v` is ready again at the end of its slice on the processor that now dispatches next.
    fn requeue_ready(&mut self, v: u32) {
        if !self.offer(v, false) {
            return;
        }
        let dv = if self.sched.local() {
            self.vcpus[v as usize].home as usize
        } else {
            0
        };
        if self.sched.dv_len(dv) > 1 {
            if let Some(l) = self.idle.pop() {
                self.dispatch_next(l);
            }
        }
    }

    /// The end of `v`'s wait on the limit list.
    pub(crate) fn limit_release(&mut self, v: u32) {
        if self.pool_release(v) {
            return;
        }
        self.make_ready(v, true);
    }

    /// A virtual CPU of a user on the dispatch list is readied from a wait (a message, an I/O
    /// completion, a page-in): before the exploitation SPE the state change is done under the
    /// scheduler lock held exclusive (`Locks::vcpu_ready`); any spin and line time run on the
    /// next processor that dispatches.
    fn ready_lock(&mut self) {
        let t = self.locks.vcpu_ready(self.now);
        self.sched.add_system(t);
    }
}

/// Dispatching: the choice of a virtual CPU for a processor, and the ends of its runs.
impl Sim {
    /// The next virtual CPU for processor `l`, if any (dispatch-vector choice by level).
    #[inline]
    pub(crate) fn pick(&mut self, l: u32) -> Option<u32> {
        if let Some(v) = self.sched.take_direct() {
            return Some(v);
        }
        if !self.sched.local() {
            return self.pop_live(0);
        }
        if let Some(v) = self.pop_live(l as usize) {
            return Some(v);
        }
        // Own vector empty: steal (`Scheduler::steal_from`).
        loop {
            let i = self.sched.steal_from(l, &self.cpu.topo)?;
            if let Some(v) = self.pop_live(i) {
                self.sched.count_steal();
                return Some(v);
            }
        }
    }

    /// The next ready virtual CPU of vector `i` that its CPU pool lets run.
    #[inline(always)]
    fn pop_live(&mut self, i: usize) -> Option<u32> {
        while let Some(v) = self.sched.pop_ready(i, &self.vcpus) {
            if !self.pools.is_empty() && self.pool_hold_at_dispatch(v) {
                continue;
            }
            return Some(v);
        }
        None
    }

    /// Processor `from` was parked: its dispatch vector's entries move to the unparked
    /// processors `0..n` (`Scheduler::move_parked_dv`).
    pub(crate) fn move_parked_dv(&mut self, from: usize, n: u32, homes: &mut [u32]) {
        self.sched.move_parked_dv(from, n, homes, &mut self.vcpus);
    }

    /// Bookkeeping when `v` is dispatched on processor `l`.
    #[inline(always)]
    pub(crate) fn on_dispatch(&mut self, v: u32, l: u32) {
        let vc = &self.vcpus[v as usize];
        debug_assert!(
            self.lpus.iter().all(|lp| lp.vcpu != v),
            "virtual CPU {v} dispatched on processor {l} while it runs"
        );
        if self.sched.dispatched(vc, self.now) {
            self.lpus[l as usize].bg = true;
        }
        let d = self.cpu.topo.distance(vc.home, l);
        self.cpu.moves[d] += 1;
        self.cpu.lp_moves[l as usize][d] += 1;
        if self.warm.on {
            self.cache_dispatch(v, l);
        }
        let vc = &mut self.vcpus[v as usize];
        vc.home = l;
        vc.run_start = self.now;
        vc.run_used = 0;
        // `run_on` is for the run it was set in only (`lpu_event`): one cut short (a slice end
        // on a parked processor, a preemption, an offline thread) leaves it set.
        vc.run_on = false;
    }

    /// End of a run of `v` (slice end or going idle): its CPU pool is charged, its virtual
    /// deadline advances and the CPU counts against a LIMITHARD maximum.
    #[inline]
    pub(crate) fn end_run(&mut self, v: u32) {
        let vc = &mut self.vcpus[v as usize];
        let used = std::mem::take(&mut vc.run_used);
        let u = vc.user as usize;
        self.pool_charge(u, used);
        let vc = &mut self.vcpus[v as usize];
        self.sched.end_run(vc, &self.users[u], used, self.now);
    }
}

/// The lists: a user's transactions and waits move it between dormant, eligible and dispatch.
impl Sim {
    /// A dormant virtual CPU starts a transaction.
    pub(crate) fn vcpu_runnable(&mut self, v: u32) {
        let u = self.vcpus[v as usize].user as usize;
        {
            let vc = &mut self.vcpus[v as usize];
            vc.tx_slices = 0;
            vc.want_since = self.now;
            vc.set_state(VState::Eligible, self.now);
        }
        match self.sched.runnable(u, &self.users[u]) {
            Wake::Quickdsp => self.dlist_add(u),
            Wake::Eligible => {
                self.elist_add(u, false);
                self.admit_from_elist();
            }
            Wake::Waiting => {}
            Wake::Dispatch => {
                if self.sched.tidle_wake(u, self.now) {
                    let t = self.locks.ready_update(self.now);
                    self.sched.add_system(t);
                }
                self.ready_lock();
                self.make_ready(v, false);
            }
        }
    }

    /// `v`'s page-in is done. A page wait is CP's, not the guest's: the user stayed on the
    /// dispatch list (not test-idle, no new transaction, no interactive bias again); `v` goes
    /// back on a dispatch vector keeping its priority with the limit list's bounded lag, or
    /// waits for its user's admission if the user was moved to the eligible list meanwhile.
    pub(crate) fn page_wait_done(&mut self, v: u32) {
        let u = self.vcpus[v as usize].user as usize;
        self.vcpus[v as usize].want_since = self.now;
        // The user stayed on the dispatch list: readying its VMDBK puts it back on a dispatch
        // vector and changes no scheduler list, so from the exploitation SPE on the scheduler
        // lock is not taken exclusive here (a test-idle user's new transaction is:
        // `vcpu_runnable`); before it the readying is an exclusive hold (`ready_lock`).
        if self.sched.user(u).list == UList::Dispatch {
            if !self.stay_ended(v) {
                self.ready_lock();
                self.make_ready(v, true);
            }
        } else {
            self.vcpus[v as usize].set_state(VState::Eligible, self.now);
        }
    }

    /// `v` finished a transaction and thinks.
    pub(crate) fn vcpu_idle(&mut self, v: u32) {
        let u = self.vcpus[v as usize].user as usize;
        self.sched
            .vcpu_idle(u, v, &self.users[u], &self.vcpus, self.now);
    }

    /// `v`'s minor time slice ended and it is still runnable.
    pub(crate) fn slice_end_requeue(&mut self, v: u32) {
        let u = self.vcpus[v as usize].user as usize;
        self.vcpus[v as usize].want_since = self.now;
        if self.sched.user(u).list != UList::Dispatch {
            self.vcpus[v as usize].set_state(VState::Eligible, self.now);
            return;
        }
        if self.stay_ended(v) {
            return;
        }
        // The processor it ran on dispatches next: it takes `v` again unless a more urgent
        // virtual CPU waits, and only then is an idle processor woken for `v` (handing `v` to
        // an idle processor while its own goes idle would only move it, and under SMT land it
        // beside a busy sibling).
        self.requeue_ready(v);
    }

    /// At a slice end or a page-in's end of `v`, is its user's dispatch-list stay over? If so
    /// the user is dropped to the eligible list (next class) and true is returned, `v` waiting
    /// there. The stay ends when the class's elapsed time slice is used up, or (MAXWSS) when
    /// the working set is over the limit: then the user goes "well out" in the eligible list
    /// (cp-model §4.3).
    fn stay_ended(&mut self, v: u32) -> bool {
        let u = self.vcpus[v as usize].user as usize;
        let over_wss = self
            .paging
            .as_ref()
            .is_some_and(|pg| self.sched.over_maxwss(pg.resident(u)));
        if !self.sched.stay_over(u, over_wss, self.now) {
            return false;
        }
        self.vcpus[v as usize].set_state(VState::Eligible, self.now);
        self.dlist_drop(u);
        self.sched.next_class(u, over_wss);
        for k in 0..self.users[u].vcpus.len() {
            let w = self.users[u].vcpus[k] as usize;
            if matches!(self.vcpus[w].state, VState::Ready | VState::Limited) {
                self.vcpus[w].set_state(VState::Eligible, self.now);
            }
        }
        self.elist_add(u, over_wss);
        self.admit_from_elist();
        true
    }

    /// `u` joins the eligible list (`Scheduler::elist_add`).
    fn elist_add(&mut self, u: usize, well_out: bool) {
        let atod = self.atod();
        self.sched
            .elist_add(u, &self.users[u], well_out, self.now, atod);
    }

    /// Admit eligible users in eligible-priority order while the barriers allow.
    fn admit_from_elist(&mut self) {
        while let Some(u) = self.sched.admit_next() {
            self.dlist_add(u);
        }
    }

    /// `u` enters the dispatch list (a list change under the scheduler lock) and its waiting
    /// virtual CPUs are readied.
    fn dlist_add(&mut self, u: usize) {
        let cpu = self.users[u].acct.virt_ns + self.users[u].acct.cp_ns;
        let resident = self.paging.as_ref().map_or(0, |pg| pg.resident(u));
        self.sched.enter_dlist(u, resident, cpu, self.now);
        let t = self.locks.dlist_update(self.now);
        self.sched.add_system(t);
        for k in 0..self.users[u].vcpus.len() {
            let v = self.users[u].vcpus[k];
            if self.vcpus[v as usize].state == VState::Eligible {
                self.make_ready(v, false);
            }
        }
    }

    /// `u` leaves the dispatch list (a list change under the scheduler lock).
    fn dlist_drop(&mut self, u: usize) {
        let guest_pages = self.paging.as_ref().map_or(0, |pg| pg.guest_pages(u));
        let cpu = self.users[u].acct.virt_ns + self.users[u].acct.cp_ns;
        self.sched.leave_dlist(u, guest_pages, cpu);
        let t = self.locks.dlist_update(self.now);
        self.sched.add_system(t);
    }
}
