//! Comprehensions whose last `for` runs over a list with only `if`s after
//! it (`compile/filter.rs`): items tested against code that does not read
//! them, evaluated once per pass, without binding each item. The outputs
//! and errors must be those of the general path (the plans off), and the
//! values those of a filter written here in Rust.

use crate::common;

use common::same_both_ways;

/// A loopy game's values (finite ones and infinite ones), then integers,
/// strings and lists: every comparison is asked of every kind.
const ITEMS: &str = "
game T(v) where 0 <= v < 12 {
    move back if v % 4 == 1 -> T(v - 1)
    move on(k in 1..=2) if v + k < 12 -> T(v + k)
    move loop if v % 3 == 0 and v > 0 -> T(v - 3)
}
let values = [sg(T(v)) for v in 0..12]
let S = set(0..64)
let mixed = [3, \"a\", [1, 2], 0, 7, inf(), 65, -1]
";

#[test]
fn filters_agree_with_the_general_path_and_a_filter_in_rust() {
    let xs: Vec<i64> = (0..40).map(|i| (i * 37 + 11) % 23 - 5).collect();
    let list = format!("{xs:?}");
    let text = format!(
        "{ITEMS}
let xs = {list}
let small = {{1, 4, 9, 16}}
print [x for x in xs if x in small]
print [x for x in xs if x not in small]
print [x for x in xs if 3 <= x if x < 12]
print [x for x in xs if x != 0 if x * x > 10]
print count(x == 4 for x in xs)
print count(4 > x for x in xs)
print sum(x for x in xs if x >= 0)
print [v for v in values if v in S]
print [v for v in values if v not in S]
print [v for v in values if v == inf(0)]
print count(v != 0 for v in values)
print [[a, x] for a in 0..3 for x in xs if x == a]
print [x for x in mixed if x in S]
print [x for x in mixed if x == \"a\"]
print [x for x in [] if x < \"a\"]
"
    );
    let out = same_both_ways(&text);
    let lines: Vec<&str> = out.lines().collect();
    let show = |v: Vec<i64>| format!("{v:?}");
    let kept = |f: &dyn Fn(i64) -> bool| show(xs.iter().copied().filter(|&x| f(x)).collect());
    let small = [1, 4, 9, 16];
    assert_eq!(lines[0], kept(&|x| small.contains(&x)));
    assert_eq!(lines[1], kept(&|x| !small.contains(&x)));
    assert_eq!(lines[2], kept(&|x| (3..12).contains(&x)));
    assert_eq!(lines[3], kept(&|x| x != 0 && x * x > 10));
    let count = |f: &dyn Fn(i64) -> bool| xs.iter().filter(|&&x| f(x)).count().to_string();
    assert_eq!(lines[4], count(&|x| x == 4));
    assert_eq!(lines[5], count(&|x| 4 > x));
    assert_eq!(
        lines[6],
        xs.iter().filter(|&&x| x >= 0).sum::<i64>().to_string()
    );
    let pairs: Vec<String> = (0..3)
        .flat_map(|a| {
            xs.iter()
                .filter(move |&&x| x == a)
                .map(move |x| format!("[{a}, {x}]"))
        })
        .collect();
    assert_eq!(lines[11], format!("[{}]", pairs.join(", ")));
    assert_eq!(lines[12], "[3, 0, 7]");
    assert_eq!(lines[13], "[\"a\"]");
    assert_eq!(lines[14], "[]");
}

/// The finite values and the infinite ones split the list between them,
/// as the general path splits it.
#[test]
fn a_loopy_games_values_split_by_a_set_of_small_integers() {
    let out = same_both_ways(&format!(
        "{ITEMS}
let finite = [v for v in values if v in S]
let infinite = [v for v in values if v not in S]
print len(finite) + len(infinite) == len(values)
print all(v in S for v in finite) and all(v not in S for v in infinite)
print len(infinite) > 0 and len(finite) > 0
"
    ));
    assert_eq!(out, "true\ntrue\ntrue\n");
}

/// A comparison the general path refuses is refused the same way, at the
/// first item that asks it.
#[test]
fn errors_of_filters_are_the_general_paths() {
    for body in [
        "[x for x in [1, 2, \"a\"] if x < 2]",
        "[x for x in [1, 2] if x in 5]",
        "count(x < \"b\" for x in [1])",
        "[x for x in 7 if x == 1]",
        "[x for x in [1, \"b\"] if x != 1 if x < 2]",
    ] {
        let out = same_both_ways(&format!("print {body}\n"));
        assert!(
            out.contains("failure") || out.contains("error"),
            "{body}: {out}"
        );
    }
}

/// Lists past the interrupt checks' 4096 steps: items kept in long runs
/// and in short ones, a test that runs code after an inline one, and a
/// failing item far into the list. Against the general path and a filter
/// in Rust.
#[test]
fn long_runs_of_kept_items_match_the_general_path() {
    let xs: Vec<i64> = (0..10_000)
        .map(|i| (i * 7919) % 10_007 % 300 - 20)
        .collect();
    let text = format!(
        "let xs = {xs:?}\n\
         let S = set(0..64)\n\
         print [x for x in xs]\n\
         print [x for x in xs if x >= -15]\n\
         print [x for x in xs if x in S]\n\
         print [x for x in xs if x >= 0 if x % 3 != 0]\n\
         print len([x for x in xs if x not in S])\n"
    );
    let out = same_both_ways(&text);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    let kept = |f: &dyn Fn(i64) -> bool| {
        let v: Vec<i64> = xs.iter().copied().filter(|&x| f(x)).collect();
        format!("{v:?}")
    };
    assert_eq!(lines[0], kept(&|_| true));
    assert_eq!(lines[1], kept(&|x| x >= -15));
    assert_eq!(lines[2], kept(&|x| (0..64).contains(&x)));
    assert_eq!(lines[3], kept(&|x| x >= 0 && x % 3 != 0));
    let outside = xs.iter().filter(|&&x| !(0..64).contains(&x)).count();
    assert_eq!(lines[4], outside.to_string());
    // A bad item after a long kept run: the same error either way.
    let bad = "let ys = [i for i in 0..6000] + [\"a\"] + [1, 2]\n\
               print [y for y in ys if y < 7000]\n";
    let out = same_both_ways(bad);
    assert!(out.contains("failure") || out.contains("error"), "{out}");
}
