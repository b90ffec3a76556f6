//! One time-sampled attribute written from `(frame, value)` pairs, shared by every
//! writer of the bake.

use openusd::sdf;

/// A time-sampled attribute on `prim` with one value per `(frame, value)`, frames in
/// increasing order. The whole sample list goes into the `timeSamples` field in one
/// write: openusd's `set_time_sample` rewrites the attribute's whole map per call,
/// which made a bake's export quadratic in its frames. The list stays sorted by time,
/// which Pixar's reader of `.usdc` silently relies on.
pub(super) fn author_samples(
    edit: &mut sdf::LayerEdit<'_>,
    prim: &sdf::Path,
    name: &str,
    type_name: &str,
    start: f64,
    samples: Vec<(usize, sdf::Value)>,
) -> Result<(), sdf::AuthoringError> {
    if samples.is_empty() {
        return Ok(());
    }
    let path = prim.append_property(name)?;
    let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, type_name, sdf::Variability::Varying, false)?;
    let map: sdf::TimeSampleMap = samples.into_iter().map(|(k, value)| (start + k as f64, value)).collect();
    debug_assert!(map.windows(2).all(|w| w[0].0 < w[1].0), "samples in increasing time order");
    spec.set(sdf::FieldKey::TimeSamples.as_str(), sdf::Value::TimeSamples(map));
    Ok(())
}

/// An attribute on `prim` holding the first of `samples` as its default (a value that
/// does not change over the bake).
pub(super) fn author_default(
    edit: &mut sdf::LayerEdit<'_>,
    prim: &sdf::Path,
    name: &str,
    type_name: &str,
    samples: Vec<(usize, sdf::Value)>,
) -> Result<(), sdf::AuthoringError> {
    let Some((_, value)) = samples.into_iter().next() else { return Ok(()) };
    let path = prim.append_property(name)?;
    let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, type_name, sdf::Variability::Varying, false)?;
    spec.set(sdf::FieldKey::Default.as_str(), value);
    Ok(())
}
