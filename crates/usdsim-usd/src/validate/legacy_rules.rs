//! Legacy PhysX rules (DB801–DB803): a `PhysxDeformableBodyAPI` or
//! `PhysxDeformableSurfaceAPI` body is checked by reading it exactly as the importer
//! does (`read/legacy_body.rs`), so validate and a run agree on every legacy asset. What
//! the read notes on the way (IM080–IM082: what usdsim approximates or does not
//! simulate) is reported too, so nothing in the asset is passed over in silence. A
//! `PhysxPhysicsAttachment` must name actors that exist and pair its points one to one.

use glam::DVec3;
use openusd::sdf;

use super::walk::Walk;
use crate::read::{body, legacy_body, unsupported};
use crate::schema::physx_legacy::attachment as names;
use crate::stage::attribute_values;
use crate::stage::stage_info::StageInfo;
use crate::stage::units::Units;
use crate::stage::xform::XformCache;

/// Checks every enabled legacy body that no OmniPhysics or AOUSD body API claims.
pub(crate) fn check(walk: &mut Walk, info: &StageInfo) {
    let units = Units { meters_per_unit: info.meters_per_unit, kilograms_per_unit: info.kilograms_per_unit };
    let prims = walk.prims;
    let mut xforms = XformCache::default();
    for (index, prim) in prims.iter().enumerate() {
        let Some(kind) = legacy_body::body_api(prim) else { continue };
        if body::body_api(prim).is_some() {
            continue;
        }
        let noted = walk.ctx.warnings.len();
        let result = match body::scan_legacy(&mut walk.ctx, index, prim, kind) {
            Err(err) => Err(("DB801", err)),
            Ok(None) => Ok(()),
            Ok(Some(found)) => legacy_body::read(&mut walk.ctx, &found, kind, &mut xforms, &units)
                .map(|_| ())
                .map_err(|err| ("DB802", err)),
        };
        let notes: Vec<_> = walk.ctx.warnings.drain(noted..).collect();
        for note in notes {
            walk.report_diagnostic(note);
        }
        if let Err((code, err)) = result {
            report_error(walk, code, &prim.path, &err);
        }
    }
    for prim in prims.iter().filter(|p| p.type_name == names::PRIM_TYPE) {
        check_attachment(walk, &prim.path);
    }
    // What no rule checks because usdsim does not simulate it is named all the same.
    let noted = walk.ctx.warnings.len();
    unsupported::report(&mut walk.ctx, prims);
    let notes: Vec<_> = walk.ctx.warnings.drain(noted..).collect();
    for note in notes {
        walk.report_diagnostic(note);
    }
}

/// DB803: the actors exist, and `points0` and `points1` pair up, finite.
fn check_attachment(walk: &mut Walk, path: &sdf::Path) {
    for rel in names::ACTORS {
        let targets = walk.ctx.prim(path).ok().and_then(|p| p.relationship(rel).targets().ok()).unwrap_or_default();
        if let Some(target) = targets.first() {
            let exists = walk.ctx.prim(target).ok().and_then(|p| p.is_valid().ok()) == Some(true);
            if !exists {
                walk.report("DB803", path, Some(rel), format!("target {target} does not exist"));
            }
        }
    }
    let points: Vec<Vec<DVec3>> = names::POINTS
        .iter()
        .map(|name| walk.read(path, name, attribute_values::vec3_array).unwrap_or_default())
        .collect();
    if points[0].len() != points[1].len() {
        walk.report(
            "DB803",
            path,
            Some(names::POINTS[1]),
            format!(
                "has {} points, {} has {}; they pair one to one",
                points[1].len(),
                names::POINTS[0],
                points[0].len()
            ),
        );
    }
    for (name, points) in names::POINTS.iter().zip(&points) {
        if let Some(i) = points.iter().position(|p| !p.is_finite()) {
            walk.report("DB803", path, Some(name), format!("entry {i} is not finite"));
        }
    }
}

/// `err` as a finding of `code` at its own location (the prim when it has none).
fn report_error(walk: &mut Walk, code: &'static str, prim: &sdf::Path, err: &crate::error::ImportError) {
    let text = err.to_string();
    let Some(at) = err.location() else {
        walk.report(code, prim, None, text);
        return;
    };
    // The message without the location the report prints itself.
    let message = text.strip_prefix(&format!("{at}: ")).unwrap_or(&text).to_string();
    let at_prim = sdf::Path::new(&at.prim).unwrap_or_else(|_| prim.clone());
    walk.report(code, &at_prim, at.property.as_deref(), message);
}
