//! CP's formal spin locks as mutual-exclusion resources (cp-model §4.7, §5).
//!
//! A lock is taken by a CP path on a logical processor at the instant the path starts. The
//! requester spins (nonchargeable CP time on its processor) until the lock is free in the mode
//! it asks for, then holds it for the part of the path that runs under the lock (the hold is a
//! path length already charged by the calling path; only the spin and the cache-line traffic
//! are added to the processor's time).
//!
//! Mechanism (exact for FIFO service, and cheap): events are processed in time order, so
//! requests arrive in nondecreasing simulated time. Each lock keeps the instant its exclusive
//! holder and queue free it (`excl_free`) and the latest end of its shared holds (`shared_free`):
//! - exclusive request at `t` starts at `max(t, excl_free, shared_free)`;
//! - shared request at `t` starts at `max(t, excl_free)` and may overlap other shared holds;
//! - spin = start - t; a request that spins is a collision (Perfkit FCX265 LOCKLOG).
//!
//! Cache lines (the mechanisms behind VM65696 and VM65988, seed 000/001):
//! - a write of the lock word costs one cache-line transfer (`lock.line_cycles`) unless the
//!   writing processor wrote it last, plus one per processor spinning on the line at that
//!   instant (each spinner holds a copy that the write has to invalidate), so handoffs get
//!   slower as contention grows (a non-scalable spin lock); the release write pays only the
//!   invalidations (paths with no known processor always pay the transfer);
//! - exclusive acquires always write the lock word; with the old shared/exclusive manager
//!   (`sched_lock = single-line`) shared acquires write it too, so they are serialized on the
//!   line for one write each, and write it again to release; with VM65988
//!   (`excl-only-writes`) shared acquires only read it, and an exclusive acquire, which must see
//!   no processor holding a share, reads the other processors' share lines (one transfer each,
//!   so its hold grows with the processors); `exclusive` makes every acquire of the
//!   scheduler lock exclusive (a lock manager without shared mode, for what-if studies);
//! - without VM65696 (`lock_line = shared`) the lock word shares its line with the data it
//!   protects, so each spinner's poll also takes the line from the holder: an exclusive hold is
//!   stretched by one transfer per spinner; for SRMSLOCK, whose holder reads and writes the
//!   SRMBK fields in the lock's line `lock.data_line_touches` (m) times per hold, each of those
//!   accesses waits behind the spinners, so the stretch is m transfers per spinner: the hold
//!   grows with the spinners and the spinners with the hold (the non-scalable collapse, research
//!   note where-cp-breaks §2.4). With its own line (VM65696) the stretch is gone.
//!
//! Frame-manager zones (6.4 2 TB support, `frame_zones = zoned`): the > 2 GB available list and
//! its lock RSA2GLCK are split into `storage.frame_zones` zones; a processor uses its home zone.

use crate::cpu::wall_for;
use crate::level::{
    FrameReplenish, FrameReturns, FrameZones, LockLine, Ndmbk, SchedExcl, SchedLock, SchedUpdates,
    SchedWaits, Switches,
};
use crate::params::Params;
use crate::queue::Time;
use crate::units::{path_ns, round_ns, NONE};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// The locks the model takes. The first four are formal locks CP's monitor reports (D0 R23
/// MRSYTLCK); the last two are per-object serialization with no path taking them yet (guest
/// PTE locking, seed 001 C2; the NDMBK free list of guest LANs and VSWITCHes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockId {
    /// The scheduler lock (shared/exclusive).
    Srmslock = 0,
    /// Serializes updates of the adjusted TOD (SRMATOD).
    Srmatdlk = 1,
    /// The CP-owned volume list: paging slot allocation.
    Hcppgdal = 2,
    /// The > 2 GB available frame list (one per frame-manager zone when zoned).
    Rsa2glck = 3,
    GuestPte = 4,
    Ndmbk = 5,
    /// VDISK I/O serialization (zvmlab's name): one system-wide instance before the fix; with
    /// it, only the data move, and per VDISK.
    Vdisk = 6,
    /// The < 2 GB available frame list (held while CP searches for a below-2GB frame).
    Rsaavllk = 7,
}

pub const N_LOCKS: usize = 8;
pub const NAMES: [&str; N_LOCKS] = [
    "SRMSLOCK", "SRMATDLK", "HCPPGDAL", "RSA2GLCK", "GUESTPTE", "NDMBK", "VDISK", "RSAAVLLK",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Excl,
    Shared,
}

/// One lock instance (a zone of a zoned lock is an instance).
#[derive(Clone, Debug, Default)]
struct Inst {
    excl_free: Time,
    shared_free: Time,
    /// Single-line manager: the lock word's line is busy with a shared acquirer's write.
    line_free: Time,
    /// Start instants of requests still spinning (processors spinning on the line).
    spinning: BinaryHeap<Reverse<Time>>,
    /// The processor that last wrote the lock word (its line is in that processor's cache);
    /// 0 before the first write, and NONE stands for a path with no known processor.
    last_writer: u32,
}

impl Inst {
    /// Nobody holds the lock at `t` (in either mode, nor its line) and nobody spins on it.
    #[inline(always)]
    fn quiet_at(&self, t: Time) -> bool {
        self.excl_free <= t
            && self.shared_free <= t
            && self.line_free <= t
            && self.spinning.is_empty()
    }

    /// Requests whose spin ended by `t` hold (or held) the lock: their processors no longer spin.
    #[inline(always)]
    fn stop_spinners_by(&mut self, t: Time) {
        while let Some(&Reverse(s)) = self.spinning.peek() {
            if s <= t {
                self.spinning.pop();
            } else {
                break;
            }
        }
    }

    /// A request at `t` by `cpu` holding `hold` ns: its start (after any spin), the cache-line
    /// time it adds to the path, and the end of its hold; the lock's state moves on.
    #[inline(always)]
    fn grant(
        &mut self,
        mode: Mode,
        t: Time,
        cpu: u32,
        hold: Time,
        x: &LineTerms,
    ) -> (Time, Time, Time) {
        let n = self.spinning.len() as f64;
        // Writing the lock word: a transfer unless this processor wrote it last, plus one
        // invalidation per spinner (they hold copies); the release write pays the latter only.
        let xfer = if cpu != NONE && self.last_writer == cpu {
            0.0
        } else {
            1.0
        };
        let write = x.lines(xfer + n);
        let release = x.lines(n);
        match mode {
            Mode::Excl => {
                let s = t
                    .max(self.excl_free)
                    .max(self.shared_free)
                    .max(self.line_free);
                let stretch = if x.own_line {
                    0
                } else {
                    x.lines(n * x.touches)
                };
                let line = write + release + stretch + x.scan;
                let e = s + hold + x.data + line;
                self.excl_free = e;
                self.last_writer = cpu;
                (s, line, e)
            }
            Mode::Shared if x.single_line => {
                let s0 = t.max(self.excl_free).max(self.line_free);
                self.line_free = s0 + write;
                let s = s0 + write;
                let e = s + hold + x.data;
                self.shared_free = self.shared_free.max(e);
                self.last_writer = cpu;
                (s0, write + release, e)
            }
            Mode::Shared => {
                let s = t.max(self.excl_free);
                let e = s + hold + x.data;
                self.shared_free = self.shared_free.max(e);
                (s, 0, e)
            }
        }
    }
}

/// The cache-line terms of one request, from the lock manager's settings (`Locks::acquire_inst`).
struct LineTerms {
    /// One line transfer (ns); 0 in the reference model.
    line_ns: f64,
    /// The lock word has a line of its own: spinners do not stretch an exclusive hold.
    own_line: bool,
    /// Lines of the protected data an exclusive hold touches (each stretched by the spinners).
    touches: f64,
    /// Shared acquirers write the lock word's one line too (`SchedLock::SingleLine`).
    single_line: bool,
    /// An exclusive acquirer's reads of the other processors' share lines (`excl_scan`).
    scan: Time,
    /// The hold's misses on the protected data (hold locality).
    data: Time,
}

impl LineTerms {
    /// `x` line transfers in ns (no floating point when a transfer costs nothing).
    #[inline(always)]
    fn lines(&self, x: f64) -> Time {
        if self.line_ns == 0.0 {
            0
        } else {
            round_ns(self.line_ns * x)
        }
    }
}

/// Cumulative counters of one lock (all its zones).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LockCounters {
    pub acquires_excl: u64,
    pub acquires_shared: u64,
    pub colls_excl: u64,
    pub colls_shared: u64,
    pub spin_excl_ns: u64,
    pub spin_shared_ns: u64,
    /// Cache-line transfer time added to paths (writes of the lock word, stretched holds).
    pub line_ns: u64,
}

impl LockCounters {
    pub fn since(&self, p: &LockCounters) -> LockCounters {
        LockCounters {
            acquires_excl: self.acquires_excl - p.acquires_excl,
            acquires_shared: self.acquires_shared - p.acquires_shared,
            colls_excl: self.colls_excl - p.colls_excl,
            colls_shared: self.colls_shared - p.colls_shared,
            spin_excl_ns: self.spin_excl_ns - p.spin_excl_ns,
            spin_shared_ns: self.spin_shared_ns - p.spin_shared_ns,
            line_ns: self.line_ns - p.line_ns,
        }
    }
    pub fn plus(&self, d: &LockCounters) -> LockCounters {
        LockCounters {
            acquires_excl: self.acquires_excl + d.acquires_excl,
            acquires_shared: self.acquires_shared + d.acquires_shared,
            colls_excl: self.colls_excl + d.colls_excl,
            colls_shared: self.colls_shared + d.colls_shared,
            spin_excl_ns: self.spin_excl_ns + d.spin_excl_ns,
            spin_shared_ns: self.spin_shared_ns + d.spin_shared_ns,
            line_ns: self.line_ns + d.line_ns,
        }
    }
    pub fn acquires(&self) -> u64 {
        self.acquires_excl + self.acquires_shared
    }

    /// One request in `mode` that spun `spin` ns and added `line` ns of line transfers.
    #[inline(always)]
    fn count(&mut self, mode: Mode, spin: Time, line: Time) {
        match mode {
            Mode::Excl => {
                self.acquires_excl += 1;
                if spin > 0 {
                    self.colls_excl += 1;
                    self.spin_excl_ns += spin;
                }
            }
            Mode::Shared => {
                self.acquires_shared += 1;
                if spin > 0 {
                    self.colls_shared += 1;
                    self.spin_shared_ns += spin;
                }
            }
        }
        self.line_ns += line;
    }
}

/// Result of one request: the processor spins `spin` ns and spends `line` ns more on cache-line
/// transfers (both nonchargeable); `start` is when it holds the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    pub start: Time,
    pub spin: Time,
    pub line: Time,
    /// End of the hold (start + hold + any stretch).
    pub end: Time,
}

impl Grant {
    /// Time the requesting processor spends beyond the path's own cost.
    pub fn extra(&self) -> Time {
        self.spin + self.line
    }
}

/// The random stream of floating interruptions' processors (`Locks::interrupt_cpu`).
const INTERRUPT_STREAM: u64 = 0x4c4f_434b;

pub struct Locks {
    inst: Vec<Inst>,
    pub counters: [LockCounters; N_LOCKS],
    /// First instance of RSA2GLCK zones beyond the first, and the number of zones.
    zones: usize,
    pub sched_lock: SchedLock,
    pub own_line: bool,
    line_ns: f64,
    /// Transfers per spinner that stretch an exclusive SRMSLOCK hold when the lock word shares
    /// its line with the SRMBK data (`lock_line = shared`); 1 for the other locks.
    sched_touches: f64,
    /// Hold times (ns) of the paths that take locks.
    pub hold_dispatch: Time,
    pub hold_requeue: Time,
    pub hold_dlist: Time,
    pub hold_ready: Time,
    pub hold_atod: Time,
    pub hold_slot: Time,
    pub hold_frame: Time,
    /// Hold time of the scheduler-list updates (D-list add/drop, a test-idle user readied)
    /// done since the last dispatch: the next processor that dispatches runs them under the
    /// scheduler lock held exclusive.
    pending_hold: Time,
    /// Processors whose next dispatch follows a slice-end requeue (exclusive).
    requeue: Vec<bool>,
    /// Per processor: the end of the exclusive hold of its last virtual CPU's wait under
    /// `sched_waits = exclusive`; its next dispatch asks for the lock only then (the processor
    /// runs the wait's hold first, it does not spin on it). That request is the only one made
    /// for a later instant than the call: requests that follow it in call order with earlier
    /// instants are served after it (FIFO by call order), an approximation of at most one hold
    /// plus its spin.
    own_end: Vec<Time>,
    /// Processors whose last look at the dispatch list found nothing.
    looked_idle: Vec<bool>,
    /// Each user's hot-page PTE lock.
    pte: Vec<Inst>,
    /// Demand-sensitive frame replenishment: refill batch (0: lagging lists, a lock per
    /// frame) and each processor's free cleared frames.
    cpu_batch: u64,
    cpu_list: Vec<u64>,
    /// 6.4 queued frame returns (`frame_returns`): frames waiting on each zone's return queue
    /// for the next holder of the zone's lock.
    queued_returns: bool,
    return_q: Vec<u64>,
    /// The processor that last wrote each zone's return-queue head (pushed or drained it).
    return_last: Vec<u32>,
    /// NDMBK free set: hold per block moved, refill/spill batch (0: one system-wide list, a
    /// lock per get and per put), each processor's cached free blocks.
    hold_ndmbk: Time,
    ndmbk_batch: u64,
    ndmbk_cache: Vec<u64>,
    /// The dispatcher holds the scheduler lock exclusive whenever it takes work (old levels).
    dispatch_excl: bool,
    /// Each scheduler-list change takes the lock itself when it happens (`sched_updates`).
    updates_at_event: bool,
    /// A virtual CPU's wait and readying take the lock exclusive (`sched_waits = exclusive`).
    waits_excl: bool,
    /// VM65988's distributed scheduler lock: an exclusive acquirer, holding the global line,
    /// reads every other processor's share line (SXLBK) to see no share held, one transfer
    /// each (`sxl_scan`, part of the hold; research note where-cp-breaks §2.3 [I]).
    sxl_scan: Time,
    /// Where the protected data was last written (lines.rs): a hold pays the transfers of its
    /// data from the previous holder's cache (None: off).
    locality: Option<crate::lines::HoldLocality>,
    /// Draws the processor that takes a floating interruption (`interrupt_cpu`).
    interrupts: crate::rng::Rng,
    /// No request costs anything beyond its hold: no line transfers, no exclusive scan, no
    /// priced locality (the reference model). Decided when the run is built.
    no_line_costs: bool,
}

impl Locks {
    pub fn new(p: &Params, sw: &Switches, processors: u32) -> Locks {
        let zones = match sw.frame_zones {
            FrameZones::One => 1,
            FrameZones::Zoned => (p.lock_frame_zones().round() as usize).max(1),
        };
        let mut locks = Locks {
            inst: vec![Inst::default(); N_LOCKS + zones - 1],
            counters: [LockCounters::default(); N_LOCKS],
            zones,
            sched_lock: sw.sched_lock,
            own_line: sw.lock_line == LockLine::Own,
            line_ns: p.lock_line_cycles() / p.clock_ghz(),
            sched_touches: match sw.lock_line {
                LockLine::Shared => p.lock_data_line_touches(),
                LockLine::Own => 1.0,
            },
            hold_dispatch: path_ns(p, p.lock_hold_dispatch(), 0.0),
            hold_requeue: path_ns(p, p.lock_hold_requeue(), 0.0),
            hold_dlist: path_ns(p, p.path_dlist(), 0.0),
            hold_ready: path_ns(p, p.lock_hold_ready(), 0.0),
            hold_atod: path_ns(p, p.lock_hold_atod(), 0.0),
            hold_slot: path_ns(p, p.lock_hold_slot(), 0.0),
            // Per frame: the list work plus the misses on its frame-table entry.
            hold_frame: path_ns(
                p,
                p.lock_hold_frame(),
                p.misses_per_frame() * p.cycles_remote(),
            ),
            pending_hold: 0,
            requeue: vec![false; processors as usize],
            own_end: vec![0; processors as usize],
            looked_idle: vec![false; processors as usize],
            pte: Vec::new(),
            cpu_batch: match sw.frame_replenish {
                FrameReplenish::Lagging => 0,
                FrameReplenish::DemandSensitive => (p.cpu_list_batch().round() as u64).max(1),
            },
            cpu_list: Vec::new(),
            queued_returns: sw.frame_returns == FrameReturns::Queued,
            return_q: vec![0; zones],
            return_last: vec![NONE; zones],
            hold_ndmbk: path_ns(p, p.lock_hold_ndmbk(), 0.0),
            ndmbk_batch: match sw.ndmbk {
                Ndmbk::SingleList => 0,
                Ndmbk::PerCpu => (p.ndmbk_cache().round() as u64).max(1),
            },
            ndmbk_cache: Vec::new(),
            dispatch_excl: sw.sched_excl == SchedExcl::Dispatch,
            updates_at_event: sw.sched_updates == SchedUpdates::AtEvent,
            waits_excl: sw.sched_waits == SchedWaits::Exclusive,
            sxl_scan: round_ns(
                p.lock_line_cycles() / p.clock_ghz() * processors.saturating_sub(1) as f64,
            ),
            locality: None,
            interrupts: crate::rng::Rng::new(0),
            no_line_costs: false,
        };
        locks.no_line_costs = locks.line_costs_nil();
        locks
    }

    /// No line cost, no exclusive scan and no priced locality: what `no_line_costs` caches.
    fn line_costs_nil(&self) -> bool {
        self.line_ns == 0.0 && self.sxl_scan == 0 && self.locality.is_none()
    }

    /// Price each hold's protected data by the distance from its previous holder (lines.rs).
    /// `seed` seeds the draw of the processor taking each floating interruption.
    pub fn set_locality(&mut self, l: Option<crate::lines::HoldLocality>, seed: u64) {
        self.locality = l;
        self.interrupts = crate::rng::Rng::stream(seed, INTERRUPT_STREAM);
        self.no_line_costs = self.line_costs_nil();
    }

    /// The processor that runs a path started by an interruption with no processor known here
    /// (a page-in's completion): an I/O interruption is floating, taken by whichever processor
    /// is enabled for it, drawn uniformly (its own random stream, so no other draw moves). Only
    /// where the hold's locality is priced (lines.rs); without it such paths stay
    /// processor-less (NONE), as before.
    fn interrupt_cpu(&mut self) -> u32 {
        let n = self.requeue.len() as u64;
        if self.locality.is_none() || n == 0 {
            return NONE;
        }
        (self.interrupts.next_u64() % n) as u32
    }

    /// A guest LAN / VSWITCH message sent by processor `cpu` (speed `rate`) at `t`: CP takes a
    /// free NDMBK for the data, copies it to the receiver and gives the block back. With one
    /// system-wide list the get and the put are holds of the NDMBK lock (modelled as one
    /// acquisition of both holds, so requests stay in time order); with per-processor caches
    /// the lock is taken only when the cache is empty (refill; gets and puts balance on a
    /// processor, so no spill). The holds are part of `path.vnet_msg`; returns the wall time
    /// beyond them (spin, line transfers).
    pub fn ndmbk(&mut self, cpu: u32, t: Time, rate: u64) -> Time {
        let h = wall_for(self.hold_ndmbk, rate, 0);
        if self.ndmbk_batch == 0 {
            return self
                .acquire(LockId::Ndmbk, Mode::Excl, t, cpu, 2 * h)
                .extra();
        }
        let c = cpu as usize;
        if self.ndmbk_cache.len() <= c {
            self.ndmbk_cache.resize(c + 1, 0);
        }
        if self.ndmbk_cache[c] > 0 {
            return 0; // taken from and given back to this processor's cache
        }
        self.ndmbk_cache[c] = self.ndmbk_batch;
        self.acquire(LockId::Ndmbk, Mode::Excl, t, cpu, h * self.ndmbk_batch)
            .extra()
    }

    /// The instance of `id` a processor uses (its home zone for a zoned lock).
    #[inline]
    fn instance(&self, id: LockId, cpu: u32) -> usize {
        if id == LockId::Rsa2glck && self.zones > 1 {
            let z = cpu as usize % self.zones;
            if z == 0 {
                id as usize
            } else {
                N_LOCKS + z - 1
            }
        } else {
            id as usize
        }
    }

    /// Request lock `id` in `mode` at `t` from processor `cpu` for a hold of `hold` ns.
    /// Requests must come in nondecreasing `t`.
    pub fn acquire(&mut self, id: LockId, mode: Mode, t: Time, cpu: u32, hold: Time) -> Grant {
        let k = self.instance(id, cpu);
        self.acquire_inst(k, id, mode, t, cpu, hold, false)
    }

    /// VDISK serialization for an I/O on processor `cpu` at `t`: the system-wide instance for
    /// the whole request (`vdisk` None, before the fix), or VDISK `vdisk`'s own instance for the
    /// data move (after it). Returns the wall time added (spin and line transfers).
    pub fn vdisk(&mut self, cpu: u32, t: Time, hold: Time, vdisk: Option<u32>) -> Time {
        let k = match vdisk {
            None => LockId::Vdisk as usize,
            Some(v) => {
                let k = N_LOCKS + self.zones - 1 + v as usize;
                if self.inst.len() <= k {
                    self.inst.resize(k + 1, Inst::default());
                }
                k
            }
        };
        self.acquire_inst(k, LockId::Vdisk, Mode::Excl, t, cpu, hold, false)
            .extra()
    }

    /// A simulated guest ISKE on processor `cpu` at `t` against user `user`'s hot page: with
    /// `lock` the page's PTE is locked exclusive for `hold` ns (its lock bit sits beside the PTE
    /// data, so each spinner also takes the line from the holder); without, the key is read
    /// without taking the lock, but the reader must see the lock bit clear to read a consistent
    /// key, so it waits (reading the line) while an update holds it, and as a spinner on the
    /// line it stretches that holder like any other. Returns the wall time added (spin and
    /// line transfers).
    pub fn guest_pte(&mut self, cpu: u32, t: Time, user: u32, lock: bool, hold: Time) -> Time {
        if self.pte.len() <= user as usize {
            self.pte.resize(user as usize + 1, Inst::default());
        }
        if !lock {
            return self.pte_read(t, user);
        }
        // The user's PTE lock state rides on the end of the instance list for the call (the
        // VDISK instances own the indices after the zones).
        let inst = std::mem::take(&mut self.pte[user as usize]);
        self.inst.push(inst);
        let k = self.inst.len() - 1;
        let g = self.acquire_inst(k, LockId::GuestPte, Mode::Excl, t, cpu, hold, true);
        self.pte[user as usize] = self.inst.pop().unwrap_or_default();
        g.extra()
    }

    /// A lock-free read of `user`'s hot PTE at `t`: it waits for a holding update to release
    /// the lock bit (counted as a shared collision and spin of the PTE lock); it writes nothing.
    fn pte_read(&mut self, t: Time, user: u32) -> Time {
        let lk = &mut self.pte[user as usize];
        let spin = lk.excl_free.saturating_sub(t);
        let c = &mut self.counters[LockId::GuestPte as usize];
        c.acquires_shared += 1;
        if spin > 0 {
            lk.spinning.push(Reverse(t + spin));
            c.colls_shared += 1;
            c.spin_shared_ns += spin;
        }
        spin
    }

    /// Line reads an exclusive acquire of `id` adds to its hold: with VM65988
    /// (`sched_lock = excl-only-writes`) an exclusive SRMSLOCK acquirer reads the share lines of
    /// the other processors (the cost of shared acquires that write only their own line grows
    /// with the processors on the exclusive side); none for other locks and managers.
    fn excl_scan(&self, id: LockId) -> Time {
        if id == LockId::Srmslock && self.sched_lock == SchedLock::ExclOnlyWrites {
            self.sxl_scan
        } else {
            0
        }
    }

    /// `beside_data`: the lock word shares its line with the data it protects whatever the
    /// level (a PTE lock bit), so spinners stretch an exclusive hold.
    #[allow(clippy::too_many_arguments)]
    fn acquire_inst(
        &mut self,
        k: usize,
        id: LockId,
        mode: Mode,
        t: Time,
        cpu: u32,
        hold: Time,
        beside_data: bool,
    ) -> Grant {
        let mode = if id == LockId::Srmslock && self.sched_lock == SchedLock::Exclusive {
            Mode::Excl
        } else {
            mode
        };
        if hold == 0 && self.no_line_costs && self.inst[k].quiet_at(t) {
            return self.acquire_free(k, id, mode, t, cpu);
        }
        let terms = self.line_terms(k, id, cpu, hold, beside_data);
        let lk = &mut self.inst[k];
        lk.stop_spinners_by(t);
        let (start, line, end) = lk.grant(mode, t, cpu, hold, &terms);
        let spin = start - t;
        if spin > 0 {
            lk.spinning.push(Reverse(start));
        }
        self.counters[id as usize].count(mode, spin, line);
        Grant {
            start,
            spin,
            line,
            end,
        }
    }

    /// The cache-line terms of a request for instance `k` of `id` by `cpu`.
    #[inline(always)]
    fn line_terms(
        &self,
        k: usize,
        id: LockId,
        cpu: u32,
        hold: Time,
        beside_data: bool,
    ) -> LineTerms {
        LineTerms {
            line_ns: self.line_ns,
            own_line: self.own_line && !beside_data,
            touches: if id == LockId::Srmslock && !self.own_line {
                self.sched_touches
            } else {
                1.0
            },
            single_line: self.sched_lock == SchedLock::SingleLine,
            scan: self.excl_scan(id),
            // The hold's misses on the protected data, sourced from the previous holder: the
            // serialised section lasts longer; the path's own cost (charged by its caller, at
            // the static CPI that prices an average miss) is unchanged, so not in `line`.
            data: match &self.locality {
                Some(l) if cpu != NONE => l.extra(self.inst[k].last_writer, cpu, hold),
                _ => 0,
            },
        }
    }

    /// A request that costs nothing on a lock nobody holds or spins on (`acquire_inst` with
    /// no hold and `no_line_costs`: every term it would add is 0): granted at `t`, spin and
    /// line 0; the lock's state and counters change as that path changes them.
    #[inline]
    fn acquire_free(&mut self, k: usize, id: LockId, mode: Mode, t: Time, cpu: u32) -> Grant {
        let lk = &mut self.inst[k];
        let c = &mut self.counters[id as usize];
        match mode {
            Mode::Excl => {
                lk.excl_free = t;
                lk.last_writer = cpu;
                c.acquires_excl += 1;
            }
            Mode::Shared => {
                if self.sched_lock == SchedLock::SingleLine {
                    lk.line_free = t;
                    lk.last_writer = cpu;
                }
                lk.shared_free = t;
                c.acquires_shared += 1;
            }
        }
        Grant {
            start: t,
            spin: 0,
            line: 0,
            end: t,
        }
    }

    /// The dispatcher on `cpu` at `t`: looks at the dispatch list under the scheduler lock,
    /// shared when it only reads it, exclusive when it also runs list updates (its own
    /// slice-end requeue, D-list adds and drops queued since). Returns the extra time.
    /// A processor that found no work looks again only after it ran something or was woken
    /// (it waits; it does not poll the lock).
    /// `rate` is the processor's speed (crate::cpu::ONE = nominal): hold times are path lengths,
    /// so they last longer on a slower processor (drawer CPI, SMT). Returns wall time.
    pub fn dispatch(&mut self, cpu: u32, t: Time, found: bool, rate: u64) -> Time {
        let c = cpu as usize;
        let requeue = std::mem::take(&mut self.requeue[c]);
        let t = t.max(std::mem::take(&mut self.own_end[c]));
        let looked = std::mem::replace(&mut self.looked_idle[c], !found);
        if !found && looked && !requeue && self.pending_hold == 0 {
            return 0;
        }
        let updates = std::mem::take(&mut self.pending_hold);
        let (mode, hold) = if requeue || updates > 0 || (found && self.dispatch_excl) {
            (
                Mode::Excl,
                self.hold_dispatch + requeue as Time * self.hold_requeue + updates,
            )
        } else {
            (Mode::Shared, self.hold_dispatch)
        };
        self.acquire(LockId::Srmslock, mode, t, cpu, wall_for(hold, rate, 0))
            .extra()
    }

    /// Processor `cpu` was signalled to look for work: its next dispatch looks at the list
    /// even if its last look found nothing.
    pub fn signalled(&mut self, cpu: u32) {
        self.looked_idle[cpu as usize] = false;
    }

    /// A D-list add or drop at `t` (path.dlist_add_drop under the scheduler lock). Returns the
    /// wall time beyond the hold (spin, line) that the next dispatching processor runs.
    pub fn dlist_update(&mut self, t: Time) -> Time {
        self.list_change(t, self.hold_dlist)
    }

    /// A test-idle user readied at `t` for a new transaction (its class and list counts
    /// change). Returns the wall time beyond the hold, as `dlist_update`.
    pub fn ready_update(&mut self, t: Time) -> Time {
        self.list_change(t, self.hold_ready)
    }

    /// A scheduler-list change holding the lock exclusive for `hold`: folded into the next
    /// dispatch (returns 0), or its own acquisition at `t` (`sched_updates = at-event`).
    fn list_change(&mut self, t: Time, hold: Time) -> Time {
        if !self.updates_at_event {
            self.pending_hold += hold;
            return 0;
        }
        self.acquire(LockId::Srmslock, Mode::Excl, t, NONE, hold)
            .extra()
    }

    /// A virtual CPU goes idle (an enabled wait PSW, a guest I/O wait) on processor `cpu` at
    /// `t`. Before the exploitation SPE (`sched_waits = exclusive`) its state change is its own
    /// exclusive scheduler-lock hold of `lock.hold_requeue` (one VMDBK's state and queue
    /// position) on `cpu`, whose next dispatch asks for the lock when that hold ends (the
    /// dispatch's own time from then on). With the SPE only the dispatch vector is touched (no
    /// acquisition). Returns the wall time beyond the hold (spin, line transfers, stretch).
    pub fn vcpu_wait(&mut self, cpu: u32, t: Time, rate: u64) -> Time {
        if !self.waits_excl {
            return 0;
        }
        let h = wall_for(self.hold_requeue, rate, 0);
        let g = self.acquire(LockId::Srmslock, Mode::Excl, t, cpu, h);
        self.own_end[cpu as usize] = g.end;
        g.extra()
    }

    /// A virtual CPU of a user on the dispatch list is readied from a wait at `t` (a message,
    /// an I/O completion, a page-in). Before the exploitation SPE this is a scheduler-list
    /// change of `lock.hold_requeue` under the lock held exclusive (`list_change`: in the next
    /// dispatcher's hold, or its own acquisition with `sched_updates = at-event`); with it only
    /// the dispatch vector is touched. Returns the wall time beyond the hold. (Its own
    /// acquisition by default would make an idle processor signalled for the readied virtual
    /// CPU spin on the readier's hold at the same instant, where it really spends that time
    /// waking up.)
    pub fn vcpu_ready(&mut self, t: Time) -> Time {
        if !self.waits_excl {
            return 0;
        }
        self.list_change(t, self.hold_requeue)
    }

    /// A slice end on `cpu`: its requeue runs under the scheduler lock at its next dispatch.
    pub fn slice_end(&mut self, cpu: u32) {
        self.requeue[cpu as usize] = true;
    }

    /// A page-in completes at `t` and readies its virtual CPU, whose priority comes from the
    /// adjusted TOD, updated under SRMATDLK (cp-model §4.4, §5.1 [A]: which paths take SRMATDLK
    /// is not public; the page-in completion is assumed because C1's workload is paging-bound).
    /// No processor is known here; the extra time is run by the next processor that dispatches
    /// (like the scheduler's other pending work).
    pub fn atod_update(&mut self, t: Time) -> Time {
        self.atod_updates(t, 1)
    }

    /// `k` adjusted-TOD updates by one path at `t` (a page-in that readies `k` waiters): one
    /// hold of `k` updates, not `k` requests that would queue behind each other.
    pub fn atod_updates(&mut self, t: Time, k: u64) -> Time {
        if k == 0 {
            return 0;
        }
        let h = self.hold_atod * k;
        let cpu = self.interrupt_cpu();
        self.acquire(LockId::Srmatdlk, Mode::Excl, t, cpu, h)
            .extra()
    }

    /// One use of the CP-owned volume list at `t` under HCPPGDAL: a contiguous run of slots
    /// for a block page-out, or the slot of a page read back, given back.
    pub fn slots(&mut self, t: Time) -> Time {
        self.slots_n(t, 1)
    }

    /// `k` uses of the volume list by one path at `t` (a flush writing `k` blocks): one hold
    /// of `k` uses.
    pub fn slots_n(&mut self, t: Time, k: u64) -> Time {
        if k == 0 {
            return 0;
        }
        let h = self.hold_slot * k;
        let cpu = self.interrupt_cpu();
        self.acquire(LockId::Hcppgdal, Mode::Excl, t, cpu, h)
            .extra()
    }

    /// Processor `cpu` (speed `rate`) takes one frame and returns `frames - 1` (stolen) frames
    /// on the available list at `t`. Returns wall time.
    /// With demand-sensitive replenishment (`frame_replenish`) the frame taken comes from the
    /// processor's own list of free cleared frames when it has one (no lock); an empty list is
    /// refilled with `storage.cpu_list_batch` frames under one hold. Returned frames go back
    /// under the lock, the returner spinning for it like an allocator (`frame_returns = wait`),
    /// or are pushed on the zone's return queue with one interlocked update and chained by the
    /// next holder of the zone's lock (`queued`, 6.4). Each frame moved under the lock costs
    /// `lock.hold_frame` plus `storage.misses_per_frame` misses on its frame-table entry.
    pub fn frames(&mut self, cpu: u32, t: Time, frames: u64, rate: u64) -> Time {
        let returned = frames.saturating_sub(1);
        let taken = self.frames_taken(cpu);
        let z = self.zone_of(cpu);
        let (locked_returns, mut extra) = if self.queued_returns && returned > 0 {
            self.return_q[z] += returned;
            (0, self.touch_return_queue(z, cpu))
        } else {
            (returned, 0)
        };
        let moved = taken + locked_returns;
        if moved == 0 {
            return extra;
        }
        let drained = std::mem::take(&mut self.return_q[z]);
        if drained > 0 {
            extra += self.touch_return_queue(z, cpu);
        }
        let h = wall_for(self.hold_frame * (moved + drained), rate, 0);
        extra += self
            .acquire(LockId::Rsa2glck, Mode::Excl, t, cpu, h)
            .extra();
        extra
    }

    /// Frames processor `cpu` takes from the available list under the lock for one fault: one
    /// with lagging lists, a refill batch when its list of free cleared frames is empty, else 0.
    fn frames_taken(&mut self, cpu: u32) -> u64 {
        if self.cpu_batch == 0 {
            return 1;
        }
        let c = cpu as usize;
        if self.cpu_list.len() <= c {
            self.cpu_list.resize(c + 1, 0);
        }
        let refill = if self.cpu_list[c] == 0 {
            self.cpu_list[c] = self.cpu_batch;
            self.cpu_batch
        } else {
            0
        };
        self.cpu_list[c] -= 1;
        refill
    }

    /// An interlocked update of zone `z`'s return-queue head by `cpu` (a push, or the holder
    /// taking the queue): a line transfer unless this processor wrote it last. Returns wall ns.
    fn touch_return_queue(&mut self, z: usize, cpu: u32) -> Time {
        if self.return_last[z] == cpu && cpu != NONE {
            return 0;
        }
        self.return_last[z] = cpu;
        let cs = round_ns(self.line_ns);
        self.counters[LockId::Rsa2glck as usize].line_ns += cs;
        cs
    }

    /// Frames waiting on the zones' return queues (6.4 queued returns).
    pub fn frames_queued(&self) -> u64 {
        self.return_q.iter().sum()
    }

    /// The frame-manager zone of processor `cpu` (0 when not zoned).
    #[inline]
    fn zone_of(&self, cpu: u32) -> usize {
        if self.zones > 1 && cpu != NONE {
            cpu as usize % self.zones
        } else {
            0
        }
    }

    /// A search for a below-2GB frame of `hold` ns (path time at nominal speed) by processor
    /// `cpu` at `t`, under RSAAVLLK exclusive. Returns wall time (the search, spin, lines).
    pub fn below2g_search(&mut self, cpu: u32, t: Time, hold: Time, rate: u64) -> Time {
        let h = wall_for(hold, rate, 0);
        let g = self.acquire(LockId::Rsaavllk, Mode::Excl, t, cpu, h);
        h + g.extra()
    }

    /// Per-lock summary over `dur_ns` (FCX265-like figures).
    pub fn summary(c: &[LockCounters], dur_ns: f64) -> BTreeMap<String, LockSummary> {
        let s = dur_ns.max(1.0) / 1e9;
        c.iter()
            .enumerate()
            .filter(|(i, c)| *i < 4 || c.acquires() > 0)
            .map(|(i, c)| (NAMES[i].to_string(), LockSummary::new(c, s)))
            .collect()
    }
}

/// One lock over a run or an interval: Perfkit FCX265 LOCKLOG's columns (combined, with the
/// exclusive and shared parts).
#[derive(Clone, Debug, Serialize)]
pub struct LockSummary {
    pub acquires: u64,
    pub acquires_per_s: f64,
    pub collisions: u64,
    pub colls_per_s: f64,
    /// Mean spin per collision, microseconds.
    pub avg_spin_us: f64,
    /// Spin time / elapsed time, percent of one processor.
    pub spin_pct_busy: f64,
    pub colls_excl_per_s: f64,
    pub colls_shared_per_s: f64,
    pub spin_pct_busy_excl: f64,
    pub spin_pct_busy_shared: f64,
    /// Cache-line transfer time on the lock word, percent of one processor.
    pub line_pct_busy: f64,
}

impl LockSummary {
    pub fn new(c: &LockCounters, secs: f64) -> LockSummary {
        let coll = c.colls_excl + c.colls_shared;
        let spin = c.spin_excl_ns + c.spin_shared_ns;
        let pct = |ns: u64| 100.0 * ns as f64 / 1e9 / secs;
        LockSummary {
            acquires: c.acquires(),
            acquires_per_s: c.acquires() as f64 / secs,
            collisions: coll,
            colls_per_s: coll as f64 / secs,
            avg_spin_us: if coll > 0 {
                spin as f64 / 1e3 / coll as f64
            } else {
                0.0
            },
            spin_pct_busy: pct(spin),
            colls_excl_per_s: c.colls_excl as f64 / secs,
            colls_shared_per_s: c.colls_shared as f64 / secs,
            spin_pct_busy_excl: pct(c.spin_excl_ns),
            spin_pct_busy_shared: pct(c.spin_shared_ns),
            line_pct_busy: pct(c.line_ns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level;

    fn locks(level: &str, line_cycles: f64) -> Locks {
        let p = Params {
            lock_line_cycles: line_cycles,
            ..Params::default()
        };
        Locks::new(&p, &level::find(level).unwrap().switches, 4)
    }

    #[test]
    fn exclusive_holds_queue_fifo() {
        let mut l = locks("zvm-6.4", 0.0);
        let a = l.acquire(LockId::Hcppgdal, Mode::Excl, 0, 0, 100);
        let b = l.acquire(LockId::Hcppgdal, Mode::Excl, 10, 1, 100);
        let c = l.acquire(LockId::Hcppgdal, Mode::Excl, 20, 2, 100);
        assert_eq!((a.start, a.spin), (0, 0));
        assert_eq!((b.start, b.spin), (100, 90));
        assert_eq!((c.start, c.spin), (200, 180));
        let s = l.counters[LockId::Hcppgdal as usize];
        assert_eq!((s.acquires_excl, s.colls_excl, s.spin_excl_ns), (3, 2, 270));
    }

    #[test]
    fn ndmbk_single_list_locks_per_message_per_cpu_caches_per_batch() {
        // Four processors each send 100 messages at the same instants.
        let run = |level: &str| {
            let mut l = locks(level, 150.0);
            let mut extra = 0;
            for k in 0..100u64 {
                for cpu in 0..4 {
                    extra += l.ndmbk(cpu, k * 1000, crate::cpu::ONE);
                }
            }
            (l.counters[LockId::Ndmbk as usize], extra)
        };
        let (old, old_extra) = run("zvm-6.3-compat");
        let (new, new_extra) = run("zvm-6.3");
        assert_eq!(
            old.acquires_excl, 400,
            "one acquisition (get and put) per message"
        );
        assert!(
            old.colls_excl >= 300,
            "simultaneous senders collide: {old:?}"
        );
        // Per-processor caches: one refill per processor (gets and puts balance on it).
        assert_eq!(new.acquires_excl, 4);
        assert!(new.colls_excl <= 3 && new_extra * 50 < old_extra);
    }

    #[test]
    fn old_dispatcher_takes_the_scheduler_lock_exclusive_to_take_work() {
        let mut old = locks("zvm-6.3-compat", 0.0);
        let mut new = locks("zvm-6.3", 0.0);
        for l in [&mut old, &mut new] {
            for cpu in 0..4 {
                l.dispatch(cpu, 0, true, crate::cpu::ONE);
            }
        }
        let (o, n) = (
            old.counters[LockId::Srmslock as usize],
            new.counters[LockId::Srmslock as usize],
        );
        assert_eq!((o.acquires_excl, o.colls_excl), (4, 3));
        assert_eq!((n.acquires_shared, n.colls_excl + n.colls_shared), (4, 0));
    }

    #[test]
    fn shared_holds_overlap_exclusive_waits_for_them() {
        let mut l = locks("zvm-6.4-vm65988", 0.0);
        let a = l.acquire(LockId::Srmslock, Mode::Shared, 0, 0, 100);
        let b = l.acquire(LockId::Srmslock, Mode::Shared, 10, 1, 100);
        assert_eq!((a.spin, b.spin), (0, 0));
        let x = l.acquire(LockId::Srmslock, Mode::Excl, 20, 2, 50);
        assert_eq!(x.start, 110);
        let c = l.acquire(LockId::Srmslock, Mode::Shared, 30, 3, 10);
        assert_eq!(
            c.start, 160,
            "a shared request waits for the queued exclusive one"
        );
    }

    #[test]
    fn single_line_serializes_shared_acquires_on_the_line() {
        let mut old = locks("zvm-6.4", 100.0);
        let mut new = locks("zvm-6.4-vm65988", 100.0);
        let (mut spin_old, mut spin_new) = (0, 0);
        for k in 0..8u64 {
            spin_old += old
                .acquire(LockId::Srmslock, Mode::Shared, k, k as u32 % 4, 1000)
                .extra();
            spin_new += new
                .acquire(LockId::Srmslock, Mode::Shared, k, k as u32 % 4, 1000)
                .extra();
        }
        assert_eq!(spin_new, 0);
        assert!(spin_old > 8 * 2 * 19, "old manager: {spin_old}");
    }

    #[test]
    fn exclusive_manager_makes_shared_requests_exclusive() {
        let mut l = locks("zvm-6.4", 0.0);
        l.sched_lock = SchedLock::Exclusive;
        l.acquire(LockId::Srmslock, Mode::Shared, 0, 0, 100);
        let b = l.acquire(LockId::Srmslock, Mode::Shared, 0, 1, 100);
        assert_eq!(b.spin, 100);
    }

    #[test]
    fn zones_split_rsa2glck() {
        let p = Params {
            lock_line_cycles: 0.0,
            lock_frame_zones: 4.0,
            ..Params::default()
        };
        let mut sw = level::find("zvm-6.4").unwrap().switches;
        sw.frame_zones = FrameZones::Zoned;
        let mut l = Locks::new(&p, &sw, 8);
        let a = l.acquire(LockId::Rsa2glck, Mode::Excl, 0, 0, 100);
        let b = l.acquire(LockId::Rsa2glck, Mode::Excl, 0, 1, 100);
        let c = l.acquire(LockId::Rsa2glck, Mode::Excl, 0, 4, 100);
        assert_eq!((a.spin, b.spin, c.spin), (0, 0, 100));
    }
}
