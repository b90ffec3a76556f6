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
