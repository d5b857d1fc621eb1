//! The scenario contract's limits and cross-field rules (contract.rs) checked on a `Config`,
//! table by table: the engine refuses every out-of-range value it is given, with a message
//! naming the field (the Python front words the same rules with file and line).

use crate::config::{Config, Guest, Workload};
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
        for g in &self.guests {
            check_guest(g)?;
            check_guest_workload(g)?;
        }
        self.check_storage_contract()?;
        self.check_cu_contract()?;
        self.check_pav_contract()?;
        self.check_channels_contract()?;
        self.check_cpc_contract()
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
            if !PAGING_VOLUME_TYPES.contains(&v.dtype.as_str()) {
                return Err(format!(
                    "{w}.type '{}' is not modelled; accepted: {}",
                    v.dtype,
                    PAGING_VOLUME_TYPES.join(", ")
                ));
            }
            range(&format!("{w}.count"), v.count, 1, MAX_VOLUME_COUNT)?;
            range(&format!("{w}.slots"), v.slots, 1, MAX_SIZE_PAGES)?;
            if v.xiv && v.dtype != "edev" {
                return Err(format!(
                    "{w}.xiv marks an EDEV on an IBM XIV: type must be edev"
                ));
            }
        }
        if st.hpf && !self.eckd_paging() {
            return Err("storage.hpf (SET PAGING HPF ON) needs eckd paging volumes".into());
        }
        if let Some(c) = &st.encrypt {
            if !PAGING_CIPHERS.contains(&c.as_str()) {
                return Err(format!(
                    "storage.encrypt '{c}' is not a paging cipher; accepted: {}",
                    PAGING_CIPHERS.join(", ")
                ));
            }
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
        self.storage
            .as_ref()
            .is_some_and(|s| s.paging_volumes.iter().any(|v| v.dtype == "eckd"))
    }

    /// ECKD minidisk volumes (dasd-io or format; with `dump`, dump volumes too, which are ECKD).
    fn eckd_minidisks(&self, dump: bool) -> bool {
        self.guests.iter().any(|g| match &g.workload {
            Workload::DasdIo { dtype, .. } | Workload::Format { dtype, .. } => dtype == "eckd",
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
        if !PAV_MODES.contains(&p.mode.as_str()) {
            return Err(format!(
                "cu.pav '{}' is not {}",
                p.mode,
                PAV_MODES.join(" or ")
            ));
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
    let w = |f: &str| format!("guest {}: workload.{f}", g.userid);
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
        } => {
            range(&w("window"), *window, 1, MAX_IO_WINDOW)?;
            range(&w("ios"), *ios, 1, MAX_IOS)?;
            range(&w("blocks"), *blocks, 1, MAX_BLOCKS)?;
            range(&w("extent_blocks"), *extent_blocks, 0, MAX_SIZE_PAGES)?;
            if !(0.0..=MAX_IO_RATE).contains(rate) {
                return Err(format!(
                    "{} must be 0..{MAX_IO_RATE} (got {rate})",
                    w("rate")
                ));
            }
            if *rate > 0.0 && *think_ns > 0 {
                return Err(format!(
                    "{}: a paced driver (rate) has no think time",
                    w("rate")
                ));
            }
            Ok(())
        }
        Workload::Format {
            dtype,
            blocks,
            size_mb,
            ..
        } => {
            if !FORMAT_TYPES.contains(&dtype.as_str()) {
                return Err(format!(
                    "{} '{dtype}' cannot be formatted here; accepted: {}",
                    w("type"),
                    FORMAT_TYPES.join(", ")
                ));
            }
            range(&w("blocks"), *blocks, 1, MAX_BLOCKS)?;
            range(&w("size_mb"), *size_mb, 1, MAX_SIZE_PAGES / 256)
        }
        Workload::Dump { volume, size_mb } => {
            if volume.is_empty() {
                return Err(format!("{} must name a volume", w("volume")));
            }
            range(&w("size_mb"), *size_mb, 1, MAX_SIZE_PAGES / 256)
        }
        _ => Ok(()),
    }
}
