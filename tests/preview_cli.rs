//! `usdsim preview` end to end: bake a testdata scene with the binary, draw its contact
//! sheet, decode the PNG and check what is where: the sheet's size, that the body's
//! tiles differ, that a falling body moves down the tiles (in Z-up and Y-up stages),
//! that the corners are background, and that bad input fails with the usual codes.

mod common;

use std::path::{Path, PathBuf};

use common::{bake, copy_scene, temp_dir, usdsim};

/// The sheet's background (`usdsim_preview::BACKGROUND`, repeated here so that a change
/// to it is a deliberate change to this test too).
const BACKGROUND: [u8; 3] = [246, 246, 242];

/// A decoded RGB(A) image.
struct Image {
    width: u32,
    height: u32,
    rgb: Vec<[u8; 3]>,
}

impl Image {
    fn open(path: &Path) -> Image {
        let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size().expect("a sane size")];
        let info = reader.next_frame(&mut buf).expect("one frame");
        let channels = info.color_type.samples();
        assert!(channels >= 3 && info.bit_depth == png::BitDepth::Eight, "{:?} {:?}", info.color_type, info.bit_depth);
        let rgb = buf[..info.buffer_size()].chunks_exact(channels).map(|p| [p[0], p[1], p[2]]).collect();
        Image { width: info.width, height: info.height, rgb }
    }

    fn at(&self, x: u32, y: u32) -> [u8; 3] {
        self.rgb[(y * self.width + x) as usize]
    }

    /// Body pixels (warm: red well above blue) of the tile at (`column`, `row`), as
    /// (count, centroid) in tile coordinates.
    fn body_in_tile(&self, size: u32, column: u32, row: u32) -> (usize, [f32; 2]) {
        let (mut n, mut sx, mut sy) = (0usize, 0f32, 0f32);
        for y in 0..size {
            for x in 0..size {
                let [r, _, b] = self.at(column * size + x, row * size + y);
                if r as i32 > b as i32 + 40 {
                    n += 1;
                    sx += x as f32;
                    sy += y as f32;
                }
            }
        }
        (n, if n > 0 { [sx / n as f32, sy / n as f32] } else { [f32::NAN; 2] })
    }

    fn tile(&self, size: u32, column: u32, row: u32) -> Vec<[u8; 3]> {
        (0..size)
            .flat_map(|y| (0..size).map(move |x| (x, y)))
            .map(|(x, y)| self.at(column * size + x, row * size + y))
            .collect()
    }
}

/// Bakes `scene` for `frames` frames into a temp dir and returns (dir, bake path).
fn baked(scene: &str, frames: u32) -> (tempfile::TempDir, PathBuf) {
    let dir = temp_dir();
    let input = copy_scene(scene, dir.path());
    let output = dir.path().join(format!("{}.sim.usda", scene.trim_end_matches(".usda")));
    bake(&input, &output, &["-f", &frames.to_string()]);
    (dir, output)
}

/// A free-falling tet seen from the front: four tiles in a 2 × 2 grid, the body lower in
/// each, background in the corners.
fn falls_down_the_tiles(scene: &str) {
    let (dir, bake) = baked(scene, 8);
    let sheet = dir.path().join("fall.png");
    let outcome = usdsim([
        "preview".as_ref(),
        bake.as_os_str(),
        "--frames".as_ref(),
        "4".as_ref(),
        "--size".as_ref(),
        "128".as_ref(),
        "--view".as_ref(),
        "front".as_ref(),
        "-o".as_ref(),
        sheet.as_os_str(),
    ]);
    outcome.assert_success();
    assert!(outcome.stderr.contains("time codes 0, 3, 5, 8 (of 9 authored)"), "{}", outcome.stderr);
    let image = Image::open(&sheet);
    assert_eq!((image.width, image.height), (256, 256), "2 × 2 tiles of 128 px");
    let tiles: Vec<(u32, u32)> = vec![(0, 0), (1, 0), (0, 1), (1, 1)];
    let bodies: Vec<(usize, [f32; 2])> = tiles.iter().map(|&(c, r)| image.body_in_tile(128, c, r)).collect();
    for (k, (n, _)) in bodies.iter().enumerate() {
        assert!(*n > 3, "{scene}: tile {k} shows no body");
    }
    let ys: Vec<f32> = bodies.iter().map(|(_, c)| c[1]).collect();
    assert!(ys.windows(2).all(|w| w[1] > w[0] + 5.0), "{scene}: the body must move down the tiles: {ys:?}");
    // The camera is fitted to the whole fall (76 % of the tile, centred): the first
    // frame sits near the top of that window, the last near its bottom.
    assert!(ys[0] < 40.0 && ys[3] > 88.0, "{scene}: {ys:?}");
    // Straight down: no sideways drift in the front view.
    let xs: Vec<f32> = bodies.iter().map(|(_, c)| c[0]).collect();
    assert!(xs.iter().all(|x| (x - xs[0]).abs() < 3.0), "{scene}: {xs:?}");
    assert_ne!(image.tile(128, 0, 0), image.tile(128, 1, 1), "first and last frames look the same");
    for &(c, r) in &tiles {
        for (x, y) in [(120, 120), (120, 8), (8, 120)] {
            assert_eq!(image.at(c * 128 + x, r * 128 + y), BACKGROUND, "{scene}: tile ({c}, {r}) at ({x}, {y})");
        }
    }
}

#[test]
fn a_falling_body_moves_down_the_tiles_z_up() {
    falls_down_the_tiles("free_fall_z_up_meters.usda");
}

#[test]
fn a_falling_body_moves_down_the_tiles_y_up() {
    falls_down_the_tiles("free_fall_y_up_centimeters.usda");
}

#[test]
fn default_sheet_of_cloth_on_sphere_draws_body_and_collider() {
    let (dir, bake) = baked("cloth_on_sphere.usda", 12);
    let outcome = usdsim(["preview".as_ref(), bake.as_os_str(), "--size".as_ref(), "96".as_ref()]);
    outcome.assert_success();
    let sheet = dir.path().join("cloth_on_sphere.sim.preview.png");
    assert!(outcome.stderr.contains(&format!("wrote {}", sheet.display())), "{}", outcome.stderr);
    let image = Image::open(&sheet);
    // The default 6 frames (13 authored time codes) in 3 columns, 2 rows.
    assert_eq!((image.width, image.height), (288, 192));
    let grey = |p: [u8; 3]| p != BACKGROUND && p[0].abs_diff(p[2]) < 12 && p[0] > 80 && p[0] < 235;
    let first = image.tile(96, 0, 0);
    assert!(first.iter().filter(|&&p| grey(p)).count() > 100, "the sphere collider is drawn");
    assert!(image.body_in_tile(96, 0, 0).0 > 100 && image.body_in_tile(96, 2, 1).0 > 100, "the cloth is drawn");
    assert_ne!(image.tile(96, 0, 0), image.tile(96, 2, 1), "the cloth moved");
}

#[test]
fn run_summary_points_to_preview() {
    let dir = temp_dir();
    let input = copy_scene("free_fall_z_up_meters.usda", dir.path());
    let output = dir.path().join("out.sim.usda");
    let outcome = usdsim([input.as_os_str(), "-f".as_ref(), "2".as_ref(), "-o".as_ref(), output.as_os_str()]);
    outcome.assert_success();
    assert!(outcome.stderr.contains(&format!("usdsim preview {}", output.display())), "{}", outcome.stderr);
}

/// Runs `usdsim preview ARGS` and checks the failure contract: the exit code, stderr
/// mentioning each needle, no panic, and no file appearing in `dir`.
fn fails(code: i32, dir: &Path, args: &[&std::ffi::OsStr], mentions: &[&str]) {
    let before: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    let mut all = vec![std::ffi::OsStr::new("preview")];
    all.extend_from_slice(args);
    let outcome = usdsim(all);
    assert_eq!(outcome.code, Some(code), "{args:?}: {}", outcome.stderr);
    outcome.assert_no_panic();
    for needle in mentions {
        assert!(outcome.stderr.contains(needle), "{args:?}: stderr should mention {needle:?}:\n{}", outcome.stderr);
    }
    let after: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(before, after, "{args:?}: a failed preview must not leave files behind");
}

#[test]
fn bad_input_fails_with_a_clear_message() {
    let dir = temp_dir();
    let d = dir.path();
    let missing = d.join("no_such_bake.usda");
    fails(1, d, &[missing.as_os_str()], &["no_such_bake.usda"]);

    let empty = d.join("no_meshes.usda");
    std::fs::write(&empty, "#usda 1.0\n\ndef Xform \"World\"\n{\n}\n").unwrap();
    fails(1, d, &[empty.as_os_str()], &["no_meshes.usda", "nothing to draw"]);

    let broken = d.join("bad_index.usda");
    std::fs::write(
        &broken,
        "#usda 1.0\n\ndef Mesh \"M\"\n{\n    point3f[] points = [(0,0,0), (1,0,0), (0,1,0)]\n    int[] faceVertexCounts = [3]\n    int[] faceVertexIndices = [0, 1, 7]\n}\n",
    )
    .unwrap();
    fails(1, d, &[broken.as_os_str()], &["bad_index.usda", "/M.faceVertexIndices", "index 7"]);

    let scene = copy_scene("free_fall_z_up_meters.usda", d);
    let before = std::fs::read(&scene).unwrap();
    fails(1, d, &[scene.as_os_str(), "-o".as_ref(), scene.as_os_str()], &["refusing to overwrite the input"]);
    let jpeg = d.join("sheet.jpg");
    fails(1, d, &[scene.as_os_str(), "-o".as_ref(), jpeg.as_os_str()], &["sheet.jpg", ".png"]);
    let nowhere = d.join("no_dir").join("sheet.png");
    fails(1, d, &[scene.as_os_str(), "-o".as_ref(), nowhere.as_os_str()], &["sheet.png", "cannot write"]);
    assert_eq!(std::fs::read(&scene).unwrap(), before, "the input changed");

    fails(2, d, &[scene.as_os_str(), "--frames".as_ref(), "0".as_ref()], &["--frames"]);
    fails(2, d, &[scene.as_os_str(), "--size".as_ref(), "8".as_ref()], &["--size"]);
    fails(2, d, &[scene.as_os_str(), "--view".as_ref(), "iso".as_ref()], &["--view"]);
}
