//! The Jupyter kernel, checked with real Jupyter clients: the Python script
//! tests/jupyter/check_kernel.py (jupyter_client, nbclient, nbformat,
//! jupyter_kernel_test) runs against the freshly built binary. It executes
//! examples/notebooks/empty_divide.ipynb and compares its outputs with the
//! stored ones, sends completions, inspections, an error cell and an
//! interrupt during a long cell, and runs jupyter_kernel_test's checks.
//!
//! The Python comes from `GRUNDY_JUPYTER_PYTHON` (.ci/run makes the virtual
//! environment and sets it), else target/jupyter-venv if it exists. Without
//! either the test says so and passes, unless `CI` is set: there it must run.

use std::path::{Path, PathBuf};
use std::process::Command;

fn grundy() -> Command {
    Command::new(env!("CARGO_BIN_EXE_grundy"))
}

fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GRUNDY_JUPYTER_PYTHON").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/jupyter-venv/bin/python");
    venv.exists().then_some(venv)
}

/// `grundy jupyter install --prefix DIR`: the kernelspec starts this binary.
fn install(prefix: &Path) -> PathBuf {
    let out = grundy()
        .args(["jupyter", "install", "--prefix"])
        .arg(prefix)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let spec = prefix.join("share/jupyter/kernels/grundy/kernel.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&spec).unwrap()).unwrap();
    assert_eq!(json["argv"][0], env!("CARGO_BIN_EXE_grundy"));
    assert_eq!(json["argv"][4], "{connection_file}");
    prefix.join("share/jupyter")
}

#[test]
fn install_writes_the_kernelspec_for_the_user_or_a_prefix() {
    let dir = tempfile::tempdir().unwrap();
    install(&dir.path().join("env"));
    let data = dir.path().join("data");
    let out = grundy()
        .args(["jupyter", "install", "--user"])
        .env("JUPYTER_DATA_DIR", &data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(data.join("kernels/grundy/kernel.json").exists());
    let out = grundy()
        .args(["jupyter", "install", "--user", "--prefix", "x"])
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "--user and --prefix exclude each other"
    );
}

#[test]
fn a_missing_connection_file_is_an_error_not_a_hang() {
    let out = grundy()
        .args(["jupyter", "kernel", "-f", "/nonexistent/kernel-1.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn real_jupyter_clients_drive_the_kernel() {
    let Some(python) = python() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the Jupyter checks: .ci/run sets GRUNDY_JUPYTER_PYTHON"
        );
        eprintln!(
            "SKIPPED real_jupyter_clients_drive_the_kernel: no Python with jupyter_client \
             (run .ci/run, or set GRUNDY_JUPYTER_PYTHON)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let jupyter_path = install(dir.path());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(&python)
        .arg(root.join("tests/jupyter/check_kernel.py"))
        .arg(root.join("examples/notebooks/empty_divide.ipynb"))
        .current_dir(root)
        .env("JUPYTER_PATH", &jupyter_path)
        .env("JUPYTER_DATA_DIR", dir.path().join("data"))
        .env("JUPYTER_CONFIG_DIR", dir.path().join("config"))
        .env("JUPYTER_RUNTIME_DIR", dir.path().join("runtime"))
        .env("JUPYTER_PLATFORM_DIRS", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "the Jupyter checks failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("jupyter checks: 0 failed"), "{stdout}");
    assert!(!stdout.contains("FAIL "), "{stdout}");
}
