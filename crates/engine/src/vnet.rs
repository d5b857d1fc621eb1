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
//! adapter are in `ssl`; a queue entry tagged `ssl::CONT` is a handshake's end coming back
//! from the adapter.

use crate::entity::Entity;
use crate::guest::VState;
use crate::queue::Time;
use crate::sim::Sim;
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
    fn next_rr(&mut self, v: u32, n: usize) -> usize {
        let k = self.rr[v as usize] as usize % n;
        self.rr[v as usize] = self.rr[v as usize].wrapping_add(1);
        k
    }
}

impl Sim {
    /// A client's or server's burst completed on processor `l`: send the request or the reply,
    /// then continue with the next piece of work or wait for a message.
    pub(crate) fn vnet_burst_done(&mut self, l: u32, v: u32) {
        let u = self.vcpus[v as usize].user as usize;
        // The role's fields are read in place (no copy of its server lists per burst).
        let role = self.users[u].program.role();
        let Some(net) = self.vnet.as_mut() else {
            return;
        };
        let next_work: Option<Time> = match role {
            Some(&Role::Client {
                cpu,
                window,
                ref servers,
                ..
            }) => {
                let k = net.next_rr(v, servers.len());
                let srv = servers[k];
                self.vnet_client_send(l, v, u, srv, window, cpu)
            }
            Some(Role::Server { .. }) if net.pieces[v as usize] > 0 => {
                self.vnet_server_next_piece(v, u)
            }
            Some(Role::Server { forward, .. }) => {
                let n_forward = forward.len();
                self.vnet_server_request_done(l, v, u, n_forward);
                self.vnet_server_take_next(l, v, u)
            }
            None => return,
        };
        match next_work {
            Some(work) => self.vnet_run_on(l, v, work),
            None => self.vnet_wait_message(l, v),
        }
    }

    /// Client virtual CPU `v` (of user `u`) on processor `l` sends its request to server user
    /// `srv` (CP time of the message, its NDMBK, the copy to the server's buffers) and wakes
    /// the server; with room in its `window` it starts its next request (mean CPU `cpu`),
    /// whose CPU is the result; None: the window is full.
    #[inline]
    fn vnet_client_send(
        &mut self,
        l: u32,
        v: u32,
        u: usize,
        srv: u32,
        window: u32,
        cpu: f64,
    ) -> Option<Time> {
        let net = self.vnet.as_mut().expect("vnet");
        let cost = net.cost_msg;
        net.outstanding[v as usize] += 1;
        net.messages += 1;
        let full = net.outstanding[v as usize] >= window;
        net.queue[srv as usize].push_back(v);
        self.vcpus[v as usize].cp_owed += cost;
        self.vnet_ndmbk(l);
        self.vnet_source(l, v, srv);
        self.vnet_kick_server(srv);
        if full {
            None
        } else {
            self.users[u].acct.tx_started += 1;
            self.resp.begin(v, self.now);
            let vc = &mut self.vcpus[v as usize];
            Some(self.users[u].program.draw_cpu(&mut vc.rng, cpu))
        }
    }

    /// Server virtual CPU `v` (of user `u`) goes on with the next piece of the same request
    /// (after its next page reference): that piece's CPU.
    #[inline]
    fn vnet_server_next_piece(&mut self, v: u32, u: usize) -> Option<Time> {
        let net = self.vnet.as_mut().expect("vnet");
        net.pieces[v as usize] -= 1;
        let mean = net.piece_cpu[v as usize];
        let vc = &mut self.vcpus[v as usize];
        Some(self.users[u].program.draw_cpu(&mut vc.rng, mean))
    }

    /// Server virtual CPU `v` (of user `u`) on processor `l` finished its request: it replies
    /// to the client, or passes the request on to the next server of its chain (one of
    /// `n_forward`, round robin); an SSL handshake's RSA operation goes to the crypto adapter
    /// instead (ssl.rs) and continues when the adapter is done.
    #[inline]
    fn vnet_server_request_done(&mut self, l: u32, v: u32, u: usize, n_forward: usize) {
        let net = self.vnet.as_mut().expect("vnet");
        let cost = net.cost_msg;
        let client = std::mem::replace(&mut net.serving[v as usize], NONE);
        if self.ssl_offload(u, v, client) {
            return;
        }
        let net = self.vnet.as_mut().expect("vnet");
        net.messages += 1;
        self.vcpus[v as usize].cp_owed += cost;
        self.vnet_ndmbk(l);
        let net = self.vnet.as_mut().expect("vnet");
        if client == NONE {
            return;
        }
        let c = client & !CONT;
        if n_forward == 0 {
            net.served += 1;
            let cu = self.vcpus[c as usize].user;
            self.vnet_source(l, v, cu);
            self.vnet_reply(c);
        } else {
            let k = net.next_rr(v, n_forward);
            net.forwarded += 1;
            let to = self.forward_target(u, k);
            self.vnet_source(l, v, to);
            self.vnet_enqueue(to, c);
        }
    }

    /// Server virtual CPU `v` (of user `u`) on processor `l` takes the next queued request, if
    /// any: the CPU of its first piece (None: the queue is empty).
    #[inline]
    fn vnet_server_take_next(&mut self, l: u32, v: u32, u: usize) -> Option<Time> {
        let net = self.vnet.as_mut().expect("vnet");
        let c = net.queue[u].pop_front()?;
        net.serving[v as usize] = c;
        net.nic[u] = l;
        let mean = self.server_pieces(u, v, c);
        let vc = &mut self.vcpus[v as usize];
        Some(self.users[u].program.draw_cpu(&mut vc.rng, mean))
    }

    /// `v` goes on with `work` ns of guest CPU on processor `l` (a guest with page references,
    /// such as a server's file cache, touches a page first); at the end of its time slice it
    /// gives the processor up.
    #[inline]
    fn vnet_run_on(&mut self, l: u32, v: u32, work: Time) {
        self.vcpus[v as usize].remaining = work;
        if self.paging.is_some() && self.page_touch(l, v) {
            return;
        }
        let vc = &mut self.vcpus[v as usize];
        if vc.slice_left > 0 {
            self.continue_run(l, v);
        } else {
            self.slice_end(l, v);
        }
    }

    /// `v` waits for a message (a client with a full window, an idle server): it leaves
    /// processor `l` dormant with no timer.
    #[inline]
    fn vnet_wait_message(&mut self, l: u32, v: u32) {
        self.q.cancel(Entity::Vcpu(v));
        if let Some(n) = self.vnet.as_mut() {
            n.waiting[v as usize] = true;
        }
        self.release_for_wait(l, v, VState::Dormant);
        self.dispatch_next(l);
    }

    /// Server user `u`'s `k`-th forwarding target.
    fn forward_target(&self, u: usize, k: usize) -> u32 {
        match self.users[u].program.role() {
            Some(Role::Server { forward, .. }) => forward[k],
            _ => unreachable!("forwarding from a user that is not a server"),
        }
    }

    /// A server virtual CPU `v` of user `u` takes request `c`: its CPU split into the user's
    /// page references per request (row D8); returns the mean CPU of the first piece.
    fn server_pieces(&mut self, u: usize, v: u32, c: u32) -> f64 {
        let mean = self.server_request_cpu(u, c);
        let net = self.vnet.as_mut().expect("vnet");
        let n = net.touches.get(u).copied().unwrap_or(1).max(1);
        net.pieces[v as usize] = n - 1;
        net.piece_cpu[v as usize] = mean / n as f64;
        mean / n as f64
    }

    /// The NDMBK a message on processor `l` uses (crate::locks::Locks::ndmbk): spin and line
    /// time beyond the message path, system time on `l`.
    fn vnet_ndmbk(&mut self, l: u32) {
        let rate = self.lpus[l as usize].rate;
        let wall = self.locks.ndmbk(l, self.now, rate);
        if wall > 0 {
            self.lpus[l as usize].sys_owed += crate::cpu::slice_work(wall, rate);
        }
    }

    /// A message from virtual CPU `v` on processor `l` to user `to`: CP writes the data into the
    /// receiver's buffers, last touched where `to` last took a message, and pays the sourcing
    /// cycles of that distance (`cpi.msg_*`, cpu.rs) as chargeable CP time of the sender.
    fn vnet_source(&mut self, l: u32, v: u32, to: u32) {
        let Some(net) = self.vnet.as_ref() else {
            return;
        };
        let r = net.nic[to as usize];
        if r == NONE {
            return;
        }
        let k = self.cpu.topo.distance(l, r);
        self.cpu.msg_dist[k] += 1;
        // Stall cycles at the sender's core: as nominal work at its speed factor.
        let f =
            self.cpu.topo.factor[crate::cpu::core_index(l, self.cpu.topo.cores.max(1)) as usize];
        let extra = crate::units::round_ns(self.cpu.reload_ns[k] as f64 * f);
        if extra > 0 {
            self.vcpus[v as usize].cp_stall += extra;
            self.cpu.reload_charged += extra;
        }
    }

    /// Queue entry `e` (a client virtual CPU, maybe tagged) for server user `srv`.
    pub(crate) fn vnet_enqueue(&mut self, srv: u32, e: u32) {
        let net = self.vnet.as_mut().expect("vnet");
        net.queue[srv as usize].push_back(e);
        self.vnet_kick_server(srv);
    }

    /// A request was queued for server user `srv`: wake one of its waiting virtual CPUs.
    fn vnet_kick_server(&mut self, srv: u32) {
        let n = self.users[srv as usize].vcpus.len();
        for i in 0..n {
            let sv = self.users[srv as usize].vcpus[i];
            let net = self.vnet.as_mut().expect("vnet");
            if net.waiting[sv as usize] {
                let Some(c) = net.queue[srv as usize].pop_front() else {
                    return;
                };
                net.serving[sv as usize] = c;
                net.waiting[sv as usize] = false;
                let u = srv as usize;
                net.nic[u] = self.vcpus[sv as usize].home;
                if !matches!(self.users[u].program.role(), Some(Role::Server { .. })) {
                    return;
                }
                let cpu = self.server_pieces(u, sv, c);
                let vc = &mut self.vcpus[sv as usize];
                vc.remaining = self.users[u].program.draw_cpu(&mut vc.rng, cpu);
                self.vcpu_runnable(sv);
                return;
            }
        }
    }

    /// The reply to client virtual CPU `c` arrived: one transaction completes.
    fn vnet_reply(&mut self, c: u32) {
        let u = self.vcpus[c as usize].user as usize;
        self.users[u].acct.tx_done += 1;
        self.tx_end(c);
        let net = self.vnet.as_mut().expect("vnet");
        net.nic[u] = self.vcpus[c as usize].home;
        net.outstanding[c as usize] -= 1;
        if net.waiting[c as usize] {
            net.waiting[c as usize] = false;
            let cpu = match self.users[u].program.role() {
                Some(Role::Client { cpu, .. }) => *cpu,
                _ => return,
            };
            let vc = &mut self.vcpus[c as usize];
            vc.remaining = self.users[u].program.draw_cpu(&mut vc.rng, cpu);
            self.users[u].acct.tx_started += 1;
            self.tx_begin(c);
            self.vcpu_runnable(c);
        }
    }
}
