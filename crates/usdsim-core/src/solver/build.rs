//! Building a solver from a scene: checks, global vertex arrays, masses, rest data,
//! constraints in colour order, contacts, attachments and the stability bound.

use super::check::validate;
use super::step::is_soft;
use super::*;
use std::collections::BTreeMap;

impl Solver {
    /// Builds the solver: validates the scene, computes masses and rest data, colours the
    /// constraints. Fails with a [`SceneError`] naming the body and the problem.
    pub fn new(scene: Scene, mut settings: Settings) -> Result<Self, SceneError> {
        let bad_setting = |what: &'static str, value: f32, expected: &'static str| SceneError::InvalidValue {
            body: "settings".into(),
            what,
            value,
            expected,
        };
        if settings.substeps == 0 {
            return Err(bad_setting("substeps", 0.0, "at least 1"));
        }
        if settings.iterations == 0 {
            return Err(bad_setting("iterations", 0.0, "at least 1"));
        }
        if !(settings.frame_dt > 0.0 && settings.frame_dt.is_finite()) {
            return Err(bad_setting("frame duration", settings.frame_dt, "a finite value > 0"));
        }
        if !scene.gravity.is_finite() {
            return Err(SceneError::NonFinite { body: "scene".into(), what: "gravity" });
        }
        let mut x = Vec::new();
        let mut v = Vec::new();
        let mut m = Vec::new();
        let mut contact_params = Vec::new();
        let mut ranges = Vec::new();
        let mut tets = Vec::new();
        let mut plastic_tets = Vec::new();
        let mut body_tet_start = Vec::new();
        let mut membranes = Vec::new();
        let mut hinges = Vec::new();
        let mut tearing = Vec::new();
        for body in &scene.bodies {
            validate(body)?;
            let mut tears = tear::Tearing::new(body);
            if let Some(t) = tears.as_mut() {
                t.element_start = if body.kind == BodyKind::Volume { tets.len() } else { membranes.len() };
            }
            body_tet_start.push(tets.len());
            let base = x.len();
            let n = body.positions.len();
            x.extend(body.positions.iter().map(|p| p.as_dvec3()));
            v.extend_from_slice(&body.velocities);
            m.extend(mass::vertex_masses(body));
            let mat = body.material;
            let half_thickness = if body.kind == BodyKind::Surface { 0.5 * mat.thickness } else { 0.0 };
            let params = VertexContactParams {
                friction: [mat.static_friction, mat.dynamic_friction],
                offset: settings.contact_offset + half_thickness,
                pad: 0.5 * mean_edge(body),
            };
            contact_params.extend(std::iter::repeat_n(params, n));
            ranges.push(base..base + n);
            let global = |i: u32| i + base as u32;
            let rest = |e: &[u32; 4], k: usize| body.rest_points[e[k] as usize];
            let kind = if body.model == crate::Model::Fem { Some(body.kind) } else { None };
            match kind {
                None => {} // spring-model bodies: links are built below
                Some(BodyKind::Volume) => {
                    for (i, (tet, re)) in body.tets.iter().zip(&body.rest_elements).enumerate() {
                        let r = [rest(re, 0), rest(re, 1), rest(re, 2), rest(re, 3)];
                        let em = body.element_material(i);
                        let t = Tet::new(tet.map(global), r, em.youngs_modulus, em.poissons_ratio, em.damping)
                            .ok_or_else(|| SceneError::DegenerateElement {
                                body: body.name.clone(),
                                what: "tetrahedron",
                                element: i,
                                measure: crate::constraint::neo_hookean::signed_volume(r),
                            })?;
                        plastic_tets.push(body.element_plasticity(i).map(|params| PlasticTet {
                            params,
                            original_dm: glam::Mat3::from_cols(r[1] - r[0], r[2] - r[0], r[3] - r[0]),
                        }));
                        tets.push(t);
                    }
                }
                Some(BodyKind::Surface) => {
                    let rest_tri = |t: usize| {
                        let re = &body.rest_elements[t];
                        [rest(re, 0), rest(re, 1), rest(re, 2)]
                    };
                    for (i, tri) in body.triangles.iter().enumerate() {
                        let r = rest_tri(i);
                        let em = body.element_material(i);
                        let (stretch, shear, _) = em.shell_stiffness();
                        let t = Membrane::new(tri.map(global), r, stretch, shear, em.damping).ok_or_else(|| {
                            SceneError::DegenerateElement {
                                body: body.name.clone(),
                                what: "triangle",
                                element: i,
                                measure: 0.5 * (r[1] - r[0]).cross(r[2] - r[0]).length(),
                            }
                        })?;
                        membranes.push(t);
                    }
                    hinges.extend(bending::build(body, base as u32).into_iter().map(|(h, t)| (h, t, tearing.len())));
                }
            }
            if let Some(t) = tears.as_mut() {
                // Spare slots after the body's own vertices for the copies tearing makes.
                let spare = tear::Tearing::slots(body).saturating_sub(n);
                x.extend(std::iter::repeat_n(DVec3::ZERO, spare));
                v.extend(std::iter::repeat_n(Vec3::ZERO, spare));
                m.extend(std::iter::repeat_n(0.0, spare));
                contact_params.extend(std::iter::repeat_n(params, spare));
                t.slots_end = x.len();
            }
            tearing.push(tears);
        }
        // Spare slots have no mass and stay immovable until a tear gives them some.
        let mut w: Vec<f32> = m.iter().map(|&mi| if mi > 0.0 { 1.0 / mi } else { 0.0 }).collect();
        let mut soft_pins = Vec::new();
        for (k, pin) in scene.pins.iter().enumerate() {
            let Some(range) = ranges.get(pin.body.0) else {
                return Err(SceneError::IndexOutOfRange {
                    body: format!("pin {k}"),
                    what: "body",
                    index: pin.body.0 as u64,
                    len: ranges.len(),
                });
            };
            let name = &scene.bodies[pin.body.0].name;
            if pin.vertex as usize >= range.len() {
                return Err(SceneError::IndexOutOfRange {
                    body: name.clone(),
                    what: "pinned vertex",
                    index: pin.vertex as u64,
                    len: range.len(),
                });
            }
            if !pin.target.is_finite() {
                return Err(SceneError::NonFinite { body: name.clone(), what: "pin target" });
            }
            let i = range.start + pin.vertex as usize;
            if pin.stiffness.is_infinite() && pin.stiffness > 0.0 {
                w[i] = 0.0;
                x[i] = pin.target.as_dvec3();
                v[i] = Vec3::ZERO;
            } else if pin.stiffness > 0.0 {
                soft_pins.push(SoftPin {
                    vertex: i as u32,
                    target: pin.target,
                    compliance: 1.0 / pin.stiffness,
                    damping: (pin.damping / pin.stiffness).max(0.0),
                });
            } else {
                return Err(SceneError::InvalidValue {
                    body: name.clone(),
                    what: "attachment stiffness",
                    value: pin.stiffness,
                    expected: "a value > 0 (inf for a hard attachment)",
                });
            }
        }
        let (links, driven) = attachment::build(&scene, &ranges, &mut w, &mut x, &mut v)?;
        let attachment_frames =
            scene.frames.iter().map(|f| FrameMotion { start: f.world_from_local, target: None }).collect();
        let rigid = RigidWorld::new(&scene.rigid_bodies, &scene.colliders, &scene.joints, scene.gravity)?;
        let mut sleeping = vec![None; scene.bodies.len()];
        let mut kinematic = Vec::new();
        for (b, body) in scene.bodies.iter().enumerate() {
            let range = ranges[b].clone();
            if body.kinematic {
                // Infinite mass: follows its targets exactly, never pushed.
                w[range.clone()].fill(0.0);
                kinematic.push(Kinematic {
                    body: b,
                    start: x[range].iter().map(|p| p.as_vec3()).collect(),
                    target: None,
                });
            } else if body.starts_asleep {
                sleeping[b] = Some(w[range.clone()].to_vec());
                w[range.clone()].fill(0.0);
                v[range].fill(Vec3::ZERO);
            }
        }
        let body_gravity: Vec<Vec3> = scene.bodies.iter().map(|b| b.gravity.unwrap_or(scene.gravity)).collect();
        let colliders = collider::build(&scene.colliders)?;
        let self_contact = SelfContact { surfaces: settings.self_contact, volumes: settings.volume_self_contact };
        let (surfaces, filter) =
            Surfaces::new(&scene, &ranges, settings.contact_offset, settings.deformable_contact, self_contact);
        let mut tet_frequency = (0.0f32, 0usize);
        for b in (0..ranges.len()).filter(|&b| !scene.bodies[b].kinematic) {
            let end = body_tet_start.get(b + 1).copied().unwrap_or(tets.len());
            for t in &tets[body_tet_start[b]..end] {
                // Masses rather than today's inverse masses: an asleep body (zero for
                // now) must be stable once it wakes. Pinned vertices count as free,
                // which errs on the safe side.
                let omega = t.rest_frequency(t.v.map(|i| if m[i as usize] > 0.0 { 1.0 / m[i as usize] } else { 0.0 }));
                if omega > tet_frequency.0 {
                    tet_frequency = (omega, b);
                }
            }
        }
        let mut warnings = Vec::new();
        let needed = (settings.frame_dt * tet_frequency.0 / settings.stability_limit).ceil();
        if needed > settings.substeps as f32 && settings.keep_tet_substeps {
            warnings.push(format!(
                "{}: its stiffest tetrahedron needs at least {needed} substeps per frame to stay stable (rest \
                 frequency {:.0} rad/s); running with the {} given, which may diverge",
                scene.bodies[tet_frequency.1].name, tet_frequency.0, settings.substeps,
            ));
        } else if needed > settings.substeps as f32 {
            let raised = needed.min(MAX_SUBSTEPS as f32) as u32;
            warnings.push(format!(
                "{}: its stiffest tetrahedron needs at least {needed} substeps per frame to stay stable (rest \
                 frequency {:.0} rad/s); running with {raised} instead of {}{}",
                scene.bodies[tet_frequency.1].name,
                tet_frequency.0,
                settings.substeps,
                if raised < needed as u32 {
                    " — still unstable: soften the material or coarsen the mesh"
                } else {
                    ""
                }
            ));
            settings.substeps = raised;
        }
        let mut spring_set = springs::build(&scene.bodies, &ranges, settings.integrator);
        springs::fit_substeps(
            &mut spring_set.force_bodies,
            &mut settings,
            &scene.bodies,
            &ranges,
            &m,
            &w,
            &mut warnings,
        );
        let vertex_count = x.len();
        let dt = settings.frame_dt / settings.substeps as f32;
        let (mut soft_hinges, mut stiff_hinges) = (Vec::new(), Vec::new());
        let mut hinge_refs = vec![Vec::new(); scene.bodies.len()];
        let mut plastic_hinges = Vec::new();
        for (h, triangles, b) in hinges {
            let soft = is_soft(&h, &x, &w, dt);
            let set: &mut Vec<Hinge> = if soft { &mut soft_hinges } else { &mut stiff_hinges };
            let at = HingeRef { soft, index: set.len() as u32, triangles };
            hinge_refs[b].push(at);
            let body = &scene.bodies[b];
            if let Some(params) = body.element_plasticity(triangles[0] as usize) {
                let limits = plasticity::BendLimits::new(&params, body, triangles);
                plastic_hinges.push(PlasticHinge { at, params, original: h.rest_angle, limits });
            }
            set.push(h);
        }
        let tets = Coloured::new(tets, vertex_count);
        let mut force_integrated = vec![false; scene.bodies.len()];
        for fb in &spring_set.force_bodies {
            force_integrated[fb.body] = true;
        }
        let tet_plastic = if plastic_tets.iter().any(Option::is_some) {
            tets.order.iter().map(|&i| plastic_tets[i]).collect()
        } else {
            Vec::new()
        };
        let mut solver = Self {
            force_bodies: spring_set.force_bodies,
            force_integrated,
            settings,
            x_prev: x.clone(),
            x,
            x32: Vec::new(),
            history: History::default(),
            x_prev32: Vec::new(),
            v,
            w,
            mass: m,
            contact_params,
            bodies: ranges,
            tet_plastic,
            body_tet_start,
            elements: Elements {
                tets,
                membranes: Coloured::new(membranes, vertex_count),
                hinges: Coloured::new(stiff_hinges, vertex_count),
                soft_hinges: Coloured::new(soft_hinges, vertex_count),
                springs: Coloured::new(spring_set.constraints, vertex_count),
            },
            pin_lambda: vec![0.0; soft_pins.len()],
            soft_pins,
            link_lambda: vec![0.0; links.len()],
            links,
            driven,
            attachment_frames,
            rigid,
            colliders,
            contacts: Vec::new(),
            surfaces,
            filter,
            deformable_contacts: Vec::new(),
            rigid_contacts: RigidContacts::new(&scene.rigid_bodies),
            frames: 0,
            body_gravity,
            velocity_damping: scene.bodies.iter().map(|b| b.velocity_damping).collect(),
            sleeping,
            kinematic,
            topology_version: vec![0; scene.bodies.len()],
            input: scene,
            hinge_refs,
            plastic_hinges,
            tearing,
            warnings,
            tet_frequency,
        };
        solver.history = History::new(&solver.x, &solver.v, solver.attachment_groups());
        solver.warn_initial_overlaps();
        Ok(solver)
    }

    /// Warns about every pair of prims whose authored surfaces interpenetrate (closer
    /// than their thicknesses, not merely inside the contact offset): the solver pushes
    /// them apart at the max depenetration velocity, which the user should know changes
    /// the authored state. Finds the contacts at the initial positions as a substep would.
    fn warn_initial_overlaps(&mut self) {
        self.round_positions();
        let offset = self.settings.contact_offset;
        let (filter, vertex_body) = (&self.filter, &self.surfaces.vertex_body);
        let bodies = &self.bodies;
        let keep = |v: u32, c: usize| {
            let b = vertex_body[v as usize] as usize;
            filter.vertex_collider(b, v - bodies[b].start as u32, c)
        };
        let x = &self.x32;
        collider::detect(&self.colliders, x, x, &self.w, &self.contact_params, &keep, &mut self.contacts);
        self.surfaces.detect(x, x, &self.w, &self.filter, &mut self.deformable_contacts);
        // (prim, prim) → deepest interpenetration, in name order for a stable message.
        let mut pairs: BTreeMap<(String, String), f32> = BTreeMap::new();
        let names = |b: usize| self.input.bodies[b].name.clone();
        // Geometric interpenetration: deeper than the offsets the contact adds.
        let tolerance = |d: f32| 1e-5 * (1.0 + d.abs());
        for vc in &self.contacts {
            let b = self.surfaces.vertex_body[vc.vertex as usize] as usize;
            for k in 0..vc.count as usize {
                let depth = vc.overlap[k] - offset;
                if depth > tolerance(vc.offset[k]) {
                    let key = (names(b), self.input.colliders[vc.collider[k] as usize].name.clone());
                    let e = pairs.entry(key).or_insert(0.0);
                    *e = e.max(depth);
                }
            }
        }
        for c in &self.deformable_contacts {
            let depth = c.overlap - 2.0 * offset;
            if depth > tolerance(c.distance) {
                let [a, b] = self.surfaces.bodies_of(c);
                let key = if names(a) <= names(b) { (names(a), names(b)) } else { (names(b), names(a)) };
                let e = pairs.entry(key).or_insert(0.0);
                *e = e.max(depth);
            }
        }
        self.contacts.clear();
        self.deformable_contacts.clear();
        const LISTED: usize = 4;
        for ((a, b), depth) in pairs.iter().take(LISTED) {
            self.warnings.push(format!(
                "{a} and {b} are authored interpenetrating (by up to {depth:.4} stage units); they are pushed apart \
                 at no more than the max depenetration velocity, {} stage units/s, without gaining speed",
                self.settings.max_depenetration_velocity
            ));
        }
        if pairs.len() > LISTED {
            self.warnings.push(format!("{} more pairs of prims are authored interpenetrating", pairs.len() - LISTED));
        }
    }
}

/// Mean rest edge length of a body's elements (0 for a body without elements).
fn mean_edge(body: &Body) -> f32 {
    let used = if body.kind == BodyKind::Volume { 4 } else { 3 };
    let (mut sum, mut count) = (0.0f32, 0usize);
    for e in &body.rest_elements {
        for a in 0..used {
            for b in a + 1..used {
                sum += body.rest_points[e[a] as usize].distance(body.rest_points[e[b] as usize]);
                count += 1;
            }
        }
    }
    if count == 0 {
        0.0
    } else {
        sum / count as f32
    }
}
