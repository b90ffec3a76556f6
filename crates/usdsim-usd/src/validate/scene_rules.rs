//! Stage-wide rule DB011: the stage holds something to simulate. A render asset, or a
//! mesh that was meant to be a body but lacks the body API, validates clean under every
//! other rule and then fails to run; this rule says so in `validate` and `inspect` too,
//! and names the prim that most likely wanted the API, in both schema spellings.

use openusd::sdf;

use super::walk::Walk;
use crate::schema::names::{BINDING_RELS, BODY_APIS, RIGID_BODY_API, SIM_APIS};
use crate::schema::physx_legacy as legacy;
use crate::stage::prim_index::PrimInfo;

/// Reports DB011 when no prim applies a deformable body API (either spelling) or the
/// rigid body API.
pub(crate) fn check(walk: &mut Walk) {
    let simulated = |p: &PrimInfo| {
        BODY_APIS.iter().any(|(api, _)| p.has_api(api))
            || legacy::BODY_APIS.iter().any(|(api, _)| p.has_api(api))
            || p.has_api(RIGID_BODY_API)
    };
    if walk.prims.iter().any(simulated) {
        return;
    }
    let message = format!(
        "nothing to simulate: no prim applies a deformable body API ({} or {}) or {RIGID_BODY_API}{}",
        BODY_APIS[0].0,
        BODY_APIS[1].0,
        hint(walk)
    );
    walk.report("DB011", &sdf::Path::abs_root(), None, message);
}

/// What the user most likely meant: a prim with a simulation API but no body API, then a
/// mesh bound to a material, then the first TetMesh or Mesh.
fn hint(walk: &Walk) -> String {
    let prims = walk.prims;
    if let Some(p) = prims.iter().find(|p| SIM_APIS.iter().any(|(api, _)| p.has_api(api))) {
        return format!("; {} applies a simulation API: apply the body API to it (or to its parent) too", p.path);
    }
    let bound = |p: &&PrimInfo| BINDING_RELS.iter().any(|rel| p.properties.iter().any(|name| name == rel));
    let candidate = ["TetMesh", "Mesh"]
        .iter()
        .find_map(|ty| prims.iter().filter(|p| p.type_name == *ty).find(bound))
        .or_else(|| ["TetMesh", "Mesh"].iter().find_map(|ty| prims.iter().find(|p| p.type_name == *ty)));
    let Some(p) = candidate else {
        return "; the stage has no TetMesh or Mesh to make a body of".to_string();
    };
    let (sim_omni, sim_physics) = if p.type_name == "TetMesh" {
        ("OmniPhysicsVolumeDeformableSimAPI", "PhysicsVolumeDeformableSimAPI")
    } else {
        ("OmniPhysicsSurfaceDeformableSimAPI", "PhysicsSurfaceDeformableSimAPI")
    };
    let why = if bound(&p) { " bound to a material" } else { "" };
    format!(
        "; {} is a {}{why}: to simulate it, apply {} and {sim_omni} to it (physics: spelling: {} and {sim_physics})",
        p.path, p.type_name, BODY_APIS[0].0, BODY_APIS[1].0
    )
}
