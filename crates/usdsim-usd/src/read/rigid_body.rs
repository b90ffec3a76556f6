//! Rigid bodies: prims with `PhysicsRigidBodyAPI` outside deformable bodies, their
//! colliders (every `PhysicsCollisionAPI` prim below, not inside a nested rigid body),
//! `PhysicsMassAPI`, initial velocities and `physics:kinematicEnabled`.

use glam::{DMat4, DVec3, Quat, Vec3};
use openusd::sdf;
use usdsim_core::{ColliderShape, RigidBody, RigidShape};

use crate::error::ImportError;
use crate::read::collider;
use crate::schema::names::{COLLISION_ENABLED, RIGID_BODY_API};
use crate::stage::attribute_values;
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;
use crate::stage::units::Units;
use crate::stage::xform::{decompose, local_xform, parse_op_kind, OpKind, XformCache};

/// Where a simulated rigid body lives in USD, so the exporter can write its motion
/// back as `xformOp:translate` + `xformOp:orient` (+ `xformOp:scale`) in parent space.
#[derive(Clone, Debug, PartialEq)]
pub struct RigidPrim {
    /// The rigid body prim's composed path.
    pub prim_path: String,
    /// The parent's local-to-world transform at `startTimeCode` (identity when the prim
    /// resets the transform stack). The baked pose is `parent_world⁻¹ * pose`.
    pub parent_world: DMat4,
    /// Whether the prim's `xformOpOrder` starts with `!resetXformStack!` (kept in the
    /// baked order).
    pub resets_stack: bool,
    /// The prim's own scale at `startTimeCode`, when its authored ops include a scale
    /// op: baked as a constant `xformOp:scale` after the orient so the shape keeps its
    /// size. `None` when no scale op is authored.
    pub scale: Option<DVec3>,
    /// The value types the input already declares for the ops the bake writes, so the
    /// bake's opinions agree with the composed stage (Pixar's `AttributeTypeMismatch`).
    pub op_precision: OpPrecision,
}

/// Floating-point precision of a vector or quaternion attribute (`half3`/`float3`/
/// `double3`, `quath`/`quatf`/`quatd`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// 16-bit (`half3`, `quath`).
    Half,
    /// 32-bit (`float3`, `quatf`).
    Float,
    /// 64-bit (`double3`, `quatd`): what the bake writes where the input declares nothing.
    #[default]
    Double,
}

/// The precision of each transform op a rigid bake authors, as the input declares it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpPrecision {
    /// `xformOp:translate`.
    pub translate: Precision,
    /// `xformOp:orient`.
    pub orient: Precision,
    /// `xformOp:scale`.
    pub scale: Precision,
}

/// A rigid body as imported: the scene entry and where it lives in USD.
pub(crate) struct ReadRigid {
    pub body: RigidBody,
    pub path: sdf::Path,
    pub prim: RigidPrim,
}

/// Reads every enabled rigid body. `in_body` says which prims belong to a deformable.
pub(crate) fn read_all(
    ctx: &mut Ctx,
    prims: &[PrimInfo],
    in_body: &dyn Fn(&sdf::Path) -> bool,
    xforms: &mut XformCache,
    units: &Units,
) -> Result<Vec<ReadRigid>, ImportError> {
    let roots: Vec<&sdf::Path> =
        prims.iter().filter(|p| p.has_api(RIGID_BODY_API) && !in_body(&p.path)).map(|p| &p.path).collect();
    let mut out = Vec::new();
    for &root in &roots {
        if attribute_values::bool_value(ctx, root, "physics:rigidBodyEnabled")? == Some(false) {
            continue;
        }
        let world = xforms.world(ctx, root)?;
        let prim = rigid_prim(ctx, root, world, xforms)?;
        let d = decompose(world);
        let (t, r) = (d.translation.as_vec3(), d.rotation.normalize().as_quat());
        let inv = r.inverse();
        let mut shapes = Vec::new();
        let mut friction = None;
        for prim in prims.iter().filter(|p| p.has_api("PhysicsCollisionAPI") && p.path.has_prefix(root)) {
            // The innermost rigid body owns the collider.
            let owner = roots.iter().filter(|r| prim.path.has_prefix(r)).max_by_key(|r| r.to_string().len());
            if owner != Some(&root) {
                continue;
            }
            if attribute_values::bool_value(ctx, &prim.path, COLLISION_ENABLED)? == Some(false) {
                continue;
            }
            let Some(c) = collider::read_one(ctx, prim, xforms)? else { continue };
            friction.get_or_insert(c.friction);
            let shape = match c.shape {
                ColliderShape::Plane { .. } => {
                    ctx.warn("IM020", &prim.path, None, "a plane cannot belong to a rigid body; skipped");
                    continue;
                }
                ColliderShape::TriMesh { vertices, triangles } => {
                    ColliderShape::TriMesh { vertices: vertices.iter().map(|v| inv * (*v - t)).collect(), triangles }
                }
                other => other,
            };
            shapes.push(RigidShape { shape, translation: inv * (c.translation - t), rotation: inv * c.rotation });
        }
        if shapes.is_empty() {
            ctx.warn("IM021", root, None, "rigid body without colliders; not simulated");
            continue;
        }
        let positive = |ctx: &Ctx, name: &str| -> Result<Option<f64>, ImportError> {
            match attribute_values::f64_value(ctx, root, name)? {
                Some(v) if v > 0.0 && v.is_finite() => Ok(Some(v)),
                Some(0.0) => Ok(None),
                None => Ok(None),
                Some(v) => Err(ImportError::Invalid {
                    at: ctx.prop_loc(root, name),
                    reason: format!("must be a finite value >= 0 (0 means unset), found {v}"),
                }),
            }
        };
        let density = positive(ctx, "physics:density")?.unwrap_or_else(|| units.density_from_si(1000.0));
        let mut body = RigidBody::new(root.to_string(), t, shapes, density as f32);
        body.rotation = r;
        // The body has one coefficient: its first collider's physics material.
        if let Some(f) = friction {
            body.friction = f;
        }
        body.mass = positive(ctx, "physics:mass")?.map(|m| m as f32);
        let vec3 = |ctx: &Ctx, name: &str| -> Result<Option<Vec3>, ImportError> {
            Ok(attribute_values::vec3_value(ctx, root, name)?.map(|v| v.as_vec3()).filter(|v| v.is_finite()))
        };
        // UsdPhysics' "unset" centre of mass is far away (-inf); only finite ones count.
        body.center_of_mass = vec3(ctx, "physics:centerOfMass")?.map(|c| c * d.scale.as_vec3());
        body.diagonal_inertia = vec3(ctx, "physics:diagonalInertia")?.filter(|i| i.cmpgt(Vec3::ZERO).all());
        if let Some(v) = attribute_values::raw(ctx, root, "physics:principalAxes")? {
            let q = attribute_values::quat_of(&v).ok_or_else(|| ImportError::WrongType {
                at: ctx.prop_loc(root, "physics:principalAxes"),
                expected: "a quaternion (quatf)",
                found: attribute_values::kind_name(&v),
            })?;
            // UsdPhysics' fallback (0, 0, 0, 0) means "unset": the body frame's axes.
            if q.is_finite() && q.length() > 1e-9 {
                body.principal_axes = q.normalize().as_quat();
            }
        }
        body.linear_velocity = vec3(ctx, "physics:velocity")?.unwrap_or(Vec3::ZERO);
        // UsdPhysics angular velocity is in degrees per second.
        body.angular_velocity =
            vec3(ctx, "physics:angularVelocity")?.unwrap_or(Vec3::ZERO) * (std::f32::consts::PI / 180.0);
        body.kinematic = attribute_values::bool_value(ctx, root, "physics:kinematicEnabled")? == Some(true);
        out.push(ReadRigid { body, path: root.clone(), prim });
    }
    Ok(out)
}

/// The parent transform and authored scale the exporter needs for rigid body `root`.
fn rigid_prim(
    ctx: &mut Ctx,
    root: &sdf::Path,
    world: DMat4,
    xforms: &mut XformCache,
) -> Result<RigidPrim, ImportError> {
    let local = local_xform(ctx, root)?;
    let parent_world = match root.parent() {
        Some(parent) if !local.resets_stack => xforms.world(ctx, &parent)?,
        _ => DMat4::IDENTITY,
    };
    let order = attribute_values::token_array(ctx, root, "xformOpOrder")?.unwrap_or_default();
    let has_scale = order.iter().any(|op| {
        let name = op.strip_prefix("!invert!").unwrap_or(op);
        parse_op_kind(name) == Some(OpKind::Scale)
    });
    // The effective local scale (all scale ops of the stack together), constant over the
    // bake: rigid bodies do not deform.
    let scale = has_scale.then(|| decompose(parent_world.inverse() * world).scale);
    let op_precision = OpPrecision {
        translate: precision(ctx, root, "xformOp:translate")?,
        orient: precision(ctx, root, "xformOp:orient")?,
        scale: precision(ctx, root, "xformOp:scale")?,
    };
    Ok(RigidPrim { prim_path: root.to_string(), parent_world, resets_stack: local.resets_stack, scale, op_precision })
}

/// The precision of `prim.name`'s authored value; double where nothing is authored.
fn precision(ctx: &Ctx, prim: &sdf::Path, name: &str) -> Result<Precision, ImportError> {
    Ok(match attribute_values::raw(ctx, prim, name)? {
        Some(sdf::Value::Vec3h(_) | sdf::Value::Quath(_)) => Precision::Half,
        Some(sdf::Value::Vec3f(_) | sdf::Value::Quatf(_)) => Precision::Float,
        _ => Precision::Double,
    })
}

/// The rigid pose (translation, rotation) of a world matrix, scale dropped.
pub fn pose_of(m: DMat4) -> (Vec3, Quat) {
    let d = decompose(m);
    (d.translation.as_vec3(), d.rotation.normalize().as_quat())
}
