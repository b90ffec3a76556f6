//! Contacts between deformable vertices and rigid bodies, acting both ways.
//!
//! Each substep, after rapier has predicted the rigid bodies' poses
//! ([`crate::rigid::RigidWorld::begin_substep`]), every movable vertex is tested against
//! every shape of every dynamic or kinematic rigid body at that pose (parry3d closest
//! points, as `contact/collider.rs` does for static shapes). A vertex closer than its contact
//! offset plus a search margin gets a contact: the shape's surface point and outward
//! normal, both stored **in the rigid body's frame**, so that the contact plane moves
//! with the body while the iterations correct its pose.
//!
//! In every solver iteration, on the team leader after the attachment links (the leader
//! alone touches rigid states), each violated contact `C = n·(x − p) − offset < 0` is
//! projected as an XPBD constraint of zero compliance between the vertex (inverse mass
//! `w`) and the body point `p` (generalized inverse mass `1/m + (r×n)ᵀ I⁻¹ (r×n)`,
//! Müller et al. 2020, "Detailed Rigid Body Simulation with Extended Position Based
//! Dynamics", §3.5): the vertex moves by `w·Δλ·n` and the body receives the positional
//! impulse `−Δλ·n` at `p`, exactly like [`crate::constraint::attachment::AttachmentLink::project`] pushes on a
//! rigid body. After the iterations, [`RigidContacts::finish`] takes the body's share
//! back out of its pose and [`RigidContacts::kick`] hands it to rapier as a velocity
//! change (rapier then resolves it against the body's own contacts, see `finish`), so the
//! deformable and the body exchange equal and opposite momentum. Kinematic bodies have
//! infinite mass: only the vertex moves. A moving rigid body within a sleeping body's
//! contact offset wakes it ([`RigidContacts::touched_sleepers`]).
//!
//! Friction, once per substep after the iterations (before the rigid poses go back to
//! rapier): the relative tangential displacement of the vertex against the body point
//! over the substep is cancelled when the impulse needed is below `μs·λn` (static), else
//! reduced by at most `μd·λn` (dynamic), `λn` being the contact's accumulated normal
//! impulse, with the same two-body weighting. Against an immovable body this is exactly
//! `contact/collider.rs`'s rule. Coefficients combine as there: the average of the deformable
//! material's (static, dynamic) friction and the rigid body's [`RigidBody::friction`].
//!
//! Everything that writes runs on one thread in a fixed order (detection is parallel over
//! vertices but collects in vertex order), so results do not depend on the thread count.
//!
//! Not covered: vertices with zero inverse mass (pinned, kinematic deformable bodies)
//! do not push rigid bodies; edges and triangles of a deformable do not collide with the
//! rigid body's edges and corners (vertex–shape contact only, so a box corner can poke
//! between the vertices of a coarse cloth).

use crate::contact::collider::{shape_query, VertexContactParams};
use crate::contact::filter_table::FilterTable;
use crate::mesh::parry_shape::parry_shape;
use crate::parallel::colouring::Shared;
use crate::rigid::{RigidState, RigidWorld};
use crate::scene::RigidBody;
use glam::{DVec3, Quat, Vec3};
use parry3d::bounding_volume::{Aabb, BoundingVolume};
use parry3d::math::Pose;
use parry3d::shape::Shape;
use rayon::prelude::*;
use std::ops::Range;

/// Most rigid-body contacts one vertex keeps per substep.
const MAX_PER_VERTEX: usize = 3;

/// One shape of a rigid body in solver form.
struct BodyShape {
    /// Index of the rigid body.
    rigid: usize,
    shape: Box<dyn Shape>,
    /// Triangle normals when the shape is a triangle mesh (sign of the distance).
    triangle_normals: Option<Vec<Vec3>>,
    /// Pose of the shape in the body's frame.
    local: Pose,
    /// Distance from the body frame's origin to the farthest point of the shape.
    radius: f32,
    /// The body's friction coefficient.
    friction: f32,
}

/// One vertex–rigid-body contact of the current substep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RigidContact {
    /// Global vertex index.
    pub(crate) vertex: u32,
    /// Rigid body index.
    rigid: u32,
    /// Closest point on the shape's surface, in the body's frame.
    local: Vec3,
    /// Outward surface normal, in the body's frame.
    normal: Vec3,
    /// Distance the vertex keeps from the surface.
    offset: f32,
    /// Combined (static, dynamic) friction.
    friction: [f32; 2],
    /// Normal impulse accumulated this substep (mass · distance).
    lambda: f32,
    /// Positional impulse given to the rigid body this substep (world, mass · distance)
    /// and its moment `Σ r × p` about the centre of mass.
    impulse: Vec3,
    moment: Vec3,
}

impl RigidContact {
    /// Gives the rigid body the positional impulse `p` at the contact point and records it.
    fn push(&mut self, s: &mut RigidState, p: Vec3) {
        if s.inv_mass == 0.0 {
            return;
        }
        self.impulse += p;
        self.moment += (s.rot * (self.local - s.com)).cross(p);
        s.apply_impulse_at(self.local, p);
    }
}

/// The rigid bodies' shapes and this substep's contacts.
#[derive(Default)]
pub(crate) struct RigidContacts {
    shapes: Vec<BodyShape>,
    /// This substep's contacts, in vertex order.
    pub list: Vec<RigidContact>,
    /// Per shape, this substep: world pose, world bounding box, how far any point of the
    /// shape moved over the substep.
    placed: Vec<(Pose, Aabb, f32)>,
    /// Per rigid body, the velocity change (linear, angular) this substep's contacts give
    /// it (see [`RigidContacts::finish`]).
    kicks: Vec<(Vec3, Vec3)>,
    /// Friction anchors: `(vertex, rigid body, point in the body's frame)` where each
    /// contact left its vertex at the end of the last substep, sorted; see
    /// [`RigidContacts::friction`].
    anchors: Vec<(u32, u32, Vec3)>,
}

impl RigidContacts {
    /// The solver form of every shape of `bodies`. Planes (unbounded) and meshes parry
    /// rejects are left out; `RigidWorld::new` has already refused invalid meshes.
    pub fn new(bodies: &[RigidBody]) -> RigidContacts {
        let mut shapes = Vec::new();
        for (rigid, b) in bodies.iter().enumerate() {
            for s in &b.shapes {
                let Ok(Some((shape, rot, triangle_normals))) = parry_shape(&s.shape) else { continue };
                let local = Pose::from_parts(s.translation, s.rotation * rot);
                let bb = shape.compute_aabb(&local);
                let radius = bb.mins.abs().max(bb.maxs.abs()).length();
                shapes.push(BodyShape { rigid, shape, triangle_normals, local, radius, friction: b.friction });
            }
        }
        RigidContacts {
            placed: Vec::with_capacity(shapes.len()),
            shapes,
            list: Vec::new(),
            kicks: Vec::new(),
            anchors: Vec::new(),
        }
    }

    /// Whether any rigid body has a shape vertices can touch.
    pub fn is_active(&self) -> bool {
        !self.shapes.is_empty()
    }

    /// Places every shape at its body's predicted pose for this substep.
    fn place(&mut self, states: &[RigidState]) {
        self.placed.clear();
        for s in &self.shapes {
            let st = &states[s.rigid];
            let pose = Pose::from_parts(st.pos, st.rot) * s.local;
            let aabb = s.shape.compute_aabb(&pose);
            let mut dq = st.rot * st.prev_rot.inverse();
            if dq.w < 0.0 {
                dq = -dq;
            }
            let turn = 2.0 * Vec3::new(dq.x, dq.y, dq.z).length().min(1.0).asin();
            let moved = (st.pos - st.prev_pos).length() + turn * s.radius;
            self.placed.push((pose, aabb, moved));
        }
    }

    /// Finds this substep's contacts for every movable vertex (`w > 0`). `x` holds the
    /// predicted positions, `x_prev` the start-of-substep ones, `states` the rigid
    /// bodies' predicted poses, `bodies` each deformable's vertex range; pairs `filter`
    /// excludes get no contact.
    #[allow(clippy::too_many_arguments)]
    pub fn detect(
        &mut self,
        states: &[RigidState],
        bodies: &[Range<usize>],
        x: &[Vec3],
        x_prev: &[Vec3],
        w: &[f32],
        params: &[VertexContactParams],
        filter: &FilterTable,
    ) {
        let keep = |v: u32, r: usize| keep(filter, bodies, v, r);
        self.list.clear();
        if self.shapes.is_empty() {
            return;
        }
        self.place(states);
        let (shapes, placed) = (&self.shapes, &self.placed);
        let found = (0..x.len()).into_par_iter().with_min_len(1024).flat_map_iter(|i| {
            let mut out = [None; MAX_PER_VERTEX];
            if w[i] == 0.0 {
                return out.into_iter().flatten();
            }
            let VertexContactParams { friction, offset, pad } = params[i];
            let travel = 2.0 * (x[i] - x_prev[i]).length();
            let mut count = 0;
            for (s, &(pose, aabb, moved)) in shapes.iter().zip(placed) {
                if count == MAX_PER_VERTEX {
                    break;
                }
                let reach = offset + pad + travel + 2.0 * moved;
                if !aabb.loosened(reach).contains_local_point(x[i]) || !keep(i as u32, s.rigid) {
                    continue;
                }
                let Some((_, n, on_surface)) = query(s, &pose, x[i], reach) else { continue };
                let st = &states[s.rigid];
                let inv = st.rot.inverse();
                out[count] = Some(RigidContact {
                    vertex: i as u32,
                    rigid: s.rigid as u32,
                    local: inv * (on_surface - st.pos),
                    normal: inv * n,
                    offset,
                    friction: [0.5 * (friction[0] + s.friction), 0.5 * (friction[1] + s.friction)],
                    lambda: 0.0,
                    impulse: Vec3::ZERO,
                    moment: Vec3::ZERO,
                });
                count += 1;
            }
            out.into_iter().flatten()
        });
        self.list.par_extend(found);
    }

    /// The sleeping bodies (`sleeping[b]` is `Some`) that a rigid body moving this
    /// substep touches: some vertex within its contact offset of the moving body's
    /// shapes at their predicted pose. Filtered pairs do not count.
    #[allow(clippy::too_many_arguments)]
    pub fn touched_sleepers<T>(
        &mut self,
        states: &[RigidState],
        sleeping: &[Option<T>],
        bodies: &[Range<usize>],
        x: &[Vec3],
        params: &[VertexContactParams],
        filter: &FilterTable,
    ) -> Vec<usize> {
        let keep = |v: u32, r: usize| keep(filter, bodies, v, r);
        let moving = |s: &RigidState| s.pos != s.prev_pos || s.rot != s.prev_rot;
        if self.shapes.is_empty() || !states.iter().any(moving) {
            return Vec::new();
        }
        self.place(states);
        let mut woken = Vec::new();
        for (b, range) in bodies.iter().enumerate() {
            if sleeping[b].is_none() {
                continue;
            }
            let touched = range.clone().any(|i| {
                let reach = params[i].offset;
                self.shapes.iter().zip(&self.placed).any(|(s, &(pose, aabb, _))| {
                    moving(&states[s.rigid])
                        && aabb.loosened(reach).contains_local_point(x[i])
                        && keep(i as u32, s.rigid)
                        && query(s, &pose, x[i], reach).is_some()
                })
            });
            if touched {
                woken.push(b);
            }
        }
        woken
    }

    /// Ends the substep's contact work: applies Coulomb friction to every contact that
    /// pushed (see the module docs), then takes the rigid bodies' share of every contact
    /// impulse back out of their poses and keeps it as a velocity change for
    /// [`RigidContacts::kick`]. Runs on one thread, in order.
    ///
    /// Why velocity: rapier resolves a rigid body's own contacts (the ground under a box)
    /// in its step, with friction acting on velocities only. A positional push left in
    /// the pose would be kept by rapier however firmly the body is held, so a box on the
    /// ground would creep sideways under a deformable resting on it (measured: 0.7 mm/s
    /// from a 0.4 mrad tilt). As a velocity, the push reaches rapier's contact solver,
    /// which cancels what the ground resists. The vertex keeps its share of the
    /// correction; the body's share shows up as motion from the next substep on, and any
    /// overlap it leaves is corrected then.
    pub fn finish(&mut self, x: &mut [DVec3], x_prev: &[DVec3], w: &[f32], states: &mut [RigidState], dt: f32) {
        self.friction(x, x_prev, w, states);
        self.kicks.clear();
        self.kicks.resize(states.len(), (Vec3::ZERO, Vec3::ZERO));
        for c in &self.list {
            let k = &mut self.kicks[c.rigid as usize];
            k.0 += c.impulse;
            k.1 += c.moment;
        }
        for (s, k) in states.iter_mut().zip(&mut self.kicks) {
            if s.inv_mass == 0.0 || (k.0 == Vec3::ZERO && k.1 == Vec3::ZERO) {
                continue;
            }
            let dv = k.0 * s.inv_mass;
            let dw = s.inv_inertia * k.1;
            // Undo the pushes: the centre of mass moved by Σp/m exactly, the orientation
            // by I⁻¹Σ(r×p) to first order.
            let com = s.pos + s.rot * s.com - dv;
            let dq = Quat::from_xyzw(-dw.x, -dw.y, -dw.z, 0.0) * s.rot;
            s.rot =
                Quat::from_xyzw(s.rot.x + 0.5 * dq.x, s.rot.y + 0.5 * dq.y, s.rot.z + 0.5 * dq.z, s.rot.w + 0.5 * dq.w)
                    .normalize();
            s.pos = com - s.rot * s.com;
            *k = (dv / dt, dw / dt);
        }
    }

    /// Adds the velocity changes [`RigidContacts::finish`] kept to the rigid bodies (after
    /// [`RigidWorld::end_substep`]).
    pub fn kick(&mut self, rigid: &mut RigidWorld) {
        for (i, &(dv, dw)) in self.kicks.iter().enumerate() {
            if dv != Vec3::ZERO || dw != Vec3::ZERO {
                rigid.add_velocity(i, dv, dw);
            }
        }
        self.kicks.clear();
    }

    /// Coulomb friction on every contact that pushed this substep.
    ///
    /// The slip is the vertex's tangential motion against the body point it was anchored
    /// to at the end of the last substep (else against the contact point over this
    /// substep). The anchor matters for a body that something else holds (a finger on a
    /// joint, a kinematic parent): [`RigidContacts::finish`] takes the body's share of
    /// each friction impulse back out of its pose and hands it to rapier, whose joint
    /// then cancels it, so the vertex is left behind by that share every substep.
    /// Measured without anchors: a cube squeezed by jointed fingers crept 1.5 mm per frame
    /// under its weight at μ = 0.9 with five times the grip its weight needs. Against
    /// the anchor, static friction takes that share back next substep. Anchors last one
    /// frame ([`RigidContacts::end_frame`]), so a resumed run keeps them exactly.
    fn friction(&mut self, x: &mut [DVec3], x_prev: &[DVec3], w: &[f32], states: &mut [RigidState]) {
        let previous = std::mem::take(&mut self.anchors);
        for c in &mut self.list {
            if c.lambda <= 0.0 {
                continue;
            }
            let (i, s) = (c.vertex as usize, &mut states[c.rigid as usize]);
            let n = s.rot * c.normal;
            let anchor =
                previous.binary_search_by(|&(v, r, _)| (v, r).cmp(&(c.vertex, c.rigid))).ok().map(|k| previous[k].2);
            let d = match anchor {
                Some(a) => (x[i] - s.world_point(a).as_dvec3()).as_vec3(),
                None => (x[i] - x_prev[i]).as_vec3() - (s.world_point(c.local) - s.previous_point(c.local)),
            };
            let tangential = d - n * n.dot(d);
            let slip = tangential.length();
            let t = tangential / slip.max(1e-30);
            let denom = w[i] + s.inverse_mass_at(c.local, t);
            if slip >= 1e-12 && denom > f32::EPSILON {
                let [mu_s, mu_d] = c.friction;
                let needed = slip / denom;
                let dl = if needed <= mu_s * c.lambda { needed } else { needed.min(mu_d * c.lambda) };
                x[i] -= (t * (w[i] * dl)).as_dvec3();
                c.push(s, t * dl);
            }
            self.anchors.push((c.vertex, c.rigid, s.rot.inverse() * (x[i].as_vec3() - s.pos)));
        }
        // The list is in vertex order and a vertex's contacts in body order, but one
        // vertex may touch one body twice (two shapes): keep the first.
        self.anchors.sort_by_key(|&(v, r, _)| (v, r));
        self.anchors.dedup_by_key(|&mut (v, r, _)| (v, r));
    }

    /// Ends a frame: the friction anchors are dropped, so that what a frame leaves behind
    /// is the vertices and bodies alone (what a resume restores).
    pub fn end_frame(&mut self) {
        self.anchors.clear();
    }
}

/// Whether global vertex `v` may touch rigid body `r` (collision filters).
fn keep(filter: &FilterTable, bodies: &[Range<usize>], v: u32, r: usize) -> bool {
    let b = bodies.partition_point(|range| range.start <= v as usize).saturating_sub(1);
    filter.vertex_rigid(b, v - bodies[b].start as u32, r)
}

/// Projects every violated contact once, in list order.
///
/// # Safety
/// Only one thread may run this, and no other thread may touch the contacts' vertices,
/// the contact list or the rigid states meanwhile (it runs on the team leader between
/// barriers, like the attachment links).
pub(crate) unsafe fn project(
    contacts: Shared<RigidContact>,
    count: usize,
    x: Shared<DVec3>,
    w: &[f32],
    rigid: &mut [RigidState],
) {
    for k in 0..count {
        // SAFETY: per the contract.
        let c = unsafe { contacts.get(k) };
        let i = c.vertex as usize;
        // SAFETY: per the contract.
        let p = unsafe { x.get(i) };
        let s = &mut rigid[c.rigid as usize];
        let n = s.rot * c.normal;
        let violation = n.dot((*p - s.world_point(c.local).as_dvec3()).as_vec3()) - c.offset;
        if violation >= 0.0 {
            continue;
        }
        let denom = w[i] + s.inverse_mass_at(c.local, n);
        if denom <= f32::EPSILON {
            continue;
        }
        let dl = -violation / denom;
        *p += (n * (w[i] * dl)).as_dvec3();
        c.lambda += dl;
        c.push(s, -n * dl);
    }
}

/// Signed distance, outward world normal and closest surface point of shape `s` placed at
/// `pose` ([`crate::contact::collider::shape_query`], the static shapes' rules).
fn query(s: &BodyShape, pose: &Pose, p: Vec3, reach: f32) -> Option<(f32, Vec3, Vec3)> {
    shape_query(s.shape.as_ref(), s.triangle_normals.as_deref(), pose, p, reach)
}
