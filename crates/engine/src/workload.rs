//! Workload programs: what a guest's virtual CPU asks of CP. Each draws from its virtual CPU's
//! own random stream. Later issues add page references and I/O to the same programs.

use crate::config::{Dist, Workload};
use crate::queue::Time;
use crate::rng::Rng;

/// The role of a guest's program in the virtual network.
#[derive(Clone, Debug, PartialEq)]
pub enum Role {
    Client {
        cpu: f64,
        window: u32,
        /// Users (guests) it sends to, in round-robin order.
        servers: Vec<u32>,
        /// Payload bytes per request, and whether each request opens a connection (ssl.rs).
        bytes: u64,
        connect: bool,
    },
    Server {
        cpu: f64,
        /// Users the request goes on to (round robin); empty: this server replies.
        forward: Vec<u32>,
    },
}

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
    /// A client or a server of the virtual network (see `vnet`): its bursts are requests and
    /// replies, and it waits for messages rather than thinking.
    Net { role: Role, dist: Dist },
    /// Guest DASD I/O (see `dasd`): bursts are the guest CPU between I/Os.
    Io { cpu: f64, dist: Dist },
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
    /// The program of a guest; `servers` resolves a client's server userid group to users.
    pub fn new(
        w: &Workload,
        tx_default_ns: f64,
        burst_default_ns: f64,
        servers: Vec<u32>,
    ) -> Program {
        match *w {
            Workload::Client {
                cpu_ns,
                window,
                dist,
                bytes,
                connect,
                ..
            } => Program::client(cpu_ns, window, bytes, connect, servers, dist),
            Workload::DasdIo {
                cpu_ns, ios, dist, ..
            } => Program::guest_io(cpu_ns, ios, dist),
            // `servers` is the group a server forwards to (empty: it replies).
            Workload::Server { cpu_ns, dist, .. } | Workload::SslServer { cpu_ns, dist, .. } => {
                Program::server(cpu_ns, servers, dist)
            }
            // SNAPDUMP: CP's channel programs (dasd.rs); the operator's guest uses no CPU.
            // FORMAT's bursts between its writes use none either.
            Workload::Format { .. } | Workload::Dump { .. } => Program::Io {
                cpu: 0.0,
                dist: Dist::Fixed,
            },
            Workload::CpuBound {
                demand,
                tx_cpu_ns,
                dist,
            } => Program::cpu_bound(demand, tx_cpu_ns, dist, tx_default_ns, burst_default_ns),
            // Its storage-key operations are CP's (sim/dispatcher.rs, `iske`).
            Workload::Memtst { cpu_ns, dist } => Program::Hungry {
                tx: cpu_ns as f64,
                dist,
            },
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

    /// A virtual-network client: `cpu_ns` per request, `window` requests in flight, sent round
    /// robin to the `servers` users.
    fn client(
        cpu_ns: Time,
        window: u32,
        bytes: u64,
        connect: bool,
        servers: Vec<u32>,
        dist: Dist,
    ) -> Program {
        Program::Net {
            role: Role::Client {
                cpu: cpu_ns as f64,
                window,
                servers,
                bytes,
                connect,
            },
            dist,
        }
    }

    /// A virtual-network server: `cpu_ns` per request, then a reply or a forward to `forward`.
    fn server(cpu_ns: Time, forward: Vec<u32>, dist: Dist) -> Program {
        Program::Net {
            role: Role::Server {
                cpu: cpu_ns as f64,
                forward,
            },
            dist,
        }
    }

    /// Guest DASD I/O: a transaction's `cpu_ns` of guest CPU spread over the bursts around its
    /// `ios` I/Os.
    fn guest_io(cpu_ns: Time, ios: u32, dist: Dist) -> Program {
        Program::Io {
            cpu: cpu_ns as f64 / (ios as f64 + 1.0),
            dist,
        }
    }

    /// A CPU-bound guest: infinite demand, or (a `demand` below one processor) an open stream
    /// of bursts at that share of a processor.
    fn cpu_bound(
        demand: Option<f64>,
        tx_cpu_ns: Option<Time>,
        dist: Dist,
        tx_default_ns: f64,
        burst_default_ns: f64,
    ) -> Program {
        match demand {
            None => Program::hungry(tx_cpu_ns, tx_default_ns, dist),
            Some(d) if d >= 1.0 => Program::hungry(tx_cpu_ns, tx_default_ns, dist),
            Some(d) => {
                let burst = tx_cpu_ns.map(|t| t as f64).unwrap_or(burst_default_ns);
                Program::Partial {
                    burst,
                    period: burst / d,
                    dist,
                }
            }
        }
    }

    /// Infinite CPU demand, one transaction per `tx_cpu_ns` (or the level's default) of CPU.
    fn hungry(tx_cpu_ns: Option<Time>, tx_default_ns: f64, dist: Dist) -> Program {
        Program::Hungry {
            tx: tx_cpu_ns.map(|t| t as f64).unwrap_or(tx_default_ns),
            dist,
        }
    }

    /// The role in the virtual network, if the program is a client or a server.
    #[inline]
    pub fn role(&self) -> Option<&Role> {
        match self {
            Program::Net { role, .. } => Some(role),
            _ => None,
        }
    }

    /// A server waits for its first request instead of starting work.
    pub fn waits_for_messages(&self) -> bool {
        matches!(
            self,
            Program::Net {
                role: Role::Server { .. },
                ..
            }
        )
    }

    /// One piece of CPU work of mean `mean` ns, drawn with the program's distribution.
    #[inline]
    pub fn draw_cpu(&self, rng: &mut Rng, mean: f64) -> Time {
        let dist = match *self {
            Program::Hungry { dist, .. }
            | Program::Partial { dist, .. }
            | Program::Interactive { dist, .. }
            | Program::Net { dist, .. }
            | Program::Io { dist, .. } => dist,
        };
        draw(rng, mean, dist)
    }

    /// Time until the first transaction starts (None: starts at once).
    pub fn first_wake(&self, rng: &mut Rng) -> Option<Time> {
        match *self {
            Program::Net { .. } | Program::Io { .. } => None,
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
            Program::Net {
                role: Role::Client { cpu, .. } | Role::Server { cpu, .. },
                dist,
            } => draw(rng, cpu, dist),
            Program::Io { cpu, dist } => draw(rng, cpu, dist),
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
            // Not reached: the dispatcher hands a client's or server's burst end to `vnet`.
            Program::Net { .. } | Program::Io { .. } => AfterBurst::Think(1),
        }
    }

    /// Demand in processors per virtual CPU when unconstrained (None = infinite).
    pub fn demand(&self) -> Option<f64> {
        match *self {
            Program::Hungry { .. } => None,
            Program::Partial { burst, period, .. } => Some(burst / period),
            Program::Interactive { think, cpu, .. } => Some(cpu / (cpu + think)),
            Program::Net { .. } | Program::Io { .. } => None,
        }
    }
}
