//! Embedding collision and graphics meshes in a simulation mesh (plain geometry).
//!
//! A mesh embedded in a **volume** body stores, per point, the tetrahedron that contains
//! it in the bind pose (or, for a point outside every tet, the nearest one) and its four
//! barycentric coordinates; it follows the simulation as `Σ bᵢ xᵢ`, an affine map per
//! tet, exact in the bind pose. A mesh embedded in a **surface** body stores the nearest
//! triangle, the barycentric coordinates of the point's projection onto that triangle's
//! plane and the signed offset along the triangle's normal; it follows as
//! `Σ bᵢ xᵢ + d · normalize(Σ bᵢ nᵢ)` with area-weighted vertex normals `nᵢ` of the
//! deformed simulation mesh, so a detailed mesh floating off a cloth stays at its
//! distance along the normal. In the bind pose this is exact wherever the vertex normals
//! of the triangle agree with its face normal (flat regions); elsewhere the error is at
//! most `|d|` times the normal difference.
//!
//! The search is brute force over elements (`O(points × elements)`), which suits the
//! coarse simulation meshes this is meant for.

use crate::scene::{Body, BodyKind};
use glam::Vec3;

/// How each embedded point follows the simulation mesh.
#[derive(Clone, Debug, PartialEq)]
pub enum Embedding {
    /// Barycentric coordinates in a tetrahedron.
    Volume {
        /// Per point: the index of its tet.
        elements: Vec<u32>,
        /// Per point: the tet's four simulation vertices.
        vertices: Vec<[u32; 4]>,
        /// Per point: the barycentric weights (sum 1; may be negative outside the tet).
        weights: Vec<[f32; 4]>,
    },
    /// Barycentric coordinates in a triangle plus an offset along the normal.
    Surface {
        /// The simulation triangles (needed for vertex normals).
        triangles: Vec<[u32; 3]>,
        /// Per point: the index of its triangle.
        elements: Vec<u32>,
        /// Per point: the triangle's three simulation vertices.
        vertices: Vec<[u32; 3]>,
        /// Per point: the barycentric weights of the projection onto the triangle's plane.
        weights: Vec<[f32; 3]>,
        /// Per point: the signed distance along the triangle normal.
        offsets: Vec<f32>,
    },
}

/// Barycentric coordinates of `p` in the tet `t` (sum 1), or `None` when degenerate.
pub fn tet_barycentric(t: [Vec3; 4], p: Vec3) -> Option<[f32; 4]> {
    let m = glam::Mat3::from_cols(t[1] - t[0], t[2] - t[0], t[3] - t[0]);
    let det = m.determinant();
    if det.abs() < 1e-30 {
        return None;
    }
    let b = m.inverse() * (p - t[0]);
    Some([1.0 - b.x - b.y - b.z, b.x, b.y, b.z])
}

/// Closest point to `p` on the triangle `t`, as barycentric weights (Ericson,
/// "Real-Time Collision Detection", §5.1.5; the contact search's routine).
pub fn closest_on_triangle(t: [Vec3; 3], p: Vec3) -> [f32; 3] {
    crate::mesh::closest::closest_point(p, t[0], t[1], t[2]).0.to_array()
}

fn blend3(t: [Vec3; 3], b: [f32; 3]) -> Vec3 {
    t[0] * b[0] + t[1] * b[1] + t[2] * b[2]
}

/// Distance from `p` to the (solid) tet `t` given its barycentric coordinates `b`:
/// zero inside, else the distance to the nearest face.
fn tet_distance(t: [Vec3; 4], b: [f32; 4], p: Vec3) -> f32 {
    if b.iter().all(|&x| x >= -1e-6) {
        return 0.0;
    }
    const FACES: [[usize; 3]; 4] = [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]];
    FACES
        .iter()
        .map(|f| {
            let tri = f.map(|k| t[k]);
            blend3(tri, closest_on_triangle(tri, p)).distance_squared(p)
        })
        .fold(f32::INFINITY, f32::min)
        .sqrt()
}

/// Area-weighted vertex normals of a triangle mesh (unit length, zero for vertices of
/// no non-degenerate triangle).
pub fn triangle_vertex_normals(points: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
    let mut n = vec![Vec3::ZERO; points.len()];
    for t in triangles {
        let [a, b, c] = t.map(|i| points[i as usize]);
        let face = (b - a).cross(c - a);
        for &i in t {
            n[i as usize] += face;
        }
    }
    n.iter_mut().for_each(|v| *v = v.normalize_or_zero());
    n
}

/// Area-weighted vertex normals of a polygon mesh given as USD `faceVertexCounts` and
/// `faceVertexIndices` (each polygon fanned from its first vertex). Indices out of range
/// and faces with fewer than 3 vertices are skipped.
pub fn polygon_vertex_normals(points: &[Vec3], counts: &[u32], indices: &[u32]) -> Vec<Vec3> {
    let mut n = vec![Vec3::ZERO; points.len()];
    let mut start = 0usize;
    for &count in counts {
        let end = start + count as usize;
        let Some(face) = indices.get(start..end) else { break };
        start = end;
        if face.len() < 3 || face.iter().any(|&i| i as usize >= points.len()) {
            continue;
        }
        // Newell's method: robust for non-planar polygons, area-weighted.
        let mut normal = Vec3::ZERO;
        for k in 0..face.len() {
            let (p, q) = (points[face[k] as usize], points[face[(k + 1) % face.len()] as usize]);
            normal += 0.5 * p.cross(q);
        }
        for &i in face {
            n[i as usize] += normal;
        }
    }
    n.iter_mut().for_each(|v| *v = v.normalize_or_zero());
    n
}

impl Embedding {
    /// Embeds `points` (world space, bind pose) in `body`'s simulation mesh in its bind
    /// pose ([`Body::bind_positions`]).
    pub fn new(body: &Body, points: &[Vec3]) -> Embedding {
        let sim = body.bind_positions();
        match body.kind {
            BodyKind::Volume => Self::volume(sim, &body.tets, points),
            BodyKind::Surface => Self::surface(sim, &body.triangles, points),
        }
    }

    /// Embeds `points` in the tetrahedral mesh (`sim`, `tets`): the containing tet, or
    /// the nearest one for a point outside the mesh.
    pub fn volume(sim: &[Vec3], tets: &[[u32; 4]], points: &[Vec3]) -> Embedding {
        let corners: Vec<[Vec3; 4]> = tets.iter().map(|t| t.map(|i| sim[i as usize])).collect();
        let mut elements = Vec::with_capacity(points.len());
        let mut vertices = Vec::with_capacity(points.len());
        let mut weights = Vec::with_capacity(points.len());
        for &p in points {
            let mut best: Option<(f32, usize, [f32; 4])> = None;
            for (k, t) in corners.iter().enumerate() {
                let Some(b) = tet_barycentric(*t, p) else { continue };
                // Cheap rejection: a tet whose bounding distance exceeds the best is skipped.
                if let Some((d, _, _)) = best {
                    let centre = (t[0] + t[1] + t[2] + t[3]) * 0.25;
                    let radius = t.iter().map(|c| c.distance(centre)).fold(0.0, f32::max);
                    if p.distance(centre) - radius > d {
                        continue;
                    }
                }
                let d = tet_distance(*t, b, p);
                if best.is_none_or(|(bd, _, _)| d < bd) {
                    best = Some((d, k, b));
                    if d == 0.0 {
                        break;
                    }
                }
            }
            let (k, b) = best.map_or((0, [1.0, 0.0, 0.0, 0.0]), |(_, k, b)| (k, b));
            elements.push(k as u32);
            vertices.push(tets.get(k).copied().unwrap_or([0; 4]));
            weights.push(b);
        }
        Embedding::Volume { elements, vertices, weights }
    }

    /// Embeds `points` in the triangle mesh (`sim`, `triangles`): the nearest triangle,
    /// the barycentric coordinates of the projection onto its plane and the signed offset
    /// along its normal.
    pub fn surface(sim: &[Vec3], triangles: &[[u32; 3]], points: &[Vec3]) -> Embedding {
        let corners: Vec<[Vec3; 3]> = triangles.iter().map(|t| t.map(|i| sim[i as usize])).collect();
        let mut elements = Vec::with_capacity(points.len());
        let mut vertices = Vec::with_capacity(points.len());
        let mut weights = Vec::with_capacity(points.len());
        let mut offsets = Vec::with_capacity(points.len());
        for &p in points {
            let mut best: Option<(f32, usize)> = None;
            for (k, t) in corners.iter().enumerate() {
                let d = blend3(*t, closest_on_triangle(*t, p)).distance_squared(p);
                if best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, k));
                }
            }
            let Some((_, k)) = best else {
                elements.push(0);
                vertices.push([0; 3]);
                weights.push([1.0, 0.0, 0.0]);
                offsets.push(0.0);
                continue;
            };
            let t = corners[k];
            let normal = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
            let offset = (p - t[0]).dot(normal);
            let projected = p - normal * offset;
            // Barycentric coordinates of the in-plane projection (may lie outside).
            let (v0, v1, v2) = (t[1] - t[0], t[2] - t[0], projected - t[0]);
            let (d00, d01, d11) = (v0.dot(v0), v0.dot(v1), v1.dot(v1));
            let (d20, d21) = (v2.dot(v0), v2.dot(v1));
            let denom = d00 * d11 - d01 * d01;
            let b = if denom.abs() > 1e-30 {
                let v = (d11 * d20 - d01 * d21) / denom;
                let w = (d00 * d21 - d01 * d20) / denom;
                [1.0 - v - w, v, w]
            } else {
                closest_on_triangle(t, p)
            };
            elements.push(k as u32);
            vertices.push(triangles[k]);
            weights.push(b);
            offsets.push(offset);
        }
        Embedding::Surface { triangles: triangles.to_vec(), elements, vertices, weights, offsets }
    }

    /// Follows a change of the simulation mesh's topology (tearing re-indexes elements
    /// onto split vertices; element count and order stay): each point keeps its element
    /// and weights and takes the element's current vertices, so an embedded mesh follows
    /// the piece its element ends up in. `triangles` are the surface body's triangles,
    /// `tets` the volume body's tetrahedra; the other is ignored.
    pub fn follow_topology(&mut self, triangles: &[[u32; 3]], tets: &[[u32; 4]]) {
        match self {
            Embedding::Volume { elements, vertices, .. } => {
                for (v, &e) in vertices.iter_mut().zip(elements.iter()) {
                    if let Some(t) = tets.get(e as usize) {
                        *v = *t;
                    }
                }
            }
            Embedding::Surface { triangles: own, elements, vertices, .. } => {
                if own.len() == triangles.len() {
                    own.copy_from_slice(triangles);
                }
                for (v, &e) in vertices.iter_mut().zip(elements.iter()) {
                    if let Some(t) = triangles.get(e as usize) {
                        *v = *t;
                    }
                }
            }
        }
    }

    /// Number of embedded points.
    pub fn len(&self) -> usize {
        match self {
            Embedding::Volume { weights, .. } => weights.len(),
            Embedding::Surface { weights, .. } => weights.len(),
        }
    }

    /// Whether no point is embedded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The embedded points for simulation positions `sim` (same vertex order as the
    /// body), written into `out` (resized to [`Embedding::len`]).
    pub fn apply(&self, sim: &[Vec3], out: &mut Vec<Vec3>) {
        out.clear();
        match self {
            Embedding::Volume { vertices, weights, .. } => {
                out.extend(
                    vertices
                        .iter()
                        .zip(weights)
                        .map(|(v, b)| v.iter().zip(b).map(|(&i, &w)| sim[i as usize] * w).sum::<Vec3>()),
                );
            }
            Embedding::Surface { triangles, vertices, weights, offsets, .. } => {
                let normals = triangle_vertex_normals(sim, triangles);
                out.extend(vertices.iter().zip(weights).zip(offsets).map(|((v, b), &d)| {
                    let base = blend3(v.map(|i| sim[i as usize]), *b);
                    let n = blend3(v.map(|i| normals[i as usize]), *b).normalize_or_zero();
                    base + n * d
                }));
            }
        }
    }

    /// The embedded points' velocities for simulation velocities `vel`: the barycentric
    /// blend (the rotation of the normal offset is neglected for surfaces).
    pub fn apply_velocities(&self, vel: &[Vec3], out: &mut Vec<Vec3>) {
        out.clear();
        match self {
            Embedding::Volume { vertices, weights, .. } => {
                out.extend(
                    vertices
                        .iter()
                        .zip(weights)
                        .map(|(v, b)| v.iter().zip(b).map(|(&i, &w)| vel[i as usize] * w).sum::<Vec3>()),
                );
            }
            Embedding::Surface { vertices, weights, .. } => {
                out.extend(vertices.iter().zip(weights).map(|(v, b)| blend3(v.map(|i| vel[i as usize]), *b)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::grid;
    use glam::UVec3;

    #[test]
    fn volume_embedding_is_exact_in_bind_pose_and_affine() {
        let (points, tets) = grid::tet_box(Vec3::ZERO, Vec3::ONE, UVec3::splat(2));
        let probes = [Vec3::new(0.3, 0.2, 0.7), Vec3::new(0.9, 0.9, 0.1), Vec3::new(1.5, 0.5, 0.5)];
        let e = Embedding::volume(&points, &tets, &probes);
        let mut out = Vec::new();
        e.apply(&points, &mut out);
        for (a, b) in out.iter().zip(&probes) {
            assert!(a.distance(*b) < 1e-5, "{a} vs {b}");
        }
        // Any affine map of the simulation mesh moves embedded points the same way.
        let map = |p: Vec3| {
            glam::Mat3::from_cols_array(&[1.1, 0.2, 0.0, -0.1, 0.9, 0.3, 0.0, 0.1, 1.2]) * p + Vec3::new(1.0, -2.0, 3.0)
        };
        let moved: Vec<Vec3> = points.iter().map(|&p| map(p)).collect();
        e.apply(&moved, &mut out);
        for (a, b) in out.iter().zip(&probes) {
            assert!(a.distance(map(*b)) < 1e-4, "{a} vs {}", map(*b));
        }
        // The outside point is bound to a boundary tet (x = 1 face), not extrapolated from afar.
        let Embedding::Volume { vertices, .. } = &e else { panic!() };
        assert!(vertices[2].iter().any(|&i| points[i as usize].x == 1.0));
    }

    #[test]
    fn surface_embedding_keeps_offset_along_normal() {
        // A flat 2x2 quad cloth at z = 0, a point 1 cm above.
        let sim = vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
        let tris = vec![[0, 1, 2], [0, 2, 3]];
        let p = [Vec3::new(0.7, 0.2, 0.01), Vec3::new(0.2, 0.6, -0.02)];
        let e = Embedding::surface(&sim, &tris, &p);
        let mut out = Vec::new();
        e.apply(&sim, &mut out);
        assert!(out[0].distance(p[0]) < 1e-6 && out[1].distance(p[1]) < 1e-6, "{out:?}");
        // Rotate the cloth 90° about X: the offset turns with the normal.
        let r = glam::Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
        let rotated: Vec<Vec3> = sim.iter().map(|&q| r * q).collect();
        e.apply(&rotated, &mut out);
        assert!(out[0].distance(r * p[0]) < 1e-6, "{} vs {}", out[0], r * p[0]);
    }

    #[test]
    fn polygon_normals_of_a_quad() {
        let pts = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
        let n = polygon_vertex_normals(&pts, &[4], &[0, 1, 2, 3]);
        assert!(n.iter().all(|v| v.distance(Vec3::Z) < 1e-6), "{n:?}");
    }

    #[test]
    fn an_embedded_point_follows_its_triangle_onto_a_torn_piece() {
        // Two triangles sharing the edge 0–2; a point above the second one.
        let sim = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
        let tris = [[0, 1, 2], [0, 2, 3]];
        let p = Vec3::new(0.2, 0.6, 0.1);
        let mut e = Embedding::surface(&sim, &tris, &[p]);
        // The second triangle tears off onto copies 4 (of 0) and 5 (of 2), which move away.
        let torn = [[0, 1, 2], [4, 5, 3]];
        let offset = Vec3::new(-1.0, 0.0, 0.0);
        let moved = [sim[0], sim[1], sim[2], sim[3] + offset, sim[0] + offset, sim[2] + offset];
        e.follow_topology(&torn, &[]);
        let mut out = Vec::new();
        e.apply(&moved, &mut out);
        assert!(out[0].distance(p + offset) < 1e-5, "{} vs {}", out[0], p + offset);
    }
}
