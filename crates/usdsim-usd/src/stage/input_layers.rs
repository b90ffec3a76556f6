//! The files an input stage is made of, so that a bake never overwrites one of them.
//!
//! Writing the bake over a layer that the input sublayers, references, payloads or takes
//! value clips from destroys the user's asset, and the bake (which sublayers the input)
//! then forms a cycle that leaves Pixar's stage empty. The exporter refuses such paths
//! ([`crate::ExportError::WouldOverwriteInputLayer`]); this module lists them.

use std::path::{Path, PathBuf};

use openusd::{sdf, usd};

/// Every file `stage` (opened from `root`) loads or names, as normalised absolute paths:
/// the layer stack, every layer reached through references, payloads and clips (all
/// variants, not only the selected ones, as Pixar's `UsdUtilsComputeAllDependencies`
/// follows them), other assets the layers name, asset paths that do not resolve yet (an
/// output written there would be loaded by the input from then on), and every layer the
/// composed stage holds, and the clips that the clip templates of `prims` name (which
/// the dependency walk does not expand). A package (`.usdz`) counts as its file.
pub(crate) fn of(stage: &usd::Stage, root: &str, prims: &[sdf::Path]) -> Vec<PathBuf> {
    let mut names: Vec<String> = vec![root.to_string()];
    if let Ok(deps) = openusd::usd_utils::compute_all_dependencies(stage, root) {
        names.extend(deps.layers);
        names.extend(deps.assets);
        names.extend(deps.unresolved);
    }
    names.extend(stage.layer_identifiers());
    let templates: Vec<String> = prims.iter().flat_map(|prim| template_clips(stage, prim)).collect();
    // A template is anchored to the layer that authors it; any layer of the input may.
    let dirs: Vec<PathBuf> =
        names.iter().filter_map(|name| file_of(name)).filter_map(|f| f.parent().map(Path::to_path_buf)).collect();
    for template in &templates {
        names.extend(dirs.iter().map(|dir| dir.join(template).to_string_lossy().into_owned()));
    }
    let mut files: Vec<PathBuf> = names.iter().filter_map(|name| file_of(name)).map(|p| normalise(&p)).collect();
    files.sort();
    files.dedup();
    files
}

/// The clip file names the template clip sets authored on `prim` expand to (USD's
/// `templateAssetPath`, `#` standing for the time, `###` zero-padded, `#.##` with
/// decimals, from `templateStartTime` to `templateEndTime` by `templateStride`).
fn template_clips(stage: &usd::Stage, prim: &sdf::Path) -> Vec<String> {
    let Ok(prim) = stage.prim(prim.clone()) else { return Vec::new() };
    let clips = usd::ClipsAPI::from_prim_unchecked(prim);
    let Ok(sets) = clips.clip_set_names() else { return Vec::new() };
    let mut names = Vec::new();
    for set in sets {
        let Ok(Some(template)) = clips.clip_template_asset_path(&set) else { continue };
        let (Ok(Some(start)), Ok(Some(end)), Ok(Some(stride))) = (
            clips.clip_template_start_time(&set),
            clips.clip_template_end_time(&set),
            clips.clip_template_stride(&set),
        ) else {
            continue;
        };
        names.extend(expand_template(&template, start, end, stride));
    }
    names
}

/// The names `template` expands to over `start..=end` by `stride` (at most 100,000 of
/// them: a longer list is not a clip set anyone writes beside).
fn expand_template(template: &str, start: f64, end: f64, stride: f64) -> Vec<String> {
    let Some(first) = template.find('#') else { return vec![template.to_string()] };
    let pattern = &template[first..];
    let integer = pattern.chars().take_while(|&c| c == '#').count();
    let decimals = match pattern[integer..].strip_prefix('.') {
        Some(rest) => rest.chars().take_while(|&c| c == '#').count(),
        None => 0,
    };
    let len = integer + if decimals > 0 { 1 + decimals } else { 0 };
    let (head, tail) = (&template[..first], &template[first + len..]);
    if stride.is_nan() || stride <= 0.0 || !start.is_finite() || !end.is_finite() || (end - start) / stride > 100_000.0
    {
        return Vec::new();
    }
    let mut names = Vec::new();
    let mut k = 0.0;
    while start + k * stride <= end + 1e-9 {
        let t = start + k * stride;
        let number = if decimals > 0 {
            let whole = t.trunc() as i64;
            let fraction = format!("{:.*}", decimals, t.fract().abs());
            format!("{:0integer$}.{}", whole, &fraction[2..])
        } else {
            format!("{:0integer$}", t.round() as i64)
        };
        names.push(format!("{head}{number}{tail}"));
        k += 1.0;
    }
    names
}

/// The file an identifier names: the package for a path into one (`a.usdz[b.usda]`),
/// nothing for an anonymous layer or another non-file identifier.
fn file_of(identifier: &str) -> Option<PathBuf> {
    let file = match identifier.find('[') {
        Some(i) if identifier.ends_with(']') => &identifier[..i],
        _ => identifier,
    };
    let path = Path::new(file);
    path.is_absolute().then(|| path.to_path_buf())
}

/// `path` with symbolic links and `..` resolved: the file itself when it exists, else
/// its resolved directory joined with its name, so that an output path and a layer path
/// compare equal however either is spelled. The exporter's destination check uses it
/// too, reporting the two ways it fails.
pub(crate) fn resolve(path: &Path) -> Result<PathBuf, Unresolved> {
    if let Ok(existing) = path.canonicalize() {
        return Ok(existing);
    }
    let name = path.file_name().ok_or(Unresolved::NoFileName)?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    parent.canonicalize().map(|p| p.join(name)).map_err(|err| Unresolved::Directory(parent.to_path_buf(), err))
}

/// Why [`resolve`] could not place a path.
#[derive(Debug)]
pub(crate) enum Unresolved {
    /// The path does not exist and has no file name (`..`, `/`).
    NoFileName,
    /// Neither the path nor its directory exists (the directory, and the OS's reason).
    Directory(PathBuf, std::io::Error),
}

/// [`resolve`], or `path` as spelled when it cannot be placed (a layer named in a
/// folder that does not exist: no output can be written there anyway).
fn normalise(path: &Path) -> PathBuf {
    resolve(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_expand_as_usd_spells_them() {
        assert_eq!(expand_template("./c.#.usda", 0.0, 2.0, 1.0), ["./c.0.usda", "./c.1.usda", "./c.2.usda"]);
        assert_eq!(expand_template("c.###.usd", 8.0, 12.0, 2.0), ["c.008.usd", "c.010.usd", "c.012.usd"]);
        assert_eq!(expand_template("c.#.##.usd", 1.0, 1.5, 0.25), ["c.1.00.usd", "c.1.25.usd", "c.1.50.usd"]);
        assert!(expand_template("c.#.usd", 0.0, 1.0, 0.0).is_empty(), "a zero stride expands to nothing");
    }

    #[test]
    fn a_path_into_a_package_names_the_package() {
        assert_eq!(file_of("/a/b.usdz[c/d.usda]"), Some(PathBuf::from("/a/b.usdz")));
        assert_eq!(file_of("/a/b.usda"), Some(PathBuf::from("/a/b.usda")));
        assert_eq!(file_of("anon:0x1234:layer.usda"), None);
    }

    #[test]
    fn normalise_resolves_dot_dot_for_files_that_do_not_exist_yet() {
        let dir = std::env::temp_dir().canonicalize().unwrap();
        let spelled = dir.join("usdsim-no-such-dir-").join("..").join("x.usda");
        // The parent does not exist, so the path stays as spelled ...
        assert_eq!(normalise(&spelled), spelled);
        // ... while an existing parent is resolved.
        assert_eq!(normalise(&dir.join(".").join("nope.usda")), dir.join("nope.usda"));
    }
}
