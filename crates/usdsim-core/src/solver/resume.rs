//! Continuing a simulation later: the state that carries from one frame to the next
//! ([`ResumeState`]), taken from a running solver and put back into a fresh one built
//! from the same scene and settings, so that the fresh one goes on bit for bit as the
//! first would have.
//!
//! Everything the scene and settings determine (constraint colouring, spare vertex
//! slots, compliances) comes from the fresh build, which is the same build the first run
//! made. The state is what the steps changed: positions and velocities, which bodies
//! woke, the torn topology with the masses tearing shared out, the rest shapes plastic
//! flow moved, inelastic spring links, the frame count and the rigid bodies' world.
//! Animated targets (kinematic bodies, attachment frames, kinematic rigid bodies) are
//! not state: the caller sets the targets of the frame it resumes at and calls
//! [`Solver::settle_targets`], as the end of that frame's step did.

use super::*;
use crate::scene::BodyId;

/// One body's state between frames.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyState {
    /// World positions of its vertices (tearing's copies included), in the solver's f64.
    pub positions: Vec<glam::DVec3>,
    /// World velocities.
    pub velocities: Vec<Vec3>,
    /// Positions at the start of the last substep, BDF2's history (`model/time_scheme.rs`);
    /// empty before the first.
    pub previous_positions: Vec<glam::DVec3>,
    /// Velocities at the start of the last substep; empty with `previous_positions`.
    pub previous_velocities: Vec<Vec3>,
    /// Substeps since a contact last touched it (or a body attached to it), `u32::MAX`
    /// for never: under a frame's substeps it takes implicit Euler (`solver/history.rs`).
    pub since_contact: u32,
    /// Whether it still sleeps (`startsAsleep` and not woken yet).
    pub asleep: bool,
    /// How many times its topology changed (tearing); 0 leaves the rest empty.
    pub topology_version: u32,
    /// Its elements in local indices, four per element (a triangle repeats its first
    /// corner): the torn topology. Empty when it never tore.
    pub elements: Vec<[u32; 4]>,
    /// Per vertex, its mass and awake inverse mass after tearing shared them out.
    /// Empty when it never tore.
    pub masses: Vec<f32>,
    /// See [`BodyState::masses`].
    pub inverse_masses: Vec<f32>,
    /// Edges broken so far (local indices, lower first), including those whose ends
    /// could not be separated.
    pub broken_edges: Vec<[u32; 2]>,
}

/// A plastic tetrahedron's rest state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlasticTetState {
    /// Its inverse rest edge matrix.
    pub dm_inv: glam::Mat3,
    /// Its deviatoric and hydrostatic compliances, which follow its rest volume.
    pub compliance: [f32; 2],
}

impl PlasticTetState {
    /// The values in a flat form, for storing: the matrix by column, then the two
    /// compliances.
    pub fn to_array(&self) -> [f32; 11] {
        let mut out = [0.0; 11];
        out[..9].copy_from_slice(&self.dm_inv.to_cols_array());
        out[9..].copy_from_slice(&self.compliance);
        out
    }

    /// The inverse of [`PlasticTetState::to_array`].
    pub fn from_array(a: &[f32; 11]) -> PlasticTetState {
        PlasticTetState { dm_inv: glam::Mat3::from_cols_slice(&a[..9]), compliance: [a[9], a[10]] }
    }
}

/// Everything a solver carries from one frame to the next that its scene and settings
/// do not determine (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResumeState {
    /// Frames stepped.
    pub frames: u64,
    /// Per body, in scene order.
    pub bodies: Vec<BodyState>,
    /// Every tetrahedron of a plastic material, in scene order: plastic flow moves its
    /// rest shape (the original one it is capped against comes from the build).
    pub plastic_tets: Vec<PlasticTetState>,
    /// Rest angles (radians) of every hinge of a plastic material, in build order.
    pub plastic_hinges: Vec<f32>,
    /// Rest length of every XPBD spring link, in scene order; `INFINITY` for a broken
    /// one. Empty when no link can break or flow.
    pub springs: Vec<f32>,
    /// The rigid bodies' world (rapier's own state, contact caches included), encoded;
    /// empty without rigid bodies.
    pub rigid: Vec<u8>,
}

impl Solver {
    /// The state to continue from later ([`Solver::restore`]).
    ///
    /// Force-integrated spring bodies whose links break or flow keep link state this
    /// does not capture; [`Solver::can_resume`] says so.
    pub fn resume_state(&self) -> ResumeState {
        let bodies = (0..self.bodies.len())
            .map(|b| {
                let range = self.bodies[b].clone();
                let version = self.topology_version[b];
                let torn = version > 0;
                let broken = self.tearing[b].as_ref().map_or_else(Vec::new, |t| {
                    let mut edges: Vec<[u32; 2]> = t.broken.iter().map(|&(p, q)| [p, q]).collect();
                    edges.sort_unstable();
                    edges
                });
                let h = &self.history;
                let started = h.started;
                BodyState {
                    positions: self.x[range.clone()].to_vec(),
                    velocities: self.v[range.clone()].to_vec(),
                    previous_positions: if started { self.x_prev[range.clone()].to_vec() } else { Vec::new() },
                    previous_velocities: if started { h.v[range.clone()].to_vec() } else { Vec::new() },
                    since_contact: h.since_contact(b),
                    asleep: self.sleeping[b].is_some(),
                    topology_version: version,
                    elements: if torn { tear::elements(&self.input.bodies[b]) } else { Vec::new() },
                    masses: if torn { self.mass[range.clone()].to_vec() } else { Vec::new() },
                    // The awake values: a sleeper's are kept aside while its own are zero.
                    inverse_masses: match (torn, &self.sleeping[b]) {
                        (false, _) => Vec::new(),
                        (true, Some(w)) => w.clone(),
                        (true, None) => self.w[range.clone()].to_vec(),
                    },
                    broken_edges: broken,
                }
            })
            .collect();
        let tets = &self.elements.tets;
        let plastic_tets = if self.tet_plastic.is_empty() {
            Vec::new()
        } else {
            (0..tets.slot.len())
                .map(|g| tets.slot[g] as usize)
                .filter(|&s| self.tet_plastic[s].is_some())
                .map(|s| {
                    let t = &tets.items()[s];
                    PlasticTetState { dm_inv: t.dm_inv, compliance: [t.compliance_dev, t.compliance_vol] }
                })
                .collect()
        };
        let plastic_hinges = self.plastic_hinges.iter().map(|p| self.hinge(p.at).rest_angle).collect();
        let springs = &self.elements.springs;
        let inelastic = springs.items().iter().any(|l| l.tear_ratio.is_finite() || l.plastic.is_some());
        let springs = if inelastic {
            (0..springs.slot.len())
                .map(|g| {
                    let l = &springs.items()[springs.slot[g] as usize];
                    if l.compliance.is_finite() {
                        l.rest
                    } else {
                        f32::INFINITY
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        ResumeState { frames: self.frames, bodies, plastic_tets, plastic_hinges, springs, rigid: self.rigid.snapshot() }
    }

    /// Whether [`Solver::resume_state`] captures everything: not when a force-integrated
    /// spring body's links can break or flow (their link lists are not captured yet).
    pub fn can_resume(&self) -> Result<(), String> {
        match self.force_bodies.iter().find(|f| f.inelastic()) {
            Some(f) => Err(format!(
                "{}: a spring body integrated with forces whose links break or flow cannot be resumed yet \
                 (use --integrator xpbd)",
                self.input.bodies[f.body].name
            )),
            None => Ok(()),
        }
    }

    /// Puts `state` (from [`Solver::resume_state`] of a solver built from the same scene
    /// and settings) into this freshly built solver. Then set the targets of the frame
    /// the state was taken at and call [`Solver::settle_targets`].
    ///
    /// Fails, changing nothing, when the state does not fit this solver (another scene)
    /// or this solver has already stepped.
    pub fn restore(&mut self, state: &ResumeState) -> Result<(), SceneError> {
        self.check_resume_state(state)?;
        for (b, s) in state.bodies.iter().enumerate() {
            if s.topology_version > 0 {
                self.restore_topology(b, s);
            }
            let range = self.bodies[b].clone();
            self.x[range.clone()].copy_from_slice(&s.positions);
            let previous = if s.previous_positions.is_empty() { &s.positions } else { &s.previous_positions };
            self.x_prev[range.clone()].copy_from_slice(previous);
            self.v[range.clone()].copy_from_slice(&s.velocities);
            self.history.restore(b, range, s);
            if let Some(t) = self.tearing[b].as_mut() {
                t.broken = s.broken_edges.iter().map(|&[p, q]| (p, q)).collect();
            }
            if !s.asleep {
                self.wake(BodyId(b));
            }
        }
        if state.bodies.iter().any(|s| s.topology_version > 0) {
            self.rebuild_surfaces();
        }
        if !self.tet_plastic.is_empty() {
            let tets = &mut self.elements.tets;
            let plastic =
                (0..tets.slot.len()).map(|g| tets.slot[g] as usize).filter(|&s| self.tet_plastic[s].is_some());
            for (slot, saved) in plastic.collect::<Vec<_>>().into_iter().zip(&state.plastic_tets) {
                let t = &mut tets.items_mut()[slot];
                t.dm_inv = saved.dm_inv;
                [t.compliance_dev, t.compliance_vol] = saved.compliance;
            }
        }
        for k in 0..self.plastic_hinges.len() {
            let at = self.plastic_hinges[k].at;
            self.hinge_mut(at).rest_angle = state.plastic_hinges[k];
        }
        let springs = &mut self.elements.springs;
        for (g, &rest) in state.springs.iter().enumerate() {
            let slot = springs.slot[g] as usize;
            let link = &mut springs.items_mut()[slot];
            if rest.is_finite() {
                link.rest = rest;
            } else {
                link.compliance = f32::INFINITY;
            }
        }
        if !state.rigid.is_empty() {
            self.rigid.restore(&state.rigid).map_err(|reason| SceneError::Resume { reason })?;
        }
        self.frames = state.frames;
        self.history.started = state.frames > 0;
        Ok(())
    }

    /// What [`Solver::restore`] checks before changing anything.
    fn check_resume_state(&self, state: &ResumeState) -> Result<(), SceneError> {
        let bad = |reason: String| Err(SceneError::Resume { reason });
        if self.frames != 0 {
            return bad(format!("the solver has already stepped {} frames", self.frames));
        }
        if state.bodies.len() != self.bodies.len() {
            return bad(format!("the state has {} bodies, the scene {}", state.bodies.len(), self.bodies.len()));
        }
        for (b, s) in state.bodies.iter().enumerate() {
            let name = &self.input.bodies[b].name;
            let n = self.bodies[b].len();
            let slots = self.tearing[b].as_ref().map_or(n, |t| t.slots_end - self.bodies[b].start);
            let torn = s.topology_version > 0;
            let expected_elements = self.input.bodies[b].element_count();
            let fits = s.positions.len() == s.velocities.len()
                && if torn {
                    self.tearing[b].is_some()
                        && s.positions.len() <= slots
                        && s.elements.len() == expected_elements
                        && s.masses.len() == s.positions.len()
                        && s.inverse_masses.len() == s.positions.len()
                        && s.elements.iter().flatten().all(|&i| (i as usize) < s.positions.len())
                } else {
                    s.positions.len() == n
                };
            if !fits {
                return bad(format!("{name}: the state's vertices or elements do not fit the scene's body"));
            }
            if s.asleep && self.sleeping[b].is_none() {
                return bad(format!("{name}: the state has it asleep, but it does not start asleep"));
            }
            // BDF2's history exists once a substep has run.
            let expected = if state.frames == 0 { 0 } else { s.velocities.len() };
            let history = s.previous_positions.len() == expected && s.previous_velocities.len() == expected;
            if !history {
                return bad(format!("{name}: the state's time-scheme history does not fit its vertices"));
            }
            let finite = s.positions.iter().chain(&s.previous_positions).all(|p| p.is_finite())
                && s.velocities.iter().chain(&s.previous_velocities).all(|p| p.is_finite());
            if !finite {
                return Err(SceneError::NonFinite { body: name.clone(), what: "resumed positions or velocities" });
            }
        }
        let plastic_tets = self.tet_plastic.iter().filter(|p| p.is_some()).count();
        let springs_expected = if state.springs.is_empty() { 0 } else { self.elements.springs.slot.len() };
        if state.plastic_tets.len() != plastic_tets
            || state.plastic_hinges.len() != self.plastic_hinges.len()
            || state.springs.len() != springs_expected
        {
            return bad("the state's plastic elements or spring links do not match the scene's".to_string());
        }
        if state.rigid.is_empty() != (self.rigid.len() == 0) {
            return bad("the state's rigid bodies do not match the scene's".to_string());
        }
        Ok(())
    }

    /// Gives body `b` the torn topology of `s`: every copy a tear made, with its share
    /// of the mass, and every constraint moved onto the copies (as the tears did one by
    /// one; moving them from the original topology in one go gives the same result,
    /// since a tear only substitutes corners in place).
    fn restore_topology(&mut self, b: usize, s: &BodyState) {
        let base = self.bodies[b].start;
        let n = self.bodies[b].len();
        let new_n = s.positions.len();
        let old = tear::elements(&self.input.bodies[b]);
        let corners = if self.input.bodies[b].kind == BodyKind::Volume { 4 } else { 3 };
        // A copy's original: the vertex in the same corner of the original element.
        let mut origin: Vec<u32> = (0..new_n as u32).collect();
        for (e, o) in s.elements.iter().zip(&old) {
            for c in 0..corners {
                origin[e[c] as usize] = o[c];
            }
        }
        for (v, &o) in origin.iter().enumerate().skip(n) {
            self.contact_params[base + v] = self.contact_params[base + o as usize];
        }
        self.bodies[b] = base..base + new_n;
        self.mass[base..base + new_n].copy_from_slice(&s.masses);
        match &mut self.sleeping[b] {
            Some(saved) => *saved = s.inverse_masses.clone(),
            None => self.w[base..base + new_n].copy_from_slice(&s.inverse_masses),
        }
        self.move_constraints(b, &old, &s.elements);
        let body = &mut self.input.bodies[b];
        let copy = |list: &mut Vec<Vec3>| {
            if list.len() == n {
                let extra: Vec<Vec3> = (n..new_n).map(|v| list[origin[v] as usize]).collect();
                list.extend(extra);
            }
        };
        copy(&mut body.positions);
        copy(&mut body.velocities);
        copy(&mut body.bind_pose);
        copy(&mut body.self_collision_filter_pose);
        match body.kind {
            BodyKind::Volume => body.tets = s.elements.clone(),
            BodyKind::Surface => body.triangles = s.elements.iter().map(|e| [e[0], e[1], e[2]]).collect(),
        }
        if let Some(t) = self.tearing[b].as_mut() {
            t.rim = tear::rim_vertices(body, new_n);
        }
        self.topology_version[b] = s.topology_version;
    }

    /// The hinge `at` points to.
    fn hinge(&self, at: HingeRef) -> &Hinge {
        let set = if at.soft { &self.elements.soft_hinges } else { &self.elements.hinges };
        &set.items()[set.slot[at.index as usize] as usize]
    }

    /// The hinge `at` points to, for changing.
    fn hinge_mut(&mut self, at: HingeRef) -> &mut Hinge {
        let set = if at.soft { &mut self.elements.soft_hinges } else { &mut self.elements.hinges };
        let slot = set.slot[at.index as usize] as usize;
        &mut set.items_mut()[slot]
    }
}
