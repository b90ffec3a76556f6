//! The input stage, opened and traversed once per run: the composed stage, the path the
//! user gave and the one prim index. The validator ([`InputStage::validate`]) and the
//! importer ([`InputStage::import`]) both read this, so a run that validates before it
//! imports does not open or traverse the file twice.

use std::path::{Path, PathBuf};

use openusd::usd;

use super::attribute_override::{AttributeOverride, OverrideError, SessionLayer};
use super::context::{guard_reader, Ctx};
use super::prim_index::IndexError;
use super::prim_index::PrimIndex;
use crate::error::ImportError;

/// Why [`InputStage::open_with`] failed: the input itself, or an override.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The stage cannot be read.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// An override names a prim, attribute or value the stage refuses.
    #[error(transparent)]
    Override(Box<OverrideError>),
}

impl From<OverrideError> for OpenError {
    fn from(err: OverrideError) -> OpenError {
        OpenError::Override(Box::new(err))
    }
}

/// [`InputStage::open`] passes no overrides, so none can fail; kept total anyway.
fn unreachable_override(path: &Path, err: OverrideError) -> ImportError {
    ImportError::Unparsable { file: path.to_path_buf(), reason: err.to_string() }
}

/// An opened input stage with its prim index, ready to validate and import.
pub struct InputStage {
    /// The composed stage (a shared handle: every pass reads the same one).
    pub(crate) stage: usd::Stage,
    /// The path the user gave, for messages.
    pub(crate) path: PathBuf,
    /// The same path as UTF-8, as openusd names the root layer.
    pub(crate) path_str: String,
    /// The one traversal; its failure is reported by each pass in its own terms.
    pub(crate) prims: Result<PrimIndex, IndexError>,
}

impl InputStage {
    /// Opens `path` (`.usda`, `.usdc` or `.usdz`; sublayers, references, payloads and
    /// inherits are composed) and traverses it once.
    ///
    /// A file that does not exist, is not a regular file, has a non-UTF-8 name or
    /// cannot be parsed is an [`ImportError::Unreadable`] or [`ImportError::Unparsable`];
    /// a failed traversal is reported later, by the pass that needs it.
    pub fn open(path: &Path) -> Result<InputStage, ImportError> {
        Self::open_with(path, &[]).map_err(|err| match err {
            OpenError::Import(err) => err,
            OpenError::Override(err) => unreachable_override(path, *err),
        })
    }

    /// Opens `path` as [`InputStage::open`] does, then, when `overrides` are given,
    /// checks each against the composed stage and reopens it with them as its session
    /// layer, so that every reader sees the overridden values.
    pub fn open_with(path: &Path, overrides: &[AttributeOverride]) -> Result<InputStage, OpenError> {
        let input = Self::open_plain(path)?;
        if overrides.is_empty() {
            return Ok(input);
        }
        let Ok(index) = &input.prims else {
            // The importer explains a stage it cannot traverse better than we could.
            let reason = input.prims.as_ref().err().map(IndexError::validator_reason).unwrap_or_default();
            return Err(OpenError::Import(ImportError::Unparsable { file: path.to_path_buf(), reason }));
        };
        let session = SessionLayer::resolve(&input.stage, index, &input.path_str, overrides)?;
        let stage = session.open(&input.path_str)?;
        let prims = PrimIndex::build(&stage);
        Ok(InputStage { stage, prims, ..input })
    }

    fn open_plain(path: &Path) -> Result<InputStage, ImportError> {
        if let Err(err) = std::fs::metadata(path).and_then(|m| {
            if m.is_file() {
                Ok(())
            } else {
                Err(std::io::Error::other("not a regular file"))
            }
        }) {
            return Err(ImportError::Unreadable { file: path.to_path_buf(), reason: err.to_string() });
        }
        let Some(path_str) = path.to_str() else {
            return Err(ImportError::Unreadable {
                file: path.to_path_buf(),
                reason: "the path is not valid UTF-8".to_string(),
            });
        };
        let unparsable = |reason: String| ImportError::Unparsable { file: path.to_path_buf(), reason };
        guard_reader(|| {
            let stage = usd::Stage::open(path_str).map_err(|err| unparsable(err.to_string()))?;
            let prims = PrimIndex::build(&stage);
            Ok(InputStage { stage, path: path.to_path_buf(), path_str: path_str.to_string(), prims })
        })
        .unwrap_or_else(|reason| Err(unparsable(reason)))
    }

    /// A fresh context for one pass: no warnings yet, read time still to be set.
    pub(crate) fn context(&self) -> Ctx {
        Ctx::new(self.stage.clone(), &self.path)
    }
}
