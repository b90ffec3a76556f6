//! The solver state a clip holds at its first frame ([`usdsim_core::ResumeState`]), as
//! `usdsim:state:` defaults: what `--resume` continues from (`resume.rs` reads it).

use openusd::{gf, sdf};
use usdsim_core::ResumeState;

use super::Track;
use crate::schema::usdsim::state;

/// One default-valued attribute `name` on `prim`.
fn set(
    edit: &mut sdf::LayerEdit<'_>,
    prim: &sdf::Path,
    name: &str,
    type_name: &str,
    value: sdf::Value,
) -> Result<(), sdf::AuthoringError> {
    let path = prim.append_property(name)?;
    let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, type_name, sdf::Variability::Uniform, true)?;
    spec.set(sdf::FieldKey::Default.as_str(), value);
    Ok(())
}

/// Vectors as USD `float3`s.
fn vec3fs(v: &[glam::Vec3]) -> sdf::Value {
    sdf::Value::Vec3fVec(v.iter().map(|p| gf::Vec3f::from(p.to_array())).collect())
}

/// Writes `state` onto the bodies' prims (`tracks`, in body order) and the state prim.
pub(super) fn author_resume_state(
    edit: &mut sdf::LayerEdit<'_>,
    tracks: &[Track],
    state: &ResumeState,
) -> Result<(), sdf::AuthoringError> {
    for (track, body) in tracks.iter().zip(&state.bodies) {
        let prim = sdf::Path::new(&track.prim_path)?;
        sdf::PrimSpecMut::over(edit.data_mut(), prim.clone())?;
        // Positions in double, as the solver keeps them, so a resumed bake goes on bit
        // for bit.
        let points = body.positions.iter().map(|p| gf::Vec3d::from(p.to_array())).collect();
        set(edit, &prim, state::POINTS, "double3[]", sdf::Value::Vec3dVec(points))?;
        set(edit, &prim, state::VELOCITIES, "float3[]", vec3fs(&body.velocities))?;
        if !body.previous_positions.is_empty() {
            let points = body.previous_positions.iter().map(|p| gf::Vec3d::from(p.to_array())).collect();
            set(edit, &prim, state::PREVIOUS_POINTS, "double3[]", sdf::Value::Vec3dVec(points))?;
            set(edit, &prim, state::PREVIOUS_VELOCITIES, "float3[]", vec3fs(&body.previous_velocities))?;
        }
        if body.since_contact != u32::MAX {
            let since = body.since_contact.min(i32::MAX as u32) as i32;
            set(edit, &prim, state::SUBSTEPS_SINCE_CONTACT, "int", sdf::Value::Int(since))?;
        }
        set(edit, &prim, state::ASLEEP, "bool", sdf::Value::Bool(body.asleep))?;
        set(edit, &prim, state::TOPOLOGY_VERSION, "int", sdf::Value::Int(body.topology_version as i32))?;
        if body.topology_version > 0 {
            let elements = body.elements.iter().map(|e| gf::Vec4i::from(e.map(|i| i as i32))).collect();
            set(edit, &prim, state::ELEMENTS, "int4[]", sdf::Value::Vec4iVec(elements))?;
            set(edit, &prim, state::MASSES, "float[]", sdf::Value::FloatVec(body.masses.clone()))?;
            set(edit, &prim, state::INVERSE_MASSES, "float[]", sdf::Value::FloatVec(body.inverse_masses.clone()))?;
        }
        if !body.broken_edges.is_empty() {
            let edges = body.broken_edges.iter().map(|e| gf::Vec2i::from(e.map(|i| i as i32))).collect();
            set(edit, &prim, state::BROKEN_EDGES, "int2[]", sdf::Value::Vec2iVec(edges))?;
        }
    }
    let prim = sdf::Path::new(state::STATE_PRIM)?;
    sdf::PrimSpecMut::over(edit.data_mut(), prim.clone())?;
    set(edit, &prim, state::FRAMES, "int64", sdf::Value::Int64(state.frames as i64))?;
    let tets = state.plastic_tets.iter().flat_map(|t| t.to_array()).collect();
    set(edit, &prim, state::PLASTIC_TETS, "float[]", sdf::Value::FloatVec(tets))?;
    set(edit, &prim, state::PLASTIC_HINGES, "float[]", sdf::Value::FloatVec(state.plastic_hinges.clone()))?;
    set(edit, &prim, state::SPRINGS, "float[]", sdf::Value::FloatVec(state.springs.clone()))?;
    set(edit, &prim, state::RIGID_WORLD, "uchar[]", sdf::Value::UcharVec(state.rigid.clone()))?;
    Ok(())
}
