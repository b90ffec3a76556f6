//! Why a command failed, in a form both people and pipelines can use: the one-line text
//! on stderr, and under `--json` an object with a stable `code`, the `message`, the
//! `location` (file, prim, attribute) and the process's `exit_code`.

use std::fmt;
use std::path::PathBuf;

use serde_json::{json, Value};
use usdsim_core::{Integrator, Model, Scene};
use usdsim_usd::validate::Diagnostic;
use usdsim_usd::{ExportError, ImportError, OverrideError};

use crate::report::diagnostic_json;

/// Exit status of a run whose input is invalid or unreadable (or fails validation).
pub const FAILED: u8 = 1;
/// Exit status of a usage error (bad flags or arguments).
pub const USAGE: u8 = 2;
/// Exit status of a simulation that diverged (the frames before it are written).
pub const DIVERGED: u8 = 3;
/// Exit status of an output that could not be written. Farm schedulers retry on this
/// one (a full disk, a lost mount) and not on 1 (the scene itself is wrong).
pub const OUTPUT: u8 = 4;

/// Exit status after SIGINT (128 + 2), as a shell reports it.
pub const INTERRUPTED: u8 = 130;
/// Exit status after SIGTERM (128 + 15).
pub const TERMINATED: u8 = 143;

/// A signal stopped the run after a complete frame; the frames so far were written.
#[derive(Debug)]
pub struct Interrupted {
    /// The input stage.
    pub file: PathBuf,
    /// The signal's number (SIGINT 2, SIGTERM 15).
    pub signal: i32,
    /// The last frame written.
    pub frame: u32,
    /// The output holding frames 0 to `frame`.
    pub kept: PathBuf,
    /// Every file the run wrote.
    pub files: Vec<PathBuf>,
}

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = if self.signal == 15 { "SIGTERM" } else { "SIGINT" };
        write!(
            f,
            "{}: interrupted by {name}: frames 0 to {} are in {} (playable); `--resume` continues it",
            self.file.display(),
            self.frame,
            self.kept.display()
        )
    }
}

impl std::error::Error for Interrupted {}

/// The validator found errors: nothing was simulated. Each error has been printed.
#[derive(Debug)]
pub struct ValidationFailed {
    /// The input stage.
    pub file: PathBuf,
    /// The error findings.
    pub errors: Vec<Diagnostic>,
}

impl fmt::Display for ValidationFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.errors.len();
        write!(
            f,
            "{}: {n} validation error{}; nothing simulated (details above; `usdsim validate` lists the rules)",
            self.file.display(),
            if n == 1 { "" } else { "s" }
        )
    }
}

impl std::error::Error for ValidationFailed {}

/// A value the solver produced is not finite: the run stops at that frame.
#[derive(Debug)]
pub struct Diverged {
    /// The input stage.
    pub file: PathBuf,
    /// The frame that produced it.
    pub frame: u32,
    /// The body's prim.
    pub prim: String,
    /// The attribute that would have been written.
    pub attribute: &'static str,
    /// Where the frames before it went, if anywhere.
    pub kept: Option<PathBuf>,
    /// What to try instead ([`divergence_hint`]).
    pub hint: &'static str,
}

/// What to try after `prim` diverged under `integrator`. Explicit Euler gains energy on
/// an undamped spring at every step, whatever its size (its amplification factor is
/// √(1 + (ω·dt)²) > 1), so there more substeps only delay the blow-up: damping or
/// another integrator is what helps.
pub fn divergence_hint(scene: &Scene, prims: &[String], integrator: Integrator, prim: &str) -> &'static str {
    let undamped_springs = prims
        .iter()
        .zip(&scene.bodies)
        .any(|(p, body)| p == prim && matches!(body.model, Model::Springs(s) if s.damping == 0.0));
    if integrator == Integrator::ExplicitEuler && undamped_springs {
        "explicit Euler adds energy to undamped springs at any step size, so more --substeps cannot help; \
         give the springs damping (usdsim:springDamping or --spring-damping) or use --integrator symplectic, rk4 or xpbd"
    } else {
        "try more --substeps or check the material values"
    }
}

impl fmt::Display for Diverged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}.{}: the simulation diverged at frame {}: the value is not finite; {}",
            self.file.display(),
            self.prim,
            self.attribute,
            self.frame,
            self.hint
        )?;
        if let Some(kept) = &self.kept {
            write!(f, "; frames 0 to {} are in {}", self.frame - 1, kept.display())?;
        }
        Ok(())
    }
}

impl std::error::Error for Diverged {}

/// A usage error found after clap parsed the arguments (a farm plan's run options, which
/// only make sense against `usdsim run`'s own parser): exit 2, like clap's own.
#[derive(Debug)]
pub struct Usage(pub String);

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// A failed command, classified.
#[derive(Debug)]
pub struct Failure {
    /// Stable name of the kind of failure (`DB011`, `unreadable`, `output_not_writable`,
    /// `diverged`, ...).
    pub code: String,
    /// The whole message, as printed on stderr after `error: `.
    pub message: String,
    /// File, prim and attribute, where known.
    pub location: Value,
    /// The process's exit status.
    pub exit_code: u8,
    /// Validation errors, when those stopped the run.
    pub errors: Vec<Diagnostic>,
    /// Files the run wrote before it stopped (an interrupted bake's).
    pub files: Vec<PathBuf>,
}

impl Failure {
    /// Classifies `err` by the first known error type in its chain.
    pub fn of(err: &anyhow::Error) -> Failure {
        let message = format!("{err:#}");
        let mut failure = Failure {
            code: "error".to_string(),
            message,
            location: Value::Null,
            exit_code: FAILED,
            errors: Vec::new(),
            files: Vec::new(),
        };
        for cause in err.chain() {
            if let Some(e) = cause.downcast_ref::<ValidationFailed>() {
                let first = e.errors.first();
                failure.code = first.map_or("validation", |d| d.code).to_string();
                failure.location = first.map_or_else(
                    || location(e.file.display().to_string(), None, None),
                    |d| location(d.file.clone(), Some(d.prim.clone()), d.property.clone()),
                );
                failure.errors = e.errors.clone();
                return failure;
            }
            if cause.downcast_ref::<OverrideError>().is_some() || cause.downcast_ref::<Usage>().is_some() {
                failure.code = "usage".to_string();
                failure.exit_code = USAGE;
                return failure;
            }
            if let Some(e) = cause.downcast_ref::<ImportError>() {
                failure.code = e.code().to_string();
                failure.location = match e.location() {
                    Some(at) => location(at.file.clone(), Some(at.prim.clone()), at.property.clone()),
                    None => location(e.file(), None, None),
                };
                return failure;
            }
            if let Some(e) = cause.downcast_ref::<ExportError>() {
                failure.code = e.code().to_string();
                failure.location = location(e.path().display().to_string(), None, None);
                failure.exit_code = OUTPUT;
                return failure;
            }
            if let Some(e) = cause.downcast_ref::<Diverged>() {
                failure.code = "diverged".to_string();
                failure.exit_code = DIVERGED;
                failure.location =
                    location(e.file.display().to_string(), Some(e.prim.clone()), Some(e.attribute.to_string()));
                return failure;
            }
            if let Some(e) = cause.downcast_ref::<Interrupted>() {
                failure.code = "interrupted".to_string();
                failure.exit_code = if e.signal == 15 { TERMINATED } else { INTERRUPTED };
                failure.location = location(e.kept.display().to_string(), None, None);
                failure.files.clone_from(&e.files);
                return failure;
            }
            if cause.downcast_ref::<usdsim_core::SceneError>().is_some() {
                failure.code = "scene".to_string();
            }
        }
        failure
    }

    /// The `--json` report of the failure, with the warnings given before it.
    pub fn json(&self, warnings: Value) -> Value {
        json!({
            "ok": false,
            "exit_code": self.exit_code,
            "error": {
                "code": self.code,
                "message": self.message,
                "location": self.location,
            },
            "errors": self.errors.iter().map(diagnostic_json).collect::<Vec<_>>(),
            "warnings": warnings,
            "files": self.files,
        })
    }
}

fn location(file: String, prim: Option<String>, attribute: Option<String>) -> Value {
    json!({ "file": file, "prim": prim.filter(|p| !p.is_empty() && p != "/"), "attribute": attribute })
}
