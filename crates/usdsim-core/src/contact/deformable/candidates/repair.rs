//! Repairing the lists ([`super`]) when a few vertices left their predicted paths inside
//! the window: new paths for them, and the pairs around them searched again.

use crate::constraint::lanes::LANES;
use crate::contact::deformable::leaf_pair::Found;
use crate::contact::deformable::path::Path;
use crate::contact::deformable::surfaces::Surfaces;
use crate::contact::filter_table::FilterTable;
use glam::Vec3;

impl Surfaces {
    /// Keeps the lists valid when a few vertices (`strays`, at most [`REPAIR_STRAYS`]) left
    /// their paths inside the window, instead of rebuilding them: each of them gets the
    /// path through this substep ([`Path::from_substep`]) and its box, and every triangle
    /// around them is tested, by boxes alone, against the triangles near it and against
    /// every triangle repaired since the build. The pairs found join the lists, which
    /// only grow. Pairs without a repaired vertex keep what the build proved: their
    /// vertices are still on their paths, and whether two features of a skipped smooth
    /// region can meet does not depend on where a third vertex went.
    ///
    /// [`REPAIR_STRAYS`]: super::REPAIR_STRAYS
    pub(super) fn repair(&mut self, x: &[Vec3], x_prev: &[Vec3], filter: &FilterTable, skin: f32, strays: &[u32]) {
        let k = self.candidates.served as f32;
        let mut c = std::mem::take(&mut self.candidates);
        let known = c.known(x.len());
        let mut fresh = Vec::new();
        for &v in strays {
            let i = v as usize;
            c.paths[i] = Path::from_substep(k, c.current_path(i, x, x_prev, known));
            fresh.extend_from_slice(self.tree.star(v));
        }
        // The strays' boxes, eight a batch (the last lanes repeat the last stray).
        for batch in strays.chunks(LANES) {
            let idx = std::array::from_fn(|l| batch[l.min(batch.len() - 1)]);
            let found = self.vertex_boxes(idx, &c.paths, &c.frame, skin, c.window);
            for (&v, &b) in batch.iter().zip(&found) {
                c.boxes[v as usize] = b;
            }
        }
        fresh.sort_unstable();
        fresh.dedup();
        let mut touched = c.repaired.clone();
        touched.extend_from_slice(&fresh);
        touched.sort_unstable();
        touched.dedup();
        // The repaired triangles' boxes from their corners' (the refit's are stale).
        let corners = |t: u32| {
            let [a, b, d] = self.triangles[t as usize].map(|i| c.boxes[i as usize]);
            (a.0.min(b.0).min(d.0), a.1.max(b.1).max(d.1))
        };
        let box_of = |t: u32| if touched.binary_search(&t).is_ok() { corners(t) } else { self.tree.triangle_box(t) };
        let (mut found, mut near) = (Found::default(), Vec::new());
        for &t1 in &fresh {
            let b1 = corners(t1);
            near.clear();
            self.tree.near_triangles(b1.0, b1.1, &mut near);
            near.extend_from_slice(&touched);
            near.sort_unstable();
            near.dedup();
            for &t2 in near.iter().filter(|&&t2| t2 != t1) {
                self.test_leaf_pair(&c, filter, skin, &mut found, self.tree.pair_of(t1, t2, [b1, box_of(t2)]));
            }
        }
        c.vertex_triangle.append(&mut found.vertex_triangle);
        c.vertex_triangle.sort_unstable();
        c.vertex_triangle.dedup();
        c.edge_edge.append(&mut found.edge_edge);
        c.edge_edge.sort_unstable();
        c.edge_edge.dedup();
        c.repaired = touched;
        c.repairs += 1;
        self.candidates = c;
    }
}
