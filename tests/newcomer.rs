//! What a newcomer hits first (issue "What a newcomer hits"): the frame range a run
//! picks, output paths that cannot work, stages with nothing (or only rigid bodies) to
//! simulate, counts that agree between `inspect` and `run`, `--json` a pipeline can
//! parse, and argument mistakes. The messages a newcomer reads are insta snapshots.

mod common;

use std::path::{Path, PathBuf};

use common::{copy_scene, temp_dir, testdata, usdsim, LayerFile, Outcome};
use serde_json::Value;

/// The stderr of a run with machine paths replaced, for snapshots.
fn normalised(text: &str, dir: &Path) -> String {
    text.replace(&dir.display().to_string(), "DIR").replace(&testdata("").display().to_string(), "testdata/")
}

fn run(args: &[&std::ffi::OsStr]) -> Outcome {
    let outcome = usdsim(args);
    outcome.assert_no_panic();
    outcome
}

fn json_of(outcome: &Outcome) -> Value {
    serde_json::from_str(&outcome.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", outcome.stdout))
}

/// `scene` with its `endTimeCode` line removed (or changed), in `dir`.
fn with_end_time(dir: &Path, scene: &str, end: Option<&str>) -> PathBuf {
    let text = std::fs::read_to_string(testdata(scene)).unwrap();
    let line = text.lines().find(|l| l.trim_start().starts_with("endTimeCode")).expect("scene authors endTimeCode");
    let replaced = match end {
        Some(end) => text.replace(line, &format!("    endTimeCode = {end}")),
        None => text.replace(&format!("{line}\n"), ""),
    };
    let path = dir.join(format!("end_{}_{scene}", end.unwrap_or("none")));
    std::fs::write(&path, replaced).unwrap();
    path
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

#[test]
fn default_frame_range_is_the_stages_own() {
    let dir = temp_dir();
    // The scene authors startTimeCode 0, endTimeCode 48: 48 frames unless told otherwise.
    let input = copy_scene("free_fall_z_up_meters.usda", dir.path());
    let v = json_of(&run(&[input.as_os_str(), os("--json")]));
    assert_eq!(v["frames"], 48);
    assert_eq!(v["frame_range"]["source"], "stage");
    let baked = LayerFile::open(&dir.path().join("free_fall_z_up_meters.sim.usda"));
    assert_eq!(baked.time_range().1, Some(48.0));
    assert_eq!(baked.samples("/World/Tet", "points").len(), 49, "frames 0..=48");

    // --frames wins over the stage.
    let v = json_of(&run(&[input.as_os_str(), os("--json"), os("-f"), os("3")]));
    assert_eq!((v["frames"].as_u64(), v["frame_range"]["source"].as_str()), (Some(3), Some("flag")));

    // A shorter authored range, and no range at all (the 240-frame fallback).
    let short = with_end_time(dir.path(), "free_fall_z_up_meters.usda", Some("5"));
    let out = run(&[short.as_os_str(), os("-o"), dir.path().join("short.usda").as_os_str()]);
    assert!(out.stderr.contains("5 frames, time codes 0-5"), "the start line shows the range:\n{}", out.stderr);
    let none = with_end_time(dir.path(), "free_fall_z_up_meters.usda", None);
    let v = json_of(&run(&[none.as_os_str(), os("--json"), os("-o"), dir.path().join("none.usda").as_os_str()]));
    assert_eq!((v["frames"].as_u64(), v["frame_range"]["source"].as_str()), (Some(240), Some("fallback")));

    // inspect says what a run would bake.
    let out = run(&[os("inspect"), input.as_os_str()]);
    assert!(out.stdout.contains("frames: a run bakes 48 frames, time codes 0-48"), "{}", out.stdout);
}

#[test]
fn output_paths_that_cannot_work_fail_before_simulating() {
    let dir = temp_dir();
    let input = copy_scene("free_fall_z_up_meters.usda", dir.path());
    // An existing folder.
    let out = run(&[input.as_os_str(), os("-o"), dir.path().as_os_str()]);
    assert_eq!(out.code, Some(4));
    assert!(out.stderr.contains("is a folder"), "{}", out.stderr);
    assert!(!out.stderr.contains("simulating"), "nothing may be simulated first:\n{}", out.stderr);

    // A folder that refuses new files, with the operating system's reason. Root ignores
    // permission bits, so there /sys stands in for a read-only folder.
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    set_mode(&locked, 0o555);
    let refuses = std::fs::write(locked.join("probe"), b"").is_err();
    let target = if refuses { locked.join("bake.usda") } else { PathBuf::from("/sys/usdsim-bake.usda") };
    let out = run(&[input.as_os_str(), os("-o"), target.as_os_str()]);
    set_mode(&locked, 0o755);
    if refuses || Path::new("/sys").is_dir() {
        assert_eq!(out.code, Some(4), "{}", out.stderr);
        assert!(out.stderr.contains("Permission denied"), "the OS's reason:\n{}", out.stderr);
        assert!(!out.stderr.contains("simulating"), "nothing may be simulated first:\n{}", out.stderr);
    }

    // `.usd` is accepted and written binary, as Pixar's tools do.
    let usd = dir.path().join("bake.usd");
    run(&[input.as_os_str(), os("-q"), os("-f"), os("2"), os("-o"), usd.as_os_str()]).assert_success();
    assert_eq!(&std::fs::read(&usd).unwrap()[..8], b"PXR-USDC");
    assert_eq!(LayerFile::open(&usd).samples("/World/Tet", "points").len(), 3);
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) {}

/// A stage that is a render asset: one Mesh bound to a material, no physics at all.
const RENDER_ASSET: &str = r#"#usda 1.0
(
    upAxis = "Z"
    metersPerUnit = 1
)

def Xform "Teapot"
{
    def Material "Glaze"
    {
    }
    def Mesh "Geometry" (
        prepend apiSchemas = ["MaterialBindingAPI"]
    )
    {
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 2]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
        rel material:binding = </Teapot/Glaze>
    }
}
"#;

#[test]
fn validate_inspect_and_run_agree_on_nothing_to_simulate() {
    let dir = temp_dir();
    let input = dir.path().join("teapot.usda");
    std::fs::write(&input, RENDER_ASSET).unwrap();

    let validate = run(&[os("validate"), input.as_os_str()]);
    assert_eq!(validate.code, Some(1), "validate must not say ok:\n{}", validate.stdout);
    assert!(validate.stdout.contains("error[DB011]"), "{}", validate.stdout);

    let inspect = json_of(&run(&[os("inspect"), os("--json"), input.as_os_str()]));
    let codes: Vec<&str> = inspect["findings"].as_array().unwrap().iter().filter_map(|f| f["code"].as_str()).collect();
    assert!(codes.contains(&"DB011"), "{codes:?}");

    let out = run(&[input.as_os_str(), os("-f"), os("2")]);
    assert_eq!(out.code, Some(1));
    assert_eq!(out.stderr.matches("nothing to simulate").count(), 1, "one message per fact:\n{}", out.stderr);
    insta::assert_snapshot!("nothing_to_simulate", normalised(&out.stderr, dir.path()));

    let failed = json_of(&run(&[input.as_os_str(), os("-f"), os("2"), os("--json")]));
    assert_eq!(failed["ok"], false);
    assert_eq!(failed["exit_code"], 1);
    assert_eq!(failed["error"]["code"], "DB011");
    assert_eq!(failed["error"]["location"]["file"], input.display().to_string());
    assert!(failed["error"]["message"].as_str().unwrap().contains("nothing simulated"));
}

#[test]
fn a_stage_with_only_rigid_bodies_bakes_them_and_every_report_counts_them() {
    let dir = temp_dir();
    let text = std::fs::read_to_string(testdata("rigid_box_fall.usda")).unwrap();
    let (a, b) = (text.find("    def Scope \"Materials\"").unwrap(), text.find("    def Xform \"Rig\"").unwrap());
    let input = dir.path().join("rigid_only.usda");
    std::fs::write(&input, format!("{}{}", &text[..a], &text[b..])).unwrap();

    let out = run(&[input.as_os_str(), os("-f"), os("12")]);
    out.assert_success();
    assert!(out.stderr.contains("0 deformable bodies") && out.stderr.contains("1 rigid body"), "{}", out.stderr);
    let baked = LayerFile::open(&dir.path().join("rigid_only.sim.usda"));
    let samples = baked.raw_samples("/World/Rig/Box", "xformOp:translate");
    assert_eq!(samples.len(), 13, "the box is baked at every frame");

    let v = json_of(&run(&[input.as_os_str(), os("-f"), os("2"), os("--json")]));
    assert_eq!((v["bodies"].as_u64(), v["rigid_bodies"].as_u64()), (Some(0), Some(1)));
    let inspect = json_of(&run(&[os("inspect"), os("--json"), input.as_os_str()]));
    assert_eq!(inspect["counts"]["rigid_bodies"], 1);
    assert_eq!(inspect["rigid_bodies"][0]["prim"], "/World/Rig/Box");
    assert_eq!(inspect["rigid_bodies"][0]["shapes"][0]["kind"], "box");
}

#[test]
fn inspect_and_run_count_the_same_elements() {
    let dir = temp_dir();
    for scene in ["springs_cloth.usda", "tet_cube_on_ground.usda", "rigid_box_fall.usda"] {
        let input = copy_scene(scene, dir.path());
        let inspect = json_of(&run(&[os("inspect"), os("--json"), input.as_os_str()]));
        let v = json_of(&run(&[input.as_os_str(), os("-f"), os("1"), os("--json")]));
        for key in ["bodies", "vertices", "tetrahedra", "triangles", "colliders", "rigid_bodies"] {
            assert_eq!(inspect["counts"][key], v[key], "{scene}: {key}");
        }
        if scene == "springs_cloth.usda" {
            assert_eq!(v["triangles"], 450, "a spring-model cloth keeps its 15 x 15 x 2 triangles");
        }
    }
}

/// Every string in a JSON document that a pipeline would have to parse as a number.
fn numbers_as_strings(v: &Value, path: &str, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.parse::<f64>().is_ok() || ["inf", "-inf", "nan"].contains(&s.as_str()) => {
            out.push(format!("{path} = {s:?}"));
        }
        Value::Array(items) => {
            items.iter().enumerate().for_each(|(i, x)| numbers_as_strings(x, &format!("{path}[{i}]"), out))
        }
        Value::Object(map) => map.iter().for_each(|(k, x)| numbers_as_strings(x, &format!("{path}.{k}"), out)),
        _ => {}
    }
}

#[test]
fn json_reports_warnings_with_code_prim_and_attribute_and_no_numbers_as_strings() {
    let dir = temp_dir();
    // A surface material without a thickness: DB303 on stderr today, and in "warnings".
    let text = std::fs::read_to_string(testdata("cloth_on_sphere.usda")).unwrap();
    let line = text.lines().find(|l| l.contains("omniphysics:surfaceThickness")).expect("the cloth has a thickness");
    let input = dir.path().join("thin.usda");
    std::fs::write(&input, text.replace(&format!("{line}\n"), "")).unwrap();
    let out = run(&[input.as_os_str(), os("-f"), os("1"), os("--json")]);
    out.assert_success();
    let v = json_of(&out);
    let db303 = v["warnings"].as_array().unwrap().iter().find(|w| w["code"] == "DB303");
    let db303 = db303.unwrap_or_else(|| panic!("DB303 missing from {}", v["warnings"]));
    assert!(db303["prim"].as_str().is_some_and(|p| p.starts_with('/')), "{db303}");
    assert!(db303["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(db303.get("attribute").is_some());

    // inspect of a scene with hard pins and every collider kind of the testdata.
    let mut strings = Vec::new();
    for scene in ["hanging_bar.usda", "cloth_on_sphere.usda", "rigid_box_fall.usda"] {
        let inspect = json_of(&run(&[os("inspect"), os("--json"), testdata(scene).as_os_str()]));
        numbers_as_strings(&inspect, scene, &mut strings);
        if scene == "hanging_bar.usda" {
            assert_eq!(inspect["pins"][0]["hard"], true);
            assert!(inspect["pins"][0]["stiffness"].is_null());
        }
        if scene == "cloth_on_sphere.usda" {
            let kinds: Vec<&str> =
                inspect["colliders"].as_array().unwrap().iter().filter_map(|c| c["shape"]["kind"].as_str()).collect();
            assert!(kinds.contains(&"sphere") && kinds.contains(&"plane"), "{kinds:?}");
        }
    }
    numbers_as_strings(&v, "run", &mut strings);
    assert!(strings.is_empty(), "numbers written as strings: {strings:#?}");
}

#[test]
fn argument_mistakes_get_messages_that_say_what_to_do() {
    let cube = testdata("tet_cube_on_ground.usda");
    let mut transcript = String::new();
    for args in [
        vec![cube.as_os_str(), os("--frames"), os("-5")],
        vec![cube.as_os_str(), os("--contact-offset"), os("-1")],
        vec![os("valdiate"), cube.as_os_str()],
        vec![cube.as_os_str(), cube.as_os_str()],
    ] {
        let out = run(&args);
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("tip: to pass"), "no tip that turns a value into the input:\n{}", out.stderr);
        let shown: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().replace(&testdata("").display().to_string(), "testdata/"))
            .collect();
        transcript.push_str(&format!(
            "$ usdsim {}\n{}\n",
            shown.join(" "),
            normalised(&out.stderr, Path::new("/nowhere"))
        ));
    }
    insta::assert_snapshot!("argument_mistakes", transcript);

    // --json gets a JSON object for a usage error too.
    let v = json_of(&run(&[cube.as_os_str(), os("--frames"), os("0"), os("--json")]));
    assert_eq!(
        (v["ok"].as_bool(), v["exit_code"].as_u64(), v["error"]["code"].as_str()),
        (Some(false), Some(2), Some("usage"))
    );
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let dir = temp_dir();
    let input = dir.path().join("teapot.usda");
    std::fs::write(&input, RENDER_ASSET).unwrap();
    let escape = "\x1b[";
    let always = run(&[input.as_os_str(), os("--color"), os("always")]);
    assert!(always.stderr.contains(escape), "{:?}", always.stderr);
    let never = run(&[input.as_os_str(), os("--color"), os("never")]);
    assert!(!never.stderr.contains(escape));
    // Not a terminal: auto does not colour (NO_COLOR aside).
    let auto = run(&[input.as_os_str()]);
    assert!(!auto.stderr.contains(escape));
    let no_color =
        std::process::Command::new(env!("CARGO_BIN_EXE_usdsim")).arg(&input).env("NO_COLOR", "1").output().unwrap();
    assert!(!String::from_utf8_lossy(&no_color.stderr).contains(escape));
}

#[test]
fn messages_use_one_form_and_plurals() {
    let dir = temp_dir();
    let input = copy_scene("free_fall_z_up_meters.usda", dir.path());
    let out = run(&[input.as_os_str(), os("-f"), os("1")]);
    out.assert_success();
    assert!(out.stderr.contains("1 deformable body (4 vertices, 1 tetrahedron)"), "{}", out.stderr);
    assert!(!out.stderr.contains("1 bodies") && !out.stderr.contains("1 frames"), "{}", out.stderr);
    for line in out.stderr.lines().filter(|l| l.starts_with("warning")) {
        assert!(line.starts_with("warning[") && line.contains("]: "), "warning[CODE]: file: ...: {line}");
    }
}

#[test]
fn default_substeps_follow_the_body_kinds() {
    // Cloth asks for 24 substeps of 2 iterations, volumes for 10 of 1 (src/run.rs), and
    // inspect reports what a run will use.
    let dir = temp_dir();
    for (scene, substeps, iterations) in [("cloth_on_sphere.usda", 24, 2), ("free_fall_z_up_meters.usda", 10, 1)] {
        let input = copy_scene(scene, dir.path());
        let ran = json_of(&run(&[input.as_os_str(), os("-f"), os("1"), os("--json")]));
        assert_eq!(ran["substeps"], substeps, "{scene}: {ran}");
        assert_eq!(ran["iterations"], iterations, "{scene}: {ran}");
        let inspected = json_of(&run(&[os("inspect"), os("--json"), input.as_os_str()]));
        assert_eq!(inspected["solver"]["substeps"], substeps, "{scene}: inspect says {}", inspected["solver"]);
        assert_eq!(inspected["solver"]["iterations"], iterations, "{scene}: inspect says {}", inspected["solver"]);
        let given = json_of(&run(&[input.as_os_str(), os("-f"), os("1"), os("--json"), os("--iterations"), os("5")]));
        assert_eq!(given["iterations"], 5, "{scene}: --iterations 5 is honoured: {given}");
    }
}

#[test]
fn explicit_substeps_are_kept_with_a_warning() {
    let dir = temp_dir();
    // The tiny tet needs 15 substeps by its stability bound.
    let input = copy_scene("rigid_box_fall.usda", dir.path());
    let raised = json_of(&run(&[input.as_os_str(), os("-f"), os("1"), os("--json")]));
    assert_eq!(raised["substeps"], 15, "without --substeps they are raised to the bound");
    let kept = json_of(&run(&[input.as_os_str(), os("-f"), os("1"), os("--json"), os("--substeps"), os("12")]));
    assert_eq!(kept["substeps"], 12, "--substeps 12 is honoured");
    let warning = kept["warnings"].as_array().unwrap().iter().find(|w| w["code"] == "SV001");
    let warning = warning.unwrap_or_else(|| panic!("no stability warning: {}", kept["warnings"]));
    assert!(warning["message"].as_str().unwrap().contains("running with the 12 given"), "{warning}");
}
