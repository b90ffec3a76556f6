//! Stage-level metadata: axes, units and time.

use std::path::PathBuf;

use glam::DVec3;
use openusd::sdf;

use crate::stage::context::Ctx;

/// The stage's up axis (`upAxis` metadata). USD allows only Y and Z.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpAxis {
    /// `upAxis = "Y"` (USD's fallback).
    Y,
    /// `upAxis = "Z"`.
    Z,
}

impl UpAxis {
    /// The unit vector pointing up.
    pub fn vector(self) -> DVec3 {
        match self {
            UpAxis::Y => DVec3::Y,
            UpAxis::Z => DVec3::Z,
        }
    }

    /// The token USD spells this axis with.
    pub fn token(self) -> &'static str {
        match self {
            UpAxis::Y => "Y",
            UpAxis::Z => "Z",
        }
    }
}

/// What the exporter and the simulation need to know about the input stage as a whole.
/// Fallbacks are USD's own where the metadata is unauthored.
#[derive(Clone, Debug, PartialEq)]
pub struct StageInfo {
    /// The input file as given to [`crate::import`].
    pub input: PathBuf,
    /// `upAxis` (fallback Y).
    pub up_axis: UpAxis,
    /// `metersPerUnit` (fallback 0.01: USD's centimetres).
    pub meters_per_unit: f64,
    /// `kilogramsPerUnit` (fallback 1).
    pub kilograms_per_unit: f64,
    /// `timeCodesPerSecond` (fallback `framesPerSecond`, then 24).
    pub time_codes_per_second: f64,
    /// `framesPerSecond` when authored (the exporter copies it; else it writes
    /// `time_codes_per_second`).
    pub frames_per_second: Option<f64>,
    /// `startTimeCode` (fallback 0): the time code of frame 0 and of every value read.
    pub start_time_code: f64,
    /// `endTimeCode`, when authored: with `startTimeCode`, the range a run bakes unless
    /// told otherwise ([`StageInfo::authored_frames`]).
    pub end_time_code: Option<f64>,
    /// `defaultPrim`, if authored.
    pub default_prim: Option<String>,
    /// Every file the input stage is made of or names (its layer stack, and what it
    /// references, payloads or takes clips from), absolute and normalised: the paths a
    /// bake must never overwrite.
    pub layers: Vec<PathBuf>,
}

impl StageInfo {
    /// The frames from `start_time_code` to the authored `endTimeCode` (one per time
    /// code, rounded), as Houdini and usdrecord take a stage's own range; `None` when
    /// `endTimeCode` is unauthored or not after the start.
    pub fn authored_frames(&self) -> Option<u32> {
        let end = self.end_time_code?;
        let frames = (end - self.start_time_code).round();
        (frames >= 1.0).then(|| frames.min(f64::from(u32::MAX)) as u32)
    }
}

/// Reads a numeric stage metadatum, warning (and returning `None`) on a non-number or a
/// non-positive value where one must be positive.
fn metadata_number(ctx: &mut Ctx, key: &str, positive: bool) -> Option<f64> {
    let value = match ctx.stage.stage_metadata(key) {
        Ok(value) => value?,
        Err(err) => {
            ctx.warn("IM001", &sdf::Path::abs_root(), None, format!("cannot read {key}: {err}; using the fallback"));
            return None;
        }
    };
    let number = match value {
        sdf::Value::Double(v) => Some(v),
        sdf::Value::Float(v) => Some(f64::from(v)),
        sdf::Value::Int(v) => Some(f64::from(v)),
        sdf::Value::Int64(v) => Some(v as f64),
        sdf::Value::TimeCode(v) => Some(v.value()),
        _ => None,
    };
    match number {
        Some(n) if n.is_finite() && (!positive || n > 0.0) => Some(n),
        _ => {
            ctx.warn(
                "IM001",
                &sdf::Path::abs_root(),
                None,
                format!("layer metadata {key} is not a valid number; using the fallback"),
            );
            None
        }
    }
}

/// Reads the stage metadata, applying USD's fallbacks and warning about bad values.
pub(crate) fn read(ctx: &mut Ctx) -> StageInfo {
    let up_axis = match ctx.stage.stage_metadata("upAxis") {
        Ok(Some(sdf::Value::Token(t))) if t.as_str() == "Z" => UpAxis::Z,
        Ok(Some(sdf::Value::Token(t))) if t.as_str() == "Y" => UpAxis::Y,
        Ok(None) => UpAxis::Y,
        Ok(Some(other)) => {
            ctx.warn(
                "IM001",
                &sdf::Path::abs_root(),
                None,
                format!("upAxis must be \"Y\" or \"Z\", found {other:?}; using Y"),
            );
            UpAxis::Y
        }
        Err(err) => {
            ctx.warn("IM001", &sdf::Path::abs_root(), None, format!("cannot read upAxis: {err}; using Y"));
            UpAxis::Y
        }
    };
    let meters_per_unit = metadata_number(ctx, "metersPerUnit", true).unwrap_or(0.01);
    let kilograms_per_unit = metadata_number(ctx, "kilogramsPerUnit", true).unwrap_or(1.0);
    let frames_per_second = metadata_number(ctx, "framesPerSecond", true);
    let time_codes_per_second = metadata_number(ctx, "timeCodesPerSecond", true).or(frames_per_second).unwrap_or(24.0);
    let start_time_code = metadata_number(ctx, "startTimeCode", false).unwrap_or(0.0);
    let end_time_code = metadata_number(ctx, "endTimeCode", false);
    let default_prim = ctx.stage.default_prim().map(|t| t.as_str().to_string());
    StageInfo {
        input: ctx.input.clone(),
        up_axis,
        meters_per_unit,
        kilograms_per_unit,
        time_codes_per_second,
        frames_per_second,
        start_time_code,
        end_time_code,
        default_prim,
        layers: Vec::new(),
    }
}
