//! The scenario contract's limits and cross-field rules (contract.rs) checked on a `Config`,
//! table by table: the engine refuses every out-of-range value it is given, with a message
//! naming the field (the Python front words the same rules with file and line).

use crate::config::{
    Action, Config, CpcSpec, DasdType, Guest, PagingVolumeType, Share, ShareKind, Workload,
};
use crate::contract::*;

fn range<T: PartialOrd + std::fmt::Display>(what: &str, v: T, lo: T, hi: T) -> Result<(), String> {
    if v >= lo && v <= hi {
        Ok(())
    } else {
        Err(format!("{what} must be {lo}..{hi} (got {v})"))
    }
}

impl Config {
    /// Every limit and cross-field rule of the contract not checked elsewhere in `check`.
    pub(crate) fn check_contract(&self) -> Result<(), String> {
        range("run.duration_ns", self.duration_ns, 1, MAX_DURATION_NS)?;
        range("run.interval_ns", self.interval_ns, 1, MAX_DURATION_NS)?;
        range("run.seed", self.seed, 0, MAX_SEED)?;
        for g in &self.guests {
            check_guest(g)?;
            check_guest_workload(g)?;
        }
        self.check_absolute_sum()?;
        self.check_storage_contract()?;
        self.check_cu_contract()?;
        self.check_pav_contract()?;
        self.check_channels_contract()?;
        self.check_cpc_contract()
    }

    /// ABSOLUTE minimum shares of all userids (a guest of count n stands for n of them) sum to
    /// at most `MAX_ABSOLUTE_SUM` % of the system at the start and after each timed SET SHARE,
    /// taken in time order (as the run takes them). A SET SHARE of an unknown userid changes
    /// nothing here (building the run refuses it).
    fn check_absolute_sum(&self) -> Result<(), String> {
        // Each userid with its minimum share and its guest entry, in guest order.
        let mut users: Vec<(String, Share, usize)> = Vec::new();
        for (i, g) in self.guests.iter().enumerate() {
            if g.count == 1 {
                users.push((g.userid.clone(), g.share, i));
            } else {
                users.extend((0..g.count).map(|k| (format!("{}{k}", g.userid), g.share, i)));
            }
        }
        if absolute_sum(&users) > MAX_ABSOLUTE_SUM + SUM_SLACK {
            let g = &self.guests[largest_absolute(&users)];
            let field = format!("guest {}: share", g.userid);
            return Err(absolute_sum_error(&field, "", &users));
        }
        let mut order: Vec<usize> = (0..self.actions.len()).collect();
        order.sort_by_key(|&k| self.actions[k].at_ns());
        for k in order {
            let Action::SetShare {
                at_ns,
                userid,
                share,
            } = &self.actions[k]
            else {
                continue;
            };
            let Some(i) = users.iter().position(|u| &u.0 == userid) else {
                continue;
            };
            users[i].1 = *share;
            if absolute_sum(&users) > MAX_ABSOLUTE_SUM + SUM_SLACK {
                let when = format!(" after SET SHARE {userid} at {} s", *at_ns as f64 / 1e9);
                let field = format!("actions[{k}].share");
                return Err(absolute_sum_error(&field, &when, &users));
            }
        }
        Ok(())
    }

    fn check_storage_contract(&self) -> Result<(), String> {
        if let Some(m) = &self.mdc {
            range("mdc.frames", m.frames, 1, MAX_SIZE_PAGES)?;
        }
        let Some(st) = &self.storage else {
            return Ok(());
        };
        range("storage.frames", st.frames, 1, MAX_REAL_PAGES)?;
        for (j, v) in st.paging_volumes.iter().enumerate() {
            let w = format!("storage.paging_volumes[{j}]");
            range(&format!("{w}.count"), v.count, 1, MAX_VOLUME_COUNT)?;
            range(&format!("{w}.slots"), v.slots, 1, MAX_SIZE_PAGES)?;
            if v.xiv && v.dtype != PagingVolumeType::Edev {
                return Err(format!(
                    "{w}.xiv marks an EDEV on an IBM XIV: type must be edev"
                ));
            }
        }
        if st.hpf && !self.eckd_paging() {
            return Err("storage.hpf (SET PAGING HPF ON) needs eckd paging volumes".into());
        }
        if st.encrypt.is_some() {
            let m = self.machine.as_deref().unwrap_or(DEFAULT_MACHINE);
            if rank(&MACHINES, m) < rank(&MACHINES, FIRST_ENCRYPT_MACHINE) {
                return Err(format!(
                    "storage.encrypt on a {m}: encrypted paging needs a {FIRST_ENCRYPT_MACHINE} or later"
                ));
            }
        }
        Ok(())
    }

    /// ECKD paging volumes in [storage].
    fn eckd_paging(&self) -> bool {
        self.storage.as_ref().is_some_and(|s| {
            s.paging_volumes
                .iter()
                .any(|v| v.dtype == PagingVolumeType::Eckd)
        })
    }

    /// ECKD minidisk volumes (dasd-io or format; with `dump`, dump volumes too, which are ECKD).
    fn eckd_minidisks(&self, dump: bool) -> bool {
        self.guests.iter().any(|g| match &g.workload {
            Workload::DasdIo { dtype, .. } | Workload::Format { dtype, .. } => {
                *dtype == DasdType::Eckd
            }
            Workload::Dump { .. } => dump,
            _ => false,
        })
    }

    fn check_cu_contract(&self) -> Result<(), String> {
        let Some(h) = &self.hyperpav else {
            return Ok(());
        };
        range("cu.aliases", h.aliases, ALIASES.0, ALIASES.1)?;
        let (lo, hi) = RELATIVE_SHARE;
        for (k, v) in [("paging", h.share_paging), ("minidisk", h.share_minidisk)] {
            if !(lo..=hi).contains(&v) {
                return Err(format!("cu.share.{k} must be {lo}..{hi} (got {v})"));
            }
        }
        if !self.eckd_paging() && !self.eckd_minidisks(false) {
            return Err(
                "cu.aliases: HyperPAV aliases need eckd paging volumes or minidisks".into(),
            );
        }
        if h.paging_alias && !self.eckd_paging() {
            return Err("cu.paging_alias (SET PAGING ALIAS ON) needs eckd paging volumes".into());
        }
        Ok(())
    }

    fn check_pav_contract(&self) -> Result<(), String> {
        let Some(p) = &self.pav else {
            return Ok(());
        };
        if self.hyperpav.is_some() {
            return Err(
                "cu.pav: a control unit has HyperPAV or static/dynamic PAV, not both".into(),
            );
        }
        range("cu.aliases", p.aliases, ALIASES.0, ALIASES.1)?;
        let levels = crate::level::names();
        if rank(&levels, &self.level) < rank(&levels, FIRST_PAV_LEVEL) {
            return Err(format!(
                "cu.pav: level {} has no PAV minidisk support (first at {FIRST_PAV_LEVEL})",
                self.level
            ));
        }
        if !self.eckd_minidisks(false) {
            return Err("cu.pav: PAV aliases without ECKD minidisk volumes".into());
        }
        Ok(())
    }

    fn check_channels_contract(&self) -> Result<(), String> {
        let Some(c) = &self.channels else {
            return Ok(());
        };
        for (i, ch) in c.chpids.iter().enumerate() {
            if !is_chpid(&ch.id) {
                return Err(format!(
                    "chpid[{i}].id '{}' is not a CHPID (two upper-case hex digits)",
                    ch.id
                ));
            }
            let r = ch.partner_io_rate;
            if !(0.0..=MAX_PARTNER_IO_RATE).contains(&r) {
                return Err(format!(
                    "chpid[{i}].partner_io_rate must be 0..{MAX_PARTNER_IO_RATE} (got {r})"
                ));
            }
        }
        if !self.eckd_paging() && !self.eckd_minidisks(true) {
            return Err("cu.paths: channel paths need eckd paging volumes or minidisks".into());
        }
        Ok(())
    }

    fn check_cpc_contract(&self) -> Result<(), String> {
        let Some(c) = &self.cpc else {
            return Ok(());
        };
        range("cpc.shared", c.shared, 1, MAX_IFLS)?;
        range("cpc.dedicated", c.dedicated, 0, MAX_IFLS)?;
        check_lpar_name("system.lpar", &c.name)?;
        for (i, l) in c.lpars.iter().enumerate() {
            check_lpar_name(&format!("cpc.lpars[{i}].name"), &l.name)?;
            range(&format!("cpc.lpars[{i}].logical"), l.logical, 1, MAX_IFLS)?;
            if l.dedicated && l.weight != 0 {
                return Err(format!(
                    "cpc.lpars[{i}].weight: a dedicated LPAR has no weight"
                ));
            }
        }
        for (i, g) in c.groups.iter().enumerate() {
            check_lpar_name(&format!("cpc.groups[{i}].name"), &g.name)?;
        }
        Ok(())
    }
}

impl CpcSpec {
    /// Structural checks (the Python front gives located messages for the same rules).
    pub fn check(&self) -> Result<(), String> {
        if self.shared == 0 && self.dedicated == 0 {
            return Err("cpc: a CPC needs at least one physical IFL (shared or dedicated)".into());
        }
        if self.lpars.is_empty() {
            return Err("cpc: no LPARs".into());
        }
        let mut ded = 0u32;
        let mut seen = std::collections::BTreeSet::new();
        for l in &self.lpars {
            // 1-8 printable characters, no blanks, compared in upper case (as the HMC shows them).
            let n = l.name.chars().count();
            if !(1..=8).contains(&n) || l.name.chars().any(|c| c.is_control() || c.is_whitespace())
            {
                return Err(format!(
                    "cpc: {:?} is not an LPAR name (1-8 printable characters, no blanks)",
                    l.name
                ));
            }
            if !seen.insert(l.name.to_uppercase()) {
                return Err(format!("cpc: LPAR name '{}' is used twice", l.name));
            }
            if l.logical == 0 {
                return Err(format!(
                    "cpc: LPAR {}: logical cores must be at least 1",
                    l.name
                ));
            }
            if !l.busy_pattern.is_empty() && l.busy_period_ns == 0 {
                return Err(format!(
                    "cpc: LPAR {}: a busy pattern needs a positive period",
                    l.name
                ));
            }
            if let Some(b) = l.busy_pattern.iter().find(|b| !(0.0..=1.0).contains(*b)) {
                return Err(format!(
                    "cpc: LPAR {}: busy must be a fraction 0..1 (got {b})",
                    l.name
                ));
            }
            if !(0.0..=1.0).contains(&l.busy) {
                return Err(format!(
                    "cpc: LPAR {}: busy must be a fraction 0..1 (got {})",
                    l.name, l.busy
                ));
            }
            if l.dedicated {
                ded += l.logical;
            } else {
                if l.weight == 0 || l.weight > 999 {
                    return Err(format!(
                        "cpc: LPAR {}: weight of a shared LPAR must be 1..999 (got {})",
                        l.name, l.weight
                    ));
                }
                if l.logical > self.shared {
                    return Err(format!(
                        "cpc: LPAR {}: {} shared logical cores but the CPC has {} shared physical IFLs",
                        l.name, l.logical, self.shared
                    ));
                }
            }
        }
        self.check_caps()?;
        if ded > self.dedicated {
            return Err(format!(
                "cpc: dedicated LPARs need {ded} dedicated IFLs but the CPC has {}",
                self.dedicated
            ));
        }
        Ok(())
    }

    fn check_caps(&self) -> Result<(), String> {
        for l in &self.lpars {
            if let Some(c) = l.abscap {
                if !(0.01..=255.0).contains(&c) {
                    return Err(format!(
                        "cpc: LPAR {}: an absolute cap must be 0.01..255 processors (got {c})",
                        l.name
                    ));
                }
            }
            if (l.capped || l.abscap.is_some() || l.group.is_some()) && l.dedicated {
                return Err(format!(
                    "cpc: LPAR {}: a dedicated LPAR cannot be capped",
                    l.name
                ));
            }
            if let Some(g) = &l.group {
                if !self.groups.iter().any(|x| &x.name == g) {
                    return Err(format!("cpc: LPAR {}: no capping group {g}", l.name));
                }
            }
        }
        for g in &self.groups {
            if !(0.01..=255.0).contains(&g.abscap) {
                return Err(format!(
                    "cpc: capping group {}: its cap must be 0.01..255 processors (got {})",
                    g.name, g.abscap
                ));
            }
        }
        Ok(())
    }
}

/// Percent of the system the ABSOLUTE minimum shares of `users` take together.
fn absolute_sum(users: &[(String, Share, usize)]) -> f64 {
    users
        .iter()
        .filter(|u| u.1.min.kind == ShareKind::Absolute)
        .map(|u| u.1.min.value)
        .sum()
}

/// The guest entry of the userid with the largest ABSOLUTE minimum share (the first of equals).
fn largest_absolute(users: &[(String, Share, usize)]) -> usize {
    let mut best: Option<&(String, Share, usize)> = None;
    for u in users.iter().filter(|u| u.1.min.kind == ShareKind::Absolute) {
        if best.is_none_or(|b| u.1.min.value > b.1.min.value) {
            best = Some(u);
        }
    }
    best.map_or(0, |b| b.2)
}

/// The refusal of ABSOLUTE shares over `MAX_ABSOLUTE_SUM`: the field, the sum, the largest
/// holders and the fix.
fn absolute_sum_error(field: &str, when: &str, users: &[(String, Share, usize)]) -> String {
    let mut holders: Vec<&(String, Share, usize)> = users
        .iter()
        .filter(|u| u.1.min.kind == ShareKind::Absolute)
        .collect();
    holders.sort_by(|a, b| b.1.min.value.total_cmp(&a.1.min.value));
    let names: Vec<String> = holders
        .iter()
        .take(6)
        .map(|u| format!("{} {}%", u.0, u.1.min.value))
        .collect();
    format!(
        "{field}: ABSOLUTE minimum shares sum to {} % of the system{when}, more than {MAX_ABSOLUTE_SUM} % ({}{}); lower them so they sum to at most {MAX_ABSOLUTE_SUM} %, the rest of the system goes to RELATIVE users",
        shown_sum(absolute_sum(users)),
        names.join(", "),
        if holders.len() > 6 { ", ..." } else { "" }
    )
}

/// A sum over the limit as shown: to six significant digits (a sum of tenths without its
/// rounding noise), all of them where six would show the limit itself.
fn shown_sum(v: f64) -> f64 {
    let r = round6(v);
    if r > MAX_ABSOLUTE_SUM {
        r
    } else {
        v
    }
}

/// `v` to six significant digits.
fn round6(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let scale = 10f64.powi(5 - v.abs().log10().floor() as i32);
    (v * scale).round() / scale
}

fn check_lpar_name(what: &str, name: &str) -> Result<(), String> {
    if (1..=MAX_NAME).contains(&name.chars().count()) {
        Ok(())
    } else {
        Err(format!("{what} '{name}' must be 1-{MAX_NAME} characters"))
    }
}

/// A guest's userid, count and page touches.
fn check_guest(g: &Guest) -> Result<(), String> {
    let u = &g.userid;
    if !is_cp_name(u) {
        return Err(format!(
            "guest userid '{u}' is not a z/VM userid: 1-{MAX_NAME} characters A-Z 0-9 @ # $ _ -"
        ));
    }
    range(&format!("guest {u}: count"), g.count, 1, MAX_COUNT)?;
    if g.count > 1 && u.len() + (g.count - 1).to_string().len() > MAX_NAME {
        return Err(format!(
            "guest {u}: with count = {} the userids {u}0..{u}{} exceed {MAX_NAME} characters",
            g.count,
            g.count - 1
        ));
    }
    range(&format!("guest {u}: touches"), g.touches, 1, MAX_TOUCHES)?;
    if g.touches > 1 && !g.workload.is_server() {
        return Err(format!("guest {u}: touches > 1 needs a server workload"));
    }
    Ok(())
}

/// The limits of a guest's workload fields.
fn check_guest_workload(g: &Guest) -> Result<(), String> {
    let w = |f: &str| workload_field(g, f);
    match &g.workload {
        Workload::CpuBound {
            tx_cpu_ns: Some(0), ..
        } => Err(format!("{} must be positive", w("tx_cpu_ns"))),
        Workload::Client { window, bytes, .. } => {
            range(&w("window"), *window, 1, MAX_CLIENT_WINDOW)?;
            range(&w("bytes"), *bytes, 0, MAX_BYTES)
        }
        Workload::DasdIo {
            window,
            ios,
            blocks,
            rate,
            think_ns,
            extent_blocks,
            ..
        } => check_dasd_io_limits(
            &w,
            [*window, *ios, *blocks],
            *extent_blocks,
            *rate,
            *think_ns,
        ),
        Workload::Format {
            dtype,
            blocks,
            size_mb,
            ..
        } => check_format_limits(&w, *dtype, *blocks, *size_mb),
        Workload::Dump { volume, size_mb } => {
            if volume.is_empty() {
                return Err(format!("{} must name a volume", w("volume")));
            }
            range(&w("size_mb"), *size_mb, 1, MAX_SIZE_PAGES / 256)
        }
        _ => Ok(()),
    }
}

/// How a limit names a field of guest `g`'s workload: `guest NAME: workload.FIELD`.
fn workload_field(g: &Guest, f: &str) -> String {
    format!("guest {}: workload.{f}", g.userid)
}

/// The limits of an I/O driver's fields (`dasd_io`): I/Os in flight, I/Os and blocks per
/// transaction, the extent MDC sees, and a paced driver's rate (which has no think time).
fn check_dasd_io_limits(
    w: &dyn Fn(&str) -> String,
    [window, ios, blocks]: [u32; 3],
    extent_blocks: u64,
    rate: f64,
    think_ns: Time,
) -> Result<(), String> {
    range(&w("window"), window, 1, MAX_IO_WINDOW)?;
    range(&w("ios"), ios, 1, MAX_IOS)?;
    range(&w("blocks"), blocks, 1, MAX_BLOCKS)?;
    range(&w("extent_blocks"), extent_blocks, 0, MAX_SIZE_PAGES)?;
    if !(0.0..=MAX_IO_RATE).contains(&rate) {
        return Err(format!(
            "{} must be 0..{MAX_IO_RATE} (got {rate})",
            w("rate")
        ));
    }
    if rate > 0.0 && think_ns > 0 {
        return Err(format!(
            "{}: a paced driver (rate) has no think time",
            w("rate")
        ));
    }
    Ok(())
}

/// The limits of a CMS FORMAT's fields: a device type FORMAT accepts, blocks per write, and
/// the minidisk's size.
fn check_format_limits(
    w: &dyn Fn(&str) -> String,
    dtype: DasdType,
    blocks: u32,
    size_mb: u64,
) -> Result<(), String> {
    if !DasdType::FORMAT.contains(&dtype) {
        return Err(format!(
            "{} '{dtype}' cannot be formatted here; accepted: {}",
            w("type"),
            DasdType::FORMAT.map(DasdType::word).join(", ")
        ));
    }
    range(&w("blocks"), blocks, 1, MAX_BLOCKS)?;
    range(&w("size_mb"), size_mb, 1, MAX_SIZE_PAGES / 256)
}

#[cfg(test)]
mod tests {
    use crate::config::{Action, Config, Dist, Guest, Share, ShareKind, ShareValue, Workload};

    fn share(kind: ShareKind, value: f64) -> Share {
        Share {
            min: ShareValue { kind, value },
            ..Share::default()
        }
    }

    fn guest(userid: &str, count: u32, s: Share) -> Guest {
        let w = Workload::CpuBound {
            demand: None,
            tx_cpu_ns: None,
            dist: Dist::Exp,
        };
        Guest {
            share: s,
            count,
            ..Guest::new(userid, w)
        }
    }

    fn config(guests: Vec<Guest>, actions: Vec<Action>) -> Config {
        Config {
            actions,
            ..Config::base("zvm-6.4", 2, 1_000_000_000, 1_000_000_000, guests)
        }
    }

    fn set(at_s: u64, userid: &str, s: Share) -> Action {
        Action::SetShare {
            at_ns: at_s * 1_000_000_000,
            userid: userid.into(),
            share: s,
        }
    }

    const A: ShareKind = ShareKind::Absolute;
    const R: ShareKind = ShareKind::Relative;

    #[test]
    fn absolute_shares_at_start_sum_to_at_most_100() {
        // 60 % + 4 x 10 % = 100 %: accepted (the tenths' rounding noise within the slack).
        let ok = config(
            vec![guest("A", 1, share(A, 60.0)), guest("B", 4, share(A, 10.0))],
            vec![],
        );
        assert_eq!(ok.check(), Ok(()));
        // 1000 userids of 0.1 % make 100 % (with rounding noise); 1001 do not.
        assert_eq!(
            config(vec![guest("T", 1000, share(A, 0.1))], vec![]).check(),
            Ok(())
        );
        let e = config(vec![guest("T", 1001, share(A, 0.1))], vec![])
            .check()
            .unwrap_err();
        assert!(e.contains("sum to 100.1 %") && e.contains(", ...)"), "{e}");
        // 60 % + 5 x 10 %: the count makes 110 %.
        let over = config(
            vec![guest("A", 1, share(A, 60.0)), guest("B", 5, share(A, 10.0))],
            vec![],
        );
        let e = over.check().unwrap_err();
        assert!(
            e.starts_with("guest A: share: ABSOLUTE minimum shares sum to 110 %"),
            "{e}"
        );
        assert!(
            e.contains("A 60%, B0 10%") && e.contains("at most 100 %"),
            "{e}"
        );
        // Just over the slack: the sum is shown with the digits that put it over.
        let e = config(
            vec![
                guest("A", 1, share(A, 60.0)),
                guest("B", 1, share(A, 40.0000001)),
            ],
            vec![],
        )
        .check()
        .unwrap_err();
        assert!(e.contains("sum to 100.0000001 %"), "{e}");
        // A RELATIVE share counts nothing.
        let rel = config(
            vec![
                guest("A", 1, share(A, 100.0)),
                guest("B", 3, share(R, 10_000.0)),
            ],
            vec![],
        );
        assert_eq!(rel.check(), Ok(()));
    }

    #[test]
    fn absolute_shares_after_each_set_share_sum_to_at_most_100() {
        let guests = || vec![guest("A", 1, share(A, 50.0)), guest("B", 3, share(A, 10.0))];
        // B1 10 % -> 30 %: 100 %, accepted; then A 50 % -> RELATIVE and B2 -> 60 %: 100 %.
        let ok = config(
            guests(),
            vec![
                set(30, "B1", share(A, 30.0)),
                set(20, "A", share(R, 100.0)),
                set(40, "B2", share(A, 60.0)),
            ],
        );
        // In time order the actions sum to 100 % at most (A is RELATIVE before B1 rises).
        assert_eq!(ok.check(), Ok(()));
        // The same actions in file order but at other times: B2 to 60 % before A is lowered.
        let over = config(
            guests(),
            vec![
                set(30, "B1", share(A, 30.0)),
                set(50, "A", share(R, 100.0)),
                set(40, "B2", share(A, 60.0)),
            ],
        );
        let e = over.check().unwrap_err();
        assert!(
            e.starts_with("actions[2].share: ABSOLUTE minimum shares sum to 150 % of the system after SET SHARE B2 at 40 s"),
            "{e}"
        );
        // Just over: 100.1 %.
        let e = config(guests(), vec![set(10, "B0", share(A, 30.1))])
            .check()
            .unwrap_err();
        assert!(e.contains("sum to 100.1 %"), "{e}");
        // A SET SHARE of an unknown userid is left to the run's check of userids.
        assert_eq!(
            config(guests(), vec![set(10, "C", share(A, 90.0))]).check(),
            Ok(())
        );
    }
}
