//! Pins: body vertices held at world-space targets (attachments to static xformables).
//!
//! A hard pin (`stiffness = inf`) removes the vertex from the dynamics: its inverse mass
//! is zero and it sits exactly on its target. A soft pin is a zero-rest-length XPBD
//! spring to the target with compliance `1/k` and damping `c`, in stage units.

use super::Constraint;
use crate::constraint::xpbd::Step;
use crate::parallel::colouring::Shared;
use glam::{DVec3, Vec3};

/// A soft pin in solver form.
#[derive(Clone, Copy, Debug)]
pub struct SoftPin {
    /// Global vertex index.
    pub vertex: u32,
    /// Target position, world space.
    pub target: Vec3,
    /// Compliance `1 / stiffness`.
    pub compliance: f32,
    /// Damping as a Rayleigh time constant `c / k`, seconds.
    pub damping: f32,
}

impl Constraint for SoftPin {
    type Lambda = f32;
    type Packed = ();

    fn pack(_: &[Self]) {}

    fn vertices(&self) -> &[u32] {
        std::slice::from_ref(&self.vertex)
    }

    /// Projects the spring; pins are few, so they run on one thread after the elements.
    ///
    /// # Safety
    /// No other thread may touch this pin's vertex or multiplier.
    unsafe fn project(&self, x: Shared<DVec3>, x_prev: &[DVec3], w: &[f32], lambda: &mut f32, step: Step) {
        let i = self.vertex as usize;
        let wi = w[i];
        if wi == 0.0 {
            return;
        }
        // SAFETY: exclusive per the contract.
        let xi = unsafe { x.get(i) };
        let d = (*xi - self.target.as_dvec3()).as_vec3();
        let c = d.length();
        if c < 1e-12 {
            return;
        }
        let n = d / c;
        let alpha = self.compliance * step.inv_dt2;
        let gamma = self.damping / step.dt;
        let rate = n.dot((*xi - x_prev[i]).as_vec3());
        let d_lambda = (-c - alpha * *lambda - gamma * rate) / ((1.0 + gamma) * wi + alpha);
        *lambda += d_lambda;
        *xi += (n * (wi * d_lambda)).as_dvec3();
    }
}
