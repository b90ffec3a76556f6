//! Schema coverage beyond the basics: hierarchical bodies with embedded collision and
//! graphics meshes, deformable poses, kinematic / asleep / owned bodies, per-element
//! materials, and the AOUSD `physics:` dialect giving the same results as OmniPhysics.

mod common;

use common::write_scene;
use glam::Vec3;
use openusd::{sdf, usd};
use usdsim_core::closest_on_triangle;
use usdsim_core::BodyId;
use usdsim_core::{Embedding, Settings, Solver};
use usdsim_usd::{import, Baker, Imported};

const HEADER: &str = "#usda 1.0\n(\n    metersPerUnit = 1\n    upAxis = \"Z\"\n    startTimeCode = 0\n    timeCodesPerSecond = 24\n)\n\n";

fn load(dir: &std::path::Path, text: &str) -> (std::path::PathBuf, Imported) {
    let path = write_scene(dir, "scene.usda", text);
    let imported = import(&path).unwrap_or_else(|e| panic!("{e}"));
    (path, imported)
}

fn fmt_points(points: &[Vec3]) -> String {
    let items: Vec<String> = points.iter().map(|p| format!("({}, {}, {})", p.x, p.y, p.z)).collect();
    format!("[{}]", items.join(", "))
}

fn fmt_ints(v: &[u32]) -> String {
    v.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
}

/// A tet cube `[min, min + size]³` of `n³` cells as `(points, "int4[] ...")`.
fn tet_cube(min: Vec3, size: f32, n: u32) -> (Vec<Vec3>, String) {
    let (points, tets) = usdsim_core::grid::tet_box(min, min + Vec3::splat(size), glam::UVec3::splat(n));
    let tets: Vec<String> = tets.iter().map(|t| format!("({}, {}, {}, {})", t[0], t[1], t[2], t[3])).collect();
    (points, format!("[{}]", tets.join(", ")))
}

/// A UV sphere (quads, poles as triangles fans) as points, counts and indices.
fn uv_sphere(centre: Vec3, radius: f32, rings: u32, segments: u32) -> (Vec<Vec3>, Vec<u32>, Vec<u32>) {
    let mut points = vec![centre + Vec3::Z * radius];
    for r in 1..rings {
        let th = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..segments {
            let ph = std::f32::consts::TAU * s as f32 / segments as f32;
            points.push(centre + radius * Vec3::new(th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos()));
        }
    }
    points.push(centre - Vec3::Z * radius);
    let ring = |r: u32, s: u32| 1 + (r - 1) * segments + s % segments;
    let (mut counts, mut indices) = (Vec::new(), Vec::new());
    for s in 0..segments {
        counts.push(3);
        indices.extend([0, ring(1, s), ring(1, s + 1)]);
    }
    for r in 1..rings - 1 {
        for s in 0..segments {
            counts.push(4);
            indices.extend([ring(r, s), ring(r + 1, s), ring(r + 1, s + 1), ring(r, s + 1)]);
        }
    }
    let south = points.len() as u32 - 1;
    for s in 0..segments {
        counts.push(3);
        indices.extend([south, ring(rings - 1, s + 1), ring(rings - 1, s)]);
    }
    (points, counts, indices)
}

fn hierarchical_volume_scene() -> String {
    let (sim, tets) = tet_cube(Vec3::new(-0.5, -0.5, 0.5), 1.0, 2);
    let (sphere, counts, indices) = uv_sphere(Vec3::new(0.0, 0.0, 1.0), 0.4, 12, 16);
    let normals: Vec<Vec3> = sphere.iter().map(|p| (*p - Vec3::new(0.0, 0.0, 1.0)).normalize()).collect();
    format!(
        r#"{HEADER}def PhysicsScene "Scene" {{}}
def Plane "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {{ uniform token axis = "Z" }}
def Xform "Jelly" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI"])
{{
    def TetMesh "Sim" (prepend apiSchemas = ["OmniPhysicsVolumeDeformableSimAPI"])
    {{
        point3f[] points = {sim}
        int4[] tetVertexIndices = {tets}
    }}
    def Xform "Looks"
    {{
        def Mesh "Ball"
        {{
            int[] faceVertexCounts = [{counts}]
            int[] faceVertexIndices = [{indices}]
            point3f[] points = {sphere}
            normal3f[] normals = {normals} (interpolation = "vertex")
        }}
    }}
    def Mesh "Hull" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        bool physics:collisionEnabled = 1
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 2]
        point3f[] points = [(-0.4, -0.4, 0.6), (0.4, -0.4, 0.6), (0, 0.4, 0.6)]
    }}
    def Mesh "Off" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        bool physics:collisionEnabled = 0
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 2]
        point3f[] points = [(-0.4, -0.4, 1.4), (0.4, -0.4, 1.4), (0, 0.4, 1.4)]
    }}
    def Xform "Detached"
    {{
        uniform token[] xformOpOrder = ["!resetXformStack!"]
        def Cube "Box" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {{ double size = 0.1 }}
        def Mesh "NotMine"
        {{
            point3f[] points = [(5, 5, 5)]
        }}
    }}
}}
"#,
        sim = fmt_points(&sim),
        sphere = fmt_points(&sphere),
        normals = fmt_points(&normals),
        counts = fmt_ints(&counts),
        indices = fmt_ints(&indices),
    )
}

fn vec3s(value: Option<sdf::Value>) -> Vec<Vec3> {
    match value {
        Some(sdf::Value::Vec3fVec(v)) => v.iter().map(|p| Vec3::new(p.x, p.y, p.z)).collect(),
        other => panic!("expected float3 array, got {other:?}"),
    }
}

/// A coarse tet body with a fine graphics sphere inside: the hierarchy is understood
/// (collision, disabled collision = graphics, detached subtree excluded), every graphics
/// point written is the barycentric image of the simulated tets, the sphere has fallen
/// with the body, and recomputed normals are written because the input authored them.
#[test]
fn hierarchical_body_writes_embedded_meshes_that_follow_the_simulation() {
    let dir = tempfile::tempdir().unwrap();
    let (input, imp) = load(dir.path(), &hierarchical_volume_scene());
    assert_eq!(imp.scene.bodies.len(), 1);
    let paths: Vec<(&str, bool)> = imp.binding.embedded.iter().map(|e| (e.prim_path.as_str(), e.collision)).collect();
    assert_eq!(paths, [("/Jelly/Looks/Ball", false), ("/Jelly/Hull", true), ("/Jelly/Off", false)]);
    assert!(imp.binding.embedded[0].normals.is_some() && imp.binding.embedded[1].normals.is_none());
    // The detached cube is a static collider again; with the ground that makes two.
    assert_eq!(imp.scene.colliders.len(), 2, "{:?}", imp.scene.colliders);

    let frames = 12;
    let solver = Solver::new(imp.scene.clone(), Settings { substeps: 5, ..Settings::default() }).unwrap();
    let output = dir.path().join("out.usda");
    let mut baker = Baker::new(&imp, solver, &output, frames, None).unwrap();
    while baker.frame() < frames {
        assert!(baker.step().unwrap().is_none());
    }
    let solver = baker.finish().unwrap().solver;
    drop(input);

    let stage = usd::Stage::open(output.to_str().unwrap()).unwrap();
    let ball = stage.prim(sdf::Path::new("/Jelly/Looks/Ball").unwrap()).unwrap();
    let at = |k: u32| usd::TimeCode::new(f64::from(k));
    let start = vec3s(ball.attribute("points").get_at::<sdf::Value>(at(0)).unwrap());
    let end = vec3s(ball.attribute("points").get_at::<sdf::Value>(at(frames)).unwrap());
    let bind = &imp.scene.embedded[0].bind_points;
    for (a, b) in start.iter().zip(bind) {
        assert!(a.distance(*b) < 1e-5, "frame 0 reproduces the bind pose: {a} vs {b}");
    }
    // Each written point is the barycentric interpolation of the simulated vertices.
    let embedding = Embedding::new(&imp.scene.bodies[0], bind);
    let Embedding::Volume { vertices, weights, .. } = &embedding else { panic!() };
    let x = solver.positions(BodyId(0));
    for ((p, v), w) in end.iter().zip(vertices).zip(weights) {
        let expected: Vec3 = v.iter().zip(w).map(|(&i, &b)| x[i as usize] * b).sum();
        assert!(p.distance(expected) < 1e-5);
    }
    let drop = |pts: &[Vec3]| pts.iter().sum::<Vec3>() / pts.len() as f32;
    let fell = drop(&start) - drop(&end);
    let body_fell = drop(&imp.scene.bodies[0].positions) - drop(&x);
    assert!(fell.z > 0.3, "the graphics sphere fell with the body: {fell}");
    assert!((fell - body_fell).length() < 0.02, "{fell} vs {body_fell}");
    // Normals recomputed on the deformed sphere still point outwards, unit length.
    let normals = vec3s(ball.attribute("normals").get_at::<sdf::Value>(at(frames)).unwrap());
    let centre = drop(&end);
    assert_eq!(normals.len(), end.len());
    for (n, p) in normals.iter().zip(&end) {
        assert!((n.length() - 1.0).abs() < 1e-4 && n.dot((*p - centre).normalize()) > 0.9);
    }
    // The collision hull is written too; the detached mesh is not.
    let hull = stage.prim(sdf::Path::new("/Jelly/Hull").unwrap()).unwrap();
    assert_eq!(vec3s(hull.attribute("points").get_at::<sdf::Value>(at(frames)).unwrap()).len(), 3);
    let detached = stage.prim(sdf::Path::new("/Jelly/Detached/NotMine").unwrap()).unwrap();
    assert_eq!(detached.attribute("points").time_sample_times().unwrap(), Vec::<f64>::new());
}

/// A cloth with a detailed graphics mesh floating 1 cm above it, dropped onto a big
/// sphere (a gently curved cap, so no folds bring other parts of the cloth closer):
/// the graphics mesh stays 1 cm off the deformed cloth.
#[test]
fn graphics_mesh_floating_above_cloth_keeps_its_offset() {
    let n = 9u32;
    let (cloth, tris) = usdsim_core::grid::cloth(Vec3::new(-0.5, -0.5, 1.0), Vec3::X, Vec3::Y, (1.0, 1.0), (n, n));
    let (fine, fine_tris) =
        usdsim_core::grid::cloth(Vec3::new(-0.45, -0.45, 1.01), Vec3::X, Vec3::Y, (0.9, 0.9), (25, 25));
    let flat = |t: &[[u32; 3]]| t.iter().flat_map(|t| t.iter().copied()).collect::<Vec<u32>>();
    let text = format!(
        r#"{HEADER}def Sphere "Ball" (prepend apiSchemas = ["PhysicsCollisionAPI"])
{{
    double radius = 2
    double3 xformOp:translate = (0, 0, -1.2)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}
def Material "Cloth" (prepend apiSchemas = ["OmniPhysicsSurfaceDeformableMaterialAPI"])
{{
    float omniphysics:youngsModulus = 1e6
    float omniphysics:surfaceThickness = 0.001
    float omniphysics:density = 300
}}
def Xform "Cape" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI"])
{{
    rel material:binding:physics = </Cloth>
    def Mesh "Sim" (prepend apiSchemas = ["OmniPhysicsSurfaceDeformableSimAPI"])
    {{
        int[] faceVertexCounts = [{c1}]
        int[] faceVertexIndices = [{i1}]
        point3f[] points = {p1}
    }}
    def Mesh "Detail"
    {{
        int[] faceVertexCounts = [{c2}]
        int[] faceVertexIndices = [{i2}]
        point3f[] points = {p2}
    }}
}}
"#,
        c1 = fmt_ints(&vec![3; tris.len()]),
        i1 = fmt_ints(&flat(&tris)),
        p1 = fmt_points(&cloth),
        c2 = fmt_ints(&vec![3; fine_tris.len()]),
        i2 = fmt_ints(&flat(&fine_tris)),
        p2 = fmt_points(&fine),
    );
    let dir = tempfile::tempdir().unwrap();
    let (_, imp) = load(dir.path(), &text);
    assert_eq!(imp.binding.embedded.len(), 1);
    let embedding = Embedding::new(&imp.scene.bodies[0], &imp.scene.embedded[0].bind_points);
    let mut solver = Solver::new(imp.scene.clone(), Settings { substeps: 10, ..Settings::default() }).unwrap();
    for _ in 0..24 {
        solver.step_frame();
    }
    let x = solver.positions(BodyId(0));
    assert!(x.iter().map(|p| p.z).fold(f32::INFINITY, f32::min) < 0.75, "the cloth draped over the ball");
    assert!(x.iter().map(|p| p.z).fold(0.0, f32::max) < 0.85, "the cloth fell");
    let mut out = Vec::new();
    embedding.apply(&x, &mut out);
    let tris = &imp.scene.bodies[0].triangles;
    let mut distances = Vec::new();
    for p in &out {
        let d = tris
            .iter()
            .map(|t| {
                let c = t.map(|i| x[i as usize]);
                let b = closest_on_triangle(c, *p);
                (c[0] * b[0] + c[1] * b[1] + c[2] * b[2]).distance(*p)
            })
            .fold(f32::INFINITY, f32::min);
        distances.push(d);
    }
    distances.sort_by(f32::total_cmp);
    let median = distances[distances.len() / 2];
    let (lo, hi) = (distances[0], distances[distances.len() - 1]);
    assert!(lo > 0.0085 && hi < 0.0105, "offsets from the deformed cloth range over [{lo}, {hi}]");
    assert!((median - 0.01).abs() < 5e-4, "median offset {median}");
    let Embedding::Surface { offsets, .. } = &embedding else { panic!() };
    assert!(offsets.iter().all(|d| (d - 0.01).abs() < 1e-5), "bound 1 cm above along the normal");
}

fn tet_body(dialect_omni: bool, extra_sim: &str, extra_body: &str) -> String {
    let (points, tets) = tet_cube(Vec3::new(0.0, 0.0, 1.0), 0.2, 2);
    let (body_api, sim_api) = if dialect_omni {
        ("OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI")
    } else {
        ("PhysicsDeformableBodyAPI", "PhysicsVolumeDeformableSimAPI")
    };
    format!(
        r#"def Xform "Body" (prepend apiSchemas = ["{body_api}"])
{{
{extra_body}
    def TetMesh "Sim" (prepend apiSchemas = ["{sim_api}"{pose}])
    {{
        point3f[] points = {points}
        int4[] tetVertexIndices = {tets}
{extra_sim}
    }}
}}
"#,
        points = fmt_points(&points),
        pose = if extra_sim.contains("deformablePose:") {
            if dialect_omni {
                r#", "OmniPhysicsDeformablePoseAPI:rest", "OmniPhysicsDeformablePoseAPI:other""#
            } else {
                r#", "PhysicsDeformablePoseAPI:rest""#
            }
        } else {
            ""
        },
    )
}

#[test]
fn bind_pose_is_found_by_purpose_in_both_dialects() {
    let (points, _) = tet_cube(Vec3::new(0.0, 0.0, 1.0), 0.2, 2);
    let shifted: Vec<Vec3> = points.iter().map(|p| *p + Vec3::X).collect();
    let omni = format!(
        "        point3f[] deformablePose:rest:omniphysics:points = {}\n        uniform token[] deformablePose:rest:omniphysics:purposes = [\"selfCollisionFilterPose\", \"bindPose\"]\n        point3f[] deformablePose:other:omniphysics:points = {}\n        uniform token[] deformablePose:other:omniphysics:purposes = [\"bindPose\"]",
        fmt_points(&shifted),
        fmt_points(&points)
    );
    let dir = tempfile::tempdir().unwrap();
    let (_, imp) = load(dir.path(), &format!("{HEADER}{}", tet_body(true, &omni, "")));
    let body = &imp.scene.bodies[0];
    assert_eq!(body.bind_pose, shifted, "the first instance with bindPose wins");
    assert_eq!(body.self_collision_filter_pose, shifted);
    assert_eq!(body.positions, points);
    assert!(imp.warnings.iter().any(|w| w.text().contains("2 deformable pose instances")), "{:?}", imp.warnings);

    let aousd = format!(
        "        point3f[] physics:deformablePose:rest:points = {}\n        uniform token[] physics:deformablePose:rest:purposes = [\"bindPose\"]",
        fmt_points(&shifted)
    );
    let (_, imp) = load(dir.path(), &format!("{HEADER}{}", tet_body(false, &aousd, "")));
    assert_eq!(imp.scene.bodies[0].bind_pose, shifted);
    assert!(imp.warnings.is_empty() || !imp.warnings.iter().any(|w| w.text().contains("pose")), "{:?}", imp.warnings);
}

/// The same scene in the OmniPhysics and the AOUSD spelling imports to the same model
/// and simulates to bit-identical results.
#[test]
fn both_dialects_give_identical_results() {
    let omni = format!(
        r#"{HEADER}def PhysicsScene "Scene" {{}}
def Material "Mat" (prepend apiSchemas = ["OmniPhysicsDeformableMaterialAPI", "PhysxDeformableMaterialAPI"])
{{
    float omniphysics:youngsModulus = 2e5
    float omniphysics:poissonsRatio = 0.3
    float omniphysics:density = 800
    float omniphysics:dynamicFriction = 0.4
    float omniphysics:staticFriction = 0.6
    float physxDeformableMaterial:elasticityDamping = 0.002
}}
{}"#,
        tet_body(true, "", "    rel material:binding:physics = </Mat>\n    float omniphysics:mass = 3")
    );
    let aousd = format!(
        r#"{HEADER}def PhysicsScene "Scene" {{}}
def Material "Mat" (prepend apiSchemas = ["PhysicsVolumeDeformableMaterialAPI", "PhysxDeformableMaterialAPI"])
{{
    float physics:youngsModulus = 2e5
    float physics:poissonsRatio = 0.3
    float physics:density = 800
    float physics:dynamicFriction = 0.4
    float physics:staticFriction = 0.6
    float physics:thickness = -inf
    float physxDeformableMaterial:elasticityDamping = 0.002
}}
{}"#,
        tet_body(false, "", "    rel material:binding:physics = </Mat>\n    float physics:mass = 3")
    );
    let dir = tempfile::tempdir().unwrap();
    let run = |text: &str| {
        let (_, imp) = load(dir.path(), text);
        let mut solver = Solver::new(imp.scene.clone(), Settings { substeps: 4, ..Settings::default() }).unwrap();
        for _ in 0..6 {
            solver.step_frame();
        }
        (imp, solver.positions(BodyId(0)).to_vec(), solver.body_mass(BodyId(0)))
    };
    let (a, pa, ma) = run(&omni);
    let (b, pb, mb) = run(&aousd);
    let (ba, bb) = (&a.scene.bodies[0], &b.scene.bodies[0]);
    // Only the schema fallback of thickness differs, and a volume body ignores it.
    assert_eq!(ba.material.youngs_modulus, bb.material.youngs_modulus);
    assert_eq!(ba.material.damping, 0.002);
    assert_eq!(ba.material, bb.material);
    assert_eq!(ba.mass_override, Some(3.0));
    assert_eq!(ba.mass_override, bb.mass_override);
    assert_eq!((ma, pa), (mb, pb));
}

#[test]
fn aousd_point_masses_and_bend_default_are_read() {
    let n = 27; // 2x2x2 cells
    let masses = vec!["0.25"; n].join(", ");
    let sim = format!("        float[] physics:masses = [{masses}]");
    let dir = tempfile::tempdir().unwrap();
    let (_, imp) = load(dir.path(), &format!("{HEADER}{}", tet_body(false, &sim, "")));
    let solver = Solver::new(imp.scene.clone(), Settings::default()).unwrap();
    assert!((solver.body_mass(BodyId(0)) - 0.25 * n as f32).abs() < 1e-5);
    let bad = "        float[] physics:masses = [1, 2]";
    let path = write_scene(dir.path(), "bad.usda", &format!("{HEADER}{}", tet_body(false, bad, "")));
    let err = import(&path).unwrap_err().to_string();
    assert!(err.contains("physics:masses") && err.contains("one mass per point"), "{err}");
}

/// Newton's convention for per-point masses: a 0 marks a kinematic vertex. The cube
/// hangs from its top corner with mass 0: that vertex stays within 1e-4 of where it
/// started over a second, while the rest sags far less than a free fall; an all-zero
/// array still means "not set".
#[test]
fn a_zero_in_aousd_point_masses_holds_that_vertex() {
    let n = 27;
    let dir = tempfile::tempdir().unwrap();
    let ones = vec!["1"; n].join(", ");
    let (_, plain) = load(
        dir.path(),
        &format!("{HEADER}{}", tet_body(false, &format!("        float[] physics:masses = [{ones}]"), "")),
    );
    let positions = plain.scene.bodies[0].positions.clone();
    let top = (0..n)
        .max_by(|&a, &b| positions[a].z.total_cmp(&positions[b].z).then(positions[a].x.total_cmp(&positions[b].x)))
        .unwrap();
    let masses: Vec<&str> = (0..n).map(|i| if i == top { "0" } else { "1" }).collect();
    let sim = format!("        float[] physics:masses = [{}]", masses.join(", "));
    let (_, imp) = load(dir.path(), &format!("{HEADER}{}", tet_body(false, &sim, "")));
    assert_eq!(imp.scene.pins.len(), 1, "one kinematic vertex");
    assert_eq!(imp.scene.pins[0].vertex as usize, top);
    let mut solver = Solver::new(imp.scene.clone(), Settings::default()).unwrap();
    let centroid = |p: &[Vec3]| p.iter().copied().sum::<Vec3>() / p.len() as f32;
    let start = centroid(&solver.positions(BodyId(0)));
    for _ in 0..24 {
        solver.step_frame();
    }
    let now = solver.positions(BodyId(0));
    let held = now[top].distance(positions[top]);
    assert!(held < 1e-4, "the kinematic vertex moved {held}");
    let drop = start.z - centroid(&now).z;
    assert!(drop > 0.0 && drop < 0.5 * 9.81 * 0.25, "the cube hangs: its centroid fell {drop}, free fall is 4.9");

    let zeros = vec!["0"; n].join(", ");
    let (_, unset) = load(
        dir.path(),
        &format!("{HEADER}{}", tet_body(false, &format!("        float[] physics:masses = [{zeros}]"), "")),
    );
    assert!(unset.scene.pins.is_empty() && unset.scene.bodies[0].point_masses.is_empty());
    assert!(unset.warnings.iter().any(|w| w.code == "DB304"), "{:?}", unset.warnings);
}

/// Per-element materials through `GeomSubset`s: mass is Σ ρᵢVᵢ, stiffness per element,
/// and an ancestor's `strongerThanDescendants` binding overrides the subset's.
#[test]
fn geom_subsets_assign_per_element_materials() {
    let (points, tets) = tet_cube(Vec3::ZERO, 1.0, 2);
    let all = usdsim_core::grid::tet_box(Vec3::ZERO, Vec3::ONE, glam::UVec3::splat(2)).1;
    let top: Vec<u32> = (0..all.len() as u32)
        .filter(|&t| all[t as usize].iter().map(|&i| points[i as usize].z).sum::<f32>() / 4.0 > 0.5)
        .collect();
    let scene = |strength: &str| {
        format!(
            r#"{HEADER}def Material "Soft" (prepend apiSchemas = ["OmniPhysicsDeformableMaterialAPI"])
{{
    float omniphysics:youngsModulus = 1e5
    float omniphysics:density = 1000
}}
def Material "Hard" (prepend apiSchemas = ["OmniPhysicsDeformableMaterialAPI"])
{{
    float omniphysics:youngsModulus = 1e6
    float omniphysics:density = 3000
}}
def Xform "Body" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI"])
{{
    rel material:binding:physics = </Soft> (bindMaterialAs = "{strength}")
    def TetMesh "Sim" (prepend apiSchemas = ["OmniPhysicsVolumeDeformableSimAPI"])
    {{
        point3f[] points = {points}
        int4[] tetVertexIndices = {tets}
        def GeomSubset "HardTop" (prepend apiSchemas = ["MaterialBindingAPI"])
        {{
            uniform token elementType = "tetrahedron"
            uniform token familyName = "materialBind"
            int[] indices = [{top}]
            rel material:binding:physics = </Hard>
        }}
        def GeomSubset "Ignored"
        {{
            uniform token elementType = "face"
            uniform token familyName = "materialBind"
            int[] indices = [0]
            rel material:binding:physics = </Hard>
        }}
    }}
}}
"#,
            points = fmt_points(&points),
            top = fmt_ints(&top),
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let (_, imp) = load(dir.path(), &scene("weakerThanDescendants"));
    let body = &imp.scene.bodies[0];
    assert_eq!(body.material.youngs_modulus, 1e5);
    assert_eq!(body.materials.len(), 1);
    assert_eq!(body.materials[0].material.youngs_modulus, 1e6);
    for t in 0..body.tets.len() {
        let expected = if top.contains(&(t as u32)) { 1e6 } else { 1e5 };
        assert_eq!(body.element_material(t).youngs_modulus, expected, "tet {t}");
    }
    assert!(
        imp.warnings.iter().any(|w| w.text().contains("Ignored") && w.text().contains("elementType")),
        "{:?}",
        imp.warnings
    );
    let solver = Solver::new(imp.scene.clone(), Settings::default()).unwrap();
    let expected = 0.5 * 1000.0 + 0.5 * 3000.0;
    assert!((solver.body_mass(BodyId(0)) - expected).abs() < 1e-3 * expected, "{}", solver.body_mass(BodyId(0)));

    // A stronger ancestor binding wins over the subsets' own.
    let (_, imp) = load(dir.path(), &scene("strongerThanDescendants"));
    let body = &imp.scene.bodies[0];
    assert!((0..body.tets.len()).all(|t| body.element_material(t).youngs_modulus == 1e5));
}

/// A kinematic body follows its time-sampled points exactly; `startsAsleep` and
/// `simulationOwner` are read.
#[test]
fn kinematic_asleep_and_owned_bodies() {
    let (points, tets) = tet_cube(Vec3::new(0.0, 0.0, 1.0), 0.2, 1);
    let moved: Vec<Vec3> = points.iter().map(|p| *p + Vec3::new(0.24, 0.0, 0.0)).collect();
    // The other two bodies sit apart: a kinematic body moving through a sleeping one
    // would wake it.
    let sleepy_points: Vec<Vec3> = points.iter().map(|p| *p + Vec3::new(0.0, 1.0, 0.0)).collect();
    let lunar_points: Vec<Vec3> = points.iter().map(|p| *p + Vec3::new(0.0, 2.0, 0.0)).collect();
    let text = format!(
        r#"{HEADER}def PhysicsScene "Earth" {{}}
def PhysicsScene "Moon"
{{
    vector3f physics:gravityDirection = (0, 0, -1)
    float physics:gravityMagnitude = 1.62
}}
def TetMesh "Kin" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"])
{{
    bool omniphysics:kinematicEnabled = 1
    point3f[] points.timeSamples = {{ 0: {points}, 24: {moved} }}
    int4[] tetVertexIndices = {tets}
}}
def TetMesh "Sleepy" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"])
{{
    uniform bool omniphysics:startsAsleep = 1
    point3f[] points = {sleepy}
    int4[] tetVertexIndices = {tets}
}}
def TetMesh "Lunar" (prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsVolumeDeformableSimAPI"])
{{
    rel omniphysics:simulationOwner = </Moon>
    point3f[] points = {lunar}
    int4[] tetVertexIndices = {tets}
}}
"#,
        points = fmt_points(&points),
        moved = fmt_points(&moved),
        sleepy = fmt_points(&sleepy_points),
        lunar = fmt_points(&lunar_points),
    );
    let dir = tempfile::tempdir().unwrap();
    let (_, imp) = load(dir.path(), &text);
    let [kin, sleepy, lunar] = [0, 1, 2].map(|i| &imp.scene.bodies[i]);
    assert!(kin.kinematic && !sleepy.kinematic);
    assert!(sleepy.starts_asleep);
    assert_eq!(lunar.gravity, Some(Vec3::new(0.0, 0.0, -1.62)));
    assert_eq!(sleepy.gravity, None);
    assert_eq!(imp.binding.kinematic.len(), 1);
    assert_eq!(imp.binding.kinematic[0].samples.len(), 25);
    let mut solver = Solver::new(imp.scene.clone(), Settings::default()).unwrap();
    for frame in 1..=12u32 {
        let target = imp.binding.kinematic_targets(BodyId(0), f64::from(frame)).unwrap();
        solver.set_kinematic_targets(BodyId(0), &target).unwrap();
        solver.step_frame();
    }
    for (p, q) in solver.positions(BodyId(0)).iter().zip(&points) {
        assert!(p.distance(*q + Vec3::new(0.12, 0.0, 0.0)) < 1e-5, "{p}");
    }
    let v = Vec3::new(0.24, 0.0, 0.0); // 0.24 units per second
    assert!(solver.velocities(BodyId(0)).iter().all(|u| u.distance(v) < 1e-3), "{:?}", solver.velocities(BodyId(0)));
    assert_eq!(solver.positions(BodyId(1)), &sleepy_points[..], "asleep body stays put");
    // Lunar gravity: 1.62/9.81 of an earth body's fall (compare with a free body).
    assert!(solver.positions(BodyId(2))[0].z < lunar_points[0].z);
}

/// PhysX's per-body `physxDeformableBody:selfCollision` is read in both dialects; a body
/// that does not author it, or authors it off, does not ask. Its filter distance is read
/// beside it, `-inf` (its fallback) meaning the simulation's choice.
#[test]
fn the_physx_self_collision_switch_is_read_per_body() {
    let cloth = |name: &str, apis: &str, y: f32, switch: &str| {
        let points = [
            Vec3::new(0.0, y, 1.0),
            Vec3::new(1.0, y, 1.0),
            Vec3::new(1.0, y + 1.0, 1.0),
            Vec3::new(0.0, y + 1.0, 1.0),
        ];
        format!(
            "def Mesh \"{name}\" (prepend apiSchemas = [{apis}])\n{{\n{switch}    point3f[] points = {}\n    int[] faceVertexCounts = [3, 3]\n    int[] faceVertexIndices = [0, 1, 2, 0, 2, 3]\n}}\n",
            fmt_points(&points)
        )
    };
    const OMNI: &str = r#""OmniPhysicsDeformableBodyAPI", "OmniPhysicsSurfaceDeformableSimAPI""#;
    const AOUSD: &str = r#""PhysicsDeformableBodyAPI", "PhysicsSurfaceDeformableSimAPI""#;
    const ON: &str = "    bool physxDeformableBody:selfCollision = 1\n    float physxDeformableBody:selfCollisionFilterDistance = 0.004\n";
    const OFF: &str = "    bool physxDeformableBody:selfCollision = 0\n    float physxDeformableBody:selfCollisionFilterDistance = -inf\n";
    let text = format!(
        "{HEADER}{}{}{}{}",
        cloth("Asks", OMNI, 0.0, ON),
        cloth("Silent", OMNI, 2.0, ""),
        cloth("Declines", OMNI, 4.0, OFF),
        cloth("AsksAousd", AOUSD, 6.0, ON),
    );
    let dir = tempfile::tempdir().unwrap();
    let (_, imp) = load(dir.path(), &text);
    let asks: Vec<(String, bool)> = imp.scene.bodies.iter().map(|b| (b.name.clone(), b.self_collision)).collect();
    let expected = [("/Asks", true), ("/Silent", false), ("/Declines", false), ("/AsksAousd", true)];
    assert_eq!(asks, expected.map(|(n, s)| (n.to_string(), s)).to_vec());
    let distances: Vec<Option<f32>> = imp.scene.bodies.iter().map(|b| b.self_collision_filter_distance).collect();
    assert_eq!(distances, [Some(0.004), None, None, Some(0.004)]);
}
