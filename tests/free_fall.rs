//! Free fall through the whole pipeline (import → solver → export → re-read), in
//! several unit, up-axis and gravity set-ups.
//!
//! Each scene is a single tetrahedron with no colliders (`testdata/free_fall_*.usda`).
//! Its four vertices have equal masses, so the vertex centroid is the centre of mass,
//! and internal (elastic) corrections cannot move it: XPBD corrections are
//! momentum-conserving. Gravity alone moves it, and the solver's default time scheme is
//! BDF2 with `dt = frame_dt / substeps`, started by one implicit Euler substep. BDF2 is
//! exact for a constant acceleration, so after `n` substeps (`t = n dt`) only the start's
//! `½ g dt²` remains, spread by BDF2's second root 1/3:
//!
//! ```text
//! x(t) = x0 + ½ g t² + ¾ g dt² (1 − 3⁻ⁿ),    v(t) = g t
//! ```
//!
//! (a first-order step would be off by ½ g t dt, or 0.4 % at t = 1 s with 10 substeps). The
//! tolerance is set by single precision (see [`FreeFall::tolerance`]) and checked to be
//! several times smaller than that difference, so the test tells the two apart, and
//! tells a wrong time step, gravity, unit conversion or axis apart too.

mod common;

use common::{bake, centroid, temp_dir, testdata, LayerFile};
use glam::{DMat3, DVec3};

/// One free-fall set-up and what the physics says about it.
struct FreeFall {
    scene: &'static str,
    prim: &'static str,
    /// Gravity in world space, stage units per second squared.
    gravity: DVec3,
    /// World direction → the mesh's local space (inverse of the linear part of its
    /// local-to-world transform). Points are written in local space.
    local_from_world: DMat3,
    time_codes_per_second: f64,
    start_time_code: f64,
    substeps: u32,
    frames: u32,
    /// The largest |world coordinate| along the gravity axis during the fall.
    reach: f32,
}

impl FreeFall {
    /// Relative tolerance on displacement and velocity, from the precision of the
    /// solver's state: world positions are `f32` and velocity is re-derived each substep
    /// as Δx/dt, so each substep's growth of Δx (exactly g dt²) is rounded to a multiple
    /// of the position's ulp, which makes the effective acceleration exact only to
    /// ½ ulp(x) / (|g| dt²). A small absolute floor covers the f64 bookkeeping here.
    fn tolerance(&self, substeps: u32) -> f64 {
        let dt = 1.0 / (self.time_codes_per_second * substeps as f64);
        let ulp = f64::from(self.reach.next_up() - self.reach);
        0.5 * ulp / (self.gravity.length() * dt * dt) + 1e-6
    }

    fn check(&self) {
        let dir = temp_dir();
        let output = dir.path().join("out.usdc");
        let substeps = self.substeps.to_string();
        let frames = self.frames.to_string();
        let run = bake(&testdata(self.scene), &output, &["--frames", &frames, "--substeps", &substeps, "--json"]);
        // The substeps actually used: the solver raises them for stiff tets (these have
        // the schema's default E = 1 MPa), and the expected fall depends on the step.
        let summary: serde_json::Value = serde_json::from_str(&run.stdout).expect("a JSON summary");
        let substeps = summary["substeps"].as_u64().expect("substeps in the summary") as u32;
        assert!(substeps >= self.substeps);
        let tolerance = self.tolerance(substeps);
        // The tolerance must stay well below the ½ g t dt term (relative size dt / t) at
        // the last frame, or this test could not tell a first-order step from ½ g t².
        assert!(
            tolerance < 0.25 / (self.frames * self.substeps) as f64,
            "{}: set-up too imprecise to test the integrator (tolerance {tolerance})",
            self.scene
        );

        let baked = LayerFile::open(&output);
        let points = baked.samples(self.prim, "points");
        let velocities = baked.samples(self.prim, "velocities");
        let times: Vec<f64> = points.iter().map(|(t, _)| *t).collect();
        let expected_times: Vec<f64> = (0..=self.frames).map(|k| self.start_time_code + k as f64).collect();
        assert_eq!(times, expected_times, "{}: frame k must be at startTimeCode + k", self.scene);

        let x0 = centroid(&points[0].1);
        let frame_dt = 1.0 / self.time_codes_per_second;
        let dt = frame_dt / substeps as f64;
        let g_local = self.local_from_world * self.gravity;
        for k in [1, 2, self.frames / 2, self.frames] {
            let t = k as f64 * frame_dt;
            // BDF2 (the default time scheme) is exact for a constant acceleration once
            // started; its implicit Euler first substep falls ½ g dt² too far, which the
            // steps after carry as ¾ g dt² (1 − 3⁻ⁿ) after n substeps.
            let n = (k * substeps) as i32;
            let expected = g_local * (0.5 * t * t + 0.75 * dt * dt * (1.0 - 3f64.powi(-n)));
            let moved = centroid(&points[k as usize].1) - x0;
            let error = (moved - expected).length();
            assert!(
                error <= tolerance * expected.length(),
                "{}: frame {k} (t = {t} s): centroid moved {moved}, BDF2 says {expected} (½gt² would be {}), error {error}",
                self.scene,
                0.5 * g_local * t * t
            );
            let v = centroid(&velocities[k as usize].1);
            let expected_v = g_local * t;
            assert!(
                (v - expected_v).length() <= tolerance * expected_v.length(),
                "{}: frame {k}: mean velocity {v}, expected g t = {expected_v}",
                self.scene
            );
        }
    }
}

#[test]
fn free_fall_z_up_meters_without_physics_scene_uses_earth_gravity_along_minus_z() {
    FreeFall {
        scene: "free_fall_z_up_meters.usda",
        prim: "/World/Tet",
        gravity: DVec3::new(0.0, 0.0, -9.81),
        local_from_world: DMat3::IDENTITY,
        time_codes_per_second: 24.0,
        start_time_code: 0.0,
        substeps: 10,
        frames: 24,
        // From z = 2 down to about -2.9.
        reach: 3.0,
    }
    .check();
}

#[test]
fn free_fall_y_up_centimeters_defaults_gravity_to_981_cm_per_s2_along_minus_y() {
    FreeFall {
        scene: "free_fall_y_up_centimeters.usda",
        prim: "/World/Tet",
        gravity: DVec3::new(0.0, -981.0, 0.0),
        local_from_world: DMat3::IDENTITY,
        time_codes_per_second: 24.0,
        start_time_code: 0.0,
        substeps: 4,
        frames: 24,
        // From y = 110 down to about -395.
        reach: 400.0,
    }
    .check();
}

#[test]
fn free_fall_follows_authored_gravity_and_is_written_in_local_space() {
    // The tet's parent Xform is translate (1, 2, 3) · rotateZ 90° · scale 2, so a world
    // displacement d appears in the points as scale⁻¹ · rotation⁻¹ · d.
    let world_from_local = DMat3::from_rotation_z(90f64.to_radians()) * DMat3::from_diagonal(DVec3::splat(2.0));
    FreeFall {
        scene: "free_fall_authored_gravity.usda",
        prim: "/World/Frame/Tet",
        // Authored direction (-2, 0, 0) is normalized; magnitude 5 is in stage units.
        gravity: DVec3::new(-5.0, 0.0, 0.0),
        local_from_world: world_from_local.inverse(),
        time_codes_per_second: 30.0,
        start_time_code: 10.0,
        substeps: 10,
        // Half a simulated second keeps the precision bound below the ½ g t dt term.
        frames: 15,
        // World x starts in [0.8, 1] and falls by 0.6.
        reach: 1.0,
    }
    .check();
}

/// With many substeps g dt² shrinks towards the ulp of the positions; a solver that
/// re-derives velocity from f32 positions then drifts (it once fell 8.5 % too far in
/// 1 s at 200 substeps).
#[test]
fn free_fall_stays_accurate_with_many_substeps() {
    let scene = FreeFall {
        scene: "free_fall_z_up_meters.usda",
        prim: "/World/Tet",
        gravity: DVec3::new(0.0, 0.0, -9.81),
        local_from_world: DMat3::IDENTITY,
        time_codes_per_second: 24.0,
        start_time_code: 0.0,
        substeps: 200,
        frames: 24,
        reach: 3.0,
    };
    // Not `check()`: its precision-derived tolerance is what is too loose here. A fixed
    // 0.1 % is what any user of --substeps would expect.
    let dir = temp_dir();
    let output = dir.path().join("out.usdc");
    bake(&testdata(scene.scene), &output, &["--frames", "24", "--substeps", "200"]);
    let points = LayerFile::open(&output).samples(scene.prim, "points");
    let dt = 1.0 / (24.0 * 200.0);
    let t = 1.0;
    let expected = 0.5 * scene.gravity * t * (t + dt);
    let moved = centroid(&points[24].1) - centroid(&points[0].1);
    assert!((moved - expected).length() <= 1e-3 * expected.length(), "moved {moved}, expected {expected}");
}

/// PhysX's `physxDeformableBody:disableGravity = true` on the body prim: the body floats
/// (its centroid moves less than a micrometre in a second), while the same tet with the
/// switch off falls ½ g t² (within 1 %); `validate` reports a switch that is not a bool.
#[test]
fn a_body_that_disables_gravity_floats() {
    let dir = temp_dir();
    let text = std::fs::read_to_string(testdata("free_fall_z_up_meters.usda")).unwrap();
    let anchor = "bool omniphysics:deformableBodyEnabled = 1";
    assert!(text.contains(anchor));
    let mut fall = Vec::new();
    for (name, value) in [
        ("floats", "bool physxDeformableBody:disableGravity = 1"),
        ("falls", "bool physxDeformableBody:disableGravity = 0"),
    ] {
        let input = dir.path().join(format!("{name}.usda"));
        std::fs::write(&input, text.replace(anchor, &format!("{anchor}\n        {value}"))).unwrap();
        let output = dir.path().join(format!("{name}.sim.usda"));
        bake(&input, &output, &["--frames", "24"]);
        let samples = LayerFile::open(&output).samples("/World/Tet", "points");
        let (first, last) = (&samples.first().unwrap().1, &samples.last().unwrap().1);
        fall.push((centroid(first) - centroid(last)).z);
    }
    assert!(fall[0].abs() < 1e-6, "the body that disables gravity moved {} m", fall[0]);
    let expected = 0.5 * 9.81 * 1.0 * 1.0;
    assert!((fall[1] / expected - 1.0).abs() < 0.01, "fell {} m, expected {expected}", fall[1]);

    let bad = dir.path().join("bad.usda");
    std::fs::write(
        &bad,
        text.replace(anchor, &format!("{anchor}\n        token physxDeformableBody:disableGravity = \"yes\"")),
    )
    .unwrap();
    let out = common::usdsim(["validate".as_ref(), bad.as_os_str()]);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("DB100") && out.stdout.contains("disableGravity"), "{}", out.stdout);
}
