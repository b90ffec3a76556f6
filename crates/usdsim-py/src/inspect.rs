//! `inspect(path)`: what the importer understood of a stage, as `usdsim inspect --json`.

use std::path::PathBuf;

use pyo3::prelude::*;

use crate::errors::to_py;

/// `usdsim inspect --json`'s object as a Python dict.
#[pyfunction]
pub fn inspect(py: Python<'_>, path: PathBuf) -> PyResult<Py<PyAny>> {
    let view = py.detach(|| usdsim::inspect::view(&path)).map_err(|err| to_py(py, &err))?;
    json_to_py(py, &view)
}

/// A JSON value as the Python value `json.loads` makes of it.
pub fn json_to_py(py: Python<'_>, value: &serde_json::Value) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(value).map_err(|err| pyo3::exceptions::PyValueError::new_err(err.to_string()))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}
