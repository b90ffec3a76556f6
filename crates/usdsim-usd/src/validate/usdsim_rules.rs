//! Rules for our own schema extension (DB601–DB608, `schemas/usdsim/`): value ranges of
//! `UsdsimMaterialAPI` (tearing and plasticity) and `UsdsimBodyAPI` (constitutive model,
//! springs), and `usdsim:` attributes authored without their API. The importer rejects
//! the same values. Misspelt `usdsim:` names are DB501 (`typo_rules`).

use openusd::sdf;

use super::walk::Walk;
use crate::schema::usdsim::{
    BODY_API, BODY_ATTRIBUTES, LINK_KINDS, MATERIAL_API, MATERIAL_ATTRIBUTES, MODEL, MODELS, PLASTIC_MAX_STRAIN,
    PLASTIC_RATE, PLASTIC_YIELD, SPRING_DAMPING, SPRING_LINKS, SPRING_STIFFNESS, TEAR_RATIO,
};
use crate::stage::attribute_values as av;

/// Runs the extension rules on every prim.
pub(crate) fn check(walk: &mut Walk) {
    for i in 0..walk.prims.len() {
        if !walk.prims[i].properties.iter().any(|p| p.starts_with("usdsim:")) {
            continue;
        }
        let path = walk.prims[i].path.clone();
        check_values(walk, &path);
        for (api, names) in [(MATERIAL_API, MATERIAL_ATTRIBUTES), (BODY_API, BODY_ATTRIBUTES)] {
            let prim = &walk.prims[i];
            if prim.has_api(api) {
                continue;
            }
            let authored: Vec<&str> = names.into_iter().filter(|n| prim.properties.iter().any(|p| p == n)).collect();
            if let Some(&first) = authored.first() {
                walk.report(
                    "DB608",
                    &path,
                    Some(first),
                    format!(
                        "{} {} authored but the prim does not apply {api} (usdsim reads {} anyway); expected {api} in its apiSchemas",
                        authored.join(", "),
                        if authored.len() == 1 { "is" } else { "are" },
                        if authored.len() == 1 { "it" } else { "them" }
                    ),
                );
            }
        }
    }
}

/// DB601–DB607 on one prim's authored values (wrong types are DB100).
fn check_values(walk: &mut Walk, prim: &sdf::Path) {
    check_ratio(walk, prim, "DB601", TEAR_RATIO, "never tears");
    check_ratio(walk, prim, "DB602", PLASTIC_YIELD, "purely elastic");

    if let Some(v) = walk.read(prim, PLASTIC_RATE, av::f64_value) {
        if !(0.0..=1.0).contains(&v) {
            walk.report("DB603", prim, Some(PLASTIC_RATE), format!("found {v}; plasticRate must lie in [0, 1]"));
        }
    }
    if let Some(v) = walk.read(prim, PLASTIC_MAX_STRAIN, av::f64_value) {
        if !(v.is_finite() && v >= 0.0) {
            walk.report(
                "DB604",
                prim,
                Some(PLASTIC_MAX_STRAIN),
                format!("found {v}; plasticMaxStrain must be finite and >= 0 (0 = no cap)"),
            );
        }
    }
    for name in [SPRING_STIFFNESS, SPRING_DAMPING] {
        if let Some(v) = walk.read(prim, name, av::f64_value) {
            if !(v.is_finite() && v >= 0.0) {
                let leaf = &name["usdsim:".len()..];
                walk.report("DB605", prim, Some(name), format!("found {v}; {leaf} must be finite and >= 0"));
            }
        }
    }
    if let Some(model) = walk.read(prim, MODEL, av::token_value) {
        if !MODELS.contains(&model.as_str()) {
            walk.report("DB606", prim, Some(MODEL), format!("found {model:?}; model must be \"fem\" or \"springs\""));
        }
    }
    if let Some(links) = walk.read(prim, SPRING_LINKS, av::token_array) {
        let bad: Vec<&String> = links.iter().filter(|l| !LINK_KINDS.contains(&l.as_str())).collect();
        if links.is_empty() {
            walk.report(
                "DB607",
                prim,
                Some(SPRING_LINKS),
                "names no link kind; springLinks must list at least one of \"structural\", \"shear\", \"bend\"",
            );
        } else if let Some(first) = bad.first() {
            walk.report(
                "DB607",
                prim,
                Some(SPRING_LINKS),
                format!(
                    "unknown link kind {first:?}{}; springLinks may list only \"structural\", \"shear\" and \"bend\"",
                    if bad.len() > 1 { format!(" ({} unknown in all)", bad.len()) } else { String::new() }
                ),
            );
        }
    }
}

/// DB601/DB602: a stretch ratio that is 0 (off) or > 1.
fn check_ratio(walk: &mut Walk, prim: &sdf::Path, code: &'static str, name: &str, off: &str) {
    if let Some(v) = walk.read(prim, name, av::f64_value) {
        let leaf = &name["usdsim:".len()..];
        if !v.is_finite() {
            walk.report(code, prim, Some(name), format!("found {v}; {leaf} must be a finite number: 0 ({off}) or > 1"));
        } else if !(v == 0.0 || v > 1.0) {
            walk.report(code, prim, Some(name), format!("found {v}; {leaf} must be 0 ({off}) or > 1"));
        }
    }
}
