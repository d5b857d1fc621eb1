//! The logical processors' speed and SMT wiring: a run's work is charged at its thread's
//! rate (cpu.rs: the core's CPI factor, the SMT-2 sibling), a thread's rate changes when its
//! sibling starts or stops, and SET MULTITHREAD brings second threads on or off line, moving
//! what ran on them. cpu.rs owns the hardware (cores, threads, rates); the dispatcher's `Lpu`
//! carries each run's work left; this is where the two meet.

use crate::cpu::*;
use crate::entity::Entity;
use crate::queue::Time;
use crate::sim::Sim;
use crate::units::NONE;

impl Sim {
    /// Work left in processor `l`'s current run (system, CP, guest).
    #[inline]
    pub(crate) fn work_left(&self, l: u32) -> u64 {
        let lp = &self.lpus[l as usize];
        if lp.vcpu == NONE {
            lp.sys_left
        } else {
            lp.sys_left + lp.cp_left + lp.virt_left
        }
    }

    /// `charge` for a processor that does not run at 1.0: the wall time `dt` does work at the
    /// processor's rate; each segment gets the wall time of the work done in it.
    #[inline(never)]
    pub(crate) fn charge_scaled(&mut self, l: u32, dt: Time) {
        let total = self.work_left(l);
        // Beside a busy sibling: the period being charged ran at the two-thread rate (the rate
        // changes only after the charge up to the change).
        let c = self.cpu.core_of(l) as usize;
        let shared = self.lpus[l as usize].rate == self.cpu.rate2[c]
            && self.cpu.rate2[c] != self.cpu.rate1[c];
        let lp = &mut self.lpus[l as usize];
        if total == 0 {
            lp.frac = 0;
            return;
        }
        let mut w = work_in(dt, lp.rate, &mut lp.frac);
        if w >= total {
            w = total;
            lp.frac = 0;
        }
        lp.busy_ns += dt;
        lp.slow_ns += dt.saturating_sub(w);
        let s = w.min(lp.sys_left);
        let (c, g) = if lp.vcpu == NONE {
            (0, 0)
        } else {
            let c = (w - s).min(lp.cp_left);
            (c, w - s - c)
        };
        // Wall time per segment: in proportion to the work done; with no whole work-ns done,
        // all of it goes to the segment in progress.
        let (ws, wc, wg) = if w == 0 {
            if lp.sys_left > 0 {
                (dt, 0, 0)
            } else if lp.cp_left > 0 {
                (0, dt, 0)
            } else {
                (0, 0, dt)
            }
        } else {
            split_wall(dt, s, c, w)
        };
        lp.sys_left -= s;
        lp.sys_ns += ws;
        self.sched.count_system(ws);
        let v = lp.vcpu;
        if v == NONE {
            return;
        }
        lp.cp_left -= c;
        lp.virt_left -= g;
        let vc = &mut self.vcpus[v as usize];
        vc.remaining -= g;
        // The slice is CPU time: it runs down by the wall time of guest work.
        vc.slice_left = vc.slice_left.saturating_sub(wg);
        vc.run_used += wc + wg;
        let a = &mut self.users[vc.user as usize].acct;
        a.cp_ns += wc;
        a.virt_ns += wg;
        if shared {
            a.smt_shared_ns += wc + wg;
        }
    }

    /// Wall time for processor `l` to finish its current run from now.
    #[inline(always)]
    pub(crate) fn run_wall(&self, l: u32, work: u64) -> Time {
        let lp = &self.lpus[l as usize];
        wall_for(work, lp.rate, lp.frac)
    }

    /// Processor `l` starts (busy) or stops (idle) running: core counters, and the sibling
    /// thread's new speed with its run-end event recomputed.
    #[inline(always)]
    pub(crate) fn cpu_set_busy(&mut self, l: u32, busy: bool) {
        if self.cpu.track {
            self.cpu_set_busy_smt(l, busy);
        }
    }

    #[inline(never)]
    fn cpu_set_busy_smt(&mut self, l: u32, busy: bool) {
        if self.lpus[l as usize].busy == busy {
            return;
        }
        self.lpus[l as usize].busy = busy;
        let now = self.now;
        let c = self.cpu.core_of(l) as usize;
        {
            let cs = &mut self.cpu.core_state[c];
            let dt = now - cs.since;
            match cs.nbusy {
                1 => cs.t1 += dt,
                2 => cs.t2 += dt,
                _ => {}
            }
            cs.since = now;
            if busy {
                cs.nbusy += 1;
            } else {
                cs.nbusy -= 1;
            }
        }
        if self.cpu.threads < 2 {
            return;
        }
        let s = self.cpu.sibling(l);
        let rate = if busy {
            self.cpu.rate2[c]
        } else {
            self.cpu.rate1[c]
        };
        self.set_rate(s, rate);
    }

    /// Change processor `s`'s rate now: account it at the old rate, reschedule its run end.
    pub(crate) fn set_rate(&mut self, s: u32, rate: u64) {
        if self.lpus[s as usize].rate == rate {
            return;
        }
        self.charge(s, self.now);
        self.lpus[s as usize].rate = rate;
        if rate == ONE {
            // The fast path keeps no fraction of a work-ns (less than 1 ns is dropped).
            self.lpus[s as usize].frac = 0;
        }
        // The guest work the rest of the minor time slice allows at the new rate.
        let v = self.lpus[s as usize].vcpu;
        // (Not a CP-only run: a fault's or I/O's, its wait still to come or already over.)
        if v != NONE && !self.vcpus[v as usize].pagewait && !self.vcpus[v as usize].run_on {
            let vc = &self.vcpus[v as usize];
            let virt = vc.remaining.min(slice_work(vc.slice_left, rate));
            self.lpus[s as usize].virt_left = virt;
        }
        let left = self.work_left(s);
        if left > 0 {
            let t = self.now + self.lpus[s as usize].susp_left + self.run_wall(s, left);
            self.q.schedule(Entity::Lpu(s), t);
        } else {
            self.lpus[s as usize].frac = 0;
        }
    }

    /// The rate processor `l` runs at now (its sibling's state decides).
    pub(crate) fn rate_now(&self, l: u32) -> u64 {
        let c = self.cpu.core_of(l) as usize;
        if self.cpu.threads == 2 && self.lpus[self.cpu.sibling(l) as usize].busy {
            self.cpu.rate2[c]
        } else {
            self.cpu.rate1[c]
        }
    }

    /// SET MULTITHREAD: 1 or 2 active threads per core. Second threads that go offline finish
    /// nothing more: their virtual CPU goes back to a dispatch vector (its work moves to the
    /// remaining threads) and the system time they owed moves with it.
    pub fn set_multithreading(&mut self, threads: u32) {
        let threads = threads.clamp(1, 2);
        if self.cpu.mode == SmtMode::Off
            || threads == self.cpu.threads
            || self.cpu.n_lpus < 2 * self.cpu.cores
        {
            return;
        }
        let now = self.now;
        self.charge_all();
        self.cpu.switches += 1;
        if threads == 2 {
            self.second_threads_online(now);
        } else {
            self.second_threads_offline(now);
        }
    }

    /// SET MULTITHREAD 2: every core's second thread comes online, idle, and takes ready work.
    fn second_threads_online(&mut self, now: Time) {
        let cores = self.cpu.cores;
        self.cpu.threads = 2;
        for l in cores..2 * cores {
            let lp = &mut self.lpus[l as usize];
            lp.charged_to = now;
            self.cpu.online[l as usize] = true;
            self.cpu.online_since[l as usize] = now;
        }
        // Threads alone on busy cores keep their rate until a sibling starts; new threads
        // run at the rate their sibling's state gives.
        for l in cores..2 * cores {
            let r = self.rate_now(l);
            self.lpus[l as usize].rate = r;
            self.idle.push(l);
        }
        self.idle.sort_unstable_by(|a, b| b.cmp(a));
        self.sched_set_processors(2 * cores);
        // Idle new threads take ready work now.
        self.dispatch_ready_on_idle();
    }

    /// SET MULTITHREAD 1: every core's second thread goes offline; its virtual CPU moves to
    /// the core's first thread, and first threads run alone at the single-thread rate.
    fn second_threads_offline(&mut self, now: Time) {
        let cores = self.cpu.cores;
        // Take second threads offline: none is dispatched again, their runs end now.
        self.idle.retain(|&x| x < cores);
        for l in cores..2 * cores {
            self.cpu.online[l as usize] = false;
        }
        for l in cores..2 * cores {
            self.end_offline_thread_run(l, now);
        }
        self.cpu.threads = 1;
        for v in 0..self.vcpus.len() {
            if self.vcpus[v].home >= cores {
                self.vcpus[v].home -= cores;
            }
        }
        self.sched_set_processors(cores);
        for l in 0..cores {
            let r = self.rate_now(l);
            self.set_rate(l, r);
        }
        self.dispatch_ready_on_idle();
    }

    /// End the run on offline thread `l` now: its CP and system time owed move on, and its
    /// virtual CPU is requeued on the core's first thread.
    fn end_offline_thread_run(&mut self, l: u32, now: Time) {
        let cores = self.cpu.cores;
        let v = self.lpus[l as usize].vcpu;
        let sys = self.lpus[l as usize].sys_left + self.lpus[l as usize].sys_owed;
        if v != NONE {
            self.move_unfinished_cp_work(l, v);
        }
        {
            let lp = &mut self.lpus[l as usize];
            lp.sys_left = 0;
            lp.sys_owed = 0;
            lp.cp_left = 0;
            lp.virt_left = 0;
            lp.frac = 0;
        }
        self.sched.add_system(sys);
        // Far beyond any run's end: the offline thread's run end never comes (a direct
        // cancel here would make the hot path's inlined cancel a shared out-of-line call).
        self.q.schedule(Entity::Lpu(l), Time::MAX);
        self.cpu_set_busy(l, false);
        self.cpu.online_ns[l as usize] += now - self.cpu.online_since[l as usize];
        if v != NONE {
            if std::mem::take(&mut self.lpus[l as usize].bg) {
                self.sched.bg_ended();
            }
            self.lpus[l as usize].vcpu = NONE;
            self.vcpus[v as usize].home = l - cores;
            self.end_run(v);
            self.slice_end_requeue(v);
        }
    }

    /// CP work of thread `l`'s run not done yet goes with its virtual CPU `v`: all of a page
    /// fault's (or I/O's) run; of another run, what is beyond the dispatch cost (the next
    /// dispatch pays that again).
    pub(crate) fn move_unfinished_cp_work(&mut self, l: u32, v: u32) {
        let left = self.lpus[l as usize].cp_left;
        let vc = &self.vcpus[v as usize];
        self.vcpus[v as usize].cp_owed += if vc.pagewait || vc.run_on {
            left
        } else {
            left.saturating_sub(self.cost_dispatch)
        };
    }

    /// Idle processors take ready virtual CPUs from the dispatch vectors until either runs out.
    fn dispatch_ready_on_idle(&mut self) {
        while self.sched_has_ready() {
            let Some(l) = self.idle.pop() else { break };
            self.dispatch_next(l);
        }
    }
}

impl Sim {
    /// The scheduler's view of the online logical processors changed.
    fn sched_set_processors(&mut self, online: u32) {
        let n = self.cpu.n_lpus;
        self.sched.set_processors(online, n);
        self.normalize_shares();
        self.refresh_entitlement(0);
    }

    fn sched_has_ready(&self) -> bool {
        self.sched.has_ready()
    }
}
