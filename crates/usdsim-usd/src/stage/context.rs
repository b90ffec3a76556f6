//! The state shared by every import step: the composed stage, the time to read at, the
//! file name for messages and the growing list of warnings.

use std::path::{Path, PathBuf};

use openusd::{sdf, usd};

use crate::diagnostic::{Diagnostic, Severity};
use crate::error::{ImportError, Location};

/// Everything an import step needs besides the prim it looks at.
pub(crate) struct Ctx {
    /// The composed stage.
    pub stage: usd::Stage,
    /// The path the user gave, for messages.
    pub input: PathBuf,
    /// The input canonicalized, to recognise the root layer among layer identifiers.
    input_canonical: Option<PathBuf>,
    /// The time code every value is read at (the stage's `startTimeCode`, or the time a
    /// resumed run starts at).
    pub time: f64,
    /// Non-fatal diagnostics collected so far.
    pub warnings: Vec<Diagnostic>,
}

impl Ctx {
    /// Wraps an opened stage.
    pub fn new(stage: usd::Stage, input: &Path) -> Ctx {
        Ctx {
            stage,
            input: input.to_path_buf(),
            input_canonical: input.canonicalize().ok(),
            time: 0.0,
            warnings: Vec::new(),
        }
    }

    /// The root file as the user spelled it.
    pub fn file(&self) -> String {
        self.input.display().to_string()
    }

    /// A location on a prim (no property), in the root file.
    pub fn prim_loc(&self, prim: &sdf::Path) -> Location {
        Location { file: self.file(), prim: prim.to_string(), property: None }
    }

    /// A location on a property. Names the layer that holds the strongest opinion for
    /// the property when that is not the root layer (a sublayer or a referenced file),
    /// so the user edits the right file.
    pub fn prop_loc(&self, prim: &sdf::Path, property: &str) -> Location {
        Location {
            file: self.authoring_file(prim, property),
            prim: prim.to_string(),
            property: Some(property.to_string()),
        }
    }

    /// Records a warning of rule `code` (a schema rule the input breaks in a way the
    /// importer can work around, or one of [`crate::diagnostic::IMPORT_RULES`]) about a
    /// prim, and optionally one of its properties.
    pub fn warn(&mut self, code: &'static str, prim: &sdf::Path, property: Option<&str>, message: impl AsRef<str>) {
        let at = match property {
            Some(property) => self.prop_loc(prim, property),
            None => self.prim_loc(prim),
        };
        let mut diagnostic = Diagnostic::new(code, at, message.as_ref());
        // Whatever the rule's severity in `validate`, the importer went on: a warning.
        diagnostic.severity = Severity::Warning;
        self.warnings.push(diagnostic);
    }

    /// Converts an openusd query failure on a prim into an [`ImportError`].
    pub fn query_err(&self, prim: &sdf::Path, property: Option<&str>, err: impl std::fmt::Display) -> ImportError {
        let at = match property {
            Some(property) => self.prop_loc(prim, property),
            None => self.prim_loc(prim),
        };
        ImportError::Query { at, reason: err.to_string() }
    }

    /// The prim handle at `path`.
    pub fn prim(&self, path: &sdf::Path) -> Result<usd::Prim, ImportError> {
        self.stage.prim(path.clone()).map_err(|err| self.query_err(path, None, err))
    }

    /// Name of the layer holding the strongest opinion for `prim.property`, shown as
    /// the user's spelling when it is the root layer.
    fn authoring_file(&self, prim: &sdf::Path, property: &str) -> String {
        let layer = self
            .prim(prim)
            .ok()
            .and_then(|prim| prim.attribute(property).property_stack().ok())
            .and_then(|stack| stack.into_iter().next())
            .map(|site| site.layer);
        match layer {
            Some(layer) => {
                let is_root = self
                    .input_canonical
                    .as_deref()
                    .is_some_and(|root| Path::new(&layer).canonicalize().ok().as_deref() == Some(root));
                if is_root {
                    self.file()
                } else {
                    layer
                }
            }
            None => self.file(),
        }
    }
}

/// Runs `read`, turning a panic inside the USD reader into an error message: openusd is
/// a young parser, and a malformed file must be reported as unparsable, never take the
/// caller down. Shared by the importer and the validator.
pub(crate) fn guard_reader<T>(read: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)).map_err(|payload| {
        let reason = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "the USD reader panicked".to_string());
        format!("internal error in the USD reader: {reason}")
    })
}
