//! One way for every test that checks our output with Pixar's USD to get a Python that
//! has it (`usd-core` and `numpy`).
//!
//! The machine's `python3` is used when it imports both. Otherwise a virtual
//! environment is made once under `target/pxr-venv` with both from pip, and reused by
//! every later test and run. When neither works (no Python, no network) a test skips
//! with one note naming what is missing, except under CI (`CI` set), where a Pixar check
//! that did not run is a silent hole and the test fails instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// What the Pixar checks need from pip.
const PACKAGES: &[&str] = &["usd-core", "numpy"];

/// What a Python must import to count.
const PROBE: &str = "import pxr.Usd, pxr.Sdf, pxr.UsdValidation, numpy";

/// The venv's folder: under the workspace's `target/`, so `cargo clean` removes it.
fn venv_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("pxr-venv")
}

fn venv_python(dir: &Path) -> PathBuf {
    dir.join("bin").join("python3")
}

fn imports_pxr(python: &Path) -> bool {
    Command::new(python).args(["-c", PROBE]).output().is_ok_and(|o| o.status.success())
}

fn describe(what: &str, out: std::io::Result<Output>) -> Result<(), String> {
    match out {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!("{what} failed: {}", String::from_utf8_lossy(&o.stderr).trim())),
        Err(err) => Err(format!("{what}: {err}")),
    }
}

/// Makes the venv, or waits for another test process making it (a file lock beside
/// it), then checks it imports Pixar's USD.
fn make_venv(dir: &Path) -> Result<PathBuf, String> {
    let python = venv_python(dir);
    let parent = dir.parent().expect("the venv has a parent folder");
    std::fs::create_dir_all(parent).map_err(|err| format!("{}: {err}", parent.display()))?;
    let lock_path = dir.with_extension("lock");
    let lock = std::fs::File::create(&lock_path).map_err(|err| format!("{}: {err}", lock_path.display()))?;
    lock.lock().map_err(|err| format!("{}: {err}", lock_path.display()))?;
    if imports_pxr(&python) {
        return Ok(python);
    }
    note(&format!(
        "`import pxr` fails in python3; installing {} into {} (once)",
        PACKAGES.join(" and "),
        dir.display()
    ));
    describe("python3 -m venv", Command::new("python3").args(["-m", "venv", "--clear"]).arg(dir).output())?;
    let pip = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
        .args(PACKAGES)
        .output();
    describe(&format!("pip install {}", PACKAGES.join(" ")), pip)?;
    if imports_pxr(&python) {
        Ok(python)
    } else {
        Err(format!("{} still cannot `{PROBE}`", python.display()))
    }
}

fn find() -> Result<PathBuf, String> {
    let system = PathBuf::from("python3");
    if imports_pxr(&system) {
        return Ok(system);
    }
    let dir = venv_dir();
    if imports_pxr(&venv_python(&dir)) {
        return Ok(venv_python(&dir));
    }
    make_venv(&dir)
}

/// A Python that imports Pixar's USD and numpy, or `None` (after one note) where none
/// can be had outside CI. `check` names the test's check, for the note.
pub fn python(check: &str) -> Option<PathBuf> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match FOUND.get_or_init(find) {
        Ok(python) => Some(python.clone()),
        Err(why) if std::env::var_os("CI").is_some() => {
            panic!("CI must run {check} with Pixar's USD, but there is no Python with usd-core: {why}")
        }
        Err(why) => {
            note(&format!("skipping {check}: no Python with Pixar's USD (usd-core) could be had: {why}"));
            None
        }
    }
}

/// Prints `note: {text}` on the terminal even where the test harness captures output
/// (it captures `eprintln!`, not writes to the stream itself): a skipped or installing
/// Pixar check must be seen.
pub fn note(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "note: {text}");
}
