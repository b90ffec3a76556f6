//! `simulationOwner` rules (DB009, DB010): a deformable body names the `PhysicsScene`
//! that simulates it. The importer reads the first target of the body prim's
//! `omniphysics:simulationOwner` (or `physics:simulationOwner`) and runs the body in
//! the default scene (the first `PhysicsScene` in traversal order) when that target is
//! not a `PhysicsScene`.

use super::walk::Walk;
use crate::schema::names::BODY_APIS;

/// Runs the owner rules on every prim that applies a deformable body API.
pub(crate) fn check(walk: &mut Walk) {
    for i in 0..walk.prims.len() {
        let Some(dialect) = BODY_APIS.iter().find(|(api, _)| walk.prims[i].has_api(api)).map(|&(_, d)| d) else {
            continue;
        };
        let path = walk.prims[i].path.clone();
        let rel = dialect.names().owner;
        let targets = walk.targets(&path, rel);
        let Some(first) = targets.first().cloned() else {
            continue;
        };
        if targets.len() > 1 {
            walk.report(
                "DB010",
                &path,
                Some(rel),
                format!("has {} targets; only the first, {first}, is used; expected one PhysicsScene", targets.len()),
            );
        }
        match walk.find(&first) {
            Some(t) if walk.prims[t].type_name == "PhysicsScene" => {}
            Some(t) => {
                let found = match walk.prims[t].type_name.as_str() {
                    "" => "an untyped prim".to_string(),
                    other if other.starts_with(['A', 'E', 'I', 'O', 'U', 'X']) => format!("an {other}"),
                    other => format!("a {other}"),
                };
                walk.report(
                    "DB009",
                    &path,
                    Some(rel),
                    format!(
                        "target {first} is {found}, not a PhysicsScene; the body would run in the default scene; expected a PhysicsScene prim"
                    ),
                );
            }
            None => {
                let why = if walk.exists(&first) { "is not an active, defined prim" } else { "does not exist" };
                walk.report(
                    "DB009",
                    &path,
                    Some(rel),
                    format!(
                        "target {first} {why}; the body would run in the default scene; expected a PhysicsScene prim"
                    ),
                );
            }
        }
    }
}
