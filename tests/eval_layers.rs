//! The modules of `src/eval`, at every depth, form layers: no module
//! imports one that imports it back (issue 11). This reads the sources,
//! finds every path from one module of `eval` to another (`use` trees and
//! inline paths: `crate::eval::a::b`, `super::...`, `self::...`, and a
//! child's name, outside `#[cfg(test)]` items, comments and literals),
//! resolves it to the deepest module it names, and fails on a cycle,
//! naming it. A child that imports its parent (`use super::*`, or an item
//! defined in the parent's `mod.rs`) while the parent imports the child
//! is such a cycle. Declaring a child (`mod x;`) is no import.
//! `src/eval/mod.rs` describes the layers, `compile/mod.rs` and
//! `search/mod.rs` those of their children.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The node of `src/eval/mod.rs`, the parent of all: it may use every
/// module, none may use it. Other nodes are module paths below `eval`:
/// `compile`, `compile::runtime`.
const ROOT: &str = "(eval)";

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The source with comments, string and char literals blanked (so that
/// a path in a doc comment or a message is no dependency). Line breaks
/// and lengths are kept.
fn strip(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_'))
        {
            // A raw string r"..." or r#"..."#.
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
            while j < c.len() {
                if c[j] == '"' && (1..=hashes).all(|k| c.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &ch in &c[i..j.min(c.len())] {
                blank(&mut out, ch);
            }
            i = j;
        } else if c[i] == '"' {
            blank(&mut out, c[i]);
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            if i < c.len() {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '\'' {
            // A char literal ('x', '\n', '\u{..}'), else a lifetime.
            let end = if next == Some('\\') {
                (i + 2..c.len()).find(|&j| c[j] == '\'')
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    for &ch in &c[i..=e] {
                        blank(&mut out, ch);
                    }
                    i = e + 1;
                }
                None => {
                    out.push(c[i]);
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The byte range of the item starting at `from`: through its matching
/// closing brace, or its `;` or `,` (a field) if that comes first; or up
/// to a closing brace or parenthesis it did not open (the last field of
/// a struct, without its comma).
fn item_end(s: &[u8], from: usize) -> usize {
    let mut depth = 0usize;
    for (k, &b) in s.iter().enumerate().skip(from) {
        match b {
            b'{' | b'(' => depth += 1,
            b'}' | b')' if depth == 0 => return k,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            b')' => depth -= 1,
            b';' | b',' if depth == 0 => return k + 1,
            _ => {}
        }
    }
    s.len()
}

/// Blanks every item marked `#[cfg(test)]`.
fn drop_tests(src: &str) -> String {
    let mut s = src.as_bytes().to_vec();
    let marker = b"#[cfg(test)]";
    let mut at = 0;
    while let Some(p) = s[at..].windows(marker.len()).position(|w| w == marker) {
        let start = at + p;
        let end = item_end(&s, start + marker.len());
        for b in &mut s[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        at = end;
    }
    String::from_utf8(s).expect("blanking keeps UTF-8")
}

/// `use` trees flattened into paths: `a::{b, c::{d as e}}` gives `a::b`,
/// `a::c::d`.
fn flatten_use(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').expect("a use tree closes its brace")];
        let prefix = join(prefix, head);
        let mut depth = 0;
        let mut start = 0;
        for (k, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    flatten_use(&inner[start..k], &prefix, out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        flatten_use(&inner[start..], &prefix, out);
    } else if !tree.is_empty() {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        out.push(join(prefix, path));
    }
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}::{b}"),
    }
}

/// Every path the code names: flattened `use` trees, then inline paths.
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    let b = code.as_bytes();
    while at < b.len() {
        let is_use = code[at..].starts_with("use ")
            && (at == 0 || !(b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_'));
        if is_use {
            let end = at + code[at..].find(';').expect("a use ends with ;");
            flatten_use(&code[at + 4..end], "", &mut out);
            at = end + 1;
        } else {
            let ch = code[at..].chars().next().expect("in bounds");
            rest.push(ch);
            at += ch.len_utf8();
        }
    }
    let chars: Vec<char> = rest.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts = (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'))
            && (chars[i].is_alphabetic() || chars[i] == '_');
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len()
            && (chars[j].is_alphanumeric()
                || chars[j] == '_'
                || (chars[j] == ':' && chars.get(j + 1) == Some(&':'))
                || (chars[j] == ':' && j > 0 && chars[j - 1] == ':'))
        {
            j += 1;
        }
        let path: String = chars[i..j].iter().collect();
        if path.contains("::") {
            out.push(path.trim_end_matches(':').to_string());
        }
        i = j.max(i + 1);
    }
    out
}

/// The module of `eval` a path written in module `from` (its path below
/// `eval`, empty for `eval` itself) leads into: the deepest module of
/// `modules` it names, `ROOT` for `eval` itself; `None` if it stays in
/// `from` or leaves `eval`.
fn target(path: &str, from: &[&str], modules: &BTreeSet<String>) -> Option<String> {
    let segs: Vec<&str> = path.split("::").map(str::trim).collect();
    let (mut at, rest): (Vec<&str>, &[&str]) =
        if segs.len() >= 2 && segs[0] == "crate" && segs[1] == "eval" {
            (Vec::new(), &segs[2..])
        } else if segs[0] == "super" || segs[0] == "self" {
            let ups = segs.iter().take_while(|s| **s == "super").count();
            if ups > from.len() {
                return None; // out of `eval`
            }
            let skip = ups + usize::from(ups == 0);
            (from[..from.len() - ups].to_vec(), &segs[skip..])
        } else if modules.contains(&join(&from.join("::"), segs[0])) {
            (from.to_vec(), &segs[..]) // a child's name
        } else {
            return None; // another crate, a type, a variant
        };
    for s in rest {
        at.push(s);
        if !modules.contains(&at.join("::")) {
            at.pop();
            break;
        }
    }
    if at == from {
        return None;
    }
    Some(if at.is_empty() {
        ROOT.to_string()
    } else {
        at.join("::")
    })
}

/// The module path below `eval` of a source file (relative to `src/eval`):
/// `x.rs` and `x/mod.rs` are `x`, `x/y.rs` is `x::y`, `mod.rs` is empty.
fn module_of(rel: &[String]) -> String {
    let mut segs: Vec<&str> = rel.iter().map(String::as_str).collect();
    let last = segs.pop().expect("a file name");
    if last != "mod.rs" {
        segs.push(last.trim_end_matches(".rs"));
    }
    segs.join("::")
}

/// The module graph of the `eval` directory `dir`: a node per module at
/// every depth, `ROOT` for `dir/mod.rs`.
fn graph(dir: &Path) -> Graph {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).expect("src/eval is readable") {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let rel = |p: &PathBuf| -> Vec<String> {
        p.strip_prefix(dir)
            .expect("under src/eval")
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect()
    };
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| module_of(&rel(f)))
        .filter(|m| !m.is_empty())
        .collect();
    let mut g: Graph = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    g.insert(ROOT.to_string(), modules.clone());
    for f in &files {
        let module = module_of(&rel(f));
        if module.is_empty() {
            continue;
        }
        let from: Vec<&str> = module.split("::").collect();
        let code = drop_tests(&strip(&fs::read_to_string(f).expect("a source file")));
        for p in paths(&code) {
            if let Some(t) = target(&p, &from, &modules) {
                g.get_mut(&module).expect("a node per module").insert(t);
            }
        }
    }
    g
}

/// A cycle of the graph, if it has one.
fn find_cycle(g: &Graph) -> Option<Vec<String>> {
    fn visit<'g>(
        g: &'g Graph,
        v: &'g str,
        state: &mut BTreeMap<&'g str, u8>,
        path: &mut Vec<&'g str>,
    ) -> Option<Vec<String>> {
        state.insert(v, 1);
        path.push(v);
        for w in &g[v] {
            match state.get(w.as_str()) {
                Some(1) => {
                    let from = path.iter().position(|x| x == w).expect("on the path");
                    let mut c: Vec<String> = path[from..].iter().map(|s| s.to_string()).collect();
                    c.push(w.clone());
                    return Some(c);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(g, w, state, path) {
                        return Some(c);
                    }
                }
            }
        }
        path.pop();
        state.insert(v, 2);
        None
    }
    let mut state = BTreeMap::new();
    for v in g.keys() {
        if !state.contains_key(v.as_str()) {
            if let Some(c) = visit(g, v, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn show(g: &Graph) -> String {
    g.iter()
        .map(|(k, v)| {
            format!(
                "  {k} -> {}\n",
                v.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect()
}

#[test]
fn the_modules_of_eval_form_layers() {
    let g = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/eval"));
    // The reader sees the edges it must: a reader finding none would pass.
    for (from, to) in [
        ("search::engine", "compile"),
        ("product::atoms", "query"),
        ("value", "ordinal"),
        ("compile", "compile::runtime"),
        ("compile::expr", "compile::clauses"),
        ("search", "search::engine"),
        ("search::sorted_run", "search::sorted_parts"),
    ] {
        assert!(
            g.get(from).is_some_and(|d| d.contains(to)),
            "expected {from} -> {to} in\n{}",
            show(&g)
        );
    }
    if let Some(c) = find_cycle(&g) {
        panic!(
            "import cycle between the modules of src/eval: {}\n(see the layers in src/eval/mod.rs)\n{}",
            c.join(" -> "),
            show(&g)
        );
    }
}

#[test]
fn the_reader_resolves_paths_and_skips_tests_and_comments() {
    let modules: BTreeSet<String> = ["a", "b", "c", "m", "m::n", "m::o"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let set = |xs: &[&str]| -> BTreeSet<String> { xs.iter().map(|s| s.to_string()).collect() };
    let src = r#"
use super::a::{X, Y as Z};
use crate::{eval::b, diag::Diag};
// super::c::in_a_comment
/* crate::eval::c::in_a_block */
fn f() { let s = "super::c::in_a_string"; let c = '"'; super::super::c::g(); }
#[cfg(test)]
mod tests { use super::super::c::*; }
"#;
    let code = drop_tests(&strip(src));
    let from = |m: &[&str]| -> BTreeSet<String> {
        paths(&code)
            .iter()
            .filter_map(|p| target(p, m, &modules))
            .collect()
    };
    assert_eq!(from(&["x"]), set(&["a", "b"]));
    // From `m::n`, `super::a` names an item of its parent `m`.
    assert_eq!(from(&["m", "n"]), set(&["m", "b", "c"]));
    assert_eq!(
        target("crate::eval::new_runtime", &["m", "n"], &modules).as_deref(),
        Some(ROOT)
    );
    // A parent naming its child, a child its sibling or itself.
    assert_eq!(target("n::f", &["m"], &modules).as_deref(), Some("m::n"));
    assert_eq!(
        target("super::o::T", &["m", "n"], &modules).as_deref(),
        Some("m::o")
    );
    assert_eq!(
        target("super::*", &["m", "n"], &modules).as_deref(),
        Some("m")
    );
    assert_eq!(target("self::T", &["m", "n"], &modules), None);
    assert_eq!(target("n::f", &["a"], &modules), None);
    let mut cyclic: Graph = BTreeMap::new();
    cyclic.insert("a".into(), ["b".to_string()].into());
    cyclic.insert("b".into(), ["a".to_string()].into());
    assert!(find_cycle(&cyclic).is_some());
    cyclic.get_mut("b").expect("b").clear();
    assert!(find_cycle(&cyclic).is_none());
}

/// Writes the files of a small `eval` directory and reads its graph.
fn graph_of(name: &str, files: &[(&str, &str)]) -> Graph {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = fs::remove_dir_all(&dir);
    for (path, src) in files {
        let p = dir.join(path);
        fs::create_dir_all(p.parent().expect("a parent")).expect("a directory");
        fs::write(&p, src).expect("a file");
    }
    graph(&dir)
}

#[test]
fn a_child_importing_the_parent_that_imports_it_is_a_cycle() {
    // `m/mod.rs` uses its child `n`, which uses an item of `m`.
    let g = graph_of(
        "eval_layers_nested_cycle",
        &[
            ("mod.rs", "pub mod m;\n"),
            ("m/mod.rs", "mod n;\nmod o;\npub use n::F;\npub struct T;\n"),
            ("m/n.rs", "use super::T;\npub fn f(_: T) {}\n"),
            ("m/o.rs", "use super::n::F;\n"),
        ],
    );
    let c = find_cycle(&g).expect("m -> m::n -> m");
    assert!(c.contains(&"m".to_string()) && c.contains(&"m::n".to_string()));
    // With `T` in a sibling, `m` only re-exports: layers.
    let g = graph_of(
        "eval_layers_nested_layers",
        &[
            ("mod.rs", "pub mod m;\n"),
            ("m/mod.rs", "mod n;\nmod t;\npub use n::f;\npub use t::T;\n"),
            ("m/n.rs", "use super::t::T;\npub fn f(_: T) {}\n"),
            ("m/t.rs", "pub struct T;\n"),
        ],
    );
    assert_eq!(find_cycle(&g), None, "{}", show(&g));
    assert!(g["m::n"].contains("m::t") && g["m"].contains("m::n"));
}
