//! Where bodies and embedded meshes move: time-sampled `points`, `velocities`,
//! `extent` and (where recomputed) `normals`.

use openusd::sdf;

use super::time_samples::author_samples;
use super::Track;

/// `over` prims (ancestors included) with the three time-sampled attributes; slot `k`
/// of the track is frame `first + k`.
pub(super) fn author_track(
    edit: &mut sdf::LayerEdit<'_>,
    track: &Track,
    start: f64,
    first: usize,
) -> Result<(), sdf::AuthoringError> {
    let prim = sdf::Path::new(&track.prim_path)?;
    sdf::PrimSpecMut::over(edit.data_mut(), prim.clone())?;
    let has_normals = track.frames.iter().flatten().any(|f| f.normals.is_some());
    let (points, velocities) = track.attributes;
    let attributes: [(&str, &str); 4] =
        [(points, "point3f[]"), (velocities, "vector3f[]"), ("extent", "float3[]"), ("normals", "normal3f[]")];
    for (name, type_name) in attributes {
        if (name == "normals" && !has_normals) || (name == "extent" && !track.extent) {
            continue;
        }
        let samples = track
            .frames
            .iter()
            .enumerate()
            .filter_map(|(k, frame)| {
                let frame = frame.as_ref()?;
                let value = match name {
                    "normals" => frame.normals.clone()?,
                    "extent" => frame.extent.to_vec(),
                    n if n == points => frame.points.clone(),
                    _ => frame.velocities.clone(),
                };
                Some((first + k, sdf::Value::Vec3fVec(value)))
            })
            .collect();
        if name != "normals" && track.frames.iter().all(Option::is_none) {
            // No frame recorded: the attribute is still declared, as before.
            let path = prim.append_property(name)?;
            sdf::AttributeSpecMut::new(edit.data_mut(), path, type_name, sdf::Variability::Varying, false)?;
            continue;
        }
        author_samples(edit, &prim, name, type_name, start, samples)?;
    }
    Ok(())
}
