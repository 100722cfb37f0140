//! Where the REPL keeps its history: `$GRUNDY_HISTORY` when set (empty: no
//! history file), else `grundy/history.txt` in the user's data directory
//! (`~/.local/share` on Linux).

use std::ffi::OsString;
use std::path::PathBuf;

/// The environment variable that moves (or, empty, turns off) the history.
pub const HISTORY_VAR: &str = "GRUNDY_HISTORY";

/// The history file for this user, if any.
pub fn history_path() -> Option<PathBuf> {
    choose(std::env::var_os(HISTORY_VAR), dirs::data_dir())
}

/// The rule, apart from the environment: the variable wins, an empty one
/// means none, else the data directory.
pub fn choose(var: Option<OsString>, data_dir: Option<PathBuf>) -> Option<PathBuf> {
    match var {
        Some(v) if v.is_empty() => None,
        Some(v) => Some(PathBuf::from(v)),
        None => data_dir.map(|d| d.join("grundy").join("history.txt")),
    }
}

/// Makes sure the file's folder exists (the file itself is created by the
/// first save).
pub fn prepare(path: &std::path::Path) -> std::io::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_moves_or_disables_the_history() {
        let data = Some(PathBuf::from("/home/u/.local/share"));
        assert_eq!(
            choose(None, data.clone()),
            Some(PathBuf::from("/home/u/.local/share/grundy/history.txt"))
        );
        assert_eq!(
            choose(Some("/tmp/h".into()), data.clone()),
            Some(PathBuf::from("/tmp/h"))
        );
        assert_eq!(choose(Some("".into()), data), None);
        assert_eq!(choose(None, None), None);
    }

    #[test]
    fn prepare_creates_the_folder() {
        let dir = std::env::temp_dir().join(format!("grundy-hist-{}", std::process::id()));
        let file = dir.join("a").join("history.txt");
        prepare(&file).unwrap();
        assert!(dir.join("a").is_dir());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
