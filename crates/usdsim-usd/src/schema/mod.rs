//! The schema's names and rules in one place, read by the importer, the exporter and
//! the validator, so that the spellings of the two dialects cannot drift apart.

pub(crate) mod attachment;
pub(crate) mod declared_types;
pub(crate) mod dialect;
pub(crate) mod joint;
pub(crate) mod material;
pub(crate) mod names;
pub(crate) mod physx_legacy;
pub(crate) mod unsupported;
pub(crate) mod usdsim;
