//! The plan as an Open Job Description job template (what AWS Deadline Cloud and
//! `openjd run` execute): one step per chunk, each over a `Wedge` task parameter and a
//! `Frame` parameter of type `CHUNK[INT]` (the `TASK_CHUNKING` extension) spanning the
//! chunk's frames in one contiguous task; each step depends on the one before, and an
//! `index` step on the last.

use anyhow::Result;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::PathBuf;

use super::plan::Plan;
use super::slurm::write_file;

/// The template's file name in the plan's folder.
pub const TEMPLATE: &str = "usdsim.openjd.json";

/// Writes the template into the plan's folder; returns its path.
pub fn write(plan: &Plan) -> Result<PathBuf> {
    std::fs::create_dir_all(&plan.dir)?;
    let path = plan.dir.join(TEMPLATE);
    write_file(&path, &(serde_json::to_string_pretty(&template(plan))? + "\n"), false)?;
    Ok(path)
}

/// The job template.
fn template(plan: &Plan) -> Value {
    let mut steps = Vec::new();
    let wedges = format!("0-{}", plan.wedges.len() - 1);
    for k in 1..=plan.chunks() {
        let first = if k == 1 { 1 } else { plan.chunk_end(k - 1) + 1 };
        let end = plan.chunk_end(k);
        let mut step = json!({
            "name": step_name(k),
            "parameterSpace": {
                "taskParameterDefinitions": [
                    { "name": "Wedge", "type": "INT", "range": wedges },
                    {
                        "name": "Frame",
                        "type": "CHUNK[INT]",
                        "range": format!("{first}-{end}"),
                        "chunks": { "defaultTaskCount": end - first + 1, "rangeConstraint": "CONTIGUOUS" }
                    }
                ]
            },
            "script": {
                "actions": { "onRun": { "command": "/bin/sh", "args": ["{{Task.File.Run}}"] } },
                "embeddedFiles": [ { "name": "Run", "type": "TEXT", "data": task_script(plan, k) } ]
            }
        });
        if k > 1 {
            step["dependencies"] = json!([{ "dependsOn": step_name(k - 1) }]);
        }
        steps.push(step);
    }
    steps.push(json!({
        "name": "index",
        "dependencies": [{ "dependsOn": step_name(plan.chunks()) }],
        "script": {
            "actions": { "onRun": { "command": "/bin/sh", "args": ["{{Task.File.Run}}"] } },
            "embeddedFiles": [ { "name": "Run", "type": "TEXT", "data": format!("{}\n", plan.index_command()) } ]
        }
    }));
    let stem = plan.scene.file_stem().map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned());
    json!({
        "specificationVersion": "jobtemplate-2023-09",
        "extensions": ["TASK_CHUNKING"],
        "name": format!("usdsim {stem}: {} wedges x {} chunks", plan.wedges.len(), plan.chunks()),
        "steps": steps,
    })
}

fn step_name(k: u32) -> String {
    format!("chunk-{k}")
}

/// The task's shell script: the chunk's last frame from the `Frame` chunk (`a-b`, or a
/// single frame), the wedge from `Wedge`.
fn task_script(plan: &Plan, k: u32) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "frames='{{{{Task.Param.Frame}}}}'");
    let _ = writeln!(s, "end=${{frames##*-}}");
    let _ = writeln!(s, "echo \"usdsim task: wedge {{{{Task.Param.Wedge}}}}, frames $frames\"");
    let _ = writeln!(s, "case '{{{{Task.Param.Wedge}}}}' in");
    for (i, wedge) in plan.wedges.iter().enumerate() {
        let _ = writeln!(s, "  {i}) {} ;;", plan.command(wedge, "\"$end\"", &k.to_string()));
    }
    let _ = writeln!(s, "  *) echo 'no such wedge' >&2; exit 2 ;;");
    let _ = writeln!(s, "esac");
    s
}
