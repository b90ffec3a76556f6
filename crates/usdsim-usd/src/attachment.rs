//! Attachments. For now: `OmniPhysicsVtxXformAttachment` from a deformable body to a
//! static xformable becomes one [`Pin`] per attached vertex. Other kinds are reported
//! and skipped.

use openusd::sdf;
use usdsim_core::{Body, Pin};

use crate::attribute_values::{self, checked_index};
use crate::context::Ctx;
use crate::error::ImportError;
use crate::import::PrimSummary;
use crate::xform::XformCache;

const VTX_XFORM: &str = "OmniPhysicsVtxXformAttachment";
const SRC0: &str = "omniphysics:src0";
const SRC1: &str = "omniphysics:src1";
const INDICES: &str = "omniphysics:vtxIndicesSrc0";
const POSITIONS: &str = "omniphysics:localPositionsSrc1";
const STIFFNESS: &str = "omniphysics:stiffness";
const DAMPING: &str = "omniphysics:damping";
const ENABLED: &str = "omniphysics:attachmentEnabled";

/// Whether a prim type is an attachment of either schema dialect.
fn is_attachment(type_name: &str) -> bool {
    (type_name.starts_with("OmniPhysics") || type_name.starts_with("Physics")) && type_name.ends_with("Attachment")
}

/// The first target of a relationship, if any.
fn first_target(ctx: &Ctx, prim: &sdf::Path, rel: &str) -> Result<Option<sdf::Path>, ImportError> {
    let targets = ctx.prim(prim)?.relationship(rel).targets().map_err(|err| ctx.query_err(prim, Some(rel), err))?;
    Ok(targets.into_iter().next())
}

/// Reads every attachment among the traversed prims into pins. `lookup` maps body
/// prims and simulation meshes to body indices; `bodies` gives vertex counts.
pub(crate) fn read_pins(
    ctx: &mut Ctx,
    prims: &[PrimSummary],
    lookup: &[(sdf::Path, usize)],
    bodies: &[Body],
    xforms: &mut XformCache,
) -> Result<Vec<Pin>, ImportError> {
    let find_body = |path: &sdf::Path| lookup.iter().find(|(p, _)| p == path).map(|&(_, i)| i);
    let mut pins = Vec::new();
    for prim in prims.iter().filter(|p| is_attachment(&p.type_name)) {
        let path = &prim.path;
        if prim.type_name != VTX_XFORM {
            ctx.warn(path, None, format!("{} is not supported yet; ignored", prim.type_name));
            continue;
        }
        if attribute_values::bool_value(ctx, path, ENABLED)? == Some(false) {
            continue;
        }
        let Some(src0) = first_target(ctx, path, SRC0)? else {
            ctx.warn(path, Some(SRC0), "no target; attachment ignored");
            continue;
        };
        let Some(body_index) = find_body(&src0) else {
            ctx.warn(
                path,
                Some(SRC0),
                format!("{src0} is not an imported deformable body or its simulation mesh; attachment ignored"),
            );
            continue;
        };
        let src1 = first_target(ctx, path, SRC1)?;
        let frame = match &src1 {
            Some(src1) if find_body(src1).is_some() => {
                ctx.warn(
                    path,
                    Some(SRC1),
                    format!("{src1} is a deformable body; deformable-to-deformable attachments are not supported yet, ignored"),
                );
                continue;
            }
            Some(src1) => {
                let handle = ctx.prim(src1)?;
                if !handle.is_valid().map_err(|err| ctx.query_err(src1, None, err))? {
                    return Err(ImportError::Invalid {
                        at: ctx.prop_loc(path, SRC1),
                        reason: format!("target {src1} does not exist"),
                    });
                }
                let rigid = src1
                    .ancestors_below_root()
                    .find(|a| prims.iter().any(|p| &p.path == a && p.has_api("PhysicsRigidBodyAPI")));
                if let Some(rigid) = rigid {
                    ctx.warn(
                        path,
                        Some(SRC1),
                        format!("{src1} belongs to rigid body {rigid}; rigid bodies are not supported yet, pinned as static"),
                    );
                }
                xforms.world(ctx, src1)?
            }
            None => {
                ctx.warn(path, Some(SRC1), "no target; local positions are taken as world positions");
                glam::DMat4::IDENTITY
            }
        };

        let indices = attribute_values::int_array(ctx, path, INDICES)?
            .ok_or_else(|| ImportError::Missing { at: ctx.prop_loc(path, INDICES), expected: "int[]" })?;
        let positions = attribute_values::vec3_array(ctx, path, POSITIONS)?
            .ok_or_else(|| ImportError::Missing { at: ctx.prop_loc(path, POSITIONS), expected: "point3f[]" })?;
        if positions.len() != indices.len() {
            return Err(ImportError::LengthMismatch {
                at: ctx.prop_loc(path, POSITIONS),
                found: positions.len(),
                expected: indices.len(),
                reason: format!("one position per vertex in {INDICES}"),
            });
        }
        let stiffness = attribute_values::f64_value(ctx, path, STIFFNESS)?.unwrap_or(f64::INFINITY);
        if stiffness.is_nan() || stiffness < 0.0 {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(path, STIFFNESS),
                reason: format!("must be non-negative (inf for a hard attachment), found {stiffness}"),
            });
        }
        let damping = attribute_values::f64_value(ctx, path, DAMPING)?.unwrap_or(0.0);
        if !damping.is_finite() || damping < 0.0 {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(path, DAMPING),
                reason: format!("must be a finite, non-negative number, found {damping}"),
            });
        }
        let vertex_count = bodies.get(body_index).map_or(0, |b| b.positions.len());
        for (&index, local) in indices.iter().zip(&positions) {
            let vertex = checked_index(ctx, path, INDICES, index, vertex_count, "body vertices")?;
            pins.push(Pin {
                body: body_index,
                vertex,
                target: frame.transform_point3(*local).as_vec3(),
                stiffness: stiffness as f32,
                damping: damping as f32,
            });
        }
    }
    Ok(pins)
}
