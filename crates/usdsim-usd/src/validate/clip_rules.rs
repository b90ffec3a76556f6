//! Value-clip rules DB701–DB703 on the `clips` metadata of the stage's root layer (a
//! streamed bake's output layer, `export/clip_set.rs`): Pixar's USD and openusd compose
//! a stage whose clip is missing, truncated or from another bake without a word, and
//! read wrong or no samples from it.
//!
//! - DB701: every clip and manifest the metadata names exists and opens as a layer.
//! - DB702: a clip carries the fingerprint (`customLayerData`) of the layer naming it,
//!   when that layer records one (a usdsim bake): a clip of another bake is refused.
//! - DB703: the manifest declares exactly the attributes the clips sample.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use openusd::sdf;

use super::walk::Walk;
use crate::schema::usdsim::state;
use crate::stage::bake_layer::{layer_fingerprint, open_layer};

/// One clip set of one prim, as its metadata names it.
struct ClipSet {
    prim: sdf::Path,
    name: String,
    assets: Vec<String>,
    manifest: Option<String>,
}

/// The clip sets on the prims of `layer`.
fn clip_sets(layer: &sdf::Layer) -> Vec<ClipSet> {
    let data = layer.data();
    let mut sets = Vec::new();
    for path in data.spec_paths() {
        if data.spec_type(&path) != Some(sdf::SpecType::Prim) {
            continue;
        }
        let Ok(Some(value)) = data.try_field(&path, sdf::FieldKey::Clips.as_str()) else { continue };
        let sdf::Value::Dictionary(clips) = value.into_owned() else { continue };
        let mut names: Vec<&String> = clips.keys().collect();
        names.sort();
        for name in names {
            let Some(sdf::Value::Dictionary(set)) = clips.get(name) else { continue };
            let assets = match set.get("assetPaths") {
                Some(sdf::Value::AssetPathVec(v)) => v.iter().map(|a| a.as_str().to_string()).collect(),
                _ => Vec::new(),
            };
            let manifest = match set.get("manifestAssetPath") {
                Some(sdf::Value::AssetPath(a)) => Some(a.as_str().to_string()),
                _ => None,
            };
            sets.push(ClipSet { prim: path.clone(), name: name.clone(), assets, manifest });
        }
    }
    sets
}

/// Every attribute path `layer` samples (time samples), resume state aside.
fn sampled(layer: &sdf::Layer) -> BTreeSet<String> {
    let data = layer.data();
    data.spec_paths()
        .into_iter()
        .filter(|p| data.spec_type(p) == Some(sdf::SpecType::Attribute) && data.has_field(p, "timeSamples"))
        .map(|p| p.as_str().to_string())
        .filter(|p| !p.contains(state::PREFIX))
        .collect()
}

/// Every attribute path `layer` declares.
fn declared(layer: &sdf::Layer) -> BTreeSet<String> {
    let data = layer.data();
    data.spec_paths()
        .into_iter()
        .filter(|p| data.spec_type(p) == Some(sdf::SpecType::Attribute))
        .map(|p| p.as_str().to_string())
        .collect()
}

/// Up to three entries of `set`, for a message.
fn some(set: &BTreeSet<String>) -> String {
    let mut list: Vec<&str> = set.iter().take(3).map(String::as_str).collect();
    if set.len() > 3 {
        list.push("…");
    }
    list.join(", ")
}

/// Checks the clip sets of the layer at `root` (the input's root layer).
pub(crate) fn check(walk: &mut Walk, root: &Path) {
    let Ok(layer) = open_layer(root) else { return };
    let dir = root.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    let fingerprint = layer_fingerprint(&layer);
    for set in clip_sets(&layer) {
        let field = format!("clips:{}", set.name);
        let mut samples = BTreeSet::new();
        let mut all_opened = true;
        for asset in &set.assets {
            let file = dir.join(asset);
            if !file.is_file() {
                walk.report("DB701", &set.prim, Some(&field), format!("clip @{asset}@ does not exist"));
                all_opened = false;
                continue;
            }
            let clip = match open_layer(&file) {
                Ok(clip) => clip,
                Err(reason) => {
                    walk.report("DB701", &set.prim, Some(&field), format!("clip @{asset}@ does not open: {reason}"));
                    all_opened = false;
                    continue;
                }
            };
            if let Some(expected) = &fingerprint {
                let found = layer_fingerprint(&clip);
                if found.as_ref() != Some(expected) {
                    walk.report(
                        "DB702",
                        &set.prim,
                        Some(&field),
                        format!(
                            "clip @{asset}@ is from another bake: fingerprint {}, the layer's {expected}",
                            found.as_deref().unwrap_or("none")
                        ),
                    );
                }
            }
            samples.extend(sampled(&clip));
        }
        let Some(asset) = &set.manifest else { continue };
        let file = dir.join(asset);
        let manifest = match open_layer(&file) {
            Ok(m) => m,
            Err(reason) => {
                let why = if file.is_file() { format!("does not open: {reason}") } else { "does not exist".into() };
                walk.report("DB701", &set.prim, Some(&field), format!("manifest @{asset}@ {why}"));
                continue;
            }
        };
        if !all_opened {
            continue;
        }
        let declared = declared(&manifest);
        for (extra, what) in [
            (declared.difference(&samples), "declares attributes no clip samples"),
            (samples.difference(&declared), "leaves out attributes the clips sample"),
        ] {
            let extra: BTreeSet<String> = extra.cloned().collect();
            if !extra.is_empty() {
                walk.report("DB703", &set.prim, Some(&field), format!("manifest @{asset}@ {what}: {}", some(&extra)));
            }
        }
    }
}
