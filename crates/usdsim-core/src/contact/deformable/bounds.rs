//! What the cone tree ([`super::cone_tree`]) knows of a node over a list's window
//! ([`Bound`]): its box, its normal cone, its smallest altitude and the spread of its
//! vertices' motion; how two merge ([`merge`], [`merge_cones`]), whether two overlap,
//! and whether a node is smooth enough to be skipped against itself ([`smooth`]).

use glam::{Vec3, Vec3A};

/// What a refit knows of a node over the window.
/// Its vectors are 16-byte lanes (`Vec3A`), so that a merge or an overlap test is one
/// instruction an axis triple.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bound {
    /// Low corner of the box along the window.
    pub(super) lo: Vec3A,
    /// High corner of the box along the window.
    pub(super) hi: Vec3A,
    /// Normal cone: axis and the cosine and sine of its half-angle (widened by the
    /// path's tolerance); a cosine of zero or less holds every direction.
    pub(super) axis: Vec3A,
    /// Cosine of the cone's half-angle.
    pub(super) cos: f32,
    /// Sine of the cone's half-angle.
    pub(super) sin: f32,
    /// Smallest triangle altitude at the samples.
    pub(super) altitude: f32,
    /// The distance beyond which no substep of the window keeps a pair (the thickness,
    /// margin and three skins; the largest of the node's triangles').
    pub(super) keep: f32,
    /// Boxes (low, high) of the inertial steps `δ` and of the accelerations `a` of the
    /// node's vertices: their diagonals bound `|Δδ|` and `|Δa|` for any two of them.
    pub(super) steps: (Vec3A, Vec3A),
    /// Box (low, high) of the accelerations `a` of the node's vertices (see `steps`).
    pub(super) accelerations: (Vec3A, Vec3A),
}

impl Default for Bound {
    fn default() -> Self {
        Bound {
            lo: Vec3A::ZERO,
            hi: Vec3A::ZERO,
            axis: Vec3A::Z,
            cos: 0.0,
            sin: 1.0,
            altitude: 0.0,
            keep: 0.0,
            steps: (Vec3A::ZERO, Vec3A::ZERO),
            accelerations: (Vec3A::ZERO, Vec3A::ZERO),
        }
    }
}

/// A cone holding cones `a` and `b` (axis, cosine and sine of the half-angle), or a
/// wide one: the bisector of the axes, opened by half the angle between them beyond
/// the wider cone (no more than 1.5 times the smallest such cone's angle, and free of
/// trigonometry: a refit merges every node).
fn merge_cones(a: (Vec3A, f32, f32), b: (Vec3A, f32, f32)) -> (Vec3A, f32, f32) {
    const WIDE: (Vec3A, f32, f32) = (Vec3A::Z, 0.0, 1.0);
    if a.1 <= 0.0 || b.1 <= 0.0 {
        return WIDE;
    }
    let c = a.0.dot(b.0).clamp(-1.0, 1.0);
    let s = (1.0 - c * c).sqrt();
    // One inside the other: the angle between the axes plus the inner one's half-angle
    // is within the outer one's (compared through cosines).
    if c * b.1 - s * b.2 >= a.1 {
        return a;
    }
    if c * a.1 - s * a.2 >= b.1 {
        return b;
    }
    let Some(axis) = (a.0 + b.0).try_normalize() else { return WIDE };
    let (ch, sh) = ((0.5 * (1.0 + c)).sqrt(), (0.5 * (1.0 - c)).sqrt());
    let (cm, sm) = if a.1 < b.1 { (a.1, a.2) } else { (b.1, b.2) };
    let cos = ch * cm - sh * sm;
    if cos <= 0.0 {
        return WIDE;
    }
    (axis, cos, sh * cm + ch * sm)
}

/// The bound of the union of two nodes with bounds `a` and `b`: both boxes and spreads,
/// a cone holding both cones ([`merge_cones`]), the smaller altitude and the larger keep.
pub(super) fn merge(a: &Bound, b: &Bound) -> Bound {
    let (axis, cos, sin) = merge_cones((a.axis, a.cos, a.sin), (b.axis, b.cos, b.sin));
    Bound {
        lo: a.lo.min(b.lo),
        hi: a.hi.max(b.hi),
        axis,
        cos,
        sin,
        altitude: a.altitude.min(b.altitude),
        keep: a.keep.max(b.keep),
        steps: (a.steps.0.min(b.steps.0), a.steps.1.max(b.steps.1)),
        accelerations: (a.accelerations.0.min(b.accelerations.0), a.accelerations.1.max(b.accelerations.1)),
    }
}

/// Whether a region with bound `b` can hold no pair a substep keeps ([`cone_tree`] module
/// documentation): its smallest altitude seen along the cone's axis, a lower bound on the
/// distance of its pairs, beats what a substep keeps plus the relative motion of a pair,
/// bounded by the spread of the region's steps and accelerations (`|Δδ| + N·|Δa|` for
/// any two of its vertices, module documentation of `candidates`).
///
/// [`cone_tree`]: super::cone_tree
pub(super) fn smooth(b: &Bound, window: u32) -> bool {
    let last = (window - 1) as f32;
    let spread = (b.steps.1 - b.steps.0).length() + last * (b.accelerations.1 - b.accelerations.0).length();
    b.cos > 0.0 && b.altitude * b.cos > b.keep + spread
}

/// Whether boxes `a` and `b` (low, high) overlap.
pub(super) fn boxes_overlap(a: (Vec3, Vec3), b: (Vec3, Vec3)) -> bool {
    a.0.cmple(b.1).all() && b.0.cmple(a.1).all()
}

/// Whether node bounds `a` and `b` overlap.
pub(super) fn overlap(a: &Bound, b: &Bound) -> bool {
    lanes_overlap((a.lo, a.hi), (b.lo, b.hi))
}

/// [`boxes_overlap`] for boxes in 16-byte lanes.
pub(super) fn lanes_overlap(a: (Vec3A, Vec3A), b: (Vec3A, Vec3A)) -> bool {
    a.0.cmple(b.1).all() && b.0.cmple(a.1).all()
}

/// Smallest altitude of triangle `[a, b, c]`: twice its area over its longest edge.
pub(super) fn altitude(a: Vec3, b: Vec3, c: Vec3) -> f32 {
    let longest = (b - a).length_squared().max((c - b).length_squared()).max((a - c).length_squared()).sqrt();
    let area2 = (b - a).cross(c - a).length();
    if longest > 0.0 {
        area2 / longest
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit direction at angle `angle` from `axis`, turned by `turn` around it.
    fn on_cone(axis: Vec3, angle: f32, turn: f32) -> Vec3 {
        let (u, v) = axis.any_orthonormal_pair();
        (axis * angle.cos() + (u * turn.cos() + v * turn.sin()) * angle.sin()).normalize()
    }

    #[test]
    fn a_merged_cone_holds_both_cones() {
        let mut seed = 12345u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32
        };
        let mut narrow = 0;
        for _ in 0..2000 {
            let axis = |r: &mut dyn FnMut() -> f32| {
                let z = 2.0 * r() - 1.0;
                let phi = std::f32::consts::TAU * r();
                let s = (1.0 - z * z).sqrt();
                Vec3::new(s * phi.cos(), s * phi.sin(), z)
            };
            let (a, b) = (axis(&mut next), axis(&mut next));
            let (alpha, beta) = (0.8 * next(), 0.8 * next());
            let (m, cos, sin) = merge_cones((a.into(), alpha.cos(), alpha.sin()), (b.into(), beta.cos(), beta.sin()));
            let m = Vec3::from(m);
            assert!((cos * cos + sin * sin - 1.0).abs() < 1e-4);
            if cos <= 0.0 {
                continue;
            }
            narrow += 1;
            for k in 0..16 {
                let turn = k as f32 * std::f32::consts::TAU / 16.0;
                for (axis, angle) in [(a, alpha), (b, beta)] {
                    let d = on_cone(axis, angle, turn);
                    assert!(d.dot(m) >= cos - 1e-4, "{d} outside the merged cone of {a} ({alpha}) and {b} ({beta})");
                }
            }
        }
        assert!(narrow > 500, "only {narrow} merged cones were narrow: the test shows little");
    }
}
