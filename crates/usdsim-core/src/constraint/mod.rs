//! The constraints the XPBD solver projects, one file per kind, and the XPBD update
//! they share (`xpbd.rs`): Neo-Hookean tetrahedra, triangle membranes, dihedral
//! bending, pins, and attachment links.

pub(crate) mod attachment;
pub(crate) mod bending;
pub(crate) mod membrane;
pub(crate) mod neo_hookean;
pub(crate) mod pin;
pub(crate) mod xpbd;
