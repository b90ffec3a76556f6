//! Attachments and element collision filters spelled in the AOUSD proposal's `physics:`
//! dialect (`PhysicsVtxVtxAttachment` with `physics:src0`, ...) import exactly like the
//! seed's `omniphysics:` spelling: the same `Scene::attachments`, `frames`, `pins`,
//! tracks and element filters, the same errors (naming the `physics:` attribute), and
//! the same simulated motion.

mod common;

use common::write_scene;
use usdsim_core::{BodyId, FrameId, RigidId};
use usdsim_core::{Settings, Site, Solver};
use usdsim_usd::{import, Imported, TrackTarget};

/// Rewrites a stage spelled with `OmniPhysics*` prims and `omniphysics:` attributes
/// into the AOUSD `Physics*` / `physics:` spelling.
fn aousd(text: &str) -> String {
    text.replace("OmniPhysics", "Physics").replace("omniphysics:", "physics:")
}

fn load(text: &str) -> Imported {
    let dir = tempfile::tempdir().unwrap();
    import(&write_scene(dir.path(), "scene.usda", text)).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The import error of `text`, with the temporary directory left out of its message.
fn load_err(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    match import(&write_scene(dir.path(), "scene.usda", text)) {
        Ok(_) => panic!("expected an import error:\n{text}"),
        Err(e) => e.to_string().replace(&format!("{}/", dir.path().display()), ""),
    }
}

const HEADER: &str = "#usda 1.0\n(\n    metersPerUnit = 1\n    upAxis = \"Z\"\n    startTimeCode = 0\n    endTimeCode = 24\n    timeCodesPerSecond = 24\n)\n\n";

const SURFACE_APIS: &str =
    r#""OmniPhysicsDeformableBodyAPI", "OmniPhysicsSurfaceDeformableSimAPI", "PhysicsCollisionAPI""#;

/// An `n` x `n`-vertex triangulated square cloth, `size` wide, its corner at (`x`, `y`, `z`).
fn cloth(name: &str, n: usize, size: f32, x: f32, y: f32, z: f32) -> String {
    let step = size / (n - 1) as f32;
    let mut points = Vec::new();
    for j in 0..n {
        for i in 0..n {
            points.push(format!("({}, {}, {z})", x + i as f32 * step, y + j as f32 * step));
        }
    }
    let mut indices = Vec::new();
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let v = j * n + i;
            indices.extend([v, v + 1, v + n + 1, v, v + n + 1, v + n]);
        }
    }
    let tris = indices.len() / 3;
    let list = |v: Vec<String>| v.join(", ");
    format!(
        r#"    def Mesh "{name}" (prepend apiSchemas = [{SURFACE_APIS}])
    {{
        point3f[] points = [{}]
        int[] faceVertexCounts = [{}]
        int[] faceVertexIndices = [{}]
    }}
"#,
        list(points),
        list(vec!["3".to_string(); tris]),
        list(indices.iter().map(|i| i.to_string()).collect()),
    )
}

/// The bodies and xformables every attachment stage shares: `/World/Cloth` (3 x 3
/// vertices, 8 triangles), `/World/Patch` (2 x 2, 2 triangles), `/World/Tet` (5 points,
/// 2 tetrahedra), a static `/World/Anchor`, an animated `/World/Mover` and a rigid body
/// `/World/Box` with a child xform `/World/Box/Hook`.
fn stage(attachments: &str) -> String {
    format!(
        r#"{HEADER}def Xform "World"
{{
    def PhysicsScene "PhysicsScene"
    {{
    }}

{cloth}{patch}
    def TetMesh "Tet" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI", "PhysicsCollisionAPI"])
    {{
        point3f[] points = [(3, 0, 1), (4, 0, 1), (3, 1, 1), (3, 0, 2), (4, 1, 2)]
        int4[] tetVertexIndices = [(0, 1, 2, 3), (1, 4, 2, 3)]
    }}

    def Xform "Anchor"
    {{
        double3 xformOp:translate = (0.5, -1, 2)
        float3 xformOp:scale = (2, 2, 2)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }}

    def Xform "Mover"
    {{
        double3 xformOp:translate.timeSamples = {{
            0: (0, 0, 2),
            12: (0.5, 0, 2.5),
        }}
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }}

    def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {{
        double size = 0.5
        double3 xformOp:translate = (-2, 0, 3)
        uniform token[] xformOpOrder = ["xformOp:translate"]

        def Xform "Hook"
        {{
            double3 xformOp:translate = (0, 0, -0.25)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }}
    }}

{attachments}}}
"#,
        cloth = cloth("Cloth", 3, 1.0, 0.0, 0.0, 1.0),
        patch = cloth("Patch", 2, 0.5, 0.0, 0.0, 1.2),
    )
}

/// One attachment stage per type, in the `omniphysics:` spelling, with the number of
/// attachments and pins it must import to.
fn attachment_stages() -> Vec<(&'static str, String, usize, usize)> {
    vec![
        (
            "VtxVtx",
            stage(
                r#"    def OmniPhysicsVtxVtxAttachment "Stitch"
    {
        rel omniphysics:src0 = </World/Cloth>
        rel omniphysics:src1 = </World/Patch>
        int[] omniphysics:vtxIndicesSrc0 = [0, 2, 8]
        int[] omniphysics:vtxIndicesSrc1 = [0, 1, 3]
        float omniphysics:stiffness = 1500
        float omniphysics:damping = 2.5
    }
"#,
            ),
            3,
            0,
        ),
        (
            "VtxTri",
            stage(
                r#"    def OmniPhysicsVtxTriAttachment "Glue"
    {
        rel omniphysics:src0 = </World/Patch>
        rel omniphysics:src1 = </World/Cloth>
        int[] omniphysics:vtxIndicesSrc0 = [0, 3]
        int[] omniphysics:triIndicesSrc1 = [3, 7]
        vector3f[] omniphysics:triCoordsSrc1 = [(0.2, 0.3, 0.01), (0.5, 0.25, -0.02)]
    }
"#,
            ),
            2,
            0,
        ),
        (
            "VtxTet",
            stage(
                r#"    def OmniPhysicsVtxTetAttachment "Embed"
    {
        rel omniphysics:src0 = </World/Cloth>
        rel omniphysics:src1 = </World/Tet>
        int[] omniphysics:vtxIndicesSrc0 = [4, 5]
        int[] omniphysics:tetIndicesSrc1 = [0, 1]
        vector3f[] omniphysics:tetCoordsSrc1 = [(0.25, 0.25, 0.25), (0.1, 0.2, 0.3)]
        float omniphysics:stiffness = 800
    }
"#,
            ),
            2,
            0,
        ),
        (
            "VtxXform",
            stage(
                r#"    def OmniPhysicsVtxXformAttachment "Pins"
    {
        rel omniphysics:src0 = </World/Cloth>
        rel omniphysics:src1 = </World/Anchor>
        int[] omniphysics:vtxIndicesSrc0 = [0, 2]
        point3f[] omniphysics:localPositionsSrc1 = [(0, 0, 0), (0.25, 0.5, -0.5)]
    }

    def OmniPhysicsVtxXformAttachment "Dragged"
    {
        rel omniphysics:src0 = </World/Patch>
        rel omniphysics:src1 = </World/Mover>
        int[] omniphysics:vtxIndicesSrc0 = [1]
        point3f[] omniphysics:localPositionsSrc1 = [(0.1, 0, 0)]
        float omniphysics:stiffness = 4000
        float omniphysics:damping = 1
    }

    def OmniPhysicsVtxXformAttachment "Hooked"
    {
        rel omniphysics:src0 = </World/Cloth>
        rel omniphysics:src1 = </World/Box/Hook>
        int[] omniphysics:vtxIndicesSrc0 = [6, 8]
        point3f[] omniphysics:localPositionsSrc1 = [(0, 0, 0), (0.1, 0, 0)]
    }
"#,
            ),
            3,
            2,
        ),
        (
            "TetXform",
            stage(
                r#"    def OmniPhysicsTetXformAttachment "Bolt"
    {
        rel omniphysics:src0 = </World/Tet>
        rel omniphysics:src1 = </World/Anchor>
        int[] omniphysics:tetIndicesSrc0 = [1, 0]
        vector3f[] omniphysics:tetCoordsSrc0 = [(0.25, 0.25, 0.25), (1, 0, 0)]
        point3f[] omniphysics:localPositionsSrc1 = [(1, 0.5, -0.5), (0, 0, 0)]
        float omniphysics:stiffness = 1e4
        float omniphysics:damping = 3
    }
"#,
            ),
            2,
            0,
        ),
        (
            "TriTri",
            stage(
                r#"    def OmniPhysicsTriTriAttachment "Seam"
    {
        rel omniphysics:src0 = </World/Cloth>
        rel omniphysics:src1 = </World/Patch>
        int[] omniphysics:triIndicesSrc0 = [0, 5]
        vector3f[] omniphysics:triCoordsSrc0 = [(0.3, 0.3, 0), (0.1, 0.6, 0.005)]
        int[] omniphysics:triIndicesSrc1 = [1, 0]
        vector3f[] omniphysics:triCoordsSrc1 = [(0.5, 0.5, 0), (0.2, 0.2, -0.01)]
    }
"#,
            ),
            2,
            0,
        ),
    ]
}

/// Asserts two imports agree on everything attachments produce.
#[track_caller]
fn assert_same_attachments(what: &str, a: &Imported, b: &Imported) {
    assert_eq!(a.scene.attachments, b.scene.attachments, "{what}: attachments");
    assert_eq!(a.scene.frames, b.scene.frames, "{what}: frames");
    assert_eq!(a.scene.pins, b.scene.pins, "{what}: pins");
    assert_eq!(a.binding.tracks, b.binding.tracks, "{what}: tracks");
    let rigid_paths = |i: &Imported| i.binding.rigid.iter().map(|r| r.prim_path.clone()).collect::<Vec<_>>();
    assert_eq!(rigid_paths(a), rigid_paths(b), "{what}: rigid bodies");
    assert_eq!(a.warnings, b.warnings, "{what}: warnings");
}

#[test]
fn every_type_imports_the_same_in_both_spellings() {
    for (name, omni, attachments, pins) in attachment_stages() {
        let physics = omni.replace("def OmniPhysics", "def Physics").replace("omniphysics:", "physics:");
        assert!(physics.contains(&format!("def Physics{name}Attachment")), "{physics}");
        assert!(!physics.contains("omniphysics:"));
        let (a, b) = (load(&omni), load(&physics));
        assert_eq!(a.scene.attachments.len(), attachments, "{name}: {:?}", a.scene.attachments);
        assert_eq!(a.scene.pins.len(), pins, "{name}: {:?}", a.scene.pins);
        assert!(
            !a.warnings.iter().chain(&b.warnings).any(|w| w.text().contains("attachment")),
            "{name}: {:?} / {:?}",
            a.warnings,
            b.warnings
        );
        assert_same_attachments(name, &a, &b);
    }
}

#[test]
fn every_type_imports_the_same_from_a_fully_aousd_stage() {
    // Bodies spelled in the AOUSD dialect too (`PhysicsDeformableBodyAPI`, ...).
    for (name, omni, attachments, _) in attachment_stages() {
        let (a, b) = (load(&omni), load(&aousd(&omni)));
        assert_eq!(b.scene.bodies.len(), 3, "{name}");
        assert_eq!(b.scene.attachments.len(), attachments, "{name}");
        assert_eq!(a.scene.attachments, b.scene.attachments, "{name}: attachments");
        assert_eq!(a.scene.frames, b.scene.frames, "{name}: frames");
        assert_eq!(a.scene.pins, b.scene.pins, "{name}: pins");
        assert_eq!(a.binding.tracks, b.binding.tracks, "{name}: tracks");
    }
}

#[test]
fn the_sites_are_what_the_physics_spelling_says() {
    // A spot check that the comparison above is not between two empty or default reads.
    let (_, omni, _, _) = attachment_stages().into_iter().find(|s| s.0 == "VtxXform").unwrap();
    let imp = load(&aousd(&omni));
    let s = &imp.scene;
    assert_eq!(s.pins[1].vertex, 2);
    assert!((s.pins[1].target - glam::Vec3::new(1.0, 0.0, 1.0)).abs().max_element() < 1e-6, "{:?}", s.pins[1]);
    assert!(s.pins.iter().all(|p| p.stiffness == f32::INFINITY));
    // The animated mover: a frame with a track, a compliant attachment.
    let names: Vec<&str> = s.frames.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["/World/Anchor", "/World/Mover"]);
    let dragged = &s.attachments[0];
    assert_eq!(dragged.a, Site::Vertex { body: BodyId(1), vertex: 1 });
    assert_eq!(dragged.b, Site::Frame { frame: FrameId(1), local: glam::Vec3::new(0.1, 0.0, 0.0) });
    assert_eq!((dragged.stiffness, dragged.damping), (4000.0, 1.0));
    assert_eq!(imp.binding.tracks.len(), 1);
    assert_eq!(imp.binding.tracks[0].target, TrackTarget::Frame(FrameId(1)));
    // The rigid body's hook.
    assert!(matches!(s.attachments[1].b, Site::Rigid { rigid: RigidId(0), .. }), "{:?}", s.attachments[1]);
}

#[test]
fn physics_attachment_enabled_false_is_ignored() {
    let (_, omni, _, _) = attachment_stages().into_iter().find(|s| s.0 == "VtxVtx").unwrap();
    // Disabled, with an out-of-range index that would otherwise be an error.
    let omni = omni
        .replace("rel omniphysics:src0", "bool omniphysics:attachmentEnabled = 0\n        rel omniphysics:src0")
        .replace("[0, 2, 8]", "[0, 2, 99]");
    for text in [omni.clone(), aousd(&omni)] {
        let imp = load(&text);
        assert!(imp.scene.attachments.is_empty(), "{:?}", imp.scene.attachments);
        assert!(imp.scene.pins.is_empty());
    }
    // The other dialect's switch does not apply: `omniphysics:attachmentEnabled` on a
    // `Physics*` prim is not the prim's attribute.
    let mixed = aousd(&omni).replace("bool physics:attachmentEnabled", "bool omniphysics:attachmentEnabled");
    let err = load_err(&mixed);
    assert!(err.contains("/World/Stitch.physics:vtxIndicesSrc0: index 99 out of range"), "{err}");
    // Enabled explicitly: imported.
    let on = aousd(&omni).replace("attachmentEnabled = 0", "attachmentEnabled = 1").replace("99", "8");
    assert_eq!(load(&on).scene.attachments.len(), 3);
}

#[test]
fn unknown_physics_types_are_still_warned() {
    let text = stage("    def PhysicsVtxCrvAttachment \"Curve\"\n    {\n    }\n");
    let imp = load(&text);
    let all = imp.warnings.iter().map(|w| w.text()).collect::<Vec<_>>().join("\n");
    assert!(
        all.contains("/World/Curve: PhysicsVtxCrvAttachment is not one of the six attachment types; ignored"),
        "{all}"
    );
}

/// Bad values: the `physics:` spelling fails exactly like the `omniphysics:` one, with
/// the `physics:` attribute named.
#[test]
fn errors_name_the_physics_attribute() {
    let stages = attachment_stages();
    let of = |name: &str| stages.iter().find(|s| s.0 == name).unwrap().1.clone();
    let cases: Vec<(String, &str)> = vec![
        (
            of("VtxVtx").replace("[0, 2, 8]", "[0, 2, 9]"),
            "/World/Stitch.omniphysics:vtxIndicesSrc0: index 9 out of range",
        ),
        (of("VtxVtx").replace("[0, 1, 3]", "[0, 1, -1]"), "/World/Stitch.omniphysics:vtxIndicesSrc1"),
        (of("VtxVtx").replace("[0, 1, 3]", "[0, 1]"), "/World/Stitch"),
        (
            of("VtxVtx").replace("stiffness = 1500", "stiffness = -1"),
            "/World/Stitch.omniphysics:stiffness: must be positive",
        ),
        (of("VtxVtx").replace("damping = 2.5", "damping = -2"), "/World/Stitch.omniphysics:damping: must be a finite"),
        (of("VtxTri").replace("[3, 7]", "[3, 8]"), "/World/Glue.omniphysics:triIndicesSrc1: index 8 out of range"),
        (
            of("VtxTri").replace(", (0.5, 0.25, -0.02)]", "]"),
            "/World/Glue.omniphysics:triCoordsSrc1: has 1 entries, expected 2",
        ),
        (
            of("VtxTri").replace("    vector3f[] omniphysics:triCoordsSrc1", "    vector3f[] omniphysics:unrelated"),
            "/World/Glue.omniphysics:triCoordsSrc1",
        ),
        (of("VtxTet").replace("[0, 1]", "[0, 2]"), "/World/Embed.omniphysics:tetIndicesSrc1: index 2 out of range"),
        (
            of("VtxTet").replace("src1 = </World/Tet>", "src1 = </World/Anchor>"),
            "/World/Embed.omniphysics:src1: must name a deformable body",
        ),
        (
            of("VtxXform").replace("src1 = </World/Anchor>", "src1 = </World/Patch>"),
            "/World/Pins.omniphysics:src1: must name an xformable",
        ),
        (
            of("VtxXform").replace("src1 = </World/Anchor>", "src1 = </World/Nowhere>"),
            "/World/Pins.omniphysics:src1: target /World/Nowhere does not exist",
        ),
        (
            of("VtxXform").replace(
                "    point3f[] omniphysics:localPositionsSrc1 = [(0, 0, 0), (0.25",
                "    point3f[] omniphysics:x = [(0, 0, 0), (0.25",
            ),
            "/World/Pins.omniphysics:localPositionsSrc1",
        ),
        (of("TetXform").replace("[1, 0]", "[1, 5]"), "/World/Bolt.omniphysics:tetIndicesSrc0: index 5 out of range"),
        (of("TriTri").replace("[0, 5]", "[0, 8]"), "/World/Seam.omniphysics:triIndicesSrc0: index 8 out of range"),
        (
            of("TriTri").replace("(0.2, 0.2, -0.01)]", "(0.2, 0.2, -0.01), (0, 0, 0)]"),
            "/World/Seam.omniphysics:triCoordsSrc1",
        ),
    ];
    for (omni, expect) in cases {
        let physics = aousd(&omni);
        let (a, b) = (load_err(&omni), load_err(&physics));
        assert!(a.starts_with("scene.usda: ") && a.contains(expect), "{expect:?} missing from: {a}");
        assert_eq!(b, a.replace("omniphysics:", "physics:"), "the physics: spelling's error");
        assert!(b.contains(&expect.replace("omniphysics:", "physics:")), "{b}");
    }
}

#[test]
fn physics_attachment_without_target_is_warned() {
    let text = aousd(&stage(
        "    def OmniPhysicsVtxVtxAttachment \"Stitch\"\n    {\n        rel omniphysics:src1 = </World/Patch>\n    }\n",
    ));
    let imp = load(&text);
    let all = imp.warnings.iter().map(|w| w.text()).collect::<Vec<_>>().join("\n");
    assert!(all.contains("/World/Stitch.physics:src0: no target; attachment ignored"), "{all}");
    assert!(imp.scene.attachments.is_empty());
}

#[test]
fn physics_element_filters_import_like_omniphysics_ones() {
    let filters = r#"    def OmniPhysicsElementCollisionFilter "TetCloth"
    {
        rel omniphysics:src0 = </World/Tet>
        rel omniphysics:src1 = </World/Cloth>
        uint[] omniphysics:groupElemCounts0 = [2, 1]
        uint[] omniphysics:groupElemIndices0 = [0, 1, 3]
        uint[] omniphysics:groupElemCounts1 = [0, 2]
        uint[] omniphysics:groupElemIndices1 = [1, 7]
    }

    def OmniPhysicsElementCollisionFilter "Off"
    {
        bool omniphysics:filterEnabled = 0
        rel omniphysics:src0 = </World/Cloth>
        rel omniphysics:src1 = </World/Patch>
    }
"#;
    let omni = stage(filters);
    let physics = omni.replace("def OmniPhysics", "def Physics").replace("omniphysics:", "physics:");
    let (a, b) = (load(&omni), load(&physics));
    assert_eq!(a.scene.collision.elements.len(), 1, "{:?}", a.scene.collision.elements);
    assert_eq!(a.scene.collision, b.scene.collision);
    assert_eq!(load(&aousd(&omni)).scene.collision, a.scene.collision);
    // Bad indices name the physics: attribute.
    let bad = physics.replace("[1, 7]", "[1, 8]");
    let err = load_err(&bad);
    assert!(err.contains("/World/TetCloth.physics:groupElemIndices1: index 8 out of range"), "{err}");
}

/// A 6 x 6 cloth hung by two corners from static anchors and one from an animated one.
fn hanging_cloth(dialect: fn(&str) -> String) -> String {
    let attachments = dialect(
        r#"    def OmniPhysicsVtxXformAttachment "Corners"
    {
        rel omniphysics:src0 = </World/Cloth>
        rel omniphysics:src1 = </World/Anchor>
        int[] omniphysics:vtxIndicesSrc0 = [30, 35]
        point3f[] omniphysics:localPositionsSrc1 = [(-0.5, 0, 0), (0.5, 0, 0)]
    }

    def OmniPhysicsVtxXformAttachment "Middle"
    {
        rel omniphysics:src0 = </World/Cloth>
        rel omniphysics:src1 = </World/Mover>
        int[] omniphysics:vtxIndicesSrc0 = [32]
        point3f[] omniphysics:localPositionsSrc1 = [(0, 0, 0)]
        float omniphysics:stiffness = 50
        float omniphysics:damping = 0.5
    }
"#,
    );
    format!(
        r#"{HEADER}def Xform "World"
{{
    def PhysicsScene "PhysicsScene"
    {{
    }}

    def Material "Cotton" (prepend apiSchemas = ["OmniPhysicsBaseMaterialAPI", "OmniPhysicsDeformableMaterialAPI", "OmniPhysicsSurfaceDeformableMaterialAPI"])
    {{
        float omniphysics:density = 200
        float omniphysics:youngsModulus = 500000
        float omniphysics:poissonsRatio = 0.3
        float omniphysics:surfaceThickness = 0.001
    }}

{cloth}
    def Xform "Anchor"
    {{
        double3 xformOp:translate = (0.5, 1, 1)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }}

    def Xform "Mover"
    {{
        double3 xformOp:translate.timeSamples = {{
            0: (0.4, 1, 1),
            12: (0.4, 1.2, 1.3),
        }}
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }}

{attachments}}}
"#,
        cloth = cloth("Cloth", 6, 1.0, 0.0, 0.0, 1.0)
            .replace("\"PhysicsCollisionAPI\"]", "\"PhysicsCollisionAPI\", \"MaterialBindingAPI\"]")
            .replace("    {\n", "    {\n        rel material:binding:physics = </World/Cotton>\n"),
    )
}

/// Simulates `frames` frames the way `usdsim run` does and returns every body's
/// positions after each frame.
fn simulate(imp: &Imported, frames: u32) -> Vec<Vec<glam::Vec3>> {
    let settings = Settings { substeps: 5, iterations: 5, ..Settings::default() };
    let mut solver = Solver::new(imp.scene.clone(), settings).unwrap();
    let mut out = Vec::new();
    for frame in 1..=frames {
        imp.advance(&mut solver, frame).unwrap();
        out.push(solver.positions(BodyId(0)).to_vec());
    }
    out
}

#[test]
fn a_cloth_hung_by_physics_attachments_moves_identically() {
    let omni = load(&hanging_cloth(|s| s.to_string()));
    let physics =
        load(&hanging_cloth(|s| s.replace("def OmniPhysics", "def Physics").replace("omniphysics:", "physics:")));
    assert_eq!(omni.scene.pins.len(), 2);
    assert_eq!(omni.scene.attachments.len(), 1);
    assert_eq!(omni.binding.tracks.len(), 1);
    assert_same_attachments("hanging cloth", &omni, &physics);
    let (a, b) = (simulate(&omni, 12), simulate(&physics, 12));
    let bits = |frames: &[Vec<glam::Vec3>]| -> Vec<u32> {
        frames.iter().flatten().flat_map(|p| p.to_array().map(f32::to_bits)).collect()
    };
    assert_eq!(bits(&a), bits(&b), "positions differ bitwise");
    // The cloth really hangs: the pinned corners stay, the free edge falls.
    let last = a.last().unwrap();
    assert!((last[30] - glam::Vec3::new(0.0, 1.0, 1.0)).length() < 1e-5, "{}", last[30]);
    assert!(last[0].z < 0.9, "the free corner fell: {}", last[0]);
    assert!((last[32] - glam::Vec3::new(0.4, 1.0, 1.0)).length() > 0.05, "the middle followed the mover: {}", last[32]);
}
