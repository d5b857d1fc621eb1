//! Unit tests of `Paging` against hand-computed values.
//!
//! Every configuration runs at one instruction per nanosecond (clock 1 GHz, CP CPI 1, no
//! remote-miss cycles), so a CP path of N instructions costs N ns: fault 4000, first touch
//! 2500, revalidation 800, steal 1200, SSCH 600, per-page I/O path 100 (ECKD), 300 (EDEV,
//! SCSI direct), 500 (EDEV, FBA emulation); a frame examined by a search 100. Paging volumes
//! have no disconnect time, so a service time is pend + pages x connect exactly: ECKD 125 us +
//! 62.5 us per page, EDEV 250 us + 125 us per page. Blocks of 2 pages (4 with the 6.4
//! payload). No frame lies below 2 GB for pageable use unless a test puts the line higher.

use super::*;
use crate::config::{PagingCipher, PagingVolume, PagingVolumeType, Refs, StorageCfg};
use crate::level::{
    AgeList, Below2g, EdevPaging, FrameCoalesce, PagingEncrypt, PagingHpf, PagingPayload, Reorder,
    Switches, XivIo,
};
use crate::rng::Rng;
use crate::storage::{AGING, FRAMES_BELOW_2G, NEVER, ON_DASD, VALID};
use proptest::prelude::*;

const US: Time = 1_000;
const MS: Time = 1_000_000;
/// ECKD service of one page: 125 us pend + 62.5 us connect.
const ECKD_1: Time = 187_500;

fn params() -> Params {
    Params {
        clock_ghz: 1.0,
        cpi_cp: 1.0,
        cycles_remote: 0.0,
        path_fault: 4000.0,
        path_first_touch: 2500.0,
        path_revalidate: 800.0,
        path_steal: 1200.0,
        path_ssch: 600.0,
        path_io_eckd: 100.0,
        path_io_edev_fba: 500.0,
        path_io_edev_scsi: 300.0,
        eckd_pend: 0.125,
        eckd_disconnect: 0.0,
        eckd_connect: 0.0625,
        edev_pend: 0.25,
        edev_disconnect: 0.0,
        edev_connect: 0.125,
        edev_queue_depth: 2.0,
        block_pages: 2.0,
        block_pages_64: 4.0,
        agelist_pct: 50.0,
        // The whole 2 GB below the line is CP's fixed storage: no below-2GB frame for pages.
        cp_below2g_frames: FRAMES_BELOW_2G as f64,
        below2g_per_io: 1.0,
        path_frame_search: 100.0,
        avail_fraction: 1e-6,
        path_reorder_page: 10.0,
        reorder_interval: 1.0,
        crypt_setup: 1000.0,
        ssl_aes_cpb_round: 0.25,
        decrypt_factor: 0.5,
        hpf_pend_factor: 0.5,
        hpf_connect_factor: 0.5,
        hpf_ssch_factor: 0.5,
        ..Params::default()
    }
}

/// FIFO steal (no aging list), 6.2+ below-2GB use, no reorder, classic blocks, coalescing,
/// no HPF, no encryption, EDEVs driven directly with overlapping I/O.
fn switches() -> Switches {
    let mut sw = crate::level::levels().remove(0).switches;
    sw.agelist = AgeList::Off;
    sw.below2g = Below2g::CpOnly;
    sw.reorder = Reorder::Off;
    sw.paging_payload = PagingPayload::Classic;
    sw.frame_coalesce = FrameCoalesce::On;
    sw.paging_hpf = PagingHpf::Unsupported;
    sw.paging_encrypt = PagingEncrypt::Unsupported;
    sw.edev_paging = EdevPaging::ScsiDirect;
    sw.xiv_io = XivIo::Concurrent;
    sw
}

fn vol(dtype: PagingVolumeType, count: u32, slots: u64) -> PagingVolume {
    PagingVolume {
        dtype,
        slots,
        count,
        xiv: false,
    }
}

fn eckd(count: u32, slots: u64) -> PagingVolume {
    vol(PagingVolumeType::Eckd, count, slots)
}

fn storage(frames: u64, vols: Vec<PagingVolume>) -> StorageCfg {
    StorageCfg {
        frames,
        paging_volumes: vols,
        prefill: false,
        hpf: false,
        encrypt: None,
    }
}

fn config(sc: Option<StorageCfg>) -> Config {
    let mut cfg: Config = serde_json::from_value(serde_json::json!({
        "level": "zvm-6.4", "processors": 1, "duration_ns": 1_000_000_000u64,
        "interval_ns": 1_000_000_000u64, "guests": [],
    }))
    .expect("config");
    cfg.storage = sc;
    cfg
}

fn build_sc(
    sc: StorageCfg,
    pages: &[u64],
    refs: Vec<Option<Refs>>,
    p: &Params,
    sw: &Switches,
) -> Paging {
    Paging::new(&config(Some(sc)), p, sw, 1, pages, refs).expect("paging")
}

/// Users with `pages` pages each, referenced uniformly over all of them.
fn build(frames: u64, vols: Vec<PagingVolume>, pages: &[u64], p: &Params, sw: &Switches) -> Paging {
    let refs = pages
        .iter()
        .map(|&n| Some(Refs::Uniform { range_pages: n }))
        .collect();
    build_sc(storage(frames, vols), pages, refs, p, sw)
}

/// `frames` frames, one ECKD volume of 1000 slots, the default parameters and switches.
fn simple(frames: u64, pages: &[u64]) -> Paging {
    build(frames, vec![eckd(1, 1000)], pages, &params(), &switches())
}

/// References `pages` of user `u` in turn, returning what each found.
fn touch(pg: &mut Paging, u: u32, pages: &[u64]) -> Vec<Found> {
    pages.iter().map(|&p| pg.reference(u, p).0).collect()
}

fn state(pg: &Paging, u: usize, p: u64) -> u8 {
    pg.st.tables[u].get(p)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

// ---------------------------------------------------------------------------------------------
// Construction and costs

#[test]
fn no_storage_section_no_paging() {
    let cfg = config(None);
    assert!(Paging::new(&cfg, &params(), &switches(), 1, &[], vec![]).is_none());
}

#[test]
fn costs_are_the_paths_at_one_instruction_per_ns() {
    let pg = simple(4, &[8, 3]);
    assert_eq!(pg.frames(), 4);
    assert_eq!(pg.exposures(), 1);
    assert_eq!((pg.guest_pages(0), pg.guest_pages(1)), (8, 3));
    assert_eq!((pg.resident(0), pg.resident(1)), (0, 0));
    assert_eq!(pg.touch_cost(Found::Revalidated), 800);
    assert_eq!(pg.touch_cost(Found::FirstTouch), 2500);
    assert_eq!(pg.touch_cost(Found::Valid), 0);
    assert_eq!(pg.touch_cost(Found::OnDasd), 0);
    // Volumes numbered PAGE00, PAGE01, ...; slots summed over the volumes (3 x 7).
    let pg = build(
        4,
        vec![eckd(2, 7), vol(PagingVolumeType::Edev, 1, 7)],
        &[8],
        &params(),
        &switches(),
    );
    let names: Vec<&str> = pg.devices().iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["PAGE00", "PAGE01", "PAGE02"]);
    assert_eq!(pg.counters().slots, 21);
    assert_eq!(pg.cost_io, [100, 100, 300]);
    assert_eq!(pg.cost_ssch, [600, 600, 600]);
}

#[test]
fn volume_types_set_servers_service_and_io_path() {
    let sw = switches();
    let edev = |xiv: bool| PagingVolume {
        dtype: PagingVolumeType::Edev,
        slots: 10,
        count: 1,
        xiv,
    };
    // SCSI direct: queue depth 2; an XIV after VM65929 overlaps too; path 300.
    let pg = build(4, vec![edev(false), edev(true)], &[8], &params(), &sw);
    assert_eq!((pg.devs[0].servers, pg.devs[1].servers), (2, 2));
    assert_eq!(pg.cost_io, [300, 300]);
    // An XIV before VM65929: one I/O at a time.
    let mut serial = sw.clone();
    serial.xiv_io = XivIo::Serial;
    let pg = build(4, vec![edev(false), edev(true)], &[8], &params(), &serial);
    assert_eq!((pg.devs[0].servers, pg.devs[1].servers), (2, 1));
    // FBA emulation (5.2): one at a time, path 500.
    let mut fba = sw.clone();
    fba.edev_paging = EdevPaging::FbaEmulation;
    let pg = build(4, vec![edev(false)], &[8], &params(), &fba);
    assert_eq!((pg.devs[0].servers, pg.cost_io[0]), (1, 500));
    assert_eq!(pg.devs[0].svc.pend, 250_000.0);
    assert_eq!(pg.devs[0].svc.connect_per_page, 125_000.0);
    // ECKD: one at a time, 125 us pend, 62.5 us per page.
    let pg = simple(4, &[8]);
    assert_eq!(pg.devs[0].servers, 1);
    assert_eq!(pg.devs[0].svc.pend, 125_000.0);
    assert_eq!(pg.devs[0].svc.disconnect, 0.0);
    assert_eq!(pg.devs[0].svc.connect_per_page, 62_500.0);
}

#[test]
fn hpf_shortens_eckd_pend_connect_and_ssch_where_supported() {
    let mut sw = switches();
    sw.paging_hpf = PagingHpf::Supported;
    let mut sc = storage(4, vec![eckd(1, 10), vol(PagingVolumeType::Edev, 1, 10)]);
    sc.hpf = true;
    let pg = build_sc(sc.clone(), &[8], vec![None], &params(), &sw);
    assert!(pg.hpf);
    // ECKD in transport mode: SSCH 600 x 0.5, pend 125 x 0.5 us, connect 62.5 x 0.5 us.
    assert_eq!(pg.cost_ssch, [300, 600]);
    assert_eq!(pg.devs[0].svc.pend, 62_500.0);
    assert_eq!(pg.devs[0].svc.connect_per_page, 31_250.0);
    // The EDEV keeps its own service.
    assert_eq!(pg.devs[1].svc.pend, 250_000.0);
    assert!(pg.summary(MS, 0, 0).hpf);
    // A level without it: command mode.
    let pg = build_sc(sc, &[8], vec![None], &params(), &switches());
    assert!(!pg.hpf);
    assert_eq!(pg.cost_ssch, [600, 600]);
    assert_eq!(pg.devs[0].svc.pend, 125_000.0);
}

// ---------------------------------------------------------------------------------------------
// References, frames and replacement

#[test]
fn a_reference_finds_first_touch_then_resident_then_after_a_steal_on_dasd() {
    // 3 frames, FIFO steal.
    let mut pg = simple(3, &[8]);
    let (f, m) = pg.reference(0, 0);
    assert_eq!(f, Found::FirstTouch);
    assert_eq!(pg.frames_taken_since(m), 1); // its own frame, nothing stolen
    assert_eq!(pg.reference(0, 0).0, Found::Valid);
    assert_eq!(touch(&mut pg, 0, &[1, 2]), [Found::FirstTouch; 2]);
    assert_eq!((pg.resident(0), pg.st.free), (3, 0));
    // A fourth page: the in-use head (page 0) is stolen, its frame taken: 1 + 1 steal.
    let (f, m) = pg.reference(0, 3);
    assert_eq!(f, Found::FirstTouch);
    assert_eq!(pg.frames_taken_since(m), 2);
    assert_eq!(state(&pg, 0, 0), ON_DASD);
    assert_eq!(pg.st.pending_writes, [0]);
    // Page 0 again: on DASD, a page-in; page 1 (the head now) is stolen.
    assert_eq!(pg.reference(0, 0).0, Found::OnDasd);
    assert_eq!(state(&pg, 0, 1), ON_DASD);
    assert_eq!(pg.reference(0, 1).0, Found::OnDasd); // steals page 2
    assert_eq!(
        (0..4).map(|p| state(&pg, 0, p)).collect::<Vec<_>>(),
        [VALID, VALID, ON_DASD, VALID]
    );
    assert_eq!(pg.st.pending_writes, [0, 1, 2]);
    let c = pg.counters();
    // References 0,0,1,2,3,0,1 = 7; first touches 0..3 = 4; faults (page-ins) 2.
    assert_eq!(
        (
            c.frames,
            c.resident,
            c.faults,
            c.first_touches,
            c.pages_read
        ),
        (3, 3, 2, 4, 2)
    );
    let s = pg.summary(MS, 0, 0);
    assert_eq!((s.references, s.revalidations), (7, 0));
    assert!(close(s.fault_rate, 2.0 / 7.0));
    // Reads 2, steals 3, resident 3.
    assert_eq!(pg.user_counters(), [(2, 3, 3)]);
}

#[test]
fn resident_counts_are_per_user_and_steal_crosses_users() {
    let mut pg = simple(4, &[4, 4]);
    touch(&mut pg, 0, &[0, 1, 2]);
    touch(&mut pg, 1, &[0]);
    assert_eq!((pg.resident(0), pg.resident(1)), (3, 1));
    // User 1's second page steals user 0's oldest (global FIFO): 2 + 2.
    touch(&mut pg, 1, &[1]);
    assert_eq!((pg.resident(0), pg.resident(1)), (2, 2));
    assert_eq!(pg.user_counters(), [(0, 1, 2), (0, 0, 2)]);
    // User 1's pages are global pages 4.. (after user 0's 4).
    assert_eq!(pg.st.gid(1, 1), 5);
    assert_eq!(pg.st.pending_writes, [0]);
    assert_eq!(pg.st.resident + pg.st.free, 4);
}

#[test]
fn the_aging_list_gives_a_referenced_page_a_second_chance() {
    // 4 frames, aging list of 50 % = 2 frames.
    let mut sw = switches();
    sw.agelist = AgeList::On;
    let mut pg = build(4, vec![eckd(1, 100)], &[8], &params(), &sw);
    assert_eq!(pg.st.agelist_target, 2);
    touch(&mut pg, 0, &[0, 1, 2, 3]);
    // Page 4: pages 0 and 1 go to the aging list, page 0 (its head) is stolen.
    touch(&mut pg, 0, &[4]);
    assert_eq!((state(&pg, 0, 0), state(&pg, 0, 1)), (ON_DASD, AGING));
    // Page 1 is revalidated: no I/O, CP time 800, still 4 resident.
    let (f, m) = pg.reference(0, 1);
    assert_eq!(f, Found::Revalidated);
    assert_eq!(pg.touch_cost(f), 800);
    assert_eq!(pg.pgmbks_since(m), (0, 0));
    assert_eq!(pg.resident(0), 4);
    // Page 5: pages 2 and 3 age, page 2 is stolen; page 1 survives (FIFO would steal it).
    touch(&mut pg, 0, &[5]);
    assert_eq!(
        (1..=3).map(|p| state(&pg, 0, p)).collect::<Vec<_>>(),
        [VALID, ON_DASD, AGING]
    );
    let s = pg.summary(MS, 0, 0);
    assert_eq!(
        (s.revalidations, s.first_touches, s.resident_pages),
        (1, 6, 4)
    );
    // FIFO: the same references steal page 1.
    let mut fifo = simple(4, &[8]);
    touch(&mut fifo, 0, &[0, 1, 2, 3, 4, 1, 5]);
    assert_eq!(fifo.summary(MS, 0, 0).revalidations, 0);
    assert_eq!(state(&fifo, 0, 1), ON_DASD);
}

#[test]
fn page_tables_are_requested_per_new_segment_and_freed_with_its_last_page() {
    // 2 frames, 600 pages: segments of 256 pages.
    let mut pg = simple(2, &[600]);
    let (_, m) = pg.reference(0, 0);
    assert_eq!(pg.pgmbks_since(m), (0, 1));
    let (_, m) = pg.reference(0, 256);
    assert_eq!(pg.pgmbks_since(m), (0, 1));
    // Page 1: segment 0 has a table; page 0 is stolen but page 1 keeps segment 0 alive.
    let (_, m) = pg.reference(0, 1);
    assert_eq!(pg.pgmbks_since(m), (0, 0));
    // Page 512: a new segment; the steal of page 256 empties segment 1.
    let (_, m) = pg.reference(0, 512);
    assert_eq!(pg.pgmbks_since(m), (1, 1));
    let s = pg.summary(MS, 0, 0);
    assert_eq!((s.pgmbk_requests, s.pgmbk_frees), (3, 1));
}

#[test]
fn next_page_follows_each_pattern() {
    let refs = vec![
        Some(Refs::Strided {
            range_pages: 10,
            stride_pages: 3,
        }),
        Some(Refs::Uniform { range_pages: 5 }),
        Some(Refs::Hotset {
            range_pages: 10,
            hot_pages: 2,
            hot_fraction: 1.0,
        }),
        Some(Refs::Hotset {
            range_pages: 10,
            hot_pages: 2,
            hot_fraction: 0.0,
        }),
        None,
    ];
    let mut pg = build_sc(
        storage(4, vec![eckd(1, 10)]),
        &[10, 5, 10, 10, 0],
        refs,
        &params(),
        &switches(),
    );
    let mut rng = Rng::stream(3, 3);
    // Stride 3 modulo 10.
    let strided: Vec<u64> = (0..11)
        .map(|_| pg.next_page(0, &mut rng).unwrap())
        .collect();
    assert_eq!(strided, [0, 3, 6, 9, 2, 5, 8, 1, 4, 7, 0]);
    let mut seen = [0u32; 5];
    for _ in 0..500 {
        seen[pg.next_page(1, &mut rng).unwrap() as usize] += 1;
    }
    assert!(
        seen.iter().all(|&n| n > 50),
        "uniform over 5 pages: {seen:?}"
    );
    let mut hot = [false; 10];
    let mut cold = [false; 10];
    for _ in 0..500 {
        hot[pg.next_page(2, &mut rng).unwrap() as usize] = true;
        cold[pg.next_page(3, &mut rng).unwrap() as usize] = true;
    }
    // Always hot: pages 0 and 1 only; never hot: pages 2..10 only, every one of them.
    assert_eq!(
        hot,
        [true, true, false, false, false, false, false, false, false, false]
    );
    assert_eq!(
        cold,
        [false, false, true, true, true, true, true, true, true, true]
    );
    assert_eq!(pg.next_page(4, &mut rng), None);
    // The user storage: pages and the reference range.
    assert_eq!(
        pg.user_storage(),
        [(10, 10), (5, 5), (10, 10), (10, 10), (0, 0)]
    );
}

// ---------------------------------------------------------------------------------------------
// Page-ins: start, joining, devices

#[test]
fn a_page_in_costs_fault_io_path_and_ssch_and_another_cpu_joins_it() {
    let mut pg = simple(4, &[8, 8]);
    // Nothing in flight: nobody to join.
    assert_eq!(pg.join_pagein(0, 3, 1), None);
    // Fault 4000 + ECKD path 100 + SSCH 600.
    assert_eq!(pg.begin_pagein(0, 3, 0), (0, 4700));
    // Virtual CPUs 1 and 2 fault on the same page: the fault's CP time only, no I/O.
    assert_eq!(pg.join_pagein(0, 3, 1), Some(4000));
    assert_eq!(pg.join_pagein(0, 3, 2), Some(4000));
    // Another page, or user 1's page 3 (global page 11), is not in flight.
    assert_eq!(pg.join_pagein(0, 4, 3), None);
    assert_eq!(pg.join_pagein(1, 3, 3), None);
    assert_eq!(pg.summary(MS, 0, 0).shared_page_waits, 2);
    // The page-in of global page 3 completes after 500 ns: 1 and 2 were waiting, in order.
    assert_eq!(pg.pagein_done(3, 500), [1, 2]);
    assert_eq!(pg.join_pagein(0, 3, 1), None);
    // User 1's page-in of its page 3 (tag 11) has nobody else.
    pg.begin_pagein(1, 3, 4);
    assert_eq!(pg.pagein_done(11, 300), Vec::<u32>::new());
    // Mean page wait: (500 + 300) / 2 ns.
    assert!(close(pg.summary(MS, 0, 0).page_wait_ms, 400e-6));
}

#[test]
fn a_page_in_waits_behind_the_volume_s_earlier_work() {
    let mut pg = simple(4, &[8]);
    pg.begin_pagein(0, 5, 0);
    pg.begin_pagein(0, 6, 1);
    // v0 at 1 us: starts at once, done at 1 + 187.5 us.
    assert_eq!(pg.submit_pagein(0, 0, US), Some(US + ECKD_1));
    // v1 at 2 us: the volume serves one I/O at a time, it waits.
    assert_eq!(pg.submit_pagein(1, 0, 2 * US), None);
    let r = pg.device_mut(0).complete(US + ECKD_1).unwrap();
    assert_eq!(
        (r.read, r.waiter, r.tag, r.queued, r.pages),
        (true, 0, 5, US, 1)
    );
    // v1 starts when v0's ends: 188.5 + 187.5 us.
    assert_eq!(pg.devices()[0].next_completion(), Some(US + 2 * ECKD_1));
    let r = pg.device_mut(0).complete(US + 2 * ECKD_1).unwrap();
    assert_eq!((r.waiter, r.tag, r.queued), (1, 6, 2 * US));
    // Over 1 ms: 2 I/Os of 1 page, service 187.5 us each, v1 queued 186.5 us.
    let s = pg.summary(MS, 0, 0);
    assert_eq!((s.paging_ios, s.pages_per_io), (2, 1.0));
    assert!(close(s.paging_service_ms, 0.1875));
    // (2 x 187.5 + 186.5) / 2 us.
    assert!(close(s.paging_response_ms, 0.28075));
    // 375 us busy in 1 ms on one volume.
    assert!(close(s.paging_concurrency, 0.375));
    let d = pg.device_summaries(MS);
    assert_eq!(d.len(), 1);
}

#[test]
fn an_edev_with_queue_depth_two_overlaps_two_page_ins() {
    let mut pg = build(
        4,
        vec![vol(PagingVolumeType::Edev, 1, 100)],
        &[8],
        &params(),
        &switches(),
    );
    for v in 0..3 {
        // Fault 4000 + SCSI path 300 + SSCH 600.
        assert_eq!(pg.begin_pagein(0, v as u64, v), (0, 4900));
    }
    // EDEV: 250 + 125 us.
    assert_eq!(pg.submit_pagein(0, 0, 0), Some(375 * US));
    assert_eq!(pg.submit_pagein(1, 0, 10 * US), Some(375 * US));
    assert_eq!(pg.submit_pagein(2, 0, 20 * US), None);
    pg.device_mut(0).complete(375 * US);
    // The third starts at 375 us, ends at 750 us; the second still ends at 385 us.
    assert_eq!(pg.devices()[0].next_completion(), Some(385 * US));
    pg.device_mut(0).complete(385 * US);
    assert_eq!(pg.devices()[0].next_completion(), Some(750 * US));
}

#[test]
fn the_page_in_s_cp_time_is_its_own_volume_s() {
    // ECKD (path 100) and EDEV (path 300): each page's slot is on one volume, always the same.
    let mut pg = build(
        4,
        vec![eckd(1, 100), vol(PagingVolumeType::Edev, 1, 100)],
        &[64],
        &params(),
        &switches(),
    );
    let mut used = [0; 2];
    for p in 0..64 {
        let (d, cp) = pg.begin_pagein(0, p, 0);
        assert_eq!(cp, 4000 + 600 + if d == 0 { 100 } else { 300 });
        assert_eq!(pg.begin_pagein(0, p, 1).0, d);
        used[d as usize] += 1;
    }
    assert!(used[0] > 10 && used[1] > 10, "slots spread: {used:?}");
}

#[test]
fn encrypted_paging_charges_decryption_per_read_and_encryption_per_write() {
    let mut sw = switches();
    sw.paging_encrypt = PagingEncrypt::Vm65993;
    let mut sc = storage(2, vec![eckd(1, 100)]);
    sc.encrypt = Some(PagingCipher::Aes128);
    let mut pg = build_sc(sc.clone(), &[8], vec![None], &params(), &sw);
    // AES-128: 10 rounds x 4096 bytes x 0.25 cycles = 10240 ns, + setup 1000;
    // decryption 1000 + 0.5 x 10240.
    assert_eq!((pg.cost_encrypt, pg.cost_decrypt), (11_240, 6_120));
    // Page-in: 4000 + 100 + 600 + 6120.
    assert_eq!(pg.begin_pagein(0, 7, 0).1, 10_820);
    // Two stolen pages, one block: (1200 + 100 + 11240) x 2 + 600.
    touch(&mut pg, 0, &[0, 1, 2, 3]);
    assert_eq!(pg.write_blocks(false, 0, |_, _| {}), Some((25_680, 1)));
    let e = pg.summary(1_000_000_000, 0, 0).encryption.unwrap();
    assert_eq!(e.cipher, PagingCipher::Aes128);
    assert!(close(e.pages_encrypted_per_s, 2.0));
    assert!(close(e.pages_decrypted_per_s, 1.0));
    assert!(close(e.encrypt_us_per_page, 11.24));
    assert!(close(e.decrypt_us_per_page, 6.12));
    // 2 x 11240 ns of 1 s; 6120 ns of 1 s.
    assert!(close(e.encrypt_pct, 100.0 * 22_480e-9));
    assert!(close(e.decrypt_pct, 100.0 * 6_120e-9));
    // A level without VM65993: no cipher, no cost.
    let mut pg = build_sc(sc, &[8], vec![None], &params(), &switches());
    assert_eq!((pg.cost_encrypt, pg.cost_decrypt), (0, 0));
    assert_eq!(pg.begin_pagein(0, 7, 0).1, 4_700);
    assert!(pg.summary(MS, 0, 0).encryption.is_none());
}

// ---------------------------------------------------------------------------------------------
// Block page-out

#[test]
fn stolen_pages_are_written_in_blocks_in_steal_order_round_robin_over_volumes() {
    let mut pg = build(2, vec![eckd(2, 1000)], &[8], &params(), &switches());
    assert_eq!(
        pg.write_blocks(true, 0, |_, _| panic!("nothing to write")),
        None
    );
    // 2 frames, 5 pages: pages 0, 1, 2 stolen in that order.
    touch(&mut pg, 0, &[0, 1, 2, 3, 4]);
    assert_eq!(pg.st.pending_writes, [0, 1, 2]);
    let mut starts = Vec::new();
    // One full block of 2 (the first two stolen): (1200 + 100) x 2 + 600, on PAGE00 at 1 us,
    // done after 125 + 2 x 62.5 us. The third page waits for a block.
    let r = pg.write_blocks(false, US, |d, t| starts.push((d, t)));
    assert_eq!(r, Some((3_200, 1)));
    assert_eq!(starts, [(0, US + 250 * US)]);
    assert_eq!(pg.st.pending_writes, [2]);
    // All: the last page alone, on PAGE01: 1300 + 600.
    let r = pg.write_blocks(true, 2 * US, |d, t| starts.push((d, t)));
    assert_eq!(r, Some((1_900, 1)));
    assert_eq!(starts[1], (1, 2 * US + ECKD_1));
    assert!(pg.st.pending_writes.is_empty());
    assert_eq!(pg.write_blocks(true, 3 * US, |_, _| panic!()), None);
    let r = pg.device_mut(0).complete(US + 250 * US).unwrap();
    assert_eq!((r.read, r.pages, r.waiter), (false, 2, NONE));
    let s = pg.summary(MS, 0, 0);
    // 3 pages in 2 I/Os; touched 5, resident 2: 3 slots used.
    assert_eq!(
        (s.pages_written, s.paging_ios, s.slots_used, s.slots),
        (3, 2, 3, 2000)
    );
    assert_eq!(s.pages_per_io, 1.5);
    assert_eq!(s.pages_pending_write, 0);
    // Busy 250 + 187.5 us over 1 ms on 2 volumes: 0.21875 I/Os in service per volume.
    assert!(close(s.paging_concurrency, 0.21875));
}

#[test]
fn several_blocks_at_once_and_a_busy_volume_queues_them() {
    // One volume, 2 frames, 7 pages touched: 5 stolen.
    let mut pg = simple(2, &[8]);
    touch(&mut pg, 0, &[0, 1, 2, 3, 4, 5, 6]);
    let mut starts = Vec::new();
    // Without all: two blocks of 2, the second queued behind the first; 1 page left.
    let r = pg.write_blocks(false, 0, |d, t| starts.push((d, t)));
    assert_eq!(r, Some((2 * 3_200, 2)));
    assert_eq!(starts, [(0, 250 * US)]);
    assert_eq!(pg.summary(MS, 0, 0).pages_pending_write, 1);
    assert_eq!(pg.devices()[0].queued(), 1);
}

#[test]
fn the_6_4_payload_writes_larger_blocks() {
    let mut sw = switches();
    sw.paging_payload = PagingPayload::Large;
    let mut pg = build(2, vec![eckd(1, 100)], &[8], &params(), &sw);
    assert_eq!(pg.block, 4);
    touch(&mut pg, 0, &[0, 1, 2, 3, 4]);
    // 3 pending, fewer than a block of 4: nothing written yet.
    assert_eq!(pg.write_blocks(false, 0, |_, _| {}), Some((0, 0)));
    // All: one block of 3, (1200 + 100) x 3 + 600.
    assert_eq!(pg.write_blocks(true, 0, |_, _| {}), Some((4_500, 1)));
    assert_eq!(pg.counters().pages_written, 3);
}

#[test]
fn paging_space_runs_out_when_the_pages_off_storage_exceed_the_slots() {
    // 2 frames, 5 pages touched: 3 pages need slots.
    for (slots, out) in [(3, None), (2, Some(7 * US))] {
        let mut pg = build(2, vec![eckd(1, slots)], &[8], &params(), &switches());
        assert!(pg.begin_touch());
        touch(&mut pg, 0, &[0, 1, 2, 3, 4]);
        pg.write_blocks(true, 7 * US, |_, _| {});
        assert_eq!(pg.out_of_space, out, "{slots} slots");
        assert_eq!(pg.begin_touch(), out.is_none());
        let s = pg.summary(MS, 0, 0);
        assert_eq!(s.paging_space_exhausted_at_s, out.map(|t| t as f64 / 1e9));
        assert_eq!(s.slots_used, 3);
        // It is set once: a later write keeps the first time.
        touch(&mut pg, 0, &[5]);
        pg.write_blocks(true, 9 * US, |_, _| {});
        if out.is_some() {
            assert_eq!(pg.out_of_space, out);
        }
    }
}

/// A prefill leaving more pages off storage than there are slots starts with the paging space
/// exhausted: reported at 0 and touches refused, even if no block write follows (found by
/// test_plausibility_fuzz: a 100 ms run had 311296 slots used of 262144 and reported no
/// exhaustion). One that fits starts with paging space left.
#[test]
fn a_prefill_beyond_the_paging_space_starts_with_it_exhausted() {
    for (slots, out) in [(4, None), (3, Some(0))] {
        let mut sc = storage(4, vec![eckd(1, slots)]);
        sc.prefill = true;
        let refs = vec![Some(Refs::Uniform { range_pages: 8 })];
        let mut pg = build_sc(sc, &[8], refs, &params(), &switches());
        assert_eq!(pg.counters().slots_used, 4);
        assert_eq!(pg.out_of_space, out, "{slots} slots");
        assert_eq!(pg.begin_touch(), out.is_none());
        let s = pg.summary(MS, 0, 0);
        assert_eq!(s.paging_space_exhausted_at_s, out.map(|_| 0.0));
    }
}

#[test]
fn no_volume_no_block_write() {
    let mut pg = build(2, vec![], &[8], &params(), &switches());
    touch(&mut pg, 0, &[0, 1, 2]);
    assert_eq!(pg.write_blocks(true, 0, |_, _| {}), None);
    assert_eq!(pg.st.pending_writes, [0]);
}

// ---------------------------------------------------------------------------------------------
// Below 2 GB

/// 4 frames, 2 of them below 2 GB; elective below-2GB use (z/VM 6.1).
fn below2g(elective: bool) -> Paging {
    let p = Params {
        cp_below2g_frames: (FRAMES_BELOW_2G - 2) as f64,
        ..params()
    };
    let mut sw = switches();
    sw.below2g = if elective {
        Below2g::Elective
    } else {
        Below2g::CpOnly
    };
    build(4, vec![eckd(1, 100)], &[8], &p, &sw)
}

#[test]
fn a_free_below_2g_frame_is_taken_at_once_and_given_back_at_the_i_o_s_end() {
    let mut pg = below2g(true);
    // Elective: page 0 takes a below-2GB frame first; one is left.
    touch(&mut pg, 0, &[0]);
    let s = pg.summary(MS, 0, 0);
    assert_eq!((s.resident_below_2g, s.free_below_2g), (1, 1));
    assert_eq!(pg.defer_below(0, US), None);
    assert_eq!(pg.summary(MS, 0, 0).free_below_2g, 0);
    assert!(pg.pagein_ready(0, US));
    assert_eq!(pg.deferred_until(0), 0);
    pg.release_below_frames();
    assert_eq!(pg.summary(MS, 0, 0).free_below_2g, 1);
    assert_eq!(pg.st.check_frames(), Ok(()));
}

#[test]
fn without_elective_use_user_pages_stay_above_the_line() {
    let mut pg = below2g(false);
    // Only the 2 frames above the line hold user pages: the third page steals.
    touch(&mut pg, 0, &[0, 1, 2]);
    assert_eq!(pg.resident(0), 2);
    let s = pg.summary(MS, 0, 0);
    assert_eq!((s.resident_below_2g, s.free_below_2g), (0, 2));
    // CP's frame is on the below-2GB list: no deferral.
    assert_eq!(pg.defer_below(0, 0), None);
    assert_eq!(pg.summary(MS, 0, 0).below_2g_searches, 0);
}

#[test]
fn a_deferred_request_waits_for_the_scan_in_turn_and_for_its_victim_s_write() {
    let mut pg = below2g(true);
    // Pages 0 and 1 fill the two below-2GB frames; they are the only resident pages, so the
    // scan's first frame examined is below the line (geometric with q = 2/2 = 1).
    touch(&mut pg, 0, &[0, 1]);
    pg.begin_pagein(0, 5, 0);
    // v0 at 1 us: scan of 1 frame (100 ns), from 1 us; 1 changed page taken.
    assert_eq!(pg.defer_below(0, US), Some((100, 1)));
    assert_eq!(pg.deferred_until(0), US + 100);
    // The victim is written by its own I/O, not in a block.
    assert!(pg.st.pending_writes.is_empty());
    assert_eq!(pg.resident(0), 1);
    // Not ready: its victim is being written.
    assert!(!pg.pagein_ready(0, US + 100));
    // v1 at 1 us: the scan is busy until 1.1 us, its 1 frame (q = 1/1) ends at 1.2 us.
    assert_eq!(pg.defer_below(1, US), Some((100, 1)));
    assert_eq!(pg.deferred_until(1), US + 200);
    // No user page below the line is left: CP finds none; no deferral.
    assert_eq!(pg.defer_below(2, US), None);
    assert!(pg.pagein_ready(2, 0));
    // v0's victim: one page-out of 1 page, 1300 + 600, on PAGE00, waited for by v0.
    assert_eq!(
        pg.write_victims(0, 1, 2 * US),
        Some((1_900, 0, Some(2 * US + ECKD_1)))
    );
    let r = pg.device_mut(0).complete(2 * US + ECKD_1).unwrap();
    assert_eq!((r.read, r.waiter, r.pages), (false, 0, 1));
    pg.victim_written(0);
    // Ready once the scan's time has come too.
    assert!(!pg.pagein_ready(0, US + 99));
    assert!(pg.pagein_ready(0, US + 100));
    pg.set_pagein_pending(0);
    assert!(pg.pagein_pending(0));
    assert_eq!(pg.submit_pagein(0, 0, 3 * US), Some(3 * US + ECKD_1));
    assert!(!pg.pagein_pending(0));
    assert_eq!(pg.deferred_until(0), 0);
    let s = pg.summary(1_000_000_000, 0, 0);
    // 2 searches of 1 frame; 2 deferrals waiting 100 + 200 ns; 200 ns of scan; 1 victim write.
    assert_eq!(
        (s.below_2g_searches, s.below_2g_examined_per_search),
        (2, 1.0)
    );
    assert!(close(s.below_2g_deferrals_per_s, 2.0));
    assert!(close(s.below_2g_defer_wait_ms, 150e-6));
    assert!(close(s.below_2g_search_ms_per_s, 200e-6));
    assert!(close(s.below_2g_victim_writes_per_s, 1.0));
    assert_eq!(s.pages_written, 1);
    assert_eq!(pg.st.check_frames(), Ok(()));
}

#[test]
fn a_victim_write_searches_for_its_own_below_2g_frame() {
    let mut pg = below2g(true);
    touch(&mut pg, 0, &[0, 1]);
    // The deferral takes one of the two pages below the line (1 frame examined, to 1.1 us).
    assert_eq!(pg.defer_below(0, US), Some((100, 1)));
    // The victim's write needs a frame below the line too: the other page there is the only
    // resident one (q = 1/1), 1 frame examined, 100 ns after the scan's earlier work (from
    // 2 us, the scan is free then): 1300 + 600 + 100; its page is written later, in a block.
    assert_eq!(
        pg.write_victims(0, 1, 2 * US),
        Some((2_000, 0, Some(2 * US + ECKD_1)))
    );
    assert_eq!(pg.st.pending_writes.len(), 1);
    assert_eq!(pg.scan_free, 2 * US + 100);
    assert_eq!(pg.resident(0), 0);
    let s = pg.summary(1_000_000_000, 0, 0);
    assert_eq!(s.below_2g_searches, 2);
    // The write is a paging I/O in its own right: 1 page written, one I/O.
    assert_eq!((s.pages_written, s.paging_ios), (1, 1));
}

#[test]
fn a_deferral_s_scan_lasts_100_ns_per_frame_examined() {
    // 2 pages below the line among 4 resident: the search examines a geometric number of
    // frames (q = 2/4); the deferral lasts 100 ns for each.
    let mut pg = below2g(true);
    touch(&mut pg, 0, &[0, 1, 2, 3]);
    let (hold, victims) = pg.defer_below(0, US).unwrap();
    let examined = pg.st.below_examined;
    assert_eq!((hold, victims), (examined * 100, 1));
    assert_eq!(pg.deferred_until(0), US + examined * 100);
}

#[test]
fn a_victim_with_no_volume_to_write_to_no_longer_holds_the_request() {
    let p = Params {
        cp_below2g_frames: (FRAMES_BELOW_2G - 2) as f64,
        ..params()
    };
    let mut sw = switches();
    sw.below2g = Below2g::Elective;
    let mut pg = build(4, vec![], &[8], &p, &sw);
    touch(&mut pg, 0, &[0, 1]);
    assert_eq!(pg.defer_below(3, 0), Some((100, 1)));
    assert!(!pg.pagein_ready(3, 100));
    assert_eq!(pg.write_victims(3, 1, 0), None);
    assert!(pg.pagein_ready(3, 100));
}

#[test]
fn a_block_write_s_below_2g_search_is_system_time() {
    // Blocks of 1; 4 frames, 2 below the line, elective.
    let p = Params {
        cp_below2g_frames: (FRAMES_BELOW_2G - 2) as f64,
        block_pages: 1.0,
        ..params()
    };
    let mut sw = switches();
    sw.below2g = Below2g::Elective;
    let mut pg = build(4, vec![eckd(1, 100)], &[8], &p, &sw);
    // Pages 0, 1 below, 2, 3 above; page 4 steals page 0 and takes its below-2GB frame.
    touch(&mut pg, 0, &[0, 1, 2, 3, 4]);
    assert_eq!(pg.st.below.len(), 2);
    // Writing page 0 needs a below-2GB frame: the search steals one of the two user pages
    // there, whose write needs another: every search's victim is written in turn until no user
    // page is below the line (CP then finds none): 3 blocks of 1 page, 1300 + 600 each, plus
    // 100 ns per frame the searches examined.
    let (sys, blocks) = pg.write_blocks(false, 0, |_, _| {}).unwrap();
    assert_eq!(blocks, 3);
    assert!(pg.st.below_examined >= 2);
    assert_eq!(sys, 3 * 1_900 + pg.st.below_examined * 100);
    assert_eq!(pg.search_wall_ns, pg.st.below_examined * 100);
    assert_eq!(pg.scan_free, pg.st.below_examined * 100);
    assert_eq!(pg.counters().pages_written, 3);
}

// ---------------------------------------------------------------------------------------------
// Reorder and contiguous frames

#[test]
fn reorder_walks_a_faulting_user_s_resident_pages_once_per_interval() {
    let mut sw = switches();
    sw.reorder = Reorder::On;
    let mut pg = build(8, vec![eckd(1, 100)], &[8, 8], &params(), &sw);
    touch(&mut pg, 0, &[0, 1, 2]);
    touch(&mut pg, 1, &[0]);
    // Interval 1 ms from 0; 10 ns per resident page.
    assert_eq!(pg.reorder_due(0, MS - 1), None);
    assert_eq!(pg.reorder_due(0, MS), Some(30));
    assert_eq!(pg.reorder_due(0, MS + MS / 2), None);
    assert_eq!(pg.reorder_due(0, 2 * MS), Some(30));
    // Per user: user 1 has not been reordered.
    assert_eq!(pg.reorder_due(1, 2 * MS + MS / 2), Some(10));
    let s = pg.summary(MS, 0, 0);
    // 3 reorders: 30 + 30 + 10 ns, the longest 30 (not the last).
    assert_eq!(s.reorders, 3);
    assert!(close(s.reorder_total_ms, 70e-6));
    assert!(close(s.reorder_max_ms, 30e-6));
    // Off (6.3+): never.
    let mut pg = simple(8, &[8]);
    assert_eq!(pg.reorder_due(0, 100 * MS), None);
}

#[test]
fn coalesced_page_tables_go_back_as_pairs_the_next_requests_take() {
    let mut pg = simple(8, &[8]);
    // 3 freed, 1 wanted: a pair taken, 1 frame examined (100 ns); 2 pairs kept.
    assert_eq!(pg.contiguous_search(3, 1), 100.0);
    assert_eq!(pg.contiguous_search(0, 2), 200.0);
    assert_eq!((pg.contig_searches, pg.contig_examined), (3, 3));
    // No pair left: a search among the available frames (a neighbour free with probability
    // 1e-6) examines more than one frame.
    let hold = pg.contiguous_search(0, 1);
    assert!(pg.contig_examined > 4);
    assert_eq!(hold, (pg.contig_examined - 3) as f64 * 100.0);
    pg.contiguous_waited(5_000);
    pg.contiguous_waited(1_000);
    let s = pg.summary(1_000_000_000, 0, 0);
    assert!(close(
        s.contig_examined_per_search,
        pg.contig_examined as f64 / 4.0
    ));
    assert!(close(s.contig_search_ms_per_s, 6e-3));
}

#[test]
fn without_coalescing_every_request_searches() {
    let mut sw = switches();
    sw.frame_coalesce = FrameCoalesce::Off;
    let mut pg = build(8, vec![eckd(1, 100)], &[8], &params(), &sw);
    let hold = pg.contiguous_search(5, 1);
    assert!(pg.contig_examined > 1, "a freed pair is not kept");
    assert_eq!(pg.pairs, 0);
    assert_eq!(hold, pg.contig_examined as f64 * 100.0);
    // Every neighbour free (fraction 1): one frame per search.
    let p = Params {
        avail_fraction: 1.0,
        ..params()
    };
    let mut pg = build(8, vec![eckd(1, 100)], &[8], &p, &sw);
    assert_eq!(pg.contiguous_search(0, 3), 300.0);
}

// ---------------------------------------------------------------------------------------------
// Summary and counters

#[test]
fn the_summary_is_what_was_done() {
    let mut pg = build(2, vec![eckd(1, 50)], &[8], &params(), &switches());
    for _ in 0..4 {
        assert!(pg.begin_touch());
    }
    // 4 touches: pages 0, 1 first touched, page 2 steals 0, page 0 paged in (steals 1).
    assert_eq!(
        touch(&mut pg, 0, &[0, 1, 2, 0]),
        [
            Found::FirstTouch,
            Found::FirstTouch,
            Found::FirstTouch,
            Found::OnDasd
        ]
    );
    pg.write_blocks(false, 0, |_, _| {});
    let c = pg.counters();
    assert_eq!(
        (
            c.frames,
            c.resident,
            c.pages_read,
            c.pages_written,
            c.faults,
            c.first_touches,
            c.slots,
            c.slots_used
        ),
        (2, 2, 1, 2, 1, 3, 50, 1)
    );
    // 2 s; busy 10 us, of which 4 us guest time: 6 us CP over 4 touches and 3 moves.
    let s = pg.summary(2_000_000_000, 10_000, 4_000);
    assert_eq!(
        (s.frames, s.resident_pages, s.references, s.first_touches),
        (2, 2, 4, 3)
    );
    assert_eq!(
        (
            s.faults,
            s.pages_read,
            s.pages_written,
            s.pages_pending_write
        ),
        (1, 1, 2, 0)
    );
    assert!(close(s.fault_rate, 0.25));
    assert!(close(s.touches_per_s, 2.0));
    assert!(close(s.moves_per_s, 1.5));
    assert!(close(s.moves_per_touch, 0.75));
    assert!(close(s.cp_us_per_touch, 1.5));
    assert!(close(s.cp_us_per_move.unwrap(), 2.0));
    assert!(close(s.virt_us_per_touch, 1.0));
    assert_eq!((s.slots, s.slots_used), (50, 1));
    assert_eq!(s.paging_space_exhausted_at_s, None);
    // A run of length 0 is taken as 1 ns: no division by zero.
    assert!(pg.summary(0, 0, 0).touches_per_s.is_finite());
}

#[test]
fn for_config_gives_each_guest_copy_its_pages_and_references() {
    let cfg: Config = serde_json::from_value(serde_json::json!({
        "level": "zvm-6.4", "processors": 1, "duration_ns": 1_000_000_000u64,
        "interval_ns": 1_000_000_000u64,
        "guests": [
            {"userid": "A", "count": 2, "storage_pages": 16,
             "refs": {"pattern": "uniform", "range_pages": 12},
             "workload": {"kind": "cpu-bound"}},
            {"userid": "B", "storage_pages": 32, "workload": {"kind": "cpu-bound"}},
        ],
        "storage": {"frames": 4, "paging_volumes": [{"type": "eckd", "slots": 10, "count": 3}]},
    }))
    .expect("config");
    let level = crate::level::levels().remove(0);
    let pg = Paging::for_config(&cfg, &params(), &level).unwrap();
    // B has no references: no page table.
    assert_eq!(pg.user_storage(), [(16, 12), (16, 12), (0, 0)]);
    assert_eq!((pg.frames(), pg.exposures()), (4, 3));
    assert_eq!(pg.counters().slots, 30);
}

#[test]
fn prefill_holds_the_front_of_a_range_or_a_uniform_guest_s_spread() {
    let mut sc = storage(4, vec![eckd(1, 100)]);
    sc.prefill = true;
    let refs = vec![Some(Refs::Strided {
        range_pages: 8,
        stride_pages: 1,
    })];
    let pg = build_sc(sc.clone(), &[8], refs, &params(), &switches());
    // The front: pages 0..4 resident, 4..8 on DASD; 8 touched, 4 on slots.
    let st: Vec<u8> = (0..8).map(|p| state(&pg, 0, p)).collect();
    assert_eq!(
        st,
        [VALID, VALID, VALID, VALID, ON_DASD, ON_DASD, ON_DASD, ON_DASD]
    );
    let c = pg.counters();
    assert_eq!((c.resident, c.first_touches, c.slots_used), (4, 8, 4));
    // Uniform over 8 with 4 frames: pages 0, 2, 4, 6 (i x 8 / 4).
    let pg = build_sc(
        sc.clone(),
        &[8],
        vec![Some(Refs::Uniform { range_pages: 8 })],
        &params(),
        &switches(),
    );
    let st: Vec<u8> = (0..8).map(|p| state(&pg, 0, p)).collect();
    assert_eq!(
        st,
        [VALID, ON_DASD, VALID, ON_DASD, VALID, ON_DASD, VALID, ON_DASD]
    );
    // A range shorter than the guest: the pages beyond it are never touched.
    let pg = build_sc(
        sc,
        &[10],
        vec![Some(Refs::Uniform { range_pages: 6 })],
        &params(),
        &switches(),
    );
    assert_eq!((state(&pg, 0, 6), state(&pg, 0, 9)), (NEVER, NEVER));
    assert_eq!(pg.counters().first_touches, 6);
}

#[test]
fn prefill_walks_guests_interleaved_by_chunks() {
    // Ranges 600 and 200 pages, 400 frames: the first chunk of 256 gives A 256 and B the
    // 144 frames left (its 200 capped by them).
    let refs = vec![
        Some(Refs::Uniform { range_pages: 600 }),
        Some(Refs::Uniform { range_pages: 200 }),
    ];
    assert_eq!(prefill_counts(400, &refs), [256, 144]);
    // 1000 frames: A's chunks 256 + 256 + 88, B 200, 256 left over.
    assert_eq!(prefill_counts(1000, &refs), [600, 200]);
    // 500: chunk 0 gives 256 and 200; chunk 1 gives A the last 44.
    assert_eq!(prefill_counts(500, &refs), [300, 200]);
    let mut sc = storage(400, vec![eckd(1, 1000)]);
    sc.prefill = true;
    let pg = build_sc(sc, &[600, 200], refs, &params(), &switches());
    assert_eq!((pg.resident(0), pg.resident(1)), (256, 144));
    assert_eq!(pg.st.check_frames(), Ok(()));
}

/// README "Storage and paging (issue 5)": `prefill = true` deals the frames out among the guests
/// in turns of 256 pages until none is left, so each holds an equal share or its whole range if
/// that is smaller (this test found the README saying "in proportion to their ranges"): ranges
/// 1024 and 256 pages with 640 frames give 256 + 256 in the first turn, then the 128 left to the
/// first guest: 384 and 256 (in proportion to the ranges would be 512 and 128).
#[test]
fn prefill_deals_the_frames_out_in_equal_turns() {
    let refs = vec![
        Some(Refs::Uniform { range_pages: 1024 }),
        Some(Refs::Uniform { range_pages: 256 }),
    ];
    assert_eq!(prefill_counts(640, &refs), [384, 256]);
    // Enough for both ranges: each its whole range.
    assert_eq!(prefill_counts(2000, &refs), [1024, 256]);
}

// A page-in needs a paging volume (`begin_pagein` indexes the volumes' costs): a configuration
// in which pages could be stolen without one (the guests' pages and the minidisk cache beyond
// the frames) is refused by `Config::check` (tests/paging.rs,
// `a_cache_and_pages_beyond_storage_need_paging_volumes`); the unit test that found the panic
// built such a `Paging` directly.

// ---------------------------------------------------------------------------------------------
// Properties

#[derive(Clone, Debug)]
enum Op {
    Ref(u32, u64),
    Write(bool),
    Defer(u32),
    Victim(u32),
    Release,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u32..2, 0u64..6).prop_map(|(u, p)| Op::Ref(u, p)),
        1 => any::<bool>().prop_map(Op::Write),
        1 => (0u32..3).prop_map(Op::Defer),
        1 => (0u32..3).prop_map(Op::Victim),
        1 => Just(Op::Release),
    ]
}

/// Frames in use + free + CP's = total, per user and per page; every page resident at most
/// once; the counters add up to the references made.
fn check_invariants(pg: &Paging, refs: u64, found: &[u64; 4]) -> Result<(), TestCaseError> {
    let s = &pg.st;
    prop_assert_eq!(s.check_frames(), Ok(()));
    prop_assert_eq!(s.resident + s.free + s.cp_below, s.frames);
    prop_assert_eq!(s.res_user.iter().sum::<u64>(), s.resident);
    let mut held = 0;
    let mut touched = 0;
    for (u, t) in s.tables.iter().enumerate() {
        let n = (0..t.pages)
            .filter(|&p| matches!(t.get(p), VALID | AGING))
            .count() as u64;
        prop_assert_eq!(n, s.res_user[u]);
        held += n;
        touched += (0..t.pages).filter(|&p| t.get(p) != NEVER).count() as u64;
    }
    prop_assert_eq!(held, s.resident);
    prop_assert_eq!(touched, s.first_touches);
    // A page in a below-2GB frame is there once, and resident.
    let mut below = s.below.clone();
    below.sort_unstable();
    below.dedup();
    prop_assert_eq!(below.len(), s.below.len());
    for &g in &s.below {
        let (u, p) = s.split(g);
        prop_assert!(matches!(s.tables[u].get(p), VALID | AGING));
    }
    prop_assert_eq!(s.references, refs);
    prop_assert_eq!(s.first_touches, found[2]);
    prop_assert_eq!(s.faults, found[3]);
    prop_assert_eq!(s.pages_read, found[3]);
    prop_assert_eq!(s.revalidations, found[1]);
    prop_assert_eq!(found.iter().sum::<u64>(), refs);
    let reads: u64 = pg.user_counters().iter().map(|c| c.0).sum();
    prop_assert_eq!(reads, s.pages_read);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        rng_seed: proptest::test_runner::RngSeed::Fixed(5),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn frames_and_pages_are_conserved_under_any_sequence(
        frames in 1u64..7,
        below in 0u64..7,
        agelist in any::<bool>(),
        elective in any::<bool>(),
        ops in proptest::collection::vec(op(), 1..120),
    ) {
        let p = Params {
            cp_below2g_frames: (FRAMES_BELOW_2G - below) as f64,
            ..params()
        };
        let mut sw = switches();
        sw.agelist = if agelist { AgeList::On } else { AgeList::Off };
        sw.below2g = if elective { Below2g::Elective } else { Below2g::CpOnly };
        let mut pg = build(frames, vec![eckd(1, 1000)], &[6, 6], &p, &sw);
        let (mut refs, mut found) = (0u64, [0u64; 4]);
        let mut now = 0;
        for o in ops {
            now += 1000;
            match o {
                Op::Ref(u, page) => {
                    let (f, m) = pg.reference(u, page);
                    refs += 1;
                    found[f as usize] += 1;
                    if matches!(f, Found::FirstTouch | Found::OnDasd) {
                        prop_assert!(pg.frames_taken_since(m) >= 1);
                    }
                }
                Op::Write(all) => {
                    let before = pg.st.pending_writes.len();
                    let c0 = pg.counters();
                    let written = c0.pages_written;
                    if let Some((_, blocks)) = pg.write_blocks(all, now, |_, _| {}) {
                        prop_assert!(blocks >= (before / 2) as u64);
                        let left = if all { 1 } else { 2 };
                        prop_assert!(pg.st.pending_writes.len() < left);
                        prop_assert!(pg.counters().pages_written >= written + before as u64 - 1);
                        // Every page touched and not resident (when the write began) has a slot.
                        prop_assert_eq!(pg.counters().slots_used, c0.first_touches - c0.resident);
                    } else {
                        prop_assert_eq!(before, 0);
                    }
                }
                Op::Defer(v) => {
                    let pending = pg.st.pending_writes.len();
                    if let Some((_, victims)) = pg.defer_below(v, now) {
                        prop_assert!(pg.deferred_until(v) > now);
                        prop_assert!(!pg.pagein_ready(v, now));
                        prop_assert!(victims <= 1);
                    }
                    // A deferral's victims are written on their own, not in blocks.
                    prop_assert_eq!(pg.st.pending_writes.len(), pending);
                }
                Op::Victim(v) => {
                    pg.write_victims(v, 1, now);
                    pg.victim_written(v);
                    prop_assert!(pg.pagein_ready(v, pg.deferred_until(v)));
                }
                Op::Release => pg.release_below_frames(),
            }
            check_invariants(&pg, refs, &found)?;
        }
    }

    /// One volume serving one I/O at a time: page-ins complete in the order submitted, each at
    /// max(its submission, the previous completion) + 187.5 us; the mean page wait is the mean
    /// of (completion - submission).
    #[test]
    fn page_ins_on_one_volume_are_served_first_come_first_served(
        gaps in proptest::collection::vec(0u64..400_000, 1..12),
    ) {
        let mut pg = simple(4, &[16]);
        let mut now = 0;
        let mut submitted = Vec::new();
        let mut completed: Vec<(u32, Time)> = Vec::new();
        let complete_until = |pg: &mut Paging, t: Time, completed: &mut Vec<(u32, Time)>| {
            while let Some(c) = pg.devices()[0].next_completion().filter(|&c| c <= t) {
                let r = pg.device_mut(0).complete(c).unwrap();
                assert_eq!(r.tag, r.waiter); // page v read for virtual CPU v
                assert!(pg.pagein_done(r.tag, c - r.queued).is_empty());
                completed.push((r.waiter, c));
            }
        };
        for (v, gap) in gaps.iter().enumerate() {
            now += gap;
            complete_until(&mut pg, now, &mut completed);
            pg.begin_pagein(0, v as u64, v as u32);
            pg.submit_pagein(v as u32, 0, now);
            submitted.push(now);
        }
        complete_until(&mut pg, Time::MAX, &mut completed);
        let mut done: Time = 0;
        let mut total: Time = 0;
        let mut want = Vec::new();
        for (v, &t) in submitted.iter().enumerate() {
            done = done.max(t) + ECKD_1;
            total += done - t;
            want.push((v as u32, done));
        }
        prop_assert_eq!(&completed, &want);
        let s = pg.summary(done, 0, 0);
        prop_assert!(close(s.page_wait_ms, total as f64 / 1e6 / submitted.len() as f64));
    }

    /// Block writes of any number of stolen pages: full blocks only, or every page with `all`.
    #[test]
    fn block_writes_take_full_blocks_or_all(stolen in 0u64..20, all in any::<bool>()) {
        let mut pg = build(1, vec![eckd(3, 1000)], &[32], &params(), &switches());
        for p in 0..=stolen {
            pg.reference(0, p);
        }
        prop_assert_eq!(pg.st.pending_writes.len() as u64, stolen);
        let r = pg.write_blocks(all, 0, |_, _| {});
        if stolen == 0 {
            prop_assert!(r.is_none());
        } else {
            let (sys, blocks) = r.unwrap();
            let (full, rest) = (stolen / 2, stolen % 2);
            let want_blocks = full + if all { rest } else { 0 };
            let pages = 2 * full + if all { rest } else { 0 };
            prop_assert_eq!(blocks, want_blocks);
            prop_assert_eq!(pg.counters().pages_written, pages);
            // 1300 per page, 600 per block.
            prop_assert_eq!(sys, 1300 * pages + 600 * blocks);
            prop_assert_eq!(pg.st.pending_writes.len() as u64, stolen - pages);
            // Round robin over the 3 volumes from PAGE00.
            let ios: Vec<u64> = pg.devices().iter().map(|d| d.stats.ios + d.queued() as u64).collect();
            let want: Vec<u64> = (0..3).map(|d| (want_blocks + 2 - d) / 3).collect();
            prop_assert_eq!(ios, want);
        }
    }
}
