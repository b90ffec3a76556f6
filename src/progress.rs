//! Progress reporting: a bar with frame rate and ETA on a terminal, one plain line per
//! frame (`frame 120/240 (50%), 9.3 ms/frame`, a form a scheduler's regex can follow)
//! when stderr is a pipe or a file, nothing when quiet.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

/// Reports frames as they finish.
pub enum Progress {
    /// Nothing is shown.
    Silent,
    /// An interactive bar on stderr.
    Bar(ProgressBar),
    /// A log line per frame; `from` is the frame the run started at (a resumed run's).
    Log { total: u32, from: u32, start: Instant },
}

impl Progress {
    /// Picks the reporter for `total` frames, of which the first `from` are already done
    /// (a resumed bake's).
    pub fn new(total: u32, from: u32, silent: bool) -> Self {
        if silent {
            return Progress::Silent;
        }
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(total as u64);
            // ms/frame, as the log lines and the summary say it.
            let style = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} frame {pos}/{len}  {ms_per_frame}  ETA {eta}",
            )
            .map(|style| {
                style.with_key("ms_per_frame", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let ms = 1e3 * state.elapsed().as_secs_f64() / state.pos().max(1) as f64;
                    let _ = write!(w, "{ms:.1} ms/frame");
                })
            })
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_position(u64::from(from));
            Progress::Bar(bar)
        } else {
            Progress::Log { total, from, start: Instant::now() }
        }
    }

    /// Records that `done` frames of the total are finished.
    pub fn frame(&mut self, done: u32) {
        match self {
            Progress::Silent => {}
            Progress::Bar(bar) => bar.set_position(done as u64),
            Progress::Log { total, from, start } => {
                let secs = start.elapsed().as_secs_f64();
                eprintln!(
                    "frame {done}/{total} ({:.0}%), {:.1} ms/frame",
                    100.0 * f64::from(done) / f64::from((*total).max(1)),
                    1e3 * secs / f64::from(done.saturating_sub(*from).max(1))
                );
            }
        }
    }

    /// Removes the bar, if any.
    pub fn finish(self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}
