//! One layer of a bake opened alone (no composition), and the fingerprint of the run
//! that wrote it, recorded in its `customLayerData`: what `--resume` compares before
//! continuing a bake, and what `validate` checks across a clip set's layers.

use std::path::Path;

use openusd::sdf;

use crate::schema::usdsim::FINGERPRINT_KEY;

/// Opens the layer at `path` alone (no composition), or says why not.
pub(crate) fn open_layer(path: &Path) -> Result<sdf::Layer, String> {
    let text = path.to_str().ok_or_else(|| format!("{}: the path is not valid UTF-8", path.display()))?;
    sdf::Layer::open(text).map_err(|err| err.to_string())
}

/// The fingerprint a layer records in its `customLayerData`, if any.
pub(crate) fn layer_fingerprint(layer: &sdf::Layer) -> Option<String> {
    let root = layer.pseudo_root()?;
    match root.get::<sdf::Value>("customLayerData") {
        Some(sdf::Value::Dictionary(data)) => match data.get(FINGERPRINT_KEY) {
            Some(sdf::Value::String(s)) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}
