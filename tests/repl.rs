//! The REPL: first driven through the library (`Repl::handle`, answers and
//! errors captured), then the built binary with piped input, then through a
//! pseudo-terminal as a user would type (line editing, completion, Ctrl-C,
//! history).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use grundy::repl::{Flow, Repl, Style};
use grundy::Limits;

const HEAP: &str =
    "game Heap(n) where n >= 0 { move take(k in {1, 2}) if k <= n -> Heap(n - k) }\n";
const PAIR: &str = "game Pair(a, b) where a >= 0 and b >= 0 {
    move left(k in 1..=a) -> Pair(a - k, b)
    move right(k in 1..=b) -> Pair(a, b - k)
}";

/// A REPL with captured output.
struct Driver {
    repl: Repl,
}

/// What one input printed.
struct Answer {
    out: String,
    err: String,
    flow: Flow,
}

impl Driver {
    fn new() -> Driver {
        Driver {
            repl: Repl::new(Limits::default(), Style::default()),
        }
    }

    fn input(&mut self, text: &str) -> Answer {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let flow = self.repl.handle(text, &mut out, &mut err);
        Answer {
            out: String::from_utf8(out).unwrap(),
            err: String::from_utf8(err).unwrap(),
            flow,
        }
    }

    /// An input that must succeed; its output.
    fn ok(&mut self, text: &str) -> String {
        let a = self.input(text);
        assert!(a.err.is_empty(), "{text}: unexpected error\n{}", a.err);
        a.out
    }
}

// ----------------------------------------------------------- library level

#[test]
fn define_query_make_an_error_and_carry_on() {
    let mut d = Driver::new();
    assert_eq!(d.ok(HEAP), "");
    assert_eq!(d.ok("sg(Heap(7))"), "1\n");
    let options = d.ok("options(Heap(3) + Heap(1))");
    assert_eq!(
        options,
        "  [0] take(k=1)  -> Heap(2) + Heap(1)  sg 3\n\
         * [0] take(k=2)  -> Heap(1) + Heap(1)  sg 0\n\
         * [1] take(k=1)  -> Heap(3) + Heap(0)  sg 0\n\
         3 moves, 2 winning (*: to a P-position)\n"
    );
    let e = d.input("sg(Heapp(3))");
    assert_eq!(e.out, "");
    assert!(e.err.contains("grundy::unknown_name"), "{}", e.err);
    assert!(
        e.err.contains("<repl 4>:1:4"),
        "points into the typed line: {}",
        e.err
    );
    assert!(e.err.contains("1 │ sg(Heapp(3))"), "{}", e.err);
    assert!(e.err.contains("did you mean `Heap`?"), "{}", e.err);
    assert_eq!(d.ok("outcome(Heap(9))"), "P\n");
}

#[test]
fn a_failing_entry_defines_nothing() {
    let mut d = Driver::new();
    d.ok("let x = 5");
    let e = d.input("let x = 1 / 0");
    assert!(e.err.contains("grundy::division_by_zero"), "{}", e.err);
    assert_eq!(d.ok("x"), "5\n", "the old x is back");
    let e = d.input("game G(n) where n >= 0 { move down -> G(n - 1) }\nprint sg(G(3)) / 0");
    assert!(e.err.contains("division_by_zero"), "{}", e.err);
    let e = d.input("sg(G(2))");
    assert!(e.err.contains("unknown function or game `G`"), "{}", e.err);
    assert!(!d.ok(":games").contains("G(n)"));
    // A syntax error changes nothing either, and a good entry still works.
    let e = d.input("fn f(x = 1");
    assert!(e.err.contains("grundy::syntax"), "{}", e.err);
    d.ok("fn f(x) = x + x");
    assert_eq!(d.ok("f(x)"), "10\n");
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn reload_picks_up_edits_and_keeps_own_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("heap.game");
    write(&file, &format!("{HEAP}let LIMIT = 10\nprint \"loaded\"\n"));
    let mut d = Driver::new();
    let out = d.ok(&format!(":load {}", file.display()));
    assert_eq!(
        out,
        format!("loaded\nloaded {}: Heap, LIMIT\n", file.display())
    );
    d.ok("fn f(n) = sg(Heap(n))");
    assert_eq!(d.ok("f(3)"), "0\n");

    // Take up to three now; a new game; LIMIT unchanged apart from layout.
    write(
        &file,
        "# edited\ngame Heap(n) where n >= 0 { move take(k in {1, 2, 3}) if k <= n -> Heap(n - k) }\n\
         let LIMIT =   10\ngame Other() { }\n",
    );
    let out = d.ok(":reload");
    assert_eq!(
        out,
        format!("reloaded {}: changed Heap; added Other\n", file.display())
    );
    assert_eq!(d.ok("f(3)"), "3\n", "your f uses the new Heap");
    assert_eq!(d.ok("sg(Other())"), "0\n");
    assert_eq!(
        d.ok(":reload"),
        format!("reloaded {}: no changes\n", file.display())
    );

    // A removed definition goes away.
    write(
        &file,
        "game Heap(n) where n >= 0 { move take(k in {1, 2, 3}) if k <= n -> Heap(n - k) }\n",
    );
    assert!(d.ok(":reload").contains("removed LIMIT, Other"));
    assert!(d.input("LIMIT").err.contains("unknown name `LIMIT`"));
}

#[test]
fn reload_of_a_broken_file_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("heap.game");
    write(&file, HEAP);
    let mut d = Driver::new();
    d.ok(&format!(":load {}", file.display()));
    write(&file, "game Heap(n where n >= 0 { }\n");
    let e = d.input(":reload");
    assert!(e.err.contains("grundy::syntax"), "{}", e.err);
    assert!(e.err.contains("reload stopped"), "{}", e.err);
    assert_eq!(d.ok("sg(Heap(4))"), "1\n", "the old Heap is still there");
    std::fs::remove_file(&file).unwrap();
    assert!(d.input(":reload").err.contains("cannot read"));
    assert_eq!(d.ok("sg(Heap(4))"), "1\n");
}

#[test]
fn reload_drops_an_entry_that_no_longer_works() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("h.game");
    write(&file, HEAP);
    let mut d = Driver::new();
    d.ok(&format!(":load {}", file.display()));
    d.ok("let v = sg(Heap(5))");
    write(&file, "game Heap(n) where n >= 10 { }\n");
    let a = d.input(":reload");
    assert!(
        a.err
            .contains("dropped your earlier entry `let v = sg(Heap(5))`"),
        "{}",
        a.err
    );
    assert!(a.err.contains("grundy::where"), "{}", a.err);
    assert!(d.input("v").err.contains("unknown name `v`"));
}

#[test]
fn commands_answer() {
    let mut d = Driver::new();
    d.ok(HEAP);
    d.ok("fn g(n) = n");
    let games = d.ok(":games");
    assert!(
        games.starts_with("Heap(n) where n >= 0  1 move rule  <repl 1>:1\n"),
        "{games}"
    );
    assert!(d.ok(":help").contains(":reload"));
    assert!(d.ok(":help sg").contains("Sprague-Grundy value"));
    assert!(d.ok(":help g").contains("fn g(n) = n"));
    assert!(d.input(":help nothing_like_it").err.contains("no help for"));
    assert_eq!(d.ok(":time"), "timing on\n");
    let a = d.input("sg(Heap(30))");
    assert_eq!(a.out, "0\n");
    assert!(
        a.err.starts_with("time: ") && a.err.ends_with(" ms\n"),
        "{}",
        a.err
    );
    assert_eq!(d.ok(":time off"), "timing off\n");
    assert!(d.ok("sg(Heap(31))") == "1\n");
    let cleared = d.ok(":clear");
    assert!(cleared.starts_with("memo tables cleared ("), "{cleared}");
    assert!(!cleared.contains("(0 positions"), "{cleared}");
    assert_eq!(
        d.ok(":clear"),
        "memo tables cleared (0 positions dropped)\n"
    );
    assert_eq!(d.ok("sg(Heap(31))"), "1\n", "values come back after :clear");
    let e = d.input(":relaod");
    assert!(e.err.contains("unknown command `:relaod`") && e.err.contains(":reload"));
    assert!(d.input(":load").err.contains("needs a file"));
    assert!(d
        .input(":load /no/such/file.game")
        .err
        .contains("cannot read"));
    assert_eq!(d.input(":quit").flow, Flow::Quit);
    assert_eq!(d.input("").flow, Flow::Continue);
}

#[test]
fn completion_words_follow_the_session() {
    let mut d = Driver::new();
    d.ok(HEAP);
    d.ok("let LIMIT = 3");
    let words = d.repl.words();
    assert!(words.games.contains("Heap"));
    assert!(words.defined.contains("LIMIT"));
    let (start, found) = grundy::repl::editor::complete(&words, "sg(He", 5);
    assert_eq!((start, found), (3, vec!["Heap".to_string()]));
}

#[test]
fn load_and_reload_keep_a_file_whose_assertion_fails() {
    // One rule for both: a file that parses and resolves is loaded, its
    // failed assertions reported; `:reload` of the same file does the same.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("half.game");
    write(
        &file,
        &format!("{HEAP}let x = 2\nassert x == 3\nlet y = 5\n"),
    );
    let mut d = Driver::new();
    d.ok("let x = 1");
    let a = d.input(&format!(":load {}", file.display()));
    assert!(a.err.contains("grundy::assert"), "{}", a.err);
    assert!(
        a.err.contains("loaded with 1 failed assertion"),
        "{}",
        a.err
    );
    assert!(a.out.contains("loaded"), "{}", a.out);
    assert_eq!(
        d.ok("x + y"),
        "7\n",
        "the file's definitions are in the session"
    );
    assert_eq!(d.ok("sg(Heap(4))"), "1\n");

    write(
        &file,
        &format!("{HEAP}let x = 20\nassert x == 30\nlet y = 50\n"),
    );
    let a = d.input(":reload");
    assert!(a.err.contains("grundy::assert"), "{}", a.err);
    assert!(a.out.contains("reloaded"), "{}", a.out);
    assert_eq!(d.ok("x + y"), "70\n", "reload keeps the changes too");

    // Fixed, it loads without a word on errors.
    write(&file, "let x = 2\nlet y = 3\n");
    let a = d.input(&format!(":load {}", file.display()));
    assert!(a.err.is_empty(), "{}", a.err);
    assert_eq!(d.ok("x + y"), "5\n");
}

#[test]
fn a_load_stopped_by_an_error_keeps_what_ran_and_a_broken_file_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("half.game");
    write(&file, "let x = 2\nlet y = 3\nlet z = 1 / 0\nlet w = 4\n");
    let mut d = Driver::new();
    d.ok("let x = 1");
    let a = d.input(&format!(":load {}", file.display()));
    assert!(a.err.contains("grundy::division_by_zero"), "{}", a.err);
    assert!(a.err.contains("loaded with an error"), "{}", a.err);
    assert_eq!(d.ok("x + y"), "5\n");

    // A syntax error (or an unknown name) stops it before it runs.
    let broken = dir.path().join("broken.game");
    write(&broken, "let x = 100\nlet v = (\n");
    let a = d.input(&format!(":load {}", broken.display()));
    assert!(a.err.contains("grundy::syntax"), "{}", a.err);
    assert!(a.err.contains("nothing from"), "{}", a.err);
    assert!(!a.out.contains("loaded"), "{}", a.out);
    assert_eq!(d.ok("x"), "2\n");
    assert!(d.input("v").err.contains("unknown name"));
}

#[test]
fn interrupts_and_timeouts_reach_function_calls() {
    let mut d = Driver::new();
    d.ok(PAIR);
    assert_eq!(d.ok("sg(Pair(20, 21))"), "1\n");
    d.ok("fn f(n) = if n == 0 then 1 else f(n - 1) + f(n - 1)");
    let flag = d.repl.interrupt();
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let started = Instant::now();
    let a = d.input("f(60)");
    setter.join().unwrap();
    assert!(a.err.contains("grundy::interrupted"), "{}", a.err);
    assert!(a.err.contains("while evaluating `f(60)`"), "{}", a.err);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(d.ok(":timeout 0.3"), "timeout 0.3 s per entry\n");
    let a = d.input("f(60)");
    assert!(a.err.contains("grundy::timeout"), "{}", a.err);
    // The session and its memo survive.
    let stored = d.repl.session().runtime().stored.get();
    assert!(stored > 0);
    assert_eq!(d.ok(":timeout off"), "no timeout\n");
    assert_eq!(d.ok("f(3)"), "8\n");
    assert_eq!(d.repl.session().runtime().stored.get(), stored);
}

#[test]
fn interrupt_stops_a_computation_and_keeps_the_session() {
    let mut d = Driver::new();
    d.ok(PAIR);
    let flag = d.repl.interrupt();
    let started = Instant::now();
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let a = d.input("sg(Pair(3000, 3000))");
    setter.join().unwrap();
    let took = started.elapsed();
    assert!(a.err.contains("grundy::interrupted"), "{}", a.err);
    // Uninterrupted, this search runs for minutes in a test build; the
    // bound leaves room for a loaded machine.
    assert!(took < Duration::from_secs(5), "stopped after {took:?}");
    let stored = d.repl.session().runtime().stored.get();
    assert!(stored > 0, "the memo tables keep what was computed");
    assert_eq!(d.ok("sg(Pair(20, 21))"), "1\n");
    assert_eq!(d.ok("sg(Pair(2, 2))"), "0\n");
}

// ------------------------------------------------------------------ :play

const NIM: &str = "game N(n) where n >= 0 { move take(k in 1..=n) -> N(n - k) }\n";

/// Steinhaus remoteness of a Nim position, by its recursive definition
/// over sorted heaps (normal play: even exactly at P-positions).
fn nim_remoteness(heaps: &[u64], memo: &mut std::collections::HashMap<Vec<u64>, u64>) -> u64 {
    let mut key = heaps.to_vec();
    key.sort_unstable();
    if let Some(&r) = memo.get(&key) {
        return r;
    }
    let options: Vec<u64> = nim_options(&key)
        .iter()
        .map(|o| nim_remoteness(o, memo))
        .collect();
    let even = options.iter().filter(|r| *r % 2 == 0).min();
    let r = match (options.iter().max(), even) {
        (None, _) => 0,
        (_, Some(e)) => 1 + e,
        (Some(m), None) => 1 + m,
    };
    memo.insert(key, r);
    r
}

fn nim_options(heaps: &[u64]) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    for (i, &h) in heaps.iter().enumerate() {
        for smaller in 0..h {
            let mut o = heaps.to_vec();
            o[i] = smaller;
            out.push(o);
        }
    }
    out
}

/// The heaps of a position shown as `N(3) + N(0) + N(2)`.
fn heaps_of(text: &str) -> Vec<u64> {
    text.split(" + ")
        .map(|p| {
            p.trim()
                .trim_start_matches("N(")
                .trim_end_matches(')')
                .parse()
                .unwrap_or_else(|_| panic!("a heap: {p} in {text}"))
        })
        .collect()
}

/// The position after `-> ` on the line starting with `who`, and the
/// number at the end of its parenthesised remark.
fn reply(out: &str, who: &str) -> Option<(String, String)> {
    let line = out.lines().find(|l| l.starts_with(who))?;
    let (_, rest) = line.split_once("-> ")?;
    let (to, why) = rest.split_once("  (").unwrap_or((rest, ""));
    Some((to.to_string(), why.to_string()))
}

/// The program's replies are perfect: from each position the user leaves,
/// a move to a P-position of least remoteness when there is one, otherwise
/// one of greatest remoteness (checked by a brute-force remoteness of Nim
/// written here), until the game ends with who won.
#[test]
fn play_replies_with_perfect_moves() {
    let mut memo = std::collections::HashMap::new();
    for (start, picks) in [
        ("N(3) + N(2) + N(1)", ["1"; 12]),
        ("N(4) + N(4)", ["2"; 12]),
        ("N(2) + N(5) + N(3)", ["3"; 12]),
        // The first move is the winning one: the program must resist.
        ("N(1) + N(2) + N(2)", ["1"; 12]),
    ] {
        let mut d = Driver::new();
        d.ok(NIM);
        let shown = d.ok(&format!(":play {start}"));
        assert!(shown.contains(&format!("{start}  sg ")), "{shown}");
        assert!(d.repl.playing());
        let (mut winning, mut resisting) = (0, 0);
        let mut over = false;
        for pick in picks {
            // The move numbered `pick`, or the first when there are fewer.
            let tried = d.input(pick);
            let a = if tried.err.contains("there is no move") {
                d.ok("1")
            } else {
                assert!(tried.err.is_empty(), "{pick}: {}", tried.err);
                tried.out
            };
            let (yours, _) = reply(&a, "you: ").expect("the user's move is echoed");
            let before = heaps_of(&yours);
            if let Some((mine, why)) = reply(&a, "me:  ") {
                let after = heaps_of(&mine);
                let options: Vec<u64> = nim_options(&before)
                    .iter()
                    .map(|o| nim_remoteness(o, &mut memo))
                    .collect();
                let r = nim_remoteness(&after, &mut memo);
                assert!(nim_options(&before).contains(&after), "{a}");
                if options.iter().any(|r| r % 2 == 0) {
                    winning += 1;
                    let best = options.iter().filter(|r| *r % 2 == 0).min().unwrap();
                    assert_eq!(r, *best, "not the quickest win: {a}");
                    assert_eq!(after.iter().fold(0, |x, h| x ^ h), 0, "{a}");
                } else {
                    resisting += 1;
                    assert_eq!(r, *options.iter().max().unwrap(), "not the longest: {a}");
                }
                assert!(why.contains(&format!("{r} more moves")), "{a}");
            }
            if a.contains("game over") {
                over = true;
                let user_moved_last = !a.contains("me:  ");
                let expected = if user_moved_last {
                    "so you win"
                } else {
                    "so I win"
                };
                assert!(a.contains(expected), "{a}");
                assert!(!d.repl.playing());
                break;
            }
        }
        assert!(over, "{start}: the game ends");
        assert!(winning > 0, "{start}: some reply wins");
        if start == "N(1) + N(2) + N(2)" {
            assert!(resisting > 0, "{start}: a lost position resists");
        }
    }
}

#[test]
fn play_undo_takes_back_a_move_pair() {
    let mut d = Driver::new();
    d.ok(NIM);
    let start = d.ok(":play N(3) + N(5) + N(6)");
    let first = d.ok("1");
    assert!(first.contains("me:  "), "{first}");
    let back = d.ok("undo");
    assert!(
        back.starts_with("took back your last move and my reply\n"),
        "{back}"
    );
    // The start again, listed as at first.
    let listing = |s: &str| {
        let shown = s
            .lines()
            .skip_while(|l| !l.starts_with("N(3) + N(5) + N(6)"));
        shown.collect::<Vec<_>>().join("\n")
    };
    assert!(listing(&start).lines().count() > 5, "{start}");
    assert_eq!(listing(&back), listing(&start));
    let e = d.input("undo");
    assert!(e.err.contains("nothing to undo"), "{}", e.err);
    assert!(d.repl.playing(), "the game goes on");
    // Twice forward, twice back.
    d.ok("1");
    d.ok("1");
    d.ok("undo");
    let again = d.ok("undo");
    assert_eq!(listing(&again), listing(&start));
}

#[test]
fn play_says_what_is_wrong_with_an_input_and_goes_on() {
    let mut d = Driver::new();
    d.ok(NIM);
    d.ok(":play N(3) + N(2) + N(4)");
    for (input, message) in [
        (
            "10",
            "there is no move 10 here: the moves are numbered 1 to 9",
        ),
        ("0", "there is no move 0 here"),
        ("-2", "there is no move -2 here"),
        ("99999999999999999999", "is not a move here"),
        ("frobnicate", "`frobnicate` is not a move here"),
        ("take", "`take` names 9 moves: 1, 2, 3, 4, 5, 6, 7, 8, 9"),
        ("sg(N(3))", "is not a move here"),
    ] {
        let a = d.input(input);
        assert!(a.err.contains(message), "{input}: {}", a.err);
        assert!(a.err.contains("help: "), "{input}: {}", a.err);
        assert!(d.repl.failed());
        assert_eq!(a.out, "", "{input}");
        assert!(d.repl.playing(), "{input}: the game goes on");
    }
    // A move by its name as listed, spaces aside, or by where it leads.
    let a = d.ok("[1] take(k = 2)");
    assert!(
        a.starts_with("you: [1] take(k=2) -> N(3) + N(0) + N(4)\n"),
        "{a}"
    );
    d.ok("undo");
    let a = d.ok("N(1) + N(2) + N(4)");
    assert!(
        a.starts_with("you: [0] take(k=2) -> N(1) + N(2) + N(4)\n"),
        "{a}"
    );
    // Commands still work; `quit` leaves the game, not the session.
    assert!(d.ok(":help play").contains(":play GAME"));
    let a = d.ok("quit");
    assert!(a.starts_with("game left at "), "{a}");
    assert!(!d.repl.playing());
    assert_eq!(d.ok("sg(N(3) + N(1))"), "2\n");
}

#[test]
fn play_ends_with_who_won_and_refuses_what_is_no_game() {
    let mut d = Driver::new();
    d.ok(HEAP);
    d.ok(":play Heap(2)");
    let a = d.ok("take(k=2)");
    assert_eq!(
        a,
        "you: take(k=2) -> Heap(0)\ngame over at Heap(0): I have no move, so you win\n"
    );
    assert!(!d.repl.playing());
    // Under misère play the last mover loses.
    d.ok(":play misere(Heap(1))");
    let a = d.ok("1");
    assert!(
        a.contains("I have no move, so I win (misère play: the last mover loses)"),
        "{a}"
    );
    // From Heap(3) (a P-position of take 1 or 2) the program wins.
    d.ok(":play Heap(3)");
    let a = d.ok("1");
    assert!(a.contains("me:  take(k=2) -> Heap(0)"), "{a}");
    assert!(a.contains("you have no move, so I win"), "{a}");
    // Nothing to play, and what is not a game.
    let a = d.ok(":play Heap(0)");
    assert_eq!(a, "Heap(0) has no move: there is nothing to play\n");
    assert!(!d.repl.playing());
    for (input, kind) in [
        (":play 5", "grundy::type"),
        (":play Nope(1)", "grundy::unknown_name"),
        (":play Heap(", "grundy::syntax"),
        (":play let x = 3", "expected one expression"),
    ] {
        let e = d.input(input);
        assert!(e.err.contains(kind), "{input}: {}", e.err);
        assert!(!d.repl.playing(), "{input}");
    }
    let e = d.input(":play");
    assert!(e.err.contains("`:play` needs a game"), "{}", e.err);
    // A failed `:play` leaves a game being played as it was.
    d.ok(":play Heap(4)");
    d.input(":play 5");
    assert!(d.repl.playing());
    assert!(d.ok("1").contains("you: take(k=1) -> Heap(3)"));
}

// ------------------------------------------------------------ piped input

fn grundy() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_grundy"));
    cmd.env("GRUNDY_HISTORY", "").env_remove("NO_COLOR");
    cmd
}

#[test]
fn piped_input_reads_multi_line_entries_quietly() {
    let mut child = grundy()
        .arg("repl")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = format!(
        "{PAIR}\nprint sg(Pair(3, 5)),\n  sg(Pair(4, 4))\nsg(Pair(200, 200))\nlet y = 1 / 0\n:games\n"
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success());
    assert!(
        stdout.starts_with("6 0\n0\nPair(a, b) where a >= 0 and b >= 0  2 move rules"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("grundy>"),
        "no prompt when piped: {stdout}"
    );
    assert!(stderr.contains("grundy::division_by_zero"), "{stderr}");
    assert!(
        !stderr.contains("\x1b["),
        "no colours when piped: {stderr:?}"
    );
    assert!(
        !stderr.contains("computing"),
        "no spinner when piped: {stderr}"
    );
}

// ------------------------------------------------------- pseudo-terminal

mod pty {
    use super::*;
    use rexpect::reader::Options;
    use rexpect::session::{spawn_with_options, PtySession};

    fn spawn(history: &Path, args: &[&str]) -> PtySession {
        let mut cmd = grundy();
        cmd.arg("repl")
            .args(args)
            .env("GRUNDY_HISTORY", history)
            .env("TERM", "xterm");
        let options = Options::new()
            .timeout_ms(Some(10_000))
            .strip_ansi_escape_codes(true);
        spawn_with_options(cmd, options).expect("spawn grundy repl")
    }

    /// Waits for a fresh prompt: typing earlier could race the editor's
    /// start (it asks the terminal for the cursor position first).
    fn ready(p: &mut PtySession) {
        p.exp_string("grundy> ").expect("a prompt");
    }

    fn escape(s: &str) -> String {
        regex::escape(s)
    }

    /// At the next prompt, types a line and waits until the editor has
    /// taken it (its end is echoed and followed by a newline).
    fn enter(p: &mut PtySession, line: &str) {
        ready(p);
        p.send_line(line).unwrap();
        let tail: String = line
            .chars()
            .rev()
            .take(10)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        p.exp_regex(&format!("{}\r*\n", escape(&tail)))
            .unwrap_or_else(|e| panic!("`{line}` was not taken: {e}"));
    }

    /// Waits for an answer line: the text alone on its line.
    fn answer(p: &mut PtySession, text: &str) {
        p.exp_regex(&format!("(^|\n)\r*{}\r*\n", escape(text)))
            .unwrap_or_else(|e| panic!("no answer `{text}`: {e}"));
    }

    #[test]
    fn a_user_session() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("heap.game");
        write(&file, HEAP);
        let history = dir.path().join("history.txt");
        let mut p = spawn(&history, &[file.to_str().unwrap()]);

        // A game over several lines: the open `{` continues the entry.
        ready(&mut p);
        p.send_line("game Pair(a, b) where a >= 0 and b >= 0 {")
            .unwrap();
        p.send_line("  move left(k in 1..=a) -> Pair(a - k, b)")
            .unwrap();
        enter(&mut p, "  move right(k in 1..=b) -> Pair(a, b - k) }");

        // Tab completes `Pa` to `Pair`.
        ready(&mut p);
        p.send("sg(Pa").unwrap();
        p.flush().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        p.send("\t(3, 5))\r").unwrap();
        p.flush().unwrap();
        answer(&mut p, "6");

        // An error, then carry on.
        enter(&mut p, "sg(Pair(1, -1))");
        p.exp_string("grundy::where").unwrap();
        p.exp_string("is not a position of Pair").unwrap();
        enter(&mut p, "winning(Pair(3, 5))");
        answer(&mut p, "* right(k=2)  -> Pair(3, 3)  sg 0");

        // Edit the loaded file and reload.
        enter(&mut p, "sg(Heap(3))");
        answer(&mut p, "0");
        write(
            &file,
            "game Heap(n) where n >= 0 { move take(k in 1..=n) -> Heap(n - k) }\n",
        );
        enter(&mut p, ":reload");
        p.exp_string("changed Heap").unwrap();
        enter(&mut p, "sg(Heap(3))");
        answer(&mut p, "3");

        // A long computation shows a spinner; Ctrl-C stops it quickly.
        enter(&mut p, "sg(Pair(3000, 3000))");
        p.exp_string("computing").unwrap();
        let sent = Instant::now();
        p.send_control('c').unwrap();
        p.exp_string("grundy::interrupted").unwrap();
        let took = sent.elapsed();
        assert!(took < Duration::from_secs(1), "Ctrl-C took {took:?}");
        enter(&mut p, "sg(Pair(20, 21))");
        answer(&mut p, "1");

        // Ctrl-C at the prompt drops the half-typed line (even an open one).
        ready(&mut p);
        p.send("sg(Pair(1,").unwrap();
        p.flush().unwrap();
        p.exp_string("sg(Pair(1,").unwrap();
        p.send_control('c').unwrap();
        enter(&mut p, "2 + 2");
        answer(&mut p, "4");

        // Ctrl-D at the prompt quits.
        ready(&mut p);
        p.send_control('d').unwrap();
        p.exp_eof().unwrap();
    }

    #[test]
    fn history_is_kept_between_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let history = dir.path().join("sub").join("history.txt");
        let mut p = spawn(&history, &[]);
        enter(&mut p, "3 * 14");
        answer(&mut p, "42");
        ready(&mut p);
        p.send_control('d').unwrap();
        p.exp_eof().unwrap();
        let saved = std::fs::read_to_string(&history).unwrap();
        assert!(saved.lines().any(|l| l == "3 * 14"), "{saved}");

        let mut p = spawn(&history, &[]);
        // Up arrow brings back the entry of the last session.
        ready(&mut p);
        p.send("\x1b[A").unwrap();
        p.flush().unwrap();
        p.exp_string("3 * 14").unwrap();
        p.send("\r").unwrap();
        p.flush().unwrap();
        answer(&mut p, "42");
        ready(&mut p);
        p.send_control('d').unwrap();
        p.exp_eof().unwrap();
    }

    #[test]
    fn lines_typed_ahead_during_a_computation_all_run() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = spawn(&dir.path().join("history.txt"), &[]);
        enter(
            &mut p,
            "fn f(n) = if n == 0 then 1 else f(n - 1) + f(n - 1)",
        );
        // 2^23 calls: the lines below arrive while it computes.
        enter(&mut p, "f(22)");
        p.send("10 + 1\r20 + 2\r30 + 3\r").unwrap();
        p.flush().unwrap();
        p.exp_string("4194304").unwrap();
        for (line, value) in [("10 + 1", "11"), ("20 + 2", "22"), ("30 + 3", "33")] {
            p.exp_string(&format!("grundy> {line}")).unwrap();
            answer(&mut p, value);
        }
        ready(&mut p);
        p.send_control('d').unwrap();
        p.exp_eof().unwrap();
    }

    #[test]
    fn a_block_pasted_at_the_prompt_runs_entry_by_entry() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = spawn(&dir.path().join("history.txt"), &[]);
        ready(&mut p);
        // No bracketed paste: the lines arrive as typed, in one burst.
        let block = "let a = 4\rlet b = 5\rgame G(n) where n >= 0 {\r  move t -> G(n - 1)\r}\r\rprint a * b, sg(G(3))\r";
        p.send(block).unwrap();
        p.flush().unwrap();
        p.exp_string("20 1").unwrap();
        ready(&mut p);
        p.send_control('d').unwrap();
        p.exp_eof().unwrap();
    }
}

#[test]
fn compound_queries_after_clear_find_their_atoms_again() {
    // A compiled query keeps the last atom of each position it asked
    // (`GamePlan`); `:clear` drops the product tables and their atoms, so
    // the same compiled function (`t` and `same`, whose comprehensions are
    // compiled once, not put in place) asked again, the same positions
    // first, finds them anew: the same values as before, against the
    // definition; then the game and functions defined again.
    let mut d = Driver::new();
    let define = |d: &mut Driver, takes: &str| {
        d.ok(&format!(
            "game H(n) where n >= 0 {{ move take(k in {takes}) if k <= n -> H(n - k) }}"
        ));
        d.ok("fn v(a, b, c, p) = if p == 1 then sg(pass(H(a) + H(b) + H(c))) else sg(H(a) + H(b) + H(c))");
        d.ok("fn t(n) = [v(a, b, c, p) for p in 0..=1, a in 0..=n, b in 0..=n, c in 0..=n]");
        d.ok("fn same(n) = [v(n, n, n, p) for p in 0..=1]");
    };
    let expected = |takes: &[usize], hs: &mut dyn Iterator<Item = ([usize; 3], u32)>| {
        let mut memo = std::collections::HashMap::new();
        let all: Vec<String> = hs
            .map(|(hs, p)| {
                crate::compounds::brute_pass_of_subtraction(&hs, p, takes, &mut memo).to_string()
            })
            .collect();
        format!("[{}]\n", all.join(", "))
    };
    let table = |takes: &[usize]| {
        let mut hs = (0..=1u32).flat_map(|p| {
            (0..=4)
                .flat_map(move |a| (0..=4).flat_map(move |b| (0..=4).map(move |c| ([a, b, c], p))))
        });
        expected(takes, &mut hs)
    };
    let same = |takes: &[usize]| expected(takes, &mut (0..=1u32).map(|p| ([4, 4, 4], p)));
    define(&mut d, "{1, 2}");
    assert_eq!(d.ok("t(4)"), table(&[1, 2]));
    assert_eq!(d.ok("same(4)"), same(&[1, 2]));
    d.ok(":clear");
    assert_eq!(d.ok("same(4)"), same(&[1, 2]), "after :clear");
    assert_eq!(d.ok("t(4)"), table(&[1, 2]), "after :clear");
    d.ok(":clear");
    define(&mut d, "{1, 3}");
    assert_eq!(d.ok("same(4)"), same(&[1, 3]), "a game defined again");
    assert_eq!(d.ok("t(4)"), table(&[1, 3]), "a game defined again");
}

#[test]
fn compound_queries_after_reload_use_the_new_game() {
    // A compound query keeps its components' atoms between queries; after
    // `:reload` changes a `let` the game reads, or the game itself, the
    // same function asks the new game (a game of the same name, the same
    // arguments), against the definition.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("h.game");
    let game = |takes: &str, set: &str| {
        format!(
            "let S = {set}\n\
             game H(n) where n >= 0 {{ move take(k in {takes}) if k <= n -> H(n - k) }}\n"
        )
    };
    write(&file, &game("S", "{1, 2}"));
    let mut d = Driver::new();
    d.ok(&format!(":load {}", file.display()));
    d.ok("fn q(a, b, c) = sg(pass(H(a) + H(b) + H(c)))");
    d.ok("fn s(a, b) = sg(H(a) + H(b))");
    let table = "[q(a, b, c) for a in 0..=5, b in 0..=5, c in 0..=5] + [s(a, b) for a in 0..=5, b in 0..=5]";
    let expected = |takes: &[usize]| {
        let mut memo = std::collections::HashMap::new();
        let mut v = |hs: &[usize], p| {
            crate::compounds::brute_pass_of_subtraction(hs, p, takes, &mut memo).to_string()
        };
        let mut all = Vec::new();
        for a in 0..=5 {
            for b in 0..=5 {
                for c in 0..=5 {
                    all.push(v(&[a, b, c], 1));
                }
            }
        }
        for a in 0..=5 {
            for b in 0..=5 {
                all.push(v(&[a, b], 0));
            }
        }
        format!("[{}]\n", all.join(", "))
    };
    assert_eq!(d.ok(table), expected(&[1, 2]));
    assert_eq!(d.ok(table), expected(&[1, 2]), "asked again");
    write(&file, &game("S", "{1, 3}"));
    d.ok(":reload");
    assert_eq!(d.ok(table), expected(&[1, 3]), "a changed let");
    write(&file, &game("{2, 3}", "{1, 3}"));
    d.ok(":reload");
    assert_eq!(d.ok(table), expected(&[2, 3]), "a changed game");
}
