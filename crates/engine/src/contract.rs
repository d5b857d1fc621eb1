//! The scenario contract (issue 16 item 4): the vocabulary, numeric limits and the cross-field
//! rules a scenario must keep, stated once here. `Config::check` refuses what breaks them and
//! the Python front (`zvmlab/contract.py`) reads them through `contract()` for its located
//! messages, so the two cannot drift.

use serde_json::{json, Value};

// --- vocabulary -------------------------------------------------------------------------------

/// `system.smt`.
pub const SMT_MODES: [&str; 3] = ["off", "smt1", "smt2"];
/// `system.machine`, oldest first (machine.rs has their figures).
pub const MACHINES: [&str; 7] = ["z196", "zEC12", "z13", "z14", "z15", "z16", "z17"];
/// The machine a scenario runs on when it names none.
pub const DEFAULT_MACHINE: &str = "z14";
/// The first machine with CPACF AES fast enough for encrypted paging (VM65993).
pub const FIRST_ENCRYPT_MACHINE: &str = "z14";
/// `dist` of a workload.
pub const DISTS: [&str; 2] = ["exp", "fixed"];
/// SET SRM POLARIZATION, UNPARKING, EXCESSUSE, DSPWDMETHOD.
pub const POLARIZATIONS: [&str; 2] = ["vertical", "horizontal"];
pub const UNPARKINGS: [&str; 3] = ["large", "medium", "small"];
pub const EXCESSUSES: [&str; 4] = ["high", "medium", "low", "none"];
pub const DSPWDMETHODS: [&str; 2] = ["reshuffle", "rebalance"];
/// Device types of a dasd-io workload; a format workload takes the first two, a [[volume]]
/// the first three (a VDISK is no volume), a paging volume the first two.
pub const DASD_TYPES: [&str; 4] = ["eckd", "edev", "scsi", "vdisk"];
pub const FORMAT_TYPES: [&str; 2] = ["eckd", "edev"];
pub const VOLUME_TYPES: [&str; 3] = ["eckd", "edev", "scsi"];
pub const PAGING_VOLUME_TYPES: [&str; 2] = ["eckd", "edev"];
/// I/O methods of a dasd-io workload.
pub const DASD_METHODS: [&str; 2] = ["ssch", "diag250"];
/// Ciphers of an SSL server (`cipher`), its crypto statement, and the paging ciphers.
pub const SSL_CIPHERS: [&str; 2] = ["rsa-aes256", "rsa-aes128-sha256"];
pub const CRYPTO: [&str; 1] = ["apvirt"];
pub const PAGING_CIPHERS: [&str; 3] = ["aes128", "aes192", "aes256"];
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
/// The control unit's class, its static/dynamic PAV modes, CPU pool types.
pub const CU_CLASSES: [&str; 2] = ["ess", "3990"];
pub const PAV_MODES: [&str; 2] = ["static", "dynamic"];
/// The first level with PAV volumes as minidisks (VM63952).
pub const FIRST_PAV_LEVEL: &str = "zvm-5.2";
pub const POOL_TYPES: [&str; 2] = ["IFL", "CP"];
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
    let kinds: Vec<&str> = crate::channel::KINDS.iter().map(|k| k.0).collect();
    let firsts: serde_json::Map<String, Value> = crate::channel::KINDS
        .iter()
        .map(|k| (k.0.to_string(), json!(k.2)))
        .collect();
    json!({
        "vocabulary": {
            "smt": SMT_MODES, "machine": MACHINES, "default_machine": DEFAULT_MACHINE,
            "first_encrypt_machine": FIRST_ENCRYPT_MACHINE,
            "dist": DISTS, "polarization": POLARIZATIONS, "unparking": UNPARKINGS,
            "excessuse": EXCESSUSES, "dspwdmethod": DSPWDMETHODS,
            "dasd_type": DASD_TYPES, "format_type": FORMAT_TYPES, "volume_type": VOLUME_TYPES,
            "paging_volume_type": PAGING_VOLUME_TYPES, "dasd_method": DASD_METHODS,
            "ssl_cipher": SSL_CIPHERS, "crypto": CRYPTO, "paging_cipher": PAGING_CIPHERS,
            "workload_kind": WORKLOAD_KINDS, "server_kind": SERVER_KINDS,
            "cu_class": CU_CLASSES, "pav_mode": PAV_MODES, "first_pav_level": FIRST_PAV_LEVEL,
            "pool_type": POOL_TYPES, "chpid_type": kinds, "chpid_first_level": firsts,
            "name_chars": NAME_CHARS, "max_name": MAX_NAME, "sum_slack": SUM_SLACK,
        },
        "limits": limits(),
        "rules": rules(),
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
        "tx_unit": [0.0, MAX_TX_UNIT], "duration_ns": [1, MAX_DURATION_NS],
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
        for k in crate::channel::KINDS {
            assert!(
                crate::level::find(k.2).is_some(),
                "{} first level {}",
                k.0,
                k.2
            );
        }
        assert!(crate::level::find(FIRST_PAV_LEVEL).is_some());
    }

    #[test]
    fn names() {
        assert!(is_cp_name("USER0") && is_cp_name("A@#$_-9Z"));
        assert!(!is_cp_name("") && !is_cp_name("user0") && !is_cp_name("ABCDEFGHI"));
        assert!(is_chpid("4F") && !is_chpid("4f") && !is_chpid("G0") && !is_chpid("400"));
    }
}
