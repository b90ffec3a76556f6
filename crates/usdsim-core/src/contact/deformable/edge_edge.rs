//! Edge–edge pairs of cloth: whether two edges may ever touch (bodies, shared vertices,
//! element filters, the filter pose), whether they are a contact this substep, and the
//! contact's direction, closest-point parameters and constraint value.

use super::contact::{hold_start, Contact};
use super::surfaces::Surfaces;
use crate::contact::filter_table::FilterTable;
use crate::mesh::closest::closest_segment_params;
use glam::Vec3;

impl Surfaces {
    /// Edge `e`'s box over the substep, as [`Self::triangle_box`].
    fn edge_box(&self, e: usize, x: &[Vec3], x_prev: &[Vec3]) -> (Vec3, Vec3) {
        let [i, j] = self.edges[e].map(|k| k as usize);
        let lo = x[i].min(x[j]).min(x_prev[i]).min(x_prev[j]);
        let hi = x[i].max(x[j]).max(x_prev[i]).max(x_prev[j]);
        let grow = Vec3::splat(self.radius[self.edge_body[e] as usize] + self.margin);
        (lo - grow, hi + grow)
    }

    /// Whether no end of edge `ea` is filtered against a triangle of edge `eb`.
    fn edge_ends_collide(&self, filter: &FilterTable, ea: usize, eb: usize) -> bool {
        let (ba, bb) = (self.edge_body[ea] as usize, self.edge_body[eb] as usize);
        if !filter.element_filtered(ba, bb) {
            return true;
        }
        let start = self.body_start[ba];
        self.edges[ea]
            .iter()
            .all(|&v| self.edge_triangles(eb).iter().all(|&t| filter.vertex_triangle(ba, v - start, bb, t)))
    }

    /// Whether edges `ea < eb` may ever touch: the parts of the test that do not change
    /// while the bodies move (which bodies collide, shared vertices, element filters,
    /// the filter pose).
    pub(super) fn edge_pair_allowed(&self, filter: &FilterTable, ea: u32, eb: u32) -> bool {
        let (ia, ib) = (ea as usize, eb as usize);
        let (ba, bb) = (self.edge_body[ia] as usize, self.edge_body[ib] as usize);
        if ba == bb {
            if !self.self_contact[ba] {
                return false;
            }
        } else if !filter.bodies_collide(ba, bb) {
            return false;
        }
        // Two volume surfaces: their vertices against each other's faces already
        // hold them apart (a tet's edges are short against its faces), and edge pairs
        // between two resting solids only add sideways pushes. Volume edges are here
        // for cloth draped over a solid's edges.
        if !self.two_sided[ba] && !self.two_sided[bb] {
            return false;
        }
        let (a, b) = (self.edges[ia], self.edges[ib]);
        if a.iter().any(|v| b.contains(v)) {
            return false;
        }
        if !(self.edge_ends_collide(filter, ia, ib) && self.edge_ends_collide(filter, ib, ia)) {
            return false;
        }
        !(ba == bb && self.edge_pose_exempt.binary_search(&(ea, eb)).is_ok())
    }

    /// Appends the contact of edges `ea < eb` (a pair [`Self::edge_pair_allowed`]
    /// admits) to `out` if they are within reach this substep.
    pub(super) fn edge_contact(
        &self,
        ea: u32,
        eb: u32,
        x: &[Vec3],
        x_prev: &[Vec3],
        w: &[f32],
        out: &mut Vec<Contact>,
    ) {
        let (ia, ib) = (ea as usize, eb as usize);
        let (ba, bb) = (self.edge_body[ia] as usize, self.edge_body[ib] as usize);
        let (a, b) = (self.edges[ia], self.edges[ib]);
        let ((lo, hi), (blo, bhi)) = (self.edge_box(ia, x, x_prev), self.edge_box(ib, x, x_prev));
        if !(lo.cmple(bhi).all() && blo.cmple(hi).all()) {
            return;
        }
        if a.iter().chain(&b).all(|&i| w[i as usize] == 0.0) && self.asleep[ba] == self.asleep[bb] {
            return;
        }
        // Motion of the edges relative to each other (the largest relative motion of an
        // end of one against an end of the other bounds that of their closest points),
        // as for vertex–triangle pairs.
        let moved = {
            let mut m = 0.0f32;
            for &i in &a {
                let da = x[i as usize] - x_prev[i as usize];
                for &j in &b {
                    m = m.max((da - (x[j as usize] - x_prev[j as usize])).length());
                }
            }
            m
        };
        let [a0, a1] = a.map(|i| x[i as usize]);
        let [b0, b1] = b.map(|i| x[i as usize]);
        let (s, t) = closest_segment_params(a0, a1, b0, b1);
        let delta = a0.lerp(a1, s) - b0.lerp(b1, t);
        let d = self.thickness(ba, bb);
        if delta.length() > d + moved + self.margin {
            return;
        }
        let normal = {
            let [p0, p1] = a.map(|i| x_prev[i as usize]);
            let [q0, q1] = b.map(|i| x_prev[i as usize]);
            let (s0, t0) = closest_segment_params(p0, p1, q0, q1);
            let n0 = (p0.lerp(p1, s0) - q0.lerp(q1, t0)).normalize_or_zero();
            if n0 != Vec3::ZERO {
                n0
            } else {
                delta.normalize_or_zero()
            }
        };
        if normal == Vec3::ZERO {
            return;
        }
        let (fa, fb) = (self.friction[ba], self.friction[bb]);
        let mut contact = Contact {
            vertex: ea,
            triangle: eb,
            edge: true,
            side: 1.0,
            normal,
            distance: d,
            friction: [0.5 * (fa[0] + fb[0]), 0.5 * (fa[1] + fb[1])],
            push: 0.0,
            overlap: 0.0,
        };
        let start = [a[0], a[1], b[0], b[1]].map(|i| x_prev[i as usize]);
        if let Some((_, _, _, value)) = Self::evaluate_edge(&contact, start) {
            hold_start(&mut contact, value);
        }
        out.push(contact);
    }

    /// An edge–edge contact's current direction, closest-point parameters `(s, t)` and
    /// constraint value.
    #[inline]
    pub(super) fn evaluate_edge(c: &Contact, [a0, a1, b0, b1]: [Vec3; 4]) -> Option<(Vec3, f32, f32, f32)> {
        let (s, t) = closest_segment_params(a0, a1, b0, b1);
        let delta = a0.lerp(a1, s) - b0.lerp(b1, t);
        let len = delta.length();
        // On the start's side: apart along `pa − pb`. Behind it with both closest points
        // inside their edges, the edges have crossed: back along the cross product
        // (which `pa − pb` then follows, up to rounding; nearly parallel edges, whose
        // cross product is noise, fail the test) turned to the start's side.
        let n = if len > 1e-12 && delta.dot(c.normal) >= 0.0 {
            delta / len
        } else {
            let cross = (a1 - a0).cross(b1 - b0).normalize_or_zero();
            let cross = if cross.dot(c.normal) < 0.0 { -cross } else { cross };
            let interior = s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0;
            if cross != Vec3::ZERO && interior && cross.dot(delta).abs() >= 0.9 * len {
                cross
            } else {
                return None;
            }
        };
        Some((n, s, t, n.dot(delta) - c.distance))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_segment_points() {
        let (s, t) = closest_segment_params(Vec3::ZERO, Vec3::X, Vec3::new(0.3, -1.0, 0.5), Vec3::new(0.3, 1.0, 0.5));
        assert!((s - 0.3).abs() < 1e-6 && (t - 0.5).abs() < 1e-6);
        let (s, t) = closest_segment_params(Vec3::ZERO, Vec3::X, Vec3::new(2.0, 0.0, 1.0), Vec3::new(3.0, 0.0, 1.0));
        assert!(s == 1.0 && t == 0.0);
        // Parallel segments.
        let (s, t) = closest_segment_params(Vec3::ZERO, Vec3::X, Vec3::new(0.5, 1.0, 0.0), Vec3::new(1.5, 1.0, 0.0));
        assert!(((Vec3::X * s - Vec3::new(0.5 + t, 1.0, 0.0)).length() - 1.0).abs() < 1e-6);
    }
}
