//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The workspace root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A scene in `testdata/`.
pub fn testdata(name: &str) -> PathBuf {
    repo_root().join("testdata").join(name)
}

/// The shared corpus (`<repo root>/../shared/corpus`), or `None` with a note when this
/// checkout has none.
pub fn corpus() -> Option<PathBuf> {
    let dir = repo_root().join("../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: {} not found; corpus tests skipped", dir.display());
        None
    }
}

/// Writes a `.usda` scene into `dir` and returns its path.
pub fn write_scene(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write scene");
    path
}

/// Asserts two vectors agree to `tol` per component.
#[track_caller]
pub fn assert_close(a: glam::Vec3, b: glam::Vec3, tol: f32) {
    assert!((a - b).abs().max_element() <= tol, "{a} != {b} (tol {tol})");
}

/// Signed volume of a tet.
pub fn tet_volume(p: &[glam::Vec3], t: [u32; 4]) -> f32 {
    let [a, b, c, d] = t.map(|i| p[i as usize]);
    (b - a).cross(c - a).dot(d - a) / 6.0
}
