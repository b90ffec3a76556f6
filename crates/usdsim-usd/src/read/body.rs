//! Deformable bodies: finding them (body API on the simulation mesh itself or on its
//! direct parent) and reading volume (`TetMesh`) and surface (triangle `Mesh`)
//! simulation meshes with their rest shapes, in world space.

use glam::{DMat4, DVec3, Vec3};
use openusd::sdf;
use usdsim_core::{BendDefault, Body, BodyKind};

use crate::error::ImportError;
use crate::read::legacy_body;
use crate::read::material_binding;
use crate::read::pose;
use crate::read::usdsim_api;
use crate::schema::dialect::{Dialect, Names};
use crate::schema::names::{
    self, SimKind, BIND_POSE, BODY_APIS, COLLISION_ENABLED, DISABLE_GRAVITY, LINEAR_DAMPING, SELF_COLLISION,
    SELF_COLLISION_FILTER_DISTANCE, SELF_COLLISION_FILTER_POSE, SIM_APIS,
};
use crate::schema::physx_legacy::{self, LegacyKind};
use crate::stage::attribute_values::{self, check_indices};
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;
use crate::stage::units::Units;
use crate::stage::xform::XformCache;

/// The body API a prim applies, if any (OmniPhysics first, as [`BODY_APIS`] lists it).
pub(crate) fn body_api(prim: &PrimInfo) -> Option<Dialect> {
    BODY_APIS.iter().find(|(name, _)| prim.has_api(name)).map(|&(_, dialect)| dialect)
}

/// The simulation API a prim applies, if any, and its name for messages.
fn sim_api(prim: &PrimInfo) -> Option<(SimKind, &'static str)> {
    SIM_APIS.iter().find(|(name, _)| prim.has_api(name)).map(|&(name, kind)| (kind, name))
}

/// A body found in the stage, before its meshes are read.
pub(crate) struct FoundBody {
    /// The prim carrying the body API.
    pub root: sdf::Path,
    /// The simulation mesh (the root itself or a direct child).
    pub sim: sdf::Path,
    /// Index of the simulation mesh among the traversed prims.
    pub sim_index: usize,
    kind: BodyKind,
    /// The spelling of its names; a legacy body reads as OmniPhysics where the legacy
    /// schema has no name of its own.
    pub(crate) dialect: Dialect,
    /// Which legacy PhysX body API it applies, when it is one (`read/legacy_body.rs`).
    pub(crate) legacy: Option<LegacyKind>,
    /// Other point-based prims of the body (indices among the traversed prims) and
    /// whether each is an enabled collision mesh; the rest are graphics meshes.
    pub embedded: Vec<(usize, bool)>,
}

/// `UsdGeomPointBased` prim types.
const POINT_BASED: [&str; 7] =
    ["Mesh", "TetMesh", "Points", "BasisCurves", "NurbsCurves", "NurbsPatch", "HermiteCurves"];

/// The result of scanning the traversal for bodies.
pub(crate) struct BodyScan {
    /// Enabled bodies with a supported simulation mesh, in traversal order.
    pub bodies: Vec<FoundBody>,
    /// Roots of every deformable body subtree, enabled or not: the collision meshes
    /// inside them belong to the body, not to the static world.
    pub subtrees: Vec<sdf::Path>,
    /// Prims inside a body subtree that reset the transform stack: they and their
    /// descendants are not part of the body.
    pub detached: Vec<sdf::Path>,
}

impl BodyScan {
    /// Whether `path` belongs to a deformable body (inside a body subtree and not below
    /// a `resetXformStack`).
    pub fn in_body(&self, path: &sdf::Path) -> bool {
        self.subtrees.iter().any(|root| path.has_prefix(root)) && !self.detached.iter().any(|d| path.has_prefix(d))
    }
}

/// Finds the deformable bodies among the traversed prims.
pub(crate) fn scan(ctx: &mut Ctx, prims: &[PrimInfo]) -> Result<BodyScan, ImportError> {
    let mut bodies = Vec::new();
    let mut subtrees = Vec::new();
    let mut detached = Vec::new();
    let mut claimed: Vec<sdf::Path> = Vec::new();
    for (index, prim) in prims.iter().enumerate() {
        let Some(dialect) = body_api(prim) else {
            if let Some(kind) = legacy_body::body_api(prim) {
                subtrees.push(prim.path.clone());
                if let Some(found) = scan_legacy(ctx, index, prim, kind)? {
                    claimed.push(found.sim.clone());
                    bodies.push(found);
                }
            }
            continue;
        };
        subtrees.push(prim.path.clone());
        let subtree_end = index + 1 + prims[index + 1..].iter().take_while(|p| p.path.has_prefix(&prim.path)).count();
        for p in &prims[index + 1..subtree_end] {
            if !detached.iter().any(|d: &sdf::Path| p.path.has_prefix(d))
                && crate::stage::xform::local_xform(ctx, &p.path)?.resets_stack
            {
                detached.push(p.path.clone());
            }
        }
        let names = dialect.names();
        if attribute_values::bool_value(ctx, &prim.path, names.enabled)? == Some(false) {
            continue;
        }
        // The simulation mesh is the body prim itself or one of its direct children.
        let sim = if let Some(api) = sim_api(prim) {
            Some((index, prim, api))
        } else {
            let children: Vec<(usize, &PrimInfo, (SimKind, &'static str))> = prims[index + 1..subtree_end]
                .iter()
                .enumerate()
                .filter(|(_, p)| p.path.parent().as_ref() == Some(&prim.path))
                .filter_map(|(k, p)| sim_api(p).map(|api| (index + 1 + k, p, api)))
                .collect();
            if children.len() > 1 {
                ctx.warn(
                    "DB003",
                    &prim.path,
                    None,
                    format!(
                        "{} children apply a deformable simulation API; using the first, {}",
                        children.len(),
                        children[0].1.path
                    ),
                );
            }
            children.into_iter().next()
        };
        let Some((sim_index, sim, (api, api_name))) = sim else {
            ctx.warn(
"DB005",
                &prim.path,
                None,
                "deformable body has no simulation mesh (it, or a direct child, must apply a *DeformableSimAPI); skipped",
            );
            continue;
        };
        claimed.push(sim.path.clone());
        let kind = match api {
            SimKind::Volume => BodyKind::Volume,
            SimKind::Surface => BodyKind::Surface,
            SimKind::Curves => {
                ctx.warn(
                    "IM010",
                    &sim.path,
                    None,
                    format!("{api_name}: curves deformables are not supported yet; skipped"),
                );
                continue;
            }
        };
        let required_type = match kind {
            BodyKind::Volume => "TetMesh",
            BodyKind::Surface => "Mesh",
        };
        if sim.type_name != required_type {
            return Err(ImportError::Invalid {
                at: ctx.prim_loc(&sim.path),
                reason: format!(
                    "{api_name} requires a {required_type} prim, found {}",
                    if sim.type_name.is_empty() { "an untyped prim" } else { &sim.type_name }
                ),
            });
        }
        let mut embedded = Vec::new();
        for (k, p) in prims[index..subtree_end].iter().enumerate() {
            let k = index + k;
            if k == sim_index || !POINT_BASED.contains(&p.type_name.as_str()) {
                continue;
            }
            if detached.iter().any(|d| p.path.has_prefix(d)) {
                continue;
            }
            // A nested body (an authoring error) keeps its own meshes.
            if prims[index + 1..=k].iter().any(|q| body_api(q).is_some() && p.path.has_prefix(&q.path)) {
                continue;
            }
            let collision = p.has_api("PhysicsCollisionAPI")
                && attribute_values::bool_value(ctx, &p.path, COLLISION_ENABLED)? != Some(false);
            embedded.push((k, collision));
        }
        bodies.push(FoundBody {
            root: prim.path.clone(),
            sim: sim.path.clone(),
            sim_index,
            kind,
            dialect,
            legacy: None,
            embedded,
        });
    }
    // A simulation API with no body API above it is a likely authoring mistake.
    for prim in prims {
        if let Some((_, api_name)) = sim_api(prim) {
            let in_disabled_or_claimed =
                claimed.contains(&prim.path) || subtrees.iter().any(|root| prim.path.has_prefix(root));
            if !in_disabled_or_claimed {
                ctx.warn(
                    "DB008",
                    &prim.path,
                    None,
                    format!("applies {api_name} but neither it nor its parent applies a DeformableBodyAPI; ignored"),
                );
            }
        }
    }
    Ok(BodyScan { bodies, subtrees, detached })
}

/// A legacy PhysX body (`PhysxDeformableBodyAPI` or `PhysxDeformableSurfaceAPI`): the
/// API sits on the `Mesh` it simulates, which is its own body root; `None` when
/// `physxDeformable:deformableEnabled` is false.
pub(crate) fn scan_legacy(
    ctx: &mut Ctx,
    index: usize,
    prim: &PrimInfo,
    kind: LegacyKind,
) -> Result<Option<FoundBody>, ImportError> {
    if attribute_values::bool_value(ctx, &prim.path, physx_legacy::ENABLED)? == Some(false) {
        return Ok(None);
    }
    if prim.type_name != "Mesh" {
        return Err(ImportError::Invalid {
            at: ctx.prim_loc(&prim.path),
            reason: format!(
                "{} requires a Mesh prim, found {}",
                kind.api(),
                if prim.type_name.is_empty() { "an untyped prim" } else { &prim.type_name }
            ),
        });
    }
    Ok(Some(FoundBody {
        root: prim.path.clone(),
        sim: prim.path.clone(),
        sim_index: index,
        kind: legacy_body::body_kind(kind),
        dialect: Dialect::Omni,
        legacy: Some(kind),
        embedded: Vec::new(),
    }))
}

impl FoundBody {
    /// The `simulationOwner` relationship's first target, if authored.
    pub fn owner(&self, ctx: &Ctx) -> Result<Option<sdf::Path>, ImportError> {
        let name = if self.legacy.is_some() { physx_legacy::OWNER } else { self.dialect.names().owner };
        let rel = ctx.prim(&self.root)?.relationship(name);
        let targets = rel.targets().map_err(|err| ctx.query_err(&self.root, Some(name), err))?;
        Ok(targets.into_iter().next())
    }
}

/// A body read from the stage, with the transform the exporter needs.
pub(crate) struct ReadBody {
    pub body: Body,
    pub world_from_local: DMat4,
    /// Vertices held where they start: Newton's per-point `physics:masses` marks a
    /// kinematic vertex with a mass of 0. The import pins each (a hard pin).
    pub kinematic_vertices: Vec<u32>,
}

/// Reads one found body: geometry, rest shape, bend data, material and mass.
pub(crate) fn read(
    ctx: &mut Ctx,
    found: &FoundBody,
    prims: &[PrimInfo],
    xforms: &mut XformCache,
    units: &Units,
) -> Result<ReadBody, ImportError> {
    if let Some(kind) = found.legacy {
        return legacy_body::read(ctx, found, kind, xforms, units);
    }
    let names = found.dialect.names();
    let sim = &found.sim;
    let world = xforms.world(ctx, sim)?;

    let points = attribute_values::vec3_array(ctx, sim, "points")?
        .ok_or_else(|| ImportError::Missing { at: ctx.prop_loc(sim, "points"), expected: "point3f[]" })?;
    if points.is_empty() {
        return Err(ImportError::Invalid {
            at: ctx.prop_loc(sim, "points"),
            reason: "a simulation mesh needs at least one point".to_string(),
        });
    }
    let velocities = match attribute_values::vec3_array(ctx, sim, "velocities")? {
        Some(v) if !v.is_empty() && v.len() != points.len() => {
            return Err(ImportError::LengthMismatch {
                at: ctx.prop_loc(sim, "velocities"),
                found: v.len(),
                expected: points.len(),
                reason: "one velocity per point".to_string(),
            });
        }
        Some(v) if !v.is_empty() => v,
        _ => vec![DVec3::ZERO; points.len()],
    };
    check_finite(ctx, sim, "points", &points)?;
    check_finite(ctx, sim, "velocities", &velocities)?;

    let mut body = Body::new(sim.to_string(), found.kind, Vec::new(), material_binding::default_material(units));
    let (rest_points, rest_elements) = match found.kind {
        BodyKind::Volume => {
            const TETS: &str = "tetVertexIndices";
            let raw = attribute_values::int_tuple_array::<4>(ctx, sim, TETS)?
                .ok_or_else(|| ImportError::Missing { at: ctx.prop_loc(sim, TETS), expected: "int4[]" })?;
            if raw.is_empty() {
                return Err(ImportError::Invalid {
                    at: ctx.prop_loc(sim, TETS),
                    reason: "a volume deformable needs at least one tetrahedron".to_string(),
                });
            }
            body.tets = check_indices(ctx, sim, TETS, &raw, points.len(), "points")?;
            rest_shape(ctx, sim, names.rest_points, names.rest_tets, &points, &body.tets)?
        }
        BodyKind::Surface => {
            body.triangles = read_triangles(ctx, sim, points.len())?;
            let rest = rest_shape(ctx, sim, names.rest_points, names.rest_tris, &points, &body.triangles)?;
            body.bend_default = bend_default(ctx, sim, names.bend_default)?;
            body.bend_overrides = bend_overrides(ctx, sim, names, body.triangles.len())?;
            rest
        }
    };
    check_finite(ctx, sim, names.rest_points, &rest_points)?;

    let to_world = |p: &DVec3| world.transform_point3(*p).as_vec3();
    body.positions = points.iter().map(to_world).collect();
    body.velocities = velocities.iter().map(|v| world.transform_vector3(*v).as_vec3()).collect();
    body.rest_points = rest_points.iter().map(to_world).collect();
    body.rest_elements = rest_elements;

    let material = material_binding::bound_material(ctx, sim)?;
    body.material = material_binding::body_material(ctx, material.as_ref(), units, sim)?;
    let extras = usdsim_api::material_extras(ctx, material.as_ref())?;
    body.tear_ratio = extras.tear_ratio;
    body.plastic = extras.plastic;
    let subsets =
        material_binding::element_materials(ctx, prims, found.sim_index, found.kind, body.element_count(), units)?;
    body.materials = subsets.slots;
    body.element_materials = subsets.per_element;
    body.model = usdsim_api::body_model(ctx, &found.root, sim)?;

    let sim_prim = &prims[found.sim_index];
    if let Some(bind) = pose::pose_points(ctx, sim_prim, BIND_POSE)? {
        if bind.len() == points.len() {
            body.bind_pose = bind.iter().map(to_world).collect();
        } else {
            ctx.warn(
                "DB201",
                sim,
                None,
                format!("bind pose has {} points but the mesh has {}; using points", bind.len(), points.len()),
            );
        }
    }
    if let Some(filter) = pose::pose_points(ctx, sim_prim, SELF_COLLISION_FILTER_POSE)? {
        body.self_collision_filter_pose = filter.iter().map(to_world).collect();
    }
    body.self_collision = attribute_values::bool_value(ctx, &found.root, SELF_COLLISION)? == Some(true);
    if let Some(c) = attribute_values::f64_value(ctx, &found.root, LINEAR_DAMPING)? {
        if !(c.is_finite() && c >= 0.0) {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(&found.root, LINEAR_DAMPING),
                reason: format!("must be a finite, non-negative rate (1/s), found {c}"),
            });
        }
        body.velocity_damping = c as f32;
    }
    // PhysX applies no gravity at all to a body that disables it.
    if attribute_values::bool_value(ctx, &found.root, DISABLE_GRAVITY)? == Some(true) {
        body.gravity = Some(Vec3::ZERO);
    }
    if let Some(d) = attribute_values::f64_value(ctx, &found.root, SELF_COLLISION_FILTER_DISTANCE)? {
        body.self_collision_filter_distance =
            names::self_collision_filter_distance(d).map_err(|expected| ImportError::Invalid {
                at: ctx.prop_loc(&found.root, SELF_COLLISION_FILTER_DISTANCE),
                reason: format!("must be {expected}; found {d}"),
            })?;
    }
    body.kinematic = attribute_values::bool_value(ctx, &found.root, names.kinematic)? == Some(true);
    body.starts_asleep = attribute_values::bool_value(ctx, &found.root, names.asleep)? == Some(true);
    if body.kinematic && body.starts_asleep {
        ctx.warn(
            "IM012",
            &found.root,
            Some(names.asleep),
            "a kinematic body follows its animation; startsAsleep ignored",
        );
        body.starts_asleep = false;
    }
    body.mass_override = match attribute_values::f64_value(ctx, &found.root, names.mass)? {
        Some(m) if m.is_nan() || m < 0.0 || m.is_infinite() => {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(&found.root, names.mass),
                reason: format!("must be a finite, non-negative mass, found {m}"),
            });
        }
        Some(m) if m > 0.0 => Some(m as f32),
        _ => None,
    };
    let mut kinematic_vertices = Vec::new();
    if found.dialect == Dialect::Aousd {
        const MASSES: &str = "physics:masses";
        if let Some(masses) = attribute_values::f64_array(ctx, sim, MASSES)?.filter(|m| !m.is_empty()) {
            if masses.len() != points.len() {
                return Err(ImportError::LengthMismatch {
                    at: ctx.prop_loc(sim, MASSES),
                    found: masses.len(),
                    expected: points.len(),
                    reason: "one mass per point".to_string(),
                });
            }
            let moving: Vec<f64> = masses.iter().copied().filter(|&m| m > 0.0).collect();
            if let Some((i, m)) = masses.iter().enumerate().find(|(_, m)| !(m.is_finite() && **m >= 0.0)) {
                ctx.warn(
                    "DB304",
                    sim,
                    Some(MASSES),
                    format!("entry {i} is {m}, not a mass; per-point masses ignored, mass comes from density"),
                );
            } else if moving.is_empty() {
                // Real assets author all-zero arrays to mean "not set".
                ctx.warn(
                    "DB304",
                    sim,
                    Some(MASSES),
                    "every entry is 0 (not set); per-point masses ignored, mass comes from density",
                );
            } else {
                // Newton's convention: a 0 marks a kinematic vertex, held where it starts.
                // It keeps the mean moving mass, which its hard pin makes irrelevant to it
                // and keeps every neighbour's mass ratio sane.
                let mean = moving.iter().sum::<f64>() / moving.len() as f64;
                for (i, &m) in masses.iter().enumerate() {
                    if m == 0.0 {
                        kinematic_vertices.push(i as u32);
                    }
                }
                body.point_masses = masses.iter().map(|&m| if m > 0.0 { m as f32 } else { mean as f32 }).collect();
            }
        }
    }
    debug_assert_eq!(body.positions.len(), body.velocities.len());
    Ok(ReadBody { body, world_from_local: world, kinematic_vertices })
}

/// Rejects NaN and infinite coordinates, which would poison the whole simulation.
pub(crate) fn check_finite(ctx: &Ctx, prim: &sdf::Path, name: &str, values: &[DVec3]) -> Result<(), ImportError> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(i) => {
            Err(ImportError::Invalid { at: ctx.prop_loc(prim, name), reason: format!("entry {i} is not finite") })
        }
        None => Ok(()),
    }
}

/// Triangles of a surface simulation mesh: every face must have exactly 3 vertices.
pub(crate) fn read_triangles(ctx: &Ctx, sim: &sdf::Path, point_count: usize) -> Result<Vec<[u32; 3]>, ImportError> {
    const COUNTS: &str = "faceVertexCounts";
    const INDICES: &str = "faceVertexIndices";
    let counts = attribute_values::int_array(ctx, sim, COUNTS)?
        .ok_or_else(|| ImportError::Missing { at: ctx.prop_loc(sim, COUNTS), expected: "int[]" })?;
    if let Some((face, &count)) = counts.iter().enumerate().find(|(_, c)| **c != 3) {
        return Err(ImportError::NonTriangleFace { at: ctx.prop_loc(sim, COUNTS), face, count });
    }
    let indices = attribute_values::int_array(ctx, sim, INDICES)?
        .ok_or_else(|| ImportError::Missing { at: ctx.prop_loc(sim, INDICES), expected: "int[]" })?;
    if indices.len() != 3 * counts.len() {
        return Err(ImportError::LengthMismatch {
            at: ctx.prop_loc(sim, INDICES),
            found: indices.len(),
            expected: 3 * counts.len(),
            reason: format!("3 per face for {} triangles in faceVertexCounts", counts.len()),
        });
    }
    if counts.is_empty() {
        return Err(ImportError::Invalid {
            at: ctx.prop_loc(sim, COUNTS),
            reason: "a surface deformable needs at least one triangle".to_string(),
        });
    }
    let tuples: Vec<[i64; 3]> = indices.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
    check_indices(ctx, sim, INDICES, &tuples, point_count, "points")
}

/// The rest shape: `restShapePoints` and per-element rest indices, each falling back to
/// the simulation mesh's own points and elements when unauthored (or authored empty).
/// Returns local-space rest points and rest elements padded to 4 indices.
fn rest_shape<const N: usize>(
    ctx: &Ctx,
    sim: &sdf::Path,
    points_name: &'static str,
    indices_name: &'static str,
    points: &[DVec3],
    elements: &[[u32; N]],
) -> Result<(Vec<DVec3>, Vec<[u32; 4]>), ImportError> {
    let rest_points = attribute_values::vec3_array(ctx, sim, points_name)?.filter(|p| !p.is_empty());
    let rest_indices = attribute_values::int_tuple_array::<N>(ctx, sim, indices_name)?.filter(|i| !i.is_empty());
    let element_word = if N == 4 { "tetrahedron" } else { "triangle" };
    let pad = |e: &[u32; N]| {
        let mut out = [0u32; 4];
        out[..N].copy_from_slice(e);
        out
    };
    let rest_points = match rest_points {
        Some(rp) => {
            if rest_indices.is_none() && rp.len() != points.len() {
                return Err(ImportError::LengthMismatch {
                    at: ctx.prop_loc(sim, points_name),
                    found: rp.len(),
                    expected: points.len(),
                    reason: format!(
                        "{indices_name} is not authored, so the rest shape must correspond to points one to one"
                    ),
                });
            }
            rp
        }
        None => points.to_vec(),
    };
    let rest_elements = match rest_indices {
        Some(ri) => {
            if ri.len() != elements.len() {
                return Err(ImportError::LengthMismatch {
                    at: ctx.prop_loc(sim, indices_name),
                    found: ri.len(),
                    expected: elements.len(),
                    reason: format!("one rest {element_word} per simulation {element_word}"),
                });
            }
            check_indices(ctx, sim, indices_name, &ri, rest_points.len(), "rest points")?.iter().map(pad).collect()
        }
        None => elements.iter().map(pad).collect(),
    };
    Ok((rest_points, rest_elements))
}

/// `restBendAnglesDefault`: `flatDefault` (fallback) or `restShapeDefault`; the AOUSD
/// spellings `flat` and `restShape` are accepted too.
fn bend_default(ctx: &Ctx, sim: &sdf::Path, name: &str) -> Result<BendDefault, ImportError> {
    match attribute_values::token_value(ctx, sim, name)?.as_deref() {
        None | Some(names::BEND_DEFAULT_FLAT) | Some("flat") => Ok(BendDefault::Flat),
        Some(names::BEND_DEFAULT_REST) | Some("restShape") => Ok(BendDefault::RestShape),
        Some(other) => Err(ImportError::Invalid {
            at: ctx.prop_loc(sim, name),
            reason: format!("expected \"flatDefault\" or \"restShapeDefault\", found {other:?}"),
        }),
    }
}

/// Explicit dihedral rest angles: `restAdjTriPairs` (int2[]) with `restBendAngles`
/// (float[], degrees), converted to radians.
fn bend_overrides(
    ctx: &Ctx,
    sim: &sdf::Path,
    names: &Names,
    triangle_count: usize,
) -> Result<Vec<([u32; 2], f32)>, ImportError> {
    let pairs = attribute_values::int_tuple_array::<2>(ctx, sim, names.adj_pairs)?.unwrap_or_default();
    let angles = attribute_values::f64_array(ctx, sim, names.bend_angles)?.unwrap_or_default();
    if pairs.len() != angles.len() {
        return Err(ImportError::LengthMismatch {
            at: ctx.prop_loc(sim, names.bend_angles),
            found: angles.len(),
            expected: pairs.len(),
            reason: format!("one angle per pair in {}", names.adj_pairs),
        });
    }
    let pairs = check_indices(ctx, sim, names.adj_pairs, &pairs, triangle_count, "triangles")?;
    pairs
        .into_iter()
        .zip(angles)
        .enumerate()
        .map(|(i, (pair, degrees))| {
            if !degrees.is_finite() {
                return Err(ImportError::Invalid {
                    at: ctx.prop_loc(sim, names.bend_angles),
                    reason: format!("entry {i} is not finite"),
                });
            }
            Ok((pair, degrees.to_radians() as f32))
        })
        .collect()
}

/// Index of every body by the paths an attachment may use for it: the body prim and
/// its simulation mesh.
pub(crate) fn lookup(found: &[FoundBody]) -> Vec<(sdf::Path, usize)> {
    let mut out = Vec::with_capacity(found.len() * 2);
    for (i, f) in found.iter().enumerate() {
        out.push((f.root.clone(), i));
        if f.sim != f.root {
            out.push((f.sim.clone(), i));
        }
    }
    out
}
