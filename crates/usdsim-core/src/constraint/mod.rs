//! The constraints the XPBD solver projects, one file per kind, and the XPBD update
//! they share (`xpbd.rs`): Neo-Hookean tetrahedra, triangle membranes, dihedral
//! bending, pins, spring links and attachment links, and the colour-sorted storage
//! (`coloured.rs`) the solver keeps each element kind in.
//!
//! Adding an element kind: a file here with a type that implements [`Constraint`], one
//! field in [`elements::Elements`] (which lists the kinds and their order), and its
//! construction from the bodies in `solver/build.rs`.

use glam::{DVec3, Vec3};
use std::ops::Range;

use crate::parallel::colouring::Shared;
use xpbd::Step;

pub(crate) mod attachment;
pub(crate) mod bending;
pub(crate) mod coloured;
pub(crate) mod elements;
pub(crate) mod lanes;
pub(crate) mod membrane;
pub(crate) mod neo_hookean;
pub(crate) mod pin;
pub(crate) mod spring;
pub(crate) mod xpbd;

/// Positions relative to the first, differenced in f64 and then rounded to f32: what an
/// element's or a contact's translation-invariant geometry reads, so that it keeps f32's
/// relative precision at any distance from the origin (see `Solver::x`).
pub(crate) fn relative<const N: usize>(p: [DVec3; N]) -> [Vec3; N] {
    p.map(|q| (q - p[0]).as_vec3())
}

/// One element of a constraint kind that XPBD projects (Macklin et al. 2016): what the
/// colouring needs to know (the vertices it moves) and the projection itself.
pub(crate) trait Constraint: Copy + Send + Sync {
    /// Its XPBD multipliers, one per scalar constraint the element holds.
    type Lambda: Copy + Default + Send + Sync;

    /// The elements' data as the projection reads it: structure of arrays for the kinds
    /// projected in SIMD lanes ([`lanes::packed`]), `()` for those that read their items.
    type Packed: Clone + Default + Send + Sync + std::fmt::Debug;

    /// Builds [`Constraint::Packed`] from the colour-sorted items.
    fn pack(items: &[Self]) -> Self::Packed;

    /// Brings `packed` up to date after `items[slot]` alone changed (all of it unless a
    /// kind can do better).
    fn repack(packed: &mut Self::Packed, items: &[Self], _slot: usize) {
        *packed = Self::pack(items);
    }

    /// The global vertex indices the projection reads and writes.
    fn vertices(&self) -> &[u32];

    /// Projects the element once, updating its multipliers.
    ///
    /// # Safety
    /// No other thread may touch this element's vertices or multipliers meanwhile (the
    /// colouring guarantees it).
    unsafe fn project(&self, x: Shared<DVec3>, x_prev: &[DVec3], w: &[f32], lambda: &mut Self::Lambda, step: Step);

    /// Projects `items[range]`, elements of one colour (no two share a vertex), with
    /// their multipliers `lambda[range]`. One by one unless a kind projects several at
    /// once in SIMD lanes (membranes and hinges, `constraint/lanes`), reading `packed`.
    ///
    /// # Safety
    /// No other thread may touch these elements' vertices or multipliers meanwhile, and
    /// no two of them may share a vertex.
    // The projection's inputs, each used once; a struct for them would serve one call.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    unsafe fn project_colour_share(
        items: &[Self],
        _packed: &Self::Packed,
        lambda: Shared<Self::Lambda>,
        range: Range<usize>,
        x: Shared<DVec3>,
        x_prev: &[DVec3],
        w: &[f32],
        step: Step,
    ) {
        for i in range {
            // SAFETY: forwarded contract.
            unsafe { items[i].project(x, x_prev, w, lambda.get(i), step) };
        }
    }
}
