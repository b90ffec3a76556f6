//! Assets of the legacy PhysX deformable schema (`testdata/legacy/`, made by
//! `testdata/generate.py` as Isaac Sim 2022–4.5 saves them): they import with what
//! they author mapped, simulate as physics says they must, bake their state back under
//! their own attribute names, and a bad one is named, not dropped.

mod common;

use std::path::{Path, PathBuf};

use common::{bake, centroid, composed_points, open_stage, temp_dir, testdata, usdsim};
use glam::Vec3;
use usdsim_core::BodyKind;

const G: f64 = 9.81;
const FPS: f64 = 24.0;

/// The legacy volume: a 1 m cube, bottom 0.5 m above the ground, prim translated +1 in Z.
fn volume() -> PathBuf {
    testdata("legacy/volume_on_ground.usda")
}

/// The legacy cloth: a 1 m square at z = 0.5 (prim translated +0.5 in Z).
fn cloth() -> PathBuf {
    testdata("legacy/cloth_on_ground.usda")
}

/// `points` shifted by the prim's translate, into world space.
fn world(points: Vec<Vec3>, lift: f32) -> Vec<Vec3> {
    points.into_iter().map(|p| p + Vec3::Z * lift).collect()
}

/// A copy of `scene` in `dir` with `edit` applied to its text.
fn edited(scene: &Path, dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let out = dir.join(scene.file_name().unwrap());
    std::fs::write(&out, edit(std::fs::read_to_string(scene).unwrap())).unwrap();
    out
}

/// Deletes every line of `text` that authors `name`.
fn without(text: String, name: &str) -> String {
    text.lines().filter(|l| !l.contains(&format!(" {name} "))).map(|l| format!("{l}\n")).collect()
}

#[test]
fn a_legacy_volume_imports_its_cooked_tet_mesh_material_and_damping() {
    let imported = usdsim_usd::import(&volume()).unwrap();
    assert_eq!(imported.scene.bodies.len(), 1);
    let body = &imported.scene.bodies[0];
    assert_eq!(body.kind, BodyKind::Volume);
    // 3^3 cells, 6 tets each, on 4^3 grid points: the simulation mesh, not the render mesh.
    assert_eq!((body.positions.len(), body.tets.len()), (64, 162));
    let m = body.material;
    assert_eq!((m.youngs_modulus, m.poissons_ratio, m.density), (1e5, 0.3, 1000.0));
    assert_eq!((m.dynamic_friction, m.damping), (0.5, 0.005));
    assert_eq!(body.velocity_damping, 0.005);
    assert!(!body.self_collision && body.gravity.is_none());
    // World space: the prim's translate (0, 0, 1) applied.
    let lowest = body.positions.iter().map(|p| p.z).fold(f32::INFINITY, f32::min);
    assert_eq!(lowest, 0.5);
    // The render mesh (the prim's own points, 6 faces of 5 x 5 vertices) follows it.
    assert_eq!(imported.scene.embedded.len(), 1);
    assert_eq!(imported.scene.embedded[0].bind_points.len(), 150);
    assert_eq!(imported.binding.bodies[0].legacy, Some(usdsim_usd::LegacyKind::Volume));
    let codes: Vec<&str> = imported.warnings.iter().map(|w| w.code).collect();
    assert_eq!(codes, ["IM080"], "the collision tet mesh is approximated, and said so");
}

#[test]
fn unauthored_vertex_velocity_damping_is_physx_fallback_and_authored_values_are_used() {
    let dir = temp_dir();
    let bare = edited(&volume(), dir.path(), |t| without(t, "physxDeformable:vertexVelocityDamping"));
    assert_eq!(usdsim_usd::import(&bare).unwrap().scene.bodies[0].velocity_damping, 0.005);
    let d = dir.path().join("damped");
    std::fs::create_dir_all(&d).unwrap();
    let damped = edited(&volume(), &d, |t| {
        t.replace("vertexVelocityDamping = 0.005", "vertexVelocityDamping = 2")
            .replace("physxDeformable:selfCollision = 0", "physxDeformable:selfCollision = 1")
            .replace("physxDeformable:disableGravity = 0", "physxDeformable:disableGravity = 1")
    });
    let body = &usdsim_usd::import(&damped).unwrap().scene.bodies[0];
    assert_eq!(body.velocity_damping, 2.0);
    assert!(body.self_collision);
    assert_eq!(body.gravity, Some(Vec3::ZERO));
}

#[test]
fn a_disabled_legacy_body_is_not_simulated() {
    let dir = temp_dir();
    let off = edited(&volume(), dir.path(), |t| t.replace("deformableEnabled = 1", "deformableEnabled = 0"));
    assert!(usdsim_usd::import(&off).unwrap().scene.bodies.is_empty());
}

/// Free fall until contact (the bottom falls 0.5 m in 0.32 s, frame 7.7), then the cube
/// lands without sinking into the ground, squashes and springs back; the render mesh
/// follows inside the simulation mesh.
#[test]
fn a_legacy_volume_falls_lands_and_deforms_with_its_render_mesh() {
    let dir = temp_dir();
    let out = dir.path().join("bake.usda");
    bake(&volume(), &out, &["--frames", "36"]);
    let stage = open_stage(&out);
    let sim = |t: f64| world(composed_points(&stage, "/World/Cube", "physxDeformable:simulationPoints", t), 1.0);
    let render = |t: f64| world(composed_points(&stage, "/World/Cube", "points", t), 1.0);
    let input = open_stage(&volume());
    assert_eq!(sim(0.0), world(composed_points(&input, "/World/Cube", "physxDeformable:simulationPoints", 0.0), 1.0));
    // The render mesh is placed through its embedding from frame 0 on: as authored, to rounding.
    let authored = world(composed_points(&input, "/World/Cube", "points", 0.0), 1.0);
    let off = render(0.0).iter().zip(&authored).map(|(a, b)| a.distance(*b)).fold(0.0f32, f32::max);
    assert!(off < 1e-6, "the render mesh starts {off} from where it was authored");

    // Free fall: ½ g t², less the drag of vertexVelocityDamping (0.005/s, 0.04 % here).
    let t = 6.0 / FPS;
    let drop = centroid(&sim(0.0)).z - centroid(&sim(6.0)).z;
    assert!((drop - 0.5 * G * t * t).abs() < 0.01 * 0.5 * G * t * t, "fell {drop} m in {t} s");

    let mut widest = 0.0f32;
    for frame in 0..=36 {
        let (s, r) = (sim(frame as f64), render(frame as f64));
        let low = s.iter().map(|p| p.z).fold(f32::INFINITY, f32::min);
        assert!(low > -2e-3, "frame {frame}: the cube sank to z = {low}");
        let (min, max) = s.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(a, b), p| (a.min(*p), b.max(*p)));
        widest = widest.max(max.x - min.x);
        for p in &r {
            assert!(p.cmpge(min - 1e-3).all() && p.cmple(max + 1e-3).all(), "frame {frame}: render point {p} outside");
        }
    }
    assert!(widest > 1.02, "the landing never squashed the cube (widest {widest} m): it moved rigidly");
    let rest_top = sim(36.0).iter().map(|p| p.z).fold(f32::NEG_INFINITY, f32::max);
    assert!(rest_top > 0.85 && rest_top < 1.05, "the cube did not come to rest on the ground: top at {rest_top}");
}

/// The cloth falls freely, then lies flat on the ground, never below it.
#[test]
fn a_legacy_cloth_falls_and_lies_on_the_ground() {
    let dir = temp_dir();
    let out = dir.path().join("bake.usdc");
    bake(&cloth(), &out, &["--frames", "16"]);
    let stage = open_stage(&out);
    let at = |t: f64| world(composed_points(&stage, "/World/Cloth", "points", t), 0.5);
    let t = 6.0 / FPS;
    let drop = centroid(&at(0.0)).z - centroid(&at(6.0)).z;
    assert!((drop - 0.5 * G * t * t).abs() < 0.01 * 0.5 * G * t * t, "fell {drop} m in {t} s");
    for frame in 0..=16 {
        let low = at(frame as f64).iter().map(|p| p.z).fold(f32::INFINITY, f32::min);
        assert!(low > -1e-3, "frame {frame}: the cloth went through the ground to z = {low}");
    }
    let high = at(16.0).iter().map(|p| p.z).fold(f32::NEG_INFINITY, f32::max);
    assert!(high < 0.02, "the cloth is not lying on the ground: highest point at {high}");
}

#[test]
fn an_uncooked_legacy_volume_is_refused_naming_what_it_lacks() {
    let dir = temp_dir();
    let uncooked = edited(&volume(), dir.path(), |t| {
        let t = without(t, "physxDeformable:simulationPoints");
        without(t, "physxDeformable:simulationRestPoints")
    });
    let out = dir.path().join("out.usda");
    let run = usdsim([uncooked.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    run.assert_no_panic();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    for says in ["DB802", "/World/Cube.physxDeformable:simulationPoints", "never cooked", "usdsim prepare"] {
        assert!(run.stderr.contains(says), "{says}: {}", run.stderr);
    }
    assert!(!out.exists(), "an output was written");
    // The command it gives works: the prepared layer validates and simulates.
    let start = run.stderr.find("`usdsim prepare ").unwrap() + "`usdsim ".len();
    let command = &run.stderr[start..start + run.stderr[start..].find('`').unwrap()];
    let prepared = dir.path().join("prepared.usda");
    let args: Vec<String> = command
        .split(' ')
        .map(|a| if a == "OUT.usda" { prepared.display().to_string() } else { a.to_string() })
        .collect();
    usdsim(&args).assert_success();
    let check = usdsim(["validate".as_ref(), prepared.as_os_str()]);
    assert_eq!(check.code, Some(0), "{}{}", check.stdout, check.stderr);
    bake(&prepared, &dir.path().join("bake.usda"), &["--frames", "2"]);
}

/// A change to a scene's text.
type Edit = fn(String) -> String;

#[test]
fn broken_legacy_arrays_are_named() {
    let dir = temp_dir();
    let cases: [(&str, Edit, &str); 3] = [
        ("indices", |t| t.replacen("simulationIndices = [", "simulationIndices = [0, ", 1), "simulationIndices"),
        (
            "rest",
            |t| {
                t.replacen(
                    "physxDeformable:simulationRestPoints = [",
                    "physxDeformable:simulationRestPoints = [(0, 0, 0), ",
                    1,
                )
            },
            "simulationRestPoints",
        ),
        ("modulus", |t| t.replace("youngsModulus = 100000", "youngsModulus = -5"), "youngsModulus"),
    ];
    for (case, edit, attribute) in cases {
        let d = dir.path().join(case);
        std::fs::create_dir_all(&d).unwrap();
        let file = edited(&volume(), &d, edit);
        let check = usdsim(["validate".as_ref(), file.as_os_str()]);
        check.assert_no_panic();
        assert_eq!(check.code, Some(1), "{case}: {}", check.stdout);
        let text = format!("{}{}", check.stdout, check.stderr);
        assert!(text.contains("DB802") && text.contains(attribute), "{case}: {text}");
    }
}

#[test]
fn physx_attributes_usdsim_does_not_simulate_are_named_in_the_run_and_validate() {
    let dir = temp_dir();
    let file = edited(&volume(), dir.path(), |t| {
        t.replace("solverPositionIterationCount = 16", "solverPositionIterationCount = 40").replace(
            "float physxDeformableBodyMaterial:youngsModulus",
            "float physxDeformableBodyMaterial:dampingScale = 0.5\n            float physxDeformableBodyMaterial:youngsModulus",
        )
    });
    let check = usdsim(["validate".as_ref(), file.as_os_str()]);
    assert_eq!(check.code, Some(0), "{}{}", check.stdout, check.stderr);
    let run = usdsim([file.as_os_str(), "--frames=1".as_ref(), "-o".as_ref(), dir.path().join("o.usda").as_os_str()]);
    run.assert_success();
    for text in [format!("{}{}", check.stdout, check.stderr), run.stderr] {
        for says in ["IM081", "solverPositionIterationCount", "dampingScale"] {
            assert!(text.contains(says), "{says}: {text}");
        }
    }
}

/// The hung cube's attachment points: midpoints of the top face's front and back cell
/// edges, as `(vertex, vertex)` pairs of the 4 x 4 x 4 simulation grid.
fn hook_edges() -> Vec<(usize, usize)> {
    let vid = |i: usize, j: usize, k: usize| (k * 4 + j) * 4 + i;
    [0, 3].iter().flat_map(|&j| (0..3).map(move |i| (vid(i, j, 3), vid(i + 1, j, 3)))).collect()
}

/// A legacy volume held to the world (no actor1) at points inside its tets, not at its
/// vertices: each point stays where it was attached while the cube sags under it.
#[test]
fn a_legacy_volume_hangs_from_the_world_at_points_inside_its_tets() {
    let scene = testdata("legacy/volume_hung.usda");
    let imported = usdsim_usd::import(&scene).unwrap();
    assert_eq!(imported.scene.attachments.len(), 6);
    for a in &imported.scene.attachments {
        let usdsim_core::Site::Tet { coords, .. } = a.a else { panic!("not a tet site: {a:?}") };
        let w = [coords[0], coords[1], coords[2], 1.0 - coords[0] - coords[1] - coords[2]];
        let halves = w.iter().filter(|x| (**x - 0.5).abs() < 1e-5).count();
        assert_eq!(halves, 2, "an edge midpoint is half of each end: {w:?}");
        assert!(matches!(a.b, usdsim_core::Site::Frame { .. }), "the world side is a frame: {a:?}");
    }
    let dir = temp_dir();
    let out = dir.path().join("bake.usdc");
    bake(&scene, &out, &["--frames", "24"]);
    let stage = open_stage(&out);
    let start = composed_points(&stage, "/World/Cube", "physxDeformable:simulationPoints", 0.0);
    let mut sagged = 0.0f32;
    for frame in 1..=24 {
        let p = composed_points(&stage, "/World/Cube", "physxDeformable:simulationPoints", frame as f64);
        for &(u, v) in &hook_edges() {
            let (now, then) = ((p[u] + p[v]) * 0.5, (start[u] + start[v]) * 0.5);
            assert!(now.distance(then) < 2e-3, "frame {frame}: the hook moved {} m", now.distance(then));
        }
        let bottom = p.iter().map(|q| q.z).fold(f32::INFINITY, f32::min);
        sagged = sagged.max(-0.5 - bottom);
    }
    // Free fall would take it 2.45 m down in 1 s; held, it only stretches.
    assert!(sagged > 0.05 && sagged < 0.5, "the bottom sagged {sagged} m");
}

/// A legacy belt held at one end by a static frame swings down like a pendulum: its end
/// vertices are pins that never move, its centre of mass never climbs back to where it
/// started (no energy from nowhere), and its contacts with the frame at the attachment are filtered.
#[test]
fn a_legacy_belt_hangs_from_its_frame_and_swings_without_gaining_energy() {
    let scene = testdata("legacy/belt_on_frame.usda");
    let imported = usdsim_usd::import(&scene).unwrap();
    let s = &imported.scene;
    assert_eq!(s.pins.len(), 5, "the end vertices are pinned to the static frame");
    assert!(s.pins.iter().all(|p| p.stiffness.is_infinite()), "PhysX's attachments are hard");
    let frame = s.colliders.iter().position(|c| c.name == "/World/Frame").expect("the frame collides");
    assert_eq!(s.collision.elements.len(), 1);
    let filter = &s.collision.elements[0];
    assert_eq!(
        filter.objects,
        [
            usdsim_core::CollisionObject::Body(usdsim_core::BodyId(0)),
            usdsim_core::CollisionObject::Collider(usdsim_core::ColliderId(frame))
        ]
    );
    let usdsim_core::ElementSet::Some(triangles) = &filter.groups[0].0 else { panic!("{filter:?}") };
    let ends: Vec<u32> = (0..5).map(|j| j * 21).collect();
    let body = &s.bodies[0];
    let touching = body.triangles.iter().filter(|t| t.iter().any(|v| ends.contains(v))).count();
    assert_eq!(triangles.len(), touching, "the triangles at the held end are filtered");

    let dir = temp_dir();
    let out = dir.path().join("bake.usdc");
    bake(&scene, &out, &["--frames", "24"]);
    let stage = open_stage(&out);
    let start = composed_points(&stage, "/World/Belt", "points", 0.0);
    let mut lowest_tip = f32::INFINITY;
    for frame in 1..=24 {
        let p = composed_points(&stage, "/World/Belt", "points", frame as f64);
        for &v in &ends {
            assert!(p[v as usize].distance(start[v as usize]) < 1e-5, "frame {frame}: held vertex {v} moved");
        }
        // Its centre of mass never climbs back to where it fell from.
        let rise = centroid(&p).z - centroid(&start).z;
        assert!(rise < 0.0, "frame {frame}: the belt's centre rose {rise} m above its start");
        lowest_tip = lowest_tip.min(p[2 * 21 + 20].z);
    }
    assert!(lowest_tip < -0.8, "the free end never swung down (lowest {lowest_tip} below the frame)");
}

#[test]
fn legacy_attachments_that_cannot_apply_are_named() {
    let dir = temp_dir();
    let short = edited(&testdata("legacy/belt_on_frame.usda"), dir.path(), |t| {
        let at = t.find("point3f[] points1 = [").unwrap() + "point3f[] points1 = [".len();
        format!("{}(0, 0, 0), {}", &t[..at], &t[at..])
    });
    let run = usdsim([short.as_os_str(), "--frames=1".as_ref(), "-o".as_ref(), dir.path().join("o.usda").as_os_str()]);
    run.assert_no_panic();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("/World/BeltToFrame.points1"), "{}", run.stderr);
    let d = dir.path().join("rigid");
    std::fs::create_dir_all(&d).unwrap();
    let no_body = edited(&testdata("legacy/belt_on_frame.usda"), &d, |t| {
        t.replace("rel actor0 = </World/Belt>", "rel actor0 = </World/Frame>")
    });
    let run = usdsim([no_body.as_os_str(), "--frames=1".as_ref(), "-o".as_ref(), d.join("o.usda").as_os_str()]);
    run.assert_success();
    assert!(run.stderr.contains("IM083") && run.stderr.contains("/World/BeltToFrame"), "{}", run.stderr);
}

/// Physics usdsim does not simulate, as Isaac Sim scenes hold it beside their bodies: a
/// PhysX gear joint, PhysX particle cloth and PhysX tuning attributes. validate
/// and the run both name each, and the bodies still simulate.
#[test]
fn physics_usdsim_does_not_simulate_is_named_never_dropped() {
    let dir = temp_dir();
    let file = edited(&volume(), dir.path(), |t| {
        let extra = r#"
    def Xform "Robot" (
        prepend apiSchemas = ["PhysicsArticulationRootAPI"]
    )
    {
        def PhysxPhysicsGearJoint "Gear"
        {
        }
    }

    def Mesh "Shirt" (
        prepend apiSchemas = ["PhysxParticleClothAPI"]
    )
    {
        point3f[] points = [(0, 0, 3), (1, 0, 3), (0, 1, 3)]
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 2]
        float physxParticle:pressure = 2
    }
"#;
        let t = t.replace(
            "    def PhysicsScene \"PhysicsScene\"\n    {\n",
            "    def PhysicsScene \"PhysicsScene\"\n    {\n        uint physxScene:timeStepsPerSecond = 120\n",
        );
        let at = t.rfind('}').unwrap();
        format!("{}{extra}{}", &t[..at], &t[at..])
    });
    let check = usdsim(["validate".as_ref(), file.as_os_str()]);
    assert_eq!(check.code, Some(0), "{}{}", check.stdout, check.stderr);
    let run = usdsim([file.as_os_str(), "--frames=2".as_ref(), "-o".as_ref(), dir.path().join("o.usda").as_os_str()]);
    run.assert_success();
    for text in [format!("{}{}", check.stdout, check.stderr), run.stderr] {
        for says in [
            "IM084",
            "/World/Robot/Gear: PhysxPhysicsGearJoint",
            "/World/Shirt: PhysxParticleClothAPI",
            "IM085",
            "physxParticle:pressure",
            "physxScene:timeStepsPerSecond",
        ] {
            assert!(text.contains(says), "{says}: {text}");
        }
    }
}

#[test]
fn inspect_says_a_body_is_legacy_and_carries_physx_drag() {
    let out = usdsim(["inspect".as_ref(), volume().as_os_str()]);
    out.assert_success();
    for says in ["legacy PhysX PhysxDeformableBodyAPI", "vertex velocity damping 0.005/s", "IM080"] {
        assert!(format!("{}{}", out.stdout, out.stderr).contains(says), "{says}: {}{}", out.stdout, out.stderr);
    }
}

/// `usdsim upgrade` writes the legacy bodies, materials and attachments in the
/// OmniPhysics schema over the input; baking the upgraded file bakes exactly what baking
/// the legacy one does, frame by frame, bit for bit, and the input is untouched.
#[test]
fn an_upgraded_legacy_asset_bakes_exactly_as_the_legacy_one() {
    let dir = temp_dir();
    // (scene, prim, the attribute holding the simulated points in the legacy bake and
    // the prim and attribute holding them in the upgraded one)
    let cases = [
        ("volume_on_ground", "/World/Cube", "physxDeformable:simulationPoints", "/World/Cube/simulationMesh"),
        ("volume_hung", "/World/Cube", "physxDeformable:simulationPoints", "/World/Cube/simulationMesh"),
        ("cloth_on_ground", "/World/Cloth", "points", "/World/Cloth"),
        ("belt_on_frame", "/World/Belt", "points", "/World/Belt"),
        ("belt_auto", "/World/Belt", "points", "/World/Belt"),
    ];
    for (case, prim, legacy_state, upgraded_sim) in cases {
        let input = testdata(&format!("legacy/{case}.usda"));
        let before = std::fs::read(&input).unwrap();
        let upgraded = dir.path().join(format!("{case}.omni.usda"));
        let up = usdsim(["upgrade".as_ref(), input.as_os_str(), "-o".as_ref(), upgraded.as_os_str()]);
        up.assert_success();
        assert!(up.stderr.contains(&format!("upgraded {prim}")), "{case}: {}", up.stderr);
        assert_eq!(std::fs::read(&input).unwrap(), before, "{case}: the input was touched");
        let check = usdsim(["validate".as_ref(), upgraded.as_os_str()]);
        assert_eq!(check.code, Some(0), "{case}: {}{}", check.stdout, check.stderr);
        let composed = open_stage(&upgraded);
        let apis = composed.prim(openusd::sdf::Path::new(prim).unwrap()).unwrap().api_schemas().unwrap();
        let apis: Vec<&str> = apis.iter().map(|a| a.as_str()).collect();
        assert!(apis.contains(&"OmniPhysicsDeformableBodyAPI"), "{case}: {apis:?}");
        assert!(!apis.iter().any(|a| a.starts_with("PhysxDeformable")), "{case}: the legacy API is left: {apis:?}");
        // The upgraded body is an OmniPhysics one: no legacy finding is left to make.
        assert!(!check.stdout.contains("IM08") && !check.stderr.contains("IM08"), "{case}: {}", check.stderr);

        let (a, b) = (dir.path().join(format!("{case}.legacy.usdc")), dir.path().join(format!("{case}.up.usdc")));
        bake(&input, &a, &["--frames", "24"]);
        bake(&upgraded, &b, &["--frames", "24"]);
        let (a, b) = (open_stage(&a), open_stage(&b));
        for frame in 0..=24 {
            let t = frame as f64;
            let (ra, rb) = (composed_points(&a, prim, "points", t), composed_points(&b, prim, "points", t));
            assert!(common::same_points(&ra, &rb), "{case}: frame {frame}: the render mesh differs");
            let sa = composed_points(&a, prim, legacy_state, t);
            let sb = composed_points(&b, upgraded_sim, "points", t);
            assert!(common::same_points(&sa, &sb), "{case}: frame {frame}: the simulation mesh differs");
        }
    }
}

#[test]
fn upgrading_a_file_without_legacy_bodies_says_so() {
    let dir = temp_dir();
    let out = dir.path().join("o.usda");
    let up =
        usdsim(["upgrade".as_ref(), testdata("tet_cube_on_ground.usda").as_os_str(), "-o".as_ref(), out.as_os_str()]);
    up.assert_no_panic();
    assert_eq!(up.code, Some(1), "{}", up.stderr);
    assert!(up.stderr.contains("nothing to upgrade"), "{}", up.stderr);
    assert!(!out.exists());
}

/// PhysX's auto attachment (no points saved): the belt vertices inside the frame at rest
/// are held to it, and their triangles do not collide with it; with vertex attachments
/// off it holds nothing, and says so.
#[test]
fn an_auto_attachment_holds_the_vertices_inside_the_other_actor() {
    let scene = testdata("legacy/belt_auto.usda");
    let imported = usdsim_usd::import(&scene).unwrap();
    let s = &imported.scene;
    let mut held: Vec<u32> = s.pins.iter().map(|p| p.vertex).collect();
    held.sort_unstable();
    // The frame spans x in [-0.06, 0.04]: only the x = 0 column is inside it.
    assert_eq!(held, [0, 21, 42, 63, 84]);
    for p in &s.pins {
        let d = p.target.distance(s.bodies[0].positions[p.vertex as usize]);
        assert!(d < 1e-6, "a held vertex is held {d} from where it is");
    }
    assert_eq!(s.collision.elements.len(), 1, "the held end does not collide with the frame");

    let dir = temp_dir();
    let off = edited(&scene, dir.path(), |t| {
        t.replace("enableDeformableVertexAttachments = 1", "enableDeformableVertexAttachments = 0")
    });
    let imported = usdsim_usd::import(&off).unwrap();
    assert!(imported.scene.pins.is_empty() && imported.scene.attachments.is_empty());
    assert!(
        imported.warnings.iter().any(|w| w.code == "IM083" && w.prim == "/World/BeltToFrame"),
        "{:?}",
        imported.warnings
    );
}
