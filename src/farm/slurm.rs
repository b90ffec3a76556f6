//! The plan as a Slurm job: one `sbatch` array script over the wedges (the chunk number
//! its argument), an index step, and `submit.sh`, which chains chunk k + 1 after chunk
//! k with `--dependency=afterok` and the index after the last chunk.

use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::PathBuf;

use super::plan::{quote, quote_path, Plan};

/// Writes `slurm/task.sbatch`, `slurm/index.sbatch` and `submit.sh` under the plan's
/// folder; returns the files written, `submit.sh` last.
pub fn write(plan: &Plan) -> Result<Vec<PathBuf>> {
    let slurm = plan.dir.join("slurm");
    let logs = plan.dir.join("logs");
    for dir in [&slurm, &logs] {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let task = slurm.join("task.sbatch");
    let index = slurm.join("index.sbatch");
    let submit = plan.dir.join("submit.sh");
    write_file(&task, &task_script(plan), true)?;
    let index_text = format!(
        "#!/bin/sh\n# usdsim farm plan: the index layer over every wedge's bake.\n#SBATCH --job-name=usdsim-index\n#SBATCH --output={}\n{}\n",
        quote_path(&logs.join("index.log")),
        plan.index_command()
    );
    write_file(&index, &index_text, true)?;
    write_file(&submit, &submit_script(plan, &task, &index), true)?;
    Ok(vec![task, index, submit])
}

/// The array task: `$SLURM_ARRAY_TASK_ID` picks the wedge, `$1` the chunk. Requeued
/// tasks (pre-emption, `scontrol requeue`, the time limit's SIGTERM) run again and
/// resume; their log is appended to.
fn task_script(plan: &Plan) -> String {
    let mut s = String::new();
    let log = plan.dir.join("logs").join("%x-%a.log");
    let _ = writeln!(s, "#!/bin/sh");
    let _ = writeln!(s, "# usdsim farm plan: one task per wedge (array index), chunk number as $1.");
    let _ = writeln!(s, "#SBATCH --requeue");
    let _ = writeln!(s, "#SBATCH --open-mode=append");
    let _ = writeln!(s, "#SBATCH --output={}", quote_path(&log));
    let _ = writeln!(s, "chunk=\"${{1:?chunk number}}\"");
    let _ = writeln!(s, "echo \"usdsim task: wedge index $SLURM_ARRAY_TASK_ID, chunk $chunk, job $SLURM_JOB_ID\"");
    let _ = writeln!(s, "case \"$chunk\" in");
    for k in 1..=plan.chunks() {
        let _ = writeln!(s, "  {k}) end={} ;;", plan.chunk_end(k));
    }
    let _ = writeln!(s, "  *) echo \"no chunk $chunk in this plan\" >&2; exit 2 ;;");
    let _ = writeln!(s, "esac");
    let _ = writeln!(s, "case \"$SLURM_ARRAY_TASK_ID\" in");
    for (i, wedge) in plan.wedges.iter().enumerate() {
        let _ = writeln!(s, "  {i}) {} ;;", plan.command(wedge, "\"$end\"", "\"$chunk\""));
    }
    let _ = writeln!(s, "  *) echo \"no wedge $SLURM_ARRAY_TASK_ID in this plan\" >&2; exit 2 ;;");
    let _ = writeln!(s, "esac");
    s
}

/// Submits chunk 1 of every wedge, each later chunk after the one before, the index
/// last; prints the index job's id.
fn submit_script(plan: &Plan, task: &std::path::Path, index: &std::path::Path) -> String {
    let array = format!("0-{}", plan.wedges.len() - 1);
    let mut s = String::new();
    let _ = writeln!(s, "#!/bin/sh");
    let _ =
        writeln!(s, "# Submits the usdsim farm plan in {}; extra arguments go to every sbatch.", plan.dir.display());
    let _ = writeln!(s, "set -e");
    let _ = writeln!(s, "after=");
    for k in 1..=plan.chunks() {
        let _ = writeln!(
            s,
            "job=$(sbatch --parsable $after --array={array} --job-name=usdsim-c{k} \"$@\" {} {k} | cut -d';' -f1)",
            quote_path(task)
        );
        let _ = writeln!(s, "echo \"chunk {k}: job $job\"");
        let _ = writeln!(s, "after=--dependency=afterok:$job");
    }
    let _ = writeln!(s, "job=$(sbatch --parsable $after \"$@\" {} | cut -d';' -f1)", quote_path(index));
    let _ = writeln!(s, "echo \"index: job $job\"");
    let _ =
        writeln!(s, "echo {}", quote(&format!("index layer: {}", plan.dir.join(super::plan::INDEX_FILE).display())));
    s
}

/// Writes `text` to `path`, executable when `exec`.
pub(super) fn write_file(path: &std::path::Path, text: &str, exec: bool) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    if exec {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("cannot make {} executable", path.display()))?;
    }
    Ok(())
}
