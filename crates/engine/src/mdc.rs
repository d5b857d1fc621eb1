//! The minidisk cache (MDC, cp-model §8; issue 6): CP keeps minidisk data read through CP
//! (start subchannel with CCW translation, Diagnose X'250') in real storage, so a later read of
//! the same data is a move from the cache instead of a device I/O. Dedicated devices (a Linux
//! guest's own FCP subchannel) and VDISKs are not eligible; SET MDC OFF for a device keeps its
//! data out (the workload's `mdc = false`, the default here, so that the seed-004 rows measured
//! with MDC off keep their paths).
//!
//! Model: the caching unit is one I/O's run of `blocks` 4 KB blocks (CP caches whole tracks of
//! ECKD and 8-page blocks of FBA; a workload's I/O size stands for that unit). Reads look the
//! unit up; a hit costs CP `mdc.path_hit` per block and no device I/O; a miss is the device
//! I/O plus an insert (`mdc.path_insert` per block). Writes go to the device (write-through) and
//! refresh a cached copy. When the cache's frames (`[mdc] storage`, SET MDCACHE STORAGE) are
//! used up, an insert steals a unit chosen at random. With uniform references over B units and
//! room for C, random replacement gives the hit ratio C / B (test `uniform_hit_ratio`).
//! With a paging model (`[storage]`) the cache's frames come from its real storage: an insert
//! takes frames like a user page (below 2 GB first at levels with elective below-2GB use,
//! stealing user pages when none is free) and a steal returns them (test
//! `mdc_frames_from_real_storage`); CP's search for a below-2GB frame meets MDC frames as well as
//! user pages and takes either (`surrender_below`).
//!
//! The arbiter (with a paging model): every `mdc.arbiter_interval` it compares what a frame is
//! worth in the cache (hits per second per cached frame) with what it is worth to user pages
//! (page-ins per second per resident user page: the faults one more frame would avoid under
//! random replacement) times SET MDCACHE STORAGE BIAS, and moves the cache's target size by
//! `mdc.arbiter_step` of its maximum toward the better use, between 0 and the maximum
//! (`[mdc] storage`); a smaller target gives frames back at once [A: cp-model §8, the arbiter's
//! exact rule is not public]. Without a paging model nothing competes and the target stays at
//! the maximum.

use crate::rng::Rng;
use crate::storage::RealStorage;
use serde::Serialize;
use std::collections::HashMap;

/// What a read found: the unit cached (a hit), or missed and inserted, or missed and not
/// cached (larger than the cache's target).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    Hit,
    Inserted,
    Uncached,
}

pub struct Mdc {
    /// Frames the cache may hold now (the arbiter's target, 4 KB) and at most.
    pub cap_frames: u64,
    pub max_frames: u64,
    /// Arbiter: hits and page-ins at its last pass, passes that grew / shrank the target.
    hits_mark: u64,
    faults_mark: u64,
    pub grows: u64,
    pub shrinks: u64,
    pub used_frames: u64,
    /// Cached units: key -> index in `keys`; `keys` with their sizes in frames.
    map: HashMap<u64, u32>,
    /// Key, frames, frames of it below 2 GB.
    keys: Vec<(u64, u32, u32)>,
    pub used_below: u64,
    rng: Rng,
    pub reads: u64,
    pub hits: u64,
    pub inserts: u64,
    pub steals: u64,
    pub write_updates: u64,
}

/// FCX178 MDCSTOR-like figures.
#[derive(Clone, Debug, Serialize)]
pub struct MdcSummary {
    /// Maximum size (frames), the arbiter's target at the end, its passes that grew / shrank
    /// the target, and frames in use at the end of the run, below / above 2 GB.
    pub max_frames: u64,
    pub target_frames: u64,
    pub arbiter_grows: u64,
    pub arbiter_shrinks: u64,
    pub frames: u64,
    pub frames_below_2g: u64,
    pub frames_above_2g: u64,
    pub reads: u64,
    pub hits: u64,
    pub hit_ratio: f64,
    pub inserts: u64,
    pub steals: u64,
    pub steals_per_s: f64,
    pub write_updates: u64,
}

impl Mdc {
    pub fn new(cap_frames: u64, rng: Rng) -> Mdc {
        Mdc {
            cap_frames,
            max_frames: cap_frames,
            hits_mark: 0,
            faults_mark: 0,
            grows: 0,
            shrinks: 0,
            used_frames: 0,
            map: HashMap::new(),
            keys: Vec::new(),
            used_below: 0,
            rng,
            reads: 0,
            hits: 0,
            inserts: 0,
            steals: 0,
            write_updates: 0,
        }
    }

    /// A read of unit `key` (`frames` frames). A miss inserts the unit (the device I/O brings
    /// it in) unless it is larger than the cache's target, which may be 0 (`Read::Uncached`).
    /// With `st` (the paging model's real storage) the cache's frames are taken from it.
    pub fn read(&mut self, key: u64, frames: u32, st: Option<&mut RealStorage>) -> Read {
        self.reads += 1;
        if self.map.contains_key(&key) {
            self.hits += 1;
            return Read::Hit;
        }
        if self.insert(key, frames, st) {
            Read::Inserted
        } else {
            Read::Uncached
        }
    }

    /// A write of unit `key`: a cached copy is refreshed (write-through). True if cached.
    pub fn write(&mut self, key: u64) -> bool {
        let c = self.map.contains_key(&key);
        self.write_updates += c as u64;
        c
    }

    /// Insert unit `key`, stealing units at random to make room; false if it cannot fit.
    fn insert(&mut self, key: u64, frames: u32, mut st: Option<&mut RealStorage>) -> bool {
        if frames as u64 > self.cap_frames {
            return false;
        }
        while self.used_frames + frames as u64 > self.cap_frames {
            let i = self.rng.below(self.keys.len() as u64) as usize;
            self.drop_unit(i, st.as_deref_mut(), 0);
        }
        let mut below = 0;
        if let Some(st) = st {
            for _ in 0..frames {
                below += st.take_mdc_frame() as u32;
            }
        }
        self.map.insert(key, self.keys.len() as u32);
        self.keys.push((key, frames, below));
        self.used_frames += frames as u64;
        self.used_below += below as u64;
        self.inserts += 1;
        true
    }

    /// One arbiter pass over `dt_s` seconds: `faults` is the paging model's page-in count so
    /// far, `st` its real storage. Returns true if the target changed.
    pub fn arbitrate(
        &mut self,
        dt_s: f64,
        faults: u64,
        st: &mut RealStorage,
        bias: f64,
        step: f64,
    ) -> bool {
        let hits = self.hits - self.hits_mark;
        let pageins = faults - self.faults_mark;
        self.hits_mark = self.hits;
        self.faults_mark = faults;
        if dt_s <= 0.0 {
            return false;
        }
        let user_frames = st.resident.max(1) as f64;
        let mdc_value = hits as f64 / dt_s / self.used_frames.max(1) as f64;
        let page_value = pageins as f64 / dt_s / user_frames;
        let delta = ((self.max_frames as f64 * step).round() as u64).max(1);
        let old = self.cap_frames;
        if mdc_value * bias > page_value {
            self.cap_frames = (self.cap_frames + delta).min(self.max_frames);
        } else if mdc_value * bias < page_value {
            self.cap_frames = self.cap_frames.saturating_sub(delta);
        }
        // A smaller target gives frames back now.
        while self.used_frames > self.cap_frames && !self.keys.is_empty() {
            let i = self.rng.below(self.keys.len() as u64) as usize;
            self.drop_unit(i, Some(&mut *st), 0);
        }
        match self.cap_frames.cmp(&old) {
            std::cmp::Ordering::Greater => self.grows += 1,
            std::cmp::Ordering::Less => self.shrinks += 1,
            std::cmp::Ordering::Equal => {}
        }
        self.cap_frames != old
    }

    /// CP's below-2GB search took `st.mdc_surrendered` frames of the cache: for each, the cache
    /// drops a unit holding a below-2GB frame (its other frames go back to the available
    /// lists). Counted as steals (FCX178 "Steal Invokd/s").
    pub fn surrender_below(&mut self, st: &mut RealStorage) {
        while st.mdc_surrendered > 0 {
            st.mdc_surrendered -= 1;
            let n = self.keys.len();
            if n == 0 {
                continue;
            }
            let start = self.rng.below(n as u64) as usize;
            let Some(i) = (0..n)
                .map(|k| (start + k) % n)
                .find(|&i| self.keys[i].2 > 0)
            else {
                continue;
            };
            // One below-2GB frame is CP's already.
            self.drop_unit(i, Some(&mut *st), 1);
        }
    }

    /// The cache drops its unit `i` (a steal): its frames from the `kept`-th on go back to the
    /// available lists (those below 2 GB first), the first `kept` stay with their taker; with no
    /// storage model there are no frames to return.
    fn drop_unit(&mut self, i: usize, st: Option<&mut RealStorage>, kept: u32) {
        let (k, f, b) = self.keys.swap_remove(i);
        self.map.remove(&k);
        if i < self.keys.len() {
            self.map.insert(self.keys[i].0, i as u32);
        }
        self.used_frames -= f as u64;
        self.used_below -= b as u64;
        if let Some(st) = st {
            for j in kept..f {
                st.release_mdc_frame(j < b);
            }
        }
        self.steals += 1;
    }

    pub fn summary(&self, dur_s: f64) -> MdcSummary {
        MdcSummary {
            max_frames: self.max_frames,
            target_frames: self.cap_frames,
            arbiter_grows: self.grows,
            arbiter_shrinks: self.shrinks,
            frames: self.used_frames,
            frames_below_2g: self.used_below,
            frames_above_2g: self.used_frames - self.used_below,
            reads: self.reads,
            hits: self.hits,
            hit_ratio: self.hits as f64 / self.reads.max(1) as f64,
            inserts: self.inserts,
            steals: self.steals,
            steals_per_s: self.steals as f64 / dur_s.max(1e-9),
            write_updates: self.write_updates,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniform reads over B units with room for C: hit ratio C / B (random replacement), and
    /// frames used never exceed the cache; inserts = misses; steals = inserts - units held.
    #[test]
    fn uniform_hit_ratio() {
        for (b, c, unit) in [(10_000u64, 2_500u64, 1u32), (4_000, 3_000, 8)] {
            let mut m = Mdc::new(c * unit as u64, Rng::stream(3, 1));
            let mut rng = Rng::stream(3, 2);
            for _ in 0..50_000 {
                m.read(rng.below(b), unit, None);
            }
            let (r0, h0) = (m.reads, m.hits);
            for _ in 0..400_000 {
                m.read(rng.below(b), unit, None);
                assert!(m.used_frames <= m.cap_frames);
            }
            let hr = (m.hits - h0) as f64 / (m.reads - r0) as f64;
            let want = c as f64 / b as f64;
            assert!(
                (hr / want - 1.0).abs() < 0.02,
                "B {b} C {c}: {hr} vs {want}"
            );
            assert_eq!(m.inserts, m.reads - m.hits);
            assert_eq!(m.steals, m.inserts - m.keys.len() as u64);
            assert_eq!(m.used_frames, m.keys.len() as u64 * unit as u64);
        }
    }

    #[test]
    fn writes_refresh_only_cached_units() {
        let mut m = Mdc::new(16, Rng::stream(1, 1));
        assert!(!m.write(5));
        assert_eq!(m.read(5, 8, None), Read::Inserted);
        assert!(m.write(5));
        assert_eq!(m.read(5, 8, None), Read::Hit);
        // A unit larger than the cache is never cached.
        assert_eq!(m.read(6, 32, None), Read::Uncached);
        assert_eq!(m.read(6, 32, None), Read::Uncached);
        assert_eq!(m.inserts, 1);
        assert_eq!(m.write_updates, 1);
    }

    /// MDC frames come from real storage: below 2 GB first with elective use, never without
    /// it; frames are conserved through inserts and steals.
    #[test]
    fn mdc_frames_from_real_storage() {
        for elective in [true, false] {
            let mut st = RealStorage::new(3000, &[4000], 2.0, false, u64::MAX);
            st.set_below_2g(500, elective);
            st.prefill(0, 2500);
            let mut m = Mdc::new(800, Rng::stream(2, 2));
            let mut rng = Rng::stream(2, 3);
            for _ in 0..5000 {
                m.read(rng.below(400), 8, Some(&mut st));
                st.reference(0, rng.below(4000));
                st.pending_writes.clear();
            }
            st.check_frames().unwrap();
            assert_eq!(st.mdc_frames, m.used_frames);
            assert_eq!(st.mdc_below, m.used_below);
            assert!(m.used_frames == 800 && m.steals > 0);
            if elective {
                assert!(m.used_below > 0);
            } else {
                assert_eq!(m.used_below, 0);
            }
        }
    }

    /// CP's below-2GB search takes MDC frames too: the cache drops the units, frames conserved.
    #[test]
    fn cp_search_takes_mdc_frames() {
        let mut st = RealStorage::new(3000, &[4000], 2.0, false, u64::MAX);
        st.set_below_2g(500, true);
        let mut m = Mdc::new(1600, Rng::stream(4, 1));
        let mut rng = Rng::stream(4, 2);
        for u in 0..200 {
            m.read(u, 8, Some(&mut st));
        }
        st.prefill(0, 4000);
        assert!(m.used_below > 0);
        let before = m.used_below;
        for _ in 0..200 {
            st.cp_take_below(&mut rng);
            m.surrender_below(&mut st);
            st.pending_writes.clear();
        }
        assert!(m.used_below < before && m.steals > 0);
        assert_eq!(st.mdc_frames, m.used_frames);
        assert_eq!(st.mdc_below, m.used_below);
        st.check_frames().unwrap();
    }
}
