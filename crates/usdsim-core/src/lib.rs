//! usdsim's solver: a plain-data [`Scene`] of deformable bodies and static colliders,
//! advanced in time with XPBD (Macklin et al. 2016, "XPBD: Position-Based Simulation of
//! Compliant Constrained Dynamics") using small substeps (Macklin et al. 2019, "Small Steps
//! in Physics Simulation").
//!
//! The crate knows nothing of USD and does no I/O: the `usdsim-usd` crate builds a
//! [`Scene`], the CLI drives a [`Solver`] frame by frame and hands the states back.
//!
//! Layout: one file per constraint kind (`neo_hookean.rs`, `membrane.rs`, `bending.rs`,
//! `pin.rs`, `attachment.rs`), rigid bodies (rapier3d) in `rigid.rs`, contacts with static colliders in `contact.rs`, between deformables in
//! `deformable_contact.rs` (found through `spatial_hash.rs`, filtered by
//! `collision_filter.rs`), per-vertex masses in
//! `mass.rs`, the graph colouring that makes parallel projection deterministic in
//! `colouring.rs`, and the time-stepping loop in `solver.rs`.

pub mod attachment;
mod bending;
pub mod collision_filter;
mod colouring;
mod contact;
pub mod deformable_contact;
pub mod embedding;
mod error;
pub mod grid;
pub mod integrator;
mod mass;
mod membrane;
mod neo_hookean;
mod pin;
pub mod plasticity;
pub mod rigid;
mod rigid_contact;
mod scene;
mod solver;
mod spatial_hash;
pub mod spring_mass;
mod team;
pub mod tearing;
mod xpbd;

pub use attachment::{Attachment, Frame, Site};
pub use collision_filter::{CollisionFilter, CollisionObject, ElementFilter, ElementSet};
pub use deformable_contact::surface_triangles;
pub use embedding::{closest_on_triangle, polygon_vertex_normals, Embedding};
pub use error::SceneError;
pub use integrator::Integrator;
pub use plasticity::Plasticity;
pub use rigid::{RigidBody, RigidShape};
pub use scene::{
    BendDefault, Body, BodyKind, Collider, ColliderShape, EmbeddedMesh, Material, Model, Pin, Scene, Springs,
    BODY_MATERIAL,
};
pub use solver::{RestShape, Settings, Solver, SolverStats, MAX_SUBSTEPS, STABLE_OMEGA_DT};
pub use spring_mass::LinkKinds;
