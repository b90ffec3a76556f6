//! Findings, the rule catalogue they cite and how serious each is: what every pass
//! reports (the validator's rules, and the importer's warnings about what it worked
//! around), kept below the stage so that every pass may report one.

pub mod rule;

use serde::Serialize;

pub use rule::{Rule, Severity, IMPORT_RULES, RULES};

use crate::error::Location;

/// One finding: which rule, where, and what was expected.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnostic {
    /// The rule code, e.g. `DB102`.
    pub code: &'static str,
    /// The rule's severity.
    pub severity: Severity,
    /// The layer holding the offending opinion (the root file unless it comes from a
    /// sublayer or reference).
    pub file: String,
    /// The composed prim path.
    pub prim: String,
    /// The attribute or relationship involved, if any.
    pub property: Option<String>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl Diagnostic {
    /// Builds a diagnostic of rule `code` at `at`. The severity comes from the
    /// catalogue (an unknown code, a validator bug, counts as an error).
    pub fn new(code: &'static str, at: Location, message: impl Into<String>) -> Diagnostic {
        debug_assert!(rule::rule(code).is_some(), "unknown rule code {code}");
        let severity = rule::rule(code).map_or(Severity::Error, |r| r.severity);
        Diagnostic { code, severity, file: at.file, prim: at.prim, property: at.property, message: message.into() }
    }

    /// `error[DB102]: scene.usda: /World/Tet.tetVertexIndices: index 7 out of range ...`
    pub fn text(&self) -> String {
        let at = match &self.property {
            Some(property) => format!("{}: {}.{}", self.file, self.prim, property),
            None => format!("{}: {}", self.file, self.prim),
        };
        format!("{}[{}]: {at}: {}", self.severity.as_str(), self.code, self.message)
    }
}
