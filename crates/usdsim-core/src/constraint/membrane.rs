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

use super::lanes::packed::{gather_f32, live, pairs_of, Packed};
use super::lanes::{batches, Vec3x8, LANES};
use super::Constraint;
use crate::constraint::xpbd::Step;
use crate::parallel::colouring::Shared;
use glam::{DVec3, Mat2, Vec2, Vec3};
use std::ops::Range;
use wide::f32x8;

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
    /// for a collapsed triangle: the scalar form of what [`project_lanes`] computes, kept
    /// as the tests' reference.
    #[cfg(test)]
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
    type Packed = Packed<3, 7>;

    /// Vertices, then `A = Dm⁻¹` by columns, the deviatoric compliance, the damping and
    /// the area compliance (NaN for none): the fields `project_lanes` reads.
    fn pack(items: &[Self]) -> Self::Packed {
        Packed::new(items.len(), |i| {
            let m = &items[i];
            let a = m.dm_inv;
            let area = m.compliance_area.unwrap_or(f32::NAN);
            (m.v, [a.x_axis.x, a.x_axis.y, a.y_axis.x, a.y_axis.y, m.compliance_dev, m.damping, area])
        })
    }

    fn vertices(&self) -> &[u32] {
        &self.v
    }

    /// Projects the deviatoric and area constraints together (one lane of
    /// [`project_lanes`], so one element alone gives what it gives in a batch).
    ///
    /// # Safety
    /// No other thread may touch this triangle's vertices or multipliers (colouring).
    #[inline]
    unsafe fn project(&self, x: Shared<DVec3>, x_prev: &[DVec3], w: &[f32], lambda: &mut [f32; 2], step: Step) {
        let packed = Self::pack(std::slice::from_ref(self));
        // SAFETY: forwarded contract.
        unsafe { project_lanes(&packed, 0, std::slice::from_mut(lambda), x, x_prev, w, step) }
    }

    /// Eight triangles at a time in SIMD lanes.
    // The projection's inputs, each used once; a struct for them would serve one call.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    unsafe fn project_colour_share(
        _items: &[Self],
        packed: &Self::Packed,
        lambda: Shared<[f32; 2]>,
        range: Range<usize>,
        x: Shared<DVec3>,
        x_prev: &[DVec3],
        w: &[f32],
        step: Step,
    ) {
        for batch in batches(range) {
            // SAFETY: forwarded contract; the multipliers of the batch belong to its
            // elements alone.
            unsafe { project_lanes(packed, batch.start, lambda.slice(batch), x, x_prev, w, step) };
        }
    }
}

/// Projects the `lambda.len()` (at most [`LANES`]) triangles of one colour from `start`
/// at once: [`Membrane::evaluate`] and the coupled 2×2 XPBD update of
/// [`xpbd::apply_pair`], in f32 lanes. Lanes past the batch compute on the padding and
/// write nothing back. A triangle without an area term (ν = 0) gets an inert second
/// constraint (zero value and gradient, unit compliance), which leaves the single
/// deviatoric update.
///
/// # Safety
/// The batch's triangles share no vertex, and no other thread touches their vertices
/// or `lambda`.
#[inline(always)]
unsafe fn project_lanes(
    packed: &Packed<3, 7>,
    start: usize,
    lambda: &mut [[f32; 2]],
    x: Shared<DVec3>,
    x_prev: &[DVec3],
    w: &[f32],
    step: Step,
) {
    let n = lambda.len();
    debug_assert!((1..=LANES).contains(&n));
    let idx: [[u32; LANES]; 3] = std::array::from_fn(|v| packed.vertices(v, start));
    let wv: [f32x8; 3] = std::array::from_fn(|v| gather_f32(w, &idx[v]));
    let field = |f: usize| packed.field(f, start);
    let (a00, a10, a01, a11) = (field(0), field(1), field(2), field(3));
    let area_c = field(6);
    let has_area = area_c.simd_eq(area_c); // not NaN
    let alpha_dev = field(4) * f32x8::splat(step.inv_dt2);
    let alpha_area = has_area.bitselect(area_c * f32x8::splat(step.inv_dt2), f32x8::ONE);
    let damping = field(5);
    let [lam0, lam1] = pairs_of(lambda);
    // SAFETY: exclusive per the contract.
    let p = unsafe { Vec3x8::gather_shape(x, &idx) };

    // F = [d1 d2]·A, its polar decomposition through the 2×2 stretch S = √(FᵀF).
    let (d1, d2) = (p[1] - p[0], p[2] - p[0]);
    let f0 = d1 * a00 + d2 * a10;
    let f1 = d1 * a01 + d2 * a11;
    let (c00, c01, c11) = (f0.length_squared(), f0.dot(f1), f1.length_squared());
    let j = (c00 * c11 - c01 * c01).max(f32x8::ZERO).sqrt();
    let t = (c00 + c11 + f32x8::splat(2.0) * j).sqrt();
    // A collapsed triangle is skipped (its lanes compute with harmless stand-ins).
    let mut ok = j.simd_ge(f32x8::splat(1e-12)) & t.simd_ge(f32x8::splat(1e-9));
    let inv_j = ok.bitselect(f32x8::ONE / j, f32x8::ZERO);
    let inv_t = ok.bitselect(f32x8::ONE / t, f32x8::ZERO);
    // S⁻¹ = adj(S)/det S with S = (C + J·I)/t and det S = J.
    let (i00, i01, i11) = ((c11 + j) * inv_t * inv_j, -c01 * inv_t * inv_j, (c00 + j) * inv_t * inv_j);
    let e0 = f0 - (f0 * i00 + f1 * i01);
    let e1 = f1 - (f0 * i01 + f1 * i11);
    let dev = (e0.length_squared() + e1.length_squared()).sqrt();
    let n_hat = f0.cross(f1) * inv_j;
    // ∂C/∂d_j = Σ_k p_k A[j][k] for ∂C/∂F = [p0 p1]; vertex 0 takes minus the sum.
    let grad = |q0: Vec3x8, q1: Vec3x8| {
        let g1 = q0 * a00 + q1 * a01;
        let g2 = q0 * a10 + q1 * a11;
        [-(g1 + g2), g1, g2]
    };
    // At rest the deviatoric gradient direction is undefined; it has no effect there.
    let inv_dev = dev.simd_gt(f32x8::splat(1e-9)).bitselect(f32x8::ONE / dev, f32x8::ZERO);
    let g_dev = grad(e0 * inv_dev, e1 * inv_dev);
    let area = grad(f1.cross(n_hat), n_hat.cross(f0));
    let keep = has_area.bitselect(f32x8::ONE, f32x8::ZERO);
    let g_area = [area[0] * keep, area[1] * keep, area[2] * keep];
    let c_area = has_area.bitselect(j - f32x8::ONE, f32x8::ZERO);

    // The coupled XPBD update (xpbd::apply_pair, Macklin & Müller 2021 §5).
    let (mut m00, mut m01, mut m11) = (f32x8::ZERO, f32x8::ZERO, f32x8::ZERO);
    for v in 0..3 {
        m00 += wv[v] * g_dev[v].length_squared();
        m01 += wv[v] * g_dev[v].dot(g_area[v]);
        m11 += wv[v] * g_area[v].length_squared();
    }
    let gamma = damping * f32x8::splat(1.0 / step.dt);
    let (mut r0, mut r1) = (f32x8::ZERO, f32x8::ZERO);
    if (damping.simd_gt(f32x8::ZERO) & live(n)).any() {
        for v in 0..3 {
            // SAFETY: exclusive per the contract.
            let dx = unsafe { Vec3x8::gather_moved(x, x_prev, &idx[v]) };
            r0 += g_dev[v].dot(dx);
            r1 += g_area[v].dot(dx);
        }
    }
    let scale = f32x8::ONE + gamma;
    let (m00, m01, m11) = (scale * m00 + alpha_dev, scale * m01, scale * m11 + alpha_area);
    let b0 = -dev - alpha_dev * lam0 - gamma * r0;
    let b1 = -c_area - alpha_area * lam1 - gamma * r1;
    let det = m00 * m11 - m01 * m01;
    ok &= det.simd_gt(f32x8::splat(1e-12) * (m00 * m11).abs()) & m00.simd_gt(f32x8::splat(f32::EPSILON));
    let inv_det = ok.bitselect(f32x8::ONE / det, f32x8::ZERO);
    let d0 = (b0 * m11 - b1 * m01) * inv_det;
    let d1 = (m00 * b1 - m01 * b0) * inv_det;
    let finite = d0.is_finite() & d1.is_finite();
    let (d0, d1) = (finite.bitselect(d0, f32x8::ZERO), (finite & has_area).bitselect(d1, f32x8::ZERO));
    let (d0a, d1a) = (d0.as_array(), d1.as_array());
    for (k, lam) in lambda.iter_mut().enumerate() {
        lam[0] += d0a[k];
        lam[1] += d1a[k];
    }
    for v in 0..3 {
        let step_v = (g_dev[v] * d0 + g_area[v] * d1) * wv[v];
        // SAFETY: exclusive per the contract; lane k owns its triangle's vertices.
        unsafe { step_v.scatter_add(x, &idx[v], n) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::xpbd;

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

    /// The lanes give what the scalar evaluation and coupled update (f64) give, for a
    /// full batch and a partial one, with and without an area term and damping.
    #[test]
    fn lanes_match_the_scalar_projection() {
        let rest = [Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.3, 0.8, 0.0)];
        for count in [LANES, 3] {
            let mut items = Vec::new();
            let mut x = Vec::new();
            for k in 0..count {
                let s = k as f32;
                let (stretch, damping) = if k % 3 == 0 { (6.0, 0.0) } else { (10.0, 0.01 * s) };
                items.push(Membrane::new([0, 1, 2].map(|i| (3 * k + i) as u32), rest, stretch, 3.0, damping).unwrap());
                let wobble = Vec3::new(0.05 * s, -0.03 * s, 0.02 * s.sin());
                x.extend([
                    rest[0] + wobble,
                    rest[1] * (1.1 + 0.02 * s),
                    rest[2] - Vec3::new(wobble.y, wobble.z, wobble.x),
                ]);
            }
            let xd: Vec<DVec3> = x.iter().map(|p| p.as_dvec3()).collect();
            let x_prev: Vec<DVec3> = xd.iter().map(|p| *p * 0.99).collect();
            let w: Vec<f32> = (0..x.len()).map(|i| 1.0 + (i % 4) as f32).collect();
            let step = Step::new(1.0 / 600.0);
            let mut lanes_x = xd.clone();
            let mut lanes_lambda = vec![[0.1f32, -0.2]; count];
            // SAFETY: one thread; the triangles share no vertex.
            unsafe {
                project_lanes(
                    &Membrane::pack(&items),
                    0,
                    &mut lanes_lambda,
                    Shared::new(&mut lanes_x),
                    &x_prev,
                    &w,
                    step,
                )
            };
            let mut scalar_x = xd.clone();
            for (k, m) in items.iter().enumerate() {
                let (c, [g_dev, g_area]) = m.evaluate(m.v.map(|i| x[i as usize])).unwrap();
                let mut lambda = [0.1f32, -0.2];
                let sx = Shared::new(&mut scalar_x);
                // SAFETY: as above.
                unsafe {
                    match m.compliance_area {
                        Some(a) => xpbd::apply_pair(
                            sx,
                            &x_prev,
                            &w,
                            &m.v,
                            [&g_dev, &g_area],
                            c,
                            [m.compliance_dev, a],
                            m.damping,
                            &mut lambda,
                            step,
                        ),
                        None => xpbd::apply(
                            sx,
                            &x_prev,
                            &w,
                            &m.v,
                            &g_dev,
                            c[0],
                            m.compliance_dev,
                            m.damping,
                            &mut lambda[0],
                            step,
                        ),
                    }
                }
                for i in 0..2 {
                    let scale = lambda[i].abs().max(1e-3);
                    assert!(
                        (lanes_lambda[k][i] - lambda[i]).abs() < 1e-3 * scale,
                        "lambda {k}/{i}: {:?} vs {lambda:?}",
                        lanes_lambda[k]
                    );
                }
            }
            for (a, b) in lanes_x.iter().zip(&scalar_x) {
                assert!(a.distance(*b) < 1e-5, "{a} vs {b}");
            }
            assert!(lanes_x.iter().zip(&xd).any(|(a, b)| a.distance(*b) > 1e-3), "the projection moved something");
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
