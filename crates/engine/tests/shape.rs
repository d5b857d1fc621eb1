//! The engine's shape (issue 16 item 3), checked from its sources: subsystems do not import
//! each other in a circle, and only the wiring imports `Sim`.
//!
//! A module's imports are the `crate::<module>` paths in its code (comments and `mod tests`
//! excluded; `sim/` and `monitor/` are one module each). The rule: without `sim`, the import
//! graph has no cycle; and the modules that name `crate::sim` are `sim` itself (the clock, the
//! queue and the wiring, `src/sim/`) and the few listed below whose logic is still an
//! `impl Sim` block. A subsystem that needs another's state gets it handed over by the wiring in
//! `src/sim/<subsystem>.rs`, not by importing `Sim`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Modules still allowed to import `Sim`, and why (shrink this list; never grow it).
const STILL_ON_SIM: &[(&str, &str)] = &[
    ("bench", "drives a whole run of the reference model"),
    (
        "scheduler",
        "its policy moves virtual CPUs, processors and events, which are Sim's",
    ),
    (
        "entitle_pools",
        "the 6.4 pass with pools reads every user's scheduling state",
    ),
    (
        "monwrite",
        "writes the whole run's monitor data (a reader of every subsystem)",
    ),
];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every module's code (top-level module name -> text without comments and unit tests).
fn modules() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src_dir()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).expect("src readable") {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().and_then(|x| x.to_str()) != Some("rs") {
                continue;
            }
            let rel = p.strip_prefix(src_dir()).unwrap();
            let first = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy();
            let name = first.trim_end_matches(".rs").to_string();
            let text = code_of(&fs::read_to_string(&p).expect("source readable"));
            out.entry(name).or_insert_with(String::new).push_str(&text);
        }
    }
    out.remove("lib");
    out
}

/// A file's code: `//` comments dropped, and everything from its `mod tests` on.
fn code_of(src: &str) -> String {
    let mut out = String::new();
    let mut prev_cfg_test = false;
    for line in src.lines() {
        let t = line.trim();
        if prev_cfg_test && t.starts_with("mod tests") {
            break;
        }
        prev_cfg_test = t == "#[cfg(test)]";
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// Which modules each module names through `crate::<module>`.
fn imports(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut g = BTreeMap::new();
    for (m, code) in mods {
        let mut to = BTreeSet::new();
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + 7..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name != *m && mods.contains_key(&name) {
                to.insert(name);
            }
        }
        g.insert(m.clone(), to);
    }
    g
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        idx: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.idx.len();
        t.idx.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        for w in &t.g[v] {
            let w = w.as_str();
            if !t.idx.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.idx[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.idx[v] {
            let mut c = BTreeSet::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                c.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            if c.len() > 1 {
                t.out.push(c);
            }
        }
    }
    let mut t = T {
        g,
        idx: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.idx.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn subsystems_import_each_other_in_no_circle() {
    let mut g = imports(&modules());
    g.remove("sim");
    for to in g.values_mut() {
        to.remove("sim");
    }
    let c = cycles(&g);
    assert!(
        c.is_empty(),
        "engine modules import each other in a circle (without sim): {c:?}; hand what one \
         needs of another over in the wiring (src/sim/), or move the shared type to the lower one"
    );
}

#[test]
fn only_the_wiring_imports_sim() {
    let g = imports(&modules());
    let allowed: BTreeSet<&str> = STILL_ON_SIM.iter().map(|(m, _)| *m).collect();
    let on_sim: BTreeSet<&str> = g
        .iter()
        .filter(|(m, to)| m.as_str() != "sim" && to.contains("sim"))
        .map(|(m, _)| m.as_str())
        .collect();
    let new: Vec<&&str> = on_sim.difference(&allowed).collect();
    assert!(
        new.is_empty(),
        "{new:?} import Sim: put the subsystem's wiring in src/sim/<subsystem>.rs and keep its \
         state behind its own methods"
    );
    let stale: Vec<&&str> = allowed.difference(&on_sim).collect();
    assert!(
        stale.is_empty(),
        "{stale:?} no longer import Sim: take them off STILL_ON_SIM"
    );
}

#[test]
fn the_checks_see_a_circle_and_an_import() {
    // The graph reader and the cycle finder on a known case, so the checks above cannot pass
    // by reading nothing.
    let code = |s: &str| code_of(s);
    let mut mods = BTreeMap::new();
    mods.insert("a".to_string(), code("use crate::b::X; // crate::c\n"));
    mods.insert("b".to_string(), code("fn f() { crate::a::g() }\n"));
    mods.insert(
        "c".to_string(),
        code("fn h() {}\n#[cfg(test)]\nmod tests { use crate::a; }\n"),
    );
    let g = imports(&mods);
    assert_eq!(g["a"], ["b".to_string()].into_iter().collect());
    assert!(g["c"].is_empty(), "comments and unit tests are not imports");
    assert_eq!(cycles(&g).len(), 1);
    let real = imports(&modules());
    assert!(real.len() > 30 && real["sim"].contains("scheduler"));
}
