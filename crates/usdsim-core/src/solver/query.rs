//! What callers read and set between frames: states, topology and rest shapes, rigid
//! poses, kinematic and frame targets, sleeping, statistics.

use super::*;

impl Solver {
    /// Sets where kinematic body `body` must be at the end of the next frame (world
    /// space, one position per vertex). Its vertices move linearly from their current
    /// positions across the frame's substeps, velocities follow from the motion, and
    /// nothing pushes them. Without a new target a kinematic body holds still.
    pub fn set_kinematic_targets(&mut self, body: BodyId, targets: &[Vec3]) -> Result<(), SceneError> {
        let name = || body.to_string();
        let Some(k) = self.kinematic.iter_mut().find(|k| k.body == body.0) else {
            return Err(SceneError::InvalidValue {
                body: name(),
                what: "kinematic targets",
                value: body.0 as f32,
                expected: "a kinematic body",
            });
        };
        if targets.len() != k.start.len() {
            return Err(SceneError::LengthMismatch {
                body: name(),
                what: "kinematic targets",
                expected: k.start.len(),
                found: targets.len(),
            });
        }
        if !targets.iter().all(|p| p.is_finite()) {
            return Err(SceneError::NonFinite { body: name(), what: "kinematic targets" });
        }
        k.target = Some(targets.to_vec());
        Ok(())
    }

    /// Sets where attachment frame `frame` ([`crate::Scene::frames`]) must be at the end of
    /// the next simulation frame (local-to-world, scale included). Points fixed in it move
    /// linearly between their start and end images across the substeps. Without a new
    /// target a frame holds still.
    pub fn set_frame_target(&mut self, frame: FrameId, world_from_local: glam::Mat4) -> Result<(), SceneError> {
        let Some(f) = self.attachment_frames.get_mut(frame.0) else {
            return Err(SceneError::IndexOutOfRange {
                body: "frame target".into(),
                what: "frame",
                index: frame.0 as u64,
                len: self.attachment_frames.len(),
            });
        };
        if !world_from_local.is_finite() {
            return Err(SceneError::NonFinite { body: frame.to_string(), what: "frame target" });
        }
        f.target = Some(world_from_local);
        Ok(())
    }

    /// Sets where kinematic rigid body `rigid` must be at the end of the next frame
    /// (world translation and orientation of its frame).
    pub fn set_rigid_target(
        &mut self,
        rigid: RigidId,
        translation: Vec3,
        rotation: glam::Quat,
    ) -> Result<(), SceneError> {
        if !(translation.is_finite() && rotation.is_finite()) {
            return Err(SceneError::NonFinite { body: rigid.to_string(), what: "kinematic target" });
        }
        if self.rigid.set_target(rigid.0, translation, rotation) {
            Ok(())
        } else {
            Err(SceneError::InvalidValue {
                body: rigid.to_string(),
                what: "kinematic target",
                value: rigid.0 as f32,
                expected: "a kinematic rigid body",
            })
        }
    }

    /// Sets where joint `joint`'s drive (`Scene::joints`) drives to from now on: a
    /// revolute joint's angle in radians or a prismatic joint's travel, and the speed.
    pub fn set_joint_target(&mut self, joint: usize, position: f32, velocity: f32) -> Result<(), SceneError> {
        self.drive_target(joint, None, position, velocity)
    }

    /// Sets where a generic joint's drive on `dof` (`JointKind::Generic`'s `drives`)
    /// drives to from now on: radians or stage units, and the speed.
    pub fn set_joint_dof_target(
        &mut self,
        joint: usize,
        dof: crate::JointDof,
        position: f32,
        velocity: f32,
    ) -> Result<(), SceneError> {
        self.drive_target(joint, Some(dof), position, velocity)
    }

    /// [`Solver::set_joint_target`] and [`Solver::set_joint_dof_target`].
    fn drive_target(
        &mut self,
        joint: usize,
        dof: Option<crate::JointDof>,
        position: f32,
        velocity: f32,
    ) -> Result<(), SceneError> {
        if !(position.is_finite() && velocity.is_finite()) {
            return Err(SceneError::NonFinite { body: format!("joint {joint}"), what: "drive target" });
        }
        if self.rigid.set_drive_target(joint, dof, position, velocity) {
            Ok(())
        } else {
            Err(SceneError::InvalidValue {
                body: format!("joint {joint}"),
                what: "drive target",
                value: joint as f32,
                expected: "a joint with a drive there",
            })
        }
    }

    /// Whether joint `joint` has broken (its `break_at` force or torque was exceeded).
    pub fn joint_broken(&self, joint: usize) -> bool {
        self.rigid.joint_broken(joint)
    }

    /// Joint `joint`'s angle (radians, revolute) or travel (prismatic) on its free axis.
    pub fn joint_coordinate(&self, joint: usize) -> Option<f32> {
        self.rigid.joint_coordinate(joint)
    }

    /// Number of rigid bodies.
    pub fn rigid_count(&self) -> usize {
        self.rigid.len()
    }

    /// Every rigid body's id, in scene order.
    pub fn rigid_ids(&self) -> impl ExactSizeIterator<Item = RigidId> + use<> {
        (0..self.rigid.len()).map(RigidId)
    }

    /// World translation and orientation of rigid body `rigid`'s frame.
    pub fn rigid_pose(&self, rigid: RigidId) -> (Vec3, glam::Quat) {
        self.rigid.pose(rigid.0)
    }

    /// Linear and angular velocity of rigid body `rigid` (world space).
    pub fn rigid_velocity(&self, rigid: RigidId) -> (Vec3, Vec3) {
        self.rigid.velocity(rigid.0)
    }

    /// Mass of rigid body `rigid`.
    pub fn rigid_mass(&self, rigid: RigidId) -> f32 {
        self.rigid.mass(rigid.0)
    }

    /// Whether body `body` is kinematic.
    pub fn is_kinematic(&self, body: BodyId) -> bool {
        self.kinematic.iter().any(|k| k.body == body.0)
    }

    /// Deformable (vertex–triangle and edge–edge) contacts found in the last substep.
    pub fn deformable_contact_count(&self) -> usize {
        self.deformable_contacts.len()
    }

    /// Whether body `body` is asleep (`startsAsleep` and not woken yet).
    pub fn is_asleep(&self, body: BodyId) -> bool {
        self.sleeping.get(body.0).is_some_and(Option::is_some)
    }

    /// Wakes body `body`: from now on it is simulated. Asleep bodies are frozen where
    /// they started (zero velocity, immovable, positions bitwise unchanged). The solver
    /// wakes them itself, every substep, when something moving touches them (deformable
    /// contact with a moving dynamic, kinematic or driven body) or something they are
    /// attached to moves (an animated frame, a kinematic body with targets, an awake
    /// dynamic or rigid body); see `solver/sleep.rs`. Static colliders and pin targets
    /// never wake anything. Callers may also wake bodies explicitly.
    pub fn wake(&mut self, body: BodyId) {
        if let Some(Some(w)) = self.sleeping.get_mut(body.0).map(Option::take) {
            self.w[self.bodies[body.0].clone()].copy_from_slice(&w);
            self.surfaces.set_awake(body.0);
        }
    }

    /// Changes the gravity acting on body `body` from the next substep on (e.g. to
    /// remove a load).
    pub fn set_gravity(&mut self, body: BodyId, gravity: Vec3) {
        self.body_gravity[body.0] = gravity;
    }

    /// The current rest edge matrix `[r1−r0, r2−r0, r3−r0]` of tet `tet` of body `body`
    /// (scene order): the authored rest shape, or where plastic flow has moved it.
    pub fn rest_edges(&self, body: BodyId, tet: usize) -> glam::Mat3 {
        let global = self.body_tet_start[body.0] + tet;
        let slot = self.elements.tets.slot[global];
        self.elements.tets.items()[slot as usize].dm_inv.inverse()
    }

    /// Body `body`'s current triangles (local vertex indices; empty for volume bodies).
    /// Tearing re-indexes them onto split vertices; the triangle count and order never
    /// change.
    pub fn triangles(&self, body: BodyId) -> &[[u32; 3]] {
        &self.input.bodies[body.0].triangles
    }

    /// Body `body`'s current tetrahedra (local vertex indices; empty for surface bodies).
    pub fn tets(&self, body: BodyId) -> &[[u32; 4]] {
        &self.input.bodies[body.0].tets
    }

    /// How many times body `body`'s topology has changed (each tear event counts one):
    /// whoever writes results rewrites the mesh's indices when this moves.
    pub fn topology_version(&self, body: BodyId) -> u32 {
        self.topology_version[body.0]
    }

    /// Whether body `body` collides with itself in this run: its asset asked
    /// ([`crate::Body::self_collision`]) or the settings turned it on
    /// ([`crate::Settings::self_contact`]), and its collision filters let it.
    pub fn self_contact(&self, body: BodyId) -> bool {
        self.surfaces.collides_with_itself(body.0)
    }

    /// Body `body`'s current rest shape: the authored one, or where plastic flow has
    /// moved it.
    pub fn rest_shape(&self, body: BodyId) -> RestShape {
        let b = &self.input.bodies[body.0];
        if b.kind != BodyKind::Volume || !self.rest_is_state(body) {
            return RestShape { points: b.rest_points.clone(), elements: b.rest_elements.clone() };
        }
        // Each tet's own four corners: its authored first corner plus its current rest
        // edges (plastic flow changes shape, not place, so tets need not agree on shared
        // corners any more).
        let mut points = Vec::with_capacity(4 * b.tets.len());
        for (i, re) in b.rest_elements.iter().enumerate() {
            let r0 = b.rest_points[re[0] as usize];
            let dm = self.rest_edges(body, i);
            points.extend([r0, r0 + dm.x_axis, r0 + dm.y_axis, r0 + dm.z_axis]);
        }
        let elements = (0..b.tets.len() as u32).map(|i| [4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3]).collect();
        RestShape { points, elements }
    }

    /// Body `body`'s current dihedral rest angles (radians) per pair of adjacent
    /// triangles, in the schema's `restAdjTriPairs` / `restBendAngles` form (surface
    /// bodies; empty otherwise).
    pub fn rest_bend_angles(&self, body: BodyId) -> Vec<([u32; 2], f32)> {
        self.hinge_refs[body.0]
            .iter()
            .map(|h| {
                let set = if h.soft { &self.elements.soft_hinges } else { &self.elements.hinges };
                (h.triangles, set.items()[set.slot[h.index as usize] as usize].rest_angle)
            })
            .collect()
    }

    /// Whether body `body`'s rest shape or rest angles can change during the run
    /// (plastic), so that they are part of the state to write back.
    pub fn rest_is_state(&self, body: BodyId) -> bool {
        let b = &self.input.bodies[body.0];
        b.plastic.is_some() || b.materials.iter().any(|slot| slot.plastic.is_some())
    }

    /// The highest rest frequency of any tetrahedron (rad/s, 0 without tets): XPBD's
    /// stable Neo-Hookean split is only stable for substeps below about
    /// [`STABLE_OMEGA_DT`]`/ω`, and the solver raises its substeps to meet that.
    pub fn max_tet_frequency(&self) -> f32 {
        self.tet_frequency.0
    }

    /// Warnings about the run (a step beyond a force integrator's stable limit, …), for
    /// the caller to show.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// World-space positions of body `body`'s vertices, rounded to f32 (the solver keeps
    /// f64, see [`Solver::positions_f64`]).
    pub fn positions(&self, body: BodyId) -> Vec<Vec3> {
        self.x[self.bodies[body.0].clone()].iter().map(|p| p.as_vec3()).collect()
    }

    /// World-space positions of body `body`'s vertices as the solver keeps them.
    pub fn positions_f64(&self, body: BodyId) -> &[DVec3] {
        &self.x[self.bodies[body.0].clone()]
    }

    /// World-space velocities of body `body`'s vertices.
    pub fn velocities(&self, body: BodyId) -> &[Vec3] {
        &self.v[self.bodies[body.0].clone()]
    }

    /// Per-vertex masses of body `body`.
    pub fn masses(&self, body: BodyId) -> &[f32] {
        &self.mass[self.bodies[body.0].clone()]
    }

    /// Total mass of body `body`.
    pub fn body_mass(&self, body: BodyId) -> f32 {
        self.masses(body).iter().sum()
    }

    /// Mass-weighted centre of body `body`.
    pub fn centre_of_mass(&self, body: BodyId) -> Vec3 {
        mass::centre_of_mass(&self.positions(body), self.masses(body))
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Every body's id, in scene order.
    pub fn body_ids(&self) -> impl ExactSizeIterator<Item = BodyId> + use<> {
        (0..self.bodies.len()).map(BodyId)
    }

    /// Frames stepped so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The settings in use.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Problem sizes and per-frame projection count.
    pub fn stats(&self) -> SolverStats {
        let per_iteration = 2 * (self.elements.tets.items().len() + self.elements.membranes.items().len()) as u64
            + (self.elements.hinges.items().len() + self.soft_pins.len() + self.elements.springs.items().len()) as u64;
        let per_substep =
            per_iteration * self.settings.iterations as u64 + self.elements.soft_hinges.items().len() as u64;
        SolverStats {
            bodies: self.bodies.len(),
            vertices: self.bodies.iter().map(Range::len).sum(),
            tets: self.elements.tets.items().len(),
            triangles: self.elements.membranes.items().len(),
            hinges: self.elements.hinges.items().len() + self.elements.soft_hinges.items().len(),
            projections_per_frame: per_substep * self.settings.substeps as u64,
        }
    }
}
