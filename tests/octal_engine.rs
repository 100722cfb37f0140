//! The take-and-break engine (src/takebreak/) and the prelude's rules for
//! `octal_game` (src/prelude/families.game) must describe the same game:
//! over many codes and heaps, the options the rules list have the mex the
//! engine gives, their number is the number of moves the code allows, and
//! the engine's values equal a brute force over the definition.

use grundy::takebreak::code::{Code, Constraint};
use grundy::takebreak::values::brute_force;
use grundy::{Limits, Session};

const HEAPS: usize = 26;

/// Moves of heap n by the definition: one per (digit, result).
fn move_count(code: &Code, n: usize) -> usize {
    let mut count = 0;
    for (k, d) in code.digits.iter().enumerate() {
        if n < k {
            continue;
        }
        let r = n - k;
        if k > 0 && d.leaves(0) && r == 0 {
            count += 1;
        }
        if k > 0 && d.leaves(1) && r >= 1 {
            count += 1;
        }
        for a in 1..r {
            let b = r - a;
            if d.leaves(2) && a <= b && (d.constraint == Constraint::None || a < b) {
                count += 1;
            }
            for b in a..r {
                let Some(c) = r.checked_sub(a + b) else { break };
                let ok = match d.constraint {
                    Constraint::None => true,
                    Constraint::Unequal => a < b && b < c,
                    Constraint::NotAllEqual => a < c,
                };
                if d.leaves(3) && b <= c && ok {
                    count += 1;
                }
            }
        }
    }
    count
}

/// Some codes: every single digit, with and without `!`/`?`, and
/// pseudo-random longer ones with a digit before the point.
fn codes() -> Vec<String> {
    let hex = |d: u32| std::char::from_digit(d, 16).unwrap();
    let mut out: Vec<String> = (1..16).map(|d| format!("0.{}", hex(d))).collect();
    out.extend(
        [
            "4!.", "4?.", "8!.", "8?.", "C!.", "C?.1", "0.4!", "0.C?", "0.6!3", "4.7?",
        ]
        .map(String::from),
    );
    let mut seed = 12345u32;
    let mut next = |m: u32| {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (seed >> 16) % m
    };
    for _ in 0..30 {
        let d0 = [0, 4, 8, 12][next(4) as usize];
        let len = 1 + next(3);
        let mut code = format!("{}.", hex(d0));
        for _ in 0..len {
            let d = next(16);
            code.push(hex(d));
            if d & 12 != 0 && next(4) == 0 {
                code.push(if next(2) == 0 { '!' } else { '?' });
            }
        }
        out.push(code);
    }
    out
}

#[test]
fn engine_and_rules_agree_on_values_and_options() {
    let mut text = String::new();
    for (i, code) in codes().iter().enumerate() {
        text.push_str(&format!(
            "let G{i} = octal(\"{code}\")\n\
             assert all(mex([o.sg for o in options(G{i}(n))]) == sg(G{i}(n)) for n in 0..{HEAPS})\n\
             print [sg(G{i}(n)) for n in 0..{HEAPS}]\n\
             print [len(options(G{i}(n))) for n in 0..{HEAPS}]\n"
        ));
    }
    let mut session = Session::new(Limits::default());
    let mut out = Vec::new();
    let result = session.run("agreement", &text, &mut out);
    let shown: Vec<String> = result
        .failures
        .iter()
        .map(|f| grundy::report::render(f, &session.sources, false))
        .collect();
    assert!(
        result.ok(),
        "the rules and the engine disagree:\n{}",
        shown.join("\n")
    );
    let out = String::from_utf8(out).unwrap();
    let mut lines = out.lines();
    for code in codes() {
        let parsed = Code::parse(&code).unwrap();
        let values = brute_force(&parsed, HEAPS);
        let counts: Vec<usize> = (0..HEAPS).map(|n| move_count(&parsed, n)).collect();
        assert_eq!(
            lines.next().unwrap(),
            format!("{values:?}"),
            "values of {code}"
        );
        assert_eq!(
            lines.next().unwrap(),
            format!("{counts:?}"),
            "options of {code}"
        );
    }
}

#[test]
fn bad_codes_are_located_errors() {
    for (code, caret) in [("0.1x7", 16), ("0.G", 15), ("44.0", 14), ("0.[3]", 15)] {
        let text = format!("print octal(\"{code}\")(3)\n");
        let mut session = Session::new(Limits::default());
        let result = session.run("bad", &text, &mut Vec::new());
        assert!(!result.ok(), "{code} was accepted");
        let grundy::session::Failure::Error(d) = &result.failures[0] else {
            panic!("{code}: not an evaluation error");
        };
        assert_eq!(d.span.start as usize, caret, "{code}: {}", d.message);
    }
}
