//! Attachments as the scene describes them: two sites held together, the frames sites
//! can be fixed in, and pins (a vertex held at a static point). The solver turns them
//! into constraints in `constraint/attachment.rs` and `constraint/pin.rs`.

use glam::{Mat4, Vec3};

use super::{BodyId, FrameId, RigidId};

/// One end of an attachment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Site {
    /// Vertex `vertex` of body `body`.
    Vertex {
        /// The body.
        body: BodyId,
        /// Vertex index within the body.
        vertex: u32,
    },
    /// A point of triangle `triangle` of surface body `body`: `u·v₀ + v·v₁ + (1−u−v)·v₂`
    /// plus `normal_offset` along the unit normal `(v₁−v₀)×(v₂−v₀)` (the schema's
    /// `triCoords`).
    Triangle {
        /// The body.
        body: BodyId,
        /// Triangle index within the body.
        triangle: u32,
        /// Barycentric weights of the triangle's first two vertices.
        uv: [f32; 2],
        /// Offset along the triangle's normal, stage units.
        normal_offset: f32,
    },
    /// A point of tetrahedron `tet` of volume body `body`: `Σ bᵢ·vᵢ` with the three given
    /// weights and the fourth `1 − b₀ − b₁ − b₂` (the schema's `tetCoords`).
    Tet {
        /// The body.
        body: BodyId,
        /// Tetrahedron index within the body.
        tet: u32,
        /// Barycentric weights of the first three vertices.
        coords: [f32; 3],
    },
    /// A point fixed in frame `frame` ([`crate::Scene::frames`]): `world_from_local · local`.
    Frame {
        /// The frame.
        frame: FrameId,
        /// Position in the frame's local (scaled) space.
        local: Vec3,
    },
    /// A point fixed on rigid body `rigid` ([`crate::Scene::rigid_bodies`]), given in the
    /// body's own frame (its origin and orientation, not its centre of mass).
    Rigid {
        /// The rigid body.
        rigid: RigidId,
        /// Position in the rigid body's frame.
        local: Vec3,
    },
}

/// Two sites held together.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attachment {
    /// The first site (the schema's `src0` side).
    pub a: Site,
    /// The second site (the schema's `src1` side).
    pub b: Site,
    /// Spring stiffness (mass / s², stage units); `f32::INFINITY` is a hard constraint.
    pub stiffness: f32,
    /// Spring damping (mass / s); ignored for hard attachments.
    pub damping: f32,
}

/// A coordinate frame attachments can be fixed in: a static or animated xformable.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// A name for messages (the importer uses the prim path).
    pub name: String,
    /// Local-to-world transform at the start (column vectors, scale included). An
    /// animated frame is moved with [`crate::Solver::set_frame_target`].
    pub world_from_local: Mat4,
}

/// A body vertex held at a world-space target (an attachment to a static xformable).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pin {
    /// The body.
    pub body: BodyId,
    /// Vertex index within that body.
    pub vertex: u32,
    /// Target position, world space.
    pub target: Vec3,
    /// Spring stiffness (mass / s²); `f32::INFINITY` is a hard constraint.
    pub stiffness: f32,
    /// Spring damping (mass / s); ignored for hard pins.
    pub damping: f32,
}
