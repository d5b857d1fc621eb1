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
