//! Python keyword arguments as the command line of `usdsim run`: each keyword is the
//! long option of the same name in snake case, parsed by the CLI's own parser, so a
//! bake from Python has the command's defaults, ranges and messages by construction.

use std::ffi::OsString;
use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use usdsim::cli::RunArgs;

use crate::errors::usage;

/// Options of `usdsim run` that shape what it prints, not what it bakes: the Python
/// module returns the report instead.
const NOT_SETTINGS: &[&str] = &["json", "quiet", "report", "color", "help"];

/// The `usdsim run` arguments for `input`, `output`, `frames` and the keyword settings
/// `named` (explicit parameters, `None` left out) and `overrides` (the rest).
pub fn run_args(
    py: Python<'_>,
    input: PathBuf,
    output: Option<PathBuf>,
    frames: Option<u32>,
    named: &[(&str, Option<Bound<'_, PyAny>>)],
    overrides: Option<&Bound<'_, PyDict>>,
) -> PyResult<RunArgs> {
    let mut argv: Vec<OsString> = vec!["usdsim".into(), "run".into(), input.into_os_string()];
    if let Some(output) = output {
        argv.extend(["--output".into(), output.into_os_string()]);
    }
    if let Some(frames) = frames {
        argv.extend(["--frames".into(), frames.to_string().into()]);
    }
    let mut settings: Vec<(String, Bound<'_, PyAny>)> =
        named.iter().filter_map(|(k, v)| v.clone().map(|v| (k.to_string(), v))).collect();
    if let Some(overrides) = overrides {
        for (key, value) in overrides.iter() {
            settings.push((key.extract::<String>()?, value));
        }
    }
    for (key, value) in settings {
        if NOT_SETTINGS.contains(&key.as_str()) {
            return Err(usage(py, &format!("'{key}' is not a setting: the report is returned, not printed")));
        }
        append(&mut argv, &key, &value)?;
    }
    usdsim::cli::parse_run(&argv).map_err(|message| usage(py, &message))
}

/// Appends keyword `key = value` as options: `True` is the flag, `False` its `--no-`
/// form where the flag has one (`self_contact`) and nothing otherwise, `None` nothing, a
/// list or tuple the option once per item, anything else the option with `str(value)`.
fn append(argv: &mut Vec<OsString>, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
    let flag = format!("--{}", key.replace('_', "-"));
    if value.is_none() {
        return Ok(());
    }
    if let Ok(on) = value.extract::<bool>() {
        if value.is_instance_of::<pyo3::types::PyBool>() {
            if on {
                argv.push(flag.into());
            } else if key == "self_contact" {
                argv.push("--no-self-contact".into());
            }
            return Ok(());
        }
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        for item in value.try_iter()? {
            argv.extend([flag.clone().into(), item?.str()?.to_string().into()]);
        }
        return Ok(());
    }
    argv.extend([flag.into(), value.str()?.to_string().into()]);
    Ok(())
}
