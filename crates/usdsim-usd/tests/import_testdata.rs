//! Imports every scene in `testdata/` and checks what the simulation will see.

mod common;

use common::{assert_close, testdata, tet_volume};
use glam::Vec3;
use usdsim_core::BodyId;
use usdsim_core::{BendDefault, BodyKind, ColliderShape};
use usdsim_usd::{import, UpAxis};

#[test]
fn tet_cube_on_ground() {
    let imp = import(&testdata("tet_cube_on_ground.usda")).unwrap();
    assert_eq!(imp.scene.bodies.len(), 1);
    let body = &imp.scene.bodies[0];
    assert_eq!(body.kind, BodyKind::Volume);
    assert_eq!(body.positions.len(), 125);
    assert_eq!(body.velocities, vec![Vec3::ZERO; 125]);
    assert_eq!(body.tets.len(), 384);
    assert!(body.triangles.is_empty());
    // No rest attributes authored: the rest shape is the initial shape.
    assert_eq!(body.rest_points, body.positions);
    assert_eq!(body.rest_elements.len(), 384);
    assert!(body.tets.iter().all(|&t| tet_volume(&body.positions, t) > 0.0));
    let total: f32 = body.tets.iter().map(|&t| tet_volume(&body.positions, t)).sum();
    assert!((total - 1.0).abs() < 1e-5, "volume {total}");
    // World space: the prim's translate (0, 0, 1) lifts the cube's bottom to 0.5.
    let min_z = body.positions.iter().map(|p| p.z).fold(f32::MAX, f32::min);
    assert!((min_z - 0.5).abs() < 1e-6);
    assert_eq!(imp.binding.bodies[0].prim_path, "/World/Cube");
    assert_eq!(imp.binding.bodies[0].world_from_local.w_axis.z, 1.0);

    let m = body.material;
    assert_eq!((m.youngs_modulus, m.poissons_ratio, m.density), (1e5, 0.3, 1000.0));
    assert_eq!((m.dynamic_friction, m.static_friction), (0.5, 0.5));
    assert_eq!(body.mass_override, None);

    assert_close(imp.scene.gravity, Vec3::new(0.0, 0.0, -9.81), 1e-6);
    assert_eq!(imp.scene.colliders.len(), 1);
    match imp.scene.colliders[0].shape {
        ColliderShape::Plane { normal } => assert_close(normal, Vec3::Z, 1e-6),
        ref other => panic!("expected a plane, got {other:?}"),
    }
    assert!(imp.scene.pins.is_empty());
    assert_eq!(imp.stage.up_axis, UpAxis::Z);
    assert_eq!(imp.stage.meters_per_unit, 1.0);
    assert_eq!(imp.stage.time_codes_per_second, 24.0);
    assert_eq!(imp.stage.default_prim.as_deref(), Some("World"));
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
}

#[test]
fn cloth_on_sphere() {
    let imp = import(&testdata("cloth_on_sphere.usda")).unwrap();
    assert_eq!(imp.scene.bodies.len(), 1);
    let cloth = &imp.scene.bodies[0];
    assert_eq!(cloth.kind, BodyKind::Surface);
    assert_eq!(cloth.positions.len(), 32 * 32);
    assert_eq!(cloth.triangles.len(), 31 * 31 * 2);
    assert!(cloth.tets.is_empty());
    assert_eq!(cloth.rest_elements.len(), cloth.triangles.len());
    assert!(cloth.rest_elements.iter().all(|e| e[3] == 0));
    assert_eq!(cloth.bend_default, BendDefault::Flat);
    assert!(cloth.positions.iter().all(|p| (p.z - 1.2).abs() < 1e-6));
    assert_eq!(cloth.material.thickness, 1e-3);
    assert_eq!(cloth.material.density, 200.0);
    assert_eq!(cloth.material.youngs_modulus, 5e5);

    let sphere = imp.scene.colliders.iter().find(|c| c.name == "/World/Obstacle/Ball").expect("sphere collider");
    assert!(matches!(sphere.shape, ColliderShape::Sphere { radius } if radius == 0.5));
    assert_close(sphere.translation, Vec3::new(0.0, 0.0, 0.5), 1e-6);
    assert!(imp.scene.colliders.iter().any(|c| matches!(c.shape, ColliderShape::Plane { .. })));
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
}

#[test]
fn class_template_gives_three_bodies() {
    let imp = import(&testdata("class_template.usda")).unwrap();
    let paths: Vec<&str> = imp.binding.bodies.iter().map(|b| b.prim_path.as_str()).collect();
    assert_eq!(paths, ["/World/JellyA/Body", "/World/JellyB/Body", "/World/JellyC/Body"]);
    for (body, x) in imp.scene.bodies.iter().zip([-1.0f32, 0.0, 1.0]) {
        let centre = body.positions.iter().sum::<Vec3>() / body.positions.len() as f32;
        assert_close(centre, Vec3::new(x, 0.0, 0.5), 1e-5);
        // The binding inside the class resolves to each reference's own material copy.
        assert_eq!(body.material.youngs_modulus, 2e5);
        assert_eq!(body.material.poissons_ratio, 0.35);
        assert_eq!(body.material.density, 1100.0);
    }
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
}

#[test]
fn y_up_centimetres_defaults_convert_units() {
    let imp = import(&testdata("y_up_centimeters.usda")).unwrap();
    assert_eq!(imp.stage.up_axis, UpAxis::Y);
    assert_eq!(imp.stage.meters_per_unit, 0.01);
    // Gravity unauthored: 9.81 m/s² = 981 cm/s² along -Y.
    assert_close(imp.scene.gravity, Vec3::new(0.0, -981.0, 0.0), 1e-3);
    let body = &imp.scene.bodies[0];
    // Authored values are already in stage units; unauthored density is converted.
    assert_eq!(body.material.youngs_modulus, 1000.0);
    assert!((body.material.density - 1e-3).abs() < 1e-9);
    assert!((body.material.thickness - 0.1).abs() < 1e-6);
    let min_y = body.positions.iter().map(|p| p.y).fold(f32::MAX, f32::min);
    assert!((min_y - 50.0).abs() < 1e-4);
    assert!(body.tets.iter().all(|&t| tet_volume(&body.positions, t) > 0.0));
    match imp.scene.colliders[0].shape {
        ColliderShape::Plane { normal } => assert_close(normal, Vec3::Y, 1e-6),
        ref other => panic!("expected a plane, got {other:?}"),
    }
}

#[test]
fn hanging_bar_is_pinned_at_the_top() {
    let imp = import(&testdata("hanging_bar.usda")).unwrap();
    let bar = &imp.scene.bodies[0];
    assert_eq!(bar.positions.len(), 44);
    assert_eq!(bar.tets.len(), 60);
    assert!(imp.scene.colliders.is_empty());
    assert_eq!(imp.scene.pins.len(), 4);
    for pin in &imp.scene.pins {
        assert_eq!(pin.body, BodyId(0));
        assert!(pin.stiffness.is_infinite());
        assert_eq!(pin.damping, 0.0);
        // Each pin targets exactly its vertex's initial position: the top face, z = 2.
        assert_close(pin.target, bar.positions[pin.vertex as usize], 1e-6);
        assert!((pin.target.z - 2.0).abs() < 1e-6);
    }
}

#[test]
fn bench_cloth_pins_two_corners() {
    let bench = common::repo_root().join("../shared/bench-scenes/cloth_32.usda");
    if !bench.exists() {
        eprintln!("note: {} not found; skipped", bench.display());
        return;
    }
    let imp = import(&bench).unwrap();
    let pins: Vec<u32> = imp.scene.pins.iter().map(|p| p.vertex).collect();
    assert_eq!(pins, [0, 31]);
    assert_close(imp.scene.pins[1].target, Vec3::new(0.5, -0.5, 1.0), 1e-6);
}
