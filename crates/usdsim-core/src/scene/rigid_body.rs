//! Rigid bodies as the scene describes them (`PhysicsRigidBodyAPI`): shapes, mass and
//! initial motion. `rigid.rs` simulates them with rapier3d.

use glam::{Quat, Vec3};

use super::ColliderShape;

/// One shape of a rigid body, placed in the body's frame.
#[derive(Clone, Debug)]
pub struct RigidShape {
    /// The shape (scale already baked in). A `TriMesh`'s vertices are in the body's frame.
    pub shape: ColliderShape,
    /// Position of the shape's origin in the body's frame.
    pub translation: Vec3,
    /// Orientation of the shape in the body's frame.
    pub rotation: Quat,
}

/// A rigid body (`PhysicsRigidBodyAPI`): a frame with shapes, mass and velocity.
#[derive(Clone, Debug)]
pub struct RigidBody {
    /// A name for messages (the importer uses the prim path).
    pub name: String,
    /// Collision shapes, in the body's frame.
    pub shapes: Vec<RigidShape>,
    /// World position of the body's frame (its prim's origin).
    pub translation: Vec3,
    /// World orientation of the body's frame.
    pub rotation: Quat,
    /// Density used for shapes' mass when [`RigidBody::mass`] is unset (mass / distance³).
    pub density: f32,
    /// Total mass override (`physics:mass` > 0).
    pub mass: Option<f32>,
    /// Centre of mass in the body's frame, overriding the shapes' (`physics:centerOfMass`).
    pub center_of_mass: Option<Vec3>,
    /// Principal moments of inertia (`physics:diagonalInertia`), about the axes of
    /// [`RigidBody::principal_axes`].
    pub diagonal_inertia: Option<Vec3>,
    /// The orientation of the principal axes in the body's frame
    /// (`physics:principalAxes`; identity: the body frame's own axes).
    pub principal_axes: Quat,
    /// Initial linear velocity, world space.
    pub linear_velocity: Vec3,
    /// Initial angular velocity, world space, radians per second.
    pub angular_velocity: Vec3,
    /// Kinematic: follows targets given with [`crate::Solver::set_rigid_target`], with
    /// infinite mass.
    pub kinematic: bool,
    /// Coulomb friction coefficient of its surface (the importer takes its first
    /// collider's physics material), against colliders, rigid bodies and deformables.
    pub friction: f32,
}

impl RigidBody {
    /// A dynamic body at `translation` with the given shapes and density, at rest.
    pub fn new(name: impl Into<String>, translation: Vec3, shapes: Vec<RigidShape>, density: f32) -> RigidBody {
        RigidBody {
            name: name.into(),
            shapes,
            translation,
            rotation: Quat::IDENTITY,
            density,
            mass: None,
            center_of_mass: None,
            diagonal_inertia: None,
            principal_axes: Quat::IDENTITY,
            linear_velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            kinematic: false,
            friction: 0.5,
        }
    }
}
