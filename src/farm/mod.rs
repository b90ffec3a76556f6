//! `usdsim farm`: plans for the farm engines studios and labs already run, instead of a
//! scheduler of our own. A plan is one bake per wedge variant, each cut into chunks
//! that resume one another; `slurm` writes it as an sbatch job array, `openjd` as an
//! Open Job Description template, and `index` (their final step) writes `wedges.usda`.

mod openjd;
mod plan;
mod slurm;
mod wedge;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};
use usdsim_usd::{write_wedge_index, AttributeOverride, InputStage, OpenError};

use plan::Plan;
pub use wedge::Axis;

/// `usdsim farm ENGINE`.
#[derive(Debug, Subcommand, Clone)]
pub enum FarmCommand {
    /// Write a Slurm plan: an sbatch job array over the wedges, chunks chained with
    /// --dependency=afterok; prints the submit command.
    Slurm(PlanArgs),
    /// Write the plan as an Open Job Description template (AWS Deadline Cloud, `openjd run`).
    Openjd(PlanArgs),
    /// The plan's final step: write DIR/wedges.usda, a variant set `wedge` over the bakes.
    Index(IndexArgs),
}

/// What a plan bakes.
#[derive(Debug, Args, Clone)]
pub struct PlanArgs {
    /// The input stage (.usda, .usdc or .usdz); the tasks read it where it is.
    #[arg(required = true)]
    pub input: PathBuf,

    /// Frames of every bake.
    #[arg(short = 'f', long, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: u32,

    /// Frames per chunk: each bake becomes a chain of tasks that continue the output
    /// with --resume. Without it, one task bakes a wedge whole.
    #[arg(long, value_name = "C", value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk: Option<u32>,

    /// A wedge axis, PRIM.ATTR=v1,v2,... (repeatable): the variants are the Cartesian
    /// product of the axes.
    #[arg(long, value_name = "PRIM.ATTR=V1,V2,...", conflicts_with = "wedges")]
    pub wedge: Vec<Axis>,

    /// The variants, listed: a JSON array of {"name": ..., "set": ["PRIM.ATTR=VALUE", ...]}.
    #[arg(long, value_name = "FILE.json")]
    pub wedges: Option<PathBuf>,

    /// The plan's folder: scripts, logs, one folder per wedge with its bake and reports.
    #[arg(short, long, value_name = "DIR", required = true)]
    pub output: PathBuf,

    /// The usdsim executable the tasks run [default: this one].
    #[arg(long, value_name = "PATH")]
    pub usdsim: Option<String>,
}

/// `usdsim farm index DIR`.
#[derive(Debug, Args, Clone)]
pub struct IndexArgs {
    /// The plan's folder (it holds plan.json).
    #[arg(required = true)]
    pub dir: PathBuf,
}

/// Runs `usdsim farm ...`.
pub fn farm(command: &FarmCommand) -> Result<()> {
    match command {
        FarmCommand::Slurm(args) => {
            let plan = plan(args)?;
            let mut files = vec![plan.write_json()?];
            files.extend(slurm::write(&plan)?);
            print_files(&files);
            println!("submit: sh {}", plan::quote_path(&plan.dir.join("submit.sh")));
            Ok(())
        }
        FarmCommand::Openjd(args) => {
            let plan = plan(args)?;
            let template = openjd::write(&plan)?;
            print_files(&[plan.write_json()?, template.clone()]);
            println!("run: openjd run {} --step index --run-dependencies", plan::quote_path(&template));
            Ok(())
        }
        FarmCommand::Index(args) => {
            let dir = absolute(&args.dir)?;
            let bakes = plan::read_bakes(&dir)?;
            let output = dir.join(plan::INDEX_FILE);
            write_wedge_index(&output, &bakes)?;
            print_files(&[output]);
            Ok(())
        }
    }
}

/// The plan `args` describe; every wedge's overrides are checked against the stage now
/// (a usage error names the bad one), not on the farm.
fn plan(args: &PlanArgs) -> Result<Plan> {
    let wedges = wedge::wedges(&args.wedge, args.wedges.as_deref())?;
    for w in &wedges {
        check_overrides(&args.input, &w.set).with_context(|| format!("wedge {}", w.name))?;
    }
    let usdsim = match &args.usdsim {
        Some(path) => path.clone(),
        None => std::env::current_exe().context("cannot find this usdsim executable")?.display().to_string(),
    };
    Ok(Plan {
        usdsim,
        scene: absolute(&args.input)?,
        frames: args.frames,
        chunk: args.chunk.filter(|&c| c < args.frames),
        wedges,
        dir: absolute(&args.output)?,
    })
}

/// Opens the input with the overrides, as the tasks will.
fn check_overrides(input: &Path, set: &[AttributeOverride]) -> Result<()> {
    match InputStage::open_with(input, set) {
        Ok(_) => Ok(()),
        Err(OpenError::Import(err)) => Err(err.into()),
        Err(OpenError::Override(err)) => Err((*err).into()),
    }
}

/// `path` made absolute against the working directory (the tasks run elsewhere).
fn absolute(path: &Path) -> Result<PathBuf> {
    if path.as_os_str().is_empty() {
        bail!("an empty path");
    }
    std::path::absolute(path).with_context(|| format!("{}: cannot make it absolute", path.display()))
}

/// One `OUTPUT_FILE: <path>` line per file written (what Houdini PDG and farm wrappers read).
fn print_files(files: &[PathBuf]) {
    for file in files {
        println!("OUTPUT_FILE: {}", file.display());
    }
}
