//! Contacts: body vertices against static colliders (`collider.rs`), against rigid
//! bodies, both ways (`rigid.rs`), and between deformables and within one
//! (`deformable.rs`), all asking the filter table (`filter_table.rs`) which pairs may
//! touch.

pub(crate) mod collider;
pub(crate) mod deformable;
pub(crate) mod filter_table;
pub(crate) mod rigid;
