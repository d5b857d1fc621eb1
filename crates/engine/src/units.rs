//! Units shared by every subsystem: "no such entity", nanoseconds from floating point, and
//! CPU time from path lengths. A leaf module: it depends on the parameter table only.

use crate::params::Params;
use crate::queue::Time;

/// "None" for an entity number (a processor, a virtual CPU, a user).
pub const NONE: u32 = u32::MAX;

/// `x.round() as Time` (half away from zero, negative and NaN to 0, saturating) without libm's
/// `round`: `x - trunc(x)` is exact for every finite `x`, so this is the same function. Below
/// 2^52 ns (52 days: every duration in practice) the signed conversions, exact there and
/// cheaper than the unsigned ones on x86-64, give the same result.
#[inline(always)]
pub fn round_ns(x: f64) -> Time {
    if (0.0..4_503_599_627_370_496.0).contains(&x) {
        let t = x as i64;
        return if x - t as f64 >= 0.5 {
            t as Time + 1
        } else {
            t as Time
        };
    }
    let t = x as Time;
    if x - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

/// Convert a path length (instructions) plus hardware cycles to nanoseconds of CPU.
pub fn path_ns(p: &Params, instructions: f64, cycles: f64) -> Time {
    round_ns((instructions * p.cpi_cp() + cycles) / p.clock_ghz())
}

#[cfg(test)]
mod tests {
    use super::round_ns;

    /// Against libm's round on both sides of the fast path's bound (2^52) and at the halves.

    #[test]
    fn round_ns_is_libm_round() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            0.49999999999999994,
            1.5,
            2.5,
            -0.5,
            -0.7,
            -3.2,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4503599627370495.5,
            4503599627370495.0,
            4503599627370496.0,
            4503599627370497.0,
            9007199254740993.0,
            1.8446744073709552e19,
            1e30,
            f64::MAX,
            f64::MIN_POSITIVE,
        ];
        let mut r = crate::rng::Rng::new(7);
        let random = (0..1_000_000).map(|k| {
            let x = r.unit() * 10f64.powi((k % 24) - 4);
            if k % 3 == 0 {
                x.floor() + 0.5
            } else {
                x
            }
        });
        for x in edges.into_iter().chain(random) {
            assert_eq!(round_ns(x), x.round() as u64, "{x}");
        }
    }
}
