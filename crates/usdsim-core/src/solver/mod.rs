//! The time-stepping loop: XPBD with substeps (Macklin et al. 2019, "Small Steps in
//! Physics Simulation").
//!
//! All bodies share one set of global vertex arrays; each body owns a contiguous range.
//! Per substep: integrate gravity and predict positions, find contacts, run
//! `iterations` passes over the coloured constraints (tets, membranes, hinges), pins and
//! contact planes, apply friction, and derive velocities from the displacement.
//! Nothing allocates in the loop except the contact list's occasional growth.

use crate::constraint::attachment::{self, AttachmentLink, Driven, FrameMotion};
use crate::constraint::bending::{self, Hinge};
use crate::constraint::coloured::Coloured;
use crate::constraint::elements::Elements;
use crate::constraint::membrane::Membrane;
use crate::constraint::neo_hookean::Tet;
use crate::constraint::pin::SoftPin;
use crate::constraint::xpbd::Step;
use crate::constraint::{relative, Constraint};
use crate::contact::collider::{self, StaticCollider, VertexContactParams, VertexContacts};
use crate::contact::deformable::{self, SelfContact, Surfaces};
use crate::contact::filter_table::FilterTable;
use crate::contact::rigid::{self as rigid_contact, RigidContacts};
use crate::error::SceneError;
use crate::model::mass;
use crate::model::plasticity;
use crate::model::time_scheme::{TimeScheme, BDF2_STEP_RATIO, EULER_IN_BDF2_INVERSE_MASS};
use crate::parallel::colouring::Shared;
use crate::parallel::team;
use crate::rigid::RigidWorld;
use crate::scene::{Body, BodyId, BodyKind, FrameId, Material, Plasticity, RigidId, Scene, BODY_MATERIAL};
use glam::{DVec3, Vec3};
use rayon::prelude::*;
use std::ops::Range;

mod build;
mod check;
mod history;
mod query;
mod resume;
mod sleep;
mod springs;
mod step;
mod tear;

pub use resume::{BodyState, PlasticTetState, ResumeState};

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
    /// Deformable bodies collide with each other (`contact/deformable.rs`). On by
    /// default: the schema lets every physics object collide unless filtered.
    pub deformable_contact: bool,
    /// Which bodies collide with themselves. `None` (the default): those whose asset
    /// asks for it ([`crate::Body::self_collision`]). `Some(true)`: every surface body
    /// (cloth), and the volume bodies that ask or [`Settings::volume_self_contact`] turns
    /// on (the CLI's `--self-contact`). `Some(false)`: none (`--no-self-contact`). Not on
    /// for every cloth by default, for cost: on the swinging 64² bench cloth the search
    /// still adds one to one and a half times the rest of the frame over the scene's 240
    /// frames (docs/performance.md, nineteenth and twentieth steps).
    pub self_contact: Option<bool>,
    /// Every volume body's surface collides with itself (unless `self_contact` is
    /// `Some(false)`). Off by default: a solid rarely folds onto itself, and the search
    /// would cost every volume body every substep.
    pub volume_self_contact: bool,
    /// Time integration of spring-model bodies (finite elements always use XPBD).
    pub integrator: crate::Integrator,
    /// Time discretisation of the XPBD bodies: BDF2 by default (`model/time_scheme.rs`).
    pub time_scheme: crate::TimeScheme,
    /// The largest `ω·dt` allowed for the stiffest tetrahedron (see [`STABLE_OMEGA_DT`]);
    /// substeps are raised to meet it. `INFINITY` turns the check off.
    pub stability_limit: f32,
    /// The fastest an overlap that already exists at the start of a substep (authored
    /// interpenetration, or a penetration deeper than one substep resolves) is pushed
    /// apart, stage units per second. Such an overlap is resolved by moving positions
    /// only, never by adding velocity (PhysX's `maxDepenetrationVelocity`; the
    /// pre-stabilisation of Macklin et al. 2014, "Unified Particle Physics for Real-Time
    /// Applications", which moves both old and predicted positions): without it a 2 mm
    /// authored overlap became a 0.3 m/s pop. The default, 0.5, is 0.5 m/s for a stage in metres; the CLI converts from m/s.
    pub max_depenetration_velocity: f32,
    /// Force-integrated spring bodies: the substep may be at most this fraction of the
    /// stable step of the stiffest spring ([`SPRING_STEP_FRACTION`] by default), and
    /// substeps are raised to meet it, with a warning. `None` keeps `substeps` as given
    /// (the CLI's explicit `--substeps`) and only warns when they are too few.
    pub spring_step_fraction: Option<f32>,
    /// Keep `substeps` even where the stiffest tetrahedron's stability bound asks for
    /// more (the CLI's explicit `--substeps`), warning instead of raising them: a user
    /// who chose the substeps gets what they asked for and is told the risk.
    pub keep_tet_substeps: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            substeps: 10,
            iterations: 10,
            frame_dt: 1.0 / 24.0,
            contact_offset: 0.0,
            deformable_contact: true,
            self_contact: None,
            volume_self_contact: false,
            integrator: crate::Integrator::Xpbd,
            time_scheme: crate::TimeScheme::Bdf2,
            stability_limit: STABLE_OMEGA_DT,
            max_depenetration_velocity: DEFAULT_MAX_DEPENETRATION_VELOCITY,
            spring_step_fraction: Some(SPRING_STEP_FRACTION),
            keep_tet_substeps: false,
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

/// What BDF2 keeps between substeps and works with inside one (`history.rs`).
#[derive(Default)]
struct History {
    /// Whether a substep has run: BDF2 needs one step before it, whose start
    /// (`x_{n−1}`) `Solver::x_prev` holds between substeps.
    started: bool,
    /// Per vertex: its velocity at the start of the last substep, `v_{n−1}`.
    v: Vec<Vec3>,
    /// Per vertex: what this substep's velocity is measured from, `(x_{n+1} − base)/h`:
    /// `(4x_n − x_{n−1})/3` for BDF2, `x_n` for implicit Euler.
    base: Vec<DVec3>,
    /// Per body: its group, the bodies attachments join (they switch scheme together).
    group: Vec<usize>,
    /// Per group: substeps since a contact last touched it (`u32::MAX`: none yet). It
    /// takes implicit Euler while that is under a frame's substeps (`history.rs`).
    since_contact: Vec<u32>,
    /// Scratch for the groups this substep's contacts touch.
    touched_now: Vec<bool>,
    /// Per body: takes implicit Euler in this substep.
    euler: Vec<bool>,
    /// Inverse masses for a BDF2 substep's solve: implicit Euler bodies' scaled by
    /// [`EULER_IN_BDF2_INVERSE_MASS`].
    w: Vec<f32>,
}

/// A scene being simulated.
pub struct Solver {
    settings: Settings,
    /// Vertex positions, world space, in f64. Every substep turns the constraints'
    /// corrections into velocity (`(x − x_pred) / dt`), so an f32 position's rounding
    /// (6e-8 m at 1 m from the origin) would become velocity noise of `ulp / dt`: at
    /// 100 substeps that moved a swinging 1 m cloth by millimetres, and by more far from
    /// the origin. The constraints take element shapes as f32 differences of these.
    x: Vec<DVec3>,
    /// Positions at the start of the substep.
    x_prev: Vec<DVec3>,
    /// `x` and `x_prev` rounded to f32 for contact detection, which reads positions only
    /// to find pairs and their start-of-substep state (filled when anything collides).
    x32: Vec<Vec3>,
    /// See [`Solver::x32`].
    x_prev32: Vec<Vec3>,
    /// The time scheme's state (`history.rs`, `model/time_scheme.rs`).
    history: History,
    v: Vec<Vec3>,
    w: Vec<f32>,
    mass: Vec<f32>,
    /// Per-vertex friction and contact distances.
    contact_params: Vec<VertexContactParams>,
    bodies: Vec<Range<usize>>,
    /// Every element constraint, colour-sorted by kind.
    elements: Elements,
    /// Per tet, in the colour-sorted order of `tets.items`: its plasticity and original
    /// rest edge matrix (for the cap). Empty when no material is plastic.
    tet_plastic: Vec<Option<PlasticTet>>,
    /// Per body: index of its first tet in scene order (tets are numbered body by body).
    body_tet_start: Vec<usize>,
    soft_pins: Vec<SoftPin>,
    pin_lambda: Vec<f32>,
    /// Attachments in solver form (`constraint/attachment.rs`) and their multipliers.
    links: Vec<AttachmentLink>,
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
    /// Deformable–rigid-body contacts (`contact/rigid.rs`).
    rigid_contacts: RigidContacts,
    frames: u64,
    /// Per body: gravity (its physics scene's, else the scene's).
    body_gravity: Vec<Vec3>,
    /// Per body: its vertices' velocity damping (1/s, [`crate::Body::velocity_damping`]).
    velocity_damping: Vec<f32>,
    /// Per body: its vertices' inverse masses while it sleeps (`None` when awake).
    sleeping: Vec<Option<Vec<f32>>>,
    /// Kinematic bodies: index and the frame's target positions, if set.
    kinematic: Vec<Kinematic>,
    /// The input scene, its bodies' topology kept current as they tear (local indices).
    input: Scene,
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

/// Hinges whose stiffness ratio `r = Σ wᵢ‖∇θᵢ‖² / α̃` is below this are projected once
/// per substep instead of every iteration. One XPBD projection solves an isolated
/// (linearised) constraint exactly, whatever `r`; iterating only re-couples it with its
/// neighbours, and a hinge this compliant moves its vertices by at most `r/(1+r)` (a
/// third) of its angle error, so the coupling it misses is small next to the membrane's.
/// Thin cloth is well inside: at 20 substeps the bench cloths of 1 mm have
/// `r` ≈ 0.0007 (32²), 0.01–0.03 (64²) and 0.19 on the grid edges, 0.45 on the diagonals
/// (128²); stiff shells keep full iterations. Measured on cloth_128 (`compare.py`,
/// `benches/cloth_strain.py`), raising this from 0.25 to 0.5 took its diagonals out of the
/// iterations: 52 → 38 ms a frame, self-convergence error 183.5 → 183.6 mm, p99 strain at
/// frame 120 1.74 → 1.67× the converged one.
pub const SOFT_HINGE_RATIO: f32 = 0.5;

/// The largest `ω·dt` at which the stable Neo-Hookean split stays stable, `ω` being a
/// tet's rest frequency ([`Solver::max_tet_frequency`]). The deviatoric
/// constraint carries a pre-stress at rest (balanced by the hydrostatic one) whose
/// geometric stiffness XPBD's linearisation leaves out, so that part is integrated
/// explicitly and, like an explicit scheme, needs small steps; more iterations do not
/// help. Measured (bodies at rest, 2 s, 10 iterations): boxes of 1–8³ cells at E = 1e6
/// and 1e7 Pa are stable from ω·dt = 0.56–0.71 and unstable at 1.4× that; a lone right-
/// angled tet only from 0.41. 0.5 covers every mesh measured that is made of cells.
pub const STABLE_OMEGA_DT: f32 = 0.5;

/// The default [`Settings::max_depenetration_velocity`] in m/s: it moves a 5 mm overlap
/// out within a frame at 24 fps, yet is slow next to the speed of anything that fell a
/// few centimetres, so resolving an overlap is never seen as a pop.
pub const DEFAULT_MAX_DEPENETRATION_VELOCITY: f32 = 0.5;

/// The default [`Settings::spring_step_fraction`]: the stable step is a bound on the
/// linearised system at rest (Gershgorin), and a stretched link's geometric stiffness or
/// a fast swing can come close to it, so force integrators keep 20 % below it.
pub const SPRING_STEP_FRACTION: f32 = 0.8;

/// The most substeps the stability check raises a run to.
pub const MAX_SUBSTEPS: u32 = 2000;
