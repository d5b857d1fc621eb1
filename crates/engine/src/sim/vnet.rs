//! The virtual network's wiring (vnet.rs holds the message queues and counters): a client's
//! request sent to a server, a server's reply or forward, the CP path of each message charged to
//! the sender, and the cross-drawer sourcing of the receiver's buffers.

use crate::entity::Entity;
use crate::guest::VState;
use crate::queue::Time;
use crate::sim::Sim;
use crate::units::NONE;
use crate::vnet::*;
use crate::workload::Role;

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
            Some(Role::Server { .. }) if net.pieces_left(v) => self.vnet_server_next_piece(v, u),
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
        let cost = net.cost_msg();
        let full = net.send_request(v, srv, window);
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
        let mean = self.vnet.as_mut().expect("vnet").next_piece(v);
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
        let cost = net.cost_msg();
        let client = net.finish_request(v);
        if self.ssl_offload(u, v, client) {
            return;
        }
        self.vnet.as_mut().expect("vnet").count_message();
        self.vcpus[v as usize].cp_owed += cost;
        self.vnet_ndmbk(l);
        let net = self.vnet.as_mut().expect("vnet");
        if client == NONE {
            return;
        }
        let c = client & !CONT;
        if n_forward == 0 {
            net.count_served();
            let cu = self.vcpus[c as usize].user;
            self.vnet_source(l, v, cu);
            self.vnet_reply(c);
        } else {
            let k = net.next_rr(v, n_forward);
            net.count_forwarded();
            let to = self.forward_target(u, k);
            self.vnet_source(l, v, to);
            self.vnet_enqueue(to, c);
        }
    }

    /// Server virtual CPU `v` (of user `u`) on processor `l` takes the next queued request, if
    /// any: the CPU of its first piece (None: the queue is empty).
    #[inline]
    fn vnet_server_take_next(&mut self, l: u32, v: u32, u: usize) -> Option<Time> {
        let c = self.vnet.as_mut().expect("vnet").take_next(v, u, l)?;
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
            n.wait(v);
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
        self.vnet.as_mut().expect("vnet").split_request(u, v, mean)
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
        let r = net.nic(to);
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
        self.vnet.as_mut().expect("vnet").enqueue(srv, e);
        self.vnet_kick_server(srv);
    }

    /// A request was queued for server user `srv`: wake one of its waiting virtual CPUs.
    fn vnet_kick_server(&mut self, srv: u32) {
        let n = self.users[srv as usize].vcpus.len();
        for i in 0..n {
            let sv = self.users[srv as usize].vcpus[i];
            let net = self.vnet.as_mut().expect("vnet");
            if net.is_waiting(sv) {
                let home = self.vcpus[sv as usize].home;
                let Some(c) = net.hand_to_waiting(srv, sv, home) else {
                    return;
                };
                let u = srv as usize;
                if !matches!(self.users[u].program.role(), Some(Role::Server { .. })) {
                    return;
                }
                let cpu = self.server_pieces(u, sv, c);
                let vc = &mut self.vcpus[sv as usize];
                vc.remaining = self.users[u].program.draw_cpu(&mut vc.rng, cpu);
                // Its first piece references a page, as every piece of a request does: when it
                // is dispatched (`dispatch_next`).
                vc.touch_first = self.paging.is_some();
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
        let home = self.vcpus[c as usize].home;
        if self.vnet.as_mut().expect("vnet").reply_arrived(c, u, home) {
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
