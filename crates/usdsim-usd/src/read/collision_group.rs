//! Collision filtering from the stage: `PhysicsCollisionGroup`s, `PhysicsFilteredPairsAPI`
//! and `OmniPhysicsElementCollisionFilter`, resolved into [`usdsim_core::CollisionFilter`].
//!
//! Filterable objects are the deformable bodies (named by their body prim, their
//! simulation mesh or an ancestor), the static colliders (their collider prim or an
//! ancestor) and the rigid bodies (their body prim, an ancestor, or any prim below the
//! body such as one of its collider shapes: a rigid body is filtered as a whole). Group
//! and pair filtering becomes object pairs:
//!
//! * A group's members are the objects at or below `collection:colliders:includes`
//!   (exactly those paths with `expansionRule = "explicitOnly"`; everything with
//!   `includeRoot = true`), minus those at or below `excludes` (the longest matching path
//!   wins, as in `UsdCollectionAPI`).
//! * Groups with the same non-empty `physics:mergeGroup` act as one group: members and
//!   filtered groups are combined (inverted when any of them is).
//! * `physics:filteredGroups` filters every member against every member of the listed
//!   groups (the group itself: members do not collide with each other);
//!   `physics:invertFilteredGroups` filters members against every object *not* in a
//!   listed group instead.
//! * `physics:filteredPairs` filters the objects at or below the prim against those at
//!   or below each target.
//!
//! Not supported (warned where the stage asks for it): a body filtered against itself: a
//! group never switches off a body's self contact (that is the body's own self-collision
//! setting). Static collider pairs are dropped silently: static colliders never collide
//! with each other anyway. Filters between two rigid bodies or a rigid body and a static
//! collider are kept but have no effect: rapier3d resolves those contacts.

use std::collections::BTreeSet;
use usdsim_core::{BodyId, ColliderId, RigidId};

use openusd::sdf;
use usdsim_core::{surface_triangles, CollisionObject, ElementFilter, Scene};

use crate::error::ImportError;
use crate::schema::attachment::{FILTER_ENABLED, GROUP_COUNTS, GROUP_INDICES, SRC};
use crate::stage::attribute_values::{self, checked_index};
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;

/// Every filterable object with the paths that name it exactly: a body's prim and
/// simulation mesh, a static collider's prim.
struct Objects {
    entries: Vec<(sdf::Path, CollisionObject)>,
    /// Rigid body prims: they also own every prim below them (their collider shapes).
    rigid: Vec<(sdf::Path, CollisionObject)>,
}

impl Objects {
    fn new(lookup: &[(sdf::Path, usize)], scene: &Scene) -> Objects {
        let mut entries: Vec<(sdf::Path, CollisionObject)> =
            lookup.iter().map(|(p, b)| (p.clone(), CollisionObject::Body(BodyId(*b)))).collect();
        for (i, c) in scene.colliders.iter().enumerate() {
            if let Ok(path) = sdf::Path::new(&c.name) {
                entries.push((path, CollisionObject::Collider(ColliderId(i))));
            }
        }
        let rigid = (scene.rigid_bodies.iter().enumerate())
            .filter_map(|(i, r)| sdf::Path::new(&r.name).ok().map(|p| (p, CollisionObject::Rigid(RigidId(i)))))
            .collect();
        Objects { entries, rigid }
    }

    /// The object a path names exactly (for a rigid body: the body or a prim below it).
    fn exact(&self, path: &sdf::Path) -> Option<CollisionObject> {
        let entry = self.entries.iter().find(|(p, _)| p == path);
        entry.or_else(|| self.rigid.iter().find(|(p, _)| path.has_prefix(p))).map(|&(_, o)| o)
    }

    /// The objects at or below `path`, and the rigid body `path` lies in, if any.
    fn under(&self, path: &sdf::Path) -> BTreeSet<CollisionObject> {
        let below = self.entries.iter().chain(&self.rigid).filter(|(p, _)| p.has_prefix(path));
        let owner = self.rigid.iter().filter(|(p, _)| path.has_prefix(p));
        below.chain(owner).map(|&(_, o)| o).collect()
    }

    fn all(&self) -> BTreeSet<CollisionObject> {
        self.entries.iter().chain(&self.rigid).map(|&(_, o)| o).collect()
    }
}

/// Reads every collision filter of the stage into `scene.collision` (appending, without
/// duplicating pairs already there). `lookup` maps body prims and simulation meshes to
/// body indices; the static colliders are `scene.colliders` (named by prim path).
pub(crate) fn read(
    ctx: &mut Ctx,
    prims: &[PrimInfo],
    lookup: &[(sdf::Path, usize)],
    scene: &mut Scene,
) -> Result<(), ImportError> {
    let objects = Objects::new(lookup, scene);
    let mut pairs = PairSet::default();
    groups(ctx, prims, &objects, &mut pairs)?;
    filtered_pairs(ctx, prims, &objects, &mut pairs)?;
    for pair in pairs.0 {
        if !scene.collision.is_filtered(pair[0], pair[1]) {
            scene.collision.pairs.push(pair);
        }
    }
    let elements = element_filters(ctx, prims, &objects, scene)?;
    scene.collision.elements.extend(elements);
    Ok(())
}

/// Filtered object pairs, normalized (smaller object first), deduplicated, ordered.
#[derive(Default)]
struct PairSet(BTreeSet<[CollisionObject; 2]>);

impl PairSet {
    /// Adds `a`–`b` unless it is a self pair or a pair of static colliders.
    fn add(&mut self, a: CollisionObject, b: CollisionObject) {
        if a == b
            || matches!((a, b), (CollisionObject::Collider(ColliderId(_)), CollisionObject::Collider(ColliderId(_))))
        {
            return;
        }
        self.0.insert(if a < b { [a, b] } else { [b, a] });
    }
}

fn targets(ctx: &Ctx, prim: &sdf::Path, rel: &str) -> Result<Vec<sdf::Path>, ImportError> {
    ctx.prim(prim)?.relationship(rel).targets().map_err(|err| ctx.query_err(prim, Some(rel), err))
}

/// One `PhysicsCollisionGroup` as read.
struct Group {
    path: sdf::Path,
    members: BTreeSet<CollisionObject>,
    filtered: Vec<sdf::Path>,
    invert: bool,
    merge: Option<String>,
}

const INCLUDES: &str = "collection:colliders:includes";
const EXCLUDES: &str = "collection:colliders:excludes";
const INCLUDE_ROOT: &str = "collection:colliders:includeRoot";
const EXPANSION: &str = "collection:colliders:expansionRule";
const FILTERED_GROUPS: &str = "physics:filteredGroups";
const INVERT: &str = "physics:invertFilteredGroups";
const MERGE: &str = "physics:mergeGroup";
const FILTERED_PAIRS: &str = "physics:filteredPairs";

/// The members of a group's `colliders` collection.
fn members(ctx: &mut Ctx, group: &sdf::Path, objects: &Objects) -> Result<BTreeSet<CollisionObject>, ImportError> {
    let includes = targets(ctx, group, INCLUDES)?;
    let excludes = targets(ctx, group, EXCLUDES)?;
    let explicit_only = attribute_values::token_value(ctx, group, EXPANSION)?.as_deref() == Some("explicitOnly");
    if attribute_values::bool_value(ctx, group, INCLUDE_ROOT)? == Some(true) {
        let mut all = objects.all();
        all.retain(|o| !excludes.iter().any(|x| objects.under(x).contains(o)));
        return Ok(all);
    }
    for include in &includes {
        let found = if explicit_only { objects.exact(include).is_some() } else { !objects.under(include).is_empty() };
        if !found {
            ctx.warn(
                "IM050",
                group,
                Some(INCLUDES),
                format!("{include} names no deformable body, static collider or rigid body; ignored"),
            );
        }
    }
    let mut out = BTreeSet::new();
    let objects_and_rigid = objects.entries.iter().map(|e| (e, false)).chain(objects.rigid.iter().map(|e| (e, true)));
    for ((path, object), rigid) in objects_and_rigid {
        // The most specific include or exclude decides; a path inside a rigid body (one
        // of its collider shapes) names the whole body.
        let names = |p: &sdf::Path| {
            let inside = rigid && p.has_prefix(path);
            inside || if explicit_only { p == path } else { path.has_prefix(p) }
        };
        let best = |list: &[sdf::Path]| list.iter().filter(|p| names(p)).map(|p| p.to_string().len()).max();
        match (best(&includes), best(&excludes)) {
            (Some(i), Some(x)) if i > x => {}
            (Some(_), None) => {}
            _ => continue,
        }
        out.insert(*object);
    }
    Ok(out)
}

fn groups(ctx: &mut Ctx, prims: &[PrimInfo], objects: &Objects, pairs: &mut PairSet) -> Result<(), ImportError> {
    let mut groups = Vec::new();
    for prim in prims.iter().filter(|p| p.type_name == "PhysicsCollisionGroup") {
        let path = prim.path.clone();
        let members = members(ctx, &path, objects)?;
        let filtered = targets(ctx, &path, FILTERED_GROUPS)?;
        let invert = attribute_values::bool_value(ctx, &path, INVERT)?.unwrap_or(false);
        let merge = attribute_values::token_value(ctx, &path, MERGE)?.filter(|m| !m.is_empty());
        groups.push(Group { path, members, filtered, invert, merge });
    }
    // Merge groups: `merged[g]` is the index of the merged group of group `g`.
    let mut merged: Vec<usize> = Vec::with_capacity(groups.len());
    let mut heads: Vec<usize> = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let head = group.merge.as_ref().and_then(|m| heads.iter().position(|&h| groups[h].merge.as_ref() == Some(m)));
        match head {
            Some(k) => merged.push(k),
            None => {
                merged.push(heads.len());
                heads.push(g);
            }
        }
    }
    let mut members: Vec<BTreeSet<CollisionObject>> = vec![BTreeSet::new(); heads.len()];
    let mut filtered: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); heads.len()];
    let mut invert: Vec<Option<bool>> = vec![None; heads.len()];
    for (g, group) in groups.iter().enumerate() {
        let m = merged[g];
        members[m].extend(group.members.iter().copied());
        for target in &group.filtered {
            match groups.iter().position(|other| other.path == *target) {
                Some(t) => {
                    filtered[m].insert(merged[t]);
                }
                None => ctx.warn(
                    "IM050",
                    &group.path,
                    Some(FILTERED_GROUPS),
                    format!("{target} is not a PhysicsCollisionGroup; ignored"),
                ),
            }
        }
        match invert[m] {
            Some(previous) if previous != group.invert => {
                ctx.warn(
                    "IM051",
                    &group.path,
                    Some(INVERT),
                    "differs from another group of the same mergeGroup; the merged group is inverted",
                );
                invert[m] = Some(true);
            }
            Some(_) => {}
            None => invert[m] = Some(group.invert),
        }
    }
    let all = objects.all();
    for m in 0..heads.len() {
        let against: BTreeSet<CollisionObject> = if invert[m] == Some(true) {
            let allowed: BTreeSet<CollisionObject> =
                filtered[m].iter().flat_map(|&f| members[f].iter().copied()).collect();
            all.difference(&allowed).copied().collect()
        } else {
            filtered[m].iter().flat_map(|&f| members[f].iter().copied()).collect()
        };
        for &a in &members[m] {
            for &b in &against {
                pairs.add(a, b);
            }
        }
    }
    Ok(())
}

fn filtered_pairs(
    ctx: &mut Ctx,
    prims: &[PrimInfo],
    objects: &Objects,
    pairs: &mut PairSet,
) -> Result<(), ImportError> {
    for prim in prims.iter().filter(|p| p.has_api("PhysicsFilteredPairsAPI")) {
        let path = &prim.path;
        let own = objects.under(path);
        if own.is_empty() {
            ctx.warn(
                "IM050",
                path,
                Some(FILTERED_PAIRS),
                "not a deformable body, static collider or rigid body; ignored",
            );
            continue;
        }
        for target in targets(ctx, path, FILTERED_PAIRS)? {
            let other = objects.under(&target);
            if other.is_empty() {
                ctx.warn(
                    "IM050",
                    path,
                    Some(FILTERED_PAIRS),
                    format!("{target} names no deformable body, static collider or rigid body; ignored"),
                );
            }
            for &a in &own {
                for &b in &other {
                    pairs.add(a, b);
                }
            }
        }
    }
    Ok(())
}

/// Whether a prim type is an element collision filter, and its attribute namespace.
fn element_filter_namespace(type_name: &str) -> Option<&'static str> {
    match type_name {
        "OmniPhysicsElementCollisionFilter" => Some("omniphysics"),
        "PhysicsElementCollisionFilter" => Some("physics"),
        _ => None,
    }
}

/// A `uint[]` attribute (unauthored: empty); negative entries are an error.
fn uint_array(ctx: &Ctx, prim: &sdf::Path, name: &str) -> Result<Vec<u32>, ImportError> {
    let values = attribute_values::int_array(ctx, prim, name)?.unwrap_or_default();
    values
        .into_iter()
        .map(|v| {
            u32::try_from(v).map_err(|_| ImportError::Invalid {
                at: ctx.prop_loc(prim, name),
                reason: format!("expected non-negative values (uint[]), found {v}"),
            })
        })
        .collect()
}

fn element_filters(
    ctx: &mut Ctx,
    prims: &[PrimInfo],
    objects: &Objects,
    scene: &Scene,
) -> Result<Vec<ElementFilter>, ImportError> {
    let mut out = Vec::new();
    'filters: for prim in prims {
        let Some(ns) = element_filter_namespace(&prim.type_name) else { continue };
        let path = &prim.path;
        if attribute_values::bool_value(ctx, path, &format!("{ns}:{FILTER_ENABLED}"))? == Some(false) {
            continue;
        }
        let mut sides = [CollisionObject::Body(BodyId(0)); 2];
        for (k, side) in sides.iter_mut().enumerate() {
            let rel = format!("{ns}:{SRC}{k}");
            let Some(target) = targets(ctx, path, &rel)?.into_iter().next() else {
                ctx.warn("IM050", path, Some(&rel), "no target; element filter ignored");
                continue 'filters;
            };
            let Some(object) = objects.exact(&target) else {
                ctx.warn(
"IM050",
                    path,
                    Some(&rel),
                    format!(
                        "{target} is not a deformable body, its simulation mesh or a static collider; element filter ignored"
                    ),
                );
                continue 'filters;
            };
            *side = object;
        }
        let counts_name = |k: usize| format!("{ns}:{GROUP_COUNTS}{k}");
        let indices_name = |k: usize| format!("{ns}:{GROUP_INDICES}{k}");
        let counts = [uint_array(ctx, path, &counts_name(0))?, uint_array(ctx, path, &counts_name(1))?];
        let indices = [uint_array(ctx, path, &indices_name(0))?, uint_array(ctx, path, &indices_name(1))?];
        if !counts[0].is_empty() && !counts[1].is_empty() && counts[0].len() != counts[1].len() {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(path, &counts_name(1)),
                reason: format!(
                    "has {} groups, expected {} (as many as groupElemCounts0)",
                    counts[1].len(),
                    counts[0].len()
                ),
            });
        }
        for k in 0..2 {
            let sum: u64 = counts[k].iter().map(|&c| u64::from(c)).sum();
            if sum != indices[k].len() as u64 {
                return Err(ImportError::Invalid {
                    at: ctx.prop_loc(path, &indices_name(k)),
                    reason: format!("has {} entries, expected {sum} (the sum of groupElemCounts{k})", indices[k].len()),
                });
            }
            if let CollisionObject::Body(BodyId(b)) = sides[k] {
                let triangles = surface_triangles(&scene.bodies[b]).len();
                for &i in &indices[k] {
                    checked_index(ctx, path, &indices_name(k), i64::from(i), triangles, "surface triangles")?;
                }
            }
        }
        let filter = ElementFilter::from_counts(
            sides,
            [counts[0].as_slice(), counts[1].as_slice()],
            [indices[0].as_slice(), indices[1].as_slice()],
        )
        .map_err(|reason| ImportError::Invalid { at: ctx.prim_loc(path), reason })?;
        out.push(filter);
    }
    Ok(out)
}
