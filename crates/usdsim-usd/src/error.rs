//! Error types for import and export.
//!
//! Every import error names the file, the prim path and (where one is involved) the
//! attribute, followed by what was expected, so a user can go straight to the problem:
//! `scene.usda: /World/Cube.tetVertexIndices: index 12 out of range for 8 points`.

use std::fmt;
use std::path::PathBuf;

/// Where in the scene description a problem sits: file, prim path and optionally a
/// property name. Displays as `file: /Prim/Path.property` (or `file: /Prim/Path`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The layer holding the offending opinion where known, else the stage's root file.
    pub file: String,
    /// The composed prim path.
    pub prim: String,
    /// The property name (attribute or relationship), if the problem is in one.
    pub property: Option<String>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.property {
            Some(property) => write!(f, "{}: {}.{}", self.file, self.prim, property),
            None => write!(f, "{}: {}", self.file, self.prim),
        }
    }
}

/// Why a stage could not be turned into a [`usdsim_core::Scene`].
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file does not exist or cannot be read.
    #[error("{}: cannot read file: {reason}", file.display())]
    Unreadable {
        /// The path given to [`crate::import`].
        file: PathBuf,
        /// The operating system's or parser's explanation.
        reason: String,
    },
    /// The file exists but openusd could not open it as a stage (syntax error, unknown
    /// format, broken root layer).
    #[error("{}: cannot open as a USD stage: {reason}", file.display())]
    Unparsable {
        /// The path given to [`crate::import`].
        file: PathBuf,
        /// openusd's explanation.
        reason: String,
    },
    /// Composition or a value query failed on a prim (openusd reported an error).
    #[error("{at}: {reason}")]
    Query {
        /// Where it failed.
        at: Location,
        /// openusd's explanation.
        reason: String,
    },
    /// A required attribute is not authored.
    #[error("{at}: required attribute is not authored (expected {expected})")]
    Missing {
        /// The attribute.
        at: Location,
        /// The value type expected, e.g. `point3f[]`.
        expected: &'static str,
    },
    /// An attribute holds a value of the wrong type.
    #[error("{at}: expected {expected}, found {found}")]
    WrongType {
        /// The attribute.
        at: Location,
        /// The value type expected, e.g. `int4[]`.
        expected: &'static str,
        /// The value kind found.
        found: String,
    },
    /// An index array refers past the end of the array it indexes.
    #[error("{at}: index {index} out of range for {count} {target}")]
    IndexOutOfRange {
        /// The index attribute.
        at: Location,
        /// The offending index.
        index: i64,
        /// How many entries the indexed array has.
        count: usize,
        /// What is indexed, e.g. `points`, `triangles`.
        target: &'static str,
    },
    /// Two arrays that must correspond have different lengths.
    #[error("{at}: has {found} entries, expected {expected} ({reason})")]
    LengthMismatch {
        /// The attribute with the wrong length.
        at: Location,
        /// Its length.
        found: usize,
        /// The length it must have.
        expected: usize,
        /// Which other array fixes the expected length.
        reason: String,
    },
    /// A surface deformable's mesh has a face that is not a triangle.
    #[error("{at}: face {face} has {count} vertices; surface deformables need triangles only")]
    NonTriangleFace {
        /// The `faceVertexCounts` attribute.
        at: Location,
        /// The face index.
        face: usize,
        /// Its vertex count.
        count: i64,
    },
    /// A value is present and well typed but not acceptable (bad token, non-finite
    /// number, wrong prim type for a simulation API, ...).
    #[error("{at}: {reason}")]
    Invalid {
        /// Where.
        at: Location,
        /// What was expected.
        reason: String,
    },
}

impl ImportError {
    /// Where the problem sits, when it is in the scene description (not for a file
    /// that cannot be read or parsed at all).
    pub fn location(&self) -> Option<&Location> {
        match self {
            ImportError::Unreadable { .. } | ImportError::Unparsable { .. } => None,
            ImportError::Query { at, .. }
            | ImportError::Missing { at, .. }
            | ImportError::WrongType { at, .. }
            | ImportError::IndexOutOfRange { at, .. }
            | ImportError::LengthMismatch { at, .. }
            | ImportError::NonTriangleFace { at, .. }
            | ImportError::Invalid { at, .. } => Some(at),
        }
    }

    /// A stable, machine-readable name of the kind of problem (for `--json`).
    pub fn code(&self) -> &'static str {
        match self {
            ImportError::Unreadable { .. } => "unreadable",
            ImportError::Unparsable { .. } => "unparsable",
            ImportError::Query { .. } => "query_failed",
            ImportError::Missing { .. } => "missing_attribute",
            ImportError::WrongType { .. } => "wrong_type",
            ImportError::IndexOutOfRange { .. } => "index_out_of_range",
            ImportError::LengthMismatch { .. } => "length_mismatch",
            ImportError::NonTriangleFace { .. } => "non_triangle_face",
            ImportError::Invalid { .. } => "invalid_value",
        }
    }

    /// The file the problem is in: the located layer, or the file that cannot be read.
    pub fn file(&self) -> String {
        match self {
            ImportError::Unreadable { file, .. } | ImportError::Unparsable { file, .. } => file.display().to_string(),
            other => other.location().map(|at| at.file.clone()).unwrap_or_default(),
        }
    }
}

impl ExportError {
    /// A stable, machine-readable name of the kind of problem (for `--json`).
    pub fn code(&self) -> &'static str {
        match self {
            ExportError::UnsupportedExtension { .. } => "output_format",
            ExportError::IsDirectory { .. } => "output_is_folder",
            ExportError::NotWritable { .. } => "output_not_writable",
            ExportError::WouldOverwriteInput { .. } => "output_is_input",
            ExportError::WouldOverwriteInputLayer { .. } => "output_is_input_layer",
            ExportError::InvalidPath { .. } => "output_path",
            ExportError::Author { .. } => "output_author",
            ExportError::Write { .. } => "output_write",
        }
    }

    /// The output path the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            ExportError::UnsupportedExtension { path }
            | ExportError::IsDirectory { path }
            | ExportError::NotWritable { path, .. }
            | ExportError::WouldOverwriteInput { path }
            | ExportError::WouldOverwriteInputLayer { path, .. }
            | ExportError::InvalidPath { path, .. }
            | ExportError::Author { path, .. }
            | ExportError::Write { path, .. } => path,
        }
    }
}

/// Why a bake could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The output extension is none of `.usda`, `.usdc` and `.usd`.
    #[error("{}: unsupported output format; use a .usda (text), .usdc or .usd (binary) file name", path.display())]
    UnsupportedExtension {
        /// The requested output path.
        path: PathBuf,
    },
    /// The output path is an existing folder, not a file name.
    #[error("{}: is a folder; give a file name, e.g. {}", path.display(), path.join("bake.usda").display())]
    IsDirectory {
        /// The requested output path.
        path: PathBuf,
    },
    /// The output cannot be written there (found out before simulating, by creating a
    /// file beside it): a read-only folder, a read-only existing file, a full disk.
    #[error("{}: cannot write the output: {reason}", path.display())]
    NotWritable {
        /// The requested output path.
        path: PathBuf,
        /// The operating system's explanation, e.g. "Permission denied (os error 13)".
        reason: String,
    },
    /// The output path is the input file: writing would destroy the user's scene.
    #[error("{}: refusing to overwrite the input file; choose another output path", path.display())]
    WouldOverwriteInput {
        /// The requested output path.
        path: PathBuf,
    },
    /// The output path is a file the input loads (a sublayer, or a layer it references,
    /// payloads or takes clips from): writing would destroy part of the user's scene, and
    /// the bake, which sublayers the input, would then load itself.
    #[error(
        "{}: refusing to overwrite {}, which the input {} loads (as a sublayer, reference, payload or value clip); choose another output path",
        path.display(),
        layer.display(),
        input.display()
    )]
    WouldOverwriteInputLayer {
        /// The requested output path.
        path: PathBuf,
        /// The input's layer that the output path names.
        layer: PathBuf,
        /// The input stage.
        input: PathBuf,
    },
    /// The output directory does not exist or the path cannot be resolved.
    #[error("{}: invalid output path: {reason}", path.display())]
    InvalidPath {
        /// The requested output path.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Building the output layer failed (openusd authoring error).
    #[error("{}: cannot author output layer: {reason}", path.display())]
    Author {
        /// The requested output path.
        path: PathBuf,
        /// openusd's explanation.
        reason: String,
    },
    /// Writing or renaming the file failed.
    #[error("{}: cannot write: {reason}", path.display())]
    Write {
        /// The requested output path.
        path: PathBuf,
        /// The I/O or serializer explanation.
        reason: String,
    },
}
