//! Collision filtering: which bodies, colliders and elements may touch.
//!
//! The scene carries the filters in resolved form ([`CollisionFilter`]): the importer
//! turns `PhysicsCollisionGroup`s and `PhysicsFilteredPairsAPI` into plain object pairs,
//! and each `OmniPhysicsElementCollisionFilter` into an [`ElementFilter`] of group pairs.
//! The solver compiles them once into a [`FilterTable`] of per-pair flags and per-group
//! vertex and triangle masks, so the per-candidate test in the contact search is a few
//! array lookups.
//!
//! Contacts are between a **vertex** and a **triangle** (or a collider), while element
//! filters name **triangles** on both sides. A vertex counts as a member of an element
//! set when *any* surface triangle containing it is in the set: then a filtered region
//! passes through its counterpart completely, vertices on its border included (with
//! "all", the border vertices would still catch and the region could never pass).

/// Something that takes part in collisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CollisionObject {
    /// A deformable body (index into [`crate::Scene::bodies`]).
    Body(usize),
    /// A static collider (index into [`crate::Scene::colliders`]).
    Collider(usize),
    /// A rigid body, all its shapes (index into [`crate::Scene::rigid_bodies`]). Filters
    /// between a deformable body and a rigid body are honoured by the deformable–rigid
    /// contacts (`rigid_contact.rs`); rigid–rigid and rigid–collider pairs are not
    /// (rapier resolves those contacts and does not see the filters).
    Rigid(usize),
}

/// One side of an element filter group: some elements or all of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ElementSet {
    /// Every element of the object (a count of 0, an empty count list, or a collider).
    All,
    /// These element indices: triangles of a surface body, surface triangles of a volume
    /// body (numbered as [`crate::surface_triangles`] documents).
    Some(Vec<u32>),
}

impl ElementSet {
    /// Whether element `e` is in the set.
    pub fn contains(&self, e: u32) -> bool {
        match self {
            ElementSet::All => true,
            ElementSet::Some(v) => v.contains(&e),
        }
    }
}

/// An element collision filter (`OmniPhysicsElementCollisionFilter`): for every group
/// pair, no element of `groups[k].0` on `objects[0]` collides with any element of
/// `groups[k].1` on `objects[1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElementFilter {
    /// `src0` and `src1`.
    pub objects: [CollisionObject; 2],
    /// Pairs of element groups that do not collide with each other.
    pub groups: Vec<(ElementSet, ElementSet)>,
}

impl ElementFilter {
    /// Builds a filter from the schema's attributes (`groupElemCounts0/1`,
    /// `groupElemIndices0/1`) with exactly the seed's semantics: a count of 0 means all
    /// elements of that side against the matching group of the other; an empty count
    /// list means all elements of that side against every group of the other (both
    /// empty: everything against everything). A collider side is always whole.
    ///
    /// Fails with a message when both count lists are non-empty with different lengths,
    /// or the counts do not add up to the index list's length.
    pub fn from_counts(
        objects: [CollisionObject; 2],
        counts: [&[u32]; 2],
        indices: [&[u32]; 2],
    ) -> Result<ElementFilter, String> {
        let mut sides: [Option<Vec<ElementSet>>; 2] = [None, None];
        for s in 0..2 {
            if counts[s].is_empty() {
                continue;
            }
            let total: u64 = counts[s].iter().map(|&c| c as u64).sum();
            if total != indices[s].len() as u64 {
                return Err(format!(
                    "groupElemCounts{s} adds up to {total} but groupElemIndices{s} has {} entries",
                    indices[s].len()
                ));
            }
            let mut at = 0usize;
            let mut groups = Vec::with_capacity(counts[s].len());
            for &c in counts[s] {
                let c = c as usize;
                groups.push(if c == 0 { ElementSet::All } else { ElementSet::Some(indices[s][at..at + c].to_vec()) });
                at += c;
            }
            sides[s] = Some(groups);
        }
        let whole = |o: CollisionObject| matches!(o, CollisionObject::Collider(_) | CollisionObject::Rigid(_));
        let [a, b] = sides;
        let groups: Vec<(ElementSet, ElementSet)> = match (a, b) {
            (None, None) => vec![(ElementSet::All, ElementSet::All)],
            (Some(a), None) => a.into_iter().map(|g| (g, ElementSet::All)).collect(),
            (None, Some(b)) => b.into_iter().map(|g| (ElementSet::All, g)).collect(),
            (Some(a), Some(b)) => {
                if a.len() != b.len() {
                    return Err(format!(
                        "groupElemCounts0 has {} groups but groupElemCounts1 has {}",
                        a.len(),
                        b.len()
                    ));
                }
                a.into_iter().zip(b).collect()
            }
        };
        // Rigid and static colliders are always filtered as a whole.
        let groups = groups
            .into_iter()
            .map(|(a, b)| {
                (
                    if whole(objects[0]) { ElementSet::All } else { a },
                    if whole(objects[1]) { ElementSet::All } else { b },
                )
            })
            .collect();
        Ok(ElementFilter { objects, groups })
    }
}

/// All collision filters of a scene, in resolved form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CollisionFilter {
    /// Object pairs that never collide (from collision groups and filtered pairs). A pair
    /// of a body with itself switches that body's self contact off.
    pub pairs: Vec<[CollisionObject; 2]>,
    /// Element-level filters.
    pub elements: Vec<ElementFilter>,
}

impl CollisionFilter {
    /// Whether the object pair `a`–`b` is filtered as a whole (in either order; `a == b`:
    /// a body's self contact is off). Element filters are not consulted.
    pub fn is_filtered(&self, a: CollisionObject, b: CollisionObject) -> bool {
        self.pairs.iter().any(|&[x, y]| (x, y) == (a, b) || (x, y) == (b, a))
    }
}

/// Per-object membership masks of one group side, compiled for fast lookups.
#[derive(Clone, Debug)]
struct Side {
    object: CollisionObject,
    /// Per local vertex of the body: in some element of the set (`None`: all).
    vertices: Option<Vec<bool>>,
    /// Per surface triangle of the body (`None`: all).
    triangles: Option<Vec<bool>>,
}

impl Side {
    fn has_vertex(&self, v: u32) -> bool {
        self.vertices.as_ref().is_none_or(|m| m.get(v as usize).copied().unwrap_or(false))
    }
    fn has_triangle(&self, t: u32) -> bool {
        self.triangles.as_ref().is_none_or(|m| m.get(t as usize).copied().unwrap_or(false))
    }
}

/// The scene's filters compiled for the contact search.
#[derive(Clone, Debug, Default)]
pub struct FilterTable {
    bodies: usize,
    colliders: usize,
    /// `bodies × bodies`: body pair filtered as a whole (diagonal: self contact off).
    body_body: Vec<bool>,
    /// `bodies × colliders`: body–collider pair filtered as a whole.
    body_collider: Vec<bool>,
    /// (body, rigid body) pairs filtered as a whole, sorted.
    body_rigid: Vec<(usize, usize)>,
    /// Compiled element filter group pairs.
    groups: Vec<[Side; 2]>,
    /// Per body: whether any element group involves it (skips the group scan otherwise).
    has_groups: Vec<bool>,
}

impl FilterTable {
    /// Compiles `filter` for `vertex_counts[b]` vertices and `surfaces[b]` (local surface
    /// triangles) per body and `colliders` colliders. Objects out of range are ignored
    /// (the importer never produces them; a hand-built scene gets no filter rather than a
    /// panic).
    pub fn new(
        filter: &CollisionFilter,
        vertex_counts: &[usize],
        surfaces: &[Vec<[u32; 3]>],
        colliders: usize,
    ) -> Self {
        let bodies = vertex_counts.len();
        let mut t = FilterTable {
            bodies,
            colliders,
            body_body: vec![false; bodies * bodies],
            body_collider: vec![false; bodies * colliders],
            body_rigid: Vec::new(),
            groups: Vec::new(),
            has_groups: vec![false; bodies],
        };
        let valid = |o: CollisionObject| match o {
            CollisionObject::Body(b) => b < bodies,
            CollisionObject::Collider(c) => c < colliders,
            // The rigid-body count is not known here; an index out of range never matches.
            CollisionObject::Rigid(_) => true,
        };
        for &[a, b] in &filter.pairs {
            if !(valid(a) && valid(b)) {
                continue;
            }
            match (a, b) {
                (CollisionObject::Body(a), CollisionObject::Body(b)) => {
                    t.body_body[a * bodies + b] = true;
                    t.body_body[b * bodies + a] = true;
                }
                (CollisionObject::Body(b), CollisionObject::Collider(c))
                | (CollisionObject::Collider(c), CollisionObject::Body(b)) => t.body_collider[b * colliders + c] = true,
                (CollisionObject::Body(b), CollisionObject::Rigid(r))
                | (CollisionObject::Rigid(r), CollisionObject::Body(b)) => t.body_rigid.push((b, r)),
                _ => {}
            }
        }
        t.body_rigid.sort_unstable();
        t.body_rigid.dedup();
        for f in &filter.elements {
            if !(valid(f.objects[0]) && valid(f.objects[1])) {
                continue;
            }
            for (s0, s1) in &f.groups {
                let side = |o: CollisionObject, set: &ElementSet| match (o, set) {
                    (CollisionObject::Body(b), ElementSet::Some(list)) => {
                        let tris = &surfaces[b];
                        let mut tm = vec![false; tris.len()];
                        let mut vm = vec![false; vertex_counts[b]];
                        for &e in list {
                            if let Some(tri) = tris.get(e as usize) {
                                tm[e as usize] = true;
                                for &v in tri {
                                    vm[v as usize] = true;
                                }
                            }
                        }
                        Side { object: o, vertices: Some(vm), triangles: Some(tm) }
                    }
                    _ => Side { object: o, vertices: None, triangles: None },
                };
                for o in f.objects {
                    if let CollisionObject::Body(b) = o {
                        t.has_groups[b] = true;
                    }
                }
                t.groups.push([side(f.objects[0], s0), side(f.objects[1], s1)]);
            }
        }
        t
    }

    /// Whether bodies `a` and `b` may touch at all (`a == b`: self contact).
    pub fn bodies_collide(&self, a: usize, b: usize) -> bool {
        !self.body_body[a * self.bodies + b]
    }

    /// Whether vertex `v` (local) of body `vb` may touch surface triangle `t` (local
    /// numbering) of body `tb`. Does not check [`FilterTable::bodies_collide`].
    pub fn vertex_triangle(&self, vb: usize, v: u32, tb: usize, t: u32) -> bool {
        if !(self.has_groups[vb] && self.has_groups[tb]) {
            return true;
        }
        let (vo, to) = (CollisionObject::Body(vb), CollisionObject::Body(tb));
        !self.groups.iter().any(|[s0, s1]| {
            (s0.object == vo && s1.object == to && s0.has_vertex(v) && s1.has_triangle(t))
                || (s1.object == vo && s0.object == to && s1.has_vertex(v) && s0.has_triangle(t))
        })
    }

    /// Whether vertex `v` (local) of body `b` may touch collider `c`.
    pub fn vertex_collider(&self, b: usize, v: u32, c: usize) -> bool {
        if self.body_collider.get(b * self.colliders + c).copied().unwrap_or(false) {
            return false;
        }
        if !self.has_groups[b] {
            return true;
        }
        let (bo, co) = (CollisionObject::Body(b), CollisionObject::Collider(c));
        !self.groups.iter().any(|[s0, s1]| {
            (s0.object == bo && s1.object == co && s0.has_vertex(v))
                || (s1.object == bo && s0.object == co && s1.has_vertex(v))
        })
    }

    /// Whether vertex `v` (local) of body `b` may touch rigid body `r`.
    pub fn vertex_rigid(&self, b: usize, v: u32, r: usize) -> bool {
        if self.body_rigid.binary_search(&(b, r)).is_ok() {
            return false;
        }
        if !self.has_groups[b] {
            return true;
        }
        let (bo, ro) = (CollisionObject::Body(b), CollisionObject::Rigid(r));
        !self.groups.iter().any(|[s0, s1]| {
            (s0.object == bo && s1.object == ro && s0.has_vertex(v))
                || (s1.object == bo && s0.object == ro && s1.has_vertex(v))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CollisionObject::{Body, Collider};

    fn some(v: &[u32]) -> ElementSet {
        ElementSet::Some(v.to_vec())
    }

    #[test]
    fn seed_examples_read_as_documented() {
        let o = [Body(0), Body(1)];
        // Two groups each.
        let f = ElementFilter::from_counts(o, [&[2, 1], &[2, 3]], [&[3, 4, 6], &[9, 7, 2, 5, 6]]).unwrap();
        assert_eq!(f.groups, vec![(some(&[3, 4]), some(&[9, 7])), (some(&[6]), some(&[2, 5, 6]))]);
        // Mixed: a count of 0 is all elements of that side.
        let f = ElementFilter::from_counts(o, [&[3, 2], &[0, 1]], [&[6, 7, 8, 15, 16], &[33]]).unwrap();
        assert_eq!(f.groups, vec![(some(&[6, 7, 8]), ElementSet::All), (some(&[15, 16]), some(&[33]))]);
        // One group against all.
        let f = ElementFilter::from_counts(o, [&[3], &[0]], [&[3, 4, 6], &[]]).unwrap();
        assert_eq!(f.groups, vec![(some(&[3, 4, 6]), ElementSet::All)]);
        // An empty count list: all elements against every group of the other side.
        let f = ElementFilter::from_counts(o, [&[], &[1, 2]], [&[], &[1, 2, 3]]).unwrap();
        assert_eq!(f.groups, vec![(ElementSet::All, some(&[1])), (ElementSet::All, some(&[2, 3]))]);
        let f = ElementFilter::from_counts(o, [&[], &[]], [&[], &[]]).unwrap();
        assert_eq!(f.groups, vec![(ElementSet::All, ElementSet::All)]);
        // A collider is filtered as a whole whatever its side says.
        let f = ElementFilter::from_counts([Body(0), Collider(0)], [&[1], &[1]], [&[5], &[2]]).unwrap();
        assert_eq!(f.groups, vec![(some(&[5]), ElementSet::All)]);
        assert!(ElementFilter::from_counts(o, [&[1, 1], &[1]], [&[1, 2], &[3]]).is_err());
        assert!(ElementFilter::from_counts(o, [&[2], &[1]], [&[1], &[3]]).is_err());
    }

    #[test]
    fn table_answers_vertex_and_triangle_queries() {
        // Body 0: two triangles sharing vertices 1, 2; body 1: one triangle.
        let surfaces = vec![vec![[0, 1, 2], [1, 3, 2]], vec![[0, 1, 2]]];
        let filter = CollisionFilter {
            pairs: vec![[Body(1), Collider(0)]],
            elements: vec![ElementFilter { objects: [Body(0), Body(1)], groups: vec![(some(&[0]), some(&[0]))] }],
        };
        let t = FilterTable::new(&filter, &[4, 3], &surfaces, 1);
        assert!(!t.vertex_triangle(0, 0, 1, 0));
        assert!(!t.vertex_triangle(0, 1, 1, 0), "a border vertex of a filtered triangle is filtered too");
        assert!(t.vertex_triangle(0, 3, 1, 0), "vertex 3 is only in the unfiltered triangle");
        assert!(!t.vertex_triangle(1, 2, 0, 0));
        assert!(t.vertex_triangle(1, 2, 0, 1));
        assert!(t.vertex_collider(0, 0, 0));
        assert!(!t.vertex_collider(1, 0, 0));
        assert!(t.bodies_collide(0, 1));
    }

    #[test]
    fn rigid_bodies_can_be_filtered_whole_or_against_elements() {
        use CollisionObject::Rigid;
        let surfaces = vec![vec![[0, 1, 2], [1, 3, 2]], vec![[0, 1, 2]]];
        let filter = CollisionFilter {
            pairs: vec![[Rigid(0), Body(1)]],
            elements: vec![ElementFilter::from_counts([Body(0), Rigid(1)], [&[1], &[1]], [&[1], &[7]]).unwrap()],
        };
        assert_eq!(filter.elements[0].groups, vec![(some(&[1]), ElementSet::All)], "a rigid side is whole");
        let t = FilterTable::new(&filter, &[4, 3], &surfaces, 0);
        assert!(!t.vertex_rigid(1, 0, 0), "body 1 and rigid 0 are filtered as a pair");
        assert!(t.vertex_rigid(0, 0, 0));
        assert!(t.vertex_rigid(1, 0, 1));
        assert!(t.vertex_rigid(0, 0, 1), "vertex 0 is only in the unfiltered triangle 0");
        assert!(!t.vertex_rigid(0, 3, 1), "vertex 3 is in filtered triangle 1");
    }
}
