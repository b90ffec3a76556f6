//! Plastic (permanent) deformation: rest shapes that flow toward the current shape.
//!
//! The tearing-and-plasticity article defines it for links: beyond `yield × rest
//! length` the rest length moves toward the current length by `rate × excess` (see
//! `spring_mass::apply_plasticity`). For a tetrahedron the same rule applies to each
//! principal stretch of its deformation gradient, multiplicatively (the usual
//! `F = Fe·Fp` split, e.g. Irving, Teran, Fedkiw 2004; Müller & Gross 2004 for
//! interactive use): with `F = R·S`, `S = V·diag(σ)·Vᵀ`, every principal stretch past the
//! yield (`σ > yield` or `σ < 1/yield`) gives a plastic stretch `σp = 1 + rate·(σ − 1)`,
//! the plastic stretches are scaled by `(Πσp)^(−1/3)` so that plastic flow keeps volume
//! (as it does in metals and clays, and so that masses derived from a written-back rest
//! shape stay what they were), `Fp = V·diag(σp)·Vᵀ`, and the rest edge matrix becomes
//! `Fp·Dm`. The element's elastic deformation is then `F·Fp⁻¹`; its compliances follow
//! `det Fp` (1 up to rounding, or the cap's correction). A cap bounds each principal stretch of the total plastic deformation
//! (current rest shape against the original one) to `[1/(1+cap), 1+cap]`.

use crate::constraint::neo_hookean::Tet;
use crate::scene::Plasticity;
use glam::{Mat3, Vec3};

/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations:
/// `(eigenvalues, eigenvectors as columns)`. Jacobi is robust for the repeated
/// eigenvalues that a stretch along one axis produces (glamx's closed form mixed up
/// eigenvectors there; measured).
// The rotation updates read as the matrix formulas they implement.
#[allow(clippy::needless_range_loop)]
fn symmetric_eigen(m: Mat3) -> (Vec3, Mat3) {
    let mut a = [m.x_axis.to_array(), m.y_axis.to_array(), m.z_axis.to_array()]; // a[col][row]
    let mut v = [[1.0f32, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _ in 0..12 {
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            let apq = a[q][p];
            if apq.abs() < 1e-12 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * apq);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A ← Jᵀ A J with the rotation J in the (p, q) plane.
            for k in 0..3 {
                let (akp, akq) = (a[p][k], a[q][k]);
                a[p][k] = c * akp - s * akq;
                a[q][k] = s * akp + c * akq;
            }
            for k in 0..3 {
                let (apk, aqk) = (a[k][p], a[k][q]);
                a[k][p] = c * apk - s * aqk;
                a[k][q] = s * apk + c * aqk;
            }
            for k in 0..3 {
                let (vkp, vkq) = (v[p][k], v[q][k]);
                v[p][k] = c * vkp - s * vkq;
                v[q][k] = s * vkp + c * vkq;
            }
        }
    }
    (
        Vec3::new(a[0][0], a[1][1], a[2][2]),
        Mat3::from_cols(Vec3::from_array(v[0]), Vec3::from_array(v[1]), Vec3::from_array(v[2])),
    )
}

/// When a hinge yields and how far it may flow, as bend angles (radians).
///
/// A plate of thickness `h` bent to curvature `κ` strains its faces by `κh/2`; a hinge
/// turned by `Δθ` spreads that curvature over about the distance between its triangles'
/// centroids, `ℓ = 2A/(3L)` (A both triangles' rest area, L the shared edge), so
/// `κ ≈ Δθ/ℓ`. The material's yield stretch `y` then gives the yield bend
/// `Δθ_y = 2(y − 1)ℓ/h`, and a strain cap `s` the largest total flow `2sℓ/h`: one
/// material, one yield, for stretching tets and bending shells alike.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BendLimits {
    /// Bend away from the rest angle beyond which the rest angle flows.
    pub yield_angle: f32,
    /// Largest total change of the rest angle, if capped.
    pub max_flow: Option<f32>,
}

impl BendLimits {
    /// The limits of the hinge between `triangles` of surface `body` for `params`.
    pub fn new(params: &Plasticity, body: &crate::Body, triangles: [u32; 2]) -> Self {
        let corner = |t: u32, k: usize| body.rest_points[body.rest_elements[t as usize][k] as usize];
        let area = |t: u32| 0.5 * (corner(t, 1) - corner(t, 0)).cross(corner(t, 2) - corner(t, 0)).length();
        let (t1, t2) = (triangles[0], triangles[1]);
        // The shared edge: the first triangle's corners that the second also uses.
        let (tri1, tri2) = (body.triangles[t1 as usize], body.triangles[t2 as usize]);
        let ends: Vec<usize> = (0..3).filter(|&k| tri2.contains(&tri1[k])).collect();
        let shared = match ends[..] {
            [a, b] => corner(t1, a).distance(corner(t1, b)),
            _ => 0.0,
        };
        let ell = 2.0 * (area(t1) + area(t2)) / (3.0 * shared.max(f32::MIN_POSITIVE));
        let h = body.element_material(t1 as usize).thickness.max(f32::MIN_POSITIVE);
        Self {
            yield_angle: 2.0 * (params.yield_ratio - 1.0) * ell / h,
            max_flow: params.max_strain.map(|s| 2.0 * s * ell / h),
        }
    }
}

/// One plastic flow step of a hinge's rest angle, after the article's rule for links:
/// bent more than `limits.yield_angle` away from `rest`, the rest angle moves toward the
/// current `angle` by `rate` times the difference, never further than `limits.max_flow`
/// from `original`. Returns the new rest angle.
pub fn flow_hinge(rest: f32, angle: f32, original: f32, params: &Plasticity, limits: &BendLimits) -> f32 {
    // The short way round, as the hinge constraint measures it.
    let tau = std::f32::consts::TAU;
    let d = (angle - rest + std::f32::consts::PI).rem_euclid(tau) - std::f32::consts::PI;
    if d.abs() <= limits.yield_angle {
        return rest;
    }
    let flowed = rest + params.rate * d;
    match limits.max_flow {
        Some(cap) => flowed.clamp(original - cap, original + cap),
        None => flowed,
    }
}

/// The cap on each principal stretch of a tet's total plastic deformation when its
/// material sets none (`usdsim:plasticMaxStrain = 0`): `[1/(1+cap), 1+cap]`, i.e. at most
/// twice or half as long along any direction. Flow without any cap runs away under a
/// steady load above the yield (a hanging bar at yield 1.001, rate 1: the rest shape
/// grew from 1 m to 2400 m in 60 frames, then its needle-thin elements gave NaN), and the
/// mesh cannot represent it anyway: an element drawn out more than about twice along
/// one axis (volume-keeping: 2^1.5 ≈ 2.8 times longer than wide) is poor for the solver.
pub const DISTORTION_CAP: f32 = 1.0;

/// How fast the yield stretch grows with accumulated plastic distortion when no cap is
/// authored (`y·e^(h·D)`). Without it a bar loaded past its yield crept to the cap, hit
/// it with a jolt and its rebound flowed back (rest length not monotonic); hardening from
/// `D = 0` a bent bar kept too little of its bend. Measured in `tests/plasticity.rs`.
pub const HARDENING: f32 = 1.0;

/// Applies one plastic flow step to `tet`, whose vertices are at `p`. `original_dm` is the
/// element's rest edge matrix before any flow (for the cap). Returns whether the rest
/// shape changed.
pub fn flow_tet(tet: &mut Tet, p: [Vec3; 4], original_dm: Mat3, params: &Plasticity) -> bool {
    let dm = tet.dm_inv.inverse();
    let f = Mat3::from_cols(p[1] - p[0], p[2] - p[0], p[3] - p[0]) * tet.dm_inv;
    let (values, vectors) = symmetric_eigen(f.transpose() * f);
    let stretches = values.max(Vec3::ZERO).to_array().map(f32::sqrt);
    // Without an authored cap, flow hardens: the yield stretch grows with the plastic
    // stretch already taken, `y·e^(h·D)` (`D` as below, `h` = [`HARDENING`]), so a
    // steady load stops flowing by itself once the elastic part carries it, and a
    // rebound does not flow back.
    let total_stretches = |new_dm: Mat3| {
        let total = new_dm * original_dm.inverse();
        let (values, vectors) = symmetric_eigen(total.transpose() * total);
        (total, values.max(Vec3::ZERO).to_array().map(f32::sqrt), vectors)
    };
    let distortion = |m: Mat3| total_stretches(m).1.iter().map(|x| x.ln().abs()).fold(0.0f32, f32::max);
    let used = if params.max_strain.is_none() { distortion(dm) } else { 0.0 };
    let yield_ratio =
        if params.max_strain.is_none() { params.yield_ratio * (HARDENING * used).exp() } else { params.yield_ratio };
    let yielded = |s: f32| s > yield_ratio || s * yield_ratio < 1.0;
    if !stretches.iter().any(|&s| yielded(s)) || !stretches.iter().all(|s| s.is_finite() && *s > 0.0) {
        return false;
    }
    let plastic = stretches.map(|s| if yielded(s) { 1.0 + params.rate * (s - 1.0) } else { 1.0 });
    // Plastic flow keeps volume (metals and clays flow incompressibly): the elastic part
    // carries any change of volume. It also keeps the mass a resumed run derives from the
    // written rest shape equal to the one this run started with.
    let j = plastic[0] * plastic[1] * plastic[2];
    let plastic = plastic.map(|s| s / j.cbrt());
    let fp_to = |t: f32| {
        let step = plastic.map(|s| s.powf(t));
        vectors * Mat3::from_diagonal(Vec3::from_array(step)) * vectors.transpose() * dm
    };
    let mut new_dm = fp_to(1.0);
    if let Some(cap) = params.max_strain {
        // Clamp the total plastic stretch against the original rest shape.
        let (total, s, vectors) = total_stretches(new_dm);
        let clamped = s.map(|x| x.clamp(1.0 / (1.0 + cap), 1.0 + cap));
        if clamped != s {
            // Polar decomposition of `total` = R·U; keep R, clamp U's stretches.
            let u_inv = vectors * Mat3::from_diagonal(Vec3::from_array(s.map(|x| 1.0 / x))) * vectors.transpose();
            let r = total * u_inv;
            let u = vectors * Mat3::from_diagonal(Vec3::from_array(clamped)) * vectors.transpose();
            new_dm = r * u * original_dm;
        }
    } else {
        // No cap authored: the distortion cap, approached smoothly. The step is
        // shortened (a fraction `t` of its log-stretches, which keeps volume) by the
        // share of the cap already used, `t = 1 − D/D_max` with `D` the largest
        // |log| principal stretch of the total plastic deformation (a hardening that
        // stops the flow at the cap): a bar flowing freely up to a hard cap stopped
        // with a jolt, and the rebound's compression flowed back. Clamping each
        // stretch, as the authored cap does, would shrink the volume instead.
        let d_max = (1.0 + DISTORTION_CAP).ln();
        if used.is_nan() || used >= d_max {
            return false;
        }
        let t = 1.0 - used / d_max;
        new_dm = fp_to(t);
        // The step itself must not overshoot the cap either.
        let reached = distortion(new_dm);
        if reached.is_nan() || reached > d_max {
            let (mut lo, mut hi) = (0.0f32, t);
            for _ in 0..12 {
                let mid = 0.5 * (lo + hi);
                if distortion(fp_to(mid)) <= d_max {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            if lo == 0.0 {
                return false;
            }
            new_dm = fp_to(lo);
        }
    }
    let ratio = new_dm.determinant() / dm.determinant();
    if !(ratio.is_finite() && ratio > 0.0) {
        return false;
    }
    tet.dm_inv = new_dm.inverse();
    // Compliances are 1/(modulus × volume): the volume scales by det Fp.
    tet.compliance_dev /= ratio;
    tet.compliance_vol /= ratio;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_tet() -> ([Vec3; 4], Tet) {
        let rest = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
        (rest, Tet::new([0, 1, 2, 3], rest, 1e5, 0.3, 0.0).unwrap())
    }

    /// Rest edge matrix of `tet`.
    fn dm(tet: &Tet) -> Mat3 {
        tet.dm_inv.inverse()
    }

    fn stretched_x(s: f32) -> [Vec3; 4] {
        [Vec3::ZERO, Vec3::X * s, Vec3::Y, Vec3::Z]
    }

    const PARAMS: Plasticity = Plasticity { yield_ratio: 1.1, rate: 0.5, max_strain: None };

    #[test]
    fn jacobi_diagonalises_symmetric_matrices() {
        let m = Mat3::from_cols(Vec3::new(4.0, 1.0, 0.5), Vec3::new(1.0, 3.0, -0.2), Vec3::new(0.5, -0.2, 2.0));
        let (values, vectors) = symmetric_eigen(m);
        let rebuilt = vectors * Mat3::from_diagonal(values) * vectors.transpose();
        assert!((rebuilt - m).to_cols_array().iter().all(|e| e.abs() < 1e-5), "{rebuilt} vs {m}");
        let (values, vectors) = symmetric_eigen(Mat3::from_diagonal(Vec3::new(2.25, 1.0, 1.0)));
        assert_eq!(values, Vec3::new(2.25, 1.0, 1.0));
        assert_eq!(vectors, Mat3::IDENTITY);
    }

    #[test]
    fn below_the_yield_the_rest_shape_springs_back() {
        let (rest, mut tet) = unit_tet();
        let before = dm(&tet);
        assert!(!flow_tet(&mut tet, stretched_x(1.05), before, &PARAMS));
        assert_eq!(dm(&tet), before);
        assert!(!flow_tet(&mut tet, rest, before, &PARAMS));
    }

    #[test]
    fn past_the_yield_the_rest_shape_moves_by_rate_times_excess() {
        let (_, mut tet) = unit_tet();
        let original = dm(&tet);
        let volume_compliance = tet.compliance_vol;
        assert!(flow_tet(&mut tet, stretched_x(1.5), original, &PARAMS));
        // The plastic stretch along x is 1 + 0.5 × (1.5 − 1) = 1.25, made volume-keeping:
        // x grows by 1.25^(2/3), y and z shrink by 1.25^(−1/3).
        let new = dm(&tet);
        let (along, across) = (1.25f32.powf(2.0 / 3.0), 1.25f32.powf(-1.0 / 3.0));
        assert!((new.x_axis - Vec3::X * along).length() < 1e-5, "{new}");
        assert!((new.y_axis - Vec3::Y * across).length() < 1e-5 && (new.z_axis - Vec3::Z * across).length() < 1e-5);
        // The rest volume is unchanged, and so is the element's stiffness.
        assert!((new.determinant() - 1.0).abs() < 1e-5);
        assert!((tet.compliance_vol - volume_compliance).abs() < 1e-6 * volume_compliance);
        // Compression past 1/yield flows too.
        let (_, mut tet) = unit_tet();
        assert!(flow_tet(&mut tet, stretched_x(0.5), original, &PARAMS));
        assert!((dm(&tet).x_axis.x - 0.75f32.powf(2.0 / 3.0)).abs() < 1e-5);
    }

    #[test]
    fn flow_follows_a_rotated_element() {
        // The same stretch seen through a rotation gives the same rest shape: plasticity
        // acts on the stretch, never on rigid motion.
        let (_, mut tet) = unit_tet();
        let original = dm(&tet);
        let r = glam::Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.2);
        assert!(flow_tet(&mut tet, stretched_x(1.5).map(|q| r * q), original, &PARAMS));
        assert!((dm(&tet).x_axis - Vec3::X * 1.25f32.powf(2.0 / 3.0)).length() < 1e-4, "{}", dm(&tet));
    }

    #[test]
    fn the_cap_bounds_total_plastic_strain() {
        let (_, mut tet) = unit_tet();
        let original = dm(&tet);
        let capped = Plasticity { max_strain: Some(0.2), ..PARAMS };
        for _ in 0..30 {
            flow_tet(&mut tet, stretched_x(2.0), original, &capped);
        }
        assert!((dm(&tet).x_axis.x - 1.2).abs() < 1e-4, "{}", dm(&tet));
    }
}
