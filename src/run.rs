//! The `run` command: validate, import, simulate frame by frame, export.

use crate::cli::{ModelArg, RunArgs};
use crate::failure::{divergence_hint, Diverged, Interrupted, ValidationFailed};
use crate::report::{Reporter, OVERRIDE_UNUSED, RESUMED_EDITED};
use crate::summary::{BodyResult, Counts, FrameRange, RangeSource, Summary};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::time::Instant;
use usdsim_core::{Model, Plasticity, Scene, Settings, Solver, Springs};
use usdsim_usd::validate::Severity;
use usdsim_usd::{default_output_path, Baker, Imported, InputStage, NonFinite, OpenError, StageInfo};

/// Frames a run bakes when neither `--frames` nor the stage's `endTimeCode` says.
pub const FALLBACK_FRAMES: u32 = 240;

/// The frames a run bakes: `--frames`, else the stage's own range, else 240.
pub fn frame_range(frames: Option<u32>, info: &StageInfo) -> FrameRange {
    let (frames, source) = match (frames, info.authored_frames()) {
        (Some(n), _) => (n, RangeSource::Flag),
        (None, Some(n)) => (n, RangeSource::Stage),
        (None, None) => (FALLBACK_FRAMES, RangeSource::Fallback),
    };
    FrameRange { start: info.start_time_code, frames, fps: info.time_codes_per_second, source }
}

/// Why a run stopped before its last frame.
enum Stop {
    Signal(i32),
    Diverged(NonFinite),
}

/// What a run tells its caller as it goes, and asks it between frames: the command's
/// progress bar, `OUTPUT_FILE:` lines and signal flags ([`crate::console::Console`]), or the
/// Python module's callback and Python's own signal handlers. Every method has a
/// do-nothing default.
pub trait Watch: Send {
    /// The bake is about to simulate from frame `from` (0, or where a resume took up)
    /// to `frames`.
    fn start(&mut self, _from: u32, _frames: u32) {}
    /// Frame `done` of `frames` is baked.
    fn frame(&mut self, _done: u32, _frames: u32) {}
    /// `files` were written (clips as they stream, and at the end the output): each file
    /// is given once.
    fn written(&mut self, _files: &[PathBuf]) {}
    /// The frame loop is over (finished or stopped), before the output is completed.
    fn finish(&mut self) {}
    /// Asked before each frame: a signal number stops the bake there, its frames kept
    /// and written, and the run fails with [`Interrupted`].
    fn stop(&mut self) -> Option<i32> {
        None
    }
}

/// A run's scene, ready to simulate: what [`set_up`] makes of the input and the
/// settings, before any frame. [`run`] bakes it; the Python module steps it.
pub struct Setup {
    /// The input, as given.
    pub input: PathBuf,
    /// The imported stage, with the overrides of the command line applied.
    pub imported: Imported,
    /// The solver settings the run uses.
    pub settings: Settings,
    /// The frames a bake covers.
    pub range: FrameRange,
    /// Bodies, vertices, elements, colliders, for the summary.
    pub counts: Counts,
    /// The solver, at frame 0.
    pub solver: Solver,
    /// Frames per clip.
    pub chunk: u32,
    /// The run's fingerprint ([`Imported::fingerprint`]), which `--resume` checks.
    pub fingerprint: String,
    /// `--threads`' worker pool; `None`: rayon's global pool, one thread per core.
    pub pool: Option<rayon::ThreadPool>,
    /// Seconds spent opening, validating and importing.
    pub import_s: f64,
}

/// Runs `work` on `pool`'s threads, or on rayon's global pool without one. Only the
/// heavy calls go through here, so that the thread driving a run (Python's main thread,
/// where its signal handlers run) stays the caller's.
pub fn within<R: Send>(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Opens, validates and imports `args.input`, applies the command line's overrides and
/// builds the solver, reporting every warning through `reporter`: everything a run does
/// before its first frame.
pub fn set_up(args: &RunArgs, reporter: &mut Reporter) -> Result<Setup> {
    let pool = match args.threads {
        Some(threads) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads as usize)
                .build()
                .context("cannot start the worker threads")?,
        ),
        None => None,
    };
    let file = args.input.display().to_string();

    let t0 = Instant::now();
    // Opened and traversed once: the validator and the importer read the same stage.
    let input = open_input(args)?;
    let input = if check_before_run(args, &input, reporter)? { input } else { open_input(args)? };
    let mut imported = input.import(args.start_time)?;
    let import_s = t0.elapsed().as_secs_f64();
    for warning in std::mem::take(&mut imported.warnings) {
        reporter.warn(warning);
    }
    for warning in apply_overrides(args, &mut imported.scene) {
        reporter.warn_general(OVERRIDE_UNUSED, &file, warning);
    }
    if imported.scene.bodies.is_empty() && imported.scene.rigid_bodies.is_empty() {
        // The validator's DB011 says this with a hint; this is for a stage it could not read.
        bail!(
            "{file}: nothing to simulate: no prim applies OmniPhysicsDeformableBodyAPI (physics: spelling \
             PhysicsDeformableBodyAPI) with a simulation mesh, or PhysicsRigidBodyAPI"
        );
    }

    let info = &imported.stage;
    let range = frame_range(args.frames, info);
    let iterations = args.iterations.unwrap_or_else(|| default_iterations(&imported.scene));
    let settings = Settings {
        substeps: args.substeps.unwrap_or_else(|| default_substeps(&imported.scene)),
        // Substeps the user chose are kept for force integrators (with a warning).
        spring_step_fraction: if args.substeps.is_some() { None } else { Settings::default().spring_step_fraction },
        keep_tet_substeps: args.substeps.is_some(),
        iterations,
        frame_dt: (1.0 / info.time_codes_per_second) as f32,
        contact_offset: (args.contact_offset / info.meters_per_unit) as f32,
        max_depenetration_velocity: (f64::from(args.max_depenetration_velocity) / info.meters_per_unit) as f32,
        self_contact: args.self_contact_override(),
        integrator: args.integrator.integrator(),
        time_scheme: args.time_scheme.time_scheme(),
        ..Settings::default()
    };
    let counts = Counts::of(&imported.scene);
    let scene = imported.scene.clone();
    let solver = within(pool.as_ref(), || Solver::new(scene, settings))
        .with_context(|| format!("{file}: cannot simulate this scene"))?;
    for warning in solver.warnings() {
        reporter.warn_solver(&file, warning);
    }
    let chunk = args.chunk.unwrap_or_else(|| imported.default_chunk());
    let fingerprint = imported.fingerprint(&settings, chunk);
    Ok(Setup {
        input: args.input.clone(),
        imported,
        settings,
        range,
        counts,
        solver,
        chunk,
        fingerprint,
        pool,
        import_s,
    })
}

/// Runs a simulation as `args` describe, reporting warnings through `reporter` and
/// progress through `watch`, and returns the summary for the caller to print.
pub fn run(args: &RunArgs, reporter: &mut Reporter, watch: &mut dyn Watch) -> Result<Summary> {
    let talk = !args.quiet && !args.json;
    let output = args.output.clone().unwrap_or_else(|| default_output_path(&args.input));
    let Setup { imported, settings, range, counts, solver, fingerprint, pool, import_s, .. } = set_up(args, reporter)?;
    let pool = pool.as_ref();
    let info = &imported.stage;
    // The output is checked (and probed for writing) before any simulating.
    let mut baker = if args.resume {
        let (baker, resumed) =
            within(pool, || Baker::resume(&imported, solver, &output, range.frames, args.chunk, &fingerprint))?;
        for prim in &resumed.edited {
            reporter.warn_general(
                RESUMED_EDITED,
                &output.display().to_string(),
                format!(
                    "{prim}: points or velocities at frame {} were edited; resuming from the edited values",
                    resumed.from
                ),
            );
        }
        if talk {
            eprintln!("resuming {} from frame {}", output.display(), resumed.from);
        }
        baker
    } else {
        Baker::new(&imported, solver, &output, range.frames, args.chunk)?
    };
    baker.record_fingerprint(&fingerprint);
    baker.record_overrides(&args.set);
    if talk {
        eprintln!(
            "simulating {}: {}, {} substeps x {} iterations{}",
            counts.text(),
            range.text(),
            baker.solver().settings().substeps,
            baker.solver().settings().iterations,
            if baker.streams() { format!(", {} frames per clip", baker.chunk()) } else { String::new() }
        );
    }

    watch.start(baker.frame(), range.frames);
    let t1 = Instant::now();
    let mut stopped = None;
    let mut announced = 0;
    let mut frame_ms = Vec::with_capacity(range.frames as usize);
    while baker.frame() < range.frames {
        if let Some(signal) = watch.stop() {
            stopped = Some(Stop::Signal(signal));
            break;
        }
        let t = Instant::now();
        let step = within(pool, || baker.step())?;
        frame_ms.push(1e3 * t.elapsed().as_secs_f64());
        if let Some(bad) = step {
            stopped = Some(Stop::Diverged(bad));
            break;
        }
        watch.written(&baker.written()[announced..]);
        announced = baker.written().len();
        watch.frame(baker.frame(), range.frames);
    }
    watch.finish();
    // Clips written while stepping count as export, not simulation.
    let simulate_s = (t1.elapsed().as_secs_f64() - baker.export_seconds()).max(0.0);
    let finished = baker.finish()?;
    let export_s = finished.export_s;
    watch.written(&finished.written[announced..]);
    match stopped {
        None => {}
        Some(Stop::Diverged(bad)) => {
            let prims: Vec<String> = imported.binding.bodies.iter().map(|b| b.prim_path.clone()).collect();
            let hint = divergence_hint(&imported.scene, &prims, settings.integrator, &bad.prim);
            return Err(Diverged {
                file: args.input.clone(),
                frame: bad.frame,
                prim: bad.prim,
                attribute: bad.attribute,
                kept: Some(output.clone()),
                hint,
            }
            .into());
        }
        Some(Stop::Signal(signal)) => {
            return Err(Interrupted {
                file: args.input.clone(),
                signal,
                frame: finished.last_frame,
                kept: output.clone(),
                files: finished.written,
            }
            .into())
        }
    }
    let solver = finished.solver;
    let output_bytes = finished.written.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum();

    let up = info.up_axis.vector().as_vec3();
    let bodies = solver
        .body_ids()
        .map(|b| BodyResult {
            prim: imported.binding.body(b).prim_path.clone(),
            vertices: solver.positions(b).len(),
            mass: solver.body_mass(b),
            centre_of_mass: solver.centre_of_mass(b).to_array(),
            lowest: solver.positions(b).iter().map(|p| p.dot(up)).fold(f32::INFINITY, f32::min),
            topology_changes: solver.topology_version(b),
            self_contact: solver.self_contact(b),
        })
        .collect();
    Ok(Summary {
        input: args.input.clone(),
        output,
        files: finished.written,
        frame_ms,
        output_bytes,
        counts,
        range,
        projections_per_frame: solver.stats().projections_per_frame,
        substeps: solver.settings().substeps,
        iterations: solver.settings().iterations,
        threads: pool.map_or_else(rayon::current_num_threads, rayon::ThreadPool::current_num_threads),
        import_s,
        simulate_s,
        export_s,
        bodies,
    })
}

/// Applies the command line's whole-scene overrides of the `usdsim:` schema values
/// (tearing, plasticity, model, springs) to every body and per-element material.
/// Returns warnings for overrides that change nothing.
pub(crate) fn apply_overrides(args: &RunArgs, scene: &mut Scene) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(ratio) = args.tear_ratio {
        let ratio = (ratio > 0.0).then_some(ratio);
        scene.bodies.iter_mut().for_each(|b| b.set_tear_ratio(ratio));
    }
    match args.plastic_yield {
        Some(y) if y > 0.0 => {
            let plastic = Plasticity {
                yield_ratio: y,
                rate: args.plastic_rate.unwrap_or(DEFAULT_PLASTIC_RATE),
                max_strain: args.plastic_max_strain.filter(|&s| s > 0.0),
            };
            scene.bodies.iter_mut().for_each(|b| b.set_plasticity(Some(plastic)));
        }
        Some(_) => scene.bodies.iter_mut().for_each(|b| b.set_plasticity(None)),
        None if args.plastic_rate.is_some() || args.plastic_max_strain.is_some() => {
            // Field-wise override of the materials that are already plastic.
            let mut changed = false;
            for body in &mut scene.bodies {
                for p in std::iter::once(&mut body.plastic)
                    .chain(body.materials.iter_mut().map(|slot| &mut slot.plastic))
                    .flatten()
                {
                    if let Some(rate) = args.plastic_rate {
                        p.rate = rate;
                    }
                    if let Some(cap) = args.plastic_max_strain {
                        p.max_strain = (cap > 0.0).then_some(cap);
                    }
                    changed = true;
                }
            }
            if !changed {
                warnings.push(
                    "--plastic-rate/--plastic-max-strain: no material of the scene is plastic; give --plastic-yield to make them plastic"
                        .to_string(),
                );
            }
        }
        None => {}
    }
    if let Some(model) = args.model {
        for body in &mut scene.bodies {
            body.model = match (model, body.model) {
                (ModelArg::Fem, _) => Model::Fem,
                (ModelArg::Springs, Model::Springs(s)) => Model::Springs(s),
                (ModelArg::Springs, Model::Fem) => Model::Springs(Springs::default()),
            };
        }
    }
    if args.spring_stiffness.is_some() || args.spring_damping.is_some() {
        let mut changed = false;
        for body in &mut scene.bodies {
            if let Model::Springs(s) = &mut body.model {
                if let Some(k) = args.spring_stiffness {
                    s.stiffness = k;
                }
                if let Some(d) = args.spring_damping {
                    s.damping = d;
                }
                changed = true;
            }
        }
        if !changed {
            warnings.push(
                "--spring-stiffness/--spring-damping: no body uses the spring model; give --model springs".to_string(),
            );
        }
    }
    if args.integrator != crate::cli::IntegratorArg::Xpbd
        && !scene.bodies.iter().any(|b| matches!(b.model, Model::Springs(_)))
    {
        warnings.push(
            "--integrator: only drives spring-model bodies; every body here uses finite elements (XPBD)".to_string(),
        );
    }
    warnings
}

/// Opens the input with the `--set` overrides as its session layer; the error is the
/// import's or the override's own, so the failure is classified by its kind.
fn open_input(args: &RunArgs) -> Result<InputStage> {
    InputStage::open_with(&args.input, &args.set).map_err(|err| match err {
        OpenError::Import(err) => err.into(),
        OpenError::Override(err) => (*err).into(),
    })
}

/// Substeps per frame without `--substeps` for a scene of volumes (and rigid bodies):
/// their error is set by the substeps, and 10 keep it below the rapier peer's on the
/// bench jellies (docs/performance.md).
pub(crate) const DEFAULT_SUBSTEPS: u32 = 10;

/// Substeps per frame without `--substeps` for a scene with cloth (surface bodies): a
/// membrane's error at a few iterations is set by its substeps, and at 10 it is 2-5× that
/// at 20 (work-precision curves, docs/performance.md). Volumes in such a scene run them too.
pub(crate) const CLOTH_SUBSTEPS: u32 = 24;

/// Iterations per substep without `--iterations` for a scene of volumes: at 10 substeps
/// one iteration is both cheaper and closer to the converged motion than two or three on
/// all three bench jellies (their error is the time step's), and the hanging bar's
/// stretch is 0.2 % from ρgL²/(2E) against 2.7 % at three (docs/performance.md).
pub(crate) const DEFAULT_ITERATIONS: u32 = 1;

/// Iterations per substep without `--iterations` for a scene with cloth: 24 × 2 costs
/// 7-10 % less than 20 × 3 on the bench cloths, with errors under the rapier peer's on
/// all three (docs/performance.md, "Packed lanes and 24 × 2").
pub(crate) const CLOTH_ITERATIONS: u32 = 2;

/// The substeps a run of `scene` takes without `--substeps` (before the stability
/// bound raises them): the most any of its body kinds asks for.
pub(crate) fn default_substeps(scene: &Scene) -> u32 {
    if has_cloth(scene) {
        CLOTH_SUBSTEPS
    } else {
        DEFAULT_SUBSTEPS
    }
}

/// The iterations a run of `scene` takes without `--iterations`.
pub(crate) fn default_iterations(scene: &Scene) -> u32 {
    if has_cloth(scene) {
        CLOTH_ITERATIONS
    } else {
        DEFAULT_ITERATIONS
    }
}

/// Whether `scene` has a surface body, which sets the cloth defaults.
fn has_cloth(scene: &Scene) -> bool {
    scene.bodies.iter().any(|b| b.kind == usdsim_core::BodyKind::Surface)
}

/// Plastic flow rate when `--plastic-yield` is given without `--plastic-rate`: all of
/// the excess over the yield flows at once (ideal plasticity).
pub(crate) const DEFAULT_PLASTIC_RATE: f32 = 1.0;

/// Runs `usdsim validate`'s rules first: every error is printed, then the run stops
/// with [`ValidationFailed`]; warnings go to `reporter`. A file the validator cannot
/// read is left to the importer, which reports it; then `Ok(false)` says the validator
/// failed midway, so the importer gets a freshly opened stage rather than one a failed
/// pass may have left half-read.
fn check_before_run(args: &RunArgs, input: &InputStage, reporter: &mut Reporter) -> Result<bool> {
    let Ok(report) = input.validate() else {
        return Ok(false);
    };
    let mut errors = Vec::new();
    for diagnostic in report.diagnostics {
        if diagnostic.severity == Severity::Error {
            reporter.error(&diagnostic);
            errors.push(diagnostic);
        } else {
            reporter.warn(diagnostic);
        }
    }
    if !errors.is_empty() {
        return Err(ValidationFailed { file: args.input.clone(), errors }.into());
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use usdsim_core::{Body, BodyKind, Material};

    fn args(extra: &[&str]) -> RunArgs {
        let cli = crate::cli::Cli::try_parse_from(["usdsim", "scene.usda"].iter().chain(extra)).unwrap();
        cli.run.unwrap()
    }

    /// One body with a per-element material table of two entries.
    fn scene(plastic: Option<Plasticity>) -> Scene {
        let mut body = Body::new("b", BodyKind::Surface, vec![glam::Vec3::ZERO; 3], Material::elastic(1.0, 0.3, 1.0));
        body.materials = vec![body.material.into(); 2];
        body.set_plasticity(plastic);
        Scene { bodies: vec![body], ..Scene::default() }
    }

    /// The tear ratio of each per-element material of the first body.
    fn tear_ratios(s: &Scene) -> Vec<Option<f32>> {
        s.bodies[0].materials.iter().map(|slot| slot.tear_ratio).collect()
    }

    /// The plasticity of each per-element material of the first body.
    fn plasticities(s: &Scene) -> Vec<Option<Plasticity>> {
        s.bodies[0].materials.iter().map(|slot| slot.plastic).collect()
    }

    #[test]
    fn tear_ratio_overrides_every_material_and_zero_disables() {
        let mut s = scene(None);
        apply_overrides(&args(&["--tear-ratio", "1.8"]), &mut s);
        assert_eq!(s.bodies[0].tear_ratio, Some(1.8));
        assert_eq!(tear_ratios(&s), vec![Some(1.8); 2]);
        apply_overrides(&args(&["--tear-ratio", "0"]), &mut s);
        assert_eq!(s.bodies[0].tear_ratio, None);
        assert_eq!(tear_ratios(&s), vec![None; 2]);
    }

    #[test]
    fn plastic_yield_alone_flows_at_rate_one() {
        let mut s = scene(None);
        apply_overrides(&args(&["--plastic-yield", "1.2"]), &mut s);
        let expected = Plasticity { yield_ratio: 1.2, rate: DEFAULT_PLASTIC_RATE, max_strain: None };
        assert_eq!(s.bodies[0].plastic, Some(expected));
        assert_eq!(plasticities(&s), vec![Some(expected); 2]);
        apply_overrides(
            &args(&["--plastic-yield", "1.3", "--plastic-rate", "0.2", "--plastic-max-strain", "0.4"]),
            &mut s,
        );
        assert_eq!(s.bodies[0].plastic, Some(Plasticity { yield_ratio: 1.3, rate: 0.2, max_strain: Some(0.4) }));
        apply_overrides(&args(&["--plastic-yield", "0"]), &mut s);
        assert_eq!(s.bodies[0].plastic, None);
        assert_eq!(plasticities(&s), vec![None; 2]);
    }

    #[test]
    fn plastic_rate_alone_changes_only_plastic_materials() {
        let authored = Plasticity { yield_ratio: 1.1, rate: 0.5, max_strain: Some(0.3) };
        let mut s = scene(Some(authored));
        s.bodies[0].materials[1].plastic = None;
        let warnings = apply_overrides(&args(&["--plastic-rate", "0.1", "--plastic-max-strain", "0"]), &mut s);
        assert!(warnings.is_empty(), "{warnings:?}");
        let changed = Plasticity { rate: 0.1, max_strain: None, ..authored };
        assert_eq!(s.bodies[0].plastic, Some(changed));
        assert_eq!(plasticities(&s), vec![Some(changed), None]);
    }

    #[test]
    fn model_and_spring_overrides() {
        let mut s = scene(None);
        apply_overrides(&args(&["--model", "springs", "--spring-stiffness", "40", "--spring-damping", "0.5"]), &mut s);
        let Model::Springs(sp) = s.bodies[0].model else { panic!("{:?}", s.bodies[0].model) };
        assert_eq!((sp.stiffness, sp.damping), (40.0, 0.5));
        assert_eq!(sp.links, Springs::default().links);
        apply_overrides(&args(&["--model", "fem"]), &mut s);
        assert_eq!(s.bodies[0].model, Model::Fem);
    }

    #[test]
    fn integrator_names_map_onto_the_solver() {
        use usdsim_core::Integrator;
        for (name, expected) in [
            ("xpbd", Integrator::Xpbd),
            ("euler", Integrator::ExplicitEuler),
            ("symplectic", Integrator::SymplecticEuler),
            ("rk4", Integrator::Rk4),
        ] {
            assert_eq!(args(&["--integrator", name]).integrator.integrator(), expected);
        }
        assert_eq!(args(&[]).integrator.integrator(), Integrator::Xpbd);
    }
}
