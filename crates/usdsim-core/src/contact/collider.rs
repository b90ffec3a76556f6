//! Contacts between body vertices and static colliders, with Coulomb friction.
//!
//! Each substep, every vertex's predicted position is tested against every collider
//! near it (parry3d gives closest points and inside/outside for the primitives and the
//! triangle mesh's BVH). A vertex closer than the contact offset plus the distance it
//! moves this substep gets a contact: the collider's surface linearised to a plane
//! `n·x ≥ d`. Planes are projected in every solver iteration (cheap), so elastic
//! constraints and contacts converge together; friction is applied once per substep from
//! the accumulated normal push, as in Macklin et al. 2014, "Unified Particle Physics for
//! Real-Time Applications", §6.1: static friction cancels tangential motion below
//! `μs·push`, dynamic friction removes at most `μd·push` of it.
//!
//! An overlap that already exists at the start of the substep (the vertex starts inside
//! `n·x ≥ d`: authored interpenetration or a deep penetration) is not resolved by the
//! iterations, which would turn it into velocity in one substep: they hold the vertex
//! where it started (`n·x ≥ n·x_prev`), and [`depenetrate`] then moves it out by at most
//! `max_depenetration_velocity · dt` per substep, positions only (see
//! `Settings::max_depenetration_velocity`).
//!
//! Friction coefficients combine as the average of the body's and the collider's (PhysX's
//! default `average` combine mode).

use crate::error::SceneError;
use crate::mesh::parry_shape::parry_shape;
use crate::parallel::colouring::Shared;
use crate::scene::{Collider, ColliderShape};
use glam::{DVec3, Vec3};
use parry3d::bounding_volume::{Aabb, BoundingVolume};
use parry3d::math::Pose;
use parry3d::query::PointQueryWithLocation;
use parry3d::shape::Shape;
use rayon::prelude::*;

/// Most contacts one vertex keeps per substep (a vertex in a corner touches two shapes).
pub const MAX_PER_VERTEX: usize = 3;

/// A collider in solver form.
pub enum StaticCollider {
    /// Infinite plane `n·x = d`.
    Plane {
        /// Unit normal.
        normal: Vec3,
        /// Offset along the normal.
        d: f32,
        /// Friction of the collider's material.
        friction: f32,
    },
    /// Any parry shape with a world pose and a bounding box for quick rejection.
    Shape {
        /// The parry shape.
        shape: Box<dyn Shape>,
        /// Triangle normals when the shape is a triangle mesh (sign of the distance).
        triangle_normals: Option<Vec<Vec3>>,
        /// World pose.
        pose: Pose,
        /// World bounding box.
        aabb: Aabb,
        /// Friction of the collider's material.
        friction: f32,
    },
}

/// Converts the scene's colliders to solver form.
pub fn build(colliders: &[Collider]) -> Result<Vec<StaticCollider>, SceneError> {
    colliders.iter().map(build_one).collect()
}

fn build_one(c: &Collider) -> Result<StaticCollider, SceneError> {
    let friction = c.friction;
    let built = parry_shape(&c.shape).map_err(|e| SceneError::InvalidCollider {
        collider: c.name.clone(),
        reason: format!("invalid triangle mesh: {e}"),
    })?;
    let Some((shape, local_rot, triangle_normals)) = built else {
        let ColliderShape::Plane { normal } = &c.shape else { unreachable!("only planes are unbounded") };
        let n = (c.rotation * *normal).normalize_or(Vec3::Z);
        return Ok(StaticCollider::Plane { normal: n, d: n.dot(c.translation), friction });
    };
    let pose = Pose::from_parts(c.translation, c.rotation * local_rot);
    let aabb = shape.compute_aabb(&pose);
    Ok(StaticCollider::Shape { shape, triangle_normals, pose, aabb, friction })
}

/// Signed distances from `points` to the surface of collider `c` (negative inside; a
/// plane's to its plane), for tools that ask which points a collider holds, as PhysX's
/// auto attachments do. The collider is built once for all the points.
pub fn signed_distances(c: &Collider, points: &[Vec3]) -> Result<Vec<f32>, SceneError> {
    let built = build_one(c)?;
    Ok(points
        .iter()
        .map(|&p| match &built {
            StaticCollider::Plane { normal, d, .. } => normal.dot(p) - d,
            StaticCollider::Shape { shape, triangle_normals, pose, .. } => {
                shape_query(shape.as_ref(), triangle_normals.as_deref(), pose, p, f32::INFINITY)
                    .map_or(f32::INFINITY, |(d, _, _)| d)
            }
        })
        .collect())
}

/// How one vertex meets colliders: its material's friction and the distances used.
#[derive(Clone, Copy, Debug, Default)]
pub struct VertexContactParams {
    /// The body material's (static, dynamic) friction.
    pub friction: [f32; 2],
    /// Distance kept from collider surfaces.
    pub offset: f32,
    /// Extra search distance: contacts are cheap to carry and only act when violated,
    /// while a missed one lets a vertex that constraints drag sideways sink into the
    /// collider for a substep. Tangent planes of convex shapes are separating planes, so
    /// generous contacts never push a vertex into the shape.
    pub pad: f32,
}

/// The contacts of one vertex in one substep.
#[derive(Clone, Copy, Debug, Default)]
pub struct VertexContacts {
    /// Global vertex index.
    pub vertex: u32,
    /// How many of the slots below are used.
    pub count: u8,
    /// Contact plane normals.
    pub normal: [Vec3; MAX_PER_VERTEX],
    /// Contact planes: `normal·x ≥ offset`.
    pub offset: [f32; MAX_PER_VERTEX],
    /// Combined (static, dynamic) friction coefficients per contact.
    pub friction: [[f32; 2]; MAX_PER_VERTEX],
    /// Normal push accumulated this substep (position units).
    pub push: [f32; MAX_PER_VERTEX],
    /// How deep inside its plane the vertex started the substep (0 when outside): the
    /// iterations hold `offset` that much below the plane, [`depenetrate`] resolves it.
    pub overlap: [f32; MAX_PER_VERTEX],
    /// Index of the collider of each contact (for the initial-overlap warning).
    pub collider: [u32; MAX_PER_VERTEX],
}

/// Signed distance and outward normal from collider `c` at point `p`, or `None` when the
/// point is farther than `reach` (or the normal is undefined).
fn query(c: &StaticCollider, p: Vec3, reach: f32) -> Option<(f32, Vec3, Vec3)> {
    match c {
        StaticCollider::Plane { normal, d, .. } => {
            let dist = normal.dot(p) - d;
            (dist < reach).then(|| (dist, *normal, p - *normal * dist))
        }
        StaticCollider::Shape { shape, triangle_normals, pose, aabb, .. } => {
            if !aabb.loosened(reach.max(0.0)).contains_local_point(p) {
                return None;
            }
            shape_query(shape.as_ref(), triangle_normals.as_deref(), pose, p, reach)
        }
    }
}

/// Signed distance, outward world normal and closest surface point of `shape` placed at
/// `pose`, for a point `p` closer than `reach` (or inside); `None` otherwise or when the
/// normal is undefined. A triangle mesh (with its face normals) is signed by the face
/// nearest `p`; a solid shape's inside gives the nearest boundary point. Shared by static
/// colliders and rigid bodies' shapes (`contact/rigid.rs`).
pub(crate) fn shape_query(
    shape: &dyn Shape,
    triangle_normals: Option<&[Vec3]>,
    pose: &Pose,
    p: Vec3,
    reach: f32,
) -> Option<(f32, Vec3, Vec3)> {
    if let Some(normals) = triangle_normals {
        let mesh = shape.as_trimesh()?;
        let local = pose.inverse_transform_point(p);
        let (proj, (tri, _)) = mesh.project_local_point_and_get_location(local, false);
        let delta = local - proj.point;
        let dist = delta.length();
        let face_n = normals.get(tri as usize).copied().unwrap_or(Vec3::Z);
        let sign = if delta.dot(face_n) < 0.0 { -1.0 } else { 1.0 };
        let n = if dist > 1e-7 { delta / dist * sign } else { face_n };
        let signed = dist * sign;
        return (signed < reach).then(|| (signed, pose.rotation * n, pose.transform_point(proj.point)));
    }
    let proj = shape.project_point(pose, p, true);
    if proj.is_inside {
        // Deep inside: the projection is the nearest boundary point.
        let outer = shape.project_point(pose, p, false);
        let d = outer.point - p;
        let len = d.length();
        return (len >= 1e-9).then(|| (-len, d / len, outer.point));
    }
    let delta = p - proj.point;
    let dist = delta.length();
    (dist < reach && dist > 1e-9).then(|| (dist, delta / dist, proj.point))
}

fn friction_of(c: &StaticCollider) -> f32 {
    match c {
        StaticCollider::Plane { friction, .. } | StaticCollider::Shape { friction, .. } => *friction,
    }
}

/// Finds this substep's contacts for every movable vertex. `x` holds predicted positions,
/// `x_prev` the start-of-substep ones; `keep(vertex, collider)` is false for pairs that
/// collision filters exclude.
pub fn detect(
    colliders: &[StaticCollider],
    x: &[Vec3],
    x_prev: &[Vec3],
    w: &[f32],
    params: &[VertexContactParams],
    keep: &(dyn Fn(u32, usize) -> bool + Sync),
    out: &mut Vec<VertexContacts>,
) {
    out.clear();
    if colliders.is_empty() {
        return;
    }
    let found = (0..x.len()).into_par_iter().with_min_len(1024).filter_map(|i| {
        if w[i] == 0.0 {
            return None;
        }
        let VertexContactParams { friction, offset, pad } = params[i];
        let reach = offset + pad + 2.0 * (x[i] - x_prev[i]).length();
        let mut vc = VertexContacts { vertex: i as u32, ..Default::default() };
        for (ci, c) in colliders.iter().enumerate() {
            if vc.count as usize == MAX_PER_VERTEX {
                break;
            }
            if let Some((dist, n, on_surface)) = query(c, x[i], reach).filter(|_| keep(i as u32, ci)) {
                let k = vc.count as usize;
                vc.normal[k] = n;
                let plane = n.dot(on_surface) + offset;
                // Closer than the offset at the start of the substep (measured on the
                // shape, not on this plane, which a vertex sliding round a curved shape
                // is always slightly behind): hold the start, resolve it afterwards.
                let overlap = if x_prev[i] == x[i] {
                    (offset - dist).max(0.0)
                } else {
                    query(c, x_prev[i], offset).map_or(0.0, |(d0, _, _)| (offset - d0).max(0.0))
                };
                vc.offset[k] = plane - overlap;
                vc.overlap[k] = overlap;
                vc.collider[k] = ci as u32;
                let cf = friction_of(c);
                vc.friction[k] = [0.5 * (friction[0] + cf), 0.5 * (friction[1] + cf)];
                vc.count += 1;
            }
        }
        (vc.count > 0).then_some(vc)
    });
    out.par_extend(found);
}

/// Pushes a contacting vertex back onto its contact planes.
///
/// # Safety
/// No other thread may touch this vertex (each vertex has at most one entry).
#[inline]
pub unsafe fn project(vc: &mut VertexContacts, x: Shared<DVec3>) {
    // SAFETY: exclusive per the contract.
    let p = unsafe { x.get(vc.vertex as usize) };
    for k in 0..vc.count as usize {
        let n = vc.normal[k].as_dvec3();
        let c = n.dot(*p) - vc.offset[k] as f64;
        if c < 0.0 {
            *p -= n * c;
            vc.push[k] -= c as f32;
        }
    }
}

/// Moves every vertex that started its substep inside a contact plane out by at most
/// `max_step` along the normal (`max_depenetration_velocity · dt`), after the velocity
/// update, so the move adds no velocity.
pub fn depenetrate(contacts: &[VertexContacts], x: Shared<DVec3>, max_step: f32) {
    contacts.par_iter().with_min_len(256).for_each(|vc| {
        // SAFETY: each vertex appears in at most one `VertexContacts`.
        let p = unsafe { x.get(vc.vertex as usize) };
        for k in 0..vc.count as usize {
            if vc.overlap[k] > 0.0 {
                let n = vc.normal[k].as_dvec3();
                let depth = (vc.offset[k] + vc.overlap[k]) as f64 - n.dot(*p);
                if depth > 0.0 {
                    *p += n * depth.min(max_step as f64);
                }
            }
        }
    });
}

/// Applies Coulomb friction to the substep's displacement of every contacting vertex.
pub fn apply_friction(contacts: &[VertexContacts], x: Shared<DVec3>, x_prev: &[DVec3]) {
    contacts.par_iter().with_min_len(256).for_each(|vc| {
        let i = vc.vertex as usize;
        // SAFETY: each vertex appears in at most one `VertexContacts`.
        let p = unsafe { x.get(i) };
        for k in 0..vc.count as usize {
            if vc.push[k] <= 0.0 {
                continue;
            }
            let n = vc.normal[k];
            let d = (*p - x_prev[i]).as_vec3();
            let tangential = d - n * n.dot(d);
            let slip = tangential.length();
            if slip < 1e-12 {
                continue;
            }
            let [mu_s, mu_d] = vc.friction[k];
            if slip <= mu_s * vc.push[k] {
                *p -= tangential.as_dvec3();
            } else {
                *p -= (tangential * (mu_d * vc.push[k] / slip).min(1.0)).as_dvec3();
            }
        }
    });
}
