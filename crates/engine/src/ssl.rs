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

#[cfg(test)]
mod tests {
    //! Unit tests of the SSL server's costs, counters and the crypto adapter against
    //! hand-computed values. Every configuration runs at one instruction per nanosecond (clock
    //! 1 GHz, CP CPI 1), so a path of N instructions costs N ns: record path 1000 (V2.1) or 2000
    //! (V2.2), handshake 50000, RSA 200000, AP request 10000 (half when it is sent, half when the
    //! reply is taken), CP's APVIRT simulation 3000; records of at most 1000 bytes; AES 0.5
    //! cycles per byte per round, SHA-1 3, SHA-256 1 cycles per byte, so RSA_AES_256 costs
    //! 14 x 0.5 + 3 = 10 ns per byte and RSA_AES_128_SHA256 10 x 0.5 + 1 = 6 ns per byte; the
    //! adapter serves one RSA operation in 100 us.

    use super::*;
    use crate::level::{SslApvirt, SslCipher, SslServer, Switches};
    use proptest::prelude::*;

    const US: Time = 1_000;

    fn params() -> Params {
        Params {
            clock_ghz: 1.0,
            cpi_cp: 1.0,
            ssl_path_record_v21: 1000.0,
            ssl_path_record_v22: 2000.0,
            ssl_path_handshake: 50_000.0,
            ssl_path_rsa: 200_000.0,
            ssl_path_ap_request: 10_000.0,
            crypto_path_apvirt: 3000.0,
            crypto_rsa_us: 100.0,
            ssl_record_bytes: 1000.0,
            ssl_aes_cpb_round: 0.5,
            ssl_sha1_cpb: 3.0,
            ssl_sha256_cpb: 1.0,
            ..Params::default()
        }
    }

    /// V2.1 server, TLS 1.0 RSA_AES_256 by default, APVIRT `apvirt`.
    fn switches(server: SslServer, apvirt: SslApvirt) -> Switches {
        let mut sw = crate::level::levels().remove(0).switches;
        sw.ssl_server = server;
        sw.ssl_cipher = SslCipher::RsaAes256;
        sw.ssl_apvirt = apvirt;
        sw
    }

    fn config(guests: serde_json::Value) -> Config {
        serde_json::from_value(serde_json::json!({
            "level": "zvm-6.4", "processors": 1, "duration_ns": 1_000_000_000u64,
            "interval_ns": 1_000_000_000u64, "guests": guests,
        }))
        .expect("config")
    }

    fn ssl_guest(id: &str, extra: serde_json::Value) -> serde_json::Value {
        let mut w = serde_json::json!({"kind": "ssl-server", "cpu_ns": 5000});
        for (k, v) in extra.as_object().expect("object") {
            w[k] = v.clone();
        }
        serde_json::json!({"userid": id, "workload": w})
    }

    fn plain_guest(id: &str) -> serde_json::Value {
        serde_json::json!({"userid": id, "workload": {"kind": "server", "cpu_ns": 5000}})
    }

    /// One SSL server (user 0) with workload fields `extra`, under switches `sw`.
    fn one(extra: serde_json::Value, sw: &Switches) -> Ssl {
        Ssl::new(
            &config(serde_json::json!([ssl_guest("SSL", extra)])),
            &params(),
            sw,
            1,
        )
        .expect("ssl")
    }

    fn v21() -> Switches {
        switches(SslServer::V21, SslApvirt::Off)
    }

    fn apvirt_on() -> Switches {
        switches(SslServer::V21, SslApvirt::On)
    }

    fn user(id: &str, virt_ns: u64, cp_ns: u64) -> crate::guest::User {
        let mut u = crate::scheduler::tests::user(crate::config::Share::default(), vec![0]);
        u.userid = id.into();
        u.acct.virt_ns = virt_ns;
        u.acct.cp_ns = cp_ns;
        u
    }

    #[test]
    fn cipher_cost_per_byte_by_suite() {
        let p = params();
        assert_eq!(cipher_ns_per_byte(&p, SslCipher::RsaAes256), 10.0); // 14 x 0.5 + 3
        assert_eq!(cipher_ns_per_byte(&p, SslCipher::RsaAes128Sha256), 6.0); // 10 x 0.5 + 1
        let p2 = Params {
            clock_ghz: 2.0,
            ..params()
        };
        assert_eq!(cipher_ns_per_byte(&p2, SslCipher::RsaAes256), 5.0); // 10 cycles / 2 GHz
    }

    #[test]
    fn no_ssl_model_without_an_ssl_server() {
        let cfg = config(serde_json::json!([plain_guest("WEB")]));
        assert!(Ssl::new(&cfg, &params(), &v21(), 1).is_none());
    }

    /// 2500 bytes: ceil(2500 / 1000) = 3 records; 5000 + 3 x 1000 + 2500 x 10 = 33000 ns.
    #[test]
    fn request_cpu_is_base_records_and_bytes() {
        let mut s = one(serde_json::json!({}), &v21());
        assert_eq!(s.request_cpu(0, 5000.0, 7, (2500, false)), 33_000.0);
        let k = &s.count[0];
        assert_eq!((k.requests, k.bytes, k.records), (1, 2500, 3));
        assert_eq!((k.handshakes, k.offloaded), (0, 0));
    }

    /// Record boundaries: 1000 bytes is 1 record, 1001 is 2, 2000 is 2; 0 bytes still 1.
    #[test]
    fn records_are_the_ceiling_and_at_least_one() {
        let mut s = one(serde_json::json!({}), &v21());
        // 0 + 1 x 1000 + 1000 x 10 = 11000
        assert_eq!(s.request_cpu(0, 0.0, 0, (1000, false)), 11_000.0);
        // 2 x 1000 + 1001 x 10 = 12010
        assert_eq!(s.request_cpu(0, 0.0, 0, (1001, false)), 12_010.0);
        // 2 x 1000 + 2000 x 10 = 22000
        assert_eq!(s.request_cpu(0, 0.0, 0, (2000, false)), 22_000.0);
        // 1 x 1000 + 0
        assert_eq!(s.request_cpu(0, 0.0, 0, (0, false)), 1000.0);
        let k = &s.count[0];
        assert_eq!(k.records, 6); // 1 + 2 + 2 + 1
        assert_eq!(k.bytes, 4001); // 1000 + 1001 + 2000 + 0
        assert_eq!(k.requests, 4);
    }

    /// The V2.2 server's record path (2000) and the workload's cipher over the level's
    /// default: 500 bytes, 1 record: 5000 + 2000 + 500 x 6 = 10000.
    #[test]
    fn server_level_and_cipher_override() {
        let sw = switches(SslServer::V22, SslApvirt::Off);
        let mut s = one(serde_json::json!({"cipher": "rsa-aes128-sha256"}), &sw);
        assert_eq!(s.request_cpu(0, 5000.0, 0, (500, false)), 10_000.0);
        // The level's default (RSA_AES_256) without the override: 5000 + 2000 + 500 x 10.
        let mut s = one(serde_json::json!({}), &sw);
        assert_eq!(s.request_cpu(0, 5000.0, 0, (500, false)), 12_000.0);
        // The default follows the switch.
        let mut sw2 = sw.clone();
        sw2.ssl_cipher = SslCipher::RsaAes128Sha256;
        let mut s = one(serde_json::json!({}), &sw2);
        assert_eq!(s.request_cpu(0, 5000.0, 0, (500, false)), 10_000.0);
    }

    /// A new connection without the adapter: + handshake 50000 + RSA 200000.
    /// 100 bytes: 5000 + 1000 + 1000 + 50000 + 200000 = 257000.
    #[test]
    fn a_new_connection_costs_the_handshake_and_the_rsa_operation() {
        let mut s = one(serde_json::json!({}), &v21());
        assert_eq!(s.request_cpu(0, 5000.0, 0, (100, true)), 257_000.0);
        let k = &s.count[0];
        assert_eq!((k.requests, k.handshakes, k.offloaded), (1, 1, 0));
        assert!(s.offload(0, 0, 0).is_none());
    }

    /// CRYPTO APVIRT needs both the directory statement and the level's support (PI72106).
    #[test]
    fn offload_needs_the_statement_and_the_level() {
        // Statement, no support: RSA on the server.
        let mut s = one(serde_json::json!({"crypto": "apvirt"}), &v21());
        assert_eq!(s.request_cpu(0, 5000.0, 0, (100, true)), 257_000.0);
        assert!(s.offload(0, 0, 0).is_none());
        // Support, no statement: the same.
        let mut s = one(serde_json::json!({}), &apvirt_on());
        assert_eq!(s.request_cpu(0, 5000.0, 0, (100, true)), 257_000.0);
        assert!(s.offload(0, 0, 0).is_none());
        assert_eq!(s.count[0].offloaded, 0);
    }

    /// With the adapter: the server pays the handshake and half the AP request instead of the
    /// RSA operation: 5000 + 1000 + 1000 + 50000 + 5000 = 62000; offloading it costs CP 3000
    /// and the adapter ends at now + 100 us; the reply (CONT) costs the other 5000.
    #[test]
    fn offloaded_handshake_costs_and_adapter_round_trip() {
        // User 0 a plain server, user 1 the SSL server.
        let cfg = config(serde_json::json!([
            plain_guest("TCPIP"),
            ssl_guest("SSL", serde_json::json!({"crypto": "apvirt"}))
        ]));
        let mut s = Ssl::new(&cfg, &params(), &apvirt_on(), 1).expect("ssl");
        assert_eq!(s.request_cpu(1, 5000.0, 4, (100, true)), 62_000.0);
        let k = &s.count[1];
        assert_eq!((k.requests, k.handshakes, k.offloaded), (1, 1, 1));
        assert_eq!(s.offload(1, 4, 7 * US), Some((3000, Some(107 * US))));
        let (r, next) = s.adapter_done(107 * US);
        let r = r.expect("operation");
        assert_eq!((r.waiter, r.tag), (1, 4)); // back to server user 1, client entry 4
        assert_eq!(next, None);
        // The handshake's end: half the AP request, no counter moves.
        assert_eq!(s.request_cpu(1, 5000.0, 4 | CONT, (100, true)), 5000.0);
        let k = &s.count[1];
        assert_eq!(
            (k.requests, k.handshakes, k.offloaded, k.records),
            (1, 1, 1, 1)
        );
    }

    /// A plain server beside an SSL server: its CPU is its base, no counter moves.
    #[test]
    fn a_plain_server_costs_its_base() {
        let cfg = config(serde_json::json!([
            plain_guest("TCPIP"),
            ssl_guest("SSL", serde_json::json!({}))
        ]));
        let mut s = Ssl::new(&cfg, &params(), &v21(), 1).expect("ssl");
        assert_eq!(s.request_cpu(0, 4321.0, 0, (5000, true)), 4321.0);
        assert_eq!(s.count[0].requests, 0);
        assert!(s.offload(0, 0, 0).is_none());
        // The SSL server is user 1: 0 + 1 x 1000 + 10 x 10 = 1100.
        assert_eq!(s.request_cpu(1, 0.0, 0, (10, false)), 1100.0);
        assert_eq!(s.count[1].requests, 1);
    }

    /// A guest with count 2 is two users with their own counters.
    #[test]
    fn counted_guests_are_separate_users() {
        let mut g = ssl_guest("SSL", serde_json::json!({}));
        g["count"] = serde_json::json!(2);
        let cfg = config(serde_json::json!([plain_guest("A"), g]));
        let mut s = Ssl::new(&cfg, &params(), &v21(), 1).expect("ssl");
        assert_eq!(s.conf.len(), 3);
        assert!(s.conf[0].is_none() && s.conf[1].is_some() && s.conf[2].is_some());
        s.request_cpu(2, 0.0, 0, (10, false));
        assert_eq!((s.count[1].requests, s.count[2].requests), (0, 1));
    }

    /// The adapter is a FIFO queue served one operation at a time: operations at 0, 10 and
    /// 20 us of 100 us each end at 100, 200 and 300 us, in that order; their queue times are
    /// 0, 90 and 180 us (mean 90 us = 0.09 ms); over 400 us the adapter was busy 300 us (75 %),
    /// 3 operations = 7500 per second.
    #[test]
    fn the_adapter_is_a_fifo_queue() {
        let mut s = one(serde_json::json!({"crypto": "apvirt"}), &apvirt_on());
        assert_eq!(s.offload(0, 11, 0), Some((3000, Some(100 * US))));
        assert_eq!(s.offload(0, 12, 10 * US), Some((3000, None)));
        assert_eq!(s.offload(0, 13, 20 * US), Some((3000, None)));
        let users = [user("SSL", 0, 0)];
        let c = s.summary(&users, (50 * US) as f64).1.expect("crypto");
        assert_eq!(c.in_flight, 3); // 1 in service + 2 queued
        let (r, next) = s.adapter_done(100 * US);
        assert_eq!(r.expect("op").tag, 11);
        assert_eq!(next, Some(200 * US));
        let (r, next) = s.adapter_done(200 * US);
        assert_eq!(r.expect("op").tag, 12);
        assert_eq!(next, Some(300 * US));
        let (r, next) = s.adapter_done(300 * US);
        assert_eq!(r.expect("op").tag, 13);
        assert_eq!(next, None);
        let c = s.summary(&users, (400 * US) as f64).1.expect("crypto");
        assert_eq!(c.ops, 3);
        assert_eq!(c.busy_ns, 300 * US);
        assert!((c.util_pct - 75.0).abs() < 1e-9); // 300 / 400
        assert!((c.service_ms - 0.1).abs() < 1e-12); // 300 us / 3
        assert!((c.queue_ms - 0.09).abs() < 1e-12); // (0 + 90 + 180) / 3 us
        assert!((c.ops_per_s - 7500.0).abs() < 1e-6); // 3 / 400 us
        assert_eq!(c.in_flight, 0);
    }

    /// Busy time after the end of the run is not the run's: one operation started at 0
    /// (100 us), the run ends at 50 us: busy all of it, 100 %.
    #[test]
    fn utilisation_stops_at_the_end_of_the_run() {
        let mut s = one(serde_json::json!({"crypto": "apvirt"}), &apvirt_on());
        s.offload(0, 1, 0);
        let users = [user("SSL", 0, 0)];
        let c = s.summary(&users, (50 * US) as f64).1.expect("crypto");
        assert!((c.util_pct - 100.0).abs() < 1e-9); // (100 - 50) us after the end removed
        assert_eq!(c.in_flight, 1);
        // Counted when it starts, as a device's I/Os (io.rs).
        assert_eq!(c.ops, 1);
    }

    /// The server's figures: CPU 300 us virtual + 100 us CP over 4 requests = 100 us each,
    /// over 2 connections = 200 us each; counters as counted.
    #[test]
    fn summary_per_server() {
        let mut s = one(serde_json::json!({"crypto": "apvirt"}), &apvirt_on());
        s.request_cpu(0, 0.0, 0, (1500, true)); // 2 records
        s.request_cpu(0, 0.0, 0, (10, true)); // 1 record
        s.request_cpu(0, 0.0, CONT, (10, true)); // the handshake's end: not counted
        s.request_cpu(0, 0.0, 0, (0, false)); // 1 record
        s.request_cpu(0, 0.0, 0, (3000, false)); // 3 records
        let users = [user("SSL", 300 * US, 100 * US)];
        let (m, crypto) = s.summary(&users, 1e9);
        let u = &m["SSL"];
        assert_eq!(u.cipher, "rsa-aes256");
        assert!(u.crypto_offload);
        assert_eq!(u.requests, 4);
        assert_eq!(u.handshakes, 2);
        assert_eq!(u.handshakes_offloaded, 2);
        assert_eq!(u.bytes, 4510); // 1500 + 10 + 0 + 3000
        assert_eq!(u.records, 7); // 2 + 1 + 1 + 3
        assert_eq!(u.cpu_us_per_request, 100.0); // 400 / 4
        assert_eq!(u.cpu_us_per_connection, Some(200.0)); // 400 / 2
        let c = crypto.expect("an offloading server has the adapter's figures");
        assert_eq!(c.ops, 0); // nothing was sent to it here
    }

    /// No connection: no per-connection figure; no request: the CPU over one; no offloading
    /// server: no adapter figures.
    #[test]
    fn summary_without_connections_or_adapter() {
        let cfg = config(serde_json::json!([
            plain_guest("TCPIP"),
            ssl_guest("SSL", serde_json::json!({}))
        ]));
        let mut s = Ssl::new(&cfg, &params(), &v21(), 1).expect("ssl");
        let users = [user("TCPIP", 9 * US, 0), user("SSL", 50 * US, 10 * US)];
        let (m, crypto) = s.summary(&users, 1e9);
        assert!(crypto.is_none());
        assert_eq!(m.len(), 1); // the plain server has no SSL figures
        assert_eq!(m["SSL"].cpu_us_per_request, 60.0); // 60 us / max(0, 1)
        assert_eq!(m["SSL"].cpu_us_per_connection, None);
        assert!(!m["SSL"].crypto_offload);
        s.request_cpu(1, 0.0, 0, (1, false));
        s.request_cpu(1, 0.0, 0, (1, false));
        s.request_cpu(1, 0.0, 0, (1, false));
        let (m, _) = s.summary(&users, 1e9);
        assert_eq!(m["SSL"].cpu_us_per_request, 20.0); // 60 / 3
        assert_eq!(m["SSL"].records, 3);
        assert_eq!(m["SSL"].cpu_us_per_connection, None); // requests, but no connection
                                                          // Connections on the server itself (no adapter): handshakes, none offloaded.
        s.request_cpu(1, 0.0, 0, (1, true));
        let (m, crypto) = s.summary(&users, 1e9);
        assert!(crypto.is_none());
        assert_eq!(m["SSL"].handshakes, 1);
        assert_eq!(m["SSL"].handshakes_offloaded, 0);
        assert_eq!(m["SSL"].cpu_us_per_connection, Some(60.0)); // 60 / 1
    }

    /// The adapter's figures are there when any SSL server offloads, not only when all do.
    #[test]
    fn crypto_figures_when_one_server_of_two_offloads() {
        let cfg = config(serde_json::json!([
            ssl_guest("SSLA", serde_json::json!({"crypto": "apvirt"})),
            ssl_guest("SSLB", serde_json::json!({}))
        ]));
        let mut s = Ssl::new(&cfg, &params(), &apvirt_on(), 1).expect("ssl");
        assert!(s.offload(1, 0, 0).is_none()); // SSLB does its RSA itself
        assert_eq!(s.offload(0, 0, 0), Some((3000, Some(100 * US))));
        assert_eq!(s.adapter_done(100 * US).0.expect("op").waiter, 0);
        let users = [user("SSLA", 0, 0), user("SSLB", 0, 0)];
        let (m, crypto) = s.summary(&users, (200 * US) as f64);
        assert!(m["SSLA"].crypto_offload && !m["SSLB"].crypto_offload);
        let c = crypto.expect("SSLA offloads");
        assert_eq!(c.ops, 1);
        assert!((c.util_pct - 50.0).abs() < 1e-9); // 100 of 200 us
    }

    /// A record size below one byte (outside the parameter's range) counts as one byte: 3
    /// bytes are 3 records, 3 x 1000 + 3 x 10 = 3030 ns.
    #[test]
    fn records_of_at_least_one_byte() {
        let p = Params {
            ssl_record_bytes: 0.0,
            ..params()
        };
        let cfg = config(serde_json::json!([ssl_guest("SSL", serde_json::json!({}))]));
        let mut s = Ssl::new(&cfg, &p, &v21(), 1).expect("ssl");
        assert_eq!(s.request_cpu(0, 0.0, 0, (3, false)), 3030.0);
        assert_eq!(s.count[0].records, 3);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// For any payload and record size: records = ceil(bytes / record) (at least 1), and
        /// the CPU is base + records x record path + bytes x cipher; the counters sum the
        /// requests.
        #[test]
        fn cost_formula_holds(
            record in 1u32..20_000,
            reqs in proptest::collection::vec((0u64..100_000, any::<bool>()), 1..20),
        ) {
            let p = Params { ssl_record_bytes: record as f64, ..params() };
            let cfg = config(serde_json::json!([ssl_guest("SSL", serde_json::json!({}))]));
            let mut s = Ssl::new(&cfg, &p, &v21(), 1).expect("ssl");
            let (mut bytes, mut records, mut hs) = (0u64, 0u64, 0u64);
            for &(b, connect) in &reqs {
                let r = b.div_ceil(record as u64).max(1);
                let want = 5000.0 + r as f64 * 1000.0 + b as f64 * 10.0
                    + if connect { 250_000.0 } else { 0.0 };
                let got = s.request_cpu(0, 5000.0, 0, (b, connect));
                prop_assert!((got - want).abs() <= 1e-9 * want);
                bytes += b;
                records += r;
                hs += connect as u64;
            }
            let k = &s.count[0];
            prop_assert_eq!(k.requests, reqs.len() as u64);
            prop_assert_eq!(k.bytes, bytes);
            prop_assert_eq!(k.records, records);
            prop_assert_eq!(k.handshakes, hs);
        }

        /// Every operation sent to the adapter comes back exactly once, in the order sent,
        /// each 100 us after the later of its arrival and the previous one's end; the busy time
        /// is 100 us per operation.
        #[test]
        fn adapter_serves_each_operation_once_in_order(
            gaps in proptest::collection::vec(0u64..300, 1..30),
        ) {
            let mut s = one(serde_json::json!({"crypto": "apvirt"}), &apvirt_on());
            let mut now = 0;
            let mut next: Option<Time> = None;
            let mut ends = Vec::new();
            let mut free_at = 0;
            let mut done = Vec::new();
            for (i, &g) in gaps.iter().enumerate() {
                let arrive = now + g * US;
                // Complete everything due before this arrival.
                while let Some(t) = next.filter(|&t| t <= arrive) {
                    let (r, n) = s.adapter_done(t);
                    done.push((r.expect("op").tag, t));
                    next = n;
                }
                now = arrive;
                let start = free_at.max(arrive);
                free_at = start + 100 * US;
                ends.push((i as u32, free_at));
                let (cp, d) = s.offload(0, i as u32, now).expect("offload");
                prop_assert_eq!(cp, 3000);
                if let Some(t) = d {
                    next = Some(t);
                }
            }
            while let Some(t) = next {
                let (r, n) = s.adapter_done(t);
                done.push((r.expect("op").tag, t));
                next = n;
            }
            prop_assert_eq!(&done, &ends);
            let users = [user("SSL", 0, 0)];
            let c = s.summary(&users, free_at as f64).1.expect("crypto");
            prop_assert_eq!(c.ops, gaps.len() as u64);
            prop_assert_eq!(c.busy_ns, 100 * US * gaps.len() as u64);
            prop_assert_eq!(c.in_flight, 0);
        }
    }
}
