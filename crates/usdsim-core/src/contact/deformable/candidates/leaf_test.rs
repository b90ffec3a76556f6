//! The test a list build ([`super`]) applies to each leaf pair the cone tree's search
//! finds: which of the pair's (vertex, triangle) and (edge, edge) pairs the lists keep,
//! by their boxes, the window's bound on their distance, and the filters.

use super::Candidates;
use crate::contact::deformable::bounds::boxes_overlap;
use crate::contact::deformable::cone_tree::NONE;
use crate::contact::deformable::leaf_pair::{Found, LeafPair};
use crate::contact::deformable::surfaces::Surfaces;
use crate::contact::filter_table::FilterTable;
use crate::mesh::closest::{closest_point, closest_segment_params, point};

impl Surfaces {
    /// The bound on a pair's distance at the build beyond which no substep of the window
    /// keeps it ([`candidates`] module documentation), from its closest vertices' paths
    /// `a` and `b`.
    ///
    /// [`candidates`]: super
    fn reach_bound(&self, a: &[u32], b: &[u32], c: &Candidates, skin: f32) -> f32 {
        let (last, paths) = ((c.window - 1) as f32, &c.paths);
        // Largest squared differences, one root each: the square root is monotone and
        // correctly rounded, so this is the largest of the lengths, bit for bit.
        let (mut dv, mut dd, mut da) = (0.0f32, 0.0f32, 0.0f32);
        for &i in a {
            let p = &paths[i as usize];
            for &j in b {
                let q = &paths[j as usize];
                dv = dv.max((p.velocity - q.velocity).length_squared());
                dd = dd.max((p.step - q.step).length_squared());
                da = da.max((p.acceleration - q.acceleration).length_squared());
            }
        }
        let (dv, dd, da) = (dv.sqrt(), dd.sqrt(), da.sqrt());
        self.margin + 3.0 * skin + last * dv + 2.0 * dd + (0.5 * last * (last + 1.0) + 2.0 * last) * da
    }

    /// Tests leaf pair `pair` of the tree's search: each owned vertex of one triangle
    /// against the other triangle, and each owned edge of one against each of the other,
    /// keeping the pairs whose boxes along their paths overlap, within the window's bound
    /// and allowed by the filters.
    pub(super) fn test_leaf_pair(
        &self,
        c: &Candidates,
        filter: &FilterTable,
        skin: f32,
        out: &mut Found,
        pair: LeafPair,
    ) {
        // The vertices' boxes hold their radii already.
        let box_of = |i: u32| c.boxes[i as usize];
        for side in 0..2 {
            let t = pair.triangles[1 - side];
            let tri = self.triangles[t as usize];
            let tb = self.tri_body[t as usize] as usize;
            let tri_box = pair.boxes[1 - side];
            for &v in &pair.vertices[side] {
                if v == NONE || tri.contains(&v) {
                    continue;
                }
                if !boxes_overlap(box_of(v), tri_box) {
                    continue;
                }
                let p = c.paths[v as usize].base;
                let base = |i: u32| c.paths[i as usize].base;
                let [a, b, cc] = [base(tri[0]), base(tri[1]), base(tri[2])];
                let (bary, _) = closest_point(p, a, b, cc);
                let dist = p.distance(point(bary, a, b, cc));
                let d = self.thickness(self.vertex_body[v as usize] as usize, tb);
                if dist <= d + self.reach_bound(&[v], &tri, c, skin) && self.vertex_pair_allowed(filter, v, t) {
                    out.vertex_triangle.push((v, t));
                }
            }
        }
        let edge_box = |e: u32| {
            let [i, j] = self.edges[e as usize];
            let ((l0, h0), (l1, h1)) = (box_of(i), box_of(j));
            (l0.min(l1), h0.max(h1))
        };
        for &ea in &pair.edges[0] {
            if ea == NONE {
                continue;
            }
            let a = self.edges[ea as usize];
            let abox = edge_box(ea);
            for &eb in &pair.edges[1] {
                if eb == NONE {
                    continue;
                }
                let b = self.edges[eb as usize];
                if a.iter().any(|v| b.contains(v)) || !boxes_overlap(abox, edge_box(eb)) {
                    continue;
                }
                // Lower edge first, as every other test of the pair computes it.
                let (lo, hi) = (ea.min(eb), ea.max(eb));
                let (p, q) = (self.edges[lo as usize], self.edges[hi as usize]);
                let base = |i: u32| c.paths[i as usize].base;
                let [a0, a1, b0, b1] = [base(p[0]), base(p[1]), base(q[0]), base(q[1])];
                let (s, t) = closest_segment_params(a0, a1, b0, b1);
                let dist = a0.lerp(a1, s).distance(b0.lerp(b1, t));
                let d = self.thickness(self.edge_body[ea as usize] as usize, self.edge_body[eb as usize] as usize);
                if dist <= d + self.reach_bound(&p, &q, c, skin) && self.edge_pair_allowed(filter, lo, hi) {
                    out.edge_edge.push((lo, hi));
                }
            }
        }
    }
}
