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

use crate::scene::{BodyId, ColliderId, CollisionFilter, CollisionObject, ElementSet, RigidId};

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
            CollisionObject::Body(BodyId(b)) => b < bodies,
            CollisionObject::Collider(ColliderId(c)) => c < colliders,
            // The rigid-body count is not known here; an index out of range never matches.
            CollisionObject::Rigid(RigidId(_)) => true,
        };
        for &[a, b] in &filter.pairs {
            if !(valid(a) && valid(b)) {
                continue;
            }
            match (a, b) {
                (CollisionObject::Body(BodyId(a)), CollisionObject::Body(BodyId(b))) => {
                    t.body_body[a * bodies + b] = true;
                    t.body_body[b * bodies + a] = true;
                }
                (CollisionObject::Body(BodyId(b)), CollisionObject::Collider(ColliderId(c)))
                | (CollisionObject::Collider(ColliderId(c)), CollisionObject::Body(BodyId(b))) => {
                    t.body_collider[b * colliders + c] = true
                }
                (CollisionObject::Body(BodyId(b)), CollisionObject::Rigid(RigidId(r)))
                | (CollisionObject::Rigid(RigidId(r)), CollisionObject::Body(BodyId(b))) => t.body_rigid.push((b, r)),
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
                    (CollisionObject::Body(BodyId(b)), ElementSet::Some(list)) => {
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
                    if let CollisionObject::Body(BodyId(b)) = o {
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

    /// Whether element filters may stop some vertex of body `vb` from touching some
    /// triangle of body `tb` (both have filtered elements): when not, every
    /// [`FilterTable::vertex_triangle`] test between them passes, and a caller testing
    /// many (an edge pair's ends against the other's triangles) can skip them.
    pub fn element_filtered(&self, vb: usize, tb: usize) -> bool {
        self.has_groups[vb] && self.has_groups[tb]
    }

    /// Whether vertex `v` (local) of body `vb` may touch surface triangle `t` (local
    /// numbering) of body `tb`. Does not check [`FilterTable::bodies_collide`].
    pub fn vertex_triangle(&self, vb: usize, v: u32, tb: usize, t: u32) -> bool {
        if !self.element_filtered(vb, tb) {
            return true;
        }
        let (vo, to) = (CollisionObject::Body(BodyId(vb)), CollisionObject::Body(BodyId(tb)));
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
        let (bo, co) = (CollisionObject::Body(BodyId(b)), CollisionObject::Collider(ColliderId(c)));
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
        let (bo, ro) = (CollisionObject::Body(BodyId(b)), CollisionObject::Rigid(RigidId(r)));
        !self.groups.iter().any(|[s0, s1]| {
            (s0.object == bo && s1.object == ro && s0.has_vertex(v))
                || (s1.object == bo && s0.object == ro && s1.has_vertex(v))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::ElementFilter;
    use CollisionObject::{Body, Collider};

    fn some(v: &[u32]) -> ElementSet {
        ElementSet::Some(v.to_vec())
    }

    #[test]
    fn seed_examples_read_as_documented() {
        let o = [Body(BodyId(0)), Body(BodyId(1))];
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
        let f =
            ElementFilter::from_counts([Body(BodyId(0)), Collider(ColliderId(0))], [&[1], &[1]], [&[5], &[2]]).unwrap();
        assert_eq!(f.groups, vec![(some(&[5]), ElementSet::All)]);
        assert!(ElementFilter::from_counts(o, [&[1, 1], &[1]], [&[1, 2], &[3]]).is_err());
        assert!(ElementFilter::from_counts(o, [&[2], &[1]], [&[1], &[3]]).is_err());
    }

    #[test]
    fn table_answers_vertex_and_triangle_queries() {
        // Body 0: two triangles sharing vertices 1, 2; body 1: one triangle.
        let surfaces = vec![vec![[0, 1, 2], [1, 3, 2]], vec![[0, 1, 2]]];
        let filter = CollisionFilter {
            pairs: vec![[Body(BodyId(1)), Collider(ColliderId(0))]],
            elements: vec![ElementFilter {
                objects: [Body(BodyId(0)), Body(BodyId(1))],
                groups: vec![(some(&[0]), some(&[0]))],
            }],
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
            pairs: vec![[Rigid(RigidId(0)), Body(BodyId(1))]],
            elements: vec![ElementFilter::from_counts(
                [Body(BodyId(0)), Rigid(RigidId(1))],
                [&[1], &[1]],
                [&[1], &[7]],
            )
            .unwrap()],
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
