//! The TLS/SSL server virtual machine and the crypto adapter (issue 6, rows E5-E7), and the
//! CPU per transaction of server chains (RSCS TCPNJE, row E6).
//!
//! z/VM's SSL server is a guest between TCP/IP and the applications (Telnet sessions in CMS
//! users, RSCS TCPNJE links): it runs the TLS handshake of each new connection and enciphers
//! and deciphers every byte of the established ones. Here it is a server of the virtual network
//! (`vnet`) whose CPU per request is built from mechanisms:
//!
//! - a request of `bytes` is cut into TLS records of at most `ssl.record_bytes`; each record
//!   costs the server's record path (`ssl.path_record_v21` or `_v22`: the level's SSL server),
//! - each byte costs the cipher suite's work: AES rounds (14 for AES-256, 10 for AES-128) times
//!   `ssl.aes_cycles_per_byte_round` plus the record MAC (`ssl.sha1_cycles_per_byte` for the
//!   TLS 1.0 suite RSA_AES_256, `ssl.sha256_cycles_per_byte` for TLS 1.2 RSA_AES_128_SHA256);
//!   the suite is the level's default (`ssl_cipher`) unless the workload names one,
//! - a request that opens a connection (a client with `connect = true`) costs a full handshake
//!   (`ssl.path_handshake`) and the RSA private-key operation (`ssl.path_rsa_private`).
//!
//! With CRYPTO APVIRT (the guest's `crypto = "apvirt"` and a level with PI72106, switch
//! `ssl_apvirt`) the RSA operation goes to a shared crypto adapter instead: the server builds an
//! AP request (`ssl.path_ap_request`), CP simulates the virtual AP queue (`crypto.path_apvirt_cp`,
//! chargeable CP time of the server), and the adapter, a FIFO queue with its own service time
//! (`crypto.rsa_service_us`), works while the server takes other requests. The adapter's
//! completion comes back to the server as a queued piece of work (the handshake's end), after
//! which the request goes on as any other (forwarded, or replied to).
//!
//! The CPU figures a server chain's transactions cost (summed over every server guest: RSCS,
//! TCP/IP, the SSL server) are in the `servers` section of the summary.

use crate::config::{Config, Workload};
use crate::contract::Crypto;
use crate::io::{DevType, Device, IoReq, Service};
use crate::level::{SslApvirt, SslCipher, SslServer, Switches};
use crate::params::Params;
use crate::queue::Time;
use crate::rng::Rng;
use crate::units::path_ns;
use serde::Serialize;
use std::collections::BTreeMap;

pub use crate::vnet::CONT;

/// One SSL server guest's configuration and costs (ns at nominal speed).
#[derive(Clone, Debug)]
pub struct SslConf {
    pub cipher: SslCipher,
    /// The RSA operation goes to the crypto adapter.
    pub offload: bool,
    pub per_byte_ns: f64,
    pub record_ns: f64,
}

/// Cipher work per byte of a suite (ns at nominal speed).
pub fn cipher_ns_per_byte(p: &Params, c: SslCipher) -> f64 {
    let cycles = match c {
        SslCipher::RsaAes256 => 14.0 * p.ssl_aes_cpb_round() + p.ssl_sha1_cpb(),
        SslCipher::RsaAes128Sha256 => 10.0 * p.ssl_aes_cpb_round() + p.ssl_sha256_cpb(),
    };
    cycles / p.clock_ghz()
}

/// Per-user counters of SSL servers.
#[derive(Clone, Debug, Default)]
pub struct SslCount {
    pub requests: u64,
    pub handshakes: u64,
    pub offloaded: u64,
    pub bytes: u64,
    pub records: u64,
}

pub struct Ssl {
    /// Per user: the SSL server's configuration (None: not an SSL server).
    conf: Vec<Option<SslConf>>,
    count: Vec<SslCount>,
    record_bytes: f64,
    handshake_ns: f64,
    rsa_ns: f64,
    ap_request_ns: f64,
    /// CP time of one AP request under APVIRT.
    apvirt_cp: crate::queue::Time,
    /// The shared crypto adapter (a queue served one operation at a time).
    adapter: Device,
    rsa_service_ns: f64,
}

/// An SSL server's figures.
#[derive(Clone, Debug, Serialize)]
pub struct SslUser {
    pub cipher: &'static str,
    pub crypto_offload: bool,
    pub requests: u64,
    pub handshakes: u64,
    pub handshakes_offloaded: u64,
    pub bytes: u64,
    pub records: u64,
    /// The server's CPU (virtual + CP) per request it took, and per new connection.
    pub cpu_us_per_request: f64,
    /// None when it took no new connection.
    pub cpu_us_per_connection: Option<f64>,
}

/// The crypto adapter's figures.
#[derive(Clone, Debug, Serialize)]
pub struct CryptoSummary {
    pub ops: u64,
    pub ops_per_s: f64,
    pub service_ms: f64,
    pub queue_ms: f64,
    pub util_pct: f64,
    pub busy_ns: u64,
    /// Operations queued or in service at the end of the run.
    pub in_flight: u64,
}

/// Server chains: CPU per client transaction summed over every server guest.
#[derive(Clone, Debug, Serialize)]
pub struct ServersSummary {
    pub transactions: u64,
    pub cpu_us_per_tx: f64,
    pub virtual_us_per_tx: f64,
    pub cp_us_per_tx: f64,
    pub ssl: BTreeMap<String, SslUser>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crypto: Option<CryptoSummary>,
}

impl Ssl {
    /// The SSL model of a scenario, or None when no guest is an SSL server.
    pub fn new(cfg: &Config, p: &Params, sw: &Switches, seed: u64) -> Option<Ssl> {
        let mut conf = Vec::new();
        for g in &cfg.guests {
            let c = match &g.workload {
                Workload::SslServer { cipher, crypto, .. } => {
                    let cipher = cipher.unwrap_or(sw.ssl_cipher);
                    let record = match sw.ssl_server {
                        SslServer::V21 => p.ssl_path_record_v21(),
                        SslServer::V22 => p.ssl_path_record_v22(),
                    };
                    Some(SslConf {
                        cipher,
                        offload: *crypto == Some(Crypto::Apvirt) && sw.ssl_apvirt == SslApvirt::On,
                        per_byte_ns: cipher_ns_per_byte(p, cipher),
                        record_ns: path_ns(p, record, 0.0) as f64,
                    })
                }
                _ => None,
            };
            conf.extend((0..g.count).map(|_| c.clone()));
        }
        if conf.iter().all(|c| c.is_none()) {
            return None;
        }
        let n = conf.len();
        Some(Ssl {
            conf,
            count: vec![SslCount::default(); n],
            record_bytes: p.ssl_record_bytes().max(1.0),
            handshake_ns: path_ns(p, p.ssl_path_handshake(), 0.0) as f64,
            rsa_ns: path_ns(p, p.ssl_path_rsa(), 0.0) as f64,
            ap_request_ns: path_ns(p, p.ssl_path_ap_request(), 0.0) as f64,
            apvirt_cp: path_ns(p, p.crypto_path_apvirt(), 0.0),
            adapter: Device::new(
                "CRYPTO".into(),
                DevType::Eckd,
                1,
                Service {
                    pend: 0.0,
                    disconnect: 0.0,
                    connect_per_page: 0.0,
                },
                0,
                Rng::stream(seed, 970_000),
            ),
            rsa_service_ns: p.crypto_rsa_us() * 1e3,
        })
    }
}

impl Ssl {
    /// The CPU (ns) of the piece of work server user `u` starts for queue entry `e`, given its
    /// plain server CPU `base` and the requesting client's payload bytes and whether the request
    /// opens a connection (`client`), with the SSL server's counters. A plain server's is `base`.
    pub fn request_cpu(&mut self, u: usize, base: f64, e: u32, client: (u64, bool)) -> f64 {
        let Some(c) = self.conf[u].as_ref() else {
            return base;
        };
        if e & CONT != 0 {
            // The adapter's reply: take it and finish the handshake.
            return self.ap_request_ns * 0.5;
        }
        let (bytes, connect) = client;
        let records = ((bytes as f64 / self.record_bytes).ceil() as u64).max(1);
        let k = &mut self.count[u];
        k.requests += 1;
        k.bytes += bytes;
        k.records += records;
        let mut cpu = base + records as f64 * c.record_ns + bytes as f64 * c.per_byte_ns;
        if connect {
            k.handshakes += 1;
            cpu += self.handshake_ns;
            if c.offload {
                k.offloaded += 1;
                cpu += self.ap_request_ns * 0.5;
            } else {
                cpu += self.rsa_ns;
            }
        }
        cpu
    }

    /// A new connection's handshake for queue entry `e` at server user `u`, at `now`: if the
    /// server offloads its RSA operation, it goes to the crypto adapter. Returns the CP time of
    /// the AP request and when the adapter finishes (if it starts at once); None when `u` does
    /// not offload.
    pub fn offload(&mut self, u: usize, e: u32, now: Time) -> Option<(Time, Option<Time>)> {
        if !self.conf[u].as_ref().is_some_and(|c| c.offload) {
            return None;
        }
        let r = IoReq {
            pages: 1,
            read: true,
            waiter: u as u32,
            queued: now,
            tag: e,
        };
        let done = self.adapter.submit_xfer(now, r, self.rsa_service_ns);
        Some((self.apvirt_cp, done))
    }

    /// The crypto adapter's operation that ends at `now`, and when its next one ends.
    pub fn adapter_done(&mut self, now: Time) -> (Option<IoReq>, Option<Time>) {
        let r = self.adapter.complete(now);
        (r, self.adapter.next_completion())
    }

    /// Each SSL server's figures (by userid) and the crypto adapter's, over `dur` ns.
    pub fn summary(
        &self,
        users: &[crate::guest::User],
        dur: f64,
    ) -> (BTreeMap<String, SslUser>, Option<CryptoSummary>) {
        let mut ssl_users = BTreeMap::new();
        for (u, c) in self.conf.iter().enumerate() {
            let Some(c) = c else { continue };
            let k = &self.count[u];
            let a = &users[u].acct;
            let cpu_us = (a.virt_ns + a.cp_ns) as f64 / 1e3;
            ssl_users.insert(
                users[u].userid.clone(),
                SslUser {
                    cipher: c.cipher.word(),
                    crypto_offload: c.offload,
                    requests: k.requests,
                    handshakes: k.handshakes,
                    handshakes_offloaded: k.offloaded,
                    bytes: k.bytes,
                    records: k.records,
                    cpu_us_per_request: cpu_us / k.requests.max(1) as f64,
                    cpu_us_per_connection: (k.handshakes > 0).then(|| cpu_us / k.handshakes as f64),
                },
            );
        }
        let mut crypto = None;
        if self.conf.iter().flatten().any(|c| c.offload) {
            let d = self.adapter.summary(dur);
            crypto = Some(CryptoSummary {
                ops: d.stats.ios,
                ops_per_s: d.io_rate,
                service_ms: d.service_ms,
                queue_ms: d.queue_ms,
                util_pct: d.util_pct,
                busy_ns: d.stats.busy_ns,
                in_flight: (self.adapter.waiting.len() + self.adapter.active.len()) as u64,
            });
        }
        (ssl_users, crypto)
    }
}
