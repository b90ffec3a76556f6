//! Static collision shapes placed in the world (`PhysicsCollisionAPI` on prims that are
//! not bodies).

use glam::{Quat, Vec3};

/// The shape of a static collider, in its own frame (see [`Collider::rotation`]).
#[derive(Clone, Debug)]
pub enum ColliderShape {
    /// Infinite plane through the origin (USD `Plane` is treated as infinite by physics
    /// engines; its `axis` gives the normal).
    Plane {
        /// Unit normal.
        normal: Vec3,
    },
    /// Box centred at the origin.
    Cuboid {
        /// Half the edge lengths.
        half_extents: Vec3,
    },
    /// Sphere centred at the origin.
    Sphere {
        /// Radius.
        radius: f32,
    },
    /// Capsule: a segment along the local `axis` swept by `radius`.
    Capsule {
        /// Radius of the sweep.
        radius: f32,
        /// Half the segment's length.
        half_height: f32,
        /// Unit axis of the segment.
        axis: Vec3,
    },
    /// Solid cylinder along the local `axis`.
    Cylinder {
        /// Radius.
        radius: f32,
        /// Half the height.
        half_height: f32,
        /// Unit axis.
        axis: Vec3,
    },
    /// Triangle mesh. Vertices are already in world space: use an identity pose.
    TriMesh {
        /// Vertex positions.
        vertices: Vec<Vec3>,
        /// Vertex indices of each triangle.
        triangles: Vec<[u32; 3]>,
    },
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
