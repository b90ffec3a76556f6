//! Helpers shared by the end-to-end tests: run the built `usdsim` binary, and read the
//! baked layers back with `openusd` directly (our own `usdsim-usd` only imports
//! deformables, and the point of these tests is to check what it wrote from outside).
//!
//! Every test binary includes this module and uses a different subset of it.
#![allow(dead_code)]

pub mod pxr;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{DVec3, Vec3};
use openusd::{gf, sdf, usd};

/// What one run of the binary did.
#[derive(Debug)]
pub struct Outcome {
    /// The exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// Panics with the whole story unless the run succeeded.
    pub fn assert_success(&self) -> &Self {
        assert_eq!(self.code, Some(0), "usdsim failed:\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self.assert_no_panic();
        self
    }

    /// A panic is a bug whatever the input: users get messages, not backtraces.
    pub fn assert_no_panic(&self) -> &Self {
        assert!(
            !self.stderr.contains("panicked") && !self.stdout.contains("panicked"),
            "usdsim panicked:\n{}",
            self.stderr
        );
        self
    }
}

/// Runs the `usdsim` binary that Cargo built for this test run.
pub fn usdsim<I, S>(args: I) -> Outcome
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let output =
        Command::new(env!("CARGO_BIN_EXE_usdsim")).args(args).output().expect("cannot start the usdsim binary");
    Outcome {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Bakes `input` into `output` with `extra` arguments (quietly) and insists it worked.
pub fn bake(input: &Path, output: &Path, extra: &[&str]) -> Outcome {
    let mut args: Vec<&OsStr> = vec![input.as_os_str(), OsStr::new("-o"), output.as_os_str(), OsStr::new("-q")];
    args.extend(extra.iter().map(OsStr::new));
    let outcome = usdsim(args);
    outcome.assert_success();
    outcome
}

/// A committed scene in `testdata/`.
pub fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)
}

/// Copies a committed scene into `dir`, so that runs writing beside their input
/// (the default output path) never touch the repository.
pub fn copy_scene(name: &str, dir: &Path) -> PathBuf {
    let to = dir.join(name);
    std::fs::copy(testdata(name), &to).expect("cannot copy a testdata scene");
    to
}

/// A temporary directory for one test's files.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("usdsim-e2e-").tempdir().expect("cannot create a temp dir")
}

/// Converts an openusd point array.
pub fn to_vec3(points: &[gf::Vec3f]) -> Vec<Vec3> {
    points.iter().map(|p| Vec3::new(p.x, p.y, p.z)).collect()
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

/// One layer read on its own, without composition: what the file itself holds.
pub struct LayerFile {
    pub layer: sdf::Layer,
    pub path: PathBuf,
}

impl LayerFile {
    pub fn open(path: &Path) -> LayerFile {
        let layer = sdf::Layer::open(path_str(path)).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
        LayerFile { layer, path: path.to_path_buf() }
    }

    /// The layer metadata's `(startTimeCode, endTimeCode, timeCodesPerSecond)`.
    pub fn time_range(&self) -> (Option<f64>, Option<f64>, Option<f64>) {
        let root = self.layer.pseudo_root().expect("a layer has a pseudo-root");
        (root.start_time_code(), root.end_time_code(), root.time_codes_per_second())
    }

    /// The layer's sublayer asset paths, as written.
    pub fn sublayers(&self) -> Vec<String> {
        self.layer.pseudo_root().expect("a layer has a pseudo-root").sublayers().unwrap_or_default()
    }

    /// A piece of layer metadata.
    pub fn metadata(&self, key: &str) -> Option<sdf::Value> {
        self.layer.pseudo_root().expect("a layer has a pseudo-root").get::<sdf::Value>(key)
    }

    fn attribute(&self, prim: &str, name: &str) -> openusd::sdf::AttributeSpecRef<'_> {
        let path = format!("{prim}.{name}");
        self.layer
            .attribute(path.as_str())
            .expect("a valid property path")
            .unwrap_or_else(|| panic!("{}: no attribute spec {path}", self.path.display()))
    }

    /// The time samples of a `float3[]`-valued attribute (`points`, `velocities`,
    /// `extent`), in time order.
    pub fn samples(&self, prim: &str, name: &str) -> Vec<(f64, Vec<Vec3>)> {
        let samples = self
            .attribute(prim, name)
            .time_samples()
            .unwrap_or_else(|| panic!("{}: {prim}.{name} has no time samples", self.path.display()));
        samples
            .into_iter()
            .map(|(t, value)| match value {
                sdf::Value::Vec3fVec(v) => (t, to_vec3(&v)),
                other => {
                    panic!("{}: {prim}.{name} at {t}: expected a float3 array, found {other:?}", self.path.display())
                }
            })
            .collect()
    }

    /// The raw time samples of any attribute, in time order.
    pub fn raw_samples(&self, prim: &str, name: &str) -> Vec<(f64, sdf::Value)> {
        self.attribute(prim, name)
            .time_samples()
            .unwrap_or_else(|| panic!("{}: {prim}.{name} has no time samples", self.path.display()))
    }

    /// The raw default value of any attribute, as authored in this layer.
    pub fn raw_default(&self, prim: &str, name: &str) -> Option<sdf::Value> {
        self.attribute(prim, name).default()
    }

    /// Whether the attribute spec says `custom = true`.
    pub fn is_custom(&self, prim: &str, name: &str) -> bool {
        self.attribute(prim, name).get::<bool>("custom").unwrap_or(false)
    }

    /// The default (non-time-sampled) value of a point array, as authored in this layer.
    pub fn default_points(&self, prim: &str, name: &str) -> Vec<Vec3> {
        match self.attribute(prim, name).default() {
            Some(sdf::Value::Vec3fVec(v)) => to_vec3(&v),
            other => panic!("{}: {prim}.{name}: expected a float3 array default, found {other:?}", self.path.display()),
        }
    }
}

/// The composed stage of a file (sublayers, references resolved).
pub fn open_stage(path: &Path) -> usd::Stage {
    usd::Stage::open(path_str(path)).unwrap_or_else(|e| panic!("cannot open {} as a stage: {e}", path.display()))
}

/// The composed value of a point-array attribute at a time code.
pub fn composed_points(stage: &usd::Stage, prim: &str, name: &str, time: f64) -> Vec<Vec3> {
    let prim_path = sdf::Path::new(prim).expect("a valid prim path");
    let value = stage
        .prim(prim_path)
        .expect("the prim resolves")
        .attribute(name)
        .get_at::<Vec<gf::Vec3f>>(usd::TimeCode::new(time))
        .unwrap_or_else(|e| panic!("{prim}.{name} at {time}: {e}"))
        .unwrap_or_else(|| panic!("{prim}.{name} has no value at {time}"));
    to_vec3(&value)
}

/// Mean of the points, in double precision.
pub fn centroid(points: &[Vec3]) -> DVec3 {
    points.iter().map(|p| p.as_dvec3()).sum::<DVec3>() / points.len() as f64
}

/// Whether `a` and `b` hold exactly the same numbers (`-0.0 == 0.0`: the text writer
/// does not keep the sign of zero).
pub fn same_points(a: &[Vec3], b: &[Vec3]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.to_array() == q.to_array())
}

/// Every file under `dir`, at any depth, sorted.
#[allow(dead_code)]
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}
