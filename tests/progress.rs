//! A long comprehension reports the progress of its outer loop, which the
//! REPL draws as a bar; nothing is reported once it is done.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc;
use std::time::Duration;

use grundy::{Limits, Session};

#[test]
fn the_outer_loop_of_a_long_comprehension_reports_progress() {
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let mut session = Session::new(Limits::default());
        tx.send(session.runtime().progress.clone()).unwrap();
        let text = "
            game Pair(a, b) where a >= 0 and b >= 0 {
                move left(k in 1..=a) -> Pair(a - k, b)
                move right(k in 1..=b) -> Pair(a, b - k)
            }
            assert all(sg(Pair(a, b)) == a ^ b for a in 0..400, b in 0..400)";
        session.run("progress", text, &mut Vec::new()).ok()
    });
    let progress = rx.recv().unwrap();
    let mut seen = Vec::new();
    while !worker.is_finished() {
        let total = progress.total.load(Relaxed);
        if total > 0 {
            seen.push((progress.done.load(Relaxed), total));
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    assert!(worker.join().unwrap(), "the assertion holds");
    assert!(!seen.is_empty(), "progress was reported while the loop ran");
    assert!(seen.iter().all(|&(done, total)| total == 400 && done < 400));
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "done only grows");
    assert_eq!(progress.total.load(Relaxed), 0, "cleared at the end");
}
