//! Global simulation settings from `PhysicsScene` prims: gravity.

use glam::Vec3;
use openusd::sdf;

use crate::error::ImportError;
use crate::stage::attribute_values;
use crate::stage::context::Ctx;
use crate::stage::stage_info::StageInfo;
use crate::stage::units::Units;

/// Standard gravity, m/s².
const EARTH_GRAVITY: f64 = 9.81;

/// Gravity in stage units from the first `PhysicsScene` (the default scene of bodies
/// that name no `simulationOwner`; warning when there is none). An unauthored or zero direction means "down", i.e. −upAxis; an unauthored
/// magnitude or `-inf` means 9.81 m/s² in stage units.
pub(crate) fn gravity(ctx: &mut Ctx, scenes: &[sdf::Path], info: &StageInfo) -> Result<Vec3, ImportError> {
    let units = Units { meters_per_unit: info.meters_per_unit, kilograms_per_unit: info.kilograms_per_unit };
    let default_magnitude = units.acceleration_from_si(EARTH_GRAVITY);
    let down = -info.up_axis.vector();
    let Some(scene) = scenes.first() else {
        ctx.warn(
            "IM002",
            &sdf::Path::abs_root(),
            None,
            format!(
                "no PhysicsScene prim; using default gravity {default_magnitude} units/s² along -{}",
                info.up_axis.token()
            ),
        );
        return Ok(tidy(down * default_magnitude));
    };
    scene_gravity(ctx, scene, info)
}

/// Gravity of one `PhysicsScene` prim, in stage units (see [`gravity`] for defaults).
pub(crate) fn scene_gravity(ctx: &mut Ctx, scene: &sdf::Path, info: &StageInfo) -> Result<Vec3, ImportError> {
    let units = Units { meters_per_unit: info.meters_per_unit, kilograms_per_unit: info.kilograms_per_unit };
    let default_magnitude = units.acceleration_from_si(EARTH_GRAVITY);
    let down = -info.up_axis.vector();

    const DIRECTION: &str = "physics:gravityDirection";
    const MAGNITUDE: &str = "physics:gravityMagnitude";
    let direction = match attribute_values::vec3_value(ctx, scene, DIRECTION)? {
        Some(d) if !d.is_finite() => {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(scene, DIRECTION),
                reason: format!("must be finite, found {d}"),
            });
        }
        Some(d) if d.length_squared() > 0.0 => d.normalize(),
        _ => down,
    };
    let magnitude = match attribute_values::f64_value(ctx, scene, MAGNITUDE)? {
        None => default_magnitude,
        Some(m) if m == f64::NEG_INFINITY => default_magnitude,
        Some(m) if m.is_finite() && m >= 0.0 => m,
        Some(m) => {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(scene, MAGNITUDE),
                reason: format!("must be a finite non-negative number or -inf (default), found {m}"),
            });
        }
    };
    Ok(tidy(direction * magnitude))
}

/// Single precision, with `-0.0` components (from negating an axis) turned into `0.0`
/// so printed gravity vectors read cleanly.
fn tidy(g: glam::DVec3) -> Vec3 {
    (g + glam::DVec3::ZERO).as_vec3()
}
