//! Refreshing the lists ([`super`]) at every substep: kept while they hold, repaired
//! when a few vertices strayed, else built again (new paths, the vertex boxes, the cone
//! tree refitted and searched).

use super::{Check, MIN_WINDOW, SKIN_MARGINS};
use crate::contact::deformable::leaf_pair::{Found, LeafPair};
use crate::contact::deformable::path::{Path, WINDOW};
use crate::contact::deformable::surfaces::Surfaces;
use crate::contact::filter_table::FilterTable;
use glam::Vec3;

impl Surfaces {
    /// Makes the candidate lists valid for this substep (`x` predicted, `x_prev` start
    /// positions), repairing or rebuilding them when [`Candidates::check`] says they may miss
    /// a pair.
    ///
    /// [`Candidates::check`]: super::Candidates::check
    pub(in crate::contact::deformable) fn refresh_candidates(
        &mut self,
        x: &[Vec3],
        x_prev: &[Vec3],
        filter: &FilterTable,
    ) {
        let skin = SKIN_MARGINS * self.margin;
        let kept = match self.candidates.check(&self.vertices, x, x_prev, skin) {
            Check::Holds => true,
            Check::Strays(strays) => {
                self.repair(x, x_prev, filter, skin, &strays);
                true
            }
            Check::Rebuild => false,
        };
        if kept {
            self.candidates.served += 1;
            self.candidates.remember(x_prev);
            return;
        }
        let mut c = std::mem::take(&mut self.candidates);
        // Rebuilt early after `k` substeps: a window of `k + 1`; else a full one.
        c.window = match c.served {
            k if k > 0 && k < c.window => (k + 1).clamp(MIN_WINDOW, WINDOW),
            _ => WINDOW,
        };
        c.start_paths(x, x_prev);
        c.remember(x_prev);
        c.frame = Path::mean(&c.paths, &self.vertices);
        self.all_vertex_boxes(&c.paths, &c.frame, skin, c.window, &mut c.boxes);
        let keep: Vec<f32> = self.self_radius.iter().map(|r| 2.0 * r + self.margin + 3.0 * skin).collect();
        let mut tree = std::mem::take(&mut self.tree);
        tree.refit(self, &c.paths, c.window, 0.5 * skin, &c.boxes, &keep);
        let found = tree
            .search(self, filter, &|out: &mut Found, pair: LeafPair| self.test_leaf_pair(&c, filter, skin, out, pair));
        self.tree = tree;
        c.vertex_triangle = found.vertex_triangle;
        c.edge_edge = found.edge_edge;
        c.repaired.clear();
        c.served = 1;
        c.builds += 1;
        self.candidates = c;
    }
}
