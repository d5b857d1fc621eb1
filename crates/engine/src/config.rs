//! The normalized scenario the engine runs.
//!
//! The Python front parses and validates the TOML scenario file (with messages that name the
//! file, line and field) and hands the engine this normalized form as JSON. The engine checks
//! it again (it never trusts its input) and returns an error string rather than panicking.
//!
//! It speaks in types: every setting with a few accepted words is an enum of the scenario
//! contract (contract.rs), which serde reads from those words, and the data shapes the
//! subsystems take (a CPC's LPARs) are defined here; config depends on no subsystem.

use crate::contract::{
    unknown_machine, Time, ABSOLUTE_SHARE, MACHINES, MAX_DRAWERS, MAX_PROCESSORS, MAX_SMT_CORES,
    MAX_VCPUS, RELATIVE_SHARE,
};
pub use crate::contract::{
    ChanKind, Crypto, CuClass, DasdMethod, DasdType, Dist, Dspwd, ExcessUse, PagingCipher,
    PagingVolumeType, PavMode, Polarization, PoolType, SmtMode, SslCipher, Unparking,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub level: String,
    pub processors: u32,
    #[serde(default)]
    pub smt: SmtMode,
    /// Drawers the LPAR's cores span (None: as few as the machine's drawer size allows).
    #[serde(default)]
    pub drawers: Option<u32>,
    /// Machine generation (`machine::NAMES`): its chips, drawers, clock, SMT, caches; "z14" when none.
    #[serde(default)]
    pub machine: Option<String>,
    pub duration_ns: Time,
    pub interval_ns: Time,
    #[serde(default)]
    pub seed: u64,
    /// Completed requests counted as one reported transaction ([run] tx_unit): a workload
    /// whose published ETR counts transactions of its own (seed 001 scales the Apache DASD
    /// paging ETR "by a constant"). Only the run summary's transaction counts, ETR and ITR
    /// change; 1 by default.
    #[serde(default = "default_tx_unit")]
    pub tx_unit: f64,
    #[serde(default)]
    pub params: BTreeMap<String, f64>,
    /// Mechanism switches set by name on top of the level's (hybrid levels, bisect).
    #[serde(default)]
    pub switches: BTreeMap<String, String>,
    pub guests: Vec<Guest>,
    #[serde(default)]
    pub actions: Vec<Action>,
    /// Real storage and paging volumes (issue 5); None: no storage model (costs nothing).
    #[serde(default)]
    pub storage: Option<StorageCfg>,
    /// The CPC around the simulated LPAR (issue 4); None: the LPAR owns its processors.
    #[serde(default)]
    pub cpc: Option<CpcCfg>,
    /// The minidisk cache (SET MDCACHE STORAGE; issue 6); None: no MDC.
    #[serde(default)]
    pub mdc: Option<MdcCfg>,
    /// The control unit's HyperPAV alias pool shared by the ECKD volumes (SET PAGING ALIAS,
    /// SET CU ... SHARE; rows D11, D12); None: no aliases.
    #[serde(default)]
    pub hyperpav: Option<HyperPavCfg>,
    /// SET SRM DSPWDMETHOD: how an idle logical CPU finds work on the other dispatch vectors.
    #[serde(default)]
    pub dspwdmethod: Dspwd,
    /// Channel paths to the ECKD volumes' control unit (issue 22); None: not modelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<ChannelsCfg>,
    /// Static or dynamic PAV aliases (issue 22); None: none (HyperPAV is `hyperpav`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pav: Option<PavCfg>,
    /// CPU pools defined at the start, with their members (DEFINE CPUPOOL and SCHEDULE ... TO
    /// POOL; issue 18, pools.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpupools: Vec<PoolCfg>,
}

/// A CPU pool: DEFINE CPUPOOL name LIMITHARD n% | CAPACITY n TYPE CP|IFL, and its members.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PoolCfg {
    pub name: String,
    /// LIMITHARD n%: percent of the online logical processors (0 < n <= 100).
    #[serde(default)]
    pub limithard_pct: Option<f64>,
    /// CAPACITY n: processors' worth (> 0).
    #[serde(default)]
    pub capacity: Option<f64>,
    /// TYPE CP | IFL (the model has one processor type: recorded and reported).
    #[serde(default, rename = "type")]
    pub ptype: PoolType,
    /// Userids scheduled to the pool at the start.
    #[serde(default)]
    pub members: Vec<String>,
}

impl PoolCfg {
    pub fn check(&self) -> Result<(), String> {
        check_pool_limit(&self.name, self.limithard_pct, self.capacity)?;
        if !crate::contract::is_cp_name(&self.name) {
            return Err(format!(
                "CPU pool name '{}' must be 1-8 characters A-Z 0-9 @ # $ _ -",
                self.name
            ));
        }
        Ok(())
    }
}

/// Exactly one of LIMITHARD (0 < n <= 100 %) and CAPACITY (0 < n <= 64 processors).
pub fn check_pool_limit(name: &str, lh: Option<f64>, cap: Option<f64>) -> Result<(), String> {
    match (lh, cap) {
        (Some(p), None) if p > 0.0 && p <= 100.0 => Ok(()),
        (Some(p), None) => Err(format!(
            "CPU pool {name}: LIMITHARD must be above 0 and at most 100 % (got {p})"
        )),
        (None, Some(c)) if c > 0.0 && c <= crate::contract::MAX_POOL_CAPACITY => Ok(()),
        (None, Some(c)) => Err(format!(
            "CPU pool {name}: CAPACITY must be above 0 and at most {} processors (got {c})",
            crate::contract::MAX_POOL_CAPACITY
        )),
        _ => Err(format!(
            "CPU pool {name}: give exactly one of LIMITHARD n% and CAPACITY n"
        )),
    }
}

/// A logical control unit's HyperPAV aliases and how they are shared (hyperpav.rs).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HyperPavCfg {
    pub aliases: u32,
    /// SET PAGING ALIAS ON: paging I/O may use aliases (where the level supports it).
    #[serde(default)]
    pub paging_alias: bool,
    /// SET CU ... SHARE: relative shares of the aliases for paging and for minidisk I/O.
    #[serde(default = "default_share")]
    pub share_paging: f64,
    #[serde(default = "default_share")]
    pub share_minidisk: f64,
}

fn default_share() -> f64 {
    100.0
}

/// The minidisk cache's real storage (frames of 4 KB).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MdcCfg {
    pub frames: u64,
}

/// The CPC: shared and dedicated physical IFLs, the partner LPARs, and the simulated LPAR's
/// own PR/SM and SRM settings (its logical cores are `processors`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CpcCfg {
    pub shared: u32,
    #[serde(default)]
    pub dedicated: u32,
    /// Partner partitions (name, weight, logical cores, busy demand).
    #[serde(default)]
    pub lpars: Vec<LparSpec>,
    /// The simulated LPAR.
    #[serde(default = "default_lpar_name")]
    pub name: String,
    pub weight: u32,
    #[serde(default)]
    pub polarization: Polarization,
    /// SET SRM UNPARKING (vertical only; None for horizontal).
    #[serde(default)]
    pub unparking: Option<Unparking>,
    #[serde(default)]
    pub excessuse: ExcessUse,
    /// Capping of the simulated LPAR (issue 18): initial capping, an absolute cap in
    /// processors, its absolute capping group; and the CPC's capping groups.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub capped: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abscap: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<CapGroup>,
}

fn default_lpar_name() -> String {
    "ZVM".into()
}

impl CpcCfg {
    /// The whole CPC, the simulated LPAR first, with `processors` logical cores.
    pub fn spec(&self, processors: u32) -> CpcSpec {
        let mut lpars = vec![LparSpec {
            name: self.name.clone(),
            weight: self.weight,
            logical: processors,
            dedicated: false,
            polarization: self.polarization,
            busy: 0.0,
            busy_pattern: vec![],
            busy_period_ns: 0,
            capped: self.capped,
            abscap: self.abscap,
            group: self.group.clone(),
        }];
        lpars.extend(self.lpars.iter().cloned());
        CpcSpec {
            shared: self.shared,
            dedicated: self.dedicated,
            lpars,
            groups: self.groups.clone(),
        }
    }

    pub fn check(&self, processors: u32) -> Result<(), String> {
        if self.polarization == Polarization::Horizontal && self.unparking.is_some() {
            return Err("system.unparking applies only to a vertically polarized LPAR (system.polarization = \"vertical\")".into());
        }
        if self.weight == 0 {
            return Err("system.weight of the simulated LPAR must be 1..999 (got 0)".into());
        }
        self.spec(processors).check()
    }
}

/// A CPC as PR/SM sees it (prsm.rs): its physical IFLs, its LPARs (the simulated one first
/// when it comes from a [cpc]) and capping groups.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CpcSpec {
    /// Shared physical IFLs (the pool PR/SM dispatches shared logical cores on).
    pub shared: u32,
    /// Dedicated physical IFLs.
    #[serde(default)]
    pub dedicated: u32,
    pub lpars: Vec<LparSpec>,
    /// Absolute capping groups (LPARs name theirs in `group`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<CapGroup>,
}

/// A partner LPAR of the CPC (or the simulated one, from the [cpc] settings).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LparSpec {
    pub name: String,
    #[serde(default)]
    pub weight: u32,
    pub logical: u32,
    #[serde(default)]
    pub dedicated: bool,
    #[serde(default)]
    pub polarization: Polarization,
    /// Demand of a partner LPAR: fraction of its logical cores it keeps busy (0..1).
    #[serde(default)]
    pub busy: f64,
    /// A demand that changes: these fractions in turn, each held for `busy_period_ns`
    /// (empty: `busy` all the time).
    #[serde(default)]
    pub busy_pattern: Vec<f64>,
    #[serde(default)]
    pub busy_period_ns: u64,
    /// Capping (issue 18, `limits`): initial capping (never above its weight's share of the
    /// pool), an absolute cap in processors, the capacity group it belongs to.
    #[serde(default, skip_serializing_if = "is_false")]
    pub capped: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abscap: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// An absolute capping group of LPARs (HMC "absolute group capping"): the members together
/// use at most `abscap` processors.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CapGroup {
    pub name: String,
    pub abscap: f64,
}

/// Real storage available for guest pages (the DPA after locked pages and trace frames) and
/// the CP-owned paging volumes.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StorageCfg {
    /// 4 KB frames available for pageable guest pages.
    pub frames: u64,
    #[serde(default)]
    pub paging_volumes: Vec<PagingVolume>,
    /// Start in a paging steady state instead of empty storage: every page of each guest's
    /// reference range has been touched, frames are full, the rest is on the paging volumes
    /// (the seeds measure after a long unmeasured warm-up).
    #[serde(default)]
    pub prefill: bool,
    /// SET PAGING HPF ON: paging I/O to ECKD volumes in transport mode (zHPF), where the level
    /// supports it (switch paging_hpf).
    #[serde(default)]
    pub hpf: bool,
    /// SET ENCRYPT PAGING ON with this cipher, where the level has it (switch
    /// paging_encrypt); None: off.
    #[serde(default)]
    pub encrypt: Option<PagingCipher>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PagingVolume {
    #[serde(rename = "type")]
    pub dtype: PagingVolumeType,
    /// Page slots (4 KB) on the volume.
    pub slots: u64,
    #[serde(default = "one")]
    pub count: u32,
    /// An EDEV on an IBM XIV: before VM65929 CP drove one I/O at a time to it (switch xiv_io).
    #[serde(default)]
    pub xiv: bool,
}

/// Which pages a workload's transactions (one burst = one touch) reference.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "pattern", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Refs {
    /// Uniform random over pages [0, range_pages) (the thrasher of seed 004).
    Uniform { range_pages: u64 },
    /// Stride through [0, range_pages) (VIRSTOR).
    Strided { range_pages: u64, stride_pages: u64 },
    /// Skewed (file-cache-like): with probability `hot_fraction` uniform over the first
    /// `hot_pages`, else uniform over the rest of [0, range_pages).
    Hotset {
        range_pages: u64,
        hot_pages: u64,
        hot_fraction: f64,
    },
}

impl Refs {
    pub fn range(&self) -> u64 {
        match *self {
            Refs::Uniform { range_pages }
            | Refs::Strided { range_pages, .. }
            | Refs::Hotset { range_pages, .. } => range_pages,
        }
    }
}

/// Largest guest virtual storage modelled: 1 TB (z/VM 6.4+ maximum virtual machine size 1 TB
/// is not assumed elsewhere; the page table costs 2 bits per page: 64 MB at 1 TB).
pub use crate::contract::MAX_GUEST_PAGES;

fn default_tx_unit() -> f64 {
    1.0
}

/// The largest [run] tx_unit accepted (completed requests per reported transaction).
pub use crate::contract::MAX_TX_UNIT;

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ShareKind {
    Relative,
    Absolute,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShareValue {
    pub kind: ShareKind,
    /// RELATIVE: 1..10000; ABSOLUTE: percent of the system, 0.1..100.
    pub value: f64,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Limit {
    None,
    Soft,
    Hard,
}

/// SET SHARE: a target minimum share and an optional maximum share with its limit type.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Share {
    pub min: ShareValue,
    #[serde(default)]
    pub max: Option<ShareValue>,
    #[serde(default = "default_limit")]
    pub limit: Limit,
}

fn default_limit() -> Limit {
    Limit::None
}

impl Default for Share {
    fn default() -> Self {
        Share {
            min: ShareValue {
                kind: ShareKind::Relative,
                value: 100.0,
            },
            max: None,
            limit: Limit::None,
        }
    }
}

fn default_dist() -> Dist {
    Dist::Exp
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Workload {
    /// CPU work with no I/O. `demand` is the fraction of one processor each virtual CPU wants
    /// (None = infinite demand). A transaction is `tx_cpu_ns` of CPU work.
    CpuBound {
        #[serde(default)]
        demand: Option<f64>,
        #[serde(default)]
        tx_cpu_ns: Option<Time>,
        #[serde(default = "default_dist")]
        dist: Dist,
    },
    /// memtst (seed 001, row C2): a Linux memory-allocation loop with infinite demand; each
    /// burst of `cpu_ns` guest CPU ends in a storage-key operation (ISKE) on the guest's hot
    /// page, which CP simulates under that page's PTE serialization (`pte_lock` switch).
    Memtst {
        cpu_ns: Time,
        #[serde(default = "default_dist")]
        dist: Dist,
    },
    /// Closed interactive loop: think, then a transaction of `cpu_ns` of CPU work.
    Transactional {
        think_ns: Time,
        cpu_ns: Time,
        #[serde(default = "default_dist")]
        dist: Dist,
    },
    /// A client of the virtual network (AWM): per request `cpu_ns` of CPU, then the request
    /// goes to the next guest of the `servers` group; at most `window` requests outstanding
    /// per virtual CPU. A transaction completes when the reply arrives.
    Client {
        cpu_ns: Time,
        servers: String,
        window: u32,
        #[serde(default = "default_dist")]
        dist: Dist,
        /// Payload bytes each request carries (issue 6: what an SSL server enciphers).
        #[serde(default)]
        bytes: u64,
        /// Each request opens a new connection (a TLS handshake at an SSL server).
        #[serde(default)]
        connect: bool,
    },
    /// A server of the virtual network (Apache, WAS/DB2): idle until a request arrives; per
    /// request `cpu_ns` of CPU, then the reply. With `forward` the request goes on to the next
    /// guest of that server group (a chain such as RSCS -> SSL -> TCPIP), whose last hop replies.
    Server {
        cpu_ns: Time,
        #[serde(default = "default_dist")]
        dist: Dist,
        #[serde(default)]
        forward: Option<String>,
    },
    /// The TLS/SSL server virtual machine (issue 6, see `ssl`): a server whose CPU per request
    /// is `cpu_ns` plus the TLS work the level's mechanisms give: a handshake per new
    /// connection, the cipher per byte, the record path per TLS record. `cipher` overrides the
    /// level's default cipher; `crypto = "apvirt"` is a CRYPTO APVIRT directory statement.
    SslServer {
        cpu_ns: Time,
        #[serde(default = "default_dist")]
        dist: Dist,
        #[serde(default)]
        forward: Option<String>,
        #[serde(default)]
        cipher: Option<SslCipher>,
        #[serde(default)]
        crypto: Option<Crypto>,
    },
    /// SNAPDUMP (issue 6, row E4): CP dumps `size_mb` of storage to dump volume `volume`
    /// once with the level's dump channel programs; the guest is the operator who issued it.
    Dump { volume: String, size_mb: u64 },
    /// Minidisk (or dedicated SCSI) I/O: a transaction is `cpu_ns` of guest CPU spread over
    /// `ios` synchronous I/Os of `blocks` 4 KB blocks each, then `think_ns` (see `dasd`).
    DasdIo {
        volume: String,
        #[serde(rename = "type")]
        dtype: DasdType,
        #[serde(default = "default_method")]
        method: DasdMethod,
        cpu_ns: Time,
        ios: u32,
        blocks: u32,
        #[serde(default)]
        think_ns: Time,
        #[serde(default)]
        write: bool,
        /// I/Os in flight per virtual CPU (1: synchronous).
        #[serde(default = "one")]
        window: u32,
        #[serde(default = "default_dist")]
        dist: Dist,
        /// SET MDC ON for this device (default off here); needs `extent_blocks`.
        #[serde(default)]
        mdc: bool,
        /// 4 KB blocks of minidisk data the I/Os reference uniformly (MDC lookups).
        #[serde(default)]
        extent_blocks: u64,
        /// A paced driver (IO3390-like): I/Os per second the guest starts, shared by its
        /// virtual CPUs, instead of a think time; when the I/O cannot keep up the guest falls
        /// behind and the run reports the user saturated (0: not paced).
        #[serde(default)]
        rate: f64,
    },
    /// CMS FORMAT of a minidisk of `size_mb`: writes of `blocks` 4 KB blocks each until the
    /// whole minidisk is written, once; the guest then stays idle.
    Format {
        volume: String,
        #[serde(rename = "type")]
        dtype: DasdType,
        size_mb: u64,
        blocks: u32,
    },
}

impl Config {
    /// Server chains (`forward`) end: a request never comes back to a server it passed.
    fn check_forward_chains(&self) -> Result<(), String> {
        let next = |id: &str| -> Option<&String> {
            self.guests
                .iter()
                .find(|g| g.userid == id)
                .and_then(|g| match &g.workload {
                    Workload::Server { forward, .. } | Workload::SslServer { forward, .. } => {
                        forward.as_ref()
                    }
                    _ => None,
                })
        };
        for g in &self.guests {
            let mut at = g.userid.as_str();
            for _ in 0..=self.guests.len() {
                match next(at) {
                    Some(n) => at = n,
                    None => break,
                }
                if at == g.userid {
                    return Err(format!(
                        "guest {}: workload.forward makes a loop back to {}",
                        g.userid, g.userid
                    ));
                }
            }
        }
        Ok(())
    }
}

impl Workload {
    /// A server of the virtual network (plain or SSL).
    pub fn is_server(&self) -> bool {
        matches!(self, Workload::Server { .. } | Workload::SslServer { .. })
    }
}

fn default_method() -> DasdMethod {
    DasdMethod::Ssch
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Guest {
    pub userid: String,
    #[serde(default = "one")]
    pub vcpus: u32,
    #[serde(default)]
    pub share: Share,
    pub workload: Workload,
    /// Number of identical guests; userids get a numeric suffix when > 1.
    #[serde(default = "one")]
    pub count: u32,
    /// SET QUICKDSP ON (class E0: no eligible-list wait).
    #[serde(default)]
    pub quickdsp: bool,
    /// Virtual storage in 4 KB pages (needed with `refs`).
    #[serde(default)]
    pub storage_pages: Option<u64>,
    /// Page references of the workload: one per burst (transaction).
    #[serde(default)]
    pub refs: Option<Refs>,
    /// Page references per server request (a server's request is run in that many pieces,
    /// each after one reference; the Apache DASD paging file cache, row D8). Default 1.
    #[serde(default = "one")]
    pub touches: u32,
}

impl Guest {
    /// One guest `userid` running `workload`, with what a scenario file leaves out: one virtual
    /// CPU, the default share, no QUICKDSP, no virtual storage or page references, one touch.
    pub fn new(userid: impl Into<String>, workload: Workload) -> Guest {
        Guest {
            userid: userid.into(),
            vcpus: 1,
            share: Share::default(),
            workload,
            count: 1,
            quickdsp: false,
            storage_pages: None,
            refs: None,
            touches: 1,
        }
    }
}

fn one() -> u32 {
    1
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Action {
    /// A timed CP command: SET SHARE userid ...
    SetShare {
        at_ns: Time,
        userid: String,
        share: Share,
    },
    /// SET MULTITHREAD: active threads per core (1 or 2) in an SMT mode.
    SetMultithreading { at_ns: Time, threads: u32 },
    /// DEFINE CPUPOOL (pools.rs); `pool.members` must be empty.
    DefineCpupool { at_ns: Time, pool: PoolCfg },
    /// SET CPUPOOL name LIMITHARD n% | CAPACITY n.
    SetCpupool {
        at_ns: Time,
        name: String,
        #[serde(default)]
        limithard_pct: Option<f64>,
        #[serde(default)]
        capacity: Option<f64>,
    },
    /// DELETE CPUPOOL name (the pool must have no members).
    DeleteCpupool { at_ns: Time, name: String },
    /// SCHEDULE userid TO POOL name (`pool`), or NOPOOL (None).
    SchedulePool {
        at_ns: Time,
        userid: String,
        #[serde(default)]
        pool: Option<String>,
    },
}

impl Action {
    pub fn at_ns(&self) -> Time {
        match self {
            Action::SetShare { at_ns, .. }
            | Action::SetMultithreading { at_ns, .. }
            | Action::DefineCpupool { at_ns, .. }
            | Action::SetCpupool { at_ns, .. }
            | Action::DeleteCpupool { at_ns, .. }
            | Action::SchedulePool { at_ns, .. } => *at_ns,
        }
    }
}

impl Config {
    /// A configuration with every optional part absent and every default as a scenario file
    /// that names only these gets it: the base that tests and benchmarks update with
    /// `Config { seed: 7, ..Config::base(...) }`, so a new optional field is added here once.
    pub fn base(
        level: &str,
        processors: u32,
        duration_ns: Time,
        interval_ns: Time,
        guests: Vec<Guest>,
    ) -> Config {
        Config {
            level: level.into(),
            processors,
            smt: SmtMode::Off,
            drawers: None,
            machine: None,
            duration_ns,
            interval_ns,
            seed: 0,
            tx_unit: default_tx_unit(),
            params: Default::default(),
            switches: Default::default(),
            guests,
            actions: vec![],
            storage: None,
            cpc: None,
            mdc: None,
            hyperpav: None,
            dspwdmethod: Default::default(),
            channels: None,
            pav: None,
            cpupools: vec![],
        }
    }
}

impl Config {
    /// The configuration in JSON `s`, checked. A value serde refuses (an unknown word, a
    /// wrong type) is named by its key path before serde's message, which lists the accepted
    /// words and ends with the position.
    pub fn from_json(s: &str) -> Result<Config, String> {
        let c: Config = serde_json::from_str(s).map_err(|e| {
            let at = json_path_at(s, e.line(), e.column());
            let field = if at.is_empty() { at } else { at + ": " };
            format!("engine config: {field}{e}")
        })?;
        c.check()?;
        Ok(c)
    }

    /// Defensive checks; the Python front gives friendlier messages for the same rules.
    pub fn check(&self) -> Result<(), String> {
        self.check_system_and_run()?;
        self.check_guests()?;
        self.check_forward_chains()?;
        self.check_actions()?;
        self.check_pools_and_cpc()?;
        self.check_storage()?;
        self.check_contract()
    }

    /// The real processors CP runs on, their topology, and the run's clock (duration, interval, transaction unit).
    fn check_system_and_run(&self) -> Result<(), String> {
        if self.processors == 0 || self.processors > MAX_PROCESSORS {
            return Err(format!(
                "system.processors must be 1..{MAX_PROCESSORS} (got {})",
                self.processors
            ));
        }
        self.check_cpu()?;
        if self.interval_ns == 0 || self.duration_ns == 0 {
            return Err("run.duration and run.interval must be positive".into());
        }
        if !(self.tx_unit > 0.0 && self.tx_unit <= MAX_TX_UNIT) {
            return Err(format!(
                "run.tx_unit must be above 0 and at most {MAX_TX_UNIT} (got {})",
                self.tx_unit
            ));
        }
        Ok(())
    }

    /// Each guest's directory entry: virtual CPUs, SHARE, and the workload it runs.
    fn check_guests(&self) -> Result<(), String> {
        if self.guests.is_empty() {
            return Err("a scenario needs at least one [[guest]]".into());
        }
        for g in &self.guests {
            if g.vcpus == 0 || g.vcpus > MAX_VCPUS {
                return Err(format!("guest {}: vcpus must be 1..{MAX_VCPUS}", g.userid));
            }
            check_share(&g.userid, &g.share)?;
            check_workload_sizes(g)?;
            self.check_workload_dasd(g)?;
            self.check_workload_network(g)?;
        }
        Ok(())
    }

    /// A guest's DASD workload: minidisk cache eligibility, dump size.
    fn check_workload_dasd(&self, g: &Guest) -> Result<(), String> {
        match &g.workload {
            Workload::DasdIo {
                mdc: true,
                dtype,
                extent_blocks,
                blocks,
                ..
            } if matches!(dtype, DasdType::Scsi | DasdType::Vdisk)
                || *extent_blocks < *blocks as u64
                || self.mdc.as_ref().is_none_or(|m| m.frames == 0) =>
            {
                Err(format!(
                    "guest {}: workload.mdc needs an eligible device (eckd or edev through CP, not {dtype}), an extent of at least one I/O, and an [mdc] section with frames",
                    g.userid
                ))
            }
            Workload::Dump { size_mb: 0, .. } => Err(format!(
                "guest {}: workload.size_mb must be at least 1",
                g.userid
            )),
            _ => Ok(()),
        }
    }

    /// A guest's network workload: the server guests it forwards to or calls.
    fn check_workload_network(&self, g: &Guest) -> Result<(), String> {
        match &g.workload {
            Workload::Server {
                forward: Some(f), ..
            }
            | Workload::SslServer {
                forward: Some(f), ..
            } if !self.is_server_guest(f) => Err(format!(
                "guest {}: workload.forward = '{f}' names no guest with a server workload",
                g.userid
            )),
            Workload::Client { servers, .. } if !self.is_server_guest(servers) => Err(format!(
                "guest {}: workload.servers = '{servers}' names no guest with a server workload",
                g.userid
            )),
            _ => Ok(()),
        }
    }

    /// Whether some guest with this user ID runs a server workload.
    fn is_server_guest(&self, userid: &str) -> bool {
        self.guests
            .iter()
            .any(|s| s.userid == userid && s.workload.is_server())
    }

    /// Scheduled CP commands: SET SHARE, SET MULTITHREAD, DEFINE and SET CPUPOOL.
    fn check_actions(&self) -> Result<(), String> {
        for a in &self.actions {
            match a {
                Action::SetShare { userid, share, .. } => check_share(userid, share)?,
                Action::SetMultithreading { threads, .. } => {
                    if self.smt == SmtMode::Off {
                        return Err("SET MULTITHREAD needs an SMT mode: set system.smt = \"smt1\" or \"smt2\" (non-SMT to SMT needs a re-IPL)".into());
                    }
                    if !(1..=2).contains(threads) {
                        return Err(format!(
                            "SET MULTITHREAD {threads}: threads per core must be 1 or 2"
                        ));
                    }
                }
                Action::DefineCpupool { pool, .. } => pool.check()?,
                Action::SetCpupool {
                    name,
                    limithard_pct,
                    capacity,
                    ..
                } => check_pool_limit(name, *limithard_pct, *capacity)?,
                Action::DeleteCpupool { .. } | Action::SchedulePool { .. } => {}
            }
        }
        Ok(())
    }

    /// CPU pools defined at IPL and the PR/SM CPC around this LPAR.
    fn check_pools_and_cpc(&self) -> Result<(), String> {
        for p in &self.cpupools {
            p.check()?;
        }
        if let Some(c) = &self.cpc {
            c.check(self.processors)?;
        }
        Ok(())
    }

    /// Processor topology limits (seed 000): non-SMT up to 64 logical cores, SMT only on 32.
    fn check_cpu(&self) -> Result<(), String> {
        let mode = self.smt;
        if mode != SmtMode::Off && self.processors > MAX_SMT_CORES {
            return Err(format!(
                "system.processors = {} with system.smt = \"{}\": z/VM multithreads at most {MAX_SMT_CORES} cores; use processors <= {MAX_SMT_CORES} or smt = \"off\" (up to {MAX_PROCESSORS} cores)",
                self.processors, self.smt
            ));
        }
        if mode != SmtMode::Off && self.dspwdmethod == Dspwd::Rebalance {
            return Err(format!(
                "system.dspwdmethod = \"rebalance\" with system.smt = \"{}\": multithreading requires SET SRM DSPWDMETHOD RESHUFFLE; use dspwdmethod = \"reshuffle\" or smt = \"off\"",
                self.smt
            ));
        }
        if mode != SmtMode::Off && self.cpc.is_some() {
            return Err(format!(
                "system.smt = \"{}\" with a [cpc] is not modelled yet (PR/SM dispatches logical cores, whose threads the SMT model does not suspend together); use smt = \"off\" with [cpc]",
                self.smt
            ));
        }
        if let Some(m) = &self.machine {
            if !MACHINES.contains(&m.as_str()) {
                return Err(unknown_machine(m));
            }
        }
        if let Some(d) = self.drawers {
            if d == 0 || d > MAX_DRAWERS || d > self.processors {
                return Err(format!(
                    "system.drawers = {d} must be 1..{MAX_DRAWERS} and at most system.processors ({})",
                    self.processors
                ));
            }
        }
        Ok(())
    }

    fn check_storage(&self) -> Result<(), String> {
        for g in &self.guests {
            check_guest_storage(g)?;
        }
        let total: u64 = self
            .guests
            .iter()
            .filter(|g| g.refs.is_some())
            .map(|g| g.storage_pages.unwrap_or(0) * g.count as u64)
            .sum();
        if total >= 1 << 32 {
            return Err(format!(
                "guests with page references total {total} pages; the storage model handles up to 2^32 pages (16 TB)"
            ));
        }
        self.check_frames()
    }

    /// The `[storage]` section: frames and paging volumes for the pages the guests reference.
    fn check_frames(&self) -> Result<(), String> {
        let Some(st) = &self.storage else {
            if self.guests.iter().any(|g| g.refs.is_some()) {
                return Err("guests with page references need a [storage] section (frames)".into());
            }
            return Ok(());
        };
        if st.frames == 0 {
            return Err("storage.frames must be positive".into());
        }
        for v in &st.paging_volumes {
            if v.slots == 0 || v.count == 0 {
                return Err("paging volume slots and count must be positive".into());
            }
        }
        let need: u64 = self
            .guests
            .iter()
            .filter_map(|g| g.refs.as_ref().map(|r| r.range() * g.count as u64))
            .sum();
        // The minidisk cache takes its frames from the same storage (mdc.rs), stealing guest
        // pages when none is free: those pages need a paging volume to go to as well.
        let mdc = self.mdc.as_ref().map_or(0, |m| m.frames);
        if need + mdc > st.frames && st.paging_volumes.is_empty() {
            let cache = if mdc > 0 {
                format!(" and a minidisk cache of up to {mdc} frames")
            } else {
                String::new()
            };
            return Err(format!(
                "storage-constrained ({need} pages referenced{cache}, {} frames) with no paging volumes",
                st.frames
            ));
        }
        Ok(())
    }
}

/// A guest's virtual storage size and page-reference pattern.
fn check_guest_storage(g: &Guest) -> Result<(), String> {
    let pages = g.storage_pages.unwrap_or(0);
    if pages > MAX_GUEST_PAGES {
        return Err(format!(
            "guest {}: storage of {pages} pages is above the supported virtual size ({MAX_GUEST_PAGES} pages, 1 TB)",
            g.userid
        ));
    }
    let Some(r) = &g.refs else {
        return Ok(());
    };
    if g.storage_pages.is_none() {
        return Err(format!(
            "guest {}: refs need the guest's storage size",
            g.userid
        ));
    }
    if r.range() == 0 || r.range() > pages {
        return Err(format!(
            "guest {}: page-reference range of {} pages is outside the guest's {pages} pages",
            g.userid,
            r.range()
        ));
    }
    if let Refs::Strided {
        stride_pages: 0, ..
    } = r
    {
        return Err(format!("guest {}: refs stride must be positive", g.userid));
    }
    if let Refs::Hotset {
        range_pages,
        hot_pages,
        hot_fraction,
    } = *r
    {
        if hot_pages == 0 || hot_pages >= range_pages || !(0.0..=1.0).contains(&hot_fraction) {
            return Err(format!(
                "guest {}: hotset needs 0 < hot pages < range and hot_fraction in [0, 1]",
                g.userid
            ));
        }
    }
    Ok(())
}

/// A guest's workload sizes: CPU demand and per-transaction CPU, client window, I/O and format extents.
fn check_workload_sizes(g: &Guest) -> Result<(), String> {
    match &g.workload {
        Workload::CpuBound {
            demand: Some(d), ..
        } if !(*d > 0.0 && *d <= 1.0) => Err(format!(
            "guest {}: workload.demand must be in (0, 1] per virtual CPU",
            g.userid
        )),
        Workload::Transactional { cpu_ns: 0, .. }
        | Workload::Memtst { cpu_ns: 0, .. }
        | Workload::Client { cpu_ns: 0, .. }
        | Workload::Server { cpu_ns: 0, .. }
        | Workload::SslServer { cpu_ns: 0, .. } => {
            Err(format!("guest {}: workload.cpu must be positive", g.userid))
        }
        Workload::Client { window: 0, .. } => Err(format!(
            "guest {}: workload.window must be at least 1",
            g.userid
        )),
        Workload::DasdIo { ios: 0, .. } | Workload::DasdIo { blocks: 0, .. } => Err(format!(
            "guest {}: workload.ios and blocks must be at least 1",
            g.userid
        )),
        Workload::Format { blocks: 0, .. } | Workload::Format { size_mb: 0, .. } => Err(format!(
            "guest {}: workload.size_mb and blocks must be at least 1",
            g.userid
        )),
        _ => Ok(()),
    }
}

pub fn check_share(who: &str, s: &Share) -> Result<(), String> {
    let (rlo, rhi) = RELATIVE_SHARE;
    let (alo, ahi) = ABSOLUTE_SHARE;
    let chk = |v: &ShareValue| match v.kind {
        ShareKind::Relative if !((rlo..=rhi).contains(&v.value) && v.value.fract() == 0.0) => {
            Err(format!(
                "{who}: RELATIVE share must be a whole number {rlo}..{rhi} (got {})",
                v.value
            ))
        }
        ShareKind::Absolute if !(alo..=ahi).contains(&v.value) => Err(format!(
            "{who}: ABSOLUTE share must be {alo}%..{ahi}% (got {})",
            v.value
        )),
        _ => Ok(()),
    };
    chk(&s.min)?;
    if let Some(m) = &s.max {
        chk(m)?;
        if m.kind == s.min.kind && m.value < s.min.value {
            return Err(format!("{who}: maximum share is below the minimum share"));
        }
    }
    Ok(())
}

// --- channel paths (issue 22) ---

/// Channel paths ([[chpid]] tables) and the path group of the ECKD volumes' control unit
/// ([cu] paths); channel.rs. None: no channel model (an I/O's connect time is the device's).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelsCfg {
    pub chpids: Vec<ChpidCfg>,
    /// The control unit's paths by CHPID id, in rotation order (1 to 8).
    pub paths: Vec<String>,
    /// The control unit's class; the nullification window can be avoided only on an ESS.
    #[serde(default)]
    pub cu_class: CuClass,
}

/// One channel path: its CHPID (two hex digits) and type.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ChpidCfg {
    pub id: String,
    #[serde(rename = "type")]
    pub ctype: ChanKind,
    /// A path shared with other LPARs of the [cpc] (MIF): the I/Os per second they start on
    /// it (0: not shared).
    #[serde(default)]
    pub partner_io_rate: f64,
}

/// Static or dynamic PAV on the ECKD minidisk volumes' control unit ([cu] pav; pav.rs): the
/// control unit's alias exposures bound to bases, beside HyperPAV's pool. None: no such PAV.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PavCfg {
    pub mode: PavMode,
    pub aliases: u32,
}

/// The key path (`guests[3].workload.type`) of the value JSON `text` holds before `line` and
/// `column` (1-based, serde's position of an error), or "" at the top.
fn json_path_at(text: &str, line: usize, column: usize) -> String {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let end = (start + column.saturating_sub(1)).min(text.len());
    let mut out = String::new();
    for level in open_levels(text, end) {
        match level {
            (_, Some(n)) => out += &format!("[{n}]"),
            (Some(k), None) if out.is_empty() => out = k,
            (Some(k), None) => out += &format!(".{k}"),
            (None, None) => {}
        }
    }
    out
}

/// The objects and arrays open at byte `end` of JSON `text`, outermost first: an object's
/// current key, an array's current index.
fn open_levels(text: &str, end: usize) -> Vec<(Option<String>, Option<usize>)> {
    let mut stack: Vec<(Option<String>, Option<usize>)> = vec![];
    let (b, mut i, mut key_next) = (text.as_bytes(), 0, false);
    while i < end {
        match b[i] {
            b'"' => {
                let j = string_end(b, i);
                if std::mem::take(&mut key_next) {
                    if let Some(top) = stack.last_mut() {
                        top.0 = serde_json::from_str(&text[i..=j.min(b.len() - 1)]).ok();
                    }
                }
                i = j;
            }
            b'{' | b'[' => {
                stack.push((None, (b[i] == b'[').then_some(0)));
                key_next = b[i] == b'{';
            }
            b'}' | b']' => {
                stack.pop();
                key_next = false;
            }
            b',' => match stack.last_mut() {
                Some((_, Some(n))) => *n += 1,
                Some(_) => key_next = true,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    stack
}

/// The index of the quote that closes the JSON string opening at `open` (or the text's end).
fn string_end(b: &[u8], open: usize) -> usize {
    let mut j = open + 1;
    while j < b.len() && b[j] != b'"' {
        j += if b[j] == b'\\' { 2 } else { 1 };
    }
    j
}

#[cfg(test)]
mod tests {
    use super::{json_path_at, Workload};
    use crate::contract::{SERVER_KINDS, WORKLOAD_KINDS};

    /// The contract's workload kinds are the tags `Workload` reads (each is known; a server
    /// kind is a server).
    #[test]
    fn workload_kinds_are_the_tags() {
        let read = |k: &str| serde_json::from_str::<Workload>(&format!(r#"{{"kind": "{k}"}}"#));
        for k in WORKLOAD_KINDS {
            if let Err(e) = read(k) {
                assert!(e.to_string().starts_with("missing field"), "{k}: {e}");
            }
        }
        assert!(read("batch")
            .unwrap_err()
            .to_string()
            .contains("unknown variant"));
        let server = r#"{"kind": "server", "cpu_ns": 1}"#;
        assert!(serde_json::from_str::<Workload>(server)
            .unwrap()
            .is_server());
        assert!(SERVER_KINDS.iter().all(|k| WORKLOAD_KINDS.contains(k)));
    }

    #[test]
    fn path_of_a_position() {
        let t = r#"{"a": 1, "g": [{"u": "x"}, {"w": {"k": "b\"c", "t": "z"}}]}"#;
        let at = |s: &str| json_path_at(t, 1, t.find(s).unwrap() + s.len() + 1);
        assert_eq!(at(r#""a": 1"#), "a");
        assert_eq!(at(r#""u": "x""#), "g[0].u");
        assert_eq!(at(r#""t": "z""#), "g[1].w.t");
        assert_eq!(json_path_at(t, 1, 1), "");
        assert_eq!(json_path_at("{\n\"s\": \"q\"}", 2, 9), "s");
    }
}
