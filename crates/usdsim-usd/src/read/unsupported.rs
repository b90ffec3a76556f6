//! Names the physics usdsim meets and does not simulate (`schema/unsupported.rs`):
//! IM084 for each prim of an unsupported type or applying an unsupported API, IM085 for
//! each prim's `physx*` attributes that usdsim has no mapping for. A run, `inspect` and
//! `validate` all report them.

use crate::schema::unsupported::{is_physx_attribute, mapped_physx_attributes, Match, UNSUPPORTED};
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;

/// Most attribute names listed in one IM085 message.
const LISTED: usize = 8;

/// Warns about every unsupported physics prim, API and `physx*` attribute in `prims`.
pub(crate) fn report(ctx: &mut Ctx, prims: &[PrimInfo]) {
    let mapped: Vec<&str> = mapped_physx_attributes().collect();
    for prim in prims {
        for (what, why) in UNSUPPORTED {
            let (found, name) = match what {
                Match::PrimType(t) => (prim.type_name == t, t),
                Match::Api(api) => {
                    let instance = format!("{api}:");
                    (prim.apis.iter().any(|a| a == api || a.starts_with(&instance)), api)
                }
            };
            if found {
                ctx.warn("IM084", &prim.path, None, format!("{name}: {why}"));
            }
        }
        let unmapped: Vec<&str> = prim
            .properties
            .iter()
            .map(String::as_str)
            .filter(|p| is_physx_attribute(p) && !mapped.contains(p))
            .collect();
        if let Some(first) = unmapped.first() {
            let more = unmapped.len().saturating_sub(LISTED);
            let listed = unmapped.iter().take(LISTED).copied().collect::<Vec<_>>().join(", ");
            let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
            ctx.warn(
                "IM085",
                &prim.path,
                Some(first),
                format!("PhysX attributes usdsim has no mapping for are ignored: {listed}{tail}"),
            );
        }
    }
}
