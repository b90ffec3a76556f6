//! `OmniPhysicsDeformablePoseAPI` (multiple-apply) and the AOUSD
//! `PhysicsDeformablePoseAPI`: named point sets with purposes, of which `bindPose` and
//! `selfCollisionFilterPose` matter.
//!
//! The instance name is arbitrary: the first instance (in applied-schema order) whose
//! `purposes` contain the wanted purpose wins. Attribute names:
//! `deformablePose:<name>:omniphysics:{points,purposes}` (OmniPhysics) and
//! `physics:deformablePose:<name>:{points,purposes}` (AOUSD).

use glam::DVec3;
use openusd::sdf;

use crate::error::ImportError;
use crate::schema::dialect::Dialect;
use crate::schema::names::{POSE_POINTS, POSE_PURPOSES};
use crate::stage::attribute_values;
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;

/// One applied pose instance: its name and attribute names.
struct Instance {
    name: String,
    points: String,
    purposes: String,
}

fn instances(prim: &PrimInfo) -> Vec<Instance> {
    prim.apis
        .iter()
        .filter_map(|api| {
            [Dialect::Omni, Dialect::Aousd].into_iter().find_map(|dialect| {
                let name = api.strip_prefix(dialect.names().pose_api)?.strip_prefix(':')?;
                Some(Instance {
                    name: name.to_string(),
                    points: dialect.pose_attr(name, POSE_POINTS),
                    purposes: dialect.pose_attr(name, POSE_PURPOSES),
                })
            })
        })
        .collect()
}

/// The local-space points of `prim`'s pose with purpose `purpose`, if an instance has
/// it and authors points. Several instances with the purpose: the first wins, with a
/// warning. An instance with the purpose but no (or empty) points is warned about and
/// ignored.
pub(crate) fn pose_points(ctx: &mut Ctx, prim: &PrimInfo, purpose: &str) -> Result<Option<Vec<DVec3>>, ImportError> {
    let mut found: Vec<Instance> = Vec::new();
    for inst in instances(prim) {
        let purposes = attribute_values::token_array(ctx, &prim.path, &inst.purposes)?.unwrap_or_default();
        if purposes.iter().any(|p| p == purpose) {
            found.push(inst);
        }
    }
    let Some(first) = found.first() else {
        return Ok(None);
    };
    if found.len() > 1 {
        let names: Vec<&str> = found.iter().map(|i| i.name.as_str()).collect();
        ctx.warn(
            "DB202",
            &prim.path,
            None,
            format!(
                "{} deformable pose instances ({}) have purpose {purpose}; using {:?}",
                found.len(),
                names.join(", "),
                first.name
            ),
        );
    }
    let points = attribute_values::vec3_array(ctx, &prim.path, &first.points)?;
    match points {
        Some(p) if !p.is_empty() => {
            if let Some(i) = p.iter().position(|v| !v.is_finite()) {
                return Err(ImportError::Invalid {
                    at: ctx.prop_loc(&prim.path, &first.points),
                    reason: format!("entry {i} is not finite"),
                });
            }
            Ok(Some(p))
        }
        _ => {
            let path: &sdf::Path = &prim.path;
            ctx.warn(
                "IM011",
                path,
                Some(&first.points),
                format!("pose with purpose {purpose} authors no points; ignored"),
            );
            Ok(None)
        }
    }
}
