//! SIGINT and SIGTERM as a flag: the frame loop finishes the frame it is on, writes
//! what it has, and exits 130 or 143. Installing the handlers also undoes an inherited
//! "ignore SIGINT" (a shell's background job), so a farm's signal is never lost.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The signal that arrived, if any.
#[derive(Clone, Debug)]
pub struct Interrupt(Arc<AtomicUsize>);

impl Interrupt {
    /// Installs the handlers; when that fails (it does not on Unix), runs stay
    /// uninterruptible rather than fail.
    pub fn install() -> Interrupt {
        let flag = Arc::new(AtomicUsize::new(0));
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            let _ = signal_hook::flag::register_usize(signal, Arc::clone(&flag), signal as usize);
        }
        Interrupt(flag)
    }

    /// The signal's number once one arrived.
    pub fn signal(&self) -> Option<i32> {
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            n => Some(n as i32),
        }
    }
}
