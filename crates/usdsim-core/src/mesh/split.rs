//! Opening a triangle mesh along broken edges by splitting vertices.
//!
//! The tearing article (`seeds/ammojs-tearing-plasticity.txt`) breaks a link whose length
//! exceeds `ratio × rest length`. Removing a link from a mesh does not open it: the two
//! triangles beside a broken edge still share both its vertices. Here every vertex is
//! split into one copy per *fan*: a maximal set of its triangles connected to each other
//! through unbroken edges around the vertex. The first fan keeps the original index, the
//! others get new vertices appended. A copy starts where the original was with its
//! velocity; masses are then recomputed from the elements each copy belongs to, so
//! the total mass and the momentum of every split vertex are conserved.

#[cfg(test)]
use std::collections::{HashMap, HashSet};

/// Key of an undirected edge.
pub fn edge_key(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

/// Edges of `triangles` whose current length exceeds `ratio` times their rest length.
/// `rest_length(t, k)` gives triangle `t`'s rest length of its edge `k` (from corner `k` to
/// `k + 1`); an edge shared by two triangles breaks when either side is over-stretched.
/// The whole-mesh rule, a reference for the tests: the solver breaks one edge at a time
/// and splits with [`split_vertex`].
#[cfg(test)]
pub fn broken_edges(
    triangles: &[[u32; 3]],
    length: impl Fn(u32, u32) -> f32,
    rest_length: impl Fn(usize, usize) -> f32,
    ratio: f32,
) -> HashSet<(u32, u32)> {
    let mut out = HashSet::new();
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            let rest = rest_length(t, k);
            if rest > 0.0 && length(a, b) > ratio * rest {
                out.insert(edge_key(a, b));
            }
        }
    }
    out
}

/// The result of splitting: new elements (triangles, or tets with `N = 4`) and, for every
/// vertex of the new mesh, the original vertex it was copied from (the identity for the
/// first `vertex_count`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split<const N: usize = 3> {
    /// Elements with split vertices substituted, in the input order.
    pub elements: Vec<[u32; N]>,
    /// `origin[v]` is the vertex `v` was copied from.
    pub origin: Vec<u32>,
}

/// Splits every vertex of `triangles` whose incident triangles fall into more than one
/// fan once `broken` edges no longer connect them. Deterministic: fans are numbered in
/// order of their lowest triangle index, new vertices appended in vertex order.
#[cfg(test)]
pub fn split_along(triangles: &[[u32; 3]], vertex_count: usize, broken: &HashSet<(u32, u32)>) -> Split {
    let mut incident: Vec<Vec<u32>> = vec![Vec::new(); vertex_count];
    for (t, tri) in triangles.iter().enumerate() {
        for &v in tri {
            incident[v as usize].push(t as u32);
        }
    }
    let mut out = triangles.to_vec();
    let mut origin: Vec<u32> = (0..vertex_count as u32).collect();
    for (v, tris) in incident.iter().enumerate() {
        if tris.len() < 2 {
            continue;
        }
        let v = v as u32;
        // Union-find over this vertex's triangles: two of them are in one fan when they
        // share an unbroken edge through v.
        let mut parent: Vec<usize> = (0..tris.len()).collect();
        fn find(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let mut by_edge: HashMap<u32, usize> = HashMap::new();
        for (slot, &t) in tris.iter().enumerate() {
            for &other in &triangles[t as usize] {
                if other == v || broken.contains(&edge_key(v, other)) {
                    continue;
                }
                if let Some(&first) = by_edge.get(&other) {
                    let (a, b) = (find(&mut parent, first), find(&mut parent, slot));
                    parent[a.max(b)] = a.min(b);
                } else {
                    by_edge.insert(other, slot);
                }
            }
        }
        let mut fan_vertex: HashMap<usize, u32> = HashMap::new();
        for slot in 0..tris.len() {
            let root = find(&mut parent, slot);
            let next = fan_vertex.len();
            let copy = *fan_vertex.entry(root).or_insert_with(|| {
                if next == 0 {
                    v
                } else {
                    origin.push(v);
                    (origin.len() - 1) as u32
                }
            });
            if copy != v {
                for corner in &mut out[tris[slot] as usize] {
                    if *corner == v {
                        *corner = copy;
                    }
                }
            }
        }
    }
    Split { elements: out, origin }
}

/// Splits vertex `v` of `elements` in two: the elements for which `moves(t)` is true
/// get a new copy of `v` (appended as vertex `vertex_count`), the others keep it. Returns
/// `None` when either side would be empty (nothing to separate).
///
/// This is how a broken edge `(a, b)` separates its ends: `a` is split by the plane
/// through it perpendicular to the edge, the elements on `b`'s side taking the copy, so
/// the crack runs across the over-stretched edge as it does across a broken link in the
/// article's spring network.
pub fn split_vertex<const N: usize>(
    elements: &[[u32; N]],
    vertex_count: usize,
    v: u32,
    moves: impl Fn(usize) -> bool,
) -> Option<Split<N>> {
    let (mut stay, mut go) = (0usize, 0usize);
    for (t, tri) in elements.iter().enumerate() {
        if tri.contains(&v) {
            if moves(t) {
                go += 1;
            } else {
                stay += 1;
            }
        }
    }
    if stay == 0 || go == 0 {
        return None;
    }
    let copy = vertex_count as u32;
    let mut out = elements.to_vec();
    for (t, tri) in out.iter_mut().enumerate() {
        if tri.contains(&v) && moves(t) {
            for corner in tri.iter_mut().filter(|c| **c == v) {
                *corner = copy;
            }
        }
    }
    let mut origin: Vec<u32> = (0..vertex_count as u32).collect();
    origin.push(v);
    Some(Split { elements: out, origin })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3×2-vertex strip: vertices 0 1 2 on the bottom row, 3 4 5 on top.
    fn strip() -> Vec<[u32; 3]> {
        vec![[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4]]
    }

    #[test]
    fn nothing_broken_changes_nothing() {
        let split = split_along(&strip(), 6, &HashSet::new());
        assert_eq!(split.elements, strip());
        assert_eq!(split.origin, (0..6).collect::<Vec<_>>());
    }

    #[test]
    fn a_cut_across_the_strip_gives_two_pieces_without_shared_vertices() {
        // Cut along the middle column edge 1–4 and the diagonals' neighbour: breaking 1-4
        // alone leaves the pieces joined at 1 and 4 through no edge, so they separate.
        let broken: HashSet<_> = [edge_key(1, 4)].into_iter().collect();
        let split = split_along(&strip(), 6, &broken);
        assert_eq!(split.origin.len(), 8, "vertices 1 and 4 are duplicated");
        let left: HashSet<u32> = split.elements[..2].iter().flatten().copied().collect();
        let right: HashSet<u32> = split.elements[2..].iter().flatten().copied().collect();
        assert!(left.is_disjoint(&right), "{left:?} and {right:?} share a vertex");
        // Every new vertex is a copy of 1 or 4, and the triangles keep their shape.
        for (t, (new, old)) in split.elements.iter().zip(strip()).enumerate() {
            let mapped = new.map(|v| split.origin[v as usize]);
            assert_eq!(mapped, old, "triangle {t}");
        }
    }

    #[test]
    fn a_slit_opens_at_the_rim_and_not_at_its_tip() {
        // A disc of four triangles round vertex 0. Breaking the spoke 0–2 cuts a slit
        // from the rim vertex 2 to the centre: 2 splits in two, the centre (the slit's
        // tip) stays whole because its triangles still connect the other way round.
        let fan = vec![[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 1]];
        let broken: HashSet<_> = [edge_key(0, 2)].into_iter().collect();
        let split = split_along(&fan, 5, &broken);
        assert_eq!(split.origin, vec![0, 1, 2, 3, 4, 2]);
        // Two opposite spokes broken: the disc falls into two halves, the centre and
        // both rim ends split.
        let broken: HashSet<_> = [edge_key(0, 2), edge_key(0, 4)].into_iter().collect();
        let split = split_along(&fan, 5, &broken);
        assert_eq!(split.origin, vec![0, 1, 2, 3, 4, 0, 2, 4]);
        let first: HashSet<u32> = [split.elements[0], split.elements[3]].iter().flatten().copied().collect();
        let second: HashSet<u32> = [split.elements[1], split.elements[2]].iter().flatten().copied().collect();
        assert!(first.is_disjoint(&second), "{first:?} / {second:?}");
    }

    #[test]
    fn splitting_a_vertex_moves_one_side_onto_a_copy() {
        let split = split_vertex(&strip(), 6, 1, |t| t >= 2).unwrap();
        assert_eq!(split.origin, vec![0, 1, 2, 3, 4, 5, 1]);
        assert_eq!(split.elements, vec![[0, 1, 4], [0, 4, 3], [6, 2, 5], [6, 5, 4]]);
        // Everything on one side: nothing to split.
        assert_eq!(split_vertex(&strip(), 6, 1, |_| true), None);
        assert_eq!(split_vertex(&strip(), 6, 1, |_| false), None);
    }

    #[test]
    fn broken_edges_use_the_ratio_of_rest_length() {
        let tris = vec![[0, 1, 2]];
        let pos = [0.0f32, 1.79, 3.0];
        let length = |a: u32, b: u32| (pos[a as usize] - pos[b as usize]).abs();
        // Rest length 1 for every edge: 0-1 is at 1.79 (< 1.8), 1-2 at 1.21, 2-0 at 3.0.
        let broken = broken_edges(&tris, length, |_, _| 1.0, 1.8);
        assert_eq!(broken, [edge_key(2, 0)].into_iter().collect());
    }
}
