//! Resuming a bake (`--start-time`): a run that imports a previous bake at its frame T
//! and continues from there ends where one long run ends.

mod common;

use std::path::Path;

use common::{bake, temp_dir, testdata, LayerFile};
use glam::Vec3;

/// The last sample of `prim.points` in the layer at `path`, with its time.
fn last_points(path: &Path, prim: &str) -> (f64, Vec<Vec3>) {
    LayerFile::open(path).samples(prim, "points").pop().expect("points are sampled")
}

fn max_difference(a: &[Vec3], b: &[Vec3]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(p, q)| (*p - *q).abs().max_element()).fold(0.0, f32::max)
}

/// 20 frames in one run against 10 + 10 frames, the second run importing the first
/// run's output at time code 10, on a bar swinging from an animated anchor (pinned
/// vertices, an animated attachment frame, elastic motion all carried across).
#[test]
fn ten_plus_ten_frames_end_where_twenty_end() {
    let dir = temp_dir();
    let input = dir.path().join("animated_anchor.usda");
    std::fs::copy(testdata("animated_anchor.usda"), &input).unwrap();
    let full = dir.path().join("full.sim.usdc");
    let first = dir.path().join("first.sim.usdc");
    let second = dir.path().join("second.sim.usdc");
    bake(&input, &full, &["--frames", "20"]);
    bake(&input, &first, &["--frames", "10"]);
    bake(&first, &second, &["--frames", "10", "--start-time", "10"]);

    let prim = "/World/Bar";
    let (t_full, p_full) = last_points(&full, prim);
    let (t_resumed, p_resumed) = last_points(&second, prim);
    assert_eq!(t_full, 20.0);
    assert_eq!(t_resumed, 20.0, "the resumed bake's frame k is at 10 + k");
    let layer = LayerFile::open(&second);
    let (start, end, _) = layer.time_range();
    assert_eq!((start, end), (Some(10.0), Some(20.0)));
    // The resumed run's frame 0 is the first run's last frame.
    let (_, p_first) = last_points(&first, prim);
    let resumed_frame0 = &layer.samples(prim, "points")[0].1;
    assert_eq!(max_difference(resumed_frame0, &p_first), 0.0);

    // Same motion: the bar moved by decimetres; the two answers agree to f32 rounding
    // of the state written at frame 10 (positions and velocities in local space) and to
    // the restart: a bake holds no BDF2 history, so the second run's first substep is
    // implicit Euler where the long run's was BDF2, a local error of order a·dt²
    // (0.18 mm measured, against 0.1 mm of rounding before BDF2).
    let moved = max_difference(&p_full, &p_first);
    let diff = max_difference(&p_full, &p_resumed);
    assert!(moved > 1e-2, "the bar must move between frames 10 and 20 ({moved})");
    assert!(diff < 5e-4, "20 frames vs 10 + 10 frames differ by {diff} (moved {moved})");
}

/// The same with plastic flow: the rest shape written at frame 10 carries the state.
/// Ignored since plastic flow hardens and stops at a distortion cap, both measured
/// against the original rest shape, which a bake does not write yet: a run continued
/// with --start-time starts that budget afresh (20 frames against 10 + 10 differ by
/// 0.029 m). Issue 12's `--resume` stores it in a `usdsim:` attribute; then this test
/// runs again.
#[test]
#[ignore = "--start-time does not carry the plastic budget (the original rest shape) yet"]
fn a_plastic_bar_resumes_where_it_left_off() {
    let dir = temp_dir();
    let input = dir.path().join("plastic_bar.usda");
    std::fs::copy(testdata("plastic_bar.usda"), &input).unwrap();
    let (full, first, second) =
        (dir.path().join("full.sim.usda"), dir.path().join("first.sim.usda"), dir.path().join("second.sim.usda"));
    let uncapped = ["--plastic-max-strain", "0"];
    bake(&input, &full, &[&["--frames", "20"][..], &uncapped].concat());
    bake(&input, &first, &[&["--frames", "10"][..], &uncapped].concat());
    bake(&first, &second, &[&["--frames", "10", "--start-time", "10"][..], &uncapped].concat());
    let prim = "/World/Bar";
    let (_, p_full) = last_points(&full, prim);
    let (_, p_first) = last_points(&first, prim);
    let (_, p_resumed) = last_points(&second, prim);
    let moved = max_difference(&p_full, &p_first);
    let diff = max_difference(&p_full, &p_resumed);
    assert!(moved > 1e-2, "the bar must move between frames 10 and 20 ({moved})");
    assert!(diff < 1e-4, "20 frames vs 10 + 10 frames differ by {diff} (moved {moved})");
}

/// Without --start-time a bake imports at its startTimeCode: frame 0 of the bake, which
/// is the input's initial state.
#[test]
fn a_bake_imports_at_its_start_by_default() {
    let dir = temp_dir();
    let input = dir.path().join("hanging_bar.usda");
    std::fs::copy(testdata("hanging_bar.usda"), &input).unwrap();
    let first = dir.path().join("first.sim.usda");
    let again = dir.path().join("again.sim.usda");
    bake(&input, &first, &["--frames", "3"]);
    bake(&first, &again, &["--frames", "3"]);
    let (_, a) = last_points(&first, "/World/Bar");
    let (_, b) = last_points(&again, "/World/Bar");
    assert!(max_difference(&a, &b) < 1e-5);
}

#[test]
fn start_time_must_be_a_number() {
    let outcome = common::usdsim([testdata("hanging_bar.usda").as_os_str(), "--start-time".as_ref(), "soon".as_ref()]);
    assert_eq!(outcome.code, Some(2), "{}", outcome.stderr);
    assert!(outcome.stderr.contains("--start-time"), "{}", outcome.stderr);
}
