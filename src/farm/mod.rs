//! `usdsim farm`: plans for the farm engines studios and labs already run, instead of a
//! scheduler of our own. A plan is one bake per wedge variant, each cut into chunks
//! that resume one another; `slurm` writes it as an sbatch job array, `openjd` as an
//! Open Job Description template, and `index` (their final step) writes `wedges.usda`.

mod openjd;
mod plan;
mod slurm;
mod wedge;

use anyhow::{bail, Context, Result};
use clap::{ArgAction, Args, CommandFactory, Parser, Subcommand};
use std::path::{Path, PathBuf};
use usdsim_usd::{write_wedge_index, AttributeOverride, InputStage, OpenError};

use crate::cli::RunArgs;
use crate::failure::Usage;

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

    /// A wedge axis (repeatable): an attribute, PRIM.ATTR=v1,v2,..., or an option of
    /// `usdsim run`, OPTION=v1,v2,... (`substeps=16,24,32`; a switch takes true,false).
    /// The variants are the Cartesian product of the axes.
    #[arg(long, value_name = "PRIM.ATTR=V1,V2,...|OPTION=V1,V2,...", conflicts_with = "wedges")]
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

    /// Options of `usdsim run` that every task passes on, after `--`:
    /// `-- --substeps 30 --self-contact`. The plan sets the input, frames, output, chunk,
    /// resume and report itself.
    #[arg(last = true, value_name = "RUN OPTIONS")]
    pub run: Vec<String>,
}

/// `usdsim run`'s own arguments, parsed from a task's command line exactly as the task
/// will parse them: one definition of every option, its range and its conflicts.
#[derive(Debug, Parser)]
#[command(name = "usdsim")]
struct TaskLine {
    #[command(flatten)]
    run: RunArgs,
}

/// The words `--wedge NAME=VALUE` adds to a task's command line: `--NAME VALUE`, or for
/// a switch (`self-contact`) `--NAME` when true and nothing when false.
fn run_option_words(name: &str, value: &str) -> Result<Vec<String>> {
    let command = TaskLine::command();
    let Some(arg) = command.get_arguments().find(|a| a.get_long() == Some(name)) else {
        let closest = command
            .get_arguments()
            .filter_map(|a| a.get_long())
            .min_by_key(|known| strsim::levenshtein(name, known))
            .filter(|known| strsim::levenshtein(name, known) <= 2);
        let hint = closest.map_or_else(String::new, |c| format!("; did you mean --{c}?"));
        bail!(Usage(format!("`usdsim run` has no option --{name}{hint}")));
    };
    match arg.get_action() {
        ArgAction::SetTrue => match value {
            "true" | "on" | "yes" => Ok(vec![format!("--{name}")]),
            "false" | "off" | "no" => Ok(Vec::new()),
            other => bail!(Usage(format!("--{name} is a switch: its wedge values are true or false, not {other:?}"))),
        },
        _ => Ok(vec![format!("--{name}"), value.to_string()]),
    }
}

/// Parses one task's run options (`words`, after its input) as `usdsim run` will, so a
/// bad or clashing option is a usage error when the plan is written, not a failed task;
/// so is one of the options the plan sets itself per task, however it was spelled.
fn parse_task(scene: &Path, words: &[String], what: &str) -> Result<RunArgs> {
    let line = [std::ffi::OsString::from("usdsim"), scene.as_os_str().to_owned()]
        .into_iter()
        .chain(words.iter().map(Into::into));
    let parsed = TaskLine::try_parse_from(line).map_err(|err| {
        let text = err.to_string();
        let first = text.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
        Usage(format!("{what}: `{}`: {first}", words.join(" ")))
    })?;
    let run = parsed.run;
    let owned = [
        ("-o/--output", run.output.is_some()),
        ("--frames", run.frames.is_some()),
        ("--chunk", run.chunk.is_some()),
        ("--resume", run.resume),
        ("--report", run.report.is_some()),
    ];
    if let Some((flag, _)) = owned.iter().find(|(_, given)| *given) {
        bail!(Usage(format!(
            "{what}: {flag} is set by the plan for every task; give --frames and --chunk to `usdsim farm` itself"
        )));
    }
    Ok(run)
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
    parse_task(&args.input, &args.run, "the run options after --")?;
    let wedges = wedge::wedges(&args.wedge, args.wedges.as_deref(), &run_option_words)?;
    for w in &wedges {
        let words: Vec<String> = args.run.iter().chain(&w.settings()).cloned().collect();
        let task = parse_task(&args.input, &words, &format!("wedge {}", w.name))?;
        check_overrides(&args.input, &task.set).with_context(|| format!("wedge {}", w.name))?;
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
        run: args.run.clone(),
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
