//! PR/SM and z/VM parking through the whole simulator (issue 4).

use zvm::{Config, Sim};

fn cfg(unparking: &str, extra: &str) -> Config {
    let j = format!(
        r#"{{"level": "zvm-6.4", "processors": 8, "duration_ns": 60000000000, "interval_ns": 10000000000,
        "seed": 3,
        "guests": [{{"userid": "U", "count": 12, "workload": {{"kind": "cpu-bound", "demand": 0.25}}}}],
        "cpc": {{"shared": 16, "weight": 300, "polarization": "vertical", {unparking} {extra}
                 "lpars": [{{"name": "PROD", "weight": 700, "logical": 12, "busy": 0.4}}]}}}}"#
    );
    Config::from_json(&j).expect("config")
}

fn run(c: Config) -> zvm::monitor::Summary {
    let mut s = Sim::new(c).unwrap();
    s.run();
    s.summary()
}

#[test]
fn unparking_models_order_and_costs() {
    let mut out = Vec::new();
    for m in ["large", "medium", "small"] {
        let s = run(cfg(&format!(r#""unparking": "{m}","#), ""));
        let l = s.lpar.clone().unwrap();
        eprintln!(
            "{m}: unparked {:.2} vl {:.2} lpmgt {:.3} cpc {:.3} sys {:.3} susp {:.2} busy {:.2} etr {:.2} wakes {} avail {:?}",
            l.unparked_avg, l.unparked_vl_avg, l.lpmgt_pct, l.cpc_lpmgt_pct, s.system_pct,
            l.susp_pct, s.avg_processor_busy_pct, s.etr, l.wakes, l.availability
        );
        out.push((l, s.system_pct));
    }
    let (large, medium, small) = (&out[0], &out[1], &out[2]);
    assert!(small.0.unparked_avg <= medium.0.unparked_avg + 1e-9);
    assert!(medium.0.unparked_avg <= large.0.unparked_avg + 1e-9);
    assert!(medium.0.unparked_vl_avg < large.0.unparked_vl_avg);
    assert!(medium.0.lpmgt_pct < large.0.lpmgt_pct);
    assert!(medium.1 < large.1);
}
