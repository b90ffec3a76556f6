//! Bodies of the legacy PhysX deformable schema (`schema/physx_legacy.rs`).
//!
//! A `PhysxDeformableBodyAPI` volume is a render `Mesh` whose cooked simulation tet
//! mesh lives in its own `physxDeformable:simulationPoints`, `simulationRestPoints`,
//! `simulationIndices` and `simulationVelocities` (all in the prim's local space). The
//! body is that tet mesh; the prim's `points` are its render mesh, embedded in it as a
//! graphics mesh bound at the rest state (`physxDeformable:restPoints` against
//! `simulationRestPoints`). PhysX collides a second, finer collision tet mesh;
//! usdsim collides the simulation mesh's surface and says so (IM080).
//!
//! A `PhysxDeformableSurfaceAPI` surface is the triangle `Mesh` itself, its rest shape
//! in `physxDeformable:restPoints`.

use glam::{DVec3, Vec3};
use openusd::sdf;
use usdsim_core::{Body, BodyId, BodyKind, EmbeddedMesh, Material};

use crate::error::ImportError;
use crate::read::body::{check_finite, read_triangles, FoundBody, ReadBody};
use crate::read::embedded::{self, EmbeddedPrim};
use crate::read::{material_binding, usdsim_api};
use crate::schema::names;
use crate::schema::physx_legacy::{
    self as legacy, LegacyKind, LegacyMaterialAttribute, BENDING_STIFFNESS_SCALE, COLLISION_MESH, DISABLE_GRAVITY,
    IGNORED_BODY_ATTRIBUTES, REST_POINTS, SELF_COLLISION, SELF_COLLISION_FILTER_DISTANCE, SIMULATION_INDICES,
    SIMULATION_POINTS, SIMULATION_REST_POINTS, SIMULATION_VELOCITIES, VERTEX_VELOCITY_DAMPING,
    VERTEX_VELOCITY_DAMPING_FALLBACK,
};
use crate::stage::attribute_values::{self, check_indices};
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;
use crate::stage::units::Units;
use crate::stage::xform::XformCache;

/// The legacy body API a prim applies, if any (volume first).
pub(crate) fn body_api(prim: &PrimInfo) -> Option<LegacyKind> {
    legacy::BODY_APIS.iter().find(|(name, _)| prim.has_api(name)).map(|&(_, kind)| kind)
}

/// The body kind usdsim simulates a legacy body as.
pub(crate) fn body_kind(kind: LegacyKind) -> BodyKind {
    match kind {
        LegacyKind::Volume => BodyKind::Volume,
        LegacyKind::Surface => BodyKind::Surface,
    }
}

/// Reads one legacy body: its simulation mesh, rest shape, material and the PhysX
/// attributes usdsim maps (velocity damping, self collision, gravity).
pub(crate) fn read(
    ctx: &mut Ctx,
    found: &FoundBody,
    kind: LegacyKind,
    xforms: &mut XformCache,
    units: &Units,
) -> Result<ReadBody, ImportError> {
    let sim = &found.sim;
    let world = xforms.world(ctx, sim)?;
    let mut body = Body::new(sim.to_string(), body_kind(kind), Vec::new(), material_binding::default_material(units));
    let (points, velocities, rest) = match kind {
        LegacyKind::Volume => {
            let (points, rest) = simulation_mesh(ctx, sim, &mut body)?;
            let velocities = velocities_of(ctx, sim, SIMULATION_VELOCITIES, points.len())?;
            (points, velocities, rest)
        }
        LegacyKind::Surface => {
            let points = attribute_values::vec3_array(ctx, sim, "points")?
                .filter(|p| !p.is_empty())
                .ok_or_else(|| ImportError::Missing { at: ctx.prop_loc(sim, "points"), expected: "point3f[]" })?;
            check_finite(ctx, sim, "points", &points)?;
            body.triangles = read_triangles(ctx, sim, points.len())?;
            let velocities = velocities_of(ctx, sim, "velocities", points.len())?;
            let rest = rest_of(ctx, sim, REST_POINTS, points.len())?.unwrap_or_else(|| points.clone());
            (points, velocities, rest)
        }
    };
    let to_world = |p: &DVec3| world.transform_point3(*p).as_vec3();
    body.positions = points.iter().map(to_world).collect();
    body.velocities = velocities.iter().map(|v| world.transform_vector3(*v).as_vec3()).collect();
    body.rest_points = rest.iter().map(to_world).collect();
    body.rest_elements = match kind {
        LegacyKind::Volume => body.tets.clone(),
        LegacyKind::Surface => body.triangles.iter().map(|t| [t[0], t[1], t[2], 0]).collect(),
    };
    // The render mesh is bound at the rest state (the one pair of point sets PhysX
    // keeps in step); a volume's simulation mesh binds there too.
    if kind == LegacyKind::Volume {
        body.bind_pose = body.rest_points.clone();
    }

    let material = material_binding::bound_material(ctx, sim)?;
    body.material = legacy_material(ctx, material.as_ref(), kind, units, sim)?;
    if kind == LegacyKind::Surface {
        bending_scale(ctx, sim, &mut body.material)?;
    }
    let extras = usdsim_api::material_extras(ctx, material.as_ref())?;
    if extras.tear_ratio.is_some() || extras.plastic.is_some() {
        ctx.warn(
            "IM082",
            sim,
            None,
            format!(
                "tearing and plasticity are not simulated on a legacy {} body; run `usdsim upgrade` first",
                kind.api()
            ),
        );
    }
    body.model = usdsim_api::body_model(ctx, &found.root, sim)?;

    let damping = match attribute_values::f64_value(ctx, sim, VERTEX_VELOCITY_DAMPING)? {
        Some(c) if !(c.is_finite() && c >= 0.0) => {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(sim, VERTEX_VELOCITY_DAMPING),
                reason: format!("must be a finite, non-negative rate (1/s), found {c}"),
            });
        }
        Some(c) => c,
        // PhysX applies the schema's fallback to every body that leaves it unauthored.
        None => VERTEX_VELOCITY_DAMPING_FALLBACK,
    };
    body.velocity_damping = damping as f32;
    body.self_collision = attribute_values::bool_value(ctx, sim, SELF_COLLISION)? == Some(true);
    if let Some(d) = attribute_values::f64_value(ctx, sim, SELF_COLLISION_FILTER_DISTANCE)? {
        body.self_collision_filter_distance =
            names::self_collision_filter_distance(d).map_err(|expected| ImportError::Invalid {
                at: ctx.prop_loc(sim, SELF_COLLISION_FILTER_DISTANCE),
                reason: format!("must be {expected}; found {d}"),
            })?;
    }
    if attribute_values::bool_value(ctx, sim, DISABLE_GRAVITY)? == Some(true) {
        body.gravity = Some(Vec3::ZERO);
    }
    if kind == LegacyKind::Volume {
        let mut authored = None;
        for name in COLLISION_MESH {
            if attribute_values::raw(ctx, sim, name)?.is_some() {
                authored = authored.or(Some(name));
            }
        }
        if let Some(name) = authored {
            ctx.warn(
                "IM080",
                sim,
                Some(name),
                "PhysX collides the separate collision tet mesh; usdsim collides the simulation tet mesh's surface",
            );
        }
    }
    warn_ignored(ctx, sim)?;
    Ok(ReadBody { body, world_from_local: world, kinematic_vertices: Vec::new() })
}

/// A legacy volume's cooked simulation tet mesh: its points (local space) and rest
/// points, with the tets stored in `body`. Refuses a body that was never cooked.
fn simulation_mesh(ctx: &Ctx, sim: &sdf::Path, body: &mut Body) -> Result<(Vec<DVec3>, Vec<DVec3>), ImportError> {
    // What `usdsim prepare` does with it: the render mesh voxelised into a simulation
    // TetMesh child, in a new layer over the input.
    let uncooked = |name: &str| ImportError::Invalid {
        at: ctx.prop_loc(sim, name),
        reason: format!(
            "is not authored: this PhysxDeformableBodyAPI body was never cooked, so it has no simulation tet mesh; \
             cook it in Omniverse or Isaac Sim, or build an OmniPhysics body from its render mesh with \
             `usdsim prepare {} --prim {sim} --volume -o OUT.usda` (its render mesh voxelised, 16 cells along the \
             longest side unless --resolution says, into a simulation TetMesh child with a material and a bind \
             pose, in a new layer over this file)",
            ctx.file()
        ),
    };
    let rest = attribute_values::vec3_array(ctx, sim, SIMULATION_REST_POINTS)?.filter(|p| !p.is_empty());
    let points = match attribute_values::vec3_array(ctx, sim, SIMULATION_POINTS)?.filter(|p| !p.is_empty()) {
        Some(p) => p,
        // The state falls back on the rest state, as PhysX starts an unsimulated body.
        None => rest.clone().ok_or_else(|| uncooked(SIMULATION_POINTS))?,
    };
    check_finite(ctx, sim, SIMULATION_POINTS, &points)?;
    let flat = attribute_values::int_array(ctx, sim, SIMULATION_INDICES)?
        .filter(|i| !i.is_empty())
        .ok_or_else(|| uncooked(SIMULATION_INDICES))?;
    if flat.len() % 4 != 0 {
        return Err(ImportError::LengthMismatch {
            at: ctx.prop_loc(sim, SIMULATION_INDICES),
            found: flat.len(),
            expected: flat.len() / 4 * 4 + 4,
            reason: "four indices per tetrahedron".to_string(),
        });
    }
    let tuples: Vec<[i64; 4]> = flat.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
    body.tets = check_indices(ctx, sim, SIMULATION_INDICES, &tuples, points.len(), "simulation points")?;
    let rest = match rest {
        Some(r) if r.len() != points.len() => {
            return Err(ImportError::LengthMismatch {
                at: ctx.prop_loc(sim, SIMULATION_REST_POINTS),
                found: r.len(),
                expected: points.len(),
                reason: format!("one rest point per entry of {SIMULATION_POINTS}"),
            });
        }
        Some(r) => r,
        None => points.clone(),
    };
    check_finite(ctx, sim, SIMULATION_REST_POINTS, &rest)?;
    Ok((points, rest))
}

/// Velocities under `name`, one per point (zero when unauthored or empty).
fn velocities_of(ctx: &Ctx, sim: &sdf::Path, name: &str, count: usize) -> Result<Vec<DVec3>, ImportError> {
    match attribute_values::vec3_array(ctx, sim, name)? {
        Some(v) if !v.is_empty() && v.len() != count => Err(ImportError::LengthMismatch {
            at: ctx.prop_loc(sim, name),
            found: v.len(),
            expected: count,
            reason: "one velocity per point".to_string(),
        }),
        Some(v) if !v.is_empty() => {
            check_finite(ctx, sim, name, &v)?;
            Ok(v)
        }
        _ => Ok(vec![DVec3::ZERO; count]),
    }
}

/// Rest points under `name` when authored (non-empty), one per point.
fn rest_of(ctx: &Ctx, sim: &sdf::Path, name: &str, count: usize) -> Result<Option<Vec<DVec3>>, ImportError> {
    let Some(rest) = attribute_values::vec3_array(ctx, sim, name)?.filter(|r| !r.is_empty()) else {
        return Ok(None);
    };
    if rest.len() != count {
        return Err(ImportError::LengthMismatch {
            at: ctx.prop_loc(sim, name),
            found: rest.len(),
            expected: count,
            reason: "one rest point per point".to_string(),
        });
    }
    check_finite(ctx, sim, name, &rest)?;
    Ok(Some(rest))
}

/// The render mesh of a legacy volume (the body prim's own `points`), embedded in the
/// simulation tet mesh as a graphics mesh bound at the rest state
/// (`physxDeformable:restPoints`, when it matches `points`).
pub(crate) fn render_mesh(
    ctx: &mut Ctx,
    prim: &PrimInfo,
    body: usize,
    xforms: &mut XformCache,
) -> Result<Option<(EmbeddedMesh, EmbeddedPrim)>, ImportError> {
    let Some((mut mesh, out)) = embedded::read(ctx, prim, false, body, xforms)? else {
        return Ok(None);
    };
    if let Some(rest) = rest_of(ctx, &prim.path, REST_POINTS, mesh.bind_points.len())? {
        mesh.bind_points = rest.iter().map(|p| out.world_from_local.transform_point3(*p).as_vec3()).collect();
    }
    debug_assert_eq!(mesh.body, BodyId(body));
    Ok(Some((mesh, out)))
}

/// One legacy material attribute: the authored value, else the schema fallback PhysX
/// applies (`None` where the fallback means "PhysX's default"). An authored −inf or 0
/// where the schema says so also means "PhysX's default".
fn legacy_param(ctx: &Ctx, material: &sdf::Path, attr: &LegacyMaterialAttribute) -> Result<Option<f64>, ImportError> {
    match attribute_values::f64_value(ctx, material, attr.name)? {
        Some(v) if v == f64::NEG_INFINITY => Ok(None),
        Some(v) if !v.is_finite() || v < 0.0 => Err(ImportError::Invalid {
            at: ctx.prop_loc(material, attr.name),
            reason: format!("must be a finite, non-negative number, found {v}"),
        }),
        Some(v) => Ok(Some(v)),
        None => Ok(attr.fallback),
    }
}

/// The material of a legacy body: read from the legacy material API of its kind when
/// the bound material applies it, else as any deformable material (a legacy body may
/// be bound to an OmniPhysics material).
fn legacy_material(
    ctx: &mut Ctx,
    material: Option<&sdf::Path>,
    kind: LegacyKind,
    units: &Units,
    body_prim: &sdf::Path,
) -> Result<Material, ImportError> {
    let defaults = material_binding::default_material(units);
    let Some(material) = material else {
        // PhysX gives an unbound legacy body its material API's fallbacks.
        return Ok(legacy_fallbacks(kind, defaults));
    };
    let apis = ctx.prim(material)?.api_schemas().map_err(|err| ctx.query_err(material, None, err))?;
    if !apis.iter().any(|a| a.as_str() == kind.material_api()) {
        return material_binding::body_material(ctx, Some(material), units, body_prim);
    }
    let table = kind.material();
    let positive_or = |v: Option<f64>, fallback: f32| v.filter(|&v| v > 0.0).map_or(fallback, |v| v as f32);
    let youngs = legacy_param(ctx, material, &table.youngs_modulus)?;
    let poisson = match legacy_param(ctx, material, &table.poissons_ratio)? {
        Some(v) if v >= 0.5 => {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(material, table.poissons_ratio.name),
                reason: format!("Poisson's ratio must lie in [0, 0.5), found {v}"),
            });
        }
        v => v.unwrap_or(0.0) as f32,
    };
    let density = legacy_param(ctx, material, &table.density)?;
    let friction = legacy_param(ctx, material, &table.dynamic_friction)?.unwrap_or(0.0) as f32;
    let damping = match &table.elasticity_damping {
        Some(attr) => legacy_param(ctx, material, attr)?.unwrap_or(0.0) as f32,
        None => 0.0,
    };
    let thickness = match &table.thickness {
        Some(attr) => legacy_param(ctx, material, attr)?,
        None => None,
    };
    if let Some(attr) = &table.damping_scale {
        let scale = legacy_param(ctx, material, attr)?;
        if scale != attr.fallback {
            ctx.warn(
                "IM081",
                material,
                Some(attr.name),
                format!(
                    "is {}, not {}: PhysX's solver-specific scale on elasticity damping is not simulated; \
                     elasticityDamping is used as authored",
                    scale.unwrap_or(f64::NEG_INFINITY),
                    attr.fallback.unwrap_or(1.0)
                ),
            );
        }
    }
    Ok(Material {
        youngs_modulus: positive_or(youngs, defaults.youngs_modulus),
        poissons_ratio: poisson,
        density: positive_or(density, defaults.density),
        thickness: positive_or(thickness, defaults.thickness),
        // PhysX has one friction coefficient for deformables.
        dynamic_friction: friction,
        static_friction: friction,
        damping,
        ..defaults
    })
}

/// The material PhysX gives a legacy body without one: its material API's fallbacks.
fn legacy_fallbacks(kind: LegacyKind, defaults: Material) -> Material {
    let table = kind.material();
    let or = |attr: &LegacyMaterialAttribute, fallback: f32| attr.fallback.map_or(fallback, |v| v as f32);
    let friction = or(&table.dynamic_friction, defaults.dynamic_friction);
    Material {
        youngs_modulus: or(&table.youngs_modulus, defaults.youngs_modulus),
        poissons_ratio: or(&table.poissons_ratio, defaults.poissons_ratio),
        dynamic_friction: friction,
        static_friction: friction,
        damping: table.elasticity_damping.as_ref().map_or(0.0, |a| or(a, 0.0)),
        ..defaults
    }
}

/// `physxDeformableSurface:bendingStiffnessScale` (fallback 0): a scale on the thin-plate
/// bending stiffness E·h³/(12(1−ν²)). PhysX's fallback 0 means no bending resistance;
/// usdsim's hinges keep a millionth of the thin-plate value (its 0 means "derive").
fn bending_scale(ctx: &Ctx, sim: &sdf::Path, material: &mut Material) -> Result<(), ImportError> {
    let scale = match attribute_values::f64_value(ctx, sim, BENDING_STIFFNESS_SCALE)? {
        Some(s) if !(s.is_finite() && s >= 0.0) => {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(sim, BENDING_STIFFNESS_SCALE),
                reason: format!("must be a finite, non-negative scale, found {s}"),
            });
        }
        Some(s) => s as f32,
        None => 0.0,
    };
    let (_, _, plate) = Material { bend_stiffness: 0.0, ..*material }.shell_stiffness();
    material.bend_stiffness = plate * scale.max(1e-6);
    Ok(())
}

/// IM081 for each PhysX body attribute usdsim does not simulate that is authored with
/// a value other than its fallback.
fn warn_ignored(ctx: &mut Ctx, sim: &sdf::Path) -> Result<(), ImportError> {
    for (name, fallback, why) in IGNORED_BODY_ATTRIBUTES {
        let value = match attribute_values::raw(ctx, sim, name)? {
            Some(sdf::Value::Bool(b)) => f64::from(u8::from(b)),
            Some(_) => match attribute_values::f64_value(ctx, sim, name) {
                Ok(Some(v)) => v,
                _ => f64::NAN,
            },
            None => continue,
        };
        if value != fallback {
            ctx.warn("IM081", sim, Some(name), format!("is {value}, not simulated: {why}"));
        }
    }
    Ok(())
}
