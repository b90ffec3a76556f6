//! Attachments: the six attachment types of the seed schema become
//! [`usdsim_core::Attachment`]s between sites of deformable bodies, frames (static or
//! animated xformables) and rigid bodies. See `docs/attachments.md`.
//!
//! Both spellings are read, with the same semantics: the seed's `OmniPhysics*Attachment`
//! prims with `omniphysics:` attributes, and the AOUSD proposal's `Physics*Attachment`
//! prims (`PhysicsVtxVtxAttachment`, ...) with the same attributes in the `physics:`
//! namespace (`physics:src0`, `physics:vtxIndicesSrc0`, `physics:stiffness`, ...).

use glam::{DMat4, Vec3};
use openusd::sdf;
use usdsim_core::{Attachment, Body, BodyId, Frame, FrameId, Pin, RigidId, Site};

use crate::error::ImportError;
use crate::schema::attachment::{
    attachment_type, split_type, SourceKind, ATTACHMENT_ENABLED, LOCAL_POSITIONS, SRC, TET_COORDS, TET_INDICES,
    TRI_COORDS, TRI_INDICES, VTX_INDICES,
};
use crate::stage::attribute_values::{self, checked_index};
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;
use crate::stage::xform::XformCache;

/// Most time codes sampled per animated frame.
const MAX_SAMPLES: usize = 100_000;

/// An animated frame's world transform at time codes `start + k`.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameTrack {
    /// What moves: an attachment frame or a kinematic rigid body.
    pub target: TrackTarget,
    /// Time code of the first sample.
    pub start: f64,
    /// Local-to-world transforms at `start + k`.
    pub samples: Vec<DMat4>,
}

/// The thing a [`FrameTrack`] animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackTarget {
    /// An attachment frame (`Solver::set_frame_target`).
    Frame(FrameId),
    /// A kinematic rigid body (`Solver::set_rigid_target`).
    Rigid(RigidId),
}

impl FrameTrack {
    /// The transform at `time`: exact at sampled time codes, linear in between (matrix
    /// entries; the solver interpolates attached points, not the matrix), held outside.
    pub fn at(&self, time: f64) -> DMat4 {
        let last = self.samples.len() - 1;
        let t = (time - self.start).clamp(0.0, last as f64);
        let k = (t.floor() as usize).min(last);
        let f = t - k as f64;
        if f == 0.0 || k == last {
            return self.samples[k];
        }
        self.samples[k] * (1.0 - f) + self.samples[k + 1] * f
    }
}

/// The latest authored time sample of the transform ops on `prim` and its ancestors.
fn last_xform_sample(ctx: &Ctx, prim: &sdf::Path) -> Result<Option<f64>, ImportError> {
    let mut last: Option<f64> = None;
    let mut path = Some(prim.clone());
    while let Some(p) = path.filter(|p| !p.is_abs_root()) {
        let ops = attribute_values::token_array(ctx, &p, "xformOpOrder")?.unwrap_or_default();
        let handle = ctx.prim(&p)?;
        for op in ops.iter().filter(|o| o.starts_with("xformOp:")) {
            let times = handle.attribute(op).time_sample_times().map_err(|e| ctx.query_err(&p, Some(op), e))?;
            for t in times {
                last = Some(last.map_or(t, |l: f64| l.max(t)));
            }
        }
        path = p.parent();
    }
    Ok(last)
}

/// Samples `prim`'s world transform at every time code from `start` to its last
/// transform sample, or `None` when it is not animated. Restores `ctx.time`.
pub(crate) fn sample_world(ctx: &mut Ctx, prim: &sdf::Path, start: f64) -> Result<Option<Vec<DMat4>>, ImportError> {
    let Some(last) = last_xform_sample(ctx, prim)?.filter(|&l| l > start) else { return Ok(None) };
    let count = (((last - start).ceil() as usize) + 1).min(MAX_SAMPLES);
    let saved = ctx.time;
    let mut samples = Vec::with_capacity(count);
    for k in 0..count {
        ctx.time = start + k as f64;
        let m = XformCache::default().world(ctx, prim);
        match m {
            Ok(m) => samples.push(m),
            Err(e) => {
                ctx.time = saved;
                return Err(e);
            }
        }
    }
    ctx.time = saved;
    Ok(Some(samples))
}

/// What an attachment source resolves to.
pub(crate) enum Source {
    /// A deformable body (its index).
    Body(usize),
    /// A rigid body, and the transform from the named prim into the body's frame.
    Rigid { index: usize, body_from_prim: DMat4 },
    /// A frame of [`ReadAttachments::frames`]: a static or animated xformable.
    Frame(usize),
}

/// The attachments of a stage, in scene form.
pub(crate) struct ReadAttachments {
    pub attachments: Vec<Attachment>,
    /// Vertex-to-static-xformable attachments, as pins (the simplest case).
    pub pins: Vec<Pin>,
    pub frames: Vec<Frame>,
    pub tracks: Vec<FrameTrack>,
    /// The prim of each frame, so an xformable named twice is one frame.
    pub frame_paths: Vec<sdf::Path>,
}

impl ReadAttachments {
    /// The frame of `prim` (made, and sampled when animated, the first time).
    pub fn frame(
        &mut self,
        ctx: &mut Ctx,
        prim: &sdf::Path,
        xforms: &mut XformCache,
        start: f64,
    ) -> Result<usize, ImportError> {
        if let Some(i) = self.frame_paths.iter().position(|p| p == prim) {
            return Ok(i);
        }
        let world = if prim.is_abs_root() { DMat4::IDENTITY } else { xforms.world(ctx, prim)? };
        let i = self.frames.len();
        self.frames.push(Frame { name: prim.to_string(), world_from_local: world.as_mat4() });
        self.frame_paths.push(prim.clone());
        if !prim.is_abs_root() {
            if let Some(samples) = sample_world(ctx, prim, start)? {
                self.tracks.push(FrameTrack { target: TrackTarget::Frame(FrameId(i)), start, samples });
            }
        }
        Ok(i)
    }

    /// Whether frame `frame` never moves.
    pub fn is_static(&self, frame: usize) -> bool {
        !self.tracks.iter().any(|t| t.target == TrackTarget::Frame(FrameId(frame)))
    }

    /// Adds the attachments between `a[k]` and `b[k]`: a vertex held at a point of a
    /// static frame becomes a pin, everything else an attachment.
    pub fn push(&mut self, a: Vec<Site>, b: Vec<Site>, stiffness: f32, damping: f32) {
        if let (Some(Site::Vertex { .. }), Some(&Site::Frame { frame: FrameId(frame), .. })) = (a.first(), b.first()) {
            if self.is_static(frame) {
                let world = self.frames[frame].world_from_local;
                for (a, b) in a.iter().zip(&b) {
                    if let (&Site::Vertex { body, vertex }, &Site::Frame { local, .. }) = (a, b) {
                        let target = world.transform_point3(local);
                        self.pins.push(Pin { body, vertex, target, stiffness, damping });
                    }
                }
                return;
            }
        }
        self.attachments.extend(a.into_iter().zip(b).map(|(a, b)| Attachment { a, b, stiffness, damping }));
    }
}

/// What the attachment `target` (named by `rel` of `attachment`) is: a deformable body
/// (found in `lookup`), a rigid body (a prim at or below one of `rigid`) or any other
/// xformable, a frame of `out`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn resolve(
    ctx: &mut Ctx,
    attachment: &sdf::Path,
    rel: &str,
    target: &sdf::Path,
    lookup: &[(sdf::Path, usize)],
    rigid: &[(sdf::Path, DMat4)],
    xforms: &mut XformCache,
    start: f64,
    out: &mut ReadAttachments,
) -> Result<Source, ImportError> {
    if let Some(&(_, b)) = lookup.iter().find(|(p, _)| p == target) {
        return Ok(Source::Body(b));
    }
    let handle = ctx.prim(target)?;
    if !handle.is_valid().map_err(|err| ctx.query_err(target, None, err))? {
        return Err(ImportError::Invalid {
            at: ctx.prop_loc(attachment, rel),
            reason: format!("target {target} does not exist"),
        });
    }
    if let Some((index, (_, body_world))) = rigid
        .iter()
        .enumerate()
        .filter(|(_, (r, _))| target.has_prefix(r))
        .max_by_key(|(_, (r, _))| r.to_string().len())
    {
        let (t, q) = crate::read::rigid_body::pose_of(*body_world);
        let body_frame = DMat4::from_rotation_translation(q.as_dquat(), t.as_dvec3());
        let body_from_prim = body_frame.inverse() * xforms.world(ctx, target)?;
        return Ok(Source::Rigid { index, body_from_prim });
    }
    Ok(Source::Frame(out.frame(ctx, target, xforms, start)?))
}

/// The first target of a relationship, if any.
fn first_target(ctx: &Ctx, prim: &sdf::Path, rel: &str) -> Result<Option<sdf::Path>, ImportError> {
    let targets = ctx.prim(prim)?.relationship(rel).targets().map_err(|err| ctx.query_err(prim, Some(rel), err))?;
    Ok(targets.into_iter().next())
}

/// Whether a prim type is an attachment of either schema dialect.
fn is_attachment(type_name: &str) -> bool {
    split_type(type_name).is_some_and(|(_, leaf)| leaf.ends_with("Attachment"))
}

/// Reads every enabled attachment. `lookup` maps body prims and simulation meshes to
/// body indices, `rigid` lists rigid body prims with their world transforms.
#[allow(clippy::too_many_arguments)]
pub(crate) fn read(
    ctx: &mut Ctx,
    prims: &[PrimInfo],
    lookup: &[(sdf::Path, usize)],
    bodies: &[Body],
    rigid: &[(sdf::Path, DMat4)],
    xforms: &mut XformCache,
    start: f64,
) -> Result<ReadAttachments, ImportError> {
    let mut out = ReadAttachments {
        attachments: Vec::new(),
        pins: Vec::new(),
        frames: Vec::new(),
        tracks: Vec::new(),
        frame_paths: Vec::new(),
    };
    for prim in prims.iter().filter(|p| is_attachment(&p.type_name)) {
        let path = &prim.path;
        let Some((ns, row)) = attachment_type(&prim.type_name) else {
            ctx.warn(
                "DB502",
                path,
                None,
                format!("{} is not one of the six attachment types; ignored", prim.type_name),
            );
            continue;
        };
        let attr = |leaf: &str| format!("{ns}:{leaf}");
        if attribute_values::bool_value(ctx, path, &attr(ATTACHMENT_ENABLED))? == Some(false) {
            continue;
        }
        let stiffness_attr = attr("stiffness");
        let stiffness = attribute_values::f64_value(ctx, path, &stiffness_attr)?.unwrap_or(f64::INFINITY);
        if stiffness.is_nan() || stiffness <= 0.0 {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(path, &stiffness_attr),
                reason: format!("must be positive (inf for a hard attachment), found {stiffness}"),
            });
        }
        let damping_attr = attr("damping");
        let damping = attribute_values::f64_value(ctx, path, &damping_attr)?.unwrap_or(0.0);
        if !damping.is_finite() || damping < 0.0 {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(path, &damping_attr),
                reason: format!("must be a finite, non-negative number, found {damping}"),
            });
        }
        let mut sides: Vec<Vec<Site>> = Vec::with_capacity(2);
        for (n, kind) in row.sources.into_iter().enumerate() {
            let rel = &attr(&format!("{SRC}{n}"));
            let Some(target) = first_target(ctx, path, rel)? else {
                ctx.warn("DB401", path, Some(rel), "no target; attachment ignored");
                break;
            };
            let source = resolve(ctx, path, rel, &target, lookup, rigid, xforms, start, &mut out)?;
            sides.push(read_sites(ctx, path, ns, kind, n, &source, bodies)?);
        }
        let [a, b] = match <[Vec<Site>; 2]>::try_from(sides) {
            Ok(s) => s,
            Err(_) => continue,
        };
        if a.len() != b.len() {
            return Err(ImportError::LengthMismatch {
                at: ctx.prim_loc(path),
                found: b.len(),
                expected: a.len(),
                reason: "src1 must name as many points as src0".to_string(),
            });
        }
        // A vertex held at a point of a static (unanimated) xformable is a pin.
        out.push(a, b, stiffness as f32, damping as f32);
    }
    Ok(out)
}

/// The sites source `side` (0 or 1) of an attachment names; `ns` is the attribute
/// namespace of its spelling.
fn read_sites(
    ctx: &Ctx,
    path: &sdf::Path,
    ns: &str,
    kind: SourceKind,
    side: usize,
    source: &Source,
    bodies: &[Body],
) -> Result<Vec<Site>, ImportError> {
    let name = |base: &str| format!("{ns}:{base}Src{side}");
    let rel = format!("{ns}:{SRC}{side}");
    let ints = |attr: &str| -> Result<Vec<i64>, ImportError> {
        attribute_values::int_array(ctx, path, attr)?
            .ok_or_else(|| ImportError::Missing { at: ctx.prop_loc(path, attr), expected: "int[]" })
    };
    let vecs = |attr: &str, expected: &'static str, len: usize| -> Result<Vec<Vec3>, ImportError> {
        let v = attribute_values::vec3_array(ctx, path, attr)?
            .ok_or_else(|| ImportError::Missing { at: ctx.prop_loc(path, attr), expected })?;
        if v.len() != len {
            return Err(ImportError::LengthMismatch {
                at: ctx.prop_loc(path, attr),
                found: v.len(),
                expected: len,
                reason: "one entry per index".to_string(),
            });
        }
        Ok(v.iter().map(|p| p.as_vec3()).collect())
    };
    let need_body = |what: &str| -> Result<(usize, &Body), ImportError> {
        match source {
            Source::Body(b) => Ok((*b, &bodies[*b])),
            _ => Err(ImportError::Invalid {
                at: ctx.prop_loc(path, &rel),
                reason: format!("must name a deformable body or its simulation mesh ({what})"),
            }),
        }
    };
    Ok(match kind {
        SourceKind::Vertices => {
            let attr = name(VTX_INDICES);
            let (b, body) = need_body("vertex indices")?;
            let idx = ints(&attr)?;
            idx.iter()
                .map(|&i| {
                    let vertex = checked_index(ctx, path, &attr, i, body.positions.len(), "body vertices")?;
                    Ok(Site::Vertex { body: BodyId(b), vertex })
                })
                .collect::<Result<_, ImportError>>()?
        }
        SourceKind::Triangles => {
            let (attr, coords_attr) = (name(TRI_INDICES), name(TRI_COORDS));
            let (b, body) = need_body("triangle indices")?;
            let idx = ints(&attr)?;
            let coords = vecs(&coords_attr, "vector3f[]", idx.len())?;
            idx.iter()
                .zip(coords)
                .map(|(&i, c)| {
                    let triangle = checked_index(ctx, path, &attr, i, body.triangles.len(), "body triangles")?;
                    Ok(Site::Triangle { body: BodyId(b), triangle, uv: [c.x, c.y], normal_offset: c.z })
                })
                .collect::<Result<_, ImportError>>()?
        }
        SourceKind::Tets => {
            let (attr, coords_attr) = (name(TET_INDICES), name(TET_COORDS));
            let (b, body) = need_body("tetrahedron indices")?;
            let idx = ints(&attr)?;
            let coords = vecs(&coords_attr, "vector3f[]", idx.len())?;
            idx.iter()
                .zip(coords)
                .map(|(&i, c)| {
                    let tet = checked_index(ctx, path, &attr, i, body.tets.len(), "body tetrahedra")?;
                    Ok(Site::Tet { body: BodyId(b), tet, coords: c.to_array() })
                })
                .collect::<Result<_, ImportError>>()?
        }
        SourceKind::Local => {
            let attr = name(LOCAL_POSITIONS);
            let positions = attribute_values::vec3_array(ctx, path, &attr)?
                .ok_or_else(|| ImportError::Missing { at: ctx.prop_loc(path, &attr), expected: "point3f[]" })?;
            match source {
                Source::Frame(frame) => {
                    positions.iter().map(|p| Site::Frame { frame: FrameId(*frame), local: p.as_vec3() }).collect()
                }
                Source::Rigid { index, body_from_prim } => positions
                    .iter()
                    .map(|p| Site::Rigid {
                        rigid: RigidId(*index),
                        local: body_from_prim.transform_point3(*p).as_vec3(),
                    })
                    .collect(),
                Source::Body(_) => {
                    return Err(ImportError::Invalid {
                        at: ctx.prop_loc(path, &rel),
                        reason: "must name an xformable, not a deformable body".to_string(),
                    })
                }
            }
        }
    })
}
