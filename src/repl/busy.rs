//! While the REPL computes: Ctrl-C stops the computation (it sets the
//! runtime's interrupt flag, which the search and loops check), and after
//! a quiet moment a spinner with the elapsed time shows on the terminal,
//! with a progress bar while a comprehension's outer loop reports progress.
//! Output written meanwhile goes through [`Suspending`] writers, which
//! clear the spinner first.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::eval::runtime::Progress;

/// How long a computation runs before the spinner appears.
const SPINNER_DELAY: Duration = Duration::from_millis(400);

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
        let shared = Arc::new(Mutex::new(Spinner {
            shown: false,
            quiet_since: Instant::now(),
            screen: Box::new(io::stderr()),
        }));
        let started = Instant::now();
        let (done, stop) = mpsc::channel::<()>();
        let ticker = self.spinner.then(|| {
            let shared = shared.clone();
            let progress = self.progress.clone();
            std::thread::spawn(move || spin(&shared, &stop, started, &progress))
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

/// Whether the spinner is on the screen, and since when nothing was
/// written.
pub struct Spinner {
    shown: bool,
    quiet_since: Instant,
    /// Where the spinner is drawn: standard error.
    screen: Box<dyn Write + Send>,
}

/// Clears the line the spinner is on (the cursor stays on it).
const CLEAR_LINE: &str = "\r\x1b[2K";
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// The spinner's line: a frame, the elapsed time, a progress bar when the
/// outer loop reports `(done, total)`, the way out. Short, and without
/// padding, so that the terminal's `^C` echo does not wrap it.
pub fn spinner_line(frame: usize, elapsed: Duration, progress: Option<(u64, u64)>) -> String {
    let s = elapsed.as_secs();
    let time = if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{:02}:{:02}", s / 60, s % 60)
    };
    let bar = match progress {
        Some((done, total)) if total > 0 => {
            const WIDTH: u64 = 20;
            let filled = (done.min(total) * WIDTH / total) as usize;
            format!(
                " [{}{}] {}%",
                "#".repeat(filled),
                "-".repeat(WIDTH as usize - filled),
                done.min(total) * 100 / total
            )
        }
        _ => String::new(),
    };
    format!(
        "{}{} computing {time}{bar} (Ctrl-C stops it)",
        CLEAR_LINE,
        FRAMES[frame % FRAMES.len()]
    )
}

/// The progress of the tracked loop, if one runs.
fn progress_of(p: &Progress) -> Option<(u64, u64)> {
    let total = p.total.load(Ordering::Relaxed);
    (total > 0).then(|| (p.done.load(Ordering::Relaxed), total))
}

/// The spinner thread: draws the spinner on standard error whenever
/// nothing has been written for [`SPINNER_DELAY`], until `stop` closes;
/// then clears it.
fn spin(shared: &Mutex<Spinner>, stop: &mpsc::Receiver<()>, started: Instant, progress: &Progress) {
    let mut frame = 0;
    while stop.recv_timeout(Duration::from_millis(100)) == Err(RecvTimeoutError::Timeout) {
        let Ok(mut s) = shared.lock() else { return };
        if s.shown || s.quiet_since.elapsed() >= SPINNER_DELAY {
            s.shown = true;
            frame += 1;
            let line = spinner_line(frame, started.elapsed(), progress_of(progress));
            let _ = write!(s.screen, "{line}");
            let _ = s.screen.flush();
        }
    }
    if let Ok(mut s) = shared.lock() {
        clear(&mut s);
    }
}

fn clear(s: &mut Spinner) {
    if s.shown {
        s.shown = false;
        let _ = write!(s.screen, "{CLEAR_LINE}");
        let _ = s.screen.flush();
    }
}

/// A writer that clears the spinner (if shown) before it writes; the
/// spinner comes back after a quiet moment.
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
        clear(&mut s);
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

    /// A screen that tests can read.
    #[derive(Clone, Default)]
    struct Screen(Arc<Mutex<Vec<u8>>>);

    impl Write for Screen {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Screen {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    fn shared(shown: bool, screen: &Screen) -> Arc<Mutex<Spinner>> {
        Arc::new(Mutex::new(Spinner {
            shown,
            quiet_since: Instant::now() - Duration::from_secs(5),
            screen: Box::new(screen.clone()),
        }))
    }

    #[test]
    fn writing_clears_the_spinner_and_passes_text_through() {
        let screen = Screen::default();
        let s = shared(true, &screen);
        let mut w = Suspending::new(Vec::new(), s.clone());
        write!(w, "a{}", 1).unwrap();
        assert_eq!(w.inner, b"a1");
        assert_eq!(
            screen.text(),
            CLEAR_LINE,
            "the spinner's line is cleared first"
        );
        let state = s.lock().unwrap();
        assert!(!state.shown);
        assert!(state.quiet_since.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn the_spinner_shows_after_a_quiet_moment_and_is_cleared_at_the_end() {
        let screen = Screen::default();
        let s = shared(false, &screen);
        let (done, stop) = mpsc::channel::<()>();
        let t = {
            let s = s.clone();
            std::thread::spawn(move || spin(&s, &stop, Instant::now(), &Progress::default()))
        };
        let shown = (0..40).any(|_| {
            std::thread::sleep(Duration::from_millis(25));
            s.lock().unwrap().shown
        });
        drop(done);
        t.join().unwrap();
        assert!(shown, "the spinner should show once all was quiet");
        assert!(!s.lock().unwrap().shown);
        let text = screen.text();
        assert!(
            text.contains(" computing 00:00 (Ctrl-C stops it)"),
            "{text:?}"
        );
        assert!(text.ends_with(CLEAR_LINE), "cleared at the end: {text:?}");
    }

    #[test]
    fn the_spinner_line_is_short_and_counts_time() {
        let line = spinner_line(1, Duration::from_secs(75), None);
        assert_eq!(line, "\r\x1b[2K⠙ computing 01:15 (Ctrl-C stops it)");
        assert!(spinner_line(0, Duration::from_secs(3725), None).contains(" 1:02:05 "));
        assert!(line.chars().count() < 45);
    }

    #[test]
    fn a_tracked_loop_shows_a_bar_with_its_fraction() {
        let line = spinner_line(0, Duration::from_secs(3), Some((25, 100)));
        assert!(line.contains(" [#####---------------] 25% "), "{line:?}");
        let p = Progress::default();
        assert_eq!(progress_of(&p), None, "no loop tracked: no bar");
        p.total.store(8, Ordering::Relaxed);
        p.done.store(2, Ordering::Relaxed);
        assert_eq!(progress_of(&p), Some((2, 8)));
    }
}
