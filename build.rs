//! Generates one test per example rule file (tests/examples.rs includes
//! them), so that a failing example is named by its test.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "game") {
            out.push(p);
        }
    }
}

fn test_name(rel: &Path) -> String {
    let s = rel.with_extension("").display().to_string();
    let mut name: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    name
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    println!("cargo:rerun-if-changed=examples");
    let mut files = Vec::new();
    collect(&root.join("examples"), &mut files);
    let (mut passing, mut failing) = (String::new(), String::new());
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap();
        let is_error = rel.components().any(|c| c.as_os_str() == "errors");
        let target = if is_error { &mut failing } else { &mut passing };
        let macro_name = if is_error { "error_example" } else { "example" };
        writeln!(
            target,
            "{macro_name}!({}, {:?});",
            test_name(rel),
            rel.display().to_string()
        )
        .unwrap();
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(out.join("example_tests.rs"), passing).unwrap();
    std::fs::write(out.join("error_tests.rs"), failing).unwrap();
}
