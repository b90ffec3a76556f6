//! One time-sampled attribute written from `(frame, value)` pairs, shared by the
//! topology and rest-shape writers.

use openusd::sdf;

/// A time-sampled attribute on `prim` with one value per `(frame, value)`.
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
    for (k, value) in samples {
        spec.set_time_sample(start + k as f64, value)?;
    }
    Ok(())
}
