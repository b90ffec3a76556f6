//! A streamed bake on disk: one `.usdc` value clip per chunk of frames in a folder
//! beside the output, a manifest naming every time-sampled attribute, and the output
//! layer itself, small: it sublayers the input, holds the time range, declares the
//! attributes (types only, no values that would hide the clips) and carries the
//! `clips` metadata (`assetPaths`, `active`, `times`, `primPath`,
//! `manifestAssetPath`) on each root prim the bake writes under.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use openusd::{gf, sdf};

use super::layer_file::write_layer;
use super::output_path::relative_asset_path;
use super::Bake;
use crate::error::ExportError;
use crate::schema::usdsim::state;

/// The clip set's name in the `clips` dictionary.
const CLIP_SET: &str = "default";

/// The folder beside `output` that holds its clips: `<dir>/<file stem>.clips`.
pub fn clip_folder(output: &Path) -> PathBuf {
    let stem = output.file_stem().map_or_else(|| "bake".into(), |s| s.to_string_lossy().into_owned());
    output.with_file_name(format!("{stem}.clips"))
}

/// The clip file holding frames from `first` on, in `folder`.
pub fn clip_file(folder: &Path, first: u32) -> PathBuf {
    folder.join(format!("clip.{first:06}.usdc"))
}

/// The manifest's file in `folder`.
pub fn manifest_file(folder: &Path) -> PathBuf {
    folder.join("manifest.usdc")
}

/// One written clip: its frames and file.
#[derive(Clone, Debug)]
struct Chunk {
    first: u32,
    file: PathBuf,
}

/// What a prim or attribute of the clips is, without its samples: what the manifest
/// and the output layer declare.
#[derive(Clone, Debug)]
struct Declared {
    /// `None` for a prim.
    attribute: Option<Attribute>,
}

#[derive(Clone, Debug)]
struct Attribute {
    type_name: String,
    variability: sdf::Variability,
    /// A non-sampled value (`xformOpOrder`, a constant `xformOp:scale`): it goes into
    /// the output layer, since clips only provide time samples.
    default: Option<sdf::Value>,
    sampled: bool,
}

/// The clips written so far and the union of what they declare.
#[derive(Clone, Debug)]
pub(crate) struct ClipSet {
    /// The output layer, absolute.
    output: PathBuf,
    /// The output as the user gave it, for messages.
    shown: PathBuf,
    folder: PathBuf,
    chunks: Vec<Chunk>,
    declared: BTreeMap<String, Declared>,
}

impl ClipSet {
    /// An empty set for `output` (absolute) whose clips go to [`clip_folder`], which
    /// is created.
    pub(crate) fn new(output: &Path, shown: &Path) -> Result<ClipSet, ExportError> {
        let folder = clip_folder(output);
        std::fs::create_dir_all(&folder)
            .map_err(|err| ExportError::NotWritable { path: clip_folder(shown), reason: err.to_string() })?;
        Ok(ClipSet {
            output: output.to_path_buf(),
            shown: shown.to_path_buf(),
            folder,
            chunks: Vec::new(),
            declared: BTreeMap::new(),
        })
    }

    /// Writes the frames `bake` holds as the next clip and returns its file. A clip
    /// for the same first frame (an interrupted bake's last, partial one) is replaced.
    pub(crate) fn write_clip(&mut self, bake: &Bake) -> Result<PathBuf, ExportError> {
        let layer = bake.author_layer(&self.shown, None)?;
        let first = bake.first_frame();
        let file = clip_file(&self.folder, first);
        self.declare(layer.data())?;
        write_layer(&layer, &file, &file)?;
        self.chunks.retain(|c| c.first != first);
        self.chunks.push(Chunk { first, file: file.clone() });
        Ok(file)
    }

    /// Takes the clip an earlier run wrote for frames from `first` on (`layer`, already
    /// opened and checked) into this set, as if this run had written it (`--resume`
    /// continues after it).
    pub(crate) fn adopt(&mut self, first: u32, layer: &sdf::Layer) -> Result<(), ExportError> {
        let file = clip_file(&self.folder, first);
        self.declare(layer.data())?;
        self.chunks.retain(|c| c.first != first);
        self.chunks.push(Chunk { first, file });
        Ok(())
    }

    /// Adds what `data` declares to the union.
    fn declare(&mut self, data: &dyn sdf::AbstractData) -> Result<(), ExportError> {
        let read_err =
            |err: &dyn std::fmt::Display| ExportError::Author { path: self.shown.clone(), reason: err.to_string() };
        for path in data.spec_paths() {
            // The resume state is the clip's own: nothing the output declares.
            let text = path.as_str();
            if text.starts_with(state::STATE_PRIM) || text.contains(state::PREFIX) {
                continue;
            }
            let attribute = match data.spec_type(&path) {
                Some(sdf::SpecType::Prim) => None,
                Some(sdf::SpecType::Attribute) => {
                    let field = |name: &str| data.try_field(&path, name).map(|v| v.map(std::borrow::Cow::into_owned));
                    let type_name = match field("typeName").map_err(|e| read_err(&e))? {
                        Some(sdf::Value::Token(t)) => t.as_str().to_string(),
                        Some(sdf::Value::String(t)) => t,
                        _ => continue,
                    };
                    let variability = match field("variability").map_err(|e| read_err(&e))? {
                        Some(sdf::Value::Variability(v)) => v,
                        _ => sdf::Variability::Varying,
                    };
                    let default = field("default").map_err(|e| read_err(&e))?;
                    let sampled = data.has_field(&path, "timeSamples");
                    Some(Attribute { type_name, variability, default, sampled })
                }
                _ => continue,
            };
            let key = path.as_str().to_string();
            match (self.declared.get_mut(&key), attribute) {
                (Some(Declared { attribute: Some(old) }), Some(new)) => old.sampled |= new.sampled,
                (Some(_), _) => {}
                (None, attribute) => {
                    self.declared.insert(key, Declared { attribute });
                }
            }
        }
        Ok(())
    }

    /// Writes the manifest and the output layer, which ends at frame `last`; returns
    /// the files written (manifest, then the output).
    pub(crate) fn write_top(&self, bake: &Bake, last: u32) -> Result<Vec<PathBuf>, ExportError> {
        let author_err =
            |err: &dyn std::fmt::Display| ExportError::Author { path: self.shown.clone(), reason: err.to_string() };
        let output_dir = self.output.parent().unwrap_or_else(|| Path::new("/"));
        let manifest_path = manifest_file(&self.folder);

        let mut manifest = sdf::Layer::new_anonymous("usdsim-manifest.usda");
        manifest.edit(|edit| self.author_declarations(edit, true)).map_err(|err| author_err(&err))?;
        write_layer(&manifest, &manifest_path, &manifest_path)?;

        let (_, input_abs) = super::destination(bake.stage(), &self.shown)?;
        let sublayer = relative_asset_path(output_dir, &input_abs);
        let start = bake.stage().start_time_code;
        let mut chunks: Vec<&Chunk> = self.chunks.iter().filter(|c| c.first <= last).collect();
        chunks.sort_by_key(|c| c.first);
        let asset = |file: &Path| relative_asset_path(output_dir, file);
        let mut clips = sdf::Dictionary::new();
        clips.insert(
            "assetPaths".into(),
            sdf::Value::AssetPathVec(chunks.iter().map(|c| sdf::AssetPath::from(asset(&c.file))).collect()),
        );
        clips.insert(
            "active".into(),
            sdf::Value::Vec2dVec(
                chunks
                    .iter()
                    .enumerate()
                    .map(|(i, c)| gf::Vec2d::from([start + f64::from(c.first), i as f64]))
                    .collect(),
            ),
        );
        // Clip time = stage time: every clip holds its frames at their own time codes.
        let (t0, t1) = (start, start + f64::from(last));
        let mut times = vec![gf::Vec2d::from([t0, t0])];
        if t1 > t0 {
            times.push(gf::Vec2d::from([t1, t1]));
        }
        clips.insert("times".into(), sdf::Value::Vec2dVec(times));
        clips.insert("manifestAssetPath".into(), sdf::Value::AssetPath(asset(&manifest_path).into()));

        let mut top = sdf::Layer::new_anonymous("usdsim-bake.usda");
        top.edit(|edit| {
            bake.author_metadata(edit, &sublayer, last)?;
            self.author_declarations(edit, false)?;
            bake.author_constants(edit)?;
            for root in self.roots() {
                let mut set = clips.clone();
                set.insert("primPath".into(), sdf::Value::String(root.clone()));
                let mut prim = sdf::PrimSpecMut::over(edit.data_mut(), sdf::Path::new(&root)?)?;
                prim.set(
                    sdf::FieldKey::Clips.as_str(),
                    sdf::Value::Dictionary(sdf::Dictionary::from([(
                        CLIP_SET.to_string(),
                        sdf::Value::Dictionary(set),
                    )])),
                );
            }
            Ok::<(), sdf::AuthoringError>(())
        })
        .map_err(|err| author_err(&err))?;
        write_layer(&top, &self.output, &self.shown)?;
        Ok(vec![manifest_path, self.shown.clone()])
    }

    /// The root prims (first path component) of everything the clips write.
    fn roots(&self) -> Vec<String> {
        let mut roots: Vec<String> = self
            .declared
            .keys()
            .filter_map(|p| {
                p.strip_prefix('/').map(|rest| format!("/{}", rest.split(['/', '.']).next().unwrap_or(rest)))
            })
            .collect();
        roots.dedup();
        roots
    }

    /// `over` prims and attribute declarations: for the manifest, the time-sampled
    /// attributes only, without values; for the output layer, every attribute with its
    /// type and its non-sampled value, never a sample.
    fn author_declarations(&self, edit: &mut sdf::LayerEdit<'_>, manifest: bool) -> Result<(), sdf::AuthoringError> {
        for (path, declared) in &self.declared {
            let path = sdf::Path::new(path)?;
            match &declared.attribute {
                None => {
                    sdf::PrimSpecMut::over(edit.data_mut(), path)?;
                }
                Some(a) if manifest && !a.sampled => {}
                Some(a) => {
                    let mut spec =
                        sdf::AttributeSpecMut::new(edit.data_mut(), path, a.type_name.as_str(), a.variability, false)?;
                    if let (false, Some(value)) = (manifest, &a.default) {
                        spec.set(sdf::FieldKey::Default.as_str(), value.clone());
                    }
                }
            }
        }
        Ok(())
    }
}
