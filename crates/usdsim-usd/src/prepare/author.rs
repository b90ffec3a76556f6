//! The layer `prepare` writes: it sublayers the input and holds `over`s on the body
//! prim and the render meshes plus the new prims (the simulation mesh of a volume
//! body, the physics material). Every schema name comes from `schema/`.

use std::path::Path;

use glam::{DMat4, DVec3};
use openusd::{gf, sdf};
use usdsim_core::VoxelTets;

use super::{MaterialChoice, RenderMesh, Source, MATERIAL_NAME, POSE_INSTANCE, SIM_MESH_NAME};
use crate::error::ExportError;
use crate::export::{check_writable, destination, relative_asset_path};
use crate::schema::dialect::Dialect;
use crate::schema::material::{
    base_material_api, material_api_for, MaterialAttribute, DENSITY, DYNAMIC_FRICTION, POISSONS_RATIO, STATIC_FRICTION,
    THICKNESS, YOUNGS_MODULUS,
};
use crate::schema::names::{
    body_api, sim_api_name, SimKind, BEND_DEFAULT_FLAT, BEND_DEFAULT_REST, BINDING_RELS, COLLISION_API,
    MATERIAL_BINDING_API,
};
use crate::schema::names::{BIND_POSE, POSE_POINTS, POSE_PURPOSES};
use crate::stage::stage_info::StageInfo;

/// A volume body to author: the tetrahedral mesh (world space) and its material.
pub struct VolumeBody<'a> {
    /// The simulation mesh, world space.
    pub tets: &'a VoxelTets,
    /// Which material to bind.
    pub material: &'a MaterialChoice,
    /// Which spelling of the schema.
    pub dialect: Dialect,
}

/// A surface body to author: the render mesh that becomes the simulation mesh.
pub struct SurfaceBody<'a> {
    /// The mesh (one of [`Source::meshes`]); the body prim or a direct child of it.
    pub mesh: &'a RenderMesh,
    /// Which material to bind.
    pub material: &'a MaterialChoice,
    /// Which spelling of the schema.
    pub dialect: Dialect,
    /// Bending rest angles from the rest shape (`true`) or flat (`false`).
    pub bend_rest: bool,
}

/// What was authored, for the summary.
#[derive(Clone, Debug)]
pub struct Authored {
    /// The simulation mesh's prim.
    pub sim_mesh: String,
    /// The bound material's prim.
    pub material: String,
    /// Render meshes that got a bind pose.
    pub posed: Vec<String>,
}

/// Checks that `output` can be written (before the voxelising work, which may be long):
/// the same rules as a bake's output.
pub fn check_prepare_output(source: &Source, output: &Path) -> Result<(), ExportError> {
    check_writable(&source.stage, output)
}

/// Writes a volume body's layer to `output`: `OmniPhysicsDeformableBodyAPI` on the
/// body prim; a `simulationMesh` `TetMesh` child (points in its local space, which is
/// the body prim's, tets, surface faces, rest shape, bind pose) with the volume
/// simulation API, the collision API and a physics material binding; a bind pose on
/// every render mesh; the material, when a new one is asked for.
pub fn write_volume_body(source: &Source, body: &VolumeBody<'_>, output: &Path) -> Result<Authored, ExportError> {
    let err = |reason: String| ExportError::Author { path: output.to_path_buf(), reason };
    let local_from_world = invert(source.prim_world).ok_or_else(|| {
        err(format!("{}: its transform is singular, so no local space holds the simulation mesh", source.prim))
    })?;
    let prim = sdf::Path::new(&source.prim).map_err(|e| err(e.to_string()))?;
    let sim = prim.append_path(SIM_MESH_NAME).map_err(|e| err(e.to_string()))?;
    let d = body.dialect;
    let points: Vec<gf::Vec3f> =
        body.tets.points.iter().map(|p| vec3f(local_from_world.transform_point3(*p))).collect();
    let tets: Vec<gf::Vec4i> = body.tets.tets.iter().map(|t| gf::Vec4i::from(t.map(|i| i as i32))).collect();
    let faces: Vec<gf::Vec3i> = body.tets.surface.iter().map(|f| gf::Vec3i::from(f.map(|i| i as i32))).collect();
    let mut authored = Authored { sim_mesh: sim.to_string(), material: String::new(), posed: Vec::new() };
    write_layer(&source.stage, &prepare_doc(source), output, |edit| {
        author_body_prim(edit, &prim, d)?;
        let mut spec = sdf::PrimSpecMut::new(edit.data_mut(), sim.clone(), sdf::Specifier::Def, "TetMesh")?;
        for api in [sim_api_name(SimKind::Volume, d), COLLISION_API, MATERIAL_BINDING_API] {
            let _ = spec.add_applied_schema(api);
        }
        let _ = spec.add_applied_schema(format!("{}:{POSE_INSTANCE}", d.names().pose_api));
        attr(edit, &sim, "points", "point3f[]", sdf::Value::Vec3fVec(points.clone()), false)?;
        attr(edit, &sim, "extent", "float3[]", sdf::Value::Vec3fVec(extent(&points).to_vec()), false)?;
        attr(edit, &sim, "tetVertexIndices", "int4[]", sdf::Value::Vec4iVec(tets.clone()), false)?;
        attr(edit, &sim, "surfaceFaceVertexIndices", "int3[]", sdf::Value::Vec3iVec(faces.clone()), false)?;
        attr(edit, &sim, d.rest_points(), "point3f[]", sdf::Value::Vec3fVec(points.clone()), false)?;
        attr(edit, &sim, d.rest_tets(), "int4[]", sdf::Value::Vec4iVec(tets.clone()), false)?;
        // A guide: the simulation mesh drives the render meshes and is not rendered.
        attr(edit, &sim, "purpose", "token", sdf::Value::Token("guide".into()), true)?;
        author_pose(edit, &sim, d, points.clone())?;
        authored.material = author_material(edit, source, &prim, &sim, body.material, d, false)?;
        for mesh in &source.meshes {
            let path = sdf::Path::new(&mesh.prim_path)?;
            sdf::PrimSpecMut::over(edit.data_mut(), path.clone())?
                .add_applied_schema(format!("{}:{POSE_INSTANCE}", d.names().pose_api))
                .ok();
            author_pose(edit, &path, d, mesh.local_points.iter().map(|p| vec3f(*p)).collect())?;
            authored.posed.push(mesh.prim_path.clone());
        }
        Ok(())
    })?;
    Ok(authored)
}

/// Writes a surface body's layer: the body API on the body prim; on the render mesh
/// (the body prim or a direct child), triangulated faces, the surface simulation API,
/// the collision API, the rest shape (its points and triangles), the bend default and
/// a bind pose; the material binding.
pub fn write_surface_body(source: &Source, body: &SurfaceBody<'_>, output: &Path) -> Result<Authored, ExportError> {
    let err = |reason: String| ExportError::Author { path: output.to_path_buf(), reason };
    let prim = sdf::Path::new(&source.prim).map_err(|e| err(e.to_string()))?;
    let sim = sdf::Path::new(&body.mesh.prim_path).map_err(|e| err(e.to_string()))?;
    if sim != prim && sim.parent().as_ref() != Some(&prim) {
        return Err(err(format!(
            "{}: a surface body's simulation mesh must be the body prim {} or a direct child of it; give --prim {}",
            sim, prim, sim
        )));
    }
    let d = body.dialect;
    let points: Vec<gf::Vec3f> = body.mesh.local_points.iter().map(|p| vec3f(*p)).collect();
    let tris = &body.mesh.triangles;
    let counts = vec![3i32; tris.len()];
    let indices: Vec<i32> = tris.iter().flatten().map(|&i| i as i32).collect();
    let rest_tris: Vec<gf::Vec3i> = tris.iter().map(|t| gf::Vec3i::from(t.map(|i| i as i32))).collect();
    let mut authored = Authored { sim_mesh: sim.to_string(), material: String::new(), posed: Vec::new() };
    write_layer(&source.stage, &prepare_doc(source), output, |edit| {
        author_body_prim(edit, &prim, d)?;
        let mut spec = sdf::PrimSpecMut::over(edit.data_mut(), sim.clone())?;
        for api in [sim_api_name(SimKind::Surface, d), COLLISION_API, MATERIAL_BINDING_API] {
            let _ = spec.add_applied_schema(api);
        }
        let _ = spec.add_applied_schema(format!("{}:{POSE_INSTANCE}", d.names().pose_api));
        attr(edit, &sim, "faceVertexCounts", "int[]", sdf::Value::IntVec(counts.clone()), false)?;
        attr(edit, &sim, "faceVertexIndices", "int[]", sdf::Value::IntVec(indices.clone()), false)?;
        attr(edit, &sim, d.rest_points(), "point3f[]", sdf::Value::Vec3fVec(points.clone()), false)?;
        attr(edit, &sim, d.rest_tris(), "int3[]", sdf::Value::Vec3iVec(rest_tris.clone()), false)?;
        let bend = if body.bend_rest { BEND_DEFAULT_REST } else { BEND_DEFAULT_FLAT };
        attr(edit, &sim, d.names().bend_default, "token", sdf::Value::Token(bend.into()), true)?;
        author_pose(edit, &sim, d, points.clone())?;
        authored.material = author_material(edit, source, &prim, &sim, body.material, d, true)?;
        Ok(())
    })?;
    Ok(authored)
}

/// The layer around `author`: metadata copied from the input (axis, units, default
/// prim, time range), the input as its one sublayer, then the edits; written to
/// `output` (the extension picks text or binary).
/// A new layer at `output` that sublayers the input and carries its stage metadata, with
/// `doc` as its documentation and what `author` adds.
pub(super) fn write_layer(
    info: &StageInfo,
    doc: &str,
    output: &Path,
    author: impl FnOnce(&mut sdf::LayerEdit<'_>) -> Result<(), sdf::AuthoringError>,
) -> Result<(), ExportError> {
    let (output_abs, input_abs) = destination(info, output)?;
    let output_dir = output_abs.parent().unwrap_or_else(|| Path::new("/"));
    let sublayer = relative_asset_path(output_dir, &input_abs);
    let mut layer = sdf::Layer::new_anonymous("usdsim-prepare.usda");
    layer
        .edit(|edit| {
            let mut root = edit.pseudo_root_mut()?;
            root.insert_sublayer(0, sublayer.as_str(), sdf::LayerOffset::IDENTITY);
            root.set_documentation(doc.to_string());
            root.set_start_time_code(info.start_time_code);
            if let Some(end) = info.end_time_code {
                root.set_end_time_code(end);
            }
            root.set_time_codes_per_second(info.time_codes_per_second);
            if let Some(fps) = info.frames_per_second {
                root.set_frames_per_second(fps);
            }
            if let Some(default_prim) = &info.default_prim {
                root.set_default_prim(default_prim.as_str());
            }
            root.set("upAxis", sdf::Value::Token(info.up_axis.token().into()));
            root.set("metersPerUnit", sdf::Value::Double(info.meters_per_unit));
            root.set("kilogramsPerUnit", sdf::Value::Double(info.kilograms_per_unit));
            author(edit)
        })
        .map_err(|e| ExportError::Author { path: output.to_path_buf(), reason: e.to_string() })?;
    crate::export::write_layer(&layer, &output_abs, output)
}

/// The documentation of a `prepare` layer.
fn prepare_doc(source: &Source) -> String {
    format!(
        "usdsim prepare of {} in {}: deformable body authored over the input",
        source.prim,
        source.stage.input.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    )
}

/// The body API and `deformableBodyEnabled = true` on the body prim (an `over`).
fn author_body_prim(edit: &mut sdf::LayerEdit<'_>, prim: &sdf::Path, d: Dialect) -> Result<(), sdf::AuthoringError> {
    let _ = sdf::PrimSpecMut::over(edit.data_mut(), prim.clone())?.add_applied_schema(body_api(d));
    attr(edit, prim, d.names().enabled, "bool", sdf::Value::Bool(true), false)
}

/// A pose instance with purpose `bindPose` holding `points` (local space).
pub(super) fn author_pose(
    edit: &mut sdf::LayerEdit<'_>,
    prim: &sdf::Path,
    d: Dialect,
    points: Vec<gf::Vec3f>,
) -> Result<(), sdf::AuthoringError> {
    attr(edit, prim, &d.pose_attr(POSE_INSTANCE, POSE_POINTS), "point3f[]", sdf::Value::Vec3fVec(points), false)?;
    let purposes = sdf::Value::TokenVec(vec![BIND_POSE.into()]);
    attr(edit, prim, &d.pose_attr(POSE_INSTANCE, POSE_PURPOSES), "token[]", purposes, true)
}

/// Binds the material to `sim` with `material:binding:physics`, first making
/// `<prim>/PhysicsMaterial` when a new one is asked for; returns the bound path.
fn author_material(
    edit: &mut sdf::LayerEdit<'_>,
    source: &Source,
    prim: &sdf::Path,
    sim: &sdf::Path,
    choice: &MaterialChoice,
    d: Dialect,
    surface: bool,
) -> Result<String, sdf::AuthoringError> {
    let target = match choice {
        MaterialChoice::Existing(path) => sdf::Path::new(path)?,
        MaterialChoice::New(m) => {
            let path = prim.append_path(MATERIAL_NAME)?;
            let mut spec = sdf::PrimSpecMut::new(edit.data_mut(), path.clone(), sdf::Specifier::Def, "Material")?;
            let _ = spec.add_applied_schema(base_material_api(d));
            // OmniPhysics' surface material API is applied "in addition to"
            // DeformableMaterialAPI, which holds Young's modulus and density (the seed);
            // the AOUSD surface API stands alone.
            if !surface || d == Dialect::Omni {
                let _ = spec.add_applied_schema(material_api_for(d, false));
            }
            if surface {
                let _ = spec.add_applied_schema(material_api_for(d, true));
            }
            let units = source.units;
            let mut values: Vec<(&MaterialAttribute, f64)> = vec![
                (&YOUNGS_MODULUS, units.pressure_from_si(m.youngs_pa)),
                (&POISSONS_RATIO, m.poisson),
                (&DENSITY, units.density_from_si(m.density_kg_m3)),
                (&STATIC_FRICTION, m.friction),
                (&DYNAMIC_FRICTION, m.friction),
            ];
            if surface {
                values.push((&THICKNESS, units.length_from_si(m.thickness_m)));
            }
            for (attribute, value) in values {
                attr(edit, &path, attribute.spelling(d), "float", sdf::Value::Float(value as f32), false)?;
            }
            path
        }
    };
    let rel = sim.append_property(BINDING_RELS[0])?;
    sdf::RelationshipSpecMut::new(edit.data_mut(), rel, sdf::Variability::Uniform, false)?
        .set_target_paths([target.clone()])?;
    Ok(target.to_string())
}

/// A non-custom attribute with a default value.
pub(super) fn attr(
    edit: &mut sdf::LayerEdit<'_>,
    prim: &sdf::Path,
    name: &str,
    type_name: &str,
    value: sdf::Value,
    uniform: bool,
) -> Result<(), sdf::AuthoringError> {
    let path = prim.append_property(name)?;
    let variability = if uniform { sdf::Variability::Uniform } else { sdf::Variability::Varying };
    sdf::AttributeSpecMut::new(edit.data_mut(), path, type_name, variability, false)?.set_default(value)
}

/// A point as USD's single-precision vector.
pub(super) fn vec3f(p: DVec3) -> gf::Vec3f {
    gf::Vec3f::from(p.as_vec3().to_array())
}

/// `[min, max]` of the points, as USD's `extent`.
pub(super) fn extent(points: &[gf::Vec3f]) -> [gf::Vec3f; 2] {
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for p in points {
        for (k, v) in [p.x, p.y, p.z].into_iter().enumerate() {
            lo[k] = lo[k].min(v);
            hi[k] = hi[k].max(v);
        }
    }
    [gf::Vec3f::from(lo), gf::Vec3f::from(hi)]
}

/// The inverse of `m`, unless it is singular.
fn invert(m: DMat4) -> Option<DMat4> {
    let det = m.determinant();
    (det.is_finite() && det.abs() > 1e-300).then(|| m.inverse())
}
