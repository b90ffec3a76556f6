//! `usdsim`: simulate the deformable bodies of an OpenUSD stage and bake the result
//! into a new layer.
//!
//! The binary only wires the two libraries together: `usdsim-usd` imports the stage
//! and exports frames, `usdsim-core` simulates. Exit codes: 0 success, 1 input or
//! simulation error (for `validate`: findings), 2 usage error (clap's own; for
//! `validate`: a file that cannot be read).

mod cli;
mod inspect;
mod preview;
mod progress;
mod run;
mod summary;
mod validate;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match cli.command {
        Some(cli::Command::Run(args)) => run::run(&args),
        Some(cli::Command::Validate(args)) => return validate::validate(&args),
        Some(cli::Command::Inspect(args)) => inspect::inspect(&args),
        Some(cli::Command::Preview(args)) => preview::preview(&args),
        None => match cli.run {
            Some(args) => run::run(&args),
            None => {
                // clap's `subcommand_negates_reqs` leaves both empty only for `usdsim`
                // with no arguments at all.
                let _ = <cli::Cli as clap::CommandFactory>::command().print_help();
                return ExitCode::from(2);
            }
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(1)
        }
    }
}
