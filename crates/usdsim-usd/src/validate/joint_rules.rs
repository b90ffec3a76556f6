//! Joint rules (DB901–DB905): what makes a UsdPhysics joint (`schema/joint.rs`) one
//! that rapier3d can simulate as authored: bodies that exist and are rigid, an axis, an
//! ordered limit range, drives on the joint's free axis, and no closed loop inside an
//! articulation.

use openusd::sdf;

use super::walk::Walk;
use crate::schema::joint::{
    drive_attr, limit_attr, JointType, ANGULAR, ARTICULATION_ROOT_API, AXIS, BODIES, DRIVE_API, JOINT_TYPES, LIMIT_API,
    LIMIT_DOFS, LIMIT_HIGH, LIMIT_LOW, LINEAR, LOWER_LIMIT, STIFFNESS, UPPER_LIMIT,
};
use crate::schema::names::{BODY_APIS, RIGID_BODY_API};
use crate::schema::physx_legacy;
use crate::stage::attribute_values as av;

/// Runs the joint rules on every joint prim of a simulated type.
pub(crate) fn check(walk: &mut Walk) {
    let prims = walk.prims;
    // Per articulation root, the body pairs its joints link.
    let roots: Vec<sdf::Path> =
        prims.iter().filter(|p| p.has_api(ARTICULATION_ROOT_API)).map(|p| p.path.clone()).collect();
    let mut links: Vec<Vec<(String, String, sdf::Path)>> = vec![Vec::new(); roots.len()];
    for prim in prims.iter() {
        let Some(&(type_name, kind)) = JOINT_TYPES.iter().find(|(t, _)| *t == prim.type_name) else { continue };
        let path = prim.path.clone();
        let mut sides = Vec::new();
        for rel in BODIES {
            let Some(target) = walk.targets(&path, rel).first().cloned() else {
                sides.push(None);
                continue;
            };
            if walk.find(&target).is_none() {
                walk.report("DB901", &path, Some(rel), format!("target {target} does not exist"));
                sides.push(None);
                continue;
            }
            let deformable = target.ancestors_below_root().any(|a| {
                walk.find(&a).is_some_and(|k| {
                    let p = &prims[k];
                    BODY_APIS.iter().any(|(api, _)| p.has_api(api))
                        || physx_legacy::BODY_APIS.iter().any(|(api, _)| p.has_api(api))
                })
            });
            if deformable {
                walk.report(
                    "DB901",
                    &path,
                    Some(rel),
                    format!("{target} is a deformable body; a joint holds rigid bodies (attach a deformable instead)"),
                );
            }
            let rigid =
                target.ancestors_below_root().find(|a| walk.find(a).is_some_and(|k| prims[k].has_api(RIGID_BODY_API)));
            sides.push(rigid);
        }
        if sides.iter().all(Option::is_none) && !walk.reported("DB901", &path) {
            walk.report(
                "DB901",
                &path,
                Some(BODIES[0]),
                format!("{type_name} joins no rigid body: both sides are the world or static prims"),
            );
        }
        if matches!(kind, JointType::Revolute | JointType::Prismatic | JointType::Spherical) {
            if let Some(token) = walk.read(&path, AXIS, av::token_value) {
                if !["X", "Y", "Z"].contains(&token.as_str()) {
                    walk.report("DB902", &path, Some(AXIS), format!("is {token:?}; expected \"X\", \"Y\" or \"Z\""));
                }
            }
        }
        if matches!(kind, JointType::Revolute | JointType::Prismatic) {
            let lo = walk.read(&path, LOWER_LIMIT, av::f64_value);
            let hi = walk.read(&path, UPPER_LIMIT, av::f64_value);
            if let (Some(lo), Some(hi)) = (lo, hi) {
                if lo > hi {
                    walk.report("DB903", &path, Some(LOWER_LIMIT), format!("{lo} is above the upper limit {hi}"));
                }
            }
        }
        let own = match kind {
            JointType::Revolute => Some(ANGULAR),
            JointType::Prismatic => Some(LINEAR),
            _ => None,
        };
        for instance in prim.instances(DRIVE_API) {
            if kind == JointType::Generic {
                // A generic joint's degree of freedom is locked by a limit with low
                // above high; a drive on a free one is simulated, one on a locked one
                // is named here and by the importer (IM084).
                let locked = LIMIT_DOFS.iter().any(|(dof, _)| *dof == instance.as_str())
                    && prim.instances(LIMIT_API).contains(&instance)
                    && matches!(
                        (
                            walk.read(&path, &limit_attr(&instance, LIMIT_LOW), av::f64_value),
                            walk.read(&path, &limit_attr(&instance, LIMIT_HIGH), av::f64_value),
                        ),
                        (Some(lo), Some(hi)) if lo > hi
                    );
                if locked {
                    walk.report(
                        "DB904",
                        &path,
                        Some(&drive_attr(&instance, STIFFNESS)),
                        format!("{DRIVE_API}:{instance} drives a degree of freedom its {LIMIT_API}:{instance} locks"),
                    );
                }
                continue;
            }
            if Some(instance.as_str()) != own {
                let free =
                    own.map_or("no free axis a drive can act on".to_string(), |o| format!("only its {o} drive acts"));
                walk.report(
                    "DB904",
                    &path,
                    Some(&drive_attr(&instance, STIFFNESS)),
                    format!("{DRIVE_API}:{instance} drives an axis this {type_name} locks ({free})"),
                );
            }
        }
        if let Some(r) = roots.iter().position(|root| path.has_prefix(root)) {
            let name = |s: &Option<sdf::Path>| s.as_ref().map_or("world".to_string(), |p| p.to_string());
            links[r].push((name(&sides[0]), name(&sides[1]), path.clone()));
        }
    }
    // A loop: a joint whose two bodies the articulation's earlier joints already connect.
    for (root, edges) in roots.iter().zip(links) {
        let mut group: Vec<(String, usize)> = Vec::new();
        let find = |name: &str, group: &mut Vec<(String, usize)>| -> usize {
            if let Some(&(_, g)) = group.iter().find(|(n, _)| n == name) {
                g
            } else {
                let g = group.len();
                group.push((name.to_string(), g));
                g
            }
        };
        for (a, b, joint) in edges {
            let (ga, gb) = (find(&a, &mut group), find(&b, &mut group));
            if ga == gb {
                walk.report(
                    "DB905",
                    &joint,
                    None,
                    format!("closes a loop in the articulation {root}: {a} and {b} are already joined; an articulation is a tree"),
                );
                continue;
            }
            for entry in group.iter_mut() {
                if entry.1 == gb {
                    entry.1 = ga;
                }
            }
        }
    }
}
