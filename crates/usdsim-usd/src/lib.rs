//! usdsim's USD side: import an OpenUSD stage that uses the OmniPhysics deformable
//! schema into a plain-data [`usdsim_core::Scene`], and export baked frames as a new
//! layer that sublayers the input.
//!
//! Data flows one way: stage → [`import`] → `Scene` → solver → [`Bake`] → output layer.
//! A run opens the stage once ([`InputStage::open`]), validates it and imports it from
//! the same handle; [`import`] and [`validate::validate`] open their own for callers
//! that need only one.
//! Everything in the `Scene` is world space, stage units; the exporter maps results
//! back to each simulation mesh's local space.

#![warn(missing_docs)]

mod baker;
mod binding;
mod diagnostic;
mod error;
mod export;
mod import;
pub mod prepare;
mod preview_frames;
mod read;
mod resume;
mod schema;
mod stage;
pub mod validate;
mod wedge_index;

pub use baker::{BakeError, Baker, Finished, DEFAULT_CHUNK_BYTES, MAX_DEFAULT_CHUNK};
pub use binding::{Binding, BodyPrim};
pub use error::{ExportError, ImportError, Location};
pub use export::{clip_file, clip_folder, default_output_path, manifest_file, Bake, NonFinite, Topology};
pub use import::{import, import_at, Imported};
pub use preview_frames::{evenly_spaced, preview_frames, PreviewFrames, PreviewSurface, MAX_PREVIEW_FRAMES};
pub use read::attachment::{FrameTrack, TrackTarget};
pub use read::embedded::{EmbeddedPrim, FaceTopology};
pub use read::joint::DriveTrack;
pub use read::kinematic::KinematicTrack;
pub use read::rigid_body::{pose_of as rigid_pose_of, OpPrecision, Precision, RigidPrim};
pub use resume::ResumeError;
pub use schema::dialect::Dialect;
pub use schema::physx_legacy::LegacyKind;
pub use stage::attribute_override::{AttributeOverride, OverrideError};
pub use stage::input_stage::{InputStage, OpenError};
pub use stage::stage_info::{StageInfo, UpAxis};
pub use wedge_index::{write_wedge_index, IndexedWedge, WEDGE_VARIANT_SET};
