//! Virtual networking: guest LAN / VSWITCH messages between guests, through CP.
//!
//! The web workloads of seed 001 (Apache CPU scalability, DayTrader) are client guests (AWM)
//! driving server guests (Apache, WAS/DB2) over CP's virtual network. A client virtual CPU runs
//! a request's CPU, then sends it to a server guest; it keeps at most `window` requests
//! outstanding and waits (dormant, no timer) when the window is full. A server guest keeps a
//! queue of requests; an idle (dormant) virtual CPU of the server takes the next one, runs its
//! CPU, and sends the reply. The transaction completes when the reply reaches the client (the
//! client's ETR), so the client and the server are coupled as in the real workload: a slower
//! client thread (SMT-2) lowers the rate the servers see.
//!
//! A guest with page references (`refs`, e.g. a server's file cache) touches one page at the
//! start of each request it continues with, as the other workloads do per transaction.
//!
//! Each message costs the sender `path.vnet_msg` instructions of chargeable CP time (the copy
//! of the frame into the receiver's buffer and the adapter interruption), paid at the head of
//! the sender's next run on a processor.
//!
//! Servers can form chains (issue 6): a server with `forward` passes each request it finished
//! to the next guest of that group (round robin per virtual CPU) instead of replying; the last
//! server of the chain replies to the client (RSCS -> SSL server -> TCP/IP, Telnet through
//! TCP/IP and the SSL server to CMS users). An SSL server's CPU per request and its crypto
//! adapter are in `ssl`; a queue entry tagged `CONT` is a handshake's end coming back from the
//! adapter. The wiring (messages sent, servers kicked, CP paths charged) is `sim/vnet.rs`.

use crate::queue::Time;
use crate::units::NONE;
use std::collections::VecDeque;

pub use crate::workload::Role;

/// A queue entry of a server that is the end of a handshake whose RSA operation the crypto
/// adapter did (the rest of the entry is the client virtual CPU).
pub const CONT: u32 = 1 << 31;

/// Per-virtual-CPU and per-user message state.
#[derive(Clone, Debug, Default)]
pub struct Vnet {
    /// Per virtual CPU: requests outstanding (clients), next server index (clients), waiting
    /// for a message with no timer (clients with a full window, idle servers).
    outstanding: Vec<u32>,
    rr: Vec<u32>,
    waiting: Vec<bool>,
    /// Per user (servers): requests queued, each the client virtual CPU to reply to.
    queue: Vec<VecDeque<u32>>,
    /// Per virtual CPU (servers): the client virtual CPU whose request it is serving.
    serving: Vec<u32>,
    /// Messages sent, requests served (replied to), and passed on along a chain.
    messages: u64,
    served: u64,
    forwarded: u64,
    /// CP time of one message (ns at nominal speed).
    cost_msg: Time,
    /// Per user: page references per request (servers); per virtual CPU: pieces of the
    /// current request still to run, and the mean CPU of each.
    touches: Vec<u32>,
    pieces: Vec<u32>,
    piece_cpu: Vec<f64>,
    /// Per user: the logical processor where it last took a message (its receive buffers and
    /// control blocks are in that core's caches; NONE: none yet).
    nic: Vec<u32>,
}

/// Virtual network figures of a run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct VnetSummary {
    pub messages: u64,
    pub messages_per_s: f64,
    /// Requests the servers finished (each sent one reply).
    pub requests_served: u64,
    /// Requests waiting in server queues at the end, and being served.
    pub requests_queued: u64,
    pub requests_in_service: u64,
    /// Requests servers passed on to the next server of a chain.
    pub requests_forwarded: u64,
    /// Requests clients sent and have no reply to yet.
    pub requests_outstanding: u64,
}

impl Vnet {
    /// The run's virtual networking, when any guest is a client or a server.
    pub fn for_run(
        cfg: &crate::config::Config,
        params: &crate::params::Params,
        users: &[crate::guest::User],
        n_vcpus: usize,
    ) -> Option<Vnet> {
        users.iter().any(|u| u.program.role().is_some()).then(|| {
            let cost_msg = crate::units::path_ns(params, params.path_vnet_msg(), 0.0);
            let mut n = Vnet::new(n_vcpus, users.len(), cost_msg);
            n.touches = cfg
                .guests
                .iter()
                .flat_map(|g| std::iter::repeat_n(g.touches.max(1), g.count as usize))
                .collect();
            n
        })
    }

    pub fn summary(&self, secs: f64) -> VnetSummary {
        VnetSummary {
            messages: self.messages,
            messages_per_s: self.messages as f64 / secs.max(1e-9),
            requests_served: self.served,
            requests_queued: self.queue.iter().map(|q| q.len() as u64).sum(),
            requests_in_service: self.serving.iter().filter(|&&c| c != NONE).count() as u64,
            requests_forwarded: self.forwarded,
            requests_outstanding: self.outstanding.iter().map(|&x| x as u64).sum(),
        }
    }

    pub fn new(n_vcpus: usize, n_users: usize, cost_msg: Time) -> Vnet {
        Vnet {
            outstanding: vec![0; n_vcpus],
            rr: vec![0; n_vcpus],
            waiting: vec![false; n_vcpus],
            queue: vec![VecDeque::new(); n_users],
            serving: vec![NONE; n_vcpus],
            messages: 0,
            served: 0,
            forwarded: 0,
            cost_msg,
            nic: vec![NONE; n_users],
            touches: vec![1; n_users],
            pieces: vec![0; n_vcpus],
            piece_cpu: vec![0.0; n_vcpus],
        }
    }
}

impl Vnet {
    /// The next of `n` targets in virtual CPU `v`'s round robin (servers of a client, next
    /// servers of a chain).
    #[inline]
    pub(crate) fn next_rr(&mut self, v: u32, n: usize) -> usize {
        let k = self.rr[v as usize] as usize % n;
        self.rr[v as usize] = self.rr[v as usize].wrapping_add(1);
        k
    }
}

/// What the wiring asks of the virtual network (sim/vnet.rs): each keeps the order of the
/// counters' and queues' updates the message path had when it wrote them in place.
impl Vnet {
    /// CP time of one message (ns at nominal speed).
    #[inline]
    pub fn cost_msg(&self) -> Time {
        self.cost_msg
    }

    /// Client virtual CPU `v` sends a request to server user `srv`: one more outstanding and
    /// one more message; true when that fills its `window`.
    #[inline]
    pub fn send_request(&mut self, v: u32, srv: u32, window: u32) -> bool {
        self.outstanding[v as usize] += 1;
        self.messages += 1;
        let full = self.outstanding[v as usize] >= window;
        self.queue[srv as usize].push_back(v);
        full
    }

    /// Whether server virtual CPU `v` has pieces of its request still to run.
    #[inline]
    pub fn pieces_left(&self, v: u32) -> bool {
        self.pieces[v as usize] > 0
    }

    /// Server virtual CPU `v` goes on with the next piece of its request: that piece's mean CPU.
    #[inline]
    pub fn next_piece(&mut self, v: u32) -> f64 {
        self.pieces[v as usize] -= 1;
        self.piece_cpu[v as usize]
    }

    /// Server virtual CPU `v` finished the request it was serving: the client entry (NONE:
    /// none).
    #[inline]
    pub fn finish_request(&mut self, v: u32) -> u32 {
        std::mem::replace(&mut self.serving[v as usize], NONE)
    }

    /// One more message sent (a reply or a forward).
    #[inline]
    pub fn count_message(&mut self) {
        self.messages += 1;
    }

    /// One more request served (replied to).
    #[inline]
    pub fn count_served(&mut self) {
        self.served += 1;
    }

    /// One more request passed on along a chain.
    #[inline]
    pub fn count_forwarded(&mut self) {
        self.forwarded += 1;
    }

    /// Server virtual CPU `v` of user `u`, on processor `l`, takes the next request queued for
    /// its user, if any: the client entry.
    #[inline]
    pub fn take_next(&mut self, v: u32, u: usize, l: u32) -> Option<u32> {
        let c = self.queue[u].pop_front()?;
        self.serving[v as usize] = c;
        self.nic[u] = l;
        Some(c)
    }

    /// Virtual CPU `v` waits for a message (no timer).
    #[inline]
    pub fn wait(&mut self, v: u32) {
        self.waiting[v as usize] = true;
    }

    /// Whether virtual CPU `v` waits for a message.
    #[inline]
    pub fn is_waiting(&self, v: u32) -> bool {
        self.waiting[v as usize]
    }

    /// The logical processor where user `to` last took a message (NONE: none yet).
    #[inline]
    pub fn nic(&self, to: u32) -> u32 {
        self.nic[to as usize]
    }

    /// Queue entry `e` (a client virtual CPU, maybe tagged) for server user `srv`.
    #[inline]
    pub fn enqueue(&mut self, srv: u32, e: u32) {
        self.queue[srv as usize].push_back(e);
    }

    /// Waiting server virtual CPU `sv` of user `srv`, homed on processor `home`, takes the next
    /// request queued for its user: the client entry, or None (nothing queued: it keeps
    /// waiting).
    #[inline]
    pub fn hand_to_waiting(&mut self, srv: u32, sv: u32, home: u32) -> Option<u32> {
        let c = self.queue[srv as usize].pop_front()?;
        self.serving[sv as usize] = c;
        self.waiting[sv as usize] = false;
        self.nic[srv as usize] = home;
        Some(c)
    }

    /// Server virtual CPU `v` of user `u` takes a request of mean CPU `mean`, split into the
    /// user's page references per request (row D8): the mean CPU of each piece.
    #[inline]
    pub fn split_request(&mut self, u: usize, v: u32, mean: f64) -> f64 {
        let n = self.touches.get(u).copied().unwrap_or(1).max(1);
        self.pieces[v as usize] = n - 1;
        self.piece_cpu[v as usize] = mean / n as f64;
        mean / n as f64
    }

    /// The reply to client virtual CPU `c` (of user `u`, homed on `home`) arrived: one fewer
    /// outstanding; true when `c` was waiting for it (it no longer is).
    #[inline]
    pub fn reply_arrived(&mut self, c: u32, u: usize, home: u32) -> bool {
        self.nic[u] = home;
        self.outstanding[c as usize] -= 1;
        std::mem::replace(&mut self.waiting[c as usize], false)
    }
}

#[cfg(test)]
mod tests {
    //! Unit tests of the virtual network's queues, window and counters against hand-computed
    //! values. Virtual CPUs and users are numbered by hand; the wiring (sim/vnet.rs) is not
    //! used: each test calls the methods in the order the wiring does.

    use super::*;
    use proptest::prelude::*;

    /// A run with `v` virtual CPUs, `u` users and 700 ns per message.
    fn net(v: usize, u: usize) -> Vnet {
        Vnet::new(v, u, 700)
    }

    #[test]
    fn new_is_empty() {
        let n = net(4, 2);
        assert_eq!(n.cost_msg(), 700);
        let s = n.summary(1.0);
        assert_eq!(s.messages, 0);
        assert_eq!(s.requests_served, 0);
        assert_eq!(s.requests_queued, 0);
        assert_eq!(s.requests_in_service, 0);
        assert_eq!(s.requests_forwarded, 0);
        assert_eq!(s.requests_outstanding, 0);
        for v in 0..4 {
            assert!(!n.is_waiting(v));
            assert!(!n.pieces_left(v));
        }
        assert_eq!(n.nic(0), NONE);
        assert_eq!(n.nic(1), NONE);
    }

    /// A window of 3: the first two requests leave room, the third fills it (outstanding 3 >=
    /// 3); each request is one message and one outstanding request.
    #[test]
    fn the_window_fills_at_its_size() {
        let mut n = net(3, 2);
        assert!(!n.send_request(0, 1, 3)); // outstanding 1 < 3
        assert!(!n.send_request(0, 1, 3)); // 2 < 3
        assert!(n.send_request(0, 1, 3)); // 3 >= 3: full
        let s = n.summary(1.0);
        assert_eq!(s.messages, 3);
        assert_eq!(s.requests_outstanding, 3);
        assert_eq!(s.requests_queued, 3);
        // Window 1: every request fills it.
        assert!(n.send_request(1, 1, 1));
        assert_eq!(n.summary(1.0).requests_outstanding, 4); // 3 + 1
    }

    /// A reply frees a window slot: with window 2, send 2 (full), one reply, the next send
    /// fills it again (outstanding 1 + 1 = 2 >= 2).
    #[test]
    fn a_reply_frees_one_slot_of_the_window() {
        let mut n = net(3, 2);
        assert!(!n.send_request(0, 1, 2));
        assert!(n.send_request(0, 1, 2));
        n.wait(0);
        // Server vcpu 2 of user 1 on processor 5 serves and replies.
        assert_eq!(n.take_next(2, 1, 5), Some(0));
        assert_eq!(n.finish_request(2), 0);
        assert!(n.reply_arrived(0, 0, 4)); // client was waiting
        assert!(!n.is_waiting(0));
        assert_eq!(n.summary(1.0).requests_outstanding, 1); // 2 - 1
        assert!(n.send_request(0, 1, 2)); // 1 + 1 = 2 >= 2
    }

    /// A server's queue is FIFO over its clients, and each server user has its own.
    #[test]
    fn server_queues_are_fifo_per_user() {
        // vcpus 0, 1, 2: clients; 3: server of user 2, 4: server of user 3.
        let mut n = net(5, 4);
        n.send_request(1, 2, 10);
        n.send_request(0, 3, 10);
        n.send_request(2, 2, 10);
        n.send_request(0, 2, 10);
        assert_eq!(n.summary(1.0).requests_queued, 4);
        assert_eq!(n.take_next(3, 2, 0), Some(1));
        assert_eq!(n.finish_request(3), 1);
        assert_eq!(n.take_next(3, 2, 0), Some(2));
        assert_eq!(n.finish_request(3), 2);
        assert_eq!(n.take_next(3, 2, 0), Some(0));
        assert_eq!(n.finish_request(3), 0);
        assert_eq!(n.take_next(3, 2, 0), None);
        // User 3's request was not taken by user 2's server.
        assert_eq!(n.summary(1.0).requests_queued, 1);
        assert_eq!(n.take_next(4, 3, 0), Some(0));
        assert_eq!(n.take_next(4, 3, 0), None);
    }

    /// Taking a request: the server is serving that client (in service 1, queued 1 fewer) and
    /// its user's NIC is the processor it took it on; finishing gives the client back once.
    #[test]
    fn take_next_serves_and_records_the_nic() {
        let mut n = net(4, 3);
        n.send_request(0, 2, 8);
        n.send_request(1, 2, 8);
        assert_eq!(n.take_next(3, 2, 6), Some(0));
        let s = n.summary(1.0);
        assert_eq!(s.requests_in_service, 1);
        assert_eq!(s.requests_queued, 1); // 2 - 1
        assert_eq!(n.nic(2), 6);
        assert_eq!(n.nic(0), NONE); // the clients' users took nothing yet
        assert_eq!(n.finish_request(3), 0);
        assert_eq!(n.finish_request(3), NONE); // nothing more being served
        assert_eq!(n.summary(1.0).requests_in_service, 0);
        // An empty queue leaves the NIC where it was.
        assert_eq!(n.take_next(3, 1, 9), None);
        assert_eq!(n.nic(1), NONE);
    }

    /// A request queued for a server user goes to the waiting virtual CPU given, and to no
    /// other: its waiting flag is cleared, it serves the client, the user's NIC is its home.
    #[test]
    fn hand_to_waiting_gives_the_request_to_that_vcpu_only() {
        // vcpu 0: client (user 0); vcpus 1, 2, 3: server user 1.
        let mut n = net(4, 2);
        n.wait(1);
        n.wait(3);
        n.send_request(0, 1, 4);
        assert_eq!(n.hand_to_waiting(1, 3, 11), Some(0));
        assert!(!n.is_waiting(3));
        assert!(n.is_waiting(1)); // the other waiting vcpu still waits
        assert!(!n.is_waiting(2));
        assert_eq!(n.nic(1), 11);
        assert_eq!(n.finish_request(1), NONE);
        assert_eq!(n.finish_request(2), NONE);
        assert_eq!(n.finish_request(3), 0);
        let s = n.summary(1.0);
        assert_eq!(s.requests_queued, 0);
        assert_eq!(s.requests_outstanding, 1);
    }

    /// A waiting server takes the oldest request of its user's queue (FIFO, as take_next).
    #[test]
    fn hand_to_waiting_takes_the_oldest_request() {
        // vcpus 0, 1, 2: clients; 3: server of user 3.
        let mut n = net(4, 4);
        n.send_request(2, 3, 5);
        n.send_request(0, 3, 5);
        n.send_request(1, 3, 5);
        n.wait(3);
        assert_eq!(n.hand_to_waiting(3, 3, 0), Some(2));
        assert_eq!(n.finish_request(3), 2);
        n.wait(3);
        assert_eq!(n.hand_to_waiting(3, 3, 0), Some(0));
        assert_eq!(n.finish_request(3), 0);
        n.wait(3);
        assert_eq!(n.hand_to_waiting(3, 3, 0), Some(1));
    }

    /// Nothing queued: the waiting vcpu keeps waiting and nothing changes.
    #[test]
    fn hand_to_waiting_with_an_empty_queue_keeps_waiting() {
        let mut n = net(2, 2);
        n.wait(1);
        assert_eq!(n.hand_to_waiting(1, 1, 3), None);
        assert!(n.is_waiting(1));
        assert_eq!(n.nic(1), NONE);
        assert_eq!(n.summary(1.0).requests_in_service, 0);
    }

    /// The reply to a client: one fewer outstanding, its user's NIC is its home, and it is
    /// woken only when it was waiting.
    #[test]
    fn reply_arrived_wakes_only_a_waiting_client() {
        let mut n = net(3, 3);
        n.send_request(0, 2, 5);
        n.send_request(0, 2, 5);
        n.send_request(1, 2, 5);
        n.wait(1);
        assert!(!n.reply_arrived(0, 0, 7)); // 0 was not waiting
        assert!(!n.is_waiting(0));
        assert_eq!(n.nic(0), 7);
        assert!(n.reply_arrived(1, 1, 8)); // 1 was waiting
        assert!(!n.is_waiting(1));
        assert_eq!(n.nic(1), 8);
        assert_eq!(n.summary(1.0).requests_outstanding, 1); // 3 - 2
                                                            // A second reply to 1 finds it running: no wake-up.
        n.send_request(1, 2, 5);
        assert!(!n.reply_arrived(1, 1, 8));
    }

    /// Round robin per virtual CPU over `n` targets: 0, 1, 2, 0, ...; another vcpu's turn is
    /// its own.
    #[test]
    fn next_rr_is_round_robin_per_vcpu() {
        let mut n = net(2, 1);
        let a: Vec<usize> = (0..5).map(|_| n.next_rr(0, 3)).collect();
        assert_eq!(a, vec![0, 1, 2, 0, 1]);
        assert_eq!(n.next_rr(1, 3), 0);
        assert_eq!(n.next_rr(1, 2), 1); // 1 % 2
        assert_eq!(n.next_rr(0, 3), 2); // 5 % 3
        assert_eq!(n.next_rr(0, 1), 0); // one target: always it
    }

    /// A request of mean 1200 ns at a user with 4 page references: 4 pieces of 300 ns, the
    /// first from split_request, 3 more from next_piece.
    #[test]
    fn split_request_cuts_the_request_into_its_pieces() {
        let mut n = net(3, 2);
        n.touches = vec![1, 4];
        assert_eq!(n.split_request(1, 2, 1200.0), 300.0); // 1200 / 4
        let mut sum = 300.0;
        let mut more = 0;
        while n.pieces_left(2) {
            sum += n.next_piece(2);
            more += 1;
        }
        assert_eq!(more, 3); // 4 - 1
        assert_eq!(sum, 1200.0);
        assert!(!n.pieces_left(1));
        // One reference: one piece, the whole request.
        assert_eq!(n.split_request(0, 1, 500.0), 500.0);
        assert!(!n.pieces_left(1));
    }

    /// No page references (0) count as one, and a user beyond the table as one.
    #[test]
    fn split_request_takes_at_least_one_piece() {
        let mut n = net(2, 3);
        n.touches = vec![0, 2];
        assert_eq!(n.split_request(0, 0, 800.0), 800.0);
        assert!(!n.pieces_left(0));
        assert_eq!(n.split_request(2, 1, 800.0), 800.0); // user 2 not in the table
        assert!(!n.pieces_left(1));
    }

    /// A new request replaces the pieces left of the previous one.
    #[test]
    fn split_request_restarts_the_count() {
        let mut n = net(1, 1);
        n.touches = vec![3];
        assert_eq!(n.split_request(0, 0, 900.0), 300.0);
        assert_eq!(n.next_piece(0), 300.0);
        assert_eq!(n.split_request(0, 0, 60.0), 20.0); // 60 / 3
        assert_eq!(n.next_piece(0), 20.0);
        assert_eq!(n.next_piece(0), 20.0);
        assert!(!n.pieces_left(0));
    }

    /// The counters are what was done: 3 requests (3 messages), 2 replies (2 messages, 2
    /// served), 1 forward (1 message); 8 messages over 2 s = 4 per second.
    #[test]
    fn summary_counts_what_was_done() {
        let mut n = net(4, 4);
        n.send_request(0, 2, 9);
        n.send_request(1, 2, 9);
        n.send_request(0, 3, 9);
        for _ in 0..2 {
            n.count_message();
            n.count_served();
        }
        n.count_message();
        n.count_forwarded();
        n.enqueue(3, 1 | CONT);
        n.take_next(2, 2, 0);
        let s = n.summary(2.0);
        assert_eq!(s.messages, 6); // 3 + 2 + 1
        assert_eq!(s.messages_per_s, 3.0); // 6 / 2
        assert_eq!(s.requests_served, 2);
        assert_eq!(s.requests_forwarded, 1);
        assert_eq!(s.requests_queued, 3); // 2 at user 2 - 1 taken + 2 at user 3
        assert_eq!(s.requests_in_service, 1);
        assert_eq!(s.requests_outstanding, 3); // no reply_arrived
                                               // A run of no time: the rate over 1e-9 s, not a division by zero.
        assert!((n.summary(0.0).messages_per_s - 6e9).abs() < 1e-3);
    }

    /// An entry tagged CONT is queued as given (the wiring strips the tag when replying).
    #[test]
    fn enqueue_keeps_the_tag() {
        let mut n = net(3, 2);
        n.enqueue(1, 2 | CONT);
        n.enqueue(1, 0);
        assert_eq!(n.summary(1.0).messages, 0); // enqueue alone is no message
        assert_eq!(n.take_next(1, 1, 0), Some(2 | CONT));
        assert_eq!(n.finish_request(1), 2 | CONT);
        assert_eq!(n.take_next(1, 1, 0), Some(0));
    }

    fn run_config(guests: serde_json::Value) -> crate::config::Config {
        serde_json::from_value(serde_json::json!({
            "level": "zvm-6.4", "processors": 1, "duration_ns": 1_000_000_000u64,
            "interval_ns": 1_000_000_000u64, "guests": guests,
        }))
        .expect("config")
    }

    /// The run's network: a message costs path.vnet_msg at 1 instruction per ns (700 ns);
    /// each user's page references per request are its group's `touches` (0 counts as 1),
    /// one entry per guest of a group of `count`.
    #[test]
    fn for_run_takes_the_message_cost_and_the_touches() {
        let p = crate::params::Params {
            clock_ghz: 1.0,
            cpi_cp: 1.0,
            path_vnet_msg: 700.0,
            ..crate::params::Params::default()
        };
        let cfg = run_config(serde_json::json!([
            {"userid": "CL", "workload": {"kind": "client", "cpu_ns": 1000, "servers": "WEB",
             "window": 2}},
            {"userid": "WEB", "count": 2, "touches": 3, "workload": {"kind": "server",
             "cpu_ns": 900}},
            {"userid": "BAT", "touches": 0, "workload": {"kind": "memtst", "cpu_ns": 900}},
        ]));
        let (users, vcpus, _) = crate::guest::guests(&cfg, &p, 1).expect("guests");
        let n = Vnet::for_run(&cfg, &p, &users, vcpus.len()).expect("a network");
        assert_eq!(n.cost_msg(), 700);
        assert_eq!(n.touches, vec![1, 3, 3, 1]);
        assert_eq!(n.outstanding.len(), vcpus.len());
        assert_eq!(n.queue.len(), 4);
        // No client or server: no network.
        let cfg = run_config(serde_json::json!([
            {"userid": "BAT", "workload": {"kind": "memtst", "cpu_ns": 900}},
        ]));
        let (users, vcpus, _) = crate::guest::guests(&cfg, &p, 1).expect("guests");
        assert!(Vnet::for_run(&cfg, &p, &users, vcpus.len()).is_none());
    }

    /// Clients 0..c (user 0..c), servers c..c+s of one server user c (user index = c): a driver
    /// that does what sim/vnet.rs does, in a random order of steps.
    #[derive(Debug, Clone)]
    enum Step {
        Send(usize),
        Serve(usize),
        Kick(usize),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0usize..3).prop_map(Step::Send),
            (0usize..2).prop_map(Step::Serve),
            (0usize..2).prop_map(Step::Kick),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Every request is answered exactly once, to the client that sent it, in the order
        /// each server took them; no client has more than `window` outstanding; at every step
        /// outstanding = queued + in service; the counters equal what was done.
        #[test]
        fn every_request_is_answered_once(
            window in 1u32..4,
            steps in proptest::collection::vec(step(), 0..80),
        ) {
            const C: u32 = 3; // clients: vcpus 0..3, users 0..3
            const SRV: u32 = 3; // server user 3: vcpus 3, 4
            let mut n = Vnet::new(5, 4, 1);
            let mut sent = [0u64; 3];
            let mut answered = [0u64; 3];
            let mut blocked = [false; 3];
            let mut msgs = 0u64;
            let mut busy = [false; 2];
            n.wait(3);
            n.wait(4);
            for s in steps {
                match s {
                    Step::Send(c) => {
                        if blocked[c] {
                            continue;
                        }
                        let full = n.send_request(c as u32, SRV, window);
                        sent[c] += 1;
                        msgs += 1;
                        if full {
                            blocked[c] = true;
                            n.wait(c as u32);
                        }
                    }
                    Step::Serve(i) => {
                        // A busy server finishes its request, replies, takes the next or waits.
                        let sv = C + i as u32;
                        if !busy[i] {
                            continue;
                        }
                        let c = n.finish_request(sv);
                        prop_assert!(c < C);
                        msgs += 1;
                        n.count_message();
                        n.count_served();
                        answered[c as usize] += 1;
                        let woke = n.reply_arrived(c, c as usize, 0);
                        prop_assert_eq!(woke, blocked[c as usize]);
                        blocked[c as usize] = false;
                        busy[i] = n.take_next(sv, SRV as usize, 1).is_some();
                        if !busy[i] {
                            n.wait(sv);
                        }
                    }
                    Step::Kick(i) => {
                        // A queued request wakes a waiting server.
                        let sv = C + i as u32;
                        if n.is_waiting(sv) {
                            busy[i] = n.hand_to_waiting(SRV, sv, 2).is_some();
                            prop_assert_eq!(n.is_waiting(sv), !busy[i]);
                        }
                    }
                }
                let s = n.summary(1.0);
                let out: u64 = (0..3).map(|c| sent[c] - answered[c]).sum();
                prop_assert_eq!(s.requests_outstanding, out);
                prop_assert_eq!(s.requests_queued + s.requests_in_service, out);
                prop_assert!((0..3).all(|c| sent[c] - answered[c] <= window as u64));
                prop_assert_eq!(s.messages, msgs);
                prop_assert_eq!(s.requests_served, answered.iter().sum::<u64>());
            }
            // Drain: serve until nothing is left; every request sent is answered once.
            for _ in 0..(sent.iter().sum::<u64>() + 2) {
                for (i, sv) in [3u32, 4].into_iter().enumerate() {
                    if n.is_waiting(sv) {
                        busy[i] = n.hand_to_waiting(SRV, sv, 2).is_some();
                    }
                    if busy[i] {
                        let c = n.finish_request(sv);
                        answered[c as usize] += 1;
                        n.reply_arrived(c, c as usize, 0);
                        busy[i] = n.take_next(sv, SRV as usize, 1).is_some();
                        if !busy[i] {
                            n.wait(sv);
                        }
                    }
                }
            }
            prop_assert_eq!(answered, sent);
            prop_assert_eq!(n.summary(1.0).requests_outstanding, 0);
        }

        /// The pieces of a split request sum to its CPU, and there are as many as the user's
        /// page references (at least one).
        #[test]
        fn pieces_sum_to_the_request(touches in 0u32..50, mean in 0.0f64..1e7) {
            let mut n = Vnet::new(1, 1, 0);
            n.touches = vec![touches];
            let mut sum = n.split_request(0, 0, mean);
            let mut k = 1u32;
            while n.pieces_left(0) {
                sum += n.next_piece(0);
                k += 1;
            }
            prop_assert_eq!(k, touches.max(1));
            prop_assert!((sum - mean).abs() <= 1e-9 * mean.max(1.0));
        }
    }
}
