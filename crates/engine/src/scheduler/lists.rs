//! The lists: a user's transactions move it between the dormant, eligible and dispatch lists;
//! eligible-list admission, dispatch-list stays and their working-set projection, test-idle.

use super::{to_time, Scheduler, FAR};
use crate::guest::{UList, User, VState, Vcpu};
use crate::queue::Time;
use std::cmp::Reverse;

/// The scheduler's queues at an instant, as CP counts them for the monitor (D0R10 MRSYTSCG):
/// the users on the dispatch list (test-idle ones included, as CP keeps them there) and the
/// loading ones among them; per list, the users of transaction class k or above (`[k - 1]`,
/// k = 1..3), all of them and the loading ones. A dispatch-list user's loading is what its
/// stay was counted as (`dl_loading`), an eligible one's its last test (`loading`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueCounts {
    pub dispatch: u32,
    pub dispatch_loading: u32,
    pub dispatch_from: [u32; 3],
    pub eligible_from: [u32; 3],
    pub dispatch_loading_from: [u32; 3],
    pub eligible_loading_from: [u32; 3],
}

impl Scheduler {
    /// The queues now (a walk over the users: the monitor's sample, not the hot path).
    pub fn queue_counts(&self) -> QueueCounts {
        let mut q = QueueCounts::default();
        for s in &self.users {
            let (from, loading_from, loading) = match s.list {
                UList::Dormant => continue,
                UList::Dispatch => {
                    q.dispatch += 1;
                    q.dispatch_loading += s.dl_loading as u32;
                    (
                        &mut q.dispatch_from,
                        &mut q.dispatch_loading_from,
                        s.dl_loading,
                    )
                }
                UList::Eligible => (
                    &mut q.eligible_from,
                    &mut q.eligible_loading_from,
                    s.loading,
                ),
            };
            for k in 0..(s.class.min(3) as usize) {
                from[k] += 1;
                loading_from[k] += loading as u32;
            }
        }
        q
    }
}

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
        // -1, 0 or +1 (f64::signum would call an unchanged projection a rise).
        let trend = (used > s.wss) as i8 - (used < s.wss) as i8;
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

#[cfg(test)]
mod tests {
    //! The lists with hand-computed figures (ETS E1 50 ms, E2 400 ms, E3 2400 ms; DSPSLICE
    //! 5 ms; test-idle 300 ms; the loading test 5 page-ins per slice of CPU).

    use super::super::tests::{new64, old, params, rel, sched_with, share, user, vcpu};
    use super::*;
    use crate::config::Limit;
    use crate::level::LimitHard;
    use std::collections::VecDeque;

    const MS: Time = 1_000_000;

    fn plain() -> User {
        user(share(rel(100.0), None, Limit::None), vec![0])
    }

    #[test]
    fn queue_counts_are_cumulative_by_class_with_loading_per_list() {
        let mut s = old(LimitHard::Consumption, 2, 8);
        // (list, class, dl_loading, loading): dormant users are not counted; a dispatch-list
        // user's loading is its stay's, an eligible one's its last test.
        let users = [
            (UList::Dormant, 3, true, true),
            (UList::Dispatch, 0, false, true),
            (UList::Dispatch, 1, true, false),
            (UList::Dispatch, 2, false, false),
            (UList::Dispatch, 3, true, true),
            (UList::Eligible, 1, true, false),
            (UList::Eligible, 3, false, true),
            (UList::Eligible, 3, false, false),
        ];
        for (u, &(list, class, dl, ld)) in users.iter().enumerate() {
            let x = &mut s.users[u];
            (x.list, x.class, x.dl_loading, x.loading) = (list, class, dl, ld);
        }
        let q = s.queue_counts();
        assert_eq!((q.dispatch, q.dispatch_loading), (4, 2));
        assert_eq!(q.dispatch_from, [3, 2, 1]); // Q1..Q3, Q2..Q3, Q3 (Q0 = 4 - 3)
        assert_eq!(q.dispatch_loading_from, [2, 1, 1]);
        assert_eq!(q.eligible_from, [3, 2, 2]);
        assert_eq!(q.eligible_loading_from, [1, 1, 1]);
        assert_eq!(
            old(LimitHard::Consumption, 2, 3).queue_counts(),
            QueueCounts::default()
        );
    }

    #[test]
    fn eligible_priority_is_atod_plus_ets_over_normalized_share() {
        let mut s = old(LimitHard::Consumption, 2, 3);
        let mut us = [plain(), plain(), plain()];
        (us[0].ns_all, us[1].ns_all, us[2].ns_all) = (0.5, 0.25, 0.25);
        s.users[2].class = 2;
        s.elist_add(0, &us[0], false, 10 * MS, 8 * MS); // 8 + 50 / (0.5 x 2)
        s.elist_add(1, &us[1], false, 10 * MS, 8 * MS); // 8 + 50 / 0.5
        s.elist_add(2, &us[2], true, 10 * MS, 8 * MS); // 8 + (400 + 2400) / 0.5
        let prios: Vec<(Time, u32)> = s
            .elist
            .clone()
            .into_sorted_vec()
            .into_iter()
            .rev()
            .map(|Reverse((p, _, u))| (p, u))
            .collect();
        assert_eq!(prios, vec![(58 * MS, 0), (108 * MS, 1), (5608 * MS, 2)]);
        assert_eq!(
            (s.users[1].list, s.users[1].el_since),
            (UList::Eligible, 10 * MS)
        );
        assert_eq!((s.eligible_len(), s.stats.elist_adds), (3, 3));
    }

    #[test]
    fn admit_next_takes_the_head_through_the_barriers_and_drops_stale_entries() {
        let mut s = old(LimitHard::Consumption, 2, 3);
        let mut us = [plain(), plain(), plain()];
        (us[0].ns_all, us[1].ns_all, us[2].ns_all) = (0.5, 0.25, 0.125);
        for (u, x) in us.iter().enumerate() {
            s.elist_add(u, x, false, 0, 0);
        }
        // User 0 re-added later (its first entry is stale), user 1 gone dormant.
        s.elist_add(0, &us[0], false, 0, 500 * MS);
        s.users[1].list = UList::Dormant;
        s.dspbuf = [0.0, 1.0, 1.0, 1.0];
        assert_eq!(s.admit_next(), Some(2));
        s.q_add(1, 0.0, false);
        // The head is held: nothing is taken off.
        assert_eq!((s.admit_next(), s.eligible_len()), (None, 1));
        s.q_remove(1, 0.0, false);
        assert_eq!((s.admit_next(), s.admit_next()), (Some(0), None));
    }

    #[test]
    fn enter_dlist_marks_the_stay_and_counts_the_class() {
        let mut s = old(LimitHard::Consumption, 2, 1);
        {
            let x = &mut s.users[0];
            (x.class, x.el_since, x.pageins, x.firsts) = (2, 10 * MS, 7, 3);
            (x.wss, x.loading) = (40.0, true);
        }
        let sys0 = s.system_pending();
        s.enter_dlist(0, 25, 9 * MS, 25 * MS);
        let x = &s.users[0];
        assert_eq!(x.list, UList::Dispatch);
        assert_eq!((x.el_delay, x.dl_since), (15 * MS, 25 * MS));
        assert_eq!(
            (x.stay_res, x.stay_in, x.stay_pageins, x.stay_cpu),
            (25, 10, 7, 9 * MS)
        );
        assert_eq!((x.dl_wss, x.dl_loading), (40.0, true));
        assert_eq!(
            (s.nq, s.wss_q[2], s.load_q),
            ([0, 0, 1, 0], 40.0, [0, 0, 1, 0])
        );
        assert_eq!(s.system_pending(), sys0 + s.cost_dlist);
        assert!(s.cost_dlist > 0);
        assert_eq!(s.stats.dlist_adds, 1);
    }

    fn stay(s: &mut Scheduler, resident: u64, cpu0: Time, pageins: u64, firsts: u64) {
        s.enter_dlist(0, resident, cpu0, cpu0);
        for _ in 0..pageins {
            s.count_pagein(0);
        }
        for _ in 0..firsts {
            s.count_first_touch(0);
        }
    }

    #[test]
    fn leave_dlist_projects_the_working_set_and_tests_loading() {
        let mut s = old(LimitHard::Consumption, 2, 1);
        (s.users[0].class, s.users[0].pageins, s.users[0].firsts) = (2, 10, 5);
        // A: 100 resident + 20 page-ins + 60 first touches; 20 page-ins in 4 slices: loading
        // (20 >= 5 x 4).
        stay(&mut s, 100, 0, 20, 60);
        s.leave_dlist(0, 1000, 20 * MS);
        let x = &s.users[0];
        assert_eq!((x.wss, x.wss_trend, x.loading), (180.0, 1, true));
        assert_eq!((s.nq, s.wss_q, s.load_q), ([0; 4], [0.0; 4], [0; 4]));
        // B: 50 + 10 = 60, down after up: averaged with the last, (60 + 180) / 2; 10 page-ins
        // in 3 slices: not loading. The stay was counted as A's projection.
        stay(&mut s, 50, 20 * MS, 10, 0);
        assert_eq!((s.wss_q[2], s.load_q[2]), (180.0, 1));
        s.leave_dlist(0, 1000, 35 * MS);
        let x = &s.users[0];
        assert_eq!((x.wss, x.wss_trend, x.loading), (120.0, -1, false));
        assert_eq!((s.nq, s.wss_q, s.load_q), ([0; 4], [0.0; 4], [0; 4]));
        // C: 30 + 5 = 35, down again: not averaged; no CPU counts as one slice: 5 >= 5.
        stay(&mut s, 30, 35 * MS, 5, 0);
        s.leave_dlist(0, 1000, 35 * MS);
        let x = &s.users[0];
        assert_eq!((x.wss, x.wss_trend, x.loading), (35.0, -1, true));
        // D: capped at the guest's 200 pages, up after down: (200 + 35) / 2.
        stay(&mut s, 500, 35 * MS, 0, 0);
        s.leave_dlist(0, 200, 35 * MS);
        let x = &s.users[0];
        assert_eq!((x.wss, x.wss_trend, x.loading), (117.5, 1, false));
        // E, F: 200 (up), then 200 again (up too, see H), so G (down) averages.
        stay(&mut s, 200, 35 * MS, 0, 0);
        s.leave_dlist(0, 1000, 35 * MS);
        stay(&mut s, 200, 35 * MS, 0, 0);
        s.leave_dlist(0, 1000, 35 * MS);
        // F: no page-in and no CPU (one slice): not loading.
        assert_eq!((s.users[0].wss, s.users[0].wss_trend), (200.0, 1));
        assert!(!s.users[0].loading);
        stay(&mut s, 100, 35 * MS, 0, 0);
        s.leave_dlist(0, 1000, 35 * MS);
        assert_eq!((s.users[0].wss, s.users[0].wss_trend), (150.0, -1));
        // H: 150 again after a fall: an unchanged projection is no trend, so the last one (-1)
        // is kept, and the further fall in I is not a reversal: 100, not averaged. (Until stop
        // 21 the trend was `(used - wss).signum()`, and f64::signum(0.0) is 1.0: an unchanged
        // projection counted as a rise and I gave (100 + 150) / 2 = 125.)
        stay(&mut s, 150, 35 * MS, 0, 0);
        s.leave_dlist(0, 1000, 35 * MS);
        assert_eq!((s.users[0].wss, s.users[0].wss_trend), (150.0, -1));
        stay(&mut s, 100, 35 * MS, 0, 0);
        s.leave_dlist(0, 1000, 35 * MS);
        assert_eq!((s.users[0].wss, s.users[0].wss_trend), (100.0, -1));
        // J: the loading test counts page-ins, not first touches.
        stay(&mut s, 0, 35 * MS, 0, 50);
        s.leave_dlist(0, 1000, 35 * MS);
        assert!(!s.users[0].loading);
    }

    #[test]
    fn stay_over_after_the_class_ets_never_for_e0() {
        let mut s = old(LimitHard::Consumption, 2, 1);
        s.users[0].dl_since = 10 * MS;
        for (c, ets) in [(1, 50 * MS), (2, 400 * MS), (3, 2400 * MS)] {
            s.users[0].class = c;
            assert!(!s.stay_over(0, false, 10 * MS + ets - 1), "class {c}");
            assert!(s.stay_over(0, false, 10 * MS + ets), "class {c}");
            assert!(s.stay_over(0, true, 10 * MS), "class {c} over MAXWSS");
        }
        s.users[0].class = 0;
        assert!(!s.stay_over(0, true, 1 << 50));
    }

    #[test]
    fn over_maxwss_against_pageable_storage() {
        let mut s = old(LimitHard::Consumption, 2, 1);
        s.dpa = 1000.0;
        assert!(!s.over_maxwss(1 << 40), "MAXWSS 9999%: off");
        let p = crate::params::Params {
            maxwss: 50.0,
            ..params()
        };
        let l = super::super::tests::level(
            crate::level::Sched::DeadlineNs,
            LimitHard::Consumption,
            crate::level::DvSelect::Local,
        );
        let mut s = sched_with(&p, &l, 2, 1);
        s.dpa = 1000.0;
        assert!(!s.over_maxwss(500));
        assert!(s.over_maxwss(501));
    }

    #[test]
    fn next_class_goes_up_to_e3_and_counts_maxwss_drops() {
        let mut s = old(LimitHard::Consumption, 2, 1);
        s.next_class(0, false);
        assert_eq!(s.users[0].class, 2);
        s.next_class(0, true);
        s.next_class(0, false);
        assert_eq!((s.users[0].class, s.stats.maxwss_drops), (3, 1));
    }

    #[test]
    fn runnable_says_where_the_transaction_takes_the_user() {
        let u = plain();
        let mut s = old(LimitHard::Consumption, 2, 1);
        s.users[0].quickdsp = true;
        assert!(matches!(s.runnable(0, &u), Wake::Quickdsp));
        assert_eq!(
            (s.users[0].class, s.list_rel, s.users[0].n_runnable),
            (0, 100.0, 1)
        );
        assert!(s.users[0].touched);
        let mut s = old(LimitHard::Consumption, 2, 1);
        s.users[0].class = 3;
        assert!(matches!(s.runnable(0, &u), Wake::Eligible));
        assert_eq!((s.users[0].class, s.list_rel), (1, 100.0));
        // The wiring puts it on a list; a second virtual CPU finds it there.
        s.users[0].list = UList::Eligible;
        assert!(matches!(s.runnable(0, &u), Wake::Waiting));
        s.users[0].list = UList::Dispatch;
        s.users[0].class = 2;
        assert!(matches!(s.runnable(0, &u), Wake::Dispatch));
        assert_eq!(
            (s.users[0].class, s.list_rel, s.users[0].n_runnable),
            (2, 100.0, 3)
        );
        assert_eq!(s.touched, vec![0], "measured once by the next pass");
    }

    #[test]
    fn tidle_wake_returns_to_q1_without_a_drop() {
        let mut s = old(LimitHard::Consumption, 2, 1);
        {
            let x = &mut s.users[0];
            (x.list, x.class, x.dl_wss, x.dl_loading) = (UList::Dispatch, 3, 50.0, true);
            (x.tidle, x.tidle_since, x.tidle_vcpus) = (true, 10 * MS, 1);
        }
        s.q_add(3, 50.0, true);
        assert!(s.tidle_wake(0, 40 * MS));
        let x = &s.users[0];
        assert_eq!(
            (x.class, x.dl_since, x.tidle, x.tidle_ns),
            (1, 40 * MS, false, 30 * MS)
        );
        assert_eq!(
            (s.nq, s.wss_q[1], s.load_q),
            ([0, 1, 0, 0], 50.0, [0, 1, 0, 0])
        );
        assert!(!s.tidle_wake(0, 50 * MS), "not test-idle");
        assert_eq!(s.users[0].dl_since, 40 * MS);
        // QUICKDSP: back to E0.
        (s.users[0].tidle, s.users[0].quickdsp) = (true, true);
        assert!(s.tidle_wake(0, 60 * MS));
        assert_eq!((s.users[0].class, s.nq), (0, [1, 0, 0, 0]));
    }

    #[test]
    fn vcpu_idle_makes_a_dispatch_user_test_idle_and_an_eligible_one_dormant() {
        let mut s = old(LimitHard::Consumption, 2, 2);
        let two = user(share(rel(100.0), None, Limit::None), vec![0, 1]);
        let vs = vec![vcpu(0, 0), vcpu(0, 1)]; // both dormant
        s.list_sums_add(0, &two);
        (s.users[0].list, s.users[0].n_runnable) = (UList::Dispatch, 2);
        s.vcpu_idle(0, 0, &two, &vs, 10 * MS);
        assert!(!s.users[0].tidle, "a virtual CPU still runnable");
        s.vcpu_idle(0, 1, &two, &vs, 20 * MS);
        let x = &s.users[0];
        assert_eq!((x.tidle, x.tidle_since, x.tidle_vcpus), (true, 20 * MS, 2));
        assert_eq!(s.tidle, VecDeque::from([(20 * MS, 0)]));
        assert_eq!((x.list, s.list_rel), (UList::Dispatch, 100.0));
        // An eligible user goes dormant and leaves the sums.
        let one = user(share(rel(100.0), None, Limit::None), vec![2]);
        s.list_sums_add(1, &one);
        (s.users[1].list, s.users[1].n_runnable) = (UList::Eligible, 1);
        s.vcpu_idle(1, 2, &one, &[vcpu(1, 0), vcpu(1, 0), vcpu(1, 0)], 30 * MS);
        assert_eq!(
            (s.users[1].list, s.users[1].tidle, s.list_rel),
            (UList::Dormant, false, 100.0)
        );
        assert_eq!(s.tidle.len(), 1);
    }

    #[test]
    fn expired_tidle_after_the_test_idle_time_skipping_stale_entries() {
        let mut s = old(LimitHard::Consumption, 2, 3);
        let us: Vec<User> = (0..3)
            .map(|u| user(share(rel(100.0), None, Limit::None), vec![u]))
            .collect();
        let vs: Vec<Vcpu> = (0..3).map(|u| vcpu(u, 0)).collect();
        for (u, x) in us.iter().enumerate() {
            s.list_sums_add(u, x);
            s.enter_dlist(u, 0, 0, 0);
        }
        let idle = |s: &mut Scheduler, u: usize, now: Time| {
            s.users[u].n_runnable = 1;
            s.vcpu_idle(u, u as u32, &us[u], &vs, now);
        };
        idle(&mut s, 0, 0);
        idle(&mut s, 1, 100 * MS);
        assert!(s.tidle_wake(0, 50 * MS));
        idle(&mut s, 0, 200 * MS);
        assert_eq!(s.expired_tidle(299 * MS), None);
        // (0, user 0) is stale (user 0 idle again since 200 ms); (100, user 1) not yet over.
        assert_eq!(s.expired_tidle(350 * MS), None);
        assert_eq!(s.tidle.len(), 2);
        assert_eq!(s.expired_tidle(400 * MS), Some(1));
        s.make_dormant(1, 400 * MS);
        let x = &s.users[1];
        assert_eq!(
            (x.list, x.tidle, x.tidle_ns),
            (UList::Dormant, false, 300 * MS)
        );
        assert_eq!(s.list_rel, 200.0);
        // User 0 woke at 460 ms: its entry (200 ms) is stale when it expires.
        assert!(s.tidle_wake(0, 460 * MS));
        assert_eq!(s.expired_tidle(600 * MS), None);
        assert!(s.tidle.is_empty());
        // A test-idle user no longer on the dispatch list is skipped too.
        idle(&mut s, 2, 600 * MS);
        s.users[2].list = UList::Eligible;
        assert_eq!(s.expired_tidle(900 * MS), None);
    }

    #[test]
    fn dispatched_moves_the_virtual_time_to_the_start_tag() {
        let mut s = new64(2, 1);
        let mut vc = vcpu(0, 0);
        (vc.start, vc.deadline, vc.want_since) = (100 * MS, 110 * MS, 5 * MS);
        assert!(!s.dispatched(&vc, 8 * MS));
        assert_eq!((s.vtime, s.users[0].want_ns), (100 * MS, 3 * MS));
        (vc.start, vc.want_since) = (90 * MS, 8 * MS);
        s.dispatched(&vc, 8 * MS);
        assert_eq!(s.vtime, 100 * MS, "never backwards");
        // A background run moves no virtual time.
        (vc.start, vc.deadline) = (200 * MS, 210 * MS + FAR);
        assert!(s.dispatched(&vc, 8 * MS));
        assert_eq!((s.vtime, s.bg_running()), (100 * MS, 1));
        s.bg_ended();
        assert_eq!(s.bg_running(), 0);
    }

    #[test]
    fn pass_dt_is_the_time_since_the_last_pass() {
        let mut s = old(LimitHard::Consumption, 2, 0);
        assert_eq!(s.pass_dt(100 * MS), 100 * MS);
        assert_eq!(s.pass_dt(250 * MS), 150 * MS);
    }
}
