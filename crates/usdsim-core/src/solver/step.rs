//! The time step: a frame is `substeps` substeps; each substep predicts, detects
//! contacts, runs the constraint iterations and derives velocities.

use super::*;

/// Vertices one task of the per-vertex passes (prediction, velocity update) takes: a body
/// of at most this many is one task, since waking a second thread costs about as much.
const CHUNK: usize = 2048;

impl Solver {
    /// Advances the simulation by one frame (`settings.substeps` substeps).
    pub fn step_frame(&mut self) {
        // The frame runs on a thread of the rayon pool (`scope` moves it there from
        // outside): from inside, each substep's parallel loops and team broadcasts start
        // without injecting a job and waking a worker from outside the pool, which cost
        // about a tenth of a 64² cloth frame. The other pool threads stay awake through
        // the frame, so that no phase waits for one to be woken (`parallel/warm.rs`).
        crate::parallel::warm::run(|| self.step_frame_on_pool());
    }

    /// [`Solver::step_frame`]'s body, on a pool thread.
    fn step_frame_on_pool(&mut self) {
        let dt = self.settings.frame_dt / self.settings.substeps as f32;
        let substeps = self.settings.substeps;
        for s in 0..substeps {
            self.substep(dt, (s + 1) as f32 / substeps as f32);
        }
        self.settle_targets();
        self.frames += 1;
    }

    /// Ends a frame's motion: kinematic bodies, attachment frames and kinematic rigid
    /// bodies start the next frame at the targets they were given for this one. The end
    /// of [`Solver::step_frame`]; a resumed solver ([`Solver::restore`]) calls it after
    /// setting the targets of the frame it resumes at, as that frame's step did.
    pub fn settle_targets(&mut self) {
        for k in &mut self.kinematic {
            if let Some(target) = k.target.take() {
                k.start = target;
            }
        }
        for f in &mut self.attachment_frames {
            if let Some(target) = f.target.take() {
                f.start = target;
            }
        }
        self.rigid.end_frame();
        self.rigid_contacts.end_frame();
    }

    /// One substep; `progress` is how far through the frame its end lies (0, 1]. Its
    /// stages are the functions it calls, in order; each is documented below.
    fn substep(&mut self, dt: f32, progress: f32) {
        let bdf = self.bdf2_substep();
        self.predict(dt, bdf, progress);
        self.find_contacts(dt, bdf);
        self.solve_substep(dt, bdf);
    }

    /// Finds the substep's contacts at the predicted positions and settles each body's
    /// time scheme. A contact switches its group to implicit Euler (`history.rs`), which
    /// predicts its bodies again: their contacts are then found again from the new
    /// predictions (which may touch another group in turn), so that the iterations start
    /// with the contacts of the positions they start from.
    fn find_contacts(&mut self, dt: f32, bdf: bool) {
        self.detect_contacts(false);
        self.history.touched_now.fill(false);
        while self.euler_where_touched(dt, bdf) {
            self.detect_contacts(true);
        }
        self.settle_time_scheme(bdf);
    }

    /// The substep after its contacts: the constraint iterations, rigid bodies,
    /// friction, velocities, depenetration and changes of rest state.
    fn solve_substep(&mut self, dt: f32, bdf: bool) {
        let h = if bdf { dt * BDF2_STEP_RATIO } else { dt };
        self.reset_multipliers();
        self.iterate(Step::new(h), bdf);
        self.finish_rigid_bodies(dt);
        self.apply_friction(bdf);
        self.update_velocities(dt, h, bdf);
        self.depenetrate(dt);
        self.rest_state_changes();
        self.history.started = true;
    }

    /// Overlaps that existed at the start of the substep move apart by at most
    /// `max_depenetration_velocity · dt`, after the velocity update: positions only, so
    /// an authored interpenetration is resolved without a pop.
    fn depenetrate(&mut self, dt: f32) {
        let max_step = self.settings.max_depenetration_velocity * dt;
        collider::depenetrate(&self.contacts, Shared::new(&mut self.x), max_step);
        self.surfaces.depenetrate(&self.deformable_contacts, &mut self.x, &self.w, max_step);
    }

    /// Gravity and inertia predict every free vertex (the explicit part of the time
    /// scheme: `x_n + dt·v` for implicit Euler, BDF2's extrapolation from the last two
    /// substeps otherwise, `model/time_scheme.rs`), force-based bodies integrate their
    /// springs, kinematic bodies and animated frames move to their place at `progress`
    /// through the frame, and rapier steps the rigid bodies.
    fn predict(&mut self, dt: f32, bdf: bool, progress: f32) {
        let h = dt * BDF2_STEP_RATIO;
        for (b, (range, &g)) in self.bodies.iter().zip(&self.body_gravity).enumerate() {
            let r = range.clone();
            let held = self.history.since_contact(b) < self.settings.substeps;
            let euler = !bdf || self.force_integrated[b] || held || self.rest_state_moves(b);
            self.history.euler[b] = euler;
            if self.force_integrated[b] {
                continue;
            }
            let History { v: vh, base, .. } = &mut self.history;
            // `x_prev` holds the last substep's start, `x_{n−1}`, until it takes this one's.
            // Chunks of plain loops: as one rayon closure per vertex, the compiler at times
            // left the body out of line, and the run without contacts grew by 5 %.
            (
                self.x[r.clone()].par_chunks_mut(CHUNK),
                self.x_prev[r.clone()].par_chunks_mut(CHUNK),
                self.v[r.clone()].par_chunks_mut(CHUNK),
                self.w[r.clone()].par_chunks(CHUNK),
                (vh[r.clone()].par_chunks_mut(CHUNK), base[r].par_chunks_mut(CHUNK)),
            )
                .into_par_iter()
                .for_each(|(x, xp, v, w, (vh, base))| {
                    let rows = x.iter_mut().zip(xp).zip(v.iter_mut()).zip(w).zip(vh.iter_mut()).zip(base.iter_mut());
                    for (((((x, xp), v), &w), vh), base) in rows {
                        let (xn, vn) = (*x, *v);
                        let x_before = std::mem::replace(xp, xn);
                        if euler || w == 0.0 {
                            *base = xn;
                            if w > 0.0 {
                                *v += g * dt;
                                *x += (*v * dt).as_dvec3();
                            }
                        } else {
                            *base = (xn * 4.0 - x_before) * (1.0 / 3.0);
                            *v = (vn * 4.0 - *vh) * (1.0 / 3.0) + g * h;
                            *x = *base + (*v * h).as_dvec3();
                        }
                        *vh = vn;
                    }
                });
        }
        for b in 0..self.bodies.len() {
            if !self.force_integrated[b] {
                self.damp_prediction(b, if self.history.euler[b] { dt } else { h });
            }
        }
        self.predict_force_bodies(dt);
        for fb in &self.force_bodies {
            let r = self.bodies[fb.body].clone();
            self.history.base[r.clone()].copy_from_slice(&self.x_prev[r]);
        }
        for k in &self.kinematic {
            if let Some(target) = &k.target {
                let range = self.bodies[k.body].clone();
                for ((x, a), b) in self.x[range].iter_mut().zip(&k.start).zip(target) {
                    *x = a.lerp(*b, progress).as_dvec3();
                }
            }
        }
        attachment::follow_frames(&mut self.links, &self.driven, &self.attachment_frames, &mut self.x, progress);
        self.rigid.begin_substep(dt, progress);
    }

    /// Per-vertex velocity damping of body `b` (`M·ẍ = f − c·M·ẋ`, PhysX's
    /// `vertexVelocityDamping`), taken implicitly: over a solve of length `step` the drag
    /// divides the predicted velocity by `1 + c·step`, so it can never reverse a motion
    /// whatever `c`. (The drag's share of the solve's effective mass, `c·step`, is left
    /// out: PhysX's 0.005 1/s at a 2 ms substep makes it 1e-5.)
    pub(super) fn damp_prediction(&mut self, b: usize, step: f32) {
        let c = self.velocity_damping[b];
        if c == 0.0 {
            return;
        }
        let keep = 1.0 / (1.0 + c * step);
        let r = self.bodies[b].clone();
        let rows =
            self.x[r.clone()].iter_mut().zip(&mut self.v[r.clone()]).zip(&self.w[r.clone()]).zip(&self.history.base[r]);
        for (((x, v), &w), base) in rows {
            if w > 0.0 {
                *v *= keep;
                *x = *base + (*v * step).as_dvec3();
            }
        }
    }

    /// This substep's contacts: vertices against static colliders, deformables against
    /// each other (waking sleepers they touch) and vertices against rigid bodies.
    /// `again`: the substep found its contacts once already, and its predictions changed
    /// since (see [`Solver::find_contacts`]).
    fn detect_contacts(&mut self, again: bool) {
        if !(self.colliders.is_empty() && self.surfaces.triangles.is_empty() && !self.rigid_contacts.is_active()) {
            self.round_positions();
        }
        let (filter, vertex_body) = (&self.filter, &self.surfaces.vertex_body);
        let (bodies, colliders) = (&self.bodies, &self.colliders);
        let keep = |v: u32, c: usize| {
            let b = vertex_body[v as usize] as usize;
            filter.vertex_collider(b, v - bodies[b].start as u32, c)
        };
        let (x, x_prev) = (&self.x32, &self.x_prev32);
        collider::detect(colliders, x, x_prev, &self.w, &self.contact_params, &keep, &mut self.contacts);
        if again {
            self.surfaces.detect_again(x, x_prev, &self.w, &self.filter, &mut self.deformable_contacts);
        } else {
            self.surfaces.detect(x, x_prev, &self.w, &self.filter, &mut self.deformable_contacts);
        }
        self.wake_touched();
        if self.rigid_contacts.is_active() {
            if self.sleeping.iter().any(Option::is_some) {
                let (states, sleeping, bodies) = (&self.rigid.states, &self.sleeping, &self.bodies);
                let woken = self.rigid_contacts.touched_sleepers(
                    states,
                    sleeping,
                    bodies,
                    &self.x32,
                    &self.contact_params,
                    &self.filter,
                );
                for b in woken {
                    self.wake(BodyId(b));
                }
            }
            let (states, bodies, params) = (&self.rigid.states, &self.bodies, &self.contact_params);
            self.rigid_contacts.detect(states, bodies, &self.x32, &self.x_prev32, &self.w, params, &self.filter);
        }
    }

    /// Fills `x32` and `x_prev32`, the f32 positions contact detection reads.
    pub(super) fn round_positions(&mut self) {
        // Chunks of plain loops into the kept buffers, as in the prediction: a parallel
        // `extend` gathered each call's pieces into fresh vectors and copied them again.
        let round = |from: &[DVec3], to: &mut Vec<Vec3>| {
            to.resize(from.len(), Vec3::ZERO);
            to.par_chunks_mut(CHUNK).zip(from.par_chunks(CHUNK)).for_each(|(to, from)| {
                for (t, f) in to.iter_mut().zip(from) {
                    *t = f.as_vec3();
                }
            });
        };
        round(&self.x, &mut self.x32);
        round(&self.x_prev, &mut self.x_prev32);
    }

    /// XPBD's Lagrange multipliers start from zero every substep (Macklin et al. 2019).
    fn reset_multipliers(&mut self) {
        self.elements.reset();
        self.pin_lambda.fill(0.0);
        self.link_lambda.fill(0.0);
    }

    /// Hands rigid contacts' corrections to rapier as velocity changes and ends the
    /// rigid bodies' substep (`rigid.rs`).
    fn finish_rigid_bodies(&mut self, dt: f32) {
        let states = &mut self.rigid.states;
        self.rigid_contacts.finish(&mut self.x, &self.x_prev, &self.w, states, dt);
        self.rigid.end_substep(dt);
        self.rigid_contacts.kick(&mut self.rigid);
    }

    /// Coulomb friction of static and deformable contacts, after the iterations. Every
    /// vertex of a contact takes implicit Euler (`history.rs`), so its displacement is
    /// measured from `x_prev` whatever the scheme.
    fn apply_friction(&mut self, bdf: bool) {
        let w = if bdf { &self.history.w } else { &self.w };
        collider::apply_friction(&self.contacts, Shared::new(&mut self.x), &self.x_prev);
        self.surfaces.apply_friction(&self.deformable_contacts, &mut self.x, &self.x_prev, w);
    }

    /// Velocities from the positions the iterations reached.
    fn update_velocities(&mut self, dt: f32, h: f32, bdf: bool) {
        // v ← v_pred + (x − x_pred)/h rather than (x − base)/h: the same value in exact
        // arithmetic, but the latter would pass gravity's g·h² through the rounding of
        // the positions. x_pred is recomputed bit-identically from `base` and v_pred
        // (`base = x_prev` and `h = dt` for implicit Euler, `model/time_scheme.rs`).
        let inv_dt = 1.0 / dt as f64;
        for (range, &euler) in self.bodies.iter().zip(&self.history.euler) {
            let h = if bdf && !euler { h } else { dt };
            let r = range.clone();
            // Chunks of plain loops, as in the prediction.
            (
                self.x[r.clone()].par_chunks(CHUNK),
                self.x_prev[r.clone()].par_chunks(CHUNK),
                self.v[r.clone()].par_chunks_mut(CHUNK),
                self.w[r.clone()].par_chunks(CHUNK),
                self.history.base[r].par_chunks(CHUNK),
            )
                .into_par_iter()
                .for_each(|(x, xp, v, w, base)| {
                    for ((((x, xp), v), &w), base) in x.iter().zip(xp).zip(v.iter_mut()).zip(w).zip(base) {
                        if w > 0.0 {
                            let predicted = *base + (*v * h).as_dvec3();
                            *v += ((*x - predicted) * (1.0 / h as f64)).as_vec3();
                        } else {
                            *v = ((*x - *xp) * inv_dt).as_vec3();
                        }
                    }
                });
        }
        self.correct_force_velocities(dt);
    }

    /// What the substep's end state changes in the rest state: plastic flow, tearing,
    /// inelastic spring links.
    fn rest_state_changes(&mut self) {
        self.plastic_flow();
        if self.tearing.iter().any(Option::is_some) {
            self.tear();
        }
        self.inelastic_links();
    }

    /// One plastic flow step on every tet of a plastic material (see
    /// [`crate::model::plasticity`]), at the end of a substep. Each tet writes only itself, so
    /// the order does not matter and the result is deterministic.
    fn plastic_flow(&mut self) {
        for p in &self.plastic_hinges {
            let set = if p.at.soft { &mut self.elements.soft_hinges } else { &mut self.elements.hinges };
            let slot = set.slot[p.at.index as usize] as usize;
            set.edit(slot, |hinge| {
                if let Some((angle, _)) = bending::angle_and_gradient(relative(hinge.v.map(|i| self.x[i as usize]))) {
                    hinge.rest_angle =
                        plasticity::flow_hinge(hinge.rest_angle, angle, p.original, &p.params, &p.limits);
                }
            });
        }
        if self.tet_plastic.is_empty() {
            return;
        }
        let x = &self.x;
        self.elements.tets.items_mut().par_iter_mut().zip(&self.tet_plastic).with_min_len(256).for_each(
            |(tet, plastic)| {
                if let Some(p) = plastic {
                    let pos = relative(tet.v.map(|i| x[i as usize]));
                    plasticity::flow_tet(tet, pos, p.original_dm, &p.params);
                }
            },
        );
    }

    /// The constraint iterations of one substep: every colour of every constraint kind,
    /// then pins, then contact planes, `iterations` times, on the whole thread team.
    /// Damping measures each vertex's motion from its time scheme's base (`x_prev` for
    /// implicit Euler); a BDF2 substep solves with the inverse masses that fold its
    /// implicit Euler vertices in (`history.rs`).
    fn iterate(&mut self, step: Step, bdf: bool) {
        let x = Shared::new(&mut self.x);
        let x_prev = &self.history.base[..];
        let w = if bdf { &self.history.w[..] } else { &self.w[..] };
        let elements = self.elements.view();
        let pin_lambda = Shared::new(&mut self.pin_lambda);
        let soft_pins = &self.soft_pins;
        let links = &self.links;
        let link_lambda = Shared::new(&mut self.link_lambda);
        let rigid = Shared::new(std::slice::from_mut(&mut self.rigid.states));
        let contacts = Shared::new(&mut self.contacts);
        let contact_count = self.contacts.len();
        let rigid_contact_count = self.rigid_contacts.list.len();
        let rigid_contacts = Shared::new(&mut self.rigid_contacts.list);
        let surfaces = &self.surfaces;
        let deformable_contacts = Shared::new(&mut self.deformable_contacts);
        let deformable_count = self.deformable_contacts.len();
        let iterations = self.settings.iterations;
        // Below this size the team's barriers cost more than the work they share.
        let parallel = elements.len() >= 2048;
        // Each barrier after the elements is skipped when nothing runs before it (a cloth
        // with hard pins and no contacts): with two threads on the 32² bench cloth the team
        // spends a third of its time waiting at barriers.
        let leader_work = !soft_pins.is_empty() || !links.is_empty() || rigid_contact_count > 0;
        team::run(parallel, |m| {
            for iteration in 0..iterations {
                // SAFETY (every projection below): the whole team projects the element
                // sets together (`ElementsView::project`). Pins run on the leader alone;
                // each vertex has at most one contact entry.
                unsafe { elements.project(m, iteration, x, x_prev, w, step) };
                if leader_work && m.is_leader() {
                    for (k, pin) in soft_pins.iter().enumerate() {
                        unsafe { pin.project(x, x_prev, w, pin_lambda.get(k), step) };
                    }
                    // SAFETY: the leader alone touches attachments and rigid states.
                    let rigid = unsafe { rigid.get(0) };
                    for (k, link) in links.iter().enumerate() {
                        unsafe { link.project(x, x_prev, w, rigid, link_lambda.get(k), step) };
                    }
                    // SAFETY: the leader alone touches rigid contacts and rigid states.
                    unsafe { rigid_contact::project(rigid_contacts, rigid_contact_count, x, w, rigid) };
                }
                if leader_work {
                    m.sync();
                }
                if contact_count > 0 {
                    for k in m.share(0..contact_count) {
                        unsafe { collider::project(contacts.get(k), x) };
                    }
                    m.sync();
                }
                if deformable_count > 0 {
                    if m.is_leader() {
                        // SAFETY: the leader alone, between barriers; the list is only
                        // borrowed here.
                        unsafe { surfaces.project(deformable_contacts, deformable_count, x, w) };
                    }
                    m.sync();
                }
            }
        });
    }
}

/// Whether hinge `h` counts as compliant at substep `dt`, judged at positions `x`.
pub(super) fn is_soft(h: &Hinge, x: &[DVec3], w: &[f32], dt: f32) -> bool {
    let Some((_, grad)) = bending::angle_and_gradient(relative(h.v.map(|i| x[i as usize]))) else { return false };
    let stiffness: f32 = h.v.iter().zip(&grad).map(|(&i, g)| w[i as usize] * g.length_squared()).sum();
    stiffness * dt * dt < SOFT_HINGE_RATIO * h.compliance
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::deformable::Contact;
    use crate::{grid, Body, BodyKind, Material, Pin, Scene};
    use glam::Vec3;

    /// A square cloth held at two corners of one side, swinging down and folding onto
    /// itself (a small cloth_64 of the bench scenes), with self contact.
    fn swinging_cloth(verts: u32) -> (Scene, Settings) {
        let (points, tris) = grid::cloth(Vec3::new(-0.5, -0.5, 1.0), Vec3::X, Vec3::Y, (1.0, 1.0), (verts, verts));
        let material = Material { thickness: 1e-3, ..Material::elastic(1e5, 0.3, 200.0) };
        let mut body = Body::new("/cloth", BodyKind::Surface, points, material);
        body.rest_elements = tris.iter().map(|t| [t[0], t[1], t[2], 0]).collect();
        body.triangles = tris;
        let pins = [0, verts - 1]
            .map(|v| Pin {
                body: BodyId(0),
                vertex: v,
                target: body.positions[v as usize],
                stiffness: f32::INFINITY,
                damping: 0.0,
            })
            .to_vec();
        let scene = Scene { gravity: Vec3::new(0.0, 0.0, -9.81), bodies: vec![body], pins, ..Default::default() };
        let settings = Settings {
            frame_dt: 1.0 / 60.0,
            substeps: 24,
            iterations: 2,
            contact_offset: 0.002,
            self_contact: Some(true),
            ..Settings::default()
        };
        (scene, settings)
    }

    /// The iterations start from the contacts of the positions they start from: where a
    /// contact switches the cloth from BDF2 to implicit Euler, which predicts it again,
    /// the contacts are those every pair's test finds at the new predictions (found at
    /// the old ones, contacts went missing and others were solved that were not there).
    #[test]
    fn contacts_after_a_switch_to_implicit_euler_are_those_of_the_new_predictions() {
        let (scene, settings) = swinging_cloth(32);
        let mut s = Solver::new(scene, settings).unwrap();
        let dt = settings.frame_dt / settings.substeps as f32;
        let (mut switches, mut changed) = (0, 0);
        for _ in 0..240 {
            for k in 0..settings.substeps {
                let bdf = s.bdf2_substep();
                s.predict(dt, bdf, (k + 1) as f32 / settings.substeps as f32);
                let predicted = s.x.clone();
                let euler_before = s.history.euler.clone();
                s.find_contacts(dt, bdf);
                if bdf && s.history.euler != euler_before {
                    switches += 1;
                    changed += usize::from(s.x != predicted);
                    let x: Vec<Vec3> = s.x.iter().map(|p| p.as_vec3()).collect();
                    let all = s.surfaces.every_contact(&s.filter, &x, &s.x_prev32, &s.w);
                    let key = |c: &Contact| (c.vertex, c.triangle, c.edge, c.side.to_bits(), c.distance.to_bits());
                    let (found, every): (Vec<_>, Vec<_>) =
                        (s.deformable_contacts.iter().map(key).collect(), all.iter().map(key).collect());
                    assert_eq!(
                        found, every,
                        "frame {}: the contacts solved are not those of the predictions",
                        s.frames
                    );
                }
                s.solve_substep(dt, bdf);
            }
            s.settle_targets();
            s.frames += 1;
        }
        assert!(
            changed > 0,
            "no switch to implicit Euler moved a prediction: the test proves nothing ({switches} switches)"
        );
    }
}
