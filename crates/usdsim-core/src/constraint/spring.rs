//! Spring-model links as XPBD distance constraints (`usdsim:model = "springs"` with the
//! XPBD integrator): `C = |x₁ − x₀| − rest`, compliance `1/ks`, damping time `kd/ks`.

use super::Constraint;
use glam::DVec3;

use super::xpbd::{self, Step};
use crate::parallel::colouring::Shared;
use crate::scene::Plasticity;

/// A link as an XPBD distance constraint.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpringLink {
    /// Global vertex indices.
    pub(crate) v: [u32; 2],
    /// Rest length.
    pub(crate) rest: f32,
    /// `1 / ks`.
    pub(crate) compliance: f32,
    /// `kd / ks`, seconds.
    pub(crate) damping: f32,
    /// Breaks beyond this times its rest length (`INFINITY`: never).
    pub(crate) tear_ratio: f32,
    /// Plastic flow of the rest length (the article's rule), if its material has it.
    pub(crate) plastic: Option<Plasticity>,
    /// Rest length before any flow (for the cap).
    pub(crate) original_rest: f32,
}

impl Constraint for SpringLink {
    type Lambda = f32;
    type Packed = ();

    fn pack(_: &[Self]) {}

    fn vertices(&self) -> &[u32] {
        &self.v
    }

    /// Projects `C = |x₁ − x₀| − rest`.
    ///
    /// # Safety
    /// No other thread may touch this link's vertices or multiplier (colouring).
    #[inline]
    unsafe fn project(&self, x: Shared<DVec3>, x_prev: &[DVec3], w: &[f32], lambda: &mut f32, step: Step) {
        if self.compliance == f32::INFINITY {
            return; // torn
        }
        // SAFETY: exclusive per the contract.
        let (a, b) = unsafe { (*x.get(self.v[0] as usize), *x.get(self.v[1] as usize)) };
        let d = (b - a).as_vec3();
        let len = d.length();
        if len < 1e-12 {
            return;
        }
        let n = d / len;
        // SAFETY: forwarded contract.
        unsafe {
            xpbd::apply(x, x_prev, w, &self.v, &[-n, n], len - self.rest, self.compliance, self.damping, lambda, step)
        };
    }
}
