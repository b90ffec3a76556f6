//! Collision and graphics meshes of hierarchical bodies: read in their bind pose for
//! embedding, with what the exporter needs to write them back (transform, and the face
//! topology when the input authored per-vertex normals to recompute).

use glam::{DMat4, DVec3};
use usdsim_core::BodyId;
use usdsim_core::EmbeddedMesh;

use crate::error::ImportError;
use crate::read::pose;
use crate::schema::names::BIND_POSE;
use crate::stage::attribute_values;
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;
use crate::stage::xform::XformCache;

/// A collision or graphics mesh embedded in a body, so results can be written back.
#[derive(Clone, Debug, PartialEq)]
pub struct EmbeddedPrim {
    /// The mesh's composed prim path.
    pub prim_path: String,
    /// The body it follows.
    pub body: BodyId,
    /// The mesh's local-to-world transform at `startTimeCode`.
    pub world_from_local: DMat4,
    /// The faces, when the input authored `vertex`/`varying` normals that must be
    /// recomputed on the deformed mesh; `None` writes no normals.
    pub normals: Option<FaceTopology>,
    /// Whether it is an enabled collision mesh (else a graphics mesh).
    pub collision: bool,
}

/// A polygon mesh's faces, as USD's `faceVertexCounts` and `faceVertexIndices`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaceTopology {
    /// Vertices per face.
    pub counts: Vec<u32>,
    /// Point index of each face vertex.
    pub indices: Vec<u32>,
}

/// Reads one embedded mesh of body `body`. `None` (silently) for a mesh without points.
pub(crate) fn read(
    ctx: &mut Ctx,
    prim: &PrimInfo,
    collision: bool,
    body: usize,
    xforms: &mut XformCache,
) -> Result<Option<(EmbeddedMesh, EmbeddedPrim)>, ImportError> {
    let path = &prim.path;
    let points = attribute_values::vec3_array(ctx, path, "points")?.unwrap_or_default();
    if points.is_empty() {
        return Ok(None);
    }
    if let Some(i) = points.iter().position(|p| !p.is_finite()) {
        return Err(ImportError::Invalid {
            at: ctx.prop_loc(path, "points"),
            reason: format!("entry {i} is not finite"),
        });
    }
    let bind: Vec<DVec3> = match pose::pose_points(ctx, prim, BIND_POSE)? {
        Some(b) if b.len() == points.len() => b,
        Some(b) => {
            ctx.warn(
                "DB201",
                path,
                None,
                format!("bind pose has {} points but the mesh has {}; using points", b.len(), points.len()),
            );
            points.clone()
        }
        None => points.clone(),
    };
    let world: DMat4 = xforms.world(ctx, path)?;
    let normals = normals_topology(ctx, prim, points.len())?;
    let mesh = EmbeddedMesh {
        name: path.to_string(),
        body: BodyId(body),
        bind_points: bind.iter().map(|p| world.transform_point3(*p).as_vec3()).collect(),
        collision,
    };
    let out =
        EmbeddedPrim { prim_path: path.to_string(), body: BodyId(body), world_from_local: world, normals, collision };
    Ok(Some((mesh, out)))
}

/// When the mesh authors `normals` with `vertex` or `varying` interpolation (the
/// fallback is `vertex`), its faces, so the exporter can recompute them on the deformed
/// mesh. Other interpolations, non-`Mesh` prims and bad topology: a warning, no normals.
fn normals_topology(ctx: &mut Ctx, prim: &PrimInfo, point_count: usize) -> Result<Option<FaceTopology>, ImportError> {
    let path = &prim.path;
    let Some(normals) = attribute_values::raw(ctx, path, "normals")? else {
        return Ok(None);
    };
    let _ = normals;
    let interpolation = ctx
        .prim(path)?
        .attribute("normals")
        .get_metadata::<openusd::sdf::Value>("interpolation")
        .ok()
        .flatten()
        .and_then(|v| v.try_as_token())
        .map(|t| t.as_str().to_string())
        .unwrap_or_else(|| "vertex".to_string());
    if interpolation != "vertex" && interpolation != "varying" {
        ctx.warn(
"IM040",
            path,
            Some("normals"),
            format!("normals with {interpolation:?} interpolation are not recomputed (only vertex/varying); they keep their authored value"),
        );
        return Ok(None);
    }
    if prim.type_name != "Mesh" {
        ctx.warn("IM040", path, Some("normals"), format!("normals of a {} are not recomputed", prim.type_name));
        return Ok(None);
    }
    let counts = attribute_values::int_array(ctx, path, "faceVertexCounts")?.unwrap_or_default();
    let indices = attribute_values::int_array(ctx, path, "faceVertexIndices")?.unwrap_or_default();
    let total: i64 = counts.iter().sum();
    let valid = counts.iter().all(|&c| c >= 0)
        && total == indices.len() as i64
        && indices.iter().all(|&i| i >= 0 && (i as usize) < point_count);
    if !valid {
        ctx.warn("IM040", path, Some("faceVertexIndices"), "face topology is inconsistent; normals are not recomputed");
        return Ok(None);
    }
    Ok(Some(FaceTopology {
        counts: counts.iter().map(|&c| c as u32).collect(),
        indices: indices.iter().map(|&i| i as u32).collect(),
    }))
}
