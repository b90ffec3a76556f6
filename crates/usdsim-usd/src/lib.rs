//! usdsim's USD side: import an OpenUSD stage that uses the OmniPhysics deformable
//! schema into a plain-data [`usdsim_core::Scene`], and export baked frames as a new
//! layer that sublayers the input.
//!
//! Data flows one way: stage → [`import`] → `Scene` → solver → [`Bake`] → output layer.
//! Everything in the `Scene` is world space, stage units; the exporter maps results
//! back to each simulation mesh's local space.

#![warn(missing_docs)]

mod attachment;
mod attribute_values;
mod body;
mod collider;
mod collision_group;
mod context;
mod dialect;
mod embedded;
mod error;
mod export;
mod import;
mod input_layers;
mod kinematic;
mod material_binding;
mod physics_scene;
mod pose;
mod rigid_body;
mod stage_info;
mod units;
mod usdsim_api;
pub mod validate;
mod xform;

pub use attachment::{FrameTrack, TrackTarget};
pub use dialect::Dialect;
pub use error::{ExportError, ImportError, Location};
pub use export::{default_output_path, Bake, Topology};
pub use import::{import, import_at, BodyPrim, EmbeddedPrim, FaceTopology, Imported};
pub use kinematic::KinematicTrack;
pub use rigid_body::{pose_of as rigid_pose_of, RigidPrim};
pub use stage_info::{StageInfo, UpAxis};
