//! What ties the solver back to the stage: for every solver index (body, embedded
//! mesh, rigid body) the prim it came from and what the exporter needs to write it
//! back, and the stage's animated inputs (kinematic bodies, animated attachment frames,
//! kinematic rigid bodies) applied to a solver at a time code, so every user of the
//! library drives a simulation the same way.

use glam::DMat4;
use usdsim_core::{BodyId, RigidId, SceneError, Solver};

use crate::read::attachment::{FrameTrack, TrackTarget};
use crate::read::embedded::EmbeddedPrim;
use crate::read::joint::DriveTrack;
use crate::read::kinematic::KinematicTrack;
use crate::read::rigid_body::{pose_of, RigidPrim};
use crate::schema::dialect::Dialect;
use crate::schema::physx_legacy::{self, LegacyKind};

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
    /// The legacy PhysX body API it applies, when it is one: a legacy volume's state
    /// is written to `physxDeformable:simulationPoints` and `simulationVelocities`
    /// instead of `points` and `velocities`.
    pub legacy: Option<LegacyKind>,
}

impl BodyPrim {
    /// The attributes that hold the body's state, `(points, velocities)`.
    pub fn state_attributes(&self) -> (&'static str, &'static str) {
        match self.legacy {
            Some(LegacyKind::Volume) => (physx_legacy::SIMULATION_POINTS, physx_legacy::SIMULATION_VELOCITIES),
            _ => ("points", "velocities"),
        }
    }

    /// The attribute that holds the body's rest points.
    pub(crate) fn rest_points_attribute(&self) -> &'static str {
        match self.legacy {
            Some(kind) => kind.rest_points(),
            None => self.dialect.rest_points(),
        }
    }
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
    /// Joint drives with time-sampled targets (how a gripper closes).
    pub drives: Vec<DriveTrack>,
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
        for drive in &self.drives {
            let (position, velocity) = drive.at(time);
            match drive.dof {
                Some(dof) => solver.set_joint_dof_target(drive.joint, dof, position, velocity)?,
                None => solver.set_joint_target(drive.joint, position, velocity)?,
            }
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
