//! `usdsim upgrade`: a layer over the input that expresses its legacy PhysX deformables
//! (`schema/physx_legacy.rs`) in the OmniPhysics schema, in the spirit of Pixar's
//! `usdupgrade`. The input is never touched.
//!
//! What it writes is what the import read, so baking the upgraded file bakes the same
//! bodies:
//! - a legacy volume's `Mesh` becomes the body prim, with its cooked tet mesh as a new
//!   `simulationMesh` `TetMesh` child; the `Mesh` stays its render mesh, bound at rest
//!   by a bind pose, and no longer collides itself (its child does);
//! - a legacy surface's `Mesh` becomes a single-prim surface body;
//! - every body gets a material of its own with the values the import resolved (PhysX's
//!   fallbacks included) and PhysX's per-body switches under `physxDeformableBody:`;
//! - each `PhysxPhysicsAttachment` becomes OmniPhysics attachments (vertex or tet to an
//!   xformable, vertex to a body) and is deactivated, where every pair can be said that
//!   way; otherwise it stays as it is, and the report says so.
//!
//! The legacy API schemas are deleted from the upgraded prims' `apiSchemas`.

use std::path::Path;

use glam::{DMat4, Vec3};
use openusd::{gf, sdf};
use usdsim_core::{surface_triangles, Body, BodyKind, ElementFilter, ElementSet, Site};

use super::author::{attr, author_pose, extent, vec3f, write_layer};
use super::{MATERIAL_NAME, POSE_INSTANCE, SIM_MESH_NAME};
use crate::error::{ExportError, ImportError};
use crate::import::import_with_legacy;
use crate::read::legacy_attachment::{LegacyAttachment, OtherSide};
use crate::schema::attachment::{
    SourceKind, ATTACHMENT_ENABLED, ATTACHMENT_TYPES, DIALECTS, ELEMENT_FILTER, FILTER_ENABLED, GROUP_COUNTS,
    GROUP_INDICES, LOCAL_POSITIONS, SRC, TET_COORDS, TET_INDICES, TRI_COORDS, TRI_INDICES, VTX_INDICES,
};
use crate::schema::dialect::Dialect;
use crate::schema::material::{
    base_material_api, material_api_for, BEND_STIFFNESS, DENSITY, DYNAMIC_FRICTION, ELASTICITY_DAMPING, POISSONS_RATIO,
    STATIC_FRICTION, THICKNESS, YOUNGS_MODULUS,
};
use crate::schema::names::{
    body_api, sim_api_name, SimKind, BEND_DEFAULT_FLAT, BINDING_RELS, COLLISION_API, COLLISION_ENABLED,
    DISABLE_GRAVITY, LINEAR_DAMPING, MATERIAL_BINDING_API, SELF_COLLISION, SELF_COLLISION_FILTER_DISTANCE,
};
use crate::schema::physx_legacy::{self as legacy, LegacyKind};
use crate::stage::input_stage::InputStage;

/// The OmniPhysics attribute namespace (the first spelling of the attachment table).
const OMNI: &str = DIALECTS[0].1;
/// The PhysX API every legacy material damping value lives under in the current schema.
const PHYSX_MATERIAL_API: &str = "PhysxDeformableMaterialAPI";
/// The root prim that stands for the world in an upgraded attachment to no actor.
const WORLD_PRIM: &str = "/UsdsimWorld";

/// Why `upgrade` wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum UpgradeError {
    /// The input does not import.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// The layer could not be written.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// There is nothing to upgrade.
    #[error("{file}: holds no legacy PhysX deformable body (PhysxDeformableBodyAPI, PhysxDeformableSurfaceAPI); nothing to upgrade")]
    Nothing {
        /// The input.
        file: String,
    },
}

/// What `upgrade` wrote, for its summary.
#[derive(Clone, Debug, Default)]
pub struct Upgraded {
    /// `(prim, legacy API)` of every upgraded body.
    pub bodies: Vec<(String, &'static str)>,
    /// Every legacy attachment re-expressed (and deactivated).
    pub attachments: Vec<String>,
    /// Legacy attachments left as they are, with why.
    pub kept: Vec<(String, String)>,
}

/// Writes the upgrade of `input` to `output` (see the module documentation).
pub fn upgrade(input: &InputStage, output: &Path) -> Result<Upgraded, UpgradeError> {
    let (imported, attachments) = import_with_legacy(input)?;
    let info = imported.stage.clone();
    crate::export::check_writable(&info, output)?;
    let legacy_bodies: Vec<usize> =
        (0..imported.binding.bodies.len()).filter(|&i| imported.binding.bodies[i].legacy.is_some()).collect();
    if legacy_bodies.is_empty() {
        return Err(UpgradeError::Nothing { file: input.path.display().to_string() });
    }
    let mut report = Upgraded::default();
    // Where each upgraded body's sites now live: the body prim's simulation mesh.
    let mut sim_of: Vec<(String, String)> = Vec::new();
    let doc = format!(
        "usdsim upgrade of {}: its legacy PhysX deformables in the OmniPhysics schema, over the input",
        info.input.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    );
    write_layer(&info, &doc, output, |edit| {
        for &i in &legacy_bodies {
            let prim = &imported.binding.bodies[i];
            let body = &imported.scene.bodies[i];
            let kind = prim.legacy.expect("a legacy body");
            let path = sdf::Path::new(&prim.prim_path)?;
            let local = prim.world_from_local.inverse();
            let sim = match kind {
                LegacyKind::Volume => {
                    let render = imported
                        .binding
                        .embedded
                        .iter()
                        .zip(&imported.scene.embedded)
                        .find(|(e, _)| e.prim_path == prim.prim_path && e.body.index() == i);
                    let bind = render.map(|(_, mesh)| points(local, &mesh.bind_points));
                    upgrade_volume(edit, &path, body, local, bind)?
                }
                LegacyKind::Surface => upgrade_surface(edit, &path, body, local)?,
            };
            author_material(edit, &path, &sim, body)?;
            author_switches(edit, &path, body)?;
            if let Some(owner) = owner(input, &path) {
                let rel = path.append_property(Dialect::Omni.names().owner)?;
                sdf::RelationshipSpecMut::new(edit.data_mut(), rel, sdf::Variability::Uniform, false)?
                    .set_target_paths([owner])?;
            }
            delete_apis(edit, &path, &[kind.api()])?;
            sim_of.push((prim.prim_path.clone(), sim.to_string()));
            report.bodies.push((prim.prim_path.clone(), kind.api()));
        }
        for a in &attachments {
            match upgrade_attachment(edit, a, &sim_of)? {
                Ok(()) => report.attachments.push(a.prim.to_string()),
                Err(why) => report.kept.push((a.prim.to_string(), why)),
            }
        }
        Ok(())
    })?;
    Ok(report)
}

/// World-space points in a prim's local space, as USD stores them.
fn points(local_from_world: DMat4, world: &[Vec3]) -> Vec<gf::Vec3f> {
    world.iter().map(|p| vec3f(local_from_world.transform_point3(p.as_dvec3()))).collect()
}

/// The volume: the body API on the `Mesh`, the render mesh's bind pose on it, and the
/// cooked tet mesh as a new `simulationMesh` child. Returns the child.
fn upgrade_volume(
    edit: &mut sdf::LayerEdit<'_>,
    path: &sdf::Path,
    body: &Body,
    local: DMat4,
    bind: Option<Vec<gf::Vec3f>>,
) -> Result<sdf::Path, sdf::AuthoringError> {
    let d = Dialect::Omni;
    let names = d.names();
    let pose_api = format!("{}:{POSE_INSTANCE}", names.pose_api);
    {
        let mut spec = sdf::PrimSpecMut::over(edit.data_mut(), path.clone())?;
        let _ = spec.add_applied_schema(body_api(d));
        if bind.is_some() {
            let _ = spec.add_applied_schema(pose_api.clone());
        }
    }
    attr(edit, path, names.enabled, "bool", sdf::Value::Bool(true), false)?;
    // The Mesh is the render mesh now; its child collides.
    attr(edit, path, COLLISION_ENABLED, "bool", sdf::Value::Bool(false), false)?;
    if let Some(bind) = bind {
        author_pose(edit, path, d, bind)?;
    }
    let sim = path.append_path(SIM_MESH_NAME)?;
    {
        let mut spec = sdf::PrimSpecMut::new(edit.data_mut(), sim.clone(), sdf::Specifier::Def, "TetMesh")?;
        for api in [sim_api_name(SimKind::Volume, d), COLLISION_API, MATERIAL_BINDING_API] {
            let _ = spec.add_applied_schema(api);
        }
        let _ = spec.add_applied_schema(pose_api);
    }
    // The child has no transform of its own: its local space is the Mesh's.
    let p = points(local, &body.positions);
    let v: Vec<gf::Vec3f> = body.velocities.iter().map(|v| vec3f(local.transform_vector3(v.as_dvec3()))).collect();
    let tets = |t: &[[u32; 4]]| sdf::Value::Vec4iVec(t.iter().map(|t| gf::Vec4i::from(t.map(|i| i as i32))).collect());
    let faces: Vec<gf::Vec3i> = surface_triangles(body).iter().map(|f| gf::Vec3i::from(f.map(|i| i as i32))).collect();
    attr(edit, &sim, "extent", "float3[]", sdf::Value::Vec3fVec(extent(&p).to_vec()), false)?;
    attr(edit, &sim, "points", "point3f[]", sdf::Value::Vec3fVec(p), false)?;
    attr(edit, &sim, "velocities", "vector3f[]", sdf::Value::Vec3fVec(v), false)?;
    attr(edit, &sim, "tetVertexIndices", "int4[]", tets(&body.tets), false)?;
    attr(edit, &sim, "surfaceFaceVertexIndices", "int3[]", sdf::Value::Vec3iVec(faces), false)?;
    attr(edit, &sim, d.rest_points(), "point3f[]", sdf::Value::Vec3fVec(points(local, &body.rest_points)), false)?;
    attr(edit, &sim, d.rest_tets(), "int4[]", tets(&body.rest_elements), false)?;
    attr(edit, &sim, "purpose", "token", sdf::Value::Token("guide".into()), true)?;
    author_pose(edit, &sim, d, points(local, body.bind_positions()))?;
    Ok(sim)
}

/// The surface: the body and simulation APIs on the `Mesh` itself, with its rest shape.
fn upgrade_surface(
    edit: &mut sdf::LayerEdit<'_>,
    path: &sdf::Path,
    body: &Body,
    local: DMat4,
) -> Result<sdf::Path, sdf::AuthoringError> {
    let d = Dialect::Omni;
    {
        let mut spec = sdf::PrimSpecMut::over(edit.data_mut(), path.clone())?;
        for api in [body_api(d), sim_api_name(SimKind::Surface, d), COLLISION_API, MATERIAL_BINDING_API] {
            let _ = spec.add_applied_schema(api);
        }
    }
    attr(edit, path, d.names().enabled, "bool", sdf::Value::Bool(true), false)?;
    let rest = points(local, &body.rest_points);
    let tris: Vec<gf::Vec3i> =
        body.rest_elements.iter().map(|e| gf::Vec3i::from([e[0] as i32, e[1] as i32, e[2] as i32])).collect();
    attr(edit, path, d.rest_points(), "point3f[]", sdf::Value::Vec3fVec(rest), false)?;
    attr(edit, path, d.rest_tris(), "int3[]", sdf::Value::Vec3iVec(tris), false)?;
    attr(edit, path, d.names().bend_default, "token", sdf::Value::Token(BEND_DEFAULT_FLAT.into()), true)?;
    Ok(path.clone())
}

/// A material of the body's own under the body prim, with the values the import
/// resolved, bound to the simulation mesh.
fn author_material(
    edit: &mut sdf::LayerEdit<'_>,
    prim: &sdf::Path,
    sim: &sdf::Path,
    body: &Body,
) -> Result<(), sdf::AuthoringError> {
    let d = Dialect::Omni;
    let surface = body.kind == BodyKind::Surface;
    let path = prim.append_path(MATERIAL_NAME)?;
    {
        let mut spec = sdf::PrimSpecMut::new(edit.data_mut(), path.clone(), sdf::Specifier::Def, "Material")?;
        let _ = spec.add_applied_schema(base_material_api(d));
        let _ = spec.add_applied_schema(material_api_for(d, false));
        if surface {
            let _ = spec.add_applied_schema(material_api_for(d, true));
        }
        let _ = spec.add_applied_schema(PHYSX_MATERIAL_API);
    }
    let m = &body.material;
    let mut values = vec![
        (YOUNGS_MODULUS.spelling(d), m.youngs_modulus),
        (POISSONS_RATIO.spelling(d), m.poissons_ratio),
        (DENSITY.spelling(d), m.density),
        (STATIC_FRICTION.spelling(d), m.static_friction),
        (DYNAMIC_FRICTION.spelling(d), m.dynamic_friction),
        (ELASTICITY_DAMPING.spelling(d), m.damping),
    ];
    if surface {
        values.push((THICKNESS.spelling(d), m.thickness));
        values.push((BEND_STIFFNESS.spelling(d), m.bend_stiffness));
    }
    for (name, value) in values {
        attr(edit, &path, name, "float", sdf::Value::Float(value), false)?;
    }
    let rel = sim.append_property(BINDING_RELS[0])?;
    sdf::RelationshipSpecMut::new(edit.data_mut(), rel, sdf::Variability::Uniform, false)?.set_target_paths([path])?;
    Ok(())
}

/// PhysX's per-body switches in the current schema's spelling, on the body prim.
fn author_switches(edit: &mut sdf::LayerEdit<'_>, prim: &sdf::Path, body: &Body) -> Result<(), sdf::AuthoringError> {
    attr(edit, prim, SELF_COLLISION, "bool", sdf::Value::Bool(body.self_collision), false)?;
    attr(edit, prim, LINEAR_DAMPING, "float", sdf::Value::Float(body.velocity_damping), false)?;
    if let Some(d) = body.self_collision_filter_distance {
        attr(edit, prim, SELF_COLLISION_FILTER_DISTANCE, "float", sdf::Value::Float(d), false)?;
    }
    if body.gravity == Some(Vec3::ZERO) {
        attr(edit, prim, DISABLE_GRAVITY, "bool", sdf::Value::Bool(true), false)?;
    }
    Ok(())
}

/// The legacy `simulationOwner`'s first target, if authored.
fn owner(input: &InputStage, prim: &sdf::Path) -> Option<sdf::Path> {
    let ctx = input.context();
    ctx.prim(prim).ok()?.relationship(legacy::OWNER).targets().ok()?.into_iter().next()
}

/// Deletes `apis` from the prim's `apiSchemas` in this layer.
fn delete_apis(edit: &mut sdf::LayerEdit<'_>, prim: &sdf::Path, apis: &[&str]) -> Result<(), sdf::AuthoringError> {
    let mut spec = sdf::PrimSpecMut::over(edit.data_mut(), prim.clone())?;
    let mut op = spec.api_schemas().unwrap_or_default();
    for api in apis {
        let token = (*api).into();
        if !op.deleted_items.contains(&token) {
            op.deleted_items.push(token);
        }
    }
    spec.set(sdf::FieldKey::ApiSchemas.as_str(), sdf::Value::TokenListOp(op));
    Ok(())
}

/// One attachment attribute to author: `(leaf, value type, value)`.
type Leaf = (&'static str, &'static str, sdf::Value);

/// How an OmniPhysics attachment names `sites` on a body, when they are all of one kind
/// (vertices, tet points or triangle points), and the attributes that say so.
fn body_side(sites: &[Site]) -> Option<(SourceKind, Vec<Leaf>)> {
    let int = |v: Vec<i32>| sdf::Value::IntVec(v);
    let coords = |v: Vec<gf::Vec3f>| sdf::Value::Vec3fVec(v);
    match sites.first()? {
        Site::Vertex { .. } => {
            let v = sites.iter().map(|s| if let Site::Vertex { vertex, .. } = s { Some(*vertex as i32) } else { None });
            Some((SourceKind::Vertices, vec![(VTX_INDICES, "int[]", int(v.collect::<Option<_>>()?))]))
        }
        Site::Tet { .. } => {
            let (i, c): (Vec<i32>, Vec<gf::Vec3f>) = sites
                .iter()
                .map(|s| {
                    if let Site::Tet { tet, coords, .. } = s {
                        Some((*tet as i32, gf::Vec3f::from(*coords)))
                    } else {
                        None
                    }
                })
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .unzip();
            Some((SourceKind::Tets, vec![(TET_INDICES, "int[]", int(i)), (TET_COORDS, "vector3f[]", coords(c))]))
        }
        Site::Triangle { .. } => {
            let (i, c): (Vec<i32>, Vec<gf::Vec3f>) = sites
                .iter()
                .map(|s| match s {
                    Site::Triangle { triangle, uv, normal_offset, .. } => {
                        Some((*triangle as i32, gf::Vec3f::from([uv[0], uv[1], *normal_offset])))
                    }
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .unzip();
            Some((SourceKind::Triangles, vec![(TRI_INDICES, "int[]", int(i)), (TRI_COORDS, "vector3f[]", coords(c))]))
        }
        Site::Frame { .. } | Site::Rigid { .. } => None,
    }
}

/// One legacy attachment as an OmniPhysics attachment of the type the schema's table
/// (`schema/attachment.rs`) has for its two sides: `Ok(Err(why))` when none has (a
/// triangle point held by an xformable, a tet point held by another body, points of
/// mixed kinds), and the legacy prim then stays active as it is.
fn upgrade_attachment(
    edit: &mut sdf::LayerEdit<'_>,
    a: &LegacyAttachment,
    sim_of: &[(String, String)],
) -> Result<Result<(), String>, sdf::AuthoringError> {
    let sim = |prim: &sdf::Path| -> sdf::Path {
        sim_of
            .iter()
            .find(|(p, _)| *p == prim.to_string())
            .and_then(|(_, s)| sdf::Path::new(s).ok())
            .unwrap_or_else(|| prim.clone())
    };
    let (body_prim, sites) = &a.body;
    let Some((kind0, leaf0)) = body_side(sites) else {
        return Ok(Err("its points on the deformable are of more than one kind".to_string()));
    };
    let src0 = sim(body_prim);
    let (kind1, leaf1, src1) = match &a.other {
        (actor, OtherSide::Local(points)) => {
            let target = match actor {
                Some(p) => p.clone(),
                None => {
                    let world = sdf::Path::new(WORLD_PRIM)?;
                    // An error here is the prim made for an earlier attachment.
                    let _ = sdf::PrimSpecMut::new(edit.data_mut(), world.clone(), sdf::Specifier::Def, "Xform");
                    world
                }
            };
            let local = points.iter().map(|p| gf::Vec3f::from(p.to_array())).collect();
            (SourceKind::Local, vec![(LOCAL_POSITIONS, "point3f[]", sdf::Value::Vec3fVec(local))], target)
        }
        (Some(other), OtherSide::Body(sites1)) => {
            let Some((kind, leaf)) = body_side(sites1) else {
                return Ok(Err("its points on the second body are of more than one kind".to_string()));
            };
            (kind, leaf, sim(other))
        }
        (None, OtherSide::Body(_)) => return Ok(Err("no second actor".to_string())),
    };
    let Some(row) = ATTACHMENT_TYPES.iter().find(|t| t.sources == [kind0, kind1]) else {
        return Ok(Err(format!("no OmniPhysics attachment type holds {kind0:?} to {kind1:?}")));
    };
    let type_name = row.name;
    let name = format!("{}_omniphysics", a.prim.name().unwrap_or("Attachment"));
    let parent = a.prim.parent().unwrap_or_else(sdf::Path::abs_root);
    let path = parent.append_path(name.as_str())?;
    sdf::PrimSpecMut::new(edit.data_mut(), path.clone(), sdf::Specifier::Def, format!("OmniPhysics{type_name}"))?;
    attr(edit, &path, &format!("{OMNI}:{ATTACHMENT_ENABLED}"), "bool", sdf::Value::Bool(true), false)?;
    for (n, target) in [(0, &src0), (1, &src1)] {
        let rel = path.append_property(format!("{OMNI}:{SRC}{n}"))?;
        sdf::RelationshipSpecMut::new(edit.data_mut(), rel, sdf::Variability::Uniform, false)?
            .set_target_paths([target.clone()])?;
    }
    for (n, leaves) in [(0, leaf0), (1, leaf1)] {
        for (leaf, type_name, value) in leaves {
            attr(edit, &path, &format!("{OMNI}:{leaf}Src{n}"), type_name, value, false)?;
        }
    }
    if let Some((filter, prims)) = &a.filter {
        let filter_path = parent.append_path(format!("{}_filter", a.prim.name().unwrap_or("Attachment")).as_str())?;
        author_filter(edit, &filter_path, filter, [sim(&prims[0]), sim(&prims[1])])?;
    }
    sdf::PrimSpecMut::over(edit.data_mut(), a.prim.clone())?.set_active(false);
    Ok(Ok(()))
}

/// An `OmniPhysicsElementCollisionFilter` at `path` between `src`, with `filter`'s
/// groups: a count of 0 stands for every element of that side.
fn author_filter(
    edit: &mut sdf::LayerEdit<'_>,
    path: &sdf::Path,
    filter: &ElementFilter,
    src: [sdf::Path; 2],
) -> Result<(), sdf::AuthoringError> {
    sdf::PrimSpecMut::new(edit.data_mut(), path.clone(), sdf::Specifier::Def, format!("OmniPhysics{ELEMENT_FILTER}"))?;
    attr(edit, path, &format!("{OMNI}:{FILTER_ENABLED}"), "bool", sdf::Value::Bool(true), false)?;
    for (k, target) in src.into_iter().enumerate() {
        let rel = path.append_property(format!("{OMNI}:{SRC}{k}"))?;
        sdf::RelationshipSpecMut::new(edit.data_mut(), rel, sdf::Variability::Uniform, false)?
            .set_target_paths([target])?;
        let (mut counts, mut indices) = (Vec::new(), Vec::new());
        for group in &filter.groups {
            match if k == 0 { &group.0 } else { &group.1 } {
                ElementSet::All => counts.push(0u32),
                ElementSet::Some(set) => {
                    counts.push(set.len() as u32);
                    indices.extend(set.iter().copied());
                }
            }
        }
        attr(edit, path, &format!("{OMNI}:{GROUP_COUNTS}{k}"), "uint[]", sdf::Value::UintVec(counts), false)?;
        attr(edit, path, &format!("{OMNI}:{GROUP_INDICES}{k}"), "uint[]", sdf::Value::UintVec(indices), false)?;
    }
    Ok(())
}
