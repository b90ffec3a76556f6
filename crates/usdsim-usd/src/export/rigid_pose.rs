//! Rigid-body poses: time-sampled translate and orient ops on each rigid body prim.

use openusd::{gf, sdf};

use super::RigidTrack;

/// An `over` on a rigid body prim: time-sampled `xformOp:translate` (double3) and
/// `xformOp:orient` (quatd), a constant `xformOp:scale` when the input authored one, and
/// the `xformOpOrder` naming them (after `!resetXformStack!` when the input had it).
pub(super) fn author_rigid(
    edit: &mut sdf::LayerEdit<'_>,
    track: &RigidTrack,
    start: f64,
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

    let path = prim.append_property("xformOp:translate")?;
    let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, "double3", sdf::Variability::Varying, false)?;
    for (k, frame) in track.frames.iter().enumerate() {
        let Some((t, _)) = frame else { continue };
        spec.set_time_sample(start + k as f64, sdf::Value::Vec3d(gf::Vec3d::from(t.to_array())))?;
    }
    let path = prim.append_property("xformOp:orient")?;
    let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, "quatd", sdf::Variability::Varying, false)?;
    for (k, frame) in track.frames.iter().enumerate() {
        let Some((_, q)) = frame else { continue };
        spec.set_time_sample(start + k as f64, sdf::Value::Quatd(gf::Quatd { w: q.w, x: q.x, y: q.y, z: q.z }))?;
    }
    if let Some(scale) = track.prim.scale {
        let path = prim.append_property("xformOp:scale")?;
        let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, "double3", sdf::Variability::Varying, false)?;
        spec.set_default(sdf::Value::Vec3d(gf::Vec3d::from(scale.to_array())))?;
        order.push("xformOp:scale");
    }
    let path = prim.append_property("xformOpOrder")?;
    let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, "token[]", sdf::Variability::Uniform, false)?;
    spec.set_default(sdf::Value::TokenVec(order.into_iter().map(Into::into).collect()))?;
    Ok(())
}
