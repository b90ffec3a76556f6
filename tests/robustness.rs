//! Solver robustness on real assets (issue 11), end to end through the binary: an
//! authored overlap resolved without a pop, force integrators that pick a stable step,
//! plastic creep that stays valid, and a divergence that names where it happened.

mod common;

use common::{centroid, composed_points, copy_scene, open_stage, temp_dir, usdsim};
use std::path::{Path, PathBuf};

/// PhysX's deformable benchmark asset (`../shared/corpus`), or its first `envs` envs;
/// `None`, with a note, where the corpus is not beside the checkout (as the other corpus
/// tests do).
fn envs_asset(dir: &Path, envs: Option<usize>) -> Option<PathBuf> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/physx-ovphysx/deformables_envs_128.usda");
    let Ok(text) = std::fs::read_to_string(&source) else {
        eprintln!("note: {} not found; the envs fall test is skipped", source.display());
        return None;
    };
    let text = match envs {
        // The envs are one class referenced 128 times, 4 m apart, with no ground: they
        // never touch each other, so a prefix of them behaves as the whole asset does.
        Some(n) => {
            let cut = text.find(&format!("        def Xform \"env_{n}\"")).expect("the asset has more envs");
            let end = text.rfind("    }\n}").expect("the envs Xform closes");
            format!("{}{}", &text[..cut], &text[end..])
        }
        None => text,
    };
    let path = dir.join("envs.usda");
    std::fs::write(&path, text).unwrap();
    Some(path)
}

/// Runs the envs asset for 24 frames (1 s) and checks every body's fall (vertex
/// centroid, along −Y) against ½gt² = 4.905 m within 1.5 %. Before the max
/// depenetration velocity the cloth, authored inside its contact distance of the volume
/// below, kicked them apart: volumes fell 5.154 m, cloths 4.692 m (5 % off).
fn envs_fall_freely(envs: Option<usize>, bodies: usize) {
    let dir = temp_dir();
    let Some(input) = envs_asset(dir.path(), envs) else {
        return;
    };
    let output = dir.path().join("envs.sim.usda");
    let run = usdsim([input.as_os_str(), "-o".as_ref(), output.as_os_str(), "--frames".as_ref(), "24".as_ref()]);
    run.assert_success();
    let stage = open_stage(&output);
    let expected = 0.5 * 9.81 * 1.0f64.powi(2);
    let mut checked = 0;
    for env in 0..envs.unwrap_or(128) {
        for part in ["Volume", "Surface"] {
            let prim = format!("/World/envs/env_{env}/{part}");
            let fall = centroid(&composed_points(&stage, &prim, "points", 0.0)).y
                - centroid(&composed_points(&stage, &prim, "points", 24.0)).y;
            assert!((fall / expected - 1.0).abs() < 0.015, "{prim} fell {fall} m in 1 s, ½gt² = {expected} m");
            checked += 1;
        }
    }
    assert_eq!(checked, bodies);
}

#[test]
fn the_physx_envs_asset_falls_freely() {
    envs_fall_freely(Some(4), 8);
}

/// All 256 bodies (about 50 s in release on two cores): `cargo test --release --test
/// robustness -- --ignored`.
#[test]
#[ignore = "the whole 128-env asset takes about a minute"]
fn all_256_bodies_of_the_physx_envs_asset_fall_freely() {
    envs_fall_freely(None, 256);
}

#[test]
fn a_cube_authored_into_the_ground_rises_out_no_faster_than_the_bound_then_rests() {
    let dir = temp_dir();
    let input = copy_scene("overlap_cube.usda", dir.path());
    let output = dir.path().join("out.usda");
    let run = usdsim([input.as_os_str(), "-o".as_ref(), output.as_os_str(), "--frames".as_ref(), "48".as_ref()]);
    run.assert_success();
    assert!(
        run.stderr.contains("/World/Cube and /World/Ground are authored interpenetrating"),
        "no warning naming both prims:\n{}",
        run.stderr
    );
    let stage = open_stage(&output);
    let lowest = |k: u32| {
        composed_points(&stage, "/World/Cube", "points", k as f64).iter().map(|p| p.z).fold(f32::MAX, f32::min)
    };
    let (bound, frame_dt) = (0.5f32, 1.0 / 24.0);
    // The bottom starts 5 mm under the ground and must end 2 mm (the contact offset)
    // above it, never rising faster than 0.5 m/s, i.e. 20.8 mm a frame.
    assert!((lowest(0) + 0.005).abs() < 1e-6);
    let mut speeds = Vec::new();
    for k in 1..=48 {
        let rise = lowest(k) - lowest(k - 1);
        speeds.push(rise / frame_dt);
        assert!(rise <= bound * frame_dt * 1.01, "frame {k}: the bottom rose {rise} m, faster than {bound} m/s");
        let v = composed_points(&stage, "/World/Cube", "velocities", k as f64);
        let fastest = v.iter().map(|v| v.length()).fold(0.0, f32::max);
        assert!(fastest <= bound, "frame {k}: a vertex moves at {fastest} m/s");
    }
    eprintln!("rise speeds of the lowest vertex, frames 1-6 (m/s): {:?}", &speeds[..6]);
    // Out and resting: on the contact offset, still.
    assert!((lowest(48) - 0.002).abs() < 5e-4, "resting at {}", lowest(48));
    let v = composed_points(&stage, "/World/Cube", "velocities", 48.0);
    assert!(v.iter().all(|v| v.length() < 0.01), "not at rest: {:?}", v.iter().map(|v| v.length()).fold(0.0, f32::max));
}

/// Runs the stiff cloth on the spring model with `extra` arguments for 3 s.
fn stiff_cloth(extra: &[&str]) -> (common::Outcome, tempfile::TempDir, PathBuf) {
    let dir = temp_dir();
    let input = copy_scene("stiff_cloth.usda", dir.path());
    let output = dir.path().join("out.usda");
    let mut args = vec![input.into_os_string(), "-o".into(), output.clone().into_os_string()];
    args.extend(["--frames", "72", "--model", "springs"].iter().chain(extra).map(|s| s.into()));
    (usdsim(args), dir, output)
}

#[test]
fn force_integrators_choose_a_stable_substep_count() {
    // 20² vertices, 1 m, E = 1e6 Pa, 1 mm, 300 kg/m³, two corners pinned. Explicit
    // Euler has no stable step without damping, so it runs with kd = 0.05.
    for extra in [
        &["--integrator", "symplectic"][..],
        &["--integrator", "rk4"],
        &["--integrator", "euler", "--spring-damping", "0.05"],
    ] {
        let (run, _dir, output) = stiff_cloth(extra);
        run.assert_success();
        assert!(run.stderr.contains("substeps per frame; running with"), "{extra:?}: {}", run.stderr);
        let stage = open_stage(&output);
        let start = composed_points(&stage, "/World/Cloth", "points", 0.0);
        let mut swing = 0.0f32;
        for k in (6..=72).step_by(6) {
            let now = composed_points(&stage, "/World/Cloth", "points", k as f64);
            assert!(now.iter().all(|p| p.is_finite()), "{extra:?}: frame {k} not finite");
            for corner in [380, 399] {
                let moved = now[corner].distance(start[corner]);
                assert!(moved < 1e-4, "{extra:?}: pinned corner {corner} moved {moved} by frame {k}");
            }
            swing = swing.max(now[0].distance(start[0]));
        }
        // It moves: the free corner swings down (and back), more than 20 cm.
        assert!(swing > 0.2, "{extra:?}: the free corner moved only {swing} m");
    }
}

/// Explicit Euler on undamped springs diverges at any step: the error says what helps
/// (damping, another integrator), not more substeps; other divergences still suggest them.
#[test]
fn a_divergence_of_explicit_euler_on_undamped_springs_names_damping_not_substeps() {
    let (run, _dir, _output) = stiff_cloth(&["--integrator", "euler"]);
    assert_eq!(run.code, Some(3), "exit 3 is a divergence: {}", run.stderr);
    let error = run.stderr.lines().find(|l| l.starts_with("error:")).expect("an error line");
    assert!(error.contains("diverged at frame") && error.contains("damping"), "{error}");
    assert!(error.contains("--integrator symplectic") && !error.contains("try more --substeps"), "{error}");
    let (run, _dir, _output) = stiff_cloth(&["--integrator", "symplectic", "--substeps", "10"]);
    let error = run.stderr.lines().find(|l| l.starts_with("error:")).expect("an error line");
    assert!(error.contains("try more --substeps"), "{error}");
}

#[test]
fn explicit_substeps_are_honoured_then_the_divergence_is_named_and_earlier_frames_kept() {
    let (run, _dir, output) = stiff_cloth(&["--integrator", "symplectic", "--substeps", "10"]);
    assert_eq!(run.code, Some(3), "exit 3 is a divergence: {}", run.stderr);
    run.assert_no_panic();
    assert!(run.stderr.contains("use at least --substeps"), "no stability warning:\n{}", run.stderr);
    assert!(!run.stderr.contains("running with"), "explicit substeps were changed:\n{}", run.stderr);
    let error = run.stderr.lines().find(|l| l.starts_with("error:")).expect("an error line");
    assert!(error.contains("diverged at frame") && error.contains("/World/Cloth.points: "), "{error}");
    assert!(error.contains("is not finite"), "{error}");
    // The frames before the divergence were written, finite.
    let frame: u32 = error.split("diverged at frame ").nth(1).unwrap().split(':').next().unwrap().parse().unwrap();
    assert!(frame >= 2, "{error}");
    let stage = open_stage(&output);
    assert_eq!(stage.end_time_code(), f64::from(frame - 1));
    for k in 0..frame {
        assert!(composed_points(&stage, "/World/Cloth", "points", k as f64).iter().all(|p| p.is_finite()));
    }
}

#[test]
fn a_creeping_bar_runs_300_frames_finite() {
    // The plain-data twin in crates/usdsim-core/tests/plasticity.rs checks the rest
    // length frame by frame; here the whole run through the binary stays finite.
    let dir = temp_dir();
    let input = copy_scene("creep_bar.usda", dir.path());
    let output = dir.path().join("out.usda");
    let run = usdsim([
        input.as_os_str(),
        "-o".as_ref(),
        output.as_os_str(),
        "--frames".as_ref(),
        "300".as_ref(),
        "--plastic-yield".as_ref(),
        "1.001".as_ref(),
        "--plastic-rate".as_ref(),
        "1".as_ref(),
    ]);
    run.assert_success();
    let stage = open_stage(&output);
    let mut length = 1.0f32;
    for k in (0..=300).step_by(25) {
        let rest = composed_points(&stage, "/World/Bar", "omniphysics:restShapePoints", k as f64);
        assert!(rest.iter().all(|p| p.is_finite()), "frame {k}");
        let z = |f: fn(f32, f32) -> f32, init| rest.iter().map(|p| p.z).fold(init, f);
        // Every tet keeps its authored first corner, so the extent stays within the
        // authored bar grown by the creep, never the runaway of before (−8e6 to 2e4).
        assert!(z(f32::min, f32::MAX) > 0.5 && z(f32::max, f32::MIN) < 2.5, "frame {k}");
        let points = composed_points(&stage, "/World/Bar", "points", k as f64);
        assert!(points.iter().all(|p| p.is_finite()), "frame {k}");
        // The hanging length (it still bounces elastically, so not monotonic).
        length = 2.0 - points.iter().map(|p| p.z).fold(f32::MAX, f32::min);
        assert!((1.0..1.3).contains(&length), "frame {k}: the bar hangs {length} m long");
    }
    assert!(length > 1.05, "the bar crept only to {length} m");
}
