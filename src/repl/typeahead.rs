//! Lines typed ahead while an entry was computing. The terminal is in its
//! ordinary (canonical) mode then, so the kernel keeps whole lines; the
//! line editor, started afterwards, would take them in one read and keep
//! only the first. Reading them here first, one line per `read`, runs each
//! as its own entry, as piped input is.

use std::collections::VecDeque;
use std::io::BufRead;

/// Lines waiting to be run, oldest first.
#[derive(Default)]
pub struct Typeahead {
    lines: VecDeque<String>,
}

/// Whether standard input has a line ready now (without blocking).
fn line_ready() -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDIN_FILENO,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, a zero timeout.
    let n = unsafe { libc::poll(&mut fd, 1, 0) };
    n > 0 && fd.revents & libc::POLLIN != 0
}

impl Typeahead {
    /// Takes the complete lines the terminal holds now.
    pub fn collect(&mut self) {
        let stdin = std::io::stdin();
        let mut lock = stdin.lock();
        while line_ready() {
            let mut line = String::new();
            match lock.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = line.trim_end_matches(['\n', '\r']).to_string();
                    self.lines.push_back(line);
                }
            }
        }
    }

    pub fn next(&mut self) -> Option<String> {
        self.lines.pop_front()
    }
}
