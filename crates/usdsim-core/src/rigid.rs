//! Rigid bodies, simulated with rapier3d and coupled to the deformables through
//! attachments.
//!
//! Coupling, per deformable substep of length `dt` (see `docs/attachments.md`):
//! 1. [`RigidWorld::begin_substep`] steps rapier by `dt`: gravity, initial velocities,
//!    contact with the static colliders, kinematic bodies moved along their animation.
//!    The resulting poses are the rigid bodies' *predicted* poses for the substep.
//! 2. The XPBD iterations project every attachment with the rigid side's generalized
//!    inverse mass `1/m + (r×n)ᵀ I⁻¹ (r×n)` (Müller et al. 2020, "Detailed Rigid Body
//!    Simulation with Extended Position Based Dynamics"), correcting the predicted pose
//!    of the rigid body in [`RigidState`] as well as the deformable's vertices.
//! 3. [`RigidWorld::end_substep`] writes the corrected poses back to rapier and adds the
//!    corrections divided by `dt` to the bodies' velocities, so the pull of a deformable
//!    changes a rigid body's momentum exactly as the attachment's impulse `λ·n/dt`.
//!
//! A link of a multibody (an articulation, [`Joint::articulated`]) has no pose or
//! velocity of its own to correct: the articulation's coordinates give them. Its share
//! of the corrections in steps 2 and 3 (and of the deformable contacts' kicks) becomes the
//! force and torque that deliver the same impulse over the next rapier step, which
//! rapier's multibody dynamics apply through the articulation's own mass matrix: the
//! momentum is exchanged one substep later, never lost.
//!
//! Rapier resolves rigid contacts in step 1 and the attachments act in step 2: a split
//! (staggered) coupling, which keeps each solver's own guarantees and costs one rapier
//! step per substep. Deformable vertices collide with rigid bodies in `contact/rigid.rs`.

use crate::error::SceneError;
use crate::mesh::parry_shape::parry_shape;
use crate::scene::ColliderShape;
use crate::scene::{Collider, DofLimit, Drive, Joint, JointAxis, JointDof, JointKind, RigidBody, RigidId};
use glam::{Mat3, Quat, Vec3};
use rapier3d::parry::mass_properties::MassProperties;
use rapier3d::prelude::{
    ColliderBuilder, GenericJoint, GenericJointBuilder, ImpulseJointHandle, JointAxesMask, JointAxis as RapierAxis,
    MotorModel, MultibodyJointHandle, PhysicsWorld, Pose, RigidBodyBuilder, RigidBodyHandle, RopeJointBuilder,
    SharedShape,
};
use std::sync::Arc;

/// A rigid body's pose and mass during one substep, as the attachments see it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RigidState {
    /// Body frame origin, world.
    pub pos: Vec3,
    /// Body frame orientation.
    pub rot: Quat,
    /// Pose at the start of the substep (before rapier's step).
    pub prev_pos: Vec3,
    pub prev_rot: Quat,
    /// Pose rapier predicted (before attachment corrections).
    pub pred_pos: Vec3,
    pub pred_rot: Quat,
    /// Centre of mass in the body frame.
    pub com: Vec3,
    /// 1 / mass (0 for kinematic bodies).
    pub inv_mass: f32,
    /// World inverse inertia about the centre of mass (frozen over the substep).
    pub inv_inertia: Mat3,
}

impl RigidState {
    /// World position of the body-frame point `local`.
    pub fn world_point(&self, local: Vec3) -> Vec3 {
        self.pos + self.rot * local
    }

    /// World position of `local` at the start of the substep.
    pub fn previous_point(&self, local: Vec3) -> Vec3 {
        self.prev_pos + self.prev_rot * local
    }

    /// Generalized inverse mass at `local` along unit direction `n`.
    pub fn inverse_mass_at(&self, local: Vec3, n: Vec3) -> f32 {
        if self.inv_mass == 0.0 {
            return 0.0;
        }
        let rn = (self.rot * (local - self.com)).cross(n);
        self.inv_mass + rn.dot(self.inv_inertia * rn)
    }

    /// Applies the positional impulse `p` at `local`: the centre of mass moves by `p/m`,
    /// the body turns by `I⁻¹(r×p)` about it.
    pub fn apply_impulse_at(&mut self, local: Vec3, p: Vec3) {
        if self.inv_mass == 0.0 {
            return;
        }
        let r = self.rot * (local - self.com);
        let com = self.pos + self.rot * self.com + p * self.inv_mass;
        let dtheta = self.inv_inertia * r.cross(p);
        let dq = Quat::from_xyzw(dtheta.x, dtheta.y, dtheta.z, 0.0) * self.rot;
        let rot = Quat::from_xyzw(
            self.rot.x + 0.5 * dq.x,
            self.rot.y + 0.5 * dq.y,
            self.rot.z + 0.5 * dq.z,
            self.rot.w + 0.5 * dq.w,
        )
        .normalize();
        self.rot = rot;
        self.pos = com - rot * self.com;
    }
}

/// Where rapier keeps a scene joint.
#[derive(Clone, Copy, Debug)]
enum JointHandle {
    /// An impulse joint between two free bodies.
    Impulse(ImpulseJointHandle),
    /// A multibody link's joint (an articulation, reduced coordinates).
    Multibody(MultibodyJointHandle),
}

/// A kinematic rigid body's motion over the current frame.
struct KinematicMotion {
    start: (Vec3, Quat),
    target: Option<(Vec3, Quat)>,
}

/// The rapier world holding the rigid bodies and (as fixed colliders) the static ones.
pub(crate) struct RigidWorld {
    world: PhysicsWorld,
    handles: Vec<RigidBodyHandle>,
    /// Per scene joint, its rapier handle and the axes its drives act on.
    joints: Vec<(JointHandle, Vec<RapierAxis>)>,
    /// Per scene joint, whether it is a generic joint (its drives are per degree of
    /// freedom).
    generic: Vec<bool>,
    /// The current substep's length (links take the deformables' pushes as forces over
    /// the next one).
    dt: f32,
    /// Per scene joint, the force and torque it breaks beyond.
    break_at: Vec<[f32; 2]>,
    /// Drive targets set since the last substep, handed to rapier as the next substep
    /// begins: like a kinematic target, a target is the input's, not part of the saved
    /// state, so a resumed run matches an uninterrupted one byte for byte.
    drive_targets: Vec<(usize, RapierAxis, f32, f32)>,
    kinematic: Vec<Option<KinematicMotion>>,
    /// Per rigid body, this substep's state (see the module docs).
    pub states: Vec<RigidState>,
}

/// The rapier shape of `shape` (the one parry3d conversion, `mesh/parry_shape.rs`; a
/// plane is a half-space) and the rotation taking parry's Y axis onto the shape's own
/// axis, or why a triangle mesh is invalid.
fn shared_shape(shape: &ColliderShape) -> Result<(SharedShape, Quat), String> {
    Ok(match parry_shape(shape)? {
        Some((shape, rotation, _)) => (SharedShape(Arc::from(shape)), rotation),
        None => {
            let ColliderShape::Plane { normal } = shape else { unreachable!("only planes are unbounded") };
            (SharedShape::halfspace(normal.normalize_or(Vec3::Z)), Quat::IDENTITY)
        }
    })
}

/// Rapier's solver iterations in a scene with joint drives (its default is 4).
const DRIVEN_SOLVER_ITERATIONS: usize = 16;
/// Rapier's inner PGS sweeps per iteration in a scene with joint drives (default 1).
const DRIVEN_PGS_ITERATIONS: usize = 4;

/// The rotation taking a joint frame's X axis (rapier's principal joint axis) to `axis`.
fn principal(axis: JointAxis) -> Quat {
    match axis {
        JointAxis::X => Quat::IDENTITY,
        JointAxis::Y => Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        JointAxis::Z => Quat::from_rotation_y(-std::f32::consts::FRAC_PI_2),
    }
}

/// The rotation taking a joint frame's X, Y and Z axes to `axis`, its next axis and the
/// third (X → Y → Z → X, UsdPhysics' order for cone limits).
fn cyclic(axis: JointAxis) -> Quat {
    match axis {
        JointAxis::X => Quat::IDENTITY,
        JointAxis::Y => Quat::from_mat3(&Mat3::from_cols(Vec3::Y, Vec3::Z, Vec3::X)),
        JointAxis::Z => Quat::from_mat3(&Mat3::from_cols(Vec3::Z, Vec3::X, Vec3::Y)),
    }
}

/// Rapier's axis for each of [`JointDof::ALL`].
const RAPIER_DOFS: [RapierAxis; 6] =
    [RapierAxis::LinX, RapierAxis::LinY, RapierAxis::LinZ, RapierAxis::AngX, RapierAxis::AngY, RapierAxis::AngZ];

/// A dynamic rigid body's mass properties (its frame's) and its pose at the start.
struct Inertia {
    mass: MassProperties,
    at: (Vec3, Quat),
}

/// The inertia a drive of joint `j` on `axis` (rapier's, in the joint frame rapier
/// gets) moves against at the start: for a rotation, each dynamic side's moment of
/// inertia about that line through the joint (parallel-axis theorem), for a
/// translation its mass, the two sides combined as reduced inertia `1 / (1/I₀ + 1/I₁)`.
fn effective_inertia(j: &Joint, axis: RapierAxis, inertia: &[Option<Inertia>]) -> f32 {
    let principal = match j.kind {
        JointKind::Revolute { axis, .. } | JointKind::Prismatic { axis, .. } => principal(axis),
        _ => Quat::IDENTITY,
    };
    let (linear, unit) = match axis {
        RapierAxis::LinX => (true, Vec3::X),
        RapierAxis::LinY => (true, Vec3::Y),
        RapierAxis::LinZ => (true, Vec3::Z),
        RapierAxis::AngX => (false, Vec3::X),
        RapierAxis::AngY => (false, Vec3::Y),
        RapierAxis::AngZ => (false, Vec3::Z),
    };
    let mut inverse = 0.0f32;
    for (body, (anchor, frame)) in j.bodies.iter().zip(&j.frames) {
        let Some(Some(b)) = body.map(|RigidId(i)| inertia.get(i).and_then(|b| b.as_ref())) else { continue };
        let (t, q) = b.at;
        let m = &b.mass;
        if linear {
            inverse += m.inv_mass;
            continue;
        }
        let u = q * (frame.normalize() * principal * unit);
        let r = (t + q * *anchor) - (t + q * m.local_com);
        let rot = Mat3::from_quat(q);
        let world = rot * m.reconstruct_inertia_matrix() * rot.transpose();
        let about_hinge = u.dot(world * u) + m.mass() * r.cross(u).length_squared();
        if about_hinge > 0.0 {
            inverse += 1.0 / about_hinge;
        }
    }
    if inverse > 0.0 {
        1.0 / inverse
    } else {
        1.0
    }
}

/// Puts drive `d` on `axis` of the joint being built: rapier's force-based motor,
/// an acceleration drive scaled by the joint's own effective inertia about (or mass
/// along) that axis at the start (rapier's acceleration motor scales by the inertia at
/// the centre of mass, which is not the joint's).
fn with_drive(
    b: GenericJointBuilder,
    j: &Joint,
    axis: RapierAxis,
    d: &Drive,
    inertia: &[Option<Inertia>],
) -> Result<GenericJointBuilder, SceneError> {
    let numbers = [d.target_position, d.target_velocity, d.stiffness, d.damping];
    if !numbers.iter().all(|x| x.is_finite())
        || d.stiffness < 0.0
        || d.damping < 0.0
        || d.max_force.is_nan()
        || d.max_force < 0.0
    {
        return Err(SceneError::InvalidJoint {
            joint: j.name.clone(),
            reason: format!("its drive is not finite and non-negative: {d:?}"),
        });
    }
    let scale = if d.acceleration { effective_inertia(j, axis, inertia) } else { 1.0 };
    Ok(b.motor_model(axis, MotorModel::ForceBased)
        .set_motor(axis, d.target_position, d.target_velocity, d.stiffness * scale, d.damping * scale)
        .motor_max_force(axis, d.max_force))
}

/// Inserts `joints` into `world` as rapier impulse joints, or multibody links for an
/// articulation's (see [`Joint::articulated`]); a side with no body is held
/// by one fixed body at the world's origin, made when first needed.
fn add_joints(
    world: &mut PhysicsWorld,
    handles: &[RigidBodyHandle],
    inertia: &[Option<Inertia>],
    joints: &[Joint],
) -> Result<Vec<(JointHandle, Vec<RapierAxis>)>, SceneError> {
    let mut anchor: Option<RigidBodyHandle> = None;
    let mut out = Vec::with_capacity(joints.len());
    for j in joints {
        let invalid = |reason: String| SceneError::InvalidJoint { joint: j.name.clone(), reason };
        if j.bodies.iter().all(Option::is_none) {
            return Err(invalid("neither side is a rigid body".to_string()));
        }
        if !j.frames.iter().all(|(t, q)| t.is_finite() && q.is_finite()) {
            return Err(invalid("a joint frame is not finite".to_string()));
        }
        let mut side = [RigidBodyHandle::invalid(); 2];
        for (k, body) in j.bodies.iter().enumerate() {
            side[k] = match body {
                Some(RigidId(i)) => *handles.get(*i).ok_or_else(|| {
                    invalid(format!("rigid body {i} does not exist ({} rigid bodies)", handles.len()))
                })?,
                None => *anchor.get_or_insert_with(|| world.insert_body(RigidBodyBuilder::fixed().build())),
            };
        }
        let check = |limit: Option<[f32; 2]>| match limit {
            Some([lo, hi]) if !(lo.is_finite() && hi.is_finite() && lo <= hi) => {
                Err(invalid(format!("limits [{lo}, {hi}] are not a finite range")))
            }
            _ => Ok(limit),
        };
        let axis = match j.kind {
            JointKind::Revolute { axis, .. } | JointKind::Prismatic { axis, .. } => principal(axis),
            JointKind::Spherical { axis, .. } => cyclic(axis),
            _ => Quat::IDENTITY,
        };
        let [f0, f1] = j.frames.map(|(t, q)| Pose::from_parts(t, q.normalize() * axis));
        let generic = |locked: JointAxesMask| {
            GenericJointBuilder::new(locked).local_frame1(f0).local_frame2(f1).contacts_enabled(j.collision_enabled)
        };
        // The free axis a limit or a drive acts on.
        let free = match j.kind {
            JointKind::Revolute { limit, .. } => Some((RapierAxis::AngX, JointAxesMask::LOCKED_REVOLUTE_AXES, limit)),
            JointKind::Prismatic { limit, .. } => Some((RapierAxis::LinX, JointAxesMask::LOCKED_PRISMATIC_AXES, limit)),
            _ => None,
        };
        if j.drive.is_some() && free.is_none() {
            return Err(invalid("a drive needs a revolute or prismatic joint's free axis".to_string()));
        }
        let joint: GenericJoint = match j.kind {
            JointKind::Fixed => generic(JointAxesMask::LOCKED_FIXED_AXES).build(),
            JointKind::Spherical { cone, .. } => {
                let mut b = generic(JointAxesMask::LOCKED_SPHERICAL_AXES);
                // Swinging toward the next axis (frame Y) turns about frame Z, toward
                // the third (frame Z) about frame Y. Rapier limits each swing angle on
                // its own: the cone's section is bounded per axis, not elliptic.
                for (limit, about) in cone.into_iter().zip([RapierAxis::AngZ, RapierAxis::AngY]) {
                    if let Some(c) = limit {
                        if !(c.is_finite() && c >= 0.0) {
                            return Err(invalid(format!("the cone limit {c} is not a finite angle")));
                        }
                        b = b.limits(about, [-c, c]);
                    }
                }
                b.build()
            }
            JointKind::Generic { dofs, drives } => {
                let mut locked = JointAxesMask::empty();
                for (dof, axis) in dofs.iter().zip(RAPIER_DOFS) {
                    if *dof == DofLimit::Locked {
                        locked |= JointAxesMask::from(axis);
                    }
                }
                let mut b = generic(locked);
                for ((dof, axis), drive) in dofs.iter().zip(RAPIER_DOFS).zip(&drives) {
                    if let DofLimit::Limited(l) = *dof {
                        b = b.limits(axis, check(Some(l))?.expect("a limit"));
                    }
                    match (dof, drive) {
                        (DofLimit::Locked, Some(_)) => {
                            return Err(invalid(format!("a drive on {axis:?}, which it locks")));
                        }
                        (_, Some(d)) => b = with_drive(b, j, axis, d, inertia)?,
                        _ => {}
                    }
                }
                b.build()
            }
            JointKind::Revolute { .. } | JointKind::Prismatic { .. } => {
                let (axis, locked, limit) = free.expect("a revolute or prismatic joint");
                let mut b = generic(locked);
                if let Some(l) = check(limit)? {
                    b = b.limits(axis, l);
                }
                if let Some(d) = &j.drive {
                    b = with_drive(b, j, axis, d, inertia)?;
                }
                b.build()
            }
            JointKind::Distance { max } => {
                if !(max.is_finite() && max >= 0.0) {
                    return Err(invalid(format!("the longest distance {max} is not a finite length")));
                }
                RopeJointBuilder::new(max)
                    .local_anchor1(j.frames[0].0)
                    .local_anchor2(j.frames[1].0)
                    .contacts_enabled(j.collision_enabled)
                    .build()
                    .into()
            }
        };
        // An articulation's joint becomes a multibody link, its second body the child of
        // its first; rapier refuses one that would give a body a second parent (a loop),
        // which then stays an impulse joint.
        // A multibody's root does not follow a kinematic body's animation in rapier, so a
        // joint hanging from a kinematic body stays an impulse joint too.
        let kinematic_parent = j.bodies[0].is_some_and(|RigidId(i)| inertia.get(i).is_some_and(Option::is_none));
        let articulated = (j.articulated && !kinematic_parent)
            .then(|| world.multibody_joints.insert(side[0], side[1], joint, true))
            .flatten();
        let handle = match articulated {
            Some(h) => JointHandle::Multibody(h),
            None => JointHandle::Impulse(world.insert_impulse_joint(side[0], side[1], joint)),
        };
        let driven = match j.kind {
            JointKind::Generic { drives, .. } => {
                RAPIER_DOFS.iter().zip(drives).filter(|(_, d)| d.is_some()).map(|(a, _)| *a).collect()
            }
            _ => j.drive.and(free.map(|(axis, _, _)| axis)).into_iter().collect(),
        };
        out.push((handle, driven));
    }
    Ok(out)
}

impl RigidWorld {
    /// Builds the rapier world: `bodies` dynamic or kinematic, `colliders` fixed, and
    /// `joints` as rapier's own impulse joints and multibodies between them.
    pub fn new(
        bodies: &[RigidBody],
        colliders: &[Collider],
        joints: &[Joint],
        gravity: Vec3,
    ) -> Result<RigidWorld, SceneError> {
        let mut world = PhysicsWorld::new();
        let driven = |j: &Joint| match j.kind {
            JointKind::Generic { drives, .. } => drives.iter().any(Option::is_some),
            _ => j.drive.is_some(),
        };
        if joints.iter().any(driven) {
            // Rapier's iterative solver leaves a stiff motor far from converged at its
            // default 4 iterations (a 1e5 N·m/rad drive acted as 1.8e3 under a link's
            // weight); 16 iterations of 4 inner PGS sweeps bring it within a factor 1.6.
            // Only scenes with drives pay for it, and every other bake stays as it was.
            world.integration_parameters.num_solver_iterations = DRIVEN_SOLVER_ITERATIONS;
            world.integration_parameters.num_internal_pgs_iterations = DRIVEN_PGS_ITERATIONS;
        }
        world.gravity = gravity;
        let mut handles = Vec::with_capacity(bodies.len());
        let mut kinematic = Vec::with_capacity(bodies.len());
        let mut inertia = Vec::with_capacity(bodies.len());
        for c in colliders {
            let (shape, local) = shared_shape(&c.shape).map_err(|reason| SceneError::InvalidCollider {
                collider: c.name.clone(),
                reason: format!("invalid triangle mesh: {reason}"),
            })?;
            // Planes carry their world normal already; every other shape is placed.
            let pose = match c.shape {
                ColliderShape::Plane { .. } => Pose::from_parts(c.translation, c.rotation),
                _ => Pose::from_parts(c.translation, c.rotation * local),
            };
            world.insert_collider(ColliderBuilder::new(shape).position(pose).friction(c.friction), None);
        }
        for b in bodies {
            let invalid = |reason: String| SceneError::InvalidRigidBody { body: b.name.clone(), reason };
            let finite = b.translation.is_finite()
                && b.rotation.is_finite()
                && b.linear_velocity.is_finite()
                && b.angular_velocity.is_finite();
            if !finite {
                return Err(invalid("its pose or velocity is not finite".to_string()));
            }
            let pose = Pose::from_parts(b.translation, b.rotation.normalize());
            let builder =
                if b.kinematic { RigidBodyBuilder::kinematic_position_based() } else { RigidBodyBuilder::dynamic() };
            let mut mprops: Option<MassProperties> = None;
            let mut parts = Vec::new();
            for s in &b.shapes {
                let (shape, local) = shared_shape(&s.shape)
                    .map_err(|e| invalid(format!("collision shape: invalid triangle mesh: {e}")))?;
                let shape_pose = Pose::from_parts(s.translation, s.rotation * local);
                let mp = shape.mass_properties(b.density).transform_by(&shape_pose);
                mprops = Some(match mprops {
                    Some(m) => m + mp,
                    None => mp,
                });
                parts.push((shape, shape_pose));
            }
            let mut mp = mprops.unwrap_or_else(|| MassProperties::new(Vec3::ZERO, 1.0, Vec3::ONE));
            if let Some(m) = b.mass {
                if !(m > 0.0 && m.is_finite()) {
                    return Err(invalid(format!("mass {m} is not a positive finite number")));
                }
                mp.set_mass(m, true);
            }
            if let Some(com) = b.center_of_mass {
                mp.local_com = com;
            }
            if let Some(i) = b.diagonal_inertia {
                if i.cmpgt(Vec3::ZERO).all() && i.is_finite() {
                    let axes = if b.principal_axes.is_finite() && b.principal_axes.length() > 1e-6 {
                        b.principal_axes.normalize()
                    } else {
                        Quat::IDENTITY
                    };
                    mp = MassProperties::with_principal_inertia_frame(mp.local_com, mp.mass(), i, axes);
                }
            }
            if !(mp.inv_mass.is_finite() && mp.inv_mass > 0.0) {
                return Err(invalid("it has no mass (shapes without volume?)".to_string()));
            }
            let body = builder
                .pose(pose)
                .linvel(b.linear_velocity)
                .angvel(b.angular_velocity)
                .can_sleep(false)
                .additional_mass_properties(mp)
                .build();
            inertia.push((!b.kinematic).then_some(Inertia { mass: mp, at: (b.translation, b.rotation.normalize()) }));
            let handle = world.insert_body(body);
            for (shape, shape_pose) in parts {
                // Mass comes from the body's mass properties above, not from the colliders.
                let collider = ColliderBuilder::new(shape).position(shape_pose).density(0.0).friction(b.friction);
                world.insert_collider(collider, Some(handle));
            }
            handles.push(handle);
            kinematic.push(b.kinematic.then_some(KinematicMotion { start: (b.translation, b.rotation), target: None }));
        }
        let scene_joints = joints;
        let joints = add_joints(&mut world, &handles, &inertia, scene_joints)?;
        let drive_targets = Vec::new();
        let break_at = scene_joints.iter().map(|j| j.break_at).collect();
        let generic = scene_joints.iter().map(|j| matches!(j.kind, JointKind::Generic { .. })).collect();
        let mut rigid = RigidWorld {
            world,
            handles,
            joints,
            generic,
            dt: 0.0,
            break_at,
            drive_targets,
            kinematic,
            states: Vec::new(),
        };
        rigid.states = (0..rigid.handles.len()).map(|i| rigid.state(i)).collect();
        Ok(rigid)
    }

    /// Rapier's whole world (bodies, colliders, islands, broad and narrow phase with
    /// their contact caches) encoded as CBOR, for resuming later; empty without rigid
    /// bodies. Rapier's own snapshot form (its `serde-serialize` feature): a world
    /// decoded from it steps on exactly as this one would.
    pub fn snapshot(&self) -> Vec<u8> {
        if self.handles.is_empty() {
            return Vec::new();
        }
        let mut bytes = Vec::new();
        // Writing into a Vec cannot fail, and every field rapier serializes is plain data.
        ciborium::into_writer(&self.world, &mut bytes).expect("rapier's world encodes");
        bytes
    }

    /// Replaces the world with one from [`RigidWorld::snapshot`] of a world built from
    /// the same scene (its kinematic targets stay as they are).
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), String> {
        let world: PhysicsWorld = ciborium::from_reader(bytes)
            .map_err(|err| format!("the rigid bodies' saved state does not decode: {err}"))?;
        if world.bodies.len() != self.world.bodies.len() || world.colliders.len() != self.world.colliders.len() {
            return Err(format!(
                "the saved rigid world has {} bodies and {} colliders, the scene {} and {}",
                world.bodies.len(),
                world.colliders.len(),
                self.world.bodies.len(),
                self.world.colliders.len()
            ));
        }
        if self.handles.iter().any(|&h| world.bodies.get(h).is_none()) {
            return Err("the saved rigid world's bodies are not the scene's".to_string());
        }
        self.world = world;
        self.states = (0..self.handles.len()).map(|i| self.state(i)).collect();
        Ok(())
    }

    /// Moves joint `j`'s drive on `dof` (a generic joint's; `None`: a revolute or
    /// prismatic joint's own) to `position` and `velocity` from the next substep on
    /// (its stiffness and damping stay). False when there is no such drive.
    pub fn set_drive_target(&mut self, j: usize, dof: Option<JointDof>, position: f32, velocity: f32) -> bool {
        let Some((_, axes)) = self.joints.get(j) else { return false };
        let axis = match dof {
            None if !self.generic[j] => axes.first().copied(),
            Some(dof) if self.generic[j] => {
                let axis = RAPIER_DOFS[JointDof::ALL.iter().position(|d| *d == dof).expect("every dof is listed")];
                axes.contains(&axis).then_some(axis)
            }
            _ => None,
        };
        let Some(axis) = axis else { return false };
        self.drive_targets.retain(|&(k, a, _, _)| (k, a) != (j, axis));
        self.drive_targets.push((j, axis, position, velocity));
        true
    }

    /// Breaks, for good, every joint whose last step took a force or torque beyond its
    /// threshold (rapier's impulses over the step, linear then angular). A broken joint
    /// stays in rapier's world disabled, so a resume keeps it broken.
    fn break_overloaded(&mut self, dt: f32) {
        let solver_steps = self.world.integration_parameters.num_solver_iterations.max(1) as f32;
        for (&(handle, _), &[force, torque]) in self.joints.iter().zip(&self.break_at) {
            let JointHandle::Impulse(handle) = handle else { continue };
            if force.is_infinite() && torque.is_infinite() {
                continue;
            }
            let Some(joint) = self.world.impulse_joints.get_mut(handle, false) else { continue };
            if !joint.data.is_enabled() {
                continue;
            }
            // Rapier writes back the impulse of its last internal substep, of dt / n.
            let i = joint.impulses;
            let h = dt / solver_steps;
            let linear = Vec3::new(i[0], i[1], i[2]).length() / h;
            let angular = Vec3::new(i[3], i[4], i[5]).length() / h;
            if linear > force || angular > torque {
                joint.data.set_enabled(false);
            }
        }
    }

    /// Whether joint `j` has broken.
    pub fn joint_broken(&self, j: usize) -> bool {
        let Some(&(JointHandle::Impulse(handle), _)) = self.joints.get(j) else { return false };
        self.world.impulse_joints.get(handle).is_some_and(|joint| !joint.data.is_enabled())
    }

    /// Hands the pending drive targets to rapier's joints, in the order they were set.
    fn apply_drive_targets(&mut self) {
        for (j, axis, position, velocity) in std::mem::take(&mut self.drive_targets) {
            let data = match self.joints[j].0 {
                JointHandle::Impulse(h) => self.world.impulse_joints.get_mut(h, false).map(|joint| &mut joint.data),
                JointHandle::Multibody(h) => self
                    .world
                    .multibody_joints
                    .get_mut(h)
                    .and_then(|(mb, link)| mb.link_mut(link))
                    .map(|link| &mut link.joint.data),
            };
            let Some(data) = data else { continue };
            if let Some(motor) = data.motor(axis).copied() {
                data.set_motor(axis, position, velocity, motor.stiffness, motor.damping);
            }
        }
    }

    /// Joint `j`'s coordinate on its free axis: the angle (radians) of a revolute
    /// joint's second frame about the first's X axis, or a prismatic joint's travel.
    pub fn joint_coordinate(&self, j: usize) -> Option<f32> {
        let &(handle, _) = self.joints.get(j)?;
        let (body1, body2, data) = match handle {
            JointHandle::Impulse(h) => {
                let joint = self.world.impulse_joints.get(h)?;
                (joint.body1(), joint.body2(), &joint.data)
            }
            JointHandle::Multibody(h) => {
                let (mb, id) = self.world.multibody_joints.get(h)?;
                let link = mb.link(id)?;
                let parent = mb.link(link.parent_id()?)?;
                (parent.rigid_body_handle(), link.rigid_body_handle(), &link.joint().data)
            }
        };
        let pose = |h: RigidBodyHandle, frame: &Pose| self.world.bodies.get(h).map(|b| *b.position() * *frame);
        let a = pose(body1, &data.local_frame1)?;
        let b = pose(body2, &data.local_frame2)?;
        let rel = a.inverse() * b;
        if data.locked_axes.contains(JointAxesMask::LIN_X) {
            let (axis, angle) = rel.rotation.to_axis_angle();
            Some(if axis.x < 0.0 { -angle } else { angle })
        } else {
            Some(rel.translation.x)
        }
    }

    /// Number of rigid bodies.
    pub fn len(&self) -> usize {
        self.handles.len()
    }

    /// The state of body `i` as rapier has it now.
    fn state(&self, i: usize) -> RigidState {
        let rb = &self.world.bodies[self.handles[i]];
        let pose = rb.position();
        let (pos, rot) = (pose.translation, pose.rotation);
        let mp = rb.mass_properties().local_mprops;
        let (inv_mass, inv_inertia) = if rb.is_dynamic() {
            let frame = Mat3::from_quat(rot * mp.principal_inertia_local_frame);
            (mp.inv_mass, frame * Mat3::from_diagonal(mp.inv_principal_inertia) * frame.transpose())
        } else {
            (0.0, Mat3::ZERO)
        };
        RigidState {
            pos,
            rot,
            prev_pos: pos,
            prev_rot: rot,
            pred_pos: pos,
            pred_rot: rot,
            com: mp.local_com,
            inv_mass,
            inv_inertia,
        }
    }

    /// Steps rapier by `dt` (`progress` of the way through the frame at the end) and
    /// records the predicted poses for the attachments.
    pub fn begin_substep(&mut self, dt: f32, progress: f32) {
        if self.handles.is_empty() {
            return;
        }
        self.apply_drive_targets();
        let before: Vec<(Vec3, Quat)> = self.states.iter().map(|s| (s.pos, s.rot)).collect();
        for (i, k) in self.kinematic.iter().enumerate() {
            let Some(KinematicMotion { start, target: Some(target) }) = k else { continue };
            let t = start.0.lerp(target.0, progress);
            let r = start.1.slerp(target.1, progress);
            if let Some(rb) = self.world.bodies.get_mut(self.handles[i]) {
                rb.set_next_kinematic_position(Pose::from_parts(t, r));
            }
        }
        self.world.integration_parameters.dt = dt;
        self.dt = dt;
        self.world.step();
        // The pushes links took over this step are spent.
        for &h in &self.handles {
            if self.world.multibody_joints.rigid_body_link(h).is_some() {
                if let Some(rb) = self.world.bodies.get_mut(h) {
                    rb.reset_forces(false);
                    rb.reset_torques(false);
                }
            }
        }
        self.break_overloaded(dt);
        for (i, prev) in before.into_iter().enumerate() {
            let mut s = self.state(i);
            (s.prev_pos, s.prev_rot) = prev;
            self.states[i] = s;
        }
    }

    /// Writes the attachment-corrected poses back to rapier, with the corrections turned
    /// into velocity changes.
    pub fn end_substep(&mut self, dt: f32) {
        for (i, s) in self.states.iter().enumerate() {
            if s.inv_mass == 0.0 || (s.pos == s.pred_pos && s.rot == s.pred_rot) {
                continue;
            }
            let Some(rb) = self.world.bodies.get_mut(self.handles[i]) else { continue };
            let com_new = s.pos + s.rot * s.com;
            let com_old = s.pred_pos + s.pred_rot * s.com;
            let mut dq = s.rot * s.pred_rot.inverse();
            if dq.w < 0.0 {
                dq = -dq;
            }
            let dw = Vec3::new(dq.x, dq.y, dq.z) * (2.0 / dt);
            let dv = (com_new - com_old) / dt;
            if self.world.multibody_joints.rigid_body_link(self.handles[i]).is_some() {
                // A multibody link's pose and velocity follow from the articulation's
                // coordinates: the correction acts as the impulse it stands for, a force
                // over the next step (rapier's multibody dynamics take link forces).
                let (p, l) = (dv / s.inv_mass, s.inv_inertia.inverse() * dw);
                rb.add_force(p / dt, true);
                rb.add_torque(l / dt, true);
                continue;
            }
            let linvel = rb.linvel() + dv;
            let angvel = rb.angvel() + dw;
            rb.set_position(Pose::from_parts(s.pos, s.rot), true);
            rb.set_linvel(linvel, true);
            rb.set_angvel(angvel, true);
        }
    }

    /// Ends a frame: kinematic bodies start the next one where they arrived.
    pub fn end_frame(&mut self) {
        for k in self.kinematic.iter_mut().flatten() {
            if let Some(t) = k.target.take() {
                k.start = t;
            }
        }
    }

    /// Sets where kinematic body `i` must be at the end of the next frame. `false` when
    /// `i` is not a kinematic body.
    pub fn set_target(&mut self, i: usize, translation: Vec3, rotation: Quat) -> bool {
        match self.kinematic.get_mut(i) {
            Some(Some(k)) => {
                k.target = Some((translation, rotation.normalize()));
                true
            }
            _ => false,
        }
    }

    /// Pose of body `i`: world translation and orientation of its frame.
    pub fn pose(&self, i: usize) -> (Vec3, Quat) {
        let p = self.world.bodies[self.handles[i]].position();
        (p.translation, p.rotation)
    }

    /// Linear and angular velocity of body `i` (the angular about its centre of mass).
    pub fn velocity(&self, i: usize) -> (Vec3, Vec3) {
        let rb = &self.world.bodies[self.handles[i]];
        (rb.linvel(), rb.angvel())
    }

    /// Adds `dv` and `dw` to the linear and angular (world, about the centre of mass)
    /// velocity of body `i` (deformable contacts, `contact/rigid.rs`).
    pub fn add_velocity(&mut self, i: usize, dv: Vec3, dw: Vec3) {
        if self.world.multibody_joints.rigid_body_link(self.handles[i]).is_some() {
            // A link takes it as the impulse it stands for, over the next step (see
            // `end_substep`).
            let s = &self.states[i];
            if s.inv_mass > 0.0 && self.dt > 0.0 {
                let (p, l) = (dv / s.inv_mass, s.inv_inertia.inverse() * dw);
                if let Some(rb) = self.world.bodies.get_mut(self.handles[i]) {
                    rb.add_force(p / self.dt, true);
                    rb.add_torque(l / self.dt, true);
                }
            }
            return;
        }
        if let Some(rb) = self.world.bodies.get_mut(self.handles[i]) {
            let (v, w) = (rb.linvel() + dv, rb.angvel() + dw);
            rb.set_linvel(v, true);
            rb.set_angvel(w, true);
        }
    }

    /// Mass of body `i`.
    pub fn mass(&self, i: usize) -> f32 {
        self.world.bodies[self.handles[i]].mass()
    }
}
