//! Name rules (DB501, DB502): `omniphysics:` and `usdsim:` attributes and
//! `OmniPhysics*` and `Usdsim*` schema names the schemas do not define are most likely
//! typos, reported with the closest known name.

use super::walk::Walk;
use crate::schema::names::{OMNI_API_SCHEMAS, OMNI_ATTRIBUTES, OMNI_PRIM_TYPES, POSE_LEAVES};
use crate::schema::usdsim;

/// The known name closest to `name`, if it is close enough to be a typo of it.
fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    known
        .into_iter()
        .map(|k| (strsim::levenshtein(&lower, &k.to_lowercase()), k))
        .filter(|&(d, k)| d <= (k.len() / 4).max(2))
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

fn suggestion(found: Option<&str>) -> String {
    match found {
        Some(k) => format!("; did you mean {k}?"),
        None => String::new(),
    }
}

/// Whether `name` is a known pose attribute: `deformablePose:<instance>:omniphysics:<leaf>`.
fn pose_leaf(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("deformablePose:")?;
    let (_, leaf) = rest.split_once(":omniphysics:")?;
    Some(leaf)
}

/// Runs the name rules.
pub(crate) fn check(walk: &mut Walk) {
    for i in 0..walk.prims.len() {
        let path = walk.prims[i].path.clone();
        let properties = walk.prims[i].properties.clone();
        for name in &properties {
            let namespace = name.split(':').next().unwrap_or_default();
            if let Some(leaf) = pose_leaf(name) {
                if !POSE_LEAVES.contains(&leaf) {
                    let hint = suggestion(closest(leaf, POSE_LEAVES));
                    walk.report(
                        "DB501",
                        &path,
                        Some(name),
                        format!("unknown deformable pose attribute {leaf:?}; expected points or purposes{hint}"),
                    );
                }
            } else if namespace == "omniphysics" {
                if !OMNI_ATTRIBUTES.contains(&name.as_str()) {
                    let hint = suggestion(closest(name, OMNI_ATTRIBUTES));
                    walk.report(
                        "DB501",
                        &path,
                        Some(name),
                        format!("the OmniPhysics schema defines no attribute {name}{hint}"),
                    );
                }
            } else if namespace == "usdsim" {
                if !usdsim::attributes().any(|k| k == name) {
                    let hint = suggestion(closest(name, usdsim::attributes()));
                    walk.report(
                        "DB501",
                        &path,
                        Some(name),
                        format!("the usdsim schema extension defines no attribute {name}{hint}"),
                    );
                }
            } else if name.contains(':') && strsim::levenshtein(&namespace.to_lowercase(), "usdsim") <= 1 {
                let fixed = format!("usdsim{}", &name[namespace.len()..]);
                let hint = suggestion(closest(&fixed, usdsim::attributes()).or(Some(fixed.as_str())));
                walk.report("DB501", &path, Some(name), format!("namespace {namespace:?} is not \"usdsim\"{hint}"));
            } else if name.contains(':')
                && namespace != "omniphysics"
                && strsim::levenshtein(&namespace.to_lowercase(), "omniphysics") <= 2
            {
                let fixed = format!("omniphysics{}", &name[namespace.len()..]);
                let hint = suggestion(closest(&fixed, OMNI_ATTRIBUTES).or(Some(fixed.as_str())));
                walk.report(
                    "DB501",
                    &path,
                    Some(name),
                    format!("namespace {namespace:?} is not \"omniphysics\"{hint}"),
                );
            }
        }

        let apis = walk.prims[i].apis.clone();
        for api in &apis {
            let schema = api.split(':').next().unwrap_or_default();
            if looks_omni(schema) && !OMNI_API_SCHEMAS.contains(&schema) {
                let hint = suggestion(closest(schema, OMNI_API_SCHEMAS));
                walk.report("DB502", &path, None, format!("unknown API schema {schema} in apiSchemas{hint}"));
            } else if schema.to_lowercase().starts_with("usdsim") && !usdsim::API_SCHEMAS.contains(&schema) {
                let hint = suggestion(closest(schema, usdsim::API_SCHEMAS));
                walk.report("DB502", &path, None, format!("unknown API schema {schema} in apiSchemas{hint}"));
            }
        }
        let type_name = walk.prims[i].type_name.clone();
        if looks_omni(&type_name) && !OMNI_PRIM_TYPES.contains(&type_name.as_str()) {
            let hint = suggestion(closest(&type_name, OMNI_PRIM_TYPES));
            walk.report("DB502", &path, None, format!("unknown prim type {type_name}{hint}"));
        }
    }
}

/// Whether a schema name is meant to be an OmniPhysics one (`OmniPhysics…`, any case,
/// or a near miss of the prefix).
fn looks_omni(name: &str) -> bool {
    let prefix: String = name.chars().take(11).collect();
    !name.is_empty() && strsim::levenshtein(&prefix.to_lowercase(), "omniphysics") <= 1
}
