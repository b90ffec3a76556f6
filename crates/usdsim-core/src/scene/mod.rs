//! The plain-data simulation model: what the importer builds and the solver consumes.
//!
//! Everything here is in **world space** and **stage units** (distance and mass units of
//! the USD stage, seconds for time). The solver never sees a USD type; the USD crate fills
//! these structs and reads results back through [`crate::Solver`].

//!
//! This module imports nothing else of the crate: it is the input every other layer
//! reads.

mod attachment;
mod body;
mod collider;
mod collision_filter;
mod ids;
mod joint;
mod material;
mod rigid_body;

pub use attachment::{Attachment, Frame, Pin, Site};
pub use body::{BendDefault, Body, BodyKind, LinkKinds, Model, Springs, BODY_MATERIAL};
pub use collider::{Collider, ColliderShape};
pub use collision_filter::{CollisionFilter, CollisionObject, ElementFilter, ElementSet};
pub use ids::{BodyId, ColliderId, FrameId, RigidId};
pub use joint::{DofLimit, Drive, Joint, JointAxis, JointDof, JointKind};
pub use material::{Material, MaterialSlot, Plasticity};
pub use rigid_body::{RigidBody, RigidShape};

use glam::Vec3;

/// A whole simulation: bodies, static colliders, pins and global settings.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// Gravitational acceleration in stage units per second squared.
    pub gravity: Vec3,
    /// Deformable bodies, in a stable order (the importer's traversal order).
    pub bodies: Vec<Body>,
    /// Static (immovable) collision shapes.
    pub colliders: Vec<Collider>,
    /// Vertices held at a world-space target (attachments to static xformables).
    pub pins: Vec<Pin>,
    /// Collision and graphics meshes embedded in a body's simulation mesh, in their bind
    /// pose (see `mesh/embedding.rs`). The solver ignores them; whoever writes results
    /// builds an [`crate::Embedding`] from each and maps the body's state onto it.
    pub embedded: Vec<EmbeddedMesh>,
    /// Which bodies, colliders and elements may not touch (collision groups, filtered
    /// pairs, element filters; see `contact/filter_table.rs`).
    pub collision: CollisionFilter,
    /// Attachments between body points, frames and rigid bodies (see
    /// `constraint/attachment.rs`); pins are the simple vertex-to-static-point case.
    pub attachments: Vec<Attachment>,
    /// Coordinate frames (static or animated xformables) attachments are fixed in.
    pub frames: Vec<Frame>,
    /// Rigid bodies, simulated with rapier3d (see `rigid.rs`).
    pub rigid_bodies: Vec<RigidBody>,
    /// Joints between rigid bodies, simulated with rapier3d's joints.
    pub joints: Vec<Joint>,
}

/// A collision or graphics mesh that follows a body's simulation mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct EmbeddedMesh {
    /// A name for messages (the importer uses the prim path).
    pub name: String,
    /// The body it follows.
    pub body: BodyId,
    /// The mesh's points in its bind pose, world space.
    pub bind_points: Vec<Vec3>,
    /// Whether it is a collision mesh (collision API applied and enabled) rather than a
    /// graphics mesh. Deformable collision meshes do not collide yet; they are embedded
    /// and written back like graphics meshes.
    pub collision: bool,
}
