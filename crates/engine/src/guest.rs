//! The guests: users (virtual machines) and their virtual CPUs, with each user's accounting and
//! scheduler state, built from the scenario's guest groups.

use crate::config::{Config, Share};
use crate::params::Params;
use crate::queue::Time;
use crate::rng::Rng;
use crate::units::NONE;
use crate::workload::Program;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VState {
    /// Idle between transactions (its user may still be test-idle on the dispatch list).
    Dormant,
    /// Runnable, but its user waits on the eligible list for admission.
    Eligible,
    /// Runnable, held back by a LIMITHARD maximum share (limit list / limit deadline).
    Limited,
    /// On a dispatch vector, waiting for a processor.
    Ready,
    /// Running on a logical processor.
    Running,
    /// Waiting for a page-in (paging); not runnable.
    PageWait,
    /// Waiting for a guest DASD I/O (its window full, or a synchronous I/O); not runnable.
    IoWait,
}

/// Number of `VState`s (the index of each is its discriminant).
pub const N_VSTATES: usize = 7;

impl VState {
    /// Names of the states in index order, as the run summary and the monitor data give them
    /// (Perfkit FCX114 USTAT's columns: dormant, eligible, limit list, waiting for a processor,
    /// running, page wait, I/O wait).
    pub const NAMES: [&'static str; N_VSTATES] = [
        "dormant",
        "eligible",
        "limited",
        "cpu_wait",
        "running",
        "page_wait",
        "io_wait",
    ];
}

/// Which of CP's scheduler lists a user is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UList {
    Dormant,
    Eligible,
    Dispatch,
}

/// A virtual CPU (a VMDBK).
///
/// Layout (`repr(C)`): the fields a transaction touches (its burst, dispatch, accounting and
/// random stream) first, in declaration order, the rarely used ones (open-stream arrival,
/// limit deadline, page-in device) last, so that a burst's loads share cache lines
/// (docs/performance-history.md, fourth round: aligning each to 64 bytes measured no better).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Vcpu {
    pub user: u32,
    /// Home dispatch vector (the logical processor it last ran on).
    pub home: u32,
    /// Minor time slices completed in the current transaction (interactive bias).
    pub tx_slices: u32,
    pub state: VState,
    /// Its current run is a page fault's CP time, after which it waits for a page-in.
    pub pagewait: bool,
    /// What that CP-only run was to end in a wait for is over before the run ends (a page-in
    /// it joined came in, `Sim::device_event`; an asynchronous I/O completed and freed its
    /// window, `Sim::mdisk_event`): the run's end goes on with its burst (`Sim::lpu_event`).
    pub run_on: bool,
    /// Its burst begins with a page reference made when it is dispatched (a server's request
    /// handed to it while it waited for one; on a processor it makes the reference at once).
    pub touch_first: bool,
    /// It was dispatched for a CP-only run (a page fault's or an I/O's), so the dispatch charged
    /// no cache reload (`cache.warmth` on): the run's first guest work on that processor pays it
    /// (`Sim::continue_run`), or the next dispatch does.
    pub reload_owed: bool,
    /// CPU work left in the current burst (ns at nominal speed).
    pub remaining: Time,
    /// Minor time slice left.
    pub slice_left: Time,
    /// Dispatch priority (deadline) of its current dispatch-vector entry.
    pub deadline: Time,
    /// Sequence number of its live dispatch-vector entry (older entries are stale).
    pub heap_seq: u64,
    /// Since when it has wanted a processor without running (Ready, Eligible or Limited).
    pub want_since: Time,
    /// Dispatch instant of the current run, and CPU (guest + chargeable CP) used in it.
    pub run_used: Time,
    pub rng: Rng,
    pub run_start: Time,
    /// 6.4 scheduler: virtual start tag (ns of the dispatch list's virtual time), and the tag
    /// its current dispatch-vector entry was queued with.
    pub vtag: Time,
    pub start: Time,
    /// Since when it has been in `state`, and the time it spent in each state before that
    /// (index: the state's discriminant): the user wait-state analysis (FCX114 USTAT), exact
    /// rather than sampled.
    pub state_since: Time,
    /// Chargeable CP time owed (page-fault handling), run at the head of its next run.
    pub cp_owed: Time,
    /// CP sourcing stall owed (message data from another drawer, vnet.rs): run with `cp_owed`,
    /// already a stall (the coherence model does not lengthen it).
    pub cp_stall: Time,
    pub state_ns: [Time; N_VSTATES],
    /// Next arrival of work (open-stream workloads).
    pub next_arrival: Time,
    /// LIMITHARD deadline methods: not dispatchable before this instant.
    pub limit_until: Time,
    /// Paging device of that page-in (NONE: none can be started).
    pub pagein: u32,
}

impl Vcpu {
    /// A dormant virtual CPU of user `user` homed on processor `home`.
    pub fn new(user: u32, rng: Rng, home: u32) -> Vcpu {
        Vcpu {
            user,
            state: VState::Dormant,
            remaining: 0,
            slice_left: 0,
            deadline: 0,
            rng,
            home,
            heap_seq: 0,
            want_since: 0,
            run_start: 0,
            run_used: 0,
            tx_slices: 0,
            vtag: 0,
            start: 0,
            limit_until: 0,
            next_arrival: 0,
            cp_owed: 0,
            cp_stall: 0,
            pagewait: false,
            run_on: false,
            touch_first: false,
            reload_owed: false,
            pagein: NONE,
            state_since: 0,
            state_ns: [0; N_VSTATES],
        }
    }

    /// Enter state `s` at `now`, accounting the time spent in the state it leaves.
    #[inline(always)]
    pub fn set_state(&mut self, s: VState, now: Time) {
        self.state_ns[self.state as usize] += now.saturating_sub(self.state_since);
        self.state_since = now;
        self.state = s;
    }

    /// Time spent in each state from the start of the run up to `now`.
    pub fn state_time(&self, now: Time) -> [Time; N_VSTATES] {
        let mut t = self.state_ns;
        t[self.state as usize] += now.saturating_sub(self.state_since);
        t
    }
}

/// Per-user counters, cumulative since the start of the run.
#[derive(Clone, Debug, Default)]
pub struct Acct {
    pub virt_ns: u64,
    pub cp_ns: u64,
    pub tx_started: u64,
    pub tx_done: u64,
    /// SMT: raw CPU time (virt + cp) run beside a busy sibling thread; the MT-1 equivalent and
    /// prorated times are derived from it (cp-model §2.3).
    pub smt_shared_ns: u64,
}

/// A guest virtual machine (its base VMDBK carries the share).
///
/// Layout (`repr(C)`): the accounting, the virtual CPU list, the program and the share come
/// first; the userid and the maximum share after. Its scheduling state is the scheduler's
/// (`UserSched`, in `Scheduler::users`).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct User {
    pub acct: Acct,
    pub vcpus: Vec<u32>,
    pub program: Program,
    /// Normalized share over all logged-on users (fraction of the whole system).
    pub ns_all: f64,
    pub share: Share,
    pub userid: String,
    /// Maximum share over all logged-on users (fraction of the system), if any.
    pub max_all: Option<f64>,
}

/// A user's scheduler state (lists, transaction class, measured demand, limits).
///
/// Owned by the scheduler (`Scheduler::users`, indexed by user). Layout (`repr(C)`): the fields
/// read or written at every transaction (lists, class, test-idle, dispatch-list stay, wait
/// accounting, the 6.4 slice rate) first; those of the scheduler pass, limits and storage
/// admission after.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct UserSched {
    /// Virtual CPUs that are runnable (Ready, Running, Eligible or Limited).
    pub n_runnable: u32,
    /// (See `tidle_ns`.)
    pub tidle_vcpus: u32,
    /// The CPU pool the user is scheduled to (pools.rs; NONE: none).
    pub pool: u32,
    pub list: UList,
    /// SET QUICKDSP ON: transaction class E0, never held on the eligible list.
    pub quickdsp: bool,
    /// Transaction class 1..3 (E1..E3 on the eligible list, Q1..Q3 on the dispatch list).
    pub class: u8,
    /// Test-idle: on the dispatch list with no runnable virtual CPU since `tidle_since`.
    pub tidle: bool,
    pub touched: bool,
    pub dl_loading: bool,
    pub wss_trend: i8,
    pub loading: bool,
    pub tidle_since: Time,
    /// Virtual-CPU time spent dormant while test-idle before the current period (FCX114 USTAT
    /// %TI), and the user's dormant virtual CPUs in the current period (constant within it: any
    /// of them becoming runnable ends the period).
    pub tidle_ns: Time,
    /// Entry into the dispatch list (elapsed time slice) / into the eligible list.
    pub dl_since: Time,
    /// 6.4 measurement: CPU at the last tick, time wanting CPU since; measured at the next
    /// scheduler pass (runnable since the last one). The smoothed demand is the scheduler's.
    pub want_ns: u64,
    /// 1 / rate_v, and one minor time slice at that rate (virtual ns), kept for the hot path.
    pub inv_rate_v: f64,
    pub slice_v: Time,
    pub dl_wss: f64,
    /// Consumption method: CPU credit (ns) at `lim_last`; not dispatchable before `lim_until`.
    pub lim_until: Time,
    pub lim_credit: f64,
    pub lim_last: Time,
    pub used_mark: u64,
    /// 6.4 target rate (processors; NaN before the first) and per virtual CPU, used to
    /// advance virtual deadlines.
    pub rate: f64,
    pub rate_v: f64,
    /// 6.4 entitlement plus excess from the last water-fill (processors), and the water-fill
    /// these rates were derived from (`Entitlement::gen`).
    pub alloc: f64,
    pub fill_gen: u64,
    pub el_since: Time,
    /// Time spent on the eligible list before the current dispatch-list stay (taken once).
    pub el_delay: Time,
    /// Share counted in the list normalization sums (relative, absolute fraction).
    pub in_sums: (f64, f64),
    /// Sequence number of its live eligible-list entry.
    pub el_seq: u64,
    /// Its share of the pool's limit (fraction of the system; infinite outside a pool).
    pub pool_ns: f64,
    /// Storage admission (STORBUF, LDUBUF, MAXWSS): projected working set (pages), the sign of
    /// its last change, loading user or not, page-ins and first touches so far, and at the
    /// stay's start the page-ins, pages brought in, resident pages and CPU; what the current
    /// dispatch-list stay was counted as (`dl_wss`, `dl_loading`).
    pub wss: f64,
    pub pageins: u64,
    pub firsts: u64,
    pub stay_pageins: u64,
    pub stay_in: u64,
    pub stay_res: u64,
    pub stay_cpu: u64,
}

impl UserSched {
    /// The user stops being test-idle at `now` (a new transaction, or the drop after the grace
    /// period): the period counts towards its test-idle time.
    #[inline]
    pub fn end_tidle(&mut self, now: Time) {
        if self.tidle {
            self.tidle_ns += now.saturating_sub(self.tidle_since) * self.tidle_vcpus as Time;
            self.tidle = false;
        }
    }

    /// Virtual-CPU time spent dormant while test-idle, up to `now`.
    pub fn tidle_time(&self, now: Time) -> Time {
        self.tidle_ns
            + if self.tidle {
                now.saturating_sub(self.tidle_since) * self.tidle_vcpus as Time
            } else {
                0
            }
    }
}

impl Default for UserSched {
    fn default() -> Self {
        UserSched {
            list: UList::Dormant,
            quickdsp: false,
            class: 1,
            dl_since: 0,
            el_since: 0,
            el_delay: 0,
            n_runnable: 0,
            tidle: false,
            tidle_since: 0,
            tidle_ns: 0,
            tidle_vcpus: 0,
            in_sums: (0.0, 0.0),
            el_seq: 0,
            used_mark: 0,
            want_ns: 0,
            touched: false,
            rate: f64::NAN,
            rate_v: 1.0,
            inv_rate_v: 1.0,
            slice_v: 0,
            alloc: 0.0,
            fill_gen: u64::MAX,
            lim_credit: 0.0,
            lim_last: 0,
            lim_until: 0,
            pool: NONE,
            pool_ns: f64::INFINITY,
            wss: 0.0,
            wss_trend: 0,
            loading: false,
            pageins: 0,
            firsts: 0,
            stay_pageins: 0,
            stay_in: 0,
            stay_res: 0,
            stay_cpu: 0,
            dl_wss: 0.0,
            dl_loading: false,
        }
    }
}

/// The user numbers of the guests of group `userid` (users are numbered in guest order).
fn server_users(cfg: &Config, userid: &str) -> Vec<u32> {
    let mut n = 0u32;
    let mut out = Vec::new();
    for g in &cfg.guests {
        for _ in 0..g.count {
            if g.userid == userid {
                out.push(n);
            }
            n += 1;
        }
    }
    out
}

/// The guests of a run: users, their virtual CPUs and their scheduling state (the scheduler's).
pub(crate) type Guests = (Vec<User>, Vec<Vcpu>, Vec<UserSched>);

/// The users (one per guest of each group), their virtual CPUs, homed round robin over the
/// `p_online` processors, and their scheduling state.
pub(crate) fn guests(cfg: &Config, params: &Params, p_online: u32) -> Result<Guests, String> {
    let mut users = Vec::new();
    let mut vcpus = Vec::new();
    let mut scheds = Vec::new();
    for g in &cfg.guests {
        for k in 0..g.count {
            let userid = if g.count > 1 {
                format!("{}{}", g.userid, k)
            } else {
                g.userid.clone()
            };
            let uid = users.len() as u32;
            let program = user_program(cfg, params, g);
            let ids = logon_vcpus(cfg.seed, uid, g.vcpus, p_online, &mut vcpus);
            scheds.push(UserSched {
                quickdsp: g.quickdsp,
                ..Default::default()
            });
            users.push(User {
                userid,
                share: g.share,
                program,
                vcpus: ids,
                ns_all: 0.0,
                max_all: None,
                acct: Acct::default(),
            });
        }
    }
    check_unique_userids(&users)?;
    Ok((users, vcpus, scheds))
}

/// The program a guest of group `g` runs, with the server users a client calls or a server
/// forwards to.
fn user_program(cfg: &Config, params: &Params, g: &crate::config::Guest) -> Program {
    let ms = 1e6;
    let servers = match &g.workload {
        crate::config::Workload::Client { servers, .. } => server_users(cfg, servers),
        crate::config::Workload::Server {
            forward: Some(f), ..
        }
        | crate::config::Workload::SslServer {
            forward: Some(f), ..
        } => server_users(cfg, f),
        _ => Vec::new(),
    };
    Program::new(
        &g.workload,
        params.tx_cpu_default() * ms,
        params.burst_default() * ms,
        servers,
    )
}

/// User `uid`'s `n` virtual CPUs, appended to `vcpus` (numbered in logon order, each with its
/// own random stream, homed round robin over the `p_online` processors); their numbers.
fn logon_vcpus(seed: u64, uid: u32, n: u32, p_online: u32, vcpus: &mut Vec<Vcpu>) -> Vec<u32> {
    let mut ids = Vec::new();
    for _ in 0..n {
        let id = vcpus.len() as u32;
        ids.push(id);
        vcpus.push(Vcpu::new(
            uid,
            Rng::stream(seed, 1000 + id as u64),
            id % p_online,
        ));
    }
    ids
}

/// Every userid is defined once (a group's `count` numbers its userids).
fn check_unique_userids(users: &[User]) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for u in users {
        if !seen.insert(u.userid.clone()) {
            return Err(format!("userid {} is defined twice", u.userid));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Unit tests of the virtual CPUs' state-time accounting, test-idle time, the users'
    //! counters and the logon of the guest groups, against hand-computed values (ns).

    use super::*;
    use crate::config::{Guest, Workload};
    use crate::rng::Rng;
    use crate::workload::Role;
    use proptest::prelude::*;

    const ALL: [VState; N_VSTATES] = [
        VState::Dormant,
        VState::Eligible,
        VState::Limited,
        VState::Ready,
        VState::Running,
        VState::PageWait,
        VState::IoWait,
    ];

    fn vcpu() -> Vcpu {
        Vcpu::new(3, Rng::stream(1, 1000), 2)
    }

    #[test]
    fn states_are_indexed_as_named() {
        // USTAT's columns in order: the index of each state is its discriminant.
        for (i, s) in ALL.iter().enumerate() {
            assert_eq!(*s as usize, i);
        }
        assert_eq!(VState::NAMES[VState::Ready as usize], "cpu_wait");
        assert_eq!(VState::NAMES[VState::Limited as usize], "limited");
        assert_eq!(VState::NAMES[VState::IoWait as usize], "io_wait");
    }

    #[test]
    fn a_new_vcpu_is_dormant_since_zero() {
        let v = vcpu();
        assert_eq!((v.user, v.home, v.state), (3, 2, VState::Dormant));
        assert_eq!((v.state_since, v.state_ns), (0, [0; N_VSTATES]));
        assert_eq!(v.pagein, NONE);
        assert!(!v.pagewait);
        // Everything so far is dormant: 50 ns at 50.
        assert_eq!(v.state_time(50), [50, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn set_state_accounts_the_state_it_leaves() {
        let mut v = vcpu();
        // Dormant 0-10, Ready 10-15, Running 15-40, PageWait 40-70, Ready 70-72, Running
        // 72-80, Dormant from 80.
        v.set_state(VState::Ready, 10);
        v.set_state(VState::Running, 15);
        v.set_state(VState::PageWait, 40);
        v.set_state(VState::Ready, 70);
        v.set_state(VState::Running, 72);
        v.set_state(VState::Dormant, 80);
        assert_eq!(v.state, VState::Dormant);
        assert_eq!(v.state_since, 80);
        // Closed: dormant 10, cpu_wait 5 + 2 = 7, running 25 + 8 = 33, page wait 30.
        assert_eq!(v.state_ns, [10, 0, 0, 7, 33, 30, 0]);
        // At 100: dormant 10 + (100 - 80) = 30; sum 30 + 7 + 33 + 30 = 100.
        assert_eq!(v.state_time(100), [30, 0, 0, 7, 33, 30, 0]);
        assert_eq!(v.state_time(100).iter().sum::<Time>(), 100);
        // At the instant of the last change: nothing open yet.
        assert_eq!(v.state_time(80), [10, 0, 0, 7, 33, 30, 0]);
        // `state_time` does not change the accounting.
        assert_eq!(v.state_ns, [10, 0, 0, 7, 33, 30, 0]);
    }

    #[test]
    fn set_state_to_the_same_state_keeps_counting_it() {
        // IoWait 5-20 then IoWait again at 20 (a second I/O), Eligible at 26: io 15 + 6 = 21.
        let mut v = vcpu();
        v.set_state(VState::IoWait, 5);
        v.set_state(VState::IoWait, 20);
        assert_eq!(v.state_time(23), [5, 0, 0, 0, 0, 0, 18]);
        v.set_state(VState::Eligible, 26);
        v.set_state(VState::Limited, 30);
        assert_eq!(v.state_time(31), [5, 4, 1, 0, 0, 0, 21]);
    }

    #[test]
    fn end_tidle_counts_the_period_once_per_dormant_vcpu() {
        // Test-idle from 10 with 2 dormant virtual CPUs, ended at 25: (25 - 10) x 2 = 30.
        let mut s = UserSched {
            tidle: true,
            tidle_since: 10,
            tidle_vcpus: 2,
            tidle_ns: 100,
            ..Default::default()
        };
        // Before the end: 100 + (18 - 10) x 2 = 116.
        assert_eq!(s.tidle_time(18), 116);
        s.end_tidle(25);
        assert!(!s.tidle);
        assert_eq!(s.tidle_ns, 130);
        // Not test-idle: the time stays, whatever the instant; a second end adds nothing.
        assert_eq!(s.tidle_time(1000), 130);
        s.end_tidle(40);
        assert_eq!(s.tidle_ns, 130);
        // A new period from 50 with 3 vCPUs: at 60, 130 + 10 x 3 = 160.
        (s.tidle, s.tidle_since, s.tidle_vcpus) = (true, 50, 3);
        assert_eq!(s.tidle_time(60), 160);
        assert_eq!(s.tidle_time(50), 130);
        s.end_tidle(60);
        assert_eq!(s.tidle_time(60), 160);
    }

    #[test]
    fn a_new_user_sched_is_dormant_class_one_with_no_rate_yet() {
        let s = UserSched::default();
        assert_eq!(s.list, UList::Dormant);
        assert_eq!(s.class, 1);
        assert!(!s.tidle && !s.quickdsp);
        assert_eq!((s.tidle_ns, s.n_runnable), (0, 0));
        assert!(s.rate.is_nan(), "NaN before the first 6.4 rate");
        assert_eq!(s.pool, NONE);
        assert_eq!(s.pool_ns, f64::INFINITY, "infinite outside a pool");
        assert_eq!(s.tidle_time(1_000), 0);
    }

    #[test]
    fn acct_counters_start_at_zero() {
        let a = Acct::default();
        assert_eq!(
            (a.virt_ns, a.cp_ns, a.tx_started, a.tx_done, a.smt_shared_ns),
            (0, 0, 0, 0, 0)
        );
    }

    fn guest(userid: &str, count: u32, vcpus: u32, workload: Workload) -> Guest {
        Guest {
            vcpus,
            count,
            ..Guest::new(userid, workload)
        }
    }

    fn hungry() -> Workload {
        Workload::CpuBound {
            demand: None,
            tx_cpu_ns: None,
            dist: crate::config::Dist::Fixed,
        }
    }

    fn config(guests: Vec<Guest>) -> Config {
        Config::base("zvm-6.4", 2, 1_000_000_000, 1_000_000_000, guests)
    }

    #[test]
    fn guests_number_users_and_vcpus_in_guest_order() {
        // WEB x 3 with 2 vCPUs (users 0-2, vCPUs 0-5), DB x 1 with 3 vCPUs (user 3, vCPUs
        // 6-8), homed round robin over 4 processors: vCPU i on i mod 4.
        let mut db = guest("DB", 1, 3, hungry());
        db.quickdsp = true;
        let cfg = config(vec![guest("WEB", 3, 2, hungry()), db]);
        let (users, vcpus, scheds) = guests(&cfg, &Params::default(), 4).unwrap();
        let ids: Vec<&str> = users.iter().map(|u| u.userid.as_str()).collect();
        assert_eq!(ids, ["WEB0", "WEB1", "WEB2", "DB"]);
        assert_eq!(users[1].vcpus, [2, 3]);
        assert_eq!(users[3].vcpus, [6, 7, 8]);
        let owner: Vec<u32> = vcpus.iter().map(|v| v.user).collect();
        assert_eq!(owner, [0, 0, 1, 1, 2, 2, 3, 3, 3]);
        let home: Vec<u32> = vcpus.iter().map(|v| v.home).collect();
        assert_eq!(home, [0, 1, 2, 3, 0, 1, 2, 3, 0]);
        assert!(vcpus.iter().all(|v| v.state == VState::Dormant));
        let quick: Vec<bool> = scheds.iter().map(|s| s.quickdsp).collect();
        assert_eq!(quick, [false, false, false, true]);
        assert!(users.iter().all(|u| u.acct.tx_started == 0));
        // Each vCPU has its own stream: their first numbers differ.
        let firsts: std::collections::BTreeSet<u64> =
            vcpus.iter().map(|v| v.rng.clone().next_u64()).collect();
        assert_eq!(firsts.len(), 9);
    }

    #[test]
    fn guests_take_the_levels_default_transaction_and_burst() {
        // cpu-bound without tx_cpu: workload.tx_cpu_default = 10 ms; with demand 0.5 the
        // 2 ms workload.burst_default every 2 / 0.5 = 4 ms.
        let half = Workload::CpuBound {
            demand: Some(0.5),
            tx_cpu_ns: None,
            dist: crate::config::Dist::Fixed,
        };
        let cfg = config(vec![guest("A", 1, 1, hungry()), guest("B", 1, 1, half)]);
        let (users, _, _) = guests(&cfg, &Params::default(), 2).unwrap();
        assert!(matches!(users[0].program, Program::Hungry { tx, .. } if tx == 1e7));
        assert!(matches!(
            users[1].program,
            Program::Partial { burst, period, .. } if burst == 2e6 && period == 4e6
        ));
    }

    #[test]
    fn clients_and_servers_resolve_their_groups_to_users() {
        // CLI x 2 (users 0, 1), WEB x 3 (users 2-4) forwarding to DB (user 5).
        let cli = Workload::Client {
            cpu_ns: 1000,
            servers: "WEB".into(),
            window: 1,
            dist: crate::config::Dist::Fixed,
            bytes: 0,
            connect: false,
        };
        let web = Workload::Server {
            cpu_ns: 1000,
            dist: crate::config::Dist::Fixed,
            forward: Some("DB".into()),
        };
        let db = Workload::Server {
            cpu_ns: 1000,
            dist: crate::config::Dist::Fixed,
            forward: None,
        };
        let cfg = config(vec![
            guest("CLI", 2, 1, cli),
            guest("WEB", 3, 1, web),
            guest("DB", 1, 1, db),
        ]);
        let (users, _, _) = guests(&cfg, &Params::default(), 2).unwrap();
        for u in &users[..2] {
            assert!(
                matches!(u.program.role(), Some(Role::Client { servers, .. }) if *servers == [2, 3, 4])
            );
        }
        for u in &users[2..5] {
            assert!(
                matches!(u.program.role(), Some(Role::Server { forward, .. }) if *forward == [5])
            );
        }
        assert!(
            matches!(users[5].program.role(), Some(Role::Server { forward, .. }) if forward.is_empty())
        );
    }

    #[test]
    fn a_userid_defined_twice_is_refused() {
        let cfg = config(vec![guest("A", 1, 1, hungry()), guest("A", 1, 1, hungry())]);
        assert_eq!(
            guests(&cfg, &Params::default(), 1).err().as_deref(),
            Some("userid A is defined twice")
        );
        // A group's numbered userid against a single guest's: WEB x 2 is WEB0, WEB1.
        let cfg = config(vec![
            guest("WEB", 2, 1, hungry()),
            guest("WEB1", 1, 1, hungry()),
        ]);
        assert_eq!(
            guests(&cfg, &Params::default(), 1).err().as_deref(),
            Some("userid WEB1 is defined twice")
        );
        // Distinct ones are fine.
        let cfg = config(vec![
            guest("WEB", 2, 1, hungry()),
            guest("WEB2", 1, 1, hungry()),
        ]);
        assert!(guests(&cfg, &Params::default(), 1).is_ok());
    }

    proptest! {
        #[test]
        fn state_times_add_up_to_the_elapsed_time(
            steps in proptest::collection::vec((0usize..N_VSTATES, 0u64..1_000_000), 0..60),
            tail in 0u64..1_000_000,
        ) {
            // A reference model: each interval goes to the state that was current during it.
            let mut v = vcpu();
            let mut want = [0 as Time; N_VSTATES];
            let mut cur = VState::Dormant;
            let mut now = 0;
            for (s, dt) in steps {
                want[cur as usize] += dt;
                now += dt;
                v.set_state(ALL[s], now);
                cur = ALL[s];
                prop_assert_eq!(v.state_time(now).iter().sum::<Time>(), now);
            }
            let end = now + tail;
            want[cur as usize] += tail;
            let got = v.state_time(end);
            prop_assert_eq!(got, want);
            prop_assert_eq!(got.iter().sum::<Time>(), end);
        }

        #[test]
        fn test_idle_time_is_the_periods_times_their_vcpus(
            periods in proptest::collection::vec((0u64..1_000, 0u64..1_000, 0u32..8), 0..20),
        ) {
            // Periods of (gap, length, dormant vCPUs): test-idle time = sum of length x vCPUs.
            let mut s = UserSched::default();
            let mut now = 0;
            let mut want = 0;
            for (gap, len, n) in periods {
                now += gap;
                (s.tidle, s.tidle_since, s.tidle_vcpus) = (true, now, n);
                prop_assert_eq!(s.tidle_time(now + len), want + len * n as Time);
                now += len;
                s.end_tidle(now);
                want += len * n as Time;
                prop_assert_eq!(s.tidle_time(now + gap), want);
            }
        }
    }
}
