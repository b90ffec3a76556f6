//! UsdPhysics joints between rigid bodies (`schema/joint.rs`), as
//! [`usdsim_core::Joint`]s that the solver hands to rapier3d's own joints.
//!
//! Each side's joint frame is `physics:localPos`/`localRot` in its body prim's local
//! space, taken into the rigid body's frame (its origin and orientation; a scale of the
//! prim scales the position). A side with no body, or one naming a prim that is no
//! rigid body (a static collider, an Xform), is held by the world at that prim's frame.

use glam::{DMat4, DQuat, DVec3, Quat, Vec3};
use openusd::sdf;
use usdsim_core::{DofLimit, Drive, Joint, JointDof, JointKind, RigidId};

use crate::error::ImportError;
use crate::read::rigid_body::pose_of;
use crate::schema::joint::{
    self as names, drive_attr, limit_attr, JointType, ACCELERATION, ANGULAR, ARTICULATION_ROOT_API, AXIS, BODIES,
    BREAK, COLLISION_ENABLED, CONE_LIMITS, DAMPING, DRIVE_API, DRIVE_TYPE, ENABLED, EXCLUDE_FROM_ARTICULATION,
    JOINT_TYPES, LIMIT_API, LIMIT_DISTANCE, LIMIT_DOFS, LIMIT_HIGH, LIMIT_LOW, LINEAR, LOCAL_POS, LOCAL_ROT,
    LOWER_LIMIT, MAX_DISTANCE, MAX_FORCE, MIN_DISTANCE, STIFFNESS, TARGET_POSITION, TARGET_VELOCITY, UPPER_LIMIT,
};
use crate::stage::attribute_values;
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;
use crate::stage::xform::XformCache;

/// Most time codes sampled per animated drive target.
const MAX_SAMPLES: usize = 100_000;

/// A drive's time-sampled targets: `(position, velocity)` at time codes `start + k`, in
/// the solver's units (radians, stage units).
#[derive(Clone, Debug, PartialEq)]
pub struct DriveTrack {
    /// The joint (index into `Scene::joints`).
    pub joint: usize,
    /// The degree of freedom of a generic joint's drive; `None`: a revolute or
    /// prismatic joint's own.
    pub dof: Option<JointDof>,
    /// Time code of the first sample.
    pub start: f64,
    /// `(target position, target velocity)` per time code.
    pub samples: Vec<(f32, f32)>,
}

impl DriveTrack {
    /// The targets at `time`: exact at sampled time codes, linear in between, held
    /// outside.
    pub fn at(&self, time: f64) -> (f32, f32) {
        let last = self.samples.len() - 1;
        let t = (time - self.start).clamp(0.0, last as f64);
        let k = (t.floor() as usize).min(last);
        let f = (t - k as f64) as f32;
        if f == 0.0 || k == last {
            return self.samples[k];
        }
        let (a, b) = (self.samples[k], self.samples[k + 1]);
        (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f)
    }
}

/// Reads every enabled joint of a simulated type, and the time-sampled targets of
/// their drives from time code `start` on. `rigid` lists the rigid body prims with
/// their world transforms; `is_body` says whether a prim belongs to a deformable body
/// (joints hold rigid bodies only).
pub(crate) fn read_all(
    ctx: &mut Ctx,
    prims: &[PrimInfo],
    rigid: &[(sdf::Path, DMat4)],
    is_body: &dyn Fn(&sdf::Path) -> bool,
    xforms: &mut XformCache,
    start: f64,
) -> Result<(Vec<Joint>, Vec<DriveTrack>), ImportError> {
    let mut joints = Vec::new();
    let mut tracks = Vec::new();
    let roots: Vec<&sdf::Path> = prims.iter().filter(|p| p.has_api(ARTICULATION_ROOT_API)).map(|p| &p.path).collect();
    'joints: for prim in prims {
        let Some(&(type_name, kind)) = JOINT_TYPES.iter().find(|(t, _)| *t == prim.type_name) else { continue };
        let path = &prim.path;
        if attribute_values::bool_value(ctx, path, ENABLED)? == Some(false) {
            continue;
        }
        let mut bodies = [None; 2];
        let mut frames = [(Vec3::ZERO, Quat::IDENTITY); 2];
        for k in 0..2 {
            let targets = ctx
                .prim(path)?
                .relationship(BODIES[k])
                .targets()
                .map_err(|err| ctx.query_err(path, Some(BODIES[k]), err))?;
            let target = targets.into_iter().next();
            let pos = attribute_values::vec3_value(ctx, path, LOCAL_POS[k])?.unwrap_or(DVec3::ZERO);
            let rot = match attribute_values::raw(ctx, path, LOCAL_ROT[k])? {
                Some(v) => attribute_values::quat_of(&v).ok_or_else(|| ImportError::WrongType {
                    at: ctx.prop_loc(path, LOCAL_ROT[k]),
                    expected: "a quaternion (quatf)",
                    found: attribute_values::kind_name(&v),
                })?,
                None => DQuat::IDENTITY,
            };
            if !(pos.is_finite() && rot.is_finite() && rot.length() > 1e-9) {
                return Err(ImportError::Invalid {
                    at: ctx.prop_loc(path, LOCAL_POS[k]),
                    reason: "the joint frame is not finite".to_string(),
                });
            }
            let Some(target) = target else {
                frames[k] = (pos.as_vec3(), rot.normalize().as_quat());
                continue;
            };
            if !ctx.prim(&target)?.is_valid().map_err(|err| ctx.query_err(&target, None, err))? {
                return Err(ImportError::Invalid {
                    at: ctx.prop_loc(path, BODIES[k]),
                    reason: format!("target {target} does not exist"),
                });
            }
            if is_body(&target) {
                ctx.warn(
                    "IM084",
                    path,
                    Some(BODIES[k]),
                    format!("{type_name}: joins {target}, a deformable body; joints hold rigid bodies only (attach a deformable with an attachment), so it is ignored"),
                );
                continue 'joints;
            }
            let prim_world = xforms.world(ctx, &target)?;
            // The frame in the world: the prim's transform (its scale moves the point,
            // its rotation turns the frame).
            let world_pos = prim_world.transform_point3(pos);
            let (_, prim_rot) = pose_of(prim_world);
            let world_rot = prim_rot.as_dquat() * rot.normalize();
            let owner = rigid
                .iter()
                .enumerate()
                .filter(|(_, (r, _))| target.has_prefix(r))
                .max_by_key(|(_, (r, _))| r.to_string().len());
            frames[k] = match owner {
                Some((index, (_, body_world))) => {
                    bodies[k] = Some(RigidId(index));
                    let (t, q) = pose_of(*body_world);
                    let body_frame = DMat4::from_rotation_translation(q.as_dquat(), t.as_dvec3());
                    let local = body_frame.inverse().transform_point3(world_pos);
                    (local.as_vec3(), (q.as_dquat().inverse() * world_rot).normalize().as_quat())
                }
                None => (world_pos.as_vec3(), world_rot.normalize().as_quat()),
            };
        }
        if bodies.iter().all(Option::is_none) {
            ctx.warn(
                "IM084",
                path,
                Some(BODIES[0]),
                format!(
                    "{type_name}: joins no rigid body (both sides are the world or static prims), so it is ignored"
                ),
            );
            continue;
        }
        let Some(kind) = joint_kind(ctx, prim, type_name, kind)? else { continue };
        let mut break_at = [f32::INFINITY; 2];
        for (slot, name) in break_at.iter_mut().zip(BREAK) {
            match attribute_values::f64_value(ctx, path, name)? {
                Some(v) if v.is_nan() || v < 0.0 => {
                    return Err(ImportError::Invalid {
                        at: ctx.prop_loc(path, name),
                        reason: format!("must be a non-negative force or torque (inf: never breaks), found {v}"),
                    });
                }
                Some(v) => *slot = v as f32,
                None => {}
            }
        }
        let collision_enabled = attribute_values::bool_value(ctx, path, COLLISION_ENABLED)? == Some(true);
        // In an articulation: the joint prim, or a body it joins, lies under a root.
        let body_paths: Vec<sdf::Path> = (0..2)
            .filter_map(|k| ctx.prim(path).ok()?.relationship(BODIES[k]).targets().ok()?.into_iter().next())
            .collect();
        let articulated =
            roots.iter().any(|root| path.has_prefix(root) || body_paths.iter().any(|b| b.has_prefix(root)))
                && attribute_values::bool_value(ctx, path, EXCLUDE_FROM_ARTICULATION)? != Some(true);
        if articulated && break_at.iter().any(|b| b.is_finite()) {
            ctx.warn(
                "IM084",
                path,
                Some(BREAK[0]),
                format!("{type_name}: a joint of an articulation does not break (rapier's multibody links hold); the threshold is ignored"),
            );
            break_at = [f32::INFINITY; 2];
        }
        let mut kind = kind;
        let (drive, track) = drives(ctx, prim, type_name, &mut kind, joints.len(), start)?;
        tracks.extend(track);
        joints.push(Joint {
            name: path.to_string(),
            bodies,
            frames,
            kind,
            collision_enabled,
            drive,
            break_at,
            articulated,
        });
    }
    Ok((joints, tracks))
}

/// The drives of joint `index`, in radians and stage units, with their time-sampled
/// targets: `PhysicsDriveAPI:angular` on a revolute joint and `:linear` on a prismatic
/// one (returned), `:transX`…`:rotZ` on a generic joint's degrees of freedom that are
/// not locked (put into its `kind`). Other drive instances are named, not simulated.
fn drives(
    ctx: &mut Ctx,
    prim: &PrimInfo,
    type_name: &str,
    kind: &mut JointKind,
    index: usize,
    start: f64,
) -> Result<(Option<Drive>, Vec<DriveTrack>), ImportError> {
    let path = &prim.path;
    let mut tracks = Vec::new();
    if let JointKind::Generic { dofs, drives } = kind {
        for instance in prim.instances(DRIVE_API) {
            let Some(k) = LIMIT_DOFS.iter().position(|(dof, _)| *dof == instance.as_str()) else {
                ctx.warn(
                    "IM084",
                    path,
                    None,
                    format!("{DRIVE_API}:{instance} on a {type_name}: not a degree of freedom (transX…rotZ); ignored"),
                );
                continue;
            };
            if dofs[k] == DofLimit::Locked {
                ctx.warn(
                    "IM084",
                    path,
                    None,
                    format!("{DRIVE_API}:{instance} on a {type_name}: drives a degree of freedom its {LIMIT_API}:{instance} locks; ignored"),
                );
                continue;
            }
            let (drive, track) =
                read_drive(ctx, path, &instance, LIMIT_DOFS[k].1, index, Some(JointDof::ALL[k]), start)?;
            drives[k] = Some(drive);
            tracks.extend(track);
        }
        return Ok((None, tracks));
    }
    let (usable, degrees) = match kind {
        JointKind::Revolute { .. } => (Some(ANGULAR), true),
        JointKind::Prismatic { .. } => (Some(LINEAR), false),
        _ => (None, false),
    };
    let mut found = None;
    for instance in prim.instances(DRIVE_API) {
        if Some(instance.as_str()) == usable {
            found = usable;
        } else {
            ctx.warn(
                "IM084",
                path,
                None,
                format!("{DRIVE_API}:{instance} on a {type_name}: only its own axis's drive is simulated; ignored"),
            );
        }
    }
    let Some(instance) = found else { return Ok((None, tracks)) };
    let (drive, track) = read_drive(ctx, path, instance, degrees, index, None, start)?;
    tracks.extend(track);
    Ok((Some(drive), tracks))
}

/// One `PhysicsDriveAPI:<instance>` of joint `index` (on `dof` of a generic joint): the
/// drive in radians (`degrees`: its angles are per degree) or stage units, and its
/// time-sampled targets.
fn read_drive(
    ctx: &mut Ctx,
    path: &sdf::Path,
    instance: &str,
    degrees: bool,
    index: usize,
    dof: Option<JointDof>,
    start: f64,
) -> Result<(Drive, Option<DriveTrack>), ImportError> {
    let name = |leaf: &str| drive_attr(instance, leaf);
    // UsdPhysics' angular drives are per degree; the solver's per radian.
    let to_rad = if degrees { std::f64::consts::PI / 180.0 } else { 1.0 };
    let number = |ctx: &Ctx, leaf: &str, fallback: f64| -> Result<f64, ImportError> {
        let attr = name(leaf);
        match attribute_values::f64_value(ctx, path, &attr)? {
            Some(v) if v.is_nan() => {
                Err(ImportError::Invalid { at: ctx.prop_loc(path, &attr), reason: "is not a number".to_string() })
            }
            Some(v) => Ok(v),
            None => Ok(fallback),
        }
    };
    let stiffness = number(ctx, STIFFNESS, 0.0)?;
    let damping = number(ctx, DAMPING, 0.0)?;
    let max_force = number(ctx, MAX_FORCE, f64::INFINITY)?;
    for (leaf, v) in [(STIFFNESS, stiffness), (DAMPING, damping), (MAX_FORCE, max_force)] {
        if v < 0.0 || (leaf != MAX_FORCE && !v.is_finite()) {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(path, &name(leaf)),
                reason: format!("must be a finite, non-negative number, found {v}"),
            });
        }
    }
    let acceleration = attribute_values::token_value(ctx, path, &name(DRIVE_TYPE))?.as_deref() == Some(ACCELERATION);
    let targets = |ctx: &Ctx| -> Result<(f32, f32), ImportError> {
        let p = number(ctx, TARGET_POSITION, 0.0)?;
        let v = number(ctx, TARGET_VELOCITY, 0.0)?;
        if !(p.is_finite() && v.is_finite()) {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(path, &name(TARGET_POSITION)),
                reason: format!("the drive's targets ({p}, {v}) are not finite"),
            });
        }
        Ok(((p * to_rad) as f32, (v * to_rad) as f32))
    };
    let (target_position, target_velocity) = targets(ctx)?;
    let drive = Drive {
        target_position,
        target_velocity,
        stiffness: (stiffness / to_rad) as f32,
        damping: (damping / to_rad) as f32,
        max_force: max_force as f32,
        acceleration,
    };
    // Time-sampled targets: sampled at every time code from the start to the last.
    let mut last: Option<f64> = None;
    let handle = ctx.prim(path)?;
    for leaf in [TARGET_POSITION, TARGET_VELOCITY] {
        let attr = name(leaf);
        let times = handle.attribute(&attr).time_sample_times().map_err(|e| ctx.query_err(path, Some(&attr), e))?;
        if let Some(t) = times.into_iter().max_by(f64::total_cmp) {
            last = Some(last.map_or(t, |l| l.max(t)));
        }
    }
    let Some(last) = last.filter(|&l| l > start) else { return Ok((drive, None)) };
    let count = (((last - start).ceil() as usize) + 1).min(MAX_SAMPLES);
    let saved = ctx.time;
    let mut samples = Vec::with_capacity(count);
    for k in 0..count {
        ctx.time = start + k as f64;
        match targets(ctx) {
            Ok(s) => samples.push(s),
            Err(e) => {
                ctx.time = saved;
                return Err(e);
            }
        }
    }
    ctx.time = saved;
    Ok((drive, Some(DriveTrack { joint: index, dof, start, samples })))
}

/// What the joint of `kind` leaves free, with its limits; `None` (warned) for a joint
/// that constrains nothing usdsim simulates.
fn joint_kind(
    ctx: &mut Ctx,
    prim: &PrimInfo,
    type_name: &str,
    kind: JointType,
) -> Result<Option<JointKind>, ImportError> {
    let path = &prim.path;
    let axis = || -> Result<usdsim_core::JointAxis, ImportError> {
        let token = attribute_values::token_value(ctx, path, AXIS)?.unwrap_or_else(|| "X".to_string());
        names::axis(&token).ok_or_else(|| ImportError::Invalid {
            at: ctx.prop_loc(path, AXIS),
            reason: format!("expected \"X\", \"Y\" or \"Z\", found {token:?}"),
        })
    };
    let limit = |scale: f64| -> Result<Option<[f32; 2]>, ImportError> {
        let lo = attribute_values::f64_value(ctx, path, LOWER_LIMIT)?.unwrap_or(f64::NEG_INFINITY);
        let hi = attribute_values::f64_value(ctx, path, UPPER_LIMIT)?.unwrap_or(f64::INFINITY);
        if lo.is_nan() || hi.is_nan() || lo > hi {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(path, LOWER_LIMIT),
                reason: format!("the limits [{lo}, {hi}] are reversed or not numbers"),
            });
        }
        if lo == f64::NEG_INFINITY && hi == f64::INFINITY {
            return Ok(None);
        }
        // One open side is a limit far beyond any motion.
        let far = 1e6;
        Ok(Some([(lo.max(-far) * scale) as f32, (hi.min(far) * scale) as f32]))
    };
    Ok(Some(match kind {
        JointType::Fixed => JointKind::Fixed,
        JointType::Revolute => JointKind::Revolute { axis: axis()?, limit: limit(std::f64::consts::PI / 180.0)? },
        JointType::Prismatic => JointKind::Prismatic { axis: axis()?, limit: limit(1.0)? },
        JointType::Spherical => {
            let mut cone = [None; 2];
            for (slot, name) in cone.iter_mut().zip(CONE_LIMITS) {
                match attribute_values::f64_value(ctx, path, name)? {
                    Some(v) if v.is_nan() => {
                        return Err(ImportError::Invalid {
                            at: ctx.prop_loc(path, name),
                            reason: "is not a number".to_string(),
                        })
                    }
                    // Negative (the fallback -1) is no limit; so is a half turn or more.
                    Some(v) if (0.0..180.0).contains(&v) => *slot = Some(v.to_radians() as f32),
                    _ => {}
                }
            }
            JointKind::Spherical { axis: axis()?, cone }
        }
        JointType::Generic => {
            let mut dofs = [DofLimit::Free; 6];
            for (dof, (instance, angle)) in dofs.iter_mut().zip(LIMIT_DOFS) {
                if !prim.instances(LIMIT_API).iter().any(|i| i == instance) {
                    continue;
                }
                let (lo_name, hi_name) = (limit_attr(instance, LIMIT_LOW), limit_attr(instance, LIMIT_HIGH));
                let lo = attribute_values::f64_value(ctx, path, &lo_name)?.unwrap_or(f64::NEG_INFINITY);
                let hi = attribute_values::f64_value(ctx, path, &hi_name)?.unwrap_or(f64::INFINITY);
                if lo.is_nan() || hi.is_nan() {
                    return Err(ImportError::Invalid {
                        at: ctx.prop_loc(path, &lo_name),
                        reason: format!("the limits [{lo}, {hi}] are not numbers"),
                    });
                }
                let scale = if angle { std::f64::consts::PI / 180.0 } else { 1.0 };
                let far = 1e6;
                // UsdPhysics: low above high locks the degree of freedom.
                *dof = if lo > hi {
                    DofLimit::Locked
                } else if lo == f64::NEG_INFINITY && hi == f64::INFINITY {
                    DofLimit::Free
                } else {
                    DofLimit::Limited([(lo.max(-far) * scale) as f32, (hi.min(far) * scale) as f32])
                };
            }
            if prim.instances(LIMIT_API).iter().any(|i| i == LIMIT_DISTANCE) {
                ctx.warn(
                    "IM084",
                    path,
                    Some(&limit_attr(LIMIT_DISTANCE, LIMIT_HIGH)),
                    format!("{LIMIT_API}:{LIMIT_DISTANCE}: a limit on the frames' distance is not simulated"),
                );
            }
            if dofs.iter().all(|d| *d == DofLimit::Free) {
                ctx.warn(
                    "IM084",
                    path,
                    None,
                    format!("{type_name}: no {LIMIT_API} limits or locks any degree of freedom, so it holds nothing; ignored"),
                );
                return Ok(None);
            }
            JointKind::Generic { dofs, drives: [None; 6] }
        }
        JointType::Distance => {
            if let Some(v) = attribute_values::f64_value(ctx, path, MIN_DISTANCE)?.filter(|v| *v > 0.0) {
                ctx.warn("IM084", path, Some(MIN_DISTANCE), format!("is {v}: a least distance is not simulated yet"));
            }
            match attribute_values::f64_value(ctx, path, MAX_DISTANCE)?.filter(|v| *v >= 0.0) {
                Some(max) if max.is_finite() => JointKind::Distance { max: max as f32 },
                _ => {
                    ctx.warn(
                        "IM084",
                        path,
                        Some(MAX_DISTANCE),
                        format!("{type_name}: no physics:maxDistance, so it holds nothing; ignored"),
                    );
                    return Ok(None);
                }
            }
        }
    }))
}
