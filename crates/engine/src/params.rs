//! The parameter table: every model constant, with its unit and its source.
//!
//! This is the one place where numbers enter the model. A scenario may override any entry
//! (`[params]` in the scenario file) for sensitivity studies; `zvmlab params` prints the table.
//! Sources: a seed row (kind C calibration, named), a public document, or "assumed" with a reason.
//! Per-operation CP costs are instruction path lengths; time = path × CPI / clock (cp-model §10.1),
//! so later processor effects (SMT, drawers, spinning) change every cost without retuning.

use serde::Serialize;
use std::cell::Cell;

#[derive(Clone, Debug, Serialize)]
pub struct ParamInfo {
    pub name: &'static str,
    pub default: f64,
    pub unit: &'static str,
    /// The physical range: `Params::set` refuses a value outside `[min, max]` (in `unit`).
    pub min: f64,
    pub max: f64,
    pub source: &'static str,
}

macro_rules! params {
    ($( $field:ident : $name:literal = $val:expr , $unit:literal , [ $lo:expr , $hi:expr ] , $source:literal ; )*) => {
        /// Values of every model parameter for one run.
        ///
        /// The engine reads a parameter through its method (`p.clock_ghz()`), which records the
        /// read (see [`reads_reset`] and [`reads_taken`]); the fields stay public for tests and
        /// struct-update syntax.
        #[derive(Clone, Debug, Serialize)]
        pub struct Params { $( pub $field: f64, )* }

        impl Default for Params {
            fn default() -> Self { Params { $( $field: $val, )* } }
        }

        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy)]
        enum Index { $( $field, )* }

        /// The table's names, in table order (the index of a parameter's read bit).
        const NAMES: &[&str] = &[ $( $name, )* ];

        /// The table: name, default, unit, range, source.
        pub fn table() -> Vec<ParamInfo> {
            vec![ $( ParamInfo { name: $name, default: $val, unit: $unit, min: $lo, max: $hi, source: $source }, )* ]
        }

        impl Params {
            $(
                #[doc = concat!("`", $name, "` (", $unit, "), recorded as read.")]
                #[inline]
                pub fn $field(&self) -> f64 {
                    mark_read(Index::$field as usize);
                    self.$field
                }
            )*

            /// Override one parameter by its table name.
            pub fn set(&mut self, name: &str, v: f64) -> Result<(), String> {
                match name {
                    $( $name => {
                        // NaN is in no range: refused too.
                        if !($lo..=$hi).contains(&v) {
                            return Err(format!(
                                "parameter '{name}' must be within [{}, {}] {} (got {v})", $lo, $hi, $unit));
                        }
                        self.$field = v;
                        Ok(())
                    } )*
                    _ => Err(format!("unknown parameter '{name}'; `zvmlab params` lists them")),
                }
            }
        }
    };
}

const READ_WORDS: usize = 4;

thread_local! {
    /// The parameters read since the last [`reads_reset`] on this thread, one bit each.
    static READS: Cell<[u64; READ_WORDS]> = const { Cell::new([0; READ_WORDS]) };
}

fn mark_read(i: usize) {
    READS.with(|r| {
        let mut w = r.get();
        w[i / 64] |= 1 << (i % 64);
        r.set(w);
    });
}

/// Forget the parameters read so far on this thread (a run starts: `Sim::new` calls it).
pub fn reads_reset() {
    READS.with(|r| r.set([0; READ_WORDS]));
}

/// The parameters read on this thread since the last [`reads_reset`], as bits (see
/// [`names_read`]).
pub fn reads_taken() -> ReadSet {
    ReadSet(READS.with(|r| r.get()))
}

/// A set of parameters read (one bit per table row).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadSet([u64; READ_WORDS]);

impl ReadSet {
    /// Both sets together.
    pub fn union(self, o: ReadSet) -> ReadSet {
        let mut w = self.0;
        for (a, b) in w.iter_mut().zip(o.0) {
            *a |= b;
        }
        ReadSet(w)
    }
}

/// The names in a set of parameters read, in table order: what a run's results can depend on
/// (the robustness check perturbs only these).
pub fn names_read(r: ReadSet) -> Vec<&'static str> {
    let w = r.0;
    NAMES
        .iter()
        .enumerate()
        .filter(|(i, _)| w[i / 64] >> (i % 64) & 1 == 1)
        .map(|(_, n)| *n)
        .collect()
}

params! {
    clock_ghz: "cpu.clock_ghz" = 5.2, "GHz", [0.5, 10.0],
        "public: z14 processor clock 5.2 GHz (cp-model §10.1); a run takes its machine's clock (cpu.<machine>.ghz, the z14 when it names none) unless its [params] set this row";
    cpi_cp: "cpu.cpi_cp" = 3.0, "cycles/instruction", [0.5, 20.0],
        "assumed: CP code CPI ~3 (cp-model §10.1) on a one-chip LPAR; on more chips and drawers CP work slows with the core's speed factor from the drawer CPI model (cpi.*, cpu.rs)";
    path_dispatch: "path.dispatch" = 2100.0, "instructions", [0.0, 100000000.0],
        "assumed: dispatcher select 1500 + SIE entry/exit 600 instructions per dispatch (cp-model §10.2); charged to the dispatched user";
    hw_sie_cycles: "hw.sie_cycles" = 3000.0, "cycles", [0.0, 1000000.0],
        "assumed: hardware SIE entry + exit cost per dispatch (cp-model §10.2)";
    path_slice_end: "path.slice_end" = 1500.0, "instructions", [0.0, 100000000.0],
        "assumed: deadline recompute + requeue at each minor time slice end (cp-model §4.2); system (nonchargeable) time";
    dspslice: "srm.dspslice" = 5.0, "ms", [1.0, 1000000000.0],
        "public: SET SRM DSPSLICE, 1-100 ms, computed at IPL, about 5 ms on z13/z14 (cp-model §4.2); the range goes beyond CP's 100 ms for the FCFS reference model of `zvmlab bench` (1e9 ms: never preempt)";
    iabias_intensity: "srm.iabias_intensity" = 90.0, "%", [0.0, 100.0],
        "public: SET SRM IABIAS intensity, initial value 90 (CP Commands, cp-model §4.2); shape of the decay over the slices is assumed (cp-model §4.2 [A])";
    iabias_duration: "srm.iabias_duration" = 2.0, "minor time slices", [0.0, 100.0],
        "public: SET SRM IABIAS duration, initial value 2 (CP Commands, cp-model §4.2)";
    dspbuf_e1: "srm.dspbuf_e1" = 32767.0, "users", [0.0, 32767.0],
        "public: SET SRM DSPBUF, openings in the dispatch list for E1..E3 users; DSPBUF INITIAL is effectively infinite (CP Commands p.1420, cp-model §4.3)";
    dspbuf_e2: "srm.dspbuf_e2" = 32767.0, "users", [0.0, 32767.0],
        "public: SET SRM DSPBUF second value (openings for E2 and E3), INITIAL effectively infinite (cp-model §4.3)";
    dspbuf_e3: "srm.dspbuf_e3" = 32767.0, "users", [0.0, 32767.0],
        "public: SET SRM DSPBUF third value (openings for E3), INITIAL effectively infinite (cp-model §4.3)";
    storbuf_e1: "srm.storbuf_e1" = 0.0, "% of pageable storage", [0.0, 999.0],
        "public: SET SRM STORBUF first value, the storage an E1 user must fit under counting Q1+Q2+Q3 working sets (CP Commands p.1417-1420, cp-model §4.3); 0 = the level's default, 125 through z/VM 6.2 and 300 from 6.3 (cp-model §4.3 [K])";
    storbuf_e2: "srm.storbuf_e2" = 0.0, "% of pageable storage", [0.0, 999.0],
        "public: SET SRM STORBUF second value (E2, counting Q2+Q3; cp-model §4.3); 0 = the level's default, 105 through 6.2, 250 from 6.3 [K]";
    storbuf_e3: "srm.storbuf_e3" = 0.0, "% of pageable storage", [0.0, 999.0],
        "public: SET SRM STORBUF third value (E3, counting Q3; cp-model §4.3); 0 = the level's default, 95 through 6.2, 200 from 6.3 [K]";
    ldubuf_e1: "srm.ldubuf_e1" = 100.0, "% of paging exposures", [0.0, 9999.0],
        "public: SET SRM LDUBUF first value, loading users (Q1+Q2+Q3) per paging exposure an E1 loading user must fit under (cp-model §4.3); default 100 [K, verify on QUERY SRM]; applied by levels with storage_admission = classic (through 6.2), see level.rs";
    ldubuf_e2: "srm.ldubuf_e2" = 75.0, "% of paging exposures", [0.0, 9999.0],
        "public: SET SRM LDUBUF second value (cp-model §4.3); default 75 [K]";
    ldubuf_e3: "srm.ldubuf_e3" = 60.0, "% of paging exposures", [0.0, 9999.0],
        "public: SET SRM LDUBUF third value (cp-model §4.3); default 60 [K]";
    maxwss: "srm.maxwss" = 9999.0, "% of pageable storage", [0.0, 9999.0],
        "public: SET SRM MAXWSS, the largest working set a user may have on the dispatch list before it is dropped to the eligible list (cp-model §4.3); default 9999 (no limit) [K]";
    loading_faults: "srm.loading_faults" = 5.0, "page-ins per minor time slice of CPU", [0.0, 1000.0],
        "assumed: a user is loading (counted against LDUBUF) when its last dispatch-list stay took at least this many page-ins per minor time slice of CPU it used; CP's exact test is not public, 'a high page-fault rate' (cp-model §4.3)";
    ets_e1: "srm.ets_e1" = 50.0, "ms", [1.0, 60000.0],
        "assumed: elapsed time slice of an E1 (Q1) stay in the dispatch list; CP adjusts it dynamically (cp-model §4.1), fixed here";
    ets_ratio_e2: "srm.ets_ratio_e2" = 8.0, "x E1", [1.0, 100.0],
        "assumed: E2 elapsed time slice = 8 x E1, the classic documented ratio, not re-read (cp-model §4.1 [K])";
    ets_ratio_e3: "srm.ets_ratio_e3" = 6.0, "x E2", [1.0, 100.0],
        "assumed: E3 elapsed time slice = 6 x E2, the classic documented ratio, not re-read (cp-model §4.1 [K])";
    test_idle: "srm.test_idle" = 300.0, "ms", [0.0, 60000.0],
        "public: 'On an unmodified VM system, the test-idle timer is set to 300 milliseconds' (IBM, description of the SRMTIDLE package, vm.ibm.com/download/packages/descript.cgi?SRMTIDLE; docs/research/parameter-sources.md): the grace period a user that went idle stays in the dispatch list before it drops to the dormant list";
    sched_tick: "sched.tick" = 100.0, "ms", [1.0, 10000.0],
        "assumed: period of the scheduler's own pass (test-idle scan, eligible-list admission check, 6.4 entitlement refresh); short against the 1-2 s of cp-model §4.6";
    demand_tau: "sched.demand_tau" = 500.0, "ms", [1.0, 1000000.0],
        "assumed: smoothing time constant of the 6.4 scheduler's measured demand (consumption + time wanting CPU); a few ticks, short against a monitor interval";
    abs_cap: "sched.abs_cap" = 0.99, "fraction of system", [0.01, 1.0],
        "assumed: ABSOLUTE shares summing above this are scaled down to it so relative users keep something (cp-model §4.5 [K/A])";
    limit_bucket: "srm.limit_bucket" = 4.0, "minor time slices per virtual CPU", [0.1, 1000.0],
        "assumed: credit (in slices per virtual CPU) a LIMITHARD user may save up while it waits for a processor, consumption method (cp-model §4.6); a few slices so that dispatch delays among processors busy with full slices are not lost, small against a monitor interval";
    path_dlist: "path.dlist_add_drop" = 3000.0, "instructions", [0.0, 100000000.0],
        "assumed: dispatch-list add or drop under the scheduler lock (cp-model §10.2); system time";
    path_limit: "path.limit_list" = 1500.0, "instructions", [0.0, 100000000.0],
        "assumed: limit-list add plus later drop of one virtual CPU (cp-model §4.6); system time";
    path_entitle: "path.entitlement_per_user" = 400.0, "instructions", [0.0, 100000000.0],
        "assumed: per user and scheduler tick, 6.4 demand measurement and entitlement/excess water-fill (sort + pass); system time";
    tx_cpu_default: "workload.tx_cpu_default" = 10.0, "ms", [0.001, 60000.0],
        "assumed: CPU per transaction of a cpu-bound workload when the scenario names none (a unit of work for ETR)";
    burst_default: "workload.burst_default" = 2.0, "ms", [0.001, 60000.0],
        "assumed: mean CPU burst of a partially busy cpu-bound user (demand < 1): short against the 5 ms slice, long against dispatch cost";
    path_vnet_msg: "path.vnet_msg" = 56000.0, "instructions per message", [0.0, 100000000.0],
        "seed 001 (row B7, 4-core column, kind C: calibrated so that scenarios/apache-cpu.toml gives T/V 1.13 and ITR 6878 at 4 cores): CP path of one HTTP request or reply through guest LAN / VSWITCH (several frames copied into the receiver's buffers, adapter interruptions); chargeable to the sender; with cache.warmth = 1 (CP path slowed by its coherence misses, guests by their footprint reloads) the same figures need 50400 with B7's guests at 310 / 133 us (measured, not applied while the model is off by default: docs/research/calibration.md 'Cache warmth on')";
    // --- processors, PR/SM, SMT, spin locks (issue 4): add entries below this line ---
    // spin locks (crate::locks)
    lock_line_cycles: "lock.line_cycles" = 150.0, "cycles per cache-line transfer", [0.0, 1000000.0],
        "assumed: one transfer of a lock word's line between processors of one drawer (on-chip L3 ~50 cycles, other chip via L4 a few hundred); each processor spinning on the line adds one more (invalidation), cp-model §5.2";
    lock_data_line_touches: "lock.data_line_touches" = 8.0, "holder accesses to the lock's line per exclusive hold", [1.0, 20.0],
        "assumed (docs/research/where-cp-breaks.md §1.3, §7.0, §7.1): without VM65696 (lock_line = shared) SRMSLOCK's word shares its line with SRMBK fields the holder of a list change reads and writes (the eligible/dormant anchors and per-class last-added pointers sit at the very start of the SRMBK, SRMBK 4.1/6.2); each such access waits behind the k spinners polling the line, so an exclusive hold is stretched by this many transfers per spinner. VM65696 says other fields shared the line, not which or how often; a list change touching a handful of anchors, counts and pointers, some twice, gives the order of 8; the 6.3 SRMBK layout would bound it. 1 is the old one-transfer-per-spinner stretch";
    lock_hold_shared_misses: "lock.hold_shared_misses" = 0.5, "share of a lock-held path's L1 misses", [0.0, 1.0],
        "assumed (issue 17; crates/engine/src/lines.rs, docs/research/where-cp-breaks-model.md §7): the share of a lock-held CP path's L1 misses that are to lines of the structure the lock protects, last written by the lock's previous holder and sourced from its cache (the rest, code and per-processor data, stay local and cost the static CPI). No public figure; a hold mixes code (hot, local) and the protected data (written by every holder), so about half; 0 is the model before issue 17's locality mechanism and 1 its upper bound";
    wake_fanout: "sched.wake_fanout" = 1.0, "idle processors signalled per readying", [1.0, 4.0],
        "assumed (docs/research/where-cp-breaks.md §2.1, §7.2): when work is queued CP signals idle processors to come and take it (VM/370's dispatcher signalled the other processor, one; VM65199 fixed eligible processors not being signalled for SYSTEMMP work); how many are signalled per readying is not public. Each signalled processor wakes (prsm.path_wake) and looks at the dispatch list under SRMSLOCK (shared; under the single-line manager the look writes the lock's line); all but the first find the work gone. 1 (the documented single signal) is the default; 2 to 4 are what-ifs (docs/research/where-cp-breaks-model.md: at 2 the C1 workload's SRMSLOCK collisions quadruple at every core count and do not grow with cores)";
    lock_hold_dispatch: "lock.hold_dispatch" = 300.0, "instructions", [0.0, 100000000.0],
        "assumed: part of path.dispatch that reads the dispatch list under the scheduler lock (SRMSLOCK, shared where the manager allows), cp-model §4.7 [A]";
    lock_hold_requeue: "lock.hold_requeue" = 500.0, "instructions", [0.0, 100000000.0],
        "assumed: part of path.slice_end that requeues the virtual CPU under the scheduler lock held exclusive, cp-model §4.7 [A]; a D-list add or drop holds it for path.dlist_add_drop. Before the z13 exploitation SPE (switch sched_waits = exclusive) also the hold of a virtual CPU's wait and of its readying, the same work on one VMDBK (docs/research/where-cp-breaks-model.md §6)";
    lock_hold_ready: "lock.hold_ready" = 4622.0, "instructions", [0.0, 100000000.0], // calibrated from row C1 (16 cores)
        "seed 001 (row C1, kind C, 16-core SRMSLOCK usec/collision 2.3, calibrated on the Apache DASD paging workload d8-apache-paging.toml with its D8 4-core calibration, docs/research/calibration.md): a test-idle user readied for a new transaction (class and list counts updated, its virtual CPU back on a dispatch vector) under the scheduler lock held exclusive, cp-model §4.7; in that workload these readyings are most of SRMSLOCK's exclusive holds, which the shared lookers collide with (lock.hold_requeue and lock.hold_dispatch barely move the figure); with cache.warmth = 1 and D8's refit for it the same figure needs 7000 (measured before the hold-locality refit of issue 17, not applied: docs/research/calibration.md 'Cache warmth on'); refit with lock.hold_shared_misses = 0.5 (issue 17, docs/research/where-cp-breaks-model.md §7)";
    lock_hold_atod: "lock.hold_atod" = 16758.0, "instructions", [0.0, 100000000.0], // calibrated from row C1 (16 cores)
        "seed 001 (row C1, kind C, 16-core SRMATDLK usec/collision 15.1, calibrated on d8-apache-paging.toml with its D8 4-core calibration, docs/research/calibration.md): update of the adjusted TOD (SRMATOD) under SRMATDLK when a page-in readies a virtual CPU and its priority is computed from it, cp-model §4.4/§5.1 [A]; far longer than a TOD update needs, because the model takes SRMATDLK once per page-in (about 50000/s at 16 cores), so only a long hold queues long enough for 15.1 us per collision; its collisions/s and spin %busy then come out about 17 times the seed's; refit with lock.hold_shared_misses = 0.5 (issue 17, docs/research/where-cp-breaks-model.md §7)";
    lock_hold_slot: "lock.hold_slot" = 8380.0, "instructions per use", [0.0, 100000000.0], // calibrated from row C1 (16 cores)
        "seed 001 (row C1, kind C, 16-core HCPPGDAL usec/collision 4.82, calibrated on the Apache DASD paging workload d8-apache-paging.toml, rechecked after its D8 4-core calibration: 4.73, docs/research/calibration.md): one use of the CP-owned volume list under HCPPGDAL: finding a contiguous run of slots for a block page-out (next-fit on the least-busy volume, cp-model §7.2), or giving back the slot of a page read (assumed); collisions/s and spin %busy at 16 cores then come out within 5 % of the seed; with cache.warmth = 1: 10700 (measured before the hold-locality refit of issue 17, not applied); refit with lock.hold_shared_misses = 0.5 (issue 17, docs/research/where-cp-breaks-model.md §7)";
    path_iske: "path.iske" = 1500.0, "instructions", [0.0, 100000000.0],
        "assumed: CP's simulation of one intercepted guest ISKE (SIE exit, decode, key from the PGSTE, SIE re-entry), chargeable to the guest (seed 001: guest ISKE is simulated)";
    lock_hold_pte: "lock.hold_pte" = 400.0, "instructions", [0.0, 100000000.0],
        "assumed: the part of the ISKE simulation run with the guest PTE locked (cp-model §5.1 [A])";
    key_update_fraction: "memtst.key_update_fraction" = 0.1, "fraction of key operations", [0.0, 1.0],
        "assumed: with the PTE serialization fix only key operations that change the key or its reference/change bits still lock the PTE; memtst allocates and frees storage, so about one in ten is taken to set a key (not derived from row C2's figures)";
    cpu_list_batch: "storage.cpu_list_batch" = 16.0, "frames", [1.0, 1024.0],
        "assumed: frames one demand-sensitive refill of a logical CPU's list of free cleared frames moves from the global available list under one RSA2GLCK hold (seed 001 describes the lists, not their size)";
    lock_hold_ndmbk: "lock.hold_ndmbk" = 150.0, "instructions", [0.0, 100000000.0],
        "assumed: taking an NDMBK from (or giving one back to) the free list under the NDMBK lock: unchain or chain one block and count it (seed 001 names the lock, not its path)";
    ndmbk_cache: "vnet.ndmbk_cache" = 16.0, "NDMBKs", [0.0, 4096.0],
        "assumed: NDMBKs one refill (or spill) of a processor's cache moves under one NDMBK lock hold, with per-processor caches (switch ndmbk); like storage.cpu_list_batch";
    lock_hold_frame: "lock.hold_frame" = 200.0, "instructions per frame", [0.0, 100000000.0],
        "assumed: dequeue or enqueue of one frame on the > 2 GB available list under RSA2GLCK, cp-model §6.2 [A]";
    misses_per_frame: "storage.misses_per_frame" = 1.0, "cache misses per frame moved", [0.0, 4.0],
        "assumed (docs/research/where-cp-breaks.md §7.0, §7.4): moving a frame on or off the > 2 GB available list under RSA2GLCK (or a zone's lock) touches its frame-table entry, which a frame not recently used has out of every cache; each miss costs cpi.cycles_remote, so the lock's capacity is a few million frames per second whatever the batching. Physical range 1-2 (the entry, and a list neighbour's link); 0 is the old model";
    lock_frame_zones: "storage.frame_zones" = 8.0, "zones", [1.0, 64.0],
        "assumed: frame-manager zones of the 6.4 2 TB support (seed 000 gives no count); RSA2GLCK is split with them";
    smt_c2: "smt.c2" = 1.25, "x a non-SMT core", [1.0, 2.0], // calibrated from row B1
        "seed 000 (row B1, kind C, calibrated): z14 SMT-2 vs non-SMT per-core capacity +10 % to +40 %, average +25 %: capacity of a core with both threads busy (each thread runs at c2 / 2)";
    z13_cores_per_chip: "cpu.z13.cores_per_chip" = 8.0, "cores", [1.0, 32.0],
        "public: z13 PU chip with 8 physical cores, 6-8 enabled (IBM z13 Technical Guide SG24-8251, via docs/research/machines-and-caches.md §1.1); a dedicated LPAR is taken to fill whole chips (assumed)";
    z13_chips_per_drawer: "cpu.z13.chips_per_drawer" = 6.0, "chips", [1.0, 16.0],
        "public: z13 CPC drawer of 2 nodes x (3 PU chips + 1 SC) (IBM z13 Technical Guide SG24-8251, via docs/research/machines-and-caches.md §1.1); with 8 cores per chip a 32-core LPAR fits one drawer and 64 cores span two, as in seed 001 Table 9";
    z14_cores_per_chip: "cpu.z14.cores_per_chip" = 10.0, "cores", [1.0, 32.0],
        "public: z14 PU chip with 10 physical cores, 7-10 enabled (IBM z14 Technical Guide SG24-8451, via docs/research/machines-and-caches.md §1.1)";
    z14_chips_per_drawer: "cpu.z14.chips_per_drawer" = 6.0, "chips", [1.0, 16.0],
        "public: z14 CPC drawer of 2 clusters x 3 PU chips + 1 SC (IBM z14 Technical Guide SG24-8451 §2.1, via docs/research/machines-and-caches.md §1.1)";
    // --- machine generations (issue 18 item 4): topology, clock, z/VM's LPAR limit, SMT, caches ---
    z196_cores_per_chip: "cpu.z196.cores_per_chip" = 4.0, "cores", [1.0, 32.0],
        "public: z196 PU chip with 4 cores sharing the chip's L3 (Rogers, 'Beyond the z196 Pipeline', IBM Systems Magazine 2012; docs/research/machines-and-caches.md §1.1, D)";
    z196_chips_per_drawer: "cpu.z196.chips_per_drawer" = 6.0, "chips", [1.0, 16.0],
        "public: z196 book MCM of 6 PU + 2 SC chips (IBM z196 Technical Guide SG24-7833, secondary source; docs/research/machines-and-caches.md §1.1, D2); 24 physical cores, 20 characterisable";
    z196_nodes_per_drawer: "cpu.z196.nodes_per_drawer" = 1.0, "nodes", [1.0, 4.0],
        "public: one L4 (or virtual L4) domain per book (docs/research/machines-and-caches.md §1.2, D)";
    z196_drawers: "cpu.z196.drawers" = 4.0, "drawers", [1.0, 8.0],
        "public: up to 4 books (secondary source; docs/research/machines-and-caches.md §1.1, D2)";
    z196_ghz: "cpu.z196.ghz" = 5.2, "GHz", [0.5, 10.0],
        "public: z196 clock 5.2 GHz (IBM J. Res. Dev. 56(1/2) 2012; Wolf 2016; docs/research/machines-and-caches.md §1.1, D); the run's cpu.clock_ghz unless the scenario sets that";
    z196_max_lpar_cores: "cpu.z196.max_lpar_cores" = 32.0, "cores", [1.0, 64.0],
        "public: z/VM 6.3 runs at most 32 logical processors in an LPAR; the 64 limit applies from the z13 on (seed 001, D); the z196 itself has at most 80 customer cores (docs/research/machines-and-caches.md §1.1)";
    z196_smt: "cpu.z196.smt" = 0.0, "flag (1 = SMT-2 capable)", [0.0, 1.0],
        "public: no SMT on the z196 (SMT came with the z13: z/VM CP Planning 'Simultaneous multithreading'; docs/research/machines-and-caches.md §1.1); 1 = SMT-2 for IFLs";
    z196_l1_kb: "cache.z196.l1_kb" = 128.0, "KB per core (L1 data)", [1.0, 1048576.0],
        "public: Extract-CPU-Attribute output of a z196 (valgrind none/tests/s390x/ecag.stdout.exp-z196; docs/research/machines-and-caches.md §1.2, D)";
    z196_l2_kb: "cache.z196.l2_kb" = 1536.0, "KB per core (L2, unified)", [1.0, 1048576.0],
        "public: ECAG of a z196 (valgrind ecag.stdout.exp-z196; docs/research/machines-and-caches.md §1.2, D)";
    z196_l3_kb: "cache.z196.l3_kb" = 24576.0, "KB per chip (L3)", [1.0, 10485760.0],
        "public: ECAG of a z196, eDRAM shared by the chip's cores (docs/research/machines-and-caches.md §1.2, D)";
    z196_l4_kb: "cache.z196.l4_kb" = 196608.0, "KB per node (L4)", [1.0, 10485760.0],
        "public: ECAG of a z196: L4 shared by every core of a book (docs/research/machines-and-caches.md §1.2, D)";
    zec12_cores_per_chip: "cpu.zEC12.cores_per_chip" = 6.0, "cores", [1.0, 32.0],
        "public: zEC12 PU chip with 6 cores, 4-6 enabled (IBM zEC12 Technical Guide SG24-8049, secondary source; docs/research/machines-and-caches.md §1.1, D2)";
    zec12_chips_per_drawer: "cpu.zEC12.chips_per_drawer" = 6.0, "chips", [1.0, 16.0],
        "public: zEC12 book MCM of 6 PU + 2 SC chips (IBM zEC12 Technical Guide SG24-8049, secondary source; docs/research/machines-and-caches.md §1.1, D2); 36 physical cores, 30 enabled";
    zec12_nodes_per_drawer: "cpu.zEC12.nodes_per_drawer" = 1.0, "nodes", [1.0, 4.0],
        "public: one L4 (or virtual L4) domain per book (docs/research/machines-and-caches.md §1.2, D)";
    zec12_drawers: "cpu.zEC12.drawers" = 4.0, "drawers", [1.0, 8.0],
        "public: up to 4 books (secondary source; docs/research/machines-and-caches.md §1.1, D2)";
    zec12_ghz: "cpu.zEC12.ghz" = 5.5, "GHz", [0.5, 10.0],
        "public: zEC12 clock 5.5 GHz (Wolf 2016; Sonnelitter 2013; docs/research/machines-and-caches.md §1.1, D); the run's cpu.clock_ghz unless the scenario sets that";
    zec12_max_lpar_cores: "cpu.zEC12.max_lpar_cores" = 32.0, "cores", [1.0, 64.0],
        "public: z/VM 6.3 runs at most 32 logical processors in an LPAR; the 64 limit applies from the z13 on (seed 001, D); the zEC12 itself has at most 101 customer cores (docs/research/machines-and-caches.md §1.1)";
    zec12_smt: "cpu.zEC12.smt" = 0.0, "flag (1 = SMT-2 capable)", [0.0, 1.0],
        "public: no SMT on the zEC12 (SMT came with the z13: z/VM CP Planning 'Simultaneous multithreading'; docs/research/machines-and-caches.md §1.1); 1 = SMT-2 for IFLs";
    zec12_l1_kb: "cache.zEC12.l1_kb" = 96.0, "KB per core (L1 data)", [1.0, 1048576.0],
        "public: Extract-CPU-Attribute output of a zEC12 (valgrind none/tests/s390x/ecag.stdout.exp-zec12; docs/research/machines-and-caches.md §1.2, D)";
    zec12_l2_kb: "cache.zEC12.l2_kb" = 2048.0, "KB per core (L2, I + D)", [1.0, 1048576.0],
        "public: ECAG of a zEC12 (valgrind ecag.stdout.exp-zec12; docs/research/machines-and-caches.md §1.2, D)";
    zec12_l3_kb: "cache.zEC12.l3_kb" = 49152.0, "KB per chip (L3)", [1.0, 10485760.0],
        "public: ECAG of a zEC12, eDRAM shared by the chip's cores (docs/research/machines-and-caches.md §1.2, D)";
    zec12_l4_kb: "cache.zEC12.l4_kb" = 393216.0, "KB per node (L4)", [1.0, 10485760.0],
        "public: ECAG of a zEC12: L4 shared by every core of a book (docs/research/machines-and-caches.md §1.2, D)";
    z13_nodes_per_drawer: "cpu.z13.nodes_per_drawer" = 2.0, "nodes", [1.0, 4.0],
        "public: a z13 drawer holds 2 nodes of 3 PU chips, each node with its own 480 MB L4 (z13s Technical Guide SG24-8294 p.86; docs/research/machines-and-caches.md §1.1-1.2, D)";
    z13_drawers: "cpu.z13.drawers" = 4.0, "drawers", [1.0, 8.0],
        "public: up to 4 CPC drawers (secondary source; docs/research/machines-and-caches.md §1.1, D2)";
    z13_ghz: "cpu.z13.ghz" = 5.0, "GHz", [0.5, 10.0],
        "public: z13 clock 5.0 GHz (Wolf 2016; docs/research/machines-and-caches.md §1.1, D); the run's cpu.clock_ghz unless the scenario sets that";
    z13_max_lpar_cores: "cpu.z13.max_lpar_cores" = 64.0, "cores", [1.0, 64.0],
        "public: z/VM 6.3 with VM65586, 6.4 and 7.1 run at most 64 logical processors (32 cores x 2 threads with SMT) in an LPAR from the z13 on (seeds 000, 001, D; 80 from z/VM 7.3, recalled, not modelled); the z13 itself has up to 141 customer cores (docs/research/machines-and-caches.md §1.1)";
    z13_smt: "cpu.z13.smt" = 1.0, "flag (1 = SMT-2 capable)", [0.0, 1.0],
        "public: SMT-2 for IFL and zIIP from the z13 on (seed 001 for the z13, seed 000 for the z14, z/VM CP Planning for later machines; docs/research/machines-and-caches.md §1.1); 0 = no SMT";
    z13_l1_kb: "cache.z13.l1_kb" = 128.0, "KB per core (L1 data)", [1.0, 1048576.0],
        "public: Extract-CPU-Attribute output of a z13 (valgrind none/tests/s390x/ecag.stdout.exp-z13; docs/research/machines-and-caches.md §1.2, D)";
    z13_l2_kb: "cache.z13.l2_kb" = 4096.0, "KB per core (L2, I + D)", [1.0, 1048576.0],
        "public: ECAG of a z13 (valgrind ecag.stdout.exp-z13; docs/research/machines-and-caches.md §1.2, D)";
    z13_l3_kb: "cache.z13.l3_kb" = 65536.0, "KB per chip (L3)", [1.0, 10485760.0],
        "public: ECAG of a z13, eDRAM shared by the chip's cores (docs/research/machines-and-caches.md §1.2, D)";
    z13_l4_kb: "cache.z13.l4_kb" = 491520.0, "KB per node (L4)", [1.0, 10485760.0],
        "public: ECAG of a z13: L4 shared by every core of a node (half drawer) (docs/research/machines-and-caches.md §1.2, D)";
    z14_nodes_per_drawer: "cpu.z14.nodes_per_drawer" = 1.0, "nodes", [1.0, 4.0],
        "public: one L4 (or virtual L4) domain per drawer (docs/research/machines-and-caches.md §1.2, D)";
    z14_drawers: "cpu.z14.drawers" = 4.0, "drawers", [1.0, 8.0],
        "public: up to 4 CPC drawers (IBM z14 Technical Guide SG24-8451 §2.1; docs/research/machines-and-caches.md §1.1, D)";
    z14_ghz: "cpu.z14.ghz" = 5.2, "GHz", [0.5, 10.0],
        "public: z14 clock 5.2 GHz (locks-and-caches §3, wikichip; docs/research/machines-and-caches.md §1.1, D2); the run's cpu.clock_ghz unless the scenario sets that";
    z14_max_lpar_cores: "cpu.z14.max_lpar_cores" = 64.0, "cores", [1.0, 64.0],
        "public: z/VM 6.3 with VM65586, 6.4 and 7.1 run at most 64 logical processors (32 cores x 2 threads with SMT) in an LPAR from the z13 on (seeds 000, 001, D; 80 from z/VM 7.3, recalled, not modelled); the z14 itself has up to 170 customer cores (docs/research/machines-and-caches.md §1.1)";
    z14_smt: "cpu.z14.smt" = 1.0, "flag (1 = SMT-2 capable)", [0.0, 1.0],
        "public: SMT-2 for IFL and zIIP from the z13 on (seed 001 for the z13, seed 000 for the z14, z/VM CP Planning for later machines; docs/research/machines-and-caches.md §1.1); 0 = no SMT";
    z14_l1_kb: "cache.z14.l1_kb" = 128.0, "KB per core (L1 data)", [1.0, 1048576.0],
        "public: Extract-CPU-Attribute output of a z14 (valgrind none/tests/s390x/ecag.stdout.exp-z14; docs/research/machines-and-caches.md §1.2, D)";
    z14_l2_kb: "cache.z14.l2_kb" = 6144.0, "KB per core (L2, I + D)", [1.0, 1048576.0],
        "public: ECAG of a z14 (valgrind ecag.stdout.exp-z14; docs/research/machines-and-caches.md §1.2, D)";
    z14_l3_kb: "cache.z14.l3_kb" = 131072.0, "KB per chip (L3)", [1.0, 10485760.0],
        "public: ECAG of a z14, eDRAM shared by the chip's cores (docs/research/machines-and-caches.md §1.2, D)";
    z14_l4_kb: "cache.z14.l4_kb" = 688128.0, "KB per node (L4)", [1.0, 10485760.0],
        "public: ECAG of a z14: L4 shared by every core of a drawer (docs/research/machines-and-caches.md §1.2, D)";
    z15_cores_per_chip: "cpu.z15.cores_per_chip" = 12.0, "cores", [1.0, 32.0],
        "public: z15 PU chip with 12 cores (IBM z15 Technical Guide SG24-8851, secondary source; docs/research/machines-and-caches.md §1.1, D2)";
    z15_chips_per_drawer: "cpu.z15.chips_per_drawer" = 4.0, "chips", [1.0, 16.0],
        "public: z15 CPC drawer of 2 clusters x 2 PU chips + 1 SC (IBM z15 Technical Guide SG24-8851, secondary source; docs/research/machines-and-caches.md §1.1, D2)";
    z15_nodes_per_drawer: "cpu.z15.nodes_per_drawer" = 1.0, "nodes", [1.0, 4.0],
        "public: one L4 (or virtual L4) domain per drawer (docs/research/machines-and-caches.md §1.2, D)";
    z15_drawers: "cpu.z15.drawers" = 5.0, "drawers", [1.0, 8.0],
        "public: up to 5 CPC drawers (secondary source; docs/research/machines-and-caches.md §1.1, D2)";
    z15_ghz: "cpu.z15.ghz" = 5.2, "GHz", [0.5, 10.0],
        "public: z15 clock 5.2 GHz (locks-and-caches §3; docs/research/machines-and-caches.md §1.1, D2); the run's cpu.clock_ghz unless the scenario sets that";
    z15_max_lpar_cores: "cpu.z15.max_lpar_cores" = 64.0, "cores", [1.0, 64.0],
        "public: z/VM 6.3 with VM65586, 6.4 and 7.1 run at most 64 logical processors (32 cores x 2 threads with SMT) in an LPAR from the z13 on (seeds 000, 001, D; 80 from z/VM 7.3, recalled, not modelled); the z15 itself has up to 190 customer cores (docs/research/machines-and-caches.md §1.1)";
    z15_smt: "cpu.z15.smt" = 1.0, "flag (1 = SMT-2 capable)", [0.0, 1.0],
        "public: SMT-2 for IFL and zIIP from the z13 on (seed 001 for the z13, seed 000 for the z14, z/VM CP Planning for later machines; docs/research/machines-and-caches.md §1.1); 0 = no SMT";
    z15_l1_kb: "cache.z15.l1_kb" = 128.0, "KB per core (L1 data)", [1.0, 1048576.0],
        "public: Extract-CPU-Attribute output of a z15 (valgrind none/tests/s390x/ecag.stdout.exp-z15; docs/research/machines-and-caches.md §1.2, D)";
    z15_l2_kb: "cache.z15.l2_kb" = 8192.0, "KB per core (L2, I + D)", [1.0, 1048576.0],
        "public: ECAG of a z15 (valgrind ecag.stdout.exp-z15; docs/research/machines-and-caches.md §1.2, D)";
    z15_l3_kb: "cache.z15.l3_kb" = 262144.0, "KB per chip (L3)", [1.0, 10485760.0],
        "public: ECAG of a z15, eDRAM shared by the chip's cores (docs/research/machines-and-caches.md §1.2, D)";
    z15_l4_kb: "cache.z15.l4_kb" = 983040.0, "KB per node (L4)", [1.0, 10485760.0],
        "public: ECAG of a z15: L4 shared by every core of a drawer (docs/research/machines-and-caches.md §1.2, D)";
    z16_cores_per_chip: "cpu.z16.cores_per_chip" = 8.0, "cores", [1.0, 32.0],
        "public: z16 Telum chip with 8 cores (ISSCC 2022, Chips and Cheese; docs/research/machines-and-caches.md §1.1, D)";
    z16_chips_per_drawer: "cpu.z16.chips_per_drawer" = 8.0, "chips", [1.0, 16.0],
        "public: z16 drawer of 4 dual-chip modules, 8 Telum chips (ISSCC 2022 abstract; docs/research/machines-and-caches.md §1.1, D2)";
    z16_nodes_per_drawer: "cpu.z16.nodes_per_drawer" = 1.0, "nodes", [1.0, 4.0],
        "public: one L4 (or virtual L4) domain per drawer (docs/research/machines-and-caches.md §1.2, D)";
    z16_drawers: "cpu.z16.drawers" = 4.0, "drawers", [1.0, 8.0],
        "public: up to 4 CPC drawers, 32 chips (secondary source; docs/research/machines-and-caches.md §1.1, D2)";
    z16_ghz: "cpu.z16.ghz" = 5.2, "GHz", [0.5, 10.0],
        "public: z16 clock 5.2 GHz (IBM z16 Technical Guide SG24-8951, recalled; docs/research/machines-and-caches.md §1.1, R); the run's cpu.clock_ghz unless the scenario sets that";
    z16_max_lpar_cores: "cpu.z16.max_lpar_cores" = 64.0, "cores", [1.0, 64.0],
        "public: z/VM 6.3 with VM65586, 6.4 and 7.1 run at most 64 logical processors (32 cores x 2 threads with SMT) in an LPAR from the z13 on (seeds 000, 001, D; 80 from z/VM 7.3, recalled, not modelled); the z16 itself has up to 200 customer cores (docs/research/machines-and-caches.md §1.1)";
    z16_smt: "cpu.z16.smt" = 1.0, "flag (1 = SMT-2 capable)", [0.0, 1.0],
        "public: SMT-2 for IFL and zIIP from the z13 on (seed 001 for the z13, seed 000 for the z14, z/VM CP Planning for later machines; docs/research/machines-and-caches.md §1.1); 0 = no SMT";
    z16_l1_kb: "cache.z16.l1_kb" = 128.0, "KB per core (L1 data)", [1.0, 1048576.0],
        "public: Extract-CPU-Attribute output of a z16 (valgrind none/tests/s390x/ecag.stdout.exp-z16; docs/research/machines-and-caches.md §1.2, D)";
    z16_l2_kb: "cache.z16.l2_kb" = 32768.0, "KB per core (L2, unified)", [1.0, 1048576.0],
        "public: ECAG of a z16 (valgrind ecag.stdout.exp-z16; docs/research/machines-and-caches.md §1.2, D)";
    z16_l3_kb: "cache.z16.l3_kb" = 262144.0, "KB per chip (L3)", [1.0, 10485760.0],
        "public: ECAG of a z16, virtual L3: the chip's L2s (ECAG 'shared'; IEEE Micro 43(1) 2023) (docs/research/machines-and-caches.md §1.2, D)";
    z16_l4_kb: "cache.z16.l4_kb" = 2097152.0, "KB per node (L4)", [1.0, 10485760.0],
        "public: virtual L4 of up to 2 GB per drawer from the other chips' L2s (AnandTech, Hot Chips 33, recalled; ECAG reports no L4; docs/research/machines-and-caches.md §1.2, R)";
    z17_cores_per_chip: "cpu.z17.cores_per_chip" = 8.0, "cores", [1.0, 32.0],
        "public: z17 Telum II chip with 8 cores plus a DPU (Chips and Cheese / ServeTheHome, Hot Chips 2024; docs/research/machines-and-caches.md §1.1, D)";
    z17_chips_per_drawer: "cpu.z17.chips_per_drawer" = 8.0, "chips", [1.0, 16.0],
        "public: z17 drawer of 4 dual-chip modules, 8 Telum II chips (IBM z17 Technical Guide SG24-8579, recalled; docs/research/machines-and-caches.md §1.1, R)";
    z17_nodes_per_drawer: "cpu.z17.nodes_per_drawer" = 1.0, "nodes", [1.0, 4.0],
        "public: one L4 (or virtual L4) domain per drawer (docs/research/machines-and-caches.md §1.2, D)";
    z17_drawers: "cpu.z17.drawers" = 4.0, "drawers", [1.0, 8.0],
        "public: up to 4 CPC drawers (IBM z17 Technical Guide, recalled; docs/research/machines-and-caches.md §1.1, R)";
    z17_ghz: "cpu.z17.ghz" = 5.5, "GHz", [0.5, 10.0],
        "public: z17 clock 5.5 GHz fixed (Chips and Cheese, ServeTheHome, Hot Chips 2024; docs/research/machines-and-caches.md §1.1, D); the run's cpu.clock_ghz unless the scenario sets that";
    z17_max_lpar_cores: "cpu.z17.max_lpar_cores" = 64.0, "cores", [1.0, 64.0],
        "public: z/VM 6.3 with VM65586, 6.4 and 7.1 run at most 64 logical processors (32 cores x 2 threads with SMT) in an LPAR from the z13 on (seeds 000, 001, D; 80 from z/VM 7.3, recalled, not modelled); the z17 itself has up to 208 customer cores (docs/research/machines-and-caches.md §1.1)";
    z17_smt: "cpu.z17.smt" = 1.0, "flag (1 = SMT-2 capable)", [0.0, 1.0],
        "public: SMT-2 for IFL and zIIP from the z13 on (seed 001 for the z13, seed 000 for the z14, z/VM CP Planning for later machines; docs/research/machines-and-caches.md §1.1); 0 = no SMT";
    z17_l1_kb: "cache.z17.l1_kb" = 128.0, "KB per core (L1 data)", [1.0, 1048576.0],
        "public: Extract-CPU-Attribute output of a z17 (valgrind none/tests/s390x/ecag.stdout.exp-z17; docs/research/machines-and-caches.md §1.2, D)";
    z17_l2_kb: "cache.z17.l2_kb" = 36864.0, "KB per core (L2, unified)", [1.0, 1048576.0],
        "public: ECAG of a z17 (valgrind ecag.stdout.exp-z17; docs/research/machines-and-caches.md §1.2, D)";
    z17_l3_kb: "cache.z17.l3_kb" = 368640.0, "KB per chip (L3)", [1.0, 10485760.0],
        "public: ECAG of a z17, virtual L3: the chip's L2s (ECAG 'shared'; IEEE Micro 43(1) 2023) (docs/research/machines-and-caches.md §1.2, D)";
    z17_l4_kb: "cache.z17.l4_kb" = 2936013.0, "KB per node (L4)", [1.0, 10485760.0],
        "public: virtual L4 of 2.8 GB per drawer (ServeTheHome, Hot Chips 2024; ECAG reports no L4; docs/research/machines-and-caches.md §1.2, D2)";
    cpi_inf: "cpi.infinite" = 1.15, "cycles/instruction", [0.5, 20.0], // calibrated from row B10, 16-core column
        "seed 001 (row B10, kind C, 16-core column, calibrated): infinite-cache CPI of the Apache workload; used for guest and CP work alike (one workload CPI)";
    l1_miss_per_instr: "cpi.l1_miss_per_instr" = 0.0131, "L1 misses/instruction", [0.0, 1.0], // calibrated from row B10, 16-core column
        "seed 001 (row B10, kind C, 16-core column, calibrated): L1 miss percent 1.31; 0 turns the drawer CPI model off (every core at speed 1.0)";
    cycles_chip: "cpi.cycles_chip" = 1.5, "cycles per L1 miss", [0.0, 1000000.0], // calibrated from row B10 (16/32 cores)
        "seed 001 (row B10, kind C, calibrated): average sourcing cycles of a miss on the core's own chip (mostly its own L2, hence small); with cpi.cycles_drawer solved so that the z13 placement gives B10's sourcing cycles at 16 and 32 cores (one drawer)";
    cycles_drawer: "cpi.cycles_drawer" = 40.54, "cycles per L1 miss", [0.0, 1000000.0], // calibrated from row B10 (16/32 cores)
        "seed 001 (row B10, kind C, calibrated): sourcing cycles of a miss served by another chip of the same drawer; a miss is sourced from any core of the own drawer alike (work moves between the drawer's processors); across drawers only data that moves pays (cpi.msg_remote); not read with cache.warmth = 1, where distance costs come from footprints and CP's coherence misses";
    msg_remote: "cpi.msg_remote" = 3.65e6, "cycles per message", [0.0, 1000000000.0], // calibrated from row B10 (64 cores)
        "seed 001 (row B10, kind C, calibrated on the 64-core column: 168 sourcing cycles per L1 miss when the Apache LPAR spans two drawers; 3.85e6 -> 3.65e6 at stop 16 after the lock-hold locality of issue 17 moved dispatch timing, 167.5 with one seed): cycles CP's guest LAN / VSWITCH path spends sourcing the receiver's buffers and control blocks from the other drawer, where the receiver last took a message; the stand-in's one message per request or reply lumps the real workload's several frames and interruptions";
    cycles_remote: "cpi.cycles_remote" = 305.64, "cycles per L1 miss", [0.0, 1000000.0],
        "assumed: one cache miss served from another drawer or from memory (z13 order of magnitude; the value an earlier uniform-sharing CPI model solved from row B10), used for the below-2GB frame search (storage.path_frame_search)";
    prsm_lpdisp: "prsm.c_lpdisp" = 2.0, "us per PR/SM dispatch", [0.0, 1000.0],
        "assumed: PR/SM time to dispatch one logical core on a physical core (cp-model §1.4, §10.2 [A]); reported as %LPmgt (FCX302), chargeable to no LPAR";
    prsm_trun_k: "prsm.trun_k" = 25.0, "ms", [0.1, 1000.0],
        "public: the default time slice is '(25 milliseconds * number of shared physical processors) / (number of logical processors not in stopped state defined for all LPARs with shared logical processors)' (PR/SM Planning Guide, quoted on IBM-MAIN msg127812; docs/research/parameter-sources.md), clamped to [trun_min, trun_max]; the model counts the logical processors of LPARs that are busy as not stopped";
    prsm_trun_min: "prsm.trun_min" = 12.5, "ms", [0.1, 1000.0],
        "public: 'an arbitrary minimum computed default time slice value of 12.5 milliseconds' (PR/SM Planning Guide, quoted on IBM-MAIN msg127812); computed separately per processor type (z9 PR/SM Planning Guide, 'Processor Running Time'), so it applies to the IFL pool (docs/research/parameter-sources.md)";
    prsm_trun_max: "prsm.trun_max" = 100.0, "ms", [0.1, 1000.0],
        "public: the computed default PR/SM time slice has 'an arbitrary minimum computed default time slice value of 12.5 milliseconds and a maximum computed value of 100 milliseconds' (PR/SM Planning Guide, quoted on IBM-MAIN msg127812; docs/research/parameter-sources.md); 25 ms until stop 18, read as the top of a 12.5-25 ms range that is only the formula's span for 1 to 2 logical per physical";
    prsm_min_avail: "prsm.min_avail" = 0.01, "fraction of wall time", [1e-06, 1.0],
        "assumed: floor of the share of wall time a wanting logical core is powered, so a core PR/SM barely powers still progresses (a numerical guard, far below any share that matters)";
    path_wake: "prsm.path_wake" = 2000.0, "instructions", [0.0, 100000000.0],
        "assumed: z/VM side of waking a logical processor that loaded an enabled wait in an LPAR (SIGP to it, wait exit, dispatcher re-entry); system time of the woken processor; only with a [cpc] (without one the engine has no PR/SM layer)";
    hd_t_park: "hd.t_park" = 2000.0, "ms", [1.0, 3600000.0],
        "public: z/VM makes its parking decision every two seconds (Velocity Software lparpark, cp-model §3.3)";
    hd_gpd_window: "hd.gpd_window" = 20000.0, "ms", [1.0, 3600000.0],
        "assumed: history of Global Performance Data samples z/VM projects the excess capacity from (the mean over the window); z/VM forecasts from a history with a confidence level (Velocity lparpark, cp-model §3.3) whose length is not public: ten parking periods";
    hd_headroom: "hd.headroom" = 1.0, "cores", [0.0, 64.0],
        "assumed: the 'needed' capacity of the unparking models is the last period's utilization plus one core, like the CPUPAD default of 100 % (SRM statement, cp-model §3.3), so a saturated unparked set can grow";
    hd_excess_high: "hd.excess_high" = 1.0, "fraction of projected excess", [0.0, 1.0],
        "assumed: SET SRM EXCESSUSE HIGH counts on all of the projected unentitled capacity (cp-model §3.3 confidence levels [A])";
    hd_excess_medium: "hd.excess_medium" = 0.5, "fraction of projected excess", [0.0, 1.0],
        "assumed: SET SRM EXCESSUSE MEDIUM (the default) counts on half of the projected unentitled capacity (cp-model §3.3 [A])";
    hd_excess_low: "hd.excess_low" = 0.25, "fraction of projected excess", [0.0, 1.0],
        "assumed: SET SRM EXCESSUSE LOW counts on a quarter of the projected unentitled capacity (cp-model §3.3 [A]); NONE counts on none";
    cache_warmth: "cache.warmth" = 0.0, "switch (1 = on)", [0.0, 1.0],
        "assumed (a model switch, issue 18): 1 = each virtual CPU's cache footprint is tracked per level (cache.rs) and a dispatch pays the reload of what is not warm where it runs, and CP's misses to shared lines pay the distance to their last writer (cache.cp_shared), in place of the static within-drawer sourcing mix; 0 (default) = the static mix (the model before issue 18). Off by default, measured: with it on and every workload-CPU kind-C figure refit for it (docs/research/calibration.md 'Cache warmth on'), the catalogue predicts 92 of 167 against 104 of 167 off (one seed): B8's SMT-2 ETR and busy, B9's client busy and B5's SMT-2 ETR move out, because the footprint reloads fall harder on the short server bursts than on the clients' (the clients' share of the Apache guests' CPU at 32 cores falls from 67 % to 57 %, the assumed 70 % being of nominal work)";
    cache_footprint_kb: "cache.footprint_kb" = 1530.0, "KB per virtual CPU", [1.0, 1048576.0], // calibrated from row B10, 16-core column
        "seed 001 (row B10, kind C, 16-core column, calibrated with cache.warmth = 1 (unused when 0): 21.02 sourcing cycles per L1 miss on the Apache stand-in, b7-apache.toml at 6.3, 60 s, with the CP coherence stall of cache.cp_shared and B7's guest CPU refit for the model on (310 / 133 us, docs/research/calibration.md 'Cache warmth on'); 1814 before the coherence stall was modelled): the cache footprint (distinct lines a virtual CPU keeps using; Thiebaut & Stone 1987 for the model form) of one virtual CPU; one value for every guest (a property of the workload, not public for any z/VM workload)";
    cache_lat_l3: "cache.lat_l3" = 40.0, "cycles per line", [0.0, 100000.0],
        "assumed: a line missing from the core's L2 and found in the chip's L3 (no public per-level latency for z196-z15, docs/research/machines-and-caches.md §1.3; z16's virtual L3 is about 12 ns, about 60 cycles, over its 19-cycle L2, recalled); the z13 RNI formula '2.6x(0.4xL3P+1.6xL4LP+3.5xL4RP+7.5xMEMP)/100' (LongEx Mainframe Quarterly, Nov 2015, quoting IBM; docs/research/parameter-sources.md) weights an L3 hit at a quarter of a local L4 one";
    cache_lat_l4: "cache.lat_l4" = 120.0, "cycles per line", [0.0, 100000.0],
        "assumed: a line found in the drawer's L4 (or another chip's L3 through it), set as three times cache.lat_l3 from a recalled RNI ratio 0.4 : 1.2; the published z13 RNI formula weights it 1.6 against L3's 0.4, four times (LongEx Mainframe Quarterly, Nov 2015, quoting IBM; docs/research/parameter-sources.md), which with cache.lat_l3 = 40 would give 160. Kept at 120: the lock-hold locality of issue 17 (lines.rs) and the cache warmth model read it, and C1's kind-C holds were calibrated with 120; robustness perturbs it x0.5 and x2. Beyond L4 (another drawer or memory) costs cpi.cycles_remote";
    cache_lat_node: "cache.lat_node" = 200.0, "cycles per line", [0.0, 100000.0],
        "assumed: a line held by a processor of the other node of the same drawer (z13: two nodes per drawer, the L4s joined by the S-bus, z13s Technical Guide SG24-8294 p.52), between a local L4 (cache.lat_l4, 120) and another drawer (cpi.cycles_remote, 306); no public latency. Only machines with several nodes per drawer use it";
    cache_guest_shared: "cache.guest_shared" = 0.0, "fraction of a guest's L1 misses", [0.0, 1.0],
        "assumed (issue 18 item 1, sibling sharing; exploratory, 0 = off): share of the L1 misses of a multi-way guest's work that go to lines its other virtual CPUs write (the guest kernel's run queues and locks, a JVM heap, DB2 latches), each last written by one of the guest's virtual CPUs alike, sourced from the core that one last ran on (same core none, same chip cache.lat_l3, same L4 node cache.lat_l4, the drawer's other node cache.lat_node, another drawer cpi.cycles_remote); a one-way guest pays none. z/VM puts a guest's virtual CPUs on nearby logical processors 'to maximize cache reuses' (z13s Technical Guide p.325, docs/research/machines-and-caches.md); read only with cache.warmth = 1. Measured, not applied (docs/research/calibration.md 'Stop 19'): B10's 16 -> 32-core rise would need 0.97 (not physical: the Apache stand-in's work is mostly one-way clients); 0.3, tried with B5 in view, brings DayTrader's SMT-2 scaling (B5) to IBM's with the model on, 0.6 loses it";
    cache_mem_remote: "cache.mem_remote" = 2.19, "x cpi.cycles_remote", [1.0, 10.0],
        "public ratio (issue 18 item 1, memory homes, stop 19): cost of a line sourced beyond the L4 (a footprint reload from memory) whose home is another L4 node than the core's, as a multiple of one homed on the core's own node (cpi.cycles_remote); the LPAR's memory is homed on its nodes in proportion to its cores there (assumed: PR/SM places a partition's memory with its processors). 2.19 = the published z13 RNI weights of remote against local L4 sourcing, 3.5 / 1.6 (LongEx Mainframe Quarterly, Nov 2015, quoting IBM; docs/research/parameter-sources.md), taken for memory too. Not fitted: with it, B10's 32-core sourcing comes out 29.9 against IBM's 30.78 (kind C, not used to set it); 1 = every home alike (the model of stop 18). Read only with cache.warmth = 1";
    cache_cp_shared: "cache.cp_shared" = 0.5, "fraction of CP's L1 misses", [0.0, 1.0],
        "assumed (issue 18 item 1, coherence misses): share of the L1 misses of CP path lengths (cpi.l1_miss_per_instr per instruction; the stall is over CP's cpu.cpi_cp) that go to lines shared between processors and last written by another one (dispatch lists, VMDBKs, lock words, guest LAN buffers; z/VM runs one CP on every logical processor), each sourced from a processor drawn from the LPAR's cores: same core cpi.cycles_chip, same chip cache.lat_l3, another chip of the L4 node cache.lat_l4, beyond the node cpi.cycles_remote (the z13 L4 is the coherence point, remote L4 content costs many cycles: z13s Technical Guide via docs/research/machines-and-caches.md §1.2; vm.ibm.com/perf/tips/zvmhd.html for the core-chip-node hierarchy). 0.5 because the other half of CP's misses are taken to be instruction fetches and private data, found nearby (not public: the seed gives only the total L1 miss rate); guest misses are their footprints (cache.rs). Read only with cache.warmth = 1";
    // --- end of processors ---
    // --- storage, paging and I/O (issues 5 and 6): add entries below this line ---
    path_fault: "storage.path_fault" = 4000.0, "instructions", [0.0, 100000000.0],
        "assumed: page fault on a page that is on DASD: translation exception, page-state lookup, frame obtained, page-in built and queued (cp-model §6); chargeable to the faulting user";
    path_first_touch: "storage.path_first_touch" = 2500.0, "instructions", [0.0, 100000000.0],
        "assumed: first reference to a never-touched page: frame obtained and cleared (4 KB), DAT tables updated; chargeable";
    path_revalidate: "storage.path_revalidate" = 800.0, "instructions", [0.0, 100000000.0],
        "assumed: reference to a page on the global aging list: PTE revalidated, frame back to the in-use list; chargeable";
    path_steal: "storage.path_steal" = 1200.0, "instructions", [0.0, 100000000.0],
        "assumed: per frame stolen (invalidate PTE, move through the lists, queue the page-out); system time";
    agelist_pct: "storage.agelist_pct" = 2.0, "% of frames", [0.0, 100.0],
        "public: SET AGELIST KEEPSIZE default 2 % of the DPA (z/VM 6.3 CP Commands) [K]";
    block_pages: "paging.block_pages" = 8.0, "pages per write I/O", [1.0, 256.0],
        "assumed: block paging writes stolen pages in blocks (cp-model §6); 8 pages per SSCH, not re-read";
    block_pages_64: "paging.block_pages_64" = 16.0, "pages per write I/O", [1.0, 256.0],
        "assumed: z/VM 6.4 larger paging I/O payloads (seed 000 D9 says only that payloads and block paging efficiency increased, no figure); twice the 6.3 block, so pages per SSCH rises";
    path_ssch: "paging.path_ssch" = 613.0, "instructions per paging I/O", [0.0, 100000000.0],
        "assumed: the part of a paging I/O's CP path paid once per start subchannel whatever its pages (channel program set up, SSCH, interrupt and completion handling): three quarters of the 5.3 ECKD path per page moved at D6's 0.5625 paging I/Os per page moved (reads one page, block writes eight); with it, larger block-paging payloads (switch paging_payload, row D9) cost less per page";
    hpf_pend_factor: "dasd.hpf.pend_factor" = 0.5, "x command-mode pend", [0.0, 10.0],
        "assumed: zHPF transport mode sends the whole channel program (TCW/TCCB) in one exchange instead of CCW-by-CCW interlocks, so the start-to-first-data part of an I/O shrinks; IBM's zHPF descriptions promise up to about twice the small-block I/O rate (not re-read [K]), taken as half";
    hpf_connect_factor: "dasd.hpf.connect_factor" = 0.5, "x command-mode connect per page", [0.0, 10.0],
        "assumed: the same for the channel time per 4 KB page moved (fewer frames and acknowledgements per transfer)";
    hpf_ssch_factor: "paging.hpf_ssch_factor" = 0.8, "x paging.path_ssch", [0.0, 10.0],
        "assumed: CP builds one TCW and TCCB for a transport-mode paging I/O instead of a CCW chain with IDAWs, a smaller part of the per-SSCH path";
    crypt_setup: "paging.crypt_setup" = 300.0, "instructions per page", [0.0, 100000000.0],
        "assumed: CP's work around encrypting or decrypting one 4 KB page with CPACF besides the cipher itself (key block, KM invocation, the page's tweak)";
    decrypt_factor: "paging.decrypt_factor" = 0.85, "x the encryption of a page", [0.0, 10.0],
        "assumed: seed 000 says decryption costs less than encryption on average, with no figure; the cipher part of a page-in's decryption taken as 0.85 of a page-out's encryption";
    path_io_eckd: "paging.path_io_eckd" = 115.0, "instructions per page moved", [0.0, 100000000.0],
        "seed 004 (row D6, calibrated on the 5.3 ECKD CP/move, with paging.path_ssch per I/O): per-page part of the 3390 paging I/O (one CCW and IDAW, the page's slot), net of the fault, steal and dispatch paths";
    path_io_edev_fba: "paging.path_io_edev_fba" = 11175.0, "instructions per page moved", [0.0, 100000000.0],
        "seed 004 (row D5, calibrated on the 5.2 EDEV CP/move, with paging.path_ssch per I/O): per-page cost of an FBA channel program emulated on SCSI";
    path_io_edev_scsi: "paging.path_io_edev_scsi" = 6835.0, "instructions per page moved", [0.0, 100000000.0],
        "seed 004 (row D5, calibrated on the 5.3 EDEV CP/move, with paging.path_ssch per I/O): per-page cost of a direct SCSI-container request";
    path_dispatch_specialty: "path.dispatch_specialty" = 1370.0, "instructions", [0.0, 100000000.0],
        "seed 004 (row D6, calibrated on the 5.2 -> 5.3 change of ECKD CP/move): dispatcher path added by 5.3's specialty-engine support; levels before 5.3 run path.dispatch minus this";
    eckd_pend: "dasd.eckd.pend_ms" = 0.15, "ms", [0.0, 1000.0],
        "assumed: FICON pend (start to first command accepted) on a 2105 with little contention; typical RMF/FCX108 figures 0.1-0.2 ms";
    eckd_disconnect: "dasd.eckd.disconnect_ms" = 0.25, "ms (mean, exponential)", [0.0, 1000.0],
        "assumed: mean disconnect of a 4 KB paging I/O on a 2105 with a 16 GB cache (mostly hits, some destage waits)";
    eckd_connect: "dasd.eckd.connect_ms_per_page" = 0.06, "ms per 4 KB", [0.0001, 100.0],
        "assumed: 4 KB over a 1 Gb FICON channel (~70 MB/s effective) per page moved";
    edev_pend: "dasd.edev.pend_ms" = 0.05, "ms", [0.0, 1000.0],
        "assumed: FCP request start to the LUN (no ECKD pend; QDIO queueing only)";
    edev_disconnect: "dasd.edev.disconnect_ms" = 0.25, "ms (mean, exponential)", [0.0, 1000.0],
        "assumed: same 2105 cache behaviour as for ECKD";
    edev_connect: "dasd.edev.connect_ms_per_page" = 0.05, "ms per 4 KB", [0.0001, 100.0],
        "assumed: 4 KB over a 1 Gb FCP channel per page moved";
    edev_queue_depth: "dasd.edev.queue_depth" = 4.0, "I/Os", [1.0, 256.0],
        "assumed: I/Os the SCSI container keeps in flight to one LUN when paging calls it directly (5.3+); 1 through FBA emulation";
    path_reorder_page: "storage.path_reorder_page" = 100.0, "instructions per resident page", [0.0, 100000000.0],
        "assumed: pre-6.3 reorder: reset the reference bit and requeue one resident frame of the guest (seed 003 says only that the time grows with the guest's resident pages); bounded by seed 004 D6, where reorder must stay a small part of the 5.2 ECKD CP/move";
    reorder_interval: "storage.reorder_interval" = 10000.0, "ms", [1.0, 3600000.0],
        "assumed: a faulting guest is reordered at most once per this interval (pre-6.3 CP reorders periodically; the period is not public in the seeds)";
    mdisk_path_ccw: "mdisk.path_ccw_translate" = 3000.0, "instructions per I/O", [0.0, 100000000.0],
        "assumed: CCW translation of a guest channel program (copy, fix the data pages, build the real CCWs); Diagnose X'250' block I/O skips it";
    mdisk_path_eckd: "mdisk.path_eckd_io" = 6000.0, "instructions per I/O", [0.0, 100000000.0],
        "assumed: start subchannel on the real ECKD device, its interrupt, and reflecting the interrupt to the guest";
    mdisk_path_fba_emul: "mdisk.path_fba_emulation" = 8313.0, "instructions per I/O", [0.0, 100000000.0],
        "seed 004 (row E2, calibrated with mdisk.path_scsi_container_53 on the XEDIT read CP CPU/read): FBA emulation of an EDEV request and the interrupt back to the guest, without the SCSI container; with cache.warmth = 1 (CP's coherence stall on a 3-core LPAR) the same figures need 7300 (measured, not applied: docs/research/calibration.md 'Cache warmth on')";
    mdisk_path_container_52: "mdisk.path_scsi_container_52" = 6000.0, "instructions per I/O", [0.0, 100000000.0],
        "assumed: the z/VM 5.2 SCSI container's path per request; its difference to the 5.3 path is set by row E2 (seed 004) through mdisk.path_scsi_container_53";
    mdisk_path_container_53: "mdisk.path_scsi_container_53" = 2620.0, "instructions per I/O", [0.0, 100000000.0],
        "seed 004 (row E2, calibrated: the 5.2 -> 5.3 drop of XEDIT CP CPU/read): the tuned SCSI container's path per request";
    mdisk_path_block: "mdisk.path_per_block" = 390.0, "instructions per 4 KB block", [0.0, 100000000.0],
        "seed 004 (row E1, calibrated on the CP CPU of CMS FORMAT without write-same): per 4 KB block, translating and fixing the guest's data buffer; write-same passes one block and skips it";
    mdisk_path_native_scsi: "mdisk.path_native_scsi" = 2000.0, "instructions per I/O", [0.0, 100000000.0],
        "assumed: a Linux guest's dedicated FCP subchannel: CP handles the QDIO adapter interruption and the SIGA only";
    mdisk_edev_read: "mdisk.edev.read_ms_per_block" = 0.034, "ms per 4 KB", [0.0, 100.0],
        "seed 004 (row E2, calibrated on the 5.2 XEDIT read rate): transfer of a 4 KB cache hit from the 2105 over 1 Gb FCP";
    mdisk_edev_write: "mdisk.edev.write_ms_per_block" = 0.178, "ms per 4 KB", [0.0, 100.0],
        "seed 004 (row E1, calibrated on the 5.2 FORMAT elapsed time): sustained sequential write rate of the 2105 LUN (destage-bound)";
    mdisk_edev_write_same: "mdisk.edev.write_same_ms_per_block" = 0.105, "ms per 4 KB", [0.0, 100.0],
        "seed 004 (row E1, calibrated on the 5.3 FORMAT elapsed time): the subsystem's write-same rate";
    vdisk_path_io: "vdisk.path_io" = 6000.0, "instructions per I/O", [0.0, 100000000.0],
        "assumed: VDISK request handling besides CCW translation (locate the address space pages, build the move, reflect the completion); cp-model section 9";
    vdisk_path_block: "vdisk.path_per_block" = 1500.0, "instructions per 4 KB block", [0.0, 100000000.0],
        "assumed: move of one 4 KB block between the VDISK address space and guest storage (MVCL-like copy, about 1 byte per cycle at CPI 3 would be 4096 cycles)";
    cp_below2g_frames: "storage.cp_below2g_fixed" = 8192.0, "frames (4 KB)", [0.0, 524288.0],
        "assumed: frames below 2 GB that CP's nucleus, fixed control blocks and trace tables keep out of the dynamic paging area (32 MB); the rest of the first 2 GB of real storage is pageable";
    below2g_per_io: "storage.below2g_per_paging_io" = 1.0, "frames per paging I/O", [0.0, 64.0],
        "assumed: before 6.2 CP builds each paging I/O's control blocks and channel program in a below-2GB frame (31-bit addressable), held until the I/O completes (cp-model 6.1: CP's residual below-2GB needs)";
    avail_fraction: "storage.avail_fraction" = 0.01, "fraction of real storage", [1e-06, 1.0],
        "assumed: share of the frames on CP's available lists when it looks for two contiguous free frames (a PGMBK); without coalescing (switch frame_coalesce) freed frames lie singly in address order, so a free frame's neighbour is free with about this probability and the search examines 1 / this many frames on average (each storage.path_frame_search plus a cache miss)";
    path_frame_search: "storage.path_frame_search" = 100.0, "instructions per frame examined", [0.0, 100000000.0],
        "assumed: examining one frame of a frame-owned list during a search for a below-2GB frame, the same per-frame work as reorder (storage.path_reorder_page); each frame examined also takes one cache miss at cpi.cycles_remote (the frame table of a large storage does not fit the caches, and a search follows it out of address order)";
    mdc_arbiter_interval: "mdc.arbiter_interval" = 1.0, "s", [0.01, 3600.0],
        "assumed: period of the MDC arbiter's pass that sizes the cache against paging (cp-model §8 [A])";
    mdc_arbiter_step: "mdc.arbiter_step" = 0.05, "fraction of the maximum size", [0.0, 1.0],
        "assumed: how far one arbiter pass moves the cache's target size (cp-model §8 [A])";
    mdc_bias: "mdc.bias" = 1.0, "factor", [0.001, 100.0],
        "public: SET MDCACHE STORAGE BIAS, default 1.0: weight of the cache's claim on storage against paging's";
    mdc_path_hit: "mdc.path_hit" = 1500.0, "instructions per 4 KB block", [0.0, 100000000.0],
        "assumed: an MDC read hit: look the block up in the cache's hash and move 4 KB to the guest's buffer (the same order as a VDISK block move, vdisk.path_per_block)";
    mdc_path_insert: "mdc.path_insert" = 1000.0, "instructions per 4 KB block", [0.0, 100000000.0],
        "assumed: an MDC insert or write-through refresh: obtain a frame for the block (stealing one when the cache is full) and copy 4 KB into it";
    // --- end of storage, paging and I/O ---
    // --- issue 6: the TLS/SSL server, the crypto adapter, RSCS, dumps (ssl.rs, dasd.rs) ---
    ssl_aes_cpb_round: "ssl.aes_cycles_per_byte_round" = 0.708, "cycles per byte per AES round", [0.0, 1000.0],
        "seed 000 (row E6 case 2A, calibrated: CPU/tx secured TLS 1.0 RSA_AES_256 / not secured 1.56): the SSL server's cipher work per byte and AES round (CPACF KMC through System SSL, with the buffer handling around it); AES-256 has 14 rounds, AES-128 10 (FIPS 197)";
    ssl_sha1_cpb: "ssl.sha1_cycles_per_byte" = 3.0, "cycles per byte", [0.0, 1000.0],
        "assumed: HMAC-SHA-1 of the TLS 1.0 record MAC per byte through System SSL (CPACF KIMD SHA-1, about 1-2 GB/s on a zEC12/z13 core: a few cycles per byte)";
    ssl_sha256_cpb: "ssl.sha256_cycles_per_byte" = 0.735, "cycles per byte", [0.0, 1000.0],
        "seed 000 (row E6 case 2B, calibrated: CPU/tx secured TLS 1.2 RSA_AES_128_SHA256 / not secured 1.39, with ssl.aes_cycles_per_byte_round from case 2A): HMAC-SHA-256 of the TLS 1.2 record MAC per byte. It comes out below the assumed SHA-1 figure: E6's drop from 2A to 2B is more than the AES rounds (10 against 14) explain; row E5's -1.1 % is then a prediction";
    ssl_record_bytes: "ssl.record_bytes" = 16384.0, "bytes", [1.0, 16384.0],
        "public: the largest TLS plaintext record, 2^14 bytes (RFC 5246 section 6.2.1); a request is cut into records of at most this size";
    ssl_path_record_v21: "ssl.path_record_v21" = 20000.0, "instructions per TLS record", [0.0, 100000000.0],
        "assumed: SSL server V2.1 (z/VM 6.3) per record: IUCV receive and send between TCP/IP and the SSL server, record framing, the System SSL call";
    ssl_path_record_v22: "ssl.path_record_v22" = 87165.0, "instructions per TLS record", [0.0, 100000000.0],
        "seed 000 (row E5, calibrated: z/VM 6.4 SSL V2.2 +13.6 % CPU/tx against 6.3 V2.1 at the same cipher): SSL server V2.2 per record (the new System SSL level's longer record path; seed 000 says most of the increase was within the SSL server); with cache.warmth = 1 the same figure needs 112000 (measured, not applied: docs/research/calibration.md 'Cache warmth on')";
    ssl_path_handshake: "ssl.path_handshake" = 3000000.0, "instructions per new connection", [0.0, 100000000.0],
        "assumed: a full TLS handshake without the RSA private-key operation (certificate, key derivation, the handshake messages, connection setup in the SSL server); seed 000's chart puts a new connection's SSL CPU at some ms to tens of ms (axis 0-40 ms, values not legible)";
    ssl_path_rsa: "ssl.path_rsa_private" = 12000000.0, "instructions per RSA-2048 private-key operation", [0.0, 100000000.0],
        "assumed: RSA-2048 private-key decrypt (CRT) in software, about 7 ms at CPI 3 and 5.2 GHz; without a crypto adapter the SSL server runs it on the CPU";
    ssl_path_ap_request: "ssl.path_ap_request" = 150000.0, "instructions per AP request", [0.0, 100000000.0],
        "assumed: the SSL server builds the AP request for the RSA operation, enqueues it and takes the reply (with CRYPTO APVIRT); small against the operation itself";
    crypto_path_apvirt: "crypto.path_apvirt_cp" = 30000.0, "instructions per AP request", [0.0, 100000000.0],
        "assumed: CP's simulation of a virtual (APVIRT, shared) AP queue per request: intercept of NQAP/DQAP, the real AP queue, the reply back to the guest (chargeable CP time)";
    crypto_rsa_us: "crypto.rsa_service_us" = 400.0, "us per RSA-2048 private-key operation", [0.0, 1000000.0],
        "assumed: a shared Crypto Express adapter's (CEX accelerator) service time for one RSA-2048 CRT operation: a few thousand operations per second per adapter domain";
    dump_pages_old: "dump.pages_per_io_old" = 1.0, "4 KB pages per channel program", [1.0, 256.0],
        "assumed: before VM65989 CP writes a dump one 4 KB page per channel program";
    dump_pages_new: "dump.pages_per_io_vm65989" = 12.0, "4 KB pages per channel program", [1.0, 256.0],
        "public: a 3390 track holds 12 4 KB records (IBM 3390 geometry); with VM65989 a dump channel program writes a full track";
    dump_io_overhead: "dump.io_overhead_ms" = 0.0664, "ms per channel program", [0.0, 1000.0],
        "seed 000 (row E4, calibrated: dump rate +260 % with VM65989): time per dump channel program besides the data transfer (start, pend, the device's end-of-chain and rotational repositioning between programs)";
    dump_path_io: "dump.path_io" = 8000.0, "instructions per channel program", [0.0, 100000000.0],
        "assumed: CP's path to build and start one dump channel program and take its interrupt (like mdisk.path_eckd_io plus the channel program build)";
    // --- end of issue 6 ---
    // --- the lab's expectation curves (not used by the simulator) ---
    caf_4way: "lab.caf_4way" = 0.890, "1", [0.5, 1.0],
        "seed 001 (row B11, kind C): z13 MP CAF coefficient for N = 4; the CAF curve assumes a geometric decline per doubling of N through this point (public STSI tables, e.g. s390 /proc/sysinfo 'Adjustment NN-way', decline roughly geometrically up to the top of the table)";
    // Channel paths (issue 22; docs/research/channels.md §8). Read only when a scenario has
    // [[chpid]] tables: scenarios without channels never read them.
    chan_escon_rate: "chan.escon.rate_mb_s" = 17.0, "MB/s", [1.0, 100.0],
        "public: ESCON 200 Mbit/s line, about 17 MB/s effective data rate (channels.md §1.1, D2; IBM quotes 20 MB/s link rate, z900 Technical Guide §3.4.1)";
    chan_escon_interlock: "chan.escon.ccw_interlock_us" = 20.0, "us per CCW", [0.0, 1000.0],
        "assumed: ESCON ends each CCW with channel end/device end, one interlocked round trip per CCW that holds the path (z900 Technical Guide, D); its length depends on distance and is not published (channels.md §8 [A])";
    chan_ccws_fixed: "chan.ccws_per_io" = 2.0, "CCWs per I/O besides one per page", [0.0, 64.0],
        "assumed: an ECKD channel program has Define Extent and Locate Record before one read or write CCW per 4 KB page (IDAWs within a page are not CCWs)";
    chan_ficon_rate: "chan.ficon.rate_mb_s" = 100.0, "MB/s", [10.0, 10000.0],
        "public: seed 002 (VM/ESA 2.4: FICON is a 100 MB/s channel); 1 Gbit/s per direction (channels.md §1.1, D)";
    chan_ficon_iops: "chan.ficon.iops" = 6000.0, "I/Os per s (4 KB, command mode)", [100.0, 1000000.0],
        "public: IBM (P. Driever, 'Evolution of the z Systems channel', 2017): the first FICON channel about 6 000 small I/Os per s (channels.md §1.2, D); its reciprocal is the channel processor's time per I/O";
    chan_ficon_exchanges: "chan.ficon.open_exchanges" = 32.0, "I/Os", [1.0, 1024.0],
        "assumed: open exchanges (I/Os in data transfer at once) of the first FICON adapter, commonly quoted as 32, not verified in an IBM source (channels.md §1.3, R)";
    chan_fex8s_rate: "chan.ficon_express8s.rate_mb_s" = 800.0, "MB/s", [10.0, 10000.0],
        "public: FICON Express8S 1 600 MB/s read+write for large blocks (IBM FICON performance page, channels.md §1.2, D); half of it per direction";
    chan_fex8s_iops: "chan.ficon_express8s.iops" = 23000.0, "I/Os per s (4 KB, command mode)", [100.0, 1000000.0],
        "public (recalled): FICON Express8S about 23 000 command-mode 4 KB I/Os per s (channels.md §1.2, R)";
    chan_fex16s_rate: "chan.ficon_express16s.rate_mb_s" = 1280.0, "MB/s", [10.0, 10000.0],
        "public: FICON Express16S 2 560 MB/s read+write (Guendert 2017 reporting IBM, channels.md §1.2, D); half of it per direction";
    chan_fex16s_iops: "chan.ficon_express16s.iops" = 23000.0, "I/Os per s (4 KB, command mode)", [100.0, 1000000.0],
        "public (recalled): FICON Express16S about 23 000 command-mode 4 KB I/Os per s (channels.md §1.2, R)";
    chan_fex_exchanges: "chan.ficon_express.open_exchanges" = 64.0, "I/Os", [1.0, 1024.0],
        "assumed: open exchanges of FICON Express adapters, commonly quoted as 64, not verified (channels.md §1.3, R)";
    chan_ficon_interlock: "chan.ficon.ccw_interlock_us" = 20.0, "us per CCW", [0.0, 1000.0],
        "assumed: without prefetch under Synchronize Control (before VM/ESA 2.4) a FICON channel program waits one round trip per CCW after the first, a delay that does not occupy the link (seed 002; IPCOM000013888D; channels.md §3 [A]); taken equal to ESCON's";
    chan_nullification: "chan.nullification_us" = 50.0, "us per I/O", [0.0, 1000.0],
        "assumed: the nullification-window handshake between control unit and channel subsystem that VM/ESA 2.4 avoids on FICON with an ESS (seed 002); its length is not public (channels.md §3 [A])";
    chan_partner_pages: "chan.partner_pages_per_io" = 1.0, "4 KB pages per I/O", [1.0, 256.0],
        "assumed: another LPAR's I/O on a shared channel path moves one 4 KB page (its channel work as this LPAR's one-page I/O on the path type)";
    pav_move_interval: "pav.dynamic_move_interval" = 10.0, "s", [0.1, 600.0],
        "assumed: how often workload management reconsiders dynamic PAV aliases (z/OS WLM's policy interval is about 10 s; not read in a public source for alias management, channels.md §8 [A])";
}

const _: () = assert!(NAMES.len() <= READ_WORDS * 64, "widen READ_WORDS");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parameter_has_unit_and_source() {
        for p in table() {
            assert!(!p.unit.is_empty(), "{} has no unit", p.name);
            assert!(p.source.len() > 10, "{} has no source", p.name);
            assert!(
                p.source.starts_with("public")
                    || p.source.starts_with("assumed")
                    || p.source.starts_with("seed"),
                "{} source must say public/assumed/seed: {}",
                p.name,
                p.source
            );
        }
    }

    #[test]
    fn set_by_name() {
        let mut p = Params::default();
        p.set("srm.dspslice", 8.0).unwrap();
        assert_eq!(p.dspslice, 8.0);
        assert!(p.set("srm.dspslyce", 1.0).is_err());
        assert!(p.set("srm.dspslice", -1.0).is_err());
    }

    #[test]
    fn defaults_lie_inside_their_ranges() {
        for p in table() {
            assert!(p.min <= p.max, "{}: empty range", p.name);
            assert!(
                p.min <= p.default && p.default <= p.max,
                "{}: default {} outside [{}, {}] {}",
                p.name,
                p.default,
                p.min,
                p.max,
                p.unit
            );
        }
    }

    #[test]
    fn set_refuses_values_outside_the_range() {
        let mut p = Params::default();
        for (name, v) in [
            ("cpu.clock_ghz", 0.0),
            ("srm.dspslice", 0.0),
            ("dasd.eckd.disconnect_ms", 1e300),
            ("memtst.key_update_fraction", 1.5),
            ("cpu.clock_ghz", f64::NAN),
            ("cpu.clock_ghz", f64::INFINITY),
        ] {
            let e = p.set(name, v).unwrap_err();
            assert!(e.contains(name) && e.contains('['), "{e}");
        }
        assert!(p.set("cpu.clock_ghz", 0.5).is_ok() && p.set("cpu.clock_ghz", 10.0).is_ok());
        assert!(p.set("srm.dspslice", 1.0).is_ok());
    }

    #[test]
    fn reads_are_recorded_by_name() {
        reads_reset();
        let p = Params::default();
        assert!(names_read(reads_taken()).is_empty());
        let _ = p.dspslice + p.clock_ghz; // field access by tests is not a read
        assert!(names_read(reads_taken()).is_empty());
        let _ = p.dspslice() + p.caf_4way();
        assert_eq!(
            names_read(reads_taken()),
            vec!["srm.dspslice", "lab.caf_4way"]
        );
        let before = reads_taken();
        reads_reset();
        let _ = p.clock_ghz();
        assert_eq!(
            names_read(before.union(reads_taken())),
            vec!["cpu.clock_ghz", "srm.dspslice", "lab.caf_4way"]
        );
    }
}
