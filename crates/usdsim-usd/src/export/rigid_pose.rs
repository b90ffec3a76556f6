//! Rigid-body poses: time-sampled translate and orient ops on each rigid body prim.

use glam::{DQuat, DVec3};
use openusd::gf::{self, f16};
use openusd::sdf;

use super::time_samples::author_samples;
use super::RigidTrack;
use crate::read::rigid_body::Precision;

/// A vector op's value and type name in `precision`.
fn vec3(v: DVec3, precision: Precision) -> (sdf::Value, &'static str) {
    match precision {
        Precision::Half => (sdf::Value::Vec3h(gf::Vec3h::from(v.to_array().map(f16::from_f64))), "half3"),
        Precision::Float => (sdf::Value::Vec3f(gf::Vec3f::from(v.as_vec3().to_array())), "float3"),
        Precision::Double => (sdf::Value::Vec3d(gf::Vec3d::from(v.to_array())), "double3"),
    }
}

/// A quaternion op's value and type name in `precision` (USD stores real part first).
fn quat(q: DQuat, precision: Precision) -> (sdf::Value, &'static str) {
    match precision {
        Precision::Half => {
            let h = f16::from_f64;
            (sdf::Value::Quath(gf::Quath { w: h(q.w), x: h(q.x), y: h(q.y), z: h(q.z) }), "quath")
        }
        Precision::Float => {
            let q = q.as_quat();
            (sdf::Value::Quatf(gf::Quatf { w: q.w, x: q.x, y: q.y, z: q.z }), "quatf")
        }
        Precision::Double => (sdf::Value::Quatd(gf::Quatd { w: q.w, x: q.x, y: q.y, z: q.z }), "quatd"),
    }
}

/// An `over` on a rigid body prim: time-sampled `xformOp:translate` and
/// `xformOp:orient`, a constant `xformOp:scale` when the input authored one, and the
/// `xformOpOrder` naming them (after `!resetXformStack!` when the input had it). Each op
/// keeps the value type the input declares for it (double where it declares none), so
/// the bake's opinion never disagrees with the input's about an attribute's type.
pub(super) fn author_rigid(
    edit: &mut sdf::LayerEdit<'_>,
    track: &RigidTrack,
    start: f64,
    first: usize,
) -> Result<(), sdf::AuthoringError> {
    if track.frames.iter().all(Option::is_none) {
        return Ok(());
    }
    let prim = sdf::Path::new(&track.prim.prim_path)?;
    sdf::PrimSpecMut::over(edit.data_mut(), prim.clone())?;
    let mut order: Vec<&str> = Vec::new();
    if track.prim.resets_stack {
        order.push("!resetXformStack!");
    }
    order.extend(["xformOp:translate", "xformOp:orient"]);

    let precision = track.prim.op_precision;
    let translate = track
        .frames
        .iter()
        .enumerate()
        .filter_map(|(k, f)| f.map(|(t, _)| (first + k, vec3(t, precision.translate).0)));
    author_samples(
        edit,
        &prim,
        "xformOp:translate",
        vec3(DVec3::ZERO, precision.translate).1,
        start,
        translate.collect(),
    )?;
    let orient =
        track.frames.iter().enumerate().filter_map(|(k, f)| f.map(|(_, q)| (first + k, quat(q, precision.orient).0)));
    author_samples(edit, &prim, "xformOp:orient", quat(DQuat::IDENTITY, precision.orient).1, start, orient.collect())?;
    if let Some(scale) = track.prim.scale {
        let path = prim.append_property("xformOp:scale")?;
        let (value, type_name) = vec3(scale, precision.scale);
        let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, type_name, sdf::Variability::Varying, false)?;
        spec.set_default(value)?;
        order.push("xformOp:scale");
    }
    let path = prim.append_property("xformOpOrder")?;
    let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, "token[]", sdf::Variability::Uniform, false)?;
    spec.set_default(sdf::Value::TokenVec(order.into_iter().map(Into::into).collect()))?;
    Ok(())
}
