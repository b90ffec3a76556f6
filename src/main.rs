//! `usdsim`: simulate the deformable bodies of an OpenUSD stage and bake the result
//! into a new layer.
//!
//! The binary only wires the two libraries together: `usdsim-usd` imports the stage
//! and exports frames, `usdsim-core` simulates. Exit codes: 0 success, 1 input or
//! simulation error, 2 usage error (clap's own).

mod cli;
mod progress;
mod run;
mod summary;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match cli.command {
        Some(cli::Command::Run(args)) => run::run(&args),
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
