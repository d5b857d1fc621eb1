//! The simulated LPAR under PR/SM, and z/VM's vertical-mode parking (the engine side of
//! `prsm`). Present only when the scenario has a `[cpc]`; without one nothing here runs.
//!
//! Mechanism (cp-model §1.4, §3.3, fluid form of PR/SM's time slicing [A]):
//! - Every `hd.t_park` z/VM measures its logical processors' utilization, projects the capacity
//!   PR/SM will power (entitlement plus the counted share of the pool's unused capacity, from
//!   the partner LPARs' demand: Global Performance Data) and applies SET SRM UNPARKING to
//!   decide how many logical cores stay unparked (Vh first, then Vm, then Vl). Parked
//!   processors take no work.
//! - The pool's capacity is shared by PR/SM (`prsm::pool_share`): vertical-highs on their own
//!   cores, the other logical cores of every LPAR on what the vertical-highs leave, entitlement
//!   first, excess by weight. A logical processor powered a share `a` of the time it wants to run
//!   waits `w (1/a - 1)` suspended (FCX304 %Susp) for every `w` of work it runs. Partners keep
//!   all their logical cores busy `busy` of the time (a fixed or a changing demand).
//! - PR/SM dispatches: one each time a waiting logical processor is woken, plus one per
//!   dispatch interval of suspended-and-resumed running; each costs `prsm.c_lpdisp` of PR/SM
//!   time (FCX302 %LPmgt). Partner LPARs' dispatches come from their steady demand.
//! - Waking a processor that waits costs z/VM `prsm.path_wake` of system time.

use crate::config::CpcCfg;
use crate::params::Params;
use crate::prsm::{self, CpcPol, CpcSpec, Ent, ExcessUse, Polarization, Unparking};
use crate::queue::Time;
use serde::Serialize;

pub struct LparState {
    spec: CpcSpec,
    pol: CpcPol,
    ents: Vec<Ent>,
    model: Option<Unparking>,
    excess_factor: f64,
    headroom: f64,
    min_avail: f64,
    /// Powered share of wall time of each logical processor while it wants to run.
    avail: Vec<f64>,
    unparked: u32,
    trun: Time,
    /// Dispatch interval rule: k, min, max (ms).
    trun_k: (f64, f64, f64),
    c_lpdisp: Time,
    wake_cost: Time,
    t_park: Time,
    next_park: Time,
    last_park: Time,
    mark_busy: u64,
    mark_susp: u64,
    /// Wall running time (ns) since the last PR/SM redispatch of a not fully powered core.
    run_acc: Vec<Time>,
    dispatches: u64,
    wakes: u64,
    /// Integrals of the unparked count (and of unparked vertical-lows) over time (core-ns).
    unparked_int: f64,
    unparked_vl_int: f64,
    last_change: Time,
    /// Partner LPARs' PR/SM dispatches per second at their current demand, and the count up
    /// to `rate_since`.
    partner_rate: f64,
    partner_disp: f64,
    rate_since: Time,
    /// Partners' busy fractions now (index 0, ours, unused); our demand per unparked core.
    now_busy: Vec<f64>,
    d: f64,
    /// Some LPAR of the CPC is capped (prsm::limits); our cap now (cores; infinite: none).
    capping: bool,
    cap_cores: f64,
    /// Global Performance Data samples (time, excess capacity for us) over the window.
    gpd: std::collections::VecDeque<(Time, f64)>,
    gpd_window: Time,
    /// Monitor intervals (FCX304/FCX302-like), and the counters at the last sample.
    intervals: Vec<LparInterval>,
    mark: (Time, f64, f64, u64, u64, f64),
}

/// One monitor interval of the LPAR under PR/SM.
#[derive(Clone, Debug, Serialize)]
pub struct LparInterval {
    pub end_s: f64,
    pub unparked_avg: f64,
    pub unparked_vl_avg: f64,
    /// Suspended time of the logical processors, percent of one processor summed (%Susp).
    pub susp_pct: f64,
    /// PR/SM management time for this LPAR's dispatches and the CPC's, % of one core (%LPmgt).
    pub lpmgt_pct: f64,
    pub cpc_lpmgt_pct: f64,
}

impl LparState {
    pub fn new(
        c: &CpcCfg,
        processors: u32,
        p: &Params,
        sw: &crate::level::Switches,
    ) -> Result<LparState, String> {
        c.check(processors)?;
        use crate::level::{Polarizing, UnparkingModels};
        if c.polarization == Polarization::Vertical && sw.polarization == Polarizing::HorizontalOnly
        {
            return Err("system.polarization = \"vertical\" needs a level with vertical polarization (z/VM 6.3+); this level runs horizontal only".into());
        }
        if matches!(c.unparking, Some(Unparking::Medium | Unparking::Small))
            && sw.unparking != UnparkingModels::Vm66063
        {
            return Err("system.unparking = medium or small needs VM66063 (switch unparking = \"vm66063\"); this level unparks every core that appears powered (large)".into());
        }
        let spec = c.spec(processors);
        let pol = prsm::polarize(&spec)?;
        let ents = prsm::entitlements(&spec);
        let model = match c.polarization {
            Polarization::Vertical => Some(c.unparking.unwrap_or(Unparking::Large)),
            Polarization::Horizontal => None,
        };
        let excess_factor = match c.excessuse {
            ExcessUse::High => p.hd_excess_high(),
            ExcessUse::Medium => p.hd_excess_medium(),
            ExcessUse::Low => p.hd_excess_low(),
            ExcessUse::None => 0.0,
        };
        let ms = 1e6;
        let mut st = LparState {
            spec,
            pol,
            ents,
            model,
            excess_factor,
            headroom: p.hd_headroom(),
            min_avail: p.prsm_min_avail().clamp(1e-6, 1.0),
            avail: vec![1.0; processors as usize],
            unparked: processors,
            trun: 1,
            trun_k: (p.prsm_trun_k(), p.prsm_trun_min(), p.prsm_trun_max()),
            c_lpdisp: (p.prsm_lpdisp() * 1e3).round() as Time,
            wake_cost: crate::units::path_ns(p, p.path_wake(), 0.0),
            t_park: ((p.hd_t_park() * ms).round() as Time).max(1),
            next_park: 0,
            last_park: 0,
            mark_busy: 0,
            mark_susp: 0,
            run_acc: vec![0; processors as usize],
            dispatches: 0,
            wakes: 0,
            unparked_int: 0.0,
            unparked_vl_int: 0.0,
            last_change: 0,
            partner_rate: 0.0,
            partner_disp: 0.0,
            rate_since: 0,
            now_busy: Vec::new(),
            d: 1.0,
            capping: false,
            cap_cores: f64::INFINITY,
            gpd: std::collections::VecDeque::new(),
            gpd_window: ((p.hd_gpd_window() * ms).round() as Time).max(1),
            intervals: Vec::new(),
            mark: (0, 0.0, 0.0, 0, 0, 0.0),
        };
        st.capping = st
            .spec
            .lpars
            .iter()
            .any(|l| l.capped || l.abscap.is_some() || l.group.is_some());
        // At IPL nothing is measured yet: every core is wanted.
        st.partners_at(0);
        st.sample_gpd(0);
        st.decide(processors as f64, processors as f64, 0);
        st.next_park = st.t_park;
        Ok(st)
    }

    fn me(&self) -> &prsm::LparPol {
        &self.pol.lpars[0]
    }

    /// Every core's share of a physical core with ours `n` unparked at `d` each, the partners
    /// busy on all their cores at their current demand.
    fn shares(&self, n: u32, d: f64) -> Vec<Vec<f64>> {
        let w: Vec<u32> = self.spec.lpars.iter().map(|l| l.weight).collect();
        let mut un: Vec<u32> = self.spec.lpars.iter().map(|l| l.logical).collect();
        un[0] = n;
        let mut dd = self.now_busy.clone();
        dd[0] = d;
        if !self.capping {
            return prsm::pool_share(&self.pol, &w, &un, &dd);
        }
        let lim = self.limits();
        prsm::pool_share_capped(&self.pol, &w, &un, &dd, &lim)
    }

    /// Each LPAR's cap now (cores; infinite: none), partners wanting their demand, ours all
    /// its logical cores (prsm::limits).
    pub fn limits(&self) -> Vec<f64> {
        let want: Vec<f64> = self
            .spec
            .lpars
            .iter()
            .zip(&self.now_busy)
            .enumerate()
            .map(|(j, (l, b))| {
                if j == 0 {
                    l.logical as f64
                } else {
                    l.logical as f64 * b
                }
            })
            .collect();
        prsm::limits(&self.spec, &self.ents, &want)
    }

    /// PR/SM caps a capped LPAR per logical core (the PR/SM Planning Guide: the weight is divided
    /// among the online logical cores and each is capped): each of our `n` unparked processors
    /// is powered at most its part of the cap, so the LPAR never runs above its cap whatever its
    /// demand does between parking decisions; parked ones finish their run at the same rate.
    /// Horizontally the weight is divided evenly (cap / n each); vertically it sits on the
    /// vertical-highs and -mediums, so each unparked core's part is in proportion to its own
    /// entitlement (a Vh 1, a Vm its share, a Vl none): an even split would hold a Vh below
    /// its core while the Vms stay at their entitlement, and the LPAR below its cap.
    fn cap_avail(&mut self, n: usize) {
        self.cap_cores = self.limits()[0];
        if !self.cap_cores.is_finite() {
            return;
        }
        let parts = cap_parts(&self.me().cores, n, self.cap_cores);
        for (a, c) in self.avail.iter_mut().zip(parts) {
            *a = a.min(c);
        }
    }

    /// The partners' demand at `t`; true if it changed since the last call.
    pub fn partners_at(&mut self, t: Time) -> bool {
        let b: Vec<f64> = self.spec.lpars.iter().map(|l| l.busy_at(t)).collect();
        let changed = b != self.now_busy;
        self.now_busy = b;
        changed
    }

    /// One Global Performance Data sample: the pool capacity beyond our entitlement that PR/SM
    /// would give us now if we wanted every core; kept for `hd.gpd_window`.
    pub fn sample_gpd(&mut self, t: Time) {
        let full: f64 = self.shares(self.me().logical, 1.0)[0].iter().sum();
        let x = (full - self.ents[0].cores()).max(0.0);
        self.gpd.push_back((t, x));
        while self
            .gpd
            .front()
            .is_some_and(|&(t0, _)| t0 + self.gpd_window < t)
        {
            self.gpd.pop_front();
        }
    }

    /// Parking decision from the measured utilization `busy` (cores, what the LPAR ran) and
    /// `want` (cores, ran plus suspended: what it asked PR/SM for); the projected excess is the
    /// mean of the GPD samples in the window.
    pub fn decide(&mut self, busy: f64, want: f64, t: Time) {
        let me = self.me();
        let logical = me.logical;
        let vh_vm = me.vh + me.vm;
        let e = self.ents[0].cores();
        self.unparked = match self.model {
            None => logical,
            Some(m) => {
                let n = self.gpd.len().max(1) as f64;
                let excess = self.gpd.iter().map(|&(_, x)| x).sum::<f64>() / n;
                prsm::unparked_count(
                    m,
                    logical,
                    vh_vm,
                    e,
                    excess,
                    self.excess_factor,
                    busy + self.headroom,
                )
            }
        };
        self.d = (want / self.unparked as f64).clamp(0.0, 1.0).max(1e-3);
        self.reshare(t);
    }

    /// PR/SM's shares for the current unparked set and partner demand (at a parking decision,
    /// and whenever a partner's demand changes).
    pub fn reshare(&mut self, t: Time) {
        self.partner_disp = self.partner_dispatches(t);
        self.rate_since = t;
        let n = self.unparked as usize;
        let d = self.d;
        let got = self.shares(self.unparked, d);
        // Parked processors only finish the run they were in: at full speed (no new work).
        self.avail = got[0]
            .iter()
            .enumerate()
            .map(|(i, x)| {
                if i < n {
                    (x / d).clamp(self.min_avail, 1.0)
                } else {
                    1.0
                }
            })
            .collect();
        if self.capping {
            self.cap_avail(n);
        }
        // Dispatch interval from the logical cores competing for the pool.
        let active: u32 = self.unparked
            + self
                .spec
                .lpars
                .iter()
                .zip(&self.now_busy)
                .skip(1)
                .filter(|(l, b)| !l.dedicated && **b > 0.0)
                .map(|(l, _)| l.logical)
                .sum::<u32>();
        let (k, lo, hi) = self.trun_k;
        self.trun =
            ((prsm::dispatch_interval_ms(self.spec.shared, active, k, lo, hi) * 1e6).round()
                as Time)
                .max(1);
        // Partners run steadily between changes: their non-Vh usage is redispatched once per
        // interval.
        let tr_s = self.trun as f64 / 1e9;
        self.partner_rate = self
            .pol
            .lpars
            .iter()
            .zip(&got)
            .skip(1)
            .flat_map(|(l, g)| l.cores.iter().zip(g))
            .filter(|(c, _)| matches!(c.pol, prsm::Pol::Vm | prsm::Pol::Vl | prsm::Pol::Hz))
            .map(|(_, g)| g / tr_s)
            .sum();
    }

    /// Partner LPARs' PR/SM dispatches from the start of the run up to `t`.
    fn partner_dispatches(&self, t: Time) -> f64 {
        self.partner_disp + self.partner_rate * (t - self.rate_since) as f64 / 1e9
    }

    fn vl_unparked(&self) -> u32 {
        let me = self.me();
        self.unparked.saturating_sub(me.vh + me.vm).min(me.vl)
    }
}

/// What the run reports about PR/SM and parking (FCX302/FCX304-like).
#[derive(Clone, Debug, Serialize)]
pub struct LparSummary {
    pub name: String,
    pub entitlement: f64,
    pub vh: u32,
    pub vm: u32,
    pub vl: u32,
    pub hz: u32,
    pub unparking: String,
    /// Time-averaged unparked logical cores, and unparked vertical-lows.
    pub unparked_avg: f64,
    pub unparked_vl_avg: f64,
    /// PR/SM dispatches of this LPAR's logical cores, and of the partners (estimated).
    pub prsm_dispatches: u64,
    pub partner_dispatches: f64,
    pub wakes: u64,
    /// PR/SM management time, percent of one physical core (FCX302 %LPmgt): this LPAR's
    /// dispatches, and the CPC's (partners included).
    pub lpmgt_pct: f64,
    pub cpc_lpmgt_pct: f64,
    /// Logical processors' suspended time, percent of one processor summed (FCX304 %Susp).
    pub susp_pct: f64,
    pub dispatch_interval_ms: f64,
    pub intervals: Vec<LparInterval>,
    /// CPC-wide polarization (row B13): vertical-highs and the physical cores they occupy,
    /// the other shared logical cores and the physical cores left for them.
    pub cpc_vh: u32,
    pub cpc_vh_physical: u32,
    pub cpc_non_vh: u32,
    pub cpc_non_vh_physical: u32,
    /// Powered share of each unparked logical processor at the end of the run (0: parked).
    pub availability: Vec<f64>,
    /// Capping (issue 18): initial capping, the absolute cap and group as configured, and the
    /// effective cap at the end of the run in cores (absent: not capped).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub capped: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abscap: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cap_cores: Option<f64>,
}

impl LparState {
    /// Suspended wall time before `work` ns of work on processor `l` (powered a share `a` of
    /// the time: `work (1/a - 1)`), and PR/SM dispatch counting: one per dispatch interval of
    /// run and suspension.
    #[inline]
    pub fn suspend(&mut self, l: u32, work: Time) -> Time {
        let a = self.avail[l as usize];
        if a >= 1.0 || work == 0 {
            return 0;
        }
        let susp = crate::units::round_ns(work as f64 * (1.0 / a - 1.0));
        let acc = &mut self.run_acc[l as usize];
        *acc += work + susp;
        self.dispatches += *acc / self.trun;
        *acc %= self.trun;
        susp
    }

    /// A processor that waited is woken: one PR/SM dispatch; returns z/VM's wake path (system
    /// time).
    #[inline]
    pub fn wake(&mut self) -> Time {
        self.dispatches += 1;
        self.wakes += 1;
        self.wake_cost
    }

    /// Every scheduler tick: partners' demand and a GPD sample. True when the parking decision
    /// is due (every `hd.t_park`).
    pub fn tick(&mut self, now: Time) -> bool {
        let changed = self.partners_at(now);
        self.sample_gpd(now);
        if now < self.next_park {
            if changed {
                self.reshare(now);
            }
            return false;
        }
        true
    }

    /// The parking decision at `now`, from the LPAR's busy and suspended totals (all its
    /// processors, accounted up to now): the number of logical cores left unparked.
    pub fn park_decision(&mut self, now: Time, busy: u64, susp: u64) -> u32 {
        let win = (now - self.last_park).max(1) as f64;
        let ubusy = (busy - self.mark_busy) as f64 / win;
        let uwant = (busy + susp - self.mark_busy - self.mark_susp) as f64 / win;
        self.mark_busy = busy;
        self.mark_susp = susp;
        self.last_park = now;
        self.next_park = now + self.t_park;
        self.account_unparked(now);
        self.decide(ubusy, uwant, now);
        self.unparked
    }

    /// The unparked-core integrals brought up to `now`.
    pub fn account_unparked(&mut self, now: Time) {
        let dt = (now - self.last_change) as f64;
        self.unparked_int += self.unparked as f64 * dt;
        self.unparked_vl_int += self.vl_unparked() as f64 * dt;
        self.last_change = now;
    }

    /// A monitor sample at `now` (`susp`: the processors' suspended total): the LPAR's counters
    /// over the interval just ended.
    pub fn sample(&mut self, now: Time, susp: u64) {
        self.account_unparked(now);
        let partner = self.partner_dispatches(now);
        let (t0, un0, vl0, susp0, disp0, part0) = self.mark;
        let len = (now - t0).max(1) as f64;
        let own = (self.dispatches - disp0) as f64;
        let pct = |n: f64| 100.0 * n * self.c_lpdisp as f64 / len;
        self.intervals.push(LparInterval {
            end_s: now as f64 / 1e9,
            unparked_avg: (self.unparked_int - un0) / len,
            unparked_vl_avg: (self.unparked_vl_int - vl0) / len,
            susp_pct: 100.0 * (susp - susp0) as f64 / len,
            lpmgt_pct: pct(own),
            cpc_lpmgt_pct: pct(own + partner - part0),
        });
        self.mark = (
            now,
            self.unparked_int,
            self.unparked_vl_int,
            susp,
            self.dispatches,
            partner,
        );
    }

    /// Cumulative PR/SM counters for the monitor (D0R17) at `now`: this LPAR's dispatches, the
    /// CPC's (partners estimated), PR/SM time per dispatch (ns), and the unparked-core
    /// integrals (core-ns, all and vertical-lows).
    pub fn monitor_counters(&self, now: Time) -> (u64, f64, Time, f64, f64) {
        let tail = (now - self.last_change) as f64;
        (
            self.dispatches,
            self.dispatches as f64 + self.partner_dispatches(now),
            self.c_lpdisp,
            self.unparked_int + self.unparked as f64 * tail,
            self.unparked_vl_int + self.vl_unparked() as f64 * tail,
        )
    }

    /// The run summary's `lpar` at `now` (`susp`: the processors' suspended total).
    pub fn summary(&self, now: Time, susp: u64) -> LparSummary {
        let st = self;
        let me = st.me();
        let dur = now.max(1) as f64;
        let tail = (now - st.last_change) as f64;
        let un = (st.unparked_int + st.unparked as f64 * tail) / dur;
        let unvl = (st.unparked_vl_int + st.vl_unparked() as f64 * tail) / dur;
        let partner = st.partner_dispatches(now);
        let pct = |n: f64| 100.0 * n * st.c_lpdisp as f64 / dur;
        LparSummary {
            name: me.name.clone(),
            entitlement: me.entitlement,
            vh: me.vh,
            vm: me.vm,
            vl: me.vl,
            hz: me.hz,
            unparking: match st.model {
                None => "none (horizontal)".into(),
                Some(m) => format!("{m:?}").to_lowercase(),
            },
            unparked_avg: un,
            unparked_vl_avg: unvl,
            prsm_dispatches: st.dispatches,
            partner_dispatches: partner,
            wakes: st.wakes,
            lpmgt_pct: pct(st.dispatches as f64),
            cpc_lpmgt_pct: pct(st.dispatches as f64 + partner),
            susp_pct: 100.0 * susp as f64 / dur,
            dispatch_interval_ms: st.trun as f64 / 1e6,
            intervals: st.intervals.clone(),
            cpc_vh: st.pol.vh_total,
            cpc_vh_physical: st.pol.vh_physical,
            cpc_non_vh: st.pol.non_vh_total,
            cpc_non_vh_physical: st.pol.non_vh_physical,
            availability: st
                .avail
                .iter()
                .enumerate()
                .map(|(i, &a)| if (i as u32) < st.unparked { a } else { 0.0 })
                .collect(),
            capped: st.spec.lpars[0].capped,
            abscap: st.spec.lpars[0].abscap,
            group: st.spec.lpars[0].group.clone(),
            cap_cores: Some(st.cap_cores).filter(|c| c.is_finite()),
        }
    }
}

/// What the wiring and the monitor records read of the LPAR.
impl LparState {
    /// The share of the time logical processor `l` is powered (1: always).
    #[inline]
    pub fn avail(&self, l: u32) -> f64 {
        self.avail[l as usize]
    }

    /// Logical cores left unparked.
    #[inline]
    pub fn unparked(&self) -> u32 {
        self.unparked
    }

    /// The CPC as described (partitions, pool, groups).
    pub fn spec(&self) -> &CpcSpec {
        &self.spec
    }

    /// PR/SM's polarization of the CPC's logical cores.
    pub fn pol(&self) -> &CpcPol {
        &self.pol
    }
}

/// Each core's part of a cap of `cap` cores over the first `n` (unparked) of `cores`: in
/// proportion to their entitlements when they have any (vertical polarization), else evenly;
/// cores beyond `n` (parked, finishing a run) at the even part. Each part within [1e-6, 1].
fn cap_parts(cores: &[prsm::Core], n: usize, cap: f64) -> Vec<f64> {
    let n = n.clamp(1, cores.len().max(1));
    let even = (cap / n as f64).clamp(1e-6, 1.0);
    let vertical = cores
        .iter()
        .take(n)
        .all(|c| matches!(c.pol, prsm::Pol::Vh | prsm::Pol::Vm | prsm::Pol::Vl));
    let ents: f64 = cores.iter().take(n).map(|c| c.ent).sum();
    cores
        .iter()
        .enumerate()
        .map(|(k, c)| {
            if k < n && vertical && ents > 0.0 {
                (cap * c.ent / ents).clamp(1e-6, 1.0)
            } else {
                even
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    //! The LPAR's rules against hand-computed values, on a CPC of 4 shared cores whose other
    //! partition P has the same weight (both entitled to 2 cores) and 4 logical cores.
    use super::*;
    use crate::level::UnparkingModels;

    const MS: Time = 1_000_000;
    const S: Time = 1_000_000_000;

    /// Our LPAR of 4 logical cores; `ours` and `partner` are JSON members added to ours and
    /// to P's object.
    fn lpar(ours: &str, partner: &str) -> LparState {
        let j = format!(
            r#"{{"shared": 4, "weight": 50 {ours},
                "lpars": [{{"name": "P", "weight": 50, "logical": 4 {partner}}}]}}"#
        );
        let c: CpcCfg = serde_json::from_str(&j).unwrap();
        let mut sw = crate::level::find("zvm-6.4").unwrap().switches;
        sw.unparking = UnparkingModels::Vm66063;
        LparState::new(&c, 4, &Params::default(), &sw).unwrap()
    }

    const HZ: &str = r#", "polarization": "horizontal""#;

    #[test]
    fn two_busy_partitions_each_get_their_entitlement() {
        // Both want all 4 cores: each gets its 2, so our 4 logical cores are powered half the
        // time each, and 10 ms of work waits 10 ms suspended (10 (1/0.5 - 1)).
        let mut st = lpar(HZ, r#", "polarization": "horizontal", "busy": 1.0"#);
        assert_eq!(st.unparked(), 4);
        for l in 0..4 {
            assert!((st.avail(l) - 0.5).abs() < 1e-12, "{l}: {}", st.avail(l));
        }
        assert_eq!(st.suspend(0, 10 * MS), 10 * MS);
        // The dispatch interval: 25 ms x 4 shared / 8 active logical cores = 12.5 ms (also the
        // minimum). 20 ms of run and suspension is one PR/SM dispatch, 7.5 ms carried over;
        // 5 ms of work (+5 suspended) brings it to 17.5: a second, 5 ms carried over.
        assert_eq!(st.trun, 12_500_000);
        assert_eq!(st.dispatches, 1);
        assert_eq!(st.suspend(0, 5 * MS), 5 * MS);
        assert_eq!(st.dispatches, 2);
        assert_eq!(st.run_acc[0], 5 * MS);
        // Nothing to run, nothing suspended, nothing counted.
        assert_eq!(st.suspend(1, 0), 0);
        // A wake is one dispatch more; %LPmgt over 1 s: 3 dispatches x 2 us = 0.0006 %.
        st.wake();
        let s = st.summary(S, 0);
        assert_eq!((s.prsm_dispatches, s.wakes), (3, 1));
        assert!((s.lpmgt_pct - 0.0006).abs() < 1e-12, "{}", s.lpmgt_pct);
        assert!((s.dispatch_interval_ms - 12.5).abs() < 1e-12);
    }

    #[test]
    fn availability_is_the_powered_share_of_what_a_core_asks_for() {
        // P busy; we want 1 core (2 s at 1 core busy, none suspended) over our 4: each asks
        // for a quarter of the time, within our entitlement of 2, so PR/SM powers all of it.
        let mut st = lpar(HZ, r#", "polarization": "horizontal", "busy": 1.0"#);
        st.park_decision(2 * S, 2 * S, 0);
        assert!((0..4).all(|l| (st.avail(l) - 1.0).abs() < 1e-12));
        assert_eq!(st.suspend(0, 10 * MS), 0);
    }

    #[test]
    fn an_idle_partner_leaves_us_the_pool_unless_we_are_capped() {
        // P idle: we get all 4 cores, fully powered, never suspended.
        let mut st = lpar(HZ, "");
        assert!((0..4).all(|l| st.avail(l) == 1.0));
        assert_eq!(st.suspend(2, 10 * MS), 0);
        // Only our 4 logical cores compete (P is idle): 25 ms x 4 / 4.
        assert_eq!(st.trun, 25 * MS);
        assert_eq!(st.summary(S, 0).cap_cores, None);
        // Initial capping: never above the weight's share, 2 cores, so each of our 4 is
        // powered at most 2 / 4 of the time.
        let st = lpar(r#", "polarization": "horizontal", "capped": true"#, "");
        assert!((0..4).all(|l| (st.avail(l) - 0.5).abs() < 1e-12));
        assert_eq!(st.summary(S, 0).cap_cores, Some(2.0));
        // The cap holds whatever the demand: wanting 1 core over the 4 (2 s at 1 core busy),
        // each is asked for a quarter of the time, which PR/SM would power in full; capped,
        // still at most 2 / 4.
        let mut st = lpar(r#", "polarization": "horizontal", "capped": true"#, "");
        st.park_decision(2 * S, 2 * S, 0);
        assert!((0..4).all(|l| (st.avail(l) - 0.5).abs() < 1e-12));
        // An absolute cap of 1 processor: 1 / 4 each.
        let st = lpar(r#", "polarization": "horizontal", "abscap": 1.0"#, "");
        assert!((0..4).all(|l| (st.avail(l) - 0.25).abs() < 1e-12));
    }

    #[test]
    fn a_capped_vertical_lpar_runs_at_its_cap() {
        // Vertical, capped at its entitlement of 2.4 of 8 shared cores (weight 30 of 100): one
        // Vh and two Vms of 0.7 each, the Vl parked. PR/SM's per-core parts of the cap follow
        // the cores' entitlements: the Vh its whole core, each Vm 0.7, 2.4 in all (an even
        // split gave the Vh 0.8 and the LPAR 2.2). P is busy (its Vhs use their cores).
        let j = r#"{"shared": 8, "weight": 30, "capped": true, "unparking": "small",
                   "lpars": [{"name": "P", "weight": 70, "logical": 8, "busy": 1.0}]}"#;
        let c: CpcCfg = serde_json::from_str(j).unwrap();
        let mut sw = crate::level::find("zvm-6.4").unwrap().switches;
        sw.unparking = UnparkingModels::Vm66063;
        let mut st = LparState::new(&c, 4, &Params::default(), &sw).unwrap();
        assert_eq!((st.me().vh, st.me().vm, st.me().vl), (1, 2, 1));
        let n = st.park_decision(2 * S, 2 * S * 4, 0) as usize;
        assert_eq!(n, 3, "the Vl is parked");
        let got: f64 = (0..n as u32).map(|l| st.avail(l)).sum();
        assert!((got - 2.4).abs() < 1e-9, "{got}");
        assert!((st.avail(0) - 1.0).abs() < 1e-12 && (st.avail(1) - 0.7).abs() < 1e-9);
        assert_eq!(st.summary(2 * S, 0).cap_cores, Some(2.4));
        // The parts: horizontally even; vertically by entitlement; a lone Vl keeps the even part.
        let core = |pol, ent| prsm::Core { pol, ent, home: 0 };
        let v = [
            core(prsm::Pol::Vh, 1.0),
            core(prsm::Pol::Vm, 0.5),
            core(prsm::Pol::Vl, 0.0),
        ];
        let near = |a: Vec<f64>, b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
        assert!(near(cap_parts(&v, 2, 1.2), &[0.8, 0.4, 0.6]));
        let h = [core(prsm::Pol::Hz, 0.5), core(prsm::Pol::Hz, 0.5)];
        assert!(near(cap_parts(&h, 2, 1.0), &[0.5, 0.5]));
        assert!(near(cap_parts(&v[2..], 1, 0.5), &[0.5]));
    }

    #[test]
    fn vertical_parking_follows_the_unparking_model() {
        // Entitled to 2 of our 4 cores (Vh + Vm = 2), P idle: if we wanted every core PR/SM
        // would give us all 4, an excess of 2, all counted with EXCESSUSE HIGH: 4 cores appear
        // powered. After 2 s at 0.5 cores busy the need is 0.5 + 1 (hd.headroom) = 1.5.
        let busy = S; // 0.5 cores over 2 s
        for (model, want) in [("large", 4), ("medium", 2), ("small", 2)] {
            let ours = format!(r#", "unparking": "{model}", "excessuse": "high""#);
            let mut st = lpar(&ours, "");
            assert_eq!(st.me().vh + st.me().vm, 2, "{model}");
            assert!(st.tick(2 * S), "the decision is due every hd.t_park (2 s)");
            assert_eq!(st.park_decision(2 * S, busy, 0), want, "{model}");
        }
        // MEDIUM at 2.5 cores busy: need 3.5 of the 4 powered, so 4.
        let mut st = lpar(r#", "unparking": "medium", "excessuse": "high""#, "");
        assert_eq!(st.park_decision(2 * S, 5 * S, 0), 4);
        // Each decision measures its own window: 2.5 cores busy in the first 2 s, 0.5 in the
        // next (cumulative 5 s, then 6 s of busy time): need 1.5, so MEDIUM parks down to 2.
        let mut st = lpar(r#", "unparking": "medium", "excessuse": "high""#, "");
        assert_eq!(st.park_decision(2 * S, 5 * S, 0), 4);
        assert_eq!(st.park_decision(4 * S, 6 * S, 0), 2);
        // With EXCESSUSE NONE only the entitlement appears powered: LARGE keeps 2.
        let mut st = lpar(r#", "unparking": "large", "excessuse": "none""#, "");
        assert_eq!(st.park_decision(2 * S, busy, 0), 2);
        // Not due before 2 s.
        let mut st = lpar(r#", "unparking": "large""#, "");
        assert!(!st.tick(S));
    }

    #[test]
    fn the_unparked_average_integrates_over_time() {
        // 4 unparked for the first 2 s, then 2 (MEDIUM, need 1.5) for 2 s: 3 on average over 4
        // s; with Vh + Vm = 2, vertical-lows unparked 2 then 0: 1 on average.
        let mut st = lpar(r#", "unparking": "medium", "excessuse": "high""#, "");
        assert_eq!(st.unparked(), 4);
        st.park_decision(2 * S, S, 0);
        let s = st.summary(4 * S, 0);
        assert!((s.unparked_avg - 3.0).abs() < 1e-12, "{}", s.unparked_avg);
        assert!(
            (s.unparked_vl_avg - 1.0).abs() < 1e-12,
            "{}",
            s.unparked_vl_avg
        );
        // The monitor interval over the same 4 s, and the suspended share: 1 s of 4 = 25 %.
        st.sample(4 * S, S);
        let i = &st.intervals[0];
        assert!((i.unparked_avg - 3.0).abs() < 1e-12 && (i.susp_pct - 25.0).abs() < 1e-12);
        let (_, _, c_lpdisp, un_int, _) = st.monitor_counters(4 * S);
        assert_eq!(c_lpdisp, 2_000);
        assert!((un_int - 12.0 * S as f64).abs() < 1e-3);
    }

    #[test]
    fn a_vertical_level_is_needed_for_vertical_polarization() {
        let c: CpcCfg = serde_json::from_str(r#"{"shared": 4, "weight": 50}"#).unwrap();
        let sw = crate::level::find("zvm-6.2").unwrap().switches;
        let e = LparState::new(&c, 4, &Params::default(), &sw)
            .err()
            .unwrap();
        assert!(e.contains("vertical"), "{e}");
    }
}
