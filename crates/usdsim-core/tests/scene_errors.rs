//! A scene the solver refuses names the object and says what is wrong with it: an
//! invalid collider or rigid body is not reported as "non-finite".

use glam::{Quat, Vec3};
use usdsim_core::{Collider, ColliderShape, RigidBody, RigidShape, Scene, SceneError, Settings, Solver};

/// A triangle mesh without triangles: parry3d refuses to build it.
fn empty_mesh() -> ColliderShape {
    ColliderShape::TriMesh { vertices: vec![Vec3::ZERO, Vec3::X, Vec3::Y], triangles: Vec::new() }
}

fn refused(scene: Scene) -> SceneError {
    match Solver::new(scene, Settings::default()) {
        Ok(_) => panic!("the scene must be refused"),
        Err(err) => err,
    }
}

#[test]
fn an_invalid_static_collider_mesh_is_named_as_an_invalid_collider() {
    let collider = Collider {
        name: "/World/Ground".into(),
        shape: empty_mesh(),
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        friction: 0.5,
    };
    let err = refused(Scene { colliders: vec![collider], ..Scene::default() });
    assert!(matches!(&err, SceneError::InvalidCollider { collider, .. } if collider == "/World/Ground"), "{err:?}");
    let message = err.to_string();
    assert!(message.starts_with("/World/Ground: invalid collider: invalid triangle mesh"), "{message}");
    assert!(!message.contains("non-finite"), "{message}");
}

#[test]
fn a_rigid_body_with_an_invalid_shape_or_mass_is_named_as_an_invalid_rigid_body() {
    let shape = RigidShape { shape: empty_mesh(), translation: Vec3::ZERO, rotation: Quat::IDENTITY };
    let body = RigidBody::new("/World/Box", Vec3::ZERO, vec![shape], 1000.0);
    let err = refused(Scene { rigid_bodies: vec![body], ..Scene::default() });
    assert!(matches!(&err, SceneError::InvalidRigidBody { body, .. } if body == "/World/Box"), "{err:?}");
    assert!(err.to_string().contains("collision shape: invalid triangle mesh"), "{err}");

    let cube = RigidShape {
        shape: ColliderShape::Cuboid { half_extents: Vec3::splat(0.1) },
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };
    let mut body = RigidBody::new("/World/Box", Vec3::ZERO, vec![cube], 1000.0);
    body.mass = Some(-2.0);
    let err = refused(Scene { rigid_bodies: vec![body], ..Scene::default() });
    assert_eq!(err.to_string(), "/World/Box: invalid rigid body: mass -2 is not a positive finite number");
}
