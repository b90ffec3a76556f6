//! Export: baked frames as a new USD layer that sublayers the input and holds `over`
//! prims with time-sampled `points`, `velocities` and `extent` on every simulation mesh
//! and on every collision and graphics mesh embedded in one (plus recomputed `normals`
//! where the input authored per-vertex normals).
//!
//! Bodies that tear get **varying topology**, USD's convention for meshes whose
//! connectivity changes over time: time-sampled `faceVertexCounts` and
//! `faceVertexIndices` on a `Mesh`, `tetVertexIndices` and `surfaceFaceVertexIndices` on
//! a `TetMesh`, sampled at the first frame (the topology the bake started from) and at
//! every frame where it changed; `points` and `velocities` change length with it.
//! Bodies whose rest shape is part of the state (plastic) get time-sampled
//! `restShapePoints`, rest element indices and, on surfaces, `restAdjTriPairs` /
//! `restBendAngles` (degrees), under the input's schema spelling, so a later run can
//! resume from any frame.
//!
//! The input is never modified: the output is a separate, small layer, written through
//! a temporary file beside the destination and renamed into place, so an interrupted
//! write never leaves a half-written file.

use std::path::Path;
use usdsim_core::{BodyId, RigidId};

use glam::{DMat4, DQuat, DVec3, Quat, Vec3};
use openusd::{gf, sdf};
use usdsim_core::{polygon_vertex_normals, BodyKind, Embedding, JointKind, RestShape, ResumeState, Solver};

use crate::error::ExportError;
use crate::import::Imported;
use crate::read::embedded::FaceTopology;
use crate::read::rigid_body::RigidPrim;
use crate::schema::dialect::Dialect;
use crate::schema::usdsim::{FINGERPRINT_KEY, OVERRIDES_KEY};
use crate::stage::attribute_override::AttributeOverride;
use crate::stage::stage_info::StageInfo;

mod clip_set;
mod joint_state;
mod layer_file;
mod output_path;
mod pixar_crate;
mod points;
mod rest_shape;
mod resume_state;
mod rigid_pose;
mod time_samples;
mod topology;

pub(crate) use clip_set::ClipSet;
pub use clip_set::{clip_file, clip_folder, manifest_file};
use joint_state::author_joint;
pub(crate) use layer_file::write_layer;
pub use output_path::default_output_path;
pub(crate) use output_path::{check_writable, destination, relative_asset_path};
use points::author_track;
use rest_shape::{author_constant_rest, author_rest};
use resume_state::author_resume_state;
use rigid_pose::author_rigid;
use topology::author_topology;

/// One simulation mesh's recorded frames, already in its local space.
#[derive(Clone, Debug)]
struct Track {
    prim_path: String,
    /// The attributes the points and velocities go to (`points`, `velocities`, or a
    /// legacy PhysX volume's simulation mesh attributes).
    attributes: (&'static str, &'static str),
    /// Whether `extent` is written with the points (UsdGeom's, for `points` only).
    extent: bool,
    local_from_world: DMat4,
    /// Indexed by frame; `None` until pushed.
    frames: Vec<Option<Frame>>,
}

/// A body's mesh connectivity at one frame, in local vertex indices (tearing splits
/// vertices and re-indexes elements; the element count and order stay the same).
#[derive(Clone, Debug, PartialEq)]
pub enum Topology {
    /// A surface body's triangles.
    Triangles(Vec<[u32; 3]>),
    /// A volume body's tetrahedra.
    Tets(Vec<[u32; 4]>),
}

/// A body's rest state at one frame, already in local space.
#[derive(Clone, Debug)]
struct RestFrame {
    points: Vec<gf::Vec3f>,
    elements: Vec<[u32; 4]>,
    /// `(pair of adjacent triangles, rest angle in degrees)`.
    bend: Vec<([u32; 2], f32)>,
}

/// Per-body state beyond points: topology and rest shape over time.
#[derive(Clone, Debug)]
struct BodyExtras {
    kind: BodyKind,
    dialect: Dialect,
    /// Where the rest points go (the dialect's `restShapePoints`, or a legacy body's).
    rest_points: &'static str,
    /// Whether the body is a legacy PhysX one, whose rest elements are its elements.
    legacy: bool,
    /// The topology the bake starts from (the import's).
    initial: Topology,
    /// The last topology version seen by [`Bake::record`].
    version: u32,
    /// The topology in effect after the last recorded change (the initial one before
    /// any): what a clip starting later holds from its first frame.
    current: Topology,
    /// Per frame: the topology from that frame on, where it changed.
    topology: Vec<Option<Topology>>,
    /// Per frame: the rest state, for bodies whose rest shape is part of the state.
    rest: Vec<Option<RestFrame>>,
    /// The imported rest state, written once (at the first frame) when nothing else
    /// carries it to a run that resumes from this bake: when the input left it to fall
    /// back on `points` (which the bake overrides with deformed ones) or the topology
    /// changes (the fallback rest elements would then be the torn ones).
    initial_rest: RestFrame,
    /// Whether the imported rest shape is the fallback (the initial points themselves).
    rest_is_fallback: bool,
    /// Whether a rest state was ever recorded ([`Bake::push_rest_shape`]).
    rest_recorded: bool,
    /// Whether this bake streams clips: constant values go to the output layer.
    streamed: bool,
    /// Whether the body can tear (a tear ratio anywhere): its clips then each hold
    /// the topology in effect, a clip set has no other way to change it mid-bake.
    may_tear: bool,
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

/// One joint's recorded state.
#[derive(Clone, Debug)]
struct JointTrack {
    prim_path: String,
    /// The factor from the solver's coordinate (radians, stage units) to the baked one
    /// (degrees, stage units); `None` for a joint with no single coordinate.
    scale: Option<f64>,
    /// Whether the joint can break (a finite threshold).
    breakable: bool,
    /// `(coordinate, broken)` per frame; `None` until pushed.
    frames: Vec<Option<(Option<f32>, bool)>>,
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

/// World-space `positions` and `velocities` in local space through `m`, exactly as a
/// bake records them (what `--resume` compares a layer's values with).
pub(crate) fn local_frame(m: DMat4, positions: &[Vec3], velocities: &[Vec3]) -> (Vec<gf::Vec3f>, Vec<gf::Vec3f>) {
    let frame = Frame::local(m, positions, velocities);
    (frame.points, frame.velocities)
}

/// A simulation being recorded for export: frame k of every body, in the order of
/// [`Binding::bodies`](crate::Binding::bodies), stored in each prim's local space at time code
/// `startTimeCode + k`.
#[derive(Clone, Debug)]
pub struct Bake {
    stage: StageInfo,
    /// The first frame this bake holds (0, or a clip's first frame): slot `k` of every
    /// track is frame `first + k`.
    first: u32,
    /// The last frame this bake holds.
    frames: u32,
    tracks: Vec<Track>,
    /// One per track: topology and rest state.
    extras: Vec<BodyExtras>,
    embedded: Vec<EmbeddedTrack>,
    rigid: Vec<RigidTrack>,
    joints: Vec<JointTrack>,
    /// The run's `--set` overrides, recorded in `customLayerData`.
    overrides: Vec<String>,
    /// The run's fingerprint (`resume.rs`), recorded in `customLayerData` of every layer.
    fingerprint: Option<String>,
    /// The solver state at this window's first frame, written into its clip.
    resume_state: Option<ResumeState>,
}

/// A rest state in local space (through `m`), bend angles in degrees.
fn rest_frame(m: DMat4, rest: &RestShape, bend_angles: &[([u32; 2], f32)]) -> RestFrame {
    let points =
        rest.points.iter().map(|p| gf::Vec3f::from(m.transform_point3(p.as_dvec3()).as_vec3().to_array())).collect();
    let bend = bend_angles.iter().map(|&(pair, radians)| (pair, radians.to_degrees())).collect();
    RestFrame { points, elements: rest.elements.clone(), bend }
}

impl Bake {
    /// Prepares to record `frames + 1` states (frame 0, the initial state, through
    /// frame `frames`) of every imported body.
    pub fn new(imported: &Imported, frames: u32) -> Bake {
        Bake::window(imported, 0, frames)
    }

    /// Prepares to record frames `first..=last` only: one value clip of a streamed
    /// bake ([`crate::Baker`]). Frame numbers stay absolute everywhere.
    ///
    /// # Panics
    ///
    /// If `first > last`: a caller bug.
    pub fn window(imported: &Imported, first: u32, last: u32) -> Bake {
        assert!(first <= last, "an empty window {first}..={last}");
        let slots = (last - first) as usize + 1;
        let tracks = imported
            .binding
            .bodies
            .iter()
            .map(|b| Track {
                prim_path: b.prim_path.clone(),
                attributes: b.state_attributes(),
                extent: b.state_attributes().0 == "points",
                local_from_world: b.world_from_local.inverse(),
                frames: vec![None; slots],
            })
            .collect();
        let extras = imported
            .binding
            .bodies
            .iter()
            .zip(&imported.scene.bodies)
            .map(|(prim, body)| BodyExtras {
                kind: body.kind,
                dialect: prim.dialect,
                rest_points: prim.rest_points_attribute(),
                legacy: prim.legacy.is_some(),
                initial: match body.kind {
                    BodyKind::Surface => Topology::Triangles(body.triangles.clone()),
                    BodyKind::Volume => Topology::Tets(body.tets.clone()),
                },
                version: 0,
                current: match body.kind {
                    BodyKind::Surface => Topology::Triangles(body.triangles.clone()),
                    BodyKind::Volume => Topology::Tets(body.tets.clone()),
                },
                topology: vec![None; slots],
                rest: vec![None; slots],
                initial_rest: rest_frame(
                    prim.world_from_local.inverse(),
                    &RestShape { points: body.rest_points.clone(), elements: body.rest_elements.clone() },
                    &body.bend_overrides,
                ),
                rest_is_fallback: body.rest_points == body.positions,
                rest_recorded: false,
                streamed: false,
                may_tear: body.tear_ratio.is_some() || body.materials.iter().any(|m| m.tear_ratio.is_some()),
            })
            .collect();
        let embedded = imported
            .binding
            .embedded
            .iter()
            .zip(&imported.scene.embedded)
            .map(|(prim, mesh)| {
                let embedding = Embedding::new(&imported.scene.bodies[mesh.body.index()], &mesh.bind_points);
                EmbeddedTrack {
                    track: Track {
                        prim_path: prim.prim_path.clone(),
                        attributes: ("points", "velocities"),
                        extent: true,
                        local_from_world: prim.world_from_local.inverse(),
                        frames: vec![None; slots],
                    },
                    body: prim.body.index(),
                    embedding,
                    normals: prim.normals.clone(),
                }
            })
            .collect();
        let rigid = imported
            .binding
            .rigid
            .iter()
            .map(|prim| RigidTrack {
                prim: prim.clone(),
                parent_from_world: prim.parent_world.inverse(),
                frames: vec![None; slots],
            })
            .collect();
        let joints = imported
            .scene
            .joints
            .iter()
            .map(|j| JointTrack {
                prim_path: j.name.clone(),
                scale: match j.kind {
                    JointKind::Revolute { .. } => Some(180.0 / std::f64::consts::PI),
                    JointKind::Prismatic { .. } => Some(1.0),
                    _ => None,
                },
                breakable: j.break_at.iter().any(|b| b.is_finite()),
                frames: vec![None; slots],
            })
            .collect();
        Bake {
            stage: imported.stage.clone(),
            first,
            frames: last,
            tracks,
            extras,
            embedded,
            rigid,
            joints,
            overrides: Vec::new(),
            fingerprint: None,
            resume_state: None,
        }
    }

    /// The first frame this bake holds.
    pub fn first_frame(&self) -> u32 {
        self.first
    }

    /// The last frame this bake holds.
    pub fn last_frame(&self) -> u32 {
        self.frames
    }

    /// Moves the window on to frames `first..=last` (a new clip): every recorded frame
    /// is dropped, so memory stays bounded by one window, while what carries over from
    /// frame to frame (embeddings following torn elements, topology versions) is kept.
    /// Each body's topology in effect is sampled at the new window's first frame, so
    /// each clip holds every value it needs on its own.
    ///
    /// # Panics
    ///
    /// If `first > last`: a caller bug.
    pub fn next_window(&mut self, first: u32, last: u32) {
        assert!(first <= last, "an empty window {first}..={last}");
        let slots = (last - first) as usize + 1;
        let reset = |frames: &mut Vec<Option<Frame>>| {
            frames.clear();
            frames.resize(slots, None);
        };
        for track in &mut self.tracks {
            reset(&mut track.frames);
        }
        for e in &mut self.embedded {
            reset(&mut e.track.frames);
        }
        for track in &mut self.rigid {
            track.frames.clear();
            track.frames.resize(slots, None);
        }
        for track in &mut self.joints {
            track.frames.clear();
            track.frames.resize(slots, None);
        }
        for extras in &mut self.extras {
            extras.topology.clear();
            extras.topology.resize(slots, None);
            extras.rest.clear();
            extras.rest.resize(slots, None);
        }
        self.first = first;
        self.frames = last;
        self.resume_state = None;
        self.hold_topology();
    }

    /// Makes room for frames up to `last` (a simulation stepped with no end known in
    /// advance, as the Python module's): the frames recorded are kept, the new ones are
    /// empty until recorded. A `last` at or before the bake's last frame changes nothing.
    pub fn extend_to(&mut self, last: u32) {
        if last <= self.frames {
            return;
        }
        let slots = (last - self.first) as usize + 1;
        for track in self.tracks.iter_mut().chain(self.embedded.iter_mut().map(|e| &mut e.track)) {
            track.frames.resize(slots, None);
        }
        for extras in &mut self.extras {
            extras.topology.resize(slots, None);
            extras.rest.resize(slots, None);
        }
        for track in &mut self.rigid {
            track.frames.resize(slots, None);
        }
        for track in &mut self.joints {
            track.frames.resize(slots, None);
        }
        self.frames = last;
    }

    /// Samples the topology in effect at this window's first frame of every body that
    /// can tear (a clip must not rely on another clip for it), and marks the bake as
    /// streamed.
    pub(crate) fn hold_topology(&mut self) {
        for extras in &mut self.extras {
            extras.streamed = true;
            if extras.may_tear && extras.topology[0].is_none() {
                extras.topology[0] = Some(extras.current.clone());
            }
        }
    }

    /// The slot of `frame`, checked against the window.
    fn slot(&self, frame: u32) -> usize {
        assert!(
            frame >= self.first && frame <= self.frames,
            "frame {frame} outside the bake's frames {}..={}",
            self.first,
            self.frames
        );
        (frame - self.first) as usize
    }

    /// Records frame `frame` of everything `solver` simulates: positions and velocities
    /// of every body ([`Bake::push_frame`]), a body's new topology when its
    /// [`Solver::topology_version`] moved since the last call ([`Bake::push_topology`]),
    /// the rest state of bodies whose rest shape is part of the state
    /// ([`Bake::push_rest_shape`]), rigid-body poses and joint state.
    pub fn record(&mut self, frame: u32, solver: &Solver) {
        for b in 0..self.tracks.len() {
            let version = solver.topology_version(BodyId(b));
            if version != self.extras[b].version {
                self.extras[b].version = version;
                let topology = match self.extras[b].kind {
                    BodyKind::Surface => Topology::Triangles(solver.triangles(BodyId(b)).to_vec()),
                    BodyKind::Volume => Topology::Tets(solver.tets(BodyId(b)).to_vec()),
                };
                self.push_topology(frame, b, topology);
            }
            if solver.rest_is_state(BodyId(b)) {
                self.push_rest_shape(frame, b, &solver.rest_shape(BodyId(b)), &solver.rest_bend_angles(BodyId(b)));
            }
        }
        let positions: Vec<_> = (0..solver.body_count()).map(|b| solver.positions(BodyId(b))).collect();
        let states: Vec<_> =
            positions.iter().enumerate().map(|(b, p)| (&p[..], solver.velocities(BodyId(b)))).collect();
        self.push_frame(frame, &states);
        let poses: Vec<_> = (0..solver.rigid_count()).map(|r| solver.rigid_pose(RigidId(r))).collect();
        self.push_rigid_frame(frame, &poses);
        let slot = self.slot(frame);
        for (j, track) in self.joints.iter_mut().enumerate() {
            if let Some(slot) = track.frames.get_mut(slot) {
                *slot = Some((solver.joint_coordinate(j), solver.joint_broken(j)));
            }
        }
    }

    /// Records that body `body`'s topology is `topology` from frame `frame` on (after a
    /// tear). The output then holds time-sampled topology for the body: the imported
    /// topology at frame 0 and this one at `frame`. Embedded meshes of the body follow
    /// the elements they are bound to. Push the topology before the frame's positions
    /// ([`Bake::push_frame`]), which then index the new, longer vertex list.
    ///
    /// # Panics
    ///
    /// If `frame > frames`, `body` is out of range or the topology's kind or element
    /// count differs from the imported body's: caller bugs.
    pub fn push_topology(&mut self, frame: u32, body: usize, topology: Topology) {
        let slot = self.slot(frame);
        let extras = &mut self.extras[body];
        let same_shape = match (&extras.initial, &topology) {
            (Topology::Triangles(a), Topology::Triangles(b)) => a.len() == b.len(),
            (Topology::Tets(a), Topology::Tets(b)) => a.len() == b.len(),
            _ => false,
        };
        assert!(same_shape, "a body's topology keeps its element kind and count");
        let (triangles, tets): (&[[u32; 3]], &[[u32; 4]]) = match &topology {
            Topology::Triangles(t) => (t, &[]),
            Topology::Tets(t) => (&[], t),
        };
        for e in self.embedded.iter_mut().filter(|e| e.body == body) {
            e.embedding.follow_topology(triangles, tets);
        }
        extras.current = topology.clone();
        extras.topology[slot] = Some(topology);
    }

    /// Records body `body`'s rest state at frame `frame`: its rest shape (world space,
    /// as `Solver::rest_shape` gives it) and dihedral rest angles (radians, as
    /// `Solver::rest_bend_angles` gives them). Written as time-sampled
    /// `restShapePoints`, rest element indices and (surface bodies, when any)
    /// `restAdjTriPairs` / `restBendAngles` in degrees, under the input's dialect.
    pub fn push_rest_shape(&mut self, frame: u32, body: usize, rest: &RestShape, bend_angles: &[([u32; 2], f32)]) {
        let slot = self.slot(frame);
        let frame_rest = rest_frame(self.tracks[body].local_from_world, rest, bend_angles);
        self.extras[body].rest[slot] = Some(frame_rest);
        self.extras[body].rest_recorded = true;
    }

    /// Records frame `frame` (0..=frames) of every rigid body: its world pose
    /// (translation and orientation of its frame, as `Solver::rigid_pose` gives it),
    /// in the order of [`Binding::rigid`](crate::Binding::rigid). Stored in the prim's parent space
    /// (the parent's transform at `startTimeCode`, inverted); a parent scale or shear is
    /// dropped from the orientation, so parents should be rigid transforms (uniform
    /// scale is fine). Recording a frame twice keeps the last.
    ///
    /// # Panics
    ///
    /// If `frame > frames` or the number of poses differs from the import's rigid
    /// bodies: both are caller bugs.
    pub fn push_rigid_frame(&mut self, frame: u32, poses: &[(Vec3, Quat)]) {
        let slot = self.slot(frame);
        assert_eq!(poses.len(), self.rigid.len(), "one pose per imported rigid body");
        for (track, &(t, q)) in self.rigid.iter_mut().zip(poses) {
            let world = DMat4::from_rotation_translation(q.as_dquat().normalize(), t.as_dvec3());
            let (_, rotation, translation) = (track.parent_from_world * world).to_scale_rotation_translation();
            if let Some(slot) = track.frames.get_mut(slot) {
                *slot = Some((translation, rotation.normalize()));
            }
        }
    }

    /// Records frame `frame` (0..=frames): `(positions, velocities)` of every body,
    /// world space, in the same order as [`Binding::bodies`](crate::Binding::bodies). Positions go back to
    /// local space through the inverse of the body's `world_from_local`; velocities
    /// through its inverse linear part only. Every embedded mesh
    /// ([`Binding::embedded`](crate::Binding::embedded)) is placed from its body's state the same way.
    /// Recording a frame twice keeps the last.
    ///
    /// # Panics
    ///
    /// If `frame > frames` or the number of bodies differs from the import's: both are
    /// caller bugs, not bad input.
    pub fn push_frame(&mut self, frame: u32, bodies: &[(&[Vec3], &[Vec3])]) {
        let slot = self.slot(frame);
        assert_eq!(bodies.len(), self.tracks.len(), "one (positions, velocities) pair per imported body");
        for (track, (positions, velocities)) in self.tracks.iter_mut().zip(bodies) {
            if let Some(slot) = track.frames.get_mut(slot) {
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
            if let Some(slot) = e.track.frames.get_mut(slot) {
                *slot = Some(f);
            }
        }
    }

    /// The first value recorded for frame `frame` that is not finite, if any: every
    /// body's `points` and `velocities`, its rest shape and bend angles (plastic
    /// bodies), every embedded mesh's points, velocities and normals, and every rigid
    /// body's pose, in that order. A run stops at such a frame rather than write it.
    pub fn first_non_finite(&self, frame: u32) -> Option<NonFinite> {
        let f = frame.checked_sub(self.first)? as usize;
        let found = |prim: &str, attribute: &'static str| Some(NonFinite { prim: prim.to_string(), attribute, frame });
        let bad = |v: &[gf::Vec3f]| !v.iter().all(|p| p.x.is_finite() && p.y.is_finite() && p.z.is_finite());
        let track_bad = |track: &Track| -> Option<&'static str> {
            let fr = track.frames.get(f)?.as_ref()?;
            if bad(&fr.points) {
                Some(track.attributes.0)
            } else if bad(&fr.velocities) {
                Some(track.attributes.1)
            } else if fr.normals.as_deref().is_some_and(bad) {
                Some("normals")
            } else {
                None
            }
        };
        for (track, extras) in self.tracks.iter().zip(&self.extras) {
            if let Some(attribute) = track_bad(track) {
                return found(&track.prim_path, attribute);
            }
            if let Some(Some(rest)) = extras.rest.get(f) {
                if bad(&rest.points) {
                    return found(&track.prim_path, extras.rest_points);
                }
                if !rest.bend.iter().all(|(_, angle)| angle.is_finite()) {
                    return found(&track.prim_path, "restBendAngles");
                }
            }
        }
        for e in &self.embedded {
            if let Some(attribute) = track_bad(&e.track) {
                return found(&e.track.prim_path, attribute);
            }
        }
        for track in &self.rigid {
            if let Some(Some((t, q))) = track.frames.get(f) {
                if !t.is_finite() {
                    return found(&track.prim.prim_path, "xformOp:translate");
                }
                if !q.is_finite() {
                    return found(&track.prim.prim_path, "xformOp:orient");
                }
            }
        }
        None
    }

    /// Ends the bake before frame `frame`: what was recorded for it and later is
    /// dropped and the output's `endTimeCode` becomes frame `frame − 1`, so a run that
    /// diverged still writes every frame it got right.
    ///
    /// When `frame` is the window's first, the window ends up empty ([`Bake::is_empty`]).
    ///
    /// # Panics
    ///
    /// If `frame` is 0 (the initial state is always kept) or outside the bake's frames.
    pub fn end_before(&mut self, frame: u32) {
        assert!(frame > 0 && frame >= self.first && frame <= self.frames, "frame {frame} outside 1..={}", self.frames);
        let keep = (frame - self.first) as usize;
        for track in self.tracks.iter_mut().chain(self.embedded.iter_mut().map(|e| &mut e.track)) {
            track.frames.truncate(keep);
        }
        for extras in &mut self.extras {
            extras.topology.truncate(keep);
            extras.rest.truncate(keep);
        }
        for track in &mut self.rigid {
            track.frames.truncate(keep);
        }
        for track in &mut self.joints {
            track.frames.truncate(keep);
        }
        self.frames = frame - 1;
    }

    /// Records the run's `--set` overrides: the layer's `customLayerData` lists them
    /// under `usdsimOverrides`, so a bake says what it was made with.
    pub fn record_overrides(&mut self, overrides: &[AttributeOverride]) {
        self.overrides = overrides.iter().map(ToString::to_string).collect();
    }

    /// Records the run's fingerprint, written into the `customLayerData` of the output
    /// and of every clip, which `--resume` checks.
    pub fn record_fingerprint(&mut self, fingerprint: &str) {
        self.fingerprint = Some(fingerprint.to_string());
    }

    /// Records the solver state at this window's first frame: its clip carries it, so a
    /// later run can continue from there (`--resume`).
    pub fn record_resume_state(&mut self, state: ResumeState) {
        self.resume_state = Some(state);
    }

    /// Takes up where a resumed solver is: each body's topology in effect (a torn
    /// body's) becomes the bake's current one, as if it had recorded the tears, so the
    /// window samples it and embedded meshes follow it. Call before recording the first
    /// frame of a resumed window.
    pub fn resume_topology(&mut self, solver: &Solver) {
        for b in 0..self.tracks.len() {
            let version = solver.topology_version(BodyId(b));
            if version == 0 || version == self.extras[b].version {
                continue;
            }
            let topology = match self.extras[b].kind {
                BodyKind::Surface => Topology::Triangles(solver.triangles(BodyId(b)).to_vec()),
                BodyKind::Volume => Topology::Tets(solver.tets(BodyId(b)).to_vec()),
            };
            let (triangles, tets): (&[[u32; 3]], &[[u32; 4]]) = match &topology {
                Topology::Triangles(t) => (t, &[]),
                Topology::Tets(t) => (&[], t),
            };
            for e in self.embedded.iter_mut().filter(|e| e.body == b) {
                e.embedding.follow_topology(triangles, tets);
            }
            self.extras[b].version = version;
            self.extras[b].current = topology;
        }
    }

    /// Whether the window holds no frame at all (ended before its first).
    pub fn is_empty(&self) -> bool {
        self.tracks
            .first()
            .map_or_else(|| self.rigid.first().is_none_or(|t| t.frames.is_empty()), |t| t.frames.is_empty())
    }

    /// Checks, before any simulating, that [`Bake::write`] can write `output`: a file
    /// name (not a folder) ending in `.usda`, `.usdc` or `.usd`, in an existing directory,
    /// neither the input itself nor any file the input loads ([`StageInfo::layers`]), and
    /// writable: a probe file is created (and removed) beside it, and an existing output
    /// must open for writing, so a read-only folder fails now, with the OS's reason, not
    /// after the whole simulation.
    pub fn check_output(&self, output: &Path) -> Result<(), ExportError> {
        check_writable(&self.stage, output)
    }

    /// Writes the recorded frames to `output` (`.usda` text, or `.usdc` / `.usd` binary
    /// as Pixar's tools write new `.usd` files, by extension). Refuses to overwrite the input file or any file it loads. Frames never pushed are simply
    /// absent from the output.
    pub fn write(&self, output: &Path) -> Result<(), ExportError> {
        let (output_abs, input_abs) = destination(&self.stage, output)?;
        let output_dir = output_abs.parent().unwrap_or_else(|| Path::new("/"));
        let sublayer = relative_asset_path(output_dir, &input_abs);
        let layer = self.author_layer(output, Some(&sublayer))?;
        write_layer(&layer, &output_abs, output)
    }

    /// The recorded frames as a layer of `over` prims with time samples: with a
    /// sublayer, a whole single-layer bake (metadata first, as it always was written);
    /// without, one value clip.
    pub(crate) fn author_layer(&self, output: &Path, sublayer: Option<&str>) -> Result<sdf::Layer, ExportError> {
        let mut layer = sdf::Layer::new_anonymous("usdsim-bake.usda");
        let start = self.stage.start_time_code;
        let first = self.first as usize;
        layer
            .edit(|edit| {
                match sublayer {
                    Some(sublayer) => self.author_metadata(edit, sublayer, self.frames)?,
                    None => {
                        if let Some(fingerprint) = &self.fingerprint {
                            let data = [(FINGERPRINT_KEY.to_string(), sdf::Value::String(fingerprint.clone()))];
                            edit.pseudo_root_mut()?
                                .set("customLayerData", sdf::Value::Dictionary(data.into_iter().collect()));
                        }
                    }
                }
                for track in self.tracks.iter().chain(self.embedded.iter().map(|e| &e.track)) {
                    author_track(edit, track, start, first)?;
                }
                for (track, extras) in self.tracks.iter().zip(&self.extras) {
                    author_topology(edit, track, extras, start, first)?;
                    author_rest(edit, track, extras, start, first)?;
                }
                for track in &self.rigid {
                    author_rigid(edit, track, start, first)?;
                }
                for track in &self.joints {
                    author_joint(edit, track, start, first)?;
                }
                if let (None, Some(state)) = (sublayer, &self.resume_state) {
                    author_resume_state(edit, &self.tracks, state)?;
                }
                Ok::<(), sdf::AuthoringError>(())
            })
            .map_err(|err| ExportError::Author { path: output.to_path_buf(), reason: err.to_string() })?;
        Ok(layer)
    }

    /// For a clip set's output layer: what does not change over the bake and so is no
    /// clip's business (the rest state of a body that needs one but never flows).
    pub(crate) fn author_constants(&self, edit: &mut sdf::LayerEdit<'_>) -> Result<(), sdf::AuthoringError> {
        for (track, extras) in self.tracks.iter().zip(&self.extras) {
            author_constant_rest(edit, track, extras)?;
        }
        Ok(())
    }

    /// The stage metadata the bake copies.
    pub(crate) fn stage(&self) -> &StageInfo {
        &self.stage
    }

    /// Layer metadata: the sublayer, time range and rate, and the input's axis, units
    /// and default prim (validators flag their absence, and a viewer opening the bake
    /// alone must agree with the input).
    pub(crate) fn author_metadata(
        &self,
        edit: &mut sdf::LayerEdit<'_>,
        sublayer: &str,
        last: u32,
    ) -> Result<(), sdf::AuthoringError> {
        let info = &self.stage;
        let mut root = edit.pseudo_root_mut()?;
        root.insert_sublayer(0, sublayer, sdf::LayerOffset::IDENTITY);
        root.set_documentation(format!(
            "usdsim bake of {}: frame k at time code startTimeCode + k",
            info.input.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        ));
        root.set_start_time_code(info.start_time_code);
        root.set_end_time_code(info.start_time_code + f64::from(last));
        root.set_time_codes_per_second(info.time_codes_per_second);
        root.set_frames_per_second(info.frames_per_second.unwrap_or(info.time_codes_per_second));
        if let Some(default_prim) = &info.default_prim {
            root.set_default_prim(default_prim.as_str());
        }
        root.set("upAxis", sdf::Value::Token(info.up_axis.token().into()));
        root.set("metersPerUnit", sdf::Value::Double(info.meters_per_unit));
        root.set("kilogramsPerUnit", sdf::Value::Double(info.kilograms_per_unit));
        let mut data = sdf::Dictionary::new();
        if !self.overrides.is_empty() {
            data.insert(OVERRIDES_KEY.to_string(), sdf::Value::StringVec(self.overrides.clone()));
        }
        if let Some(fingerprint) = &self.fingerprint {
            data.insert(FINGERPRINT_KEY.to_string(), sdf::Value::String(fingerprint.clone()));
        }
        if !data.is_empty() {
            root.set("customLayerData", sdf::Value::Dictionary(data));
        }
        Ok(())
    }
}

/// A recorded value that is not finite: where a run diverged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NonFinite {
    /// The prim it belongs to.
    pub prim: String,
    /// The attribute that would hold it (`points`, `velocities`, `normals`,
    /// `restShapePoints`, `restBendAngles`, `xformOp:translate`, `xformOp:orient`).
    pub attribute: &'static str,
    /// The frame.
    pub frame: u32,
}

impl std::fmt::Display for NonFinite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} is not finite at frame {}", self.prim, self.attribute, self.frame)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extent_bounds_points() {
        let pts = [gf::Vec3f::from([1.0, -2.0, 3.0]), gf::Vec3f::from([-1.0, 5.0, 0.0])];
        let [lo, hi] = extent_of(&pts);
        assert_eq!([lo.x, lo.y, lo.z], [-1.0, -2.0, 0.0]);
        assert_eq!([hi.x, hi.y, hi.z], [1.0, 5.0, 3.0]);
    }
}
