//! UsdPhysics joints between rigid bodies (`schema/joint.rs`), as
//! [`usdsim_core::Joint`]s that the solver hands to rapier3d's own joints.
//!
//! Each side's joint frame is `physics:localPos`/`localRot` in its body prim's local
//! space, taken into the rigid body's frame (its origin and orientation; a scale of the
//! prim scales the position). A side with no body, or one naming a prim that is no
//! rigid body (a static collider, an Xform), is held by the world at that prim's frame.

use glam::{DMat4, DQuat, DVec3, Quat, Vec3};
use openusd::sdf;
use usdsim_core::{Joint, JointKind, RigidId};

use crate::error::ImportError;
use crate::read::rigid_body::pose_of;
use crate::schema::joint::{
    self as names, JointType, AXIS, BODIES, BREAK, COLLISION_ENABLED, CONE_LIMITS, ENABLED, JOINT_TYPES, LOCAL_POS,
    LOCAL_ROT, LOWER_LIMIT, MAX_DISTANCE, MIN_DISTANCE, UPPER_LIMIT,
};
use crate::stage::attribute_values;
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;
use crate::stage::xform::XformCache;

/// Reads every enabled joint of a simulated type. `rigid` lists the rigid body prims
/// with their world transforms; `is_body` says whether a prim belongs to a deformable
/// body (joints hold rigid bodies only).
pub(crate) fn read_all(
    ctx: &mut Ctx,
    prims: &[PrimInfo],
    rigid: &[(sdf::Path, DMat4)],
    is_body: &dyn Fn(&sdf::Path) -> bool,
    xforms: &mut XformCache,
) -> Result<Vec<Joint>, ImportError> {
    let mut joints = Vec::new();
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
        let Some(kind) = joint_kind(ctx, path, type_name, kind)? else { continue };
        for name in BREAK {
            if let Some(v) = attribute_values::f64_value(ctx, path, name)?.filter(|v| v.is_finite()) {
                ctx.warn(
                    "IM084",
                    path,
                    Some(name),
                    format!("is {v}: breaking joints are not simulated yet; it never breaks"),
                );
            }
        }
        let collision_enabled = attribute_values::bool_value(ctx, path, COLLISION_ENABLED)? == Some(true);
        joints.push(Joint { name: path.to_string(), bodies, frames, kind, collision_enabled });
    }
    Ok(joints)
}

/// What the joint of `kind` leaves free, with its limits; `None` (warned) for a joint
/// that constrains nothing usdsim simulates.
fn joint_kind(
    ctx: &mut Ctx,
    path: &sdf::Path,
    type_name: &str,
    kind: JointType,
) -> Result<Option<JointKind>, ImportError> {
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
            for name in CONE_LIMITS {
                if let Some(v) = attribute_values::f64_value(ctx, path, name)?.filter(|v| *v >= 0.0) {
                    ctx.warn(
                        "IM084",
                        path,
                        Some(name),
                        format!("is {v}°: cone limits are not simulated yet; the ball joint turns freely"),
                    );
                }
            }
            JointKind::Spherical
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
