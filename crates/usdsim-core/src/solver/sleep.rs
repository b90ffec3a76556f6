//! Waking `startsAsleep` bodies (the schema: a sleeping body "stays put until something
//! touches it or it is attached to something that moves").
//!
//! A sleeping body is frozen: its inverse masses are zero (kept aside in
//! `Solver::sleeping`) and it is not predicted, so its positions stay bitwise where they
//! started. Every substep, after contact detection and before the constraint
//! iterations, [`Solver::wake_touched`] wakes a sleeping body when
//!
//! * a deformable contact pairs it with an awake body whose vertices in the contact moved
//!   this substep (a dynamic body in motion, a kinematic body following its targets, a
//!   driven vertex on a moving frame) and the pair touches at the predicted positions
//!   ([`Surfaces::woken_by`](crate::contact::deformable::Surfaces::woken_by)); a resting
//!   neighbour within the search margin but not touching wakes nothing;
//! * one of its vertices is driven by a frame that moves this frame (a target different
//!   from its start);
//! * an attachment link joins it to a moving frame, a moving point of another awake
//!   deformable body (kinematic with a target, or dynamic and in motion) or a moving
//!   rigid body.
//!
//! The woken body takes part in this very substep's iterations. The checks read only
//! this substep's predicted state and run on one thread in list order, so the result is
//! the same for any thread count; with no body asleep they cost one scan of a flag per
//! body. Waking does not cascade within a substep (a body woken now has not moved yet),
//! only over the following ones.

use super::Solver;
use crate::constraint::attachment::Side;
use crate::scene::BodyId;

impl Solver {
    /// Wakes every sleeping body touched by, or attached to, something moving this
    /// substep (see the module docs). Called right after contact detection.
    pub(super) fn wake_touched(&mut self) {
        if self.sleeping.iter().all(Option::is_none) {
            return;
        }
        for k in 0..self.deformable_contacts.len() {
            if let Some(b) = self.surfaces.woken_by(&self.deformable_contacts[k], &self.x32, &self.x_prev32) {
                self.wake(BodyId(b));
            }
        }
        for k in 0..self.driven.len() {
            let d = self.driven[k];
            let b = self.body_of(d.vertex);
            if self.is_asleep(BodyId(b)) && self.frame_moves(d.frame) {
                self.wake(BodyId(b));
            }
        }
        for k in 0..self.links.len() {
            let link = self.links[k];
            for (side, other) in [(link.a, link.b), (link.b, link.a)] {
                if let Side::Points { idx, .. } = side {
                    let b = self.body_of(idx[0] as usize);
                    if self.is_asleep(BodyId(b)) && self.side_moves(&other) {
                        self.wake(BodyId(b));
                    }
                }
            }
        }
    }

    /// The body whose vertex range holds global vertex `vertex`.
    pub(super) fn body_of(&self, vertex: usize) -> usize {
        self.bodies.partition_point(|r| r.start <= vertex).saturating_sub(1)
    }

    /// Whether attachment frame `frame` moves over the current simulation frame.
    fn frame_moves(&self, frame: usize) -> bool {
        let f = &self.attachment_frames[frame];
        f.target.is_some_and(|t| t != f.start)
    }

    /// Whether an attachment site moved this substep: a frame point on a moving frame,
    /// a body point some vertex of which moved (an asleep body's never do), a rigid
    /// body's point.
    fn side_moves(&self, side: &Side) -> bool {
        match *side {
            Side::Points { idx, weights, .. } => {
                idx.iter().zip(weights).any(|(&i, w)| w != 0.0 && self.x[i as usize] != self.x_prev[i as usize])
            }
            Side::World { frame, .. } => self.frame_moves(frame),
            Side::Rigid { rigid, local } => {
                let s = &self.rigid.states[rigid];
                s.world_point(local) != s.previous_point(local)
            }
        }
    }
}
