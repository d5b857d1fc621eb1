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

#[cfg(test)]
mod tests {
    //! Unit tests of the workload programs against hand-computed values. Durations in ns; with
    //! `dist = fixed` every draw is its mean rounded to the nearest ns (at least 1 ns), so bursts,
    //! think times and arrivals are exact. The random distributions are checked within 5
    //! standard errors (a false alarm about once in 1.7 million runs, and each test's seed is
    //! fixed, so a pass is repeatable).

    use super::*;
    use crate::rng::Rng;
    use proptest::prelude::*;

    const MS: Time = 1_000_000;
    const FX: Dist = Dist::Fixed;
    const EX: Dist = Dist::Exp;

    fn rng() -> Rng {
        Rng::stream(1, 1000)
    }

    /// `Program::new` with 10 ms of CPU per transaction and 2 ms bursts by default (the
    /// parameter table's defaults, `workload.tx_cpu_default`, `workload.burst_default`).
    fn new(w: Workload) -> Program {
        Program::new(&w, 10.0 * MS as f64, 2.0 * MS as f64, vec![])
    }

    fn cpu_bound(demand: Option<f64>, tx: Option<Time>, dist: Dist) -> Program {
        new(Workload::CpuBound {
            demand,
            tx_cpu_ns: tx,
            dist,
        })
    }

    /// Samples mean and variance.
    fn mean_var(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
        (m, v)
    }

    // ---- draws ------------------------------------------------------------------------------

    #[test]
    fn fixed_draws_round_to_the_nearest_ns_and_are_at_least_one() {
        let mut r = rng();
        // 1_000_000.0 exactly; 2.5 + 0.5 = 3.0 -> 3; 2.4 + 0.5 = 2.9 -> 2; 1e6 / 3 =
        // 333_333.33 -> 333_333; 0.4 + 0.5 = 0.9 -> 0 -> at least 1; 0.0 -> 1.
        for (mean, want) in [
            (1e6, 1_000_000),
            (2.5, 3),
            (2.4, 2),
            (1e6 / 3.0, 333_333),
            (0.4, 1),
            (0.0, 1),
        ] {
            assert_eq!(draw(&mut r, mean, FX), want, "mean {mean}");
        }
    }

    #[test]
    fn fixed_draws_use_no_random_number() {
        // A fixed draw leaves the stream where it was: the next exponential draw is the one a
        // fresh stream gives first.
        let mut a = rng();
        let mut b = rng();
        draw(&mut a, 5.0, FX);
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn draw_cpu_uses_the_programs_distribution() {
        // Fixed: 3 ms exactly for every kind of program.
        let progs = [
            cpu_bound(None, None, FX),
            cpu_bound(Some(0.5), None, FX),
            new(Workload::Transactional {
                think_ns: 7 * MS,
                cpu_ns: MS,
                dist: FX,
            }),
            Program::server(MS, vec![], FX),
            Program::guest_io(MS, 1, FX),
        ];
        for p in &progs {
            assert_eq!(p.draw_cpu(&mut rng(), 3e6), 3 * MS, "{p:?}");
        }
        // Exp: the same stream's first exponential, scaled, rounded.
        let p = Program::server(MS, vec![], EX);
        let want = (rng().exp(3e6) + 0.5) as Time;
        assert_eq!(p.draw_cpu(&mut rng(), 3e6), want);
        assert_ne!(want, 3 * MS);
    }

    #[test]
    fn exponential_draws_have_the_mean_and_variance_of_the_exponential() {
        // N = 100_000 draws of mean m = 1 ms: sd of one draw = m, so the mean's standard error
        // is m / sqrt(N) = 1e6 / 316.2 = 3_162 ns; 5 SE = 15_811 ns. The sample variance of
        // Exp(m) has variance (mu4 - sigma^4) / N = (9 - 1) m^4 / N: SE = m^2 sqrt(8 / N) =
        // 0.00894 m^2; 5 SE = 0.0447 m^2 (a fixed draw would give 0).
        let mut r = rng();
        let m = 1e6;
        let n = 100_000;
        let xs: Vec<f64> = (0..n).map(|_| draw(&mut r, m, EX) as f64).collect();
        let (mean, var) = mean_var(&xs);
        assert!((mean - m).abs() < 15_811.0, "mean {mean}");
        assert!((var / (m * m) - 1.0).abs() < 0.0447, "var {var}");
        assert!(xs.iter().all(|&x| x >= 1.0));
    }

    // ---- program construction ---------------------------------------------------------------

    #[test]
    fn cpu_bound_without_demand_is_hungry_with_its_or_the_default_transaction() {
        // No tx_cpu: the level's 10 ms default; tx_cpu 250 us: 250_000 ns.
        let p = cpu_bound(None, None, FX);
        assert!(
            matches!(p, Program::Hungry { tx, .. } if tx == 1e7),
            "{p:?}"
        );
        let p = cpu_bound(None, Some(250_000), FX);
        assert!(
            matches!(p, Program::Hungry { tx, .. } if tx == 250_000.0),
            "{p:?}"
        );
        assert_eq!(p.demand(), None);
        // demand = 1 is a whole processor: infinite demand too (config: demand in (0, 1]).
        let p = cpu_bound(Some(1.0), Some(250_000), FX);
        assert!(
            matches!(p, Program::Hungry { tx, .. } if tx == 250_000.0),
            "{p:?}"
        );
    }

    #[test]
    fn cpu_bound_with_a_demand_below_one_is_an_open_stream() {
        // demand 0.25, tx_cpu 1 ms: bursts of 1 ms every 1 / 0.25 = 4 ms.
        let p = cpu_bound(Some(0.25), Some(MS), FX);
        match p {
            Program::Partial { burst, period, .. } => {
                assert_eq!((burst, period), (1e6, 4e6));
            }
            _ => panic!("{p:?}"),
        }
        assert_eq!(p.demand(), Some(0.25));
        // No tx_cpu: the 2 ms default burst, period 2 / 0.5 = 4 ms.
        let p = cpu_bound(Some(0.5), None, FX);
        match p {
            Program::Partial { burst, period, .. } => {
                assert_eq!((burst, period), (2e6, 4e6));
            }
            _ => panic!("{p:?}"),
        }
        // Just below one processor is still partial: 0.999.
        assert!(matches!(
            cpu_bound(Some(0.999), None, FX),
            Program::Partial { .. }
        ));
    }

    #[test]
    fn memtst_and_transactional_map_to_hungry_and_interactive() {
        let p = new(Workload::Memtst {
            cpu_ns: 51_800,
            dist: FX,
        });
        assert!(
            matches!(p, Program::Hungry { tx, .. } if tx == 51_800.0),
            "{p:?}"
        );
        let p = new(Workload::Transactional {
            think_ns: 7 * MS,
            cpu_ns: MS,
            dist: EX,
        });
        match p {
            Program::Interactive { think, cpu, dist } => {
                assert_eq!((think, cpu, dist), (7e6, 1e6, EX));
            }
            _ => panic!("{p:?}"),
        }
        // Demand of a closed loop: cpu / (cpu + think) = 1 / (1 + 7) = 0.125.
        assert_eq!(p.demand(), Some(0.125));
    }

    #[test]
    fn client_and_server_roles() {
        let w = Workload::Client {
            cpu_ns: 300_000,
            servers: "WEB".into(),
            window: 4,
            dist: FX,
            bytes: 1024,
            connect: true,
        };
        let p = Program::new(&w, 1e7, 2e6, vec![3, 5]);
        assert_eq!(
            p.role(),
            Some(&Role::Client {
                cpu: 300_000.0,
                window: 4,
                servers: vec![3, 5],
                bytes: 1024,
                connect: true,
            })
        );
        assert!(!p.waits_for_messages());
        assert_eq!(p.first_wake(&mut rng()), None);
        assert_eq!(p.demand(), None);
        // A server forwards to the group it is given (empty: it replies) and waits for work.
        let w = Workload::Server {
            cpu_ns: 133_000,
            dist: FX,
            forward: Some("DB".into()),
        };
        let p = Program::new(&w, 1e7, 2e6, vec![7]);
        assert_eq!(
            p.role(),
            Some(&Role::Server {
                cpu: 133_000.0,
                forward: vec![7],
            })
        );
        assert!(p.waits_for_messages());
        assert_eq!(p.demand(), None);
        // Programs outside the network have no role and start work on their own.
        for p in [
            cpu_bound(None, None, FX),
            cpu_bound(Some(0.5), None, FX),
            Program::guest_io(MS, 2, FX),
        ] {
            assert_eq!(p.role(), None);
            assert!(!p.waits_for_messages());
        }
    }

    #[test]
    fn guest_io_spreads_the_transaction_cpu_over_the_bursts_around_its_ios() {
        // 3 ms of CPU around 2 I/Os: 3 bursts of 3 / (2 + 1) = 1 ms.
        let p = Program::guest_io(3 * MS, 2, FX);
        assert!(matches!(p, Program::Io { cpu, .. } if cpu == 1e6), "{p:?}");
        assert_eq!(p.burst(&mut rng(), &mut 0), MS);
        // No I/O: one burst of all of it.
        let p = Program::guest_io(3 * MS, 0, FX);
        assert_eq!(p.burst(&mut rng(), &mut 0), 3 * MS);
        assert_eq!(p.first_wake(&mut rng()), None);
    }

    #[test]
    fn format_and_dump_guests_use_no_cpu_of_their_own() {
        // CP's channel programs do the work; the program's CPU mean is 0 (a burst is still at
        // least 1 ns, `draw`).
        for w in [
            Workload::Dump {
                volume: "DMP".into(),
                size_mb: 10,
            },
            Workload::Format {
                volume: "V".into(),
                dtype: crate::config::DasdType::Eckd,
                size_mb: 10,
                blocks: 1,
            },
        ] {
            let p = new(w);
            assert!(matches!(p, Program::Io { cpu, dist: Dist::Fixed } if cpu == 0.0));
            assert_eq!(p.burst(&mut rng(), &mut 0), 1);
        }
    }

    #[test]
    fn dasd_io_and_ssl_server_workloads_map_to_their_programs() {
        // minidisk I/O: 4 ms of CPU over 3 I/Os: 4 bursts of 4 / (3 + 1) = 1 ms each.
        let w = Workload::DasdIo {
            volume: "V".into(),
            dtype: crate::config::DasdType::Eckd,
            method: crate::config::DasdMethod::Ssch,
            cpu_ns: 4 * MS,
            ios: 3,
            blocks: 1,
            think_ns: 5 * MS,
            write: false,
            window: 1,
            dist: FX,
            mdc: false,
            extent_blocks: 0,
            rate: 0.0,
        };
        let p = new(w);
        assert!(
            matches!(p, Program::Io { cpu, dist: Dist::Fixed } if cpu == 1e6),
            "{p:?}"
        );
        // The TLS server is a server of the virtual network with its own CPU per request.
        let w = Workload::SslServer {
            cpu_ns: 70_000,
            dist: EX,
            forward: None,
            cipher: None,
            crypto: None,
        };
        let p = Program::new(&w, 1e7, 2e6, vec![]);
        assert_eq!(
            p.role(),
            Some(&Role::Server {
                cpu: 70_000.0,
                forward: vec![],
            })
        );
        assert!(p.waits_for_messages());
        assert!(matches!(
            p,
            Program::Net {
                dist: Dist::Exp,
                ..
            }
        ));
    }

    #[test]
    fn client_and_server_bursts_are_their_cpu_per_request() {
        // Fixed: 300 us per request, 133 us per reply, exactly; no arrivals.
        let mut next = 0;
        let c = Program::client(300_000, 2, 0, false, vec![1], FX);
        let s = Program::server(133_000, vec![], FX);
        assert_eq!(c.burst(&mut rng(), &mut next), 300_000);
        assert_eq!(s.burst(&mut rng(), &mut next), 133_000);
        assert_eq!(next, 0);
        // Exp: the stream's first exponential of mean 133 us, rounded.
        let s = Program::server(133_000, vec![], EX);
        let want = (rng().exp(133_000.0) + 0.5) as Time;
        assert_eq!(s.burst(&mut rng(), &mut next), want);
        assert_ne!(want, 133_000);
    }

    // ---- bursts and think times with dist = fixed --------------------------------------------

    #[test]
    fn hungry_continues_at_once_with_a_transaction_of_tx() {
        let p = cpu_bound(None, Some(250_000), FX);
        let mut r = rng();
        let mut next = 0;
        assert_eq!(p.first_wake(&mut r), None);
        assert_eq!(p.burst(&mut r, &mut next), 250_000);
        assert_eq!(
            p.after_burst(&mut r, 250_000, &mut next),
            AfterBurst::Continue(250_000)
        );
        assert_eq!(next, 0, "a hungry program has no arrivals");
    }

    #[test]
    fn interactive_thinks_then_runs_its_transaction() {
        let p = new(Workload::Transactional {
            think_ns: 7 * MS,
            cpu_ns: MS,
            dist: FX,
        });
        let mut r = rng();
        let mut next = 0;
        // Starts after one think time: 7 ms.
        assert_eq!(p.first_wake(&mut r), Some(7 * MS));
        assert_eq!(p.burst(&mut r, &mut next), MS);
        // At 8 ms the burst ends: think 7 ms (whatever the time).
        assert_eq!(
            p.after_burst(&mut r, 8 * MS, &mut next),
            AfterBurst::Think(7 * MS)
        );
        assert_eq!(next, 0);
    }

    #[test]
    fn open_stream_bursts_and_thinks_until_the_next_arrival() {
        // demand 0.25, 1 ms bursts: an arrival every 4 ms.
        let p = cpu_bound(Some(0.25), Some(MS), FX);
        let mut r = rng();
        // First arrival staggered in [0, 4 ms).
        let t0 = p.first_wake(&mut r).unwrap();
        assert!(t0 < 4 * MS);
        let mut next = t0;
        // The arrival at t0 starts a 1 ms burst; the next arrival is t0 + 4 ms.
        assert_eq!(p.burst(&mut r, &mut next), MS);
        assert_eq!(next, t0 + 4 * MS);
        // Burst done at t0 + 1 ms (idle system): think 4 - 1 = 3 ms until that arrival.
        assert_eq!(
            p.after_burst(&mut r, t0 + MS, &mut next),
            AfterBurst::Think(3 * MS)
        );
        assert_eq!(next, t0 + 4 * MS);
        // Done exactly at the next arrival: that work starts at once (next <= now).
        assert_eq!(
            p.after_burst(&mut r, t0 + 4 * MS, &mut next),
            AfterBurst::Continue(MS)
        );
        assert_eq!(next, t0 + 8 * MS);
        // One ns before it: think 1 ns.
        assert_eq!(
            p.after_burst(&mut r, t0 + 8 * MS - 1, &mut next),
            AfterBurst::Think(1)
        );
    }

    #[test]
    fn open_stream_work_queues_up_while_the_vcpu_is_behind() {
        // Arrivals at 0, 4, 8, 12, 16 ms (t0 = 0), 1 ms bursts. The first burst waits 10 ms for
        // a processor and ends at 11 ms: the arrivals of 4 and 8 ms are due (<= 11), so the
        // vCPU continues at once, at 11 (next 8), 12 (next 12), 13 (12 <= 13: next 16); the
        // burst started at 13 ends at 14 < 16: think 2 ms. Four bursts for the four arrivals
        // 0, 4, 8, 12: none is lost.
        let p = cpu_bound(Some(0.25), Some(MS), FX);
        let mut r = rng();
        let mut next = 0;
        assert_eq!(p.burst(&mut r, &mut next), MS);
        let mut got = vec![];
        for now in [11, 12, 13, 14] {
            got.push((p.after_burst(&mut r, now * MS, &mut next), next));
        }
        assert_eq!(
            got,
            vec![
                (AfterBurst::Continue(MS), 8 * MS),
                (AfterBurst::Continue(MS), 12 * MS),
                (AfterBurst::Continue(MS), 16 * MS),
                (AfterBurst::Think(2 * MS), 16 * MS),
            ]
        );
    }

    /// Runs an open-stream program on a virtual CPU that waits `delay(k)` for a processor
    /// before its k-th burst (0: an idle system) until `horizon`; the arrival instant and the
    /// CPU of each burst started, and the busy time.
    fn run_open(
        p: &Program,
        r: &mut Rng,
        horizon: Time,
        delay: impl Fn(usize) -> Time,
    ) -> (Vec<(Time, Time)>, Time) {
        let mut next = p.first_wake(r).unwrap();
        let mut now = next;
        let mut out = vec![];
        let mut busy = 0;
        let mut arrival = next;
        let mut work = p.burst(r, &mut next);
        while now < horizon {
            out.push((arrival, work));
            now += delay(out.len()) + work;
            busy += work;
            arrival = next;
            match p.after_burst(r, now, &mut next) {
                AfterBurst::Continue(w) => work = w,
                AfterBurst::Think(t) => {
                    now += t;
                    assert_eq!(now, next, "a think ends at the next arrival");
                    work = p.burst(r, &mut next);
                }
            }
        }
        (out, busy)
    }

    #[test]
    fn open_stream_duty_cycle_is_the_demand_with_fixed_bursts() {
        // demand 0.25, 1 ms every 4 ms on an idle system: from the first arrival t0 the
        // processor is busy 1 ms of every 4: 100 arrivals, 100 ms of CPU over 400 ms.
        let p = cpu_bound(Some(0.25), Some(MS), FX);
        let mut r = rng();
        let t0 = p.first_wake(&mut r.clone()).unwrap();
        let (arr, busy) = run_open(&p, &mut r, t0 + 400 * MS - 1, |_| 0);
        assert_eq!(arr.len(), 100);
        assert_eq!(busy, 100 * MS);
        assert!(arr
            .iter()
            .enumerate()
            .all(|(k, &(a, w))| a == t0 + 4 * MS * k as Time && w == MS));
    }

    #[test]
    fn open_stream_arrivals_do_not_depend_on_how_busy_the_system_is() {
        // The same stream on an idle system and on one where each burst waits 0-2.9 ms for a
        // processor (mean 1.45 ms, below the 4 ms period: it keeps up): the same arrivals and
        // bursts, so the same demand.
        let p = cpu_bound(Some(0.25), Some(MS), EX);
        let (idle, b1) = run_open(&p, &mut rng(), 4000 * MS, |_| 0);
        let (busy, b2) = run_open(&p, &mut rng(), 4000 * MS, |k| (k as Time % 30) * 100_000);
        let n = idle.len().min(busy.len());
        assert!(n > 900, "{n}");
        assert_eq!(idle[..n], busy[..n]);
        assert!(b1.abs_diff(b2) < 100 * MS);
    }

    #[test]
    fn open_stream_duty_cycle_is_the_demand_with_exponential_bursts() {
        // demand 0.25, bursts of mean B = 1 ms every P = 4 ms on average, horizon H = 400 s:
        // about H / P = 100_000 bursts. The CPU is a compound Poisson sum: Var = (H / P) E[X^2]
        // = (H / P) 2 B^2, so sd(busy / H) = sqrt(2 H / P) B / H = sqrt(2e5) / 4e5 = 0.00112;
        // 5 sd = 0.0056 (plus the last burst beyond H, < 0.0001 here).
        let p = cpu_bound(Some(0.25), Some(MS), EX);
        let h = 400_000 * MS;
        let (arr, busy) = run_open(&p, &mut rng(), h, |_| 0);
        let duty = busy as f64 / h as f64;
        assert!((duty - 0.25).abs() < 0.0056, "duty {duty}");
        assert!(arr.len() > 90_000);
    }

    #[test]
    fn open_stream_arrivals_are_poisson_at_the_configured_rate() {
        // Period P = 1 ms (demand 0.1, bursts 100 us): count the arrivals in K = 10_000 windows of
        // W = 10 ms: Poisson with mean = variance = W / P = 10. The mean's SE is
        // sqrt(10 / K) = 0.0316, 5 SE = 0.158; the sample variance's SE is sqrt((mu4 - sigma^4)
        // / K) with mu4 = l (1 + 3 l) = 310, sigma^4 = 100: sqrt(210 / 1e4) = 0.145, 5 SE =
        // 0.725. (Fixed arrivals would give variance 0.)
        let p = cpu_bound(Some(0.1), Some(100_000), EX);
        let w = 10 * MS;
        let k = 10_000usize;
        let mut r = rng();
        let (arr, _) = run_open(&p, &mut r, w * k as Time + 10 * w, |_| 0);
        let t0 = arr[0].0;
        let mut counts = vec![0.0f64; k];
        for &(a, _) in &arr {
            let i = ((a - t0) / w) as usize;
            if i < k {
                counts[i] += 1.0;
            }
        }
        let (m, v) = mean_var(&counts);
        assert!((m - 10.0).abs() < 0.158, "mean {m}");
        assert!((v - 10.0).abs() < 0.725, "variance {v}");
    }

    #[test]
    fn open_stream_first_arrival_is_uniform_over_one_period() {
        // Uniform on [0, P) with P = 4 ms: mean P / 2 = 2 ms, sd P / sqrt(12) = 1.155 ms; over
        // N = 10_000 starts SE = 11.5 us, 5 SE = 57.7 us.
        let p = cpu_bound(Some(0.25), Some(MS), FX);
        let mut r = rng();
        let xs: Vec<f64> = (0..10_000)
            .map(|_| p.first_wake(&mut r).unwrap() as f64)
            .collect();
        assert!(xs.iter().all(|&x| x < 4e6));
        let (m, _) = mean_var(&xs);
        assert!((m - 2e6).abs() < 57_700.0, "mean {m}");
        // Not all the same: some in each quarter.
        for q in 0..4 {
            let lo = q as f64 * 1e6;
            assert!(xs.iter().any(|&x| x >= lo && x < lo + 1e6), "quarter {q}");
        }
    }

    #[test]
    fn interactive_think_and_cpu_means_with_exponential_draws() {
        // think 7 ms, cpu 1 ms, N = 50_000 each: SE = m / sqrt(N) = m / 223.6; 5 SE = 0.0224 m.
        let p = new(Workload::Transactional {
            think_ns: 7 * MS,
            cpu_ns: MS,
            dist: EX,
        });
        let mut r = rng();
        let n = 50_000;
        let mut next = 0;
        let mut think = vec![];
        let mut cpu = vec![];
        for _ in 0..n {
            cpu.push(p.burst(&mut r, &mut next) as f64);
            match p.after_burst(&mut r, 0, &mut next) {
                AfterBurst::Think(t) => think.push(t as f64),
                c => panic!("{c:?}"),
            }
        }
        let first: Vec<f64> = (0..n)
            .map(|_| p.first_wake(&mut r).unwrap() as f64)
            .collect();
        assert!(((mean_var(&cpu).0 / 1e6) - 1.0).abs() < 0.0224);
        assert!(((mean_var(&think).0 / 7e6) - 1.0).abs() < 0.0224);
        assert!(((mean_var(&first).0 / 7e6) - 1.0).abs() < 0.0224);
    }

    #[test]
    fn hungry_transaction_mean_with_exponential_draws() {
        // tx 250 us, N = 50_000 bursts after the first: 5 SE = 0.0224 tx.
        let p = cpu_bound(None, Some(250_000), EX);
        let mut r = rng();
        let mut next = 0;
        let xs: Vec<f64> = (0..50_000)
            .map(|_| match p.after_burst(&mut r, 0, &mut next) {
                AfterBurst::Continue(w) => w as f64,
                t => panic!("{t:?}"),
            })
            .collect();
        assert!(((mean_var(&xs).0 / 250_000.0) - 1.0).abs() < 0.0224);
    }

    proptest! {
        #[test]
        fn fixed_draws_are_exact(mean in 1u64..10_000_000_000, seed in any::<u64>()) {
            let mut r = Rng::new(seed);
            prop_assert_eq!(draw(&mut r, mean as f64, FX), mean);
            let p = Program::guest_io(mean, 0, FX);
            prop_assert_eq!(p.burst(&mut r, &mut 0), mean);
        }

        #[test]
        fn draws_are_never_below_one_ns(mean in 0.0f64..1e9, seed in any::<u64>()) {
            let mut r = Rng::new(seed);
            for _ in 0..16 {
                prop_assert!(draw(&mut r, mean, EX) >= 1);
            }
            prop_assert!(draw(&mut r, mean, FX) >= 1);
        }

        #[test]
        fn open_stream_thinks_end_at_the_next_arrival(
            demand in 0.01f64..0.99,
            burst in 1u64..10_000_000,
            ends in proptest::collection::vec(0u64..20_000_000, 1..40),
            seed in any::<u64>(),
        ) {
            // Whatever the burst ends, a think lasts until the next arrival exactly, and an
            // arrival already due starts at once and moves the next one later.
            let p = cpu_bound(Some(demand), Some(burst), EX);
            let mut r = Rng::new(seed);
            let mut next = p.first_wake(&mut r).unwrap();
            let mut now = next;
            p.burst(&mut r, &mut next);
            for d in ends {
                now += d;
                let before = next;
                match p.after_burst(&mut r, now, &mut next) {
                    AfterBurst::Think(t) => {
                        prop_assert!(before > now);
                        prop_assert_eq!(now + t, next);
                        prop_assert_eq!(next, before);
                    }
                    AfterBurst::Continue(w) => {
                        prop_assert!(before <= now);
                        prop_assert!(next > before);
                        prop_assert!(w >= 1);
                    }
                }
            }
        }
    }
}
