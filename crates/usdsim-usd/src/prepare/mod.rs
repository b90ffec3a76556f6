//! `usdsim prepare`: turn render meshes into a deformable body, as the schema expects a
//! tool to do. [`Source::gather`] reads every `Mesh` below a prim of the composed
//! stage (payloads, variants and references included) with its world transform;
//! the caller builds the simulation mesh from those triangles (plain geometry in
//! `usdsim-core`); [`write_volume_body`] and [`write_surface_body`] author a new layer
//! that sublayers the input and applies the schema. The input is never touched.

use glam::{DMat4, DVec3};
use openusd::sdf;

use crate::diagnostic::rule::rule;
use crate::error::ImportError;
use crate::read::material_binding;
use crate::schema::names::{body_prim_type_allowed, describe_type, BODY_APIS, SIM_APIS};
use crate::stage::attribute_values;
use crate::stage::context::Ctx;
use crate::stage::input_stage::InputStage;
use crate::stage::stage_info::{self, StageInfo};
use crate::stage::units::Units;
use crate::stage::xform::XformCache;

mod author;
mod upgrade;

pub use author::{check_prepare_output, write_surface_body, write_volume_body, Authored, SurfaceBody, VolumeBody};
pub use upgrade::{upgrade, UpgradeError, Upgraded};

/// The name of the simulation mesh a volume body gets, a child of the body prim.
pub const SIM_MESH_NAME: &str = "simulationMesh";
/// The name of the physics material `prepare` makes, a child of the body prim.
pub const MATERIAL_NAME: &str = "PhysicsMaterial";
/// The deformable pose instance `prepare` authors (`bindPose` purpose).
pub const POSE_INSTANCE: &str = "default";

/// One render mesh below the body prim, as authored.
#[derive(Clone, Debug)]
pub struct RenderMesh {
    /// Its composed prim path.
    pub prim_path: String,
    /// `points` in its local space, at the stage's start time.
    pub local_points: Vec<DVec3>,
    /// Its local-to-world transform.
    pub world_from_local: DMat4,
    /// Its faces fan-triangulated (quads and n-gons become triangles), local indices.
    pub triangles: Vec<[u32; 3]>,
}

impl RenderMesh {
    /// Its triangles' corners in world space.
    pub fn world_triangles(&self) -> impl Iterator<Item = [DVec3; 3]> + '_ {
        let world: Vec<DVec3> = self.local_points.iter().map(|p| self.world_from_local.transform_point3(*p)).collect();
        self.triangles.iter().map(move |t| t.map(|i| world[i as usize]))
    }
}

/// A material the body is bound to: an existing prim, or one `prepare` makes.
#[derive(Clone, Debug, PartialEq)]
pub enum MaterialChoice {
    /// Bind this existing prim (its values are read for the printed mass).
    Existing(String),
    /// Make `<prim>/PhysicsMaterial` with these values, in SI units (converted to
    /// the stage's with `metersPerUnit` and `kilogramsPerUnit`).
    New(NewMaterial),
}

/// A new material's values, SI.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewMaterial {
    /// Young's modulus, Pa.
    pub youngs_pa: f64,
    /// Poisson's ratio.
    pub poisson: f64,
    /// Density, kg/m³.
    pub density_kg_m3: f64,
    /// Static and dynamic friction.
    pub friction: f64,
    /// A surface body's thickness, m (surface bodies only).
    pub thickness_m: f64,
}

/// What was read from the input for one `prepare`.
pub struct Source {
    /// The stage's metadata (units, axis, time, default prim; `layers` filled, so the
    /// output can never be a file the input loads).
    pub stage: StageInfo,
    /// The body prim.
    pub prim: String,
    /// The body prim's type name (empty when untyped).
    pub prim_type: String,
    /// The body prim's local-to-world transform.
    pub prim_world: DMat4,
    /// Every render mesh at or below the prim with at least one face.
    pub meshes: Vec<RenderMesh>,
    /// Meshes at or below the prim that were left out, and why ("no points", "no faces").
    pub skipped: Vec<(String, &'static str)>,
    /// A body or simulation API already applied at or below the prim: `(prim, API)`.
    pub existing_body: Option<(String, String)>,
    /// The stage's units, for SI conversions.
    units: Units,
    ctx: Ctx,
}

impl Source {
    /// Opens what `prepare` needs of `input` for the body prim `prim`: the meshes
    /// below it, triangulated, with their world transforms, and whether a body API is
    /// already there. Errors name the file, prim and attribute: a prim that does not
    /// exist, no `Mesh` at or below it, an index out of range, a face with fewer than 3
    /// vertices, non-finite points.
    pub fn gather(input: &InputStage, prim: &str) -> Result<Source, ImportError> {
        let mut ctx = input.context();
        let mut info = stage_info::read(&mut ctx);
        ctx.time = info.start_time_code;
        let units = Units { meters_per_unit: info.meters_per_unit, kilograms_per_unit: info.kilograms_per_unit };
        let prims = input.prims.as_ref().map_err(|err| err.to_import_error(&ctx))?;
        let root_loc = ctx.prim_loc(&sdf::Path::abs_root());
        let path = sdf::Path::new(prim).map_err(|err| ImportError::Invalid {
            at: root_loc.clone(),
            reason: format!("--prim {prim:?} is not a prim path: {err}"),
        })?;
        let Some(index) = prims.find(&path) else {
            let roots: Vec<String> = prims
                .iter()
                .filter(|p| p.path.parent().is_some_and(|q| q.is_abs_root()))
                .map(|p| p.path.to_string())
                .collect();
            return Err(ImportError::Invalid {
                at: ctx.prim_loc(&path),
                reason: format!("no such prim on the composed stage (root prims: {})", roots.join(", ")),
            });
        };
        // The body API goes on this prim: never author what validate rejects (DB001).
        let type_name = &prims[index].type_name;
        if !body_prim_type_allowed(type_name) {
            return Err(ImportError::Invalid {
                at: ctx.prim_loc(&path),
                reason: format!(
                    "is {}, which cannot carry DeformableBodyAPI (DB001: {}); give it a type such as \
                     `def Xform`, or pass --prim an Xform or Scope above the render meshes",
                    describe_type(type_name),
                    rule("DB001").map_or("", |r| r.statement)
                ),
            });
        }
        let mut xforms = XformCache::default();
        let prim_world = xforms.world(&mut ctx, &path)?;
        let range = index..prims.descendants(index).end;
        let mut existing_body = None;
        let mut meshes = Vec::new();
        let mut skipped = Vec::new();
        for p in &prims[range] {
            if existing_body.is_none() {
                let api = p.apis.iter().find(|a| {
                    BODY_APIS.iter().any(|(name, _)| name == a) || SIM_APIS.iter().any(|(name, _)| name == a)
                });
                if let Some(api) = api {
                    existing_body = Some((p.path.to_string(), api.clone()));
                }
            }
            if p.type_name != "Mesh" {
                continue;
            }
            match read_mesh(&mut ctx, &p.path, &mut xforms)? {
                Ok(mesh) => meshes.push(mesh),
                Err(why) => skipped.push((p.path.to_string(), why)),
            }
        }
        if meshes.is_empty() {
            let reason = if skipped.is_empty() {
                "no Mesh at or below this prim; prepare needs render meshes to build the body from".to_string()
            } else {
                let list: Vec<String> = skipped.iter().map(|(p, why)| format!("{p} ({why})")).collect();
                format!("every Mesh below this prim is empty: {}", list.join(", "))
            };
            return Err(ImportError::Invalid { at: ctx.prim_loc(&path), reason });
        }
        let prim_paths: Vec<sdf::Path> = prims.iter().map(|p| p.path.clone()).collect();
        info.layers = crate::stage::input_layers::of(&ctx.stage, &input.path_str, &prim_paths);
        Ok(Source {
            stage: info,
            prim: path.to_string(),
            prim_type: prims[index].type_name.clone(),
            prim_world,
            meshes,
            skipped,
            existing_body,
            units,
            ctx,
        })
    }

    /// Every render triangle in world space.
    pub fn world_triangles(&self) -> Vec<[DVec3; 3]> {
        self.meshes.iter().flat_map(RenderMesh::world_triangles).collect()
    }

    /// A density in kg/m³, in stage mass per stage volume.
    pub fn density_from_si(&self, kg_per_m3: f64) -> f64 {
        self.units.density_from_si(kg_per_m3)
    }

    /// The density (stage units) of the existing material `material`, read as a run
    /// reads it (unauthored: 1000 kg/m³ in stage units). An error when the prim does not
    /// exist.
    pub fn material_density(&mut self, material: &str) -> Result<f64, ImportError> {
        let loc = self.ctx.prim_loc(&sdf::Path::abs_root());
        let path = sdf::Path::new(material)
            .map_err(|err| ImportError::Invalid { at: loc, reason: format!("--material {material:?}: {err}") })?;
        let exists = self.ctx.stage.prim(path.clone()).ok().is_some_and(|p| p.is_valid().unwrap_or(false));
        if !exists {
            return Err(ImportError::Invalid {
                at: self.ctx.prim_loc(&path),
                reason: "--material names no prim on the composed stage".to_string(),
            });
        }
        let body = sdf::Path::new(&self.prim).unwrap_or_else(|_| sdf::Path::abs_root());
        let m = material_binding::body_material(&mut self.ctx, Some(&path), &self.units, &body)?;
        Ok(f64::from(m.density))
    }
}

/// One mesh's points and triangulated faces; `Ok(Err(why))` for an empty mesh, which
/// is skipped.
fn read_mesh(
    ctx: &mut Ctx,
    path: &sdf::Path,
    xforms: &mut XformCache,
) -> Result<Result<RenderMesh, &'static str>, ImportError> {
    let points = attribute_values::vec3_array(ctx, path, "points")?.unwrap_or_default();
    if points.is_empty() {
        return Ok(Err("no points"));
    }
    if let Some(i) = points.iter().position(|p| !p.is_finite()) {
        return Err(ImportError::Invalid {
            at: ctx.prop_loc(path, "points"),
            reason: format!("entry {i} is not finite"),
        });
    }
    let counts = attribute_values::int_array(ctx, path, "faceVertexCounts")?.unwrap_or_default();
    let indices = attribute_values::int_array(ctx, path, "faceVertexIndices")?.unwrap_or_default();
    if counts.is_empty() {
        return Ok(Err("no faces"));
    }
    let total: i64 = counts.iter().map(|&c| c.max(0)).sum();
    if total != indices.len() as i64 {
        return Err(ImportError::LengthMismatch {
            at: ctx.prop_loc(path, "faceVertexIndices"),
            found: indices.len(),
            expected: total.max(0) as usize,
            reason: "the sum of faceVertexCounts".to_string(),
        });
    }
    if let Some(&bad) = indices.iter().find(|&&i| i < 0 || i as usize >= points.len()) {
        return Err(ImportError::IndexOutOfRange {
            at: ctx.prop_loc(path, "faceVertexIndices"),
            index: bad,
            count: points.len(),
            target: "points",
        });
    }
    let mut triangles = Vec::with_capacity(indices.len());
    let mut offset = 0usize;
    for (face, &count) in counts.iter().enumerate() {
        if count < 3 {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(path, "faceVertexCounts"),
                reason: format!("face {face} has {count} vertices; a face needs at least 3"),
            });
        }
        let f = &indices[offset..offset + count as usize];
        for k in 1..f.len() - 1 {
            triangles.push([f[0] as u32, f[k] as u32, f[k + 1] as u32]);
        }
        offset += count as usize;
    }
    // UsdGeom's `leftHanded` orientation winds faces clockwise: flip so that every
    // soup is counter-clockwise-outward, as the winding number expects.
    if attribute_values::token_value(ctx, path, "orientation")?.as_deref() == Some("leftHanded") {
        for t in &mut triangles {
            t.swap(1, 2);
        }
    }
    let world_from_local = xforms.world(ctx, path)?;
    Ok(Ok(RenderMesh { prim_path: path.to_string(), local_points: points, world_from_local, triangles }))
}
