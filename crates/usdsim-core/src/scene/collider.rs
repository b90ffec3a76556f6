//! Static collision shapes placed in the world (`PhysicsCollisionAPI` on prims that are
//! not bodies).

use glam::{Quat, Vec3};

/// The shape of a static collider, in its own frame (see [`Collider::rotation`]).
#[derive(Clone, Debug)]
pub enum ColliderShape {
    /// Infinite plane through the origin with the given unit normal (USD `Plane` is
    /// treated as infinite by physics engines; its `axis` gives the normal).
    Plane { normal: Vec3 },
    /// Box centred at the origin.
    Cuboid { half_extents: Vec3 },
    /// Sphere centred at the origin.
    Sphere { radius: f32 },
    /// Capsule along the local `axis` (unit vector): a segment of half length
    /// `half_height` swept by `radius`.
    Capsule { radius: f32, half_height: f32, axis: Vec3 },
    /// Solid cylinder along the local `axis` (unit vector).
    Cylinder { radius: f32, half_height: f32, axis: Vec3 },
    /// Triangle mesh. Vertices are already in world space: use an identity pose.
    TriMesh { vertices: Vec<Vec3>, triangles: Vec<[u32; 3]> },
}

/// A static collision shape placed in the world.
#[derive(Clone, Debug)]
pub struct Collider {
    /// A name for messages (the importer uses the prim path).
    pub name: String,
    /// The shape, with any scale from the transform hierarchy already baked in.
    pub shape: ColliderShape,
    /// World position of the shape's origin.
    pub translation: Vec3,
    /// World orientation of the shape.
    pub rotation: Quat,
    /// Coulomb friction coefficient of the collider's own material (combined with the
    /// body's as the geometric mean... see `contact/collider.rs`).
    pub friction: f32,
}
