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

#[cfg(test)]
mod tests {
    //! Unit tests of the DASD model against hand-computed values. `params()` makes one CP
    //! instruction one ns (`cpu.cpi_cp` 1, `cpu.clock_ghz` 1), so a path length in instructions
    //! is its CP time in ns; the device figures are the defaults (ECKD pend 0.15 ms, connect
    //! 0.06 ms per page; EDEV pend 0.05 ms, read 0.034 and write 0.178 ms per block).

    use super::*;
    use crate::config::{DasdMethod, DasdType, Dist, Guest, MdcCfg, Share, Workload};
    use crate::level::{DumpCcw, ScsiContainer, Switches, WriteSame};
    use crate::rng::Rng;
    use crate::storage::RealStorage;
    use proptest::prelude::*;

    fn params() -> Params {
        Params {
            cpi_cp: 1.0,
            clock_ghz: 1.0,
            ..Params::default()
        }
    }

    /// The first level's switches: SCSI container untuned, write-same off, old dump CCWs.
    fn sw() -> Switches {
        crate::level::levels().remove(0).switches
    }

    /// A synchronous I/O driver reading through SSCH: 4000 ns of guest CPU over 3 I/Os of 2
    /// blocks, no think time, no MDC, not paced.
    fn dasd_io(volume: &str, dtype: DasdType) -> Workload {
        Workload::DasdIo {
            volume: volume.into(),
            dtype,
            method: DasdMethod::Ssch,
            cpu_ns: 4000,
            ios: 3,
            blocks: 2,
            think_ns: 0,
            write: false,
            window: 1,
            dist: Dist::Fixed,
            mdc: false,
            extent_blocks: 0,
            rate: 0.0,
        }
    }

    /// `w` (a `DasdIo`) changed by `f`.
    fn with(mut w: Workload, f: impl FnOnce(&mut Workload)) -> Workload {
        f(&mut w);
        w
    }

    fn guest(userid: &str, count: u32, vcpus: u32, workload: Workload) -> Guest {
        Guest {
            vcpus,
            count,
            ..Guest::new(userid, workload)
        }
    }

    /// The DASD model of `guests` with `params()`, `sw()` and an MDC of `mdc` frames.
    fn dasd(guests: &[Guest], mdc: Option<u64>) -> Dasd {
        dasd_sw(guests, &sw(), mdc)
    }

    fn dasd_sw(guests: &[Guest], s: &Switches, mdc: Option<u64>) -> Dasd {
        let m = mdc.map(|frames| MdcCfg { frames });
        let mut d = Dasd::new(guests, &params(), s, 7, m.as_ref())
            .unwrap()
            .expect("a DASD workload");
        // One virtual CPU per user, in user order.
        let users: Vec<usize> = (0..d.prog.len()).collect();
        d.size_for(&users);
        d
    }

    fn prog(d: &Dasd, u: usize) -> &IoProgram {
        d.prog[u].as_ref().unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    fn waiter(r: Option<IoReq>) -> u32 {
        r.expect("a completion").waiter
    }

    // ---- CP's path per I/O (io_cost) ----

    #[test]
    fn io_cost_sums_the_documented_paths() {
        let p = params();
        let mut s = sw();
        // ECKD, SSCH, 2 blocks: CCW translation 3000 + ECKD path 6000 + 2 x 390 = 9780.
        assert_eq!(io_cost(&p, &s, DevType::Eckd, true, 2, false), 9780);
        // Diagnose X'250': no translation: 6000 + 780 = 6780.
        assert_eq!(io_cost(&p, &s, DevType::Eckd, false, 2, false), 6780);
        // EDEV, untuned container: 3000 + FBA emulation 8313 + container 6000 + 780 = 18093.
        assert_eq!(io_cost(&p, &s, DevType::Edev, true, 2, false), 18093);
        // Write-same: no per-block buffer work: 3000 + 8313 + 6000 = 17313.
        assert_eq!(io_cost(&p, &s, DevType::Edev, true, 2, true), 17313);
        s.scsi_container = ScsiContainer::Tuned;
        // Tuned container (5.3): 3000 + 8313 + 2620 + 780 = 14713.
        assert_eq!(io_cost(&p, &s, DevType::Edev, true, 2, false), 14713);
        // Native SCSI: the adapter interruption only, 2000, whatever the blocks.
        assert_eq!(io_cost(&p, &s, DevType::Scsi, true, 8, false), 2000);
    }

    #[test]
    fn io_cost_converts_instructions_at_cpi_and_clock() {
        // Default CPU: 3 cycles per instruction at 5.2 GHz. ECKD SSCH 2 blocks is 9780
        // instructions: 9780 x 3 / 5.2 = 5642.31 -> 5642 ns.
        let p = Params::default();
        assert_eq!(io_cost(&p, &sw(), DevType::Eckd, true, 2, false), 5642);
    }

    // ---- the programs Dasd::new builds ----

    #[test]
    fn dasd_io_program_eckd_read() {
        let d = dasd(&[guest("A", 1, 1, dasd_io("V1", DasdType::Eckd))], None);
        let p = prog(&d, 0);
        assert_eq!(p.cost, 9780); // 3000 + 6000 + 2 x 390
        assert!(close(p.cpu, 1000.0)); // 4000 ns over 3 + 1 pieces
        assert!(close(p.xfer, 120_000.0)); // 2 pages x 0.06 ms
        assert_eq!((p.ios, p.blocks, p.window), (3, 2, 1));
        assert_eq!(p.move_ns, 0);
        assert!(!p.vdisk && !p.format && !p.write && !p.mdc);
        assert_eq!(p.pace, 0.0);
        assert_eq!(p.hit_cost, 6000); // 3000 translation + 2 x 1500 hit path
        assert_eq!(p.insert_cost, 2000); // 2 x 1000
                                         // The device: ECKD, one I/O at a time, pend 0.15 ms, no disconnect.
        let dev = &d.devices()[0];
        assert_eq!((dev.servers, dev.dtype), (1, DevType::Eckd));
        assert!(close(dev.svc.pend, 150_000.0));
        assert_eq!(dev.svc.disconnect, 0.0);
    }

    #[test]
    fn dasd_io_program_diag250_write_and_edev_rates() {
        let w = with(dasd_io("V1", DasdType::Eckd), |w| {
            if let Workload::DasdIo { method, write, .. } = w {
                *method = DasdMethod::Diag250;
                *write = true;
            }
        });
        let e = with(dasd_io("V2", DasdType::Edev), |w| {
            if let Workload::DasdIo { write, .. } = w {
                *write = true;
            }
        });
        let r = dasd_io("V3", DasdType::Edev);
        let d = dasd(
            &[
                guest("A", 1, 1, w),
                guest("B", 1, 1, e),
                guest("C", 1, 1, r),
            ],
            None,
        );
        // Diagnose X'250': 6000 + 780; hit path without translation: 2 x 1500.
        assert_eq!(prog(&d, 0).cost, 6780);
        assert_eq!(prog(&d, 0).hit_cost, 3000);
        // ECKD writes transfer at the connect rate too: 2 x 0.06 ms.
        assert!(close(prog(&d, 0).xfer, 120_000.0));
        // EDEV: 18093 (untuned); writes 2 x 0.178 ms, reads 2 x 0.034 ms; pend 0.05 ms.
        assert_eq!(prog(&d, 1).cost, 18093);
        assert!(close(prog(&d, 1).xfer, 356_000.0));
        assert!(close(prog(&d, 2).xfer, 68_000.0));
        assert!(close(d.devices()[1].svc.pend, 50_000.0));
    }

    #[test]
    fn paced_program_period() {
        // 4 I/Os per transaction, 2 virtual CPUs, 100 I/Os per s for the guest: each virtual
        // CPU starts a transaction every 4 x 2 / 100 s = 80 ms.
        assert!(close(pace_ns(4, 2, 100.0), 8e7));
        assert_eq!(pace_ns(4, 2, 0.0), 0.0);
        let w = with(dasd_io("V1", DasdType::Eckd), |w| {
            if let Workload::DasdIo { ios, rate, .. } = w {
                *ios = 4;
                *rate = 100.0;
            }
        });
        let d = dasd(&[guest("A", 1, 2, w)], None);
        assert!(close(prog(&d, 0).pace, 8e7));
    }

    #[test]
    fn format_program_counts_and_write_same() {
        let f = |volume: &str, dtype, blocks| Workload::Format {
            volume: volume.into(),
            dtype,
            size_mb: 1,
            blocks,
        };
        let g = [
            guest("A", 1, 1, f("V1", DasdType::Eckd, 8)),
            guest("B", 1, 1, f("V2", DasdType::Edev, 8)),
            guest("C", 1, 1, f("V3", DasdType::Eckd, 3)),
        ];
        let d = dasd(&g, None);
        // 1 MB = 256 pages: 32 writes of 8; 86 of 3 (85 x 3 = 255 < 256).
        assert_eq!(prog(&d, 0).ios, 32);
        assert_eq!(prog(&d, 2).ios, 86);
        assert!(prog(&d, 0).format && prog(&d, 0).write);
        // ECKD: 3000 + 6000 + 8 x 390 = 12120; 8 x 0.06 ms.
        assert_eq!(prog(&d, 0).cost, 12120);
        assert!(close(prog(&d, 0).xfer, 480_000.0));
        // EDEV without write-same: 3000 + 8313 + 6000 + 3120 = 20433; 8 x 0.178 ms.
        assert_eq!(prog(&d, 1).cost, 20433);
        assert!(close(prog(&d, 1).xfer, 1_424_000.0));
        let mut s = sw();
        s.write_same = WriteSame::On;
        let d = dasd_sw(&g, &s, None);
        // Write-same: 3000 + 8313 + 6000 (no per-block work) = 17313; 8 x 0.105 ms.
        assert_eq!(prog(&d, 1).cost, 17313);
        assert!(close(prog(&d, 1).xfer, 840_000.0));
        // Write-same is an EDEV mechanism: the ECKD FORMAT is unchanged.
        assert_eq!(prog(&d, 0).cost, 12120);
    }

    #[test]
    fn dump_program_by_ccw_level() {
        let g = [guest(
            "D",
            1,
            1,
            Workload::Dump {
                volume: "DMP".into(),
                size_mb: 1,
            },
        )];
        let d = dasd(&g, None);
        // Old: 1 page per program, 256 programs; 0.0664 + 1 x 0.06 ms = 126400 ns; path 8000.
        assert_eq!((prog(&d, 0).ios, prog(&d, 0).blocks), (256, 1));
        assert!(close(prog(&d, 0).xfer, 126_400.0));
        assert_eq!(prog(&d, 0).cost, 8000);
        assert_eq!(d.devices()[0].dtype, DevType::Eckd);
        let mut s = sw();
        s.dump_ccw = DumpCcw::Vm65989;
        let d = dasd_sw(&g, &s, None);
        // VM65989: 12 pages, ceil(256 / 12) = 22; 0.0664 + 12 x 0.06 = 0.7864 ms.
        assert_eq!((prog(&d, 0).ios, prog(&d, 0).blocks), (22, 12));
        assert!(close(prog(&d, 0).xfer, 786_400.0));
    }

    #[test]
    fn volumes_are_shared_by_name() {
        let g = [
            guest("A", 1, 1, dasd_io("V1", DasdType::Eckd)),
            guest("B", 1, 1, dasd_io("V2", DasdType::Eckd)),
            guest("C", 2, 1, dasd_io("V1", DasdType::Eckd)),
            guest(
                "X",
                1,
                1,
                Workload::CpuBound {
                    demand: None,
                    tx_cpu_ns: None,
                    dist: Dist::Fixed,
                },
            ),
        ];
        let d = dasd(&g, None);
        assert_eq!(d.devices().len(), 2);
        assert_eq!(d.devices()[0].name, "V1");
        let vols: Vec<u32> = (0..4).map(|u| prog(&d, u).vol).collect();
        assert_eq!(vols, [0, 1, 0, 0]);
        assert!(d.has_program(3) && !d.has_program(4));
        // One volume, two device types: refused.
        let bad = [
            guest("A", 1, 1, dasd_io("V1", DasdType::Eckd)),
            guest("B", 1, 1, dasd_io("V1", DasdType::Edev)),
        ];
        assert!(Dasd::new(&bad, &params(), &sw(), 1, None).is_err());
        // No DASD workload at all: no model.
        assert!(Dasd::new(&g[3..], &params(), &sw(), 1, None)
            .unwrap()
            .is_none());
    }

    #[test]
    fn vdisks_are_per_guest_and_cp_time_only() {
        let v = with(dasd_io("VD", DasdType::Vdisk), |w| {
            if let Workload::DasdIo { window, mdc, .. } = w {
                *window = 4;
                *mdc = true;
            }
        });
        let g = [
            guest("A", 3, 1, v.clone()),
            guest("B", 1, 1, dasd_io("V1", DasdType::Eckd)),
            guest("C", 1, 1, v),
        ];
        let mut d = dasd(&g, Some(100));
        // Each VDISK guest its own VDISK, numbered 0, 1, 2, 3; only V1 is a device.
        assert_eq!(
            (0..5).map(|u| prog(&d, u).vol).collect::<Vec<_>>(),
            [0, 1, 2, 0, 3]
        );
        assert_eq!(d.devices().len(), 1);
        let p = prog(&d, 0);
        // A VDISK waits for nothing (window 1), has no cache, no transfer.
        assert_eq!(p.window, 1);
        assert!(!p.mdc && p.vdisk);
        assert_eq!(p.xfer, 0.0);
        assert!(matches!(d.io_path(0, 0), IoPath::Vdisk));
        // Translation 3000 + VDISK path 6000 + move 2 x 1500 = 12000; the move 3000.
        let (cost, mv, vol, next) = d.vdisk_io(1);
        assert_eq!((cost, mv, vol), (12000, 3000, 1));
        assert!(close(next.cpu, 1000.0));
        assert_eq!((d.ios[1], d.blocks[1]), (1, 2));
        // Monitor: VDISK users are not minidisk I/O drivers.
        let ui = d.user_io();
        assert!(ui[0].is_none() && ui[3].is_some());
        // A VDISK cannot be formatted.
        let f = Workload::Format {
            volume: "VD".into(),
            dtype: DasdType::Vdisk,
            size_mb: 1,
            blocks: 8,
        };
        assert!(Dasd::new(&[guest("F", 1, 1, f)], &params(), &sw(), 1, None).is_err());
    }

    // ---- a virtual CPU's transaction ----

    #[test]
    fn take_io_counts_down_the_transaction() {
        let w = with(dasd_io("V1", DasdType::Eckd), |w| {
            if let Workload::DasdIo { think_ns, .. } = w {
                *think_ns = 7000;
            }
        });
        let mut d = dasd(&[guest("A", 1, 1, w)], None);
        // 3 I/Os, then the transaction is complete.
        assert!(d.take_io(0) && d.take_io(0) && d.take_io(0));
        assert!(!d.take_io(0));
        assert!(!d.take_io(0));
        let end = d.end_transaction(0, 0, 50_000);
        assert!(!end.format && !end.paced);
        assert_eq!(end.think, 7000.0);
        assert!(close(end.next.cpu, 1000.0));
        // The next transaction has its 3 I/Os again.
        assert!(d.take_io(0) && d.take_io(0) && d.take_io(0));
        assert!(!d.take_io(0));
        assert_eq!(d.finished[0], None);
    }

    #[test]
    fn sync_ios_are_served_one_at_a_time_in_order() {
        // Three users on one ECKD volume, synchronous reads of 2 pages: service 0.15 ms pend
        // + 2 x 0.06 ms = 270000 ns each.
        let g = [guest("A", 3, 1, dasd_io("V1", DasdType::Eckd))];
        let mut d = dasd(&g, None);
        for v in 0..3u32 {
            assert!(d.take_io(v));
            assert!(matches!(
                d.mdc_lookup(v as usize, &mut Rng::new(1), None),
                MdcLookup::Device(0)
            ));
            assert!(matches!(d.io_path(v, v as usize), IoPath::Sync(9780)));
        }
        // v0 at 1000 starts at once: done at 1000 + 270000.
        assert!(matches!(
            d.start_wait(0, 0, 1000),
            IoWait::Started(0, Some(271_000))
        ));
        // v1 at 5000 and v2 at 6000 queue behind it.
        assert!(matches!(d.start_wait(1, 1, 5000), IoWait::Started(0, None)));
        assert!(matches!(d.start_wait(2, 2, 6000), IoWait::Started(0, None)));
        assert_eq!(d.devices()[0].queued(), 2);
        assert_eq!(d.devices()[0].stats.max_queue, 2);
        let dev = d.device_mut(0);
        assert_eq!(dev.next_completion(), Some(271_000));
        assert_eq!(waiter(dev.complete(271_000)), 0);
        // v1 starts at 271000: done at 541000; v2 at 541000: done at 811000.
        assert_eq!(dev.next_completion(), Some(541_000));
        assert_eq!(waiter(dev.complete(541_000)), 1);
        assert_eq!(dev.next_completion(), Some(811_000));
        assert_eq!(waiter(dev.complete(811_000)), 2);
        assert_eq!(dev.next_completion(), None);
        let s = &d.devices()[0].stats;
        assert_eq!(
            (s.ios, s.pages, s.reads, s.writes, s.queued),
            (3, 6, 3, 0, 2)
        );
        // Queue: v1 waited 271000 - 5000, v2 541000 - 6000: 266000 + 535000 = 801000.
        assert_eq!(s.queue_ns, 801_000);
        // Busy 3 x 270000 = 810000 over the 810000 ns from 1000 to 811000: 100 %.
        assert_eq!(s.busy_ns, 810_000);
        assert!(close(s.pend_ns as f64, 450_000.0));
        let sum = d.devices()[0].summary(811_000.0);
        assert!(close(sum.util_pct, 100.0 * 810_000.0 / 811_000.0));
        // Response: (busy + queue) / ios = (810000 + 801000) / 3 ns = 0.537 ms.
        assert!(close(sum.response_ms, 1_611_000.0 / 3.0 / 1e6));
        // Each user counted its I/O and 2 blocks.
        assert_eq!(d.ios, [1, 1, 1]);
        assert_eq!(d.blocks, [2, 2, 2]);
        // Every waiter is woken: its next piece of guest CPU, synchronous.
        for v in 0..3u32 {
            let (next, queued) = d.io_done(v, v as usize).unwrap();
            assert!(!queued && close(next.cpu, 1000.0));
            assert_eq!(d.pending[v as usize], NONE);
        }
    }

    #[test]
    fn start_wait_without_pending_io() {
        let mut d = dasd(&[guest("A", 1, 1, dasd_io("V1", DasdType::Eckd))], None);
        // No synchronous I/O pending (a page fault's wait): nothing starts, nothing counted.
        assert!(matches!(d.start_wait(0, 0, 10), IoWait::None));
        assert_eq!(d.ios[0], 0);
        assert_eq!(d.devices()[0].stats.ios, 0);
        // After io_done the pending I/O is gone.
        assert!(matches!(d.io_path(0, 0), IoPath::Sync(_)));
        assert!(matches!(
            d.start_wait(0, 0, 10),
            IoWait::Started(0, Some(270_010))
        ));
        d.device_mut(0).complete(270_010);
        assert!(d.io_done(0, 0).is_some());
        assert!(matches!(d.start_wait(0, 0, 300_000), IoWait::None));
        assert_eq!(d.ios[0], 1);
    }

    #[test]
    fn async_window_blocks_when_full_and_wakes_once() {
        let w = with(dasd_io("V1", DasdType::Eckd), |w| {
            if let Workload::DasdIo { window, .. } = w {
                *window = 2;
            }
        });
        let mut d = dasd(&[guest("A", 1, 1, w)], None);
        assert!(matches!(d.io_path(0, 0), IoPath::Queued));
        // First I/O at 0: starts at once, done at 270000; one in flight of 2: not full.
        let q = d.queue_io(0, 0, 0);
        assert_eq!(
            (q.vol, q.done, q.cost, q.full),
            (0, Some(270_000), 9780, false)
        );
        assert!(close(q.next.cpu, 1000.0));
        // Second at 10: queued behind it; two in flight: full, the virtual CPU waits.
        let q = d.queue_io(0, 0, 10);
        assert_eq!((q.done, q.full), (None, true));
        assert!(d.blocked[0]);
        assert_eq!(d.inflight[0], 2);
        assert!(matches!(d.start_wait(0, 0, 20), IoWait::WindowFull));
        assert_eq!((d.ios[0], d.blocks[0]), (2, 4));
        // The first completion wakes it (asynchronous) ...
        assert_eq!(waiter(d.device_mut(0).complete(270_000)), 0);
        let (next, queued) = d.io_done(0, 0).unwrap();
        assert!(queued && close(next.cpu, 1000.0));
        assert_eq!((d.inflight[0], d.blocked[0]), (1, false));
        // ... the second (at 270000 + 270000) finds it running on: nothing to wake.
        assert_eq!(d.devices()[0].next_completion(), Some(540_000));
        assert_eq!(waiter(d.device_mut(0).complete(540_000)), 0);
        assert!(d.io_done(0, 0).is_none());
        assert_eq!(d.inflight[0], 0);
        // Queue time: the second waited 270000 - 10.
        assert_eq!(d.devices()[0].stats.queue_ns, 269_990);
    }

    #[test]
    fn async_window_of_three_fills_on_the_third() {
        let w = with(dasd_io("V1", DasdType::Eckd), |w| {
            if let Workload::DasdIo { window, .. } = w {
                *window = 3;
            }
        });
        let mut d = dasd(&[guest("A", 1, 1, w)], None);
        assert!(!d.queue_io(0, 0, 0).full);
        assert!(!d.queue_io(0, 0, 0).full);
        assert!(!d.blocked[0]);
        assert!(d.queue_io(0, 0, 0).full);
        assert!(d.blocked[0]);
    }

    #[test]
    fn paced_driver_schedule_and_saturation() {
        // 4 I/Os per transaction, 2 virtual CPUs, 100 I/Os per s: period 80 ms per vCPU.
        let w = with(dasd_io("V1", DasdType::Eckd), |w| {
            if let Workload::DasdIo {
                ios,
                rate,
                think_ns,
                ..
            } = w
            {
                *ios = 4;
                *rate = 100.0;
                *think_ns = 123; // ignored when paced
            }
        });
        let mut d = dasd(&[guest("A", 1, 2, w)], None);
        // One user, two virtual CPUs.
        d.size_for(&[0, 0]);
        // v0 ends its first transaction at 30 ms: due at 80 ms, thinks 50 ms.
        let e = d.end_transaction(0, 0, 30_000_000);
        assert!(e.paced && close(e.think, 5e7));
        // Ends the next at 100 ms (due 80): the next is due at 160 ms, think 60 ms.
        assert!(close(d.end_transaction(0, 0, 100_000_000).think, 6e7));
        // Late: ends at 300 ms, due at 240 ms: starts at once, 60 ms behind.
        assert_eq!(d.end_transaction(0, 0, 300_000_000).think, 0.0);
        assert!(close(d.due[0], 2.4e8));
        let users = [user("A", vec![0, 1])];
        let vc = [vcpu(0), vcpu(0)];
        // At 300 ms: v0 is 60 ms behind, v1 (due 0) 300 ms. Behind 0.3 s > 2 periods (0.16 s)
        // and > 1 % of 0.3 s: saturated. Offered: 4 x 2 vCPUs / 80 ms = 100 per s.
        let s = d.summary(300_000_000, &users, &vc);
        let u = &s.users["A"];
        assert!(close(u.offered_io_per_s.unwrap(), 100.0));
        assert!(close(u.behind_s, 0.3));
        assert!(u.saturated);
        // v1 keeps up: its transaction ends at 70 ms (due 80 ms).
        d.end_transaction(1, 0, 70_000_000);
        d.end_transaction(1, 0, 150_000_000);
        d.end_transaction(1, 0, 230_000_000);
        // v1 due at 240 ms; at 300 ms v0 is the most behind: 60 ms < 2 periods: not saturated.
        let s = d.summary(300_000_000, &users, &vc);
        let u = &s.users["A"];
        assert!(close(u.behind_s, 0.06));
        assert!(!u.saturated);
    }

    #[test]
    fn saturation_needs_one_percent_of_the_run_too() {
        // Period 80 ms; 200 ms behind is > 2 periods, but in a 30 s run 1 % is 300 ms.
        let w = with(dasd_io("V1", DasdType::Eckd), |w| {
            if let Workload::DasdIo { ios, rate, .. } = w {
                *ios = 4;
                *rate = 50.0;
            }
        });
        let mut d = dasd(&[guest("A", 1, 1, w)], None);
        // Period 4 x 1 / 50 s = 80 ms; due set to 29.8 s by hand.
        d.due[0] = 29.8e9;
        let users = [user("A", vec![0])];
        let s = d.summary(30_000_000_000, &users, &[vcpu(0)]);
        assert!(close(s.users["A"].behind_s, 0.2));
        assert!(!s.users["A"].saturated);
        // 400 ms behind in the 30 s run: > 300 ms (1 %) and > 160 ms (2 periods).
        d.due[0] = 29.6e9;
        let s = d.summary(30_000_000_000, &users, &[vcpu(0)]);
        assert!(s.users["A"].saturated);
        assert!(close(s.users["A"].offered_io_per_s.unwrap(), 50.0));
        // In a 1 s run (1 %: 10 ms), 120 ms behind is more than one period (80 ms) but not
        // two (160 ms): not saturated; 170 ms is.
        d.due[0] = 0.88e9;
        let s = d.summary(1_000_000_000, &users, &[vcpu(0)]);
        assert!(close(s.users["A"].behind_s, 0.12));
        assert!(!s.users["A"].saturated);
        d.due[0] = 0.83e9;
        assert!(d.summary(1_000_000_000, &users, &[vcpu(0)]).users["A"].saturated);
    }

    /// `MdcLookup::Device`: "CP time of the insert it costs (0: none, or no cache)". A read
    /// miss whose unit the cache cannot take (larger than the cache's target: here a cache
    /// of 1 frame and units of 2 blocks; in a run, a target the arbiter shrank toward 0)
    /// inserts nothing (`inserts` stays 0), so it costs no insert (it was charged
    /// `insert_cost`, 2 x 1000, before this test found it).
    #[test]
    fn mdc_miss_that_inserts_nothing_costs_no_insert() {
        let mut d = dasd(&[guest("A", 1, 1, mdc_reader("V1", 2))], Some(1));
        let mut rng = Rng::new(5);
        let r = d.mdc_lookup(0, &mut rng, None);
        assert_eq!(d.mdc_counters().unwrap()[6], 0); // no insert
        assert!(matches!(r, MdcLookup::Device(0)), "{r:?}");
    }

    /// The same after the arbiter shrank the target to 0 (step 1: the whole maximum).
    #[test]
    fn mdc_miss_at_target_zero_costs_no_insert() {
        let mut st = storage();
        let mut d = one_block_reader(100);
        d.mdc_arbiter.2 = 1.0;
        st.faults += 1_000; // page-ins, no hits: shrink by 100 frames to 0
        d.arbitrate_mdc(1_000_000_000, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[1], 0);
        let mut rng = Rng::new(5);
        let r = d.mdc_lookup(0, &mut rng, Some(&mut st));
        assert_eq!(d.mdc_counters().unwrap()[6], 0); // no insert
        assert!(matches!(r, MdcLookup::Device(0)), "{r:?}");
    }

    #[test]
    fn format_finishes_once() {
        let f = Workload::Format {
            volume: "V1".into(),
            dtype: DasdType::Eckd,
            size_mb: 1,
            blocks: 128,
        };
        let mut d = dasd(&[guest("F", 1, 1, f)], None);
        // 256 pages in writes of 128: 2 I/Os.
        assert!(d.take_io(0) && d.take_io(0) && !d.take_io(0));
        let e = d.end_transaction(0, 0, 2_500_000_000);
        assert!(e.format);
        let users = [user("F", vec![0])];
        let s = d.summary(3_000_000_000, &users, &[vcpu(0)]);
        assert_eq!(s.users["F"].finished_s, Some(2.5));
        assert_eq!(s.users["F"].offered_io_per_s, None);
        // FORMAT users are not I/O drivers for the monitor.
        assert!(d.user_io()[0].is_none());
    }

    #[test]
    fn summary_figures_from_the_counters() {
        let w = with(dasd_io("V1", DasdType::Eckd), |w| {
            if let Workload::DasdIo { blocks, .. } = w {
                *blocks = 4;
            }
        });
        let mut d = dasd(
            &[
                guest("A", 1, 1, w),
                guest("B", 1, 1, dasd_io("V1", DasdType::Eckd)),
            ],
            None,
        );
        // User A: two device I/Os of 4 blocks.
        d.io_path(0, 0);
        d.start_wait(0, 0, 0);
        d.device_mut(0).complete(390_000); // 150000 + 4 x 60000
        d.io_done(0, 0);
        d.io_path(0, 0);
        d.start_wait(0, 0, 400_000);
        let mut users = [user("A", vec![0]), user("B", vec![1])];
        users[0].acct.cp_ns = 40_000;
        users[0].acct.virt_ns = 8_000;
        users[0].acct.tx_done = 2;
        let s = d.summary(2_000_000_000, &users, &[vcpu(0), vcpu(1)]);
        let a = &s.users["A"];
        // 2 I/Os x 4 blocks x 4 KB = 32 KB; 2 s.
        assert_eq!((a.ios, a.kb, a.transactions), (2, 32, 2));
        assert!(close(a.tx_per_s, 1.0));
        assert!(close(a.cp_ms, 0.04)); // 40000 ns
        assert!(close(a.virtual_ms, 0.008));
        assert!(close(a.cp_us_per_io, 20.0)); // 40 us / 2
        assert!(close(a.cp_us_per_kb, 1.25)); // 40 us / 32
        assert!(close(a.cp_us_per_tx, 20.0));
        assert!(close(a.virtual_us_per_tx, 4.0)); // 8 us / 2
        assert!(close(a.kb_per_s, 16.0));
        assert_eq!(a.finished_s, None);
        assert_eq!(
            (a.offered_io_per_s, a.behind_s, a.saturated),
            (None, 0.0, false)
        );
        // B did nothing: zeros, no division by zero.
        let b = &s.users["B"];
        assert_eq!((b.ios, b.kb), (0, 0));
        assert_eq!(b.cp_us_per_io, 0.0);
        // All users: 2 I/Os in 2 s.
        assert!(close(s.ios_per_s, 1.0));
        assert!(s.mdc.is_none());
        let ui = d.user_io();
        let a = ui[0].unwrap();
        assert_eq!(
            (a.vol, a.ios, a.blocks, a.write, a.mdc, a.paced),
            (0, 2, 8, false, false, false)
        );
    }

    // ---- the minidisk cache ----

    /// A reader with MDC on whose extent is one I/O (one unit: every read the same unit).
    fn mdc_reader(volume: &str, extent: u64) -> Workload {
        with(dasd_io(volume, DasdType::Eckd), |w| {
            if let Workload::DasdIo {
                mdc, extent_blocks, ..
            } = w
            {
                *mdc = true;
                *extent_blocks = extent;
            }
        })
    }

    #[test]
    fn mdc_units_from_the_extent() {
        // 10 blocks in I/Os of 2: 5 units; 3 blocks: 1 unit (3 / 2 rounds down).
        let d = dasd(
            &[
                guest("A", 1, 1, mdc_reader("V1", 10)),
                guest("B", 1, 1, mdc_reader("V1", 3)),
            ],
            Some(64),
        );
        assert_eq!(prog(&d, 0).units, 5);
        assert_eq!(prog(&d, 1).units, 1);
        assert!(prog(&d, 0).mdc);
        // A dedicated SCSI LUN is not eligible.
        let s = with(mdc_reader("S1", 10), |w| {
            if let Workload::DasdIo { dtype, .. } = w {
                *dtype = DasdType::Scsi;
            }
        });
        let d = dasd(&[guest("S", 1, 1, s)], Some(64));
        assert!(!prog(&d, 0).mdc);
    }

    #[test]
    fn mdc_hit_avoids_the_device_and_counters_add_up() {
        let mut d = dasd(&[guest("A", 1, 1, mdc_reader("V1", 2))], Some(64));
        let mut rng = Rng::new(5);
        // First read: a miss, the device I/O plus an insert of 2 x 1000.
        assert!(matches!(
            d.mdc_lookup(0, &mut rng, None),
            MdcLookup::Device(2000)
        ));
        assert_eq!(d.ios[0], 0); // counted when the device I/O starts
        d.io_path(0, 0);
        assert!(matches!(
            d.start_wait(0, 0, 0),
            IoWait::Started(0, Some(270_000))
        ));
        d.device_mut(0).complete(270_000);
        d.io_done(0, 0);
        // Then hits: a move from the cache (3000 + 2 x 1500), no device I/O.
        for _ in 0..4 {
            match d.mdc_lookup(0, &mut rng, None) {
                MdcLookup::Hit(cost, next) => {
                    assert_eq!(cost, 6000);
                    assert!(close(next.cpu, 1000.0));
                }
                MdcLookup::Device(_) => panic!("a miss on a cached unit"),
            }
        }
        // 5 reads = 1 miss (insert, device) + 4 hits; user I/Os = hits + device I/Os.
        let c = d.mdc_counters().unwrap();
        // [max, target, below, above, reads, hits, inserts, steals]
        assert_eq!(c, [64, 64, 0, 2, 5, 4, 1, 0]);
        assert_eq!(d.devices()[0].stats.ios, 1);
        assert_eq!((d.ios[0], d.blocks[0]), (5, 10));
        let users = [user("A", vec![0])];
        let m = d.summary(1_000_000_000, &users, &[vcpu(0)]).mdc.unwrap();
        assert_eq!((m.reads, m.hits, m.inserts), (5, 4, 1));
        assert!(close(m.hit_ratio, 0.8));
    }

    #[test]
    fn mdc_units_of_different_volumes_differ() {
        let mut d = dasd(
            &[
                guest("A", 1, 1, mdc_reader("V1", 2)),
                guest("B", 1, 1, mdc_reader("V2", 2)),
            ],
            Some(64),
        );
        let mut rng = Rng::new(5);
        // Unit 0 of V1 and unit 0 of V2 are two units: both miss first, then both hit.
        assert!(matches!(
            d.mdc_lookup(0, &mut rng, None),
            MdcLookup::Device(2000)
        ));
        assert!(matches!(
            d.mdc_lookup(1, &mut rng, None),
            MdcLookup::Device(2000)
        ));
        assert!(matches!(
            d.mdc_lookup(0, &mut rng, None),
            MdcLookup::Hit(6000, _)
        ));
        assert!(matches!(
            d.mdc_lookup(1, &mut rng, None),
            MdcLookup::Hit(6000, _)
        ));
        assert_eq!(d.mdc_counters().unwrap()[3], 4); // two units of 2 frames
    }

    #[test]
    fn mdc_writes_go_to_the_device() {
        let wr = with(mdc_reader("V1", 2), |w| {
            if let Workload::DasdIo { write, .. } = w {
                *write = true;
            }
        });
        let mut d = dasd(
            &[guest("W", 1, 1, wr), guest("R", 1, 1, mdc_reader("V1", 2))],
            Some(64),
        );
        let mut rng = Rng::new(5);
        // A write of an uncached unit: device, no cache work, no read counted.
        assert!(matches!(
            d.mdc_lookup(0, &mut rng, None),
            MdcLookup::Device(0)
        ));
        // The reader caches the unit; the writer's next write refreshes it (insert path) and
        // still goes to the device; writes are no reads and no hits.
        assert!(matches!(
            d.mdc_lookup(1, &mut rng, None),
            MdcLookup::Device(2000)
        ));
        assert!(matches!(
            d.mdc_lookup(0, &mut rng, None),
            MdcLookup::Device(2000)
        ));
        let c = d.mdc_counters().unwrap();
        assert_eq!((c[4], c[5], c[6]), (1, 0, 1));
        assert_eq!(d.ios[0], 0);
        let users = [user("W", vec![0]), user("R", vec![1])];
        let m = d
            .summary(1_000_000_000, &users, &[vcpu(0), vcpu(1)])
            .mdc
            .unwrap();
        assert_eq!(m.write_updates, 1);
    }

    #[test]
    fn mdc_off_or_absent_goes_to_the_device() {
        // MDC on for the device but no cache, and a cache but MDC off for the device.
        let mut d = dasd(&[guest("A", 1, 1, mdc_reader("V1", 2))], None);
        let mut rng = Rng::new(5);
        for _ in 0..3 {
            assert!(matches!(
                d.mdc_lookup(0, &mut rng, None),
                MdcLookup::Device(0)
            ));
        }
        assert!(d.mdc_counters().is_none());
        let mut d = dasd(&[guest("A", 1, 1, dasd_io("V1", DasdType::Eckd))], Some(64));
        for _ in 0..3 {
            assert!(matches!(
                d.mdc_lookup(0, &mut rng, None),
                MdcLookup::Device(0)
            ));
        }
        assert_eq!(d.mdc_counters().unwrap()[4], 0);
    }

    // ---- the MDC arbiter ----

    /// Real storage of 1000 frames with 500 user pages resident.
    fn storage() -> RealStorage {
        let mut st = RealStorage::new(1000, &[2000], 2.0, false, u64::MAX);
        st.prefill(0, 500);
        assert_eq!(st.resident, 500);
        st
    }

    /// `n` reads of the one unit (1 block) of user 0: 1 miss then n - 1 hits.
    fn reads(d: &mut Dasd, n: u32, st: &mut RealStorage) {
        let mut rng = Rng::new(9);
        for _ in 0..n {
            d.mdc_lookup(0, &mut rng, Some(&mut *st));
        }
    }

    fn one_block_reader(d: u64) -> Dasd {
        let w = with(mdc_reader("V1", 1), |w| {
            if let Workload::DasdIo { blocks, .. } = w {
                *blocks = 1;
            }
        });
        dasd(&[guest("A", 1, 1, w)], Some(d))
    }

    #[test]
    fn mdc_arbiter_settings_from_params() {
        // 1 s, bias 1, step 0.05 by default; a step above 1 is clamped, the period at least 1.
        let p = Params {
            mdc_arbiter_step: 3.0,
            mdc_arbiter_interval: 1e-12,
            ..params()
        };
        assert_eq!(
            mdc_arbiter_settings(&params()),
            (1_000_000_000, 1.0, 0.05, 0)
        );
        assert_eq!(mdc_arbiter_settings(&p), (1, 1.0, 1.0, 0));
    }

    #[test]
    fn mdc_arbiter_shrinks_toward_paging_and_waits_its_period() {
        let mut st = storage();
        let mut d = one_block_reader(100);
        // 10 reads: 1 miss + 9 hits on 1 cached frame.
        reads(&mut d, 10, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[5], 9);
        st.faults += 10_000;
        // Before the period (1 s) is up: nothing.
        d.arbitrate_mdc(999_999_999, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[1], 100);
        // At 1 s: the cache's frame is worth 9 hits / 1 s / 1 frame = 9; a user frame
        // 10000 page-ins / 1 s / 500 resident = 20 > 9 x bias 1: the target drops by
        // 0.05 x 100 = 5 frames.
        d.arbitrate_mdc(1_000_000_000, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[1], 95);
        assert_eq!(d.mdc.as_ref().unwrap().shrinks, 1);
        // 0.5 s later: not yet.
        reads(&mut d, 9, &mut st);
        st.faults += 10_000;
        d.arbitrate_mdc(1_500_000_000, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[1], 95);
        // At 2 s: 9 hits, 10000 page-ins over 1 s since the last pass: again 9 < 20: 90.
        d.arbitrate_mdc(2_000_000_000, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[1], 90);
        // At 4 s (2 s since): 0 hits vs 0 page-ins: equal worth, the target stays.
        d.arbitrate_mdc(4_000_000_000, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[1], 90);
        let m = d.mdc.as_ref().unwrap();
        assert_eq!((m.grows, m.shrinks), (0, 2));
    }

    #[test]
    fn mdc_arbiter_bias_and_growth() {
        let mut st = storage();
        let mut d = one_block_reader(100);
        // Start from a target of 90 (two shrinks' worth), then hits are worth more.
        d.mdc.as_mut().unwrap().cap_frames = 90;
        reads(&mut d, 10, &mut st); // 9 hits
        st.faults += 5_000;
        // 9 hits / 1 s / 1 frame = 9 < 5000 page-ins / 1 s / 500 resident = 10: at bias 1 it
        // would shrink; at bias 2, 18 > 10: the target grows by 0.05 x 100 = 5.
        d.mdc_arbiter.1 = 2.0;
        d.arbitrate_mdc(1_000_000_000, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[1], 95);
        // Again over 1 s: 9 hits (x 2 = 18) vs 0 page-ins: grows, but not past the maximum.
        reads(&mut d, 9, &mut st);
        d.arbitrate_mdc(2_000_000_000, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[1], 100);
        reads(&mut d, 9, &mut st);
        d.arbitrate_mdc(3_000_000_000, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[1], 100);
        let m = d.mdc.as_ref().unwrap();
        // The third pass changed nothing: not a growth.
        assert_eq!((m.grows, m.shrinks), (2, 0));
    }

    #[test]
    fn mdc_arbiter_exact_tie_keeps_the_target() {
        let mut st = storage();
        let mut d = one_block_reader(100);
        // Below the maximum, so that growing would show.
        d.mdc.as_mut().unwrap().cap_frames = 50;
        reads(&mut d, 21, &mut st); // 20 hits on 1 frame: 20 per frame per s
        st.faults += 10_000; // 10000 / 500 = 20 per frame per s
        d.arbitrate_mdc(1_000_000_000, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[1], 50);
        let m = d.mdc.as_ref().unwrap();
        assert_eq!((m.grows, m.shrinks), (0, 0));
    }

    #[test]
    fn mdc_arbiter_hits_per_cached_frame() {
        let mut st = storage();
        // One unit of 4 blocks: 4 frames cached.
        let w = with(mdc_reader("V1", 4), |w| {
            if let Workload::DasdIo { blocks, .. } = w {
                *blocks = 4;
            }
        });
        let mut d = dasd(&[guest("A", 1, 1, w)], Some(100));
        d.mdc.as_mut().unwrap().cap_frames = 50;
        reads(&mut d, 21, &mut st); // 20 hits
        assert_eq!(d.mdc.as_ref().unwrap().used_frames, 4);
        // 20 hits / 1 s / 4 frames = 5 < 3000 page-ins / 1 s / 500 resident = 6: shrink by 5.
        st.faults += 3_000;
        d.arbitrate_mdc(1_000_000_000, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[1], 45);
    }

    #[test]
    fn mdc_arbiter_bias_multiplies_the_cache_side() {
        let mut st = storage();
        let mut d = one_block_reader(100);
        // 19 hits over 2 s on 1 frame: 9.5 per frame per s; 10000 page-ins over 2 s / 500
        // resident: 10. Bias 1.1 on the cache's worth: 10.45 > 10: grow by 5 (from 50). (Bias
        // on the user pages' worth instead would be 9.5 < 11: shrink. The pass's length
        // divides both sides alike.)
        d.mdc.as_mut().unwrap().cap_frames = 50;
        d.mdc_arbiter.1 = 1.1;
        reads(&mut d, 20, &mut st);
        st.faults += 10_000;
        d.arbitrate_mdc(2_000_000_000, &mut st);
        assert_eq!(d.mdc_counters().unwrap()[1], 55);
        assert_eq!(d.mdc_arbiter.3, 2_000_000_000);
    }

    #[test]
    fn mdc_arbiter_smaller_target_gives_frames_back() {
        let mut st = storage();
        // A cache of 4 frames, full with 4 one-block units; units drawn over 4.
        let w = with(mdc_reader("V1", 4), |w| {
            if let Workload::DasdIo { blocks, .. } = w {
                *blocks = 1;
            }
        });
        let mut d = dasd(&[guest("A", 1, 1, w)], Some(4));
        let mut rng = Rng::new(3);
        while d.mdc.as_ref().unwrap().used_frames < 4 {
            d.mdc_lookup(0, &mut rng, Some(&mut st));
        }
        assert_eq!(st.mdc_frames, 4);
        // Step 0.5 of 4 = 2 frames; nothing but page-ins: shrink to 2, two units dropped.
        d.mdc_arbiter.2 = 0.5;
        d.mdc.as_mut().unwrap().hits = 0;
        st.faults += 1_000;
        d.arbitrate_mdc(1_000_000_000, &mut st);
        let c = d.mdc_counters().unwrap();
        // Target 2; frames in use (below + above 2 GB: all below in 1000 frames) 2.
        assert_eq!((c[1], c[2] + c[3]), (2, 2));
        assert_eq!(st.mdc_frames, 2);
        st.check_frames().unwrap();
    }

    #[test]
    fn no_cache_no_arbiter() {
        let mut st = storage();
        let mut d = dasd(&[guest("A", 1, 1, dasd_io("V1", DasdType::Eckd))], None);
        d.arbitrate_mdc(5_000_000_000, &mut st);
        assert_eq!(d.mdc_arbiter.3, 0);
    }

    // ---- draws ----

    #[test]
    fn fixed_draw_rounds_and_is_at_least_one() {
        let mut r = Rng::new(1);
        assert_eq!(draw(&mut r, 1000.4, Dist::Fixed), 1000);
        assert_eq!(draw(&mut r, 1000.5, Dist::Fixed), 1001);
        assert_eq!(draw(&mut r, 0.0, Dist::Fixed), 1);
    }

    // ---- properties ----

    fn user(id: &str, vcpus: Vec<u32>) -> crate::guest::User {
        let mut u = crate::scheduler::tests::user(Share::default(), vcpus);
        u.userid = id.into();
        u
    }

    fn vcpu(u: u32) -> crate::guest::Vcpu {
        crate::scheduler::tests::vcpu(u, 0)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Synchronous I/Os of several users on shared volumes, started at random times:
        /// every I/O completes exactly once, FIFO per volume, each user woken once per I/O; a
        /// volume's busy time is its I/Os' service times and never exceeds the time from its
        /// first start to its last completion; Little's law on its queue.
        #[test]
        fn every_io_completes_once(
            starts in proptest::collection::vec((0u32..6, 0u64..400_000), 1..60),
            write in proptest::collection::vec(any::<bool>(), 6),
        ) {
            let g: Vec<Guest> = (0..6)
                .map(|u| {
                    let vol = if u % 2 == 0 { "V0" } else { "V1" };
                    guest(
                        &format!("U{u}"),
                        1,
                        1,
                        with(dasd_io(vol, DasdType::Eckd), |w| {
                            if let Workload::DasdIo { write: wr, blocks, .. } = w {
                                *wr = write[u];
                                *blocks = 1 + u as u32;
                            }
                        }),
                    )
                })
                .collect();
            let mut d = dasd(&g, None);
            // Each user has at most one I/O outstanding (synchronous): a start of a user still
            // waiting is skipped. Completions due by a start's time come first.
            let mut submitted = [Vec::<u32>::new(), Vec::new()];
            let mut completed = [Vec::<u32>::new(), Vec::new()];
            let mut waiting = [false; 6];
            let mut woken = [0u32; 6];
            let mut started = [0u32; 6];
            let mut first = [u64::MAX; 2];
            let mut last = [0u64; 2];
            let mut queue_area = [0u128; 2];
            let mut prev_t = [0u64; 2];
            let mut now = 0u64;
            for k in 0..=starts.len() {
                let until = match starts.get(k) {
                    Some(&(_, dt)) => now + dt,
                    None => u64::MAX,
                };
                // Completions up to `until`, in time order.
                while let Some((tc, vol)) = (0..2u32)
                    .filter_map(|v| d.devices()[v as usize].next_completion().map(|t| (t, v)))
                    .min()
                    .filter(|&(tc, _)| tc <= until)
                {
                    let dev = d.device_mut(vol);
                    let vi = vol as usize;
                    queue_area[vi] += dev.queued() as u128 * (tc - prev_t[vi]) as u128;
                    prev_t[vi] = tc;
                    let u = dev.complete(tc).expect("a completion").waiter;
                    completed[vi].push(u);
                    last[vi] = tc;
                    prop_assert!(d.io_done(u, u as usize).is_some());
                    woken[u as usize] += 1;
                    waiting[u as usize] = false;
                }
                let Some(&(u, _)) = starts.get(k) else { break };
                now = until;
                if waiting[u as usize] {
                    continue;
                }
                let vi = (u % 2) as usize;
                queue_area[vi] += d.devices()[vi].queued() as u128 * (now - prev_t[vi]) as u128;
                prev_t[vi] = now;
                prop_assert!(matches!(d.io_path(u, u as usize), IoPath::Sync(_)));
                match d.start_wait(u, u as usize, now) {
                    IoWait::Started(v, _) => prop_assert_eq!(v as usize, vi),
                    _ => prop_assert!(false, "no I/O started"),
                }
                waiting[u as usize] = true;
                first[vi] = first[vi].min(now);
                started[u as usize] += 1;
                submitted[vi].push(u);
            }
            prop_assert!(!waiting.contains(&true));
            for vol in 0..2 {
                // FIFO: completions in submission order, each once.
                prop_assert_eq!(&completed[vol], &submitted[vol]);
                let s = &d.devices()[vol].stats;
                prop_assert_eq!(s.ios, submitted[vol].len() as u64);
                let svc: u64 = submitted[vol]
                    .iter()
                    .map(|&u| 150_000 + 60_000 * (1 + u as u64))
                    .sum();
                prop_assert_eq!(s.busy_ns, svc);
                if s.ios > 0 {
                    prop_assert!(s.busy_ns <= last[vol] - first[vol]);
                    // Little's law: the queue's time integral is the sum of the waits.
                    prop_assert_eq!(queue_area[vol], s.queue_ns as u128);
                }
            }
            for u in 0..6 {
                prop_assert_eq!(woken[u], started[u]);
                prop_assert_eq!(d.ios[u], started[u] as u64);
                prop_assert_eq!(d.blocks[u], started[u] as u64 * (1 + u as u64));
            }
        }

        /// MDC: reads = hits + inserts (no unit larger than the cache), the frames in use never
        /// exceed the target, and a user's I/Os are its hits plus its device I/Os.
        #[test]
        fn mdc_reads_are_hits_or_misses(
            frames in 1u64..40,
            extent in 2u64..60,
            n in 1usize..300,
        ) {
            let mut d = dasd(&[guest("A", 1, 1, mdc_reader("V1", extent))], Some(frames));
            let mut rng = Rng::new(11);
            let mut device = 0u64;
            let mut hits = 0u64;
            for _ in 0..n {
                match d.mdc_lookup(0, &mut rng, None) {
                    MdcLookup::Hit(..) => hits += 1,
                    MdcLookup::Device(_) => {
                        d.io_path(0, 0);
                        d.start_wait(0, 0, 0);
                        let t = d.devices()[0].next_completion().unwrap();
                        d.device_mut(0).complete(t);
                        d.io_done(0, 0);
                        device += 1;
                    }
                }
                let m = d.mdc.as_ref().unwrap();
                prop_assert!(m.used_frames <= m.cap_frames);
            }
            let c = d.mdc_counters().unwrap();
            prop_assert_eq!(c[4], n as u64);
            prop_assert_eq!(c[5], hits);
            // Units of 2 frames: a cache of 1 frame inserts nothing.
            let inserts = if frames >= 2 { n as u64 - hits } else { 0 };
            prop_assert_eq!(c[6], inserts);
            prop_assert_eq!(d.ios[0], hits + device);
            prop_assert_eq!(d.devices()[0].stats.ios, device);
        }
    }
}
