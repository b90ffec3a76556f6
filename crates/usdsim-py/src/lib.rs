//! `usdsim._usdsim`: the compiled half of the `usdsim` Python package (`python/usdsim/`).
//!
//! It wraps the library crates in process: [`usdsim::run`] for bakes, exactly as the
//! command runs them, `usdsim-usd` for validation and the in-process [`Simulation`]. The
//! Python half adds the typed report and finding classes, the exceptions and the
//! `UsdValidation` plugin. Work runs with the GIL released; Ctrl-C is noticed between
//! frames.

mod bake;
mod errors;
mod inspect;
mod settings;
mod simulation;
mod validate;

use pyo3::prelude::*;

pub use simulation::Simulation;

/// The module `usdsim._usdsim`.
#[pymodule]
fn _usdsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bake::bake, m)?)?;
    m.add_function(wrap_pyfunction!(validate::validate, m)?)?;
    m.add_function(wrap_pyfunction!(validate::rules, m)?)?;
    m.add_function(wrap_pyfunction!(inspect::inspect, m)?)?;
    m.add_class::<Simulation>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
