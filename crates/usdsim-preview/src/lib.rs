//! usdsim's contact sheets: a look at a bake without a USD viewer.
//!
//! Plain data in — for each tile (one frame), world-space triangle surfaces — and one
//! PNG out: the frames side by side in a grid, drawn orthographically with flat-shaded,
//! depth-sorted triangles (the painter's algorithm) by tiny-skia. Nothing here knows
//! USD; `usdsim-usd` reads a bake into [`Tile`]s and the CLI writes the bytes.
//!
//! Every tile uses the same camera, fitted to everything drawn in every tile, so motion
//! between frames shows as motion between tiles.

#![warn(missing_docs)]

mod camera;
mod font;

use camera::{cross, normalize, sub, Camera, V3};
use tiny_skia::{FillRule, Paint, PathBuilder, Pixmap, Rect, Transform};

/// The background colour of every tile, where nothing is drawn.
pub const BACKGROUND: [u8; 3] = [246, 246, 242];
/// Base colour of a [`Role::Simulated`] surface before shading (warm, so it stands out).
pub const SIMULATED: [u8; 3] = [232, 116, 38];
/// Base colour of a [`Role::Static`] surface before shading (neutral grey).
pub const STATIC: [u8; 3] = [168, 170, 176];
/// Colour of the lines between tiles and of the labels.
pub const INK: [u8; 3] = [60, 60, 60];
/// Smallest and largest tile size accepted, in pixels.
pub const TILE_SIZES: std::ops::RangeInclusive<u32> = 32..=2048;

/// The stage's up axis: the camera keeps it pointing up on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpAxis {
    /// Y up (USD's fallback).
    Y,
    /// Z up.
    Z,
}

/// Where the orthographic camera looks from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// From the front, 40° round to the right and 30° above: shape and height at once.
    ThreeQuarter,
    /// From the front (Z-up: looking along +Y; Y-up: along −Z).
    Front,
    /// From the right (looking along −X).
    Side,
    /// From above, looking down the up axis.
    Top,
}

/// What a surface is, which picks its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Moves in the bake (time-sampled points or transform).
    Simulated,
    /// Holds still: colliders and other scenery.
    Static,
}

/// One triangle surface at one frame, in world space.
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    /// A name for messages (the prim path).
    pub name: String,
    /// Vertex positions, world space.
    pub points: Vec<[f32; 3]>,
    /// Triangles as indices into `points`.
    pub triangles: Vec<[u32; 3]>,
    /// Picks the colour.
    pub role: Role,
}

/// One frame of the sheet.
#[derive(Clone, Debug, PartialEq)]
pub struct Tile {
    /// The time code, written in the tile's corner.
    pub time: f64,
    /// Everything drawn in the tile.
    pub surfaces: Vec<Surface>,
}

/// How to draw the sheet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Width and height of one tile, pixels (within [`TILE_SIZES`]).
    pub tile_size: u32,
    /// Camera direction.
    pub view: View,
    /// The stage's up axis.
    pub up: UpAxis,
}

/// Why a sheet could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    /// There are no tiles, or no tile has a triangle.
    #[error("nothing to draw: no triangles in any frame")]
    Empty,
    /// The tile size is outside [`TILE_SIZES`].
    #[error("tile size {0} px is outside {min}..={max} px", min = TILE_SIZES.start(), max = TILE_SIZES.end())]
    TileSize(u32),
    /// A triangle names a vertex that the surface does not have.
    #[error("{surface}: triangle {triangle} names vertex {index}, but there are only {count} points")]
    IndexOutOfRange {
        /// The surface's name.
        surface: String,
        /// The triangle's position in the list.
        triangle: usize,
        /// The offending index.
        index: u32,
        /// How many points the surface has.
        count: usize,
    },
    /// The sheet would be too large to allocate.
    #[error("a sheet of {width}×{height} px is too large; use fewer frames or a smaller tile size")]
    TooLarge {
        /// Width asked for.
        width: u64,
        /// Height asked for.
        height: u64,
    },
    /// PNG encoding failed.
    #[error("cannot encode the PNG: {0}")]
    Encode(String),
}

/// A drawn contact sheet: tiles in rows, left to right, top to bottom.
pub struct Sheet {
    pixmap: Pixmap,
    columns: u32,
    tile_size: u32,
    fit: Fit,
    camera: Camera,
}

/// The one screen-space fit shared by every tile: world units to pixels.
#[derive(Clone, Copy, Debug)]
struct Fit {
    /// Centre of everything drawn, in screen-space world units.
    centre: [f32; 2],
    /// Pixels per world unit.
    scale: f32,
    /// The larger side of what is drawn, world units.
    extent: f32,
}

/// How many columns a sheet of `tiles` tiles has: the squarest grid, wider than tall.
pub fn columns_for(tiles: usize) -> u32 {
    let mut columns = 1u32;
    while (columns as usize) * (columns as usize) < tiles {
        columns += 1;
    }
    columns
}

impl Sheet {
    /// The PNG file's bytes.
    pub fn png(&self) -> Result<Vec<u8>, PreviewError> {
        self.pixmap.encode_png().map_err(|err| PreviewError::Encode(err.to_string()))
    }

    /// Width of the whole sheet, pixels.
    pub fn width(&self) -> u32 {
        self.pixmap.width()
    }

    /// Height of the whole sheet, pixels.
    pub fn height(&self) -> u32 {
        self.pixmap.height()
    }

    /// Columns of the grid ([`columns_for`] the tile count).
    pub fn columns(&self) -> u32 {
        self.columns
    }

    /// Where the world point `p` lands in tile `tile`, in sheet pixels (x right, y
    /// down). The same projection the drawing uses, for callers that point at things.
    pub fn pixel_of(&self, tile: usize, p: [f32; 3]) -> [f32; 2] {
        let (x0, y0) = tile_origin(tile, self.columns, self.tile_size);
        let s = self.camera.project(p);
        let half = self.tile_size as f32 / 2.0;
        [
            x0 as f32 + half + (s[0] - self.fit.centre[0]) * self.fit.scale,
            y0 as f32 + half - (s[1] - self.fit.centre[1]) * self.fit.scale,
        ]
    }
}

/// The top-left pixel of tile `tile`.
fn tile_origin(tile: usize, columns: u32, size: u32) -> (u32, u32) {
    let tile = tile as u32;
    ((tile % columns) * size, (tile / columns) * size)
}

/// Draws `tiles` as a contact sheet.
///
/// Triangles whose corners are not all finite are skipped (they have no place on
/// screen); an index past a surface's points is an error, never a panic.
pub fn render(tiles: &[Tile], options: &Options) -> Result<Sheet, PreviewError> {
    let size = options.tile_size;
    if !TILE_SIZES.contains(&size) {
        return Err(PreviewError::TileSize(size));
    }
    check_indices(tiles)?;
    let camera = Camera::new(options.view, options.up);
    let fit = fit(tiles, &camera, size).ok_or(PreviewError::Empty)?;
    let columns = columns_for(tiles.len());
    let rows = (tiles.len() as u32).div_ceil(columns);
    let (width, height) = (u64::from(columns) * u64::from(size), u64::from(rows) * u64::from(size));
    // tiny-skia refuses what it cannot allocate; keep well below that, in a size a
    // viewer opens (64 Mpx).
    let pixmap = (width * height <= 1 << 26)
        .then(|| Pixmap::new(width as u32, height as u32))
        .flatten()
        .ok_or(PreviewError::TooLarge { width, height })?;
    let mut sheet = Sheet { pixmap, columns, tile_size: size, fit, camera };
    sheet.pixmap.fill(colour(BACKGROUND, 1.0));
    for (i, tile) in tiles.iter().enumerate() {
        draw_tile(&mut sheet, i, tile);
    }
    draw_grid(&mut sheet, rows);
    Ok(sheet)
}

fn check_indices(tiles: &[Tile]) -> Result<(), PreviewError> {
    for surface in tiles.iter().flat_map(|t| &t.surfaces) {
        let count = surface.points.len();
        for (triangle, tri) in surface.triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i as usize >= count) {
                return Err(PreviewError::IndexOutOfRange { surface: surface.name.clone(), triangle, index, count });
            }
        }
    }
    Ok(())
}

/// The corners of a triangle, if all are finite.
fn corners(surface: &Surface, tri: &[u32; 3]) -> Option<[V3; 3]> {
    let c = tri.map(|i| surface.points[i as usize]);
    c.iter().all(|p| p.iter().all(|v| v.is_finite())).then_some(c)
}

/// Fits every drawn vertex of every tile into a tile, leaving a margin and room for
/// the label; `None` when there is no triangle to draw.
fn fit(tiles: &[Tile], camera: &Camera, size: u32) -> Option<Fit> {
    let mut lo = [f32::INFINITY; 2];
    let mut hi = [f32::NEG_INFINITY; 2];
    for surface in tiles.iter().flat_map(|t| &t.surfaces) {
        for tri in &surface.triangles {
            for p in corners(surface, tri).into_iter().flatten() {
                let s = camera.project(p);
                for k in 0..2 {
                    lo[k] = lo[k].min(s[k]);
                    hi[k] = hi[k].max(s[k]);
                }
            }
        }
    }
    if lo[0] > hi[0] {
        return None;
    }
    let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    // 12 % margin on each side: the top one also holds the label.
    let usable = size as f32 * 0.76;
    let scale = if extent > 0.0 && (usable / extent).is_finite() { usable / extent } else { 1.0 };
    Some(Fit { centre: [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0], scale, extent })
}

fn colour(rgb: [u8; 3], brightness: f32) -> tiny_skia::Color {
    let c = rgb.map(|v| (f32::from(v) * brightness).round().clamp(0.0, 255.0) as u8);
    tiny_skia::Color::from_rgba8(c[0], c[1], c[2], 255)
}

/// A triangle ready to paint: pixel corners, depth and shade.
struct Flat {
    pixels: [[f32; 2]; 3],
    depth: f32,
    rgb: [u8; 3],
    brightness: f32,
}

fn draw_tile(sheet: &mut Sheet, index: usize, tile: &Tile) {
    let camera = sheet.camera;
    // A light from the upper left, a little behind the viewer, in view terms, so every
    // view is lit the same way.
    let light = normalize([0, 1, 2].map(|k| -0.45 * camera.right[k] + 0.65 * camera.up[k] - 0.6 * camera.forward[k]))
        .unwrap_or(camera.up);
    // Sorting whole triangles by their centres misorders a body resting on a collider,
    // whose coarse facets span more depth than the gap between the two. A body that
    // touches a collider is outside it, so scenery is pushed back by a few percent of
    // the picture: at nearly equal depth the body wins.
    let scenery_bias = 0.03 * sheet.fit.extent;
    let mut flats = Vec::new();
    for surface in &tile.surfaces {
        let (rgb, bias) = match surface.role {
            Role::Simulated => (SIMULATED, 0.0),
            Role::Static => (STATIC, scenery_bias),
        };
        for tri in &surface.triangles {
            let Some(c) = corners(surface, tri) else { continue };
            let Some(normal) = normalize(cross(sub(c[1], c[0]), sub(c[2], c[0]))) else { continue };
            // Two-sided: cloth has no outside, and winding in the wild is unreliable.
            let lambert = camera::dot(normal, light).abs();
            let depth = c.iter().map(|&p| camera.project(p)[2]).sum::<f32>() / 3.0 + bias;
            flats.push(Flat {
                pixels: c.map(|p| sheet.pixel_of(index, p)),
                depth,
                rgb,
                brightness: 0.35 + 0.65 * lambert,
            });
        }
    }
    // The painter's algorithm: farthest first, so nearer triangles cover them.
    flats.sort_by(|a, b| b.depth.total_cmp(&a.depth));
    let size = sheet.tile_size;
    let (x0, y0) = tile_origin(index, sheet.columns, size);
    let clip = Rect::from_xywh(x0 as f32, y0 as f32, size as f32, size as f32);
    let mask = clip.and_then(|r| {
        let mut mask = tiny_skia::Mask::new(sheet.pixmap.width(), sheet.pixmap.height())?;
        mask.fill_path(&PathBuilder::from_rect(r), FillRule::Winding, false, Transform::identity());
        Some(mask)
    });
    let mut paint = Paint { anti_alias: false, ..Paint::default() };
    for flat in &flats {
        let mut path = PathBuilder::new();
        path.move_to(flat.pixels[0][0], flat.pixels[0][1]);
        path.line_to(flat.pixels[1][0], flat.pixels[1][1]);
        path.line_to(flat.pixels[2][0], flat.pixels[2][1]);
        path.close();
        let Some(path) = path.finish() else { continue };
        paint.set_color(colour(flat.rgb, flat.brightness));
        // Without anti-aliasing neighbouring triangles leave no seams between them.
        sheet.pixmap.fill_path(&path, &paint, FillRule::Winding, Transform::identity(), mask.as_ref());
    }
    draw_label(sheet, x0, y0, &font::time_label(tile.time));
}

/// The time code in the tile's top-left corner, in the 3×5 font.
fn draw_label(sheet: &mut Sheet, x0: u32, y0: u32, text: &str) {
    let cell = (sheet.tile_size / 128).max(1) as f32 * 2.0;
    let pad = cell * 2.0;
    let paint = {
        let mut p = Paint { anti_alias: false, ..Paint::default() };
        p.set_color(colour(INK, 1.0));
        p
    };
    for (cx, cy) in font::cells(text) {
        let x = x0 as f32 + pad + cx as f32 * cell;
        let y = y0 as f32 + pad + cy as f32 * cell;
        if let Some(r) = Rect::from_xywh(x, y, cell, cell) {
            sheet.pixmap.fill_rect(r, &paint, Transform::identity(), None);
        }
    }
}

/// One-pixel lines between tiles.
fn draw_grid(sheet: &mut Sheet, rows: u32) {
    let size = sheet.tile_size;
    let (w, h) = (sheet.pixmap.width() as f32, sheet.pixmap.height() as f32);
    let mut paint = Paint { anti_alias: false, ..Paint::default() };
    paint.set_color(colour(INK, 1.0));
    for c in 1..sheet.columns {
        if let Some(r) = Rect::from_xywh((c * size) as f32, 0.0, 1.0, h) {
            sheet.pixmap.fill_rect(r, &paint, Transform::identity(), None);
        }
    }
    for r in 1..rows {
        if let Some(rect) = Rect::from_xywh(0.0, (r * size) as f32, w, 1.0) {
            sheet.pixmap.fill_rect(rect, &paint, Transform::identity(), None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(name: &str, z: f32, half: f32, role: Role) -> Surface {
        Surface {
            name: name.into(),
            points: vec![[-half, -half, z], [half, -half, z], [half, half, z], [-half, half, z]],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
            role,
        }
    }

    fn rgb(sheet: &Sheet, x: f32, y: f32) -> [u8; 3] {
        let p = sheet.pixmap.pixel(x as u32, y as u32).unwrap();
        [p.red(), p.green(), p.blue()]
    }

    const TOP: Options = Options { tile_size: 128, view: View::Top, up: UpAxis::Z };

    #[test]
    fn a_square_lands_where_the_projection_says() {
        let tiles = [Tile { time: 0.0, surfaces: vec![square("a", 0.0, 1.0, Role::Simulated)] }];
        let sheet = render(&tiles, &TOP).unwrap();
        assert_eq!((sheet.width(), sheet.height()), (128, 128));
        let centre = sheet.pixel_of(0, [0.0; 3]);
        assert!((centre[0] - 64.0).abs() < 1e-3 && (centre[1] - 64.0).abs() < 1e-3, "{centre:?}");
        let inside = rgb(&sheet, 64.0, 64.0);
        assert!(inside[0] > inside[2] + 60, "simulated colour expected, got {inside:?}");
        // The corners are background, well outside the 76 % fit.
        assert_eq!(rgb(&sheet, 3.0, 125.0), BACKGROUND);
        // +Y is up on screen in the top view of a Z-up stage: (0, 0.9) is above the centre.
        let upper = sheet.pixel_of(0, [0.0, 0.9, 0.0]);
        assert!(upper[1] < 30.0, "{upper:?}");
        assert_ne!(rgb(&sheet, upper[0], upper[1]), BACKGROUND);
    }

    #[test]
    fn nearer_triangles_cover_farther_ones() {
        // Looking down −Z, z = 1 is nearer than z = 0: the static square on top wins.
        let tiles = [Tile {
            time: 0.0,
            surfaces: vec![square("near", 1.0, 0.5, Role::Static), square("far", 0.0, 1.0, Role::Simulated)],
        }];
        let sheet = render(&tiles, &TOP).unwrap();
        let [r, _, b] = rgb(&sheet, 64.0, 64.0);
        assert!(r.abs_diff(b) < 20, "the near, grey square should be on top: {r} {b}");
        let edge = sheet.pixel_of(0, [0.8, 0.0, 0.0]);
        let [r, _, b] = rgb(&sheet, edge[0], edge[1]);
        assert!(r > b + 60, "the far square shows round the near one");
    }

    #[test]
    fn tiles_share_one_camera_so_motion_shows() {
        // A small upright square (in the x–z plane) dropping by 1 each frame.
        let tiles: Vec<Tile> = (0..4)
            .map(|k| {
                let z = -(k as f32);
                let points = vec![[-0.2, 0.0, z - 0.2], [0.2, 0.0, z - 0.2], [0.2, 0.0, z + 0.2], [-0.2, 0.0, z + 0.2]];
                let s = Surface { points, ..square("falling", 0.0, 0.2, Role::Simulated) };
                Tile { time: k as f64, surfaces: vec![s] }
            })
            .collect();
        let sheet = render(&tiles, &Options { view: View::Front, ..TOP }).unwrap();
        assert_eq!(sheet.columns(), 2);
        assert_eq!((sheet.width(), sheet.height()), (256, 256));
        let ys: Vec<f32> =
            (0..4).map(|k| sheet.pixel_of(k, [0.0, 0.0, -(k as f32)])[1] - (k as f32 / 2.0).floor() * 128.0).collect();
        assert!(ys.windows(2).all(|w| w[1] > w[0] + 20.0), "{ys:?}");
        for (k, &y) in ys.iter().enumerate() {
            let x = (k % 2) as f32 * 128.0 + 64.0;
            let y = y + (k / 2) as f32 * 128.0;
            assert_ne!(rgb(&sheet, x, y), BACKGROUND, "tile {k}");
        }
    }

    #[test]
    fn bad_data_is_an_error_not_a_panic() {
        let mut s = square("bad", 0.0, 1.0, Role::Static);
        s.triangles.push([0, 1, 9]);
        let err = render(&[Tile { time: 0.0, surfaces: vec![s] }], &TOP).err().unwrap();
        assert!(err.to_string().contains("bad: triangle 2 names vertex 9"), "{err}");
        assert!(matches!(render(&[], &TOP), Err(PreviewError::Empty)));
        let nan = Surface {
            points: vec![[f32::NAN; 3]; 3],
            triangles: vec![[0, 1, 2]],
            ..square("n", 0.0, 1.0, Role::Static)
        };
        assert!(matches!(render(&[Tile { time: 0.0, surfaces: vec![nan] }], &TOP), Err(PreviewError::Empty)));
        let tiles = [Tile { time: 0.0, surfaces: vec![square("a", 0.0, 1.0, Role::Static)] }];
        assert!(matches!(render(&tiles, &Options { tile_size: 8, ..TOP }), Err(PreviewError::TileSize(8))));
    }

    #[test]
    fn png_round_trips() {
        let tiles = [Tile { time: 12.5, surfaces: vec![square("a", 0.0, 1.0, Role::Simulated)] }];
        let sheet = render(&tiles, &TOP).unwrap();
        let decoded = Pixmap::decode_png(&sheet.png().unwrap()).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (128, 128));
        // The label is drawn in ink near the top-left corner.
        let inked = (0..20).flat_map(|y| (0..40).map(move |x| (x, y))).any(|(x, y)| {
            let p = decoded.pixel(x, y).unwrap();
            [p.red(), p.green(), p.blue()] == INK
        });
        assert!(inked);
    }
}
