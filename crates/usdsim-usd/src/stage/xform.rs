//! Local-to-world transforms from `xformOpOrder`, in double precision.
//!
//! USD uses row vectors: for `xformOpOrder = [A, B, C]` a point transforms as
//! `p * C * B * A`. In glam's column-vector convention the same local transform is
//! `M = A * B * C` (C applies first). Each op's matrix below is built directly in
//! column-vector form; a `matrix4d` value is transposed on the way in (see
//! [`crate::stage::attribute_values::matrix_of`]).

use std::collections::HashMap;

use glam::{DMat4, DQuat, DVec3};
use openusd::sdf;

use crate::error::ImportError;
use crate::stage::attribute_values::{self, matrix_of, quat_of, vec3_of};
use crate::stage::context::Ctx;

/// The `xformOpOrder` entry that discards every ancestor transform.
const RESET_XFORM_STACK: &str = "!resetXformStack!";
/// Prefix of an `xformOpOrder` entry that applies the inverse of an op.
const INVERT_PREFIX: &str = "!invert!";

/// Every op type USD defines (`UsdGeomXformOp::Type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpKind {
    Translate,
    Scale,
    RotateX,
    RotateY,
    RotateZ,
    /// Three-axis rotation; the axes listed in the order they apply (first applies first).
    Rotate3([Axis; 3]),
    Orient,
    Transform,
}

/// A coordinate axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Axis {
    X,
    Y,
    Z,
}

fn axis_rotation(axis: Axis, degrees: f64) -> DMat4 {
    let radians = degrees.to_radians();
    match axis {
        Axis::X => DMat4::from_rotation_x(radians),
        Axis::Y => DMat4::from_rotation_y(radians),
        Axis::Z => DMat4::from_rotation_z(radians),
    }
}

/// Parses the op type out of an attribute name such as `xformOp:rotateXYZ:pivot`.
pub(crate) fn parse_op_kind(attribute: &str) -> Option<OpKind> {
    let rest = attribute.strip_prefix("xformOp:")?;
    let op = rest.split(':').next()?;
    use Axis::{X, Y, Z};
    Some(match op {
        "translate" => OpKind::Translate,
        "scale" => OpKind::Scale,
        "rotateX" => OpKind::RotateX,
        "rotateY" => OpKind::RotateY,
        "rotateZ" => OpKind::RotateZ,
        "rotateXYZ" => OpKind::Rotate3([X, Y, Z]),
        "rotateXZY" => OpKind::Rotate3([X, Z, Y]),
        "rotateYXZ" => OpKind::Rotate3([Y, X, Z]),
        "rotateYZX" => OpKind::Rotate3([Y, Z, X]),
        "rotateZXY" => OpKind::Rotate3([Z, X, Y]),
        "rotateZYX" => OpKind::Rotate3([Z, Y, X]),
        "orient" => OpKind::Orient,
        "transform" => OpKind::Transform,
        _ => return None,
    })
}

/// The column-vector matrix of one op with the given value, or `None` when the value's
/// type does not fit the op (the caller reports which type was expected).
pub(crate) fn op_matrix(kind: OpKind, value: &sdf::Value) -> Option<DMat4> {
    let scalar = || match value {
        sdf::Value::Float(v) => Some(f64::from(*v)),
        sdf::Value::Double(v) => Some(*v),
        sdf::Value::Half(v) => Some(v.to_f64()),
        _ => None,
    };
    match kind {
        OpKind::Translate => vec3_of(value).map(DMat4::from_translation),
        OpKind::Scale => vec3_of(value).map(DMat4::from_scale),
        OpKind::RotateX => scalar().map(|a| axis_rotation(Axis::X, a)),
        OpKind::RotateY => scalar().map(|a| axis_rotation(Axis::Y, a)),
        OpKind::RotateZ => scalar().map(|a| axis_rotation(Axis::Z, a)),
        OpKind::Rotate3(order) => {
            // The value holds the angles per named axis (x, y, z), not per position in
            // the order; rotateZYX = (10, 20, 30) is X by 10, Y by 20, Z by 30 with Z
            // applied first.
            let angles = vec3_of(value)?;
            let angle = |axis: Axis| match axis {
                Axis::X => angles.x,
                Axis::Y => angles.y,
                Axis::Z => angles.z,
            };
            let [first, second, third] = order;
            Some(
                axis_rotation(third, angle(third))
                    * axis_rotation(second, angle(second))
                    * axis_rotation(first, angle(first)),
            )
        }
        OpKind::Orient => quat_of(value).map(|q| {
            let q = if q.length_squared() > 0.0 { q.normalize() } else { DQuat::IDENTITY };
            DMat4::from_quat(q)
        }),
        OpKind::Transform => matrix_of(value),
    }
}

fn expected_type(kind: OpKind) -> &'static str {
    match kind {
        OpKind::Translate | OpKind::Scale | OpKind::Rotate3(_) => "float3 or double3",
        OpKind::RotateX | OpKind::RotateY | OpKind::RotateZ => "float or double (degrees)",
        OpKind::Orient => "quatf or quatd",
        OpKind::Transform => "matrix4d",
    }
}

/// A prim's local transform and whether it discards its ancestors' transforms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LocalXform {
    /// Local-to-parent, column-vector convention.
    pub matrix: DMat4,
    /// `!resetXformStack!` present: the prim does not inherit its parent's transform.
    pub resets_stack: bool,
}

/// Evaluates `xformOpOrder` on `prim` at the context's time code.
pub(crate) fn local_xform(ctx: &mut Ctx, prim: &sdf::Path) -> Result<LocalXform, ImportError> {
    const ORDER: &str = "xformOpOrder";
    let Some(order) = attribute_values::token_array(ctx, prim, ORDER)? else {
        return Ok(LocalXform { matrix: DMat4::IDENTITY, resets_stack: false });
    };
    // Ops before a reset contribute nothing; USD only expects the reset first, so one
    // later in the list is worth a warning.
    let last_reset = order.iter().rposition(|op| op == RESET_XFORM_STACK);
    if last_reset.is_some_and(|i| i > 0) {
        ctx.warn("IM003", prim, Some(ORDER), "!resetXformStack! is not the first entry; ops before it are ignored");
    }
    let ops = match last_reset {
        Some(i) => order.get(i + 1..).unwrap_or_default(),
        None => &order[..],
    };
    let mut matrix = DMat4::IDENTITY;
    for entry in ops {
        let (invert, name) = match entry.strip_prefix(INVERT_PREFIX) {
            Some(name) => (true, name),
            None => (false, entry.as_str()),
        };
        let Some(kind) = parse_op_kind(name) else {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(prim, ORDER),
                reason: format!("unknown transform op {entry:?}"),
            });
        };
        let Some(value) = attribute_values::raw(ctx, prim, name)? else {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(prim, ORDER),
                reason: format!("names {name} but that attribute has no value"),
            });
        };
        let Some(op) = op_matrix(kind, &value) else {
            return Err(ImportError::WrongType {
                at: ctx.prop_loc(prim, name),
                expected: expected_type(kind),
                found: attribute_values::kind_name(&value),
            });
        };
        let op = if invert {
            if op.determinant().abs() < 1e-300 {
                return Err(ImportError::Invalid {
                    at: ctx.prop_loc(prim, name),
                    reason: "!invert! of a singular transform op".to_string(),
                });
            }
            op.inverse()
        } else {
            op
        };
        matrix *= op;
    }
    Ok(LocalXform { matrix, resets_stack: last_reset.is_some() })
}

/// Memoised local-to-world transforms: many bodies share ancestors (environments
/// referenced 128 times), and colliders and attachments ask again.
#[derive(Default)]
pub(crate) struct XformCache {
    world: HashMap<sdf::Path, DMat4>,
}

impl XformCache {
    /// The full local-to-world transform of `prim` (its own ops included), honouring
    /// `!resetXformStack!`.
    pub fn world(&mut self, ctx: &mut Ctx, prim: &sdf::Path) -> Result<DMat4, ImportError> {
        if prim.is_abs_root() {
            return Ok(DMat4::IDENTITY);
        }
        if let Some(m) = self.world.get(prim) {
            return Ok(*m);
        }
        let local = local_xform(ctx, prim)?;
        let world = if local.resets_stack {
            local.matrix
        } else {
            let parent_world = match prim.parent() {
                Some(parent) => self.world(ctx, &parent)?,
                None => DMat4::IDENTITY,
            };
            parent_world * local.matrix
        };
        self.world.insert(prim.clone(), world);
        Ok(world)
    }
}

/// A world transform split into rigid pose and scale: `m ≈ T(translation) * R(rotation)
/// * S(scale)`. `sheared` reports whether the split lost a shear component.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Decomposed {
    pub translation: DVec3,
    pub rotation: DQuat,
    pub scale: DVec3,
    pub sheared: bool,
}

/// Splits a world matrix for shapes that cannot carry a general linear map.
pub(crate) fn decompose(m: DMat4) -> Decomposed {
    let (scale, rotation, translation) = m.to_scale_rotation_translation();
    let rebuilt = DMat4::from_scale_rotation_translation(scale, rotation, translation);
    let size = m.abs().to_cols_array().iter().fold(1.0f64, |a, &b| a.max(b));
    let error = (rebuilt - m).abs().to_cols_array().iter().fold(0.0f64, |a, &b| a.max(b));
    Decomposed { translation, rotation, scale, sheared: error > 1e-6 * size }
}

#[cfg(test)]
mod tests {
    use super::*;
    use openusd::gf;

    fn close(a: DMat4, b: DMat4) -> bool {
        a.abs_diff_eq(b, 1e-12)
    }

    #[test]
    fn parses_op_names_with_suffixes() {
        assert_eq!(parse_op_kind("xformOp:translate"), Some(OpKind::Translate));
        assert_eq!(parse_op_kind("xformOp:translate:pivot"), Some(OpKind::Translate));
        assert_eq!(parse_op_kind("xformOp:rotateZXY:foo"), Some(OpKind::Rotate3([Axis::Z, Axis::X, Axis::Y])));
        assert_eq!(parse_op_kind("xformOp:bogus"), None);
        assert_eq!(parse_op_kind("translate"), None);
    }

    #[test]
    fn rotate_xyz_applies_x_first() {
        // rotateXYZ = (90, 0, 90): X by 90 then Z by 90. The point (0, 1, 0) goes to
        // (0, 0, 1) under X, then stays on the Z axis under Z.
        let m = op_matrix(
            OpKind::Rotate3([Axis::X, Axis::Y, Axis::Z]),
            &sdf::Value::Vec3f(gf::Vec3f { x: 90.0, y: 0.0, z: 90.0 }),
        )
        .unwrap();
        let p = m.transform_point3(DVec3::new(0.0, 1.0, 0.0));
        assert!(p.abs_diff_eq(DVec3::new(0.0, 0.0, 1.0), 1e-12), "{p}");
        // (1, 0, 0): unchanged by X, then Z by 90 takes it to (0, 1, 0).
        let q = m.transform_point3(DVec3::X);
        assert!(q.abs_diff_eq(DVec3::Y, 1e-12), "{q}");
    }

    #[test]
    fn rotate_zyx_applies_z_first() {
        // rotateZYX = (90, 0, 90): Z by 90 first, then X by 90. (1,0,0) -> (0,1,0) -> (0,0,1).
        let m = op_matrix(
            OpKind::Rotate3([Axis::Z, Axis::Y, Axis::X]),
            &sdf::Value::Vec3d(gf::Vec3d { x: 90.0, y: 0.0, z: 90.0 }),
        )
        .unwrap();
        let p = m.transform_point3(DVec3::X);
        assert!(p.abs_diff_eq(DVec3::Z, 1e-12), "{p}");
    }

    #[test]
    fn single_axis_rotation_is_counter_clockwise() {
        let m = op_matrix(OpKind::RotateZ, &sdf::Value::Double(90.0)).unwrap();
        assert!(m.transform_point3(DVec3::X).abs_diff_eq(DVec3::Y, 1e-12));
    }

    #[test]
    fn orient_quaternion_is_real_first_in_usd() {
        // USD quat (w=cos45, x=0, y=0, z=sin45): 90 degrees about Z.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let m = op_matrix(OpKind::Orient, &sdf::Value::Quatf(gf::Quatf { w: h, x: 0.0, y: 0.0, z: h })).unwrap();
        assert!(m.transform_point3(DVec3::X).abs_diff_eq(DVec3::Y, 1e-6));
    }

    #[test]
    fn matrix_op_reads_translation_from_last_row() {
        let mut usd = gf::Matrix4d::IDENTITY;
        usd.0[12] = 1.0;
        usd.0[13] = 2.0;
        usd.0[14] = 3.0;
        // A row-vector rotation of 90 degrees about Z: row 0 is the image of X = (0, 1, 0).
        usd.0[0] = 0.0;
        usd.0[1] = 1.0;
        usd.0[4] = -1.0;
        usd.0[5] = 0.0;
        let m = op_matrix(OpKind::Transform, &sdf::Value::Matrix4d(usd)).unwrap();
        assert!(m.transform_point3(DVec3::X).abs_diff_eq(DVec3::new(1.0, 3.0, 3.0), 1e-12));
    }

    #[test]
    fn composition_order_translate_then_scale() {
        // xformOpOrder = [translate (1,0,0), scale 2]: p' = T * S * p, so (1,0,0) -> (3,0,0).
        let t = op_matrix(OpKind::Translate, &sdf::Value::Vec3d(gf::Vec3d { x: 1.0, y: 0.0, z: 0.0 })).unwrap();
        let s = op_matrix(OpKind::Scale, &sdf::Value::Vec3f(gf::Vec3f { x: 2.0, y: 2.0, z: 2.0 })).unwrap();
        let m = DMat4::IDENTITY * t * s;
        assert!(m.transform_point3(DVec3::X).abs_diff_eq(DVec3::new(3.0, 0.0, 0.0), 1e-12));
    }

    #[test]
    fn wrong_value_type_is_rejected() {
        assert!(op_matrix(OpKind::RotateX, &sdf::Value::Vec3f(gf::Vec3f::default())).is_none());
        assert!(op_matrix(OpKind::Transform, &sdf::Value::Double(1.0)).is_none());
    }

    #[test]
    fn decompose_detects_shear() {
        let m = DMat4::from_scale_rotation_translation(
            DVec3::new(1.0, 2.0, 3.0),
            DQuat::from_rotation_y(0.3),
            DVec3::new(4.0, 5.0, 6.0),
        );
        let d = decompose(m);
        assert!(!d.sheared);
        assert!(d.scale.abs_diff_eq(DVec3::new(1.0, 2.0, 3.0), 1e-12));
        let mut sheared = DMat4::IDENTITY;
        sheared.y_axis.x = 0.5;
        assert!(decompose(sheared).sheared);
        assert!(close(DMat4::IDENTITY, DMat4::IDENTITY));
    }
}
