//! `grundy jupyter`: grundy as a Jupyter kernel, so that a notebook's cells
//! are entries of one grundy session.
//!
//! - [`wire`]: the signed multipart wire format (HMAC-SHA256);
//! - [`channels`]: the five sockets on their own thread (a current-thread
//!   tokio runtime for the pure-Rust `zeromq`), answering `kernel_info`,
//!   `interrupt` and `shutdown` at once;
//! - [`kernel`]: the evaluator: execute, complete, inspect, is_complete,
//!   through the REPL's core ([`crate::repl::Repl`]);
//! - [`rich`]: values as MIME bundles (HTML tables and move lists, SVG and
//!   PNG heatmaps); [`progress`]: the updating progress display;
//! - [`history`]: the cells run, for `history_request`;
//! - [`info`]: `kernel_info` and the kernelspec, with [`logo`] its icons
//!   and [`editors`] the highlighters it ships (Pygments, CodeMirror),
//!   [`labextension`] the JupyterLab extension among them.
//!
//! Message types come from the `jupyter-protocol` crate.

pub mod channels;
pub mod editors;
pub mod history;
pub mod info;
pub mod kernel;
pub mod labextension;
pub mod logo;
pub mod progress;
pub mod rich;
pub mod wire;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use jupyter_protocol::ConnectionInfo;

use crate::repl::{Repl, Style};
use crate::Limits;

/// What `grundy jupyter` is asked to do.
#[derive(Debug)]
pub enum Action {
    /// Write the kernelspec, so that Jupyter offers a grundy kernel, and
    /// the JupyterLab extension that highlights grundy code: under
    /// `prefix`/share/jupyter, or in the user's Jupyter data directory.
    Install { prefix: Option<PathBuf> },
    /// Run the kernel (Jupyter starts this with a connection file).
    Kernel { connection_file: PathBuf },
}

pub fn run(action: &Action, limits: Limits) -> ExitCode {
    match action {
        Action::Install { prefix } => {
            let target = match prefix {
                Some(p) => info::Target::Prefix(p.clone()),
                None => info::Target::User,
            };
            match info::install(&target) {
                Ok(done) => {
                    println!(
                        "installed the grundy kernelspec in {}",
                        done.kernelspec.display()
                    );
                    println!(
                        "installed the JupyterLab extension in {}",
                        done.labextension.display()
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Action::Kernel { connection_file } => match kernel(connection_file, limits) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
    }
}

/// Runs the kernel until a `shutdown_request`.
fn kernel(connection_file: &Path, limits: Limits) -> Result<(), String> {
    let text = std::fs::read_to_string(connection_file)
        .map_err(|e| format!("cannot read {}: {e}", connection_file.display()))?;
    let info: ConnectionInfo = serde_json::from_str(&text)
        .map_err(|e| format!("{} is no connection file: {e}", connection_file.display()))?;
    if !info.signature_scheme.is_empty() && info.signature_scheme != "hmac-sha256" {
        return Err(format!(
            "signature scheme `{}` is not supported (only hmac-sha256)",
            info.signature_scheme
        ));
    }
    // Diagnostics keep their colours: notebooks show them in tracebacks.
    let style = Style {
        color_out: false,
        color_err: true,
    };
    let repl = Repl::new(limits, style);
    let interrupt = repl.interrupt();
    // A front end with `interrupt_mode: signal` sends SIGINT instead of a
    // message: it stops the running cell, never the kernel.
    let flag = interrupt.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    let links = channels::start(info, interrupt)?;
    kernel::Kernel::new(repl, links.requests, links.out).serve();
    Ok(())
}
