//! The variants of a wedge: `--wedge PRIM.ATTR=v1,v2,...` axes (their Cartesian
//! product) or an explicit `--wedges FILE.json` list, each a named set of `--set`
//! overrides.

use anyhow::{bail, Context, Result};
use std::path::Path;
use usdsim_usd::AttributeOverride;

/// One variant of a wedge: its name (a USD variant name: `w0`, `w1`, ... unless the
/// file names it) and the overrides it bakes with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wedge {
    /// Variant name, also the wedge's folder under the plan's directory.
    pub name: String,
    /// The `--set` overrides of this variant.
    pub set: Vec<AttributeOverride>,
}

/// One `--wedge` axis: an attribute and the values it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// `PRIM.ATTR=` with an empty value, the values below filled in.
    target: AttributeOverride,
    /// The values, in USD text syntax.
    values: Vec<String>,
}

impl std::str::FromStr for Axis {
    type Err = String;

    /// `PRIM.ATTR=v1,v2,...`; commas inside `()`, `[]` or quotes belong to a value,
    /// so `(0, 1, 0),(0, 2, 0)` is two vectors.
    fn from_str(text: &str) -> Result<Axis, String> {
        let target: AttributeOverride = text.parse()?;
        let values = split_top_level(&target.value);
        if values.iter().any(|v| v.is_empty()) {
            return Err(format!("{text:?}: an empty value in the list"));
        }
        Ok(Axis { target, values })
    }
}

/// Splits at commas that are not inside brackets or quotes.
fn split_top_level(text: &str) -> Vec<String> {
    let (mut parts, mut current, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, None);
    for c in text.chars() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current.trim().to_string());
    parts
}

/// The variants: the Cartesian product of `axes` (the first axis varies slowest), or
/// those `file` lists. Neither gives one variant without overrides.
pub fn wedges(axes: &[Axis], file: Option<&Path>) -> Result<Vec<Wedge>> {
    if let Some(file) = file {
        return read_file(file);
    }
    let mut sets: Vec<Vec<AttributeOverride>> = vec![Vec::new()];
    for axis in axes {
        sets = sets
            .into_iter()
            .flat_map(|set| {
                axis.values.iter().map(move |value| {
                    let mut set = set.clone();
                    set.push(AttributeOverride { value: value.clone(), ..axis.target.clone() });
                    set
                })
            })
            .collect();
    }
    Ok(sets.into_iter().enumerate().map(|(i, set)| Wedge { name: format!("w{i}"), set }).collect())
}

/// `--wedges FILE.json`: `[{"name": "soft", "set": ["/World/Mat.omniphysics:youngsModulus=1e5"]}, ...]`
/// (`name` optional, a USD identifier).
fn read_file(file: &Path) -> Result<Vec<Wedge>> {
    let text = std::fs::read_to_string(file).with_context(|| format!("--wedges {}: cannot read", file.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("--wedges {}: not JSON", file.display()))?;
    let Some(list) = json.as_array().filter(|l| !l.is_empty()) else {
        bail!(
            "--wedges {}: expected a non-empty array of {{\"name\": ..., \"set\": [\"PRIM.ATTR=VALUE\", ...]}}",
            file.display()
        );
    };
    let mut wedges = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let name = match entry.get("name") {
            None => format!("w{i}"),
            Some(serde_json::Value::String(name)) if is_identifier(name) => name.clone(),
            Some(other) => bail!(
                "--wedges {}: entry {i}: name {other} is not an identifier ([A-Za-z_][A-Za-z0-9_]*)",
                file.display()
            ),
        };
        let Some(set) = entry.get("set").and_then(|s| s.as_array()) else {
            bail!("--wedges {}: entry {i}: expected \"set\": [\"PRIM.ATTR=VALUE\", ...]", file.display());
        };
        let set = set
            .iter()
            .map(|s| {
                s.as_str()
                    .ok_or_else(|| format!("{s} is not a string"))
                    .and_then(|s| s.parse::<AttributeOverride>())
                    .map_err(|err| anyhow::anyhow!("--wedges {}: entry {i}: {err}", file.display()))
            })
            .collect::<Result<Vec<_>>>()?;
        if wedges.iter().any(|w: &Wedge| w.name == name) {
            bail!("--wedges {}: entry {i}: the name {name} is used twice", file.display());
        }
        wedges.push(Wedge { name, set });
    }
    Ok(wedges)
}

/// A USD identifier, which a variant name and a folder name both accept.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_multiply_and_keep_vectors_whole() {
        let a: Axis = "/W/M.omniphysics:youngsModulus=1e5,1e6,1e7".parse().unwrap();
        let b: Axis = "/W/B.physics:velocity=(0, 1, 0),(0, 2, 0)".parse().unwrap();
        let w = wedges(&[a, b], None).unwrap();
        assert_eq!(w.len(), 6);
        assert_eq!(w[1].name, "w1");
        let values: Vec<Vec<&str>> = w.iter().map(|w| w.set.iter().map(|s| s.value.as_str()).collect()).collect();
        assert_eq!(values[0], ["1e5", "(0, 1, 0)"]);
        assert_eq!(values[1], ["1e5", "(0, 2, 0)"]);
        assert_eq!(values[5], ["1e7", "(0, 2, 0)"]);
        assert_eq!(split_top_level("\"a,b\",[1, 2]"), ["\"a,b\"", "[1, 2]"]);
        assert!("/W/M.a=1,,2".parse::<Axis>().is_err());
        assert_eq!(wedges(&[], None).unwrap(), vec![Wedge { name: "w0".into(), set: vec![] }]);
    }

    #[test]
    fn wedge_files_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("w.json");
        std::fs::write(&file, r#"[{"name": "soft", "set": ["/W/M.a=1"]}, {"set": ["/W/M.a=2"]}]"#).unwrap();
        let w = wedges(&[], Some(&file)).unwrap();
        assert_eq!((w[0].name.as_str(), w[1].name.as_str()), ("soft", "w1"));
        for bad in [
            r#"[]"#,
            r#"[{"name": "a b", "set": []}]"#,
            r#"[{"set": ["nope"]}]"#,
            r#"[{"name": "x", "set": []}, {"name": "x", "set": []}]"#,
        ] {
            std::fs::write(&file, bad).unwrap();
            assert!(wedges(&[], Some(&file)).is_err(), "{bad}");
        }
    }
}
