//! Body structure rules (DB001–DB008): what PhysX's loader refuses when it looks for a
//! deformable body's simulation mesh. Returns the bodies whose structure is sound, for
//! the mesh, pose and material rules.

use openusd::sdf;

use super::walk::Walk;
use crate::schema::dialect::Dialect;
use crate::schema::names::{
    body_prim_type_allowed, describe_type, SimKind, BODY_APIS, DISABLE_GRAVITY, RIGID_BODY_API, SELF_COLLISION,
    SIM_APIS,
};
use crate::stage::attribute_values;
use crate::stage::prim_index::PrimInfo;

/// A deformable body with exactly one simulation mesh of the right type in the right
/// place.
pub(crate) struct SoundBody {
    /// Index of the prim carrying the body API.
    pub root: usize,
    /// Index of the simulation mesh (the root itself or a direct child).
    pub sim: usize,
    /// Kind of the simulation API.
    pub kind: SimKind,
    /// Spelling of the schema.
    pub dialect: Dialect,
}

fn body_api(prim: &PrimInfo) -> Option<Dialect> {
    BODY_APIS.iter().find(|(name, _)| prim.has_api(name)).map(|&(_, d)| d)
}

fn sim_api(prim: &PrimInfo) -> Option<(&'static str, SimKind)> {
    SIM_APIS.iter().find(|(name, _)| prim.has_api(name)).copied()
}

/// Runs the body structure rules and returns the sound bodies.
pub(crate) fn check(walk: &mut Walk) -> Vec<SoundBody> {
    // DB002: every simulation API on the right prim type, wherever it is.
    for i in 0..walk.prims.len() {
        if let Some((api, kind)) = sim_api(&walk.prims[i]) {
            let prim = &walk.prims[i];
            if prim.type_name != kind.required_type() {
                let (path, found) = (prim.path.clone(), describe_type(&prim.type_name));
                walk.report(
                    "DB002",
                    &path,
                    None,
                    format!("{api} requires a {} prim, found {found}", kind.required_type()),
                );
            }
        }
    }

    let mut sound = Vec::new();
    let mut in_body = vec![false; walk.prims.len()];
    for root in 0..walk.prims.len() {
        let Some(dialect) = body_api(&walk.prims[root]) else {
            continue;
        };
        let path = walk.prims[root].path.clone();
        let type_name = walk.prims[root].type_name.clone();

        // DB001: prim type of the body.
        if !body_prim_type_allowed(&type_name) {
            walk.report(
                "DB001",
                &path,
                None,
                format!(
                    "DeformableBodyAPI is on {}; expected a Mesh, TetMesh or BasisCurves, or a non-Gprim Imageable such as an Xform",
                    describe_type(&type_name)
                ),
            );
        }

        // DB006: nearest rigid body on the chain (body prim included) must be disabled,
        // or the body prim must reset its xform stack.
        check_rigid_ancestor(walk, &path);

        // Candidate simulation meshes: the body prim and its descendants that apply a
        // simulation API on the right type, minus subtrees cut off by resetXformStack.
        let mut candidates = Vec::new();
        let mut wrong_type = false;
        let mut pruned: Vec<sdf::Path> = Vec::new();
        let subtree: Vec<usize> = std::iter::once(root).chain(walk.descendants(root)).collect();
        for &i in &subtree {
            let prim_path = walk.prims[i].path.clone();
            if pruned.iter().any(|p| prim_path.has_prefix(p)) {
                continue;
            }
            if i != root && walk.resets_xform_stack(&prim_path) {
                pruned.push(prim_path);
                continue;
            }
            in_body[i] = true;
            if let Some((_, kind)) = sim_api(&walk.prims[i]) {
                if walk.prims[i].type_name == kind.required_type() {
                    candidates.push((i, kind));
                } else {
                    wrong_type = true;
                }
            }
        }
        // DB100 for the switches the importer reads on the body prim, which it refuses
        // when they are not bools.
        let names = dialect.names();
        let enabled = walk.read(&path, names.enabled, attribute_values::bool_value) != Some(false);
        for switch in [names.kinematic, names.asleep, SELF_COLLISION, DISABLE_GRAVITY] {
            walk.read(&path, switch, attribute_values::bool_value);
        }

        let mut placed = Vec::new();
        for &(i, kind) in &candidates {
            let is_child = walk.prims[i].path.parent().as_ref() == Some(&path);
            if i == root || is_child {
                placed.push((i, kind));
            } else {
                let sim_path = walk.prims[i].path.clone();
                walk.report(
                    "DB004",
                    &sim_path,
                    None,
                    format!("simulation mesh of body {path} is neither the body prim nor a direct child of it"),
                );
            }
        }
        if candidates.len() > 1 {
            let list: Vec<String> = candidates.iter().map(|&(i, _)| walk.prims[i].path.to_string()).collect();
            walk.report(
                "DB003",
                &path,
                None,
                format!("{} simulation meshes found ({}); expected exactly one", candidates.len(), list.join(", ")),
            );
        }
        if candidates.is_empty() && enabled && !wrong_type {
            walk.report(
                "DB005",
                &path,
                None,
                "deformable body has no simulation mesh; expected the body prim or a direct child to apply a *DeformableSimAPI",
            );
        }
        if enabled && candidates.len() == 1 && placed.len() == 1 {
            let (sim, kind) = placed[0];
            sound.push(SoundBody { root, sim, kind, dialect });
        }
    }

    // DB008: simulation APIs outside every body.
    let orphans: Vec<(sdf::Path, &'static str)> = walk
        .prims
        .iter()
        .zip(&in_body)
        .filter(|(_, inside)| !**inside)
        .filter_map(|(prim, _)| sim_api(prim).map(|(api, _)| (prim.path.clone(), api)))
        .collect();
    for (path, api) in orphans {
        walk.report(
            "DB008",
            &path,
            None,
            format!("applies {api} but is not inside a deformable body; expected it or its parent to apply DeformableBodyAPI"),
        );
    }
    sound
}

/// DB006: PhysX walks from the body prim (inclusive) up to the nearest rigid body; if
/// that one is enabled, the body prim itself must reset its xform stack.
fn check_rigid_ancestor(walk: &mut Walk, body: &sdf::Path) {
    for ancestor in body.ancestors_below_root() {
        let Some(i) = walk.find(&ancestor) else {
            continue;
        };
        if !walk.prims[i].has_api(RIGID_BODY_API) {
            continue;
        }
        let enabled = attribute_values::bool_value(&walk.ctx, &ancestor, "physics:rigidBodyEnabled").ok().flatten()
            != Some(false);
        if enabled && !walk.resets_xform_stack(body) {
            let what = if &ancestor == body {
                "the prim itself is an enabled rigid body".to_string()
            } else {
                format!("it is below the enabled rigid body {ancestor}")
            };
            walk.report(
                "DB006",
                body,
                Some("xformOpOrder"),
                format!("deformable body moves with a rigid body ({what}); expected \"!resetXformStack!\" in its xformOpOrder"),
            );
        }
        return;
    }
}
