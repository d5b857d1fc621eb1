//! `cargo run --example sched_probe < config.json`: run a normalized scenario and print each
//! user's CPU % per monitor interval (a quick look at the scheduler, no Python needed).
use std::io::Read;
fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let cfg = zvm::Config::from_json(&s).expect("config");
    let mut sim = zvm::Sim::new(cfg).expect("sim");
    let t0 = std::time::Instant::now();
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let sum = sim.summary();
    let ids: Vec<String> = sum.users.iter().map(|u| u.userid.clone()).collect();
    println!(
        "level {}  wall {:.2}s  events {}  system {:.2}%",
        sum.level, wall, sum.events, sum.system_pct
    );
    println!(
        "{:>6} {}",
        "end_s",
        ids.iter().map(|i| format!("{i:>9}")).collect::<String>()
    );
    for iv in &sum.intervals {
        println!(
            "{:>6.1} {}",
            iv.end_s,
            ids.iter()
                .map(|i| format!("{:>9.2}", iv.users[i]))
                .collect::<String>()
        );
    }
    println!(
        "{:>6} {}",
        "all",
        sum.users
            .iter()
            .map(|u| format!("{:>9.2}", u.cpu_pct))
            .collect::<String>()
    );
}
