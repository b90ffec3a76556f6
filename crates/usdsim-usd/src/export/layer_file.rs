//! Writing one layer to disk: through a buffer, to a temporary name beside the
//! destination, synced and renamed into place.

use std::io::Write;
use std::path::{Path, PathBuf};

use openusd::sdf;

use super::output_path::with_causes;
use super::pixar_crate::{HeaderRoom, WithEmptyToken};
use crate::error::ExportError;

/// The temporary name a layer is written under before it is renamed to `dest`: hidden,
/// in the same folder (a rename within one file system is atomic), unique per process.
pub(crate) fn temporary_name(dest: &Path) -> PathBuf {
    let name = dest.file_name().map_or_else(|| "layer".into(), |n| n.to_string_lossy().into_owned());
    dest.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Writes `layer` to `dest` (absolute; the format by extension: `.usda` text, `.usdc`
/// and `.usd` binary), naming `shown` in errors. A `kill -9` at any moment leaves
/// either the file that was there or the complete new one, never half a layer: the
/// bytes go to [`temporary_name`] through a `BufWriter` (openusd's own export writes
/// its crate file unbuffered, one small write per value), are synced, and the file is
/// renamed over `dest`. Crate files get Pixar's header and the empty token
/// ([`super::pixar_crate`]), so that Pixar's USD can edit and save them in place.
pub(crate) fn write_layer(layer: &sdf::Layer, dest: &Path, shown: &Path) -> Result<(), ExportError> {
    let write_err = |reason: String| ExportError::Write { path: shown.to_path_buf(), reason };
    let ext = dest.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    // Pixar's tools write new `.usd` files as binary crate files.
    let format_ext = if ext == "usd" { "usdc" } else { ext.as_str() };
    let format = sdf::LayerRegistry::find_by_extension(format_ext)
        .ok_or_else(|| ExportError::UnsupportedExtension { path: shown.to_path_buf() })?;
    let temp = temporary_name(dest);
    let result = (|| -> Result<(), ExportError> {
        let file = std::fs::File::create(&temp).map_err(|err| write_err(format!("{}: {err}", temp.display())))?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        if format_ext == "usdc" {
            let mut room = HeaderRoom::new(&mut out);
            format.write(&WithEmptyToken::new(layer.data()), &mut room).map_err(|err| write_err(with_causes(&err)))?;
        } else {
            format.write(layer.data(), &mut out).map_err(|err| write_err(with_causes(&err)))?;
        }
        out.flush().map_err(|err| write_err(err.to_string()))?;
        let file = out.into_inner().map_err(|err| write_err(err.to_string()))?;
        file.sync_all().map_err(|err| write_err(err.to_string()))?;
        drop(file);
        std::fs::rename(&temp, dest).map_err(|err| write_err(format!("cannot rename {}: {err}", temp.display())))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}
