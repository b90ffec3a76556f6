//! The composed input stage, opened once ([`input_stage::InputStage`]), and what every
//! pass reads from it the same way: the per-pass context ([`context::Ctx`]), the one prim index built by a single traversal
//! ([`prim_index::PrimIndex`]), typed attribute values, transforms, units, stage
//! metadata and the files the stage is made of; and a bake's layers opened alone with
//! the fingerprint they record ([`bake_layer`]).
//!
//! Nothing here knows the deformable schema: that is [`crate::schema`] and
//! [`crate::read`].

pub(crate) mod attribute_override;
pub(crate) mod attribute_values;
pub(crate) mod bake_layer;
pub(crate) mod context;
pub(crate) mod input_layers;
pub(crate) mod input_stage;
pub(crate) mod prim_index;
pub(crate) mod stage_info;
pub(crate) mod units;
pub(crate) mod xform;
