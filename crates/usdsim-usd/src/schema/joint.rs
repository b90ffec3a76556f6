//! UsdPhysics joints (`UsdPhysics` schema, `PhysicsJoint` and its typed subclasses) in
//! one table: the prim types usdsim simulates on rapier3d's joints and their
//! attributes. The importer (`read/joint.rs`) reads these names and no others; the rest
//! of the joint family is named unsimulated in `schema/unsupported.rs`.

use usdsim_core::JointAxis;

/// The joint prim types usdsim simulates, and what each leaves free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JointType {
    /// `PhysicsFixedJoint`.
    Fixed,
    /// `PhysicsRevoluteJoint`: a hinge about `physics:axis`.
    Revolute,
    /// `PhysicsPrismaticJoint`: a slider along `physics:axis`.
    Prismatic,
    /// `PhysicsSphericalJoint`: a ball joint.
    Spherical,
    /// `PhysicsDistanceJoint`: at most `physics:maxDistance` apart.
    Distance,
    /// The generic `PhysicsJoint`: each degree of freedom free unless a
    /// `PhysicsLimitAPI:<dof>` limits or locks it.
    Generic,
}

/// `(prim type, kind)` of every simulated joint.
pub(crate) const JOINT_TYPES: [(&str, JointType); 6] = [
    ("PhysicsFixedJoint", JointType::Fixed),
    ("PhysicsRevoluteJoint", JointType::Revolute),
    ("PhysicsPrismaticJoint", JointType::Prismatic),
    ("PhysicsSphericalJoint", JointType::Spherical),
    ("PhysicsDistanceJoint", JointType::Distance),
    ("PhysicsJoint", JointType::Generic),
];

/// The two bodies (a missing one is the world).
pub(crate) const BODIES: [&str; 2] = ["physics:body0", "physics:body1"];
/// The joint frame's position in each body prim's local space.
pub(crate) const LOCAL_POS: [&str; 2] = ["physics:localPos0", "physics:localPos1"];
/// The joint frame's orientation in each body prim's local space.
pub(crate) const LOCAL_ROT: [&str; 2] = ["physics:localRot0", "physics:localRot1"];
/// `X`, `Y` or `Z` (fallback `X`).
pub(crate) const AXIS: &str = "physics:axis";
/// Revolute: degrees; prismatic: stage units; `-inf`/`inf` (the fallbacks): no limit.
pub(crate) const LOWER_LIMIT: &str = "physics:lowerLimit";
/// See [`LOWER_LIMIT`].
pub(crate) const UPPER_LIMIT: &str = "physics:upperLimit";
/// Fallback true.
pub(crate) const ENABLED: &str = "physics:jointEnabled";
/// Whether the two bodies collide with each other (fallback false).
pub(crate) const COLLISION_ENABLED: &str = "physics:collisionEnabled";
/// Breaking thresholds (fallback inf: never breaks); not simulated yet.
pub(crate) const BREAK: [&str; 2] = ["physics:breakForce", "physics:breakTorque"];
/// Spherical cone limits, degrees (fallback -1: none): toward the axis after
/// `physics:axis`, then toward the third.
pub(crate) const CONE_LIMITS: [&str; 2] = ["physics:coneAngle0Limit", "physics:coneAngle1Limit"];
/// Distance limits, stage units (fallback -1: none).
pub(crate) const MIN_DISTANCE: &str = "physics:minDistance";
/// See [`MIN_DISTANCE`].
pub(crate) const MAX_DISTANCE: &str = "physics:maxDistance";

/// The articulation root API: the joints under its prim, or joining bodies under it,
/// form one articulation (a tree, simulated in reduced coordinates).
pub(crate) const ARTICULATION_ROOT_API: &str = "PhysicsArticulationRootAPI";
/// A joint left out of its articulation (fallback false): an impulse joint.
pub(crate) const EXCLUDE_FROM_ARTICULATION: &str = "physics:excludeFromArticulation";

/// UsdPhysics' multiple-apply drive API (`PhysicsDriveAPI:<instance>`).
pub(crate) const DRIVE_API: &str = "PhysicsDriveAPI";
/// The drive instance of a revolute joint's hinge.
pub(crate) const ANGULAR: &str = "angular";
/// The drive instance of a prismatic joint's slide.
pub(crate) const LINEAR: &str = "linear";
/// `force` (fallback) or `acceleration`.
pub(crate) const DRIVE_TYPE: &str = "type";
/// The `acceleration` token of [`DRIVE_TYPE`].
pub(crate) const ACCELERATION: &str = "acceleration";
/// Where the drive drives to: degrees (angular) or stage units (linear).
pub(crate) const TARGET_POSITION: &str = "targetPosition";
/// The speed it drives at: degrees or stage units per second.
pub(crate) const TARGET_VELOCITY: &str = "targetVelocity";
/// Per degree (angular) or stage unit (linear).
pub(crate) const STIFFNESS: &str = "stiffness";
/// Per degree or stage unit per second.
pub(crate) const DAMPING: &str = "damping";
/// The largest force or torque (fallback inf).
pub(crate) const MAX_FORCE: &str = "maxForce";

/// UsdPhysics' multiple-apply limit API (`PhysicsLimitAPI:<instance>`) of a generic
/// joint.
pub(crate) const LIMIT_API: &str = "PhysicsLimitAPI";
/// The limit instances of the six degrees of freedom, in `usdsim_core::JointDof::ALL`
/// order, and whether each is an angle (degrees).
pub(crate) const LIMIT_DOFS: [(&str, bool); 6] =
    [("transX", false), ("transY", false), ("transZ", false), ("rotX", true), ("rotY", true), ("rotZ", true)];
/// The limit instance on the distance between the frames' origins (not simulated).
pub(crate) const LIMIT_DISTANCE: &str = "distance";
/// The lower end (fallback -inf); above `high`, the degree of freedom is locked.
pub(crate) const LIMIT_LOW: &str = "low";
/// The upper end (fallback inf).
pub(crate) const LIMIT_HIGH: &str = "high";

/// A limit attribute: `limit:<instance>:physics:<leaf>`.
pub(crate) fn limit_attr(instance: &str, leaf: &str) -> String {
    format!("limit:{instance}:physics:{leaf}")
}

/// A drive attribute: `drive:<instance>:physics:<leaf>`.
pub(crate) fn drive_attr(instance: &str, leaf: &str) -> String {
    format!("drive:{instance}:physics:{leaf}")
}

/// `physics:axis`'s token as an axis.
pub(crate) fn axis(token: &str) -> Option<JointAxis> {
    match token {
        "X" => Some(JointAxis::X),
        "Y" => Some(JointAxis::Y),
        "Z" => Some(JointAxis::Z),
        _ => None,
    }
}
