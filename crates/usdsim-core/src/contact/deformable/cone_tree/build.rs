//! Building the cone tree ([`super`]) once, from the rest positions: the median splits
//! that keep each node's triangles connected, the leaves of one or two triangles, the
//! owners of every vertex and edge, the node pairs that share an edge, and which nodes
//! and vertex regions the cone test may skip.

use super::{ConeTree, Node, VertexRegions, NONE};
use crate::contact::deformable::bounds::{altitude, merge, Bound};
use crate::contact::deformable::path::WINDOW;
use crate::contact::deformable::surfaces::Surfaces;
use crate::mesh::closest::{closest_point, closest_segment_params, point};
use glam::Vec3;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicU32;

/// Each triangle's neighbours through shared edges (NONE-padded).
fn edge_neighbours(triangles: &[[u32; 3]]) -> Vec<[u32; 3]> {
    let mut by_edge: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for j in 0..3 {
            let (a, b) = (tri[j], tri[(j + 1) % 3]);
            by_edge.entry((a.min(b), a.max(b))).or_default().push(t as u32);
        }
    }
    let mut out = vec![[NONE; 3]; triangles.len()];
    for (t, tri) in triangles.iter().enumerate() {
        for j in 0..3 {
            let (a, b) = (tri[j], tri[(j + 1) % 3]);
            let other = by_edge[&(a.min(b), a.max(b))].iter().copied().find(|&o| o != t as u32);
            out[t][j] = other.unwrap_or(NONE);
        }
    }
    out
}

/// Whether the triangles `run` are connected through shared edges (`neighbours`): a
/// union-find over the run. `label` (one entry per triangle) and `parent` are scratch.
fn connected_through_edges(run: &[u32], neighbours: &[[u32; 3]], label: &mut [u32], parent: &mut Vec<u32>) -> bool {
    for (k, &t) in run.iter().enumerate() {
        label[t as usize] = k as u32;
    }
    parent.clear();
    parent.extend(0..run.len() as u32);
    fn find(parent: &mut [u32], mut k: u32) -> u32 {
        while parent[k as usize] != k {
            parent[k as usize] = parent[parent[k as usize] as usize];
            k = parent[k as usize];
        }
        k
    }
    let mut groups = run.len();
    for (k, &t) in run.iter().enumerate() {
        for &o in &neighbours[t as usize] {
            let inside = o != NONE && (label[o as usize] as usize) < run.len() && run[label[o as usize] as usize] == o;
            if inside {
                let (a, b) = (find(parent, k as u32), find(parent, label[o as usize]));
                if a != b {
                    parent[a as usize] = b;
                    groups -= 1;
                }
            }
        }
    }
    groups == 1
}
/// What the tree's build reads of the triangles: their corners, rest positions and
/// neighbours through shared edges.
struct Mesh<'a> {
    triangles: &'a [[u32; 3]],
    rest: &'a [Vec3],
    neighbours: &'a [[u32; 3]],
}

/// Moves pieces of the split `run[..half]` | `run[half..]` across it so that, when the
/// run's triangles are connected through shared edges, so is each side; returns the new
/// split. A median split of a mesh's centroids often strands a triangle, or a strip,
/// that touches its side only at vertices, and a node whose triangles are not connected
/// may never be skipped (module documentation): measured on the 64² bench cloth, about
/// 700 of its 15,875 nodes, among them one of 992 triangles. Each side keeps its largest
/// piece and hands the others to the other side, which they touch through an edge (the
/// run is connected); handing pieces over only joins the receiving side's pieces, so
/// after the left side and then the right have done so both are connected. A run that
/// is not connected, or a repair that would empty a side, keeps the median split.
/// `side` is scratch, one entry per triangle, left [`NONE`] everywhere on return.
fn connected_halves(run: &mut [u32], half: usize, neighbours: &[[u32; 3]], side: &mut [u32]) -> usize {
    for (k, &t) in run.iter().enumerate() {
        side[t as usize] = u32::from(k >= half);
    }
    // The pieces of side `s` (or of the whole run, for `s` = 2) in run order, as
    // (piece start, length) into `order`, which lists their triangles piece by piece.
    let pieces = |s: u32, side: &mut [u32], order: &mut Vec<u32>| {
        const SEEN: u32 = 4;
        let inside = |x: u32| x != NONE && x < SEEN && (s == 2 || x == s);
        order.clear();
        let mut out = Vec::new();
        for &t in run.iter() {
            if !inside(side[t as usize]) {
                continue;
            }
            let start = order.len();
            side[t as usize] += SEEN;
            order.push(t);
            let mut k = start;
            while k < order.len() {
                for &o in &neighbours[order[k] as usize] {
                    if o != NONE && inside(side[o as usize]) {
                        side[o as usize] += SEEN;
                        order.push(o);
                    }
                }
                k += 1;
            }
            out.push((start, order.len() - start));
        }
        for &t in order.iter() {
            side[t as usize] -= SEEN;
        }
        out
    };
    let mut order = Vec::with_capacity(run.len());
    let whole = pieces(2, side, &mut order);
    let mut split = half;
    if whole.len() == 1 {
        for s in 0..2 {
            let found = pieces(s, side, &mut order);
            // The largest piece stays (the first of equal ones, for determinism).
            let largest = found.iter().enumerate().max_by_key(|&(i, p)| (p.1, std::cmp::Reverse(i))).map(|(i, _)| i);
            for (i, &(start, len)) in found.iter().enumerate() {
                if Some(i) != largest {
                    for &t in &order[start..start + len] {
                        side[t as usize] = 1 - s;
                    }
                }
            }
        }
        let left: Vec<u32> = run.iter().copied().filter(|&t| side[t as usize] == 0).collect();
        if !left.is_empty() && left.len() < run.len() {
            let right: Vec<u32> = run.iter().copied().filter(|&t| side[t as usize] == 1).collect();
            split = left.len();
            run[..split].copy_from_slice(&left);
            run[split..].copy_from_slice(&right);
        }
    }
    for &t in run.iter() {
        side[t as usize] = NONE;
    }
    split
}

/// A leaf's corners and whether its second triangle is reversed ([`ConeTree::leaf_corners`])
/// for one triangle.
fn single_corners([a, b, c]: [u32; 3]) -> ([u32; 4], bool) {
    ([a, b, c, c], true)
}

/// The same for two triangles that share exactly one edge (each with three distinct
/// vertices), or `None` (a duplicated or degenerate triangle: the two become leaves of
/// one). Rotating a triangle's vertices keeps its winding, so the first is rotated to
/// start at the shared edge.
fn pair_corners(first: [u32; 3], second: [u32; 3]) -> Option<([u32; 4], bool)> {
    let distinct = |t: [u32; 3]| t[0] != t[1] && t[1] != t[2] && t[2] != t[0];
    let mut outside = second.into_iter().filter(|v| !first.contains(v));
    let (Some(c3), None) = (outside.next(), outside.next()) else { return None };
    if !(distinct(first) && distinct(second)) {
        return None;
    }
    let k = (0..3).find(|&k| second.contains(&first[k]) && second.contains(&first[(k + 1) % 3]))?;
    let [c0, c1, c2] = [first[k], first[(k + 1) % 3], first[(k + 2) % 3]];
    // The second holds the edge as `c1 → c0` when both triangles agree on their winding.
    let agrees = (0..3).any(|j| second[j] == c1 && second[(j + 1) % 3] == c0);
    Some(([c0, c1, c2, c3], !agrees))
}

impl ConeTree {
    /// Builds the trees of `s`'s colliding bodies from the rest positions `rest`
    /// (global vertex indices).
    pub(in crate::contact::deformable) fn new(s: &Surfaces, rest: &[Vec3]) -> ConeTree {
        let mut tree = ConeTree { cones: true, window: WINDOW, ..Default::default() };
        let tris = &s.triangles;
        // Owners: a vertex's first triangle, an edge's first triangle.
        let mut vertex_owner = vec![NONE; rest.len()];
        tree.owned_vertices = vec![[NONE; 3]; tris.len()];
        for (t, tri) in tris.iter().enumerate() {
            for (j, &v) in tri.iter().enumerate() {
                if vertex_owner[v as usize] == NONE {
                    vertex_owner[v as usize] = t as u32;
                    tree.owned_vertices[t][j] = v;
                }
            }
        }
        tree.star_start = vec![0; rest.len() + 1];
        for &v in tris.iter().flatten() {
            tree.star_start[v as usize + 1] += 1;
        }
        for v in 0..rest.len() {
            tree.star_start[v + 1] += tree.star_start[v];
        }
        let mut fill = tree.star_start.clone();
        tree.star = vec![0; tris.len() * 3];
        for (t, tri) in tris.iter().enumerate() {
            for &v in tri {
                tree.star[fill[v as usize] as usize] = t as u32;
                fill[v as usize] += 1;
            }
        }
        tree.owned_edges = vec![[NONE; 3]; tris.len()];
        let mut tri_start = vec![NONE; s.radius.len()];
        for (t, &b) in s.tri_body.iter().enumerate().rev() {
            tri_start[b as usize] = t as u32;
        }
        for e in 0..s.edges.len() {
            let b = s.edge_body[e] as usize;
            let t = (tri_start[b] + s.edge_triangles(e)[0]) as usize;
            let slot = tree.owned_edges[t].iter().position(|&x| x == NONE).expect("a triangle has three edges");
            tree.owned_edges[t][slot] = e as u32;
        }
        let neighbours = edge_neighbours(tris);
        let mut label = vec![NONE; tris.len()];
        let mut t = 0;
        while t < tris.len() {
            let b = s.tri_body[t];
            let end = (t..tris.len()).find(|&k| s.tri_body[k] != b).unwrap_or(tris.len());
            tree.order.extend(t as u32..end as u32);
            let mesh = Mesh { triangles: tris, rest, neighbours: &neighbours };
            let root = tree.build(t as u32, (end - t) as u32, &mesh, &mut label);
            tree.roots.push((b, root));
            t = end;
        }
        // Whether each node's triangles are connected through shared edges: a union-find
        // over the node's run (every level holds each triangle once, so this costs the
        // triangle count times the tree's depth).
        let mut connected = vec![true; tree.nodes.len()];
        let mut parent: Vec<u32> = Vec::new();
        for (n, node) in tree.nodes.iter().enumerate() {
            if node.left == NONE {
                continue;
            }
            connected[n] = connected_through_edges(tree.run(node), &neighbours, &mut label, &mut parent);
        }
        // Adjacent node pairs: the ancestors of two triangles sharing an edge, below
        // where their branches meet.
        tree.leaf_of = vec![NONE; tris.len()];
        for (n, node) in tree.nodes.iter().enumerate() {
            if node.left == NONE {
                for &t in &tree.order[node.first as usize..(node.first + node.count) as usize] {
                    tree.leaf_of[t as usize] = n as u32;
                }
            }
        }
        let chain = |mut n: u32| {
            let mut out = Vec::new();
            while n != NONE {
                out.push(n);
                n = tree.nodes[n as usize].parent;
            }
            out
        };
        let mut adjacent = HashSet::new();
        for (t, ns) in neighbours.iter().enumerate() {
            for &o in ns.iter().filter(|&&o| o != NONE && o > t as u32) {
                let (ca, cb) = (chain(tree.leaf_of[t]), chain(tree.leaf_of[o as usize]));
                let common = ca.iter().rev().zip(cb.iter().rev()).take_while(|(x, y)| x == y).count();
                for &x in &ca[..ca.len() - common] {
                    for &y in &cb[..cb.len() - common] {
                        let (cx, cy) = (tree.nodes[x as usize].count, tree.nodes[y as usize].count);
                        if cx <= 2 * cy && cy <= 2 * cx {
                            adjacent.insert((x.min(y), x.max(y)));
                        }
                    }
                }
            }
        }
        let mut adjacent: Vec<(u32, u32)> = adjacent.into_iter().collect();
        adjacent.sort_unstable();
        tree.adjacent_start = vec![0; tree.nodes.len() + 1];
        for &(a, _) in &adjacent {
            tree.adjacent_start[a as usize + 1] += 1;
        }
        for n in 0..tree.nodes.len() {
            tree.adjacent_start[n + 1] += tree.adjacent_start[n];
        }
        tree.adjacent = adjacent.iter().map(|&(_, b)| b).collect();
        // Pairs closer at rest than the body's smallest altitude (slits, split seams,
        // folded rest shapes) keep the nodes holding them from being skipped.
        let mut smallest = vec![f32::INFINITY; s.radius.len()];
        for (t, tri) in tris.iter().enumerate() {
            let [a, b, c] = tri.map(|i| rest[i as usize]);
            let h = &mut smallest[s.tri_body[t] as usize];
            *h = h.min(altitude(a, b, c));
        }
        tree.bounds = vec![Bound::default(); tree.nodes.len()];
        tree.triangle_boxes = (tree.leaf_corners.iter())
            .map(|corners| {
                let [a, b, c, d] = corners.map(|i| rest[i as usize]);
                let grow = Vec3::splat(0.5 * smallest[s.vertex_body[corners[0] as usize] as usize]);
                [c, d].map(|p| (a.min(b).min(p) - grow, a.max(b).max(p) + grow))
            })
            .collect();
        for n in (0..tree.nodes.len()).rev() {
            let node = tree.nodes[n];
            tree.bounds[n] = if node.left == NONE {
                let [a, b] = tree.triangle_boxes[node.leaf as usize];
                Bound { lo: a.0.min(b.0).into(), hi: a.1.max(b.1).into(), ..Default::default() }
            } else {
                merge(&tree.bounds[node.left as usize], &tree.bounds[node.right as usize])
            };
        }
        let mut close = vec![false; tree.nodes.len()];
        // The corners of both triangles of every close pair, so that a region holding a
        // close pair's features holds a marked vertex (a pair is found through the
        // triangle owning its feature, which need not lie in the region).
        let mut close_vertices = vec![false; rest.len()];
        for &(b, root) in &tree.roots {
            let h = 0.999 * smallest[b as usize];
            tree.self_search(root, &mut |origin, t1, t2| {
                if tree.close_at_rest(s, rest, t1, t2, h) {
                    close[origin as usize] = true;
                    for v in tris[t1 as usize].into_iter().chain(tris[t2 as usize]) {
                        close_vertices[v as usize] = true;
                    }
                }
            });
        }
        for n in (0..tree.nodes.len()).rev() {
            let node = tree.nodes[n];
            if node.left != NONE {
                close[n] |= close[node.left as usize] || close[node.right as usize];
            }
            tree.nodes[n].prunable = connected[n] && !close[n];
            tree.nodes[n].close = close[n];
        }
        let mut stars = VertexRegions { start: Vec::with_capacity(rest.len() + 1), ..Default::default() };
        stars.start.push(0);
        for v in 0..rest.len() as u32 {
            stars.leaves.extend(
                tree.region(tree.star(v), tris, &neighbours, &close_vertices, (&mut label, &mut parent))
                    .unwrap_or_default(),
            );
            stars.start.push(stars.leaves.len() as u32);
        }
        stars.smooth.slots = (0..rest.len()).map(|_| AtomicU32::new(0)).collect();
        tree.stars = stars;
        tree
    }

    /// The leaves holding triangles `seeds`, when the triangles of those leaves form a
    /// region the cone test may skip: connected through shared edges, a disk (Euler
    /// characteristic 1: no hole whose rim could fold over it), and with none of its
    /// vertices in a pair closer at rest than the body's smallest altitude
    /// (`close_vertices`). Else none.
    fn region(
        &self,
        seeds: &[u32],
        triangles: &[[u32; 3]],
        neighbours: &[[u32; 3]],
        close_vertices: &[bool],
        (label, parent): (&mut [u32], &mut Vec<u32>),
    ) -> Option<Vec<u32>> {
        if seeds.is_empty() {
            return None;
        }
        let mut leaves: Vec<u32> = seeds.iter().map(|&t| self.leaf_of[t as usize]).collect();
        leaves.sort_unstable();
        leaves.dedup();
        let mut region: Vec<u32> =
            leaves.iter().flat_map(|&n| self.run(&self.nodes[n as usize]).iter().copied()).collect();
        region.sort_unstable();
        if !connected_through_edges(&region, neighbours, label, parent) {
            return None;
        }
        let triangles = |t: u32| triangles[t as usize];
        let mut vertices: Vec<u32> = region.iter().flat_map(|&t| triangles(t)).collect();
        vertices.sort_unstable();
        vertices.dedup();
        let mut edges: Vec<(u32, u32)> = (region.iter())
            .flat_map(|&t| {
                let [a, b, c] = triangles(t);
                [(a.min(b), a.max(b)), (b.min(c), b.max(c)), (c.min(a), c.max(a))]
            })
            .collect();
        edges.sort_unstable();
        edges.dedup();
        if vertices.len() + region.len() != edges.len() + 1 || vertices.iter().any(|&v| close_vertices[v as usize]) {
            return None;
        }
        let mut leaves: Vec<u32> = leaves.iter().map(|&n| self.nodes[n as usize].leaf).collect();
        leaves.sort_unstable();
        Some(leaves)
    }

    /// Builds the subtree over `order[first..first + count]`; returns its node. `side`
    /// is scratch, one entry per triangle, [`NONE`] outside a split in progress.
    fn build(&mut self, first: u32, count: u32, mesh: &Mesh, side: &mut [u32]) -> u32 {
        let n = self.nodes.len() as u32;
        let node = Node {
            left: NONE,
            right: NONE,
            first,
            count,
            size: 1,
            leaf: NONE,
            prunable: false,
            close: false,
            parent: NONE,
        };
        self.nodes.push(node);
        let (tris, rest) = (mesh.triangles, mesh.rest);
        let leaf = match count {
            1 => Some(single_corners(tris[self.order[first as usize] as usize])),
            2 => {
                let (a, b) = (self.order[first as usize], self.order[first as usize + 1]);
                let neighbours = mesh.neighbours[a as usize].contains(&b);
                neighbours.then(|| pair_corners(tris[a as usize], tris[b as usize])).flatten()
            }
            _ => None,
        };
        if let Some((corners, flipped)) = leaf {
            self.nodes[n as usize].leaf = self.leaf_corners.len() as u32;
            self.leaf_corners.push(corners);
            self.leaf_flipped.push(flipped);
            return n;
        }
        let centre = |t: u32| tris[t as usize].iter().map(|&i| rest[i as usize]).sum::<Vec3>() / 3.0;
        let run = &mut self.order[first as usize..(first + count) as usize];
        let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for &t in run.iter() {
            lo = lo.min(centre(t));
            hi = hi.max(centre(t));
        }
        let axis = (hi - lo).max_position();
        let half = count / 2;
        // Ties broken by index, so the tree does not depend on the sort's internals.
        run.select_nth_unstable_by(half as usize, |&a, &b| centre(a)[axis].total_cmp(&centre(b)[axis]).then(a.cmp(&b)));
        let half = connected_halves(run, half as usize, mesh.neighbours, side) as u32;
        let left = self.build(first, half, mesh, side);
        let right = self.build(first + half, count - half, mesh, side);
        self.nodes[n as usize].left = left;
        self.nodes[n as usize].right = right;
        self.nodes[n as usize].size = 1 + self.nodes[left as usize].size + self.nodes[right as usize].size;
        self.nodes[left as usize].parent = n;
        self.nodes[right as usize].parent = n;
        n
    }

    /// Whether leaves `t1`, `t2` hold a pair (owned feature of one against the other) closer than `h` at rest.
    fn close_at_rest(&self, s: &Surfaces, rest: &[Vec3], t1: u32, t2: u32, h: f32) -> bool {
        let at = |i: u32| rest[i as usize];
        let vt = |t: u32, u: u32| {
            let tri = s.triangles[u as usize];
            self.owned_vertices[t as usize].iter().filter(|&&v| v != NONE && !tri.contains(&v)).any(|&v| {
                let [a, b, c] = tri.map(at);
                let (bary, _) = closest_point(at(v), a, b, c);
                at(v).distance(point(bary, a, b, c)) < h
            })
        };
        let ee = || {
            self.owned_edges[t1 as usize].iter().filter(|&&e| e != NONE).any(|&e| {
                self.owned_edges[t2 as usize].iter().filter(|&&f| f != NONE).any(|&f| {
                    let (a, b) = (s.edges[e as usize], s.edges[f as usize]);
                    if a.iter().any(|v| b.contains(v)) {
                        return false;
                    }
                    let ([a0, a1], [b0, b1]) = (a.map(at), b.map(at));
                    let (u, w) = closest_segment_params(a0, a1, b0, b1);
                    a0.lerp(a1, u).distance(b0.lerp(b1, w)) < h
                })
            })
        };
        vt(t1, t2) || vt(t2, t1) || ee()
    }
}

#[cfg(test)]
mod tests {
    /// Two triangles make a leaf when they share exactly one edge, with the second's
    /// winding told apart; a duplicated or degenerate triangle does not.
    #[test]
    fn a_leaf_pairs_two_triangles_across_one_edge() {
        use super::pair_corners;
        // (0, 1, 2) and (2, 1, 3) share the edge 1-2, which they run in opposite directions.
        assert_eq!(pair_corners([0, 1, 2], [2, 1, 3]), Some(([1, 2, 0, 3], false)));
        assert_eq!(pair_corners([0, 1, 2], [1, 2, 3]), Some(([1, 2, 0, 3], true)));
        assert_eq!(pair_corners([0, 1, 2], [2, 0, 1]), None);
        assert_eq!(pair_corners([0, 1, 2], [1, 1, 3]), None);
        assert_eq!(pair_corners([0, 1, 2], [3, 4, 2]), None);
    }
}
