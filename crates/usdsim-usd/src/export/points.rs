//! Where bodies and embedded meshes move: time-sampled `points`, `velocities`,
//! `extent` and (where recomputed) `normals`.

use openusd::sdf;

use super::Track;

/// `over` prims (ancestors included) with the three time-sampled attributes.
pub(super) fn author_track(
    edit: &mut sdf::LayerEdit<'_>,
    track: &Track,
    start: f64,
) -> Result<(), sdf::AuthoringError> {
    let prim = sdf::Path::new(&track.prim_path)?;
    sdf::PrimSpecMut::over(edit.data_mut(), prim.clone())?;
    let has_normals = track.frames.iter().flatten().any(|f| f.normals.is_some());
    let attributes: [(&str, &str); 4] =
        [("points", "point3f[]"), ("velocities", "vector3f[]"), ("extent", "float3[]"), ("normals", "normal3f[]")];
    for (name, type_name) in attributes {
        if name == "normals" && !has_normals {
            continue;
        }
        let path = prim.append_property(name)?;
        let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, type_name, sdf::Variability::Varying, false)?;
        // Samples are set in increasing time order; the spec keeps them sorted anyway,
        // which Pixar's reader of `.usdc` silently relies on.
        for (k, frame) in track.frames.iter().enumerate() {
            let Some(frame) = frame else { continue };
            let value = match name {
                "points" => frame.points.clone(),
                "velocities" => frame.velocities.clone(),
                "normals" => match &frame.normals {
                    Some(n) => n.clone(),
                    None => continue,
                },
                _ => frame.extent.to_vec(),
            };
            spec.set_time_sample(start + k as f64, sdf::Value::Vec3fVec(value))?;
        }
    }
    Ok(())
}
