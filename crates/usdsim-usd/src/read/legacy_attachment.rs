//! `PhysxPhysicsAttachment` prims of the legacy PhysX schema (`schema/physx_legacy.rs`):
//! two actors, and per attached pair a point in each actor's local space (a deformable
//! actor's in its rest state). A deformable point becomes a site of its body: a volume's
//! point the tet that holds it at rest, with its barycentric weights; a surface's point
//! its vertex where it sits on one, else a point of the nearest triangle. The other
//! actor is another body, a rigid body, any other xformable (a collider) or, with no
//! actor, the world. Attachments are hard, as PhysX's are. `collisionFilterIndices`
//! become element filters between the two actors.

use glam::{DMat4, Vec3};
use openusd::sdf;
use usdsim_core::{
    signed_distances, surface_triangles, Body, BodyId, BodyKind, Collider, ColliderId, CollisionObject, ElementFilter,
    ElementSet, Embedding, FrameId, RigidBody, RigidId, Site,
};

use crate::error::ImportError;
use crate::read::attachment::{self, ReadAttachments, Source};
use crate::schema::physx_legacy::{attachment as names, COLLISION_MESH};
use crate::stage::attribute_values;
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;
use crate::stage::xform::XformCache;

/// A point within this fraction of a surface body's rest size of one of its vertices is
/// attached to that vertex (PhysX attaches cloth by vertex).
const VERTEX_SNAP: f32 = 1e-4;

/// One actor of an attachment, resolved.
struct Actor {
    /// The prim, when one is named (none: the world).
    path: Option<sdf::Path>,
    /// What it is.
    source: Source,
    /// Its local-to-world transform at the start (identity for the world).
    world: DMat4,
}

/// One legacy attachment as read: what `usdsim upgrade` re-expresses in OmniPhysics.
#[derive(Clone, Debug)]
pub(crate) struct LegacyAttachment {
    /// The `PhysxPhysicsAttachment` prim.
    pub prim: sdf::Path,
    /// The deformable actor's prim and its sites.
    pub body: (sdf::Path, Vec<Site>),
    /// The other actor's prim (`None`: the world) and its side: sites when it is a
    /// deformable body, else its points in its own local space.
    pub other: (Option<sdf::Path>, OtherSide),
    /// The element filter its `collisionFilterIndices` ask for, with the prims of its
    /// two objects (`actor0`, `actor1`).
    pub filter: Option<(ElementFilter, [sdf::Path; 2])>,
}

/// The non-first side of a [`LegacyAttachment`].
#[derive(Clone, Debug)]
pub(crate) enum OtherSide {
    /// Another deformable body's sites.
    Body(Vec<Site>),
    /// Points in the actor's local space (world space for the world).
    Local(Vec<Vec3>),
}

/// Reads every enabled `PhysxPhysicsAttachment` into `out`, and returns the element
/// filters their `collisionFilterIndices` ask for and what each attachment became.
/// `lookup`, `bodies` and `rigid` are as [`attachment::read`] takes them; `colliders`
/// and `rigid_bodies` are the scene's, whose geometry PhysX's auto attachments overlap.
#[allow(clippy::too_many_arguments)]
pub(crate) fn read(
    ctx: &mut Ctx,
    prims: &[PrimInfo],
    lookup: &[(sdf::Path, usize)],
    bodies: &[Body],
    rigid: &[(sdf::Path, DMat4)],
    colliders: &[Collider],
    rigid_bodies: &[RigidBody],
    xforms: &mut XformCache,
    start: f64,
    out: &mut ReadAttachments,
) -> Result<(Vec<ElementFilter>, Vec<LegacyAttachment>), ImportError> {
    let mut filters = Vec::new();
    let mut records = Vec::new();
    for prim in prims.iter().filter(|p| p.type_name == names::PRIM_TYPE) {
        let path = &prim.path;
        if attribute_values::bool_value(ctx, path, names::ENABLED)? == Some(false) {
            continue;
        }
        let mut actors = Vec::with_capacity(2);
        for rel in names::ACTORS {
            let targets =
                ctx.prim(path)?.relationship(rel).targets().map_err(|err| ctx.query_err(path, Some(rel), err))?;
            actors.push(match targets.into_iter().next() {
                Some(target) => {
                    let source = attachment::resolve(ctx, path, rel, &target, lookup, rigid, xforms, start, out)?;
                    let world = xforms.world(ctx, &target)?;
                    Actor { path: Some(target), source, world }
                }
                None => {
                    let frame = out.frame(ctx, &sdf::Path::abs_root(), xforms, start)?;
                    Actor { path: None, source: Source::Frame(frame), world: DMat4::IDENTITY }
                }
            });
        }
        let mut points = Vec::with_capacity(2);
        for name in names::POINTS {
            points.push(attribute_values::vec3_array(ctx, path, name)?.unwrap_or_default());
        }
        if points[0].len() != points[1].len() {
            return Err(ImportError::LengthMismatch {
                at: ctx.prop_loc(path, names::POINTS[1]),
                found: points[1].len(),
                expected: points[0].len(),
                reason: format!("one point per entry of {}", names::POINTS[0]),
            });
        }
        // The deformable side goes first, so that a vertex held by a static actor pins.
        let order = match (&actors[0].source, &actors[1].source) {
            (Source::Body(_), _) => [0, 1],
            (_, Source::Body(_)) => [1, 0],
            _ => {
                ctx.warn(
                    "IM083",
                    path,
                    Some(names::ACTORS[0]),
                    "neither actor is a deformable body; a legacy attachment holds a deformable, so it is ignored",
                );
                continue;
            }
        };
        let mut filter = filter(ctx, path, &actors, bodies, colliders)?;
        let filter_prims = [0, 1].map(|s| actors[s].path.clone().unwrap_or_else(sdf::Path::abs_root));
        if points[0].is_empty() && prim.has_api(names::AUTO_API) {
            // PhysX computes the points at load: every deformable vertex that overlaps the
            // other actor at rest.
            let Source::Body(b) = actors[order[0]].source else { unreachable!("the deformable side is first") };
            let held = auto_vertices(ctx, path, &bodies[b], &actors[order[1]], bodies, colliders, rigid_bodies)?;
            if held.is_empty() {
                ctx.warn(
                    "IM083",
                    path,
                    Some(names::AUTO_API),
                    "PhysxAutoAttachmentAPI: no vertex of the deformable overlaps the other actor at rest; it attaches nothing",
                );
            } else {
                let rest: Vec<glam::DVec3> =
                    held.iter().map(|&v| bodies[b].rest_points[v as usize].as_dvec3()).collect();
                for s in order {
                    let local = actors[s].world.inverse();
                    points[s] = rest.iter().map(|p| local.transform_point3(*p)).collect();
                }
                if filter.is_none() && attribute_values::bool_value(ctx, path, names::AUTO_FILTERING)? != Some(false) {
                    filter = auto_filter(&actors, order, &bodies[b], &held, colliders);
                }
            }
        }
        if points[0].is_empty() {
            if !prim.has_api(names::AUTO_API) {
                ctx.warn("IM083", path, Some(names::POINTS[0]), "authors no points; it attaches nothing");
            }
        } else {
            let [a, b] = order.map(|s| sites(ctx, path, s, &actors[s], &points[s], bodies));
            let (a, b) = (a?, b?);
            let [first, second] = order.map(|s| actors[s].path.clone());
            let other = match actors[order[1]].source {
                Source::Body(_) => OtherSide::Body(b.clone()),
                _ => OtherSide::Local(points[order[1]].iter().map(|p| p.as_vec3()).collect()),
            };
            records.push(LegacyAttachment {
                prim: path.clone(),
                body: (first.unwrap_or_else(sdf::Path::abs_root), a.clone()),
                other: (second, other),
                filter: filter.clone().map(|f| (f, filter_prims)),
            });
            out.push(a, b, f32::INFINITY, 0.0);
        }
        filters.extend(filter);
    }
    Ok((filters, records))
}

/// The sites of `points` (actor `side`'s local space) on that actor.
fn sites(
    ctx: &Ctx,
    path: &sdf::Path,
    side: usize,
    actor: &Actor,
    points: &[glam::DVec3],
    bodies: &[Body],
) -> Result<Vec<Site>, ImportError> {
    if let Some(i) = points.iter().position(|p| !p.is_finite()) {
        return Err(ImportError::Invalid {
            at: ctx.prop_loc(path, names::POINTS[side]),
            reason: format!("entry {i} is not finite"),
        });
    }
    let world: Vec<Vec3> = points.iter().map(|p| actor.world.transform_point3(*p).as_vec3()).collect();
    Ok(match actor.source {
        Source::Body(b) => body_sites(BodyId(b), &bodies[b], &world),
        Source::Rigid { index, body_from_prim } => points
            .iter()
            .map(|p| Site::Rigid { rigid: RigidId(index), local: body_from_prim.transform_point3(*p).as_vec3() })
            .collect(),
        Source::Frame(frame) => {
            points.iter().map(|p| Site::Frame { frame: FrameId(frame), local: p.as_vec3() }).collect()
        }
    })
}

/// Where world-space rest points `points` sit on `body` at rest.
fn body_sites(id: BodyId, body: &Body, points: &[Vec3]) -> Vec<Site> {
    let rest = &body.rest_points;
    match body.kind {
        BodyKind::Volume => match Embedding::volume(rest, &body.rest_elements, points) {
            Embedding::Volume { elements, weights, .. } => elements
                .iter()
                .zip(&weights)
                .map(|(&tet, w)| Site::Tet { body: id, tet, coords: [w[0], w[1], w[2]] })
                .collect(),
            Embedding::Surface { .. } => unreachable!("a volume embedding"),
        },
        BodyKind::Surface => {
            let triangles: Vec<[u32; 3]> = body.rest_elements.iter().map(|e| [e[0], e[1], e[2]]).collect();
            let (lo, hi) = rest.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(a, b), p| (a.min(*p), b.max(*p)));
            let snap = VERTEX_SNAP * (hi - lo).length();
            let Embedding::Surface { elements, vertices, weights, offsets, .. } =
                Embedding::surface(rest, &triangles, points)
            else {
                unreachable!("a surface embedding")
            };
            points
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let corner = vertices[i].into_iter().find(|&v| rest[v as usize].distance(*p) <= snap);
                    match corner {
                        Some(vertex) => Site::Vertex { body: id, vertex },
                        None => Site::Triangle {
                            body: id,
                            triangle: elements[i],
                            uv: [weights[i][0], weights[i][1]],
                            normal_offset: offsets[i],
                        },
                    }
                })
                .collect()
        }
    }
}

/// The static colliders at or below `prim` (a collider's name is its prim path), with
/// their indices.
fn colliders_of<'a>(prim: &'a str, colliders: &'a [Collider]) -> impl Iterator<Item = (usize, &'a Collider)> {
    colliders
        .iter()
        .enumerate()
        .filter(move |(_, c)| c.name == prim || c.name.strip_prefix(prim).is_some_and(|rest| rest.starts_with('/')))
}

/// The vertices of `body` that PhysX's auto attachment holds to `other`: those within
/// `deformableVertexOverlapOffset` of (or inside) its geometry at rest: a static
/// collider's or rigid body's shapes, or another body's tetrahedra.
fn auto_vertices(
    ctx: &mut Ctx,
    path: &sdf::Path,
    body: &Body,
    other: &Actor,
    bodies: &[Body],
    colliders: &[Collider],
    rigid_bodies: &[RigidBody],
) -> Result<Vec<u32>, ImportError> {
    if attribute_values::bool_value(ctx, path, names::AUTO_VERTEX)? == Some(false) {
        return Ok(Vec::new());
    }
    let offset = attribute_values::f64_value(ctx, path, names::AUTO_VERTEX_OFFSET)?.unwrap_or(0.0).max(0.0) as f32;
    let rest = &body.rest_points;
    let scene_err = |e: usdsim_core::SceneError| ImportError::Invalid { at: ctx.prim_loc(path), reason: e.to_string() };
    let mut nearest = vec![f32::INFINITY; rest.len()];
    let mut take = |d: Vec<f32>| nearest.iter_mut().zip(d).for_each(|(n, d)| *n = n.min(d));
    match other.source {
        Source::Frame(_) => {
            let Some(prim) = other.path.as_ref().map(|p| p.to_string()) else { return Ok(Vec::new()) };
            for (_, c) in colliders_of(&prim, colliders) {
                take(signed_distances(c, rest).map_err(scene_err)?);
            }
        }
        Source::Rigid { index, .. } => {
            let r = &rigid_bodies[index];
            let to_body = r.rotation.inverse();
            let local: Vec<Vec3> = rest.iter().map(|p| to_body * (*p - r.translation)).collect();
            for s in &r.shapes {
                let shape = Collider {
                    name: r.name.clone(),
                    shape: s.shape.clone(),
                    translation: s.translation,
                    rotation: s.rotation,
                    friction: r.friction,
                };
                take(signed_distances(&shape, &local).map_err(scene_err)?);
            }
        }
        Source::Body(b) => {
            let holder = &bodies[b];
            if holder.kind == BodyKind::Volume {
                if let Embedding::Volume { weights, .. } =
                    Embedding::volume(&holder.rest_points, &holder.rest_elements, rest)
                {
                    take(
                        weights
                            .iter()
                            .map(|w| if w.iter().all(|x| *x >= -1e-5) { 0.0 } else { f32::INFINITY })
                            .collect(),
                    );
                }
            }
        }
    }
    Ok((0..rest.len() as u32).filter(|&v| nearest[v as usize] <= offset).collect())
}

/// The filter PhysX's auto attachment makes: the triangles touching the held vertices
/// do not collide with the other actor.
fn auto_filter(
    actors: &[Actor],
    order: [usize; 2],
    body: &Body,
    held: &[u32],
    colliders: &[Collider],
) -> Option<ElementFilter> {
    let triangles = match body.kind {
        BodyKind::Surface => body.triangles.clone(),
        BodyKind::Volume => surface_triangles(body),
    };
    let touching: Vec<u32> = triangles
        .iter()
        .enumerate()
        .filter(|(_, t)| t.iter().any(|v| held.contains(v)))
        .map(|(i, _)| i as u32)
        .collect();
    let objects = [object(&actors[0], colliders)?, object(&actors[1], colliders)?];
    let set = ElementSet::Some(touching);
    let group = if order[0] == 0 { (set, ElementSet::All) } else { (ElementSet::All, set) };
    Some(ElementFilter { objects, groups: vec![group] })
}

/// The collision object an actor is, when it can take part in a filter.
fn object(actor: &Actor, colliders: &[Collider]) -> Option<CollisionObject> {
    match actor.source {
        Source::Body(b) => Some(CollisionObject::Body(BodyId(b))),
        Source::Rigid { index, .. } => Some(CollisionObject::Rigid(RigidId(index))),
        Source::Frame(_) => {
            let path = actor.path.as_ref()?.to_string();
            let first = colliders_of(&path, colliders).next().map(|(i, _)| i);
            first.map(|i| CollisionObject::Collider(ColliderId(i)))
        }
    }
}

/// The element filter `collisionFilterIndices0/1` ask for: side k's listed elements do
/// not collide with the other actor. A rigid or collider side is whole.
fn filter(
    ctx: &Ctx,
    path: &sdf::Path,
    actors: &[Actor],
    bodies: &[Body],
    colliders: &[Collider],
) -> Result<Option<ElementFilter>, ImportError> {
    let mut sets: [Option<ElementSet>; 2] = [None, None];
    for side in 0..2 {
        let name = names::FILTER_INDICES[side];
        let indices = attribute_values::int_array(ctx, path, name)?.unwrap_or_default();
        if indices.is_empty() {
            continue;
        }
        let Source::Body(b) = actors[side].source else {
            // "Ignored for rigid bodies": a rigid body or collider is filtered whole.
            sets[side] = Some(ElementSet::All);
            continue;
        };
        let geometry = attribute_values::token_value(ctx, path, names::FILTER_TYPES[side])?.as_deref()
            == Some(names::FILTER_GEOMETRY);
        let actor_path = actors[side].path.clone().unwrap_or_else(sdf::Path::abs_root);
        let triangles =
            filtered_triangles(ctx, path, name, &actor_path, &actors[side], &bodies[b], &indices, geometry)?;
        sets[side] = Some(ElementSet::Some(triangles));
    }
    let (Some(a), Some(b)) = (object(&actors[0], colliders), object(&actors[1], colliders)) else {
        return Ok(None);
    };
    let groups = match sets {
        [None, None] => return Ok(None),
        [Some(s), None] => vec![(s, ElementSet::All)],
        [None, Some(s)] => vec![(ElementSet::All, s)],
        [Some(s0), Some(s1)] => vec![(s0, ElementSet::All), (ElementSet::All, s1)],
    };
    Ok(Some(ElementFilter { objects: [a, b], groups }))
}

/// The triangles a filter's `indices` cover, numbered as element filters number them (a
/// surface body's triangles, a volume body's surface triangles). A surface's indices are
/// its vertices (every triangle touching one) or, for `Geometry`, its triangles. A
/// volume's index PhysX's collision tet mesh (`physxDeformable:collision*`, else the
/// simulation mesh): their rest points are mapped to the nearest simulation vertices,
/// and the surface triangles touching those are filtered.
#[allow(clippy::too_many_arguments)]
fn filtered_triangles(
    ctx: &Ctx,
    path: &sdf::Path,
    name: &str,
    actor_path: &sdf::Path,
    actor: &Actor,
    body: &Body,
    indices: &[i64],
    geometry: bool,
) -> Result<Vec<u32>, ImportError> {
    let check = |count: usize, what: &'static str| -> Result<Vec<u32>, ImportError> {
        indices.iter().map(|&i| attribute_values::checked_index(ctx, path, name, i, count, what)).collect()
    };
    let (triangles, vertices): (Vec<[u32; 3]>, Vec<u32>) = match body.kind {
        BodyKind::Surface if geometry => {
            let mut listed = check(body.triangles.len(), "triangles")?;
            listed.sort_unstable();
            listed.dedup();
            return Ok(listed);
        }
        BodyKind::Surface => (body.triangles.clone(), check(body.positions.len(), "vertices")?),
        BodyKind::Volume => {
            let [collision_indices, collision_rest, _] = COLLISION_MESH;
            let cells = attribute_values::int_array(ctx, actor_path, collision_indices)?.filter(|c| !c.is_empty());
            let rest = attribute_values::vec3_array(ctx, actor_path, collision_rest)?.filter(|r| !r.is_empty());
            let points: Vec<Vec3> = match (cells, rest) {
                (Some(cells), Some(rest)) => {
                    let listed: Vec<usize> = if geometry {
                        let tets = check(cells.len() / 4, "collision tetrahedra")?;
                        tets.iter()
                            .flat_map(|&t| cells[4 * t as usize..4 * t as usize + 4].iter())
                            .map(|&v| v as usize)
                            .collect()
                    } else {
                        check(rest.len(), "collision points")?.iter().map(|&v| v as usize).collect()
                    };
                    listed
                        .iter()
                        .filter_map(|&v| rest.get(v))
                        .map(|p| actor.world.transform_point3(*p).as_vec3())
                        .collect()
                }
                _ => {
                    let listed: Vec<u32> = if geometry {
                        check(body.tets.len(), "tetrahedra")?
                            .iter()
                            .flat_map(|&t| body.rest_elements[t as usize])
                            .collect()
                    } else {
                        check(body.positions.len(), "vertices")?
                    };
                    listed.iter().map(|&v| body.rest_points[v as usize]).collect()
                }
            };
            let nearest = points
                .iter()
                .map(|p| {
                    let by_distance = |&(_, q): &(usize, &Vec3)| p.distance_squared(*q);
                    body.rest_points
                        .iter()
                        .enumerate()
                        .min_by(|a, b| by_distance(a).total_cmp(&by_distance(b)))
                        .map_or(0, |(i, _)| i as u32)
                })
                .collect();
            (surface_triangles(body), nearest)
        }
    };
    Ok(triangles
        .iter()
        .enumerate()
        .filter(|(_, t)| t.iter().any(|v| vertices.contains(v)))
        .map(|(i, _)| i as u32)
        .collect())
}
