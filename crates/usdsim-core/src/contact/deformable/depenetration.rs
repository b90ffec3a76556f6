//! Existing overlap: pairs that started their substep closer than their thickness are
//! moved apart after the velocity update, by at most `max_depenetration_velocity · dt`,
//! positions only (the iterations only held them at their start distance).

use super::contact::Contact;
use super::surfaces::Surfaces;
use crate::parallel::colouring::Shared;
use glam::DVec3;

impl Surfaces {
    /// Moves every pair of `contacts` that started its substep overlapping (`overlap >
    /// 0`) apart by at most `max_step` towards its full thickness, in list order: the
    /// position-only resolution of an existing overlap, run after the velocity update so
    /// that it adds no velocity (see `Settings::max_depenetration_velocity`).
    pub fn depenetrate(&self, contacts: &[Contact], x: &mut [DVec3], w: &[f32], max_step: f32) {
        let x = Shared::new(x);
        for c in contacts.iter().filter(|c| c.overlap > 0.0) {
            let full = Contact { distance: c.distance + c.overlap, ..*c };
            // SAFETY: `x` is borrowed mutably for this loop, which runs on one thread.
            unsafe { self.correct(&full, x, w, max_step) };
        }
    }
}
