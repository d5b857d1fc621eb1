//! The SSL servers' and the crypto adapter's wiring (ssl.rs holds their configuration, counters
//! and the adapter queue): a server request's CPU with its SSL work, a handshake's RSA operation
//! sent to the adapter and its end sent back to the server's queue, and the servers' summary.

use crate::entity::Entity;
use crate::io::IoReq;
use crate::sim::Sim;
use crate::ssl::*;
use crate::units::NONE;
use crate::vnet::CONT;
use crate::workload::Role;
use std::collections::BTreeMap;

impl Sim {
    /// Mean CPU (ns) of the piece of work server user `u` starts for queue entry `e`, with the
    /// SSL server's counters. A plain server's is its `cpu`.
    pub(crate) fn server_request_cpu(&mut self, u: usize, e: u32) -> f64 {
        let base = match self.users[u].program.role() {
            Some(Role::Server { cpu, .. }) => *cpu,
            _ => 0.0,
        };
        let Some(ssl) = self.ssl.as_mut() else {
            return base;
        };
        let Some(c) = ssl.conf[u].as_ref() else {
            return base;
        };
        if e & CONT != 0 {
            // The adapter's reply: take it and finish the handshake.
            return ssl.ap_request_ns * 0.5;
        }
        let (bytes, connect) = match self.vcpus.get(e as usize) {
            Some(vc) => match self.users[vc.user as usize].program.role() {
                Some(Role::Client { bytes, connect, .. }) => (*bytes, *connect),
                _ => (0, false),
            },
            None => (0, false),
        };
        let records = ((bytes as f64 / ssl.record_bytes).ceil() as u64).max(1);
        let k = &mut ssl.count[u];
        k.requests += 1;
        k.bytes += bytes;
        k.records += records;
        let mut cpu = base + records as f64 * c.record_ns + bytes as f64 * c.per_byte_ns;
        if connect {
            k.handshakes += 1;
            cpu += ssl.handshake_ns;
            if c.offload {
                k.offloaded += 1;
                cpu += ssl.ap_request_ns * 0.5;
            } else {
                cpu += ssl.rsa_ns;
            }
        }
        cpu
    }

    /// Server user `u`'s virtual CPU `v` finished the first part of entry `e`: if it is a
    /// handshake whose RSA operation goes to the crypto adapter, queue it there and return true
    /// (the request continues when the adapter is done).
    pub(crate) fn ssl_offload(&mut self, u: usize, v: u32, e: u32) -> bool {
        if e == NONE || e & CONT != 0 {
            return false;
        }
        let connect = matches!(
            self.vcpus
                .get(e as usize)
                .and_then(|vc| self.users[vc.user as usize].program.role()),
            Some(Role::Client { connect: true, .. })
        );
        let Some(ssl) = self.ssl.as_mut() else {
            return false;
        };
        if !connect || !ssl.conf[u].as_ref().is_some_and(|c| c.offload) {
            return false;
        }
        let r = IoReq {
            pages: 1,
            read: true,
            waiter: u as u32,
            queued: self.now,
            tag: e,
        };
        let cost = ssl.apvirt_cp;
        if let Some(t) = ssl.adapter.submit_xfer(self.now, r, ssl.rsa_service_ns) {
            self.q.schedule(Entity::Crypto, t);
        }
        self.vcpus[v as usize].cp_owed += cost;
        true
    }

    /// The crypto adapter finished an operation: the handshake's end goes back to its server.
    pub(crate) fn crypto_event(&mut self) {
        let now = self.now;
        let ssl = self.ssl.as_mut().expect("ssl");
        let r = ssl.adapter.complete(now);
        if let Some(t) = ssl.adapter.next_completion() {
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
        let mut ssl_users = BTreeMap::new();
        let mut crypto = None;
        if let Some(s) = self.ssl.as_ref() {
            for (u, c) in s.conf.iter().enumerate() {
                let Some(c) = c else { continue };
                let k = &s.count[u];
                let a = &self.users[u].acct;
                let cpu_us = (a.virt_ns + a.cp_ns) as f64 / 1e3;
                ssl_users.insert(
                    self.users[u].userid.clone(),
                    SslUser {
                        cipher: c.cipher.word(),
                        crypto_offload: c.offload,
                        requests: k.requests,
                        handshakes: k.handshakes,
                        handshakes_offloaded: k.offloaded,
                        bytes: k.bytes,
                        records: k.records,
                        cpu_us_per_request: cpu_us / k.requests.max(1) as f64,
                        cpu_us_per_connection: (k.handshakes > 0)
                            .then(|| cpu_us / k.handshakes as f64),
                    },
                );
            }
            if s.conf.iter().flatten().any(|c| c.offload) {
                let d = s.adapter.summary(dur);
                crypto = Some(CryptoSummary {
                    ops: d.stats.ios,
                    ops_per_s: d.io_rate,
                    service_ms: d.service_ms,
                    queue_ms: d.queue_ms,
                    util_pct: d.util_pct,
                    busy_ns: d.stats.busy_ns,
                    in_flight: (s.adapter.waiting.len() + s.adapter.active.len()) as u64,
                });
            }
        }
        Some(ServersSummary {
            transactions: tx,
            cpu_us_per_tx: per(virt + cp),
            virtual_us_per_tx: per(virt),
            cp_us_per_tx: per(cp),
            ssl: ssl_users,
            crypto,
        })
    }
}
