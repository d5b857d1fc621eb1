//! Criterion benchmarks: the raw cost of the event queue (hold model, as in des-anchors §4)
//! and the engine on the reference closed network.
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use zvm::queue::EventQueue;
use zvm::rng::Rng;

fn hold(c: &mut Criterion) {
    for &size in &[64usize, 500, 4096] {
        c.bench_function(&format!("queue_hold_replace_top_{size}"), |b| {
            let mut q = EventQueue::with_entities(size);
            let mut r = Rng::new(1);
            for e in 0..size as u32 {
                q.schedule(e, (r.exp(1000.0)) as u64);
            }
            b.iter(|| {
                let (t, e) = q.peek().unwrap();
                q.schedule(e, t + r.exp(1000.0) as u64 + 1);
                black_box(t)
            })
        });
    }
}

fn engine(c: &mut Criterion) {
    let mut g = c.benchmark_group("engine");
    g.sample_size(10);
    g.bench_function("reference_closed_network_T200", |b| {
        b.iter(|| black_box(zvm::bench::run_reference(200, 1).unwrap().bursts))
    });
    g.finish();
}

criterion_group!(benches, hold, engine);
criterion_main!(benches);
