//! What ties the solver back to the stage: for every solver index (body, embedded
//! mesh, rigid body) the prim it came from and what the exporter needs to write it
//! back, and the stage's animated inputs (kinematic bodies, animated attachment frames,
//! kinematic rigid bodies) applied to a solver at a time code, so every user of the
//! library drives a simulation the same way.

use glam::{DMat4, DVec3};
use usdsim_core::{BodyId, RigidId, SceneError, Solver};

use crate::read::attachment::{FrameTrack, TrackTarget};
use crate::read::kinematic::KinematicTrack;
use crate::read::rigid_body::pose_of;
use crate::schema::dialect::Dialect;

/// A collision or graphics mesh embedded in a body, so results can be written back.
#[derive(Clone, Debug, PartialEq)]
pub struct EmbeddedPrim {
    /// The mesh's composed prim path.
    pub prim_path: String,
    /// The body it follows.
    pub body: BodyId,
    /// The mesh's local-to-world transform at `startTimeCode`.
    pub world_from_local: DMat4,
    /// The faces, when the input authored `vertex`/`varying` normals that must be
    /// recomputed on the deformed mesh; `None` writes no normals.
    pub normals: Option<FaceTopology>,
    /// Whether it is an enabled collision mesh (else a graphics mesh).
    pub collision: bool,
}

/// A polygon mesh's faces, as USD's `faceVertexCounts` and `faceVertexIndices`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaceTopology {
    /// Vertices per face.
    pub counts: Vec<u32>,
    /// Point index of each face vertex.
    pub indices: Vec<u32>,
}

/// Where a body's simulation mesh lives, so results can be written back to it.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyPrim {
    /// The simulation mesh's composed prim path (the prim that receives `points`).
    pub prim_path: String,
    /// The simulation mesh's full local-to-world transform at `startTimeCode`
    /// (column-vector convention): world = `world_from_local` * local.
    pub world_from_local: DMat4,
    /// The schema spelling the body uses (`omniphysics:` or `physics:`), for writing
    /// its state back under the same names.
    pub dialect: Dialect,
}

/// Where a simulated rigid body lives in USD, so the exporter can write its motion
/// back as `xformOp:translate` + `xformOp:orient` (+ `xformOp:scale`) in parent space.
#[derive(Clone, Debug, PartialEq)]
pub struct RigidPrim {
    /// The rigid body prim's composed path.
    pub prim_path: String,
    /// The parent's local-to-world transform at `startTimeCode` (identity when the prim
    /// resets the transform stack). The baked pose is `parent_world⁻¹ * pose`.
    pub parent_world: DMat4,
    /// Whether the prim's `xformOpOrder` starts with `!resetXformStack!` (kept in the
    /// baked order).
    pub resets_stack: bool,
    /// The prim's own scale at `startTimeCode`, when its authored ops include a scale
    /// op: baked as a constant `xformOp:scale` after the orient so the shape keeps its
    /// size. `None` when no scale op is authored.
    pub scale: Option<DVec3>,
    /// The value types the input already declares for the ops the bake writes, so the
    /// bake's opinions agree with the composed stage (Pixar's `AttributeTypeMismatch`).
    pub op_precision: OpPrecision,
}

/// Floating-point precision of a vector or quaternion attribute (`half3`/`float3`/
/// `double3`, `quath`/`quatf`/`quatd`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// 16-bit (`half3`, `quath`).
    Half,
    /// 32-bit (`float3`, `quatf`).
    Float,
    /// 64-bit (`double3`, `quatd`): what the bake writes where the input declares nothing.
    #[default]
    Double,
}

/// The precision of each transform op a rigid bake authors, as the input declares it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpPrecision {
    /// `xformOp:translate`.
    pub translate: Precision,
    /// `xformOp:orient`.
    pub orient: Precision,
    /// `xformOp:scale`.
    pub scale: Precision,
}

/// What ties a solver built from an import back to the stage: one entry per scene
/// body, embedded mesh and rigid body (same order as the scene's lists), and the
/// authored animation that drives kinematic bodies, attachment frames and kinematic
/// rigid bodies.
#[derive(Clone, Debug, Default)]
pub struct Binding {
    /// One entry per `scene.bodies` entry: where each body lives in USD.
    pub bodies: Vec<BodyPrim>,
    /// One entry per `scene.embedded` entry: the collision and graphics meshes that
    /// follow a body, written back each frame.
    pub embedded: Vec<EmbeddedPrim>,
    /// One entry per `scene.rigid_bodies` entry: the rigid body's prim and what the
    /// exporter needs to bake its pose.
    pub rigid: Vec<RigidPrim>,
    /// The authored animation of every kinematic body (see
    /// [`Binding::kinematic_targets`]).
    pub kinematic: Vec<KinematicTrack>,
    /// Animated attachment frames and kinematic rigid bodies: world transforms per time
    /// code (applied by [`Binding::apply_targets`]).
    pub tracks: Vec<FrameTrack>,
}

impl Binding {
    /// Where body `body` lives in USD.
    pub fn body(&self, body: BodyId) -> &BodyPrim {
        &self.bodies[body.index()]
    }

    /// Where rigid body `rigid` lives in USD.
    pub fn rigid(&self, rigid: RigidId) -> &RigidPrim {
        &self.rigid[rigid.index()]
    }

    /// World-space positions kinematic body `body` must have at time code `time`, or
    /// `None` when the body is not kinematic. Exact at integer time codes, linear in
    /// between, held outside the authored range.
    pub fn kinematic_targets(&self, body: BodyId, time: f64) -> Option<Vec<glam::Vec3>> {
        self.kinematic.iter().find(|k| k.body == body).map(|k| k.at(time))
    }

    /// Drives every animated input of the stage to time code `time`, before the solver
    /// steps to it: kinematic bodies to their authored points, animated attachment
    /// frames and kinematic rigid bodies to their authored world transforms. Frame k of
    /// a bake is time code `stage.start_time_code + k`.
    ///
    /// An error means the import and the solver disagree (a solver not built from this
    /// import's scene).
    pub fn apply_targets(&self, solver: &mut Solver, time: f64) -> Result<(), SceneError> {
        for track in &self.kinematic {
            let targets = track.at(time);
            solver.set_kinematic_targets(track.body, &targets)?;
        }
        for track in &self.tracks {
            let m = track.at(time);
            match track.target {
                TrackTarget::Frame(f) => solver.set_frame_target(f, m.as_mat4())?,
                TrackTarget::Rigid(r) => {
                    let (t, q) = pose_of(m);
                    solver.set_rigid_target(r, t, q)?;
                }
            }
        }
        Ok(())
    }
}
