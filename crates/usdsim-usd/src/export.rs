//! Export: baked frames as a new USD layer that sublayers the input and holds `over`
//! prims with time-sampled `points`, `velocities` and `extent` on every simulation mesh
//! and on every collision and graphics mesh embedded in one (plus recomputed `normals`
//! where the input authored per-vertex normals).
//!
//! The input is never modified: the output is a separate, small layer, written through
//! a temporary file beside the destination and renamed into place, so an interrupted
//! write never leaves a half-written file.

use std::path::{Component, Path, PathBuf};

use glam::{DMat4, DQuat, DVec3, Quat, Vec3};
use openusd::{gf, sdf};
use usdsim_core::embedding::{polygon_vertex_normals, Embedding};

use crate::error::ExportError;
use crate::import::{FaceTopology, Imported};
use crate::rigid_body::RigidPrim;
use crate::stage_info::StageInfo;

/// The default output next to the input: `<dir>/<stem>.sim.usda`.
pub fn default_output_path(input: &Path) -> PathBuf {
    let stem = input.file_stem().map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned());
    input.with_file_name(format!("{stem}.sim.usda"))
}

/// One simulation mesh's recorded frames, already in its local space.
#[derive(Clone, Debug)]
struct Track {
    prim_path: String,
    local_from_world: DMat4,
    /// Indexed by frame; `None` until pushed.
    frames: Vec<Option<Frame>>,
}

/// An embedded mesh's track: which body it follows and how.
#[derive(Clone, Debug)]
struct EmbeddedTrack {
    track: Track,
    body: usize,
    embedding: Embedding,
    /// Faces for recomputing normals, when the input authored vertex normals.
    normals: Option<FaceTopology>,
}

/// One rigid body's recorded poses, in its parent's space.
#[derive(Clone, Debug)]
struct RigidTrack {
    prim: RigidPrim,
    parent_from_world: DMat4,
    /// `(translate, orient)` per frame; `None` until pushed.
    frames: Vec<Option<(DVec3, DQuat)>>,
}

#[derive(Clone, Debug)]
struct Frame {
    points: Vec<gf::Vec3f>,
    velocities: Vec<gf::Vec3f>,
    extent: [gf::Vec3f; 2],
    normals: Option<Vec<gf::Vec3f>>,
}

impl Frame {
    /// A frame from world-space state, mapped into local space through `m`.
    fn local(m: DMat4, positions: &[Vec3], velocities: &[Vec3]) -> Frame {
        let points: Vec<gf::Vec3f> = positions
            .iter()
            .map(|p| {
                let local = m.transform_point3(p.as_dvec3());
                gf::Vec3f::from(local.as_vec3().to_array())
            })
            .collect();
        let velocities = velocities
            .iter()
            .map(|v| gf::Vec3f::from(m.transform_vector3(v.as_dvec3()).as_vec3().to_array()))
            .collect();
        let extent = extent_of(&points);
        Frame { points, velocities, extent, normals: None }
    }
}

/// A simulation being recorded for export: frame k of every body, in the order of
/// [`Imported::bodies`], stored in each prim's local space at time code
/// `startTimeCode + k`.
#[derive(Clone, Debug)]
pub struct Bake {
    stage: StageInfo,
    frames: u32,
    tracks: Vec<Track>,
    embedded: Vec<EmbeddedTrack>,
    rigid: Vec<RigidTrack>,
}

impl Bake {
    /// Prepares to record `frames + 1` states (frame 0, the initial state, through
    /// frame `frames`) of every imported body.
    pub fn new(imported: &Imported, frames: u32) -> Bake {
        let slots = frames as usize + 1;
        let tracks = imported
            .bodies
            .iter()
            .map(|b| Track {
                prim_path: b.prim_path.clone(),
                local_from_world: b.world_from_local.inverse(),
                frames: vec![None; slots],
            })
            .collect();
        let embedded = imported
            .embedded
            .iter()
            .zip(&imported.scene.embedded)
            .map(|(prim, mesh)| EmbeddedTrack {
                track: Track {
                    prim_path: prim.prim_path.clone(),
                    local_from_world: prim.world_from_local.inverse(),
                    frames: vec![None; slots],
                },
                body: prim.body,
                embedding: Embedding::new(&imported.scene.bodies[mesh.body], &mesh.bind_points),
                normals: prim.normals.clone(),
            })
            .collect();
        let rigid = imported
            .rigid_prims
            .iter()
            .map(|prim| RigidTrack {
                prim: prim.clone(),
                parent_from_world: prim.parent_world.inverse(),
                frames: vec![None; slots],
            })
            .collect();
        Bake { stage: imported.stage.clone(), frames, tracks, embedded, rigid }
    }

    /// Records frame `frame` (0..=frames) of every rigid body: its world pose
    /// (translation and orientation of its frame, as `Solver::rigid_pose` gives it),
    /// in the order of [`Imported::rigid_bodies`]. Stored in the prim's parent space
    /// (the parent's transform at `startTimeCode`, inverted); a parent scale or shear is
    /// dropped from the orientation, so parents should be rigid transforms (uniform
    /// scale is fine). Recording a frame twice keeps the last.
    ///
    /// # Panics
    ///
    /// If `frame > frames` or the number of poses differs from the import's rigid
    /// bodies: both are caller bugs.
    pub fn push_rigid_frame(&mut self, frame: u32, poses: &[(Vec3, Quat)]) {
        assert!(frame <= self.frames, "frame {frame} beyond the bake's {} frames", self.frames);
        assert_eq!(poses.len(), self.rigid.len(), "one pose per imported rigid body");
        for (track, &(t, q)) in self.rigid.iter_mut().zip(poses) {
            let world = DMat4::from_rotation_translation(q.as_dquat().normalize(), t.as_dvec3());
            let (_, rotation, translation) = (track.parent_from_world * world).to_scale_rotation_translation();
            if let Some(slot) = track.frames.get_mut(frame as usize) {
                *slot = Some((translation, rotation.normalize()));
            }
        }
    }

    /// Records frame `frame` (0..=frames): `(positions, velocities)` of every body,
    /// world space, in the same order as [`Imported::bodies`]. Positions go back to
    /// local space through the inverse of the body's `world_from_local`; velocities
    /// through its inverse linear part only. Every embedded mesh
    /// ([`Imported::embedded`]) is placed from its body's state the same way.
    /// Recording a frame twice keeps the last.
    ///
    /// # Panics
    ///
    /// If `frame > frames` or the number of bodies differs from the import's: both are
    /// caller bugs, not bad input.
    pub fn push_frame(&mut self, frame: u32, bodies: &[(&[Vec3], &[Vec3])]) {
        assert!(frame <= self.frames, "frame {frame} beyond the bake's {} frames", self.frames);
        assert_eq!(bodies.len(), self.tracks.len(), "one (positions, velocities) pair per imported body");
        for (track, (positions, velocities)) in self.tracks.iter_mut().zip(bodies) {
            if let Some(slot) = track.frames.get_mut(frame as usize) {
                *slot = Some(Frame::local(track.local_from_world, positions, velocities));
            }
        }
        let (mut points, mut vels) = (Vec::new(), Vec::new());
        for e in &mut self.embedded {
            let (positions, velocities) = bodies[e.body];
            e.embedding.apply(positions, &mut points);
            e.embedding.apply_velocities(velocities, &mut vels);
            let mut f = Frame::local(e.track.local_from_world, &points, &vels);
            if let Some(topology) = &e.normals {
                let local: Vec<Vec3> = f.points.iter().map(|p| Vec3::new(p.x, p.y, p.z)).collect();
                let n = polygon_vertex_normals(&local, &topology.counts, &topology.indices);
                f.normals = Some(n.iter().map(|v| gf::Vec3f::from(v.to_array())).collect());
            }
            if let Some(slot) = e.track.frames.get_mut(frame as usize) {
                *slot = Some(f);
            }
        }
    }

    /// Checks, before any simulating, that [`Bake::write`] can write `output`: a `.usda`
    /// or `.usdc` name, in an existing directory, and not the input itself.
    pub fn check_output(&self, output: &Path) -> Result<(), ExportError> {
        self.destination(output).map(|_| ())
    }

    /// The absolute output and input paths, once `output` is known to be acceptable.
    fn destination(&self, output: &Path) -> Result<(PathBuf, PathBuf), ExportError> {
        let extension = output.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        if !matches!(extension.as_deref(), Some("usda") | Some("usdc")) {
            return Err(ExportError::UnsupportedExtension { path: output.to_path_buf() });
        }
        let output_abs = absolute_destination(output)?;
        let input_abs = self.stage.input.canonicalize().map_err(|err| ExportError::InvalidPath {
            path: output.to_path_buf(),
            reason: format!("cannot locate the input {}: {err}", self.stage.input.display()),
        })?;
        if output_abs == input_abs {
            return Err(ExportError::WouldOverwriteInput { path: output.to_path_buf() });
        }
        Ok((output_abs, input_abs))
    }

    /// Writes the recorded frames to `output` (`.usda` text or `.usdc` binary, by
    /// extension). Refuses to overwrite the input file. Frames never pushed are simply
    /// absent from the output.
    pub fn write(&self, output: &Path) -> Result<(), ExportError> {
        let (output_abs, input_abs) = self.destination(output)?;
        let output_dir = output_abs.parent().unwrap_or_else(|| Path::new("/"));
        let sublayer = relative_asset_path(output_dir, &input_abs);

        let mut layer = sdf::Layer::new_anonymous("usdsim-bake.usda");
        let author_err =
            |err: &dyn std::fmt::Display| ExportError::Author { path: output.to_path_buf(), reason: err.to_string() };
        layer
            .edit(|edit| {
                self.author_metadata(edit, &sublayer)?;
                for track in self.tracks.iter().chain(self.embedded.iter().map(|e| &e.track)) {
                    author_track(edit, track, self.stage.start_time_code)?;
                }
                for track in &self.rigid {
                    author_rigid(edit, track, self.stage.start_time_code)?;
                }
                Ok(())
            })
            .map_err(|err| author_err(&err))?;
        let Some(output_str) = output_abs.to_str() else {
            return Err(ExportError::InvalidPath {
                path: output.to_path_buf(),
                reason: "the path is not valid UTF-8".to_string(),
            });
        };
        layer
            .export(output_str)
            .map_err(|err| ExportError::Write { path: output.to_path_buf(), reason: err.to_string() })
    }

    /// Layer metadata: the sublayer, time range and rate, and the input's axis, units
    /// and default prim (validators flag their absence, and a viewer opening the bake
    /// alone must agree with the input).
    fn author_metadata(&self, edit: &mut sdf::LayerEdit<'_>, sublayer: &str) -> Result<(), sdf::AuthoringError> {
        let info = &self.stage;
        let mut root = edit.pseudo_root_mut()?;
        root.insert_sublayer(0, sublayer, sdf::LayerOffset::IDENTITY);
        root.set_documentation(format!(
            "usdsim bake of {}: frame k at time code startTimeCode + k",
            info.input.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        ));
        root.set_start_time_code(info.start_time_code);
        root.set_end_time_code(info.start_time_code + f64::from(self.frames));
        root.set_time_codes_per_second(info.time_codes_per_second);
        root.set_frames_per_second(info.frames_per_second.unwrap_or(info.time_codes_per_second));
        if let Some(default_prim) = &info.default_prim {
            root.set_default_prim(default_prim.as_str());
        }
        root.set("upAxis", sdf::Value::Token(info.up_axis.token().into()));
        root.set("metersPerUnit", sdf::Value::Double(info.meters_per_unit));
        root.set("kilogramsPerUnit", sdf::Value::Double(info.kilograms_per_unit));
        Ok(())
    }
}

/// `over` prims (ancestors included) with the three time-sampled attributes.
fn author_track(edit: &mut sdf::LayerEdit<'_>, track: &Track, start: f64) -> Result<(), sdf::AuthoringError> {
    let prim = sdf::Path::new(&track.prim_path)?;
    sdf::PrimSpecMut::over(edit.data_mut(), prim.clone())?;
    let has_normals = track.frames.iter().flatten().any(|f| f.normals.is_some());
    let attributes: [(&str, &str); 4] =
        [("points", "point3f[]"), ("velocities", "vector3f[]"), ("extent", "float3[]"), ("normals", "normal3f[]")];
    for (name, type_name) in attributes {
        if name == "normals" && !has_normals {
            continue;
        }
        let path = prim.append_property(name)?;
        let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, type_name, sdf::Variability::Varying, false)?;
        // Samples are set in increasing time order; the spec keeps them sorted anyway,
        // which Pixar's reader of `.usdc` silently relies on.
        for (k, frame) in track.frames.iter().enumerate() {
            let Some(frame) = frame else { continue };
            let value = match name {
                "points" => frame.points.clone(),
                "velocities" => frame.velocities.clone(),
                "normals" => match &frame.normals {
                    Some(n) => n.clone(),
                    None => continue,
                },
                _ => frame.extent.to_vec(),
            };
            spec.set_time_sample(start + k as f64, sdf::Value::Vec3fVec(value))?;
        }
    }
    Ok(())
}

/// An `over` on a rigid body prim: time-sampled `xformOp:translate` (double3) and
/// `xformOp:orient` (quatd), a constant `xformOp:scale` when the input authored one, and
/// the `xformOpOrder` naming them (after `!resetXformStack!` when the input had it).
fn author_rigid(edit: &mut sdf::LayerEdit<'_>, track: &RigidTrack, start: f64) -> Result<(), sdf::AuthoringError> {
    if track.frames.iter().all(Option::is_none) {
        return Ok(());
    }
    let prim = sdf::Path::new(&track.prim.prim_path)?;
    sdf::PrimSpecMut::over(edit.data_mut(), prim.clone())?;
    let mut order: Vec<&str> = Vec::new();
    if track.prim.resets_stack {
        order.push("!resetXformStack!");
    }
    order.extend(["xformOp:translate", "xformOp:orient"]);

    let path = prim.append_property("xformOp:translate")?;
    let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, "double3", sdf::Variability::Varying, false)?;
    for (k, frame) in track.frames.iter().enumerate() {
        let Some((t, _)) = frame else { continue };
        spec.set_time_sample(start + k as f64, sdf::Value::Vec3d(gf::Vec3d::from(t.to_array())))?;
    }
    let path = prim.append_property("xformOp:orient")?;
    let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, "quatd", sdf::Variability::Varying, false)?;
    for (k, frame) in track.frames.iter().enumerate() {
        let Some((_, q)) = frame else { continue };
        spec.set_time_sample(start + k as f64, sdf::Value::Quatd(gf::Quatd { w: q.w, x: q.x, y: q.y, z: q.z }))?;
    }
    if let Some(scale) = track.prim.scale {
        let path = prim.append_property("xformOp:scale")?;
        let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, "double3", sdf::Variability::Varying, false)?;
        spec.set_default(sdf::Value::Vec3d(gf::Vec3d::from(scale.to_array())))?;
        order.push("xformOp:scale");
    }
    let path = prim.append_property("xformOpOrder")?;
    let mut spec = sdf::AttributeSpecMut::new(edit.data_mut(), path, "token[]", sdf::Variability::Uniform, false)?;
    spec.set_default(sdf::Value::TokenVec(order.into_iter().map(Into::into).collect()))?;
    Ok(())
}

/// Axis-aligned bounds `[min, max]` of local points (zero box when empty), as USD's
/// `extent`.
fn extent_of(points: &[gf::Vec3f]) -> [gf::Vec3f; 2] {
    let mut iter = points.iter().map(|p| Vec3::new(p.x, p.y, p.z));
    let Some(first) = iter.next() else {
        return [gf::Vec3f::default(), gf::Vec3f::default()];
    };
    let (min, max) = iter.fold((first, first), |(lo, hi), p| (lo.min(p), hi.max(p)));
    [gf::Vec3f::from(min.to_array()), gf::Vec3f::from(max.to_array())]
}

/// The absolute, symlink-resolved path the output will have: its directory must exist.
fn absolute_destination(output: &Path) -> Result<PathBuf, ExportError> {
    if let Ok(existing) = output.canonicalize() {
        return Ok(existing);
    }
    let file_name = output
        .file_name()
        .ok_or_else(|| ExportError::InvalidPath { path: output.to_path_buf(), reason: "no file name".to_string() })?;
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let parent = parent.canonicalize().map_err(|err| ExportError::InvalidPath {
        path: output.to_path_buf(),
        reason: format!("output directory {}: {err}", parent.display()),
    })?;
    Ok(parent.join(file_name))
}

/// `target` relative to the directory `base` (both absolute), spelled as a USD asset
/// path: forward slashes, `./` for siblings so it is anchored to the output layer.
/// Falls back to the absolute path when the two share no root (other drive).
fn relative_asset_path(base: &Path, target: &Path) -> String {
    let base: Vec<Component> = base.components().collect();
    let target_parts: Vec<Component> = target.components().collect();
    if base.first() != target_parts.first() {
        return target.to_string_lossy().replace('\\', "/");
    }
    let common = base.iter().zip(&target_parts).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); base.len() - common];
    parts.extend(target_parts[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    let joined = parts.join("/");
    if joined.starts_with("..") {
        joined
    } else {
        format!("./{joined}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_output_sits_beside_input() {
        assert_eq!(default_output_path(Path::new("/a/b/scene.usda")), PathBuf::from("/a/b/scene.sim.usda"));
        assert_eq!(default_output_path(Path::new("x.usdc")), PathBuf::from("x.sim.usda"));
    }

    #[test]
    fn relative_paths() {
        assert_eq!(relative_asset_path(Path::new("/a/b"), Path::new("/a/b/s.usda")), "./s.usda");
        assert_eq!(relative_asset_path(Path::new("/a/b/out"), Path::new("/a/b/s.usda")), "../s.usda");
        assert_eq!(relative_asset_path(Path::new("/a/x"), Path::new("/a/b/c/s.usda")), "../b/c/s.usda");
        assert_eq!(relative_asset_path(Path::new("/"), Path::new("/s.usda")), "./s.usda");
    }

    #[test]
    fn extent_bounds_points() {
        let pts = [gf::Vec3f::from([1.0, -2.0, 3.0]), gf::Vec3f::from([-1.0, 5.0, 0.0])];
        let [lo, hi] = extent_of(&pts);
        assert_eq!([lo.x, lo.y, lo.z], [-1.0, -2.0, 0.0]);
        assert_eq!([hi.x, hi.y, hi.z], [1.0, 5.0, 3.0]);
    }
}
