//! The `validate` command: check stages against the deformable schema rules and print
//! the findings as text or JSON.

use std::process::ExitCode;

use usdsim_usd::validate::{validate as check_file, Report, Severity};

use crate::cli::ValidateArgs;
use crate::report::Style;

/// Exit status when every file was read and passes.
const CLEAN: u8 = 0;
/// Exit status when a file has errors (or warnings under `--strict`).
const FINDINGS: u8 = 1;
/// Exit status when a file could not be read or parsed.
const UNREADABLE: u8 = 2;

/// Validates every file in `args`, prints the reports and returns the exit status:
/// 2 if any file could not be read, else 1 if any file fails, else 0.
pub fn validate(args: &ValidateArgs, style: Style) -> ExitCode {
    let mut status = CLEAN;
    let mut json_files = Vec::new();
    for file in &args.files {
        match check_file(file) {
            Ok(report) => {
                if !report.passes(args.strict) {
                    status = status.max(FINDINGS);
                }
                if args.json {
                    json_files.push(report.json());
                } else {
                    print_text(&report, args.quiet, style);
                }
            }
            Err(err) => {
                status = UNREADABLE;
                if args.json {
                    json_files
                        .push(serde_json::json!({ "file": file.display().to_string(), "unreadable": err.to_string() }));
                } else {
                    eprintln!("{}: {err}", style.label(Severity::Error, ""));
                }
            }
        }
    }
    if args.json {
        let out = serde_json::json!({ "strict": args.strict, "status": status, "files": json_files });
        match serde_json::to_string_pretty(&out) {
            Ok(text) => println!("{text}"),
            Err(err) => {
                eprintln!("error: cannot write the JSON report: {err}");
                return ExitCode::from(UNREADABLE);
            }
        }
    }
    ExitCode::from(status)
}

/// Findings on stdout, one per line, then the file's summary line.
fn print_text(report: &Report, quiet: bool, style: Style) {
    for diagnostic in &report.diagnostics {
        if !quiet || diagnostic.severity == Severity::Error {
            println!("{}", style.line(diagnostic));
        }
    }
    if !quiet {
        println!("{}", report.summary_line());
    }
}
