//! Where the bake goes: the default output name, the absolute destination, and the
//! input spelled as a sublayer path relative to it.

use std::path::{Component, Path, PathBuf};

use crate::error::ExportError;
use crate::stage::input_layers::{resolve, Unresolved};

/// The default output next to the input: `<dir>/<stem>.sim.usda`.
pub fn default_output_path(input: &Path) -> PathBuf {
    let stem = input.file_stem().map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned());
    input.with_file_name(format!("{stem}.sim.usda"))
}

/// The absolute, symlink-resolved path the output will have: its directory must exist.
pub(super) fn absolute_destination(output: &Path) -> Result<PathBuf, ExportError> {
    resolve(output).map_err(|why| ExportError::InvalidPath {
        path: output.to_path_buf(),
        reason: match why {
            Unresolved::NoFileName => "no file name".to_string(),
            Unresolved::Directory(dir, err) => format!("output directory {}: {err}", dir.display()),
        },
    })
}

/// `target` relative to the directory `base` (both absolute), spelled as a USD asset
/// path: forward slashes, `./` for siblings so it is anchored to the output layer.
/// Falls back to the absolute path when the two share no root (other drive).
pub(super) fn relative_asset_path(base: &Path, target: &Path) -> String {
    let base: Vec<Component> = base.components().collect();
    let target_parts: Vec<Component> = target.components().collect();
    if base.first() != target_parts.first() {
        return target.to_string_lossy().replace('\\', "/");
    }
    let common = base.iter().zip(&target_parts).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); base.len() - common];
    parts.extend(target_parts[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    let joined = parts.join("/");
    if joined.starts_with("..") {
        joined
    } else {
        format!("./{joined}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_output_sits_beside_input() {
        assert_eq!(default_output_path(Path::new("/a/b/scene.usda")), PathBuf::from("/a/b/scene.sim.usda"));
        assert_eq!(default_output_path(Path::new("x.usdc")), PathBuf::from("x.sim.usda"));
    }

    #[test]
    fn relative_paths() {
        assert_eq!(relative_asset_path(Path::new("/a/b"), Path::new("/a/b/s.usda")), "./s.usda");
        assert_eq!(relative_asset_path(Path::new("/a/b/out"), Path::new("/a/b/s.usda")), "../s.usda");
        assert_eq!(relative_asset_path(Path::new("/a/x"), Path::new("/a/b/c/s.usda")), "../b/c/s.usda");
        assert_eq!(relative_asset_path(Path::new("/"), Path::new("/s.usda")), "./s.usda");
    }
}
