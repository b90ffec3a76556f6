//! `usdsim validate`: check a stage against the OmniPhysics deformable schema and what
//! PhysX's loader accepts, and report every problem with a rule code, a location
//! (file, prim path, attribute) and what was expected, instead of stopping at the
//! first one as the importer does.
//!
//! The rules live in [`rule::RULES`] (documented in `docs/validation-rules.md`); each
//! family is checked by its own module over one shared [`walk::Walk`] of the composed
//! stage.

mod attachment_rules;
mod body_rules;
mod material_rules;
mod mesh_rules;
mod owner_rules;
mod pose_rules;
pub mod report;
pub mod rule;
mod schema_names;
mod subset_rules;
mod typo_rules;
mod usdsim_rules;
mod walk;

use std::path::{Path, PathBuf};

use openusd::usd;

pub use report::{Diagnostic, Report};
pub use rule::{Rule, Severity, RULES};

use crate::stage::context::Ctx;
use crate::stage::stage_info;

/// Why a file could not be validated at all (as opposed to a file with findings).
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    /// The file does not exist, is not a regular file or its name is not UTF-8.
    #[error("{}: cannot read file: {reason}", file.display())]
    Unreadable {
        /// The path given to [`validate`].
        file: PathBuf,
        /// The operating system's explanation.
        reason: String,
    },
    /// openusd could not open the file as a stage.
    #[error("{}: cannot open as a USD stage: {reason}", file.display())]
    Unparsable {
        /// The path given to [`validate`].
        file: PathBuf,
        /// openusd's explanation.
        reason: String,
    },
}

/// Opens `path` as a composed stage and checks it against every rule in [`RULES`].
///
/// A file that cannot be read or parsed is a [`ValidateError`]; everything else,
/// including values of the wrong type, is a [`Diagnostic`] in the report.
pub fn validate(path: &Path) -> Result<Report, ValidateError> {
    let unreadable = |reason: String| ValidateError::Unreadable { file: path.to_path_buf(), reason };
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {}
        Ok(_) => return Err(unreadable("not a regular file".to_string())),
        Err(err) => return Err(unreadable(err.to_string())),
    }
    let Some(path_str) = path.to_str() else {
        return Err(unreadable("the path is not valid UTF-8".to_string()));
    };
    crate::stage::context::guard_reader(|| validate_stage(path, path_str))
        .unwrap_or_else(|reason| Err(ValidateError::Unparsable { file: path.to_path_buf(), reason }))
}

fn validate_stage(path: &Path, path_str: &str) -> Result<Report, ValidateError> {
    let stage = usd::Stage::open(path_str)
        .map_err(|err| ValidateError::Unparsable { file: path.to_path_buf(), reason: err.to_string() })?;
    let mut ctx = Ctx::new(stage, path);
    let info = stage_info::read(&mut ctx);
    ctx.time = info.start_time_code;
    let mut walk =
        walk::Walk::new(ctx).map_err(|reason| ValidateError::Unparsable { file: path.to_path_buf(), reason })?;

    let bodies = body_rules::check(&mut walk);
    owner_rules::check(&mut walk);
    for body in &bodies {
        mesh_rules::check(&mut walk, body);
    }
    pose_rules::check(&mut walk, &bodies);
    material_rules::check(&mut walk, &bodies);
    subset_rules::check(&mut walk, &bodies);
    attachment_rules::check(&mut walk, &bodies);
    typo_rules::check(&mut walk);
    usdsim_rules::check(&mut walk);

    Ok(walk.into_report(path.display().to_string()))
}
