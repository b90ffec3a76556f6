//! Stable Neo-Hookean tetrahedra as two XPBD constraints.
//!
//! Macklin & Müller 2021, "A Constraint-based Formulation of Stable Neo-Hookean
//! Materials": the energy `μ/2 (I_C − 3) + λ'/2 (det F − γ)²` with `γ = 1 + μ/λ'` is split
//! into a deviatoric constraint `C_D = ‖F‖_F` (compliance `1/(μV)`) and a hydrostatic one
//! `C_H = det F − γ` (compliance `1/(λ'V)`). Linearising this energy gives Lamé parameters
//! `(μ, λ' − μ)`, so we set `λ' = λ + μ` to reproduce linear elasticity for small strains.

use super::Constraint;
use crate::constraint::xpbd::{self, Step};
use crate::parallel::colouring::Shared;
use glam::{DVec3, Mat3, Vec3};

/// One tetrahedral element with its precomputed rest data.
#[derive(Clone, Copy, Debug)]
pub struct Tet {
    /// Global vertex indices.
    pub v: [u32; 4],
    /// Inverse of the rest edge matrix `[r1−r0, r2−r0, r3−r0]`.
    pub dm_inv: Mat3,
    /// Deviatoric compliance `1 / (μ V)`.
    pub compliance_dev: f32,
    /// Hydrostatic compliance `1 / (λ' V)`.
    pub compliance_vol: f32,
    /// Rest value of `det F` that balances the deviatoric term, `1 + μ/λ'`.
    pub gamma: f32,
    /// Rayleigh damping time constant, seconds.
    pub damping: f32,
}

/// Lamé parameters `(μ, λ)` from Young's modulus and Poisson's ratio.
pub fn lame(youngs: f32, poisson: f32) -> (f32, f32) {
    let mu = youngs / (2.0 * (1.0 + poisson));
    let lambda = youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
    (mu, lambda)
}

/// Signed volume of the tetrahedron `r`.
pub fn signed_volume(r: [Vec3; 4]) -> f32 {
    (r[1] - r[0]).dot((r[2] - r[0]).cross(r[3] - r[0])) / 6.0
}

impl Tet {
    /// Builds the element from its rest positions. Returns `None` for a degenerate rest
    /// shape. A negatively oriented rest tet is fine: `F` is relative to it, so only the
    /// magnitude of the volume enters the stiffness.
    pub fn new(v: [u32; 4], rest: [Vec3; 4], youngs: f32, poisson: f32, damping: f32) -> Option<Self> {
        let dm = Mat3::from_cols(rest[1] - rest[0], rest[2] - rest[0], rest[3] - rest[0]);
        let volume = signed_volume(rest).abs();
        if volume <= f32::MIN_POSITIVE || !volume.is_finite() {
            return None;
        }
        let (mu, lambda) = lame(youngs, poisson);
        let lambda_nh = lambda + mu;
        Some(Self {
            v,
            dm_inv: dm.inverse(),
            compliance_dev: 1.0 / (mu * volume),
            compliance_vol: 1.0 / (lambda_nh * volume),
            gamma: 1.0 + mu / lambda_nh,
            damping,
        })
    }

    /// The element's highest angular frequency at rest, `√(Σ wᵢ‖∇ᵢC_D‖² / α_D)` for
    /// vertex inverse masses `w`: how fast the deviatoric constraint's pre-stress swings
    /// a vertex. XPBD treats that pre-stress's geometric stiffness explicitly (it is not
    /// in the constraint's linearisation), so a substep much longer than `1/ω` is
    /// unstable (see [`crate::Solver`]'s stability check).
    pub fn rest_frequency(&self, w: [f32; 4]) -> f32 {
        // At rest F = I: ∇C_D = ∇(cof F)/√3 and cof I = I, so the gradients are the rows
        // of Dm⁻ᵀ (and minus their sum for vertex 0), over √3.
        let h = self.dm_inv.transpose();
        let g = [-(h.x_axis + h.y_axis + h.z_axis), h.x_axis, h.y_axis, h.z_axis];
        let sum: f32 = g.iter().zip(w).map(|(g, w)| w * g.length_squared() / 3.0).sum();
        (sum / self.compliance_dev).sqrt()
    }
}

impl Constraint for Tet {
    type Lambda = [f32; 2];
    type Packed = ();

    fn pack(_: &[Self]) {}

    fn vertices(&self) -> &[u32] {
        &self.v
    }

    /// Projects the deviatoric and hydrostatic constraints together.
    ///
    /// # Safety
    /// No other thread may touch this tet's vertices or multipliers (colouring).
    #[inline]
    unsafe fn project(&self, x: Shared<DVec3>, x_prev: &[DVec3], w: &[f32], lambda: &mut [f32; 2], step: Step) {
        // SAFETY: exclusive per the contract.
        let origin = unsafe { *x.get(self.v[0] as usize) };
        // Relative to vertex 0 in f64 first (see `Solver::x`).
        let p = self.v.map(|i| (unsafe { *x.get(i as usize) } - origin).as_vec3());
        let f = Mat3::from_cols(p[1] - p[0], p[2] - p[0], p[3] - p[0]) * self.dm_inv;
        let norm = (f.x_axis.length_squared() + f.y_axis.length_squared() + f.z_axis.length_squared()).sqrt();
        if norm < 1e-9 {
            return;
        }
        let cof = Mat3::from_cols(f.y_axis.cross(f.z_axis), f.z_axis.cross(f.x_axis), f.x_axis.cross(f.y_axis));
        let grad = |df: Mat3| {
            let h = df * self.dm_inv.transpose();
            [-(h.x_axis + h.y_axis + h.z_axis), h.x_axis, h.y_axis, h.z_axis]
        };
        let (g_dev, g_vol) = (grad(f * (1.0 / norm)), grad(cof));
        let c = [norm, f.determinant() - self.gamma];
        let compliance = [self.compliance_dev, self.compliance_vol];
        // SAFETY: forwarded contract.
        unsafe { xpbd::apply_pair(x, x_prev, w, &self.v, [&g_dev, &g_vol], c, compliance, self.damping, lambda, step) };
    }
}
