//! Kinematic bodies: their authored animation (time-sampled `points` of the simulation
//! mesh and/or animated transforms above it) sampled at every time code from
//! `startTimeCode` to the last authored sample, in world space.

use glam::Vec3;
use openusd::sdf;
use usdsim_core::BodyId;

use crate::error::ImportError;
use crate::read::body::FoundBody;
use crate::stage::attribute_values;
use crate::stage::context::Ctx;
use crate::stage::xform::XformCache;

/// Most time codes sampled per kinematic body (guards against absurd sample times).
const MAX_SAMPLES: usize = 100_000;

/// A kinematic body's world-space positions at time codes `start + k`.
#[derive(Clone, Debug, PartialEq)]
pub struct KinematicTrack {
    /// The kinematic body.
    pub body: BodyId,
    /// Time code of the first sample.
    pub start: f64,
    /// Positions at `start + k`, `k = 0..samples.len()`.
    pub samples: Vec<Vec<Vec3>>,
}

impl KinematicTrack {
    /// Positions at `time`: linear between the integer time codes sampled (exact at
    /// them), held before the first and after the last.
    pub fn at(&self, time: f64) -> Vec<Vec3> {
        let last = self.samples.len() - 1;
        let t = (time - self.start).clamp(0.0, last as f64);
        let k = (t.floor() as usize).min(last);
        let f = (t - k as f64) as f32;
        if f == 0.0 || k == last {
            return self.samples[k].clone();
        }
        self.samples[k].iter().zip(&self.samples[k + 1]).map(|(a, b)| a.lerp(*b, f)).collect()
    }
}

/// The latest authored time sample of the simulation mesh's `points` and of every
/// transform op on it and its ancestors.
fn last_sample(ctx: &Ctx, sim: &sdf::Path) -> Result<Option<f64>, ImportError> {
    let mut last: Option<f64> = None;
    let mut consider = |times: Vec<f64>| {
        if let Some(&t) = times.iter().max_by(|a, b| a.total_cmp(b)) {
            last = Some(last.map_or(t, |l: f64| l.max(t)));
        }
    };
    let prim = ctx.prim(sim)?;
    consider(prim.attribute("points").time_sample_times().map_err(|e| ctx.query_err(sim, Some("points"), e))?);
    for path in sim.ancestors_below_root() {
        let ops = attribute_values::token_array(ctx, &path, "xformOpOrder")?.unwrap_or_default();
        let handle = ctx.prim(&path)?;
        for op in ops.iter().filter(|o| o.starts_with("xformOp:")) {
            consider(handle.attribute(op).time_sample_times().map_err(|e| ctx.query_err(&path, Some(op), e))?);
        }
    }
    Ok(last)
}

/// Samples body `index`'s animation. Restores `ctx.time` before returning.
pub(crate) fn read(ctx: &mut Ctx, found: &FoundBody, index: usize, start: f64) -> Result<KinematicTrack, ImportError> {
    let sim = &found.sim;
    let last = last_sample(ctx, sim)?.unwrap_or(start).max(start);
    let count = (((last - start).ceil() as usize) + 1).min(MAX_SAMPLES);
    let saved = ctx.time;
    let mut samples = Vec::with_capacity(count);
    let mut expected: Option<usize> = None;
    for k in 0..count {
        ctx.time = start + k as f64;
        let result = (|| {
            let mut xforms = XformCache::default();
            let world = xforms.world(ctx, sim)?;
            let points = attribute_values::vec3_array(ctx, sim, "points")?.unwrap_or_default();
            Ok::<_, ImportError>(points.iter().map(|p| world.transform_point3(*p).as_vec3()).collect::<Vec<Vec3>>())
        })();
        let points = match result {
            Ok(p) => p,
            Err(e) => {
                ctx.time = saved;
                return Err(e);
            }
        };
        let n = *expected.get_or_insert(points.len());
        if points.len() != n || points.iter().any(|p| !p.is_finite()) {
            let at = ctx.prop_loc(sim, "points");
            ctx.time = saved;
            return Err(ImportError::Invalid {
                at,
                reason: format!(
                    "kinematic animation at time {} has {} points (expected {n}) or non-finite values",
                    start + k as f64,
                    points.len()
                ),
            });
        }
        samples.push(points);
    }
    ctx.time = saved;
    Ok(KinematicTrack { body: BodyId(index), start, samples })
}
