//! Bad input on purpose: every case is an error naming file, prim and attribute, and
//! none panics.

mod common;

use common::write_scene;
use usdsim_usd::{import, ImportError};

const VOLUME_APIS: &str =
    r#"prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"]"#;
const SURFACE_APIS: &str =
    r#"prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsSurfaceDeformableSimAPI"]"#;

/// One prim `/World/Body` of the given type, API schemas and body.
fn scene(type_name: &str, apis: &str, attributes: &str) -> String {
    format!(
        "#usda 1.0\n(\n    metersPerUnit = 1\n    upAxis = \"Z\"\n)\n\ndef Xform \"World\"\n{{\n    def {type_name} \"Body\" (\n        {apis}\n    )\n    {{\n{attributes}\n    }}\n}}\n"
    )
}

const TET_POINTS: &str = "        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]";

/// Imports `text` from a temp file and returns the error message, checking it names
/// the file and the given location.
#[track_caller]
fn error_of(text: &str, expect_location: &str) -> (ImportError, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = write_scene(dir.path(), "scene.usda", text);
    let err = import(&path).expect_err("bad input must be rejected");
    let message = err.to_string();
    assert!(message.contains("scene.usda"), "file missing from: {message}");
    assert!(message.contains(expect_location), "{expect_location:?} missing from: {message}");
    (err, message)
}

#[test]
fn tet_index_out_of_range() {
    let text =
        scene("TetMesh", VOLUME_APIS, &format!("{TET_POINTS}\n        int4[] tetVertexIndices = [(0, 1, 2, 12)]"));
    let (err, message) = error_of(&text, "/World/Body.tetVertexIndices");
    assert!(matches!(err, ImportError::IndexOutOfRange { index: 12, count: 4, .. }));
    assert!(message.ends_with("index 12 out of range for 4 points"), "{message}");
}

#[test]
fn negative_index_is_out_of_range_too() {
    let text =
        scene("TetMesh", VOLUME_APIS, &format!("{TET_POINTS}\n        int4[] tetVertexIndices = [(0, 1, -2, 3)]"));
    error_of(&text, "/World/Body.tetVertexIndices: index -2 out of range");
}

#[test]
fn non_triangle_surface_face() {
    let text = scene(
        "Mesh",
        SURFACE_APIS,
        &format!(
            "{TET_POINTS}\n        int[] faceVertexCounts = [3, 4]\n        int[] faceVertexIndices = [0, 1, 2, 0, 1, 2, 3]"
        ),
    );
    let (err, _) = error_of(&text, "/World/Body.faceVertexCounts: face 1 has 4 vertices");
    assert!(matches!(err, ImportError::NonTriangleFace { face: 1, count: 4, .. }));
}

#[test]
fn mismatched_rest_tets() {
    let text = scene(
        "TetMesh",
        VOLUME_APIS,
        &format!(
            "{TET_POINTS}\n        int4[] tetVertexIndices = [(0, 1, 2, 3)]\n        int4[] omniphysics:restTetVtxIndices = [(0, 1, 2, 3), (0, 1, 2, 3)]"
        ),
    );
    let (err, _) = error_of(&text, "/World/Body.omniphysics:restTetVtxIndices: has 2 entries, expected 1");
    assert!(matches!(err, ImportError::LengthMismatch { .. }));
}

#[test]
fn rest_points_without_indices_must_match_points() {
    let text = scene(
        "TetMesh",
        VOLUME_APIS,
        &format!(
            "{TET_POINTS}\n        int4[] tetVertexIndices = [(0, 1, 2, 3)]\n        point3f[] omniphysics:restShapePoints = [(0, 0, 0), (1, 0, 0)]"
        ),
    );
    error_of(&text, "/World/Body.omniphysics:restShapePoints: has 2 entries, expected 4");
}

#[test]
fn rest_index_out_of_range_for_rest_points() {
    let text = scene(
        "TetMesh",
        VOLUME_APIS,
        &format!(
            "{TET_POINTS}\n        int4[] tetVertexIndices = [(0, 1, 2, 3)]\n        point3f[] omniphysics:restShapePoints = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)]\n        int4[] omniphysics:restTetVtxIndices = [(0, 1, 2, 5)]"
        ),
    );
    error_of(&text, "/World/Body.omniphysics:restTetVtxIndices: index 5 out of range for 5 rest points");
}

#[test]
fn mismatched_bend_arrays() {
    let text = scene(
        "Mesh",
        SURFACE_APIS,
        &format!(
            "{TET_POINTS}\n        int[] faceVertexCounts = [3, 3]\n        int[] faceVertexIndices = [0, 1, 2, 0, 2, 3]\n        int2[] omniphysics:restAdjTriPairs = [(0, 1)]\n        float[] omniphysics:restBendAngles = [10, 20]"
        ),
    );
    error_of(&text, "/World/Body.omniphysics:restBendAngles: has 2 entries, expected 1");
}

#[test]
fn bad_bend_default_token() {
    let text = scene(
        "Mesh",
        SURFACE_APIS,
        &format!(
            "{TET_POINTS}\n        int[] faceVertexCounts = [3]\n        int[] faceVertexIndices = [0, 1, 2]\n        uniform token omniphysics:restBendAnglesDefault = \"curly\""
        ),
    );
    error_of(&text, "/World/Body.omniphysics:restBendAnglesDefault: expected \"flatDefault\"");
}

#[test]
fn missing_points_and_wrong_types() {
    let text = scene("TetMesh", VOLUME_APIS, "        int4[] tetVertexIndices = [(0, 1, 2, 3)]");
    let (err, _) = error_of(&text, "/World/Body.points: required attribute is not authored");
    assert!(matches!(err, ImportError::Missing { .. }));

    let text = scene("TetMesh", VOLUME_APIS, &format!("{TET_POINTS}\n        int3[] tetVertexIndices = [(0, 1, 2)]"));
    let (err, _) = error_of(&text, "/World/Body.tetVertexIndices: expected int4[]");
    assert!(matches!(err, ImportError::WrongType { .. }));
}

#[test]
fn volume_api_on_a_mesh_is_rejected() {
    let text = scene("Mesh", VOLUME_APIS, TET_POINTS);
    error_of(&text, "/World/Body: OmniPhysicsVolumeDeformableSimAPI requires a TetMesh prim, found Mesh");
}

#[test]
fn velocities_must_match_points() {
    let text = scene(
        "TetMesh",
        VOLUME_APIS,
        &format!("{TET_POINTS}\n        int4[] tetVertexIndices = [(0, 1, 2, 3)]\n        vector3f[] velocities = [(0, 0, 0)]"),
    );
    error_of(&text, "/World/Body.velocities: has 1 entries, expected 4");
}

#[test]
fn bad_material_value() {
    let text = "#usda 1.0\n\ndef Material \"M\" (\n    prepend apiSchemas = [\"OmniPhysicsDeformableMaterialAPI\"]\n)\n{\n    float omniphysics:poissonsRatio = 0.7\n}\n\ndef TetMesh \"Body\" (\n    prepend apiSchemas = [\"OmniPhysicsDeformableBodyAPI\", \"OmniPhysicsVolumeDeformableSimAPI\"]\n)\n{\n    rel material:binding = </M>\n    point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]\n    int4[] tetVertexIndices = [(0, 1, 2, 3)]\n}\n";
    error_of(text, "/M.omniphysics:poissonsRatio: Poisson's ratio must lie in (-1, 0.5)");
}

#[test]
fn attachment_index_out_of_range() {
    let text = "#usda 1.0\n\ndef Xform \"Anchor\"\n{\n}\n\ndef TetMesh \"Body\" (\n    prepend apiSchemas = [\"OmniPhysicsDeformableBodyAPI\", \"OmniPhysicsVolumeDeformableSimAPI\"]\n)\n{\n    point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]\n    int4[] tetVertexIndices = [(0, 1, 2, 3)]\n}\n\ndef OmniPhysicsVtxXformAttachment \"Pin\"\n{\n    rel omniphysics:src0 = </Body>\n    rel omniphysics:src1 = </Anchor>\n    int[] omniphysics:vtxIndicesSrc0 = [7]\n    point3f[] omniphysics:localPositionsSrc1 = [(0, 0, 0)]\n}\n";
    error_of(text, "/Pin.omniphysics:vtxIndicesSrc0: index 7 out of range for 4 body vertices");
}

#[test]
fn missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nowhere.usda");
    let err = import(&path).unwrap_err();
    assert!(matches!(err, ImportError::Unreadable { .. }));
    assert!(err.to_string().contains("nowhere.usda: cannot read file"), "{err}");
}

#[test]
fn unparsable_files() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("garbage.usda", b"#usda 1.0\ndef Xform \"A\" {\n  float x = (((\n".as_slice()),
        ("binary.usdc", b"PXR-USDC\0\0\0\0garbage".as_slice()),
        ("empty.usda", b"".as_slice()),
        ("notzip.usdz", b"PK\x03\x04 definitely not a zip".as_slice()),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let err = import(&path).expect_err(name);
        assert!(err.to_string().contains(name), "{err}");
    }
}

#[test]
fn directory_is_not_a_scene() {
    let dir = tempfile::tempdir().unwrap();
    let err = import(dir.path()).unwrap_err();
    assert!(matches!(err, ImportError::Unreadable { .. }), "{err}");
}

#[test]
fn unsupported_things_are_warnings() {
    let text = "#usda 1.0\n(\n    upAxis = \"Z\"\n)\n\ndef Cone \"Cone\" (\n    prepend apiSchemas = [\"PhysicsCollisionAPI\"]\n)\n{\n}\n\ndef OmniPhysicsVtxVtxAttachment \"Stitch\"\n{\n}\n\ndef Mesh \"Orphan\" (\n    prepend apiSchemas = [\"OmniPhysicsSurfaceDeformableSimAPI\"]\n)\n{\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let imp = import(&write_scene(dir.path(), "scene.usda", text)).unwrap();
    let all = imp.warnings.iter().map(|w| w.text()).collect::<Vec<_>>().join("\n");
    assert!(all.contains("scene.usda: /Cone: PhysicsCollisionAPI on Cone is not a supported"), "{all}");
    assert!(all.contains("/Stitch.omniphysics:src0: no target; attachment ignored"), "{all}");
    assert!(all.contains("/Orphan: applies OmniPhysicsSurfaceDeformableSimAPI but neither"), "{all}");
    assert!(all.contains("no PhysicsScene"), "{all}");
}

/// A one-triangle cloth `/World/Body` with one more attribute on its prim.
fn triangle_with(attribute: &str) -> String {
    let faces = "int[] faceVertexCounts = [3]\n        int[] faceVertexIndices = [0, 1, 2]";
    scene("Mesh", SURFACE_APIS, &format!("{TET_POINTS}\n        {faces}\n        {attribute}"))
}

#[test]
fn self_collision_switch_that_is_not_a_bool() {
    let text = triangle_with("token physxDeformableBody:selfCollision = \"yes\"");
    let (err, message) = error_of(&text, "/World/Body.physxDeformableBody:selfCollision");
    assert!(matches!(err, ImportError::WrongType { .. }), "{err:?}");
    assert!(message.contains("bool"), "{message}");
}

#[test]
fn negative_self_collision_filter_distance() {
    for bad in ["-0.01", "nan", "inf"] {
        let text = triangle_with(&format!("float physxDeformableBody:selfCollisionFilterDistance = {bad}"));
        let (err, message) = error_of(&text, "/World/Body.physxDeformableBody:selfCollisionFilterDistance");
        assert!(matches!(err, ImportError::Invalid { .. }), "{bad}: {err:?}");
        assert!(message.contains("non-negative distance, or -inf"), "{message}");
    }
}
