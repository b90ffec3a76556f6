//! The XPBD position update shared by every constraint kind.
//!
//! Macklin, Müller, Chentanez 2016, "XPBD: Position-Based Simulation of Compliant
//! Constrained Dynamics", eq. 18 for the multiplier update and eq. 26 for damping.

use crate::parallel::colouring::Shared;
use glam::{DVec3, Vec3};

/// Per-substep constants of a projection pass.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// Substep length in seconds.
    pub dt: f32,
    /// `1 / dt²`, to turn compliance `α` into `α̃ = α / dt²`.
    pub inv_dt2: f32,
}

impl Step {
    /// Constants for a substep of `dt` seconds.
    pub fn new(dt: f32) -> Self {
        Self { dt, inv_dt2: 1.0 / (dt * dt) }
    }
}

/// Applies one XPBD update to a constraint with value `c` and gradients `grad[k]` with
/// respect to vertices `idx[k]`.
///
/// `compliance` is the inverse stiffness `α`; `damping` is the Rayleigh time constant τ
/// (seconds), which in eq. 26 becomes `γ = α̃·β̃/h = τ / dt` independent of stiffness.
/// `lambda` is the constraint's accumulated multiplier for this substep.
///
/// # Safety
/// No other thread may touch the vertices in `idx` or this `lambda` (colouring).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn apply<const N: usize>(
    x: Shared<DVec3>,
    x_prev: &[DVec3],
    w: &[f32],
    idx: &[u32; N],
    grad: &[Vec3; N],
    c: f32,
    compliance: f32,
    damping: f32,
    lambda: &mut f32,
    step: Step,
) {
    let mut denom = 0.0;
    let mut rate = 0.0;
    for k in 0..N {
        let i = idx[k] as usize;
        denom += w[i] * grad[k].length_squared();
        if damping > 0.0 {
            // SAFETY: exclusive per the caller's contract.
            rate += grad[k].dot((unsafe { *x.get(i) } - x_prev[i]).as_vec3());
        }
    }
    let alpha = compliance * step.inv_dt2;
    let gamma = damping / step.dt;
    let denom = (1.0 + gamma) * denom + alpha;
    if denom <= f32::EPSILON {
        return;
    }
    let d_lambda = (-c - alpha * *lambda - gamma * rate) / denom;
    if !d_lambda.is_finite() {
        return;
    }
    *lambda += d_lambda;
    for k in 0..N {
        let i = idx[k] as usize;
        // SAFETY: exclusive per the caller's contract.
        unsafe { *x.get(i) += (grad[k] * (w[i] * d_lambda)).as_dvec3() };
    }
}

/// Applies one coupled XPBD update to two constraints on the same vertices, solving the
/// 2×2 system for both multipliers at once.
///
/// The stable Neo-Hookean split needs this: at rest its deviatoric and hydrostatic
/// constraints are both non-zero with parallel gradients and balance each other, so
/// projecting them one after the other ping-pongs (each alone would collapse or inflate
/// the element), while the coupled solve finds the balancing multipliers directly
/// (Macklin & Müller 2021, §5, "coupled solve").
///
/// # Safety
/// No other thread may touch the vertices in `idx` or these multipliers (colouring).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn apply_pair<const N: usize>(
    x: Shared<DVec3>,
    x_prev: &[DVec3],
    w: &[f32],
    idx: &[u32; N],
    grad: [&[Vec3; N]; 2],
    c: [f32; 2],
    compliance: [f32; 2],
    damping: f32,
    lambda: &mut [f32; 2],
    step: Step,
) {
    let (mut a00, mut a01, mut a11) = (0.0f64, 0.0f64, 0.0f64);
    let (mut r0, mut r1) = (0.0f64, 0.0f64);
    for k in 0..N {
        let i = idx[k] as usize;
        let wi = w[i] as f64;
        let (g0, g1) = (grad[0][k], grad[1][k]);
        a00 += wi * g0.length_squared() as f64;
        a01 += wi * g0.dot(g1) as f64;
        a11 += wi * g1.length_squared() as f64;
        if damping > 0.0 {
            // SAFETY: exclusive per the caller's contract.
            let dx = (unsafe { *x.get(i) } - x_prev[i]).as_vec3();
            r0 += g0.dot(dx) as f64;
            r1 += g1.dot(dx) as f64;
        }
    }
    let gamma = (damping / step.dt) as f64;
    let alpha0 = (compliance[0] * step.inv_dt2) as f64;
    let alpha1 = (compliance[1] * step.inv_dt2) as f64;
    let m00 = (1.0 + gamma) * a00 + alpha0;
    let m01 = (1.0 + gamma) * a01;
    let m11 = (1.0 + gamma) * a11 + alpha1;
    let b0 = -(c[0] as f64) - alpha0 * lambda[0] as f64 - gamma * r0;
    let b1 = -(c[1] as f64) - alpha1 * lambda[1] as f64 - gamma * r1;
    let det = m00 * m11 - m01 * m01;
    if det.abs() <= 1e-30 * (m00 * m11).abs().max(1e-300) {
        return;
    }
    let d0 = ((b0 * m11 - b1 * m01) / det) as f32;
    let d1 = ((m00 * b1 - m01 * b0) / det) as f32;
    if !(d0.is_finite() && d1.is_finite()) {
        return;
    }
    lambda[0] += d0;
    lambda[1] += d1;
    for k in 0..N {
        let i = idx[k] as usize;
        // SAFETY: exclusive per the caller's contract.
        unsafe { *x.get(i) += ((grad[0][k] * d0 + grad[1][k] * d1) * w[i]).as_dvec3() };
    }
}
