//! Same-run ratios (issue 16): the engine's cost per event beside a tuned hand-written event
//! loop for the same model, measured in interleaved rounds in one process (this machine is a
//! shared VM whose speed varies by 20 % from minute to minute; a ratio taken in the same minute
//! does not). Run: `cargo bench -p zvm-engine --bench same_run [-- ROUNDS]`.
//!
//! Cases, each as median ns per event over the rounds and as a ratio:
//! - `loop`: the tuned loop (des-anchors.md's loop4: an indexed-free 4-ary heap with replace-top,
//!   the same closed M/M/c//N model as `zvm::bench`: 500 clients, think Exp(7 ms), burst Exp(1 ms),
//!   64 processors, FCFS), in integer nanoseconds like the engine.
//! - `reference`: the engine on that model (`zvm::bench::run_reference`); ratio to `loop`.
//! - `apache64`: the Apache stand-in (scenarios/replicate/b7-apache.toml) at 64 z13 cores, 48
//!   clients and 128 servers (configs/apache64.json, 10 simulated s); ratio to `loop`.
//! - `tx64` / `tx1024`: a transactional workload at level zvm-6.4 with 64 and with 1024 guests
//!   on 16 processors at the same transaction rate (think time scaled with the guests): the
//!   ratio tx1024 / tx64 is the growth of the cost per event with the number of guests.
use std::collections::VecDeque;
use std::time::Instant;
use zvm::rng::Rng;

const MS: u64 = 1_000_000;

/// Minimal 4-ary min-heap of (time, client) with replace-top (des-anchors.md, heap4.rs).
struct Heap4 {
    k: Vec<u64>,
    v: Vec<u32>,
}

impl Heap4 {
    fn with_capacity(n: usize) -> Self {
        Heap4 {
            k: Vec::with_capacity(n),
            v: Vec::with_capacity(n),
        }
    }

    #[inline(always)]
    fn push(&mut self, key: u64, val: u32) {
        let mut i = self.k.len();
        self.k.push(key);
        self.v.push(val);
        while i > 0 {
            let p = (i - 1) / 4;
            let pk = self.k[p];
            if pk <= key {
                break;
            }
            self.k[i] = pk;
            self.v[i] = self.v[p];
            i = p;
        }
        self.k[i] = key;
        self.v[i] = val;
    }

    #[inline(always)]
    fn sift_down(&mut self, mut i: usize) {
        let n = self.k.len();
        let (key, val) = (self.k[i], self.v[i]);
        loop {
            let c0 = 4 * i + 1;
            if c0 >= n {
                break;
            }
            let end = (c0 + 4).min(n);
            let (mut m, mut mk) = (c0, self.k[c0]);
            for c in c0 + 1..end {
                let ck = self.k[c];
                if ck < mk {
                    mk = ck;
                    m = c;
                }
            }
            if mk >= key {
                break;
            }
            self.k[i] = mk;
            self.v[i] = self.v[m];
            i = m;
        }
        self.k[i] = key;
        self.v[i] = val;
    }

    #[inline(always)]
    fn replace_top(&mut self, key: u64, val: u32) {
        self.k[0] = key;
        self.v[0] = val;
        self.sift_down(0);
    }

    #[inline(always)]
    fn pop(&mut self) {
        let lk = self.k.pop().unwrap();
        let lv = self.v.pop().unwrap();
        if !self.k.is_empty() {
            self.k[0] = lk;
            self.v[0] = lv;
            self.sift_down(0);
        }
    }
}

const BURST_END: u32 = 1 << 31;

/// The tuned loop on the reference model; returns (events, bursts, wall seconds).
fn tuned_loop(horizon_ms: u64, seed: u64) -> (u64, u64, f64) {
    let (n, c, think, burst) = (500usize, 64u32, 7.0 * MS as f64, 1.0 * MS as f64);
    let horizon = horizon_ms * MS;
    let mut rng = Rng::new(seed);
    let t0 = Instant::now();
    let mut heap = Heap4::with_capacity(n + 1);
    for i in 0..n as u32 {
        heap.push(rng.exp(think) as u64, i);
    }
    let mut queue: VecDeque<u32> = VecDeque::with_capacity(n);
    let (mut free, mut done, mut events, mut busy_area, mut last) = (c, 0u64, 0u64, 0u64, 0u64);
    while !heap.k.is_empty() {
        let (t, p) = (heap.k[0], heap.v[0]);
        if t > horizon {
            break;
        }
        events += 1;
        busy_area += (c - free) as u64 * (t - last);
        last = t;
        let cl = p & !BURST_END;
        if p & BURST_END == 0 {
            if free > 0 {
                free -= 1;
                heap.replace_top(t + rng.exp(burst) as u64, BURST_END | cl);
            } else {
                heap.pop();
                queue.push_back(cl);
            }
        } else {
            done += 1;
            heap.replace_top(t + rng.exp(think) as u64, cl);
            if let Some(c2) = queue.pop_front() {
                heap.push(t + rng.exp(burst) as u64, BURST_END | c2);
            } else {
                free += 1;
            }
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    std::hint::black_box(busy_area);
    (events, done, wall)
}

/// A transactional workload: `n` guests, think time such that the offered rate is the same
/// for every `n` (64 guests think 20 ms per 1 ms transaction), on 16 processors.
fn transactional(n: u32, seconds: u64) -> zvm::Config {
    let think_ns = (n as u64 * 21 * MS) / 64 - MS;
    let json = format!(
        r#"{{"level": "zvm-6.4", "processors": 16, "duration_ns": {d}, "interval_ns": {i},
        "seed": 1, "guests": [{{"userid": "TX", "vcpus": 1, "count": {n},
        "workload": {{"kind": "transactional", "think_ns": {think_ns}, "cpu_ns": {cpu}}}}}]}}"#,
        d = seconds * 1000 * MS,
        i = seconds * 1000 * MS / 4,
        cpu = MS,
    );
    zvm::Config::from_json(&json).expect("transactional config")
}

/// Engine run of a configuration: (events, wall seconds).
fn engine(cfg: zvm::Config) -> (u64, f64) {
    let t0 = Instant::now();
    let mut sim = zvm::Sim::new(cfg).expect("config");
    sim.run();
    (sim.events, t0.elapsed().as_secs_f64())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; a number among the arguments is the count of rounds.
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5);
    let apache: zvm::Config = zvm::Config::from_json(include_str!("configs/apache64.json"))
        .expect("configs/apache64.json");
    let names = ["loop", "reference", "apache64", "tx64", "tx1024"];
    let mut ns: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let mut events = [0u64; 5];
    for r in 0..rounds {
        let seed = 1 + r as u64;
        let runs = [
            {
                let (e, _, w) = tuned_loop(100_000, seed);
                (e, w)
            },
            {
                let b = zvm::bench::run_reference(100_000, seed).expect("reference");
                (b.events, b.wall_s)
            },
            engine(apache.clone()),
            engine(transactional(64, 600)),
            engine(transactional(1024, 600)),
        ];
        for (k, (e, w)) in runs.iter().enumerate() {
            ns[k].push(w * 1e9 / *e as f64);
            events[k] = *e;
        }
        let line: Vec<String> = names
            .iter()
            .zip(&ns)
            .map(|(n, v)| format!("{n} {:.1}", v[r]))
            .collect();
        eprintln!("round {}: {}", r + 1, line.join(", "));
    }
    let m: Vec<f64> = ns.iter_mut().map(|v| median(v)).collect();
    println!("median ns per event over {rounds} interleaved rounds:");
    for ((n, x), e) in names.iter().zip(&m).zip(&events) {
        println!("  {n:<10} {x:8.1}  ({e} events)");
    }
    println!("reference / loop   {:.2}x", m[1] / m[0]);
    println!("apache64 / loop    {:.2}x", m[2] / m[0]);
    println!("tx1024 / tx64      {:.2}x", m[4] / m[3]);
}
