//! Collision groups, filtered pairs and element collision filters read into
//! `Scene::collision`, and what they do in the solver.

mod common;

use common::write_scene;
use usdsim_core::ColliderId;
use usdsim_core::{BodyId, RigidId};
use usdsim_core::{CollisionObject, ElementSet, Settings, Solver};
use usdsim_usd::{import, ImportError, Imported};
use CollisionObject::{Body, Collider};

fn load(text: &str) -> Imported {
    let dir = tempfile::tempdir().unwrap();
    import(&write_scene(dir.path(), "scene.usda", text)).unwrap_or_else(|e| panic!("{e}"))
}

fn load_err(text: &str) -> ImportError {
    let dir = tempfile::tempdir().unwrap();
    match import(&write_scene(dir.path(), "scene.usda", text)) {
        Ok(_) => panic!("expected an import error"),
        Err(e) => e,
    }
}

const HEADER: &str = "#usda 1.0\n(\n    metersPerUnit = 1\n    upAxis = \"Z\"\n    timeCodesPerSecond = 24\n)\n\n";

/// A square cloth of two triangles, `half` wide, centred at (`x`, 0, `z`).
fn cloth(name: &str, x: f32, z: f32, extra: &str) -> String {
    let h = 0.25;
    format!(
        r#"def Mesh "{name}" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsSurfaceDeformableSimAPI", "PhysicsCollisionAPI"{extra_api}])
{{
    point3f[] points = [({x0}, -{h}, {z}), ({x1}, -{h}, {z}), ({x1}, {h}, {z}), ({x0}, {h}, {z})]
    int[] faceVertexCounts = [3, 3]
    int[] faceVertexIndices = [0, 1, 2, 0, 2, 3]
    {extra}
}}
"#,
        x0 = x - h,
        x1 = x + h,
        extra_api = if extra.is_empty() { "" } else { ", \"PhysicsFilteredPairsAPI\"" },
    )
}

const GROUND: &str = r#"def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
{
    double size = 4
}
"#;

fn pairs(imp: &Imported) -> Vec<[CollisionObject; 2]> {
    let mut p = imp.scene.collision.pairs.clone();
    p.sort();
    p
}

#[test]
fn corpus_examples_filter_their_two_rigid_bodies() {
    let Some(corpus) = common::corpus() else { return };
    for name in ["usdPhysicsGroupFiltering.usda", "usdPhysicsPairFiltering.usda"] {
        let imp = import(&corpus.join("openusd-usdphysics").join(name)).unwrap_or_else(|e| panic!("{e}"));
        // Box1 and Box2 are rigid bodies, filtered against each other (rapier resolves
        // rigid–rigid contact, so the pair is recorded but only matters for deformables).
        let boxes: Vec<usize> = (0..imp.scene.rigid_bodies.len())
            .filter(|&i| imp.scene.rigid_bodies[i].name.starts_with("/World/Box"))
            .collect();
        assert_eq!(boxes.len(), 2, "{name}");
        let expected = [CollisionObject::Rigid(RigidId(boxes[0])), CollisionObject::Rigid(RigidId(boxes[1]))];
        assert!(
            pairs(&imp).iter().any(|p| *p == expected || *p == [expected[1], expected[0]]),
            "{name}: {:?}",
            pairs(&imp)
        );
        assert!(!imp.warnings.iter().any(|w| w.text().contains("cannot be filtered")), "{name}: {:#?}", imp.warnings);
    }
}

#[test]
fn a_filtered_pair_names_a_rigid_body_through_its_collider_prim() {
    let text = format!(
        r#"{HEADER}def Xform "World"
{{
    def PhysicsScene "PhysicsScene" {{}}
    {}
    def Xform "Crate" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {{
        double3 xformOp:translate = (0, 0, 3)
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Cube "Shape" (prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsFilteredPairsAPI"])
        {{
            double size = 0.5
            rel physics:filteredPairs = </World/Jelly>
        }}
    }}
}}
"#,
        cloth("Jelly", 0.0, 1.0, "")
    );
    let imp = load(&text);
    assert_eq!(imp.scene.rigid_bodies.len(), 1);
    assert!(
        pairs(&imp).contains(&[Body(BodyId(0)), CollisionObject::Rigid(RigidId(0))])
            || pairs(&imp).contains(&[CollisionObject::Rigid(RigidId(0)), Body(BodyId(0))]),
        "{:?} / {:#?}",
        pairs(&imp),
        imp.warnings
    );
}

#[test]
fn corpus_group_example_with_cloths_filters_the_two_members() {
    // usdPhysicsGroupFiltering.usda with the two boxes as cloths: they do not collide
    // with each other but do with the ground.
    let text = format!(
        r#"{HEADER}def Xform "World"
{{
    def PhysicsScene "PhysicsScene" {{}}
    {}
    {}
    def PhysicsCollisionGroup "DynamicGroup" (prepend apiSchemas = ["CollectionAPI:colliders"])
    {{
        prepend rel collection:colliders:includes = [</World/Box1>, </World/Box2>]
        prepend rel physics:filteredGroups = [</World/DynamicGroup>]
    }}
    {GROUND}
}}
"#,
        cloth("Box1", 0.0, 3.0, ""),
        cloth("Box2", 0.0, 4.0, "")
    );
    let imp = load(&text);
    assert_eq!(pairs(&imp), vec![[Body(BodyId(0)), Body(BodyId(1))]]);
    let c = &imp.scene.collision;
    assert!(c.is_filtered(Body(BodyId(1)), Body(BodyId(0))));
    assert!(!c.is_filtered(Body(BodyId(0)), Collider(ColliderId(0))));
    assert!(!c.is_filtered(Body(BodyId(0)), Body(BodyId(0))), "a group does not switch self contact off");
}

#[test]
fn corpus_pair_example_with_cloths_filters_the_pair() {
    let text = format!(
        r#"{HEADER}def Xform "World"
{{
    def PhysicsScene "PhysicsScene" {{}}
    {}
    {}
    {GROUND}
}}
"#,
        cloth("Box1", 0.0, 3.0, ""),
        cloth("Box2", 0.0, 4.0, "prepend rel physics:filteredPairs = </World/Box1>")
    );
    let imp = load(&text);
    assert_eq!(pairs(&imp), vec![[Body(BodyId(0)), Body(BodyId(1))]]);
}

#[test]
fn groups_with_ancestors_excludes_merge_and_invert() {
    let text = format!(
        r#"{HEADER}def Xform "World"
{{
    def Xform "Cloths"
    {{
        {}
        {}
    }}
    {}
    {GROUND}
    def Sphere "Ball" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {{ double3 xformOp:translate = (0, 0, -10)
        uniform token[] xformOpOrder = ["xformOp:translate"] }}
    def PhysicsCollisionGroup "ClothsA" (prepend apiSchemas = ["CollectionAPI:colliders"])
    {{
        rel collection:colliders:includes = [</World/Cloths>]
        rel collection:colliders:excludes = [</World/Cloths/B>]
        rel physics:filteredGroups = [</World/Statics>]
        string physics:mergeGroup = "m"
    }}
    def PhysicsCollisionGroup "ClothsC" (prepend apiSchemas = ["CollectionAPI:colliders"])
    {{
        rel collection:colliders:includes = [</World/C>]
        string physics:mergeGroup = "m"
    }}
    def PhysicsCollisionGroup "Statics" (prepend apiSchemas = ["CollectionAPI:colliders"])
    {{
        rel collection:colliders:includes = [</World/Ground>]
    }}
    def PhysicsCollisionGroup "OnlyGround" (prepend apiSchemas = ["CollectionAPI:colliders"])
    {{
        rel collection:colliders:includes = [</World/Cloths/B>]
        rel physics:filteredGroups = [</World/Statics>]
        bool physics:invertFilteredGroups = 1
    }}
}}
"#,
        cloth("A", -1.0, 3.0, ""),
        cloth("B", 1.0, 3.0, ""),
        cloth("C", 0.0, 5.0, "")
    );
    let imp = load(&text);
    // Bodies: A = 0, B = 1, C = 2; colliders: Ground = 0, Ball = 1.
    // A and C (merged group "m") against the ground; B (inverted) collides only with the
    // ground: filtered against A, C and the ball.
    assert_eq!(
        pairs(&imp),
        vec![
            [Body(BodyId(0)), Body(BodyId(1))],
            [Body(BodyId(0)), Collider(ColliderId(0))],
            [Body(BodyId(1)), Body(BodyId(2))],
            [Body(BodyId(1)), Collider(ColliderId(1))],
            [Body(BodyId(2)), Collider(ColliderId(0))],
        ]
    );
}

#[test]
fn filtered_cloth_falls_through_the_cube_and_the_other_is_stopped() {
    let text = format!(
        r#"{HEADER}def PhysicsScene "PhysicsScene" {{}}
{}
{}
{GROUND}
"#,
        cloth("Free", -1.0, 2.5, ""),
        cloth("Ghost", 1.0, 2.5, "prepend rel physics:filteredPairs = </Ground>")
    );
    let imp = load(&text);
    assert_eq!(pairs(&imp), vec![[Body(BodyId(1)), Collider(ColliderId(0))]]);
    let settings = Settings { frame_dt: 1.0 / 24.0, ..Settings::default() };
    let mut solver = Solver::new(imp.scene.clone(), settings).unwrap();
    for _ in 0..30 {
        solver.step_frame();
    }
    let lowest = |b: usize| solver.positions(BodyId(b)).iter().map(|p| p.z).fold(f32::INFINITY, f32::min);
    assert!(lowest(0) > 1.8, "the unfiltered cloth rests on the cube top (z = 2): {}", lowest(0));
    assert!(lowest(1) < 0.0, "the filtered cloth falls through the cube: {}", lowest(1));
}

const TET: &str = r#"def TetMesh "Tet" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI", "PhysicsCollisionAPI"])
{
    point3f[] points = [(0, 0, 3), (1, 0, 3), (0, 1, 3), (0, 0, 4)]
    int4[] tetVertexIndices = [(0, 1, 2, 3)]
}
"#;

fn element_scene(filter: &str) -> String {
    format!("{HEADER}{TET}{}{GROUND}{filter}", cloth("Cloth", 0.0, 5.0, ""))
}

#[test]
fn element_filters_read_their_groups() {
    let text = element_scene(
        r#"def OmniPhysicsElementCollisionFilter "TetCloth"
{
    rel omniphysics:src0 = </Tet>
    rel omniphysics:src1 = </Cloth>
    uint[] omniphysics:groupElemCounts0 = [2, 1]
    uint[] omniphysics:groupElemIndices0 = [0, 1, 3]
    uint[] omniphysics:groupElemCounts1 = [0, 1]
    uint[] omniphysics:groupElemIndices1 = [1]
}
def OmniPhysicsElementCollisionFilter "ClothGround"
{
    rel omniphysics:src0 = </Cloth>
    rel omniphysics:src1 = </Ground>
    uint[] omniphysics:groupElemCounts0 = [1]
    uint[] omniphysics:groupElemIndices0 = [0]
}
def OmniPhysicsElementCollisionFilter "Off"
{
    bool omniphysics:filterEnabled = 0
    rel omniphysics:src0 = </Tet>
    rel omniphysics:src1 = </Ground>
}
"#,
    );
    let imp = load(&text);
    let e = &imp.scene.collision.elements;
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!(e[0].objects, [Body(BodyId(0)), Body(BodyId(1))]);
    assert_eq!(
        e[0].groups,
        vec![(ElementSet::Some(vec![0, 1]), ElementSet::All), (ElementSet::Some(vec![3]), ElementSet::Some(vec![1])),]
    );
    assert_eq!(e[1].objects, [Body(BodyId(1)), Collider(ColliderId(0))]);
    assert_eq!(e[1].groups, vec![(ElementSet::Some(vec![0]), ElementSet::All)]);
    assert!(imp.scene.collision.pairs.is_empty());
}

#[test]
fn bad_element_filters_name_the_attribute() {
    let mismatch = element_scene(
        r#"def OmniPhysicsElementCollisionFilter "F"
{
    rel omniphysics:src0 = </Tet>
    rel omniphysics:src1 = </Cloth>
    uint[] omniphysics:groupElemCounts0 = [1, 1]
    uint[] omniphysics:groupElemIndices0 = [0, 1]
    uint[] omniphysics:groupElemCounts1 = [1]
    uint[] omniphysics:groupElemIndices1 = [0]
}
"#,
    );
    let msg = load_err(&mismatch).to_string();
    assert!(msg.contains("scene.usda: /F.omniphysics:groupElemCounts1"), "{msg}");

    let sum = element_scene(
        r#"def OmniPhysicsElementCollisionFilter "F"
{
    rel omniphysics:src0 = </Tet>
    rel omniphysics:src1 = </Cloth>
    uint[] omniphysics:groupElemCounts0 = [3]
    uint[] omniphysics:groupElemIndices0 = [0, 1]
}
"#,
    );
    let msg = load_err(&sum).to_string();
    assert!(msg.contains("scene.usda: /F.omniphysics:groupElemIndices0"), "{msg}");

    let range = element_scene(
        r#"def OmniPhysicsElementCollisionFilter "F"
{
    rel omniphysics:src0 = </Tet>
    rel omniphysics:src1 = </Cloth>
    uint[] omniphysics:groupElemCounts1 = [1]
    uint[] omniphysics:groupElemIndices1 = [2]
}
"#,
    );
    let err = load_err(&range);
    assert!(matches!(err, ImportError::IndexOutOfRange { index: 2, count: 2, .. }), "{err}");
    assert!(err.to_string().contains("/F.omniphysics:groupElemIndices1"), "{err}");
}
