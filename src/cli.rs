//! Command-line arguments.
//!
//! `usdsim scene.usda --frames 240` runs a simulation; `usdsim run …` is the same
//! command spelled out. `usdsim validate FILE...` checks stages against the deformable
//! schema; `usdsim inspect FILE` shows what the importer understood.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// The exit codes, shown under `--help` (farm schedulers decide on retries from them).
const EXIT_CODES: &str = "Exit codes: 0 ok; 1 invalid or unreadable input (validate: findings); 2 usage error \
(validate: a file that cannot be read); 3 the simulation diverged (the frames before it are written); \
4 the output cannot be written; 130 / 143 interrupted by SIGINT / SIGTERM (the frames before are written; --resume continues).

Examples:
  usdsim shot.usda                   bake the stage's own frame range to shot.sim.usda
  usdsim shot.usda -f 120 -o out.usdc
  usdsim validate assets/*.usda
  usdsim preview shot.sim.usda       a PNG contact sheet of the bake";

/// Simulate OmniPhysics deformable bodies in an OpenUSD stage and bake the result.
#[derive(Debug, Parser)]
#[command(
    name = "usdsim",
    version,
    about,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = EXIT_CODES
)]
pub struct Cli {
    /// A subcommand; without one, the arguments are those of `run`.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Arguments of the implicit `run` command.
    #[command(flatten)]
    pub run: Option<RunArgs>,
    /// When to colour `error` and `warning` labels: auto (a terminal, and NO_COLOR unset),
    /// always or never.
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN")]
    pub color: ColorArg,
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    /// Colour when stderr is a terminal and `NO_COLOR` is unset or empty.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The subcommand names, for "did you mean" on a mistyped one (which clap would
/// otherwise read as the input file of the implicit `run`).
pub const SUBCOMMANDS: [&str; 6] = ["run", "validate", "inspect", "preview", "prepare", "farm"];

/// Parses `argv` (`usdsim run INPUT ...`, program name first) into the arguments of
/// `run`, as the command line would be: clap's own parser, defaults and ranges. The
/// error is clap's message, without its usage footer.
pub fn parse_run<I, T>(argv: I) -> Result<RunArgs, String>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    match Cli::try_parse_from(argv) {
        Ok(Cli { command: Some(Command::Run(args)), .. }) | Ok(Cli { command: None, run: Some(args), .. }) => Ok(args),
        Ok(_) => Err("error: not the arguments of `usdsim run`".to_string()),
        Err(err) => {
            let text = err.render().to_string();
            let message = text.split("\n\nUsage:").next().unwrap_or(&text).trim_end();
            Err(message.to_string())
        }
    }
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate a stage and write the baked layer (the default command).
    Run(RunArgs),
    /// Check stages against the deformable schema rules (exit 0 clean, 1 errors, 2 unreadable).
    Validate(ValidateArgs),
    /// Show what the importer understood: bodies, materials, colliders, attachments, units.
    Inspect(InspectArgs),
    /// Draw a PNG contact sheet of a bake: a few frames side by side, no USD viewer needed.
    Preview(PreviewArgs),
    /// Turn render meshes into a deformable body: a new layer over the input with the schema applied.
    Prepare(PrepareArgs),
    /// Express a legacy PhysX deformable asset in the OmniPhysics schema: a new layer over the input.
    Upgrade(UpgradeArgs),
    /// Write a plan for a farm engine (Slurm, Open Job Description) that bakes wedges in chunks.
    #[command(subcommand)]
    Farm(crate::farm::FarmCommand),
}

/// Arguments of `usdsim upgrade`.
#[derive(Debug, Args, Clone)]
pub struct UpgradeArgs {
    /// The stage with legacy PhysX deformables (.usda, .usdc or .usdz). Never modified.
    #[arg(required = true)]
    pub input: PathBuf,

    /// The output layer (.usda text, .usdc or .usd binary); it sublayers the input.
    #[arg(short, long, value_name = "FILE", required = true)]
    pub output: PathBuf,

    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Arguments of `usdsim prepare`.
#[derive(Debug, Args, Clone)]
#[command(group(clap::ArgGroup::new("kind").required(true).args(["volume", "surface"])))]
pub struct PrepareArgs {
    /// The stage holding the render meshes (.usda, .usdc or .usdz). Never modified.
    #[arg(required = true)]
    pub input: PathBuf,

    /// The prim that becomes the body; every Mesh at or below it is used.
    #[arg(long, value_name = "PATH")]
    pub prim: String,

    /// A volume body: a voxel TetMesh enclosing the meshes (generalised winding numbers).
    #[arg(long)]
    pub volume: bool,

    /// A surface body (cloth, shell): the one render mesh, triangulated, is simulated.
    #[arg(long)]
    pub surface: bool,

    /// Volume: cells along the longest side of the meshes' bounds.
    #[arg(long, value_name = "N", conflicts_with_all = ["cell", "surface"], value_parser = clap::value_parser!(u32).range(1..=2000))]
    pub resolution: Option<u32>,

    /// Volume: the cell edge length, in stage units (instead of --resolution).
    #[arg(long, value_name = "SIZE", conflicts_with = "surface", value_parser = positive)]
    pub cell: Option<f64>,

    /// Volume: refuse grids with more cells than this.
    #[arg(long, value_name = "CELLS", default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_cells: u64,

    /// Young's modulus of the new material, Pa (converted to stage units).
    #[arg(long, value_name = "PA", default_value_t = 1e6, value_parser = positive, help_heading = "Material")]
    pub youngs: f64,

    /// Poisson's ratio of the new material, in [0, 0.5).
    #[arg(long, value_name = "NU", default_value_t = 0.3, value_parser = poisson, help_heading = "Material")]
    pub poisson: f64,

    /// Density of the new material, kg/m³ (converted to stage units).
    #[arg(long, value_name = "KG_M3", default_value_t = 1000.0, value_parser = positive, help_heading = "Material")]
    pub density: f64,

    /// Static and dynamic friction of the new material.
    #[arg(long, value_name = "MU", default_value_t = 0.5, value_parser = non_negative, help_heading = "Material")]
    pub friction: f64,

    /// Surface: thickness of the new material, metres (converted to stage units).
    #[arg(long, value_name = "M", default_value_t = 0.001, value_parser = positive, help_heading = "Material")]
    pub thickness: f64,

    /// Bind this existing physics material prim instead of making one.
    #[arg(long, value_name = "PRIM", conflicts_with_all = ["youngs", "poisson", "density", "friction", "thickness"], help_heading = "Material")]
    pub material: Option<String>,

    /// Surface: bending rest angles flat, or those of the mesh as it is.
    #[arg(long, value_enum, default_value_t = BendArg::Flat)]
    pub bend_default: BendArg,

    /// Schema spelling: NVIDIA's omniphysics: or the AOUSD proposal's physics:.
    #[arg(long, value_enum, default_value_t = DialectArg::Omniphysics)]
    pub dialect: DialectArg,

    /// Author even when the prim (or one below it) already applies a body or simulation API.
    #[arg(long)]
    pub force: bool,

    /// The output layer (.usda text, .usdc or .usd binary); it sublayers the input.
    #[arg(short, long, value_name = "FILE", required = true)]
    pub output: PathBuf,

    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `--bend-default`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BendArg {
    /// Hinges rest flat (`flatDefault`).
    Flat,
    /// Hinges rest at the mesh's own angles (`restShapeDefault`).
    Rest,
}

/// `--dialect`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// `OmniPhysics*` schemas, `omniphysics:` attributes.
    Omniphysics,
    /// The AOUSD `Physics*` schemas, `physics:` attributes.
    Physics,
}

/// A finite number > 0.
fn positive(text: &str) -> Result<f64, String> {
    let v: f64 = text.parse().map_err(|_| format!("{text:?} is not a number"))?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("must be a finite number > 0, found {text}"))
    }
}

/// A finite number >= 0.
fn non_negative(text: &str) -> Result<f64, String> {
    let v: f64 = text.parse().map_err(|_| format!("{text:?} is not a number"))?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("must be a finite number >= 0, found {text}"))
    }
}

/// Poisson's ratio as the validator accepts it: [0, 0.5).
fn poisson(text: &str) -> Result<f64, String> {
    let v = non_negative(text)?;
    if v < 0.5 {
        Ok(v)
    } else {
        Err(format!("must be in [0, 0.5), found {text}"))
    }
}

/// Arguments of `usdsim preview`.
#[derive(Debug, Args, Clone)]
pub struct PreviewArgs {
    /// The bake to draw (any stage works: its meshes at their authored time samples).
    #[arg(required = true)]
    pub input: PathBuf,

    /// Number of tiles, evenly spaced over the authored time samples (first and last
    /// included).
    #[arg(short = 'f', long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub frames: u32,

    /// Width and height of one tile, in pixels.
    #[arg(long, default_value_t = 256, value_name = "PX", value_parser = clap::value_parser!(u32).range(32..=2048))]
    pub size: u32,

    /// Output image (.png). Default: <input stem>.preview.png beside the input.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Where the orthographic camera looks from; the stage's up axis stays up.
    #[arg(long, value_enum, default_value_t = ViewArg::ThreeQuarter)]
    pub view: ViewArg,

    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `--view`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ViewArg {
    /// From the front, a little to the right and above.
    ThreeQuarter,
    /// From the front, level.
    Front,
    /// From the right, level.
    Side,
    /// From above.
    Top,
}

/// Arguments of `usdsim validate`.
#[derive(Debug, Args, Clone)]
pub struct ValidateArgs {
    /// The stages to check (.usda, .usdc or .usdz).
    #[arg(required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,

    /// Print one JSON object on stdout (per-file reports with every diagnostic).
    #[arg(long)]
    pub json: bool,

    /// Treat warnings as failures (exit 1).
    #[arg(long)]
    pub strict: bool,

    /// Print errors only (no warnings, no per-file summary lines); ignored with --json.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Arguments of `usdsim inspect`.
#[derive(Debug, Args, Clone)]
pub struct InspectArgs {
    /// The stage to inspect (.usda, .usdc or .usdz).
    #[arg(required = true)]
    pub input: PathBuf,

    /// Print one JSON object on stdout instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of a simulation run.
#[derive(Debug, Args, Clone)]
pub struct RunArgs {
    /// The input stage (.usda, .usdc or .usdz). It is never modified.
    #[arg(required = true)]
    pub input: PathBuf,

    /// Number of frames to simulate; frame k is written at startTimeCode + k. Default:
    /// the stage's own range (endTimeCode - startTimeCode) when it authors endTimeCode,
    /// else 240.
    #[arg(short = 'f', long, allow_negative_numbers = true, value_parser = count::<1, { u32::MAX }>)]
    pub frames: Option<u32>,

    /// Output layer: .usda (text), .usdc or .usd (binary). Default: <input stem>.sim.usda
    /// beside the input. Checked (and probed for writing) before simulating.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Solver substeps per frame [default: 24 with cloth, else 10]. Without this flag
    /// they are raised (with a warning) when the stiffest tetrahedron, or a force-based
    /// --integrator's stiffest spring, needs more to stay stable; given explicitly, they
    /// are kept, with a warning when too few.
    #[arg(long, allow_negative_numbers = true, value_parser = count::<1, 10_000>)]
    pub substeps: Option<u32>,

    /// Constraint iterations per substep [default: 2 with cloth, else 3]. Small steps with
    /// few iterations reach a given accuracy cheapest (docs/performance.md, work-precision
    /// curves).
    #[arg(long, allow_negative_numbers = true, value_parser = count::<1, 1_000>)]
    pub iterations: Option<u32>,

    /// Time discretisation of the solver's substeps. bdf2 is second order: at the same
    /// substeps it follows the converged motion about five times closer than euler
    /// (docs/performance.md). euler is XPBD's implicit Euler step, first order, with more
    /// numerical damping.
    #[arg(long, value_enum, default_value_t = TimeSchemeArg::Bdf2)]
    pub time_scheme: TimeSchemeArg,

    /// Distance kept between vertices and collider surfaces, in metres (converted to
    /// stage units).
    #[arg(long, default_value_t = 0.002, value_name = "METRES", allow_negative_numbers = true, value_parser = non_negative_f64)]
    pub contact_offset: f64,

    /// Fastest speed, in m/s (converted to stage units), at which an overlap that
    /// already exists at the start of a substep (authored interpenetration, a deep
    /// penetration) is pushed apart. The push moves positions only and adds no velocity.
    #[arg(long, default_value_t = 0.5, value_name = "M_PER_S", value_parser = positive_f32)]
    pub max_depenetration_velocity: f32,

    /// Let every cloth (surface body) collide with itself, whatever the asset says.
    /// Without this flag a body collides with itself when its asset asks
    /// (`physxDeformableBody:selfCollision = true`, PhysX's per-body switch, off by
    /// default as in that schema). Not on for every cloth by default, for cost: on the
    /// swinging 64² bench cloth its search adds one to one and a half times the rest of
    /// the frame over the scene's 240 frames (docs/performance.md).
    #[arg(long, conflicts_with = "no_self_contact")]
    pub self_contact: bool,

    /// No body collides with itself, even where its asset asks for it
    /// (`physxDeformableBody:selfCollision`): a quicker preview of a heavy garment.
    #[arg(long)]
    pub no_self_contact: bool,

    /// Worker threads (default: one per core). Results do not depend on it.
    #[arg(short = 'j', long, allow_negative_numbers = true, value_parser = count::<1, 1024>)]
    pub threads: Option<u32>,

    /// Override one authored value for this run: PRIM.ATTR=VALUE in USD syntax, checked
    /// against the attribute's type (repeatable), e.g.
    /// --set /World/Mat.omniphysics:youngsModulus=2e6. The bake records it.
    #[arg(long = "set", value_name = "PRIM.ATTR=VALUE")]
    pub set: Vec<usdsim_usd::AttributeOverride>,

    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,

    /// Print a machine-readable JSON summary on stdout (progress goes nowhere).
    #[arg(long)]
    pub json: bool,

    /// Also write the JSON summary (as --json prints it) to FILE, with per-frame timing
    /// percentiles (`frame_ms`), the warnings and every file written; on a failure, the
    /// failure's JSON. Written to a temporary name and renamed.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// Frames per value clip: a longer bake streams its frames to a folder beside the
    /// output (OUT.clips/ for OUT.usda) as one .usdc clip per chunk, and the output layer
    /// holds the clip metadata. Default:
    /// as many frames as fit in 64 MiB of samples (at most 1000); a bake of no more
    /// frames stays one layer.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = count::<1, { u32::MAX }>)]
    pub chunk: Option<u32>,

    /// Continue the bake already in the output (interrupted, or shorter) up to --frames,
    /// with the same input and flags: the finished output is byte-identical to one run.
    /// It restarts the newest clip from the solver state stored at its first frame, so it
    /// recomputes at most one --chunk; a single-layer output is baked again. An output
    /// from another input, settings or version is refused. Without an output, a plain bake.
    #[arg(long)]
    pub resume: bool,

    /// Read the input's state at this time code instead of startTimeCode and write frame
    /// k at T + k: `usdsim a.sim.usda --start-time 10` continues a bake from its frame 10
    /// as a new layer over it (a new bake that starts there; --resume extends the same one).
    #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = finite_f64)]
    pub start_time: Option<f64>,

    /// Tear ratio for every material of the scene (overrides usdsim:tearRatio): a link or
    /// element edge longer than R times its rest length breaks. 0 disables tearing.
    #[arg(long, value_name = "R", allow_negative_numbers = true, value_parser = ratio_or_zero, help_heading = "Tearing, plasticity, springs")]
    pub tear_ratio: Option<f32>,

    /// Plastic yield ratio for every material (overrides usdsim:plasticYieldRatio):
    /// beyond Y times the rest length deformation becomes permanent. 0 makes every
    /// material elastic. Without --plastic-rate the rate is 1 (all the excess flows).
    #[arg(long, value_name = "Y", allow_negative_numbers = true, value_parser = ratio_or_zero, help_heading = "Tearing, plasticity, springs")]
    pub plastic_yield: Option<f32>,

    /// Plastic flow rate in [0, 1] (overrides usdsim:plasticRate): the fraction of the
    /// excess over the yield that flows into the rest shape per step. Without
    /// --plastic-yield it changes only materials that are already plastic.
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = unit_interval, help_heading = "Tearing, plasticity, springs")]
    pub plastic_rate: Option<f32>,

    /// Cap on the total plastic strain (overrides usdsim:plasticMaxStrain); 0 is no cap.
    /// Without --plastic-yield it changes only materials that are already plastic.
    #[arg(long, value_name = "S", allow_negative_numbers = true, value_parser = non_negative_f32, help_heading = "Tearing, plasticity, springs")]
    pub plastic_max_strain: Option<f32>,

    /// Constitutive model of every body (overrides usdsim:model).
    #[arg(long, value_enum, help_heading = "Tearing, plasticity, springs")]
    pub model: Option<ModelArg>,

    /// Hooke stiffness of every link of spring-model bodies, stage units (mass/s²);
    /// 0 derives it from the material (overrides usdsim:springStiffness).
    #[arg(long, value_name = "KS", allow_negative_numbers = true, value_parser = non_negative_f32, help_heading = "Tearing, plasticity, springs")]
    pub spring_stiffness: Option<f32>,

    /// Damping along every link of spring-model bodies, stage units (mass/s)
    /// (overrides usdsim:springDamping).
    #[arg(long, value_name = "KD", allow_negative_numbers = true, value_parser = non_negative_f32, help_heading = "Tearing, plasticity, springs")]
    pub spring_damping: Option<f32>,

    /// Time integration of spring-model bodies (finite elements always use XPBD).
    #[arg(long, value_enum, default_value_t = IntegratorArg::Xpbd, help_heading = "Tearing, plasticity, springs")]
    pub integrator: IntegratorArg,
}

/// `--model`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModelArg {
    /// Finite elements (Neo-Hookean tetrahedra, membrane triangles and hinges).
    Fem,
    /// A spring-mass-damper network built from the mesh.
    Springs,
}

impl RunArgs {
    /// The solver's self-contact setting from `--self-contact` and `--no-self-contact`:
    /// every cloth, none, or (neither flag) the bodies whose asset asks.
    pub fn self_contact_override(&self) -> Option<bool> {
        match (self.self_contact, self.no_self_contact) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

/// `--time-scheme`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TimeSchemeArg {
    /// Second-order backward differentiation, implicit Euler where its history breaks
    /// (first substep, contacts, rigid bodies) (the default).
    Bdf2,
    /// Implicit Euler every substep (XPBD as published).
    Euler,
}

impl TimeSchemeArg {
    /// The solver's time scheme.
    pub fn time_scheme(self) -> usdsim_core::TimeScheme {
        match self {
            TimeSchemeArg::Bdf2 => usdsim_core::TimeScheme::Bdf2,
            TimeSchemeArg::Euler => usdsim_core::TimeScheme::ImplicitEuler,
        }
    }
}

/// `--integrator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum IntegratorArg {
    /// Compliant constraints, unconditionally stable (the default).
    Xpbd,
    /// Explicit (forward) Euler: unstable without enough damping.
    Euler,
    /// Semi-implicit (symplectic) Euler: stable for ω·dt < 2.
    Symplectic,
    /// Classic fourth-order Runge-Kutta: stable for ω·dt < 2√2.
    Rk4,
}

impl IntegratorArg {
    /// The solver's integrator.
    pub fn integrator(self) -> usdsim_core::Integrator {
        match self {
            IntegratorArg::Xpbd => usdsim_core::Integrator::Xpbd,
            IntegratorArg::Euler => usdsim_core::Integrator::ExplicitEuler,
            IntegratorArg::Symplectic => usdsim_core::Integrator::SymplecticEuler,
            IntegratorArg::Rk4 => usdsim_core::Integrator::Rk4,
        }
    }
}

fn number(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number"))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{s} is not a finite number"))
    }
}

/// A whole number in `MIN..=MAX`, with a range error (not clap's "invalid digit") for a
/// negative or fractional one.
fn count<const MIN: u32, const MAX: u32>(s: &str) -> Result<u32, String> {
    let v = number(s)?;
    let range = if MAX == u32::MAX { format!("at least {MIN}") } else { format!("from {MIN} to {MAX}") };
    if v.fract() != 0.0 || v < f64::from(MIN) || v > f64::from(MAX) {
        return Err(format!("{s} is out of range: must be a whole number {range}"));
    }
    Ok(v as u32)
}

/// A finite number ≥ 0.
fn non_negative_f64(s: &str) -> Result<f64, String> {
    match number(s)? {
        v if v >= 0.0 => Ok(v),
        v => Err(format!("{v} is out of range: must be 0 or positive")),
    }
}

/// A finite number.
fn finite_f64(s: &str) -> Result<f64, String> {
    number(s)
}

/// 0 (off) or a stretch ratio above 1.
fn ratio_or_zero(s: &str) -> Result<f32, String> {
    match number(s)? {
        v if v == 0.0 || v > 1.0 => Ok(v as f32),
        v => Err(format!("{v} must be 0 (off) or a stretch ratio above 1, e.g. 1.8 for 180 %")),
    }
}

/// A number in [0, 1].
fn unit_interval(s: &str) -> Result<f32, String> {
    match number(s)? {
        v if (0.0..=1.0).contains(&v) => Ok(v as f32),
        v => Err(format!("{v} must lie in [0, 1]")),
    }
}

/// A finite number ≥ 0.
fn non_negative_f32(s: &str) -> Result<f32, String> {
    match number(s)? {
        v if v >= 0.0 => Ok(v as f32),
        v => Err(format!("{v} must be 0 or positive")),
    }
}

/// A finite number > 0.
fn positive_f32(s: &str) -> Result<f32, String> {
    match number(s)? {
        v if v > 0.0 => Ok(v as f32),
        v => Err(format!("{v} must be positive")),
    }
}
