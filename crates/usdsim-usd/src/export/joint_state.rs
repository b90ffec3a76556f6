//! Joint state: each revolute or prismatic joint's coordinate and each breakable joint's
//! state, time-sampled `usdsim:` attributes on the joint prim. Rapier's snapshot in the
//! resume state is what a resume continues from; these are what a user, a renderer or
//! a rig reads back.

use openusd::sdf;

use super::time_samples::author_samples;
use super::JointTrack;
use crate::schema::usdsim::{JOINT_BROKEN, JOINT_POSITION};

/// An `over` on the joint prim with its recorded samples (nothing for a joint with
/// neither a coordinate nor a break threshold).
pub(super) fn author_joint(
    edit: &mut sdf::LayerEdit<'_>,
    track: &JointTrack,
    start: f64,
    first: usize,
) -> Result<(), sdf::AuthoringError> {
    if track.scale.is_none() && !track.breakable || track.frames.iter().all(Option::is_none) {
        return Ok(());
    }
    let prim = sdf::Path::new(&track.prim_path)?;
    sdf::PrimSpecMut::over(edit.data_mut(), prim.clone())?;
    if let Some(scale) = track.scale {
        let samples = track.frames.iter().enumerate().filter_map(|(k, f)| {
            let (q, _) = (*f)?;
            Some((first + k, sdf::Value::Float((q? as f64 * scale) as f32)))
        });
        author_samples(edit, &prim, JOINT_POSITION, "float", start, samples.collect())?;
    }
    if track.breakable {
        let samples =
            track.frames.iter().enumerate().filter_map(|(k, f)| f.map(|(_, b)| (first + k, sdf::Value::Bool(b))));
        author_samples(edit, &prim, JOINT_BROKEN, "bool", start, samples.collect())?;
    }
    Ok(())
}
