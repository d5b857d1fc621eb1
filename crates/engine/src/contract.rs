//! The scenario contract (issue 16 item 4): the vocabulary, numeric limits and the cross-field
//! rules a scenario must keep, stated once here. `Config::check` refuses what breaks them and
//! the Python front (`zvmlab/contract.py`) reads them through `contract()` for its located
//! messages, so the two cannot drift.

use serde_json::{json, Value};

/// Simulated time in nanoseconds: the scenario's durations and times, and the event queue's.
pub type Time = u64;

// --- vocabulary -------------------------------------------------------------------------------

/// An enumeration of the words a scenario writes for one setting, stated once: the enum, its
/// values in order (`ALL`), their words (`WORDS`, the contract's list) and each value's word
/// (`word`); serde reads and writes the word, and refuses any other naming what it should be
/// (`$what`) and the accepted words.
macro_rules! words {
    ($(#[$m:meta])* pub enum $name:ident($what:literal) {
        $($(#[$vm:meta])* $v:ident = $w:literal,)+
    }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vm])* $v,)+
        }

        impl $name {
            /// Every value, in the vocabulary's order.
            pub const ALL: &'static [$name] = &[$($name::$v,)+];
            /// The words of `ALL`.
            pub const WORDS: &'static [&'static str] = &[$($w,)+];

            /// The word a scenario writes for this value.
            pub const fn word(self) -> &'static str {
                match self {
                    $($name::$v => $w,)+
                }
            }

            /// The value `word` names, if any.
            pub fn from_word(word: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|v| v.word() == word)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.word())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let w = std::borrow::Cow::<str>::deserialize(d)?;
                Self::from_word(&w)
                    .ok_or_else(|| serde::de::Error::custom(unknown($what, &w, Self::WORDS)))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.word())
            }
        }
    };
}

/// The refusal of `word` where a `what` is expected: serde's "unknown variant" message with the
/// setting's name for "variant".
fn unknown(what: &str, word: &str, words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
    let expected = match quoted.as_slice() {
        [a] => a.clone(),
        [a, b] => format!("{a} or {b}"),
        _ => format!("one of {}", quoted.join(", ")),
    };
    format!("unknown {what} `{word}`, expected {expected}")
}

words! {
    /// `system.smt`: no multithreading, or an SMT mode with one or two active threads per core.
    #[derive(Default)]
    pub enum SmtMode("SMT mode") {
        #[default]
        Off = "off",
        Smt1 = "smt1",
        Smt2 = "smt2",
    }
}

words! {
    /// `dist` of a workload: exponential or fixed CPU bursts and think times.
    pub enum Dist("distribution") {
        Exp = "exp",
        Fixed = "fixed",
    }
}

words! {
    /// SET SRM POLARIZATION of the simulated LPAR (and a partner's).
    #[derive(Default)]
    pub enum Polarization("polarization") {
        #[default]
        Vertical = "vertical",
        Horizontal = "horizontal",
    }
}

words! {
    /// SET SRM UNPARKING (VM66063; vertical mode).
    pub enum Unparking("unparking model") {
        Large = "large",
        Medium = "medium",
        Small = "small",
    }
}

words! {
    /// SET SRM EXCESSUSE: how much unentitled capacity z/VM counts on when it unparks.
    #[derive(Default)]
    pub enum ExcessUse("excess use") {
        High = "high",
        #[default]
        Medium = "medium",
        Low = "low",
        None = "none",
    }
}

words! {
    /// SET SRM DSPWDMETHOD (cp-model §3.2): the work-distribution method of the dispatcher with
    /// one dispatch vector per logical CPU (6.3 levels; 6.4 looks aside at every vector's head,
    /// so the method has no effect there).
    #[derive(Default)]
    pub enum Dspwd("work-distribution method") {
        /// Balance first: an idle logical CPU takes the most urgent work of the longest
        /// vector, wherever it is (the older method; required with multithreading).
        #[default]
        Reshuffle = "reshuffle",
        /// Topology first: an idle logical CPU takes work from the nearest non-empty vector
        /// (its sibling thread's, then its chip's, then its drawer's, then another drawer's),
        /// the longest among equally near ones.
        Rebalance = "rebalance",
    }
}

words! {
    /// The device type of a dasd-io workload; a format workload takes `FORMAT`, a [[volume]]
    /// `VOLUME` (a VDISK is no volume).
    pub enum DasdType("DASD type") {
        Eckd = "eckd",
        Edev = "edev",
        Scsi = "scsi",
        Vdisk = "vdisk",
    }
}

impl DasdType {
    pub const FORMAT: [DasdType; 2] = [DasdType::Eckd, DasdType::Edev];
    pub const VOLUME: [DasdType; 3] = [DasdType::Eckd, DasdType::Edev, DasdType::Scsi];
}

words! {
    /// A paging volume: an ECKD (3390) or an EDEV (FBA emulated on a SCSI LUN).
    pub enum PagingVolumeType("paging volume type") {
        Eckd = "eckd",
        Edev = "edev",
    }
}

words! {
    /// The I/O method of a dasd-io workload: SSCH with CCW translation, or Diagnose X'250'.
    pub enum DasdMethod("I/O method") {
        Ssch = "ssch",
        Diag250 = "diag250",
    }
}

words! {
    /// An SSL server's cipher suite (`cipher`; also the level's default, switch ssl_cipher):
    /// TLS 1.0 RSA_AES_256 (SHA-1 MAC), or TLS 1.2 RSA_AES_128_SHA256.
    #[derive(Default)]
    pub enum SslCipher("SSL cipher") {
        #[default]
        RsaAes256 = "rsa-aes256",
        RsaAes128Sha256 = "rsa-aes128-sha256",
    }
}

words! {
    /// An SSL server's crypto directory statement: CRYPTO APVIRT.
    pub enum Crypto("crypto statement") {
        Apvirt = "apvirt",
    }
}

words! {
    /// SET ENCRYPT PAGING's cipher.
    pub enum PagingCipher("paging cipher") {
        Aes128 = "aes128",
        Aes192 = "aes192",
        Aes256 = "aes256",
    }
}

impl PagingCipher {
    /// AES rounds of the key length (FIPS 197).
    pub fn rounds(self) -> f64 {
        match self {
            PagingCipher::Aes128 => 10.0,
            PagingCipher::Aes192 => 12.0,
            PagingCipher::Aes256 => 14.0,
        }
    }
}

words! {
    /// The control unit's class: an ESS (2105 and later), which can avoid the nullification
    /// window, or an older 3990.
    #[derive(Default)]
    pub enum CuClass("control unit class") {
        #[default]
        Ess = "ess",
        C3990 = "3990",
    }
}

words! {
    /// Static PAV (each alias stays with its base) or dynamic PAV (workload management moves
    /// aliases between the bases).
    pub enum PavMode("PAV mode") {
        Static = "static",
        Dynamic = "dynamic",
    }
}

words! {
    /// A CPU pool's processor type (the model has one: recorded and reported).
    #[derive(Default)]
    pub enum PoolType("CPU pool type") {
        #[default]
        Ifl = "IFL",
        Cp = "CP",
    }
}

words! {
    /// A channel path type (CHPID type and feature).
    pub enum ChanKind("channel type") {
        Escon = "escon",
        Ficon = "ficon",
        FiconExpress8s = "ficon-express8s",
        FiconExpress16s = "ficon-express16s",
    }
}

impl ChanKind {
    /// The first level that knows this path type.
    pub fn first_level(self) -> &'static str {
        match self {
            ChanKind::Escon => "vmesa-2.3.0",
            ChanKind::Ficon => "vmesa-2.4.0",
            ChanKind::FiconExpress8s => "zvm-6.1",
            ChanKind::FiconExpress16s => "zvm-6.3-compat",
        }
    }

    pub fn is_ficon(self) -> bool {
        self != ChanKind::Escon
    }
}

/// `system.machine`, oldest first (machine.rs has their figures).
pub const MACHINES: [&str; 7] = ["z196", "zEC12", "z13", "z14", "z15", "z16", "z17"];
/// The machine a scenario runs on when it names none.
pub const DEFAULT_MACHINE: &str = "z14";
/// The first machine with CPACF AES fast enough for encrypted paging (VM65993).
pub const FIRST_ENCRYPT_MACHINE: &str = "z14";
/// Workload kinds, and those that are servers of the virtual network.
pub const WORKLOAD_KINDS: [&str; 9] = [
    "cpu-bound",
    "transactional",
    "memtst",
    "client",
    "server",
    "ssl-server",
    "dump",
    "dasd-io",
    "format",
];
pub const SERVER_KINDS: [&str; 2] = ["server", "ssl-server"];
/// The message for a `system.machine` that is not modelled.
pub fn unknown_machine(name: &str) -> String {
    format!(
        "system.machine = '{name}' is not modelled; accepted: {}",
        MACHINES.join(", ")
    )
}

/// The first level with PAV volumes as minidisks (VM63952).
pub const FIRST_PAV_LEVEL: &str = "zvm-5.2";
/// Characters of a userid, a CPU pool name (1-8 of them, upper case).
pub const NAME_CHARS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@#$_-";
pub const MAX_NAME: usize = 8;

// --- limits -----------------------------------------------------------------------------------

/// z/VM's logical cores (seed 000): non-SMT up to 64, SMT only on the first 32.
pub const MAX_PROCESSORS: u32 = 64;
pub const MAX_SMT_CORES: u32 = 32;
/// Drawers of the largest CPC modelled (each machine has its own, machine.rs).
pub const MAX_DRAWERS: u32 = 8;
pub const MAX_VCPUS: u32 = 64;
/// Identical guests of one [[guest]] table.
pub const MAX_COUNT: u32 = 10_000;
/// SET SHARE: RELATIVE 1..10000 (whole), ABSOLUTE 0.1..100 %.
pub const RELATIVE_SHARE: (f64, f64) = (1.0, 10_000.0);
pub const ABSOLUTE_SHARE: (f64, f64) = (0.1, 100.0);
/// ABSOLUTE minimum shares of all userids together, percent of the system, at the start and
/// after each timed SET SHARE: more cannot all be met (CP would scale them down and nobody would
/// get the share the scenario asks for). Compared with a slack of `SUM_SLACK` for rounding.
pub const MAX_ABSOLUTE_SUM: f64 = 100.0;
pub const SUM_SLACK: f64 = 1e-9;
/// PR/SM weight of a shared LPAR, physical IFLs of a CPC, an absolute cap in processors.
pub const WEIGHT: (u32, u32) = (1, 999);
pub const MAX_IFLS: u32 = 256;
pub const ABSCAP: (f64, f64) = (0.01, 255.0);
/// CPU pools: LIMITHARD percent, CAPACITY processors.
pub const MAX_POOL_CAPACITY: f64 = 64.0;
/// [run] tx_unit: completed requests per reported transaction.
pub const MAX_TX_UNIT: f64 = 1e6;
/// Largest duration (ns): below 2^63.
pub const MAX_DURATION_NS: u64 = (1 << 63) - 1;
/// The highest random seed: a scenario file holds it (TOML integers are signed 64-bit), so
/// every run, whatever command started it, can be written back as a scenario and rerun.
pub const MAX_SEED: u64 = (1 << 63) - 1;
/// Guest virtual storage (1 TB), any storage size (8 TB), real storage (z/VM 7.3: 4 TB), in 4 KB
/// pages; pages with references of all guests together (the storage model's 16 TB).
pub const MAX_GUEST_PAGES: u64 = 1 << 28;
pub const MAX_SIZE_PAGES: u64 = 1 << 31;
pub const MAX_REAL_PAGES: u64 = 1 << 30;
pub const MAX_REF_PAGES: u64 = (1 << 32) - 1;
/// Page references per server request.
pub const MAX_TOUCHES: u32 = 100_000;
/// Paging volumes of one entry.
pub const MAX_VOLUME_COUNT: u32 = 10_000;
/// A client's requests outstanding per virtual CPU; its payload bytes.
pub const MAX_CLIENT_WINDOW: u32 = 1_000_000;
pub const MAX_BYTES: u64 = 1 << 34;
/// dasd-io: I/Os in flight per virtual CPU, I/Os per transaction, blocks per I/O, paced rate.
pub const MAX_IO_WINDOW: u32 = 1024;
pub const MAX_IOS: u32 = 1_000_000;
pub const MAX_BLOCKS: u32 = 65_536;
pub const MAX_IO_RATE: f64 = 1e7;
/// HyperPAV or PAV alias exposures of a control unit, its SET CU SHARE, its channel paths.
pub const ALIASES: (u32, u32) = (1, 254);
pub const MAX_CU_PATHS: usize = 8;
/// I/Os per second other LPARs start on a shared channel path.
pub const MAX_PARTNER_IO_RATE: f64 = 1e7;

/// Whether `s` is a CP name (userid, pool): 1-8 of `NAME_CHARS`.
pub fn is_cp_name(s: &str) -> bool {
    (1..=MAX_NAME).contains(&s.len()) && s.chars().all(|c| NAME_CHARS.contains(c))
}

/// Whether `s` is a CHPID: two upper-case hex digits.
pub fn is_chpid(s: &str) -> bool {
    s.len() == 2
        && s.chars()
            .all(|c| c.is_ascii_digit() || ('A'..='F').contains(&c))
}

/// Position of `name` in `list` (an order of levels or machines).
pub fn rank(list: &[&str], name: &str) -> Option<usize> {
    list.iter().position(|n| *n == name)
}

/// The contract as JSON: what the Python front reads (`_engine.contract_json`).
pub fn contract() -> Value {
    json!({
        "vocabulary": vocabulary(),
        "limits": limits(),
        "rules": rules(),
    })
}

/// The words of each vocabulary, and the single names the rules refer to.
fn vocabulary() -> Value {
    let firsts: serde_json::Map<String, Value> = ChanKind::ALL
        .iter()
        .map(|k| (k.word().to_string(), json!(k.first_level())))
        .collect();
    json!({
        "smt": SmtMode::WORDS, "machine": MACHINES, "default_machine": DEFAULT_MACHINE,
        "first_encrypt_machine": FIRST_ENCRYPT_MACHINE,
        "dist": Dist::WORDS, "polarization": Polarization::WORDS,
        "unparking": Unparking::WORDS, "excessuse": ExcessUse::WORDS,
        "dspwdmethod": Dspwd::WORDS, "dasd_type": DasdType::WORDS,
        "format_type": DasdType::FORMAT.map(DasdType::word),
        "volume_type": DasdType::VOLUME.map(DasdType::word),
        "paging_volume_type": PagingVolumeType::WORDS, "dasd_method": DasdMethod::WORDS,
        "ssl_cipher": SslCipher::WORDS, "crypto": Crypto::WORDS,
        "paging_cipher": PagingCipher::WORDS,
        "workload_kind": WORKLOAD_KINDS, "server_kind": SERVER_KINDS,
        "cu_class": CuClass::WORDS, "pav_mode": PavMode::WORDS,
        "first_pav_level": FIRST_PAV_LEVEL, "pool_type": PoolType::WORDS,
        "chpid_type": ChanKind::WORDS, "chpid_first_level": firsts,
        "name_chars": NAME_CHARS, "max_name": MAX_NAME, "sum_slack": SUM_SLACK,
    })
}

/// Numeric limits, each [lowest, highest] accepted (both inclusive unless the rule says above).
fn limits() -> Value {
    json!({
        "processors": [1, MAX_PROCESSORS], "smt_processors": [1, MAX_SMT_CORES],
        "drawers": [1, MAX_DRAWERS], "vcpus": [1, MAX_VCPUS], "count": [1, MAX_COUNT],
        "relative_share": [RELATIVE_SHARE.0, RELATIVE_SHARE.1],
        "absolute_share": [ABSOLUTE_SHARE.0, ABSOLUTE_SHARE.1],
        "absolute_share_sum": [0.0, MAX_ABSOLUTE_SUM],
        "weight": [WEIGHT.0, WEIGHT.1], "ifls": [0, MAX_IFLS], "abscap": [ABSCAP.0, ABSCAP.1],
        "pool_limithard_pct": [0.0, 100.0], "pool_capacity": [0.0, MAX_POOL_CAPACITY],
        "tx_unit": [0.0, MAX_TX_UNIT], "duration_ns": [1, MAX_DURATION_NS], "seed": [0, MAX_SEED],
        "guest_pages": [1, MAX_GUEST_PAGES], "size_pages": [1, MAX_SIZE_PAGES],
        "real_pages": [1, MAX_REAL_PAGES], "ref_pages": [0, MAX_REF_PAGES],
        "touches": [1, MAX_TOUCHES], "volume_count": [1, MAX_VOLUME_COUNT],
        "client_window": [1, MAX_CLIENT_WINDOW], "bytes": [0, MAX_BYTES],
        "io_window": [1, MAX_IO_WINDOW], "ios": [1, MAX_IOS], "blocks": [1, MAX_BLOCKS],
        "io_rate": [0.0, MAX_IO_RATE], "aliases": [ALIASES.0, ALIASES.1],
        "cu_share": [RELATIVE_SHARE.0, RELATIVE_SHARE.1], "cu_paths": [1, MAX_CU_PATHS],
        "partner_io_rate": [0.0, MAX_PARTNER_IO_RATE], "busy": [0.0, 1.0],
        "demand": [0.0, 1.0], "hot_fraction": [0.0, 1.0],
    })
}

/// The cross-field rules `Config::check` enforces, named (the Python front words each one
/// where the scenario breaks it).
fn rules() -> Value {
    json!([
        "smt needs processors <= smt_processors and dspwdmethod reshuffle, and no [cpc]",
        "drawers <= processors",
        "relative share is a whole number; a maximum share is not below the minimum of its kind",
        "ABSOLUTE minimum shares of all userids sum to at most absolute_share_sum, at the start and after each timed SET SHARE",
        "count > 1: userid and the largest suffix fit max_name characters",
        "touches > 1 needs a server workload",
        "format type is one of format_type; mdc needs an eckd or edev device and an [mdc]",
        "rate > 0 is a paced driver: no think time",
        "encrypted paging needs machine first_encrypt_machine or later",
        "paging_hpf needs eckd paging volumes; xiv needs an edev volume",
        "HyperPAV aliases need eckd volumes; paging_alias needs eckd paging volumes",
        "PAV needs level first_pav_level or later and eckd minidisks; not with HyperPAV",
        "channel paths need eckd volumes; partner_io_rate needs a [cpc]",
        "cpc: shared ifls >= 1, processors <= shared, lpar names 1-8 characters",
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_levels_and_machines_exist() {
        for m in [DEFAULT_MACHINE, FIRST_ENCRYPT_MACHINE] {
            assert!(MACHINES.contains(&m));
        }
        for &k in ChanKind::ALL {
            assert!(crate::level::find(k.first_level()).is_some(), "{k}");
        }
        assert!(crate::level::find(FIRST_PAV_LEVEL).is_some());
    }

    /// Each value is read from and written as its word; another word is refused with the
    /// accepted ones, in order.
    #[test]
    fn words_are_the_wire_format() {
        for &m in SmtMode::ALL {
            let text = serde_json::to_string(&m).unwrap();
            assert_eq!(text, format!("\"{}\"", m.word()));
            assert_eq!(serde_json::from_str::<SmtMode>(&text).unwrap(), m);
        }
        assert_eq!(PoolType::from_word("IFL"), Some(PoolType::Ifl));
        assert_eq!(ChanKind::WORDS[2], ChanKind::FiconExpress8s.word());
        let e = serde_json::from_str::<CuClass>("\"2107\"").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("unknown control unit class `2107`, expected `ess` or `3990`"),
            "{e}"
        );
        assert_eq!(Dspwd::default(), Dspwd::Reshuffle);
        assert_eq!(ExcessUse::default(), ExcessUse::Medium);
    }

    #[test]
    fn names() {
        assert!(is_cp_name("USER0") && is_cp_name("A@#$_-9Z"));
        assert!(!is_cp_name("") && !is_cp_name("user0") && !is_cp_name("ABCDEFGHI"));
        assert!(is_chpid("4F") && !is_chpid("4f") && !is_chpid("G0") && !is_chpid("400"));
    }
}
