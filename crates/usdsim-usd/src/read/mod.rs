//! One reader per schema concept, each turning the prims of the
//! [`crate::stage::prim_index::PrimIndex`] that carry it into plain
//! [`usdsim_core::Scene`] data (world space, stage units). [`crate::import`] calls them
//! in order; the validator reuses some of their lookups (material binding).

pub(crate) mod attachment;
pub(crate) mod body;
pub(crate) mod collider;
pub(crate) mod collision_group;
pub(crate) mod embedded;
pub(crate) mod joint;
pub(crate) mod kinematic;
pub(crate) mod legacy_attachment;
pub(crate) mod legacy_body;
pub(crate) mod material_binding;
pub(crate) mod physics_scene;
pub(crate) mod pose;
pub(crate) mod rigid_body;
pub(crate) mod unsupported;
pub(crate) mod usdsim_api;
