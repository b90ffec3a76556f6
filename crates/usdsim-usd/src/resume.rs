//! `--resume`: continuing a streamed bake from the clips it already wrote.
//!
//! Every clip but the first holds the solver state at its first frame
//! ([`usdsim_core::ResumeState`], as `usdsim:state:` defaults that value clips never
//! compose). A resumed run builds its solver from the input exactly as the first run
//! did, takes the newest clip whose state it can use, puts that state back, and bakes
//! on from that clip's first frame: the clips before it stay as they are, the clip and
//! all after it are written again. Since the solver goes on bit for bit, the finished
//! output is byte-identical to an uninterrupted run; the price is recomputing at most
//! one chunk (the frames a partial last clip already held).
//!
//! The layer's own `points` and `velocities` at that frame are the truth: the exact
//! world-space copies in the state only remove the rounding of local space, and are used
//! only while the layer's values are what they would round to. A frame edited by hand is
//! resumed from as edited.
//!
//! Each layer's `customLayerData` carries the run's fingerprint
//! ([`Imported::fingerprint`]): a digest of the imported scene (the input and every
//! `--set` and override applied), the solver settings, the chunk and usdsim's version.
//! A bake with another fingerprint is refused rather than continued.

use std::path::{Path, PathBuf};

use glam::{DVec3, Vec3};
use openusd::sdf;
use usdsim_core::{BodyState, PlasticTetState, ResumeState, Settings};

use crate::import::Imported;
use crate::schema::usdsim::state;
use crate::stage::bake_layer::{layer_fingerprint, open_layer};
use crate::stage::stage_info::StageInfo;

/// Opens the layer at `path` (`shown` in messages), a layer of a bake, and checks that
/// it records `fingerprint`.
pub(crate) fn open_bake_layer(path: &Path, shown: &Path, fingerprint: &str) -> Result<sdf::Layer, ResumeError> {
    let layer = open_layer(path).map_err(|reason| ResumeError::Clip { path: shown.to_path_buf(), reason })?;
    match layer_fingerprint(&layer) {
        Some(found) if found == fingerprint => Ok(layer),
        found => Err(ResumeError::Mismatch {
            path: shown.to_path_buf(),
            found: found.unwrap_or_else(|| "none".into()),
            expected: fingerprint.to_string(),
        }),
    }
}

/// FNV-1a, 64 bits, over text written into it: the fingerprint's digest, stable across
/// platforms and Rust versions (std's hasher promises neither).
struct Fnv(u64);

impl std::fmt::Write for Fnv {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        for &byte in s.as_bytes() {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        Ok(())
    }
}

impl Imported {
    /// The fingerprint of a bake of this import with `settings` and `chunk` frames per
    /// clip: what `--resume` compares before continuing a bake. Covers the imported
    /// scene (so the input file, its sublayers and every override), the stage's time and
    /// units, the settings, the chunk and usdsim's version; not the frame count, which a
    /// resume extends, nor the thread count, which changes no result, nor where the files
    /// are.
    pub fn fingerprint(&self, settings: &Settings, chunk: u32) -> String {
        use std::fmt::Write as _;
        let mut digest = Fnv(0xcbf2_9ce4_8422_2325);
        // Debug output writes every float with its exact shortest form.
        // Not where the files are: a farm task bakes the same input from another path.
        let stage = StageInfo { input: PathBuf::new(), layers: Vec::new(), ..self.stage.clone() };
        let _ = write!(digest, "{:?}{stage:?}{settings:?}{:?}{chunk}", self.scene, self.binding);
        format!("usdsim {} {:016x}", env!("CARGO_PKG_VERSION"), digest.0)
    }
}

/// Why a bake cannot be resumed.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// The existing output, or a clip of it, was made by another run.
    #[error(
        "{}: was baked from a different input, settings or usdsim version (fingerprint {found}, this run {expected}); \
         remove it, or run without --resume to replace it",
        path.display()
    )]
    Mismatch {
        /// The layer.
        path: PathBuf,
        /// What it records (`none` when nothing).
        found: String,
        /// This run's.
        expected: String,
    },
    /// A clip the resume needs is missing or does not open.
    #[error("{}: {reason}", path.display())]
    Clip {
        /// The clip.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// The state `layer` (the clip starting at frame `first`) holds for `imported`, with
/// the layer's `points` and `velocities` at that frame taking precedence where they
/// were edited. Also returns the prims whose values were edited.
pub(crate) fn read_state(
    layer: &sdf::Layer,
    imported: &Imported,
    first: u32,
) -> Result<(ResumeState, Vec<String>), String> {
    let data = layer.data();
    let field = |prim: &str, name: &str, key: &str| -> Result<Option<sdf::Value>, String> {
        let path = sdf::Path::new(prim)
            .and_then(|p| p.append_property(name))
            .map_err(|err| format!("{prim}.{name}: {err}"))?;
        data.try_field(&path, key)
            .map(|v| v.map(std::borrow::Cow::into_owned))
            .map_err(|err| format!("{prim}.{name}: {err}"))
    };
    let value = |prim: &str, name: &str| field(prim, name, sdf::FieldKey::Default.as_str());
    let missing = |prim: &str, name: &str| format!("{prim}.{name}: missing or of the wrong type");
    let vec3s = |prim: &str, name: &str| -> Result<Vec<Vec3>, String> {
        match value(prim, name)? {
            Some(sdf::Value::Vec3fVec(v)) => Ok(v.iter().map(|p| Vec3::new(p.x, p.y, p.z)).collect()),
            _ => Err(missing(prim, name)),
        }
    };
    // Positions are doubles (the solver's precision); a layer from before they were
    // holds floats.
    let dvec3s = |prim: &str, name: &str| -> Result<Vec<DVec3>, String> {
        match value(prim, name)? {
            Some(sdf::Value::Vec3dVec(v)) => Ok(v.iter().map(|p| DVec3::new(p.x, p.y, p.z)).collect()),
            Some(sdf::Value::Vec3fVec(v)) => Ok(v.iter().map(|p| Vec3::new(p.x, p.y, p.z).as_dvec3()).collect()),
            _ => Err(missing(prim, name)),
        }
    };
    // BDF2's history: absent before the first substep.
    let history = |prim: &str| -> Result<(Vec<DVec3>, Vec<Vec3>, u32), String> {
        let since_contact = match (value(prim, state::SUBSTEPS_SINCE_CONTACT)?, value(prim, state::TOUCHED)?) {
            (Some(sdf::Value::Int(n)), _) if n >= 0 => n as u32,
            (Some(_), _) => return Err(missing(prim, state::SUBSTEPS_SINCE_CONTACT)),
            (None, Some(sdf::Value::Bool(true))) => 0,
            (None, _) => u32::MAX,
        };
        if value(prim, state::PREVIOUS_POINTS)?.is_none() {
            return Ok((Vec::new(), Vec::new(), since_contact));
        }
        Ok((dvec3s(prim, state::PREVIOUS_POINTS)?, vec3s(prim, state::PREVIOUS_VELOCITIES)?, since_contact))
    };
    let floats = |prim: &str, name: &str| -> Result<Vec<f32>, String> {
        match value(prim, name)? {
            Some(sdf::Value::FloatVec(v)) => Ok(v),
            None => Ok(Vec::new()),
            _ => Err(missing(prim, name)),
        }
    };
    let time = imported.stage.start_time_code + f64::from(first);
    let sample = |prim: &str, name: &str| -> Result<Option<sdf::Value>, String> {
        match field(prim, name, sdf::FieldKey::TimeSamples.as_str())? {
            Some(sdf::Value::TimeSamples(samples)) => Ok(samples.into_iter().find(|(t, _)| *t == time).map(|(_, v)| v)),
            _ => Ok(None),
        }
    };

    let mut bodies = Vec::new();
    let mut edited = Vec::new();
    for prim in &imported.binding.bodies {
        let p = prim.prim_path.as_str();
        let mut body = BodyState {
            positions: dvec3s(p, state::POINTS)?,
            velocities: vec3s(p, state::VELOCITIES)?,
            ..BodyState::default()
        };
        (body.previous_positions, body.previous_velocities, body.since_contact) = history(p)?;
        body.asleep = matches!(value(p, state::ASLEEP)?, Some(sdf::Value::Bool(true)));
        body.topology_version = match value(p, state::TOPOLOGY_VERSION)? {
            Some(sdf::Value::Int(v)) if v >= 0 => v as u32,
            _ => return Err(missing(p, state::TOPOLOGY_VERSION)),
        };
        if body.topology_version > 0 {
            body.elements = match value(p, state::ELEMENTS)? {
                Some(sdf::Value::Vec4iVec(v)) => {
                    v.iter().map(|e| [e.x, e.y, e.z, e.w].map(|i| i.max(0) as u32)).collect()
                }
                _ => return Err(missing(p, state::ELEMENTS)),
            };
            body.masses = floats(p, state::MASSES)?;
            body.inverse_masses = floats(p, state::INVERSE_MASSES)?;
        }
        body.broken_edges = match value(p, state::BROKEN_EDGES)? {
            Some(sdf::Value::Vec2iVec(v)) => v.iter().map(|e| [e.x, e.y].map(|i| i.max(0) as u32)).collect(),
            None => Vec::new(),
            _ => return Err(missing(p, state::BROKEN_EDGES)),
        };
        // The layer's own values win where they are not what the exact state rounds to.
        let local_from_world = prim.world_from_local.inverse();
        let rounded: Vec<Vec3> = body.positions.iter().map(|p| p.as_vec3()).collect();
        let exact = crate::export::local_frame(local_from_world, &rounded, &body.velocities);
        let (points_name, velocities_name) = prim.state_attributes();
        for (name, exact) in [(points_name, &exact.0), (velocities_name, &exact.1)] {
            let Some(sdf::Value::Vec3fVec(layer_values)) = sample(p, name)? else { continue };
            if layer_values == *exact {
                continue;
            }
            if layer_values.len() != exact.len() {
                return Err(format!(
                    "{p}.{name} at time {time}: {} values, the state has {}",
                    layer_values.len(),
                    exact.len()
                ));
            }
            let m = prim.world_from_local;
            let layer = layer_values.iter().map(|v| DVec3::new(f64::from(v.x), f64::from(v.y), f64::from(v.z)));
            if name == points_name {
                // The history moves with the edit, so the motion goes on from the new
                // place as it would have from the old.
                let edited: Vec<DVec3> = layer.map(|v| m.transform_point3(v)).collect();
                for ((previous, old), new) in body.previous_positions.iter_mut().zip(&body.positions).zip(&edited) {
                    *previous += *new - *old;
                }
                body.positions = edited;
            } else {
                body.velocities = layer.map(|v| m.transform_vector3(v).as_vec3()).collect();
                // No history leads to edited velocities: the next substep takes implicit
                // Euler, which needs none.
                body.since_contact = 0;
            }
            if !edited.contains(&prim.prim_path) {
                edited.push(prim.prim_path.clone());
            }
        }
        bodies.push(body);
    }
    let g = state::STATE_PRIM;
    let frames = match value(g, state::FRAMES)? {
        Some(sdf::Value::Int64(n)) if n >= 0 => n as u64,
        _ => return Err(missing(g, state::FRAMES)),
    };
    let tets = floats(g, state::PLASTIC_TETS)?;
    if tets.len() % 11 != 0 {
        return Err(format!("{g}.{}: {} values, not eleven per tetrahedron", state::PLASTIC_TETS, tets.len()));
    }
    let rigid = match value(g, state::RIGID_WORLD)? {
        Some(sdf::Value::UcharVec(v)) => v,
        None => Vec::new(),
        _ => return Err(missing(g, state::RIGID_WORLD)),
    };
    let state = ResumeState {
        frames,
        bodies,
        plastic_tets: tets
            .chunks_exact(11)
            .map(|t| PlasticTetState::from_array(t.try_into().expect("eleven")))
            .collect(),
        plastic_hinges: floats(g, state::PLASTIC_HINGES)?,
        springs: floats(g, state::SPRINGS)?,
        rigid,
    };
    Ok((state, edited))
}
