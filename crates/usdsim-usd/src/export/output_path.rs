//! Where the bake goes: the default output name, the absolute destination, and the
//! input spelled as a sublayer path relative to it.

use std::path::{Component, Path, PathBuf};

use crate::error::ExportError;
use crate::stage::input_layers::{resolve, Unresolved};
use crate::stage::stage_info::StageInfo;

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
pub(crate) fn relative_asset_path(base: &Path, target: &Path) -> String {
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

/// Checks, before any work, that a layer can be written to `output`: a file
/// name (not a folder) ending in `.usda`, `.usdc` or `.usd`, in an existing directory,
/// neither the input itself nor any file the input loads ([`StageInfo::layers`]), and
/// writable: a probe file is created (and removed) beside it, and an existing output
/// must open for writing, so a read-only folder fails now, with the OS's reason.
pub(crate) fn check_writable(stage: &StageInfo, output: &Path) -> Result<(), ExportError> {
    let (output_abs, _) = destination(stage, output)?;
    let dir = output_abs.parent().unwrap_or_else(|| Path::new("/"));
    // The OS's own words ("Permission denied (os error 13)"), without the probe's name.
    let os_reason = |err: std::io::Error| {
        err.raw_os_error().map_or_else(|| err.to_string(), |code| std::io::Error::from_raw_os_error(code).to_string())
    };
    let probe = dir.join(format!(".usdsim-probe-{}", std::process::id()));
    std::fs::OpenOptions::new().write(true).create_new(true).open(&probe).map_err(|err| ExportError::NotWritable {
        path: output.to_path_buf(),
        reason: format!("cannot create files in {}: {}", dir.display(), os_reason(err)),
    })?;
    let _ = std::fs::remove_file(&probe);
    if output_abs.exists() {
        std::fs::OpenOptions::new().append(true).open(&output_abs).map_err(|err| ExportError::NotWritable {
            path: output.to_path_buf(),
            reason: format!("the existing file cannot be replaced: {}", os_reason(err)),
        })?;
    }
    Ok(())
}

/// The absolute output and input paths, once `output` is known to be acceptable.
pub(crate) fn destination(stage: &StageInfo, output: &Path) -> Result<(PathBuf, PathBuf), ExportError> {
    if output.is_dir() {
        return Err(ExportError::IsDirectory { path: output.to_path_buf() });
    }
    let extension = output.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    if !matches!(extension.as_deref(), Some("usda") | Some("usdc") | Some("usd")) {
        return Err(ExportError::UnsupportedExtension { path: output.to_path_buf() });
    }
    let output_abs = absolute_destination(output)?;
    let input_abs = stage.input.canonicalize().map_err(|err| ExportError::InvalidPath {
        path: output.to_path_buf(),
        reason: format!("cannot locate the input {}: {err}", stage.input.display()),
    })?;
    if output_abs == input_abs {
        return Err(ExportError::WouldOverwriteInput { path: output.to_path_buf() });
    }
    if let Some(layer) = stage.layers.iter().find(|&layer| *layer == output_abs) {
        return Err(ExportError::WouldOverwriteInputLayer {
            path: output.to_path_buf(),
            layer: layer.clone(),
            input: stage.input.clone(),
        });
    }
    Ok((output_abs, input_abs))
}

/// An error and every cause below it (`failed to create x: Permission denied (os error 13)`):
/// openusd's own message leaves out the operating system's reason.
pub(crate) fn with_causes(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
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
