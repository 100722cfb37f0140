//! The command line's words (`grundy::cli::parse`): each command's
//! arguments and options, the options every command takes before or
//! after it, help and version, and the errors of words that make no
//! command (status 2, the usage of the command they were for).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command as Process;
use std::time::Duration;

use grundy::cli::{parse, Cli, Command, Parsed};
use grundy::report::export::Format;

fn words(line: &str) -> Vec<OsString> {
    line.split_whitespace().map(OsString::from).collect()
}

fn cli(line: &str) -> Cli {
    match parse(words(line)) {
        Ok(Parsed::Run(cli)) => cli,
        other => panic!("{line}: {other:?}"),
    }
}

fn printed(line: &str) -> String {
    match parse(words(line)) {
        Ok(Parsed::Print(text)) => text,
        other => panic!("{line}: {other:?}"),
    }
}

fn error(line: &str) -> String {
    match parse(words(line)) {
        Err(e) => e.to_string(),
        Ok(other) => panic!("{line}: parsed as {other:?}"),
    }
}

#[test]
fn run_takes_its_file_and_options_in_any_order() {
    let c = cli(
        "--timeout 2.5 run --set N=40 g.game --format=csv --set M=-3 --explain --max-memory 30M",
    );
    assert_eq!(c.timeout, Some(Duration::from_millis(2500)));
    assert_eq!(c.max_memory, Some(30 << 20));
    assert_eq!(c.max_states, None);
    let Command::Run {
        file,
        sets,
        format,
        plot,
        explain,
    } = c.command
    else {
        panic!("not run: {:?}", c.command);
    };
    assert_eq!(file, PathBuf::from("g.game"));
    assert_eq!(sets, ["N=40", "M=-3"]);
    assert_eq!(format, Format::Csv);
    assert_eq!(plot, None);
    assert!(explain);
    let plain = cli("run g.game");
    assert!(matches!(
        plain.command,
        Command::Run {
            format: Format::Text,
            explain: false,
            ..
        }
    ));
}

#[test]
fn each_command_reads_its_own_words() {
    assert!(
        matches!(cli("test examples").command, Command::Test { path } if path.as_os_str() == "examples")
    );
    let Command::Repl { files } = cli("repl a.game b.game --max-states 10").command else {
        panic!()
    };
    assert_eq!(files, [PathBuf::from("a.game"), PathBuf::from("b.game")]);
    assert!(matches!(cli("repl").command, Command::Repl { files } if files.is_empty()));
    let Command::Octal { code, heaps, out } = cli("octal 0.07 --heaps 10^3 --out v.bin").command
    else {
        panic!()
    };
    assert_eq!(
        (code.as_str(), heaps, out),
        ("0.07", 1000, Some(PathBuf::from("v.bin")))
    );
    let kernel = format!("{:?}", cli("jupyter kernel -f c.json").command);
    assert!(
        kernel.contains("Kernel") && kernel.contains("c.json"),
        "{kernel}"
    );
    let install = format!("{:?}", cli("jupyter install --prefix venv").command);
    assert!(
        install.contains("Install") && install.contains("venv"),
        "{install}"
    );
}

#[test]
fn help_and_version_are_printed_for_the_command_asked() {
    let top = printed("--help");
    for name in [
        "run",
        "test",
        "repl",
        "octal",
        "jupyter",
        "--max-memory",
        "--version",
    ] {
        assert!(top.contains(name), "{name} missing from:\n{top}");
    }
    let run = printed("run --help");
    assert!(run.starts_with("Run a rule file"), "{run}");
    assert!(
        run.contains("--set <NAME=EXPR>") && run.contains("--timeout <SECONDS>"),
        "{run}"
    );
    assert!(!run.contains("--heaps"), "{run}");
    assert_eq!(printed("help octal"), printed("octal -h"));
    assert_eq!(
        printed("help jupyter kernel"),
        printed("jupyter kernel --help")
    );
    assert!(printed("-V").starts_with("grundy "));
    // Every line of help fits in 80 columns.
    for text in [
        top,
        run,
        printed("octal --help"),
        printed("jupyter kernel --help"),
    ] {
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    }
}

#[test]
fn words_that_make_no_command_say_why_and_for_which_command() {
    let cases = [
        (
            "run",
            "the argument <FILE> is required",
            "grundy run [OPTIONS] <FILE>",
        ),
        (
            "run g.game --bogus",
            "unexpected argument '--bogus'",
            "grundy run",
        ),
        (
            "run a.game b.game",
            "unexpected argument 'b.game'",
            "grundy run",
        ),
        (
            "--max-states abc run g.game",
            "invalid value 'abc' for '--max-states'",
            "grundy run",
        ),
        (
            "run g.game --timeout 0",
            "invalid value '0' for '--timeout'",
            "grundy run",
        ),
        (
            "run g.game --format xml",
            "unknown format `xml`",
            "grundy run",
        ),
        (
            "run g.game --format csv --format json",
            "'--format' cannot be used more than once",
            "grundy run",
        ),
        (
            "run g.game --heaps 3",
            "unexpected argument '--heaps'",
            "grundy run",
        ),
        (
            "frob",
            "unrecognized command 'frob'",
            "grundy [OPTIONS] <COMMAND>",
        ),
        ("", "a command is required", "grundy [OPTIONS] <COMMAND>"),
        (
            "jupyter",
            "a command is required: install, kernel",
            "grundy jupyter",
        ),
        (
            "jupyter install --user --prefix v",
            "cannot be used together",
            "grundy jupyter install",
        ),
        (
            "jupyter kernel",
            "'--connection-file <FILE>' is required",
            "grundy jupyter kernel",
        ),
        ("octal 0.07", "'--heaps <N>' is required", "grundy octal"),
        (
            "octal 0.07 --heaps many",
            "is not a number of heaps",
            "grundy octal",
        ),
        ("run --set", "missing argument", "grundy run"),
    ];
    for (line, why, usage) in cases {
        let e = error(line);
        assert!(e.starts_with("error: ") && e.contains(why), "{line}: {e}");
        assert!(e.contains(&format!("Usage: {usage}")), "{line}: {e}");
    }
}

#[test]
fn the_binary_exits_with_status_2_on_a_usage_error_and_0_on_help() {
    let bad = Process::new(env!("CARGO_BIN_EXE_grundy"))
        .args(["run", "--bogus"])
        .output()
        .expect("run grundy");
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("unexpected argument '--bogus'"), "{err}");
    assert!(bad.stdout.is_empty());
    let help = Process::new(env!("CARGO_BIN_EXE_grundy"))
        .arg("--help")
        .output()
        .expect("run grundy");
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("Usage: grundy"));
}
