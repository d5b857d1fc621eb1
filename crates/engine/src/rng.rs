//! Seeded random streams: xoshiro256++ seeded through splitmix64.
//!
//! Every entity (virtual CPU, device, ...) owns its own stream derived from the run seed and
//! a stable stream id, so adding an entity never shifts the numbers another entity draws,
//! and a run is bit-identical for the same scenario, level and seed.

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

#[inline(always)]
fn splitmix(z: &mut u64) -> u64 {
    *z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut x = *z;
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut z = seed;
        let s = [
            splitmix(&mut z),
            splitmix(&mut z),
            splitmix(&mut z),
            splitmix(&mut z),
        ];
        Rng { s }
    }

    /// Independent stream `stream` of run seed `seed`.
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut z = seed ^ 0xA076_1D64_78BD_642F;
        let a = splitmix(&mut z);
        let mut w = stream.wrapping_mul(0xE703_7ED1_A0B4_28DB) ^ a;
        Rng::new(splitmix(&mut w))
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let r = (s[0].wrapping_add(s[3])).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        r
    }

    /// Uniform in (0, 1].
    #[inline(always)]
    pub fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Exponential variate with the given mean (ziggurat method of Marsaglia and Tsang, 2000:
    /// 256 layers; about 99 % of draws need one random word and a multiply, no logarithm).
    #[inline(always)]
    pub fn exp(&mut self, mean: f64) -> f64 {
        mean * self.exp1()
    }

    /// Standard exponential variate (mean 1).
    #[inline(always)]
    pub fn exp1(&mut self) -> f64 {
        let t = zig_tables();
        let r = self.next_u64();
        let jz = (r >> 32) as u32;
        let iz = (r & 255) as usize;
        if jz < t.ke[iz] {
            return jz as f64 * t.we[iz];
        }
        self.exp1_slow(t, jz, iz)
    }

    #[cold]
    fn exp1_slow(&mut self, t: &ZigTables, mut jz: u32, mut iz: usize) -> f64 {
        loop {
            if iz == 0 {
                // The tail beyond r: exponential is memoryless.
                return ZIG_R - self.unit().ln();
            }
            let x = jz as f64 * t.we[iz];
            if t.fe[iz] + self.unit() * (t.fe[iz - 1] - t.fe[iz]) < (-x).exp() {
                return x;
            }
            let r = self.next_u64();
            jz = (r >> 32) as u32;
            iz = (r & 255) as usize;
            if jz < t.ke[iz] {
                return jz as f64 * t.we[iz];
            }
        }
    }

    /// Uniform integer in [0, n).
    #[inline(always)]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

const ZIG_R: f64 = 7.697_117_470_131_487;
const ZIG_V: f64 = 3.949_659_822_581_572e-3;

pub struct ZigTables {
    ke: [u32; 256],
    we: [f64; 256],
    fe: [f64; 256],
}

/// Ziggurat tables for the exponential (Marsaglia and Tsang, "The Ziggurat Method for
/// Generating Random Variables", J. Stat. Software 5(8), 2000), computed once.
fn zig_tables() -> &'static ZigTables {
    static T: std::sync::OnceLock<ZigTables> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let m2 = 4_294_967_296.0f64;
        let mut t = ZigTables {
            ke: [0; 256],
            we: [0.0; 256],
            fe: [0.0; 256],
        };
        let mut de = ZIG_R;
        let mut te = de;
        let q = ZIG_V / (-de).exp();
        t.ke[0] = ((de / q) * m2) as u32;
        t.ke[1] = 0;
        t.we[0] = q / m2;
        t.we[255] = de / m2;
        t.fe[0] = 1.0;
        t.fe[255] = (-de).exp();
        for i in (1..=254).rev() {
            de = -(ZIG_V / de + (-de).exp()).ln();
            t.ke[i + 1] = ((de / te) * m2) as u32;
            te = de;
            t.fe[i] = (-de).exp();
            t.we[i] = de / m2;
        }
        t
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_distinct_and_repeatable() {
        let mut a = Rng::stream(1, 0);
        let mut b = Rng::stream(1, 1);
        let mut a2 = Rng::stream(1, 0);
        let va: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let va2: Vec<u64> = (0..8).map(|_| a2.next_u64()).collect();
        assert_eq!(va, va2);
        assert_ne!(va, vb);
        assert_ne!(
            va,
            (0..8)
                .map(|_| Rng::stream(2, 0).next_u64())
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn exponential_mean_is_right() {
        let mut r = Rng::new(7);
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.exp(3.0)).sum::<f64>() / n as f64;
        assert!((m - 3.0).abs() < 0.03, "mean {m}");
    }

    #[test]
    fn exponential_distribution_fits() {
        // Kolmogorov-Smirnov against Exp(1) on 200k draws: D must stay below the 0.1 % critical
        // value 1.95/sqrt(n); plus the second moment (2 for Exp(1)) and the far tail.
        let mut r = Rng::new(11);
        let n = 200_000usize;
        let mut xs: Vec<f64> = (0..n).map(|_| r.exp1()).collect();
        assert!(xs.iter().all(|&x| x >= 0.0 && x.is_finite()));
        let m2 = xs.iter().map(|x| x * x).sum::<f64>() / n as f64;
        assert!((m2 - 2.0).abs() < 0.05, "second moment {m2}");
        let tail = xs.iter().filter(|&&x| x > ZIG_R).count() as f64 / n as f64;
        let want = (-ZIG_R).exp();
        assert!(
            (tail - want).abs() < 5.0 * (want / n as f64).sqrt() + 1e-5,
            "tail {tail} vs {want}"
        );
        xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let d = xs
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let f = 1.0 - (-x).exp();
                (f - i as f64 / n as f64)
                    .abs()
                    .max(((i + 1) as f64 / n as f64 - f).abs())
            })
            .fold(0.0, f64::max);
        assert!(d < 1.95 / (n as f64).sqrt(), "KS D = {d}");
    }

    #[test]
    fn below_is_in_range_and_uniform() {
        let mut r = Rng::new(3);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            let x = r.below(10);
            counts[x as usize] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
    }
}
