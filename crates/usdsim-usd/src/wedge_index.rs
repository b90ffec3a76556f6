//! The index layer over the bakes of a wedge (`wedges.usda`): one prim with a variant
//! set `wedge`, one variant per bake, each referencing that bake and documenting the
//! settings it was baked with (its `doc`, in a viewer's metadata of the prim). Flipping
//! the variant in a viewer shows each result; the layer takes its axis, units, default
//! prim and time range from the first bake, so a viewer plays it as it plays a bake.

use std::fmt::Write as _;
use std::path::Path;

use openusd::{sdf, usda};

use crate::error::ExportError;

/// The variant set's name.
pub const WEDGE_VARIANT_SET: &str = "wedge";

/// One variant of the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedWedge {
    /// The variant's name (a USD variant identifier).
    pub name: String,
    /// Its bake, relative to the index's folder.
    pub bake: String,
    /// What it was baked with beyond the input and frames (`--substeps 24 --set ...`),
    /// shown as the variant's `doc`; empty for none.
    pub settings: String,
}

/// Writes `output`, an index over `wedges`, the first variant selected. Every bake must
/// exist and have a default prim (a bake copies its input's), which the variants
/// reference. Written to a temporary name and renamed.
pub fn write_wedge_index(output: &Path, wedges: &[IndexedWedge]) -> Result<(), ExportError> {
    let err = |reason: String| ExportError::Author { path: output.to_path_buf(), reason };
    let dir = output.parent().unwrap_or_else(|| Path::new("."));
    let mut default_prim = None;
    let mut metadata = String::new();
    for (i, IndexedWedge { name, bake, .. }) in wedges.iter().enumerate() {
        if !sdf::Path::is_valid_variant_identifier(name) {
            return Err(err(format!("wedge {name:?} is not a valid variant name")));
        }
        let path = dir.join(bake);
        let path_str = path.to_str().ok_or_else(|| err(format!("{}: not valid UTF-8", path.display())))?;
        let layer = sdf::Layer::open(path_str)
            .map_err(|e| err(format!("wedge {name}: cannot open its bake {}: {e}", path.display())))?;
        let root = layer.pseudo_root().ok_or_else(|| err(format!("{}: no pseudo-root", path.display())))?;
        let prim = root
            .default_prim()
            .ok_or_else(|| err(format!("wedge {name}: its bake {} has no defaultPrim to reference", path.display())))?;
        match &default_prim {
            None => default_prim = Some(prim.as_str().to_string()),
            Some(first) if first != prim.as_str() => {
                return Err(err(format!(
                    "wedge {name}: its bake's defaultPrim {prim} differs from the first bake's {first}"
                )));
            }
            Some(_) => {}
        }
        if i == 0 {
            for (key, value) in [
                ("startTimeCode", root.start_time_code()),
                ("endTimeCode", root.end_time_code()),
                ("timeCodesPerSecond", root.time_codes_per_second()),
                ("metersPerUnit", root.get::<f64>("metersPerUnit")),
                ("kilogramsPerUnit", root.get::<f64>("kilogramsPerUnit")),
            ] {
                if let Some(v) = value {
                    let _ = writeln!(metadata, "    {key} = {v:?}");
                }
            }
            if let Some(sdf::Value::Token(axis)) = root.get::<sdf::Value>("upAxis") {
                let _ = writeln!(metadata, "    upAxis = \"{}\"", axis.as_str());
            }
        }
    }
    let Some(prim) = default_prim else {
        return Err(err("no wedges to index".to_string()));
    };
    let mut text = String::from("#usda 1.0\n(\n");
    let _ = writeln!(text, "    doc = \"usdsim wedge index: variant set '{WEDGE_VARIANT_SET}' selects one bake\"");
    let _ = writeln!(text, "    defaultPrim = \"{prim}\"");
    text.push_str(&metadata);
    text.push_str(")\n\n");
    let _ = writeln!(text, "def \"{prim}\" (");
    let _ = writeln!(text, "    variants = {{\n        string {WEDGE_VARIANT_SET} = \"{}\"\n    }}", wedges[0].name);
    let _ = writeln!(text, "    prepend variantSets = \"{WEDGE_VARIANT_SET}\"\n)\n{{");
    let _ = writeln!(text, "    variantSet \"{WEDGE_VARIANT_SET}\" = {{");
    for IndexedWedge { name, bake, settings } in wedges {
        let asset = bake.replace('\\', "/").replace('@', "");
        let shown = if settings.is_empty() { "no settings beyond the plan's input and frames" } else { settings };
        let doc = usda::TextWriter::value_to_string(&sdf::Value::String(format!("usdsim wedge {name}: {shown}")))
            .map_err(|e| err(format!("wedge {name}: its settings cannot be written: {e}")))?;
        let _ = writeln!(
            text,
            "        \"{name}\" (\n            doc = {doc}\n            prepend references = @./{asset}@\n        ) {{\n        }}"
        );
    }
    text.push_str("    }\n}\n");
    // Parsed back before it is written: a layer that would not open is never left.
    openusd::usda::parse(&text).map_err(|e| err(format!("the index does not parse: {e}")))?;
    let tmp = output.with_extension("usda.tmp");
    std::fs::write(&tmp, &text)
        .and_then(|()| std::fs::rename(&tmp, output))
        .map_err(|e| ExportError::Write { path: output.to_path_buf(), reason: e.to_string() })
}
