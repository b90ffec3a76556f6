//! The Python module (`crates/usdsim-py`, `python/usdsim`) built as the wheel a user
//! installs and tested with pytest (`python/tests/`), as part of the README's test
//! command: its bakes are compared byte for byte with this build's `usdsim` command, and
//! its `UsdValidation` plugin with `usdsim validate`, with real usd-core and numpy.
//!
//! The wheel is built by maturin into `target/py/` (a target folder of its own: the
//! `cargo test` running this holds the workspace's), so the first run compiles the
//! dependencies once in release mode and later runs only what changed.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::pxr::{module_python, note};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Builds the wheel with maturin and installs it into `python`'s venv.
fn install_wheel(python: &Path) -> Result<(), String> {
    let target = root().join("target").join("py");
    let wheels = target.join("wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    let maturin = python.with_file_name("maturin");
    let built = Command::new(&maturin)
        .current_dir(root())
        .args(["build", "--release", "--ignore-rust-version", "--quiet"])
        .arg("--target-dir")
        .arg(&target)
        .arg("--out")
        .arg(&wheels)
        .env("VIRTUAL_ENV", python.parent().and_then(Path::parent).unwrap_or(root()))
        .output()
        .map_err(|err| format!("{}: {err}", maturin.display()))?;
    if !built.status.success() {
        return Err(format!("maturin build failed:\n{}", String::from_utf8_lossy(&built.stderr)));
    }
    let wheel: PathBuf = std::fs::read_dir(&wheels)
        .map_err(|err| format!("{}: {err}", wheels.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .ok_or_else(|| format!("maturin wrote no wheel into {}", wheels.display()))?;
    let name = wheel.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if !name.contains("abi3") {
        return Err(format!("{name}: the wheel is not an abi3 wheel"));
    }
    let pip = Command::new(python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--force-reinstall", "--no-deps"])
        .arg(&wheel)
        .output()
        .map_err(|err| format!("pip: {err}"))?;
    if !pip.status.success() {
        return Err(format!("pip install {name} failed:\n{}", String::from_utf8_lossy(&pip.stderr)));
    }
    Ok(())
}

#[test]
fn the_python_module_passes_its_pytest_suite() {
    let Some(python) = module_python("the Python module's tests") else { return };
    install_wheel(&python).unwrap_or_else(|why| panic!("cannot build and install the Python module: {why}"));
    note("running python/tests with pytest");
    // From the tests' folder, so that `import usdsim` is the installed wheel, not the
    // sources in python/usdsim (which lack the compiled half).
    let tests = root().join("python").join("tests");
    let out = Command::new(&python)
        .current_dir(&tests)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "."])
        .env("USDSIM_BIN", env!("CARGO_BIN_EXE_usdsim"))
        .env_remove("PXR_PLUGINPATH_NAME")
        .output()
        .expect("pytest runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "pytest python/tests failed:\n{text}");
    // A run that collected nothing passes pytest's exit code 5 check above only if it
    // failed; make sure tests ran.
    assert!(text.contains(" passed"), "pytest ran no tests:\n{text}");
}
