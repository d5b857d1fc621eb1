//! One producer per monitor record: the configuration set, and each interval's sample records
//! from the cumulative counters ([`Cum`]) and the sample's [`Snapshot`].

use super::*;
use crate::guest::VState as S;

/// Cumulative counters up to the end of the last interval added (the engine keeps deltas).
pub(super) struct Cum {
    lpu_user: Vec<u64>,
    lpu_sys: Vec<u64>,
    lpu_busy: Vec<u64>,
    /// Guest time apportioned to each processor (see [`sytprp`]).
    lpu_emul: Vec<u64>,
    virt: Vec<u64>,
    total: Vec<u64>,
    tx: Vec<u64>,
    locks: [crate::locks::LockCounters; crate::locks::N_LOCKS],
}

impl Cum {
    pub(super) fn new(sim: &Sim) -> Cum {
        let (nl, nu) = (sim.lpus.len(), sim.users.len());
        Cum {
            lpu_user: vec![0; nl],
            lpu_sys: vec![0; nl],
            lpu_busy: vec![0; nl],
            lpu_emul: vec![0; nl],
            virt: vec![0; nu],
            total: vec![0; nu],
            tx: vec![0; nu],
            locks: Default::default(),
        }
    }

    /// Add one interval. The engine does not account guest time per processor: each
    /// processor's user time is split into guest (emulation) time in the proportion of the
    /// interval's guest time to its user-charged time over all users.
    pub(super) fn add(&mut self, iv: &crate::monitor::IntervalRec) {
        let (mut virt, mut charged) = (0u64, 0u64);
        for (k, d) in iv.users.iter().enumerate().take(self.virt.len()) {
            self.virt[k] += d.virt_ns;
            self.total[k] += d.virt_ns + d.cp_ns;
            self.tx[k] += d.tx_done;
            virt += d.virt_ns;
            charged += d.virt_ns + d.cp_ns;
        }
        for (i, d) in iv.lpus.iter().enumerate().take(self.lpu_busy.len()) {
            let user = d.busy_ns - d.sys_ns.min(d.busy_ns);
            self.lpu_busy[i] += d.busy_ns;
            self.lpu_sys[i] += d.sys_ns;
            self.lpu_user[i] += user;
            if charged > 0 {
                self.lpu_emul[i] += (user as u128 * virt as u128 / charged as u128) as u64;
            }
        }
        for (a, d) in self.locks.iter_mut().zip(&iv.locks) {
            *a = a.plus(d);
        }
    }
}

/// The configuration set: IBM's MRMTRSYS, zvmlab's system and device configuration.
pub(super) fn config(sim: &Sim) -> Vec<Vec<u8>> {
    let mut out = vec![mtrsys(sim), zvmsys(sim)];
    let devs = sim.monitor_snapshot().devices;
    out.extend(
        devnos(&devs)
            .into_iter()
            .map(|n| build(&MTRDEV, tod_at(0), &[("MTRDEV_RDEVDEV", Val::U(n))])),
    );
    out.extend(zvmdvc(sim));
    out
}

fn mtrsys(sim: &Sim) -> Vec<u8> {
    let p = sim.lpus.len() as u64;
    build(
        &MTRSYS,
        tod_at(0),
        &[
            ("MTRSYS_HCPCPEID", Val::S(ORIGIN)),
            ("MTRSYS_SYSTODST", Val::U(tod_at(0))),
            ("MTRSYS_SYSZONE", Val::U(0)),
            ("MTRSYS_SYSTMID", Val::S(ORIGIN)),
            ("MTRSYS_CPUCOUNT", Val::U(p)),
            ("MTRSYS_CPUCFGCT", Val::U(p)),
            ("MTRSYS_LPARNAME", Val::S(ORIGIN)),
        ],
    )
}

fn zvmsys(sim: &Sim) -> Vec<u8> {
    let smt = if sim.cfg.smt == crate::cpu::SmtMode::Off {
        0
    } else {
        2
    };
    build(
        &ZVMSYS,
        tod_at(0),
        &[
            ("ZVMSYS_ORIGIN", Val::S(ORIGIN)),
            ("ZVMSYS_LEVEL", Val::S(&sim.level.name.to_uppercase())),
            (
                "ZVMSYS_INTERVAL",
                Val::U(ns_to_tod_units(sim.cfg.interval_ns)),
            ),
            ("ZVMSYS_CPUS", Val::U(sim.lpus.len() as u64)),
            ("ZVMSYS_SMT", Val::U(smt)),
        ],
    )
}

/// Device numbers in the order of the snapshot's devices (paging volumes, then minidisks).
pub(super) fn devnos(devs: &[DevSnap]) -> Vec<u64> {
    let (mut np, mut nm) = (0u64, 0u64);
    devs.iter()
        .map(|d| {
            if d.paging {
                np += 1;
                DEVNO_PAGING + np - 1
            } else {
                nm += 1;
                DEVNO_MINIDISK + nm - 1
            }
        })
        .collect()
}

fn zvmdvc(sim: &Sim) -> Vec<Vec<u8>> {
    let devs = sim.monitor_snapshot().devices;
    let nos = devnos(&devs);
    devs.iter()
        .zip(nos)
        .map(|(d, devno)| {
            let dtype = match d.dtype {
                crate::io::DevType::Eckd => DEVTYPE_ECKD,
                crate::io::DevType::Edev => DEVTYPE_EDEV,
                crate::io::DevType::Scsi => DEVTYPE_SCSI,
            };
            let flags = if d.paging {
                DEVFLAG_PAGING
            } else {
                DEVFLAG_MINIDISK
            };
            build(
                &ZVMDVC,
                tod_at(0),
                &[
                    ("ZVMDVC_DEVNO", Val::U(devno)),
                    ("ZVMDVC_VOLSER", Val::S(&d.name)),
                    ("ZVMDVC_TYPE", Val::U(dtype)),
                    ("ZVMDVC_FLAGS", Val::U(flags)),
                    ("ZVMDVC_EXPOSURES", Val::U(d.servers.min(0xFFFF) as u64)),
                    ("ZVMDVC_SLOTS", Val::U(d.slots)),
                ],
            )
        })
        .collect()
}

/// The sample records of one interval (cumulative counters in `c`, sampled at `end`).
pub(super) fn interval(sim: &Sim, c: &Cum, end: u64, snap: &Snapshot) -> Vec<Vec<u8>> {
    let tod = tod_at(end);
    let mut out = Vec::new();
    out.extend(zvmsto(snap, tod));
    out.extend(devices(snap, tod));
    for i in 0..sim.lpus.len() {
        out.push(sytprp(c, i, end, tod, cpu_type(sim)));
        out.push(zvmprp(sim, snap, i, tod));
    }
    out.extend(lpars(sim, snap, tod));
    out.extend(zvmhpp(snap, tod));
    // The state changes of this interval: those after the previous sample's.
    let before = sim
        .mon
        .intervals()
        .iter()
        .filter(|i| i.end < end)
        .max_by_key(|i| i.end)
        .and_then(|i| i.snap.chan.as_ref())
        .map_or(0, |c| c.moves.len());
    out.extend(super::chan_records::channel_records(snap, tod, before));
    for (k, u) in sim.users.iter().enumerate() {
        for v in 0..u.vcpus.len() {
            out.push(useact(&u.userid, v, tod));
        }
        out.push(zvmuse(c, snap, k, &u.userid, u.vcpus.len(), tod));
    }
    out.push(sytlck(c, tod));
    out.push(sytscg(&snap.queues, tod));
    out.extend(zvmlck(c, tod));
    out.extend(snap.pools.iter().map(|p| zvmcpl(p, tod)));
    out
}

fn zvmcpl(p: &crate::pools::PoolSnap, tod: u64) -> Vec<u8> {
    let flags = if p.limited { CPLFLAG_LIMITED } else { 0 }
        | if p.capacity { CPLFLAG_CAPACITY } else { 0 }
        | if p.deleted { CPLFLAG_DELETED } else { 0 };
    let h = |x: f64| Val::U((x * 100.0).round().max(0.0) as u64);
    build(
        &ZVMCPL,
        tod,
        &[
            ("ZVMCPL_NAME", Val::S(&p.name)),
            ("ZVMCPL_FLAGS", Val::U(flags)),
            (
                "ZVMCPL_CPUTY",
                Val::U(match p.ptype {
                    crate::config::PoolType::Cp => 0,
                    crate::config::PoolType::Ifl => 3,
                }),
            ),
            ("ZVMCPL_MEMBERS", Val::U(p.members as u64)),
            ("ZVMCPL_LIMITV", h(p.limit_value)),
            ("ZVMCPL_LIMITC", h(p.limit_processors)),
            ("ZVMCPL_CPUTIME", Val::U(ns_to_tod_units(p.used_ns))),
            ("ZVMCPL_LIMTIME", Val::U(ns_to_tod_units(p.limited_ns))),
            ("ZVMCPL_LIMCOUNT", Val::U(p.limited_count)),
        ],
    )
}

fn zvmsto(snap: &Snapshot, tod: u64) -> Option<Vec<u8>> {
    if snap.storage.is_none() && snap.mdc.is_none() {
        return None;
    }
    let st = snap.storage.unwrap_or_default();
    let md = snap.mdc.unwrap_or([0; 8]);
    let flags = if snap.storage.is_some() {
        STOFLAG_PAGING
    } else {
        0
    } | if snap.mdc.is_some() { STOFLAG_MDC } else { 0 };
    Some(build(
        &ZVMSTO,
        tod,
        &[
            ("ZVMSTO_FLAGS", Val::U(flags)),
            ("ZVMSTO_FRAMES", Val::U(st.frames)),
            ("ZVMSTO_RESIDENT", Val::U(st.resident)),
            ("ZVMSTO_PGREADS", Val::U(st.pages_read)),
            ("ZVMSTO_PGWRITES", Val::U(st.pages_written)),
            ("ZVMSTO_FAULTS", Val::U(st.faults)),
            ("ZVMSTO_FIRSTTCH", Val::U(st.first_touches)),
            ("ZVMSTO_SLOTS", Val::U(st.slots)),
            ("ZVMSTO_SLOTSUSED", Val::U(st.slots_used)),
            ("ZVMSTO_MDCMAX", Val::U(md[0])),
            ("ZVMSTO_MDCTARGT", Val::U(md[1])),
            ("ZVMSTO_MDCBELOW", Val::U(md[2])),
            ("ZVMSTO_MDCABOVE", Val::U(md[3])),
            ("ZVMSTO_MDCREADS", Val::U(md[4])),
            ("ZVMSTO_MDCHITS", Val::U(md[5])),
            ("ZVMSTO_MDCINS", Val::U(md[6])),
            ("ZVMSTO_MDCSTEAL", Val::U(md[7])),
        ],
    ))
}

/// Per device: IBM's MRSTOASP for paging volumes, zvmlab's ZVMDEV for every volume.
fn devices(snap: &Snapshot, tod: u64) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (d, devno) in snap.devices.iter().zip(devnos(&snap.devices)) {
        if d.paging {
            out.push(stoasp(d, devno, tod));
        }
        out.push(zvmdev(d, devno, tod));
    }
    out
}

fn stoasp(d: &DevSnap, devno: u64, tod: u64) -> Vec<u8> {
    build(
        &STOASP,
        tod,
        &[
            ("STOASP_CALVSER", Val::S(&d.name)),
            ("STOASP_RDEVDEV", Val::U(devno)),
            ("STOASP_CALPAGE", Val::U(d.slots.min(u32::MAX as u64))),
            ("STOASP_CALFLAG1", Val::U(0)),
        ],
    )
}

fn zvmdev(d: &DevSnap, devno: u64, tod: u64) -> Vec<u8> {
    let s = &d.stats;
    let t = |ns: u64| Val::U(ns_to_tod_units(ns));
    build(
        &ZVMDEV,
        tod,
        &[
            ("ZVMDEV_DEVNO", Val::U(devno)),
            ("ZVMDEV_SSCH", Val::U(s.ios)),
            ("ZVMDEV_BLOCKS", Val::U(s.pages)),
            ("ZVMDEV_READS", Val::U(s.reads)),
            ("ZVMDEV_WRITES", Val::U(s.writes)),
            ("ZVMDEV_PENDTM", t(s.pend_ns)),
            ("ZVMDEV_DISCTM", t(s.disconnect_ns)),
            ("ZVMDEV_CONNTM", t(s.connect_ns)),
            ("ZVMDEV_QUEUETM", t(s.queue_ns)),
            ("ZVMDEV_BUSYTM", t(s.busy_ns)),
            ("ZVMDEV_MAXQUEUE", Val::U(s.max_queue)),
            ("ZVMDEV_ALIASTM", t(d.elapsed.1)),
            ("ZVMDEV_BUSYEL", t(d.elapsed.0)),
        ],
    )
}

/// IBM's MRSYTPRP: time charged to users, emulation time (counting down from the CPU timer's
/// start; apportioned, see [`Cum::add`]), system time and wait time.
fn sytprp(c: &Cum, i: usize, end: u64, tod: u64, cpu_type: u64) -> Vec<u8> {
    build(
        &SYTPRP,
        tod,
        &[
            ("SYTPRP_PFXCPUAD", Val::U(i as u64)),
            (
                "SYTPRP_PFXPRBTM",
                Val::U(CPU_TIMER_START - ns_to_tod_units(c.lpu_emul[i]).min(CPU_TIMER_START)),
            ),
            ("SYTPRP_PFXUTIME", Val::U(ns_to_tod_units(c.lpu_user[i]))),
            ("SYTPRP_PFXTMSYS", Val::U(ns_to_tod_units(c.lpu_sys[i]))),
            (
                "SYTPRP_PFXTOTWT",
                Val::U(ns_to_tod_units(end.saturating_sub(c.lpu_busy[i]))),
            ),
            ("SYTPRP_PFXCPUTY", Val::U(cpu_type)),
        ],
    )
}

/// PFXCPUTY of the LPAR's processors: IFL when the scenario places it on a CPC's IFL pool
/// ([cpc] shared_ifls / dedicated_ifls) or multithreads (z/VM runs SMT on IFLs only); otherwise
/// CP, the type the scenario does not say otherwise. The codes are z/Architecture's processor
/// types as monitor readers decode them (0 CP, 2 zAAP, 3 IFL, 4 ICF, 5 zIIP: the zpm viewer of
/// the zpmd decoder; IBM's MTRCPD_LIMCPUTY, ZVMCPL_CPUTY here, uses 3 for IFL too). Files
/// written before stop 27 have 2 for IFL: the reader takes 2 in zvmlab's own data as IFL.
pub(crate) const CPUTY_CP: u64 = 0;
pub(crate) const CPUTY_IFL: u64 = 3;

fn cpu_type(sim: &Sim) -> u64 {
    if sim.cfg.cpc.is_some() || sim.cfg.smt != crate::cpu::SmtMode::Off {
        CPUTY_IFL
    } else {
        CPUTY_CP
    }
}

/// ZVMPRP_POLAR of a logical core.
fn polar(sim: &Sim, core: u32) -> u64 {
    let Some(st) = sim.lpar.as_deref() else {
        return POLAR_NONE;
    };
    match st.pol().lpars[0].cores.get(core as usize).map(|c| c.pol) {
        Some(crate::prsm::Pol::Vh) => POLAR_VH,
        Some(crate::prsm::Pol::Vm) => POLAR_VM,
        Some(crate::prsm::Pol::Vl) => POLAR_VL,
        Some(crate::prsm::Pol::Hz) => POLAR_HZ,
        Some(crate::prsm::Pol::Ded) => POLAR_DED,
        None => POLAR_NONE,
    }
}

fn zvmprp(sim: &Sim, snap: &Snapshot, i: usize, tod: u64) -> Vec<u8> {
    let lp = snap.lpus.get(i).copied().unwrap_or_default();
    let flags = PRPFLAG_PRB_APPORTIONED
        | if lp.parked { PRPFLAG_PARKED } else { 0 }
        | if lp.core_t.is_some() {
            PRPFLAG_CORETM
        } else {
            0
        };
    let (c1, c2) = lp.core_t.unwrap_or((0, 0));
    build(
        &ZVMPRP,
        tod,
        &[
            ("ZVMPRP_CPUAD", Val::U(i as u64)),
            ("ZVMPRP_CORE", Val::U(lp.core as u64)),
            ("ZVMPRP_POLAR", Val::U(polar(sim, lp.core))),
            ("ZVMPRP_FLAGS", Val::U(flags)),
            ("ZVMPRP_SUSPTM", Val::U(ns_to_tod_units(lp.susp_ns))),
            ("ZVMPRP_PARKTM", Val::U(ns_to_tod_units(lp.parked_ns))),
            ("ZVMPRP_CORE1TM", Val::U(ns_to_tod_units(c1))),
            ("ZVMPRP_CORE2TM", Val::U(ns_to_tod_units(c2))),
            ("ZVMPRP_MOVE0", Val::U(lp.moves[0] & 0xFFFF_FFFF)),
            ("ZVMPRP_MOVE1", Val::U(lp.moves[1] & 0xFFFF_FFFF)),
            ("ZVMPRP_MOVE2", Val::U(lp.moves[2] & 0xFFFF_FFFF)),
            ("ZVMPRP_MOVE3", Val::U(lp.moves[3] & 0xFFFF_FFFF)),
            ("ZVMPRP_HITL2", Val::U(lp.hits[0])),
            ("ZVMPRP_HITL3", Val::U(lp.hits[1])),
            ("ZVMPRP_HITL4", Val::U(lp.hits[2])),
            ("ZVMPRP_RELOADTM", Val::U(ns_to_tod_units(lp.reload_ns))),
            ("ZVMPRP_DISPS", Val::U(lp.disps)),
        ],
    )
}

/// ZVMCUP per LPAR of the CPC and ZVMCUM, with a [cpc].
fn lpars(sim: &Sim, snap: &Snapshot, tod: u64) -> Vec<Vec<u8>> {
    let (Some(st), Some((own, cpc, c_disp, un, unvl))) = (sim.lpar.as_deref(), snap.prsm) else {
        return Vec::new();
    };
    let mut out: Vec<Vec<u8>> = st
        .pol()
        .lpars
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let busy = st.spec().lpars.get(i).map_or(0.0, |x| x.busy);
            zvmcup(i, l, busy, tod)
        })
        .collect();
    out.extend(zvmcap(st, tod));
    let t = |x: f64| Val::U(ns_to_tod_units(x.round().max(0.0) as u64));
    out.push(build(
        &ZVMCUM,
        tod,
        &[
            ("ZVMCUM_SHARED", Val::U(st.spec().shared as u64)),
            ("ZVMCUM_DEDIC", Val::U(st.spec().dedicated as u64)),
            ("ZVMCUM_LPDISP", Val::U(own)),
            ("ZVMCUM_CPCDISP", Val::U(cpc.round() as u64)),
            ("ZVMCUM_LPMGTTM", Val::U(ns_to_tod_units(own * c_disp))),
            ("ZVMCUM_CPCMGTTM", t(cpc * c_disp as f64)),
            ("ZVMCUM_UNPARKTM", t(un)),
            ("ZVMCUM_UNPARKVL", t(unvl)),
        ],
    ));
    out
}

/// One ZVMCAP per capped LPAR (none without capping).
fn zvmcap(st: &crate::lpar::LparState, tod: u64) -> Vec<Vec<u8>> {
    let lim = st.limits();
    let h = |x: f64| Val::U((x * 100.0).round().max(0.0) as u64);
    st.spec()
        .lpars
        .iter()
        .enumerate()
        .filter(|(_, l)| l.capped || l.abscap.is_some() || l.group.is_some())
        .map(|(i, l)| {
            let flags = if l.capped { CAPFLAG_INITIAL } else { 0 }
                | if l.abscap.is_some() {
                    CAPFLAG_ABSOLUTE
                } else {
                    0
                }
                | if l.group.is_some() { CAPFLAG_GROUP } else { 0 };
            let g = l
                .group
                .as_ref()
                .and_then(|g| st.spec().groups.iter().find(|x| &x.name == g));
            let cap = if lim[i].is_finite() { lim[i] } else { 0.0 };
            build(
                &ZVMCAP,
                tod,
                &[
                    ("ZVMCAP_LPNAME", Val::S(&l.name.to_uppercase())),
                    ("ZVMCAP_LPNUM", Val::U(i as u64 + 1)),
                    ("ZVMCAP_FLAGS", Val::U(flags)),
                    ("ZVMCAP_ABSCAP", h(l.abscap.unwrap_or(0.0))),
                    ("ZVMCAP_CAPMIL", Val::U((cap * 1000.0).round() as u64)),
                    (
                        "ZVMCAP_GROUP",
                        Val::S(&g.map_or(String::new(), |g| g.name.to_uppercase())),
                    ),
                    ("ZVMCAP_GRPCAP", h(g.map_or(0.0, |g| g.abscap))),
                ],
            )
        })
        .collect()
}

fn zvmcup(i: usize, l: &crate::prsm::LparPol, busy: f64, tod: u64) -> Vec<u8> {
    let horizontal = matches!(l.polarization, crate::prsm::Polarization::Horizontal);
    let flags = if i == 0 { CUPFLAG_SELF } else { 0 }
        | if l.dedicated { CUPFLAG_DEDICATED } else { 0 }
        | if horizontal { CUPFLAG_HORIZONTAL } else { 0 };
    build(
        &ZVMCUP,
        tod,
        &[
            ("ZVMCUP_LPNAME", Val::S(&l.name.to_uppercase())),
            ("ZVMCUP_LPNUM", Val::U(i as u64 + 1)),
            ("ZVMCUP_LCPUS", Val::U(l.logical as u64)),
            ("ZVMCUP_WEIGHT", Val::U(l.weight as u64)),
            (
                "ZVMCUP_ENTMIL",
                Val::U((l.entitlement * 1000.0).round().max(0.0) as u64),
            ),
            ("ZVMCUP_FLAGS", Val::U(flags)),
            ("ZVMCUP_VH", Val::U(l.vh.min(255) as u64)),
            ("ZVMCUP_VM", Val::U(l.vm.min(255) as u64)),
            ("ZVMCUP_VL", Val::U(l.vl.min(255) as u64)),
            ("ZVMCUP_HZ", Val::U(l.hz.min(255) as u64)),
            ("ZVMCUP_DED", Val::U(l.ded.min(255) as u64)),
            (
                "ZVMCUP_BUSYMIL",
                Val::U((busy * 1000.0).round().clamp(0.0, 1000.0) as u64),
            ),
        ],
    )
}

fn zvmhpp(snap: &Snapshot, tod: u64) -> Option<Vec<u8>> {
    let (p, queued) = snap.hpp.as_ref()?;
    let c = |x: f64| Val::U((x * 100.0).round().max(0.0) as u64);
    let t = |x: f64| Val::U(ns_to_tod_units(x as u64));
    Some(build(
        &ZVMHPP,
        tod,
        &[
            ("ZVMHPP_POOL", Val::U(0)),
            ("ZVMHPP_ALIASES", Val::U(p.total as u64)),
            (
                "ZVMHPP_FLAGS",
                Val::U(if p.paging { HPPFLAG_PAGING } else { 0 }),
            ),
            ("ZVMHPP_ENTPG", c(p.entitled[0])),
            ("ZVMHPP_ENTMD", c(p.entitled[1])),
            ("ZVMHPP_SHRPG", c(p.shares[0])),
            ("ZVMHPP_SHRMD", c(p.shares[1])),
            ("ZVMHPP_INUSEPG", t(p.in_use_ns[0] as f64)),
            ("ZVMHPP_INUSEMD", t(p.in_use_ns[1] as f64)),
            ("ZVMHPP_MAXPG", Val::U(p.max_in_use[0] as u64)),
            ("ZVMHPP_MAXMD", Val::U(p.max_in_use[1] as u64)),
            ("ZVMHPP_TAKENPG", Val::U(p.taken[0])),
            ("ZVMHPP_TAKENMD", Val::U(p.taken[1])),
            ("ZVMHPP_QUEUEDPG", Val::U(queued[0])),
            ("ZVMHPP_QUEUEDMD", Val::U(queued[1])),
        ],
    ))
}

/// IBM's MRUSEACT, one per virtual CPU: the userid and the virtual CPU address (the fields
/// whose place is published; the record ends there).
fn useact(userid: &str, vcpu: usize, tod: u64) -> Vec<u8> {
    build(
        &USEACT,
        tod,
        &[
            ("USEACT_VMDUSER", Val::S(userid)),
            ("USEACT_VMDCPUAD", Val::U(vcpu as u64)),
        ],
    )
}

fn zvmuse(c: &Cum, snap: &Snapshot, k: usize, userid: &str, vcpus: usize, tod: u64) -> Vec<u8> {
    let pgu = snap.users.get(k).copied().unwrap_or((0, 0, 0));
    let (vsize, wss) = snap.mem.get(k).copied().unwrap_or((0, 0));
    let io = snap.io.get(k).copied().flatten();
    let (iodev, ios, blks) = io.map_or((0, 0, 0), |x| {
        (DEVNO_MINIDISK + x.vol as u64, x.ios, x.blocks)
    });
    let ioflags = io.map_or(0, |x| {
        (if x.write { USEFLAG_WRITE } else { 0 })
            | (if x.mdc { USEFLAG_MDC } else { 0 })
            | (if x.paced { USEFLAG_PACED } else { 0 })
    });
    let st = snap
        .states
        .get(k)
        .copied()
        .unwrap_or([0; crate::guest::N_VSTATES]);
    let tu = |s: S| Val::U(ns_to_tod_units(st[s as usize]));
    build(
        &ZVMUSE,
        tod,
        &[
            ("ZVMUSE_USERID", Val::S(userid)),
            ("ZVMUSE_VCPUS", Val::U(vcpus as u64)),
            ("ZVMUSE_TTIME", Val::U(ns_to_tod_units(c.total[k]))),
            ("ZVMUSE_VTIME", Val::U(ns_to_tod_units(c.virt[k]))),
            ("ZVMUSE_TXDONE", Val::U(c.tx[k])),
            ("ZVMUSE_PGREADS", Val::U(pgu.0)),
            ("ZVMUSE_PGSTEALS", Val::U(pgu.1)),
            ("ZVMUSE_RESPAGES", Val::U(pgu.2)),
            ("ZVMUSE_STDORM", tu(S::Dormant)),
            ("ZVMUSE_STELIG", tu(S::Eligible)),
            ("ZVMUSE_STLIMIT", tu(S::Limited)),
            ("ZVMUSE_STCPUWT", tu(S::Ready)),
            ("ZVMUSE_STRUN", tu(S::Running)),
            ("ZVMUSE_STPGWT", tu(S::PageWait)),
            ("ZVMUSE_STIOWT", tu(S::IoWait)),
            (
                "ZVMUSE_STTIDL",
                Val::U(ns_to_tod_units(snap.tidle.get(k).copied().unwrap_or(0))),
            ),
            ("ZVMUSE_VSIZE", Val::U(vsize)),
            ("ZVMUSE_WSS", Val::U(wss)),
            ("ZVMUSE_IODEV", Val::U(iodev)),
            ("ZVMUSE_IOFLAGS", Val::U(ioflags)),
            ("ZVMUSE_IOS", Val::U(ios)),
            ("ZVMUSE_IOBLKS", Val::U(blks)),
        ],
    )
}

/// IBM's MRSYTSCG: the scheduler's queues at the sample (cardinal counts, 16 bits).
fn sytscg(q: &crate::scheduler::QueueCounts, tod: u64) -> Vec<u8> {
    let n = |x: u32| Val::U(x.min(u16::MAX as u32) as u64);
    let (d, e, dl, el) = (
        q.dispatch_from,
        q.eligible_from,
        q.dispatch_loading_from,
        q.eligible_loading_from,
    );
    build(
        &SYTSCG,
        tod,
        &[
            ("SYTSCG_SRMCDISP", n(q.dispatch)),
            ("SYTSCG_SRMCDLDG", n(q.dispatch_loading)),
            ("SYTSCG_SRMC1DSP", n(d[0])),
            ("SYTSCG_SRMC2DSP", n(d[1])),
            ("SYTSCG_SRMC3DSP", n(d[2])),
            ("SYTSCG_SRMC1ELG", n(e[0])),
            ("SYTSCG_SRMC2ELG", n(e[1])),
            ("SYTSCG_SRMC3ELG", n(e[2])),
            ("SYTSCG_SRMC1DLD", n(dl[0])),
            ("SYTSCG_SRMC2DLD", n(dl[1])),
            ("SYTSCG_SRMC3DLD", n(dl[2])),
            ("SYTSCG_SRMC1ELD", n(el[0])),
            ("SYTSCG_SRMC2ELD", n(el[1])),
            ("SYTSCG_SRMC3ELD", n(el[2])),
        ],
    )
}

/// The locks IBM lists in MRSYTLCK (the others zvmlab models are not formal spin locks).
const IBM_FORMAL: &[&str] = &["SRMSLOCK", "SRMATDLK", "HCPPGDAL", "RSA2GLCK", "RSAAVLLK"];

/// IBM's MRSYTLCK: one record, one entry per formal spin lock: spin counts (collisions) and
/// spin times, exclusive and shared.
fn sytlck(c: &Cum, tod: u64) -> Vec<u8> {
    let entries: Vec<Vec<(&str, Val)>> = c
        .locks
        .iter()
        .zip(crate::locks::NAMES)
        .filter(|(_, n)| IBM_FORMAL.contains(n))
        .map(|(l, n)| {
            vec![
                ("SYTLCK_CALLCKID", Val::S(n)),
                ("SYTLCK_CALXSCNT", Val::U(l.colls_excl.min(u32::MAX as u64))),
                ("SYTLCK_CALXTIME", Val::U(ns_to_tod_units(l.spin_excl_ns))),
                (
                    "SYTLCK_CALSSCNT",
                    Val::U(l.colls_shared.min(u32::MAX as u64)),
                ),
                ("SYTLCK_CALSTIME", Val::U(ns_to_tod_units(l.spin_shared_ns))),
            ]
        })
        .collect();
    build_array(&SYTLCK, tod, &[], &entries)
}

/// ZVMLCK per lock zvmlab models: the formal ones always, the others once something took them.
fn zvmlck(c: &Cum, tod: u64) -> Vec<Vec<u8>> {
    c.locks
        .iter()
        .zip(crate::locks::NAMES)
        .enumerate()
        .filter(|(i, (l, _))| *i < 4 || l.acquires() > 0)
        .map(|(_, (l, n))| {
            build(
                &ZVMLCK,
                tod,
                &[
                    ("ZVMLCK_NAME", Val::S(n)),
                    ("ZVMLCK_ACQEXCL", Val::U(l.acquires_excl)),
                    ("ZVMLCK_ACQSHR", Val::U(l.acquires_shared)),
                    ("ZVMLCK_COLLEXCL", Val::U(l.colls_excl)),
                    ("ZVMLCK_COLLSHR", Val::U(l.colls_shared)),
                    ("ZVMLCK_SPINEXCL", Val::U(ns_to_tod_units(l.spin_excl_ns))),
                    ("ZVMLCK_SPINSHR", Val::U(ns_to_tod_units(l.spin_shared_ns))),
                ],
            )
        })
        .collect()
}
