//! Joints between rigid bodies (UsdPhysics' joint prims), simulated by rapier3d's own
//! impulse joints and, for articulations, its multibodies (`rigid.rs`): usdsim writes no
//! joint solver.

use glam::{Quat, Vec3};

use super::RigidId;

/// The joint's principal axis in its frames (UsdPhysics' `physics:axis`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointAxis {
    /// The frame's X axis.
    X,
    /// The frame's Y axis.
    Y,
    /// The frame's Z axis.
    Z,
}

impl JointAxis {
    /// The axis as a unit vector of its frame.
    pub fn unit(self) -> Vec3 {
        match self {
            JointAxis::X => Vec3::X,
            JointAxis::Y => Vec3::Y,
            JointAxis::Z => Vec3::Z,
        }
    }
}

/// What a joint leaves free, and its limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointKind {
    /// Nothing moves: the two frames stay together.
    Fixed,
    /// A hinge about `axis`; `limit` is `[lower, upper]` in radians.
    Revolute {
        /// The hinge axis.
        axis: JointAxis,
        /// Angle limits, radians.
        limit: Option<[f32; 2]>,
    },
    /// A slider along `axis`; `limit` is `[lower, upper]` in stage units.
    Prismatic {
        /// The slide axis.
        axis: JointAxis,
        /// Travel limits, stage units.
        limit: Option<[f32; 2]>,
    },
    /// A ball joint: the frames' origins stay together; the second frame's `axis` may
    /// swing within `cone` of the first's: `[toward the next axis, toward the third]`
    /// in radians (X's next axis is Y, Y's is Z, Z's is X, as UsdPhysics'
    /// `coneAngle0Limit`/`coneAngle1Limit`), each `None` for no limit; twist is free.
    Spherical {
        /// The cone's axis.
        axis: JointAxis,
        /// Swing limits, radians.
        cone: [Option<f32>; 2],
    },
    /// The frames' origins stay at most `max` apart (a rope).
    Distance {
        /// The longest distance, stage units.
        max: f32,
    },
    /// UsdPhysics' generic `PhysicsJoint`: each degree of freedom of the second frame
    /// against the first (translations along, rotations about the first frame's X, Y
    /// and Z, in [`JointDof`] order) free, locked or limited (stage units, radians).
    Generic {
        /// Per degree of freedom, what the joint does with it.
        dofs: [DofLimit; 6],
        /// Per degree of freedom that is not locked, a drive on it (UsdPhysics'
        /// `PhysicsDriveAPI:transX`…`rotZ`): radians or stage units.
        drives: [Option<Drive>; 6],
    },
}

/// One degree of freedom of a joint frame (UsdPhysics' `PhysicsLimitAPI` instances).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointDof {
    /// Translation along X.
    TransX,
    /// Translation along Y.
    TransY,
    /// Translation along Z.
    TransZ,
    /// Rotation about X.
    RotX,
    /// Rotation about Y.
    RotY,
    /// Rotation about Z.
    RotZ,
}

impl JointDof {
    /// Every degree of freedom, in the order of [`JointKind::Generic`]'s `dofs`.
    pub const ALL: [JointDof; 6] =
        [JointDof::TransX, JointDof::TransY, JointDof::TransZ, JointDof::RotX, JointDof::RotY, JointDof::RotZ];
}

/// What a generic joint does with one degree of freedom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DofLimit {
    /// It moves freely.
    Free,
    /// It does not move.
    Locked,
    /// It moves within `[lower, upper]`: stage units or radians.
    Limited([f32; 2]),
}

/// A drive on a revolute or prismatic joint's free axis (UsdPhysics' `PhysicsDriveAPI`):
/// it pushes with `stiffness·(target_position − q) + damping·(target_velocity − q̇)`,
/// at most `max_force`, where `q` is the joint's angle (radians) or travel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drive {
    /// Where it drives to: radians or stage units.
    pub target_position: f32,
    /// The speed it drives at: radians or stage units per second.
    pub target_velocity: f32,
    /// Per radian or stage unit: a torque or force (`acceleration` false), or an
    /// acceleration.
    pub stiffness: f32,
    /// Per radian or stage unit per second, as `stiffness`.
    pub damping: f32,
    /// The largest force or torque it applies (`f32::INFINITY`: no cap).
    pub max_force: f32,
    /// UsdPhysics' `acceleration` drive: stiffness and damping scale with the inertia
    /// (rapier's acceleration-based motor); else a force drive.
    pub acceleration: bool,
}

/// A joint between two rigid bodies, or a rigid body and the world.
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    /// A name for messages (the importer uses the prim path).
    pub name: String,
    /// The two bodies; `None` is the world.
    pub bodies: [Option<RigidId>; 2],
    /// Each side's joint frame: position and orientation in that body's frame (its
    /// origin and orientation, as [`crate::RigidBody`] places it), or in the world.
    pub frames: [(Vec3, Quat); 2],
    /// What it leaves free.
    pub kind: JointKind,
    /// Whether the two bodies still collide with each other (UsdPhysics' fallback: no).
    pub collision_enabled: bool,
    /// A drive on the free axis of a revolute or prismatic joint (a generic joint's
    /// drives are in its [`JointKind::Generic`]).
    pub drive: Option<Drive>,
    /// The force (mass · distance / s²) and torque the joint holds before it breaks
    /// for good; `f32::INFINITY` never breaks.
    pub break_at: [f32; 2],
    /// Part of an articulation (UsdPhysics' `PhysicsArticulationRootAPI`): simulated in
    /// reduced coordinates as a link of a rapier multibody, its second body the child of
    /// its first; a joint that would close a loop, or whose first body is kinematic
    /// (rapier's multibody root does not follow one), stays an impulse joint. An
    /// articulated joint does not break.
    pub articulated: bool,
}
