//! Collision filters as the scene carries them, in resolved form: whole object pairs
//! that never touch (collision groups, filtered pairs) and element-level filters (the
//! schema's `OmniPhysicsElementCollisionFilter`). The solver compiles them into the
//! lookup table of `contact/filter_table.rs`.

use super::{BodyId, ColliderId, RigidId};

/// Something that takes part in collisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CollisionObject {
    /// A deformable body (index into [`crate::Scene::bodies`]).
    Body(BodyId),
    /// A static collider (index into [`crate::Scene::colliders`]).
    Collider(ColliderId),
    /// A rigid body, all its shapes (index into [`crate::Scene::rigid_bodies`]). Filters
    /// between a deformable body and a rigid body are honoured by the deformable–rigid
    /// contacts (`contact/rigid.rs`); rigid–rigid and rigid–collider pairs are not
    /// (rapier resolves those contacts and does not see the filters).
    Rigid(RigidId),
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
