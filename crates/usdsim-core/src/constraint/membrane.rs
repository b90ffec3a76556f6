//! Triangle membrane (stretch and shear): a co-rotational linear membrane as two XPBD
//! constraints.
//!
//! A triangle's deformation gradient `F` is 3×2: current edges times the inverse of the
//! rest edges expressed in the rest triangle's own plane. With `R` the closest rotation
//! (polar decomposition `F = R·S`), the deviatoric constraint `C_D = ‖F − R‖_F` carries
//! the shear modulus and `C_H = det S − 1` (area ratio minus one) the areal one; the
//! energy `A·(μ₂‖F − R‖² + λ₂/2·(J − 1)²)` is exactly the linear plane-stress membrane
//! for small strains (Müller et al. 2016-style co-rotational FEM in XPBD form). With
//! `μ₂ = shear` and `λ₂ = stretch − 2·shear`, a uniaxial stretch sees the authored
//! stretch stiffness `E·h/(1−ν²)`.
//!
//! Why not the stable Neo-Hookean pair used for tetrahedra: its constraints are non-zero
//! at rest and balance each other through large multipliers. For the thin, light
//! elements of cloth those pre-stressed multipliers make Gauss-Seidel iterations within
//! a substep diverge (measured: a 64² cloth at 10 substeps × 10 iterations explodes in
//! free fall). Both constraints here vanish at rest, which keeps any iteration count
//! stable.

use super::Constraint;
use crate::constraint::xpbd::{self, Step};
use crate::parallel::colouring::Shared;
use glam::{Mat2, Vec2, Vec3};

/// One membrane triangle with precomputed rest data.
#[derive(Clone, Copy, Debug)]
pub struct Membrane {
    /// Global vertex indices.
    pub v: [u32; 3],
    /// Inverse of the 2×2 rest edge matrix in the rest triangle's plane.
    pub dm_inv: Mat2,
    /// Deviatoric compliance `1 / (2 μ₂ A)`.
    pub compliance_dev: f32,
    /// Area compliance `1 / (λ₂ A)`; zero `λ₂` (ν = 0) means no area term.
    pub compliance_area: Option<f32>,
    /// Rayleigh damping time constant, seconds.
    pub damping: f32,
}

/// The rest triangle `r` in its own plane: (edge matrix, area).
pub fn rest_frame(r: [Vec3; 3]) -> (Mat2, f32) {
    let e1 = r[1] - r[0];
    let e2 = r[2] - r[0];
    let n = e1.cross(e2);
    let area = 0.5 * n.length();
    let len1 = e1.length();
    if len1 <= f32::MIN_POSITIVE || area <= f32::MIN_POSITIVE {
        return (Mat2::ZERO, 0.0);
    }
    let u = e1 / len1;
    let v = n.normalize().cross(u);
    (Mat2::from_cols(Vec2::new(len1, 0.0), Vec2::new(e2.dot(u), e2.dot(v))), area)
}

impl Membrane {
    /// Builds the element from its rest positions and membrane stiffnesses (force per
    /// length). Returns `None` for a degenerate rest triangle.
    pub fn new(v: [u32; 3], rest: [Vec3; 3], stretch: f32, shear: f32, damping: f32) -> Option<Self> {
        let (dm, area) = rest_frame(rest);
        if area <= f32::MIN_POSITIVE || !area.is_finite() {
            return None;
        }
        let mu = shear.max(f32::MIN_POSITIVE);
        let lambda = stretch - 2.0 * shear;
        Some(Self {
            v,
            dm_inv: dm.inverse(),
            compliance_dev: 1.0 / (2.0 * mu * area),
            compliance_area: (lambda > 0.0).then(|| 1.0 / (lambda * area)),
            damping,
        })
    }

    /// Constraint values `[C_D, C_H]` and their gradients at positions `p`, or `None`
    /// for a collapsed triangle.
    pub fn evaluate(&self, p: [Vec3; 3]) -> Option<([f32; 2], [[Vec3; 3]; 2])> {
        let a = self.dm_inv;
        let (d1, d2) = (p[1] - p[0], p[2] - p[0]);
        // F = [d1 d2] · A, column k = d1·A[0][k] + d2·A[1][k] (A[row][col]).
        let f0 = d1 * a.x_axis.x + d2 * a.x_axis.y;
        let f1 = d1 * a.y_axis.x + d2 * a.y_axis.y;
        // Polar decomposition through the 2×2 stretch: S = √(FᵀF), R = F·S⁻¹.
        let (c00, c01, c11) = (f0.length_squared(), f0.dot(f1), f1.length_squared());
        let det_c = (c00 * c11 - c01 * c01).max(0.0);
        let j = det_c.sqrt();
        let t = (c00 + c11 + 2.0 * j).sqrt();
        if j < 1e-12 || t < 1e-9 {
            return None;
        }
        // S = (C + J·I)/t, S⁻¹ = adj(S)/det S with det S = J.
        let (s00, s01, s11) = ((c00 + j) / t, c01 / t, (c11 + j) / t);
        let (i00, i01, i11) = (s11 / j, -s01 / j, s00 / j);
        let r0 = f0 * i00 + f1 * i01;
        let r1 = f0 * i01 + f1 * i11;
        let (e0, e1) = (f0 - r0, f1 - r1);
        let dev = (e0.length_squared() + e1.length_squared()).sqrt();
        let n = f0.cross(f1) / j;
        // ∂C/∂d_j = Σ_k p_k A[j][k] for ∂C/∂F = [p0 p1].
        let grad = |p0: Vec3, p1: Vec3| {
            let g1 = p0 * a.x_axis.x + p1 * a.y_axis.x;
            let g2 = p0 * a.x_axis.y + p1 * a.y_axis.y;
            [-(g1 + g2), g1, g2]
        };
        // At rest the deviatoric gradient direction is undefined; it has no effect there.
        let g_dev = if dev > 1e-9 { grad(e0 / dev, e1 / dev) } else { [Vec3::ZERO; 3] };
        Some(([dev, j - 1.0], [g_dev, grad(f1.cross(n), n.cross(f0))]))
    }
}

impl Constraint for Membrane {
    type Lambda = [f32; 2];

    fn vertices(&self) -> &[u32] {
        &self.v
    }

    /// Projects the deviatoric and area constraints together.
    ///
    /// # Safety
    /// No other thread may touch this triangle's vertices or multipliers (colouring).
    #[inline]
    unsafe fn project(&self, x: Shared<Vec3>, x_prev: &[Vec3], w: &[f32], lambda: &mut [f32; 2], step: Step) {
        // SAFETY: exclusive per the contract.
        let p = self.v.map(|i| unsafe { *x.get(i as usize) });
        let Some((c, [g_dev, g_area])) = self.evaluate(p) else {
            return;
        };
        // SAFETY (both arms): forwarded contract.
        match self.compliance_area {
            Some(area) => unsafe {
                let compliance = [self.compliance_dev, area];
                xpbd::apply_pair(x, x_prev, w, &self.v, [&g_dev, &g_area], c, compliance, self.damping, lambda, step)
            },
            None => unsafe {
                xpbd::apply(
                    x,
                    x_prev,
                    w,
                    &self.v,
                    &g_dev,
                    c[0],
                    self.compliance_dev,
                    self.damping,
                    &mut lambda[0],
                    step,
                )
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element() -> (Membrane, [Vec3; 3]) {
        let rest = [Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.3, 0.8, 0.0)];
        (Membrane::new([0, 1, 2], rest, 10.0, 3.0, 0.0).unwrap(), rest)
    }

    #[test]
    fn gradients_match_finite_differences() {
        let (m, _) = element();
        let p = [Vec3::new(0.1, 0.0, 0.2), Vec3::new(1.2, 0.1, -0.1), Vec3::new(0.2, 0.9, 0.3)];
        let (_, grad) = m.evaluate(p).unwrap();
        let h = 1e-3;
        for (c, grad_c) in grad.iter().enumerate() {
            for v in 0..3 {
                for axis in 0..3 {
                    let mut q = p;
                    q[v][axis] += h;
                    let plus = m.evaluate(q).unwrap().0[c];
                    q[v][axis] -= 2.0 * h;
                    let minus = m.evaluate(q).unwrap().0[c];
                    let numeric = (plus - minus) / (2.0 * h);
                    let analytic = grad_c[v][axis];
                    assert!((numeric - analytic).abs() < 1e-2, "C{c} v{v} axis {axis}: {analytic} vs {numeric}");
                }
            }
        }
    }

    #[test]
    fn rest_and_rigid_motions_are_unstressed() {
        let (m, rest) = element();
        let rot = glam::Quat::from_euler(glam::EulerRot::XYZ, 0.4, -1.1, 2.0);
        for p in [rest, rest.map(|r| rot * r + Vec3::new(3.0, -2.0, 1.0))] {
            let (c, _) = m.evaluate(p).unwrap();
            assert!(c[0].abs() < 1e-5 && c[1].abs() < 1e-5, "{c:?}");
        }
    }
}
