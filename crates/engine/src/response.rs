//! Transaction response time, per user and for the system.
//!
//! A transaction starts when its work reaches CP: the end of a think time (a dormant virtual CPU
//! becomes runnable), the next burst of a program that continues at once, a client's next
//! request, the next guest I/O sequence. It ends where the engine counts it done (`tx_done`):
//! the burst completes, the reply reaches the client, the last I/O of the sequence ends. So the
//! response time is the time in CP's hands: waiting for admission and a processor, running, page
//! and I/O waits, the server's part of a request. Think time is not in it. An open-stream
//! workload (`demand` < 1) whose work arrives while earlier work is still queued is measured
//! from the moment its virtual CPU takes the work up, not from its arrival.
//!
//! Trivial / non-trivial: as z/VM's scheduler classifies transactions, a transaction that ends
//! while its user is still in class E1 (or E0, QUICKDSP) is trivial; one whose user was dropped
//! from the dispatch list and advanced to E2 or E3 during it (it outlasted the E1 elapsed time
//! slice) is non-trivial (cp-model §4.1, `scheduler/`).
//!
//! Memory is bounded: each user keeps a log-bucketed histogram of response times, exact below
//! 64 ns and otherwise 32 buckets per power of two, so a percentile is the midpoint of the
//! bucket holding the rank and lies within 1/64 (1.6 %) of the true order statistic. Means are
//! exact (the sum is kept in ns). A client with several requests outstanding matches replies
//! to its requests in the order sent (its mean is exact over the replies matched; a reply
//! overtaking an earlier one swaps the two response times, not their sum).

use crate::queue::Time;
use serde::Serialize;
use std::collections::VecDeque;

/// Buckets per power of two above the exact range (relative bucket width <= 1/SUB).
const SUB: u64 = 32;
const SUB_BITS: u32 = 5;

/// Bucket of a value: exact below 2 x SUB, then SUB buckets per power of two.
#[inline(always)]
fn bucket(x: u64) -> usize {
    if x < 2 * SUB {
        return x as usize;
    }
    let b = 63 - x.leading_zeros(); // floor(log2 x) >= SUB_BITS + 1
    let shift = b - SUB_BITS;
    (shift as u64 * SUB + (x >> shift)) as usize
}

/// Lower bound and width of bucket `i` (inverse of `bucket`).
fn bucket_range(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < 2 * SUB {
        return (i, 1);
    }
    let shift = i / SUB - 1;
    let mantissa = i - shift * SUB;
    (mantissa << shift, 1 << shift)
}

/// A log-bucketed histogram of durations in ns with an exact count and sum.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    pub count: u64,
    pub sum_ns: u128,
}

impl Histogram {
    #[inline]
    pub fn record(&mut self, ns: Time) {
        self.add_bucket(bucket(ns));
        self.count += 1;
        self.sum_ns += ns as u128;
    }

    /// One more value in bucket `i` (count and sum kept by the caller).
    #[inline]
    fn add_bucket(&mut self, i: usize) {
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
    }

    pub fn merge(&mut self, o: &Histogram) {
        if o.counts.len() > self.counts.len() {
            self.counts.resize(o.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.count += o.count;
        self.sum_ns += o.sum_ns;
    }

    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64
        }
    }

    /// The `q` quantile (0 < q <= 1), nearest rank: the midpoint of the bucket holding the
    /// ceil(q n)-th smallest value (exact for values below 64 ns).
    pub fn quantile_ns(&self, q: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, w) = bucket_range(i);
                return lo as f64 + (w as f64 - 1.0) / 2.0;
            }
        }
        0.0
    }
}

/// Bucket indices a user collects before adding them to its histogram: recording touches one
/// small buffer per user instead of a bucket anywhere in a large array; a full buffer is added
/// at once.
const PENDING: usize = 7;

/// A user's bucket counts, one byte each: bucket `i` holds `low[i] + 256 * high[i]` values.
/// The counts of every user together stay small enough for the processor's caches (a user's
/// response times spread over some 500 buckets: 500 bytes instead of 4 KB of `u64`), and the
/// `high` array, touched once per 256 values of a bucket, only when a bucket overflows.
#[derive(Clone, Debug, Default)]
struct SmallCounts {
    low: Vec<u8>,
    high: Vec<u64>,
}

impl SmallCounts {
    #[inline]
    fn add(&mut self, i: usize) {
        if i >= self.low.len() {
            self.low.resize(i + 1, 0);
        }
        let c = &mut self.low[i];
        if *c == u8::MAX {
            *c = 0;
            self.carry(i);
        } else {
            *c += 1;
        }
    }

    #[cold]
    fn carry(&mut self, i: usize) {
        if i >= self.high.len() {
            self.high.resize(i + 1, 0);
        }
        self.high[i] += 1;
    }

    /// The counts as a histogram's buckets (its count and sum are the caller's).
    fn histogram(&self) -> Histogram {
        let counts = self
            .low
            .iter()
            .enumerate()
            .map(|(i, &c)| c as u64 + 256 * self.high.get(i).copied().unwrap_or(0))
            .collect();
        Histogram {
            counts,
            count: 0,
            sum_ns: 0,
        }
    }
}

/// One user's transactions: all of them, and the trivial / non-trivial split.
///
/// Layout (`repr(C)`, 64-byte aligned): what a transaction's end writes (count and sum, the
/// trivial count and sum, the buffered bucket) is the first cache line; the bucket counts,
/// written once per `PENDING` transactions, are behind it.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct UserResponses {
    sum_ns: u128,
    pub trivial_ns: u128,
    count: u64,
    pub trivial: u64,
    n_pending: u16,
    pending: [u16; PENDING],
    /// The buckets of the values recorded before those in `pending`.
    buckets: SmallCounts,
}

impl UserResponses {
    #[inline]
    fn record(&mut self, ns: Time) {
        self.count += 1;
        self.sum_ns += ns as u128;
        self.pending[self.n_pending as usize] = bucket(ns) as u16; // < 2^16: 64-bit values need 1920 buckets
        self.n_pending += 1;
        if self.n_pending as usize == PENDING {
            for k in 0..PENDING {
                self.buckets.add(self.pending[k] as usize);
            }
            self.n_pending = 0;
        }
    }

    /// The histogram with the buffered values added.
    fn histogram(&self) -> Histogram {
        let mut h = self.buckets.histogram();
        for &i in &self.pending[..self.n_pending as usize] {
            h.add_bucket(i as usize);
        }
        h.count = self.count;
        h.sum_ns = self.sum_ns;
        h
    }
}

/// No open transaction (`Responses::open`).
const NO_START: Time = Time::MAX;

/// Response-time recorder: per virtual CPU the start instants of its open transactions (the
/// oldest in `open`, any later ones, a client's window, in `later`), per user the histogram.
#[derive(Clone, Debug, Default)]
pub struct Responses {
    open: Vec<Time>,
    later: Vec<VecDeque<Time>>,
    /// Whether any virtual CPU has had a second open transaction (else `later` is never read).
    any_later: bool,
    pub users: Vec<UserResponses>,
}

/// Response time of a set of transactions, in ms (the run summary's `response_ms`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ResponseSummary {
    /// Transactions measured (completed ones whose start the run saw).
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    /// Transactions that ended in class E0/E1 (trivial) and after a drop to E2/E3.
    pub trivial: u64,
    pub nontrivial: u64,
    pub trivial_mean: f64,
    pub nontrivial_mean: f64,
}

impl Responses {
    pub fn new(n_vcpus: usize, n_users: usize) -> Responses {
        Responses {
            open: vec![NO_START; n_vcpus],
            later: vec![VecDeque::new(); n_vcpus],
            any_later: false,
            users: vec![UserResponses::default(); n_users],
        }
    }

    #[inline]
    pub fn begin(&mut self, v: u32, now: Time) {
        let v = v as usize;
        if self.open[v] == NO_START {
            self.open[v] = now;
        } else {
            self.later[v].push_back(now);
            self.any_later = true;
        }
    }

    #[inline]
    pub fn end(&mut self, v: u32, u: usize, now: Time, trivial: bool) {
        let vi = v as usize;
        let t0 = self.open[vi];
        if t0 == NO_START {
            return;
        }
        self.open[vi] = if self.any_later {
            self.later[vi].pop_front().unwrap_or(NO_START)
        } else {
            NO_START
        };
        let d = now - t0;
        let r = &mut self.users[u];
        r.record(d);
        if trivial {
            r.trivial += 1;
            r.trivial_ns += d as u128;
        }
    }

    /// The summary of one user (`Some(u)`) or of every user together (`None`).
    pub fn summary(&self, u: Option<usize>) -> ResponseSummary {
        let mut h = Histogram::default();
        let (mut triv, mut triv_ns) = (0u64, 0u128);
        let sel: Vec<&UserResponses> = match u {
            Some(u) => vec![&self.users[u]],
            None => self.users.iter().collect(),
        };
        for r in sel {
            h.merge(&r.histogram());
            triv += r.trivial;
            triv_ns += r.trivial_ns;
        }
        let ms = |ns: f64| ns / 1e6;
        let avg = |s: u128, n: u64| {
            if n == 0 {
                0.0
            } else {
                s as f64 / n as f64 / 1e6
            }
        };
        ResponseSummary {
            count: h.count,
            mean: ms(h.mean_ns()),
            p50: ms(h.quantile_ns(0.5)),
            p90: ms(h.quantile_ns(0.9)),
            p99: ms(h.quantile_ns(0.99)),
            trivial: triv,
            nontrivial: h.count - triv,
            trivial_mean: avg(triv_ns, triv),
            nontrivial_mean: avg(h.sum_ns - triv_ns, h.count - triv),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_tight() {
        let mut last = 0;
        for x in 0..200_000u64 {
            let i = bucket(x);
            assert!(i == last || i == last + 1, "x={x}");
            last = i;
            let (lo, w) = bucket_range(i);
            assert!(lo <= x && x < lo + w, "x={x} lo={lo} w={w}");
            assert!(w == 1 || (w as f64) / (lo as f64) <= 1.0 / SUB as f64 + 1e-12);
        }
        for x in [1u64 << 40, (1 << 50) + 12345, u64::MAX / 4] {
            let (lo, w) = bucket_range(bucket(x));
            assert!(lo <= x && x - lo < w);
        }
    }

    #[test]
    fn quantiles_within_stated_error_of_exact_order_statistics() {
        let mut rng = crate::rng::Rng::stream(7, 3);
        let mut xs: Vec<u64> = (0..5000).map(|_| (rng.exp(2e6) as u64).max(1)).collect();
        let mut h = Histogram::default();
        for &x in &xs {
            h.record(x);
        }
        xs.sort();
        for q in [0.5, 0.9, 0.99, 1.0] {
            let exact = xs[((q * xs.len() as f64).ceil() as usize).max(1) - 1] as f64;
            let got = h.quantile_ns(q);
            assert!(
                (got - exact).abs() <= exact / 64.0 + 1.0,
                "q={q} {got} vs {exact}"
            );
        }
        let mean = xs.iter().sum::<u64>() as f64 / xs.len() as f64;
        assert!((h.mean_ns() - mean).abs() < 1e-6 * mean);
    }

    #[test]
    fn small_values_exact_and_empty_is_zero() {
        let mut h = Histogram::default();
        assert_eq!(h.quantile_ns(0.5), 0.0);
        for x in [3u64, 5, 9, 20, 40] {
            h.record(x);
        }
        assert_eq!(h.quantile_ns(0.5), 9.0);
        assert_eq!(h.quantile_ns(1.0), 40.0);
        assert_eq!(h.quantile_ns(0.01), 3.0);
    }

    #[test]
    fn buffered_recording_equals_direct_recording() {
        let mut rng = crate::rng::Rng::stream(11, 1);
        for n in [
            0usize,
            1,
            PENDING - 1,
            PENDING,
            PENDING + 1,
            10 * PENDING + 7,
        ] {
            let mut u = UserResponses::default();
            let mut h = Histogram::default();
            for _ in 0..n {
                let x = (rng.exp(5e5) as u64).max(1);
                u.record(x);
                h.record(x);
            }
            let b = u.histogram();
            assert_eq!((b.count, b.sum_ns), (h.count, h.sum_ns));
            for q in [0.01, 0.5, 0.9, 0.99, 1.0] {
                assert_eq!(b.quantile_ns(q), h.quantile_ns(q), "n={n} q={q}");
            }
        }
    }

    #[test]
    fn byte_counts_carry_exactly() {
        // Some buckets pass 255 (and 256 x 255) values: the carries into `high` are exact.
        let mut u = UserResponses::default();
        let mut h = Histogram::default();
        let mut rng = crate::rng::Rng::stream(5, 2);
        for k in 0..70_000u64 {
            let x = match k % 3 {
                0 => 1_000_000,
                1 => 40,
                _ => (rng.exp(5e5) as u64).max(1),
            };
            u.record(x);
            h.record(x);
        }
        let b = u.histogram();
        assert_eq!(b.counts, h.counts);
        assert_eq!((b.count, b.sum_ns), (h.count, h.sum_ns));
    }

    #[test]
    fn fifo_matching_and_trivial_split() {
        let mut r = Responses::new(1, 1);
        r.begin(0, 10);
        r.begin(0, 20);
        r.end(0, 0, 30, true); // 20
        r.end(0, 0, 60, false); // 40
        r.end(0, 0, 70, true); // no open transaction: ignored
        let s = r.summary(None);
        assert_eq!((s.count, s.trivial, s.nontrivial), (2, 1, 1));
        assert!((s.mean - 30e-6).abs() < 1e-12);
        assert!((s.trivial_mean - 20e-6).abs() < 1e-12);
        assert!((s.nontrivial_mean - 40e-6).abs() < 1e-12);
    }
}
