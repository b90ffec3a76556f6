//! Structured meshes for tests, benchmarks and generated scenes: a tetrahedralised box
//! and a triangulated rectangle. Real assets come from USD; these exist so physics tests
//! and benchmarks can vary resolution without files.

use crate::scene::{Body, BodyKind, Material};
use glam::{UVec3, Vec3};

/// A volume body on [`tet_box`]: rest shape = initial shape, everything else at
/// [`Body::new`]'s defaults.
pub fn tet_body(name: &str, min: Vec3, max: Vec3, cells: UVec3, material: Material) -> Body {
    let (points, tets) = tet_box(min, max, cells);
    let mut b = Body::new(name, BodyKind::Volume, points, material);
    b.rest_elements = tets.clone();
    b.tets = tets;
    b
}

/// A surface body on [`cloth`]: rest shape = initial shape, everything else at
/// [`Body::new`]'s defaults.
pub fn cloth_body(
    name: &str,
    origin: Vec3,
    u: Vec3,
    v: Vec3,
    size: (f32, f32),
    verts: (u32, u32),
    material: Material,
) -> Body {
    let (points, tris) = cloth(origin, u, v, size, verts);
    let mut b = Body::new(name, BodyKind::Surface, points, material);
    b.rest_elements = tris.iter().map(|t| [t[0], t[1], t[2], 0]).collect();
    b.triangles = tris;
    b
}

/// A box from `min` to `max` split into `cells` hexahedra, each cut into six tetrahedra
/// along a main diagonal (Kuhn subdivision). The diagonal is mirrored in every other cell
/// along each axis, which keeps the mesh conforming and makes it symmetric under the
/// box's reflections, so a symmetric load gives a symmetric response. Every tet is
/// positively oriented. Returns `(points, tets)`; point `(i, j, k)` has index
/// `i + (cells.x+1)·(j + (cells.y+1)·k)`.
pub fn tet_box(min: Vec3, max: Vec3, cells: UVec3) -> (Vec<Vec3>, Vec<[u32; 4]>) {
    let n = cells.max(UVec3::ONE);
    let (nx, ny, nz) = (n.x + 1, n.y + 1, n.z + 1);
    let size = (max - min) / n.as_vec3();
    let id = |i: u32, j: u32, k: u32| i + nx * (j + ny * k);
    let mut points = Vec::with_capacity((nx * ny * nz) as usize);
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                points.push(min + size * Vec3::new(i as f32, j as f32, k as f32));
            }
        }
    }
    // The six monotone paths from corner 000 to 111, one per axis permutation.
    const PATHS: [[usize; 3]; 6] = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    let mut tets = Vec::with_capacity(6 * (n.x * n.y * n.z) as usize);
    for k in 0..n.z {
        for j in 0..n.y {
            for i in 0..n.x {
                let cell = [i, j, k];
                // Local corner bits -> global point, mirrored in odd cells.
                let corner = |bits: [u32; 3]| {
                    let c: [u32; 3] = std::array::from_fn(|a| cell[a] + (bits[a] ^ (cell[a] & 1)));
                    id(c[0], c[1], c[2])
                };
                for path in PATHS {
                    let mut bits = [0u32; 3];
                    let mut t = [corner(bits); 4];
                    for (s, &axis) in path.iter().enumerate() {
                        bits[axis] = 1;
                        t[s + 1] = corner(bits);
                    }
                    let p = t.map(|v| points[v as usize]);
                    if (p[1] - p[0]).dot((p[2] - p[0]).cross(p[3] - p[0])) < 0.0 {
                        t.swap(2, 3);
                    }
                    tets.push(t);
                }
            }
        }
    }
    (points, tets)
}

/// A `verts.x × verts.y` grid of points spanning `size` in the plane through `origin`
/// spanned by `u` and `v` (unit vectors), two counter-clockwise triangles per quad (normal
/// `u × v`). Returns `(points, triangles)`; point `(i, j)` has index `i + verts.x·j`.
pub fn cloth(origin: Vec3, u: Vec3, v: Vec3, size: (f32, f32), verts: (u32, u32)) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let (nx, ny) = (verts.0.max(2), verts.1.max(2));
    let mut points = Vec::with_capacity((nx * ny) as usize);
    for j in 0..ny {
        for i in 0..nx {
            let s = i as f32 / (nx - 1) as f32 * size.0;
            let t = j as f32 / (ny - 1) as f32 * size.1;
            points.push(origin + u * s + v * t);
        }
    }
    let mut tris = Vec::with_capacity(2 * ((nx - 1) * (ny - 1)) as usize);
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let a = i + nx * j;
            let (b, c, d) = (a + 1, a + nx + 1, a + nx);
            // Alternate the diagonal so the mesh has no preferred shear direction.
            if (i + j) % 2 == 0 {
                tris.push([a, b, c]);
                tris.push([a, c, d]);
            } else {
                tris.push([a, b, d]);
                tris.push([b, c, d]);
            }
        }
    }
    (points, tris)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tet_box_fills_its_volume_with_positive_tets() {
        let (p, t) = tet_box(Vec3::ZERO, Vec3::new(2.0, 1.0, 0.5), UVec3::new(3, 2, 2));
        assert_eq!(p.len(), 4 * 3 * 3);
        assert_eq!(t.len(), 6 * 12);
        let total: f32 = t
            .iter()
            .map(|t| {
                let q = t.map(|v| p[v as usize]);
                let vol = (q[1] - q[0]).dot((q[2] - q[0]).cross(q[3] - q[0])) / 6.0;
                assert!(vol > 0.0);
                vol
            })
            .sum();
        assert!((total - 1.0).abs() < 1e-5, "volume {total}");
    }

    #[test]
    fn cloth_covers_its_area() {
        let (p, t) = cloth(Vec3::ZERO, Vec3::X, Vec3::Y, (2.0, 1.0), (5, 3));
        assert_eq!(p.len(), 15);
        let area: f32 = t
            .iter()
            .map(|t| {
                let q = t.map(|v| p[v as usize]);
                let n = (q[1] - q[0]).cross(q[2] - q[0]);
                assert!(n.z > 0.0, "counter-clockwise about +Z");
                0.5 * n.length()
            })
            .sum();
        assert!((area - 2.0).abs() < 1e-5);
    }
}
