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

/// What the Python module's tests need besides: the test runner and the wheel builder.
const MODULE_PACKAGES: &[&str] = &["usd-core", "numpy", "pytest", "maturin"];

/// What the module's venv must import to count.
const MODULE_PROBE: &str = "import pxr.Usd, pxr.Sdf, pxr.UsdValidation, numpy, pytest, maturin";

/// A venv's folder: under the workspace's `target/`, so `cargo clean` removes it.
fn target_dir(name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join(name)
}

fn venv_dir() -> PathBuf {
    target_dir("pxr-venv")
}

fn venv_python(dir: &Path) -> PathBuf {
    dir.join("bin").join("python3")
}

fn imports_pxr(python: &Path) -> bool {
    imports(python, PROBE)
}

fn imports(python: &Path, probe: &str) -> bool {
    Command::new(python).args(["-c", probe]).output().is_ok_and(|o| o.status.success())
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
    make_venv_with(dir, PACKAGES, PROBE)
}

/// Makes the venv at `dir` with `packages` unless it already imports `probe`.
fn make_venv_with(dir: &Path, packages: &[&str], probe: &str) -> Result<PathBuf, String> {
    let python = venv_python(dir);
    let parent = dir.parent().expect("the venv has a parent folder");
    std::fs::create_dir_all(parent).map_err(|err| format!("{}: {err}", parent.display()))?;
    let lock_path = dir.with_extension("lock");
    let lock = std::fs::File::create(&lock_path).map_err(|err| format!("{}: {err}", lock_path.display()))?;
    lock.lock().map_err(|err| format!("{}: {err}", lock_path.display()))?;
    if imports(&python, probe) {
        return Ok(python);
    }
    note(&format!(
        "`import pxr` fails in python3; installing {} into {} (once)",
        packages.join(" and "),
        dir.display()
    ));
    describe("python3 -m venv", Command::new("python3").args(["-m", "venv", "--clear"]).arg(dir).output())?;
    let pip = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
        .args(packages)
        .output();
    describe(&format!("pip install {}", packages.join(" ")), pip)?;
    if imports(&python, probe) {
        Ok(python)
    } else {
        Err(format!("{} still cannot `{probe}`", python.display()))
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

/// A Python of its own (`target/py-venv`, made once) with Pixar's USD, numpy, pytest and
/// maturin, into which the Python module's tests install the wheel they build; `None`
/// (after a note) where it cannot be had outside CI.
pub fn module_python(check: &str) -> Option<PathBuf> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let dir = target_dir("py-venv");
        if imports(&venv_python(&dir), MODULE_PROBE) {
            return Ok(venv_python(&dir));
        }
        make_venv_with(&dir, MODULE_PACKAGES, MODULE_PROBE)
    });
    match found {
        Ok(python) => Some(python.clone()),
        Err(why) if std::env::var_os("CI").is_some() => {
            panic!("CI must run {check}, but no Python with usd-core, numpy, pytest and maturin could be had: {why}")
        }
        Err(why) => {
            note(&format!("skipping {check}: no Python with usd-core, numpy, pytest and maturin could be had: {why}"));
            None
        }
    }
}
