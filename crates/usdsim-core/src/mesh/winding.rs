//! Generalised winding numbers of a triangle soup (Jacobson, Kavan & Sorkine-Hornung,
//! "Robust Inside-Outside Segmentation using Generalized Winding Numbers", SIGGRAPH
//! 2013), evaluated through a bounding-volume hierarchy with the far-field dipole
//! approximation of Barill et al., "Fast Winding Numbers for Soups and Clouds"
//! (SIGGRAPH 2018).
//!
//! The winding number of a closed, outward-wound surface is 1 inside and 0 outside; of
//! an open surface (the Utah teapot has no bottom and a loose lid) it varies smoothly
//! across the holes, so thresholding it at ½ still separates inside from outside where
//! an even-odd ray test would fail. Self-intersections add, which thresholding also
//! tolerates.

use glam::DVec3;

/// Triangles per leaf: below this an exact sum is cheaper than descending.
const LEAF_SIZE: usize = 8;

/// A node counts as far, and is replaced by its dipole, when the query is more than
/// `BETA` times the node's radius from its centre. Barill et al. use 2; the error at
/// that distance is a few percent of the node's contribution, far below the ½
/// threshold's margin away from the surface.
const BETA: f64 = 2.0;

/// One BVH node: its triangles `start..end` (in `order`), bounds, and the dipole that
/// stands for them from far away.
#[derive(Clone, Debug)]
struct Node {
    lo: DVec3,
    hi: DVec3,
    /// Area-weighted centroid of its triangles.
    centre: DVec3,
    /// Largest distance from `centre` to a corner of the bounds.
    radius: f64,
    /// Sum of the triangles' area vectors (½ (b − a) × (c − a)).
    area_normal: DVec3,
    /// Child node indices; `None` for a leaf.
    children: Option<[usize; 2]>,
    start: usize,
    end: usize,
}

/// A triangle soup prepared for fast winding-number queries.
#[derive(Clone, Debug)]
pub struct WindingTree {
    /// Triangle corners, in tree order.
    triangles: Vec<[DVec3; 3]>,
    nodes: Vec<Node>,
}

impl WindingTree {
    /// Builds the tree over `triangles` (corner positions; orientation matters: outward
    /// counter-clockwise gives +1 inside). Degenerate triangles are harmless.
    pub fn new(triangles: &[[DVec3; 3]]) -> WindingTree {
        let mut tree = WindingTree { triangles: triangles.to_vec(), nodes: Vec::new() };
        if !tree.triangles.is_empty() {
            let n = tree.triangles.len();
            tree.build(0, n);
        }
        tree
    }

    /// Builds the node over `start..end`, splitting at the median centroid along the
    /// longest axis of the centroids' bounds; returns its index.
    fn build(&mut self, start: usize, end: usize) -> usize {
        let tris = &self.triangles[start..end];
        let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
        let (mut weighted, mut area_sum, mut area_normal) = (DVec3::ZERO, 0.0, DVec3::ZERO);
        for t in tris {
            for p in t {
                lo = lo.min(*p);
                hi = hi.max(*p);
            }
            let n = 0.5 * (t[1] - t[0]).cross(t[2] - t[0]);
            let a = n.length();
            weighted += a * (t[0] + t[1] + t[2]) / 3.0;
            area_sum += a;
            area_normal += n;
        }
        let centre = if area_sum > 0.0 { weighted / area_sum } else { 0.5 * (lo + hi) };
        let radius = (lo - centre).abs().max((hi - centre).abs()).length();
        let index = self.nodes.len();
        self.nodes.push(Node { lo, hi, centre, radius, area_normal, children: None, start, end });
        if end - start > LEAF_SIZE {
            let centroid = |t: &[DVec3; 3]| (t[0] + t[1] + t[2]) / 3.0;
            let extent = hi - lo;
            let axis = if extent.x >= extent.y && extent.x >= extent.z {
                0
            } else if extent.y >= extent.z {
                1
            } else {
                2
            };
            let mid = (end - start) / 2;
            self.triangles[start..end]
                .select_nth_unstable_by(mid, |a, b| centroid(a)[axis].total_cmp(&centroid(b)[axis]));
            let left = self.build(start, start + mid);
            let right = self.build(start + mid, end);
            self.nodes[index].children = Some([left, right]);
        }
        index
    }

    /// The number of triangles.
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    /// Whether the soup is empty (the winding number is then 0 everywhere).
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// The generalised winding number at `q`: exact for near triangles, the dipole of a
    /// node for far ones.
    pub fn winding_number(&self, q: DVec3) -> f64 {
        if self.nodes.is_empty() {
            return 0.0;
        }
        let mut solid_angle = 0.0;
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            let node = &self.nodes[i];
            let d = node.centre - q;
            let dist = d.length();
            let inside_box = q.cmpge(node.lo).all() && q.cmple(node.hi).all();
            if !inside_box && dist > BETA * node.radius {
                solid_angle += d.dot(node.area_normal) / (dist * dist * dist);
                continue;
            }
            match node.children {
                Some([a, b]) => {
                    stack.push(a);
                    stack.push(b);
                }
                None => {
                    for t in &self.triangles[node.start..node.end] {
                        solid_angle += triangle_solid_angle(t, q);
                    }
                }
            }
        }
        solid_angle / (4.0 * std::f64::consts::PI)
    }

    /// The exact winding number (every triangle summed): the reference the tree is
    /// tested against.
    pub fn winding_number_exact(&self, q: DVec3) -> f64 {
        self.triangles.iter().map(|t| triangle_solid_angle(t, q)).sum::<f64>() / (4.0 * std::f64::consts::PI)
    }
}

/// The signed solid angle triangle `t` subtends at `q` (Van Oosterom & Strackee 1983).
fn triangle_solid_angle(t: &[DVec3; 3], q: DVec3) -> f64 {
    let (a, b, c) = (t[0] - q, t[1] - q, t[2] - q);
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let det = a.dot(b.cross(c));
    let div = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    if det == 0.0 && div <= 0.0 {
        // On the triangle's plane (or a corner): no contribution either way.
        return 0.0;
    }
    2.0 * det.atan2(div)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::voxel_tets::tests::uv_sphere;

    #[test]
    fn closed_sphere_is_one_inside_zero_outside() {
        // Exact to rounding; the tree within the dipoles' couple of percent.
        let tree = WindingTree::new(&uv_sphere(1.0, 24, 12));
        assert!((tree.winding_number_exact(DVec3::ZERO) - 1.0).abs() < 1e-9);
        assert!((tree.winding_number_exact(DVec3::new(2.0, 0.1, 0.0))).abs() < 1e-9);
        assert!((tree.winding_number(DVec3::ZERO) - 1.0).abs() < 0.02);
        assert!((tree.winding_number(DVec3::new(0.3, -0.2, 0.5)) - 1.0).abs() < 0.02);
        assert!(tree.winding_number(DVec3::new(2.0, 0.1, 0.0)).abs() < 0.02);
        assert!(tree.winding_number(DVec3::new(0.0, 30.0, 5.0)).abs() < 0.02);
    }

    #[test]
    fn open_hemisphere_is_half_at_its_rim_centre() {
        // Only the upper half: at the centre of the missing disc the number is ½, and
        // it stays on the right side of ½ away from the hole.
        let upper: Vec<[DVec3; 3]> =
            uv_sphere(1.0, 24, 12).into_iter().filter(|t| t.iter().all(|p| p.z >= -1e-9)).collect();
        let tree = WindingTree::new(&upper);
        assert!((tree.winding_number_exact(DVec3::ZERO) - 0.5).abs() < 1e-9);
        assert!((tree.winding_number(DVec3::ZERO) - 0.5).abs() < 0.02);
        assert!(tree.winding_number(DVec3::new(0.0, 0.0, 0.6)) > 0.5);
        assert!(tree.winding_number(DVec3::new(0.0, 0.0, 1.5)) < 0.5);
    }

    #[test]
    fn tree_matches_the_exact_sum() {
        let tree = WindingTree::new(&uv_sphere(1.0, 48, 24));
        for q in [DVec3::new(0.1, 0.2, 0.3), DVec3::new(1.2, 0.0, 0.1), DVec3::new(-0.9, 0.3, 0.0)] {
            assert!((tree.winding_number(q) - tree.winding_number_exact(q)).abs() < 0.02, "{q}");
        }
    }
}
