//! What a crate (`.usdc`) file written by openusd 0.8.0 lacks for Pixar's USD to edit it
//! and save it in place, made good from outside the crate (no fork, nothing vendored).
//!
//! Two defects of openusd's crate writer (`src/usdc/`), reported upstream in
//! `docs/openusd-notes.md`:
//!
//! 1. Its header is 32 bytes; Pixar's `_BootStrap` (`crateFile.h`) is 88, ending in
//!    `int64_t _reserved[8]`. Pixar's in-place save ends by rewriting those 88 bytes,
//!    which zeroes the first 56 bytes of openusd's value data: the pseudo-root's
//!    `subLayers`, offsets and time codes. [`HeaderRoom`] starts the data at byte 88.
//! 2. Its token table lacks the empty token, the element name of the root path `/`
//!    (openusd writes a bare index 0 for it). Pixar's save looks every path element up
//!    in the file's table and fails verification on `/`. [`WithEmptyToken`] gives the
//!    writer one value that interns it: an empty layer `comment`, which Pixar's own
//!    files hold as their token 0 and which its text export does not even show.
//!
//! Both go when openusd writes Pixar's header and interns `""` itself.

use std::borrow::Cow;
use std::io::{Seek, SeekFrom, Write};

use openusd::sdf::{self, AbstractData, DataError, SpecType};

/// The size of Pixar's crate header, `sizeof(_BootStrap)`: 8 bytes of ident, 8 of
/// version, 8 of TOC offset and 64 reserved.
pub const PIXAR_CRATE_HEADER_BYTES: u64 = 88;

/// The layer-metadata field whose empty value puts `""` into the token table.
const COMMENT: &str = "comment";

/// A `Write + Seek` sink that makes room for Pixar's whole header: openusd's writer
/// first seeks past its own 32-byte header, and takes every later offset from
/// `stream_position()`; this sink answers that first seek by writing
/// [`PIXAR_CRATE_HEADER_BYTES`] zero bytes, so the data starts at byte 88 and the
/// bytes Pixar reserves stay zero after openusd writes its header over the first 32.
pub struct HeaderRoom<W> {
    inner: W,
    /// Whether anything has been written or the header room made.
    started: bool,
}

impl<W: Write + Seek> HeaderRoom<W> {
    /// Wraps a sink positioned at its start.
    pub fn new(inner: W) -> HeaderRoom<W> {
        HeaderRoom { inner, started: false }
    }
}

impl<W: Write + Seek> Write for HeaderRoom<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.started = true;
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write + Seek> Seek for HeaderRoom<W> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        match pos {
            // The writer's first move: past a header it has not written yet.
            SeekFrom::Start(n) if !self.started && n > 0 && n <= PIXAR_CRATE_HEADER_BYTES => {
                self.started = true;
                self.inner.seek(SeekFrom::Start(0))?;
                self.inner.write_all(&[0; PIXAR_CRATE_HEADER_BYTES as usize])?;
                Ok(PIXAR_CRATE_HEADER_BYTES)
            }
            other => self.inner.seek(other),
        }
    }
}

/// A read-only view of a layer's data for the crate writer that adds an empty
/// `comment` to the layer metadata when none is authored, so that the file's token
/// table holds `""`. usdsim's layers author no comment; an authored one is kept as it
/// is (a user's comment is never replaced).
pub struct WithEmptyToken<'a> {
    data: &'a dyn AbstractData,
    root: sdf::Path,
    add: bool,
}

impl<'a> WithEmptyToken<'a> {
    /// The view of `data`.
    pub fn new(data: &'a dyn AbstractData) -> WithEmptyToken<'a> {
        let root = sdf::Path::abs_root();
        let add = data.has_spec(&root) && !data.has_field(&root, COMMENT);
        WithEmptyToken { data, root, add }
    }

    fn is_added(&self, path: &sdf::Path, field: &str) -> bool {
        self.add && field == COMMENT && *path == self.root
    }
}

impl AbstractData for WithEmptyToken<'_> {
    fn has_spec(&self, path: &sdf::Path) -> bool {
        self.data.has_spec(path)
    }

    fn has_field(&self, path: &sdf::Path, field: &str) -> bool {
        self.is_added(path, field) || self.data.has_field(path, field)
    }

    fn spec_type(&self, path: &sdf::Path) -> Option<SpecType> {
        self.data.spec_type(path)
    }

    fn try_field(&self, path: &sdf::Path, field: &str) -> Result<Option<Cow<'_, sdf::Value>>, DataError> {
        if self.is_added(path, field) {
            return Ok(Some(Cow::Owned(sdf::Value::String(String::new()))));
        }
        self.data.try_field(path, field)
    }

    fn list_fields(&self, path: &sdf::Path) -> Option<Vec<String>> {
        let mut fields = self.data.list_fields(path)?;
        if self.add && *path == self.root {
            fields.push(COMMENT.to_string());
        }
        Some(fields)
    }

    fn spec_paths(&self) -> Vec<sdf::Path> {
        self.data.spec_paths()
    }

    // The view is only read (by the crate writer): edits go to the layer itself.
    fn create_spec(&mut self, _path: sdf::Path, _ty: SpecType) {}

    fn erase_spec(&mut self, _path: &sdf::Path) {}

    fn set_field(&mut self, _path: &sdf::Path, _field: &str, _value: sdf::Value) {}

    fn erase_field(&mut self, _path: &sdf::Path, _field: &str) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn layer_with(comment: Option<&str>) -> sdf::Layer {
        let mut layer = sdf::Layer::new_anonymous("t.usdc");
        layer
            .edit(|edit| {
                let mut root = edit.pseudo_root_mut()?;
                root.insert_sublayer(0, "input.usda", sdf::LayerOffset::IDENTITY);
                root.set_start_time_code(1.0);
                root.set_end_time_code(25.0);
                if let Some(comment) = comment {
                    root.set(COMMENT, sdf::Value::String(comment.to_string()));
                }
                let _ = sdf::PrimSpecMut::over(edit.data_mut(), sdf::Path::new("/World").unwrap())?;
                Ok(())
            })
            .unwrap();
        layer
    }

    fn crate_bytes(layer: &sdf::Layer) -> Vec<u8> {
        let mut bytes = Cursor::new(Vec::new());
        openusd::usdc::CrateWriter::write(&WithEmptyToken::new(layer.data()), &mut HeaderRoom::new(&mut bytes))
            .unwrap();
        bytes.into_inner()
    }

    /// Pixar's header size with zeros where it reserves, the data after it, and `""`
    /// among the tokens: the two things Pixar's in-place save needs.
    #[test]
    fn the_header_is_88_bytes_and_the_tokens_hold_the_empty_one() {
        let bytes = crate_bytes(&layer_with(None));
        assert_eq!(&bytes[..8], b"PXR-USDC");
        assert!(bytes[32..88].iter().all(|&b| b == 0), "Pixar's reserved bytes are zero");
        let file = openusd::usdc::CrateFile::open(bytes.clone()).unwrap();
        assert!(file.bootstrap.toc_offset >= PIXAR_CRATE_HEADER_BYTES);
        assert!(file.sections.iter().all(|s| s.start >= PIXAR_CRATE_HEADER_BYTES), "{:?}", file.sections);
        assert!(file.tokens.iter().any(|t| t.is_empty()), "tokens: {:?}", file.tokens);

        // Without the two, openusd alone writes what Pixar cannot save in place.
        let mut plain = Cursor::new(Vec::new());
        let layer = layer_with(None);
        openusd::usdc::CrateWriter::write(layer.data(), &mut plain).unwrap();
        let plain = plain.into_inner();
        assert!(plain[32..88].iter().any(|&b| b != 0), "openusd leaves Pixar's header room now: drop HeaderRoom");
        let plain = openusd::usdc::CrateFile::open(plain).unwrap();
        assert!(!plain.tokens.iter().any(|t| t.is_empty()), "openusd interns \"\" itself now: drop WithEmptyToken");
    }

    /// Every value reads back as it was, and the only addition is the empty comment.
    #[test]
    fn the_layer_reads_back_the_same_with_an_empty_comment() {
        let layer = layer_with(None);
        let bytes = crate_bytes(&layer);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.usdc");
        std::fs::write(&path, bytes).unwrap();
        let back = sdf::Layer::open(path.to_str().unwrap()).unwrap();
        let root = back.pseudo_root().unwrap();
        assert_eq!(root.sublayers().unwrap_or_default(), vec!["input.usda".to_string()]);
        assert_eq!((root.start_time_code(), root.end_time_code()), (Some(1.0), Some(25.0)));
        assert_eq!(root.get::<sdf::Value>(COMMENT), Some(sdf::Value::String(String::new())));
        assert!(back.data().has_spec(&sdf::Path::new("/World").unwrap()));
    }

    /// A comment the layer has is written as it is, never replaced.
    #[test]
    fn an_authored_comment_is_kept() {
        let layer = layer_with(Some("by hand"));
        let view = WithEmptyToken::new(layer.data());
        let root = sdf::Path::abs_root();
        assert_eq!(view.list_fields(&root), layer.data().list_fields(&root));
        assert_eq!(
            view.try_field(&root, COMMENT).unwrap().map(Cow::into_owned),
            Some(sdf::Value::String("by hand".into()))
        );
    }
}
