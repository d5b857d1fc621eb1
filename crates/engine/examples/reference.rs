//! `cargo run --release --example reference -- [horizon_ms]`: the des-anchors reference model.
fn main() {
    let h: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let r = zvm::bench::run_reference(h, 42).expect("reference model");
    println!("{}", serde_json::to_string_pretty(&r).unwrap());
}
