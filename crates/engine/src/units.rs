//! Units shared by every subsystem: "no such entity", nanoseconds from floating point, and
//! CPU time from path lengths. A leaf module: it depends on the parameter table only.

use crate::params::Params;
use crate::queue::Time;

/// "None" for an entity number (a processor, a virtual CPU, a user).
pub const NONE: u32 = u32::MAX;

/// `x.round() as Time` (half away from zero, negative and NaN to 0, saturating) without libm's
/// `round`: `x - trunc(x)` is exact for every finite `x`, so this is the same function.
#[inline(always)]
pub fn round_ns(x: f64) -> Time {
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
