//! Colliders, material binding rules, body layouts and defaults.

mod common;

use common::{assert_close, write_scene};
use glam::{Quat, Vec3};
use usdsim_core::{BendDefault, ColliderShape};
use usdsim_usd::{import, Imported};

fn load(text: &str) -> Imported {
    let dir = tempfile::tempdir().unwrap();
    import(&write_scene(dir.path(), "scene.usda", text)).unwrap_or_else(|e| panic!("{e}"))
}

const HEADER: &str = "#usda 1.0\n(\n    metersPerUnit = 1\n    upAxis = \"Z\"\n)\n\n";

const TET_BODY: &str = r#"
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
        int4[] tetVertexIndices = [(0, 1, 2, 3)]"#;

#[test]
fn collider_shapes_bake_scale() {
    let text = format!(
        r#"{HEADER}def Xform "Scaled"
{{
    double3 xformOp:translate = (1, 2, 3)
    float xformOp:rotateZ = 90
    float3 xformOp:scale = (2, 2, 2)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateZ", "xformOp:scale"]

    def Cube "Box" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        double size = 1
        float3 xformOp:scale = (1, 2, 3)
        uniform token[] xformOpOrder = ["xformOp:scale"]
    }}
    def Sphere "Ball" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
    }}
    def Capsule "Pill" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        uniform token axis = "X"
    }}
    def Cylinder "Can" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        double radius = 0.25
        double height = 4
        float3 xformOp:scale = (1, 1, 0.5)
        uniform token[] xformOpOrder = ["xformOp:scale"]
    }}
    def Sphere "Egg" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        float3 xformOp:scale = (1, 1, 3)
        uniform token[] xformOpOrder = ["xformOp:scale"]
    }}
    def Mesh "Quad" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        int[] faceVertexCounts = [4]
        int[] faceVertexIndices = [0, 1, 2, 3]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
    }}
    def Plane "Disabled" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        bool physics:collisionEnabled = 0
    }}
}}
"#
    );
    let imp = load(&text);
    let by_name = |n: &str| {
        imp.scene
            .colliders
            .iter()
            .find(|c| c.name == format!("/Scaled/{n}"))
            .unwrap_or_else(|| panic!("no collider {n}"))
    };
    assert_eq!(imp.scene.colliders.len(), 6);
    let rot = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let boxc = by_name("Box");
    match boxc.shape {
        ColliderShape::Cuboid { half_extents } => assert_close(half_extents, Vec3::new(1.0, 2.0, 3.0), 1e-5),
        ref s => panic!("{s:?}"),
    }
    assert_close(boxc.translation, Vec3::new(1.0, 2.0, 3.0), 1e-6);
    assert!(boxc.rotation.abs_diff_eq(rot, 1e-6) || boxc.rotation.abs_diff_eq(-rot, 1e-6));
    assert!(matches!(by_name("Ball").shape, ColliderShape::Sphere { radius } if (radius - 2.0).abs() < 1e-6));
    match by_name("Pill").shape {
        ColliderShape::Capsule { radius, half_height, axis } => {
            assert!((radius - 1.0).abs() < 1e-6 && (half_height - 1.0).abs() < 1e-6);
            assert_eq!(axis, Vec3::X);
        }
        ref s => panic!("{s:?}"),
    }
    match by_name("Can").shape {
        ColliderShape::Cylinder { radius, half_height, axis } => {
            assert!((radius - 0.5).abs() < 1e-6, "{radius}");
            assert!((half_height - 2.0).abs() < 1e-6, "{half_height}");
            assert_eq!(axis, Vec3::Z);
        }
        ref s => panic!("{s:?}"),
    }
    // Non-uniform scale on a sphere: largest scale, with a warning.
    assert!(matches!(by_name("Egg").shape, ColliderShape::Sphere { radius } if (radius - 6.0).abs() < 1e-5));
    assert!(imp
        .warnings
        .iter()
        .any(|w| w.code == "IM022" && w.text().contains("/Scaled/Egg") && w.text().contains("non-uniform scale")));
    match &by_name("Quad").shape {
        ColliderShape::TriMesh { vertices, triangles } => {
            assert_eq!(triangles, &vec![[0, 1, 2], [0, 2, 3]]);
            // (1,0,0) -> scale 2 -> rotate 90 -> (0,2,0) -> + (1,2,3).
            assert_close(vertices[1], Vec3::new(1.0, 4.0, 3.0), 1e-5);
        }
        s => panic!("{s:?}"),
    }
}

#[test]
fn rigid_bodies_and_deformable_colliders_are_not_static_colliders() {
    let text = format!(
        r#"{HEADER}def Xform "Crate" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
{{
    def Cube "Geom" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
    }}
}}

def Xform "Soft" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI"])
{{
    def TetMesh "Sim" (prepend apiSchemas = ["OmniPhysicsVolumeDeformableSimAPI", "PhysicsCollisionAPI"])
    {{{TET_BODY}
    }}
    def Mesh "Collision" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
    }}
}}
"#
    );
    let imp = load(&text);
    assert!(imp.scene.colliders.is_empty());
    assert_eq!(imp.binding.bodies[0].prim_path, "/Soft/Sim");
    // The crate is a rigid body: its collider moves with it (rigid_body.rs).
    assert_eq!(imp.binding.rigid.iter().map(|r| r.prim_path.as_str()).collect::<Vec<_>>(), ["/Crate"]);
    assert_eq!(imp.scene.rigid_bodies.len(), 1);
    assert_eq!(imp.scene.rigid_bodies[0].shapes.len(), 1);
}

fn material(name: &str, apis: &str, attrs: &str) -> String {
    format!("def Material \"{name}\" (prepend apiSchemas = [{apis}])\n{{\n{attrs}\n}}\n\n")
}

#[test]
fn material_binding_rules_and_defaults() {
    let omni = "\"OmniPhysicsDeformableMaterialAPI\"";
    let mut text = String::from(HEADER);
    text += &material("Soft", omni, "    float omniphysics:youngsModulus = 111");
    text += &material("Hard", omni, "    float omniphysics:youngsModulus = 222");
    text += &material("Render", "", "");
    text += &material("Unauthored", omni, "");
    text += &format!(
        r#"def Xform "Group"
{{
    rel material:binding:physics = </Soft>

    def TetMesh "Nearest" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"])
    {{{TET_BODY}
        rel material:binding:physics = </Hard>
    }}
    def TetMesh "PhysicsPurposeWins" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"])
    {{{TET_BODY}
        rel material:binding = </Render>
    }}
}}

def Xform "Strong"
{{
    rel material:binding:physics = </Soft> (
        bindMaterialAs = "strongerThanDescendants"
    )

    def TetMesh "Overridden" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"])
    {{{TET_BODY}
        rel material:binding:physics = </Hard>
    }}
}}

def TetMesh "NoMaterial" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"])
{{{TET_BODY}
    float omniphysics:mass = 3.5
}}

def TetMesh "SchemaFallbacks" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"])
{{{TET_BODY}
    rel material:binding = </Unauthored>
}}

def TetMesh "Disabled" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"])
{{{TET_BODY}
    bool omniphysics:deformableBodyEnabled = 0
}}
"#
    );
    let imp = load(&text);
    let get = |path: &str| {
        let i = imp.binding.bodies.iter().position(|b| b.prim_path == path).unwrap_or_else(|| panic!("{path}"));
        &imp.scene.bodies[i]
    };
    assert_eq!(imp.binding.bodies.len(), 5, "disabled body skipped");
    assert_eq!(get("/Group/Nearest").material.youngs_modulus, 222.0);
    assert_eq!(get("/Group/PhysicsPurposeWins").material.youngs_modulus, 111.0);
    assert_eq!(get("/Strong/Overridden").material.youngs_modulus, 111.0);

    let none = get("/NoMaterial");
    assert_eq!(none.material.youngs_modulus, 1e6);
    assert_eq!(none.material.poissons_ratio, 0.3);
    assert_eq!(none.material.density, 1000.0);
    assert_eq!((none.material.dynamic_friction, none.material.static_friction), (0.5, 0.5));
    assert_eq!(none.mass_override, Some(3.5));

    let fallback = get("/SchemaFallbacks").material;
    assert_eq!(fallback.poissons_ratio, 0.25);
    assert_eq!(fallback.youngs_modulus, 1e6);
    assert_eq!(fallback.dynamic_friction, 0.0);
}

#[test]
fn surface_bend_data_in_radians() {
    let text = format!(
        r#"{HEADER}def Mesh "Shell" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsSurfaceDeformableSimAPI"])
{{
    point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
    int[] faceVertexCounts = [3, 3]
    int[] faceVertexIndices = [0, 1, 2, 0, 2, 3]
    point3f[] omniphysics:restShapePoints = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 0, 0), (1, 1, 0), (0, 1, 1)]
    int3[] omniphysics:restTriVtxIndices = [(0, 1, 2), (3, 4, 5)]
    uniform token omniphysics:restBendAnglesDefault = "restShapeDefault"
    int2[] omniphysics:restAdjTriPairs = [(0, 1)]
    float[] omniphysics:restBendAngles = [90]
}}
"#
    );
    let imp = load(&text);
    let shell = &imp.scene.bodies[0];
    assert_eq!(shell.triangles, vec![[0, 1, 2], [0, 2, 3]]);
    assert_eq!(shell.rest_points.len(), 6);
    assert_eq!(shell.rest_elements, vec![[0, 1, 2, 0], [3, 4, 5, 0]]);
    assert_eq!(shell.bend_default, BendDefault::RestShape);
    assert_eq!(shell.bend_overrides.len(), 1);
    assert_eq!(shell.bend_overrides[0].0, [0, 1]);
    assert!((shell.bend_overrides[0].1 - std::f32::consts::FRAC_PI_2).abs() < 1e-6);
}

#[test]
fn gravity_from_the_physics_scene() {
    let text = format!(
        "{HEADER}def PhysicsScene \"Scene\"\n{{\n    vector3f physics:gravityDirection = (0, 0, 0)\n    float physics:gravityMagnitude = -inf\n}}\n"
    );
    assert_close(load(&text).scene.gravity, Vec3::new(0.0, 0.0, -9.81), 1e-6);
    let text = format!(
        "{HEADER}def PhysicsScene \"Scene\"\n{{\n    vector3f physics:gravityDirection = (1, 0, 0)\n    float physics:gravityMagnitude = 2\n}}\n"
    );
    assert_close(load(&text).scene.gravity, Vec3::new(2.0, 0.0, 0.0), 1e-6);
}

#[test]
fn unauthored_stage_metadata_takes_usd_fallbacks() {
    let imp = load("#usda 1.0\n\ndef PhysicsScene \"Scene\"\n{\n}\n");
    assert_eq!(imp.stage.up_axis, usdsim_usd::UpAxis::Y);
    assert_eq!(imp.stage.meters_per_unit, 0.01);
    assert_eq!(imp.stage.kilograms_per_unit, 1.0);
    assert_eq!(imp.stage.time_codes_per_second, 24.0);
    assert_eq!(imp.stage.start_time_code, 0.0);
    assert_eq!(imp.stage.default_prim, None);
    assert_close(imp.scene.gravity, Vec3::new(0.0, -981.0, 0.0), 1e-3);
}
