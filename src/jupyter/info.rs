//! What the kernel says about itself: the `kernel_info` reply and the
//! kernelspec that `grundy jupyter install` writes: `kernel.json`, the
//! logos and `kernel.js` (the classic Notebook's CodeMirror mode), with
//! the JupyterLab extension beside it ([`super::labextension`]).

use std::path::{Path, PathBuf};

use jupyter_protocol::{
    CodeMirrorMode, JupyterMessage, JupyterMessageContent, KernelInfoReply, LanguageInfo,
    ReplyStatus,
};
use serde_json::json;

/// The kernel's name in kernelspecs and in `jupyter kernelspec list`.
pub const KERNEL_NAME: &str = "grundy";

/// A message from this kernel, as a child of `parent` when there is one.
pub fn message(
    content: impl Into<JupyterMessageContent>,
    parent: Option<&JupyterMessage>,
) -> JupyterMessage {
    let mut m = JupyterMessage::new(content, parent);
    m.header.username = KERNEL_NAME.to_string();
    m
}

pub fn kernel_info() -> KernelInfoReply {
    KernelInfoReply {
        status: ReplyStatus::Ok,
        protocol_version: "5.3".to_string(),
        implementation: KERNEL_NAME.to_string(),
        implementation_version: env!("CARGO_PKG_VERSION").to_string(),
        language_info: LanguageInfo {
            name: "grundy".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            mimetype: Some("text/x-grundy".to_string()),
            file_extension: Some(".game".to_string()),
            // The lexer of editors/pygments (its entry point's name), and
            // the mode of the kernelspec's kernel.js.
            pygments_lexer: Some("grundy".to_string()),
            codemirror_mode: Some(CodeMirrorMode::Simple("grundy".to_string())),
            nbconvert_exporter: None,
        },
        banner: format!(
            "grundy {}: Sprague-Grundy values of impartial games. :help for help.",
            env!("CARGO_PKG_VERSION")
        ),
        help_links: Vec::new(),
        debugger: false,
        error: None,
    }
}

/// Where `grundy jupyter install` puts the kernelspec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The user's Jupyter data directory.
    User,
    /// `PREFIX/share/jupyter/kernels` (a virtual environment, a conda env).
    Prefix(PathBuf),
}

/// The user's Jupyter data directory, as jupyter_core finds it:
/// `$JUPYTER_DATA_DIR`, else `~/Library/Jupyter` on macOS, else
/// `$XDG_DATA_HOME/jupyter` (`~/.local/share/jupyter`).
fn user_data_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("JUPYTER_DATA_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if cfg!(target_os = "macos") {
        return dirs::home_dir().map(|h| h.join("Library/Jupyter"));
    }
    dirs::data_dir().map(|d| d.join("jupyter"))
}

/// The Jupyter data directory of a target.
fn data_dir(target: &Target) -> Result<PathBuf, String> {
    Ok(match target {
        Target::User => user_data_dir().ok_or("no home directory: use --prefix DIR")?,
        Target::Prefix(p) => p.join("share").join("jupyter"),
    })
}

/// The directory of the kernelspec for a target.
pub fn spec_dir(target: &Target) -> Result<PathBuf, String> {
    Ok(data_dir(target)?.join("kernels").join(KERNEL_NAME))
}

/// The kernelspec that starts `exe` as the kernel. Interrupts come as
/// messages on the control channel (a signal works too).
pub fn kernel_json(exe: &Path) -> serde_json::Value {
    json!({
        "argv": [exe.display().to_string(), "jupyter", "kernel", "-f", "{connection_file}"],
        "display_name": "grundy",
        "language": "grundy",
        "interrupt_mode": "message",
        "metadata": {"debugger": false},
    })
}

/// The kernelspec's files for this executable: (file name, contents).
pub fn spec_files(exe: &Path) -> Vec<(&'static str, Vec<u8>)> {
    let json = serde_json::to_string_pretty(&kernel_json(exe)).unwrap_or_default() + "\n";
    vec![
        ("kernel.json", json.into_bytes()),
        ("kernel.js", super::editors::kernel_js().into_bytes()),
        ("logo-32x32.png", super::logo::png(32)),
        ("logo-64x64.png", super::logo::png(64)),
    ]
}

/// What `install` wrote.
pub struct Installed {
    pub kernelspec: PathBuf,
    pub labextension: PathBuf,
}

/// Writes the kernelspec for this executable and the JupyterLab
/// extension beside it.
pub fn install(target: &Target) -> Result<Installed, String> {
    let kernelspec = install_spec(target)?;
    let labextension = super::labextension::install(&data_dir(target)?)?;
    Ok(Installed {
        kernelspec,
        labextension,
    })
}

/// Writes the kernelspec for this executable; returns its directory.
fn install_spec(target: &Target) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the grundy binary: {e}"))?;
    let dir = spec_dir(target)?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, bytes) in spec_files(&exe) {
        let file = dir.join(name);
        std::fs::write(&file, bytes)
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_spec_goes_under_share_jupyter_kernels() {
        let d = spec_dir(&Target::Prefix(PathBuf::from("/opt/env"))).unwrap();
        assert_eq!(d, PathBuf::from("/opt/env/share/jupyter/kernels/grundy"));
    }

    #[test]
    fn the_kernelspec_runs_this_binary_with_the_connection_file() {
        let j = kernel_json(Path::new("/bin/grundy"));
        assert_eq!(
            j["argv"],
            json!([
                "/bin/grundy",
                "jupyter",
                "kernel",
                "-f",
                "{connection_file}"
            ])
        );
        assert_eq!(j["interrupt_mode"], "message");
        assert_eq!(j["language"], "grundy");
    }

    #[test]
    fn kernel_info_speaks_protocol_5_3() {
        let v = serde_json::to_value(kernel_info()).unwrap();
        assert_eq!(v["protocol_version"], "5.3");
        assert_eq!(v["status"], "ok");
        assert_eq!(v["language_info"]["file_extension"], ".game");
        assert_eq!(v["language_info"]["pygments_lexer"], "grundy");
        assert_eq!(v["language_info"]["codemirror_mode"], "grundy");
    }
}
