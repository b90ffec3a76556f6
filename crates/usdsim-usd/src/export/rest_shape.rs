//! The rest state of plastic bodies, time-sampled under the input's dialect.

use openusd::{gf, sdf};
use usdsim_core::BodyKind;

use super::time_samples::{author_default, author_samples};
use super::{BodyExtras, RestFrame, Track};

/// The rest state of a body whose rest shape is part of the state, time-sampled.
pub(super) fn author_rest(
    edit: &mut sdf::LayerEdit<'_>,
    track: &Track,
    extras: &BodyExtras,
    start: f64,
    first: usize,
) -> Result<(), sdf::AuthoringError> {
    let mut frames: Vec<(usize, &RestFrame)> =
        extras.rest.iter().enumerate().filter_map(|(k, r)| r.as_ref().map(|r| (first + k, r))).collect();
    if frames.is_empty() {
        let torn = extras.topology.iter().any(Option::is_some);
        if !(extras.rest_is_fallback || torn) || track.frames.iter().all(Option::is_none) {
            return Ok(());
        }
        if extras.streamed {
            // A clip set carries the constant rest state as a default in the output
            // layer ([`author_constant_rest`]): held samples repeated in every clip
            // would be interpolated by Pixar's USD between clips, off by an ulp.
            return Ok(());
        }
        frames.push((first, &extras.initial_rest));
    }
    write_rest(edit, track, extras, &frames, start, false)
}

/// For a clip set's output layer: the imported rest state as constant defaults, for a
/// body whose rest state is needed (as [`author_rest`] decides for one layer) but
/// never changes (no plastic flow).
pub(super) fn author_constant_rest(
    edit: &mut sdf::LayerEdit<'_>,
    track: &Track,
    extras: &BodyExtras,
) -> Result<(), sdf::AuthoringError> {
    let torn = extras.current != extras.initial;
    if extras.rest_recorded || !(extras.rest_is_fallback || torn) {
        return Ok(());
    }
    write_rest(edit, track, extras, &[(0, &extras.initial_rest)], 0.0, true)
}

/// The rest attributes from `frames`: time samples, or with `constant` the first
/// frame's values as defaults.
fn write_rest(
    edit: &mut sdf::LayerEdit<'_>,
    track: &Track,
    extras: &BodyExtras,
    frames: &[(usize, &RestFrame)],
    start: f64,
    constant: bool,
) -> Result<(), sdf::AuthoringError> {
    let author_samples = |edit: &mut sdf::LayerEdit<'_>,
                          prim: &sdf::Path,
                          name: &str,
                          type_name: &str,
                          start: f64,
                          samples: Vec<(usize, sdf::Value)>| {
        if constant {
            author_default(edit, prim, name, type_name, samples)
        } else {
            author_samples(edit, prim, name, type_name, start, samples)
        }
    };
    let prim = sdf::Path::new(&track.prim_path)?;
    let d = extras.dialect;
    let points = frames.iter().map(|&(k, r)| (k, sdf::Value::Vec3fVec(r.points.clone()))).collect();
    author_samples(edit, &prim, extras.rest_points, "point3f[]", start, points)?;
    if extras.legacy {
        // A legacy body's rest elements are its elements; it never tears.
        return Ok(());
    }
    match extras.kind {
        BodyKind::Volume => {
            let tets = frames
                .iter()
                .map(|&(k, r)| {
                    (k, sdf::Value::Vec4iVec(r.elements.iter().map(|e| gf::Vec4i::from(e.map(|i| i as i32))).collect()))
                })
                .collect();
            author_samples(edit, &prim, d.rest_tets(), "int4[]", start, tets)?;
        }
        BodyKind::Surface => {
            let tris = frames
                .iter()
                .map(|&(k, r)| {
                    let v = r.elements.iter().map(|e| gf::Vec3i::from([e[0] as i32, e[1] as i32, e[2] as i32]));
                    (k, sdf::Value::Vec3iVec(v.collect()))
                })
                .collect();
            author_samples(edit, &prim, d.rest_tris(), "int3[]", start, tris)?;
            if frames.iter().any(|(_, r)| !r.bend.is_empty()) {
                let pairs = frames
                    .iter()
                    .map(|&(k, r)| {
                        let v = r.bend.iter().map(|(p, _)| gf::Vec2i::from([p[0] as i32, p[1] as i32]));
                        (k, sdf::Value::Vec2iVec(v.collect()))
                    })
                    .collect();
                let angles = frames
                    .iter()
                    .map(|&(k, r)| (k, sdf::Value::FloatVec(r.bend.iter().map(|&(_, a)| a).collect())))
                    .collect();
                author_samples(edit, &prim, d.adj_tri_pairs(), "int2[]", start, pairs)?;
                author_samples(edit, &prim, d.bend_angles(), "float[]", start, angles)?;
            }
        }
    }
    Ok(())
}
