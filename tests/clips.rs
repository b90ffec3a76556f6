//! Streamed bakes: frames as value clips (`--chunk`), one `.usdc` clip per chunk in
//! `<output stem>.clips/`, a manifest, and a small output layer with the clip metadata.
//! Pixar's USD and openusd (hence our importer) must see exactly what a single-layer
//! bake of the same frames holds; `validate` and `inspect` take the clip set as input.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{bake, composed_points, copy_scene, open_stage, temp_dir, usdsim, LayerFile};

/// Scenes that exercise each kind of sample: an animated anchor (kinematic xform), a
/// tearing cloth (varying topology), a plastic bar (rest shape per frame), rigid bodies.
const SCENES: [&str; 4] = ["animated_anchor.usda", "tearing_cloth.usda", "plastic_bar.usda", "rigid_box_fall.usda"];

const FRAMES: &str = "25";

/// Bakes `scene` (copied into `dir`) twice: as a clip set of 7-frame chunks and as one
/// layer. Returns (clip set, single layer).
fn bake_both(dir: &Path, scene: &str) -> (PathBuf, PathBuf) {
    let input = copy_scene(scene, dir);
    let stem = scene.trim_end_matches(".usda");
    let (clips, single) = (dir.join(format!("{stem}.clips.usda")), dir.join(format!("{stem}.single.usda")));
    bake(&input, &clips, &["--frames", FRAMES, "--chunk", "7"]);
    bake(&input, &single, &["--frames", FRAMES]);
    (clips, single)
}

#[test]
fn a_bake_longer_than_a_chunk_writes_clips_and_a_small_layer() {
    let dir = temp_dir();
    let (clips, single) = bake_both(dir.path(), "animated_anchor.usda");
    let folder = dir.path().join("animated_anchor.clips.clips");
    let mut files: Vec<String> =
        std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    // 26 frames (0..=25) in chunks of 7: 0-6, 7-13, 14-20, 21-25.
    assert_eq!(
        files,
        ["clip.000000.usdc", "clip.000007.usdc", "clip.000014.usdc", "clip.000021.usdc", "manifest.usdc"]
    );
    let layer = LayerFile::open(&clips);
    assert_eq!(layer.time_range(), LayerFile::open(&single).time_range());
    let text = std::fs::read_to_string(&clips).unwrap();
    assert!(!text.contains("timeSamples"), "the output layer holds no samples:\n{text}");
    assert!(layer.raw_default("/World/Bar", "points").is_none(), "no default that would hide the clips");
    let size = |p: &Path| std::fs::metadata(p).unwrap().len();
    assert!(size(&clips) * 10 < size(&single), "{} vs {} bytes", size(&clips), size(&single));
    // A bake that fits in one chunk stays one layer.
    let short = dir.path().join("short.usda");
    bake(&dir.path().join("animated_anchor.usda"), &short, &["--frames", "6", "--chunk", "7"]);
    assert!(!dir.path().join("short.clips").exists());
    assert_eq!(LayerFile::open(&short).raw_samples("/World/Bar", "points").len(), 7);
}

#[test]
fn pixar_usd_resolves_every_sample_through_the_clips() {
    let Some(python) = common::pxr::python("the Pixar USD clip check") else { return };
    let dir = temp_dir();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clips_pxr.py");
    for scene in SCENES {
        let (clips, single) = bake_both(dir.path(), scene);
        let out = Command::new(&python).arg(&script).args([&clips, &single]).arg(FRAMES).output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{scene}: {stdout}{stderr}");
        assert!(stdout.starts_with("compared "), "{scene}: {stdout}");
        common::pxr::note(&format!("checked: Pixar's USD resolves the clip set of {scene}: {}", stdout.trim()));
    }
}

#[test]
fn openusd_composes_the_clips_like_the_single_layer() {
    let dir = temp_dir();
    for (scene, prim) in [("animated_anchor.usda", "/World/Bar"), ("tearing_cloth.usda", "/World/Strip")] {
        let (clips, single) = bake_both(dir.path(), scene);
        let (a, b) = (open_stage(&clips), open_stage(&single));
        for t in 0..=25 {
            let t = f64::from(t);
            for name in ["points", "velocities"] {
                assert_eq!(
                    composed_points(&a, prim, name, t),
                    composed_points(&b, prim, name, t),
                    "{scene} {name} at {t}"
                );
            }
        }
    }
}

#[test]
fn a_run_continues_from_a_clip_set_as_from_one_layer() {
    // The importer reads a clip set's state: --start-time from either output gives the
    // same continuation, sample for sample.
    let dir = temp_dir();
    let (clips, single) = bake_both(dir.path(), "tearing_cloth.usda");
    let (from_clips, from_single) = (dir.path().join("a.usda"), dir.path().join("b.usda"));
    bake(&clips, &from_clips, &["--frames", "3", "--start-time", "17"]);
    bake(&single, &from_single, &["--frames", "3", "--start-time", "17"]);
    let (a, b) = (LayerFile::open(&from_clips), LayerFile::open(&from_single));
    assert_eq!(a.samples("/World/Strip", "points"), b.samples("/World/Strip", "points"));
    assert_eq!(a.samples("/World/Strip", "velocities"), b.samples("/World/Strip", "velocities"));
}

#[test]
fn validate_and_inspect_accept_the_clip_set() {
    let dir = temp_dir();
    let (clips, _) = bake_both(dir.path(), "animated_anchor.usda");
    let outcome = usdsim(["validate".as_ref(), clips.as_os_str()]);
    assert_eq!(outcome.code, Some(0), "{}{}", outcome.stdout, outcome.stderr);
    let outcome = usdsim(["inspect".as_ref(), clips.as_os_str()]);
    assert_eq!(outcome.code, Some(0), "{}{}", outcome.stdout, outcome.stderr);
    assert!(outcome.stdout.contains("/World/Bar"), "{}", outcome.stdout);
}

#[test]
fn every_file_written_is_announced_and_listed() {
    let dir = temp_dir();
    let input = copy_scene("animated_anchor.usda", dir.path());
    let out = dir.path().join("out.usdc");
    let outcome = usdsim([
        input.as_os_str(),
        "--frames".as_ref(),
        "20".as_ref(),
        "--chunk".as_ref(),
        "8".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
        "-q".as_ref(),
    ]);
    assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
    let announced: Vec<&str> = outcome.stdout.lines().filter_map(|l| l.strip_prefix("OUTPUT_FILE: ")).collect();
    assert_eq!(announced.len(), 3 + 1 + 1, "three clips, the manifest, the layer: {}", outcome.stdout);
    assert!(announced.iter().all(|f| Path::new(f).is_file()), "{announced:?}");
    assert_eq!(Path::new(announced.last().unwrap()), out);
}
