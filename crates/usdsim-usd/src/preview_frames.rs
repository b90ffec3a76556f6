//! What `usdsim preview` draws: the world-space triangles of every drawable prim of a
//! (baked) stage at a few of its authored time codes.
//!
//! The stage is read composed, so a bake, which sublayers its input and holds only time
//! samples, brings the topology from the input. Drawn are `Mesh` prims (their polygons
//! fan-triangulated), `TetMesh` prims (`surfaceFaceVertexIndices`, or the boundary of
//! `tetVertexIndices` where that is not authored) and the `Cube` and `Sphere` gprims
//! that colliders and rigid bodies use, each posed by its world transform at the time.
//! `Plane` gprims and invisible prims are left out: a ground plane would shrink the
//! bodies to a few pixels.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use glam::DVec3;
use openusd::sdf;

use crate::error::ImportError;
use crate::stage::attribute_values::{self as av, checked_index};
use crate::stage::context::Ctx;
use crate::stage::input_stage::InputStage;
use crate::stage::stage_info::{self, UpAxis};
use crate::stage::xform::XformCache;

/// Most tiles a preview reads (each one is a full read of every drawn prim).
pub const MAX_PREVIEW_FRAMES: usize = 64;

/// One drawable prim at one time code, world space.
#[derive(Clone, Debug, PartialEq)]
pub struct PreviewSurface {
    /// The prim path.
    pub prim: String,
    /// Vertex positions, world space.
    pub points: Vec<[f32; 3]>,
    /// Triangles, indices into `points` (checked).
    pub triangles: Vec<[u32; 3]>,
    /// Whether the prim moves in the stage (time-sampled points, topology or transform
    /// on it or an ancestor): the bodies, as opposed to the scenery.
    pub animated: bool,
}

/// The frames chosen for a preview and what is drawn in each.
#[derive(Clone, Debug, PartialEq)]
pub struct PreviewFrames {
    /// The stage's up axis, so the picture keeps it up.
    pub up_axis: UpAxis,
    /// Every authored time code of the drawn prims, sorted (empty when nothing is
    /// time-sampled).
    pub authored_times: Vec<f64>,
    /// The chosen time codes and the surfaces at each, in time order.
    pub frames: Vec<(f64, Vec<PreviewSurface>)>,
    /// Things worked around (a prim skipped), as `file: prim.attr: message`.
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
}

/// What kind of drawable a prim is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Mesh,
    TetMesh,
    Cube,
    Sphere,
}

/// A prim to draw, found once.
struct Drawable {
    path: sdf::Path,
    kind: Kind,
    animated: bool,
}

/// `count` of `times` (sorted), evenly spaced by index, first and last included.
pub fn evenly_spaced(times: &[f64], count: usize) -> Vec<f64> {
    let n = times.len();
    if n <= count || count == 0 {
        return times.to_vec();
    }
    if count == 1 {
        return vec![times[0]];
    }
    (0..count).map(|i| times[(i * (n - 1) + (count - 1) / 2) / (count - 1)]).collect()
}

/// Opens `path` and reads `count` frames (at most [`MAX_PREVIEW_FRAMES`]) evenly spaced
/// over the authored time samples of its drawable prims; a stage with no time samples
/// gives one frame, at `startTimeCode`.
///
/// Errors name the file, prim and attribute; a stage with nothing to draw is an
/// [`ImportError::Invalid`] on the pseudo-root.
pub fn preview_frames(path: &Path, count: usize) -> Result<PreviewFrames, ImportError> {
    let stage = InputStage::open(path)?;
    let mut ctx = stage.context();
    let result = crate::stage::context::guard_reader(|| read(&stage, &mut ctx, count));
    result.unwrap_or_else(|reason| Err(ImportError::Unparsable { file: path.to_path_buf(), reason }))
}

fn read(stage: &InputStage, ctx: &mut Ctx, count: usize) -> Result<PreviewFrames, ImportError> {
    let info = stage_info::read(ctx);
    let prims = stage.prims.as_ref().map_err(|err| err.to_import_error(ctx))?;
    ctx.time = info.start_time_code;
    let mut drawables = Vec::new();
    let mut authored = BTreeSet::new();
    for prim in prims.iter() {
        let kind = match prim.type_name.as_str() {
            "Mesh" => Kind::Mesh,
            "TetMesh" => Kind::TetMesh,
            "Cube" => Kind::Cube,
            "Sphere" => Kind::Sphere,
            _ => continue,
        };
        if matches!(kind, Kind::Mesh | Kind::TetMesh) && !prim.properties.iter().any(|p| p == "points") {
            continue;
        }
        let times = sample_times(ctx, &prim.path, kind)?;
        authored.extend(times.iter().map(|t| OrderedTime(*t)));
        drawables.push(Drawable { path: prim.path.clone(), kind, animated: !times.is_empty() });
    }
    if drawables.is_empty() {
        return Err(ImportError::Invalid {
            at: ctx.prim_loc(&sdf::Path::abs_root()),
            reason: "nothing to draw: no Mesh or TetMesh prim with points, and no Cube or Sphere".to_string(),
        });
    }
    let authored_times: Vec<f64> = authored.into_iter().map(|t| t.0).collect();
    let chosen = if authored_times.is_empty() {
        vec![info.start_time_code]
    } else {
        evenly_spaced(&authored_times, count.clamp(1, MAX_PREVIEW_FRAMES))
    };
    let mut frames = Vec::with_capacity(chosen.len());
    for &time in &chosen {
        ctx.time = time;
        let mut xforms = XformCache::default();
        let mut surfaces = Vec::new();
        for d in &drawables {
            if invisible(ctx, &d.path)? {
                continue;
            }
            let world = xforms.world(ctx, &d.path)?;
            let Some((points, triangles)) = geometry(ctx, d)? else { continue };
            let points = points.iter().map(|p| world.transform_point3(*p).as_vec3().to_array()).collect();
            surfaces.push(PreviewSurface { prim: d.path.to_string(), points, triangles, animated: d.animated });
        }
        frames.push((time, surfaces));
    }
    Ok(PreviewFrames { up_axis: info.up_axis, authored_times, frames, warnings: std::mem::take(&mut ctx.warnings) })
}

/// A time code that sorts (authored time codes are finite).
#[derive(Clone, Copy, PartialEq)]
struct OrderedTime(f64);

impl Eq for OrderedTime {}

impl PartialOrd for OrderedTime {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrderedTime {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The attributes whose time samples move a drawable of `kind`.
fn shape_attributes(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Mesh => &["points", "faceVertexCounts", "faceVertexIndices"],
        Kind::TetMesh => &["points", "surfaceFaceVertexIndices", "tetVertexIndices"],
        Kind::Cube => &["size"],
        Kind::Sphere => &["radius"],
    }
}

/// Every authored time sample of the prim's shape and of the transform ops on it and
/// its ancestors.
fn sample_times(ctx: &Ctx, path: &sdf::Path, kind: Kind) -> Result<Vec<f64>, ImportError> {
    let mut times = Vec::new();
    let prim = ctx.prim(path)?;
    for &name in shape_attributes(kind) {
        times.extend(prim.attribute(name).time_sample_times().map_err(|e| ctx.query_err(path, Some(name), e))?);
    }
    let mut at = Some(path.clone());
    while let Some(p) = at.filter(|p| !p.is_abs_root()) {
        let ops = av::token_array(ctx, &p, "xformOpOrder")?.unwrap_or_default();
        let handle = ctx.prim(&p)?;
        for op in ops.iter().filter(|o| o.starts_with("xformOp:")) {
            times.extend(handle.attribute(op).time_sample_times().map_err(|e| ctx.query_err(&p, Some(op), e))?);
        }
        at = p.parent();
    }
    times.retain(|t| t.is_finite());
    Ok(times)
}

/// `visibility = "invisible"` on the prim or an ancestor, at the context's time.
fn invisible(ctx: &Ctx, path: &sdf::Path) -> Result<bool, ImportError> {
    let mut at = Some(path.clone());
    while let Some(p) = at.filter(|p| !p.is_abs_root()) {
        if av::token_value(ctx, &p, "visibility")?.as_deref() == Some("invisible") {
            return Ok(true);
        }
        at = p.parent();
    }
    Ok(false)
}

type Geometry = (Vec<DVec3>, Vec<[u32; 3]>);

/// Local-space points and triangles of a drawable at the context's time; `None`
/// (with a warning) for a mesh without points at this time.
fn geometry(ctx: &mut Ctx, d: &Drawable) -> Result<Option<Geometry>, ImportError> {
    let path = &d.path;
    match d.kind {
        Kind::Mesh | Kind::TetMesh => {
            let Some(points) = av::vec3_array(ctx, path, "points")? else {
                ctx.warn("IM070", path, Some("points"), format!("no value at time {}; not drawn", ctx.time));
                return Ok(None);
            };
            let triangles = if d.kind == Kind::Mesh {
                mesh_triangles(ctx, path, &points)?
            } else {
                tet_triangles(ctx, path, &points)?
            };
            Ok(Some((points, triangles)))
        }
        Kind::Cube => {
            let size = av::f64_value(ctx, path, "size")?.unwrap_or(2.0);
            Ok(Some(cube(size / 2.0)))
        }
        Kind::Sphere => {
            let radius = av::f64_value(ctx, path, "radius")?.unwrap_or(1.0);
            Ok(Some(sphere(radius)))
        }
    }
}

/// A polygon mesh's faces, fan-triangulated; faces of fewer than 3 vertices skipped.
fn mesh_triangles(ctx: &Ctx, path: &sdf::Path, points: &[DVec3]) -> Result<Vec<[u32; 3]>, ImportError> {
    const INDICES: &str = "faceVertexIndices";
    let counts = av::int_array(ctx, path, "faceVertexCounts")?.unwrap_or_default();
    let indices = av::int_array(ctx, path, INDICES)?.unwrap_or_default();
    let total: i64 = counts.iter().map(|&c| c.max(0)).sum();
    if usize::try_from(total).ok() != Some(indices.len()) {
        return Err(ImportError::LengthMismatch {
            at: ctx.prop_loc(path, INDICES),
            found: indices.len(),
            expected: usize::try_from(total).unwrap_or(0),
            reason: "the sum of faceVertexCounts".to_string(),
        });
    }
    let mut triangles = Vec::with_capacity(indices.len());
    let mut start = 0usize;
    for &count in &counts {
        let n = usize::try_from(count).unwrap_or(0);
        let face = &indices[start..start + n];
        start += n;
        if n < 3 {
            continue;
        }
        let first = checked_index(ctx, path, INDICES, face[0], points.len(), "points")?;
        let mut previous = checked_index(ctx, path, INDICES, face[1], points.len(), "points")?;
        for &i in &face[2..] {
            let next = checked_index(ctx, path, INDICES, i, points.len(), "points")?;
            triangles.push([first, previous, next]);
            previous = next;
        }
    }
    Ok(triangles)
}

/// A tet mesh's surface: `surfaceFaceVertexIndices` when authored, else the faces of
/// `tetVertexIndices` that belong to one tetrahedron only.
fn tet_triangles(ctx: &Ctx, path: &sdf::Path, points: &[DVec3]) -> Result<Vec<[u32; 3]>, ImportError> {
    const SURFACE: &str = "surfaceFaceVertexIndices";
    const TETS: &str = "tetVertexIndices";
    if let Some(faces) = av::int_tuple_array::<3>(ctx, path, SURFACE)? {
        return av::check_indices(ctx, path, SURFACE, &faces, points.len(), "points");
    }
    let tets = av::int_tuple_array::<4>(ctx, path, TETS)?.unwrap_or_default();
    let tets = av::check_indices(ctx, path, TETS, &tets, points.len(), "points")?;
    let faces = |t: &[u32; 4]| [[t[1], t[2], t[3]], [t[0], t[3], t[2]], [t[0], t[1], t[3]], [t[0], t[2], t[1]]];
    let key = |mut f: [u32; 3]| {
        f.sort_unstable();
        f
    };
    let mut uses: HashMap<[u32; 3], u32> = HashMap::new();
    for face in tets.iter().flat_map(faces) {
        *uses.entry(key(face)).or_default() += 1;
    }
    Ok(tets.iter().flat_map(faces).filter(|f| uses[&key(*f)] == 1).collect())
}

/// An axis-aligned cube of half-size `h` centred on the origin (USD's `Cube`).
fn cube(h: f64) -> Geometry {
    let points = (0..8)
        .map(|i| {
            DVec3::new(
                if i & 1 == 0 { -h } else { h },
                if i & 2 == 0 { -h } else { h },
                if i & 4 == 0 { -h } else { h },
            )
        })
        .collect();
    let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
    let triangles = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
    (points, triangles)
}

/// A latitude–longitude sphere of `radius` about the origin, 24 × 12 quads: round at
/// any tile size a contact sheet uses.
fn sphere(radius: f64) -> Geometry {
    const AROUND: u32 = 24;
    const RINGS: u32 = 12;
    let mut points = Vec::new();
    for ring in 0..=RINGS {
        let polar = std::f64::consts::PI * f64::from(ring) / f64::from(RINGS);
        for k in 0..AROUND {
            let azimuth = std::f64::consts::TAU * f64::from(k) / f64::from(AROUND);
            // USD's Sphere has no axis: any orientation of the tessellation will do.
            points.push(radius * DVec3::new(polar.sin() * azimuth.cos(), polar.sin() * azimuth.sin(), polar.cos()));
        }
    }
    let at = |ring: u32, k: u32| ring * AROUND + k % AROUND;
    let mut triangles = Vec::new();
    for ring in 0..RINGS {
        for k in 0..AROUND {
            let (a, b, c, d) = (at(ring, k), at(ring, k + 1), at(ring + 1, k + 1), at(ring + 1, k));
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    (points, triangles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evenly_spaced_keeps_first_and_last() {
        let times: Vec<f64> = (0..=48).map(f64::from).collect();
        assert_eq!(evenly_spaced(&times, 5), vec![0.0, 12.0, 24.0, 36.0, 48.0]);
        assert_eq!(evenly_spaced(&times, 2), vec![0.0, 48.0]);
        assert_eq!(evenly_spaced(&times, 1), vec![0.0]);
        assert_eq!(evenly_spaced(&times[..3], 6), vec![0.0, 1.0, 2.0]);
        let six = evenly_spaced(&times, 6);
        assert_eq!(six.len(), 6);
        assert!(six.windows(2).all(|w| w[1] > w[0]));
    }

    #[test]
    fn tet_boundary_of_two_tets_drops_the_shared_face() {
        let stage = tempfile::Builder::new().suffix(".usda").tempfile().unwrap();
        std::fs::write(
            stage.path(),
            r#"#usda 1.0
def TetMesh "T"
{
    point3f[] points = [(0,0,0), (1,0,0), (0,1,0), (0,0,1), (0,0,-1)]
    int4[] tetVertexIndices = [(0,1,2,3), (0,2,1,4)]
}
"#,
        )
        .unwrap();
        let frames = preview_frames(stage.path(), 6).unwrap();
        assert!(frames.authored_times.is_empty());
        assert_eq!(frames.frames.len(), 1);
        let surface = &frames.frames[0].1[0];
        assert_eq!(surface.triangles.len(), 6);
        assert!(!surface.animated);
    }

    #[test]
    fn shapes_are_closed() {
        let (p, t) = cube(0.5);
        assert_eq!((p.len(), t.len()), (8, 12));
        let (p, t) = sphere(2.0);
        assert!(p.iter().all(|v| (v.length() - 2.0).abs() < 1e-12));
        assert!(t.iter().flatten().all(|&i| (i as usize) < p.len()));
    }
}
