//! The per-file report of `usdsim validate`, as text for people and JSON for pipelines.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Severity};

/// Everything the validator found in one file.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    /// The file as the caller named it.
    pub file: String,
    /// Findings in stage traversal order of their prims, then by rule code.
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// Number of error findings.
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error).count()
    }

    /// Number of warning findings.
    pub fn warnings(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count()
    }

    /// Whether the file passes: no errors, and no warnings either when `strict`.
    pub fn passes(&self, strict: bool) -> bool {
        self.errors() == 0 && (!strict || self.warnings() == 0)
    }

    /// One line per finding, then a count line (`file: 2 errors, 1 warning`).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for diagnostic in &self.diagnostics {
            out.push_str(&diagnostic.text());
            out.push('\n');
        }
        out.push_str(&self.summary_line());
        out.push('\n');
        out
    }

    /// `file: ok` or `file: 2 errors, 1 warning`.
    pub fn summary_line(&self) -> String {
        let (errors, warnings) = (self.errors(), self.warnings());
        if errors == 0 && warnings == 0 {
            return format!("{}: ok", self.file);
        }
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        format!("{}: {}, {}", self.file, plural(errors, "error"), plural(warnings, "warning"))
    }

    /// The report as a JSON value: `file`, `errors`, `warnings`, `diagnostics`.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "file": self.file,
            "errors": self.errors(),
            "warnings": self.warnings(),
            "diagnostics": self.diagnostics,
        })
    }
}
