//! The variants of a wedge: `--wedge PRIM.ATTR=v1,v2,...` and `--wedge OPTION=v1,v2,...`
//! axes (their Cartesian product) or an explicit `--wedges FILE.json` list, each a named
//! set of `--set` overrides and run options.

use anyhow::{bail, Context, Result};
use std::path::Path;
use usdsim_usd::AttributeOverride;

/// One variant of a wedge: its name (a USD variant name: `w0`, `w1`, ... unless the
/// file names it; a run-option axis adds its option and value, `w1_substeps24`) and
/// the overrides and run options it bakes with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Wedge {
    /// Variant name, also the wedge's folder under the plan's directory.
    pub name: String,
    /// The `--set` overrides of this variant.
    pub set: Vec<AttributeOverride>,
    /// The run options this variant adds, as command-line words (`--substeps`, `24`).
    pub run: Vec<String>,
}

impl Wedge {
    /// What this variant bakes with beyond the plan's own options, as the words of a
    /// command line: its run options, then its `--set`s.
    pub fn settings(&self) -> Vec<String> {
        let mut words = self.run.clone();
        for set in &self.set {
            words.extend(["--set".to_string(), set.to_string()]);
        }
        words
    }
}

/// One `--wedge` axis: what varies and the values it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Axis {
    /// An authored attribute, `PRIM.ATTR=v1,v2,...`: each value is a `--set`.
    Attribute {
        /// `PRIM.ATTR=` with an empty value, the values below filled in.
        target: AttributeOverride,
        /// The values, in USD text syntax.
        values: Vec<String>,
    },
    /// An option of `usdsim run`, `substeps=16,24,32` (its long name, without dashes).
    RunOption {
        /// The long option's name, `substeps`, `time-scheme`, `self-contact`.
        name: String,
        /// The values, as the option takes them (`true`/`false` for a switch).
        values: Vec<String>,
    },
}

impl std::str::FromStr for Axis {
    type Err = String;

    /// `PRIM.ATTR=v1,v2,...` (a prim path starts with `/`) or `OPTION=v1,v2,...`; commas
    /// inside `()`, `[]` or quotes belong to a value, so `(0, 1, 0),(0, 2, 0)` is two
    /// vectors.
    fn from_str(text: &str) -> Result<Axis, String> {
        let axis = if text.starts_with('/') {
            let target: AttributeOverride = text.parse()?;
            let values = split_top_level(&target.value);
            Axis::Attribute { target, values }
        } else {
            let Some((name, values)) = text.split_once('=') else {
                return Err(format!(
                    "{text:?}: expected PRIM.ATTR=V1,V2,... or OPTION=V1,V2,... (e.g. substeps=16,24)"
                ));
            };
            let name = name.trim().trim_start_matches("--");
            let option_name = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
            if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_lowercase()) || !name.chars().all(option_name)
            {
                return Err(format!("{text:?}: {name:?} is neither a prim path (/...) nor a run option's name"));
            }
            Axis::RunOption { name: name.to_string(), values: split_top_level(values) }
        };
        let (Axis::Attribute { values, .. } | Axis::RunOption { values, .. }) = &axis;
        if values.iter().any(|v| v.is_empty()) {
            return Err(format!("{text:?}: an empty value in the list"));
        }
        Ok(axis)
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

/// The command-line words of one run option at one value (`substeps`, `24` →
/// `--substeps 24`), or why it is not one: the CLI knows its options.
pub type RunWords<'a> = &'a dyn Fn(&str, &str) -> Result<Vec<String>>;

/// The variants: the Cartesian product of `axes` (the first axis varies slowest), or
/// those `file` lists. Neither gives one variant without overrides. `words` renders a
/// run-option axis's value.
pub fn wedges(axes: &[Axis], file: Option<&Path>, words: RunWords<'_>) -> Result<Vec<Wedge>> {
    if let Some(file) = file {
        return read_file(file);
    }
    // Each variant so far, with the name suffixes its run-option values add.
    let mut variants: Vec<(Wedge, String)> = vec![(Wedge::default(), String::new())];
    for axis in axes {
        let mut next = Vec::with_capacity(variants.len());
        for (wedge, suffix) in &variants {
            match axis {
                Axis::Attribute { target, values } => {
                    for value in values {
                        let mut wedge = wedge.clone();
                        wedge.set.push(AttributeOverride { value: value.clone(), ..target.clone() });
                        next.push((wedge, suffix.clone()));
                    }
                }
                Axis::RunOption { name, values } => {
                    for value in values {
                        let mut wedge = wedge.clone();
                        wedge.run.extend(words(name, value).with_context(|| format!("--wedge {name}={value}"))?);
                        next.push((wedge, format!("{suffix}_{}", name_part(&format!("{name}{value}")))));
                    }
                }
            }
        }
        variants = next;
    }
    Ok(variants
        .into_iter()
        .enumerate()
        .map(|(i, (wedge, suffix))| Wedge { name: format!("w{i}{suffix}"), ..wedge })
        .collect())
}

/// `text` as part of a USD identifier: `-` becomes `_`, `.` becomes `p` (so `0.5` is
/// `0p5`), anything else outside `[A-Za-z0-9_]` is dropped.
fn name_part(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            '-' => Some('_'),
            '.' => Some('p'),
            c if c.is_ascii_alphanumeric() || c == '_' => Some(c),
            _ => None,
        })
        .collect()
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
        wedges.push(Wedge { name, set, run: Vec::new() });
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

    /// `--NAME VALUE`, and a switch (`self-contact`) as present or absent.
    fn words(name: &str, value: &str) -> Result<Vec<String>> {
        match (name, value) {
            ("self-contact", "true") => Ok(vec!["--self-contact".into()]),
            ("self-contact", "false") => Ok(vec![]),
            ("nope", _) => anyhow::bail!("no run option --nope"),
            _ => Ok(vec![format!("--{name}"), value.into()]),
        }
    }

    #[test]
    fn axes_multiply_and_keep_vectors_whole() {
        let a: Axis = "/W/M.omniphysics:youngsModulus=1e5,1e6,1e7".parse().unwrap();
        let b: Axis = "/W/B.physics:velocity=(0, 1, 0),(0, 2, 0)".parse().unwrap();
        let w = wedges(&[a, b], None, &words).unwrap();
        assert_eq!(w.len(), 6);
        assert_eq!(w[1].name, "w1");
        let values: Vec<Vec<&str>> = w.iter().map(|w| w.set.iter().map(|s| s.value.as_str()).collect()).collect();
        assert_eq!(values[0], ["1e5", "(0, 1, 0)"]);
        assert_eq!(values[1], ["1e5", "(0, 2, 0)"]);
        assert_eq!(values[5], ["1e7", "(0, 2, 0)"]);
        assert_eq!(split_top_level("\"a,b\",[1, 2]"), ["\"a,b\"", "[1, 2]"]);
        assert!("/W/M.a=1,,2".parse::<Axis>().is_err());
        assert_eq!(wedges(&[], None, &words).unwrap(), vec![Wedge { name: "w0".into(), ..Wedge::default() }]);
    }

    /// A run-option axis adds its words to each variant and its value to the name.
    #[test]
    fn run_option_axes_vary_the_command_and_name_the_variant() {
        let a: Axis = "substeps=16,24".parse().unwrap();
        let b: Axis = "/W/M.a=1,2".parse().unwrap();
        let c: Axis = "--contact-offset=0.001".parse().unwrap();
        let w = wedges(&[a, b, c], None, &words).unwrap();
        let names: Vec<&str> = w.iter().map(|w| w.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "w0_substeps16_contact_offset0p001",
                "w1_substeps16_contact_offset0p001",
                "w2_substeps24_contact_offset0p001",
                "w3_substeps24_contact_offset0p001"
            ]
        );
        assert_eq!(w[3].run, ["--substeps", "24", "--contact-offset", "0.001"]);
        assert_eq!(w[3].settings(), ["--substeps", "24", "--contact-offset", "0.001", "--set", "/W/M.a=2"]);
        let switch = wedges(&["self-contact=true,false".parse().unwrap()], None, &words).unwrap();
        assert_eq!((switch[0].run.clone(), switch[1].run.clone()), (vec!["--self-contact".to_string()], vec![]));
        assert!(wedges(&["nope=1".parse().unwrap()], None, &words).is_err());
        for bad in ["substeps", "Substeps=1", "sub steps=1", "=1", "substeps=1,"] {
            assert!(bad.parse::<Axis>().is_err(), "{bad}");
        }
    }

    #[test]
    fn wedge_files_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("w.json");
        std::fs::write(&file, r#"[{"name": "soft", "set": ["/W/M.a=1"]}, {"set": ["/W/M.a=2"]}]"#).unwrap();
        let w = wedges(&[], Some(&file), &words).unwrap();
        assert_eq!((w[0].name.as_str(), w[1].name.as_str()), ("soft", "w1"));
        for bad in [
            r#"[]"#,
            r#"[{"name": "a b", "set": []}]"#,
            r#"[{"set": ["nope"]}]"#,
            r#"[{"name": "x", "set": []}, {"name": "x", "set": []}]"#,
        ] {
            std::fs::write(&file, bad).unwrap();
            assert!(wedges(&[], Some(&file), &words).is_err(), "{bad}");
        }
    }
}
