//! The REPL's spinner, as an updating display: after a quiet second, a
//! running cell shows how long it has computed and, while a comprehension's
//! outer loop reports it, how far it has got; the display is updated four
//! times a second and, at the end, says how the cell ended and after how
//! long (computed, interrupted, stopped by an error).

use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use jupyter_protocol::{
    DisplayData, JupyterMessage, JupyterMessageContent, Media, MediaType, Transient,
    UpdateDisplayData,
};
use serde_json::json;
use tokio::sync::mpsc::UnboundedSender;

use super::channels::Outgoing;
use super::info::message;
use crate::eval::compile::Progress;
use crate::repl::core::elapsed_text;

/// How long a cell runs before its progress shows.
const DELAY: Duration = Duration::from_secs(1);
const TICK: Duration = Duration::from_millis(250);

/// How a cell ended, for the last update of its progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Computed,
    Interrupted,
    Failed,
}

/// Shows progress while it lives; [`Ticker::finish`] says how the cell
/// ended (dropped without it, the cell counts as computed).
pub struct Ticker {
    stop: Option<mpsc::Sender<End>>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    pub fn start(
        progress: Arc<Progress>,
        out: UnboundedSender<Outgoing>,
        parent: &JupyterMessage,
    ) -> Ticker {
        let (stop, stopped) = mpsc::channel::<End>();
        let parent = parent.clone();
        let thread = std::thread::spawn(move || tick(&progress, &out, &parent, &stopped));
        Ticker {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Ticker {
    /// Stops the display with its last line for this end.
    pub fn finish(mut self, end: End) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(end);
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn tick(
    progress: &Progress,
    out: &UnboundedSender<Outgoing>,
    parent: &JupyterMessage,
    stopped: &mpsc::Receiver<End>,
) {
    let started = Instant::now();
    let id = format!("grundy-progress-{}", parent.header.msg_id);
    let mut shown = false;
    let send = |content: JupyterMessageContent| {
        let _ = out.send(Outgoing::IoPub(message(content, Some(parent))));
    };
    let end = loop {
        match stopped.recv_timeout(TICK) {
            Ok(end) => break end,
            Err(RecvTimeoutError::Disconnected) => break End::Computed,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if started.elapsed() < DELAY {
            continue;
        }
        let line = progress_line(started.elapsed(), fraction(progress));
        if shown {
            send(UpdateDisplayData::new(media(&line), &id).into());
        } else {
            shown = true;
            let mut d = DisplayData::new(media(&line));
            d.transient = Some(Transient {
                display_id: Some(id.clone()),
            });
            // Marked, so that tools comparing outputs can leave it out.
            if let Some(m) = json!({"grundy": {"progress": true}}).as_object() {
                d.metadata = m.clone();
            }
            send(d.into());
        }
    };
    if shown {
        let line = last_line(end, started.elapsed());
        send(UpdateDisplayData::new(media(&line), &id).into());
    }
}

/// The display's last line: `computed in 6.7 s`, `interrupted after 6.7 s`.
pub fn last_line(end: End, elapsed: Duration) -> String {
    let t = elapsed_text(elapsed);
    match end {
        End::Computed => format!("computed in {t}"),
        End::Interrupted => format!("interrupted after {t}"),
        End::Failed => format!("stopped by an error after {t}"),
    }
}

fn media(line: &str) -> Media {
    Media::new(vec![MediaType::Plain(line.to_string())])
}

fn fraction(p: &Progress) -> Option<(u64, u64)> {
    let total = p.total.load(Ordering::Relaxed);
    (total > 0).then(|| (p.done.load(Ordering::Relaxed).min(total), total))
}

/// `computing 00:03 [#####---------------] 25% (interrupt to stop)`.
pub fn progress_line(elapsed: Duration, done: Option<(u64, u64)>) -> String {
    let s = elapsed.as_secs();
    let mut line = format!("computing {:02}:{:02}", s / 60, s % 60);
    if let Some((d, t)) = done {
        const WIDTH: u64 = 20;
        let filled = (d * WIDTH / t) as usize;
        line.push_str(&format!(
            " [{}{}] {}%",
            "#".repeat(filled),
            "-".repeat(WIDTH as usize - filled),
            d * 100 / t
        ));
    }
    line.push_str(" (interrupt the kernel to stop)");
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_time_and_the_fraction_done() {
        assert_eq!(
            progress_line(Duration::from_secs(65), Some((1, 4))),
            "computing 01:05 [#####---------------] 25% (interrupt the kernel to stop)"
        );
        assert!(!progress_line(Duration::from_secs(1), None).contains('%'));
        let p = Progress::default();
        assert_eq!(fraction(&p), None);
        p.total.store(10, Ordering::Relaxed);
        p.done.store(12, Ordering::Relaxed);
        assert_eq!(fraction(&p), Some((10, 10)));
    }

    #[test]
    fn the_last_line_says_how_the_cell_ended() {
        let t = Duration::from_millis(6700);
        assert!(last_line(End::Computed, t).starts_with("computed in "));
        assert!(last_line(End::Interrupted, t).starts_with("interrupted after "));
        assert!(last_line(End::Failed, t).starts_with("stopped by an error after "));
        assert!(!last_line(End::Interrupted, t).contains("computed"));
    }
}
