//! While a REPL entry or `grundy run` computes: Ctrl-C stops the
//! computation (it sets the runtime's interrupt flag, which the search and
//! loops check), and after a quiet moment an `indicatif` spinner with the
//! elapsed time and the memory in use against `--max-memory` shows on the
//! terminal, turning into a progress bar while a comprehension's outer loop
//! reports progress: a search of minutes shows what it is doing, and how
//! close it is to its limit. Output written meanwhile goes through [`Suspending`]
//! writers, which take the spinner off the screen while they write.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::eval::compile::Progress;

/// How long a computation runs before the spinner appears.
const SPINNER_DELAY: Duration = Duration::from_millis(400);
const TICK: Duration = Duration::from_millis(100);
/// The spinner's frames (the last one is shown when it is done).
const FRAMES: &str = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏ ";

pub struct Busy {
    running: Arc<AtomicBool>,
    interrupt: Arc<AtomicBool>,
    progress: Arc<Progress>,
    /// Whether to draw the spinner (standard error is a terminal).
    spinner: bool,
}

impl Busy {
    /// Installs the Ctrl-C handler: while something runs, Ctrl-C sets
    /// `interrupt`; a second Ctrl-C before the first is noticed, or one
    /// while nothing runs (not typed at the prompt, where the line editor
    /// reads it as a key), ends the program.
    pub fn install(interrupt: Arc<AtomicBool>, progress: Arc<Progress>) -> Busy {
        let running = Arc::new(AtomicBool::new(false));
        let (r, i) = (running.clone(), interrupt.clone());
        let installed = ctrlc::set_handler(move || {
            if r.load(Ordering::SeqCst) && !i.swap(true, Ordering::SeqCst) {
                return;
            }
            eprintln!("\ninterrupted");
            std::process::exit(130);
        });
        if let Err(e) = installed {
            eprintln!("warning: Ctrl-C will end the program: {e}");
        }
        Busy {
            running,
            interrupt,
            progress,
            spinner: std::io::stderr().is_terminal(),
        }
    }

    /// Runs `f` with writers for standard output and error that keep clear
    /// of the spinner; Ctrl-C during `f` interrupts it.
    pub fn run<T>(&self, f: impl FnOnce(&mut dyn Write, &mut dyn Write) -> T) -> T {
        self.interrupt.store(false, Ordering::SeqCst);
        self.running.store(true, Ordering::SeqCst);
        let shared = Arc::new(Mutex::new(Spinner::new(Box::new(
            ProgressDrawTarget::stderr,
        ))));
        let (done, stop) = mpsc::channel::<()>();
        let ticker = self.spinner.then(|| {
            let shared = shared.clone();
            let progress = self.progress.clone();
            std::thread::spawn(move || spin(&shared, &stop, &progress))
        });
        let mut out = Suspending::new(io::stdout(), shared.clone());
        let mut err = Suspending::new(io::stderr(), shared.clone());
        let value = f(&mut out, &mut err);
        let _ = out.flush();
        self.running.store(false, Ordering::SeqCst);
        drop(done);
        if let Some(t) = ticker {
            let _ = t.join();
        }
        value
    }
}

/// The spinner while it is on the screen, and since when nothing was
/// written.
pub struct Spinner {
    bar: Option<ProgressBar>,
    /// Whether the bar is drawn as a progress bar (else as a spinner).
    as_bar: bool,
    started: Instant,
    quiet_since: Instant,
    /// Where the spinner is drawn: standard error.
    screen: Box<dyn Fn() -> ProgressDrawTarget + Send>,
}

impl Spinner {
    fn new(screen: Box<dyn Fn() -> ProgressDrawTarget + Send>) -> Spinner {
        Spinner {
            bar: None,
            as_bar: false,
            started: Instant::now(),
            quiet_since: Instant::now(),
            screen,
        }
    }

    /// Takes the spinner off the screen; it comes back after a quiet
    /// moment, with its elapsed time going on.
    fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// The spinner's line: a frame, the elapsed time, a bar with the percentage
/// when the outer loop reports `(done, total)`, the memory (its message,
/// [`memory`]), the way out. Short, so that the terminal's `^C` echo does
/// not wrap it.
fn style(as_bar: bool) -> ProgressStyle {
    let template = if as_bar {
        "{spinner} computing {elapsed_precise} [{bar:12}] {percent}%, {msg} (Ctrl-C stops it)"
    } else {
        "{spinner} computing {elapsed_precise}, {msg} (Ctrl-C stops it)"
    };
    ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
        .tick_chars(FRAMES)
        .progress_chars("#-")
}

/// The memory in use against the limit: `1.2 GiB of 16 GiB`.
fn memory() -> String {
    use crate::budget::{human, in_use, limit};
    format!("{} of {}", human(in_use()), human(limit()))
}

/// The progress of the tracked loop, if one runs.
fn progress_of(p: &Progress) -> Option<(u64, u64)> {
    let total = p.total.load(Ordering::Relaxed);
    (total > 0).then(|| (p.done.load(Ordering::Relaxed), total))
}

/// The spinner thread: shows the spinner once nothing has been written for
/// [`SPINNER_DELAY`], then keeps it turning and its bar up to date, until
/// `stop` closes; then clears it.
fn spin(shared: &Mutex<Spinner>, stop: &mpsc::Receiver<()>, progress: &Progress) {
    while stop.recv_timeout(TICK) == Err(RecvTimeoutError::Timeout) {
        let Ok(mut s) = shared.lock() else { return };
        let fraction = progress_of(progress);
        if s.bar.is_none() && s.quiet_since.elapsed() >= SPINNER_DELAY {
            s.as_bar = fraction.is_some();
            let bar = ProgressBar::with_draw_target(None, (s.screen)())
                .with_style(style(s.as_bar))
                .with_elapsed(s.started.elapsed())
                .with_message(memory());
            s.bar = Some(bar);
        }
        let as_bar = fraction.is_some();
        let restyle = as_bar != s.as_bar;
        s.as_bar = as_bar;
        let Some(bar) = &s.bar else { continue };
        if restyle {
            bar.set_style(style(as_bar));
        }
        if let Some((done, total)) = fraction {
            bar.set_length(total);
            bar.set_position(done.min(total));
        }
        bar.set_message(memory());
        bar.tick();
    }
    if let Ok(mut s) = shared.lock() {
        s.clear();
    }
}

/// A writer that takes the spinner (if shown) off the screen while it
/// writes.
pub struct Suspending<W: Write> {
    inner: W,
    shared: Arc<Mutex<Spinner>>,
}

impl<W: Write> Suspending<W> {
    pub fn new(inner: W, shared: Arc<Mutex<Spinner>>) -> Suspending<W> {
        Suspending { inner, shared }
    }
}

impl<W: Write> Write for Suspending<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Ok(mut s) = self.shared.lock() else {
            return self.inner.write(buf);
        };
        s.clear();
        s.quiet_since = Instant::now();
        // Written under the lock, so that the spinner cannot cut in.
        let n = self.inner.write(buf)?;
        self.inner.flush()?;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::InMemoryTerm;

    fn shared(screen: &InMemoryTerm) -> Arc<Mutex<Spinner>> {
        let screen = screen.clone();
        let s = Spinner::new(Box::new(move || {
            ProgressDrawTarget::term_like(Box::new(screen.clone()))
        }));
        Arc::new(Mutex::new(s))
    }

    /// Runs the spinner thread until `until` holds of the screen (or two
    /// seconds pass); returns whether it did, and the screen after the end.
    fn spin_until(
        screen: &InMemoryTerm,
        progress: Progress,
        until: impl Fn(&str) -> bool,
    ) -> (bool, String) {
        let s = shared(screen);
        let (done, stop) = mpsc::channel::<()>();
        let t = {
            let s = s.clone();
            std::thread::spawn(move || spin(&s, &stop, &progress))
        };
        let seen = (0..80).any(|_| {
            std::thread::sleep(Duration::from_millis(25));
            until(&screen.contents())
        });
        drop(done);
        t.join().unwrap();
        (seen, screen.contents())
    }

    #[test]
    fn writing_clears_the_spinner_and_passes_text_through() {
        let screen = InMemoryTerm::new(4, 80);
        let s = shared(&screen);
        {
            let mut state = s.lock().unwrap();
            let bar =
                ProgressBar::with_draw_target(None, (state.screen)()).with_style(style(false));
            bar.tick();
            state.bar = Some(bar);
            state.quiet_since = Instant::now() - Duration::from_secs(5);
        }
        assert!(
            screen.contents().contains("computing"),
            "{}",
            screen.contents()
        );
        let mut w = Suspending::new(Vec::new(), s.clone());
        write!(w, "a{}", 1).unwrap();
        assert_eq!(w.inner, b"a1");
        assert_eq!(
            screen.contents().trim(),
            "",
            "the spinner's line is cleared first"
        );
        let state = s.lock().unwrap();
        assert!(state.bar.is_none());
        assert!(state.quiet_since.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn the_spinner_shows_after_a_quiet_moment_and_is_cleared_at_the_end() {
        let screen = InMemoryTerm::new(4, 80);
        let (seen, after) = spin_until(&screen, Progress::default(), |t| {
            t.contains(" computing 00:00:00, ")
                && t.contains(" of ")
                && t.trim_end().ends_with("(Ctrl-C stops it)")
        });
        assert!(seen, "the spinner should show once all was quiet");
        assert_eq!(after.trim(), "", "cleared at the end");
    }

    #[test]
    fn a_tracked_loop_shows_a_bar_with_its_fraction() {
        let p = Progress::default();
        assert_eq!(progress_of(&p), None, "no loop tracked: no bar");
        p.total.store(100, Ordering::Relaxed);
        p.done.store(25, Ordering::Relaxed);
        assert_eq!(progress_of(&p), Some((25, 100)));
        let screen = InMemoryTerm::new(4, 80);
        let (seen, _) = spin_until(&screen, p, |t| t.contains(" [###---------] 25%, "));
        assert!(seen, "{}", screen.contents());
    }
}
