//! Units rule DB310: authored densities and gravity are plausible in SI once the
//! stage's `metersPerUnit` and `kilogramsPerUnit` apply. A stage that leaves
//! `metersPerUnit` unauthored is in centimetres (USD's fallback, which the importer
//! follows as Pixar's USD does); values written for metres then read as a density of
//! 1e9 kg/m³ or a gravity of 0.098 m/s², and nothing else would say so.

use openusd::sdf;

use super::walk::Walk;
use crate::schema::material::{is_any_deformable_api, DENSITY};
use crate::stage::attribute_values as av;
use crate::stage::stage_info::StageInfo;

/// Densities outside this range (kg/m³) are suspicious: lighter than aerogel, heavier than
/// osmium.
const DENSITY_SI: (f64, f64) = (1.0, 25_000.0);
/// Gravity magnitudes outside this range (m/s²) are suspicious.
const GRAVITY_SI: (f64, f64) = (0.5, 100.0);

const GRAVITY_MAGNITUDE: &str = "physics:gravityMagnitude";

/// Reports DB310 on each implausible density of a deformable material and on each
/// implausible gravity magnitude of a `PhysicsScene`.
pub(crate) fn check(walk: &mut Walk, info: &StageInfo) {
    let (mpu, kpu) = (info.meters_per_unit, info.kilograms_per_unit);
    let units = format!("metersPerUnit {mpu}, kilogramsPerUnit {kpu}");
    let hint = if mpu == 0.01 {
        "; the stage is in centimetres (metersPerUnit unauthored or 0.01): author metersPerUnit = 1 if the values are in metres"
    } else {
        ""
    };
    let materials: Vec<sdf::Path> = walk
        .prims
        .iter()
        .filter(|p| p.apis.iter().any(|api| is_any_deformable_api(api)))
        .map(|p| p.path.clone())
        .collect();
    for material in materials {
        for name in DENSITY.names {
            let Some(d) = walk.read(&material, name, av::f64_value) else { continue };
            let si = d * kpu / (mpu * mpu * mpu);
            // 0 means "derive": not a density to judge.
            if d > 0.0 && d.is_finite() && !(DENSITY_SI.0..=DENSITY_SI.1).contains(&si) {
                walk.report(
                    "DB310",
                    &material,
                    Some(name),
                    format!("{} reads as {si:.3e} kg/m³ in this stage's units ({units}){hint}", shortest(d)),
                );
            }
        }
    }
    let scenes: Vec<sdf::Path> =
        walk.prims.iter().filter(|p| p.type_name == "PhysicsScene").map(|p| p.path.clone()).collect();
    for scene in scenes {
        let Some(g) = walk.read(&scene, GRAVITY_MAGNITUDE, av::f64_value) else { continue };
        let si = g * mpu;
        // 0 is deliberate zero gravity, -inf means "the default".
        if g > 0.0 && g.is_finite() && !(GRAVITY_SI.0..=GRAVITY_SI.1).contains(&si) {
            walk.report(
                "DB310",
                &scene,
                Some(GRAVITY_MAGNITUDE),
                format!("{} reads as {si:.3} m/s² in this stage's units ({units}){hint}", shortest(g)),
            );
        }
    }
}

/// A value as authored: a `float` attribute read as f64 prints as the float it was
/// (9.81, not 9.8100004196167).
fn shortest(v: f64) -> String {
    let single = v as f32;
    if f64::from(single) == v {
        single.to_string()
    } else {
        v.to_string()
    }
}
