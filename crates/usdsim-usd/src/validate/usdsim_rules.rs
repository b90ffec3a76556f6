//! Rules for our own schema extension (DB601–DB608, `schemas/usdsim/`): value ranges of
//! `UsdsimMaterialAPI` (tearing and plasticity) and `UsdsimBodyAPI` (constitutive model,
//! springs), and `usdsim:` attributes authored without their API. The importer rejects
//! the same values. Misspelt `usdsim:` names are DB501 (`typo_rules`).

use openusd::sdf;

use super::walk::Walk;
use crate::schema::usdsim::{
    check_model, check_spring_links, BODY_API, BODY_ATTRIBUTES, MATERIAL_API, MATERIAL_ATTRIBUTES, MODEL, MODEL_RULE,
    NUMBER_RANGES, SPRING_LINKS, SPRING_LINKS_RULE,
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

/// DB601–DB607 on one prim's authored values (wrong types are DB100), with the ranges
/// and sentences of `schema/usdsim.rs` the importer uses too.
fn check_values(walk: &mut Walk, prim: &sdf::Path) {
    for range in &NUMBER_RANGES {
        if let Some(v) = walk.read(prim, range.name, av::f64_value) {
            if let Err(reason) = range.check(v) {
                walk.report(range.rule, prim, Some(range.name), reason);
            }
        }
    }
    if let Some(model) = walk.read(prim, MODEL, av::token_value) {
        if let Err(reason) = check_model(&model) {
            walk.report(MODEL_RULE, prim, Some(MODEL), reason);
        }
    }
    if let Some(links) = walk.read(prim, SPRING_LINKS, av::token_array) {
        if let Err(reason) = check_spring_links(&links) {
            walk.report(SPRING_LINKS_RULE, prim, Some(SPRING_LINKS), reason);
        }
    }
}
