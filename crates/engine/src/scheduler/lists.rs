//! The lists: a user's transactions move it between the dormant, eligible and dispatch lists;
//! eligible-list admission, dispatch-list stays and their working-set projection, test-idle.

use super::{to_time, Scheduler, FAR};
use crate::guest::{UList, User, VState, Vcpu};
use crate::queue::Time;
use std::cmp::Reverse;

/// The lists: eligible-list admission, dispatch-list stays and their working-set projection.
impl Scheduler {
    /// User `u` joins the eligible list at `now`; `well_out` (dropped for MAXWSS) adds an E3
    /// elapsed time slice to its eligible priority (assumed: how far "well out" is, cp-model
    /// §4.3, is not public). `atod`: the adjusted TOD now.
    pub(crate) fn elist_add(&mut self, u: usize, us: &User, well_out: bool, now: Time, atod: Time) {
        let mut ets = self.ets[self.users[u].class as usize] as f64;
        if well_out {
            ets += self.ets[3] as f64;
        }
        let prio = atod.saturating_add(to_time(ets / (us.ns_all * self.n_cpu)));
        let seq = self.next_seq();
        let s = &mut self.users[u];
        s.list = UList::Eligible;
        s.el_since = now;
        s.el_seq = seq;
        self.elist.push(Reverse((prio, seq, u as u32)));
        self.stats.elist_adds += 1;
    }

    /// The eligible list's head, taken off it if the DSPBUF and storage barriers admit it
    /// (stale entries are dropped on the way).
    pub(crate) fn admit_next(&mut self) -> Option<usize> {
        while let Some(&Reverse((_, seq, u))) = self.elist.peek() {
            let s = &self.users[u as usize];
            if s.list != UList::Eligible || s.el_seq != seq {
                self.elist.pop();
                continue;
            }
            let (c, ws, ld) = (s.class, s.wss, s.loading);
            if !self.admissible(c, ws, ld) {
                return None;
            }
            self.elist.pop();
            return Some(u as usize);
        }
        None
    }

    /// User `u` enters the dispatch list at `now`, with `resident` pages and `cpu` ns used so
    /// far (the stay's starting marks); its class's counts grow, and the list change's path
    /// is system time to run.
    pub(crate) fn enter_dlist(&mut self, u: usize, resident: u64, cpu: Time, now: Time) {
        let s = &mut self.users[u];
        s.list = UList::Dispatch;
        s.stay_res = resident;
        s.stay_in = s.pageins + s.firsts;
        s.dl_since = now;
        s.el_delay = now - s.el_since;
        s.end_tidle(now);
        s.dl_wss = s.wss;
        s.dl_loading = s.loading;
        s.stay_pageins = s.pageins;
        s.stay_cpu = cpu;
        let (c, ws, ld) = (s.class, s.wss, s.loading);
        self.q_add(c, ws, ld);
        self.sys_pending += self.cost_dlist;
        self.stats.dlist_adds += 1;
    }

    /// User `u` leaves the dispatch list, having `guest_pages` pages and `cpu` ns used so far:
    /// its working set is projected from the stay and its class's counts shrink.
    pub(crate) fn leave_dlist(&mut self, u: usize, guest_pages: u64, cpu: Time) {
        let slice = self.slice as f64;
        let loading_faults = self.loading_faults;
        let s = &mut self.users[u];
        let (c, ws, ld) = (s.class, s.dl_wss, s.dl_loading);
        // Working-set projection at the drop (cp-model §6.7, the VM/370 rule). What the stay
        // used: the pages resident when it began plus those brought in during it (page-ins and
        // first touches), at most the guest's pages [A: CP's exact count of pages referenced in
        // the stay is not public; pages stolen from the user while it ran count, because it
        // needed them]; averaged with the last projection when the trend reverses.
        let used = ((s.stay_res + s.pageins + s.firsts - s.stay_in).min(guest_pages)) as f64;
        let trend = (used - s.wss).signum() as i8;
        s.wss = if trend != 0 && s.wss_trend != 0 && trend != s.wss_trend {
            (used + s.wss) / 2.0
        } else {
            used
        };
        if trend != 0 {
            s.wss_trend = trend;
        }
        let slices = ((cpu - s.stay_cpu) as f64 / slice).max(1.0);
        s.loading = (s.pageins - s.stay_pageins) as f64 >= loading_faults * slices;
        self.q_remove(c, ws, ld);
        self.sys_pending += self.cost_dlist;
    }

    /// Is user `u`'s dispatch-list stay over at `now` (its class's elapsed time slice used up,
    /// or `over_wss`)? E0 (QUICKDSP) users have no elapsed time slice.
    pub(crate) fn stay_over(&self, u: usize, over_wss: bool, now: Time) -> bool {
        let s = &self.users[u];
        s.class != 0 && (over_wss || now - s.dl_since >= self.ets[s.class as usize])
    }

    /// Is `resident` pages over MAXWSS?
    pub(crate) fn over_maxwss(&self, resident: u64) -> bool {
        self.maxwss < 99.0 && resident as f64 > self.maxwss * self.dpa
    }
}

/// Where a user's new transaction takes it (`Scheduler::runnable`).
pub(crate) enum Wake {
    /// SET QUICKDSP ON: class E0, straight onto the dispatch list (no admission barrier, not
    /// counted against DSPBUF).
    Quickdsp,
    /// Class E1, onto the eligible list and through admission.
    Eligible,
    /// Already waiting on the eligible list.
    Waiting,
    /// On the dispatch list (test-idle or not): its virtual CPU is readied.
    Dispatch,
}

/// A user's transactions: runnable, idle, test-idle, and the scheduler's pass.
impl Scheduler {
    /// A virtual CPU of user `u` starts a transaction: the user's runnable count grows, the
    /// next pass measures it, and a dormant user joins the lists' share sums in class E1 (E0
    /// with QUICKDSP). Says where the transaction takes the user.
    #[inline]
    pub(crate) fn runnable(&mut self, u: usize, us: &User) -> Wake {
        self.users[u].n_runnable += 1;
        self.touch(u, us);
        match self.users[u].list {
            UList::Dormant if self.users[u].quickdsp => {
                self.users[u].class = 0;
                self.list_sums_add(u, us);
                Wake::Quickdsp
            }
            UList::Dormant => {
                self.users[u].class = 1;
                self.list_sums_add(u, us);
                Wake::Eligible
            }
            UList::Eligible => Wake::Waiting,
            UList::Dispatch => Wake::Dispatch,
        }
    }

    /// A new transaction of user `u` on the dispatch list at `now`: if it was test-idle it goes
    /// back to Q1 (E0 with QUICKDSP), no drop and re-add. True if it was test-idle (the change
    /// is a dispatch-list update under the scheduler lock held exclusive).
    pub(crate) fn tidle_wake(&mut self, u: usize, now: Time) -> bool {
        let s = &mut self.users[u];
        if !s.tidle {
            return false;
        }
        s.end_tidle(now);
        let c = if s.quickdsp { 0 } else { 1 };
        let (old, ws, ld) = (s.class, s.dl_wss, s.dl_loading);
        s.class = c;
        s.dl_since = now;
        self.q_remove(old, ws, ld);
        self.q_add(c, ws, ld);
        true
    }

    /// Virtual CPU `v` of user `u` went idle at `now`: with no runnable virtual CPU left a
    /// dispatch-list user becomes test-idle, an eligible one dormant.
    pub(crate) fn vcpu_idle(&mut self, u: usize, v: u32, us: &User, vcpus: &[Vcpu], now: Time) {
        let s = &mut self.users[u];
        s.n_runnable -= 1;
        if s.n_runnable > 0 {
            return;
        }
        match s.list {
            UList::Dispatch => {
                s.tidle = true;
                s.tidle_since = now;
                self.tidle.push_back((now, u as u32));
                // A one-CPU user's virtual CPU is `v` (not its list, another allocation).
                let dormant = if us.vcpus.len() == 1 {
                    (vcpus[v as usize].state == VState::Dormant) as u32
                } else {
                    us.vcpus
                        .iter()
                        .filter(|&&w| vcpus[w as usize].state == VState::Dormant)
                        .count() as u32
                };
                self.users[u].tidle_vcpus = dormant;
            }
            UList::Eligible => {
                s.list = UList::Dormant;
                self.list_sums_remove(u);
            }
            UList::Dormant => {}
        }
    }

    /// The next test-idle user whose test-idle time is over at `now`, taken off the test-idle
    /// queue (entries of users that woke meanwhile are dropped on the way).
    pub(crate) fn expired_tidle(&mut self, now: Time) -> Option<usize> {
        while let Some(&(t, u)) = self.tidle.front() {
            if t + self.test_idle > now {
                return None;
            }
            self.tidle.pop_front();
            let s = &self.users[u as usize];
            if s.tidle && s.tidle_since == t && s.list == UList::Dispatch {
                return Some(u as usize);
            }
        }
        None
    }

    /// User `u`, dropped from the dispatch list after its test-idle time, goes dormant.
    pub(crate) fn make_dormant(&mut self, u: usize, now: Time) {
        let s = &mut self.users[u];
        s.end_tidle(now);
        s.list = UList::Dormant;
        self.list_sums_remove(u);
    }

    /// User `u`'s stay ended: it goes on to the next class (at most E3).
    pub(crate) fn next_class(&mut self, u: usize, over_wss: bool) {
        let s = &mut self.users[u];
        s.class = (s.class + 1).min(3);
        if over_wss {
            self.stats.maxwss_drops += 1;
        }
    }

    /// The time since the last pass, at a pass at `now`.
    pub(crate) fn pass_dt(&mut self, now: Time) -> Time {
        let dt = now - self.last_tick;
        self.last_tick = now;
        dt
    }

    /// `vc` is dispatched at `now`: the time it wanted a processor counts for its user's
    /// demand, and the list's virtual time moves to the start tag it was queued with (so a
    /// later feedback shift of a waiting entry does not move it; a LIMITSOFT user running in
    /// the background does not move it either). True if it runs in the background.
    #[inline(always)]
    pub(crate) fn dispatched(&mut self, vc: &Vcpu, now: Time) -> bool {
        let bg = vc.deadline >= FAR;
        if bg {
            self.bg_running += 1;
        }
        self.users[vc.user as usize].want_ns += now - vc.want_since;
        if self.vtime < vc.start && vc.deadline < FAR {
            self.vtime = vc.start;
        }
        bg
    }
}
