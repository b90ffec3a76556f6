//! The spring-mass-damper model inside the solver (`usdsim:model = "springs"`).
//!
//! Links come from the body's mesh ([`crate::model::spring_mass::link_pairs`]: edges, quad
//! diagonals, straight-line bend links; a volume body's tets contribute their four faces)
//! with rest lengths from the rest shape. With the XPBD integrator each link is a
//! compliant distance constraint, `α = 1/ks` and damping time `kd/ks` (Macklin et al.
//! 2016), projected with the other constraints. With a force-based integrator
//! ([`crate::Integrator`]) the body's Hooke and damper forces and gravity advance its
//! state in the prediction step ([`crate::model::spring_mass::SpringSystem::step`], double
//! precision); contacts and attachments then correct positions as for every other body,
//! and the velocity takes the correction over the integrator's own prediction.

use super::{Settings, Solver, MAX_SUBSTEPS};
use crate::constraint::spring::SpringLink;
use crate::model::spring_mass::{self, SpringSystem};
use crate::scene::Plasticity;
use crate::scene::{Body, BodyKind, Springs};
use crate::Integrator;
use glam::{DVec3, Vec3};

/// Per-vertex rest positions of `body`: each vertex at its place in the first element's
/// rest shape that uses it (the initial position when no element does).
fn rest_positions(body: &Body) -> Vec<DVec3> {
    let mut out: Vec<Option<DVec3>> = vec![None; body.positions.len()];
    let corners = |e: usize| -> Vec<u32> {
        match body.kind {
            BodyKind::Volume => body.tets[e].to_vec(),
            BodyKind::Surface => body.triangles[e].to_vec(),
        }
    };
    for (e, re) in body.rest_elements.iter().enumerate() {
        for (k, v) in corners(e).into_iter().enumerate() {
            out[v as usize].get_or_insert(body.rest_points[re[k] as usize].as_dvec3());
        }
    }
    out.iter().zip(&body.positions).map(|(r, p)| r.unwrap_or(p.as_dvec3())).collect()
}

/// The triangles links are built from: a surface's own, a volume's tet faces.
fn link_triangles(body: &Body) -> Vec<[u32; 3]> {
    match body.kind {
        BodyKind::Surface => body.triangles.clone(),
        BodyKind::Volume => body
            .tets
            .iter()
            .flat_map(|t| [[t[0], t[1], t[2]], [t[0], t[1], t[3]], [t[0], t[2], t[3]], [t[1], t[2], t[3]]])
            .collect(),
    }
}

/// The links of `body` with body-local ends, in double precision: `ks` from `springs`
/// or, when 0, from the material (`E·h` per surface link, `E·L` per volume link of rest
/// length `L`: the stiffness of a square or cubic lattice of such links).
pub(super) fn links(body: &Body, springs: &Springs) -> Vec<spring_mass::Link> {
    let rest = rest_positions(body);
    let pairs = spring_mass::link_pairs(&rest, &link_triangles(body), springs.links);
    let m = &body.material;
    pairs
        .into_iter()
        .map(|ends| {
            let len = rest[ends[0] as usize].distance(rest[ends[1] as usize]);
            let derived = match body.kind {
                BodyKind::Surface => (m.youngs_modulus * m.thickness) as f64,
                BodyKind::Volume => m.youngs_modulus as f64 * len,
            };
            let stiffness = if springs.stiffness > 0.0 { springs.stiffness as f64 } else { derived };
            spring_mass::Link { ends, rest: len, stiffness, damping: springs.damping as f64 }
        })
        .filter(|l| l.rest > 0.0 && l.stiffness > 0.0)
        .collect()
}

/// The XPBD form of `links`, vertex indices offset by `base`, tearing beyond
/// `tear_ratio` (`INFINITY`: never) and flowing plastically with `plastic`.
pub(super) fn constraints(
    links: &[spring_mass::Link],
    base: u32,
    tear_ratio: f32,
    plastic: Option<Plasticity>,
) -> Vec<SpringLink> {
    links
        .iter()
        .map(|l| SpringLink {
            v: l.ends.map(|e| e + base),
            rest: l.rest as f32,
            compliance: (1.0 / l.stiffness) as f32,
            damping: (l.damping / l.stiffness) as f32,
            tear_ratio,
            plastic,
            original_rest: l.rest as f32,
        })
        .collect()
}

/// A body advanced by a force-based integrator.
pub(super) struct ForceBody {
    /// Index of the body.
    pub(super) body: usize,
    /// Its particles and links (state refreshed from the solver every substep).
    system: SpringSystem,
    /// Per vertex: `x_prev + v·dt − x_pred` after the prediction, so that the velocity
    /// update can be corrected to `v + (x − x_pred)/dt`.
    offset: Vec<Vec3>,
    /// Links break beyond this times their rest length (`None`: never).
    tear_ratio: Option<f32>,
    /// Plastic flow of the links' rest lengths, if the material has it.
    plastic: Option<Plasticity>,
    /// Per link (same order as `system.links`): its rest length before any flow.
    original_rest: Vec<f64>,
    /// Number of links before any broke.
    initial_links: usize,
    /// The integrator's work arrays, kept so that a step allocates nothing.
    scratch: spring_mass::StepScratch,
}

impl ForceBody {
    /// Whether its links can break or flow (link state a resume would need).
    pub(super) fn inelastic(&self) -> bool {
        self.tear_ratio.is_some() || self.plastic.is_some()
    }

    /// A force-integrated body with body-local `links`.
    pub(super) fn new(
        body: usize,
        links: Vec<spring_mass::Link>,
        n: usize,
        tear_ratio: Option<f32>,
        plastic: Option<Plasticity>,
    ) -> Self {
        let initial_links = links.len();
        let original_rest = links.iter().map(|l| l.rest).collect();
        let system = SpringSystem {
            x: vec![DVec3::ZERO; n],
            v: vec![DVec3::ZERO; n],
            mass: vec![0.0; n],
            links,
            gravity: DVec3::ZERO,
        };
        Self {
            body,
            system,
            offset: vec![Vec3::ZERO; n],
            tear_ratio,
            plastic,
            original_rest,
            initial_links,
            scratch: spring_mass::StepScratch::default(),
        }
    }

    /// The largest substep `integrator` is stable at for this body
    /// ([`SpringSystem::stable_step`]; `None` for explicit Euler without damping), given
    /// masses `mass` and inverse masses `w` (zero: fixed).
    fn stable_step(&mut self, integrator: spring_mass::ForceIntegrator, mass: &[f32], w: &[f32]) -> Option<f64> {
        for (k, (m, &wi)) in self.system.mass.iter_mut().zip(mass.iter().zip(w)) {
            *k = if wi > 0.0 { *m as f64 } else { 0.0 };
        }
        self.system.stable_step(integrator)
    }
}

/// Spring-model bodies of a scene: XPBD links, force-integrated bodies and warnings.
pub(super) struct Built {
    /// Links of XPBD-integrated bodies (global indices).
    pub(super) constraints: Vec<SpringLink>,
    /// Force-integrated bodies.
    pub(super) force_bodies: Vec<ForceBody>,
}

/// Collects the spring-model bodies' links; `ranges` are the bodies' vertex ranges.
pub(super) fn build(bodies: &[Body], ranges: &[std::ops::Range<usize>], integrator: Integrator) -> Built {
    let mut built = Built { constraints: Vec::new(), force_bodies: Vec::new() };
    for (b, body) in bodies.iter().enumerate() {
        let crate::Model::Springs(springs) = body.model else { continue };
        let links = links(body, &springs);
        // Links tear with the body's material (the article breaks links, it does not cut
        // elements); the mesh written back keeps its topology.
        // Plasticity likewise comes from the body's material.
        let (tear, plastic) = (body.tear_ratio, body.plastic);
        match integrator.force_based() {
            None => {
                let base = ranges[b].start as u32;
                built.constraints.extend(constraints(&links, base, tear.unwrap_or(f32::INFINITY), plastic))
            }
            Some(_) => built.force_bodies.push(ForceBody::new(b, links, ranges[b].len(), tear, plastic)),
        }
    }
    built
}

/// Fits the substeps to the force-integrated bodies' stable step. With
/// `settings.spring_step_fraction` set, substeps are raised (up to [`MAX_SUBSTEPS`]) until
/// the substep is at most that fraction of every body's stable step, with a warning
/// saying so, as for stiff tetrahedra; without it (the user chose the substeps) they are
/// kept, with a warning for each body they are too few for. `mass` and `w` are the global
/// masses and inverse masses (zero: fixed), `ranges` the bodies' vertex ranges.
pub(super) fn fit_substeps(
    force_bodies: &mut [ForceBody],
    settings: &mut Settings,
    bodies: &[Body],
    ranges: &[std::ops::Range<usize>],
    mass: &[f32],
    w: &[f32],
    warnings: &mut Vec<String>,
) {
    let Some(integrator) = settings.integrator.force_based() else { return };
    let what = match integrator {
        spring_mass::ForceIntegrator::ExplicitEuler => "explicit Euler (stable below kd/ks)",
        spring_mass::ForceIntegrator::SymplecticEuler => "symplectic Euler (stable for ω·dt < 2)",
        spring_mass::ForceIntegrator::Rk4 => "RK4 (stable for ω·dt < 2√2)",
    };
    let limits: Vec<Option<f64>> = force_bodies
        .iter_mut()
        .map(|fb| {
            let range = ranges[fb.body].clone();
            fb.stable_step(integrator, &mass[range.clone()], &w[range])
        })
        .collect();
    if let Some(fraction) = settings.spring_step_fraction {
        // The stiffest body sets the step; one without any stable step cannot be helped.
        let stiffest = (0..limits.len()).filter_map(|k| limits[k].map(|l| (l, k))).min_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((limit, k)) = stiffest {
            let needed = (settings.frame_dt as f64 / (fraction as f64 * limit)).ceil();
            if needed > settings.substeps as f64 {
                let raised = needed.min(MAX_SUBSTEPS as f64) as u32;
                warnings.push(format!(
                    "{}: its stiffest spring's stable step for {what} is {:.3} ms, so it needs {needed} substeps per \
                     frame; running with {raised} instead of {}{}",
                    bodies[force_bodies[k].body].name,
                    limit * 1e3,
                    settings.substeps,
                    if raised < needed as u32 {
                        " — still unstable: soften the springs or use the xpbd integrator"
                    } else {
                        ""
                    }
                ));
                settings.substeps = raised;
            }
        }
    }
    let dt = (settings.frame_dt / settings.substeps as f32) as f64;
    for (fb, limit) in force_bodies.iter().zip(&limits) {
        let name = &bodies[fb.body].name;
        match limit {
            Some(limit) if dt > *limit => {
                let substeps = (settings.frame_dt as f64 / limit).ceil();
                warnings.push(format!(
                    "{name}: the substep of {:.3} ms exceeds the stable step of its stiffest spring for {what}, {:.3} ms; \
                     use at least --substeps {substeps}, or the xpbd integrator",
                    dt * 1e3,
                    limit * 1e3
                ));
            }
            Some(_) => {}
            None => warnings.push(format!(
                "{name}: no substep is stable for {what} without spring damping; add spring damping \
                 (--spring-damping) or use the xpbd integrator"
            )),
        }
    }
}

impl Solver {
    /// Advances the force-integrated bodies over the substep's prediction: forces,
    /// gravity and the chosen integrator instead of `x += v·dt`.
    pub(super) fn predict_force_bodies(&mut self, dt: f32) {
        let Some(integrator) = self.settings.integrator.force_based() else { return };
        for fb in &mut self.force_bodies {
            let range = self.bodies[fb.body].clone();
            let s = &mut fb.system;
            s.gravity = self.body_gravity[fb.body].as_dvec3();
            for (k, i) in range.clone().enumerate() {
                self.x_prev[i] = self.x[i];
                s.x[k] = self.x[i];
                s.v[k] = self.v[i].as_dvec3();
                s.mass[k] = if self.w[i] > 0.0 { self.mass[i] as f64 } else { 0.0 };
            }
            // Tearing and plastic flow on the state at the end of the last substep.
            if let Some(ratio) = fb.tear_ratio {
                let x = &s.x;
                let intact = |l: &spring_mass::Link| {
                    x[l.ends[0] as usize].distance(x[l.ends[1] as usize]) <= ratio as f64 * l.rest
                };
                if !s.links.iter().all(intact) {
                    // Original rest lengths first, while they still line up with the links.
                    let mut k = 0;
                    fb.original_rest.retain(|_| {
                        k += 1;
                        intact(&s.links[k - 1])
                    });
                    s.links.retain(intact);
                }
            }
            if let Some(p) = fb.plastic {
                let cap = p.max_strain.map(f64::from);
                spring_mass::apply_plasticity(
                    &mut s.links,
                    &s.x,
                    &fb.original_rest,
                    p.yield_ratio as f64,
                    p.rate as f64,
                    cap,
                );
            }
            s.step_with(integrator, dt as f64, &mut fb.scratch);
            for (k, i) in range.enumerate() {
                if self.w[i] > 0.0 {
                    let (x, v) = (s.x[k], s.v[k].as_vec3());
                    self.x[i] = x;
                    self.v[i] = v;
                    fb.offset[k] = (self.x_prev[i] + (v * dt).as_dvec3() - x).as_vec3();
                }
            }
        }
    }

    /// Breaks XPBD links stretched beyond their tear ratio and lets plastic ones flow
    /// (the article's rules: beyond `yield × rest` the rest length moves toward the
    /// length by `rate ×` the difference, within the cap), after a substep. A broken link
    /// stays in place, switched off.
    pub(super) fn inelastic_links(&mut self) {
        let x = &self.x;
        for link in self.elements.springs.items_mut() {
            if !link.compliance.is_finite() || (!link.tear_ratio.is_finite() && link.plastic.is_none()) {
                continue;
            }
            let len = x[link.v[0] as usize].distance(x[link.v[1] as usize]) as f32;
            if len > link.tear_ratio * link.rest {
                link.compliance = f32::INFINITY;
            } else if let Some(p) = link.plastic {
                if len > p.yield_ratio * link.rest {
                    let rest = link.rest + p.rate * (len - link.rest);
                    link.rest = p.max_strain.map_or(rest, |cap| rest.min(link.original_rest * (1.0 + cap)));
                }
            }
        }
    }

    /// How many spring links have broken (XPBD and force-integrated bodies together).
    pub fn broken_links(&self) -> usize {
        let xpbd = self.elements.springs.items().iter().filter(|l| l.compliance == f32::INFINITY).count();
        xpbd + self.force_bodies.iter().map(|f| f.initial_links - f.system.links.len()).sum::<usize>()
    }

    /// Corrects the force-integrated bodies' velocities after the generic update
    /// (`v += (x − (x_prev + v·dt))/dt`) to `v + (x − x_pred)/dt`.
    pub(super) fn correct_force_velocities(&mut self, dt: f32) {
        for fb in &self.force_bodies {
            let range = self.bodies[fb.body].clone();
            for (k, i) in range.enumerate() {
                if self.w[i] > 0.0 {
                    self.v[i] += fb.offset[k] / dt;
                }
            }
        }
    }
}
