//! Programs generated from the grammar (grammar/rules.pest), nested deeply
//! and sized widely, each run in a session under small limits: each must
//! end in values or in located errors (a `grundy::` code and a
//! `[file:line:column]`), never a panic or a hang. The fuzz targets in
//! fuzz/ do the same with coverage guidance, outside `cargo test`.

use std::time::Duration;

use grundy::{report::render, Limits, Session};
use proptest::prelude::*;

const NAMES: [&str; 6] = ["x", "y", "n", "xs", "G", "f"];

fn leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        (-5i64..40).prop_map(|n| n.to_string()),
        Just("9223372036854775807".to_string()),
        Just("true".to_string()),
        Just("\"ab\"".to_string()),
        proptest::sample::select(NAMES.to_vec()).prop_map(String::from),
        Just("ω^2".to_string()),
    ]
}

fn expr() -> impl Strategy<Value = String> {
    leaf().prop_recursive(6, 64, 4, |inner| {
        let op = proptest::sample::select(vec![
            "+", "-", "*", "/", "%", "<", "<=", "==", "!=", "and", "or", "|", "^", "&", "<<", "..",
            "..=", "in",
        ]);
        prop_oneof![
            (inner.clone(), op, inner.clone()).prop_map(|(a, o, b)| format!("{a} {o} {b}")),
            inner.clone().prop_map(|a| format!("({a})")),
            inner.clone().prop_map(|a| format!("-{a}")),
            inner.clone().prop_map(|a| format!("not {a}")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("if {c} then {a} else {b}")),
            proptest::collection::vec(inner.clone(), 0..4)
                .prop_map(|xs| format!("[{}]", xs.join(", "))),
            proptest::collection::vec(inner.clone(), 0..3)
                .prop_map(|xs| format!("{{{}}}", xs.join(", "))),
            (inner.clone(), inner.clone()).prop_map(|(b, r)| format!("[{b} for x in {r}]")),
            (inner.clone(), inner.clone())
                .prop_map(|(b, r)| format!("[{b} for x in 0..{r} if x < 3]")),
            (
                proptest::sample::select(vec![
                    "len", "sorted", "sum", "sg", "mex", "list", "min", "max", "outcome",
                ]),
                inner.clone()
            )
                .prop_map(|(f, a)| format!("{f}({a})")),
            inner.clone().prop_map(|a| format!("G({a})")),
            inner.clone().prop_map(|a| format!("f({a})")),
            (inner.clone(), inner).prop_map(|(a, i)| format!("{a}[{i}]")),
        ]
    })
}

/// Long or deep shapes around the front end's limits.
fn large() -> impl Strategy<Value = String> {
    prop_oneof![
        (1usize..12_000).prop_map(|n| format!("0{}", " + 1".repeat(n))),
        (1usize..130).prop_map(|n| format!("{}1{}", "(".repeat(n), ")".repeat(n))),
        (1usize..130).prop_map(|n| format!("{}1{}", "[".repeat(n), "]".repeat(n))),
        (1usize..12_000).prop_map(|n| format!("{}1", "-".repeat(n))),
        (1usize..120).prop_map(|n| format!(
            "{}1{}",
            "if true then ".repeat(n),
            " else 0".repeat(n)
        )),
        (1usize..20_000).prop_map(|n| format!("len([{}0])", "1, ".repeat(n))),
    ]
}

fn statement() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => expr().prop_map(|e| format!("print {e}")),
        2 => expr().prop_map(|e| format!("let z = {e}")),
        2 => expr().prop_map(|e| format!("assert {e}")),
        1 => expr().prop_map(|e| format!("fn h(n) = {e}")),
        1 => (expr(), expr()).prop_map(|(w, t)| format!(
            "game H(n) where {w} {{\n  move take(k in 1..=n) -> G(n - k)\n  move other -> G({t})\n}}"
        )),
        1 => large().prop_map(|e| format!("print {e}")),
        1 => expr().prop_map(|e| format!("print h({e}), sg(H({e}))")),
        // A few raw bytes of punctuation: syntax errors of every kind.
        1 => "[\\(\\)\\[\\]{}=<>,.+*-/\"#a-z0-9 \n]{0,20}",
    ]
}

/// Definitions every program starts with, so that generated names mostly
/// resolve and evaluation, not only lowering, is exercised.
const PRELUDE: &str = "let x = 3\nlet y = 4\nlet n = 5\nlet xs = [1, 2, 3]\n\
    fn f(n) = if n <= 0 then 0 else n + f(n - 1)\n\
    game G(n) where n >= 0 { move take(k in 1..=3) if k <= n -> G(n - k) }\n";

fn program() -> impl Strategy<Value = String> {
    proptest::collection::vec(statement(), 1..6).prop_map(|s| format!("{PRELUDE}{}", s.join("\n")))
}

/// Runs a program on a thread with the CLI's large stack; returns the
/// rendered failures.
fn run(text: String) -> Vec<String> {
    std::thread::Builder::new()
        .stack_size(1 << 28)
        .spawn(move || {
            let mut session = Session::new(Limits {
                max_states: 20_000,
                max_call_depth: 2_000,
                timeout: Some(Duration::from_millis(500)),
                ..Limits::default()
            });
            let result = session.run("gen.game", &text, &mut std::io::sink());
            result
                .failures
                .iter()
                .map(|f| render(f, &session.sources, false))
                .collect()
        })
        .unwrap()
        .join()
        .expect("no panic")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_program_ends_in_values_or_located_errors(text in program()) {
        let failures = run(text.clone());
        if std::env::var_os("GRUNDY_GEN_SHOW").is_some() {
            eprintln!("{}", failures.first().map_or("ran", |f| f.lines().next().unwrap_or("")));
        }
        for failure in failures {
            prop_assert!(failure.contains("grundy::"), "no code:\n{failure}\n--- for\n{text}");
            prop_assert!(failure.contains("[gen.game:"), "no location:\n{failure}\n--- for\n{text}");
            prop_assert!(failure.len() < 20_000, "{} bytes of diagnostic", failure.len());
        }
    }
}
