//! The constraints the XPBD solver projects, one file per kind, and the XPBD update
//! they share (`xpbd.rs`): Neo-Hookean tetrahedra, triangle membranes, dihedral
//! bending, pins, spring links and attachment links, and the colour-sorted storage
//! (`coloured.rs`) the solver keeps each element kind in.
//!
//! Adding an element kind: a file here with a type that implements [`Constraint`], one
//! field in [`elements::Elements`] (which lists the kinds and their order), and its
//! construction from the bodies in `solver/build.rs`.

use glam::Vec3;

use crate::parallel::colouring::Shared;
use xpbd::Step;

pub(crate) mod attachment;
pub(crate) mod bending;
pub(crate) mod coloured;
pub(crate) mod elements;
pub(crate) mod membrane;
pub(crate) mod neo_hookean;
pub(crate) mod pin;
pub(crate) mod spring;
pub(crate) mod xpbd;

/// One element of a constraint kind that XPBD projects (Macklin et al. 2016): what the
/// colouring needs to know (the vertices it moves) and the projection itself.
pub(crate) trait Constraint: Copy + Send + Sync {
    /// Its XPBD multipliers, one per scalar constraint the element holds.
    type Lambda: Copy + Default + Send + Sync;

    /// The global vertex indices the projection reads and writes.
    fn vertices(&self) -> &[u32];

    /// Projects the element once, updating its multipliers.
    ///
    /// # Safety
    /// No other thread may touch this element's vertices or multipliers meanwhile (the
    /// colouring guarantees it).
    unsafe fn project(&self, x: Shared<Vec3>, x_prev: &[Vec3], w: &[f32], lambda: &mut Self::Lambda, step: Step);
}
