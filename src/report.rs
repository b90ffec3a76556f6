//! What a command tells the user besides its result: warnings and errors, each once, in
//! one form (`warning[CODE]: file: /Prim.attribute: message`), coloured as `--color`
//! says, and kept for the `--json` report.

use std::io::IsTerminal;

use serde_json::{json, Value};
use usdsim_usd::validate::{Diagnostic, Severity};

use crate::cli::ColorArg;

/// Code of a warning about a command-line override that changes nothing.
pub const OVERRIDE_UNUSED: &str = "CLI001";
/// Code of a warning that `--resume` continues from values edited in the output.
pub const RESUMED_EDITED: &str = "CLI002";
/// Code of a solver warning about its stability bound (substeps raised, or a force
/// integrator's step beyond its stable limit).
pub const SOLVER_STABILITY: &str = "SV001";

/// Whether to colour the labels, decided once from `--color`, the terminal and `NO_COLOR`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    colour: bool,
}

impl Style {
    /// `--color auto` colours only a terminal, and never when `NO_COLOR` is set to a
    /// non-empty value (no-color.org).
    pub fn new(choice: ColorArg) -> Style {
        let colour = match choice {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto => {
                std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        Style { colour }
    }

    /// `label`, in bold red (errors) or bold yellow (warnings) when colouring.
    pub fn label(&self, severity: Severity, code: &str) -> String {
        let text =
            if code.is_empty() { severity.as_str().to_string() } else { format!("{}[{code}]", severity.as_str()) };
        if !self.colour {
            return text;
        }
        let colour = match severity {
            Severity::Error => "31",
            Severity::Warning => "33",
        };
        format!("\x1b[1;{colour}m{text}\x1b[0m")
    }

    /// `warning[CODE]: file: /Prim.attribute: message`; the prim part is left out for a
    /// finding about the stage or the command line as a whole.
    pub fn line(&self, d: &Diagnostic) -> String {
        let at = match (d.prim.as_str(), &d.property) {
            ("" | "/", Some(property)) => format!("{property}: "),
            ("" | "/", None) => String::new(),
            (prim, Some(property)) => format!("{prim}.{property}: "),
            (prim, None) => format!("{prim}: "),
        };
        format!("{}: {}: {at}{}", self.label(d.severity, d.code), d.file, d.message)
    }
}

/// Collects and prints a command's warnings, each fact once.
#[derive(Debug)]
pub struct Reporter {
    style: Style,
    /// Print nothing on stderr (`--quiet`, or `--json`, whose report holds them).
    silent: bool,
    /// Print errors neither (a caller that returns them: the Python module).
    mute: bool,
    warnings: Vec<Diagnostic>,
}

impl Reporter {
    /// A reporter that prints on stderr unless `silent`.
    pub fn new(style: Style, silent: bool) -> Reporter {
        Reporter { style, silent, mute: false, warnings: Vec::new() }
    }

    /// A reporter that prints nothing, errors included, and only keeps the warnings,
    /// for callers that return them (the Python module).
    pub fn silent() -> Reporter {
        Reporter { mute: true, ..Reporter::new(Style { colour: false }, true) }
    }

    /// The colouring in use.
    pub fn style(&self) -> Style {
        self.style
    }

    /// Records and prints a warning, unless the same rule already reported the same
    /// place (the validator and the importer both see some facts).
    pub fn warn(&mut self, mut diagnostic: Diagnostic) {
        diagnostic.severity = Severity::Warning;
        if self.warnings.iter().any(|d| same_fact(d, &diagnostic)) {
            return;
        }
        if !self.silent {
            eprintln!("{}", self.style.line(&diagnostic));
        }
        self.warnings.push(diagnostic);
    }

    /// A warning that is about the command line or the stage as a whole, not a prim. A
    /// message that starts with the flags it is about (`--plastic-rate: ...`) carries them
    /// as its `attribute`.
    pub fn warn_general(&mut self, code: &'static str, file: &str, message: String) {
        let (property, message) = match message.split_once(": ") {
            Some((flags, rest)) if flags.starts_with("--") => (Some(flags.to_string()), rest.to_string()),
            _ => (None, message),
        };
        self.warn(Diagnostic {
            code,
            severity: Severity::Warning,
            file: file.to_string(),
            prim: String::new(),
            property,
            message,
        });
    }

    /// A solver warning: its text starts with the body's name (`/World/Cloth: ...`).
    pub fn warn_solver(&mut self, file: &str, text: &str) {
        let (prim, message) = match text.split_once(": ") {
            Some((prim, message)) if prim.starts_with('/') => (prim.to_string(), message.to_string()),
            _ => (String::new(), text.to_string()),
        };
        self.warn(Diagnostic {
            code: SOLVER_STABILITY,
            severity: Severity::Warning,
            file: file.to_string(),
            prim,
            property: None,
            message,
        });
    }

    /// Prints a finding that stops the command: always, even when quiet or under
    /// `--json` (whose report carries it too).
    pub fn error(&self, diagnostic: &Diagnostic) {
        if !self.mute {
            eprintln!("{}", self.style.line(diagnostic));
        }
    }

    /// The warnings so far, as the JSON report lists them.
    pub fn warnings_json(&self) -> Value {
        Value::Array(self.warnings.iter().map(diagnostic_json).collect())
    }
}

/// Whether two findings state the same fact: the same rule at the same prim and
/// attribute (the validator and the importer both see some).
pub fn same_fact(a: &Diagnostic, b: &Diagnostic) -> bool {
    a.code == b.code && a.prim == b.prim && a.property == b.property
}

/// One finding as JSON: `code`, `severity`, `file`, `prim` (null for the stage as a
/// whole), `attribute` (null when the finding is about the prim) and `message`.
pub fn diagnostic_json(d: &Diagnostic) -> Value {
    json!({
        "code": d.code,
        "severity": d.severity.as_str(),
        "file": d.file,
        "prim": if d.prim.is_empty() || d.prim == "/" { Value::Null } else { json!(d.prim) },
        "attribute": d.property,
        "message": d.message,
    })
}

/// `1 body`, `2 bodies`: a count with its noun in the right number.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(prim: &str, property: Option<&str>) -> Diagnostic {
        Diagnostic {
            code: "DB303",
            severity: Severity::Warning,
            file: "a.usda".to_string(),
            prim: prim.to_string(),
            property: property.map(str::to_string),
            message: "m".to_string(),
        }
    }

    #[test]
    fn one_form_for_every_place() {
        let plain = Style { colour: false };
        assert_eq!(plain.line(&finding("/W/C", Some("points"))), "warning[DB303]: a.usda: /W/C.points: m");
        assert_eq!(plain.line(&finding("/W/C", None)), "warning[DB303]: a.usda: /W/C: m");
        assert_eq!(plain.line(&finding("", None)), "warning[DB303]: a.usda: m");
        assert_eq!(plain.line(&finding("", Some("--plastic-rate"))), "warning[DB303]: a.usda: --plastic-rate: m");
        let coloured = Style { colour: true };
        assert_eq!(coloured.label(Severity::Error, "DB011"), "\x1b[1;31merror[DB011]\x1b[0m");
    }

    #[test]
    fn a_fact_is_reported_once() {
        let mut r = Reporter::new(Style { colour: false }, true);
        r.warn(finding("/W/C", None));
        r.warn(finding("/W/C", None));
        r.warn(finding("/W/D", None));
        assert_eq!(r.warnings.len(), 2);
    }

    #[test]
    fn plurals() {
        assert_eq!(count(1, "body", "bodies"), "1 body");
        assert_eq!(count(0, "body", "bodies"), "0 bodies");
        assert_eq!(count(2, "collider", "colliders"), "2 colliders");
    }
}
