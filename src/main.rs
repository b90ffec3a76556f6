//! `usdsim`: simulate the deformable bodies of an OpenUSD stage and bake the result
//! into a new layer.
//!
//! The binary only wires: the `usdsim` library holds the commands (`src/lib.rs`), on
//! `usdsim-usd`, which imports the stage and exports frames, and `usdsim-core`, which
//! simulates. Exit codes: 0 success, 1 invalid or
//! unreadable input (for `validate`: findings), 2 usage error (for `validate`: a file
//! that cannot be read; also a CPU without the features this build uses), 3 the
//! simulation diverged, 4 the output cannot be written.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, FromArgMatches};
use std::ffi::OsString;
use std::process::ExitCode;

use usdsim::console::Console;
use usdsim::failure::{self, Failure, USAGE};
use usdsim::report::{Reporter, Style};
use usdsim::{cli, cpu, farm, inspect, prepare, preview, run, summary, upgrade, validate};
use usdsim_usd::validate::Severity;

fn main() -> ExitCode {
    // First, before any code compiled for the build's CPU level runs (src/cpu.rs).
    if let Some(message) = cpu::unsupported(&cpu::features()) {
        eprintln!("error: {message}");
        return ExitCode::from(USAGE);
    }
    wired_main()
}

/// Everything `main` does once the CPU is known to run this build.
#[inline(never)]
fn wired_main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    if argv.len() == 1 {
        // No arguments at all: the help, as a newcomer's first try deserves.
        let _ = cli::Cli::command().print_help();
        return ExitCode::from(USAGE);
    }
    let json = argv.iter().any(|a| a == "--json");
    let cli = match parse(&argv) {
        Ok(cli) => cli,
        Err(message) => return usage_error(&message, json),
    };
    let style = Style::new(cli.color);
    match cli.command {
        Some(cli::Command::Run(args)) => run(&args, style),
        Some(cli::Command::Validate(args)) => validate::validate(&args, style),
        Some(cli::Command::Inspect(args)) => finish(inspect::inspect(&args), false, &Reporter::new(style, true)),
        Some(cli::Command::Preview(args)) => finish(preview::preview(&args), false, &Reporter::new(style, true)),
        Some(cli::Command::Prepare(args)) => finish(prepare::prepare(&args), false, &Reporter::new(style, true)),
        Some(cli::Command::Upgrade(args)) => finish(upgrade::upgrade(&args), false, &Reporter::new(style, true)),
        Some(cli::Command::Farm(command)) => finish(farm::farm(&command), false, &Reporter::new(style, true)),
        None => match cli.run {
            Some(args) => run(&args, style),
            None => {
                let _ = cli::Cli::command().print_help();
                ExitCode::from(USAGE)
            }
        },
    }
}

/// Runs a simulation and prints its summary (text on stderr, or JSON on stdout).
fn run(args: &cli::RunArgs, style: Style) -> ExitCode {
    let mut reporter = Reporter::new(style, args.quiet || args.json);
    match run::run(args, &mut reporter, &mut Console::new(args.quiet || args.json, args.json)) {
        Ok(summary) => {
            if let Some(path) = &args.report {
                let mut report = summary.json(reporter.warnings_json());
                report["frame_ms"] = summary::frame_percentiles(&summary.frame_ms);
                if let Err(err) = write_report(path, &report) {
                    eprintln!(
                        "{}: {}: cannot write the report: {err}",
                        reporter.style().label(Severity::Error, ""),
                        path.display()
                    );
                    return ExitCode::from(failure::OUTPUT);
                }
            }
            if args.json {
                print_json(&summary.json(reporter.warnings_json()));
            } else if !args.quiet {
                eprintln!("{}", summary.text());
            }
            ExitCode::SUCCESS
        }
        Err(err) => {
            if let Some(path) = &args.report {
                let _ = write_report(path, &Failure::of(&err).json(reporter.warnings_json()));
            }
            finish(Err(err), args.json, &reporter)
        }
    }
}

/// Prints a command's failure (as JSON on stdout too under `--json`) and gives its exit
/// status.
fn finish(result: anyhow::Result<()>, json: bool, reporter: &Reporter) -> ExitCode {
    let Err(err) = result else {
        return ExitCode::SUCCESS;
    };
    let failure = Failure::of(&err);
    eprintln!("{}: {}", reporter.style().label(Severity::Error, ""), failure.message);
    if json {
        print_json(&failure.json(reporter.warnings_json()));
    }
    ExitCode::from(failure.exit_code)
}

/// Writes `--report`'s JSON to `path` through a temporary name, so a reader never sees
/// half a report.
fn write_report(path: &std::path::Path, value: &serde_json::Value) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    let name = path.file_name().map_or_else(|| "report".into(), |n| n.to_string_lossy().into_owned());
    let temp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    std::fs::write(&temp, text + "\n")?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

/// Writes the JSON report on stdout; a closed pipe (`| head`) is not worth a panic.
fn print_json(value: &serde_json::Value) {
    use std::io::Write;
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|err| format!("{{\"error\": \"{err}\"}}"));
    let _ = writeln!(std::io::stdout(), "{text}");
}

/// Parses the command line, adding what clap cannot know: a mistyped subcommand (which
/// it would read as the input file of the implicit `run`), and a second input file.
fn parse(argv: &[OsString]) -> Result<cli::Cli, String> {
    if let Some(first) = argv.get(1).and_then(|a| a.to_str()) {
        if !first.starts_with('-') && !std::path::Path::new(first).exists() {
            if let Some(near) =
                cli::SUBCOMMANDS.iter().find(|name| strsim::levenshtein(first, name) <= 2 && first != **name)
            {
                return Err(format!(
                    "error: unrecognized subcommand '{first}'\n\n  tip: a similar subcommand exists: '{near}'\n\nFor more information, try '--help'."
                ));
            }
        }
    }
    let mut command = cli::Cli::command();
    let matches = command.try_get_matches_from_mut(argv).map_err(explain)?;
    cli::Cli::from_arg_matches(&matches).map_err(|err| err.render().to_string())
}

/// clap's message, or ours where a newcomer's mistake deserves a better one.
fn explain(err: clap::Error) -> String {
    if matches!(err.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = err.print();
        std::process::exit(0);
    }
    // A second file after the input: clap reads it as a subcommand that conflicts with
    // the input (the implicit `run`), or as an unexpected argument (`usdsim run a b`).
    let extra = match err.kind() {
        ErrorKind::ArgumentConflict => err.get(ContextKind::InvalidSubcommand),
        ErrorKind::UnknownArgument => err.get(ContextKind::InvalidArg),
        _ => None,
    };
    if let Some(ContextValue::String(extra)) = extra {
        if !extra.starts_with('-') {
            return format!(
                "error: one input stage is expected, but '{extra}' follows it\n\n  tip: bake each stage with its own command, or check several with 'usdsim validate FILE...'\n\nFor more information, try '--help'."
            );
        }
    }
    err.render().to_string()
}

/// Prints a usage error (and under `--json` its JSON object) and exits 2.
fn usage_error(message: &str, json: bool) -> ExitCode {
    eprint!("{}", if message.ends_with('\n') { message.to_string() } else { format!("{message}\n") });
    if json {
        let first = message.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
        print_json(&serde_json::json!({
            "ok": false,
            "exit_code": USAGE,
            "error": { "code": "usage", "message": first, "location": null },
            "errors": [],
            "warnings": [],
        }));
    }
    ExitCode::from(USAGE)
}
