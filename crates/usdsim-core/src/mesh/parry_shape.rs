//! The parry3d form of a scene shape: the one conversion that static colliders
//! (`contact/collider.rs`), contact with rigid bodies (`contact/rigid.rs`) and the
//! rapier world (`rigid.rs`) all use, so the three never disagree on a shape.

use glam::{Quat, Vec3};
use parry3d::shape::{Ball, Capsule, Cuboid, Cylinder, Shape, TriMesh};

use crate::scene::ColliderShape;

/// Rotation taking the parry Y axis onto `axis` (parry capsules and cylinders are
/// Y-aligned; USD's default axis is Z).
fn y_to(axis: Vec3) -> Quat {
    Quat::from_rotation_arc(Vec3::Y, axis.normalize_or(Vec3::Y))
}

/// A bounded collider shape in parry3d form: the shape, the rotation taking parry's
/// Y-axis shapes (capsule, cylinder) onto the scene's axis, and a triangle mesh's face
/// normals. `Ok(None)` for a plane (unbounded: handled on its own). Shared by static
/// colliders and rigid bodies' shapes (`contact/rigid.rs`).
pub(crate) type ParryShape = (Box<dyn Shape>, Quat, Option<Vec<Vec3>>);

/// Builds the parry3d form of `shape`, or says why a triangle mesh is invalid.
pub(crate) fn parry_shape(shape: &ColliderShape) -> Result<Option<ParryShape>, String> {
    Ok(Some(match shape {
        ColliderShape::Plane { .. } => return Ok(None),
        ColliderShape::Cuboid { half_extents } => (Box::new(Cuboid::new(*half_extents)), Quat::IDENTITY, None),
        ColliderShape::Sphere { radius } => (Box::new(Ball::new(*radius)), Quat::IDENTITY, None),
        ColliderShape::Capsule { radius, half_height, axis } => {
            (Box::new(Capsule::new_y(*half_height, *radius)), y_to(*axis), None)
        }
        ColliderShape::Cylinder { radius, half_height, axis } => {
            (Box::new(Cylinder::new(*half_height, *radius)), y_to(*axis), None)
        }
        ColliderShape::TriMesh { vertices, triangles } => {
            let normals = triangles
                .iter()
                .map(|t| {
                    let p = t.map(|i| vertices.get(i as usize).copied().unwrap_or(Vec3::ZERO));
                    (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero()
                })
                .collect();
            let mesh = TriMesh::new(vertices.clone(), triangles.clone()).map_err(|e| e.to_string())?;
            (Box::new(mesh), Quat::IDENTITY, Some(normals))
        }
    }))
}
