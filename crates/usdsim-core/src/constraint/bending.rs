//! Dihedral-angle bending between adjacent triangles.
//!
//! The constraint is `C = θ − θ₀` on the signed dihedral angle of a hinge (Müller et al.
//! 2007, "Position Based Dynamics", §4.2, with the signed angle and gradients of Bridson,
//! Marino, Fedkiw 2003, "Simulation of Clothing with Folds and Wrinkles"). Its stiffness
//! follows the discrete-shell energy of Grinspun et al. 2003 ("Discrete Shells"):
//! `k = D · 3‖e‖² / (A₁ + A₂)` for bending rigidity `D`.
//!
//! Hinge vertices are `[x0, x1, x2, x3]`: `x0 → x1` is the shared edge in the winding of
//! the first triangle `(x0, x1, x2)`; `x3` is the second triangle's opposite vertex. The
//! angle is zero when the two triangles are coplanar and positive when the second
//! triangle folds towards the first triangle's normal side.

use super::lanes::packed::{gather_f32, lanes_of, live, Packed};
use super::lanes::{batches, Vec3x8, LANES};
use super::Constraint;
use crate::constraint::xpbd::Step;
use crate::parallel::colouring::Shared;
use crate::scene::{BendDefault, Body};
use glam::{DVec3, Vec3};
use std::collections::HashMap;
use std::ops::Range;
use wide::f32x8;

/// One bending hinge.
#[derive(Clone, Copy, Debug)]
pub struct Hinge {
    /// Global vertex indices `[x0, x1, x2, x3]` (see module docs).
    pub v: [u32; 4],
    /// Rest dihedral angle, radians.
    pub rest_angle: f32,
    /// Compliance `1 / k`.
    pub compliance: f32,
    /// Rayleigh damping time constant, seconds.
    pub damping: f32,
}

/// A hinge found in a triangle mesh, in body-local vertex and triangle indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HingeTopology {
    /// `[x0, x1, x2, x3]`.
    pub v: [u32; 4],
    /// The two triangles `(first, second)`.
    pub triangles: [u32; 2],
}

/// Finds every interior edge shared by exactly two triangles. Edges with more than two
/// triangles (non-manifold) get no hinge. Output order is deterministic.
pub fn hinges(triangles: &[[u32; 3]]) -> Vec<HingeTopology> {
    let mut edges: HashMap<(u32, u32), Vec<(u32, usize)>> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            edges.entry((a.min(b), a.max(b))).or_default().push((t as u32, k));
        }
    }
    let mut out: Vec<HingeTopology> = edges
        .values()
        .filter(|users| users.len() == 2)
        .map(|users| {
            let (t1, k1) = users[0];
            let (t2, k2) = users[1];
            let a = triangles[t1 as usize];
            let b = triangles[t2 as usize];
            let (x0, x1, x2) = (a[k1], a[(k1 + 1) % 3], a[(k1 + 2) % 3]);
            let x3 = b[(k2 + 2) % 3];
            HingeTopology { v: [x0, x1, x2, x3], triangles: [t1, t2] }
        })
        .collect();
    out.sort_by_key(|h| h.triangles);
    out
}

/// Signed dihedral angle of the hinge `p` and its gradient with respect to each vertex.
/// Returns `None` when a triangle is degenerate.
pub fn angle_and_gradient(p: [Vec3; 4]) -> Option<(f32, [Vec3; 4])> {
    let e = p[1] - p[0];
    let n1 = e.cross(p[2] - p[0]);
    let n2 = (p[3] - p[0]).cross(e);
    let (l1, l2, le) = (n1.length_squared(), n2.length_squared(), e.length());
    if l1 < 1e-20 || l2 < 1e-20 || le < 1e-10 {
        return None;
    }
    let e_hat = e / le;
    let theta = n2.cross(n1).dot(e_hat).atan2(n1.dot(n2));
    let m1 = n1 / l1;
    let m2 = n2 / l2;
    let g2 = m1 * le;
    let g3 = m2 * le;
    let g0 = m1 * ((p[2] - p[1]).dot(e_hat)) + m2 * ((p[3] - p[1]).dot(e_hat));
    let g1 = -(m1 * ((p[2] - p[0]).dot(e_hat)) + m2 * ((p[3] - p[0]).dot(e_hat)));
    Some((theta, [g0, g1, g2, g3]))
}

/// Signed dihedral angle between two triangles given by their own vertex positions,
/// about the edge `edge` of the first (used for `restShapeDefault` with rest shapes that
/// need not share vertices).
pub fn angle_between(first: [Vec3; 3], second: [Vec3; 3], edge: (Vec3, Vec3)) -> f32 {
    let e = edge.1 - edge.0;
    let n1 = (first[1] - first[0]).cross(first[2] - first[0]);
    let n2 = (second[1] - second[0]).cross(second[2] - second[0]);
    n2.cross(n1).dot(e.normalize_or_zero()).atan2(n1.dot(n2))
}

/// The bending hinges of surface body `body`, their vertex
/// indices offset by `base` into the solver's global arrays, each with its two triangles
/// (body-local). Rest angles come from the
/// body's explicit `(triangle pair, angle)` list, else from its default rule; stiffness
/// from the discrete-shell formula on the rest triangles. An explicit pair may name its
/// triangles in either order: for a consistently wound mesh the signed angle is the same
/// seen from either side.
///
/// Bending rigidity and damping come from the materials of the hinge's two triangles
/// (their mean, for per-element materials); damping is the material's `bend_damping`
/// when set, else its `damping`.
pub fn build(body: &Body, base: u32) -> Vec<(Hinge, [u32; 2])> {
    let explicit: HashMap<(u32, u32), f32> =
        body.bend_overrides.iter().map(|&([a, b], angle)| ((a.min(b), a.max(b)), angle)).collect();
    let rest_tri = |t: u32| {
        let e = &body.rest_elements[t as usize];
        [0, 1, 2].map(|k| body.rest_points[e[k] as usize])
    };
    let mut out = Vec::new();
    for h in hinges(&body.triangles) {
        let [t1, t2] = h.triangles;
        let (r1, r2) = (rest_tri(t1), rest_tri(t2));
        // The hinge edge's position within the first triangle, in rest coordinates.
        let k = body.triangles[t1 as usize].iter().position(|&q| q == h.v[0]).unwrap_or(0);
        let edge = (r1[k], r1[(k + 1) % 3]);
        let rest_angle = match (explicit.get(&(t1.min(t2), t1.max(t2))), body.bend_default) {
            (Some(&angle), _) => angle,
            (None, BendDefault::Flat) => 0.0,
            (None, BendDefault::RestShape) => angle_between(r1, r2, edge),
        };
        let length = edge.0.distance(edge.1);
        let area =
            0.5 * ((r1[1] - r1[0]).cross(r1[2] - r1[0]).length() + (r2[1] - r2[0]).cross(r2[2] - r2[0]).length());
        let (m1, m2) = (body.element_material(t1 as usize), body.element_material(t2 as usize));
        let bend = 0.5 * (m1.shell_stiffness().2 + m2.shell_stiffness().2);
        let damping_of = |m: &crate::scene::Material| if m.bend_damping > 0.0 { m.bend_damping } else { m.damping };
        let damping = 0.5 * (damping_of(m1) + damping_of(m2));
        let stiffness = bend * 3.0 * length * length / area.max(f32::MIN_POSITIVE);
        if stiffness > 0.0 && stiffness.is_finite() {
            out.push((
                Hinge { v: h.v.map(|i| i + base), rest_angle, compliance: 1.0 / stiffness, damping },
                h.triangles,
            ));
        }
    }
    out
}

impl Hinge {
    /// This hinge's entry in [`Hinge::pack`]'s arrays.
    fn row(&self) -> ([u32; 4], [f32; 3]) {
        (self.v, [self.rest_angle, self.compliance, self.damping])
    }
}

/// Wraps an angle difference into (−π, π] so a hinge never takes the long way round
/// (the scalar form of the lanes' wrap, kept as the tests' reference).
#[cfg(test)]
fn wrap(a: f32) -> f32 {
    let two_pi = std::f32::consts::TAU;
    let a = a.rem_euclid(two_pi);
    if a > std::f32::consts::PI {
        a - two_pi
    } else {
        a
    }
}

impl Constraint for Hinge {
    type Lambda = f32;
    type Packed = Packed<4, 3>;

    /// Vertices, then rest angle, compliance and damping (the fields `project_lanes` reads).
    fn pack(items: &[Self]) -> Self::Packed {
        Packed::new(items.len(), |i| items[i].row())
    }

    fn repack(packed: &mut Self::Packed, items: &[Self], slot: usize) {
        packed.set(slot, items.len(), items[slot].row());
    }

    fn vertices(&self) -> &[u32] {
        &self.v
    }

    /// Projects `C = θ − θ₀` (one lane of [`project_lanes`]).
    ///
    /// # Safety
    /// No other thread may touch this hinge's vertices or multiplier (colouring).
    #[inline]
    unsafe fn project(&self, x: Shared<DVec3>, x_prev: &[DVec3], w: &[f32], lambda: &mut f32, step: Step) {
        let packed = Self::pack(std::slice::from_ref(self));
        // SAFETY: forwarded contract.
        unsafe { project_lanes(&packed, 0, std::slice::from_mut(lambda), x, x_prev, w, step) }
    }

    /// Eight hinges at a time in SIMD lanes.
    // The projection's inputs, each used once; a struct for them would serve one call.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    unsafe fn project_colour_share(
        _items: &[Self],
        packed: &Self::Packed,
        lambda: Shared<f32>,
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

/// Projects the `lambda.len()` (at most [`LANES`]) hinges of one colour from `start`
/// at once: [`angle_and_gradient`], `wrap` and the XPBD update of
/// [`xpbd::apply`](crate::constraint::xpbd::apply) in f32 lanes (the angle through
/// `wide`'s `atan2`). Lanes past the batch compute on the padding and write nothing
/// back; a torn hinge (infinite compliance) or a degenerate one moves nothing.
///
/// # Safety
/// The batch's hinges share no vertex, and no other thread touches their vertices or
/// `lambda`.
#[inline(always)]
unsafe fn project_lanes(
    packed: &Packed<4, 3>,
    start: usize,
    lambda: &mut [f32],
    x: Shared<DVec3>,
    x_prev: &[DVec3],
    w: &[f32],
    step: Step,
) {
    let n = lambda.len();
    debug_assert!((1..=LANES).contains(&n));
    let idx: [[u32; LANES]; 4] = std::array::from_fn(|v| packed.vertices(v, start));
    let wv: [f32x8; 4] = std::array::from_fn(|v| gather_f32(w, &idx[v]));
    let (rest, compliance, damping) = (packed.field(0, start), packed.field(1, start), packed.field(2, start));
    let lam = lanes_of(lambda);
    // SAFETY: exclusive per the contract.
    let p = unsafe { Vec3x8::gather_shape(x, &idx) };

    let e = p[1] - p[0];
    let n1 = e.cross(p[2] - p[0]);
    let n2 = (p[3] - p[0]).cross(e);
    let (l1, l2, le) = (n1.length_squared(), n2.length_squared(), e.length_squared().sqrt());
    let mut ok = l1.simd_ge(f32x8::splat(1e-20))
        & l2.simd_ge(f32x8::splat(1e-20))
        & le.simd_ge(f32x8::splat(1e-10))
        & compliance.simd_lt(f32x8::splat(f32::INFINITY));
    let (l1, l2, le) = (ok.bitselect(l1, f32x8::ONE), ok.bitselect(l2, f32x8::ONE), ok.bitselect(le, f32x8::ONE));
    let e_hat = e * (f32x8::ONE / le);
    let theta = n2.cross(n1).dot(e_hat).atan2(n1.dot(n2));
    let (m1, m2) = (n1 * (f32x8::ONE / l1), n2 * (f32x8::ONE / l2));
    let grad = [
        m1 * (p[2] - p[1]).dot(e_hat) + m2 * (p[3] - p[1]).dot(e_hat),
        -(m1 * (p[2] - p[0]).dot(e_hat) + m2 * (p[3] - p[0]).dot(e_hat)),
        m1 * le,
        m2 * le,
    ];
    // wrap(θ − θ₀) into (−π, π].
    let tau = f32x8::splat(std::f32::consts::TAU);
    let d = theta - rest;
    let d = d - tau * (d / tau).floor();
    let c = d.simd_gt(f32x8::splat(std::f32::consts::PI)).bitselect(d - tau, d);

    let mut denom = f32x8::ZERO;
    for v in 0..4 {
        denom += wv[v] * grad[v].length_squared();
    }
    let mut rate = f32x8::ZERO;
    if (damping.simd_gt(f32x8::ZERO) & live(n)).any() {
        for v in 0..4 {
            // SAFETY: exclusive per the contract.
            rate += grad[v].dot(unsafe { Vec3x8::gather_moved(x, x_prev, &idx[v]) });
        }
    }
    let alpha = ok.bitselect(compliance, f32x8::ZERO) * f32x8::splat(step.inv_dt2);
    let gamma = damping * f32x8::splat(1.0 / step.dt);
    let denom = (f32x8::ONE + gamma) * denom + alpha;
    ok &= denom.simd_gt(f32x8::splat(f32::EPSILON));
    let d_lambda = (-c - alpha * lam - gamma * rate) * ok.bitselect(f32x8::ONE / denom, f32x8::ZERO);
    let d_lambda = d_lambda.is_finite().bitselect(d_lambda, f32x8::ZERO);
    let dl = d_lambda.as_array();
    for (k, l) in lambda.iter_mut().enumerate() {
        *l += dl[k];
    }
    for v in 0..4 {
        let step_v = grad[v] * (wv[v] * d_lambda);
        // SAFETY: exclusive per the contract; lane k owns its hinge's vertices.
        unsafe { step_v.scatter_add(x, &idx[v], n) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::xpbd;

    fn sample() -> [Vec3; 4] {
        [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.1, 0.0), Vec3::new(0.4, 0.9, 0.2), Vec3::new(0.6, -0.8, 0.5)]
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let p = sample();
        let (theta, grad) = angle_and_gradient(p).unwrap();
        let h = 1e-3;
        for v in 0..4 {
            for axis in 0..3 {
                let mut q = p;
                q[v][axis] += h;
                let plus = angle_and_gradient(q).unwrap().0;
                q[v][axis] -= 2.0 * h;
                let minus = angle_and_gradient(q).unwrap().0;
                let numeric = (plus - minus) / (2.0 * h);
                assert!(
                    (numeric - grad[v][axis]).abs() < 2e-3,
                    "vertex {v} axis {axis}: analytic {} numeric {numeric} (theta {theta})",
                    grad[v][axis]
                );
            }
        }
    }

    /// The lanes give what the scalar angle, wrap and XPBD update give, for a full batch
    /// and a partial one, with rest angles across ±π, damping and a torn hinge.
    #[test]
    fn lanes_match_the_scalar_projection() {
        for count in [LANES, 5] {
            let (mut items, mut x) = (Vec::new(), Vec::new());
            for k in 0..count {
                let s = k as f32;
                let mut p = sample();
                p[3] += Vec3::new(0.1 * s, 0.05 * s, -0.2 * s);
                x.extend(p);
                let compliance = if k == 2 { f32::INFINITY } else { 1e-4 * (1.0 + s) };
                let rest_angle = -3.0 + 0.8 * s;
                items.push(Hinge {
                    v: [0, 1, 2, 3].map(|i| (4 * k + i) as u32),
                    rest_angle,
                    compliance,
                    damping: 0.002 * s,
                });
            }
            let xd: Vec<DVec3> = x.iter().map(|p| p.as_dvec3()).collect();
            let x_prev: Vec<DVec3> = xd.iter().map(|p| *p * 0.98).collect();
            let w: Vec<f32> = (0..x.len()).map(|i| 0.5 + (i % 3) as f32).collect();
            let step = Step::new(1.0 / 240.0);
            let (mut lanes_x, mut lanes_lambda) = (xd.clone(), vec![0.05f32; count]);
            // SAFETY: one thread; the hinges share no vertex.
            unsafe {
                project_lanes(&Hinge::pack(&items), 0, &mut lanes_lambda, Shared::new(&mut lanes_x), &x_prev, &w, step)
            };
            let mut scalar_x = xd.clone();
            for (k, h) in items.iter().enumerate() {
                let mut lambda = 0.05f32;
                if h.compliance.is_finite() {
                    let (theta, grad) = angle_and_gradient(h.v.map(|i| x[i as usize])).unwrap();
                    let c = wrap(theta - h.rest_angle);
                    let sx = Shared::new(&mut scalar_x);
                    // SAFETY: as above.
                    unsafe { xpbd::apply(sx, &x_prev, &w, &h.v, &grad, c, h.compliance, h.damping, &mut lambda, step) };
                }
                assert!(
                    (lanes_lambda[k] - lambda).abs() < 1e-3 * lambda.abs().max(1e-3),
                    "{k}: {} vs {lambda}",
                    lanes_lambda[k]
                );
            }
            for (a, b) in lanes_x.iter().zip(&scalar_x) {
                assert!(a.distance(*b) < 1e-5, "{a} vs {b}");
            }
            assert_eq!(lanes_x[8..12], xd[8..12], "the torn hinge moved");
            assert!(lanes_x.iter().zip(&xd).any(|(a, b)| a.distance(*b) > 1e-3), "the projection moved something");
        }
    }

    #[test]
    fn flat_hinge_has_zero_angle_and_folds_are_signed() {
        let flat = [Vec3::ZERO, Vec3::X, Vec3::new(0.5, 1.0, 0.0), Vec3::new(0.5, -1.0, 0.0)];
        assert!(angle_and_gradient(flat).unwrap().0.abs() < 1e-6);
        let mut up = flat;
        up[3].z = 1.0; // second triangle folds towards the first's normal (+Z)
        assert!(angle_and_gradient(up).unwrap().0 > 0.5);
        let mut down = flat;
        down[3].z = -1.0;
        assert!(angle_and_gradient(down).unwrap().0 < -0.5);
    }

    #[test]
    fn hinges_of_a_quad() {
        let tris = [[0, 1, 2], [0, 2, 3]];
        let h = hinges(&tris);
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].triangles, [0, 1]);
        // Shared edge 2→0 in the first triangle's winding; opposite vertices 1 and 3.
        assert_eq!(h[0].v, [2, 0, 1, 3]);
    }
}
