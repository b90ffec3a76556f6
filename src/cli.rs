//! Command-line arguments.
//!
//! `usdsim scene.usda --frames 240` runs a simulation; `usdsim run …` is the same
//! command spelled out. `usdsim validate FILE...` checks stages against the deformable
//! schema; `usdsim inspect FILE` shows what the importer understood.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Simulate OmniPhysics deformable bodies in an OpenUSD stage and bake the result.
#[derive(Debug, Parser)]
#[command(name = "usdsim", version, about, args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Cli {
    /// A subcommand; without one, the arguments are those of `run`.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Arguments of the implicit `run` command.
    #[command(flatten)]
    pub run: Option<RunArgs>,
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

    /// Number of frames to simulate; frame k is written at startTimeCode + k.
    #[arg(short = 'f', long, default_value_t = 240, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: u32,

    /// Output layer (.usda or .usdc). Default: <input stem>.sim.usda beside the input.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Solver substeps per frame.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub substeps: u32,

    /// Constraint iterations per substep.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1_000))]
    pub iterations: u32,

    /// Distance kept between vertices and collider surfaces, in metres (converted to
    /// stage units).
    #[arg(long, default_value_t = 0.002, value_name = "METRES")]
    pub contact_offset: f64,

    /// Let cloth (surface bodies) collide with itself. Off by default: it costs a 64²
    /// cloth about as much as its elastic solve.
    #[arg(long)]
    pub self_contact: bool,

    /// Worker threads (default: one per core). Results do not depend on it.
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,

    /// Print a machine-readable JSON summary on stdout (progress goes nowhere).
    #[arg(long)]
    pub json: bool,
}
