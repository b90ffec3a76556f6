//! The time-stepping loop: XPBD with substeps (Macklin et al. 2019, "Small Steps in
//! Physics Simulation").
//!
//! All bodies share one set of global vertex arrays; each body owns a contiguous range.
//! Per substep: integrate gravity and predict positions, find contacts, run
//! `iterations` passes over the coloured constraints (tets, membranes, hinges), pins and
//! contact planes, apply friction, and derive velocities from the displacement.
//! Nothing allocates in the loop except the contact list's occasional growth.

use crate::constraint::attachment::{self, Driven, FrameMotion, Link};
use crate::constraint::bending::{self, Hinge};
use crate::constraint::membrane::Membrane;
use crate::constraint::neo_hookean::Tet;
use crate::constraint::pin::SoftPin;
use crate::constraint::xpbd::Step;
use crate::contact::collider::{self, StaticCollider, VertexContactParams, VertexContacts};
use crate::contact::deformable::{self, SelfContact, Surfaces};
use crate::contact::filter_table::FilterTable;
use crate::contact::rigid::{self as rigid_contact, RigidContacts};
use crate::error::SceneError;
use crate::model::mass;
use crate::model::plasticity;
use crate::parallel::colouring::{self, Colouring, Shared};
use crate::parallel::team;
use crate::rigid::RigidWorld;
use crate::scene::{Body, BodyKind, Material, Plasticity, Scene, BODY_MATERIAL};
use glam::Vec3;
use rayon::prelude::*;
use std::ops::Range;

mod sleep;
mod springs;
mod tear;

/// Time-stepping settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Substeps per frame.
    pub substeps: u32,
    /// Constraint iterations per substep.
    pub iterations: u32,
    /// Frame length in seconds (`1 / timeCodesPerSecond`).
    pub frame_dt: f32,
    /// Distance (stage units) every vertex keeps from collider surfaces, on top of half a
    /// surface body's thickness.
    pub contact_offset: f32,
    /// Deformable bodies collide with each other (`deformable_contact.rs`). On by
    /// default: the schema lets every physics object collide unless filtered.
    pub deformable_contact: bool,
    /// Surface bodies (cloth) collide with themselves. Off by default for now: the
    /// per-substep search costs the swinging 64² bench cloth about 57 ms a frame on two
    /// cores (50 → 106 ms, measured; docs/performance.md), more than its whole elastic
    /// solve; the CLI's `--self-contact` turns it on.
    pub self_contact: bool,
    /// Volume bodies' surfaces collide with themselves. Off by default: a solid rarely
    /// folds onto itself, and the search would cost every volume body every substep.
    pub volume_self_contact: bool,
    /// Time integration of spring-model bodies (finite elements always use XPBD).
    pub integrator: crate::Integrator,
    /// The largest `ω·dt` allowed for the stiffest tetrahedron (see [`STABLE_OMEGA_DT`]);
    /// substeps are raised to meet it. `INFINITY` turns the check off.
    pub stability_limit: f32,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            substeps: 10,
            iterations: 10,
            frame_dt: 1.0 / 24.0,
            contact_offset: 0.0,
            deformable_contact: true,
            self_contact: false,
            volume_self_contact: false,
            integrator: crate::Integrator::Xpbd,
            stability_limit: STABLE_OMEGA_DT,
        }
    }
}

/// Sizes of the simulated problem, for summaries and throughput figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolverStats {
    /// Number of bodies.
    pub bodies: usize,
    /// Total vertices.
    pub vertices: usize,
    /// Tetrahedra.
    pub tets: usize,
    /// Membrane triangles.
    pub triangles: usize,
    /// Bending hinges.
    pub hinges: usize,
    /// Constraint projections per frame (each tet and triangle counts two, each hinge and
    /// soft pin one), excluding contacts.
    pub projections_per_frame: u64,
}

/// A scene being simulated.
pub struct Solver {
    settings: Settings,
    x: Vec<Vec3>,
    x_prev: Vec<Vec3>,
    v: Vec<Vec3>,
    w: Vec<f32>,
    mass: Vec<f32>,
    /// Per-vertex friction and contact distances.
    contact_params: Vec<VertexContactParams>,
    bodies: Vec<Range<usize>>,
    tets: Coloured<Tet, [f32; 2]>,
    /// Per tet, in the colour-sorted order of `tets.items`: its plasticity and original
    /// rest edge matrix (for the cap). Empty when no material is plastic.
    tet_plastic: Vec<Option<PlasticTet>>,
    /// Per body: index of its first tet in scene order (tets are numbered body by body).
    body_tet_start: Vec<usize>,
    membranes: Coloured<Membrane, [f32; 2]>,
    /// Hinges stiff enough to need every iteration.
    hinges: Coloured<Hinge, f32>,
    /// Hinges so compliant that one projection per substep converges them (see
    /// [`SOFT_HINGE_RATIO`]).
    soft_hinges: Coloured<Hinge, f32>,
    soft_pins: Vec<SoftPin>,
    pin_lambda: Vec<f32>,
    /// Attachments in solver form (`attachment.rs`) and their multipliers.
    links: Vec<Link>,
    link_lambda: Vec<f32>,
    /// Vertices hard-attached to a frame: immovable, placed on the frame every substep.
    driven: Vec<Driven>,
    /// The attachment frames' motion over the current frame.
    attachment_frames: Vec<FrameMotion>,
    /// Rigid bodies (rapier3d), coupled through attachments (`rigid.rs`).
    rigid: RigidWorld,
    colliders: Vec<StaticCollider>,
    contacts: Vec<VertexContacts>,
    /// Colliding surfaces of the deformable bodies and the spatial hash over them.
    surfaces: Surfaces,
    /// Compiled collision filters.
    filter: FilterTable,
    /// This substep's deformable–deformable and self contacts.
    deformable_contacts: Vec<deformable::Contact>,
    /// Deformable–rigid-body contacts (`rigid_contact.rs`).
    rigid_contacts: RigidContacts,
    frames: u64,
    /// Per body: gravity (its physics scene's, else the scene's).
    body_gravity: Vec<Vec3>,
    /// Per body: its vertices' inverse masses while it sleeps (`None` when awake).
    sleeping: Vec<Option<Vec<f32>>>,
    /// Kinematic bodies: index and the frame's target positions, if set.
    kinematic: Vec<Kinematic>,
    /// The input scene, its bodies' topology kept current as they tear (local indices).
    input: Scene,
    /// Links of spring-model bodies integrated with XPBD.
    springs: Coloured<springs::SpringLink, f32>,
    /// Spring-model bodies integrated with a force-based integrator.
    force_bodies: Vec<springs::ForceBody>,
    /// Per body: whether it is one of `force_bodies` (skips the generic prediction).
    force_integrated: Vec<bool>,
    /// Per body (surface bodies): where its hinges live.
    hinge_refs: Vec<Vec<HingeRef>>,
    /// Hinges of plastic materials.
    plastic_hinges: Vec<PlasticHinge>,
    /// Per body: its tearing data, `None` when it cannot tear.
    tearing: Vec<Option<tear::Tearing>>,
    /// Per body: how many times its topology has changed (tearing).
    topology_version: Vec<u32>,
    /// Things the user should know about the run (e.g. a step beyond a stable limit).
    warnings: Vec<String>,
    /// The highest rest frequency of any tetrahedron (rad/s; 0 without tets) and its body.
    tet_frequency: (f32, usize),
}

/// A body's rest shape in the schema's form: points and, per element, indices into them
/// (four per tet; the first three per triangle).
#[derive(Clone, Debug, PartialEq)]
pub struct RestShape {
    /// Rest points, world space.
    pub points: Vec<Vec3>,
    /// Per element, indices into `points`.
    pub elements: Vec<[u32; 4]>,
}

/// Where one of a body's hinges lives among the solver's two hinge sets.
#[derive(Clone, Copy, Debug)]
struct HingeRef {
    /// In the soft (once per substep) set rather than the stiff one.
    soft: bool,
    /// Input index within that set.
    index: u32,
    /// The hinge's two triangles (body-local).
    triangles: [u32; 2],
}

/// A hinge whose rest angle flows plastically (see [`plasticity::flow_hinge`]).
#[derive(Clone, Copy, Debug)]
struct PlasticHinge {
    /// Where it lives.
    at: HingeRef,
    /// Its material's plasticity.
    params: Plasticity,
    /// Rest angle before any flow.
    original: f32,
    /// Bend beyond which it yields and the cap on its total flow, radians.
    limits: plasticity::BendLimits,
}

/// Plastic data of one tetrahedron.
#[derive(Clone, Copy, Debug)]
struct PlasticTet {
    params: Plasticity,
    /// Rest edge matrix before any plastic flow.
    original_dm: glam::Mat3,
}

/// A kinematic body's motion over the current frame.
struct Kinematic {
    body: usize,
    /// Positions at the start of the frame.
    start: Vec<Vec3>,
    /// Positions to reach at the end of the frame; `None` holds the body still.
    target: Option<Vec<Vec3>>,
}

fn check_finite(body: &Body, what: &'static str, values: &[Vec3]) -> Result<(), SceneError> {
    if values.iter().all(|p| p.is_finite()) {
        Ok(())
    } else {
        Err(SceneError::NonFinite { body: body.name.clone(), what })
    }
}

fn check_indices<const N: usize>(
    body: &Body,
    what: &'static str,
    elements: &[[u32; N]],
    used: usize,
    len: usize,
) -> Result<(), SceneError> {
    for e in elements {
        for &i in &e[..used] {
            if i as usize >= len {
                return Err(SceneError::IndexOutOfRange { body: body.name.clone(), what, index: i as u64, len });
            }
        }
    }
    Ok(())
}

/// Checks everything the solver indexes or divides by, so building never panics.
fn validate(body: &Body) -> Result<(), SceneError> {
    let n = body.positions.len();
    if body.velocities.len() != n {
        return Err(SceneError::LengthMismatch {
            body: body.name.clone(),
            what: "velocities",
            expected: n,
            found: body.velocities.len(),
        });
    }
    check_finite(body, "positions", &body.positions)?;
    check_finite(body, "velocities", &body.velocities)?;
    check_finite(body, "rest points", &body.rest_points)?;
    let elements = match body.kind {
        BodyKind::Volume => {
            check_indices(body, "tet vertex", &body.tets, 4, n)?;
            body.tets.len()
        }
        BodyKind::Surface => {
            check_indices(body, "triangle vertex", &body.triangles, 3, n)?;
            body.triangles.len()
        }
    };
    if body.rest_elements.len() != elements {
        return Err(SceneError::LengthMismatch {
            body: body.name.clone(),
            what: "rest elements",
            expected: elements,
            found: body.rest_elements.len(),
        });
    }
    let used = if body.kind == BodyKind::Volume { 4 } else { 3 };
    check_indices(body, "rest point", &body.rest_elements, used, body.rest_points.len())?;
    if !body.element_materials.is_empty() {
        if body.element_materials.len() != elements {
            return Err(SceneError::LengthMismatch {
                body: body.name.clone(),
                what: "element materials",
                expected: elements,
                found: body.element_materials.len(),
            });
        }
        if let Some(&bad) =
            body.element_materials.iter().find(|&&m| m != BODY_MATERIAL && m as usize >= body.materials.len())
        {
            return Err(SceneError::IndexOutOfRange {
                body: body.name.clone(),
                what: "element material",
                index: bad as u64,
                len: body.materials.len(),
            });
        }
    }
    if !body.point_masses.is_empty() {
        if body.point_masses.len() != n {
            return Err(SceneError::LengthMismatch {
                body: body.name.clone(),
                what: "point masses",
                expected: n,
                found: body.point_masses.len(),
            });
        }
        if let Some(&bad) = body.point_masses.iter().find(|&&m| !(m > 0.0 && m.is_finite())) {
            return Err(SceneError::InvalidValue {
                body: body.name.clone(),
                what: "point mass",
                value: bad,
                expected: "a finite value > 0",
            });
        }
    }
    if let Some(g) = body.gravity {
        if !g.is_finite() {
            return Err(SceneError::NonFinite { body: body.name.clone(), what: "gravity" });
        }
    }
    check_material(body, &body.material)?;
    for m in &body.materials {
        check_material(body, m)?;
    }
    for p in std::iter::once(&body.plastic).chain(&body.material_plastic).flatten() {
        check_plasticity(body, p)?;
    }
    Ok(())
}

/// Checks one set of plasticity parameters.
fn check_plasticity(body: &Body, p: &Plasticity) -> Result<(), SceneError> {
    let invalid = |what: &'static str, value: f32, expected: &'static str| {
        Err(SceneError::InvalidValue { body: body.name.clone(), what, value, expected })
    };
    if !(p.yield_ratio > 1.0 && p.yield_ratio.is_finite()) {
        return invalid("plasticYieldRatio", p.yield_ratio, "a finite value > 1");
    }
    if !(0.0..=1.0).contains(&p.rate) {
        return invalid("plasticRate", p.rate, "a value in [0, 1]");
    }
    if let Some(cap) = p.max_strain {
        if !(cap > 0.0 && cap.is_finite()) {
            return invalid("plasticMaxStrain", cap, "a finite value > 0");
        }
    }
    Ok(())
}

/// Checks one material's values.
fn check_material(body: &Body, m: &Material) -> Result<(), SceneError> {
    let invalid = |what: &'static str, value: f32, expected: &'static str| {
        Err(SceneError::InvalidValue { body: body.name.clone(), what, value, expected })
    };
    if !(m.youngs_modulus > 0.0 && m.youngs_modulus.is_finite()) {
        return invalid("youngsModulus", m.youngs_modulus, "a finite value > 0");
    }
    if !(0.0..0.5).contains(&m.poissons_ratio) {
        return invalid("poissonsRatio", m.poissons_ratio, "a value in [0, 0.5)");
    }
    if !(m.density > 0.0 && m.density.is_finite()) {
        return invalid("density", m.density, "a finite value > 0");
    }
    if body.kind == BodyKind::Surface && !(m.thickness > 0.0 && m.thickness.is_finite()) {
        return invalid("surfaceThickness", m.thickness, "a finite value > 0");
    }
    if !(m.damping >= 0.0 && m.damping.is_finite()) {
        return invalid("damping", m.damping, "a finite value >= 0");
    }
    if !(m.bend_damping >= 0.0 && m.bend_damping.is_finite()) {
        return invalid("bendDamping", m.bend_damping, "a finite value >= 0");
    }
    Ok(())
}

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
            x.extend_from_slice(&body.positions);
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
                x.extend(std::iter::repeat_n(Vec3::ZERO, spare));
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
            let Some(range) = ranges.get(pin.body) else {
                return Err(SceneError::IndexOutOfRange {
                    body: format!("pin {k}"),
                    what: "body",
                    index: pin.body as u64,
                    len: ranges.len(),
                });
            };
            let name = &scene.bodies[pin.body].name;
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
                x[i] = pin.target;
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
        let rigid = RigidWorld::new(&scene.rigid_bodies, &scene.colliders, scene.gravity)
            .map_err(|e| SceneError::NonFinite { body: e.name, what: e.what })?;
        let mut sleeping = vec![None; scene.bodies.len()];
        let mut kinematic = Vec::new();
        for (b, body) in scene.bodies.iter().enumerate() {
            let range = ranges[b].clone();
            if body.kinematic {
                // Infinite mass: follows its targets exactly, never pushed.
                w[range.clone()].fill(0.0);
                kinematic.push(Kinematic { body: b, start: x[range].to_vec(), target: None });
            } else if body.starts_asleep {
                sleeping[b] = Some(w[range.clone()].to_vec());
                w[range.clone()].fill(0.0);
                v[range].fill(Vec3::ZERO);
            }
        }
        let body_gravity: Vec<Vec3> = scene.bodies.iter().map(|b| b.gravity.unwrap_or(scene.gravity)).collect();
        let colliders =
            collider::build(&scene.colliders).map_err(|e| SceneError::NonFinite { body: e.0, what: "collider" })?;
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
        if needed > settings.substeps as f32 {
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
        let tets = Coloured::new(tets, |t| t.v, vertex_count);
        let spring_set = springs::build(&scene.bodies, &ranges, settings.integrator);
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
            springs: Coloured::new(spring_set.constraints, |l| l.v, vertex_count),
            force_bodies: spring_set.force_bodies,
            force_integrated,
            settings,
            x_prev: x.clone(),
            x,
            v,
            w,
            mass: m,
            contact_params,
            bodies: ranges,
            tets,
            tet_plastic,
            body_tet_start,
            membranes: Coloured::new(membranes, |t| t.v, vertex_count),
            hinges: Coloured::new(stiff_hinges, |h| h.v, vertex_count),
            soft_hinges: Coloured::new(soft_hinges, |h| h.v, vertex_count),
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
        solver.check_spring_stability();
        Ok(solver)
    }

    /// Advances the simulation by one frame (`settings.substeps` substeps).
    pub fn step_frame(&mut self) {
        let dt = self.settings.frame_dt / self.settings.substeps as f32;
        let substeps = self.settings.substeps;
        for s in 0..substeps {
            self.substep(Step::new(dt), (s + 1) as f32 / substeps as f32);
        }
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
        self.frames += 1;
    }

    /// Sets where kinematic body `body` must be at the end of the next frame (world
    /// space, one position per vertex). Its vertices move linearly from their current
    /// positions across the frame's substeps, velocities follow from the motion, and
    /// nothing pushes them. Without a new target a kinematic body holds still.
    pub fn set_kinematic_targets(&mut self, body: usize, targets: &[Vec3]) -> Result<(), SceneError> {
        let name = || format!("body {body}");
        let Some(k) = self.kinematic.iter_mut().find(|k| k.body == body) else {
            return Err(SceneError::InvalidValue {
                body: name(),
                what: "kinematic targets",
                value: body as f32,
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
    pub fn set_frame_target(&mut self, frame: usize, world_from_local: glam::Mat4) -> Result<(), SceneError> {
        let Some(f) = self.attachment_frames.get_mut(frame) else {
            return Err(SceneError::IndexOutOfRange {
                body: "frame target".into(),
                what: "frame",
                index: frame as u64,
                len: self.attachment_frames.len(),
            });
        };
        if !world_from_local.is_finite() {
            return Err(SceneError::NonFinite { body: format!("frame {frame}"), what: "frame target" });
        }
        f.target = Some(world_from_local);
        Ok(())
    }

    /// Sets where kinematic rigid body `rigid` must be at the end of the next frame
    /// (world translation and orientation of its frame).
    pub fn set_rigid_target(
        &mut self,
        rigid: usize,
        translation: Vec3,
        rotation: glam::Quat,
    ) -> Result<(), SceneError> {
        if !(translation.is_finite() && rotation.is_finite()) {
            return Err(SceneError::NonFinite { body: format!("rigid body {rigid}"), what: "kinematic target" });
        }
        if self.rigid.set_target(rigid, translation, rotation) {
            Ok(())
        } else {
            Err(SceneError::InvalidValue {
                body: format!("rigid body {rigid}"),
                what: "kinematic target",
                value: rigid as f32,
                expected: "a kinematic rigid body",
            })
        }
    }

    /// Number of rigid bodies.
    pub fn rigid_count(&self) -> usize {
        self.rigid.len()
    }

    /// World translation and orientation of rigid body `rigid`'s frame.
    pub fn rigid_pose(&self, rigid: usize) -> (Vec3, glam::Quat) {
        self.rigid.pose(rigid)
    }

    /// Linear and angular velocity of rigid body `rigid` (world space).
    pub fn rigid_velocity(&self, rigid: usize) -> (Vec3, Vec3) {
        self.rigid.velocity(rigid)
    }

    /// Mass of rigid body `rigid`.
    pub fn rigid_mass(&self, rigid: usize) -> f32 {
        self.rigid.mass(rigid)
    }

    /// Whether body `body` is kinematic.
    pub fn is_kinematic(&self, body: usize) -> bool {
        self.kinematic.iter().any(|k| k.body == body)
    }

    /// Deformable (vertex–triangle and edge–edge) contacts found in the last substep.
    pub fn deformable_contact_count(&self) -> usize {
        self.deformable_contacts.len()
    }

    /// Whether body `body` is asleep (`startsAsleep` and not woken yet).
    pub fn is_asleep(&self, body: usize) -> bool {
        self.sleeping.get(body).is_some_and(Option::is_some)
    }

    /// Wakes body `body`: from now on it is simulated. Asleep bodies are frozen where
    /// they started (zero velocity, immovable, positions bitwise unchanged). The solver
    /// wakes them itself, every substep, when something moving touches them (deformable
    /// contact with a moving dynamic, kinematic or driven body) or something they are
    /// attached to moves (an animated frame, a kinematic body with targets, an awake
    /// dynamic or rigid body); see `solver/sleep.rs`. Static colliders and pin targets
    /// never wake anything. Callers may also wake bodies explicitly.
    pub fn wake(&mut self, body: usize) {
        if let Some(Some(w)) = self.sleeping.get_mut(body).map(Option::take) {
            self.w[self.bodies[body].clone()].copy_from_slice(&w);
            self.surfaces.set_awake(body);
        }
    }

    /// One substep; `progress` is how far through the frame its end lies (0, 1].
    fn substep(&mut self, step: Step, progress: f32) {
        let dt = step.dt;
        for (b, (range, &g)) in self.bodies.iter().zip(&self.body_gravity).enumerate() {
            if self.force_integrated[b] {
                continue;
            }
            let r = range.clone();
            (&mut self.x[r.clone()], &mut self.x_prev[r.clone()], &mut self.v[r.clone()], &self.w[r])
                .into_par_iter()
                .with_min_len(2048)
                .for_each(|(x, xp, v, &w)| {
                    *xp = *x;
                    if w > 0.0 {
                        *v += g * dt;
                        *x += *v * dt;
                    }
                });
        }
        self.predict_force_bodies(dt);
        for k in &self.kinematic {
            if let Some(target) = &k.target {
                let range = self.bodies[k.body].clone();
                for ((x, a), b) in self.x[range].iter_mut().zip(&k.start).zip(target) {
                    *x = a.lerp(*b, progress);
                }
            }
        }
        attachment::follow_frames(&mut self.links, &self.driven, &self.attachment_frames, &mut self.x, progress);
        self.rigid.begin_substep(dt, progress);
        let (filter, vertex_body) = (&self.filter, &self.surfaces.vertex_body);
        let (bodies, colliders) = (&self.bodies, &self.colliders);
        let keep = |v: u32, c: usize| {
            let b = vertex_body[v as usize] as usize;
            filter.vertex_collider(b, v - bodies[b].start as u32, c)
        };
        collider::detect(colliders, &self.x, &self.x_prev, &self.w, &self.contact_params, &keep, &mut self.contacts);
        self.surfaces.detect(&self.x, &self.x_prev, &self.w, &self.filter, &mut self.deformable_contacts);
        self.wake_touched();
        if self.rigid_contacts.is_active() {
            if self.sleeping.iter().any(Option::is_some) {
                let (states, sleeping, bodies) = (&self.rigid.states, &self.sleeping, &self.bodies);
                let woken = self.rigid_contacts.touched_sleepers(
                    states,
                    sleeping,
                    bodies,
                    &self.x,
                    &self.contact_params,
                    &self.filter,
                );
                for b in woken {
                    self.wake(b);
                }
            }
            let (states, bodies, params) = (&self.rigid.states, &self.bodies, &self.contact_params);
            self.rigid_contacts.detect(states, bodies, &self.x, &self.x_prev, &self.w, params, &self.filter);
        }
        self.tets.lambda.fill([0.0; 2]);
        self.membranes.lambda.fill([0.0; 2]);
        self.hinges.lambda.fill(0.0);
        self.soft_hinges.lambda.fill(0.0);
        self.springs.lambda.fill(0.0);
        self.pin_lambda.fill(0.0);
        self.link_lambda.fill(0.0);
        self.iterate(step);
        let states = &mut self.rigid.states;
        self.rigid_contacts.finish(&mut self.x, &self.x_prev, &self.w, states, dt);
        self.rigid.end_substep(dt);
        self.rigid_contacts.kick(&mut self.rigid);
        collider::apply_friction(&self.contacts, Shared::new(&mut self.x), &self.x_prev);
        self.surfaces.apply_friction(&self.deformable_contacts, &mut self.x, &self.x_prev, &self.w);
        // v ← v_pred + (x − x_pred)/dt rather than (x − x_prev)/dt: the same value in exact
        // arithmetic, but in f32 the latter loses gravity's g·dt² to the rounding of
        // positions far from the origin once substeps are small (at 200 substeps a free
        // fall ran 8% fast). x_pred is recomputed bit-identically from x_prev and v_pred.
        let inv_dt = 1.0 / dt;
        (&self.x, &self.x_prev, &mut self.v, &self.w).into_par_iter().with_min_len(2048).for_each(|(x, xp, v, &w)| {
            if w > 0.0 {
                let predicted = *xp + *v * dt;
                *v += (*x - predicted) * inv_dt;
            } else {
                *v = (*x - *xp) * inv_dt;
            }
        });
        self.correct_force_velocities(dt);
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
            let set = if p.at.soft { &mut self.soft_hinges } else { &mut self.hinges };
            let hinge = &mut set.items[set.slot[p.at.index as usize] as usize];
            if let Some((angle, _)) = bending::angle_and_gradient(hinge.v.map(|i| self.x[i as usize])) {
                hinge.rest_angle = plasticity::flow_hinge(hinge.rest_angle, angle, p.original, &p.params, &p.limits);
            }
        }
        if self.tet_plastic.is_empty() {
            return;
        }
        let x = &self.x;
        self.tets.items.par_iter_mut().zip(&self.tet_plastic).with_min_len(256).for_each(|(tet, plastic)| {
            if let Some(p) = plastic {
                let pos = tet.v.map(|i| x[i as usize]);
                plasticity::flow_tet(tet, pos, p.original_dm, &p.params);
            }
        });
    }

    /// Changes the gravity acting on body `body` from the next substep on (e.g. to
    /// remove a load).
    pub fn set_gravity(&mut self, body: usize, gravity: Vec3) {
        self.body_gravity[body] = gravity;
    }

    /// The current rest edge matrix `[r1−r0, r2−r0, r3−r0]` of tet `tet` of body `body`
    /// (scene order): the authored rest shape, or where plastic flow has moved it.
    pub fn rest_edges(&self, body: usize, tet: usize) -> glam::Mat3 {
        let global = self.body_tet_start[body] + tet;
        let slot = self.tets.slot[global];
        self.tets.items[slot as usize].dm_inv.inverse()
    }

    /// The constraint iterations of one substep: every colour of every constraint kind,
    /// then pins, then contact planes, `iterations` times, on the whole thread team.
    fn iterate(&mut self, step: Step) {
        let x = Shared::new(&mut self.x);
        let (x_prev, w) = (&self.x_prev[..], &self.w[..]);
        let tets = self.tets.view();
        let membranes = self.membranes.view();
        let hinges = self.hinges.view();
        let soft_hinges = self.soft_hinges.view();
        let springs = self.springs.view();
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
        let parallel =
            tets.0.len() + membranes.0.len() + hinges.0.len() + soft_hinges.0.len() + springs.0.len() >= 2048;
        team::run(parallel, |m| {
            for iteration in 0..iterations {
                // SAFETY (every projection below): within one colour elements share no
                // vertex, each element index owns its multiplier slot, members take
                // disjoint shares, and the team syncs between colours. Pins run on the
                // leader alone; each vertex has at most one contact entry.
                let (items, colours, lambda) = tets;
                colours.for_each(m, |i| unsafe { items[i].project(x, x_prev, w, lambda.get(i), step) });
                let (items, colours, lambda) = membranes;
                colours.for_each(m, |i| unsafe { items[i].project(x, x_prev, w, lambda.get(i), step) });
                let (items, colours, lambda) = hinges;
                colours.for_each(m, |i| unsafe { items[i].project(x, x_prev, w, lambda.get(i), step) });
                let (items, colours, lambda) = springs;
                colours.for_each(m, |i| unsafe { items[i].project(x, x_prev, w, lambda.get(i), step) });
                if iteration == 0 {
                    let (items, colours, lambda) = soft_hinges;
                    colours.for_each(m, |i| unsafe { items[i].project(x, x_prev, w, lambda.get(i), step) });
                }
                if m.is_leader() {
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
                m.sync();
                for k in m.share(0..contact_count) {
                    unsafe { collider::project(contacts.get(k), x) };
                }
                m.sync();
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

    /// Body `body`'s current triangles (local vertex indices; empty for volume bodies).
    /// Tearing re-indexes them onto split vertices; the triangle count and order never
    /// change.
    pub fn triangles(&self, body: usize) -> &[[u32; 3]] {
        &self.input.bodies[body].triangles
    }

    /// Body `body`'s current tetrahedra (local vertex indices; empty for surface bodies).
    pub fn tets(&self, body: usize) -> &[[u32; 4]] {
        &self.input.bodies[body].tets
    }

    /// How many times body `body`'s topology has changed (each tear event counts one):
    /// whoever writes results rewrites the mesh's indices when this moves.
    pub fn topology_version(&self, body: usize) -> u32 {
        self.topology_version[body]
    }

    /// Body `body`'s current rest shape: the authored one, or where plastic flow has
    /// moved it.
    pub fn rest_shape(&self, body: usize) -> RestShape {
        let b = &self.input.bodies[body];
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
    pub fn rest_bend_angles(&self, body: usize) -> Vec<([u32; 2], f32)> {
        self.hinge_refs[body]
            .iter()
            .map(|h| {
                let set = if h.soft { &self.soft_hinges } else { &self.hinges };
                (h.triangles, set.items[set.slot[h.index as usize] as usize].rest_angle)
            })
            .collect()
    }

    /// Whether body `body`'s rest shape or rest angles can change during the run
    /// (plastic), so that they are part of the state to write back.
    pub fn rest_is_state(&self, body: usize) -> bool {
        let b = &self.input.bodies[body];
        b.plastic.is_some() || b.material_plastic.iter().any(Option::is_some)
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

    /// World-space positions of body `body`'s vertices.
    pub fn positions(&self, body: usize) -> &[Vec3] {
        &self.x[self.bodies[body].clone()]
    }

    /// World-space velocities of body `body`'s vertices.
    pub fn velocities(&self, body: usize) -> &[Vec3] {
        &self.v[self.bodies[body].clone()]
    }

    /// Per-vertex masses of body `body`.
    pub fn masses(&self, body: usize) -> &[f32] {
        &self.mass[self.bodies[body].clone()]
    }

    /// Total mass of body `body`.
    pub fn body_mass(&self, body: usize) -> f32 {
        self.masses(body).iter().sum()
    }

    /// Mass-weighted centre of body `body`.
    pub fn centre_of_mass(&self, body: usize) -> Vec3 {
        mass::centre_of_mass(self.positions(body), self.masses(body))
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
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
        let per_iteration = 2 * (self.tets.items.len() + self.membranes.items.len()) as u64
            + (self.hinges.items.len() + self.soft_pins.len() + self.springs.items.len()) as u64;
        let per_substep = per_iteration * self.settings.iterations as u64 + self.soft_hinges.items.len() as u64;
        SolverStats {
            bodies: self.bodies.len(),
            vertices: self.bodies.iter().map(Range::len).sum(),
            tets: self.tets.items.len(),
            triangles: self.membranes.items.len(),
            hinges: self.hinges.items.len() + self.soft_hinges.items.len(),
            projections_per_frame: per_substep * self.settings.substeps as u64,
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

/// Hinges whose stiffness ratio `r = Σ wᵢ‖∇θᵢ‖² / α̃` is below this are projected once
/// per substep instead of every iteration. One XPBD projection solves an isolated
/// (linearised) constraint exactly, whatever `r`; iterating only re-couples it with its
/// neighbours, and a hinge this compliant moves its vertices by at most `r/(1+r)` of its
/// angle error, so the coupling it misses is small next to the membrane's. Typical cloth
/// (h ≈ 1 mm, r ≈ 0.02–0.1) then pays a tenth as much for bending; stiff shells keep
/// full iterations.
pub const SOFT_HINGE_RATIO: f32 = 0.25;

/// Whether hinge `h` counts as compliant at substep `dt`, judged at positions `x`.
fn is_soft(h: &Hinge, x: &[Vec3], w: &[f32], dt: f32) -> bool {
    let Some((_, grad)) = bending::angle_and_gradient(h.v.map(|i| x[i as usize])) else { return false };
    let stiffness: f32 = h.v.iter().zip(&grad).map(|(&i, g)| w[i as usize] * g.length_squared()).sum();
    stiffness * dt * dt < SOFT_HINGE_RATIO * h.compliance
}

/// The largest `ω·dt` at which the stable Neo-Hookean split stays stable, `ω` being a
/// tet's rest frequency ([`Solver::max_tet_frequency`]). The deviatoric
/// constraint carries a pre-stress at rest (balanced by the hydrostatic one) whose
/// geometric stiffness XPBD's linearisation leaves out, so that part is integrated
/// explicitly and, like an explicit scheme, needs small steps; more iterations do not
/// help. Measured (bodies at rest, 2 s, 10 iterations): boxes of 1–8³ cells at E = 1e6
/// and 1e7 Pa are stable from ω·dt = 0.56–0.71 and unstable at 1.4× that; a lone right-
/// angled tet only from 0.41. 0.5 covers every mesh measured that is made of cells.
pub const STABLE_OMEGA_DT: f32 = 0.5;

/// The most substeps the stability check raises a run to.
pub const MAX_SUBSTEPS: u32 = 2000;

/// Constraints of one kind, stored sorted by colour, with their multipliers.
struct Coloured<T, L> {
    items: Vec<T>,
    /// Index of each sorted item in the input order.
    order: Vec<usize>,
    /// Position in `items` of each input item (the inverse of `order`).
    slot: Vec<u32>,
    colours: Colouring,
    lambda: Vec<L>,
}

impl<T: Copy, L: Copy + Default> Coloured<T, L> {
    /// Colours `items` (whose vertices `verts` returns) and sorts them by colour.
    fn new<const N: usize>(items: Vec<T>, verts: impl Fn(&T) -> [u32; N], vertex_count: usize) -> Self {
        let keys: Vec<[u32; N]> = items.iter().map(&verts).collect();
        let (order, colours) = colouring::colour(&keys, vertex_count);
        let items: Vec<T> = order.iter().map(|&i| items[i]).collect();
        let mut slot = vec![0u32; items.len()];
        for (k, &i) in order.iter().enumerate() {
            slot[i] = k as u32;
        }
        Self { lambda: vec![L::default(); items.len()], items, order, slot, colours }
    }

    /// Borrows the parts a projection pass needs, the multipliers as a shared view.
    fn view(&mut self) -> (&[T], &Colouring, Shared<L>) {
        (&self.items, &self.colours, Shared::new(&mut self.lambda))
    }
}
