//! usdsim's solver: a plain-data [`Scene`] of deformable bodies and static colliders,
//! advanced in time with XPBD (Macklin et al. 2016, "XPBD: Position-Based Simulation of
//! Compliant Constrained Dynamics") using small substeps (Macklin et al. 2019, "Small Steps
//! in Physics Simulation").
//!
//! The crate knows nothing of USD and does no I/O: the `usdsim-usd` crate builds a
//! [`Scene`], the CLI drives a [`Solver`] frame by frame and hands the states back.
//!
//! Layout, lowest layer first (each imports only those above it in this list):
//! - `scene/`: the plain input data ([`Scene`], [`Body`], [`Material`], colliders,
//!   attachments, rigid bodies, collision filters);
//! - `mesh/`: geometry on meshes (embedding, spatial hash, splitting, [`grid`]s);
//! - `parallel/`: the graph colouring and thread team that make parallel projection
//!   deterministic;
//! - `constraint/`: one file per constraint kind and the XPBD update they share;
//! - `contact/`: static colliders, rigid bodies and deformables, and the filter table;
//! - `model/`: masses, plasticity, the spring-mass-damper model;
//! - `rigid.rs`: the rapier3d world;
//! - `solver/`: the [`Solver`] that builds all of it from a [`Scene`] and steps it.

#![warn(missing_docs)]

mod constraint;
mod contact;
mod error;
mod mesh;
mod model;
mod parallel;
mod rigid;
mod scene;
mod solver;

pub use contact::collider::signed_distances;
pub use error::SceneError;
pub use mesh::embedding::{closest_on_triangle, polygon_vertex_normals, Embedding};
pub use mesh::grid;
pub use mesh::surface::surface_triangles;
pub use mesh::voxel_tets::{tet_quality, tet_volume, triangle_quality, voxel_tets, VoxelError, VoxelSize, VoxelTets};
pub use mesh::winding::WindingTree;
pub use model::integrator::Integrator;
pub use model::time_scheme::TimeScheme;
pub use scene::{
    Attachment, BendDefault, Body, BodyId, BodyKind, Collider, ColliderId, ColliderShape, CollisionFilter,
    CollisionObject, DofLimit, Drive, ElementFilter, ElementSet, EmbeddedMesh, Frame, FrameId, Joint, JointAxis,
    JointDof, JointKind, LinkKinds, Material, MaterialSlot, Model, Pin, Plasticity, RigidBody, RigidId, RigidShape,
    Scene, Site, Springs, BODY_MATERIAL,
};
pub use solver::{
    BodyState, PlasticTetState, RestShape, ResumeState, Settings, Solver, SolverStats,
    DEFAULT_MAX_DEPENETRATION_VELOCITY, MAX_SUBSTEPS, SPRING_STEP_FRACTION, STABLE_OMEGA_DT,
};
