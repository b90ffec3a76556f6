//! Errors for scenes the solver cannot simulate.

use thiserror::Error;

/// A scene the solver refuses, naming the body (the importer uses prim paths as names)
/// and what is wrong. The importer validates first; these are the solver's own guards.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SceneError {
    /// An index in an element or pin refers past the end of its array.
    #[error("{body}: {what} index {index} is out of range (only {len} entries)")]
    IndexOutOfRange {
        /// Body name.
        body: String,
        /// Which array the index belongs to.
        what: &'static str,
        /// The offending index.
        index: u64,
        /// Length of the indexed array.
        len: usize,
    },
    /// Arrays that must have matching lengths do not.
    #[error("{body}: {what}: expected {expected} entries, found {found}")]
    LengthMismatch {
        /// Body name.
        body: String,
        /// Which array.
        what: &'static str,
        /// Required length.
        expected: usize,
        /// Actual length.
        found: usize,
    },
    /// A rest element has zero or negative volume/area, so it has no rest shape.
    #[error("{body}: rest {what} {element} is degenerate (its {what} is {measure:e})")]
    DegenerateElement {
        /// Body name.
        body: String,
        /// "tetrahedron" or "triangle".
        what: &'static str,
        /// Element index.
        element: usize,
        /// Its signed volume or area.
        measure: f32,
    },
    /// A material or setting value outside its valid range.
    #[error("{body}: {what} = {value} is invalid: {expected}")]
    InvalidValue {
        /// Body name (or "settings").
        body: String,
        /// Parameter name.
        what: &'static str,
        /// The value given.
        value: f32,
        /// What is expected instead.
        expected: &'static str,
    },
    /// A static collider whose shape cannot be built (an invalid triangle mesh, a
    /// non-finite dimension).
    #[error("{collider}: invalid collider: {reason}")]
    InvalidCollider {
        /// Collider name (the importer uses the prim path).
        collider: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A rigid body that cannot be simulated: a non-finite pose or velocity, an invalid
    /// collision shape, a mass that is not positive.
    #[error("{body}: invalid rigid body: {reason}")]
    InvalidRigidBody {
        /// Rigid body name (the importer uses the prim path).
        body: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A joint that cannot be built: a side that is no rigid body, a frame or limit that
    /// is not finite.
    #[error("{joint}: invalid joint: {reason}")]
    InvalidJoint {
        /// Joint name (the importer uses the prim path).
        joint: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A number is NaN or infinite where a finite value is required.
    #[error("{body}: {what} contains a non-finite value")]
    NonFinite {
        /// Body name.
        body: String,
        /// Which array or value.
        what: &'static str,
    },
    /// A saved state that does not fit the solver it is restored into.
    #[error("cannot resume: {reason}")]
    Resume {
        /// What does not fit.
        reason: String,
    },
}
