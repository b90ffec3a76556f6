//! `--resume`: a bake cut short (by `--frames`, SIGINT, SIGTERM or `kill -9`) and then
//! resumed ends byte-identical, file for file, to one uninterrupted run; a frame edited
//! in the output is resumed from as edited; a bake of another input or settings is
//! refused.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{copy_scene, temp_dir, testdata, usdsim, LayerFile};
use glam::Vec3;
use openusd::sdf;

/// Every file under `dir`, relative to it, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    common::files_under(dir).iter().map(|p| p.strip_prefix(dir).unwrap().to_path_buf()).collect()
}

/// `a` and `b` hold the same files with the same bytes.
fn assert_same_files(a: &Path, b: &Path) {
    let (fa, fb) = (files(a), files(b));
    assert_eq!(fa, fb, "different files");
    assert!(fa.len() > 2, "too few files to be a clip set: {fa:?}");
    for f in fa {
        let (x, y) = (std::fs::read(a.join(&f)).unwrap(), std::fs::read(b.join(&f)).unwrap());
        assert!(x == y, "{} differs ({} against {} bytes)", f.display(), x.len(), y.len());
    }
}

/// Runs usdsim on `input` into `out` with `args`, expecting success.
fn bake<S: AsRef<str>>(input: &Path, out: &Path, args: &[S]) -> common::Outcome {
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let mut all = vec![input.to_str().unwrap(), "-q", "-o", out.to_str().unwrap()];
    all.extend(args.iter().map(AsRef::as_ref));
    let outcome = usdsim(&all);
    outcome.assert_success();
    outcome
}

/// Bakes `input` `frames` frames in one run into `dir/one`, and `partial` frames then
/// `--resume` to `frames` into `dir/two`, in chunks of `chunk`; both must be the same.
fn resumed_is_identical(dir: &Path, input: &Path, frames: u32, partial: u32, chunk: u32, extra: &[&str]) {
    let (f, p, c) = (frames.to_string(), partial.to_string(), chunk.to_string());
    let (one, two) = (dir.join("one"), dir.join("two"));
    let with = |n: &str, more: &[&'static str]| -> Vec<String> {
        let mut v: Vec<String> = ["--frames", n, "--chunk", &c].iter().map(|s| s.to_string()).collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v.extend(more.iter().map(|s| s.to_string()));
        v
    };
    let plain = bake(input, &one.join("out.usdc"), &with(&f, &[]));
    bake(input, &two.join("out.usdc"), &with(&p, &[]));
    let resumed = bake(input, &two.join("out.usdc"), &with(&f, &["--resume"]));
    // A resume says nothing more than the input itself gives a plain run to say.
    assert_eq!(resumed.stderr, plain.stderr);
    assert_same_files(&one, &two);
}

/// Tearing changes the topology and plastic flow the rest shape mid-bake; both carry
/// over (the strip tears before the resume frame, 12).
#[test]
fn tearing_and_plastic_cloth_resumes_byte_identical() {
    let dir = temp_dir();
    let input = copy_scene("tearing_cloth.usda", dir.path());
    resumed_is_identical(dir.path(), &input, 20, 13, 4, &["--plastic-yield", "1.05"]);
    // It did tear before frame 12, so the resumed solver took a torn topology.
    let clip = LayerFile::open(&dir.path().join("two/out.clips/clip.000012.usdc"));
    let version = clip.layer.attribute("/World/Strip.usdsim:state:topologyVersion").unwrap().unwrap();
    let Some(sdf::Value::Int(version)) = version.get::<sdf::Value>("default") else { panic!("no version") };
    assert!(version > 0, "no tear before frame 12 ({version})");
}

/// A rigid body (rapier) and a deformable one: rapier's own state carries over.
#[test]
fn rigid_body_bake_resumes_byte_identical() {
    let dir = temp_dir();
    let input = copy_scene("rigid_box_fall.usda", dir.path());
    resumed_is_identical(dir.path(), &input, 30, 17, 6, &[]);
}

/// The legacy PhysX schema: a volume whose state lives in its simulation mesh's
/// `physxDeformable:` attributes, with its render mesh embedded, and a cloth.
#[test]
fn legacy_physx_bakes_resume_byte_identical() {
    let dir = temp_dir();
    resumed_is_identical(&dir.path().join("volume"), &testdata("legacy/volume_on_ground.usda"), 20, 11, 4, &[]);
    resumed_is_identical(&dir.path().join("cloth"), &testdata("legacy/cloth_on_ground.usda"), 12, 7, 4, &[]);
}

/// Joints and a drive with time-sampled targets (rapier's joints are in its snapshot;
/// the targets come from the input every frame).
#[test]
fn a_driven_joint_resumes_byte_identical() {
    let dir = temp_dir();
    resumed_is_identical(&dir.path().join("hinge"), &testdata("driven_hinge.usda"), 20, 11, 4, &[]);
    // Fingers on driven slides squeezing a cube: friction anchors against jointed bodies.
    resumed_is_identical(&dir.path().join("gripper"), &testdata("gripper_cube.usda"), 36, 29, 4, &[]);
    // An articulation: rapier's multibody coordinates are in its snapshot.
    resumed_is_identical(&dir.path().join("arm"), &testdata("arm_six_joints.usda"), 20, 11, 4, &[]);
}

/// `tet_cube_on_ground.usda` with a second cube, asleep on the ground under the first,
/// which falls on it and wakes it at frame 9.
fn sleeper_scene(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(testdata("tet_cube_on_ground.usda")).unwrap();
    let start = text.find("    def TetMesh \"Cube\" (").unwrap();
    let end = start + text[start..].find("\n    }\n").unwrap() + "\n    }\n".len();
    let cube = &text[start..end];
    let at = "double3 xformOp:translate = (0, 0, 1)";
    assert!(cube.contains(at));
    let faller = cube.replace(at, "double3 xformOp:translate = (0.2, 0, 2.2)");
    let sleeper =
        cube.replace("\"Cube\"", "\"Sleeper\"").replace(at, "double3 xformOp:translate = (0, 0, 0.51)").replace(
            "bool omniphysics:deformableBodyEnabled = 1",
            "bool omniphysics:deformableBodyEnabled = 1\n        bool omniphysics:startsAsleep = 1",
        );
    let path = dir.join("sleeper.usda");
    std::fs::write(&path, format!("{}{faller}\n{sleeper}{}", &text[..start], &text[end..])).unwrap();
    path
}

/// Resumed while the sleeper still sleeps (from frame 4), and after it woke (from 12).
#[test]
fn sleeping_body_resumes_asleep_and_awake_byte_identical() {
    for partial in [6, 13] {
        let dir = temp_dir();
        let input = sleeper_scene(dir.path());
        resumed_is_identical(dir.path(), &input, 24, partial, 4, &[]);
        let one = LayerFile::open(&dir.path().join("one/out.clips/clip.000004.usdc"));
        let asleep = one.layer.attribute("/World/Sleeper.usdsim:state:asleep").unwrap().unwrap();
        assert_eq!(asleep.get::<sdf::Value>("default"), Some(sdf::Value::Bool(true)), "asleep at frame 4");
        let woke = LayerFile::open(&dir.path().join("one/out.clips/clip.000012.usdc"));
        let asleep = woke.layer.attribute("/World/Sleeper.usdsim:state:asleep").unwrap().unwrap();
        assert_eq!(asleep.get::<sdf::Value>("default"), Some(sdf::Value::Bool(false)), "awake at frame 12");
    }
}

/// Moves every sample of `prim.points` at `time` in the clip at `path` by `by`.
fn edit_points(path: &Path, prim: &str, time: f64, by: Vec3) {
    let mut layer = sdf::Layer::open(path.to_str().unwrap()).unwrap();
    let attr = format!("{prim}.points");
    let Some(sdf::Value::TimeSamples(mut samples)) =
        layer.attribute(attr.as_str()).unwrap().unwrap().get::<sdf::Value>("timeSamples")
    else {
        panic!("no samples")
    };
    let (_, value) = samples.iter_mut().find(|(t, _)| *t == time).expect("a sample at the time");
    let sdf::Value::Vec3fVec(points) = value else { panic!("points are float3s") };
    for p in points.iter_mut() {
        *p = openusd::gf::Vec3f::from((Vec3::new(p.x, p.y, p.z) + by).to_array());
    }
    layer
        .edit(|edit| {
            let mut spec = edit.attribute_mut(attr.as_str())?.expect("the attribute");
            spec.set("timeSamples", sdf::Value::TimeSamples(samples));
            Ok(())
        })
        .unwrap();
    layer.export(path.to_str().unwrap()).unwrap();
}

/// Frame 12 of a partial bake lifted by 1 m in the clip: the resumed frames fall from
/// there, 1 m above the unedited bake's (a free fall does not care where it starts).
#[test]
fn an_edited_frame_is_resumed_from_as_edited() {
    let dir = temp_dir();
    let input = copy_scene("free_fall_z_up_meters.usda", dir.path());
    let (one, two) = (dir.path().join("one/out.usdc"), dir.path().join("two/out.usdc"));
    bake(&input, &one, &["--frames", "24", "--chunk", "4"]);
    bake(&input, &two, &["--frames", "13", "--chunk", "4"]);
    let clip = dir.path().join("two/out.clips/clip.000012.usdc");
    edit_points(&clip, "/World/Tet", 12.0, Vec3::Z);
    let out = usdsim([
        &input,
        Path::new("-o"),
        &two,
        Path::new("--frames=24"),
        Path::new("--chunk=4"),
        Path::new("--resume"),
    ]);
    out.assert_success();
    assert!(out.stderr.contains("CLI002") && out.stderr.contains("/World/Tet"), "{}", out.stderr);
    for frame in [13, 18, 24] {
        let clip = format!("out.clips/clip.{:06}.usdc", frame / 4 * 4);
        let samples = |root: &Path| {
            let layer = LayerFile::open(&root.join(&clip));
            layer.samples("/World/Tet", "points").into_iter().find(|(t, _)| *t == f64::from(frame)).unwrap().1
        };
        let (a, b) = (samples(one.parent().unwrap()), samples(two.parent().unwrap()));
        for (p, q) in a.iter().zip(&b) {
            assert!((*q - *p - Vec3::Z).abs().max_element() < 1e-4, "frame {frame}: {q} is not {p} + 1 m up");
        }
    }
}

/// A bake of different settings is refused (exit 1, naming the output), and nothing
/// of it is touched.
#[test]
fn a_bake_of_other_settings_is_refused() {
    let dir = temp_dir();
    let input = copy_scene("free_fall_z_up_meters.usda", dir.path());
    let out = dir.path().join("b/out.usdc");
    bake(&input, &out, &["--frames", "13", "--chunk", "4"]);
    let before: Vec<Vec<u8>> =
        files(out.parent().unwrap()).iter().map(|f| std::fs::read(dir.path().join("b").join(f)).unwrap()).collect();
    let args = [
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--frames",
        "24",
        "--chunk",
        "4",
        "--resume",
        "--substeps",
        "12",
    ];
    let outcome = usdsim(args);
    outcome.assert_no_panic();
    assert_eq!(outcome.code, Some(1), "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("out.usdc") && outcome.stderr.contains("different input, settings"),
        "{}",
        outcome.stderr
    );
    let after: Vec<Vec<u8>> =
        files(out.parent().unwrap()).iter().map(|f| std::fs::read(dir.path().join("b").join(f)).unwrap()).collect();
    assert!(before == after, "a refused resume changed the bake");
}

/// Interrupts a bake of `frames` frames with `signal` once `clips` clips are on disk,
/// resumes it, and compares with one run.
fn interrupted_then_resumed(signal: &str, code: Option<i32>) {
    let dir = temp_dir();
    let input = copy_scene("hanging_bar.usda", dir.path());
    let (one, two) = (dir.path().join("one/out.usdc"), dir.path().join("two/out.usdc"));
    let frames = "3000";
    bake(&input, &one, &["--frames", frames, "--chunk", "50"]);
    std::fs::create_dir_all(two.parent().unwrap()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_usdsim"))
        .arg(&input)
        .args(["--frames", frames, "--chunk", "50", "-q", "-o"])
        .arg(&two)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::BufRead;
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufReader::new(stdout).lines();
    let mut written = 0;
    while written < 3 {
        let line = lines.next().expect("the bake ended before three clips").unwrap();
        written += usize::from(line.starts_with("OUTPUT_FILE: "));
    }
    let status = Command::new("kill").args(["-s", signal, &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    drop(lines);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), code, "{}", String::from_utf8_lossy(&out.stderr));
    let resumed = bake(&input, &two, &["--frames", frames, "--chunk", "50", "--resume"]);
    assert!(resumed.stderr.is_empty(), "{}", resumed.stderr);
    // A killed write's temporary file is gone too: the resume removes it.
    assert_same_files(one.parent().unwrap(), two.parent().unwrap());
}

#[test]
fn sigint_then_resume_is_byte_identical() {
    interrupted_then_resumed("INT", Some(130));
}

#[test]
fn sigterm_then_resume_is_byte_identical() {
    interrupted_then_resumed("TERM", Some(143));
}

#[test]
fn kill_9_then_resume_is_byte_identical() {
    interrupted_then_resumed("KILL", None);
}

/// The substeps since a body's last contact, saved in the clip at `frame`.
fn since_contact(dir: &Path, frame: u32, prim: &str) -> Option<i32> {
    let clip = LayerFile::open(&dir.join(format!("out.clips/clip.{frame:06}.usdc")));
    let attr = clip.layer.attribute(format!("{prim}.usdsim:state:substepsSinceContact")).unwrap()?;
    match attr.get::<sdf::Value>("default") {
        Some(sdf::Value::Int(n)) => Some(n),
        other => panic!("substepsSinceContact at frame {frame} is {other:?}"),
    }
}

/// A body stays on implicit Euler for a frame's substeps after its last contact; a
/// resume taken while that hold runs (the cube leaves the ground in frame 16) keeps
/// it. One-frame chunks: every frame is a clip, and a resume point.
#[test]
fn a_resume_inside_the_contact_hold_is_byte_identical() {
    let dir = temp_dir();
    let input = copy_scene("tet_cube_on_ground.usda", dir.path());
    resumed_is_identical(dir.path(), &input, 20, 16, 1, &[]);
    let one = dir.path().join("one");
    assert_eq!(since_contact(&one, 1, "/World/Cube"), None, "touched before it fell");
    assert_eq!(since_contact(&one, 10, "/World/Cube"), Some(0), "not on the ground at frame 10");
    let held = since_contact(&one, 16, "/World/Cube").expect("no contact by frame 16");
    assert!(0 < held && held < 10, "frame 16 is not inside the hold ({held} substeps since contact)");
}
