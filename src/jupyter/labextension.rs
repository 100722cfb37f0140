//! The JupyterLab 4 extension that highlights grundy code (the language
//! `grundy` for the kernel's mimetype `text/x-grundy`), built from
//! editors/jupyterlab into its `labextension/` directory (see the README
//! there). `grundy jupyter install` writes it into
//! `labextensions/grundy-jupyterlab` of the Jupyter data directory it
//! writes the kernelspec into: JupyterLab loads prebuilt extensions from
//! there, with no build step of its own.

use std::path::{Path, PathBuf};

/// The extension's npm name, its directory under `labextensions`.
pub const NAME: &str = "grundy-jupyterlab";

macro_rules! built {
    ($($path:literal),* $(,)?) => {
        &[$((
            $path,
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/editors/jupyterlab/labextension/",
                $path
            )) as &[u8],
        )),*]
    };
}

/// The built extension's files by their path in its directory. A rebuild
/// renames the hashed ones: a test checks this list against the directory.
pub const FILES: &[(&str, &[u8])] = built![
    "package.json",
    "static/951.84b3b85b65ed2260b0c6.js",
    "static/remoteEntry.612f6448ce34838476eb.js",
    "static/style.js",
    "static/third-party-licenses.json",
];

/// Writes the extension under `data_dir/labextensions`; returns its
/// directory.
pub fn install(data_dir: &Path) -> Result<PathBuf, String> {
    let dir = data_dir.join("labextensions").join(NAME);
    // An earlier version's files have other hashed names: start afresh.
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .map_err(|e| format!("cannot replace {}: {e}", dir.display()))?;
    }
    for (path, bytes) in FILES {
        let file = dir.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&file, bytes)
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files under `dir`, as paths relative to `root`.
    fn files(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                files(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }

    #[test]
    fn the_embedded_files_are_the_built_extension() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/jupyterlab/labextension");
        let mut on_disk = Vec::new();
        files(&root, &root, &mut on_disk);
        on_disk.sort();
        let mut embedded: Vec<String> = FILES.iter().map(|(p, _)| p.to_string()).collect();
        embedded.sort();
        assert_eq!(
            embedded, on_disk,
            "src/jupyter/labextension.rs's FILES must list editors/jupyterlab/labextension"
        );
        let package: serde_json::Value = serde_json::from_slice(FILES[0].1).unwrap();
        assert_eq!(package["name"], NAME);
        let load = package["jupyterlab"]["_build"]["load"].as_str().unwrap();
        assert!(embedded.iter().any(|p| p == load), "{load} is embedded");
    }

    #[test]
    fn install_replaces_an_earlier_version() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir
            .path()
            .join("labextensions")
            .join(NAME)
            .join("static/old.js");
        std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
        std::fs::write(&stale, "old").unwrap();
        let lab = install(dir.path()).unwrap();
        assert!(!stale.exists());
        for (path, bytes) in FILES {
            assert_eq!(&std::fs::read(lab.join(path)).unwrap()[..], *bytes);
        }
    }
}
