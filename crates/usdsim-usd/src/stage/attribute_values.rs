//! Typed reads of composed attribute values at the import time code.
//!
//! openusd hands back a type-erased `sdf::Value`; these functions accept every
//! precision USD allows for a role (`point3f[]`, `point3d[]`, `point3h[]`, ...), and turn
//! anything else into an [`ImportError::WrongType`] that names the attribute. `Ok(None)`
//! means "not authored" (and no schema fallback known to openusd).

use glam::{DMat4, DQuat, DVec3};
use openusd::{sdf, usd};

use crate::error::ImportError;
use crate::stage::context::Ctx;

/// The composed value of `prim.name` at the context's time code, undecoded.
pub(crate) fn raw(ctx: &Ctx, prim: &sdf::Path, name: &str) -> Result<Option<sdf::Value>, ImportError> {
    let attr = ctx.prim(prim)?.attribute(name);
    let value =
        attr.get_at::<sdf::Value>(usd::TimeCode::new(ctx.time)).map_err(|err| ctx.query_err(prim, Some(name), err))?;
    // A block or an expression-only `None` is "no value" for every reader here.
    Ok(value.filter(|v| !matches!(v, sdf::Value::ValueBlock | sdf::Value::None)))
}

/// A short, user-facing name for the kind of value found.
pub(crate) fn kind_name(value: &sdf::Value) -> String {
    let kind: &'static str = value.into();
    kind.to_string()
}

fn wrong(ctx: &Ctx, prim: &sdf::Path, name: &str, expected: &'static str, found: &sdf::Value) -> ImportError {
    ImportError::WrongType { at: ctx.prop_loc(prim, name), expected, found: kind_name(found) }
}

/// A scalar number (`float`, `double`, `half`, or an integer).
pub(crate) fn f64_value(ctx: &Ctx, prim: &sdf::Path, name: &str) -> Result<Option<f64>, ImportError> {
    let Some(value) = raw(ctx, prim, name)? else {
        return Ok(None);
    };
    let number = match &value {
        sdf::Value::Float(v) => f64::from(*v),
        sdf::Value::Double(v) => *v,
        sdf::Value::Half(v) => v.to_f64(),
        sdf::Value::Int(v) => f64::from(*v),
        sdf::Value::Uint(v) => f64::from(*v),
        sdf::Value::Int64(v) => *v as f64,
        sdf::Value::Uint64(v) => *v as f64,
        sdf::Value::TimeCode(v) => v.value(),
        _ => return Err(wrong(ctx, prim, name, "a number (float or double)", &value)),
    };
    Ok(Some(number))
}

/// A boolean.
pub(crate) fn bool_value(ctx: &Ctx, prim: &sdf::Path, name: &str) -> Result<Option<bool>, ImportError> {
    match raw(ctx, prim, name)? {
        None => Ok(None),
        Some(sdf::Value::Bool(b)) => Ok(Some(b)),
        Some(sdf::Value::Int(i)) => Ok(Some(i != 0)),
        Some(other) => Err(wrong(ctx, prim, name, "bool", &other)),
    }
}

/// A token (a `string` is accepted too).
pub(crate) fn token_value(ctx: &Ctx, prim: &sdf::Path, name: &str) -> Result<Option<String>, ImportError> {
    match raw(ctx, prim, name)? {
        None => Ok(None),
        Some(sdf::Value::Token(t)) => Ok(Some(t.as_str().to_string())),
        Some(sdf::Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(wrong(ctx, prim, name, "token", &other)),
    }
}

/// A token array (`token[]`).
pub(crate) fn token_array(ctx: &Ctx, prim: &sdf::Path, name: &str) -> Result<Option<Vec<String>>, ImportError> {
    match raw(ctx, prim, name)? {
        None => Ok(None),
        Some(sdf::Value::TokenVec(v)) => Ok(Some(v.iter().map(|t| t.as_str().to_string()).collect())),
        Some(sdf::Value::StringVec(v)) => Ok(Some(v)),
        Some(other) => Err(wrong(ctx, prim, name, "token[]", &other)),
    }
}

/// A 3-vector of any precision.
pub(crate) fn vec3_value(ctx: &Ctx, prim: &sdf::Path, name: &str) -> Result<Option<DVec3>, ImportError> {
    let Some(value) = raw(ctx, prim, name)? else {
        return Ok(None);
    };
    vec3_of(&value).map(Some).ok_or_else(|| wrong(ctx, prim, name, "a 3-vector (float3 or double3)", &value))
}

/// Converts a single 3-vector value of any precision.
pub(crate) fn vec3_of(value: &sdf::Value) -> Option<DVec3> {
    match value {
        sdf::Value::Vec3f(v) => Some(DVec3::new(v.x.into(), v.y.into(), v.z.into())),
        sdf::Value::Vec3d(v) => Some(DVec3::new(v.x, v.y, v.z)),
        sdf::Value::Vec3h(v) => Some(DVec3::new(v.x.to_f64(), v.y.to_f64(), v.z.to_f64())),
        sdf::Value::Vec3i(v) => Some(DVec3::new(v.x.into(), v.y.into(), v.z.into())),
        _ => None,
    }
}

/// A quaternion of any precision, as glam's (x, y, z, w).
pub(crate) fn quat_of(value: &sdf::Value) -> Option<DQuat> {
    match value {
        sdf::Value::Quatf(q) => Some(DQuat::from_xyzw(q.x.into(), q.y.into(), q.z.into(), q.w.into())),
        sdf::Value::Quatd(q) => Some(DQuat::from_xyzw(q.x, q.y, q.z, q.w)),
        sdf::Value::Quath(q) => Some(DQuat::from_xyzw(q.x.to_f64(), q.y.to_f64(), q.z.to_f64(), q.w.to_f64())),
        _ => None,
    }
}

/// A `matrix4d`, converted from USD's row-major, row-vector layout to glam's
/// column-vector matrix. USD stores the translation in the last row; reading the 16
/// numbers as glam *columns* is exactly the transpose that turns a row-vector matrix into
/// the equivalent column-vector one.
pub(crate) fn matrix_of(value: &sdf::Value) -> Option<DMat4> {
    match value {
        sdf::Value::Matrix4d(m) => Some(DMat4::from_cols_array(&m.0)),
        _ => None,
    }
}

/// An array of 3-vectors of any precision (`point3f[]`, `vector3d[]`, `float3[]`, ...).
pub(crate) fn vec3_array(ctx: &Ctx, prim: &sdf::Path, name: &str) -> Result<Option<Vec<DVec3>>, ImportError> {
    let Some(value) = raw(ctx, prim, name)? else {
        return Ok(None);
    };
    let out = match &value {
        sdf::Value::Vec3fVec(v) => v.iter().map(|p| DVec3::new(p.x.into(), p.y.into(), p.z.into())).collect(),
        sdf::Value::Vec3dVec(v) => v.iter().map(|p| DVec3::new(p.x, p.y, p.z)).collect(),
        sdf::Value::Vec3hVec(v) => v.iter().map(|p| DVec3::new(p.x.to_f64(), p.y.to_f64(), p.z.to_f64())).collect(),
        _ => return Err(wrong(ctx, prim, name, "an array of 3-vectors (point3f[])", &value)),
    };
    Ok(Some(out))
}

/// An array of numbers (`float[]`, `double[]`, `half[]`).
pub(crate) fn f64_array(ctx: &Ctx, prim: &sdf::Path, name: &str) -> Result<Option<Vec<f64>>, ImportError> {
    let Some(value) = raw(ctx, prim, name)? else {
        return Ok(None);
    };
    let out = match &value {
        sdf::Value::FloatVec(v) => v.iter().map(|x| f64::from(*x)).collect(),
        sdf::Value::DoubleVec(v) => v.clone(),
        sdf::Value::HalfVec(v) => v.iter().map(|x| x.to_f64()).collect(),
        _ => return Err(wrong(ctx, prim, name, "float[]", &value)),
    };
    Ok(Some(out))
}

/// An array of integers (`int[]`; `uint[]` and `int64[]` are accepted too).
pub(crate) fn int_array(ctx: &Ctx, prim: &sdf::Path, name: &str) -> Result<Option<Vec<i64>>, ImportError> {
    let Some(value) = raw(ctx, prim, name)? else {
        return Ok(None);
    };
    let out = match &value {
        sdf::Value::IntVec(v) => v.iter().map(|x| i64::from(*x)).collect(),
        sdf::Value::UintVec(v) => v.iter().map(|x| i64::from(*x)).collect(),
        sdf::Value::Int64Vec(v) => v.clone(),
        _ => return Err(wrong(ctx, prim, name, "int[]", &value)),
    };
    Ok(Some(out))
}

/// An array of integer N-tuples: `int2[]`, `int3[]` or `int4[]` for N = 2, 3, 4.
pub(crate) fn int_tuple_array<const N: usize>(
    ctx: &Ctx,
    prim: &sdf::Path,
    name: &str,
) -> Result<Option<Vec<[i64; N]>>, ImportError> {
    let Some(value) = raw(ctx, prim, name)? else {
        return Ok(None);
    };
    let expected = match N {
        2 => "int2[]",
        3 => "int3[]",
        _ => "int4[]",
    };
    let flat: Option<Vec<i64>> = match (&value, N) {
        (sdf::Value::Vec2iVec(v), 2) => Some(v.iter().flat_map(|t| [t.x, t.y]).map(i64::from).collect()),
        (sdf::Value::Vec3iVec(v), 3) => Some(v.iter().flat_map(|t| [t.x, t.y, t.z]).map(i64::from).collect()),
        (sdf::Value::Vec4iVec(v), 4) => Some(v.iter().flat_map(|t| [t.x, t.y, t.z, t.w]).map(i64::from).collect()),
        _ => None,
    };
    let Some(flat) = flat else {
        return Err(wrong(ctx, prim, name, expected, &value));
    };
    Ok(Some(
        flat.chunks_exact(N)
            .map(|chunk| {
                let mut tuple = [0i64; N];
                tuple.copy_from_slice(chunk);
                tuple
            })
            .collect(),
    ))
}

/// Checks every index in `indices` against `count` entries, returning them as `u32`.
pub(crate) fn check_indices<const N: usize>(
    ctx: &Ctx,
    prim: &sdf::Path,
    name: &str,
    indices: &[[i64; N]],
    count: usize,
    target: &'static str,
) -> Result<Vec<[u32; N]>, ImportError> {
    indices
        .iter()
        .map(|tuple| {
            let mut out = [0u32; N];
            for (slot, &index) in out.iter_mut().zip(tuple.iter()) {
                *slot = checked_index(ctx, prim, name, index, count, target)?;
            }
            Ok(out)
        })
        .collect()
}

/// One index checked against `count` entries.
pub(crate) fn checked_index(
    ctx: &Ctx,
    prim: &sdf::Path,
    name: &str,
    index: i64,
    count: usize,
    target: &'static str,
) -> Result<u32, ImportError> {
    let in_range = usize::try_from(index).ok().filter(|&i| i < count);
    match in_range.and_then(|i| u32::try_from(i).ok()) {
        Some(i) => Ok(i),
        None => Err(ImportError::IndexOutOfRange { at: ctx.prop_loc(prim, name), index, count, target }),
    }
}
