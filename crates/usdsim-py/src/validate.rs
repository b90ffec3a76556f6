//! `validate(paths)` and `rules()`: usdsim's schema rules, for `usdsim.validate` and for
//! the `UsdValidation` plugin (`python/usdsim/validation.py`), from the one catalogue
//! the CLI reads.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use usdsim_usd::validate::{validate as check_file, Diagnostic, RULES};

use crate::errors::raise;

/// Every finding on each of `paths`, in the order `usdsim validate` prints them, as
/// dicts with `code`, `severity`, `file`, `prim`, `attribute` and `message`. A file that
/// cannot be read raises `InputError` with exit status 2, as the command exits.
#[pyfunction]
pub fn validate(py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Vec<Py<PyDict>>> {
    let mut found = Vec::new();
    for path in paths {
        let report = py.detach(|| check_file(&path)).map_err(|err| {
            let file = path.display().to_string();
            raise(py, "InputError", &err.to_string(), "unreadable", [Some(file), None, None], 2, Vec::new())
        })?;
        for d in &report.diagnostics {
            found.push(finding(py, d)?);
        }
    }
    Ok(found)
}

/// One finding as a dict.
fn finding(py: Python<'_>, d: &Diagnostic) -> PyResult<Py<PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("code", d.code)?;
    dict.set_item("severity", d.severity.as_str())?;
    dict.set_item("file", &d.file)?;
    dict.set_item("prim", &d.prim)?;
    dict.set_item("attribute", &d.property)?;
    dict.set_item("message", &d.message)?;
    Ok(dict.unbind())
}

/// The rule catalogue `validate` checks: each rule's `code`, `severity` and
/// `statement`, in catalogue order.
#[pyfunction]
pub fn rules(py: Python<'_>) -> PyResult<Vec<Py<PyDict>>> {
    RULES
        .iter()
        .map(|rule| {
            let dict = PyDict::new(py);
            dict.set_item("code", rule.code)?;
            dict.set_item("severity", rule.severity.as_str())?;
            dict.set_item("statement", rule.statement)?;
            Ok(dict.unbind())
        })
        .collect()
}
