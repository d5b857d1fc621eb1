//! The LPAR's wiring into the run (lpar.rs holds the LPAR's state under PR/SM and parking):
//! a run's suspended time and PR/SM dispatches on each logical processor, the PR/SM tick and
//! monitor sample, and z/VM's parking applied to the dispatcher and the dispatch vectors.

use crate::lpar::*;
use crate::queue::Time;
use crate::sim::Sim;
use crate::units::NONE;

impl Sim {
    /// Suspended wall time before `work` ns of work on processor `l`, and PR/SM dispatch counting.
    #[inline]
    pub(crate) fn prsm_suspend(&mut self, l: u32, work: Time) -> Time {
        match self.lpar.as_deref_mut() {
            None => 0,
            Some(st) => st.suspend(l, work),
        }
    }

    /// A processor that waited is woken: one PR/SM dispatch, and z/VM's wake path (system time).
    #[inline]
    pub(crate) fn prsm_wake(&mut self, l: u32) -> Time {
        let lp = &mut self.lpus[l as usize];
        if !std::mem::take(&mut lp.waiting) {
            return 0;
        }
        self.lpar.as_deref_mut().map_or(0, |st| st.wake())
    }

    /// Every scheduler tick: partners' demand and a GPD sample; every `hd.t_park` the parking
    /// decision, over the processors' busy and suspended time accounted up to now.
    pub(crate) fn prsm_tick(&mut self) {
        let now = self.now;
        let Some(st) = self.lpar.as_deref_mut() else {
            return;
        };
        if !st.tick(now) {
            return;
        }
        self.charge_all();
        let busy: u64 = self.lpus.iter().map(|l| l.busy_ns).sum();
        let susp: u64 = self.lpus.iter().map(|l| l.susp_ns).sum();
        let st = self.lpar.as_deref_mut().unwrap();
        let n = st.park_decision(now, busy, susp);
        self.apply_parking(n);
    }

    /// A monitor sample: the LPAR's counters over the interval just ended.
    pub(crate) fn prsm_sample(&mut self) {
        if self.lpar.is_none() {
            return;
        }
        let susp: u64 = self.lpus.iter().map(|l| l.susp_ns).sum();
        self.lpar.as_deref_mut().unwrap().sample(self.now, susp);
    }

    /// Park processors `n..` and unpark `0..n` (logical cores are ordered Vh, Vm, Vl).
    pub(crate) fn apply_parking(&mut self, n: u32) {
        let p = self.lpus.len() as u32;
        // Virtual CPUs and queued work of parked processors go to the unparked processor with
        // the fewest virtual CPUs homed on it (not all onto one).
        let mut homes = vec![0u32; p as usize];
        for v in &self.vcpus {
            if (v.home as usize) < homes.len() {
                homes[v.home as usize] += 1;
            }
        }
        let mut moved = false;
        for l in 0..p {
            let park = l >= n;
            if self.lpus[l as usize].parked == park {
                continue;
            }
            let now = self.now;
            let lp = &mut self.lpus[l as usize];
            lp.parked = park;
            if park {
                lp.parked_since = now;
            } else {
                lp.parked_ns += now - lp.parked_since;
            }
            if park {
                // A waiting processor leaves the idle set; a running one stops after its run.
                if let Some(i) = self.idle.iter().position(|&x| x == l) {
                    self.idle.remove(i);
                }
                // Its virtual CPUs find a home among the unparked processors, and the work
                // queued on its dispatch vector moves there (no processor would take it: the
                // others steal only when their own vectors are empty).
                let m = n.max(1);
                // Queued work first (its virtual CPUs still count as homed here), then the rest.
                self.move_parked_dv(l as usize, m, &mut homes);
                for v in self.vcpus.iter_mut() {
                    if v.home == l {
                        let to = crate::scheduler::least_loaded(&homes, m);
                        homes[l as usize] = homes[l as usize].saturating_sub(1);
                        homes[to as usize] += 1;
                        v.home = to;
                    }
                }
                moved = true;
            } else if self.lpus[l as usize].vcpu == NONE && self.lpus[l as usize].sys_left == 0 {
                self.lpus[l as usize].waiting = true;
                self.dispatch_next(l);
            }
        }
        // Idle unparked processors take the work that moved.
        if moved {
            while self.sched.has_ready() {
                let Some(l) = self.idle.pop() else { break };
                self.dispatch_next(l);
            }
        }
    }

    /// Cumulative PR/SM counters for the monitor (D0R17) up to now.
    pub(crate) fn prsm_monitor_counters(&self) -> Option<(u64, f64, Time, f64, f64)> {
        Some(self.lpar.as_deref()?.monitor_counters(self.now))
    }

    pub(crate) fn lpar_summary(&self) -> Option<LparSummary> {
        let susp: u64 = self.lpus.iter().map(|l| l.susp_ns).sum();
        Some(self.lpar.as_deref()?.summary(self.now, susp))
    }
}
