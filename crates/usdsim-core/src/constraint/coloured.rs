//! Colour-sorted storage of one constraint kind: the elements sorted so that each colour
//! is a contiguous range of elements with pairwise disjoint vertices, their XPBD
//! multipliers, and the maps between input order and storage order.

use glam::DVec3;

use super::xpbd::Step;
use super::Constraint;
use crate::parallel::colouring::{self, Colouring, Shared};
use crate::parallel::team::Member;

/// The elements of one constraint kind in colour order, with their multipliers.
#[derive(Clone, Debug)]
pub(crate) struct Coloured<C: Constraint> {
    /// The elements, sorted by colour (read through [`Coloured::items`], changed
    /// through [`Coloured::items_mut`], which keeps `packed` in step).
    items: Vec<C>,
    /// `items` as the projection reads them ([`Constraint::pack`]).
    packed: C::Packed,
    /// Whether `items` changed since `packed` was built.
    stale: bool,
    /// Index of each sorted item in the input order.
    pub order: Vec<usize>,
    /// Position in `items` of each input item (the inverse of `order`).
    pub slot: Vec<u32>,
    /// The colour ranges of `items`.
    pub colours: Colouring,
    /// One multiplier set per item, in `items` order.
    pub lambda: Vec<C::Lambda>,
}

impl<C: Constraint> Coloured<C> {
    /// Colours `items` by the vertices each moves and sorts them by colour (stable:
    /// input order within a colour, so the storage is the same on every run).
    pub fn new(items: Vec<C>, vertex_count: usize) -> Self {
        let keys: Vec<&[u32]> = items.iter().map(Constraint::vertices).collect();
        let (order, colours) = colouring::colour(&keys, vertex_count);
        let items: Vec<C> = order.iter().map(|&i| items[i]).collect();
        let mut slot = vec![0u32; items.len()];
        for (k, &i) in order.iter().enumerate() {
            slot[i] = k as u32;
        }
        Self {
            lambda: vec![C::Lambda::default(); items.len()],
            packed: C::pack(&items),
            stale: false,
            items,
            order,
            slot,
            colours,
        }
    }

    /// The elements in colour order.
    pub fn items(&self) -> &[C] {
        &self.items
    }

    /// Changes the element in storage slot `slot` and repacks it alone: for changes
    /// every substep (plastic flow), where [`Coloured::items_mut`]'s repacking of every
    /// element would cost a sweep.
    pub fn edit<R>(&mut self, slot: usize, change: impl FnOnce(&mut C) -> R) -> R {
        let out = change(&mut self.items[slot]);
        if !self.stale {
            C::repack(&mut self.packed, &self.items, slot);
        }
        out
    }

    /// The elements in colour order, to change (tearing, a resumed state); the next
    /// [`Coloured::view`] repacks them all.
    pub fn items_mut(&mut self) -> &mut [C] {
        self.stale = true;
        &mut self.items
    }

    /// Zeroes the multipliers (XPBD restarts them every substep).
    pub fn reset(&mut self) {
        self.lambda.fill(C::Lambda::default());
    }

    /// Borrows what a projection pass needs, the multipliers as a shared view, so that
    /// the members of a team can project it together.
    pub fn view(&mut self) -> ColouredView<'_, C> {
        if self.stale {
            self.packed = C::pack(&self.items);
            self.stale = false;
        }
        ColouredView {
            items: &self.items,
            packed: &self.packed,
            colours: &self.colours,
            lambda: Shared::new(&mut self.lambda),
        }
    }
}

/// A [`Coloured`] set borrowed for one projection pass.
pub(crate) struct ColouredView<'a, C: Constraint> {
    items: &'a [C],
    packed: &'a C::Packed,
    colours: &'a Colouring,
    lambda: Shared<C::Lambda>,
}

// By hand: a derive would ask `C::Packed: Copy` of the packed data it only borrows.
impl<C: Constraint> Clone for ColouredView<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C: Constraint> Copy for ColouredView<'_, C> {}

impl<C: Constraint> ColouredView<'_, C> {
    /// How many elements the pass projects.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Projects this member's share of every colour, colour after colour.
    ///
    /// # Safety
    /// Every member of the team calls it together (the colours are separated by the
    /// team's barriers), and nothing else touches these elements' vertices meanwhile.
    #[inline]
    pub unsafe fn project(&self, member: &Member, x: Shared<DVec3>, x_prev: &[DVec3], w: &[f32], step: Step) {
        // SAFETY: within one colour elements share no vertex, each element index owns its
        // multiplier slot, members take disjoint shares, and the team syncs between colours.
        self.colours.for_each_share(member, |share| unsafe {
            C::project_colour_share(self.items, self.packed, self.lambda, share, x, x_prev, w, step)
        });
    }
}
