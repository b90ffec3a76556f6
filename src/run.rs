//! The `run` command: import, simulate frame by frame, export.

use crate::cli::RunArgs;
use crate::progress::Progress;
use crate::summary::{BodyResult, Summary};
use anyhow::{bail, Context, Result};
use std::time::Instant;
use usdsim_core::{Settings, Solver};
use usdsim_usd::validate::Severity;
use usdsim_usd::{default_output_path, import, Bake, TrackTarget};

/// Runs a simulation as `args` describe and prints the summary.
pub fn run(args: &RunArgs) -> Result<()> {
    if let Some(threads) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads as usize)
            .build_global()
            .context("cannot start the worker threads")?;
    }
    let talk = !args.quiet && !args.json;
    let output = args.output.clone().unwrap_or_else(|| default_output_path(&args.input));

    let t0 = Instant::now();
    check_before_run(args)?;
    let imported = import(&args.input)?;
    let import_s = t0.elapsed().as_secs_f64();
    if !args.quiet {
        for warning in &imported.warnings {
            eprintln!("warning: {warning}");
        }
    }
    if imported.scene.bodies.is_empty() {
        bail!("{}: no deformable bodies to simulate (no prim applies OmniPhysicsDeformableBodyAPI with a simulation mesh)", args.input.display());
    }

    let info = &imported.stage;
    let settings = Settings {
        substeps: args.substeps,
        iterations: args.iterations,
        frame_dt: (1.0 / info.time_codes_per_second) as f32,
        contact_offset: (args.contact_offset / info.meters_per_unit) as f32,
        self_contact: args.self_contact,
        ..Settings::default()
    };
    let mut bake = Bake::new(&imported, args.frames);
    bake.check_output(&output)?;
    let colliders = imported.scene.colliders.len();
    let mut solver = Solver::new(imported.scene.clone(), settings)
        .with_context(|| format!("{}: cannot simulate this scene", args.input.display()))?;
    if talk {
        let s = solver.stats();
        eprintln!(
            "simulating {} bodies ({} vertices, {} tetrahedra, {} triangles), {} colliders: {} frames at {} fps, {} substeps x {} iterations",
            s.bodies, s.vertices, s.tets, s.triangles, colliders, args.frames, info.time_codes_per_second, args.substeps, args.iterations
        );
    }

    record(&mut bake, &solver, 0);
    let mut progress = Progress::new(args.frames, !talk);
    let t1 = Instant::now();
    for frame in 1..=args.frames {
        // Kinematic bodies follow their authored animation to this frame's time code.
        for track in &imported.kinematic {
            let targets = track.at(info.start_time_code + f64::from(frame));
            solver.set_kinematic_targets(track.body, &targets)?;
        }
        // Animated attachment frames and kinematic rigid bodies likewise.
        for track in &imported.tracks {
            let m = track.at(info.start_time_code + f64::from(frame));
            match track.target {
                TrackTarget::Frame(f) => solver.set_frame_target(f, m.as_mat4())?,
                TrackTarget::Rigid(r) => {
                    let (t, q) = usdsim_usd::rigid_pose_of(m);
                    solver.set_rigid_target(r, t, q)?;
                }
            }
        }
        solver.step_frame();
        if let Some(body) = diverged(&solver) {
            progress.finish();
            bail!(
                "{}: the simulation diverged at frame {frame} (body {}); try more --substeps or check the material values",
                args.input.display(),
                imported.bodies[body].prim_path
            );
        }
        record(&mut bake, &solver, frame);
        progress.frame(frame);
    }
    progress.finish();
    let simulate_s = t1.elapsed().as_secs_f64();

    let t2 = Instant::now();
    bake.write(&output)?;
    let export_s = t2.elapsed().as_secs_f64();

    let up = info.up_axis.vector().as_vec3();
    let bodies = (0..solver.body_count())
        .map(|b| BodyResult {
            prim: imported.bodies[b].prim_path.clone(),
            vertices: solver.positions(b).len(),
            mass: solver.body_mass(b),
            centre_of_mass: solver.centre_of_mass(b).to_array(),
            lowest: solver.positions(b).iter().map(|p| p.dot(up)).fold(f32::INFINITY, f32::min),
        })
        .collect();
    let summary = Summary {
        input: args.input.clone(),
        output,
        stats: solver.stats(),
        colliders,
        frames: args.frames,
        substeps: args.substeps,
        iterations: args.iterations,
        threads: rayon::current_num_threads(),
        import_s,
        simulate_s,
        export_s,
        warnings: imported.warnings.clone(),
        bodies,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary.json())?);
    } else if !args.quiet {
        eprintln!("{}", summary.text());
    }
    Ok(())
}

/// Runs `usdsim validate`'s rules first: errors stop the run (all of them printed,
/// then one summary error), warnings are printed unless `--quiet`. A file the
/// validator cannot read is left to the importer, which reports it.
fn check_before_run(args: &RunArgs) -> Result<()> {
    let Ok(report) = usdsim_usd::validate::validate(&args.input) else {
        return Ok(());
    };
    for diagnostic in &report.diagnostics {
        if diagnostic.severity == Severity::Error || !args.quiet {
            eprintln!("{}", diagnostic.text());
        }
    }
    if report.errors() > 0 {
        bail!(
            "{}: {} validation error(s); nothing simulated (details above; `usdsim validate` lists the rules)",
            args.input.display(),
            report.errors()
        );
    }
    Ok(())
}

/// Hands the solver's current state of every body and rigid body to the bake as frame
/// `frame`.
fn record(bake: &mut Bake, solver: &Solver, frame: u32) {
    let states: Vec<_> = (0..solver.body_count()).map(|b| (solver.positions(b), solver.velocities(b))).collect();
    bake.push_frame(frame, &states);
    let poses: Vec<_> = (0..solver.rigid_count()).map(|r| solver.rigid_pose(r)).collect();
    bake.push_rigid_frame(frame, &poses);
}

/// The first body with a non-finite position, if any.
fn diverged(solver: &Solver) -> Option<usize> {
    (0..solver.body_count()).find(|&b| !solver.positions(b).iter().all(|p| p.is_finite()))
}
