//! Every element constraint of a scene, each kind in its colour-sorted set: the one
//! place that lists the kinds, their order in an iteration and how often each runs.

use glam::DVec3;

use super::bending::Hinge;
use super::coloured::{Coloured, ColouredView};
use super::membrane::Membrane;
use super::neo_hookean::Tet;
use super::spring::SpringLink;
use super::xpbd::Step;
use crate::parallel::colouring::Shared;
use crate::parallel::team::Member;

/// The element constraints, one colour-sorted set per kind. Adding a kind is a field
/// here and a line in each method below.
#[derive(Clone, Debug)]
pub(crate) struct Elements {
    /// Neo-Hookean tetrahedra.
    pub tets: Coloured<Tet>,
    /// Triangle membranes.
    pub membranes: Coloured<Membrane>,
    /// Hinges stiff enough to need every iteration.
    pub hinges: Coloured<Hinge>,
    /// Hinges so compliant that one projection per substep converges them (see
    /// `SOFT_HINGE_RATIO` in the solver).
    pub soft_hinges: Coloured<Hinge>,
    /// Links of spring-model bodies integrated with XPBD.
    pub springs: Coloured<SpringLink>,
}

impl Elements {
    /// Zeroes every multiplier (XPBD restarts them every substep).
    pub fn reset(&mut self) {
        self.tets.reset();
        self.membranes.reset();
        self.hinges.reset();
        self.soft_hinges.reset();
        self.springs.reset();
    }

    /// Borrows every set for one round of iterations.
    pub fn view(&mut self) -> ElementsView<'_> {
        ElementsView {
            tets: self.tets.view(),
            membranes: self.membranes.view(),
            hinges: self.hinges.view(),
            soft_hinges: self.soft_hinges.view(),
            springs: self.springs.view(),
        }
    }
}

/// [`Elements`] borrowed for the iterations of one substep.
#[derive(Clone, Copy)]
pub(crate) struct ElementsView<'a> {
    tets: ColouredView<'a, Tet>,
    membranes: ColouredView<'a, Membrane>,
    hinges: ColouredView<'a, Hinge>,
    soft_hinges: ColouredView<'a, Hinge>,
    springs: ColouredView<'a, SpringLink>,
}

impl ElementsView<'_> {
    /// How many elements there are in all.
    pub fn len(&self) -> usize {
        self.tets.len() + self.membranes.len() + self.hinges.len() + self.soft_hinges.len() + self.springs.len()
    }

    /// Projects every set once, in a fixed order (Gauss–Seidel between kinds); the soft
    /// hinges only in `iteration` 0.
    ///
    /// # Safety
    /// As [`ColouredView::project`]: the whole team calls it together.
    #[inline]
    pub unsafe fn project(
        &self,
        member: &Member,
        iteration: u32,
        x: Shared<DVec3>,
        x_prev: &[DVec3],
        w: &[f32],
        step: Step,
    ) {
        // SAFETY: forwarded contract.
        unsafe {
            self.tets.project(member, x, x_prev, w, step);
            self.membranes.project(member, x, x_prev, w, step);
            self.hinges.project(member, x, x_prev, w, step);
            self.springs.project(member, x, x_prev, w, step);
            if iteration == 0 {
                self.soft_hinges.project(member, x, x_prev, w, step);
            }
        }
    }
}
