//! Vertex–triangle pairs: whether a pair may ever touch (bodies, filters, the filter
//! pose), whether it is a contact this substep (swept boxes, reach, side), and the
//! contact's direction and constraint value, which projection, friction and waking use.

use super::contact::{hold_start, Contact};
use super::surfaces::Surfaces;
use crate::contact::filter_table::FilterTable;
use crate::mesh::closest::{closest_point, point};
use glam::Vec3;

impl Surfaces {
    /// Triangle `t`'s box over the substep (start and predicted positions), grown by its
    /// radius and the margin: the first test of every pair it is in.
    fn triangle_box(&self, t: usize, x: &[Vec3], x_prev: &[Vec3]) -> (Vec3, Vec3) {
        let tri = self.triangles[t];
        let (mut lo, mut hi) = (x[tri[0] as usize], x[tri[0] as usize]);
        for &i in &tri {
            for p in [x[i as usize], x_prev[i as usize]] {
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
        let grow = Vec3::splat(self.radius[self.tri_body[t] as usize] + self.margin);
        (lo - grow, hi + grow)
    }

    /// Whether vertex `v` and triangle `t` may ever touch: the parts of the test that do
    /// not change while the bodies move (which bodies collide, the vertex's own
    /// triangles, element filters, the filter pose).
    pub(super) fn vertex_pair_allowed(&self, filter: &FilterTable, v: u32, t: u32) -> bool {
        let (vi, ti) = (v as usize, t as usize);
        let (vb, tb) = (self.vertex_body[vi] as usize, self.tri_body[ti] as usize);
        if tb == vb {
            if !self.self_contact[vb] {
                return false;
            }
        } else if !filter.bodies_collide(vb, tb) {
            return false;
        }
        if self.triangles[ti].contains(&v) {
            return false;
        }
        if !filter.vertex_triangle(vb, v - self.body_start[vb], tb, self.tri_local[ti]) {
            return false;
        }
        !(tb == vb && self.pose_exempt.binary_search(&(v, t)).is_ok())
    }

    /// Appends the contact of vertex `v` with triangle `t` (a pair
    /// [`Self::vertex_pair_allowed`] admits) to `out` if they are within reach this
    /// substep.
    pub(super) fn vertex_contact(
        &self,
        v: u32,
        t: u32,
        x: &[Vec3],
        x_prev: &[Vec3],
        w: &[f32],
        out: &mut Vec<Contact>,
    ) {
        let (vi, ti) = (v as usize, t as usize);
        let (vb, tb) = (self.vertex_body[vi] as usize, self.tri_body[ti] as usize);
        let (p0, p1) = (x_prev[vi], x[vi]);
        let rv = self.radius[vb];
        let grow = Vec3::splat(rv + self.margin);
        let (lo, hi) = (p0.min(p1) - grow, p0.max(p1) + grow);
        let tri = self.triangles[ti];
        let (blo, bhi) = self.triangle_box(ti, x, x_prev);
        if !(lo.cmple(bhi).all() && blo.cmple(hi).all()) {
            return;
        }
        if w[vi] == 0.0 && tri.iter().all(|&i| w[i as usize] == 0.0) && self.asleep[vb] == self.asleep[tb] {
            return;
        }
        let [a, b, c] = tri.map(|i| x[i as usize]);
        let (bary, _) = closest_point(p1, a, b, c);
        let dist = p1.distance(point(bary, a, b, c));
        let d = self.thickness(vb, tb);
        // The reach counts the motion of the vertex relative to the triangle's
        // vertices (which bounds its motion relative to any point of the triangle):
        // a vertex that crossed the triangle during the substep is now at most that
        // far from it. Absolute motion would make every neighbour of a fast but
        // smoothly moving cloth a contact.
        let dp = p1 - p0;
        let moved = tri.iter().map(|&i| (dp - (x[i as usize] - x_prev[i as usize])).length()).fold(0.0f32, f32::max);
        if dist > d + moved + self.margin {
            return;
        }
        let side = if self.two_sided[tb] {
            let [a0, b0, c0] = tri.map(|i| x_prev[i as usize]);
            let (bary0, _) = closest_point(p0, a0, b0, c0);
            let n0 = (b0 - a0).cross(c0 - a0);
            let s = n0.dot(p0 - point(bary0, a0, b0, c0));
            if s != 0.0 {
                s.signum()
            } else {
                let s = (b - a).cross(c - a).dot(p1 - point(bary, a, b, c));
                if s < 0.0 {
                    -1.0
                } else {
                    1.0
                }
            }
        } else {
            1.0
        };
        let (fa, fb) = (self.friction[vb], self.friction[tb]);
        let mut contact = Contact {
            vertex: v,
            triangle: t,
            edge: false,
            normal: Vec3::ZERO,
            side,
            distance: d,
            friction: [0.5 * (fa[0] + fb[0]), 0.5 * (fa[1] + fb[1])],
            push: 0.0,
            overlap: 0.0,
        };
        if let Some((_, _, value)) = self.evaluate(&contact, p0, tri.map(|i| x_prev[i as usize])) {
            hold_start(&mut contact, value);
        }
        out.push(contact);
    }

    /// The contact's current direction, closest-point weights and constraint value.
    #[inline]
    pub(super) fn evaluate(&self, c: &Contact, p: Vec3, t: [Vec3; 3]) -> Option<(Vec3, Vec3, f32)> {
        let [a, b, cc] = t;
        let (bary, inside) = closest_point(p, a, b, cc);
        let q = point(bary, a, b, cc);
        let face = (b - a).cross(cc - a).normalize_or_zero() * c.side;
        let delta = p - q;
        let len = delta.length();
        // On an edge or corner the constraint is the distance to it, and only on the
        // vertex's side: behind the plane, the neighbouring triangle, whose face the
        // vertex is over, is the one to push it (this one would push it sideways).
        let n = if inside {
            face
        } else if face.dot(delta) >= 0.0 && len > 1e-12 {
            delta / len
        } else {
            return None;
        };
        if n == Vec3::ZERO {
            return None;
        }
        Some((n, bary, n.dot(delta) - c.distance))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_point_regions() {
        let (a, b, c) = (Vec3::ZERO, Vec3::X, Vec3::Y);
        let (w, inside) = closest_point(Vec3::new(0.2, 0.2, 1.0), a, b, c);
        assert!(inside && (w - Vec3::new(0.6, 0.2, 0.2)).length() < 1e-6);
        let (w, inside) = closest_point(Vec3::new(-1.0, -1.0, 0.0), a, b, c);
        assert!(!inside && w == Vec3::X);
        let (w, inside) = closest_point(Vec3::new(0.5, -1.0, 0.3), a, b, c);
        assert!(!inside && (w - Vec3::new(0.5, 0.5, 0.0)).length() < 1e-6);
    }
}
