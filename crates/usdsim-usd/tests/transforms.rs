//! Local-to-world transforms through the importer: every op kind, pivots with
//! `!invert!`, `!resetXformStack!`, time samples, and composition arcs.

mod common;

use common::{assert_close, testdata, write_scene};
use glam::Vec3;
use usdsim_usd::import;

const TET: &str = r#"
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
        int4[] tetVertexIndices = [(0, 1, 2, 3)]"#;

fn body(name: &str, ops: &str) -> String {
    format!(
        r#"
    def TetMesh "{name}" (
        prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"]
    )
    {{{TET}
{ops}
    }}
"#
    )
}

fn scene() -> String {
    let mut s = String::from(
        r#"#usda 1.0
(
    metersPerUnit = 1
    startTimeCode = 10
    upAxis = "Z"
)

def Xform "World"
{
    double3 xformOp:translate = (10, 0, 0)
    float xformOp:rotateZ = 90
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateZ"]
"#,
    );
    s += &body(
        "Scaled",
        r#"        float3 xformOp:scale = (2, 2, 2)
        uniform token[] xformOpOrder = ["xformOp:scale"]"#,
    );
    s += &body(
        "Reset",
        r#"        double3 xformOp:translate = (0, 0, 5)
        uniform token[] xformOpOrder = ["!resetXformStack!", "xformOp:translate"]"#,
    );
    s += &body(
        "Pivot",
        r#"        double3 xformOp:translate:pivot = (1, 0, 0)
        double xformOp:rotateZ = 90
        uniform token[] xformOpOrder = ["xformOp:translate:pivot", "xformOp:rotateZ", "!invert!xformOp:translate:pivot"]"#,
    );
    s += &body(
        "Euler",
        r#"        float3 xformOp:rotateXYZ = (90, 0, 90)
        uniform token[] xformOpOrder = ["!resetXformStack!", "xformOp:rotateXYZ"]"#,
    );
    s += &body(
        "Orient",
        r#"        quatd xformOp:orient = (0.7071067811865476, 0, 0, 0.7071067811865476)
        uniform token[] xformOpOrder = ["!resetXformStack!", "xformOp:orient"]"#,
    );
    s += &body(
        "Matrix",
        r#"        matrix4d xformOp:transform = ( (0, 1, 0, 0), (-1, 0, 0, 0), (0, 0, 1, 0), (1, 2, 3, 1) )
        uniform token[] xformOpOrder = ["!resetXformStack!", "xformOp:transform"]"#,
    );
    s += &body(
        "Animated",
        r#"        double3 xformOp:translate.timeSamples = {
            0: (0, 0, 0),
            20: (0, 0, 2),
        }
        uniform token[] xformOpOrder = ["!resetXformStack!", "xformOp:translate"]"#,
    );
    s += "}\n";
    s
}

#[test]
fn every_op_kind_maps_points_to_world() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_scene(dir.path(), "xforms.usda", &scene());
    let imp = import(&path).unwrap();
    assert!(imp.warnings.iter().all(|w| !w.text().contains("xformOp")), "{:?}", imp.warnings);
    let body = |name: &str| {
        let i = imp
            .binding
            .bodies
            .iter()
            .position(|b| b.prim_path == format!("/World/{name}"))
            .unwrap_or_else(|| panic!("no body {name}"));
        &imp.scene.bodies[i]
    };
    // Scaled: (1,0,0) -> scale 2 -> (2,0,0) -> parent rotateZ 90 -> (0,2,0) -> +(10,0,0).
    assert_close(body("Scaled").positions[1], Vec3::new(10.0, 2.0, 0.0), 1e-5);
    // Reset: the parent's transform is discarded.
    assert_close(body("Reset").positions[1], Vec3::new(1.0, 0.0, 5.0), 1e-6);
    // Pivot: origin rotated 90 degrees about (1,0,0) -> (1,-1,0), then the parent: (11,1,0).
    assert_close(body("Pivot").positions[0], Vec3::new(11.0, 1.0, 0.0), 1e-5);
    // rotateXYZ (90, 0, 90): X first. (0,1,0) -> (0,0,1); (1,0,0) -> (0,1,0).
    assert_close(body("Euler").positions[2], Vec3::new(0.0, 0.0, 1.0), 1e-6);
    assert_close(body("Euler").positions[1], Vec3::new(0.0, 1.0, 0.0), 1e-6);
    // Orient: 90 degrees about Z.
    assert_close(body("Orient").positions[1], Vec3::new(0.0, 1.0, 0.0), 1e-6);
    // Matrix (row-vector, translation in the last row): (1,0,0) -> (0,1,0) + (1,2,3).
    assert_close(body("Matrix").positions[1], Vec3::new(1.0, 3.0, 3.0), 1e-6);
    // Time samples interpolate linearly at startTimeCode = 10: halfway to (0,0,2).
    assert_close(body("Animated").positions[0], Vec3::new(0.0, 0.0, 1.0), 1e-6);
    assert_eq!(imp.stage.start_time_code, 10.0);
}

#[test]
fn rest_points_use_the_same_transform() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"#usda 1.0
(
    metersPerUnit = 1
    upAxis = "Z"
)

def TetMesh "Body" (
    prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"]
)
{
    point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    int4[] tetVertexIndices = [(0, 1, 2, 3)]
    vector3f[] velocities = [(1, 0, 0), (1, 0, 0), (1, 0, 0), (1, 0, 0)]
    point3f[] omniphysics:restShapePoints = [(0, 0, 0), (2, 0, 0), (0, 2, 0), (0, 0, 2), (9, 9, 9)]
    int4[] omniphysics:restTetVtxIndices = [(0, 1, 2, 3)]
    double3 xformOp:translate = (0, 0, 3)
    float xformOp:rotateZ = 90
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateZ"]
}
"#;
    let imp = import(&write_scene(dir.path(), "rest.usda", text)).unwrap();
    let body = &imp.scene.bodies[0];
    assert_eq!(body.rest_points.len(), 5);
    assert_close(body.rest_points[1], Vec3::new(0.0, 2.0, 3.0), 1e-6);
    // Velocities are directions: rotated, not translated.
    assert_close(body.velocities[0], Vec3::new(0.0, 1.0, 0.0), 1e-6);
    assert_eq!(body.rest_elements, vec![[0, 1, 2, 3]]);
}

#[test]
fn references_place_each_body_at_its_translate() {
    let imp = import(&testdata("class_template.usda")).unwrap();
    let xs: Vec<f64> = imp.binding.bodies.iter().map(|b| b.world_from_local.w_axis.x).collect();
    assert_eq!(xs, [-1.0, 0.0, 1.0]);
}

#[test]
fn sublayers_and_file_references_compose() {
    let dir = tempfile::tempdir().unwrap();
    write_scene(
        dir.path(),
        "asset.usda",
        &format!(
            r#"#usda 1.0
(
    defaultPrim = "Asset"
)

def Xform "Asset"
{{{}}}
"#,
            body("Blob", "")
        ),
    );
    write_scene(
        dir.path(),
        "layout.usda",
        r#"#usda 1.0

def Xform "World"
{
    def "Instance" (
        prepend references = @./asset.usda@
    )
    {
        double3 xformOp:translate = (0, 5, 0)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
"#,
    );
    let root = write_scene(
        dir.path(),
        "shot.usda",
        r#"#usda 1.0
(
    metersPerUnit = 1
    subLayers = [@./layout.usda@]
    upAxis = "Z"
)
"#,
    );
    let imp = import(&root).unwrap();
    assert_eq!(imp.binding.bodies.len(), 1);
    assert_eq!(imp.binding.bodies[0].prim_path, "/World/Instance/Blob");
    assert_close(imp.scene.bodies[0].positions[1], Vec3::new(1.0, 5.0, 0.0), 1e-6);
}
