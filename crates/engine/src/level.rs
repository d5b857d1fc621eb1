//! CP levels: a z/VM (or VM/ESA) release plus service, modelled as a set of mechanism switches.
//!
//! A level never carries an outcome: comparing two levels is comparing mechanisms. Each later
//! issue adds its switches here (and its mechanism in its subsystem module).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How the dispatcher orders the dispatch list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sched {
    /// z/VM <= 6.3: dispatch priority = adjusted TOD + DSPSLICE / (normalized share x
    /// processors), recomputed from the current TOD at every slice end (no memory of what the
    /// user got); the share is normalized over every user in the dispatch and eligible lists,
    /// hungry or not (test-idle users included); LIMITSOFT only caps the normalized share.
    DeadlineNs,
    /// z/VM 6.4 (VM65288 repair): every scheduler tick, entitlement plus excess is water-filled
    /// over measured demand (consumption + time spent wanting the CPU); dispatch priority is a
    /// virtual deadline that advances by CPU used / target rate, so a user that was held back
    /// keeps its place (no loss at slice end), and a user that wakes starts at the list's
    /// virtual time (no banking while idle).
    EntitlementExcess,
}

/// How a LIMITHARD maximum share is enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LimitHard {
    /// VM/ESA 2.3.0 and before: deadline pushed out, idle elapsed time counted against the user.
    DeadlineOld,
    /// VM/ESA 2.4.0 (VM61527): deadline method that no longer counts idle time against the user.
    Deadline240,
    /// Consumption method: over-limit users wait on the limit list.
    Consumption,
}

/// Where a logical processor looks for work (cp-model §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DvSelect {
    /// Each logical processor runs the earliest deadline on its own dispatch vector and looks at
    /// other vectors only when its own is empty (steal from the longest one).
    Local,
    /// A processor looks aside at every dispatch vector's head and runs the earliest deadline
    /// system-wide (modelled as one ordered dispatch list).
    LookAside,
}

/// The 6.3 global aging list (storage management, issue 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AgeList {
    /// z/VM 6.3+: stolen frames pass through the global aging list (revalidation, early write).
    #[default]
    On,
    /// Before 6.3: frames stolen FIFO from the in-use list (the demand scan is not modelled).
    Off,
}

/// Pre-6.3 reorder processing (seed 003, VM64774 SET REORDER).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Reorder {
    /// Before 6.3: now and then CP reorders a faulting guest's frames, walking every resident
    /// page of the guest while the guest waits (`storage.path_reorder_page`,
    /// `storage.reorder_interval`).
    On,
    /// SET REORDER OFF, and 6.3+ (the global aging list replaced reorder).
    #[default]
    Off,
}

/// How CP paging drives an EDEV (SCSI) paging volume (seed 004, z/VM 5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum EdevPaging {
    /// z/VM 5.2: paging builds FBA channel programs that FBA emulation converts to SCSI; one
    /// I/O at a time per volume.
    FbaEmulation,
    /// z/VM 5.3+: paging calls the SCSI container directly; I/Os to a LUN overlap.
    #[default]
    ScsiDirect,
}

/// Dispatcher path (seed 004: 5.3's specialty-engine support lengthened the dispatcher).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DispatchPath {
    /// z/VM 5.2: `path.dispatch` minus `path.dispatch_specialty`.
    PreSpecialty,
    #[default]
    SpecialtyEngines,
}

/// The scheduler lock's shared/exclusive manager (seed 000, VM65988; crate::locks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SchedLock {
    /// No shared mode: every acquire of the scheduler lock is exclusive (what-if).
    Exclusive,
    /// Old manager: shared and exclusive acquirers all write the lock's one cache line.
    #[default]
    SingleLine,
    /// VM65988 (6.4): only exclusive acquirers write the line; shared ones only read it.
    ExclOnlyWrites,
}

/// Where a lock word lives (seed 001, VM65696 moved the scheduler lock to its own lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LockLine {
    /// The lock word shares its cache line with the data it protects.
    Shared,
    /// The lock word has a cache line of its own.
    #[default]
    Own,
}

/// VDISK I/O serialization (seed 001, row C3): before the fix one system-wide lock is held for
/// the whole request (CCW translation and the data move); with the fix (z13 exploitation SPE)
/// only the data move is serialized, per VDISK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum VdiskLock {
    WholeIo,
    #[default]
    PerVdiskMove,
}

/// I/O to EDEVs on an IBM XIV: one at a time, or overlapped (VM65929, z/VM 6.4; seed 000 D14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum XivIo {
    #[default]
    Serial,
    Concurrent,
}

/// Frame-manager zones (seed 000, 6.4 2 TB support): RSA2GLCK split by zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FrameZones {
    /// One > 2 GB available list and one lock.
    #[default]
    One,
    /// `storage.frame_zones` zones, each with its lock; a processor uses its home zone.
    Zoned,
}

/// How a processor gives frames back to the > 2 GB available list (seed 000, the 6.4 2 TB
/// support: "frame returns can be queued instead of waiting for the zone's lock").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FrameReturns {
    /// Through 6.3: a processor returning frames (steal, release, reclaim) takes RSA2GLCK and
    /// spins for it like an allocator.
    #[default]
    Wait,
    /// 6.4: the frames are pushed on the zone's return queue with one interlocked update and
    /// the next holder of the zone's lock chains them (its hold grows; nobody spins to return).
    Queued,
}

/// CP's SCSI container (the layer that drives EDEV LUNs): the z/VM 5.2 code, or the 5.3 code
/// tuned for shorter paths on common requests (seed 004).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ScsiContainer {
    Untuned,
    #[default]
    Tuned,
}

/// SCSI write-same for writes of one repeated block to an EDEV (CMS FORMAT), z/VM 5.3+.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum WriteSame {
    Off,
    #[default]
    On,
}

/// Whether CP can run the cores multithreaded (SET MULTITHREAD, SMT-2 on z13 IFLs): z/VM 6.3
/// with the z13 support (VM65586) and later. Before 6.3 a scenario with SMT is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Multithreading {
    Unsupported,
    #[default]
    Supported,
}

/// Whether CP has CPU pools (DEFINE CPUPOOL, SCHEDULE): z/VM 6.3 (VM65418) and later (README,
/// "CPU pools"). Before 6.3 a scenario with a CPU pool is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CpuPools {
    Unsupported,
    #[default]
    Supported,
}

/// Which PR/SM polarization CP can run in (cp-model §11; SRM POLARIZATION came with 6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Polarizing {
    /// Before z/VM 6.3: horizontal only, no parking.
    HorizontalOnly,
    /// z/VM 6.3+ (HiperDispatch): vertical (the default) or horizontal.
    #[default]
    Vertical,
}

/// Elective use of below-2GB frames for pageable data (seed 003, rows D1 and D2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Below2g {
    /// z/VM 5.2 to 6.1: user pages and MDC take below-2GB frames when available, so CP
    /// searches frames in use for a below-2GB one when it needs one for itself.
    Elective,
    /// z/VM 6.2: pageable data stays above 2 GB (unless there is no storage above it); the
    /// below-2GB available list is CP's.
    #[default]
    CpOnly,
}

/// The unparking models CP offers in vertical mode (cp-model §3.3, §11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum UnparkingModels {
    /// z/VM 6.3 and 6.4 GA: unpark every core that appears powered (what VM66063 calls LARGE).
    #[default]
    LargeOnly,
    /// VM66063: SET SRM UNPARKING LARGE | MEDIUM | SMALL.
    Vm66063,
}

/// Paging I/O payload (seed 000 D9, z/VM 6.4 "I/O payloads increased, block paging efficiency
/// increased"): how many stolen pages one page-out SSCH carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PagingPayload {
    /// Through z/VM 6.3: `paging.block_pages` pages per page-out SSCH.
    #[default]
    Classic,
    /// z/VM 6.4: `paging.block_pages_64` pages per page-out SSCH.
    Large,
}

/// The SSL server's default cipher suite (issue 6, rows E5/E6): TLS 1.0 RSA_AES_256 (SHA-1
/// MAC) before the 6.3 TLS 1.2 service (PI40702, VM65717, VM65718), TLS 1.2 RSA_AES_128_SHA256
/// with it and in 6.4 (a workload's `cipher` too; its words in contract.rs).
pub use crate::contract::SslCipher;

/// The SSL server's level: V2.1 (z/VM 6.3) or V2.2 (z/VM 6.4, a new System SSL with a longer
/// path per TLS record).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SslServer {
    #[default]
    V21,
    V22,
}

/// CRYPTO APVIRT support in the SSL server (PI72106): the handshake's RSA private-key work
/// goes to a shared crypto adapter when the directory gives the server one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SslApvirt {
    #[default]
    Off,
    On,
}

/// Dump channel programs (row E4): few pages per channel program before VM65989, a track's
/// worth after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DumpCcw {
    #[default]
    Old,
    Vm65989,
}

/// How each logical CPU's short list of free, cleared frames is refilled from the global
/// available list (RSA2GLCK) for first-time faults and page-ins (seed 001, row C4; the
/// improvement is in the z13 exploitation SPE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FrameReplenish {
    /// The list lags behind demand: under a storm of faults it is empty at each fault, which
    /// then takes its frame from the global list under RSA2GLCK.
    Lagging,
    /// Demand-sensitive replenishment: the list is refilled with a batch of frames
    /// (`storage.cpu_list_batch`) under one RSA2GLCK hold, and faults take from it lock-free.
    #[default]
    DemandSensitive,
}

/// Whether CP's paging subsystem can drive ECKD paging volumes with zHPF transport-mode I/O
/// (SET PAGING HPF ON; seed 000: new in z/VM 6.4). Without support the command's setting is
/// ignored and paging stays in command mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PagingHpf {
    Unsupported,
    #[default]
    Supported,
}

/// Whether paging I/O can use HyperPAV aliases (SET PAGING ALIAS ON) and SET CU ... SHARE
/// divides a control unit's aliases between paging and minidisk I/O (seed 000: new in z/VM
/// 6.4). Without it minidisk I/O has the whole pool and paging none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PagingAlias {
    Unsupported,
    #[default]
    Supported,
}

/// Whether CP can encrypt guest pages it writes to paging volumes (SET ENCRYPT PAGING; seed
/// 000: APAR VM65993 on the z14, CPACF). Without it the setting is ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PagingEncrypt {
    #[default]
    Unsupported,
    /// VM65993 (in the 1Q17 stack here).
    Vm65993,
}

/// Whether page release combines contiguous free frames (seed 003: VM64795 and VM65032 "combine
/// all contiguous frames as pages are released", reducing the searches for contiguous frames).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FrameCoalesce {
    /// Freed frames go back one by one: a request for two contiguous frames searches the
    /// available frames for one whose neighbour is free too.
    Off,
    /// The two frames of a freed page table go back as a pair, which the next request takes.
    #[default]
    On,
}

/// The set of free, preallocated NDMBKs (the control blocks holding data moving through a guest
/// LAN or VSWITCH) and its lock (seed 001: the data structure was changed in the z13
/// exploitation SPE to decrease opportunity for lock contention).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Ndmbk {
    /// One system-wide free list: each message takes an NDMBK from it and gives it back, each
    /// under the NDMBK lock held exclusive.
    SingleList,
    /// Per-processor caches of free NDMBKs (assumed form of the change: the seed names the
    /// goal, not the structure); the lock is taken only to refill an empty cache or spill a
    /// full one by `vnet.ndmbk_cache` blocks.
    #[default]
    PerCpu,
}

/// Where a scheduler-list change (a D-list add or drop, a test-idle user readied) takes the
/// scheduler lock (docs/research/where-cp-breaks.md §7 gap (1), §7.1 (a)). No level sets it: CP
/// does each list change as it happens [I], which the model approximates by folding them into
/// the next dispatch; `at-event` is the what-if that makes each one its own exclusive hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SchedUpdates {
    /// Folded into the next dispatcher's exclusive hold.
    #[default]
    AtDispatch,
    /// Each change its own exclusive acquisition at the instant it happens (its spin and line
    /// time run by the next processor that dispatches, like SRMATDLK's).
    AtEvent,
}

/// Whether a virtual CPU's own wait and readying take the scheduler lock (issue 17; research note
/// docs/research/where-cp-breaks.md §2.1's table, §7.1 (a)). A virtual CPU that loads an enabled
/// wait PSW (Linux does when its run queue is empty) or waits for a guest I/O goes idle, and a
/// message, an I/O completion or a page-in readies it again: CP changes the virtual CPU's state
/// on the processor where the event happens. Before the z13 exploitation SPE (VM65586) these were
/// list changes under SRMSLOCK held exclusive [I: the seed says the SPE decreased "the situations
/// in which the scheduler lock had to be held exclusive" and lets the dispatch list be accessed
/// more in parallel, not which]; with it, a virtual CPU whose user stays on the dispatch list is
/// moved on its dispatch vector only (DSVLOCK, not modelled), and SRMSLOCK is taken only when
/// the user changes lists (D-list adds and drops, a test-idle user readied).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SchedWaits {
    /// Each wait and each readying of a virtual CPU is its own exclusive SRMSLOCK acquisition
    /// (`lock.hold_requeue`, one VMDBK's state and queue position) at the instant it happens.
    Exclusive,
    /// Only the dispatch vector is touched (the exploitation SPE and later).
    #[default]
    DvOnly,
}

/// When the dispatcher holds the scheduler lock exclusive (seed 001: "the situations in which
/// the scheduler lock had to be held exclusive were decreased" in the z13 exploitation SPE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SchedExcl {
    /// Before: a dispatch that takes work from the dispatch list holds the lock exclusive
    /// (assumed: which situations changed is not public; taking work is the common one).
    Dispatch,
    /// After: exclusive only for list updates (slice-end requeue, D-list adds and drops,
    /// readied users); a dispatch that only reads the list holds it shared.
    #[default]
    UpdatesOnly,
}

/// How CP serializes a guest PTE while it simulates a guest storage-key operation (ISKE)
/// (seed 001, row C2; the fix is in the z13 exploitation SPE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PteLock {
    /// Every simulated ISKE locks the guest PTE (the lock bit lives beside the PTE data, so
    /// spinners also take the line from the holder).
    IskeLocks,
    /// The key is read without the PTE lock; only key operations that change the key or its
    /// reference/change bits lock it [A: the seed says only "the technique used for locking a
    /// guest PTE was changed to decrease opportunity for lock contention"].
    #[default]
    IskeReads,
}

/// Prefetch under Synchronize Control (seed 002, VM/ESA 2.4): CP marks its paging, spooling and
/// guest channel programs as safe to prefetch, so a FICON channel pipelines their CCWs instead
/// of one interlocked round trip per CCW (channel.rs). No effect on ESCON paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FiconPrefetch {
    #[default]
    Off,
    On,
}

/// The nullification window (seed 002, VM/ESA 2.4): a wait for an acknowledgement handshake
/// between the control unit and the channel subsystem, which 2.4 avoids when the path is FICON
/// and the control unit an ESS (channel.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Nullification {
    #[default]
    Waits,
    Avoided,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Switches {
    pub sched: Sched,
    pub limithard: LimitHard,
    pub dv: DvSelect,
    #[serde(default)]
    pub agelist: AgeList,
    #[serde(default)]
    pub edev_paging: EdevPaging,
    #[serde(default)]
    pub dispatch_path: DispatchPath,
    #[serde(default)]
    pub reorder: Reorder,
    #[serde(default)]
    pub sched_lock: SchedLock,
    #[serde(default)]
    pub lock_line: LockLine,
    #[serde(default)]
    pub vdisk_lock: VdiskLock,
    #[serde(default)]
    pub xiv_io: XivIo,
    #[serde(default)]
    pub frame_zones: FrameZones,
    #[serde(default)]
    pub frame_returns: FrameReturns,
    #[serde(default)]
    pub scsi_container: ScsiContainer,
    #[serde(default)]
    pub write_same: WriteSame,
    #[serde(default)]
    pub polarization: Polarizing,
    #[serde(default)]
    pub unparking: UnparkingModels,
    #[serde(default)]
    pub below2g: Below2g,
    pub ssl_cipher: SslCipher,
    #[serde(default)]
    pub ssl_server: SslServer,
    #[serde(default)]
    pub ssl_apvirt: SslApvirt,
    #[serde(default)]
    pub dump_ccw: DumpCcw,
    #[serde(default)]
    pub pte_lock: PteLock,
    #[serde(default)]
    pub frame_replenish: FrameReplenish,
    #[serde(default)]
    pub storage_admission: StorageAdmission,
    #[serde(default)]
    pub paging_payload: PagingPayload,
    #[serde(default)]
    pub ndmbk: Ndmbk,
    #[serde(default)]
    pub sched_excl: SchedExcl,
    #[serde(default)]
    pub sched_updates: SchedUpdates,
    #[serde(default)]
    pub sched_waits: SchedWaits,
    #[serde(default)]
    pub paging_hpf: PagingHpf,
    #[serde(default)]
    pub paging_alias: PagingAlias,
    #[serde(default)]
    pub paging_encrypt: PagingEncrypt,
    #[serde(default)]
    pub frame_coalesce: FrameCoalesce,
    #[serde(default)]
    pub ficon_prefetch: FiconPrefetch,
    #[serde(default)]
    pub nullification: Nullification,
    #[serde(default)]
    pub multithreading: Multithreading,
    #[serde(default)]
    pub cpu_pools: CpuPools,
}

/// Storage-based admission to the dispatch list (SET SRM STORBUF / LDUBUF, cp-model §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum StorageAdmission {
    /// Through z/VM 6.2: STORBUF 125 105 95 and the LDUBUF barrier on loading users, so a
    /// storage-constrained system forms an eligible list and holds users back until their
    /// working sets fit and the paging exposures can take their page faults.
    Classic,
    /// z/VM 6.3 and later (the storage management redesign): STORBUF 300 250 200 [K], which in
    /// practice never holds anyone, and no LDUBUF barrier [A: none of the seeds' storage-
    /// constrained 6.3/6.4 measurements (Apache DASD paging, XIV paging, the regression suite's
    /// constrained cells) shows an eligible list, which the documented LDUBUF 100 75 60 with this
    /// model's loading test would form; a scenario can set `storage_admission = "classic"`].
    #[default]
    Overcommit,
}

#[derive(Clone, Debug, Serialize)]
pub struct Level {
    pub name: &'static str,
    pub title: &'static str,
    pub switches: Switches,
}

pub fn levels() -> Vec<Level> {
    let old = Switches {
        sched: Sched::DeadlineNs,
        limithard: LimitHard::DeadlineOld,
        dv: DvSelect::Local,
        agelist: AgeList::Off,
        edev_paging: EdevPaging::FbaEmulation,
        dispatch_path: DispatchPath::PreSpecialty,
        reorder: Reorder::On,
        sched_lock: SchedLock::SingleLine,
        lock_line: LockLine::Shared,
        vdisk_lock: VdiskLock::WholeIo,
        xiv_io: XivIo::Serial,
        frame_zones: FrameZones::One,
        frame_returns: FrameReturns::Wait,
        scsi_container: ScsiContainer::Untuned,
        write_same: WriteSame::Off,
        polarization: Polarizing::HorizontalOnly,
        unparking: UnparkingModels::LargeOnly,
        below2g: Below2g::Elective,
        ssl_cipher: SslCipher::RsaAes256,
        ssl_server: SslServer::V21,
        ssl_apvirt: SslApvirt::Off,
        dump_ccw: DumpCcw::Old,
        pte_lock: PteLock::IskeLocks,
        frame_replenish: FrameReplenish::Lagging,
        storage_admission: StorageAdmission::Classic,
        paging_payload: PagingPayload::Classic,
        ndmbk: Ndmbk::SingleList,
        sched_excl: SchedExcl::Dispatch,
        sched_updates: SchedUpdates::AtDispatch,
        sched_waits: SchedWaits::Exclusive,
        paging_hpf: PagingHpf::Unsupported,
        paging_alias: PagingAlias::Unsupported,
        multithreading: Multithreading::Unsupported,
        cpu_pools: CpuPools::Unsupported,
        paging_encrypt: PagingEncrypt::Unsupported,
        frame_coalesce: FrameCoalesce::Off,
        ficon_prefetch: FiconPrefetch::Off,
        nullification: Nullification::Waits,
    };
    // VM/ESA 2.4 (seed 002): FICON exploitation (prefetch under Synchronize Control, the
    // nullification window avoided on an ESS).
    let l240 = Switches {
        limithard: LimitHard::Deadline240,
        ficon_prefetch: FiconPrefetch::On,
        nullification: Nullification::Avoided,
        ..old.clone()
    };
    // z/VM 5.2: the VM/ESA 2.4 mechanisms with the consumption-based LIMITHARD.
    let zvm52 = Switches {
        limithard: LimitHard::Consumption,
        ..l240.clone()
    };
    let zvm53 = Switches {
        edev_paging: EdevPaging::ScsiDirect,
        dispatch_path: DispatchPath::SpecialtyEngines,
        scsi_container: ScsiContainer::Tuned,
        write_same: WriteSame::On,
        ..zvm52.clone()
    };
    let zvm61 = zvm53.clone();
    // 6.1 service VM64795 / VM65032 (seed 003): contiguous frames combined at page release;
    // in 6.2 from GA.
    let zvm61_vm65032 = Switches {
        frame_coalesce: FrameCoalesce::On,
        ..zvm61.clone()
    };
    let zvm62 = Switches {
        below2g: Below2g::CpOnly,
        frame_coalesce: FrameCoalesce::On,
        ..zvm53.clone()
    };
    let zvm63 = Switches {
        vdisk_lock: VdiskLock::PerVdiskMove,
        agelist: AgeList::On,
        reorder: Reorder::Off,
        // VM65696 (6.3 z13 exploitation service): the scheduler lock on its own cache lines.
        lock_line: LockLine::Own,
        polarization: Polarizing::Vertical,
        storage_admission: StorageAdmission::Overcommit,
        // The z13 exploitation SPE's guest PTE serialization fix and real storage management
        // improvements (seed 001).
        pte_lock: PteLock::IskeReads,
        frame_replenish: FrameReplenish::DemandSensitive,
        // ... and its NDMBK free-list and scheduler-lock changes (seed 001, Background).
        ndmbk: Ndmbk::PerCpu,
        sched_excl: SchedExcl::UpdatesOnly,
        sched_waits: SchedWaits::DvOnly,
        // z/VM 6.3: CPU pools (VM65418); SMT-2 on z13 IFLs with its z13 support (VM65586),
        // kept at the compatibility level, which the seeds run SMT-2 on as well.
        multithreading: Multithreading::Supported,
        cpu_pools: CpuPools::Supported,
        ..zvm62.clone()
    };
    // 6.3 with the TLS 1.2 service (PI40702, VM65717, VM65718): the new default cipher.
    let zvm63_tls12 = Switches {
        ssl_cipher: SslCipher::RsaAes128Sha256,
        ..zvm63.clone()
    };
    let zvm64 = Switches {
        sched: Sched::EntitlementExcess,
        dv: DvSelect::LookAside,
        frame_zones: FrameZones::Zoned,
        frame_returns: FrameReturns::Queued,
        paging_payload: PagingPayload::Large,
        // SET PAGING HPF (seed 000: the paging subsystem can now use zHPF).
        paging_hpf: PagingHpf::Supported,
        // SET PAGING ALIAS and SET CU ... SHARE (seed 000: paging can now use HyperPAV aliases).
        paging_alias: PagingAlias::Supported,
        ssl_cipher: SslCipher::RsaAes128Sha256,
        ssl_server: SslServer::V22,
        ..zvm63.clone()
    };
    let zvm64_pi72106 = Switches {
        ssl_apvirt: SslApvirt::On,
        ..zvm64.clone()
    };
    let zvm64_vm65989 = Switches {
        dump_ccw: DumpCcw::Vm65989,
        ..zvm64.clone()
    };
    let zvm64_vm65988 = Switches {
        sched_lock: SchedLock::ExclOnlyWrites,
        ..zvm64.clone()
    };
    // VM66063 (seed 000, after the 3Q17 stack): the unparking models; LARGE is the old heuristic,
    // so the level runs as 6.4 with VM65988 until a scenario says MEDIUM or SMALL.
    let zvm64_vm65988_vm66063 = Switches {
        unparking: UnparkingModels::Vm66063,
        ..zvm64_vm65988.clone()
    };
    let zvm64_vm65929 = Switches {
        xiv_io: XivIo::Concurrent,
        ..zvm64.clone()
    };
    // The service stacks of seed 000's regression rows (F2): the 1Q17 SPE stack as seed 000's
    // contents list it (VM65929 concurrent XIV I/O, VM65989 dump channel programs, PI72106
    // CRYPTO APVIRT in the SSL server; VM65993 encrypted paging, a command, off unless a
    // scenario sets it) and 3Q17 (adds VM65988, the shared/exclusive lock manager).
    let zvm64_1q17 = Switches {
        xiv_io: XivIo::Concurrent,
        dump_ccw: DumpCcw::Vm65989,
        ssl_apvirt: SslApvirt::On,
        paging_encrypt: PagingEncrypt::Vm65993,
        ..zvm64.clone()
    };
    let zvm64_3q17 = Switches {
        sched_lock: SchedLock::ExclOnlyWrites,
        ..zvm64_1q17.clone()
    };
    vec![
        Level {
            name: "vmesa-2.3.0",
            title: "VM/ESA 2.3.0",
            switches: old,
        },
        Level {
            name: "vmesa-2.4.0",
            title: "VM/ESA 2.4.0 (LIMITHARD fix VM61527)",
            switches: l240,
        },
        Level {
            name: "zvm-5.2",
            title: "z/VM 5.2 (paging to EDEV through FBA emulation)",
            switches: zvm52,
        },
        Level {
            name: "zvm-5.3",
            title: "z/VM 5.3 (EDEV paging bypasses FBA emulation; SCSI container tuning; write-same; specialty-engine dispatcher)",
            switches: zvm53,
        },
        Level {
            name: "zvm-6.1",
            title: "z/VM 6.1",
            switches: zvm61,
        },
        Level {
            name: "zvm-6.1-vm65032",
            title: "z/VM 6.1 with VM64795 and VM65032 (contiguous frames combined as pages are released)",
            switches: zvm61_vm65032,
        },
        Level {
            name: "zvm-6.2",
            title: "z/VM 6.2 (no elective use of below-2GB frames for pageable data)",
            switches: zvm62.clone(),
        },
        Level {
            name: "zvm-6.3-compat",
            title: "z/VM 6.3 with only the z13 compatibility SPE (VM65577): lock words share lines, VDISK I/O serialized, guest PTE locked per ISKE, per-CPU frame lists lagging",
            switches: Switches {
                lock_line: LockLine::Shared,
                vdisk_lock: VdiskLock::WholeIo,
                pte_lock: PteLock::IskeLocks,
                frame_replenish: FrameReplenish::Lagging,
                ndmbk: Ndmbk::SingleList,
                sched_excl: SchedExcl::Dispatch,
                sched_waits: SchedWaits::Exclusive,
                ..zvm63.clone()
            },
        },
        Level {
            name: "zvm-6.3",
            title: "z/VM 6.3 with the z13 exploitation SPE (VM65586) and VM65696",
            switches: zvm63,
        },
        Level {
            name: "zvm-6.3-tls12",
            title: "z/VM 6.3 with the TLS 1.2 service (PI40702, VM65717, VM65718): SSL server default cipher TLS 1.2 RSA_AES_128_SHA256",
            switches: zvm63_tls12,
        },
        Level {
            name: "zvm-6.4",
            title: "z/VM 6.4 GA (scheduler repair, VM65288)",
            switches: zvm64,
        },
        Level {
            name: "zvm-6.4-vm65988",
            title: "z/VM 6.4 with VM65988 (shared/exclusive lock manager: only exclusive acquirers write the lock's line)",
            switches: zvm64_vm65988,
        },
        Level {
            name: "zvm-6.4-vm65988-vm66063",
            title: "z/VM 6.4 with VM65988 (shared/exclusive lock manager) and VM66063 (SET SRM UNPARKING LARGE / MEDIUM / SMALL)",
            switches: zvm64_vm65988_vm66063,
        },
        Level {
            name: "zvm-6.4-vm65929",
            title: "z/VM 6.4 with VM65929 (CP overlaps I/Os to XIV EDEVs)",
            switches: zvm64_vm65929,
        },
        Level {
            name: "zvm-6.4-pi72106",
            title: "z/VM 6.4 with PI72106 (CRYPTO APVIRT support in the TLS/SSL server)",
            switches: zvm64_pi72106,
        },
        Level {
            name: "zvm-6.4-vm65989",
            title: "z/VM 6.4 with VM65989 (dump channel programs write a track per I/O)",
            switches: zvm64_vm65989,
        },
        Level {
            name: "zvm-6.4-1q17",
            title: "z/VM 6.4 with the 1Q17 SPE stack (VM65929 concurrent XIV I/O, VM65989 dump channel programs, PI72106 CRYPTO APVIRT, VM65993 encrypted paging)",
            switches: zvm64_1q17,
        },
        Level {
            name: "zvm-6.4-3q17",
            title: "z/VM 6.4 with the 3Q17 SPE stack (1Q17 plus VM65988, the shared/exclusive spin lock manager)",
            switches: zvm64_3q17,
        },
    ]
}

pub fn find(name: &str) -> Option<Level> {
    levels()
        .into_iter()
        .find(|l| l.name.eq_ignore_ascii_case(name))
}

pub fn names() -> Vec<&'static str> {
    levels().iter().map(|l| l.name).collect()
}

impl Switches {
    /// The switches as name -> value strings (the names and values `zvmlab levels` shows).
    pub fn to_map(&self) -> BTreeMap<String, String> {
        let v = serde_json::to_value(self).unwrap_or_default();
        v.as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// These switches with some set by name (a scenario's `switches`, or bisect's hybrids).
    pub fn with_overrides(&self, o: &BTreeMap<String, String>) -> Result<Switches, String> {
        let mut m = self.to_map();
        for (k, v) in o {
            if !m.contains_key(k) {
                return Err(format!(
                    "unknown mechanism switch '{k}'; known: {}",
                    m.keys().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
            m.insert(k.clone(), v.clone());
        }
        let val = serde_json::to_value(&m).map_err(|e| e.to_string())?;
        serde_json::from_value(val).map_err(|e| {
            let k: Vec<_> = o.keys().cloned().collect();
            format!("bad value for switch {}: {e}", k.join("/"))
        })
    }
}

/// A scenario that uses what its level does not have is refused (a level is a set of
/// mechanisms; a CPU pool or SMT before z/VM 6.3 is not a run of that level).
fn check_features(cfg: &crate::config::Config, sw: &Switches) -> Result<(), String> {
    use crate::config::Action;
    let smt = cfg.smt != crate::cpu::SmtMode::Off
        || cfg
            .actions
            .iter()
            .any(|a| matches!(a, Action::SetMultithreading { .. }));
    if smt && sw.multithreading == Multithreading::Unsupported {
        return Err(format!(
            "system.smt: level {} has no multithreading (SET MULTITHREAD came with z/VM 6.3 on the z13; switch multithreading = \"unsupported\")",
            cfg.level
        ));
    }
    let pools = !cfg.cpupools.is_empty()
        || cfg
            .actions
            .iter()
            .any(|a| matches!(a, Action::DefineCpupool { .. }));
    if pools && sw.cpu_pools == CpuPools::Unsupported {
        return Err(format!(
            "cpupool: level {} has no CPU pools (DEFINE CPUPOOL came with z/VM 6.3, VM65418; switch cpu_pools = \"unsupported\")",
            cfg.level
        ));
    }
    Ok(())
}

/// The scenario's CP level (with its switch overrides) and the parameter table (with the
/// machine's clock and the scenario's overrides, then what the level changes: before the
/// specialty-engine support the dispatch path lacks its part).
pub fn level_and_params(
    cfg: &crate::config::Config,
) -> Result<(Level, crate::params::Params), String> {
    let mut level = find(&cfg.level).ok_or_else(|| {
        format!(
            "unknown level '{}'; known: {}",
            cfg.level,
            names().join(", ")
        )
    })?;
    level.switches = level.switches.with_overrides(&cfg.switches)?;
    check_features(cfg, &level.switches)?;
    let mut params = crate::params::Params::default();
    // The machine's clock, unless the scenario sets cpu.clock_ghz itself (below).
    let name = cfg.machine.as_deref().unwrap_or(crate::machine::DEFAULT);
    if let Some(m) = crate::machine::Machine::from_params(name, &params) {
        params.clock_ghz = m.ghz;
    }
    for (k, v) in &cfg.params {
        params.set(k, *v)?;
    }
    if level.switches.dispatch_path == DispatchPath::PreSpecialty {
        params.path_dispatch = (params.path_dispatch() - params.path_dispatch_specialty()).max(0.0);
    }
    Ok((level, params))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_round_trip_and_reject_unknown() {
        let l = find("zvm-6.3").unwrap();
        let mut o = BTreeMap::new();
        o.insert("sched".to_string(), "entitlement-excess".to_string());
        let s = l.switches.with_overrides(&o).unwrap();
        assert_eq!(s.sched, Sched::EntitlementExcess);
        assert_eq!(s.limithard, l.switches.limithard);
        assert_eq!(
            l.switches.with_overrides(&BTreeMap::new()).unwrap(),
            l.switches
        );
        o.insert("sched".to_string(), "fastest".to_string());
        assert!(l.switches.with_overrides(&o).is_err());
        let mut o = BTreeMap::new();
        o.insert("schedd".to_string(), "deadline-ns".to_string());
        assert!(l
            .switches
            .with_overrides(&o)
            .unwrap_err()
            .contains("unknown mechanism switch"));
    }
}
