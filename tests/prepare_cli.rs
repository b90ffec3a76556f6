//! `usdsim prepare` end to end: the real Teapot asset (payload, variant set, references,
//! quads, Y-up, an open surface) prepared as a volume body validates, encloses its render
//! mesh in the bind pose, weighs density × tet volume, and falls, lands and rests on a
//! ground plane with the render mesh following; a transformed body in a centimetre
//! stage keeps its sim mesh in local space and its mass in kilograms; a flat quad mesh
//! prepared as cloth drapes over a sphere; bad inputs fail with clear errors and exit
//! codes.

mod common;

use std::path::{Path, PathBuf};

use common::{composed_points, open_stage, temp_dir, usdsim, LayerFile};
use glam::Vec3;

/// The Teapot asset from the usd-wg corpus kept beside the repository.
fn teapot() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/usd-wg/Teapot/Teapot.usd")
}

/// Whether `p` lies in one of the tets (barycentric coordinates ≥ −tol).
fn inside_some_tet(points: &[Vec3], tets: &[[u32; 4]], p: Vec3) -> bool {
    let vol = |a: Vec3, b: Vec3, c: Vec3, d: Vec3| (b - a).dot((c - a).cross(d - a)) as f64;
    tets.iter().any(|t| {
        let [a, b, c, d] = t.map(|i| points[i as usize]);
        let v = vol(a, b, c, d);
        let w = [vol(p, b, c, d), vol(a, p, c, d), vol(a, b, p, d), vol(a, b, c, p)];
        w.iter().all(|&wi| wi >= -1e-4 * v.abs())
    })
}

/// Total volume of a body's tets (world space).
fn tet_volume(points: &[Vec3], tets: &[[u32; 4]]) -> f64 {
    tets.iter()
        .map(|t| {
            let [a, b, c, d] = t.map(|i| points[i as usize].as_dvec3());
            (b - a).dot((c - a).cross(d - a)) / 6.0
        })
        .sum()
}

fn prepare(args: &[&str]) -> common::Outcome {
    let mut all = vec!["prepare"];
    all.extend_from_slice(args);
    usdsim(all)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 test paths")
}

/// The inspect JSON of a stage.
fn inspect(path: &Path) -> serde_json::Value {
    let out = usdsim(["inspect", "--json", s(path)]);
    out.assert_success();
    serde_json::from_str(&out.stdout).expect("inspect prints JSON")
}

#[test]
fn teapot_volume_validates_encloses_its_render_mesh_and_weighs_density_times_volume() {
    if !teapot().exists() {
        eprintln!("note: {} is not here; skipped", teapot().display());
        return;
    }
    let dir = temp_dir();
    let out = dir.path().join("teapot_body.usda");
    let run = prepare(&[s(&teapot()), "--prim", "/Teapot", "--volume", "--resolution", "12", "-o", s(&out)]);
    run.assert_success();
    for word in ["cells", "tets", "mass", "quality"] {
        assert!(run.stderr.contains(word), "the summary names {word}:\n{}", run.stderr);
    }
    // The schema, as authored.
    let layer = LayerFile::open(&out);
    assert_eq!(layer.sublayers().len(), 1, "the output sublayers the input");
    let validate = usdsim(["validate", s(&out)]);
    assert_eq!(validate.code, Some(0), "{}\n{}", validate.stdout, validate.stderr);
    assert!(!validate.stdout.contains("error"), "{}", validate.stdout);

    // Through the importer: one volume body, the render mesh embedded in it.
    let imported = usdsim_usd::import(&out).expect("the prepared stage imports");
    assert_eq!(imported.scene.bodies.len(), 1);
    let body = &imported.scene.bodies[0];
    assert_eq!(imported.binding.bodies[0].prim_path, "/Teapot/simulationMesh");
    assert!(body.tets.len() > 1000, "{} tets", body.tets.len());
    assert_eq!(imported.scene.embedded.len(), 1, "the render mesh is embedded");
    let render = &imported.scene.embedded[0];
    assert_eq!(render.name, "/Teapot/Geometry");
    let outside: Vec<&Vec3> =
        render.bind_points.iter().filter(|p| !inside_some_tet(&body.positions, &body.tets, **p)).collect();
    assert!(outside.is_empty(), "{} render points outside the sim mesh, e.g. {:?}", outside.len(), outside.first());

    // Mass: density × tet volume, as the solver distributes it.
    let volume = tet_volume(&body.positions, &body.tets);
    let expected = f64::from(body.material.density) * volume;
    let json = inspect(&out);
    let mass = json["bodies"][0]["mass"]["stage"].as_f64().expect("a mass");
    assert!((mass - expected).abs() < 1e-3 * expected, "mass {mass} vs density × volume {expected}");
    assert!((f64::from(body.material.density) - 1000.0).abs() < 1e-3, "the default density, metres stage");
}

#[test]
fn teapot_falls_lands_rests_on_the_ground_and_its_render_mesh_follows() {
    if !teapot().exists() {
        eprintln!("note: {} is not here; skipped", teapot().display());
        return;
    }
    let dir = temp_dir();
    let body = dir.path().join("teapot_body.usda");
    prepare(&[
        s(&teapot()),
        "--prim",
        "/Teapot",
        "--volume",
        "--resolution",
        "10",
        "--youngs",
        "1e5",
        "-q",
        "-o",
        s(&body),
    ])
    .assert_success();
    // The test's own small layer: the prepared body over a ground 0.1 m below it.
    let scene = dir.path().join("drop.usda");
    std::fs::write(
        &scene,
        "#usda 1.0\n(\n    subLayers = [@./teapot_body.usda@]\n    metersPerUnit = 1\n    upAxis = \"Y\"\n    startTimeCode = 1\n)\n\n\
         def Plane \"Ground\" (\n    prepend apiSchemas = [\"PhysicsCollisionAPI\"]\n)\n{\n    uniform token axis = \"Y\"\n    \
         double length = 4\n    double width = 4\n    double3 xformOp:translate = (0, -0.1, 0)\n    \
         uniform token[] xformOpOrder = [\"xformOp:translate\"]\n}\n",
    )
    .unwrap();
    let bake = dir.path().join("drop.sim.usda");
    let run = usdsim([s(&scene), "-f", "30", "--json", "-q", "-o", s(&bake)]);
    run.assert_success();
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let lowest = json["final"][0]["lowest"].as_f64().unwrap();
    assert!(lowest > -0.1 - 0.01, "went through the ground: lowest vertex {lowest}");
    assert!(lowest < -0.1 + 0.01, "did not land: lowest vertex {lowest}");

    // The render mesh followed: it moved down by about the drop and rests above ground.
    let stage = open_stage(&bake);
    let first = composed_points(&stage, "/Teapot/Geometry", "points", 1.0);
    let last = composed_points(&stage, "/Teapot/Geometry", "points", 31.0);
    let min_y = |p: &[Vec3]| p.iter().map(|v| v.y).fold(f32::INFINITY, f32::min);
    let dropped = min_y(&first) - min_y(&last);
    assert!((dropped - 0.1).abs() < 0.03, "the render mesh dropped {dropped}, the body about 0.1");
    assert!(min_y(&last) > -0.1 - 0.01);
    // Resting: the last frames hardly move.
    let before = composed_points(&stage, "/Teapot/simulationMesh", "points", 29.0);
    let after = composed_points(&stage, "/Teapot/simulationMesh", "points", 31.0);
    let moved = before.iter().zip(&after).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
    assert!(moved < 0.01, "still moving {moved} over the last two frames");
}

/// A closed box mesh (quads) of half-size `h` under `/World/Body`, which is scaled by
/// 2 and moved, in a centimetre stage.
fn transformed_box_stage(dir: &Path) -> PathBuf {
    let h = 5.0;
    let mut pts = Vec::new();
    for i in 0..8 {
        let c = |b: usize| if i & b != 0 { h } else { -h };
        pts.push(format!("({}, {}, {})", c(1), c(2), c(4)));
    }
    let text = format!(
        "#usda 1.0\n(\n    metersPerUnit = 0.01\n    kilogramsPerUnit = 1\n    upAxis = \"Z\"\n    defaultPrim = \"World\"\n)\n\n\
         def Xform \"World\"\n{{\n    def Xform \"Body\"\n    {{\n        double3 xformOp:translate = (100, 0, 50)\n        \
         double3 xformOp:scale = (2, 2, 2)\n        uniform token[] xformOpOrder = [\"xformOp:translate\", \"xformOp:scale\"]\n\n        \
         def Mesh \"Box\"\n        {{\n            int[] faceVertexCounts = [4, 4, 4, 4, 4, 4]\n            \
         int[] faceVertexIndices = [0, 2, 3, 1, 4, 5, 7, 6, 0, 1, 5, 4, 2, 6, 7, 3, 0, 4, 6, 2, 1, 3, 7, 5]\n            \
         point3f[] points = [{}]\n        }}\n    }}\n}}\n",
        pts.join(", ")
    );
    let path = dir.join("box.usda");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn transformed_body_in_centimetres_keeps_local_points_and_si_mass() {
    let dir = temp_dir();
    let input = transformed_box_stage(dir.path());
    let out = dir.path().join("box_body.usda");
    prepare(&[s(&input), "--prim", "/World/Body", "--volume", "--resolution", "4", "-q", "-o", s(&out)])
        .assert_success();
    let imported = usdsim_usd::import(&out).expect("imports");
    let body = &imported.scene.bodies[0];
    // The box is 20 cm a side in the world: 4 cells of 5 cm each way, 384 tets.
    assert_eq!(body.tets.len(), 4 * 4 * 4 * 6);
    let volume = tet_volume(&body.positions, &body.tets);
    assert!((volume - 8000.0).abs() < 1e-2, "world volume {volume} cm³");
    let world_min = body.positions.iter().fold(Vec3::INFINITY, |a, p| a.min(*p));
    assert!(world_min.distance(Vec3::new(90.0, -10.0, 40.0)) < 1e-3, "{world_min}");
    // Local space: the authored points are the world ones through the inverse transform.
    let layer = LayerFile::open(&out);
    let local = layer.default_points("/World/Body/simulationMesh", "points");
    let local_min = local.iter().fold(Vec3::INFINITY, |a, p| a.min(*p));
    assert!(local_min.distance(Vec3::splat(-5.0)) < 1e-4, "{local_min}");
    // 1000 kg/m³ × 8 litres = 8 kg.
    let json = inspect(&out);
    let kg = json["bodies"][0]["mass"]["si"].as_f64().unwrap();
    assert!((kg - 8.0).abs() < 1e-3, "{kg} kg");
    let validate = usdsim(["validate", s(&out)]);
    assert_eq!(validate.code, Some(0), "{}", validate.stdout);
}

#[test]
fn bad_inputs_fail_with_clear_errors() {
    let dir = temp_dir();
    let write = |name: &str, body: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, format!("#usda 1.0\n(\n    metersPerUnit = 1\n)\n\n{body}")).unwrap();
        p
    };
    let out = dir.path().join("out.usda");
    let fails = |input: &Path, prim: &str, extra: &[&str], code: i32, words: &[&str]| {
        let mut args = vec![s(input), "--prim", prim, "--volume", "-o", s(&out)];
        args.extend_from_slice(extra);
        let run = prepare(&args);
        run.assert_no_panic();
        assert_eq!(run.code, Some(code), "{}", run.stderr);
        for w in words {
            assert!(run.stderr.contains(w), "expected {w:?} in:\n{}", run.stderr);
        }
        assert!(!out.exists(), "a failed prepare writes nothing");
    };
    let no_mesh = write("no_mesh.usda", "def Xform \"A\"\n{\n    def Cube \"C\"\n    {\n    }\n}\n");
    fails(&no_mesh, "/A", &[], 1, &["no_mesh.usda", "/A", "no Mesh"]);
    fails(&no_mesh, "/Nope", &[], 1, &["/Nope", "no such prim"]);
    let empty = write("empty.usda", "def Xform \"A\"\n{\n    def Mesh \"M\"\n    {\n    }\n}\n");
    fails(&empty, "/A", &[], 1, &["/A", "/A/M (no points)"]);
    let flat = write(
        "flat.usda",
        "def Mesh \"M\"\n{\n    int[] faceVertexCounts = [3]\n    int[] faceVertexIndices = [0, 1, 2]\n    \
         point3f[] points = [(0, 0, 0), (1, 0, 0), (2, 0, 0)]\n}\n",
    );
    fails(&flat, "/M", &[], 1, &["/M", "non-zero area"]);
    let bad_index = write(
        "bad_index.usda",
        "def Mesh \"M\"\n{\n    int[] faceVertexCounts = [3]\n    int[] faceVertexIndices = [0, 1, 7]\n    \
         point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]\n}\n",
    );
    fails(&bad_index, "/M", &[], 1, &["/M.faceVertexIndices", "index 7"]);
    let tri = write(
        "tri.usda",
        "def Mesh \"M\"\n{\n    int[] faceVertexCounts = [3]\n    int[] faceVertexIndices = [0, 1, 2]\n    \
         point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]\n}\n",
    );
    fails(&tri, "/M", &["--resolution", "2000", "--max-cells", "1000"], 1, &["4000000 cells", "--resolution 31"]);
    // The body API would land on an untyped prim, which validate rejects (DB001): refused.
    let untyped = write(
        "untyped.usda",
        "def \"A\"\n{\n    def Mesh \"M\"\n    {\n        int[] faceVertexCounts = [3]\n        \
         int[] faceVertexIndices = [0, 1, 2]\n        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]\n    }\n}\n",
    );
    fails(&untyped, "/A", &["--resolution", "2"], 1, &["untyped.usda", "/A", "an untyped prim", "DB001", "def Xform"]);
    // Typed, the same asset prepares, and validate finds no DB001 in what it wrote.
    let typed = dir.path().join("typed.usda");
    std::fs::write(&typed, std::fs::read_to_string(&untyped).unwrap().replace("def \"A\"", "def Xform \"A\"")).unwrap();
    let typed_out = dir.path().join("typed_body.usda");
    prepare(&[s(&typed), "--prim", "/A", "--volume", "--resolution", "2", "-q", "-o", s(&typed_out)]).assert_success();
    let check = usdsim(["validate", s(&typed_out)]);
    assert!(!check.stdout.contains("DB001"), "{}", check.stdout);
    // Usage errors: both kinds, neither, a bad value.
    for extra in [&["--surface"][..], &["--poisson", "0.5"], &["--cell", "-1"]] {
        let mut args = vec![s(&tri), "--prim", "/M", "--volume", "-o", s(&out)];
        args.extend_from_slice(extra);
        let run = prepare(&args);
        assert_eq!(run.code, Some(2), "{extra:?}: {}", run.stderr);
    }
    assert_eq!(prepare(&[s(&tri), "--prim", "/M", "-o", s(&out)]).code, Some(2));
    let grid_for_cloth = prepare(&[s(&tri), "--prim", "/M", "--surface", "--resolution", "4", "-o", s(&out)]);
    assert_eq!(grid_for_cloth.code, Some(2), "a surface body has no grid: {}", grid_for_cloth.stderr);

    // A prim that already is a body: refused, unless --force.
    let body = dir.path().join("body.usda");
    prepare(&[s(&tri), "--prim", "/M", "--volume", "--resolution", "2", "-q", "-o", s(&body)]).assert_success();
    fails(&body, "/M", &[], 1, &["/M", "already applies OmniPhysicsDeformableBodyAPI", "--force"]);
    let forced = prepare(&[s(&body), "--prim", "/M", "--volume", "--force", "-q", "-o", s(&out)]);
    forced.assert_success();
}

#[test]
fn physics_dialect_spells_the_aousd_schema() {
    let dir = temp_dir();
    let input = transformed_box_stage(dir.path());
    let out = dir.path().join("aousd.usda");
    prepare(&[
        s(&input),
        "--prim",
        "/World/Body",
        "--volume",
        "--resolution",
        "2",
        "--dialect",
        "physics",
        "-q",
        "-o",
        s(&out),
    ])
    .assert_success();
    let text = std::fs::read_to_string(&out).unwrap();
    for name in [
        "PhysicsDeformableBodyAPI",
        "PhysicsVolumeDeformableSimAPI",
        "physics:restShapePoints",
        "physics:deformablePose:default:points",
        "PhysicsVolumeDeformableMaterialAPI",
        "physics:youngsModulus",
    ] {
        assert!(text.contains(name), "{name} in\n{text}");
    }
    assert!(!text.contains("omniphysics:"), "{text}");
    let imported = usdsim_usd::import(&out).expect("imports");
    assert_eq!(imported.scene.bodies.len(), 1);
    assert_eq!(imported.binding.bodies[0].dialect, usdsim_usd::Dialect::Aousd);
    let validate = usdsim(["validate", s(&out)]);
    assert_eq!(validate.code, Some(0), "{}", validate.stdout);
}

#[test]
fn flat_quad_mesh_prepared_as_cloth_drapes_over_a_sphere() {
    let dir = temp_dir();
    // A 1.2 m square of 16 x 16 quads at z = 1, over a radius 0.4 ball on the ground.
    let n = 16;
    let mut points = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            points.push(format!("({}, {}, 1)", -0.6 + 1.2 * i as f64 / n as f64, -0.6 + 1.2 * j as f64 / n as f64));
        }
    }
    let mut indices = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let v = |a: usize, b: usize| (a + b * (n + 1)).to_string();
            indices.extend([v(i, j), v(i + 1, j), v(i + 1, j + 1), v(i, j + 1)]);
        }
    }
    let input = dir.path().join("cloth.usda");
    std::fs::write(
        &input,
        format!(
            "#usda 1.0\n(\n    metersPerUnit = 1\n    upAxis = \"Z\"\n    defaultPrim = \"World\"\n)\n\ndef Xform \"World\"\n{{\n    \
             def Mesh \"Cloth\"\n    {{\n        int[] faceVertexCounts = [{}]\n        int[] faceVertexIndices = [{}]\n        \
             point3f[] points = [{}]\n    }}\n\n    def Sphere \"Ball\" (\n        prepend apiSchemas = [\"PhysicsCollisionAPI\"]\n    )\n    {{\n        \
             double radius = 0.4\n        double3 xformOp:translate = (0, 0, 0.4)\n        uniform token[] xformOpOrder = [\"xformOp:translate\"]\n    }}\n\n    \
             def Plane \"Ground\" (\n        prepend apiSchemas = [\"PhysicsCollisionAPI\"]\n    )\n    {{\n        uniform token axis = \"Z\"\n    }}\n}}\n",
            vec!["4"; n * n].join(", "),
            indices.join(", "),
            points.join(", ")
        ),
    )
    .unwrap();
    let out = dir.path().join("cloth_body.usda");
    let run = prepare(&[
        s(&input),
        "--prim",
        "/World/Cloth",
        "--surface",
        "--density",
        "200",
        "--youngs",
        "5e5",
        "-o",
        s(&out),
    ]);
    run.assert_success();
    assert!(run.stderr.contains("512 triangles"), "{}", run.stderr);
    let validate = usdsim(["validate", s(&out)]);
    assert_eq!(validate.code, Some(0), "{}", validate.stdout);
    let bake = dir.path().join("cloth.sim.usda");
    usdsim([s(&out), "-f", "36", "-q", "-o", s(&bake)]).assert_success();
    let stage = open_stage(&bake);
    let last = composed_points(&stage, "/World/Cloth", "points", 36.0);
    let centre = Vec3::new(0.0, 0.0, 0.4);
    let top = last.iter().map(|p| p.z).fold(f32::NEG_INFINITY, f32::max);
    let lowest_corner =
        [0, n, n * (n + 1), (n + 1) * (n + 1) - 1].iter().map(|&k| last[k].z).fold(f32::INFINITY, f32::min);
    let deepest = last.iter().map(|p| p.distance(centre)).fold(f32::INFINITY, f32::min);
    assert!((top - 0.8).abs() < 0.05, "the cloth rests on the ball's top (0.8): highest point {top}");
    assert!(lowest_corner < 0.55, "the corners hang down: lowest corner {lowest_corner}");
    assert!(deepest > 0.4 - 0.01, "a vertex went into the ball: {deepest} from its centre");
}
