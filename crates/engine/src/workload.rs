//! Workload programs: what a guest's virtual CPU asks of CP. Each draws from its virtual CPU's
//! own random stream. Later issues add page references and I/O to the same programs.

use crate::config::{Dist, Workload};
use crate::queue::Time;
use crate::rng::Rng;

/// What a virtual CPU does when its current CPU burst completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterBurst {
    /// Start another burst at once (a new transaction, still runnable).
    Continue(Time),
    /// Go idle (dormant) for this long, then start a new transaction.
    Think(Time),
}

/// A workload program, with its durations already converted to nanoseconds.
#[derive(Clone, Debug)]
pub enum Program {
    /// Infinite CPU demand; one transaction per `tx` ns of CPU.
    Hungry { tx: f64, dist: Dist },
    /// Wants `demand` of one processor: an open stream of work, bursts of mean `burst` arriving
    /// every `period` = burst / demand on average, whether or not earlier work is done (work
    /// that arrives while the virtual CPU is behind queues up), so the demand is the same on
    /// an idle and on a busy system.
    Partial { burst: f64, period: f64, dist: Dist },
    /// Closed interactive loop: think, then a transaction of `cpu` ns.
    Interactive { think: f64, cpu: f64, dist: Dist },
}

#[inline(always)]
fn draw(rng: &mut Rng, mean: f64, dist: Dist) -> Time {
    let x = match dist {
        Dist::Exp => rng.exp(mean),
        Dist::Fixed => mean,
    };
    // x >= 0: adding one half and truncating rounds to nearest without a libm call.
    ((x + 0.5) as Time).max(1)
}

impl Program {
    pub fn new(w: &Workload, tx_default_ns: f64, burst_default_ns: f64) -> Program {
        match *w {
            Workload::CpuBound {
                demand: None,
                tx_cpu_ns,
                dist,
            } => Program::Hungry {
                tx: tx_cpu_ns.map(|t| t as f64).unwrap_or(tx_default_ns),
                dist,
            },
            Workload::CpuBound {
                demand: Some(d),
                tx_cpu_ns,
                dist,
            } => {
                if d >= 1.0 {
                    Program::Hungry {
                        tx: tx_cpu_ns.map(|t| t as f64).unwrap_or(tx_default_ns),
                        dist,
                    }
                } else {
                    let burst = tx_cpu_ns.map(|t| t as f64).unwrap_or(burst_default_ns);
                    Program::Partial {
                        burst,
                        period: burst / d,
                        dist,
                    }
                }
            }
            Workload::Transactional {
                think_ns,
                cpu_ns,
                dist,
            } => Program::Interactive {
                think: think_ns as f64,
                cpu: cpu_ns as f64,
                dist,
            },
        }
    }

    /// Time until the first transaction starts (None: starts at once).
    pub fn first_wake(&self, rng: &mut Rng) -> Option<Time> {
        match *self {
            Program::Hungry { .. } => None,
            // Stagger the start so that users are not in lock step.
            Program::Partial { period, .. } => Some(rng.below((period as Time).max(1))),
            Program::Interactive { think, dist, .. } => Some(draw(rng, think, dist)),
        }
    }

    /// CPU work of the burst that starts a transaction after a think (or at the start);
    /// `next` is the virtual CPU's next arrival instant (open stream only).
    #[inline(always)]
    pub fn burst(&self, rng: &mut Rng, next: &mut Time) -> Time {
        match *self {
            Program::Hungry { tx, dist } => draw(rng, tx, dist),
            Program::Partial {
                burst,
                period,
                dist,
            } => {
                *next += draw(rng, period, dist);
                draw(rng, burst, dist)
            }
            Program::Interactive { cpu, dist, .. } => draw(rng, cpu, dist),
        }
    }

    /// Called at `now` when a burst (one transaction) completes.
    #[inline(always)]
    pub fn after_burst(&self, rng: &mut Rng, now: Time, next: &mut Time) -> AfterBurst {
        match *self {
            Program::Hungry { tx, dist } => AfterBurst::Continue(draw(rng, tx, dist)),
            Program::Partial {
                burst,
                period,
                dist,
            } => {
                if *next <= now {
                    *next += draw(rng, period, dist);
                    AfterBurst::Continue(draw(rng, burst, dist))
                } else {
                    AfterBurst::Think(*next - now)
                }
            }
            Program::Interactive { think, dist, .. } => AfterBurst::Think(draw(rng, think, dist)),
        }
    }

    /// Demand in processors per virtual CPU when unconstrained (None = infinite).
    pub fn demand(&self) -> Option<f64> {
        match *self {
            Program::Hungry { .. } => None,
            Program::Partial { burst, period, .. } => Some(burst / period),
            Program::Interactive { think, cpu, .. } => Some(cpu / (cpu + think)),
        }
    }
}
