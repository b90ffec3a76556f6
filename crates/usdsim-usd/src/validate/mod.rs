//! `usdsim validate`: check a stage against the OmniPhysics deformable schema and what
//! PhysX's loader accepts, and report every problem with a rule code, a location
//! (file, prim path, attribute) and what was expected, instead of stopping at the
//! first one as the importer does.
//!
//! The rules live in [`rule::RULES`] (documented in `docs/validation-rules.md`); each
//! family is checked by its own module over one shared `walk::Walk` of the composed
//! stage.

mod attachment_rules;
mod body_rules;
mod clip_rules;
mod joint_rules;
mod legacy_rules;
mod material_rules;
mod mesh_rules;
mod owner_rules;
mod pose_rules;
pub mod report;
mod scene_rules;
mod subset_rules;
mod typo_rules;
mod unit_rules;
mod usdsim_rules;
mod walk;

use std::path::{Path, PathBuf};

pub use crate::diagnostic::rule;
pub use crate::diagnostic::{Diagnostic, Rule, Severity, IMPORT_RULES, RULES};
pub use report::Report;

use crate::error::ImportError;
use crate::stage::context::guard_reader;
use crate::stage::input_stage::InputStage;
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
    let input = InputStage::open(path).map_err(|err| match err {
        ImportError::Unreadable { file, reason } => ValidateError::Unreadable { file, reason },
        ImportError::Unparsable { file, reason } => ValidateError::Unparsable { file, reason },
        other => ValidateError::Unparsable { file: path.to_path_buf(), reason: other.to_string() },
    })?;
    input.validate()
}

impl InputStage {
    /// Checks the opened stage against every rule in [`RULES`], on the stage and prim
    /// index of [`InputStage::open`] (read at the stage's `startTimeCode`), so a run can
    /// validate and then import without a second traversal.
    pub fn validate(&self) -> Result<Report, ValidateError> {
        guard_reader(|| validate_stage(self))
            .unwrap_or_else(|reason| Err(ValidateError::Unparsable { file: self.path.clone(), reason }))
    }
}

fn validate_stage(input: &InputStage) -> Result<Report, ValidateError> {
    let mut ctx = input.context();
    let info = stage_info::read(&mut ctx);
    ctx.time = info.start_time_code;
    let prims = input
        .prims
        .as_ref()
        .map_err(|err| ValidateError::Unparsable { file: input.path.clone(), reason: err.validator_reason() })?;
    let mut walk = walk::Walk::new(ctx, prims);

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
    scene_rules::check(&mut walk);
    unit_rules::check(&mut walk, &info);
    clip_rules::check(&mut walk, &input.path);
    legacy_rules::check(&mut walk, &info);
    joint_rules::check(&mut walk);

    Ok(walk.into_report(input.path.display().to_string()))
}
