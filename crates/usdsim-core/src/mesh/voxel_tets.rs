//! A conforming tetrahedral mesh that encloses a triangle soup: voxelise its bounds,
//! keep every cell that is inside (generalised winding number ≥ ½ at the cell centre,
//! [`super::winding`]) or that the surface touches (a triangle–box overlap test), and
//! split each kept cell into the six tetrahedra of the Kuhn (Freudenthal)
//! triangulation. All cells share one diagonal direction, so neighbouring cells cut
//! their common face along the same diagonal and the mesh is conforming without the
//! alternating pattern a 5-tet split needs.
//!
//! Keeping the touched cells is what puts every surface point inside the result: a
//! point of a triangle lies in a closed cell the triangle overlaps. Cells are tested
//! slightly enlarged, so a point on a cell face keeps both cells.

use std::collections::HashMap;

use glam::DVec3;
use rayon::prelude::*;

use super::winding::WindingTree;

/// How fine the grid is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VoxelSize {
    /// This many cells along the longest side of the bounds.
    Resolution(u32),
    /// Cubic cells of this edge length (the soup's units).
    Cell(f64),
}

/// Why no mesh was made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum VoxelError {
    /// No triangle with a non-zero area.
    #[error("the meshes have no triangle with a non-zero area")]
    Degenerate,
    /// A corner is NaN or infinite.
    #[error("triangle {triangle} has a non-finite corner")]
    NonFinite {
        /// The triangle's index.
        triangle: usize,
    },
    /// The size is zero, negative or not finite.
    #[error("the cell size must be a finite number > 0, found {0}")]
    BadSize(f64),
    /// The grid would hold more cells than allowed.
    #[error(
        "a {nx} x {ny} x {nz} grid is {cells} cells, more than the {limit} allowed; --resolution {fits} (cell size {fits_cell:.4}) or coarser fits"
    )]
    TooManyCells {
        /// Cells along x, y and z.
        nx: u64,
        /// Cells along y.
        ny: u64,
        /// Cells along z.
        nz: u64,
        /// Their product.
        cells: u64,
        /// The limit.
        limit: u64,
        /// The finest resolution (cells along the longest side) that fits.
        fits: u32,
        /// The cell size of that resolution.
        fits_cell: f64,
    },
}

/// The tetrahedral mesh and what it is made of.
#[derive(Clone, Debug)]
pub struct VoxelTets {
    /// Edge length of a cell.
    pub cell: f64,
    /// Cells along x, y and z of the whole grid.
    pub dims: [u32; 3],
    /// Cells kept (inside or touched by the surface).
    pub kept_cells: usize,
    /// Of those, cells kept only because the surface touches them (centre outside).
    pub surface_cells: usize,
    /// The grid nodes the tetrahedra use.
    pub points: Vec<DVec3>,
    /// Tetrahedra, positively oriented (`(b − a) · ((c − a) × (d − a)) > 0`).
    pub tets: Vec<[u32; 4]>,
    /// The boundary faces (in exactly one tetrahedron), wound outwards.
    pub surface: Vec<[u32; 3]>,
}

impl VoxelTets {
    /// Total volume of the tetrahedra.
    pub fn volume(&self) -> f64 {
        self.tets.iter().map(|t| tet_volume(t.map(|i| self.points[i as usize]))).sum()
    }

    /// The worst (smallest) [`tet_quality`] of the tetrahedra (1 when there are none).
    pub fn worst_quality(&self) -> f64 {
        self.tets.iter().map(|t| tet_quality(t.map(|i| self.points[i as usize]))).fold(1.0, f64::min)
    }
}

/// Signed volume of a tetrahedron (positive when `d` is on the side of `(a, b, c)`
/// that the right-hand rule points to).
pub fn tet_volume([a, b, c, d]: [DVec3; 4]) -> f64 {
    (b - a).dot((c - a).cross(d - a)) / 6.0
}

/// The mean-ratio quality of a tetrahedron, `12 (3V)^(2/3) / Σ edge²`: 1 for a regular
/// tetrahedron, 0 for a flat one, negative when inverted. A Kuhn tetrahedron of a cube
/// scores 0.76.
pub fn tet_quality(t: [DVec3; 4]) -> f64 {
    let v = tet_volume(t);
    let edges: f64 =
        [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)].iter().map(|&(i, j)| t[i].distance_squared(t[j])).sum();
    if edges == 0.0 {
        return 0.0;
    }
    v.signum() * 12.0 * (3.0 * v.abs()).powf(2.0 / 3.0) / edges
}

/// The quality of a triangle, `4√3 A / Σ edge²`: 1 for an equilateral triangle, 0 for
/// a flat one.
pub fn triangle_quality(t: [DVec3; 3]) -> f64 {
    let area = 0.5 * (t[1] - t[0]).cross(t[2] - t[0]).length();
    let edges = t[0].distance_squared(t[1]) + t[1].distance_squared(t[2]) + t[2].distance_squared(t[0]);
    if edges == 0.0 {
        0.0
    } else {
        4.0 * 3f64.sqrt() * area / edges
    }
}

/// The grid's cell size and dimensions over bounds `[lo, hi]`, centred on them.
fn grid(lo: DVec3, hi: DVec3, size: VoxelSize) -> Result<(f64, [u64; 3], DVec3), VoxelError> {
    let extent = hi - lo;
    let cell = match size {
        VoxelSize::Resolution(n) => extent.max_element() / f64::from(n.max(1)),
        VoxelSize::Cell(h) => h,
    };
    if !(cell.is_finite() && cell > 0.0) {
        return Err(VoxelError::BadSize(cell));
    }
    // A hair under the exact count, so N cells of L/N cover a side of L without an
    // extra cell from rounding.
    let dims = extent.to_array().map(|e| ((e / cell) - 1e-9).ceil().max(1.0) as u64);
    let span = DVec3::new(dims[0] as f64, dims[1] as f64, dims[2] as f64) * cell;
    let origin = 0.5 * (lo + hi) - 0.5 * span;
    Ok((cell, dims, origin))
}

/// The six Kuhn tetrahedra of a cube, as corner numbers (bit 0: +x, bit 1: +y, bit 2:
/// +z): every path from corner 0 to corner 7 along three different axes. Orientation
/// is fixed afterwards.
const KUHN: [[usize; 4]; 6] = [[0, 1, 3, 7], [0, 1, 5, 7], [0, 2, 3, 7], [0, 2, 6, 7], [0, 4, 5, 7], [0, 4, 6, 7]];

/// The tetrahedral mesh enclosing `triangles` at `size`, refusing grids of more than
/// `max_cells` cells. Inside/outside comes from the generalised winding number, so
/// open and self-intersecting soups work.
pub fn voxel_tets(triangles: &[[DVec3; 3]], size: VoxelSize, max_cells: u64) -> Result<VoxelTets, VoxelError> {
    if let Some(i) = triangles.iter().position(|t| !t.iter().all(|p| p.is_finite())) {
        return Err(VoxelError::NonFinite { triangle: i });
    }
    let tris: Vec<[DVec3; 3]> =
        triangles.iter().copied().filter(|t| (t[1] - t[0]).cross(t[2] - t[0]).length_squared() > 0.0).collect();
    if tris.is_empty() {
        return Err(VoxelError::Degenerate);
    }
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for p in tris.iter().flatten() {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let (cell, dims, origin) = grid(lo, hi, size)?;
    let cells = dims[0].saturating_mul(dims[1]).saturating_mul(dims[2]);
    if cells > max_cells {
        let longest = (hi - lo).max_element();
        // The cube-root estimate, then down one at a time past its rounding.
        let mut fits = ((longest / cell) * (max_cells as f64 / cells as f64).cbrt()).floor() as u32 + 1;
        while fits > 1 {
            let (_, d, _) = grid(lo, hi, VoxelSize::Resolution(fits))?;
            if d[0] * d[1] * d[2] <= max_cells {
                break;
            }
            fits -= 1;
        }
        return Err(VoxelError::TooManyCells {
            nx: dims[0],
            ny: dims[1],
            nz: dims[2],
            cells,
            limit: max_cells,
            fits,
            fits_cell: longest / f64::from(fits),
        });
    }
    let [nx, ny, nz] = dims.map(|d| d as usize);
    let cell_index = |i: usize, j: usize, k: usize| i + nx * (j + ny * k);

    // Cells the surface touches.
    let mut touched = vec![false; nx * ny * nz];
    let eps = 1e-6 * cell;
    let to_cell = |x: f64, axis: usize, n: usize| (((x - origin[axis]) / cell).floor().max(0.0) as usize).min(n - 1);
    for t in &tris {
        let tlo = t[0].min(t[1]).min(t[2]) - DVec3::splat(eps);
        let thi = t[0].max(t[1]).max(t[2]) + DVec3::splat(eps);
        let (i0, i1) = (to_cell(tlo.x, 0, nx), to_cell(thi.x, 0, nx));
        let (j0, j1) = (to_cell(tlo.y, 1, ny), to_cell(thi.y, 1, ny));
        let (k0, k1) = (to_cell(tlo.z, 2, nz), to_cell(thi.z, 2, nz));
        for k in k0..=k1 {
            for j in j0..=j1 {
                for i in i0..=i1 {
                    let idx = cell_index(i, j, k);
                    if touched[idx] {
                        continue;
                    }
                    let centre = origin + (DVec3::new(i as f64, j as f64, k as f64) + 0.5) * cell;
                    if triangle_box_overlap(t, centre, DVec3::splat(0.5 * cell + eps)) {
                        touched[idx] = true;
                    }
                }
            }
        }
    }

    // Cells whose centre is inside; only the untouched ones need asking.
    let tree = WindingTree::new(&tris);
    let inside: Vec<bool> = (0..nx * ny * nz)
        .into_par_iter()
        .map(|idx| {
            if touched[idx] {
                return false;
            }
            let (i, j, k) = (idx % nx, (idx / nx) % ny, idx / (nx * ny));
            let centre = origin + (DVec3::new(i as f64, j as f64, k as f64) + 0.5) * cell;
            tree.winding_number(centre) >= 0.5
        })
        .collect();

    // Nodes and tetrahedra of the kept cells.
    let node_index = |i: usize, j: usize, k: usize| i + (nx + 1) * (j + (ny + 1) * k);
    let mut node_of: HashMap<usize, u32> = HashMap::new();
    let mut points = Vec::new();
    let mut tets = Vec::new();
    let (mut kept_cells, mut surface_cells) = (0, 0);
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let idx = cell_index(i, j, k);
                if !(touched[idx] || inside[idx]) {
                    continue;
                }
                kept_cells += 1;
                surface_cells += usize::from(touched[idx]);
                let corner = |c: usize| {
                    let (ci, cj, ck) = (i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1));
                    *node_of.entry(node_index(ci, cj, ck)).or_insert_with(|| {
                        points.push(origin + DVec3::new(ci as f64, cj as f64, ck as f64) * cell);
                        (points.len() - 1) as u32
                    })
                };
                let c: [u32; 8] = std::array::from_fn(corner);
                for tet in KUHN {
                    let mut t = tet.map(|v| c[v]);
                    if tet_volume(t.map(|v| points[v as usize])) < 0.0 {
                        t.swap(2, 3);
                    }
                    tets.push(t);
                }
            }
        }
    }
    let surface = boundary_faces(&tets);
    Ok(VoxelTets { cell, dims: [nx as u32, ny as u32, nz as u32], kept_cells, surface_cells, points, tets, surface })
}

/// The faces that belong to exactly one tetrahedron, wound outwards (tets positively
/// oriented), in tet order.
fn boundary_faces(tets: &[[u32; 4]]) -> Vec<[u32; 3]> {
    // Outward faces of a positive tet [a, b, c, d].
    const FACES: [[usize; 3]; 4] = [[1, 2, 3], [0, 3, 2], [0, 1, 3], [0, 2, 1]];
    let key = |mut f: [u32; 3]| {
        f.sort_unstable();
        f
    };
    let mut count: HashMap<[u32; 3], u32> = HashMap::with_capacity(tets.len() * 2);
    for t in tets {
        for f in FACES {
            *count.entry(key(f.map(|v| t[v]))).or_default() += 1;
        }
    }
    tets.iter().flat_map(|t| FACES.map(|f| f.map(|v| t[v]))).filter(|f| count[&key(*f)] == 1).collect()
}

/// Whether triangle `t` overlaps the axis-aligned box at `centre` with half-extents
/// `half` (the separating-axis test of Akenine-Möller 2001: box axes, triangle normal,
/// the nine edge cross products).
fn triangle_box_overlap(t: &[DVec3; 3], centre: DVec3, half: DVec3) -> bool {
    let v = [t[0] - centre, t[1] - centre, t[2] - centre];
    let edges = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    let separated = |axis: DVec3| {
        if axis.length_squared() < 1e-30 {
            return false;
        }
        let p = [v[0].dot(axis), v[1].dot(axis), v[2].dot(axis)];
        let r = half.x * axis.x.abs() + half.y * axis.y.abs() + half.z * axis.z.abs();
        p[0].min(p[1]).min(p[2]) > r || p[0].max(p[1]).max(p[2]) < -r
    };
    for e in edges {
        for a in [DVec3::X, DVec3::Y, DVec3::Z] {
            if separated(a.cross(e)) {
                return false;
            }
        }
    }
    for a in [DVec3::X, DVec3::Y, DVec3::Z] {
        if separated(a) {
            return false;
        }
    }
    !separated(edges[0].cross(edges[1]))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A closed, outward-wound UV sphere as a triangle soup.
    pub(crate) fn uv_sphere(r: f64, segments: usize, rings: usize) -> Vec<[DVec3; 3]> {
        let at = |s: usize, q: usize| {
            let (theta, phi) =
                (std::f64::consts::TAU * s as f64 / segments as f64, std::f64::consts::PI * q as f64 / rings as f64);
            DVec3::new(r * phi.sin() * theta.cos(), r * phi.sin() * theta.sin(), r * phi.cos())
        };
        let mut out = Vec::new();
        for q in 0..rings {
            for s in 0..segments {
                let (a, b, c, d) = (at(s, q), at(s + 1, q), at(s + 1, q + 1), at(s, q + 1));
                if q > 0 {
                    out.push([a, d, b]);
                }
                if q + 1 < rings {
                    out.push([b, d, c]);
                }
            }
        }
        out
    }

    fn inside_some_tet(mesh: &VoxelTets, p: DVec3) -> bool {
        mesh.tets.iter().any(|t| {
            let [a, b, c, d] = t.map(|i| mesh.points[i as usize]);
            let v = tet_volume([a, b, c, d]);
            let w = [
                tet_volume([p, b, c, d]),
                tet_volume([a, p, c, d]),
                tet_volume([a, b, p, d]),
                tet_volume([a, b, c, p]),
            ];
            w.iter().all(|&wi| wi >= -1e-9 * v.abs())
        })
    }

    #[test]
    fn sphere_is_enclosed_and_volume_is_close() {
        let sphere = uv_sphere(1.0, 32, 16);
        let mesh = voxel_tets(&sphere, VoxelSize::Resolution(12), 1_000_000).unwrap();
        assert_eq!(mesh.tets.len(), 6 * mesh.kept_cells);
        assert!(mesh.tets.iter().all(|t| tet_volume(t.map(|i| mesh.points[i as usize])) > 0.0));
        // Enclosing: more than the sphere, less than its bounding cube.
        let v = mesh.volume();
        assert!(v > 4.0 / 3.0 * std::f64::consts::PI && v < 8.0, "{v}");
        for t in &sphere {
            for p in t {
                assert!(inside_some_tet(&mesh, *p), "{p}");
            }
        }
        assert!((mesh.worst_quality() - 0.7560).abs() < 1e-3, "{}", mesh.worst_quality());
    }

    #[test]
    fn mesh_is_conforming_and_closed() {
        // Every interior face is shared by exactly two tets, so the boundary is a closed
        // surface: each boundary edge is in exactly two boundary faces.
        let mesh = voxel_tets(&uv_sphere(1.0, 16, 8), VoxelSize::Resolution(6), 1_000_000).unwrap();
        let mut edges: HashMap<(u32, u32), i32> = HashMap::new();
        for f in &mesh.surface {
            for (a, b) in [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])] {
                *edges.entry((a.min(b), a.max(b))).or_default() += if a < b { 1 } else { -1 };
            }
        }
        // Outward-consistent winding: each edge is walked once each way.
        assert!(edges.values().all(|&n| n == 0));
        // Outward: the faces' signed volume sums to the mesh's volume.
        let enclosed: f64 = mesh
            .surface
            .iter()
            .map(|f| {
                tet_volume([
                    DVec3::ZERO,
                    mesh.points[f[0] as usize],
                    mesh.points[f[1] as usize],
                    mesh.points[f[2] as usize],
                ])
            })
            .sum();
        assert!((enclosed - mesh.volume()).abs() < 1e-9 * mesh.volume());
    }

    #[test]
    fn open_hemisphere_bowl_is_filled_below_its_rim() {
        // The upper half of a sphere, open at the bottom: a winding-number fill keeps
        // the inside cells although there is no closed surface.
        let upper: Vec<[DVec3; 3]> =
            uv_sphere(1.0, 32, 16).into_iter().filter(|t| t.iter().all(|p| p.z >= -1e-9)).collect();
        let mesh = voxel_tets(&upper, VoxelSize::Resolution(10), 1_000_000).unwrap();
        assert!(mesh.kept_cells > mesh.surface_cells, "interior cells were kept");
        assert!(inside_some_tet(&mesh, DVec3::new(0.0, 0.0, 0.4)));
    }

    #[test]
    fn too_many_cells_says_what_fits() {
        let err = voxel_tets(&uv_sphere(1.0, 8, 4), VoxelSize::Resolution(200), 1000).unwrap_err();
        let VoxelError::TooManyCells { cells, fits, .. } = err else { panic!("{err:?}") };
        assert_eq!(cells, 200 * 200 * 200);
        assert_eq!(fits, 10);
        assert!(voxel_tets(&uv_sphere(1.0, 8, 4), VoxelSize::Resolution(fits), 1000).is_ok());
    }

    #[test]
    fn degenerate_and_bad_sizes_are_refused() {
        let flat = [[DVec3::ZERO, DVec3::X, DVec3::X * 2.0]];
        assert_eq!(voxel_tets(&flat, VoxelSize::Resolution(4), 100).unwrap_err(), VoxelError::Degenerate);
        let tri = [[DVec3::ZERO, DVec3::X, DVec3::Y]];
        assert!(matches!(voxel_tets(&tri, VoxelSize::Cell(0.0), 100), Err(VoxelError::BadSize(_))));
        let nan = [[DVec3::ZERO, DVec3::X, DVec3::splat(f64::NAN)]];
        assert_eq!(voxel_tets(&nan, VoxelSize::Cell(0.1), 100).unwrap_err(), VoxelError::NonFinite { triangle: 0 });
    }

    /// The figure in docs/performance.md: about 100k triangles at resolution 64. Run
    /// by hand (`cargo test --ignore-rust-version -p usdsim-core --lib -- --ignored
    /// voxelise_100k --nocapture`); ignored in the suite because it is a timing.
    #[test]
    #[ignore]
    fn voxelise_100k_triangles_timing() {
        let sphere = uv_sphere(1.0, 224, 224);
        let started = std::time::Instant::now();
        let mesh = voxel_tets(&sphere, VoxelSize::Resolution(64), 2_000_000).unwrap();
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "voxelised {} triangles at resolution 64: {} cells kept, {} tets, in {seconds:.3} s ({} threads)",
            sphere.len(),
            mesh.kept_cells,
            mesh.tets.len(),
            rayon::current_num_threads()
        );
    }
}
