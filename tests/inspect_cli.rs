//! `usdsim inspect`: the importer's understanding of a scene, as a table and as JSON.

mod common;

use common::{temp_dir, testdata, usdsim};

#[test]
fn table_names_bodies_pins_colliders_and_units() {
    let outcome = usdsim(["inspect".as_ref(), testdata("hanging_bar.usda").as_os_str()]);
    assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
    outcome.assert_no_panic();
    for needle in [
        "metersPerUnit 1",
        "upAxis Z",
        "timeCodesPerSecond 24",
        "bodies (1):",
        "volume",
        "pins (1):",
        "colliders (0):",
        "Pa",
    ] {
        assert!(outcome.stdout.contains(needle), "missing {needle:?} in:\n{}", outcome.stdout);
    }
}

#[test]
fn json_has_mass_and_material_in_si_and_stage_units() {
    // 20 cm cube of density 1000 kg/m³ in a centimetre stage: 8 kg; gravity 981 cm/s².
    let outcome = usdsim(["inspect".as_ref(), "--json".as_ref(), testdata("y_up_centimeters.usda").as_os_str()]);
    assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
    let v: serde_json::Value = serde_json::from_str(&outcome.stdout).unwrap();
    assert_eq!(v["units"]["meters_per_unit"], 0.01);
    assert_eq!(v["units"]["up_axis"], "Y");
    let g = v["gravity"]["magnitude"]["stage"].as_f64().unwrap();
    assert!((g - 981.0).abs() < 1e-2, "{g}");
    let body = &v["bodies"][0];
    assert_eq!(body["kind"], "volume");
    let kg = body["mass"]["si"].as_f64().unwrap();
    assert!((kg - 8.0).abs() < 1e-3, "mass {kg}");
    let rho = body["material"]["density"]["si"].as_f64().unwrap();
    assert!((rho - 1000.0).abs() < 1e-2, "density {rho}");
}

#[test]
fn cloth_reports_surface_material_and_colliders() {
    let outcome = usdsim(["inspect".as_ref(), testdata("cloth_on_sphere.usda").as_os_str()]);
    assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
    assert!(outcome.stdout.contains("surface"), "{}", outcome.stdout);
    assert!(outcome.stdout.contains("thickness"), "{}", outcome.stdout);
    assert!(outcome.stdout.contains("sphere, radius"), "{}", outcome.stdout);
}

#[test]
fn missing_file_is_exit_1() {
    let dir = temp_dir();
    let outcome = usdsim(["inspect".as_ref(), dir.path().join("nope.usda").as_os_str()]);
    assert_eq!(outcome.code, Some(1));
    assert!(outcome.stderr.contains("nope.usda"));
}

#[test]
fn json_reports_the_substeps_a_stiff_scene_will_run_at() {
    let inspect = |path: &std::path::Path| {
        let outcome = usdsim(["inspect".as_ref(), "--json".as_ref(), path.as_os_str()]);
        assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
        serde_json::from_str::<serde_json::Value>(&outcome.stdout).unwrap()
    };
    // The soft tet cube (E = 1e5 Pa, 0.25 m cells) runs at the default 10 substeps.
    let soft = inspect(&testdata("tet_cube_on_ground.usda"));
    assert_eq!(soft["solver"]["substeps"], 10);
    assert!(soft["solver"]["warnings"].as_array().unwrap().is_empty());
    // The same cube at E = 1e8 Pa needs more to stay stable, and says so.
    let dir = temp_dir();
    let stiff_path = dir.path().join("stiff.usda");
    let text = std::fs::read_to_string(testdata("tet_cube_on_ground.usda")).unwrap();
    assert!(text.contains("omniphysics:youngsModulus = 100000"));
    std::fs::write(
        &stiff_path,
        text.replacen("omniphysics:youngsModulus = 100000", "omniphysics:youngsModulus = 1e8", 1),
    )
    .unwrap();
    let stiff = inspect(&stiff_path);
    let substeps = stiff["solver"]["substeps"].as_u64().unwrap();
    let omega = stiff["solver"]["stiffest_tet_frequency"].as_f64().unwrap();
    assert!(substeps > 10, "{}", stiff["solver"]);
    // The bound: ω·dt ≤ 0.5 at 24 frames per second, and no more substeps than that.
    let omega_dt = omega / 24.0 / substeps as f64;
    assert!(
        omega_dt <= 0.5 + 1e-6 && omega / 24.0 / (substeps - 1) as f64 > 0.5 - 1e-6,
        "ω {omega} at {substeps} substeps"
    );
    assert!(stiff["solver"]["warnings"][0].as_str().unwrap().contains("/World/"), "{}", stiff["solver"]);
}
