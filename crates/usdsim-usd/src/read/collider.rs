//! Static colliders: prims with `PhysicsCollisionAPI` outside every deformable body and
//! outside rigid bodies. Scale from the transform hierarchy is baked into the shape.

use glam::{DMat4, DVec3, Quat, Vec3};
use openusd::sdf;
use usdsim_core::{Collider, ColliderShape};

use crate::error::ImportError;
use crate::read::material_binding;
use crate::schema::names::{COLLISION_ENABLED, RIGID_BODY_API};
use crate::stage::attribute_values::{self, checked_index};
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;
use crate::stage::xform::{decompose, Decomposed, XformCache};

/// Reads every static collider among the traversed prims. `in_body` says which prims
/// belong to a deformable body: collision meshes there move with the body.
pub(crate) fn read_all(
    ctx: &mut Ctx,
    prims: &[PrimInfo],
    in_body: &dyn Fn(&sdf::Path) -> bool,
    xforms: &mut XformCache,
) -> Result<Vec<Collider>, ImportError> {
    let rigid_roots: Vec<&sdf::Path> = prims.iter().filter(|p| p.has_api(RIGID_BODY_API)).map(|p| &p.path).collect();
    let mut colliders = Vec::new();
    for prim in prims.iter().filter(|p| p.has_api("PhysicsCollisionAPI")) {
        if in_body(&prim.path) {
            continue;
        }
        // Colliders of rigid bodies move with their body (`rigid_body.rs`).
        if rigid_roots.iter().any(|root| prim.path.has_prefix(root)) {
            continue;
        }
        if attribute_values::bool_value(ctx, &prim.path, COLLISION_ENABLED)? == Some(false) {
            continue;
        }
        if let Some(collider) = read_one(ctx, prim, xforms)? {
            colliders.push(collider);
        }
    }
    Ok(colliders)
}

/// A unit axis vector from a USD `axis` token (`X`, `Y` or `Z`).
fn axis(ctx: &Ctx, prim: &sdf::Path) -> Result<(usize, DVec3), ImportError> {
    match attribute_values::token_value(ctx, prim, "axis")?.as_deref() {
        None | Some("Z") => Ok((2, DVec3::Z)),
        Some("X") => Ok((0, DVec3::X)),
        Some("Y") => Ok((1, DVec3::Y)),
        Some(other) => Err(ImportError::Invalid {
            at: ctx.prop_loc(prim, "axis"),
            reason: format!("expected \"X\", \"Y\" or \"Z\", found {other:?}"),
        }),
    }
}

/// A positive, finite size attribute with its USD fallback.
fn dimension(ctx: &Ctx, prim: &sdf::Path, name: &str, fallback: f64) -> Result<f64, ImportError> {
    match attribute_values::f64_value(ctx, prim, name)? {
        None => Ok(fallback),
        Some(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Some(v) => Err(ImportError::Invalid {
            at: ctx.prop_loc(prim, name),
            reason: format!("must be a finite, non-negative length, found {v}"),
        }),
    }
}

fn nearly_equal(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1e-300)
}

/// One collider prim as a world-space [`Collider`] (`None`: unsupported, warned).
pub(crate) fn read_one(
    ctx: &mut Ctx,
    prim: &PrimInfo,
    xforms: &mut XformCache,
) -> Result<Option<Collider>, ImportError> {
    let path = &prim.path;
    let world = xforms.world(ctx, path)?;
    let d = decompose(world);
    let scale = d.scale.abs();
    let warn_shear = |ctx: &mut Ctx, d: &Decomposed| {
        if d.sheared {
            ctx.warn("IM022", path, None, "sheared transform; collider shape approximated without the shear");
        }
    };
    let shape = match prim.type_name.as_str() {
        "Plane" => {
            let (_, local_normal) = axis(ctx, path)?;
            // Normals transform by the inverse transpose; an infinite plane needs no
            // scale otherwise.
            let linear = world.inverse().transpose();
            let normal = linear.transform_vector3(local_normal);
            if normal.length_squared() == 0.0 || !normal.is_finite() {
                return Err(ImportError::Invalid {
                    at: ctx.prim_loc(path),
                    reason: "degenerate transform: the plane normal vanishes".to_string(),
                });
            }
            return Ok(Some(Collider {
                name: path.to_string(),
                shape: ColliderShape::Plane { normal: normal.normalize().as_vec3() },
                translation: d.translation.as_vec3(),
                rotation: Quat::IDENTITY,
                friction: material_binding::collider_friction(ctx, path)?,
            }));
        }
        "Cube" => {
            warn_shear(ctx, &d);
            let size = dimension(ctx, path, "size", 2.0)?;
            ColliderShape::Cuboid { half_extents: (scale * (size / 2.0)).as_vec3() }
        }
        "Sphere" => {
            warn_shear(ctx, &d);
            let radius = dimension(ctx, path, "radius", 1.0)?;
            let max = scale.max_element();
            if !nearly_equal(max, scale.min_element()) {
                ctx.warn(
                    "IM022",
                    path,
                    None,
                    format!("non-uniform scale {scale} on a sphere; using a sphere of the largest scale"),
                );
            }
            ColliderShape::Sphere { radius: (radius * max) as f32 }
        }
        "Capsule" | "Cylinder" => {
            warn_shear(ctx, &d);
            let is_capsule = prim.type_name == "Capsule";
            let (radius_fallback, height_fallback) = if is_capsule { (0.5, 1.0) } else { (1.0, 2.0) };
            let radius = dimension(ctx, path, "radius", radius_fallback)?;
            let height = dimension(ctx, path, "height", height_fallback)?;
            let (axis_index, axis_vector) = axis(ctx, path)?;
            let along = scale[axis_index];
            let across: Vec<f64> = (0..3).filter(|&i| i != axis_index).map(|i| scale[i]).collect();
            let (a, b) = (across.first().copied().unwrap_or(1.0), across.get(1).copied().unwrap_or(1.0));
            let across_max = a.max(b);
            // A cylinder tolerates any scale along its axis; a capsule's round caps only
            // a uniform one.
            if !nearly_equal(a, b) || (is_capsule && !nearly_equal(along, across_max)) {
                ctx.warn(
                    "IM022",
                    path,
                    None,
                    format!(
                        "non-uniform scale {scale} on a {}; radius uses the largest cross-axis scale",
                        prim.type_name
                    ),
                );
            }
            let radius = (radius * across_max) as f32;
            let half_height = (height / 2.0 * along) as f32;
            let axis = axis_vector.as_vec3();
            if is_capsule {
                ColliderShape::Capsule { radius, half_height, axis }
            } else {
                ColliderShape::Cylinder { radius, half_height, axis }
            }
        }
        "Mesh" => {
            let (vertices, triangles) = triangle_mesh(ctx, path, world)?;
            if triangles.is_empty() {
                ctx.warn("IM020", path, None, "collision mesh has no triangles; skipped");
                return Ok(None);
            }
            return Ok(Some(Collider {
                name: path.to_string(),
                shape: ColliderShape::TriMesh { vertices, triangles },
                translation: Vec3::ZERO,
                rotation: Quat::IDENTITY,
                friction: material_binding::collider_friction(ctx, path)?,
            }));
        }
        other => {
            let what = if other.is_empty() { "an untyped prim" } else { other };
            ctx.warn(
                "IM020",
                path,
                None,
                format!("PhysicsCollisionAPI on {what} is not a supported static collider shape; skipped"),
            );
            return Ok(None);
        }
    };
    Ok(Some(Collider {
        name: path.to_string(),
        shape,
        translation: d.translation.as_vec3(),
        rotation: d.rotation.normalize().as_quat(),
        friction: material_binding::collider_friction(ctx, path)?,
    }))
}

/// A polygon mesh as world-space triangles (fan triangulation), keeping the outward
/// winding under mirroring transforms and `orientation = "leftHanded"`.
fn triangle_mesh(ctx: &mut Ctx, path: &sdf::Path, world: DMat4) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), ImportError> {
    let points = attribute_values::vec3_array(ctx, path, "points")?.unwrap_or_default();
    let counts = attribute_values::int_array(ctx, path, "faceVertexCounts")?.unwrap_or_default();
    let indices = attribute_values::int_array(ctx, path, "faceVertexIndices")?.unwrap_or_default();
    let total: i64 = counts.iter().map(|&c| c.max(0)).sum();
    if usize::try_from(total).ok() != Some(indices.len()) {
        return Err(ImportError::LengthMismatch {
            at: ctx.prop_loc(path, "faceVertexIndices"),
            found: indices.len(),
            expected: usize::try_from(total).unwrap_or(0),
            reason: "the sum of faceVertexCounts".to_string(),
        });
    }
    let left_handed = attribute_values::token_value(ctx, path, "orientation")?.as_deref() == Some("leftHanded");
    let flip = left_handed != (world.determinant() < 0.0);
    let mut triangles = Vec::new();
    let mut skipped = 0usize;
    let mut start = 0usize;
    for &count in &counts {
        let n = usize::try_from(count).unwrap_or(0);
        let face = indices.get(start..start + n).unwrap_or_default();
        start += n;
        if n < 3 {
            skipped += 1;
            continue;
        }
        let mut checked = Vec::with_capacity(n);
        for &i in face {
            checked.push(checked_index(ctx, path, "faceVertexIndices", i, points.len(), "points")?);
        }
        for k in 1..n - 1 {
            let (b, c) = (checked[k], checked[k + 1]);
            triangles.push(if flip { [checked[0], c, b] } else { [checked[0], b, c] });
        }
    }
    if skipped > 0 {
        ctx.warn(
            "IM023",
            path,
            Some("faceVertexCounts"),
            format!("{skipped} faces with fewer than 3 vertices skipped"),
        );
    }
    let vertices = points.iter().map(|p| world.transform_point3(*p).as_vec3()).collect();
    Ok((vertices, triangles))
}
