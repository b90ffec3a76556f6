//! Material rules (DB301–DB305): value ranges of deformable materials, a bound
//! material per simulation mesh, a thickness for surface bodies, body masses and self-collision filter distances.

use openusd::sdf;

use super::body_rules::SoundBody;
use super::walk::Walk;
use crate::read::material_binding;
use crate::schema::material::{is_any_deformable_api, names_checked_by, Check, THICKNESS};
use crate::schema::names::{self_collision_filter_distance, SimKind, SELF_COLLISION_FILTER_DISTANCE};
use crate::stage::attribute_values as av;

/// Runs the material rules.
pub(crate) fn check(walk: &mut Walk, bodies: &[SoundBody]) {
    let mut materials: Vec<sdf::Path> = walk
        .prims
        .iter()
        .filter(|p| p.apis.iter().any(|api| is_any_deformable_api(api)))
        .map(|p| p.path.clone())
        .collect();
    let mut bound = Vec::with_capacity(bodies.len());
    for body in bodies {
        let sim = walk.prims[body.sim].path.clone();
        let material = material_binding::bound_material(&mut walk.ctx, &sim).ok().flatten();
        if let Some(m) = &material {
            if !materials.contains(m) {
                materials.push(m.clone());
            }
        }
        bound.push(material);
    }
    for material in &materials {
        check_values(walk, material);
    }

    for (body, material) in bodies.iter().zip(bound) {
        let sim = walk.prims[body.sim].path.clone();
        let root = walk.prims[body.root].path.clone();
        let mass_name = body.dialect.names().mass;
        if let Some(mass) = walk.read(&root, mass_name, av::f64_value) {
            if !mass.is_finite() || mass < 0.0 {
                walk.report(
                    "DB304",
                    &root,
                    Some(mass_name),
                    format!("found {mass}; expected a finite, non-negative mass (0 = from density)"),
                );
            }
        }
        if let Some(d) = walk.read(&root, SELF_COLLISION_FILTER_DISTANCE, av::f64_value) {
            if let Err(expected) = self_collision_filter_distance(d) {
                walk.report(
                    "DB304",
                    &root,
                    Some(SELF_COLLISION_FILTER_DISTANCE),
                    format!("found {d}; expected {expected}"),
                );
            }
        }
        let Some(material) = material else {
            walk.report(
                "DB305",
                &sim,
                None,
                "no physics material is bound (material:binding:physics or material:binding); default material values are used",
            );
            continue;
        };
        let has_api =
            walk.find(&material).is_some_and(|i| walk.prims[i].apis.iter().any(|api| is_any_deformable_api(api)));
        if !has_api {
            walk.report(
                "DB305",
                &sim,
                None,
                format!("bound material {material} applies no deformable material API (e.g. OmniPhysicsDeformableMaterialAPI)"),
            );
        }
        if body.kind == SimKind::Surface {
            let thickness = THICKNESS.names.iter().find_map(|name| walk.read(&material, name, av::f64_value));
            if !thickness.is_some_and(|t| t > 0.0) {
                walk.report(
                    "DB303",
                    &material,
                    Some(THICKNESS.names[0]),
                    format!("surface body {sim} is bound to a material without a positive thickness; the default (1 mm) is used"),
                );
            }
        }
    }
}

/// DB301, DB302, DB304 on one material prim.
fn check_values(walk: &mut Walk, material: &sdf::Path) {
    for name in names_checked_by(Check::PositiveFinite) {
        if let Some(e) = walk.read(material, name, av::f64_value) {
            if !(e.is_finite() && e > 0.0) {
                walk.report("DB301", material, Some(name), format!("found {e}; expected a finite Young's modulus > 0"));
            }
        }
    }
    for name in names_checked_by(Check::PoissonRatio) {
        if let Some(nu) = walk.read(material, name, av::f64_value) {
            if !(nu.is_finite() && (0.0..0.5).contains(&nu)) {
                walk.report(
                    "DB302",
                    material,
                    Some(name),
                    format!("found {nu}; expected a Poisson's ratio in [0, 0.5)"),
                );
            }
        }
    }
    for name in names_checked_by(Check::NonNegative) {
        if let Some(v) = walk.read(material, name, av::f64_value) {
            if !(v.is_finite() && v >= 0.0) {
                walk.report("DB304", material, Some(name), format!("found {v}; expected a finite, non-negative value"));
            }
        }
    }
}
