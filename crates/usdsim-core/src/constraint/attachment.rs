//! Attachments: two sites held together, hard (`stiffness = inf`) or as a compliant
//! zero-rest-length spring (the schema's `OmniPhysics*Attachment` prims; see
//! `docs/attachments.md`).
//!
//! A site is a point of a deformable body (a vertex, a barycentric point of a triangle
//! with an optional offset along its normal, or a barycentric point of a tetrahedron),
//! a point fixed in a frame (a static or animated xformable), or a point fixed on a
//! rigid body. Every attachment is one XPBD distance constraint `C = |p₀ − p₁|` whose
//! gradient is spread over the element's vertices by their barycentric weights, and, on
//! a rigid body, over its translation and rotation by its inverse mass and inertia.
//! The one exception: a hard attachment of a single vertex to a frame removes the vertex
//! from the dynamics (inverse mass 0) and places it on the frame's point every substep,
//! as pins do, so it ends *exactly* where it belongs.
//!
//! Attachments are few; they are projected sequentially on the team leader after the
//! coloured elements, which keeps results independent of the thread count.

use crate::constraint::xpbd::Step;
use crate::error::SceneError;
use crate::parallel::colouring::Shared;
use crate::rigid::RigidState;
use crate::scene::Scene;
use crate::scene::{BodyId, FrameId, RigidId, Site};
use glam::{DVec3, Mat4, Vec3};
use std::ops::Range;

/// A frame's motion over the current frame of simulation.
#[derive(Clone, Debug)]
pub(crate) struct FrameMotion {
    /// Transform at the start of the simulation frame.
    pub start: Mat4,
    /// Transform to reach at its end; `None` holds the frame still.
    pub target: Option<Mat4>,
}

impl FrameMotion {
    /// World position of `local` at `progress` ∈ [0, 1] through the simulation frame:
    /// linear between the start and end images of the point (like kinematic bodies).
    pub fn point(&self, local: Vec3, progress: f32) -> Vec3 {
        let a = self.start.transform_point3(local);
        match &self.target {
            Some(t) => a.lerp(t.transform_point3(local), progress),
            None => a,
        }
    }
}

/// A site in solver form.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Side {
    /// `Σ weights[k]·x[idx[k]]`, plus `offset` along the normal of the triangle
    /// `idx[0..3]` when `offset != 0`.
    Points { idx: [u32; 4], weights: [f32; 4], offset: f32 },
    /// A world point, refreshed every substep from its frame.
    World { frame: usize, local: Vec3, at: Vec3 },
    /// A point fixed on a rigid body (body frame).
    Rigid { rigid: usize, local: Vec3 },
}

/// An attachment in solver form: `C = |p(a) − p(b)|`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AttachmentLink {
    pub a: Side,
    pub b: Side,
    /// `1 / stiffness` (0 for hard).
    pub compliance: f32,
    /// Damping as a Rayleigh time constant `c / k`, seconds (0 for hard).
    pub damping: f32,
}

/// Unit normal of the triangle `(p0, p1, p2)`, zero when degenerate; its edges are
/// taken in f64, as the solver keeps positions.
fn normal_of(p: [DVec3; 3]) -> DVec3 {
    (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero()
}

impl Side {
    /// Current world position of the site.
    ///
    /// # Safety
    /// No other thread may write the vertices involved.
    unsafe fn position(&self, x: Shared<DVec3>, rigid: &[RigidState]) -> DVec3 {
        match *self {
            Side::Points { idx, weights, offset } => {
                // SAFETY: per the contract.
                let p = |k: usize| unsafe { *x.get(idx[k] as usize) };
                let mut s = DVec3::ZERO;
                for (k, &wk) in weights.iter().enumerate() {
                    if wk != 0.0 {
                        s += p(k) * wk as f64;
                    }
                }
                if offset != 0.0 {
                    s += normal_of([p(0), p(1), p(2)]) * offset as f64;
                }
                s
            }
            Side::World { at, .. } => at.as_dvec3(),
            Side::Rigid { rigid: r, local } => rigid[r].world_point(local).as_dvec3(),
        }
    }

    /// Position of the site at the start of the substep (for damping).
    fn previous(&self, x_prev: &[DVec3], rigid: &[RigidState]) -> DVec3 {
        match *self {
            Side::Points { idx, weights, offset } => {
                let mut s = DVec3::ZERO;
                for k in 0..4 {
                    s += x_prev[idx[k] as usize] * weights[k] as f64;
                }
                if offset != 0.0 {
                    let corners = [x_prev[idx[0] as usize], x_prev[idx[1] as usize], x_prev[idx[2] as usize]];
                    s += normal_of(corners) * offset as f64;
                }
                s
            }
            Side::World { at, .. } => at.as_dvec3(),
            Side::Rigid { rigid: r, local } => rigid[r].previous_point(local).as_dvec3(),
        }
    }

    /// The generalized inverse mass of the site along unit direction `n`.
    fn inverse_mass(&self, w: &[f32], rigid: &[RigidState], n: Vec3) -> f32 {
        match *self {
            Side::Points { idx, weights, .. } => (0..4).map(|k| weights[k] * weights[k] * w[idx[k] as usize]).sum(),
            Side::World { .. } => 0.0,
            Side::Rigid { rigid: r, local } => rigid[r].inverse_mass_at(local, n),
        }
    }

    /// Moves the site by the positional impulse `p` (mass · distance).
    ///
    /// # Safety
    /// No other thread may touch the vertices involved.
    unsafe fn apply(&self, x: Shared<DVec3>, w: &[f32], rigid: &mut [RigidState], p: Vec3) {
        match *self {
            Side::Points { idx, weights, .. } => {
                for k in 0..4 {
                    let i = idx[k] as usize;
                    if weights[k] != 0.0 {
                        // SAFETY: per the contract.
                        unsafe { *x.get(i) += (p * (weights[k] * w[i])).as_dvec3() };
                    }
                }
            }
            Side::World { .. } => {}
            Side::Rigid { rigid: r, local } => rigid[r].apply_impulse_at(local, p),
        }
    }
}

impl AttachmentLink {
    /// One XPBD projection (Macklin et al. 2016, eq. 18 and 26; the rigid side's
    /// generalized inverse mass as in Müller et al. 2020, "Detailed Rigid Body
    /// Simulation with Extended Position Based Dynamics", eq. 2–3).
    ///
    /// # Safety
    /// No other thread may touch this link's vertices or multiplier (links run on the
    /// team leader alone).
    pub unsafe fn project(
        &self,
        x: Shared<DVec3>,
        x_prev: &[DVec3],
        w: &[f32],
        rigid: &mut [RigidState],
        lambda: &mut f32,
        step: Step,
    ) {
        // SAFETY: per the contract.
        let (pa, pb) = unsafe { (self.a.position(x, rigid), self.b.position(x, rigid)) };
        let d = (pa - pb).as_vec3();
        let c = d.length();
        if c < 1e-12 {
            return;
        }
        let n = d / c;
        let wsum = self.a.inverse_mass(w, rigid, n) + self.b.inverse_mass(w, rigid, n);
        let alpha = self.compliance * step.inv_dt2;
        let gamma = self.damping / step.dt;
        let rate = if gamma > 0.0 {
            let moved = (pa - self.a.previous(x_prev, rigid)) - (pb - self.b.previous(x_prev, rigid));
            n.dot(moved.as_vec3())
        } else {
            0.0
        };
        let denom = (1.0 + gamma) * wsum + alpha;
        if denom <= f32::EPSILON {
            return;
        }
        let d_lambda = (-c - alpha * *lambda - gamma * rate) / denom;
        if !d_lambda.is_finite() {
            return;
        }
        *lambda += d_lambda;
        let p = n * d_lambda;
        // SAFETY: per the contract.
        unsafe {
            self.a.apply(x, w, rigid, p);
            self.b.apply(x, w, rigid, -p);
        }
    }
}

/// A vertex hard-attached to a frame: immovable, placed on the frame's point.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Driven {
    /// Global vertex index.
    pub vertex: usize,
    /// Index into the frames.
    pub frame: usize,
    /// Point in the frame's local space.
    pub local: Vec3,
}

/// Converts the scene's attachments to solver form. Hard vertex-to-frame attachments
/// become [`Driven`] vertices (inverse mass set to 0 in `w`, placed on their target in
/// `x` with zero velocity); everything else becomes an [`AttachmentLink`]. Fails naming the
/// attachment (`attachment k`) and the bad index or value.
pub(crate) fn build(
    scene: &Scene,
    ranges: &[Range<usize>],
    w: &mut [f32],
    x: &mut [DVec3],
    v: &mut [Vec3],
) -> Result<(Vec<AttachmentLink>, Vec<Driven>), SceneError> {
    let mut links = Vec::new();
    let mut driven = Vec::new();
    for (k, att) in scene.attachments.iter().enumerate() {
        let name = || format!("attachment {k}");
        let hard = att.stiffness.is_infinite() && att.stiffness > 0.0;
        if !(hard || (att.stiffness > 0.0 && att.stiffness.is_finite())) {
            return Err(SceneError::InvalidValue {
                body: name(),
                what: "attachment stiffness",
                value: att.stiffness,
                expected: "a value > 0 (inf for a hard attachment)",
            });
        }
        if !(att.damping >= 0.0 && att.damping.is_finite()) {
            return Err(SceneError::InvalidValue {
                body: name(),
                what: "attachment damping",
                value: att.damping,
                expected: "a finite value >= 0",
            });
        }
        let a = side(scene, ranges, &att.a, k)?;
        let b = side(scene, ranges, &att.b, k)?;
        if let (Side::Points { idx: ia, weights: wa, .. }, Side::Points { idx: ib, weights: wb, .. }) = (a, b) {
            let shared = (0..4).any(|i| wa[i] != 0.0 && (0..4).any(|j| wb[j] != 0.0 && ia[i] == ib[j]));
            if shared {
                return Err(SceneError::InvalidValue {
                    body: name(),
                    what: "self-attachment (both sites share a vertex)",
                    value: k as f32,
                    expected: "disjoint sites",
                });
            }
        }
        // A hard vertex-to-frame attachment is a pin to a (possibly moving) point.
        let vertex_of = |s: &Side| match *s {
            Side::Points { idx, weights: [1.0, 0.0, 0.0, 0.0], offset: 0.0 } => Some(idx[0] as usize),
            _ => None,
        };
        let frame_of = |s: &Side| match *s {
            Side::World { frame, local, .. } => Some((frame, local)),
            _ => None,
        };
        let pinned = match (vertex_of(&a), frame_of(&b), vertex_of(&b), frame_of(&a)) {
            (Some(i), Some(f), _, _) | (_, _, Some(i), Some(f)) => Some((i, f)),
            _ => None,
        };
        match pinned {
            Some((vertex, (frame, local))) if hard => {
                w[vertex] = 0.0;
                x[vertex] = scene.frames[frame].world_from_local.transform_point3(local).as_dvec3();
                v[vertex] = Vec3::ZERO;
                driven.push(Driven { vertex, frame, local });
            }
            _ => links.push(AttachmentLink {
                a,
                b,
                compliance: if hard { 0.0 } else { 1.0 / att.stiffness },
                damping: if hard { 0.0 } else { att.damping / att.stiffness },
            }),
        }
    }
    Ok((links, driven))
}

/// One site in solver form, its indices checked.
fn side(scene: &Scene, ranges: &[Range<usize>], site: &Site, k: usize) -> Result<Side, SceneError> {
    let name = || format!("attachment {k}");
    let out_of_range = |what: &'static str, index: usize, len: usize| SceneError::IndexOutOfRange {
        body: name(),
        what,
        index: index as u64,
        len,
    };
    let body = |b: usize| -> Result<(&crate::Body, usize), SceneError> {
        match (scene.bodies.get(b), ranges.get(b)) {
            (Some(body), Some(r)) => Ok((body, r.start)),
            _ => Err(out_of_range("body", b, scene.bodies.len())),
        }
    };
    let finite =
        |what: &'static str, ok: bool| if ok { Ok(()) } else { Err(SceneError::NonFinite { body: name(), what }) };
    Ok(match *site {
        Site::Vertex { body: BodyId(b), vertex } => {
            let (body, base) = body(b)?;
            if vertex as usize >= body.positions.len() {
                return Err(out_of_range("attached vertex", vertex as usize, body.positions.len()));
            }
            let i = base as u32 + vertex;
            Side::Points { idx: [i; 4], weights: [1.0, 0.0, 0.0, 0.0], offset: 0.0 }
        }
        Site::Triangle { body: BodyId(b), triangle, uv, normal_offset } => {
            let (body, base) = body(b)?;
            let Some(t) = body.triangles.get(triangle as usize) else {
                return Err(out_of_range("attached triangle", triangle as usize, body.triangles.len()));
            };
            finite("triangle coordinates", uv[0].is_finite() && uv[1].is_finite() && normal_offset.is_finite())?;
            let t = t.map(|i| i + base as u32);
            Side::Points {
                idx: [t[0], t[1], t[2], t[2]],
                weights: [uv[0], uv[1], 1.0 - uv[0] - uv[1], 0.0],
                offset: normal_offset,
            }
        }
        Site::Tet { body: BodyId(b), tet, coords } => {
            let (body, base) = body(b)?;
            let Some(t) = body.tets.get(tet as usize) else {
                return Err(out_of_range("attached tetrahedron", tet as usize, body.tets.len()));
            };
            finite("tetrahedron coordinates", coords.iter().all(|c| c.is_finite()))?;
            Side::Points {
                idx: t.map(|i| i + base as u32),
                weights: [coords[0], coords[1], coords[2], 1.0 - coords[0] - coords[1] - coords[2]],
                offset: 0.0,
            }
        }
        Site::Frame { frame: FrameId(frame), local } => {
            let Some(f) = scene.frames.get(frame) else {
                return Err(out_of_range("frame", frame, scene.frames.len()));
            };
            finite("frame transform or local position", local.is_finite() && f.world_from_local.is_finite())?;
            Side::World { frame, local, at: f.world_from_local.transform_point3(local) }
        }
        Site::Rigid { rigid: RigidId(rigid), local } => {
            if rigid >= scene.rigid_bodies.len() {
                return Err(out_of_range("rigid body", rigid, scene.rigid_bodies.len()));
            }
            finite("rigid-body local position", local.is_finite())?;
            Side::Rigid { rigid, local }
        }
    })
}

/// Moves every frame-fixed site and driven vertex to where its frame is `progress` of
/// the way through the simulation frame.
pub(crate) fn follow_frames(
    links: &mut [AttachmentLink],
    driven: &[Driven],
    frames: &[FrameMotion],
    x: &mut [DVec3],
    progress: f32,
) {
    for d in driven {
        x[d.vertex] = frames[d.frame].point(d.local, progress).as_dvec3();
    }
    for link in links {
        for side in [&mut link.a, &mut link.b] {
            if let Side::World { frame, local, at } = side {
                *at = frames[*frame].point(*local, progress);
            }
        }
    }
}
