//! `--set PRIM.ATTR=VALUE`: one authored value replaced for one run, at the USD level.
//!
//! The overrides become a session layer (USD's place for strong, non-persistent
//! opinions) on the opened stage, so every reader, the validator included, sees the
//! new value with no per-attribute code. Each value is parsed as USD text of the
//! attribute's declared type (the authored `typeName`, or the schema's when the
//! attribute is unauthored), so a wrong prim, attribute or type is refused before
//! anything runs, naming it.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU32, Ordering};

use openusd::sdf::{self, AbstractData};
use openusd::{usd, usda};

use super::prim_index::PrimIndex;
use crate::schema::declared_types::schema_type;

/// One `PRIM.ATTR=VALUE` override, as the user wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttributeOverride {
    /// The prim's absolute path (`/World/Material`).
    pub prim: String,
    /// The attribute's name, namespaces included (`omniphysics:youngsModulus`).
    pub attribute: String,
    /// The value in USD text syntax (`2e6`, `(0, 0, -9.81)`, `"springs"`, `[(0, 1, 0)]`).
    pub value: String,
}

impl AttributeOverride {
    /// `PRIM.ATTR`, as messages and the bake's `customLayerData` name it.
    pub fn target(&self) -> String {
        format!("{}.{}", self.prim, self.attribute)
    }
}

impl fmt::Display for AttributeOverride {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}={}", self.prim, self.attribute, self.value)
    }
}

impl FromStr for AttributeOverride {
    type Err = String;

    /// Splits `PRIM.ATTR=VALUE` at the first `=` and, before it, at the last `.`
    /// (attribute names hold `:` but never `.`).
    fn from_str(text: &str) -> Result<AttributeOverride, String> {
        let Some((target, value)) = text.split_once('=') else {
            return Err(format!("{text:?}: expected PRIM.ATTR=VALUE, e.g. /World/Mat.omniphysics:youngsModulus=2e6"));
        };
        let Some((prim, attribute)) = target.rsplit_once('.') else {
            return Err(format!("{text:?}: expected PRIM.ATTR before '=' (a prim path, '.', an attribute name)"));
        };
        if !prim.starts_with('/') {
            return Err(format!("{text:?}: the prim path {prim:?} must be absolute (start with '/')"));
        }
        if attribute.is_empty() || value.trim().is_empty() {
            return Err(format!("{text:?}: expected PRIM.ATTR=VALUE with a non-empty attribute and value"));
        }
        Ok(AttributeOverride {
            prim: prim.to_string(),
            attribute: attribute.to_string(),
            value: value.trim().to_string(),
        })
    }
}

/// Why an override cannot apply: each a usage error naming the override.
#[derive(Debug, thiserror::Error)]
pub enum OverrideError {
    /// No prim at that path on the composed stage.
    #[error("--set {target}: {file}: no prim {prim} on the composed stage")]
    NoPrim {
        /// `PRIM.ATTR`.
        target: String,
        /// The input stage.
        file: String,
        /// The prim path.
        prim: String,
    },
    /// The prim has no such attribute, authored or in a schema it applies.
    #[error(
        "--set {target}: {file}: {prim} has no attribute {attribute} (authored, or declared by a schema it applies){hint}"
    )]
    NoAttribute {
        /// `PRIM.ATTR`.
        target: String,
        /// The input stage.
        file: String,
        /// The prim path.
        prim: String,
        /// The attribute name.
        attribute: String,
        /// The closest authored names, if any.
        hint: String,
    },
    /// The value does not parse as the attribute's type.
    #[error(
        "--set {target}: {value:?} is not a valid {type_name} value (the type {file} declares for {target}): {reason}"
    )]
    BadValue {
        /// `PRIM.ATTR`.
        target: String,
        /// The input stage.
        file: String,
        /// The value text.
        value: String,
        /// The attribute's declared type.
        type_name: String,
        /// The parser's explanation.
        reason: String,
    },
    /// The session layer could not be written or opened.
    #[error("--set: cannot stage the overrides: {0}")]
    Session(String),
}

/// The overrides resolved against a stage: each with its type and canonical value text.
pub(crate) struct SessionLayer {
    /// `(prim path, type name, attribute name, value text)` in the order given.
    entries: Vec<(String, String, String, String)>,
}

impl SessionLayer {
    /// Checks every override against `stage` (its prims in `index`) and renders its
    /// value in the declared type.
    pub(crate) fn resolve(
        stage: &usd::Stage,
        index: &PrimIndex,
        file: &str,
        overrides: &[AttributeOverride],
    ) -> Result<SessionLayer, OverrideError> {
        let mut entries = Vec::new();
        for o in overrides {
            let target = o.target();
            let prim_path = sdf::Path::new(&o.prim).ok();
            let info = prim_path.as_ref().and_then(|p| index.find(p)).map(|i| &index[i]);
            let Some(info) = info else {
                return Err(OverrideError::NoPrim { target, file: file.to_string(), prim: o.prim.clone() });
            };
            let authored_type = stage
                .prim(info.path.clone())
                .ok()
                .filter(|_| info.properties.iter().any(|p| p == &o.attribute))
                .and_then(|prim| prim.attribute(o.attribute.as_str()).type_name().ok().flatten())
                .map(|t| t.to_string());
            let declared = authored_type.or_else(|| schema_type(&info.type_name, &info.apis, &o.attribute));
            let Some(type_name) = declared else {
                let near: Vec<&str> =
                    info.properties.iter().filter(|p| strsim_close(p, &o.attribute)).map(String::as_str).collect();
                let hint = if near.is_empty() { String::new() } else { format!("; did you mean {}?", near.join(", ")) };
                return Err(OverrideError::NoAttribute {
                    target,
                    file: file.to_string(),
                    prim: o.prim.clone(),
                    attribute: o.attribute.clone(),
                    hint,
                });
            };
            let value = canonical_value(&type_name, &o.value).map_err(|reason| OverrideError::BadValue {
                target: target.clone(),
                file: file.to_string(),
                value: o.value.clone(),
                type_name: type_name.clone(),
                reason,
            })?;
            entries.push((info.path.to_string(), type_name, o.attribute.clone(), value));
        }
        Ok(SessionLayer { entries })
    }

    /// The session layer as `.usda` text: nested `over`s holding each value as a
    /// default, which a session layer's strength puts above any authored sample.
    pub(crate) fn text(&self) -> String {
        let mut text = String::from("#usda 1.0\n(\n    doc = \"usdsim --set overrides (session layer)\"\n)\n\n");
        let mut by_prim: Vec<(&str, Vec<String>)> = Vec::new();
        for (prim, type_name, attribute, value) in &self.entries {
            let line = format!("{type_name} {attribute} = {value}");
            match by_prim.iter_mut().find(|(p, _)| p == prim) {
                Some((_, lines)) => lines.push(line),
                None => by_prim.push((prim, vec![line])),
            }
        }
        for (prim, lines) in by_prim {
            let names: Vec<&str> = prim.trim_start_matches('/').split('/').collect();
            for (depth, name) in names.iter().enumerate() {
                text.push_str(&format!("{}over \"{name}\"\n{}{{\n", indent(depth), indent(depth)));
            }
            for line in lines {
                text.push_str(&format!("{}{line}\n", indent(names.len())));
            }
            for depth in (0..names.len()).rev() {
                text.push_str(&format!("{}}}\n", indent(depth)));
            }
        }
        text
    }

    /// Opens `path` with these overrides as its session layer. The layer goes through
    /// a temporary file (openusd loads a session layer by path) that is removed once the
    /// stage is open: stages load their layers whole.
    pub(crate) fn open(&self, path: &str) -> Result<usd::Stage, OverrideError> {
        static SEQUENCE: AtomicU32 = AtomicU32::new(0);
        let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
        let session = std::env::temp_dir().join(format!("usdsim-set-{}-{n}.usda", std::process::id()));
        std::fs::write(&session, self.text())
            .map_err(|err| OverrideError::Session(format!("{}: {err}", session.display())))?;
        let Some(session_str) = session.to_str() else {
            let _ = std::fs::remove_file(&session);
            return Err(OverrideError::Session(format!("{}: not valid UTF-8", session.display())));
        };
        let stage = usd::Stage::builder().session_layer(session_str).open(path);
        let _ = std::fs::remove_file(&session);
        stage.map_err(|err| OverrideError::Session(err.to_string()))
    }
}

fn indent(depth: usize) -> String {
    "    ".repeat(depth)
}

/// Whether two attribute names are close enough to suggest one for the other: one
/// begins the other, or they differ only in the namespace or in letter case.
fn strsim_close(a: &str, b: &str) -> bool {
    let tail = |s: &str| s.rsplit(':').next().unwrap_or(s).to_ascii_lowercase();
    let (a_low, b_low) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
    a_low.starts_with(&b_low) || b_low.starts_with(&a_low) || tail(a) == tail(b)
}

/// `value` parsed as a `type_name` attribute's default and written back as USD text:
/// the parser is the type check, and the rewrite means only a value (never text that
/// would end the attribute early) reaches the session layer.
fn canonical_value(type_name: &str, value: &str) -> Result<String, String> {
    let snippet = format!("#usda 1.0\nover \"P\"\n{{\n    {type_name} a = {value}\n}}\n");
    // The parser's first line says what is wrong; the rest quotes our snippet.
    let data = usda::parse(&snippet).map_err(|err| err.to_string().lines().next().unwrap_or_default().to_string())?;
    let attr = sdf::Path::new("/P.a").map_err(|err| err.to_string())?;
    if data.spec_paths().len() != 3 {
        return Err("expected one value".to_string());
    }
    let parsed = data
        .try_field(&attr, "default")
        .map_err(|err| err.to_string())?
        .ok_or_else(|| "expected a value".to_string())?;
    usda::TextWriter::value_to_string(&parsed).map_err(|err| err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_prim_attribute_and_value() {
        let o: AttributeOverride = "/World/Mat.omniphysics:youngsModulus=2e6".parse().unwrap();
        assert_eq!(o.prim, "/World/Mat");
        assert_eq!(o.attribute, "omniphysics:youngsModulus");
        assert_eq!(o.value, "2e6");
        let v: AttributeOverride = "/A/B.physics:velocity=(0, 1.5, 0)".parse().unwrap();
        assert_eq!(
            (v.prim.as_str(), v.attribute.as_str(), v.value.as_str()),
            ("/A/B", "physics:velocity", "(0, 1.5, 0)")
        );
        for bad in ["/World/Mat", "World/Mat.a=1", "/World/Mat.=1", "/World/Mat.a=", "noprim=3"] {
            assert!(bad.parse::<AttributeOverride>().is_err(), "{bad}");
        }
    }

    #[test]
    fn values_are_checked_against_the_type() {
        assert_eq!(canonical_value("float", "2e6").unwrap(), "2000000.0");
        assert!(canonical_value("float", "\"soft\"").is_err());
        assert!(canonical_value("float3", "1.0").is_err());
        assert!(canonical_value("float", "1 }\nover \"X\" { float b = 2").is_err());
        assert!(canonical_value("token", "\"springs\"").is_ok());
        assert!(canonical_value("vector3f[]", "[(0, 1, 0), (0, 2, 0)]").is_ok());
    }
}
