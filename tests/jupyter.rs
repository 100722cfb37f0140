//! The Jupyter kernel, checked with real Jupyter clients: the Python script
//! tests/jupyter/check_kernel.py (jupyter_client, nbclient, nbformat,
//! jupyter_kernel_test) runs against the freshly built binary. It executes
//! examples/notebooks/empty_divide.ipynb and compares its outputs with the
//! stored ones, sends completions, inspections, an error cell and an
//! interrupt during a long cell, and runs jupyter_kernel_test's checks.
//!
//! The Pygments lexer (editors/pygments) is checked against the REPL's
//! lexer on every example file (tests/jupyter/check_pygments.py), and its
//! word lists against the lexer's and the built-in table.
//!
//! The JupyterLab extension (editors/jupyterlab, installed with the
//! kernelspec) is checked the same way, its built tokenizer run with node
//! (tests/jupyter/check_jupyterlab.js), and `jupyter labextension list`
//! must show it enabled.
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
    let dir = spec.parent().unwrap();
    for logo in ["logo-32x32.png", "logo-64x64.png"] {
        let bytes = std::fs::read(dir.join(logo)).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{logo} is a PNG");
    }
    let js = std::fs::read_to_string(dir.join("kernel.js")).unwrap();
    assert!(
        js.contains("defineSimpleMode(\"grundy\""),
        "kernel.js defines the mode"
    );
    let lab = prefix.join("share/jupyter/labextensions/grundy-jupyterlab");
    let package: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(lab.join("package.json")).unwrap()).unwrap();
    let load = package["jupyterlab"]["_build"]["load"].as_str().unwrap();
    assert!(
        lab.join(load).exists(),
        "the extension's {load} is installed"
    );
    prefix.join("share/jupyter")
}

/// Runs the Jupyter checks' Python, or says why not (and passes) when
/// there is none outside CI.
fn python_for(test: &str) -> Option<PathBuf> {
    let python = python();
    if python.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the Jupyter checks: .ci/run sets GRUNDY_JUPYTER_PYTHON"
        );
        eprintln!(
            "SKIPPED {test}: no Python with jupyter_client \
             (run .ci/run, or set GRUNDY_JUPYTER_PYTHON)"
        );
    }
    python
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
    assert!(data
        .join("labextensions/grundy-jupyterlab/package.json")
        .exists());
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
    let Some(python) = python_for("real_jupyter_clients_drive_the_kernel") else {
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

/// editors/pygments/grundy_pygments/wordlists.py holds the REPL lexer's
/// keywords and the built-ins' names; `GRUNDY_BLESS=1` rewrites it.
#[test]
fn the_pygments_word_lists_are_the_repl_lexers() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/pygments/grundy_pygments/wordlists.py");
    let want = grundy::jupyter::editors::pygments_words();
    if std::env::var_os("GRUNDY_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        have,
        want,
        "{} is not the REPL lexer's word lists: rerun with GRUNDY_BLESS=1",
        path.display()
    );
}

/// editors/jupyterlab/src/words.json holds the REPL lexer's keywords and
/// the built-ins' names; `GRUNDY_BLESS=1` rewrites it (then rebuild the
/// extension, as editors/jupyterlab/README.md says).
#[test]
fn the_jupyterlab_word_lists_are_the_repl_lexers() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/jupyterlab/src/words.json");
    let want = grundy::jupyter::editors::lab_words();
    if std::env::var_os("GRUNDY_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        have,
        want,
        "{} is not the REPL lexer's word lists: rerun with GRUNDY_BLESS=1",
        path.display()
    );
}

/// The example rule files (examples/errors too).
fn example_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "game") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() > 20, "{} example files", files.len());
    files
}

/// What another highlighter calls each class of the REPL lexer's tokens:
/// the token names (or prefixes) it may give.
struct Names {
    keyword: &'static [&'static str],
    name: &'static [&'static str],
    builtin: &'static [&'static str],
    number: &'static [&'static str],
    string: &'static [&'static str],
    comment: &'static [&'static str],
    unknown: &'static [&'static str],
    operator: &'static [&'static str],
}

/// Checks another highlighter's tokens of the example files (lines of
/// JSON `{"file", "tokens": [[start, end, name], ...]}`, in characters)
/// against the REPL's lexer: a token of the same span for each of its
/// tokens, named as `names` says, and no unknown token outside
/// examples/errors. Returns how many keywords it compared.
fn agrees_with_the_repl_lexer<'a>(lines: impl Iterator<Item = &'a str>, names: &Names) -> usize {
    use grundy::syntax::lexer::{tokens, Class, Token};
    let builtins = grundy::jupyter::editors::builtins();
    let mut keywords = 0;
    let mut files = 0;
    for line in lines {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let file = v["file"].as_str().unwrap();
        let text = std::fs::read_to_string(file).unwrap();
        files += 1;
        let byte = |c: u64| {
            text.char_indices()
                .nth(c as usize)
                .map_or(text.len(), |(b, _)| b)
        };
        let theirs: std::collections::HashMap<(usize, usize), String> = v["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let span = (byte(t[0].as_u64().unwrap()), byte(t[1].as_u64().unwrap()));
                (span, t[2].as_str().unwrap_or("null").to_string())
            })
            .collect();
        let is = |kind: &str, allowed: &[&str]| allowed.iter().any(|a| kind.starts_with(a));
        if !file.contains("/examples/errors/") {
            let unknown: Vec<_> = theirs
                .iter()
                .filter(|(_, k)| is(k, names.unknown))
                .collect();
            assert!(unknown.is_empty(), "{file}: unknown tokens {unknown:?}");
        }
        let ours = tokens(&text);
        for (i, (token, range)) in ours.iter().enumerate() {
            let word = &text[range.clone()];
            let Some(kind) = theirs.get(&(range.start, range.end)) else {
                panic!("{file}: no token at {range:?} `{word}`");
            };
            let declared = i > 0 && matches!(ours[i - 1].0, Token::Game | Token::Fn | Token::Move);
            let allowed = match token.class() {
                Class::Keyword => names.keyword,
                Class::Name if builtins.contains(&word) && !declared => names.builtin,
                Class::Name => names.name,
                Class::Number => names.number,
                Class::String => names.string,
                Class::Comment => names.comment,
                Class::Unknown => names.unknown,
                Class::Bracket | Class::Operator => names.operator,
            };
            assert!(
                is(kind, allowed),
                "{file}: `{word}` at {range:?} is {kind}, not one of {allowed:?}"
            );
            keywords += usize::from(token.class() == Class::Keyword);
        }
    }
    assert!(files > 20, "{files} files compared");
    keywords
}

/// Every example file, lexed by the Pygments lexer and by the REPL's:
/// the same spans for keywords, names, numbers, strings, comments and
/// unknown characters, built-ins tagged as built-ins, and no error token
/// outside examples/errors.
#[test]
fn the_pygments_lexer_reads_rule_files_as_the_repl_does() {
    let Some(python) = python_for("the_pygments_lexer_reads_rule_files_as_the_repl_does") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(&python)
        .arg(root.join("tests/jupyter/check_pygments.py"))
        .args(example_files())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines = stdout.lines();
    let html: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let html = html["html"].as_str().unwrap();
    for want in [
        r#"<span class="kd">game</span>"#,
        r#"<span class="k">in</span>"#,
        r#"<span class="nc">Heap</span>"#,
        r#"<span class="k">move</span>"#,
        r#"<span class="o">..=</span>"#,
    ] {
        assert!(html.contains(want), "{want} in {html}");
    }
    let names = Names {
        keyword: &["Token.Keyword"],
        name: &["Token.Name"],
        builtin: &["Token.Name.Builtin"],
        number: &["Token.Literal.Number"],
        string: &["Token.Literal.String"],
        comment: &["Token.Comment"],
        unknown: &["Token.Error"],
        operator: &["Token.Operator", "Token.Punctuation"],
    };
    let keywords = agrees_with_the_repl_lexer(lines, &names);
    assert!(keywords > 500, "{keywords} keywords compared");
}

/// The CodeMirror mode of the installed kernel.js, run over every example
/// file with node as CodeMirror's simple mode runs it
/// (tests/jupyter/check_codemirror.js), against the REPL's lexer. Skipped
/// where node is missing.
#[test]
fn the_codemirror_mode_reads_rule_files_as_the_repl_does() {
    let dir = tempfile::tempdir().unwrap();
    let spec = install(dir.path()).join("kernels/grundy/kernel.js");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = match Command::new("node")
        .arg(root.join("tests/jupyter/check_codemirror.js"))
        .arg(&spec)
        .args(example_files())
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            eprintln!(
                "SKIPPED the_codemirror_mode_reads_rule_files_as_the_repl_does: no node ({e})"
            );
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names = Names {
        keyword: &["keyword", "atom"],
        name: &["variable", "def", "atom", "builtin"],
        builtin: &["builtin"],
        number: &["number"],
        string: &["string"],
        comment: &["comment"],
        unknown: &["error", "unknown"],
        operator: &["operator", "null"],
    };
    let keywords = agrees_with_the_repl_lexer(stdout.lines(), &names);
    assert!(keywords > 500, "{keywords} keywords compared");
}

/// The JupyterLab extension as `grundy jupyter install` writes it: its
/// built plugin, run with node (tests/jupyter/check_jupyterlab.js),
/// registers the language `grundy` for text/x-grundy with the word lists
/// of the REPL's lexer (a stale build fails here), styles a sample cell as
/// written below, and reads every example file as the REPL's lexer does.
/// Skipped where node is missing.
#[test]
fn the_jupyterlab_extension_reads_rule_files_as_the_repl_does() {
    let dir = tempfile::tempdir().unwrap();
    let lab = install(dir.path()).join("labextensions/grundy-jupyterlab");
    let sample = dir.path().join("sample.game");
    std::fs::write(
        &sample,
        "game Heap(n) where n >= 0 { move take(k in 1..=n) -> Heap(n - k) } # Nim\n\
         print sg(Heap(3)) == 3 and true\n",
    )
    .unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = match Command::new("node")
        .arg(root.join("tests/jupyter/check_jupyterlab.js"))
        .arg(&lab)
        .arg(&sample)
        .args(example_files())
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            eprintln!(
                "SKIPPED the_jupyterlab_extension_reads_rule_files_as_the_repl_does: no node ({e})"
            );
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines = stdout.lines();
    let language: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(language["name"], "grundy");
    assert_eq!(language["parser"], "grundy");
    assert_eq!(language["mime"], "text/x-grundy");
    assert_eq!(language["extensions"], serde_json::json!(["game"]));
    use grundy::jupyter::editors;
    for (list, want) in [
        ("keywords", editors::keywords()),
        ("constants", editors::constants()),
        ("builtins", editors::builtins()),
    ] {
        assert_eq!(
            language["words"][list],
            serde_json::json!(want),
            "the built extension's {list} are stale: rebuild editors/jupyterlab"
        );
    }

    let cell: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let text: Vec<char> = std::fs::read_to_string(&sample).unwrap().chars().collect();
    let styled: Vec<(String, &str)> = cell["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t[2] != "null")
        .map(|t| {
            let (a, b) = (t[0].as_u64().unwrap(), t[1].as_u64().unwrap());
            let word: String = text[a as usize..b as usize].iter().collect();
            (word, t[2].as_str().unwrap())
        })
        .collect();
    let want = [
        ("game", "definitionKeyword"),
        ("Heap", "typeName.definition"),
        ("(", "bracket"),
        ("n", "variableName"),
        (")", "bracket"),
        ("where", "keyword"),
        ("n", "variableName"),
        (">=", "operator"),
        ("0", "number"),
        ("{", "bracket"),
        ("move", "definitionKeyword"),
        ("take", "labelName"),
        ("(", "bracket"),
        ("k", "variableName"),
        ("in", "keyword"),
        ("1", "number"),
        ("..=", "operator"),
        ("n", "variableName"),
        (")", "bracket"),
        ("->", "operator"),
        ("Heap", "variableName"),
        ("(", "bracket"),
        ("n", "variableName"),
        ("-", "operator"),
        ("k", "variableName"),
        (")", "bracket"),
        ("}", "bracket"),
        ("# Nim", "lineComment"),
        ("print", "keyword"),
        ("sg", "variableName.standard"),
        ("(", "bracket"),
        ("Heap", "variableName"),
        ("(", "bracket"),
        ("3", "number"),
        (")", "bracket"),
        (")", "bracket"),
        ("==", "operator"),
        ("3", "number"),
        ("and", "keyword"),
        ("true", "bool"),
    ];
    let want: Vec<(String, &str)> = want.iter().map(|&(w, s)| (w.to_string(), s)).collect();
    assert_eq!(styled, want);

    let names = Names {
        keyword: &["keyword", "definitionKeyword", "bool"],
        name: &["variableName", "typeName", "labelName", "atom"],
        builtin: &["variableName.standard"],
        number: &["number"],
        string: &["string"],
        comment: &["lineComment"],
        unknown: &["invalid"],
        operator: &["operator", "punctuation", "bracket"],
    };
    let keywords = agrees_with_the_repl_lexer(lines, &names);
    assert!(keywords > 500, "{keywords} keywords compared");
}

/// `jupyter labextension list`, in a virtual environment with JupyterLab
/// that finds the installed prefix on its JUPYTER_PATH, shows the
/// extension enabled and OK (its package.json and remote entry as
/// JupyterLab reads them).
#[test]
fn jupyter_labextension_list_shows_the_extension_enabled() {
    let test = "jupyter_labextension_list_shows_the_extension_enabled";
    let Some(python) = python_for(test) else {
        return;
    };
    let has_lab = Command::new(&python)
        .args(["-c", "import jupyterlab"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_lab {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must check the JupyterLab extension: .ci/run installs jupyterlab"
        );
        eprintln!("SKIPPED {test}: {} has no jupyterlab", python.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let jupyter_path = install(&dir.path().join("env"));
    let out = Command::new(&python)
        .args(["-m", "jupyterlab.labextensions", "list"])
        .env("JUPYTER_PATH", &jupyter_path)
        .env("JUPYTER_DATA_DIR", dir.path().join("data"))
        .env("JUPYTER_CONFIG_DIR", dir.path().join("config"))
        .env("JUPYTER_PLATFORM_DIRS", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    // Without its colours: `name vVERSION enabled OK`.
    let plain = text
        .split('\x1b')
        .enumerate()
        .map(|(i, s)| {
            if i == 0 {
                s
            } else {
                s.split_once('m').map_or("", |(_, r)| r)
            }
        })
        .collect::<String>();
    let mut lines = plain.lines().map(str::trim);
    let listed = jupyter_path.join("labextensions");
    assert!(
        lines.any(|l| Path::new(l) == listed),
        "{} is not among the extension directories:\n{plain}",
        listed.display()
    );
    let entry = lines.next().unwrap_or_default();
    let words: Vec<&str> = entry.split_whitespace().collect();
    assert_eq!(
        words,
        ["grundy-jupyterlab", "v0.1.0", "enabled", "OK"],
        "{plain}"
    );
}
