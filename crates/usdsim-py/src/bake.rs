//! `bake(...)`: a whole bake, run by the CLI's own [`usdsim::run::run`] with the GIL
//! released, so its output is the command's byte for byte.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use usdsim::report::Reporter;
use usdsim::run::Watch;

use crate::errors::to_py;
use crate::inspect::json_to_py;
use crate::settings::run_args;

/// SIGINT's number: the CLI's code for a bake stopped by Ctrl-C.
const SIGINT: i32 = 2;

/// Python's side of a bake: the progress callback, and Ctrl-C (Python's own SIGINT
/// handler, run between frames) or an exception of the callback, which stop the bake
/// after the current frame and are raised once its output is written.
pub struct PythonWatch {
    progress: Option<Py<PyAny>>,
    /// The exception to raise: `KeyboardInterrupt`, or the callback's.
    pub raised: Option<PyErr>,
}

impl PythonWatch {
    /// A watch calling `progress(frame, frames)` after each frame, if given.
    pub fn new(progress: Option<Py<PyAny>>) -> PythonWatch {
        PythonWatch { progress, raised: None }
    }
}

impl Watch for PythonWatch {
    fn frame(&mut self, done: u32, frames: u32) {
        if let (Some(callback), None) = (&self.progress, &self.raised) {
            if let Err(err) = Python::attach(|py| callback.call1(py, (done, frames)).map(drop)) {
                self.raised = Some(err);
            }
        }
    }

    fn stop(&mut self) -> Option<i32> {
        if self.raised.is_none() {
            // Runs Python's signal handlers: Ctrl-C becomes KeyboardInterrupt here. This
            // is called on the thread that called `bake`, Python's main thread for Ctrl-C.
            if let Err(err) = Python::attach(|py| py.check_signals()) {
                self.raised = Some(err);
            }
        }
        self.raised.as_ref().map(|_| SIGINT)
    }
}

/// Bakes `input` as `usdsim run` does; see `usdsim.bake` for the settings. Returns the
/// `--json` report as a dict (with `frame_ms` percentiles, as `--report` writes them).
#[pyfunction]
#[pyo3(signature = (input, output=None, frames=None, *, substeps=None, self_contact=None, chunk=None, resume=false, threads=None, progress=None, **overrides))]
#[allow(clippy::too_many_arguments)]
pub fn bake(
    py: Python<'_>,
    input: PathBuf,
    output: Option<PathBuf>,
    frames: Option<u32>,
    substeps: Option<Bound<'_, PyAny>>,
    self_contact: Option<Bound<'_, PyAny>>,
    chunk: Option<Bound<'_, PyAny>>,
    resume: bool,
    threads: Option<Bound<'_, PyAny>>,
    progress: Option<Py<PyAny>>,
    overrides: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let resume = resume.then(|| pyo3::types::PyBool::new(py, true).to_owned().into_any());
    let named = [
        ("substeps", substeps),
        ("self_contact", self_contact),
        ("chunk", chunk),
        ("resume", resume),
        ("threads", threads),
    ];
    let mut args = run_args(py, input, output, frames, &named, overrides)?;
    args.quiet = true;
    let mut reporter = Reporter::silent();
    let mut watch = PythonWatch::new(progress);
    let result = py.detach(|| usdsim::run::run(&args, &mut reporter, &mut watch));
    if let Some(raised) = watch.raised.take() {
        // The bake stopped after a frame and wrote what it finished, as the CLI does.
        return Err(raised);
    }
    match result {
        Ok(summary) => {
            let mut report = summary.json(reporter.warnings_json());
            report["frame_ms"] = usdsim::summary::frame_percentiles(&summary.frame_ms);
            json_to_py(py, &report)
        }
        Err(err) => Err(to_py(py, &err)),
    }
}
