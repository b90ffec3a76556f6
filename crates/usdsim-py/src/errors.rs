//! usdsim's failures as the Python exceptions of `usdsim.errors`, one class per exit
//! status of the command, carrying what its `--json` report gives.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use usdsim::failure::{Failure, DIVERGED, OUTPUT, USAGE};

/// The exception class of `usdsim.errors` for a CLI exit status.
fn class_name(exit_code: u8) -> &'static str {
    match exit_code {
        USAGE => "UsageError",
        DIVERGED => "DivergedError",
        OUTPUT => "OutputError",
        _ => "InputError",
    }
}

/// `err`, classified as the CLI classifies it, as an exception of its exit class.
pub fn to_py(py: Python<'_>, err: &anyhow::Error) -> PyErr {
    let failure = Failure::of(err);
    let at = |key: &str| failure.location.get(key).and_then(|v| v.as_str()).map(str::to_string);
    let files: Vec<String> = failure.files.iter().map(|f| f.display().to_string()).collect();
    // The command prints validation errors before its one-line failure; here they are
    // the message.
    let message = match failure.errors.as_slice() {
        [] => failure.message.clone(),
        errors => {
            let style = usdsim::report::Style::new(usdsim::cli::ColorArg::Never);
            let lines: Vec<String> = errors.iter().map(|d| style.line(d)).collect();
            format!("{}\n{}", failure.message.replace("(details above; ", "("), lines.join("\n"))
        }
    };
    raise(
        py,
        class_name(failure.exit_code),
        &message,
        &failure.code,
        [at("file"), at("prim"), at("attribute")],
        failure.exit_code,
        files,
    )
}

/// An exception of class `class` of `usdsim.errors`; if that module cannot be had, a
/// `RuntimeError` with the message.
pub fn raise(
    py: Python<'_>,
    class: &str,
    message: &str,
    code: &str,
    [file, prim, attribute]: [Option<String>; 3],
    exit_code: u8,
    files: Vec<String>,
) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let class = py.import("usdsim.errors")?.getattr(class)?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("code", code)?;
        kwargs.set_item("file", file)?;
        kwargs.set_item("prim", prim)?;
        kwargs.set_item("attribute", attribute)?;
        kwargs.set_item("exit_code", exit_code)?;
        kwargs.set_item("files", files)?;
        Ok(PyErr::from_value(class.call((message,), Some(&kwargs))?))
    })();
    made.unwrap_or_else(|err| err)
}

/// A usage error (a setting that is not one, a value out of range) with clap's message.
pub fn usage(py: Python<'_>, message: &str) -> PyErr {
    raise(py, "UsageError", message, "usage", [None, None, None], USAGE, Vec::new())
}
