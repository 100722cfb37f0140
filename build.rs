//! Generates one test per example rule file (tests/examples.rs includes
//! them), so that a failing example is named by its test; and links the
//! grundy binary with its functions in the order a run executes them
//! (`link/function-order.txt`), the constants they read first
//! (`link/rodata-order.ld`), and its relocations packed.

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

/// Whether the binary is linked by lld, the only linker here that reads
/// `--symbol-ordering-file`: rustc's default for x86_64 Linux since
/// 1.90, unless a linker is configured.
fn links_with_lld() -> bool {
    let env = |name: &str| std::env::var(name).unwrap_or_default();
    if env("TARGET") != "x86_64-unknown-linux-gnu" || !env("RUSTC_LINKER").is_empty() {
        return false;
    }
    let flags = env("CARGO_ENCODED_RUSTFLAGS");
    if ["linker", "link-self-contained", "fuse-ld"]
        .iter()
        .any(|f| flags.contains(f))
    {
        return false;
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(out) = std::process::Command::new(rustc).arg("-vV").output() else {
        return false;
    };
    let version = String::from_utf8_lossy(&out.stdout);
    let minor = version
        .lines()
        .find_map(|l| l.strip_prefix("release: 1."))
        .and_then(|rest| rest.split('.').next()?.parse::<u32>().ok());
    minor.is_some_and(|m| m >= 90)
}

/// The binary's functions laid out in the order of
/// `link/function-order.txt` (made by `link/order_functions.py` from the
/// functions runs execute), so that the code a run touches lies on few
/// pages of the file: the kernel maps the 64 KiB around every page fault
/// in code, and scattered code made most of a small run's memory.
/// Symbols missing from the list (renamed, or a different build) are
/// laid out after it, as before.
fn order_functions(root: &Path) {
    println!("cargo:rerun-if-changed=link/function-order.txt");
    let order = root.join("link/function-order.txt");
    if order.exists() && links_with_lld() {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}

/// The constants the same runs read (jump tables, strings, tables) put
/// first, before the rest of `.rodata`, by `link/rodata-order.ld` (made
/// by `link/order_functions.py` too): spread over the 400 KB of
/// `.rodata`, the few KB a run reads had the kernel map most of it. A
/// section the list names and the binary lacks is skipped. The linker
/// map written beside the build script's output is what the script reads
/// the sections' names from.
fn order_constants(root: &Path) {
    println!("cargo:rerun-if-changed=link/rodata-order.ld");
    if !links_with_lld() {
        return;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!(
        "cargo:rustc-link-arg-bins=-Wl,-Map={}",
        out.join("grundy.map").display()
    );
    let order = root.join("link/rodata-order.ld");
    if order.exists() {
        println!("cargo:rustc-link-arg-bins=-Wl,-T,{}", order.display());
    }
}

/// Whether the C library here (the one the binary runs with, for a build
/// on the machine that runs it) reads packed relative relocations
/// (`DT_RELR`): glibc 2.36 and later.
fn libc_reads_relr() -> bool {
    let Ok(out) = std::process::Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
    else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.trim().strip_prefix("glibc 2.");
    version
        .and_then(|minor| minor.split('.').next()?.parse::<u32>().ok())
        .is_some_and(|minor| minor >= 36)
}

/// The binary's relocations packed (`-z pack-relative-relocs`): the
/// loader reads every relocation at start-up, and the 7,000 relative
/// ones (pointers in vtables and tables of strings) took 165 KiB of the
/// file as 24-byte entries, about 2 KiB as bitmaps.
fn pack_relocations() {
    if links_with_lld() && libc_reads_relr() {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    order_functions(&root);
    order_constants(&root);
    pack_relocations();
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
