//! The engine's shape (issue 16 item 3), checked from its sources: subsystems do not import
//! each other in a circle, and only the wiring imports `Sim`.
//!
//! A module's imports are the `crate::<module>` paths in its code, grouped ones
//! (`crate::{a::X, b}`) and the crate root's re-exports (`crate::Sim`) included, and `super::`
//! at a module's root; comments, string literals and `#[cfg(test)] mod tests` excluded. A
//! folder (`sim/`, `monitor/`, `monwrite/`) is one module. The rule: without `sim`, the import
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
        "monwrite",
        "writes the whole run's monitor data (a reader of every subsystem)",
    ),
];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every module's code (top-level module name -> its files' code without comments, string
/// contents and unit tests), and for each file whether it is a module's root (`x.rs`,
/// `x/mod.rs`: there `super::` is the crate) or below it.
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
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let name = parts[0].trim_end_matches(".rs").to_string();
            let root = parts.len() == 1 || (parts.len() == 2 && parts[1] == "mod.rs");
            let mut text = code_of(&fs::read_to_string(&p).expect("source readable"));
            if root {
                // At a module's root `super::` is the crate.
                text = text.replace("super::", "crate::");
            } else {
                text = text.replace("super::super::", "crate::");
            }
            out.entry(name).or_insert_with(String::new).push_str(&text);
        }
    }
    out.remove("lib");
    out
}

/// A file's code: comments and the contents of string and character literals dropped, then
/// every `#[cfg(test)] mod tests { ... }` block (or `mod tests;`) removed.
fn code_of(src: &str) -> String {
    without_tests(&strip_comments_and_strings(src))
}

/// Rust source with `//` and (nested) `/* */` comments removed and string, raw string and
/// character literals emptied (their quotes kept), so that neither can hide or fake a path.
fn strip_comments_and_strings(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c[i] == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&c, i) {
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            j += 1;
            while j < c.len() && !(c[j] == '"' && (1..=hashes).all(|k| c.get(j + k) == Some(&'#')))
            {
                j += 1;
            }
            out.push_str("\"\"");
            i = j + 1 + hashes;
        } else if c[i] == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i = j + 1;
        } else if c[i] == '\'' && char_literal_end(&c, i).is_some() {
            out.push_str("' '");
            i = char_literal_end(&c, i).unwrap() + 1;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn ident_before(c: &[char], i: usize) -> bool {
    i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_')
}

/// Where a character literal opened at `i` ends (None: a lifetime or a label).
fn char_literal_end(c: &[char], i: usize) -> Option<usize> {
    match (c.get(i + 1), c.get(i + 2)) {
        (Some('\\'), _) => (i + 3..c.len().min(i + 12)).find(|&j| c[j] == '\''),
        (Some(_), Some('\'')) => Some(i + 2),
        _ => None,
    }
}

/// Code with its unit-test modules removed: `#[cfg(test)]` (other attributes may follow) then
/// `mod tests` as a word, then its braces (balanced; literals are already empty) or `;`.
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        let after = &rest[at + "#[cfg(test)]".len()..];
        let item = skip_attributes(after);
        let is_tests = item.strip_prefix("mod tests").is_some_and(|r| {
            r.starts_with(|ch: char| ch.is_whitespace() || ch == '{' || ch == ';')
        });
        if !is_tests {
            out.push_str(&rest[..at + "#[cfg(test)]".len()]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..at]);
        let body = &item["mod tests".len()..];
        let end = match body.find(['{', ';']) {
            Some(k) if body.as_bytes()[k] == b';' => k + 1,
            Some(k) => k + matching_brace(&body[k..]) + 1,
            None => body.len(),
        };
        rest = &body[end.min(body.len())..];
    }
    out.push_str(rest);
    out
}

fn skip_attributes(mut s: &str) -> &str {
    loop {
        s = s.trim_start();
        if !s.starts_with("#[") {
            return s;
        }
        s = &s[matching_bracket(s, '[', ']') + 1..];
    }
}

/// The index of the `}` closing the `{` at the start of `s`.
fn matching_brace(s: &str) -> usize {
    matching_bracket(s, '{', '}')
}

fn matching_bracket(s: &str, open: char, close: char) -> usize {
    let mut depth = 0;
    for (k, ch) in s.char_indices() {
        if ch == open {
            depth += 1;
        } else if ch == close {
            depth -= 1;
            if depth == 0 {
                return k;
            }
        }
    }
    s.len().saturating_sub(1)
}

/// The crate root's re-exports (`pub use sim::Sim;` in lib.rs): name -> module.
fn reexports() -> BTreeMap<String, String> {
    let lib = strip_comments_and_strings(
        &fs::read_to_string(src_dir().join("lib.rs")).expect("lib.rs readable"),
    );
    let mut out = BTreeMap::new();
    for line in lib.lines() {
        if let Some(path) = line.trim().strip_prefix("pub use ") {
            let path = path.trim_end_matches(';');
            if let Some((m, name)) = path.split_once("::") {
                out.insert(name.to_string(), m.to_string());
            }
        }
    }
    out
}

/// The first path segment of each item of a `crate::` path: `crate::x::Y` gives `x`,
/// `crate::{x::Y, z}` gives `x` and `z`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = code[i + 7..].trim_start();
        if rest.starts_with('{') {
            let group = &rest[1..matching_brace(rest)];
            let mut depth = 0;
            let mut item = String::new();
            for ch in group.chars().chain([',']) {
                match ch {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(first_ident(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(ch);
            }
        } else {
            out.push(first_ident(rest));
        }
    }
    out
}

fn first_ident(s: &str) -> String {
    s.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Which modules each module names through `crate::` paths (a re-export at the crate root
/// counts as its module).
fn imports(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    imports_with(mods, &reexports())
}

fn imports_with(
    mods: &BTreeMap<String, String>,
    reexported: &BTreeMap<String, String>,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut g = BTreeMap::new();
    for (m, code) in mods {
        let mut to = BTreeSet::new();
        for name in crate_paths(code) {
            let name = reexported.get(&name).cloned().unwrap_or(name);
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
    // The graph reader and the cycle finder on known cases, so the checks above cannot pass
    // by reading nothing.
    let mut mods = BTreeMap::new();
    let mut add = |m: &str, src: &str| mods.insert(m.to_string(), code_of(src));
    add(
        "a",
        "use crate::b::X; // crate::c\n/* crate::d */ let s = \"crate::d\";\n",
    );
    add("b", "fn f() { crate::a::g() }\n");
    add(
        "c",
        "fn h() {}\n#[cfg(test)]\n#[allow(unused)]\nmod tests { use crate::a; }\nuse crate::e;\n",
    );
    add(
        "d",
        "use crate::{queue::Time, e::F};\nlet u = \"http://x\"; use crate::Sim;\n",
    );
    add(
        "e",
        "#[cfg(test)]\nmod tests_support;\nuse crate::f;\nlet c = '}';\n",
    );
    add(
        "f",
        "use crate::{g::{A, B}, queue};\nfn k<'a>(x: &'a str) {}\n",
    );
    add("g", "let r = r#\"crate::a\"#;\n");
    add("queue", "");
    add("sim", "");
    let reexported = [("Sim".to_string(), "sim".to_string())].into();
    let g = imports_with(&mods, &reexported);
    let set = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(g["a"], set(&["b"]), "comments and strings are not imports");
    assert_eq!(
        g["c"],
        set(&["e"]),
        "unit tests are not imports; code after them is"
    );
    assert_eq!(
        g["d"],
        set(&["queue", "e", "sim"]),
        "grouped paths and re-exports"
    );
    assert_eq!(g["e"], set(&["f"]), "a module named tests_support is code");
    assert_eq!(
        g["f"],
        set(&["g", "queue"]),
        "nested groups; lifetimes are not literals"
    );
    assert!(g["g"].is_empty(), "raw strings are not imports");
    assert_eq!(cycles(&g).len(), 1, "a and b import each other");
    let real = imports(&modules());
    assert!(real.len() > 30 && real["sim"].contains("scheduler"));
    assert_eq!(reexports().get("Sim").map(String::as_str), Some("sim"));
}
