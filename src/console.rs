//! The command's [`Watch`]: a progress bar or log lines on stderr, `OUTPUT_FILE:` lines
//! on stdout, and SIGINT/SIGTERM as the flag the frame loop polls.

use std::io::Write;
use std::path::PathBuf;

use crate::interrupt::Interrupt;
use crate::progress::Progress;
use crate::run::Watch;

/// What `usdsim run` shows while baking.
pub struct Console {
    /// No progress on stderr (`--quiet`, `--json`).
    quiet: bool,
    /// `--json`: the summary lists the files instead of `OUTPUT_FILE:` lines.
    json: bool,
    progress: Progress,
    /// Installed when the frame loop starts, so that Ctrl-C while importing still stops
    /// the process at once.
    interrupt: Option<Interrupt>,
}

impl Console {
    /// A console that shows progress unless `quiet` and announces files unless `json`.
    pub fn new(quiet: bool, json: bool) -> Console {
        Console { quiet, json, progress: Progress::Silent, interrupt: None }
    }
}

impl Watch for Console {
    fn start(&mut self, from: u32, frames: u32) {
        self.interrupt = Some(Interrupt::install());
        self.progress = Progress::new(frames, from, self.quiet);
    }

    fn frame(&mut self, done: u32, _frames: u32) {
        self.progress.frame(done);
    }

    /// Prints `OUTPUT_FILE: <path>` on stdout for each file as soon as it is written
    /// (the line Houdini PDG and farm scripts look for).
    fn written(&mut self, files: &[PathBuf]) {
        if self.json || files.is_empty() {
            return;
        }
        let mut out = std::io::stdout().lock();
        for file in files {
            let _ = writeln!(out, "OUTPUT_FILE: {}", file.display());
        }
        let _ = out.flush();
    }

    fn finish(&mut self) {
        std::mem::replace(&mut self.progress, Progress::Silent).finish();
    }

    fn stop(&mut self) -> Option<i32> {
        self.interrupt.as_ref().and_then(Interrupt::signal)
    }
}
