//! Searching the refitted cone tree ([`super`]): every leaf pair whose boxes overlap and
//! that no smooth region holds, in parallel over the larger subtrees ([`ConeTree::search`]),
//! and the queries a list repair asks of it (the triangles near a box, a triangle's box).

use super::{ConeTree, NONE, SPLIT_LEAVES};
use crate::contact::deformable::bounds::{boxes_overlap, lanes_overlap, merge, overlap, smooth};
use crate::contact::deformable::leaf_pair::{Found, LeafPair};
use crate::contact::deformable::surfaces::Surfaces;
use crate::contact::filter_table::FilterTable;
use glam::{Vec3, Vec3A};

/// Two nodes whose triangle counts multiply to at most this are searched leaf by leaf,
/// without the visits of the levels between (of 4, 8, 16, 32 and 64, 16 took the fewest
/// instructions on the 64² bench cloth with leaves of two triangles).
const BRUTE_PAIRS: u32 = 16;

impl ConeTree {
    /// Calls `leaf_pair(origin, t1, t2)` for every pair of distinct triangles under `root`
    /// whose leaves' boxes overlap and that no skipped node holds, `origin` the node where
    /// their branches part (their leaf, for the two triangles of one). On one thread.
    pub(super) fn self_search(&self, root: u32, leaf_pair: &mut impl FnMut(u32, u32, u32)) {
        let node = self.nodes[root as usize];
        if (node.left == NONE && node.count == 1) || self.skips(root) {
            return;
        }
        if node.left == NONE {
            // A leaf of two triangles: the one pair inside it.
            leaf_pair(root, self.order[node.first as usize], self.order[node.first as usize + 1]);
            return;
        }
        self.self_search(node.left, leaf_pair);
        self.self_search(node.right, leaf_pair);
        self.cross_search(root, node.left, node.right, leaf_pair);
    }

    fn cross_search(&self, origin: u32, a: u32, b: u32, leaf_pair: &mut impl FnMut(u32, u32, u32)) {
        if !overlap(&self.bounds[a as usize], &self.bounds[b as usize]) || self.skips_together(origin, a, b) {
            return;
        }
        let (na, nb) = (self.nodes[a as usize], self.nodes[b as usize]);
        if na.count * nb.count <= BRUTE_PAIRS && na.count + nb.count > 2 {
            // Small nodes: their leaves pairwise, without the visits of the levels between.
            for pa in na.first..na.first + na.count {
                let la = self.leaf_of[self.order[pa as usize] as usize];
                if self.nodes[la as usize].first != pa {
                    continue;
                }
                for pb in nb.first..nb.first + nb.count {
                    let lb = self.leaf_of[self.order[pb as usize] as usize];
                    if self.nodes[lb as usize].first == pb
                        && overlap(&self.bounds[la as usize], &self.bounds[lb as usize])
                        && !self.skips_together(origin, la, lb)
                    {
                        self.triangle_pairs(origin, la, lb, leaf_pair);
                    }
                }
            }
            return;
        }
        match (na.left == NONE, nb.left == NONE) {
            (true, true) => self.triangle_pairs(origin, a, b, leaf_pair),
            (false, true) => {
                self.cross_search(origin, na.left, b, leaf_pair);
                self.cross_search(origin, na.right, b, leaf_pair);
            }
            (true, false) => {
                self.cross_search(origin, a, nb.left, leaf_pair);
                self.cross_search(origin, a, nb.right, leaf_pair);
            }
            (false, false) => {
                // Split the larger, so that the boxes tested shrink fastest.
                if na.count >= nb.count {
                    self.cross_search(origin, na.left, b, leaf_pair);
                    self.cross_search(origin, na.right, b, leaf_pair);
                } else {
                    self.cross_search(origin, a, nb.left, leaf_pair);
                    self.cross_search(origin, a, nb.right, leaf_pair);
                }
            }
        }
    }

    /// Whether node `n`'s cone and altitude rule out any pair inside it ([`cone_tree`]
    /// module documentation, [`smooth`]).
    ///
    /// [`cone_tree`]: super
    fn skips(&self, n: u32) -> bool {
        if !self.cones || !self.nodes[n as usize].prunable {
            return false;
        }
        smooth(&self.bounds[n as usize], self.window)
    }

    /// Calls `leaf_pair(origin, ta, tb)` for the triangles of leaves `a` and `b` (whose
    /// boxes overlap and which are not skipped together) whose own boxes overlap.
    fn triangle_pairs(&self, origin: u32, a: u32, b: u32, leaf_pair: &mut impl FnMut(u32, u32, u32)) {
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        if self.skips_around(na.leaf, nb.leaf) {
            return;
        }
        let (boxes_a, boxes_b) = (&self.triangle_boxes[na.leaf as usize], &self.triangle_boxes[nb.leaf as usize]);
        for (&ta, ba) in self.run(na).iter().zip(boxes_a) {
            for (&tb, bb) in self.run(nb).iter().zip(boxes_b) {
                if boxes_overlap(*ba, *bb) {
                    leaf_pair(origin, ta, tb);
                }
            }
        }
    }

    /// Whether leaves `a` and `b` (indices into [`ConeTree::leaves`]) share a vertex whose
    /// star region (the leaves holding its triangles) passes the cone test. The region
    /// holds both leaves and is a disk of triangles connected through shared edges, so the
    /// module's argument applies to it as to a node: no pair inside it, those of `a`
    /// against `b` among them, can be kept in the window. This certifies pairs of leaves
    /// that meet at a corner only, which the adjacent-node skip
    /// ([`ConeTree::skips_together`]) cannot, because their union alone is not connected
    /// through edges: on the swinging 64² bench cloth (240 frames) about half the leaf
    /// pairs the search reached met at a corner, and 56 % of those were skipped here.
    pub(super) fn skips_around(&self, a: u32, b: u32) -> bool {
        if !self.cones {
            return false;
        }
        let (ca, cb) = (self.leaf_corners[a as usize], self.leaf_corners[b as usize]);
        match ca.iter().find(|v| cb.contains(v)) {
            Some(&v) => self.stars.smooth(v, &self.leaves, self.window),
            None => false,
        }
    }

    /// Triangle `t`'s box at the last refit.
    pub(in crate::contact::deformable) fn triangle_box(&self, t: u32) -> (Vec3, Vec3) {
        let leaf = &self.nodes[self.leaf_of[t as usize] as usize];
        self.triangle_boxes[leaf.leaf as usize][usize::from(self.order[leaf.first as usize] != t)]
    }

    /// Appends to `out` every triangle whose box at the last refit overlaps `(lo, hi)`
    /// (boxes only: no cone skips a pair).
    pub(in crate::contact::deformable) fn near_triangles(&self, lo: Vec3, hi: Vec3, out: &mut Vec<u32>) {
        let mut stack: Vec<u32> = self.roots.iter().map(|&(_, root)| root).collect();
        let query = (Vec3A::from(lo), Vec3A::from(hi));
        while let Some(n) = stack.pop() {
            let bound = &self.bounds[n as usize];
            if !lanes_overlap((bound.lo, bound.hi), query) {
                continue;
            }
            let node = &self.nodes[n as usize];
            if node.left != NONE {
                stack.push(node.left);
                stack.push(node.right);
                continue;
            }
            for (&t, &b) in self.run(node).iter().zip(&self.triangle_boxes[node.leaf as usize]) {
                if boxes_overlap(b, (lo, hi)) {
                    out.push(t);
                }
            }
        }
    }

    /// Triangles `t1` and `t2`, with boxes `boxes`, as a pair for the leaf test.
    pub(in crate::contact::deformable) fn pair_of(&self, t1: u32, t2: u32, boxes: [(Vec3, Vec3); 2]) -> LeafPair {
        LeafPair {
            triangles: [t1, t2],
            boxes,
            vertices: [self.owned_vertices[t1 as usize], self.owned_vertices[t2 as usize]],
            edges: [self.owned_edges[t1 as usize], self.owned_edges[t2 as usize]],
        }
    }

    /// Whether nodes `a` and `b` of one body (parts of node `origin`) are skipped against
    /// each other: both may be skipped, they share an edge (so their union is connected),
    /// no pair under `origin` is close at rest, and their union passes the cone test.
    fn skips_together(&self, origin: u32, a: u32, b: u32) -> bool {
        if !self.cones || origin == NONE || self.nodes[origin as usize].close {
            return false;
        }
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        let (lo, hi) = (a.min(b) as usize, a.max(b));
        let listed = &self.adjacent[self.adjacent_start[lo] as usize..self.adjacent_start[lo + 1] as usize];
        if !(na.prunable && nb.prunable && listed.contains(&hi)) {
            return false;
        }
        let (x, y) = (&self.bounds[a as usize], &self.bounds[b as usize]);
        // The union's cone is no narrower and its altitude no larger than either's, its
        // keep no smaller: a quick no before the merge.
        if x.altitude.min(y.altitude) * x.cos.min(y.cos) <= x.keep.max(y.keep) {
            return false;
        }
        smooth(&merge(x, y), self.window)
    }

    /// Every candidate pair of the window: self pairs of each body that collides with
    /// itself and pairs between bodies that collide, through `test` (which applies the
    /// list's bound and filters), sorted.
    pub(in crate::contact::deformable) fn search<F>(&self, s: &Surfaces, filter: &FilterTable, test: &F) -> Found
    where
        F: Fn(&mut Found, LeafPair) + Sync,
    {
        let mut found = Found::default();
        for (i, &(b, root)) in self.roots.iter().enumerate() {
            if s.self_contact[b as usize] {
                found.append(self.self_parallel(root, test));
            }
            for &(c, other) in &self.roots[i + 1..] {
                if filter.bodies_collide(b as usize, c as usize) {
                    found.append(self.cross_parallel(NONE, root, other, test));
                }
            }
        }
        found.vertex_triangle.sort_unstable();
        found.edge_edge.sort_unstable();
        found
    }

    fn leaf_pair<F: Fn(&mut Found, LeafPair)>(&self, out: &mut Found, t1: u32, t2: u32, test: &F) {
        test(out, self.pair_of(t1, t2, [self.triangle_box(t1), self.triangle_box(t2)]));
    }

    fn self_parallel<F: Fn(&mut Found, LeafPair) + Sync>(&self, root: u32, test: &F) -> Found {
        let node = self.nodes[root as usize];
        if node.count <= SPLIT_LEAVES {
            let mut out = Found::default();
            self.self_search(root, &mut |_, t1, t2| self.leaf_pair(&mut out, t1, t2, test));
            return out;
        }
        if self.skips(root) {
            return Found::default();
        }
        let ((mut a, b), c) = rayon::join(
            || rayon::join(|| self.self_parallel(node.left, test), || self.self_parallel(node.right, test)),
            || self.cross_parallel(root, node.left, node.right, test),
        );
        a.append(b);
        a.append(c);
        a
    }

    fn cross_parallel<F>(&self, origin: u32, a: u32, b: u32, test: &F) -> Found
    where
        F: Fn(&mut Found, LeafPair) + Sync,
    {
        let (na, nb) = (self.nodes[a as usize], self.nodes[b as usize]);
        if !overlap(&self.bounds[a as usize], &self.bounds[b as usize]) || self.skips_together(origin, a, b) {
            return Found::default();
        }
        if na.count + nb.count <= SPLIT_LEAVES {
            let mut out = Found::default();
            self.cross_search(origin, a, b, &mut |_, t1, t2| self.leaf_pair(&mut out, t1, t2, test));
            return out;
        }
        let (x, y) = if na.count >= nb.count { ((na.left, b), (na.right, b)) } else { ((a, nb.left), (a, nb.right)) };
        let (mut p, q) =
            rayon::join(|| self.cross_parallel(origin, x.0, x.1, test), || self.cross_parallel(origin, y.0, y.1, test));
        p.append(q);
        p
    }
}
