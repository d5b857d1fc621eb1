//! Monitor records of channel paths and PAV (issue 22): zvmlab's D15R13 ZVMCHP per path,
//! D15R14 ZVMDCH per device behind paths or a PAV base, D15R15 ZVMSTC per PAV alias move.

use super::records::devnos;
use super::*;

/// The channel and PAV records of one sample (none without channels or PAV); the moves after
/// the first `before` (the previous sample's) are this interval's state changes.
pub(super) fn channel_records(snap: &Snapshot, tod: u64, before: usize) -> Vec<Vec<u8>> {
    let Some(ch) = snap.chan.as_ref() else {
        return Vec::new();
    };
    let t = |ns: u64| Val::U(ns_to_tod_units(ns));
    let mut out = Vec::new();
    for (chpid, kind, slots, s) in &ch.paths {
        out.push(build(
            &ZVMCHP,
            tod,
            &[
                ("ZVMCHP_CHPID", Val::U(*chpid)),
                ("ZVMCHP_TYPE", Val::U(*kind)),
                ("ZVMCHP_SLOTS", Val::U((*slots).min(0xFFFF) as u64)),
                ("ZVMCHP_MAXCONC", Val::U(s.max_conc as u64)),
                ("ZVMCHP_IOS", Val::U(s.ios)),
                ("ZVMCHP_BYTES", Val::U(s.bytes)),
                ("ZVMCHP_BUSYTM", t(s.busy_ns)),
                ("ZVMCHP_CONCTM", t(s.conc_ns.min(u64::MAX as u128) as u64)),
                ("ZVMCHP_CUDELAY", Val::U(ch.delayed)),
                ("ZVMCHP_OWNBUSY", t(s.own_busy_ns)),
                ("ZVMCHP_PARTIOS", Val::U(s.partner_ios)),
            ],
        ));
    }
    let nos = devnos(&snap.devices);
    for ((on_paths, paths, aliases, pav), devno) in ch.devs.iter().zip(&nos) {
        if !on_paths && !pav {
            continue;
        }
        let flags = if *on_paths && ch.hw_active {
            DCHFLAG_HWACTIVE
        } else {
            0
        } | if *on_paths { DCHFLAG_CHANNEL } else { 0 }
            | if *pav { DCHFLAG_PAV } else { 0 };
        out.push(build(
            &ZVMDCH,
            tod,
            &[
                ("ZVMDCH_DEVNO", Val::U(*devno)),
                ("ZVMDCH_FLAGS", Val::U(flags)),
                ("ZVMDCH_PATHS", Val::U(*paths as u64)),
                ("ZVMDCH_ALIASES", Val::U(*aliases as u64)),
                ("ZVMDCH_CU", Val::U(0)),
            ],
        ));
    }
    let first_md = snap.devices.iter().position(|d| !d.paging).unwrap_or(0);
    let md = |v: u32| Val::U(nos.get(first_md + v as usize).copied().unwrap_or(0));
    for &(at, from, to) in ch.moves.iter().skip(before) {
        out.push(build(
            &ZVMSTC,
            tod,
            &[
                ("ZVMSTC_WHEN", Val::U(tod_at(at))),
                ("ZVMSTC_FROM", md(from)),
                ("ZVMSTC_TO", md(to)),
                ("ZVMSTC_CODE", Val::U(1)),
            ],
        ));
    }
    out
}
