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
    pub outstanding: Vec<u32>,
    pub rr: Vec<u32>,
    pub waiting: Vec<bool>,
    /// Per user (servers): requests queued, each the client virtual CPU to reply to.
    pub queue: Vec<VecDeque<u32>>,
    /// Per virtual CPU (servers): the client virtual CPU whose request it is serving.
    pub serving: Vec<u32>,
    /// Messages sent, requests served (replied to), and passed on along a chain.
    pub messages: u64,
    pub served: u64,
    pub forwarded: u64,
    /// CP time of one message (ns at nominal speed).
    pub cost_msg: Time,
    /// Per user: page references per request (servers); per virtual CPU: pieces of the
    /// current request still to run, and the mean CPU of each.
    pub touches: Vec<u32>,
    pub pieces: Vec<u32>,
    pub piece_cpu: Vec<f64>,
    /// Per user: the logical processor where it last took a message (its receive buffers and
    /// control blocks are in that core's caches; NONE: none yet).
    pub nic: Vec<u32>,
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
