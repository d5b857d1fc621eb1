//! The SSL servers' and the crypto adapter's wiring (ssl.rs holds their configuration, counters
//! and the adapter queue): a server request's CPU with its SSL work, a handshake's RSA operation
//! sent to the adapter and its end sent back to the server's queue, and the servers' summary.

use crate::entity::Entity;
use crate::sim::Sim;
use crate::ssl::*;
use crate::units::NONE;
use crate::vnet::CONT;
use crate::workload::Role;

impl Sim {
    /// The client's payload bytes and whether its request opens a connection, for queue entry
    /// `e` (a client virtual CPU; anything else: no payload, no connection).
    fn client_request(&self, e: u32) -> (u64, bool) {
        match self.vcpus.get(e as usize) {
            Some(vc) => match self.users[vc.user as usize].program.role() {
                Some(Role::Client { bytes, connect, .. }) => (*bytes, *connect),
                _ => (0, false),
            },
            None => (0, false),
        }
    }

    /// Mean CPU (ns) of the piece of work server user `u` starts for queue entry `e`, with the
    /// SSL server's counters. A plain server's is its `cpu`.
    pub(crate) fn server_request_cpu(&mut self, u: usize, e: u32) -> f64 {
        let base = match self.users[u].program.role() {
            Some(Role::Server { cpu, .. }) => *cpu,
            _ => 0.0,
        };
        if self.ssl.is_none() {
            return base;
        }
        let client = self.client_request(e);
        let ssl = self.ssl.as_mut().expect("ssl");
        ssl.request_cpu(u, base, e, client)
    }

    /// Server user `u`'s virtual CPU `v` finished the first part of entry `e`: if it is a
    /// handshake whose RSA operation goes to the crypto adapter, queue it there and return true
    /// (the request continues when the adapter is done).
    pub(crate) fn ssl_offload(&mut self, u: usize, v: u32, e: u32) -> bool {
        if e == NONE || e & CONT != 0 || !self.client_request(e).1 {
            return false;
        }
        let now = self.now;
        let Some((cost, done)) = self.ssl.as_mut().and_then(|s| s.offload(u, e, now)) else {
            return false;
        };
        if let Some(t) = done {
            self.q.schedule(Entity::Crypto, t);
        }
        self.vcpus[v as usize].cp_owed += cost;
        true
    }

    /// The crypto adapter finished an operation: the handshake's end goes back to its server.
    pub(crate) fn crypto_event(&mut self) {
        let (r, next) = self.ssl.as_mut().expect("ssl").adapter_done(self.now);
        if let Some(t) = next {
            self.q.schedule(Entity::Crypto, t);
        }
        let Some(r) = r else { return };
        self.vnet_enqueue(r.waiter, r.tag | CONT);
    }

    pub fn servers_summary(&self) -> Option<ServersSummary> {
        self.vnet.as_ref()?;
        let dur = self.now.max(1) as f64;
        let mut virt = 0u64;
        let mut cp = 0u64;
        let mut tx = 0u64;
        for u in &self.users {
            match u.program.role() {
                Some(Role::Server { .. }) => {
                    virt += u.acct.virt_ns;
                    cp += u.acct.cp_ns;
                }
                Some(Role::Client { .. }) => tx += u.acct.tx_done,
                None => {}
            }
        }
        let per = |x: u64| x as f64 / 1e3 / tx.max(1) as f64;
        let (ssl, crypto) = match self.ssl.as_ref() {
            Some(s) => s.summary(&self.users, dur),
            None => (Default::default(), None),
        };
        Some(ServersSummary {
            transactions: tx,
            cpu_us_per_tx: per(virt + cp),
            virtual_us_per_tx: per(virt),
            cp_us_per_tx: per(cp),
            ssl,
            crypto,
        })
    }
}
