//! `usdsim preview`: a PNG contact sheet of a bake, to look at it without a USD viewer.
//! `usdsim-usd` reads the frames, `usdsim-preview` draws them; this only wires the two
//! and writes the file.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use usdsim_preview::{render, Options, Role, Surface, Tile, UpAxis, View};
use usdsim_usd::preview_frames;

use crate::cli::{PreviewArgs, ViewArg};

/// The default sheet beside the input: `<dir>/<stem>.preview.png`.
fn default_output(input: &Path) -> PathBuf {
    let stem = input.file_stem().map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned());
    input.with_file_name(format!("{stem}.preview.png"))
}

/// Reads `args.input`, draws `args.frames` tiles and writes the PNG.
pub fn preview(args: &PreviewArgs) -> Result<()> {
    let output = args.output.clone().unwrap_or_else(|| default_output(&args.input));
    check_output(&args.input, &output)?;
    let read = preview_frames(&args.input, args.frames as usize)?;
    if !args.quiet {
        for warning in &read.warnings {
            eprintln!("{}", warning.text());
        }
    }
    let tiles: Vec<Tile> = read
        .frames
        .iter()
        .map(|(time, surfaces)| Tile {
            time: *time,
            surfaces: surfaces
                .iter()
                .map(|s| Surface {
                    name: s.prim.clone(),
                    points: s.points.clone(),
                    triangles: s.triangles.clone(),
                    role: if s.animated { Role::Simulated } else { Role::Static },
                })
                .collect(),
        })
        .collect();
    let options = Options {
        tile_size: args.size,
        view: match args.view {
            ViewArg::ThreeQuarter => View::ThreeQuarter,
            ViewArg::Front => View::Front,
            ViewArg::Side => View::Side,
            ViewArg::Top => View::Top,
        },
        up: match read.up_axis {
            usdsim_usd::UpAxis::Y => UpAxis::Y,
            usdsim_usd::UpAxis::Z => UpAxis::Z,
        },
    };
    let sheet = render(&tiles, &options).with_context(|| args.input.display().to_string())?;
    let png = sheet.png()?;
    write_atomically(&output, &png)?;
    if !args.quiet {
        let times: Vec<String> = read.frames.iter().map(|(t, _)| format!("{t}")).collect();
        let rows = tiles.len().div_ceil(sheet.columns() as usize);
        eprintln!(
            "wrote {} ({}×{} px: {} tile{} of {} px in {} row{})\n  time codes {} (of {} authored)",
            output.display(),
            sheet.width(),
            sheet.height(),
            tiles.len(),
            if tiles.len() == 1 { "" } else { "s" },
            args.size,
            rows,
            if rows == 1 { "" } else { "s" },
            times.join(", "),
            read.authored_times.len(),
        );
    }
    Ok(())
}

/// A `.png` name, and never the input itself, however spelled: checked before reading,
/// so a mistake costs nothing.
fn check_output(input: &Path, output: &Path) -> Result<()> {
    let same = match (input.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        bail!("{}: refusing to overwrite the input file; choose another output path", output.display());
    }
    let is_png = output.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !is_png {
        bail!("{}: the preview is a PNG image; give the output a .png name", output.display());
    }
    if output.is_dir() {
        bail!(
            "{}: is a directory; give a file name such as {}",
            output.display(),
            output.join("preview.png").display()
        );
    }
    Ok(())
}

/// Writes through a temporary file beside `path` and a rename, so an interrupted run
/// never leaves half an image where a good one was.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::write(&temp, bytes).and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.with_context(|| format!("{}: cannot write", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_sheet_sits_beside_the_bake() {
        assert_eq!(default_output(Path::new("/a/cloth.sim.usda")), PathBuf::from("/a/cloth.sim.preview.png"));
    }
}
