//! `usdsim farm`: plans run by real engines. A one-node Slurm cluster
//! (`tests/farm/slurm-up.sh`: munged, slurmctld, slurmd, no systemd or cgroups) runs
//! the sbatch plan; Open Job Description's reference CLI checks and runs the template.
//! Every wedge's bake must be byte-identical to a local `usdsim --set ...` run of the
//! same wedge, and `wedges.usda` must open in Pixar's USD with one variant per wedge.
//!
//! Under CI (`CI=true`) a machine that cannot start an engine fails the test; locally
//! the test skips with a note that says why.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{testdata, usdsim};

const SCENE: &str = "free_fall_authored_gravity.usda";
const AXIS: &str = "/World/PhysicsScene.physics:gravityMagnitude";
const VALUES: [&str; 3] = ["2", "5", "10"];
/// Frames per bake; chunked plans cut them in two.
const FRAMES: u32 = 12;
/// How long a whole plan may take on the cluster.
const PLAN_TIMEOUT: Duration = Duration::from_secs(120);

/// One cluster at a time: they share ports and a host name.
static CLUSTER: Mutex<()> = Mutex::new(());

/// Skips (locally) or fails (under CI) for an engine that cannot start.
fn unavailable(engine: &str, why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{engine} is needed under CI and cannot start: {why}");
    }
    eprintln!("note: skipping: {engine} cannot start here: {why}");
}

/// A running one-node cluster; stopped when dropped.
struct Slurm {
    state: tempfile::TempDir,
    conf: PathBuf,
}

impl Slurm {
    /// Starts the cluster, or says why not.
    fn up() -> Result<Slurm, String> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/farm/slurm-up.sh");
        let state = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = Command::new("sh").arg(&script).arg(state.path()).output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            let _ = Command::new("sh").arg(&script).arg(state.path()).arg("down").status();
            return Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)));
        }
        let conf = state.path().join("slurm.conf");
        Ok(Slurm { state, conf })
    }

    /// A Slurm client command against this cluster.
    fn command(&self, tool: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(format!("PATH=\"$PATH:/usr/sbin\" exec {tool} \"$@\"")).arg(tool);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    /// Runs the plan's `submit.sh`, then waits until the queue is empty.
    fn submit_and_wait(&self, plan: &Path) {
        let out = self.command("sh").arg(plan.join("submit.sh")).output().unwrap();
        assert!(out.status.success(), "submit.sh failed: {}", String::from_utf8_lossy(&out.stderr));
        self.wait_empty(plan);
    }

    /// Waits (bounded) until no job is pending or running.
    fn wait_empty(&self, plan: &Path) {
        let start = Instant::now();
        loop {
            let out = self.command("squeue").args(["-h", "-o", "%i %T %r"]).output().unwrap();
            let queue = String::from_utf8_lossy(&out.stdout).to_string();
            if out.status.success() && queue.trim().is_empty() {
                return;
            }
            if queue.contains("DependencyNeverSatisfied") || start.elapsed() > PLAN_TIMEOUT {
                panic!("the plan did not finish: queue:\n{queue}\nlogs:\n{}", logs(plan));
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/farm/slurm-up.sh");
        let _ = Command::new("sh").arg(script).arg(self.state.path()).arg("down").status();
    }
}

/// Every task log of a plan, for failure messages.
fn logs(plan: &Path) -> String {
    let mut text = String::new();
    if let Ok(entries) = std::fs::read_dir(plan.join("logs")) {
        for entry in entries.flatten() {
            text += &format!(
                "--- {}\n{}\n",
                entry.path().display(),
                std::fs::read_to_string(entry.path()).unwrap_or_default()
            );
        }
    }
    text
}

/// What a plan bakes: its wedge axes, the run options after `--`, and each wedge's name
/// with the flags a local run of it takes.
struct Variants {
    axes: Vec<String>,
    run: Vec<String>,
    wedges: Vec<(String, Vec<String>)>,
}

/// The three wedges of one attribute axis, no run options.
fn gravity_wedges() -> Variants {
    Variants {
        axes: vec![format!("{AXIS}={}", VALUES.join(","))],
        run: Vec::new(),
        wedges: VALUES
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("w{i}"), vec!["--set".into(), format!("{AXIS}={v}")]))
            .collect(),
    }
}

/// A run option for every task (`-- --self-contact`) and a wedge over a run option
/// (`--wedge substeps=16,30`) crossed with the gravity axis's ends: two of the tasks
/// run `--self-contact --substeps 30`.
fn run_option_wedges() -> Variants {
    let run: Vec<String> = vec!["--self-contact".into()];
    let mut wedges = Vec::new();
    for (substeps, g) in [("16", "2"), ("16", "10"), ("30", "2"), ("30", "10")] {
        let name = format!("w{}_substeps{substeps}", wedges.len());
        let mut flags = run.clone();
        flags.extend(["--substeps".into(), substeps.into(), "--set".into(), format!("{AXIS}={g}")]);
        wedges.push((name, flags));
    }
    Variants { axes: vec!["substeps=16,30".into(), format!("{AXIS}=2,10")], run, wedges }
}

/// The plan's arguments: `variants`, chunked or not.
fn plan_args(engine: &str, dir: &Path, chunk: Option<u32>, variants: &Variants) -> Vec<String> {
    let mut args = vec![
        "farm".to_string(),
        engine.to_string(),
        testdata(SCENE).display().to_string(),
        "--frames".into(),
        FRAMES.to_string(),
        "-o".into(),
        dir.display().to_string(),
    ];
    for axis in &variants.axes {
        args.extend(["--wedge".into(), axis.clone()]);
    }
    if let Some(c) = chunk {
        args.extend(["--chunk".into(), c.to_string()]);
    }
    if !variants.run.is_empty() {
        args.push("--".into());
        args.extend(variants.run.iter().cloned());
    }
    args
}

/// Bakes each wedge locally, uninterrupted, by hand with its flags into
/// `local/NAME/bake.usdc` (the same depth as the plan's bakes, so the relative sublayer
/// path is the same), and checks that every file of each of the plan's wedge folders
/// (reports aside) equals the local one.
fn assert_identical_to_local(plan: &Path, local: &Path, chunk: Option<u32>, variants: &Variants) {
    for (name, flags) in &variants.wedges {
        let out = local.join(name).join("bake.usdc");
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        let mut args = vec![testdata(SCENE).display().to_string(), "--frames".into(), FRAMES.to_string()];
        args.extend(["-o".into(), out.display().to_string(), "-q".into()]);
        args.extend(flags.iter().cloned());
        if let Some(c) = chunk {
            args.extend(["--chunk".into(), c.to_string()]);
        }
        usdsim(&args).assert_success();
        let name = name.as_str();
        let files = bake_files(&local.join(name));
        assert!(!files.is_empty());
        assert_eq!(files, bake_files(&plan.join(name)), "wedge {name}: the plan wrote other files than a local run");
        for file in files {
            let (a, b) =
                (std::fs::read(local.join(name).join(&file)).unwrap(), std::fs::read(plan.join(name).join(&file)));
            assert!(
                b.as_ref().is_ok_and(|b| *b == a),
                "wedge {name}: {} differs from a local run\n{}",
                file.display(),
                logs(plan)
            );
        }
    }
}

/// The files under a wedge's folder, relative, reports (which hold timings) left out.
fn bake_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if !path.file_name().unwrap().to_string_lossy().starts_with("report-") {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    files.sort();
    files
}

/// `wedges.usda` opens in Pixar's USD with one variant per wedge, in order, each showing
/// its own bake (the tet's first point at the last frame as in the bake itself, and
/// different for every variant) and documenting the settings it was baked with.
fn assert_index_opens_in_usd_core(plan: &Path, variants: &Variants) {
    let script = r#"
import json, os, sys
from pxr import Usd
index = sys.argv[1]
stage = Usd.Stage.Open(index)
prim = stage.GetDefaultPrim()
vset = prim.GetVariantSets().GetVariantSet("wedge")
rows = []
for name in vset.GetVariantNames():
    vset.SetVariantSelection(name)
    pts = stage.GetPrimAtPath("/World/Frame/Tet").GetAttribute("points").Get(stage.GetEndTimeCode())
    bake = Usd.Stage.Open(os.path.join(os.path.dirname(index), name, "bake.usdc"))
    own = bake.GetPrimAtPath("/World/Frame/Tet").GetAttribute("points").Get(bake.GetEndTimeCode())
    rows.append({"name": name, "y": pts[0][1], "own": own[0][1], "doc": prim.GetDocumentation()})
print(json.dumps(rows))
"#;
    let Some(python) = common::pxr::python("the wedge index check") else { return };
    let out = Command::new(python).arg("-c").arg(script).arg(plan.join("wedges.usda")).output().unwrap();
    assert!(out.status.success(), "usd-core cannot open wedges.usda: {}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("the script prints JSON");
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    let expected: Vec<&str> = variants.wedges.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, expected, "the index's variants");
    let mut ys: Vec<f64> = Vec::new();
    for (row, (name, flags)) in rows.iter().zip(&variants.wedges) {
        assert_eq!(row["y"], row["own"], "variant {name} does not show its own bake: {rows:?}");
        let y = row["y"].as_f64().unwrap();
        assert!(ys.iter().all(|other| *other != y), "variant {name} shows another variant's result: {rows:?}");
        ys.push(y);
        let doc = row["doc"].as_str().unwrap();
        assert!(doc.contains(&flags.join(" ")), "variant {name}'s doc does not name its settings {flags:?}: {doc}");
    }
}

fn slurm_plan(chunk: Option<u32>, variants: &Variants) {
    let _one = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    let cluster = match Slurm::up() {
        Ok(c) => c,
        Err(why) => return unavailable("Slurm", &why),
    };
    let dir = common::temp_dir();
    let (plan, local) = (dir.path().join("plan"), dir.path().join("local"));
    let outcome = usdsim(plan_args("slurm", &plan, chunk, variants));
    outcome.assert_success();
    assert!(outcome.stdout.contains("submit: sh "), "{}", outcome.stdout);
    cluster.submit_and_wait(&plan);
    assert!(plan.join("wedges.usda").exists(), "no wedges.usda:\n{}", logs(&plan));
    assert_identical_to_local(&plan, &local, chunk, variants);
    assert_index_opens_in_usd_core(&plan, variants);
    assert_plan_records_commands(&plan, variants);
}

#[test]
fn slurm_runs_three_wedges_identical_to_local_runs() {
    slurm_plan(None, &gravity_wedges());
}

#[test]
fn slurm_runs_three_wedges_in_two_chained_chunks() {
    slurm_plan(Some(FRAMES / 2), &gravity_wedges());
}

/// Run options after `--` reach every task, and a wedge over `--substeps` varies them:
/// each task's bake equals the same bake run by hand with those flags.
#[test]
fn slurm_tasks_take_the_run_options_and_a_wedge_over_substeps() {
    slurm_plan(Some(FRAMES / 2), &run_option_wedges());
}

/// A task killed mid-bake (`scontrol requeue` sends SIGTERM, as the time limit does)
/// runs again, resumes its output, and the bake ends byte-identical.
#[test]
fn slurm_requeued_task_resumes_identical() {
    let _one = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    let cluster = match Slurm::up() {
        Ok(c) => c,
        Err(why) => return unavailable("Slurm", &why),
    };
    let dir = common::temp_dir();
    let (plan, local) = (dir.path().join("plan"), dir.path().join("local"));
    // A long single wedge on a bigger scene, so the kill lands mid-bake.
    let frames = 400;
    let scene = testdata("tet_cube_on_ground.usda");
    let set = "/World/Materials/Jelly.omniphysics:youngsModulus=2e5";
    let args = ["farm", "slurm", scene.to_str().unwrap(), "--frames", "400", "--chunk", "100"];
    let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    args.extend(["--wedge".into(), set.into(), "-o".into(), plan.display().to_string()]);
    usdsim(&args).assert_success();
    let out = cluster.command("sh").arg(plan.join("submit.sh")).output().unwrap();
    assert!(out.status.success());
    let first = String::from_utf8_lossy(&out.stdout).lines().next().unwrap().rsplit(' ').next().unwrap().to_string();
    let log = plan.join("logs").join("usdsim-c1-0.log");
    let start = Instant::now();
    while !std::fs::read_to_string(&log).unwrap_or_default().contains("frame 2") {
        assert!(start.elapsed() < PLAN_TIMEOUT, "the task never started:\n{}", logs(&plan));
        std::thread::sleep(Duration::from_millis(50));
    }
    let requeue = cluster.command("scontrol").args(["requeue", &format!("{first}_0")]).output().unwrap();
    assert!(requeue.status.success(), "{}", String::from_utf8_lossy(&requeue.stderr));
    cluster.wait_empty(&plan);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.matches("usdsim task:").count() >= 2, "the task was not requeued:\n{text}");
    let out = local.join("w0").join("bake.usdc");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let frames = frames.to_string();
    usdsim([
        scene.to_str().unwrap(),
        "--frames",
        &frames,
        "--chunk",
        "100",
        "-q",
        "--set",
        set,
        "-o",
        out.to_str().unwrap(),
    ])
    .assert_success();
    for file in bake_files(&local.join("w0")) {
        let a = std::fs::read(local.join("w0").join(&file)).unwrap();
        assert_eq!(std::fs::read(plan.join("w0").join(&file)).ok(), Some(a), "{} differs", file.display());
    }
}

/// `openjd` on `PATH`, or why not.
fn openjd() -> Result<(), String> {
    match Command::new("openjd").arg("--help").output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
        Err(err) => Err(format!("openjd: {err} (pip install openjd-cli)")),
    }
}

fn openjd_plan(chunk: Option<u32>, variants: &Variants) {
    if let Err(why) = openjd() {
        return unavailable("Open Job Description (openjd-cli)", &why);
    }
    let dir = common::temp_dir();
    let (plan, local) = (dir.path().join("plan"), dir.path().join("local"));
    let outcome = usdsim(plan_args("openjd", &plan, chunk, variants));
    outcome.assert_success();
    let template = plan.join("usdsim.openjd.json");
    let check = Command::new("openjd").arg("check").arg(&template).output().unwrap();
    assert!(
        check.status.success(),
        "openjd check: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let run = Command::new("timeout")
        .arg(PLAN_TIMEOUT.as_secs().to_string())
        .args(["openjd", "run"])
        .arg(&template)
        .args(["--step", "index", "--run-dependencies"])
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success(), "openjd run:\n{text}");
    assert!(text.contains("OUTPUT_FILE: "), "{text}");
    assert_identical_to_local(&plan, &local, chunk, variants);
    assert_index_opens_in_usd_core(&plan, variants);
    assert_plan_records_commands(&plan, variants);
}

#[test]
fn openjd_template_checks_and_runs_three_wedges_identical_to_local_runs() {
    openjd_plan(None, &gravity_wedges());
}

#[test]
fn openjd_runs_three_wedges_in_two_dependent_chunk_steps() {
    openjd_plan(Some(FRAMES / 2), &gravity_wedges());
}

/// The same run options and substeps wedge through Open Job Description.
#[test]
fn openjd_tasks_take_the_run_options_and_a_wedge_over_substeps() {
    openjd_plan(None, &run_option_wedges());
}

/// `plan.json` records every task's full command, with the wedge's flags in it.
fn assert_plan_records_commands(plan: &Path, variants: &Variants) {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(plan.join("plan.json")).unwrap()).unwrap();
    let wedges = json["wedges"].as_array().unwrap();
    assert_eq!(wedges.len(), variants.wedges.len());
    for (w, (name, flags)) in wedges.iter().zip(&variants.wedges) {
        assert_eq!(w["name"], name.as_str());
        let tasks = w["tasks"].as_array().unwrap();
        assert!(!tasks.is_empty(), "{w}");
        for task in tasks {
            let command = task["command"].as_str().unwrap();
            for flag in flags {
                assert!(command.contains(flag.as_str()), "{name}: the task command lacks {flag}: {command}");
            }
        }
    }
}

/// A bad wedge is refused when the plan is written (exit 2, naming it), not on the farm.
#[test]
fn a_bad_wedge_is_a_usage_error_before_any_plan_is_written() {
    let dir = common::temp_dir();
    let plan = dir.path().join("plan");
    let mut args = plan_args("slurm", &plan, None, &gravity_wedges());
    args.extend(["--wedge".into(), "/World/Nope.physics:gravityMagnitude=1,2".into()]);
    let outcome = usdsim(&args);
    outcome.assert_no_panic();
    assert_eq!(outcome.code, Some(2), "{}", outcome.stderr);
    assert!(outcome.stderr.contains("no prim /World/Nope"), "{}", outcome.stderr);
    assert!(!plan.exists(), "a plan was written for a bad wedge");
}

/// Run options and run-option wedges are parsed as `usdsim run` parses them when the
/// plan is written: a bad, clashing or plan-owned one is a usage error (exit 2) naming
/// it, and no plan is written.
#[test]
fn bad_run_options_are_usage_errors_before_any_plan_is_written() {
    let dir = common::temp_dir();
    let plan = dir.path().join("plan");
    for (extra, says) in [
        (&["--", "--frames", "3"][..], "--frames is set by the plan"),
        (&["--", "-o", "x.usdc"], "-o/--output is set by the plan"),
        (&["--", "--substepz", "3"], "unexpected argument '--substepz'"),
        (&["--", "--substeps", "0"], "0 is out of range"),
        (&["--wedge", "substepz=1,2"], "no option --substepz; did you mean --substeps?"),
        (&["--wedge", "chunk=1,2"], "--chunk is set by the plan"),
        (&["--wedge", "self-contact=maybe"], "a switch"),
        (&["--wedge", "substeps=8,16", "--", "--substeps", "2"], "cannot be used multiple times"),
    ] {
        let mut args = plan_args("openjd", &plan, None, &gravity_wedges());
        args.extend(extra.iter().map(|s| s.to_string()));
        let outcome = usdsim(&args);
        outcome.assert_no_panic();
        assert_eq!(outcome.code, Some(2), "{extra:?}: {}", outcome.stderr);
        assert!(outcome.stderr.contains(says), "{extra:?}: expected {says:?} in:\n{}", outcome.stderr);
        assert!(!plan.exists(), "{extra:?}: a plan was written");
    }
}
