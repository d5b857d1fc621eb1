//! Guest DASD I/O: minidisks on ECKD and emulated FBA (EDEV) volumes, and dedicated SCSI LUNs.
//!
//! A guest virtual CPU issues a synchronous I/O: CP's path runs first as chargeable CP time on
//! the guest's processor (start subchannel with CCW translation, or Diagnose X'250' block I/O
//! without it; for an EDEV the FBA emulation and the SCSI container; per 4 KB block the data
//! buffer's translation and pinning), then the virtual CPU waits for the device, then it
//! continues with its next piece of guest CPU. A Linux guest on a dedicated FCP subchannel
//! ("scsi") drives its LUN through QDIO; CP only handles the adapter interruption.
//!
//! Mechanism switches: the SCSI container's path (`scsi_container`: 5.2 untuned, 5.3 tuned) and
//! SCSI write-same (`write_same`): CMS FORMAT on an EDEV passes one 512-byte block and a count
//! instead of the data, so no per-block buffer work in CP and the subsystem writes at its
//! write-same rate (seed 004, rows E1-E3).
//!
//! A VDISK ("vdisk") is an FBA device in a CP-owned address space: CP translates the channel
//! program and moves the data itself, so an I/O is CP time on the guest's processor, no device.
//! Each guest has its own VDISK (the volume name only labels it); the `vdisk_lock` switch says
//! what is serialized: the whole request system-wide, or the move per VDISK.
//!
//! Devices are `io::Device` queues (one I/O at a time per volume); guests naming the same volume
//! share it. Minidisk workloads here re-read small files or write sequentially: reads are cache
//! hits (no disconnect time) and writes go at the subsystem's sustained write rate.

use crate::config::{DasdMethod, DasdType, Dist, Guest, Workload};
use crate::io::{DevType, Device, IoReq, Service};
use crate::level::{ScsiContainer, Switches, WriteSame};
use crate::params::Params;
use crate::queue::Time;
use crate::rng::Rng;
use crate::units::{path_ns, NONE};
use serde::Serialize;
use std::collections::BTreeMap;

/// A guest's I/O program.
#[derive(Clone, Debug)]
pub struct IoProgram {
    vol: u32,
    /// Guest CPU per piece (a transaction's CPU over its I/Os + 1 pieces).
    cpu: f64,
    ios: u32,
    blocks: u32,
    think: f64,
    /// A paced program: the time between transaction starts of one virtual CPU (ns; 0: none).
    pace: f64,
    write: bool,
    format: bool,
    /// A VDISK: CP moves the data from its address space; no device, no wait.
    vdisk: bool,
    /// I/Os a virtual CPU keeps in flight (1: it waits for each; more: a Linux guest's block
    /// layer queues them and the virtual CPU runs on until that many are outstanding).
    window: u32,
    dist: Dist,
    /// CP time of one I/O (ns) and its device transfer time (ns).
    cost: Time,
    /// VDISK: the data-move part of `cost` (ns); for a VDISK `vol` numbers the VDISK.
    move_ns: Time,
    xfer: f64,
    /// MDC: on for this device, units of data referenced, CP time of a hit and of an insert.
    mdc: bool,
    units: u64,
    hit_cost: Time,
    insert_cost: Time,
}

/// Per-user DASD figures (rows E1-E3).
#[derive(Clone, Debug, Serialize)]
pub struct DasdUser {
    pub ios: u64,
    pub kb: u64,
    pub transactions: u64,
    pub tx_per_s: f64,
    pub cp_ms: f64,
    pub virtual_ms: f64,
    pub cp_us_per_io: f64,
    pub cp_us_per_kb: f64,
    pub cp_us_per_tx: f64,
    pub virtual_us_per_tx: f64,
    pub kb_per_s: f64,
    /// A FORMAT's elapsed time (None until it finished).
    pub finished_s: Option<f64>,
    /// A paced driver: the I/O rate it tries (per s), how far its most-behind virtual CPU is
    /// behind its schedule at the end (s), and whether that is more than two transactions and
    /// 1 % of the run: the I/O cannot keep up with the rate (saturation).
    pub offered_io_per_s: Option<f64>,
    pub behind_s: f64,
    pub saturated: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct DasdSummary {
    pub users: BTreeMap<String, DasdUser>,
    /// Guest I/Os per second, all users (row D12's minidisk farm).
    pub ios_per_s: f64,
    /// The minidisk cache (FCX178 MDCSTOR), when there is one.
    pub mdc: Option<crate::mdc::MdcSummary>,
}

pub struct Dasd {
    devs: Vec<Device>,
    /// Per user: its program (None: no DASD workload).
    prog: Vec<Option<IoProgram>>,
    /// Per virtual CPU: I/Os left in the current transaction; volume of the I/O it is starting.
    io_left: Vec<u32>,
    pending: Vec<u32>,
    /// Per virtual CPU: I/Os in flight (asynchronous programs), and whether it waits for one.
    inflight: Vec<u32>,
    blocked: Vec<bool>,
    /// Per virtual CPU of a paced program: when its next transaction is due (ns).
    due: Vec<f64>,
    /// Per user: I/Os and blocks done, when a FORMAT finished.
    ios: Vec<u64>,
    blocks: Vec<u64>,
    finished: Vec<Option<Time>>,
    mdc: Option<crate::mdc::Mdc>,
    /// MDC arbiter: period (ns), bias, step, time of its last pass.
    mdc_arbiter: (Time, f64, f64, Time),
}

fn io_cost(p: &Params, sw: &Switches, dtype: DevType, ssch: bool, blocks: u32, same: bool) -> Time {
    let translate = if ssch { p.mdisk_path_ccw() } else { 0.0 };
    let per_block = if same {
        0.0
    } else {
        p.mdisk_path_block() * blocks as f64
    };
    let path = match dtype {
        DevType::Eckd => translate + p.mdisk_path_eckd() + per_block,
        DevType::Edev => {
            let container = match sw.scsi_container {
                ScsiContainer::Untuned => p.mdisk_path_container_52(),
                ScsiContainer::Tuned => p.mdisk_path_container_53(),
            };
            translate + p.mdisk_path_fba_emul() + container + per_block
        }
        DevType::Scsi => p.mdisk_path_native_scsi(),
    };
    path_ns(p, path, 0.0)
}

/// SNAPDUMP of `size_mb` (issue 6, row E4): CP writes the dump with channel programs of the
/// level's size (`dump_ccw`: few pages each before VM65989, a track after it); each costs CP's
/// path (`dump.path_io`) and, at the device, a fixed time per program (`dump.io_overhead_ms`)
/// plus the transfer of its pages (`dasd.eckd.connect_ms_per_page`). One program at a time.
fn dump_program(p: &Params, sw: &Switches, vol: u32, size_mb: u64) -> IoProgram {
    let blocks = match sw.dump_ccw {
        crate::level::DumpCcw::Old => p.dump_pages_old(),
        crate::level::DumpCcw::Vm65989 => p.dump_pages_new(),
    }
    .round()
    .max(1.0) as u32;
    let ios = (size_mb * 256).div_ceil(blocks as u64).min(u32::MAX as u64) as u32;
    IoProgram {
        vol,
        move_ns: 0,
        cpu: 0.0,
        ios,
        blocks,
        think: 0.0,
        pace: 0.0,
        write: true,
        format: true,
        vdisk: false,
        window: 1,
        dist: Dist::Fixed,
        cost: path_ns(p, p.dump_path_io(), 0.0),
        xfer: (p.dump_io_overhead() + blocks as f64 * p.eckd_connect()) * 1e6,
        mdc: false,
        units: 1,
        hit_cost: 0,
        insert_cost: 0,
    }
}

/// Where a guest's DASD I/O goes: its real volume (index into the volumes; 0 for a VDISK,
/// which is numbered per guest later), the device type CP drives, and whether it is a VDISK.
#[derive(Clone, Copy)]
struct Target {
    vol: u32,
    dtype: DevType,
    vdisk: bool,
}

/// The volume and DASD type a guest's workload names (a dump volume is ECKD, issue 6, row
/// E4), or None when the guest does no DASD I/O.
fn dasd_volume(w: &Workload) -> Option<(&str, DasdType)> {
    match w {
        Workload::DasdIo { volume, dtype, .. } | Workload::Format { volume, dtype, .. } => {
            Some((volume, *dtype))
        }
        Workload::Dump { volume, .. } => Some((volume, DasdType::Eckd)),
        _ => None,
    }
}

/// The device type CP drives for a guest's DASD type (a VDISK is FBA in a CP-owned address
/// space; it is modelled with ECKD's figures and no device).
fn dasd_type(dtype: DasdType) -> DevType {
    match dtype {
        DasdType::Eckd | DasdType::Vdisk => DevType::Eckd,
        DasdType::Edev => DevType::Edev,
        DasdType::Scsi => DevType::Scsi,
    }
}

/// The index of real volume `volume` of type `t`, added to `vols` the first time a guest names
/// it (guests naming the same volume share its device).
fn volume_index(
    vols: &mut Vec<(String, DevType)>,
    userid: &str,
    volume: &str,
    t: DevType,
) -> Result<u32, String> {
    let i = match vols.iter().position(|(n, _)| n == volume) {
        Some(i) if vols[i].1 != t => {
            return Err(format!(
                "guest {userid}: volume {volume} is named with two device types"
            ))
        }
        Some(i) => i,
        None => {
            vols.push((volume.to_string(), t));
            vols.len() - 1
        }
    };
    Ok(i as u32)
}

/// Where guest `g`'s I/O goes: a VDISK of its own (DEFINE VFB-512: no device; each guest of
/// the group has its own, numbered later for its serialization instance) or a real volume.
fn place(
    vols: &mut Vec<(String, DevType)>,
    g: &crate::config::Guest,
    volume: &str,
    dtype: DasdType,
) -> Result<Target, String> {
    let vdisk = dtype == DasdType::Vdisk;
    let t = dasd_type(dtype);
    let vol = if vdisk {
        0
    } else {
        volume_index(vols, &g.userid, volume, t)?
    };
    Ok(Target {
        vol,
        dtype: t,
        vdisk,
    })
}

/// The device's transfer time per 4 KB page (ns) of a read and of a write: ECKD connect time,
/// or an EDEV's (and a SCSI LUN's) FBA rates.
fn page_rates(p: &Params, t: DevType) -> (f64, f64) {
    let ms = 1e6;
    match t {
        DevType::Eckd => (p.eckd_connect() * ms, p.eckd_connect() * ms),
        _ => (p.mdisk_edev_read() * ms, p.mdisk_edev_write() * ms),
    }
}

/// The program of a guest's I/O driver (`dasd_io`): CP's path per I/O (SSCH with CCW
/// translation or Diagnose X'250'; a VDISK's translation and data move), the device's
/// transfer, the MDC's hit and insert paths, and a paced driver's period. (A VDISK's data move
/// is priced for every driver: the run reports the parameters it read.)
fn dasd_io_program(p: &Params, sw: &Switches, g: &Guest, at: Target, pp: (f64, f64)) -> IoProgram {
    let Workload::DasdIo {
        method,
        cpu_ns,
        ios,
        blocks,
        think_ns,
        write,
        dist,
        window,
        mdc,
        extent_blocks,
        rate,
        ..
    } = g.workload
    else {
        unreachable!("an I/O driver's program from another workload")
    };
    let ssch = method == DasdMethod::Ssch;
    let translate = ccw_translation(p, ssch);
    let block_ns = vdisk_move(p, blocks);
    IoProgram {
        vol: at.vol,
        move_ns: if at.vdisk { block_ns } else { 0 },
        cpu: cpu_ns as f64 / (ios as f64 + 1.0),
        ios,
        blocks,
        think: think_ns as f64,
        pace: pace_ns(ios, g.vcpus, rate),
        write,
        format: false,
        vdisk: at.vdisk,
        window: if at.vdisk { 1 } else { window.max(1) },
        dist,
        cost: dasd_io_cost(p, sw, at, ssch, blocks, block_ns),
        xfer: transfer_ns(at, blocks, write, pp),
        mdc: mdc && !at.vdisk && at.dtype != DevType::Scsi,
        units: (extent_blocks / blocks.max(1) as u64).max(1),
        hit_cost: path_ns(p, translate + p.mdc_path_hit() * blocks as f64, 0.0),
        insert_cost: path_ns(p, p.mdc_path_insert() * blocks as f64, 0.0),
    }
}

/// CP's CCW translation of an I/O started by SSCH (Diagnose X'250' has none).
fn ccw_translation(p: &Params, ssch: bool) -> f64 {
    if ssch {
        p.mdisk_path_ccw()
    } else {
        0.0
    }
}

/// CP's data move of `blocks` 4 KB blocks from a VDISK's address space.
fn vdisk_move(p: &Params, blocks: u32) -> Time {
    path_ns(p, p.vdisk_path_block() * blocks as f64, 0.0)
}

/// CP's time of one I/O of `blocks` blocks: on a VDISK the translation, the VDISK path and
/// the data move (`move_ns`); on a real device the minidisk path (`io_cost`).
fn dasd_io_cost(
    p: &Params,
    sw: &Switches,
    at: Target,
    ssch: bool,
    blocks: u32,
    move_ns: Time,
) -> Time {
    if at.vdisk {
        path_ns(p, ccw_translation(p, ssch) + p.vdisk_path_io(), 0.0) + move_ns
    } else {
        io_cost(p, sw, at.dtype, ssch, blocks, false)
    }
}

/// The device's transfer time of one I/O (ns): `blocks` pages at the read or write rate
/// (`page_rates`); none for a VDISK.
fn transfer_ns(at: Target, blocks: u32, write: bool, (read_pp, write_pp): (f64, f64)) -> f64 {
    if at.vdisk {
        0.0
    } else {
        blocks as f64 * if write { write_pp } else { read_pp }
    }
}

/// A paced driver's period: the time between transaction starts of one of its `vcpus`
/// virtual CPUs (ns) when the guest starts `rate` I/Os per second (0: not paced).
fn pace_ns(ios: u32, vcpus: u32, rate: f64) -> f64 {
    if rate > 0.0 {
        ios.max(1) as f64 * vcpus.max(1) as f64 / rate * 1e9
    } else {
        0.0
    }
}

/// CMS FORMAT of `size_mb` on a minidisk: one write of `blocks` 4 KB blocks per I/O; on an
/// EDEV with SCSI write-same, no per-block buffer work in CP and the write-same rate.
fn format_program(
    p: &Params,
    sw: &Switches,
    at: Target,
    size_mb: u64,
    blocks: u32,
    write_pp: f64,
) -> IoProgram {
    let ms = 1e6;
    let t = at.dtype;
    let total = size_mb * 256;
    let ios = total.div_ceil(blocks as u64).min(u32::MAX as u64) as u32;
    let same = t == DevType::Edev && sw.write_same == WriteSame::On;
    let pp = if same {
        p.mdisk_edev_write_same() * ms
    } else {
        write_pp
    };
    IoProgram {
        vol: at.vol,
        move_ns: 0,
        cpu: 0.0,
        ios,
        blocks,
        think: 0.0,
        pace: 0.0,
        write: true,
        format: true,
        vdisk: false,
        window: 1,
        dist: Dist::Fixed,
        cost: io_cost(p, sw, t, true, blocks, same),
        xfer: blocks as f64 * pp,
        mdc: false,
        units: 1,
        hit_cost: 0,
        insert_cost: 0,
    }
}

/// The I/O program of guest `g`'s DASD workload (an I/O driver, CMS FORMAT or SNAPDUMP).
fn guest_program(
    p: &Params,
    sw: &Switches,
    g: &crate::config::Guest,
    at: Target,
    rates: (f64, f64),
) -> Result<IoProgram, String> {
    Ok(match g.workload {
        Workload::DasdIo { .. } => dasd_io_program(p, sw, g, at, rates),
        Workload::Format { .. } if at.vdisk => {
            return Err(format!(
                "guest {}: a VDISK cannot be formatted here",
                g.userid
            ));
        }
        Workload::Format {
            size_mb, blocks, ..
        } => format_program(p, sw, at, size_mb, blocks, rates.1),
        Workload::Dump { size_mb, .. } => dump_program(p, sw, at.vol, size_mb),
        _ => unreachable!(),
    })
}

/// The real volumes as device queues (one I/O at a time each): an ECKD or EDEV pending time,
/// cache hits (no disconnect), and each its own random stream.
fn volume_devices(vols: &[(String, DevType)], p: &Params, seed: u64) -> Vec<Device> {
    let ms = 1e6;
    vols.iter()
        .enumerate()
        .map(|(i, (name, t))| {
            let pend = match t {
                DevType::Eckd => p.eckd_pend(),
                _ => p.edev_pend(),
            } * ms;
            Device::new(
                name.clone(),
                *t,
                1,
                Service {
                    pend,
                    disconnect: 0.0,
                    connect_per_page: 0.0,
                },
                0,
                Rng::stream(seed, 950_000 + i as u64),
            )
        })
        .collect()
}

/// The MDC arbiter's settings: its period (ns, at least 1), bias, step, and the time of its
/// last pass (none yet).
fn mdc_arbiter_settings(p: &Params) -> (Time, f64, f64, Time) {
    (
        ((p.mdc_arbiter_interval() * 1e9) as Time).max(1),
        p.mdc_bias().max(0.0),
        p.mdc_arbiter_step().clamp(0.0, 1.0),
        0,
    )
}

impl Dasd {
    /// The DASD model of a scenario, or None when no guest does DASD I/O.
    pub fn new(
        guests: &[crate::config::Guest],
        p: &Params,
        sw: &Switches,
        seed: u64,
        mdc: Option<&crate::config::MdcCfg>,
    ) -> Result<Option<Dasd>, String> {
        let mut vols: Vec<(String, DevType)> = Vec::new();
        let mut vdisks = 0u32;
        let mut prog = Vec::new();
        for g in guests {
            let Some((volume, dtype)) = dasd_volume(&g.workload) else {
                prog.extend((0..g.count).map(|_| None));
                continue;
            };
            let at = place(&mut vols, g, volume, dtype)?;
            let ip = guest_program(p, sw, g, at, page_rates(p, at.dtype))?;
            for _ in 0..g.count {
                let vol = if at.vdisk { vdisks } else { ip.vol };
                vdisks += at.vdisk as u32;
                prog.push(Some(IoProgram { vol, ..ip.clone() }));
            }
        }
        if prog.iter().all(|p| p.is_none()) {
            return Ok(None);
        }
        let devs = volume_devices(&vols, p, seed);
        let n = prog.len();
        Ok(Some(Dasd {
            devs,
            prog,
            io_left: Vec::new(),
            pending: Vec::new(),
            inflight: Vec::new(),
            blocked: Vec::new(),
            due: Vec::new(),
            ios: vec![0; n],
            blocks: vec![0; n],
            finished: vec![None; n],
            mdc: mdc.map(|m| crate::mdc::Mdc::new(m.frames, Rng::stream(seed, 960_000))),
            mdc_arbiter: mdc_arbiter_settings(p),
        }))
    }
}

/// What a virtual CPU runs after an I/O's CP path: its next piece of guest CPU, drawn with
/// mean `cpu` (ns) by `dist`.
#[derive(Clone, Copy, Debug)]
pub struct Piece {
    pub cpu: f64,
    pub dist: Dist,
}

impl Piece {
    /// The piece's guest CPU drawn from `rng`.
    #[inline]
    pub fn draw(self, rng: &mut Rng) -> Time {
        draw(rng, self.cpu, self.dist)
    }
}

/// How a virtual CPU's next I/O goes (`Dasd::io_path`).
#[derive(Clone, Copy, Debug)]
pub enum IoPath {
    /// A VDISK move: CP time only (`Dasd::vdisk_io`).
    Vdisk,
    /// Queued on its volume while the virtual CPU goes on (`Dasd::queue_io`).
    Queued,
    /// Synchronous: CP's path (this CP time), then the virtual CPU waits for its volume.
    Sync(Time),
}

/// The minidisk cache's answer to an I/O (`Dasd::mdc_lookup`).
#[derive(Clone, Copy, Debug)]
pub enum MdcLookup {
    /// The I/O goes to the device; CP time of the insert it costs (0: none, or no cache).
    Device(Time),
    /// A read hit: a move from the cache (this CP time), no device I/O, no wait.
    Hit(Time, Piece),
}

/// An asynchronous I/O queued (`Dasd::queue_io`): its volume and completion if it started at
/// once, CP's time, whether the virtual CPU's window is now full (it waits for a completion),
/// and its next piece of guest CPU otherwise.
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub vol: u32,
    pub done: Option<Time>,
    pub cost: Time,
    pub full: bool,
    pub next: Piece,
}

/// A transaction's end (`Dasd::end_transaction`): a FORMAT (done for good), a paced driver,
/// the think time before the next one (ns), and the next transaction's guest CPU.
#[derive(Clone, Copy, Debug)]
pub struct TxEnd {
    pub format: bool,
    pub paced: bool,
    pub think: f64,
    pub next: Piece,
}

/// A virtual CPU whose I/O's CP path is done (`Dasd::start_wait`).
#[derive(Clone, Copy, Debug)]
pub enum IoWait {
    /// No minidisk I/O starting (a page fault's wait instead).
    None,
    /// An asynchronous virtual CPU with a full window: it waits for a completion.
    WindowFull,
    /// Its I/O started on volume `vol`, completing then if it started at once.
    Started(u32, Option<Time>),
}

/// Per user with a minidisk I/O driver (not a VDISK, not a FORMAT), for the monitor: its
/// volume, I/Os and blocks done, and whether it writes, uses MDC, is paced.
#[derive(Clone, Copy, Debug, Default)]
pub struct UserIo {
    pub vol: u32,
    pub ios: u64,
    pub blocks: u64,
    pub write: bool,
    pub mdc: bool,
    pub paced: bool,
}

impl IoProgram {
    fn next(&self) -> Piece {
        Piece {
            cpu: self.cpu,
            dist: self.dist,
        }
    }

    /// The device request of one I/O of virtual CPU `v` queued at `now`.
    fn request(&self, v: u32, now: Time) -> IoReq {
        IoReq {
            pages: self.blocks,
            read: !self.write,
            waiter: v,
            queued: now,
            tag: NONE,
        }
    }
}

/// A virtual CPU's I/O: started, completed, and its transaction's end.
impl Dasd {
    /// Size the per-virtual-CPU state for virtual CPUs whose users are `users`.
    pub fn size_for(&mut self, users: &[usize]) {
        let n = users.len();
        self.pending = vec![NONE; n];
        self.inflight = vec![0; n];
        self.blocked = vec![false; n];
        self.due = vec![0.0; n];
        self.io_left = users
            .iter()
            .map(|&u| self.prog[u].as_ref().map_or(0, |p| p.ios))
            .collect();
    }

    /// User `u` has a DASD workload.
    pub fn has_program(&self, u: usize) -> bool {
        self.prog[u].is_some()
    }

    /// Virtual CPU `v`'s transaction has an I/O left: it is taken (false: the transaction is
    /// complete).
    pub fn take_io(&mut self, v: u32) -> bool {
        let left = &mut self.io_left[v as usize];
        if *left == 0 {
            return false;
        }
        *left -= 1;
        true
    }

    /// The minidisk cache's look-up for an I/O of user `u` (`rng`: its virtual CPU's, which
    /// draws the unit; `st`: real storage, which a read's insert may take frames of).
    pub fn mdc_lookup(
        &mut self,
        u: usize,
        rng: &mut Rng,
        st: Option<&mut crate::storage::RealStorage>,
    ) -> MdcLookup {
        let p = self.prog[u].as_ref().unwrap();
        let Some(m) = self.mdc.as_mut().filter(|_| p.mdc) else {
            return MdcLookup::Device(0);
        };
        let unit = rng.below(p.units);
        let key = ((p.vol as u64) << 40) | unit;
        if p.write {
            return MdcLookup::Device(if m.write(key) { p.insert_cost } else { 0 });
        }
        match m.read(key, p.blocks, st) {
            crate::mdc::Read::Hit => {}
            crate::mdc::Read::Inserted => return MdcLookup::Device(p.insert_cost),
            // Too large for the cache's target (the arbiter may have shrunk it to 0): the
            // device I/O brings nothing into the cache, so there is no insert to pay.
            crate::mdc::Read::Uncached => return MdcLookup::Device(0),
        }
        self.ios[u] += 1;
        self.blocks[u] += p.blocks as u64;
        MdcLookup::Hit(p.hit_cost, p.next())
    }

    /// How virtual CPU `v` of user `u` does its next I/O (a synchronous one is now pending
    /// on its volume).
    pub fn io_path(&mut self, v: u32, u: usize) -> IoPath {
        let p = self.prog[u].as_ref().unwrap();
        if p.vdisk {
            IoPath::Vdisk
        } else if p.window > 1 {
            IoPath::Queued
        } else {
            self.pending[v as usize] = p.vol;
            IoPath::Sync(p.cost)
        }
    }

    /// User `u`'s VDISK I/O, counted: CP's time, the data move part of it, the VDISK, and the
    /// next piece of guest CPU.
    pub fn vdisk_io(&mut self, u: usize) -> (Time, Time, u32, Piece) {
        let p = self.prog[u].as_ref().unwrap();
        self.ios[u] += 1;
        self.blocks[u] += p.blocks as u64;
        (p.cost, p.move_ns, p.vol, p.next())
    }

    /// Virtual CPU `v` of user `u` queues an asynchronous I/O on its volume at `now`.
    pub fn queue_io(&mut self, v: u32, u: usize, now: Time) -> Queued {
        let p = self.prog[u].as_ref().unwrap();
        let r = p.request(v, now);
        self.ios[u] += 1;
        self.blocks[u] += r.pages as u64;
        self.inflight[v as usize] += 1;
        let full = self.inflight[v as usize] >= p.window;
        let done = self.devs[p.vol as usize].submit_xfer(now, r, p.xfer);
        if full {
            self.blocked[v as usize] = true;
        }
        Queued {
            vol: p.vol,
            done,
            cost: p.cost,
            full,
            next: p.next(),
        }
    }

    /// Virtual CPU `v` of user `u` completed its transaction at `now`: the next one's I/Os,
    /// a FORMAT's end, a paced driver's next due time.
    pub fn end_transaction(&mut self, v: u32, u: usize, now: Time) -> TxEnd {
        let p = self.prog[u].as_ref().unwrap();
        let mut think = p.think;
        let paced = p.pace > 0.0;
        self.io_left[v as usize] = p.ios;
        if p.format {
            self.finished[u] = Some(now);
        }
        if paced {
            // The driver's schedule: the next transaction is due one period after this one
            // was; late, it starts at once (and stays behind).
            self.due[v as usize] += p.pace;
            think = (self.due[v as usize] - now as f64).max(0.0);
        }
        TxEnd {
            format: p.format,
            paced,
            think,
            next: p.next(),
        }
    }

    /// Virtual CPU `v` of user `u` has run its I/O's CP path at `now`: its pending synchronous
    /// I/O starts on its volume.
    pub fn start_wait(&mut self, v: u32, u: usize, now: Time) -> IoWait {
        let vol = self.pending[v as usize];
        if vol == NONE {
            return if self.blocked[v as usize] {
                IoWait::WindowFull
            } else {
                IoWait::None
            };
        }
        let p = self.prog[u].as_ref().expect("dasd program");
        let r = p.request(v, now);
        self.ios[u] += 1;
        self.blocks[u] += p.blocks as u64;
        IoWait::Started(vol, self.devs[vol as usize].submit_xfer(now, r, p.xfer))
    }

    /// Virtual CPU `v` of user `u`: one of its I/Os completed. None: it goes on as it was (an
    /// asynchronous one not waiting for room in its window). Else its next piece of guest CPU,
    /// and whether the I/O was asynchronous (its CP-only run may still be on a processor).
    pub fn io_done(&mut self, v: u32, u: usize) -> Option<(Piece, bool)> {
        let p = self.prog[u].as_ref().expect("dasd program");
        let queued = p.window > 1;
        if queued {
            self.inflight[v as usize] -= 1;
            // Only a virtual CPU waiting for room in its window is woken.
            if !std::mem::take(&mut self.blocked[v as usize]) {
                return None;
            }
        }
        // (An asynchronous program never has a synchronous I/O pending: a no-op for it.)
        self.pending[v as usize] = NONE;
        Some((p.next(), queued))
    }
}

/// What others see of minidisk I/O: the volumes (for the I/O subsystems), the minidisk cache
/// against real storage, and the monitor's figures.
impl Dasd {
    /// The minidisk volumes, in order (`Entity::Minidisk` numbers them).
    pub fn devices(&self) -> &[Device] {
        &self.devs
    }

    pub fn devices_mut(&mut self) -> &mut [Device] {
        &mut self.devs
    }

    pub fn device_mut(&mut self, vol: u32) -> &mut Device {
        &mut self.devs[vol as usize]
    }

    /// The MDC arbiter's pass at `now` when its period is up: sizes the cache against paging
    /// in real storage `st` (mdc.rs). Nothing to do without a cache.
    pub fn arbitrate_mdc(&mut self, now: Time, st: &mut crate::storage::RealStorage) {
        let (period, bias, step, last) = self.mdc_arbiter;
        let Some(m) = self.mdc.as_mut() else {
            return;
        };
        if now < last + period {
            return;
        }
        self.mdc_arbiter.3 = now;
        m.arbitrate((now - last) as f64 / 1e9, st.faults, st, bias, step);
    }

    /// The minidisk cache record (FCX178 MDCSTOR): max, target, frames below and above 2 GB,
    /// reads, hits, inserts, steals; None without a cache.
    pub fn mdc_counters(&self) -> Option<[u64; 8]> {
        self.mdc.as_ref().map(|c| {
            [
                c.max_frames,
                c.cap_frames,
                c.used_below,
                c.used_frames - c.used_below.min(c.used_frames),
                c.reads,
                c.hits,
                c.inserts,
                c.steals,
            ]
        })
    }

    /// Per user with a minidisk I/O driver (not a VDISK, not a FORMAT): its figures.
    pub fn user_io(&self) -> Vec<Option<UserIo>> {
        self.prog
            .iter()
            .enumerate()
            .map(|(u, p)| {
                p.as_ref()
                    .filter(|p| !p.vdisk && !p.format)
                    .map(|p| UserIo {
                        vol: p.vol,
                        ios: self.ios[u],
                        blocks: self.blocks[u],
                        write: p.write,
                        mdc: p.mdc,
                        paced: p.pace > 0.0,
                    })
            })
            .collect()
    }
}

#[inline]
pub(crate) fn draw(rng: &mut Rng, mean: f64, dist: Dist) -> Time {
    let x = match dist {
        Dist::Exp => rng.exp(mean),
        Dist::Fixed => mean,
    };
    ((x + 0.5) as Time).max(1)
}

impl Dasd {
    /// CP's below-2GB search took frames of the minidisk cache from real storage `st`: the
    /// cache drops their units.
    pub fn surrender_below(&mut self, st: &mut crate::storage::RealStorage) {
        if st.mdc_surrendered > 0 {
            if let Some(m) = self.mdc.as_mut() {
                m.surrender_below(st);
            }
        }
    }

    /// The run summary's `dasd` at `now`: each guest's I/O and CPU (`users`, `vcpus`: the
    /// run's), and the minidisk cache.
    pub fn summary(
        &self,
        now: Time,
        guests: &[crate::guest::User],
        vcpus: &[crate::guest::Vcpu],
    ) -> DasdSummary {
        let d = self;
        let secs = now.max(1) as f64 / 1e9;
        let mut users = BTreeMap::new();
        for (u, p) in d.prog.iter().enumerate() {
            if p.is_none() {
                continue;
            }
            let a = &guests[u].acct;
            let kb = d.blocks[u] * 4;
            let cp_us = a.cp_ns as f64 / 1e3;
            let tx = a.tx_done.max(1) as f64;
            let p = p.as_ref().unwrap();
            let (offered, behind) = if p.pace > 0.0 {
                let behind = (0..vcpus.len())
                    .filter(|&v| vcpus[v].user as usize == u)
                    .map(|v| (now as f64 - d.due[v]).max(0.0))
                    .fold(0.0, f64::max);
                let vcpus = guests[u].vcpus.len().max(1) as f64;
                (Some(p.ios as f64 * 1e9 * vcpus / p.pace), behind / 1e9)
            } else {
                (None, 0.0)
            };
            let saturated = p.pace > 0.0 && behind * 1e9 > 2.0 * p.pace && behind > 0.01 * secs;
            users.insert(
                guests[u].userid.clone(),
                DasdUser {
                    ios: d.ios[u],
                    kb,
                    transactions: a.tx_done,
                    tx_per_s: a.tx_done as f64 / secs,
                    cp_ms: cp_us / 1e3,
                    virtual_ms: a.virt_ns as f64 / 1e6,
                    cp_us_per_io: cp_us / d.ios[u].max(1) as f64,
                    cp_us_per_kb: cp_us / kb.max(1) as f64,
                    cp_us_per_tx: cp_us / tx,
                    virtual_us_per_tx: a.virt_ns as f64 / 1e3 / tx,
                    kb_per_s: kb as f64 / secs,
                    finished_s: d.finished[u].map(|t| t as f64 / 1e9),
                    offered_io_per_s: offered,
                    behind_s: behind,
                    saturated,
                },
            );
        }
        let all: u64 = d.ios.iter().sum();
        DasdSummary {
            users,
            ios_per_s: all as f64 / secs,
            mdc: d.mdc.as_ref().map(|m| m.summary(secs)),
        }
    }
}
