//! Building [`Surfaces`] from the scene, once: the colliding triangles, vertices and
//! edges of every body that can touch another or itself, each body's contact radii
//! (its self-contact radius capped by its mesh: [`self_radius`]), the search's cell and
//! margin, the filter pose's exemptions and the cone tree over the rest positions.

use super::bounds::altitude;
use super::candidates::Candidates;
use super::cone_tree::ConeTree;
use super::pose_exemptions::{edge_pose_exemptions, pose_exemptions};
use super::surfaces::{SelfContact, Surfaces};
use crate::contact::filter_table::FilterTable;
use crate::mesh::surface::surface_triangles;
use crate::scene::{BodyKind, Scene};
use glam::Vec3;
use std::collections::BTreeMap;
use std::ops::Range;

/// Spatial hash cell edge (the filter pose's search), in mean edge lengths of the
/// colliding surfaces.
const CELL_EDGES: f32 = 3.0;

/// The largest self-contact thickness of a body, in its small triangle altitudes
/// ([`self_radius`]).
const SELF_THICKNESS_PER_ALTITUDE: f32 = 0.5;

/// Which of a body's triangle altitudes is its "small" one: this fraction up the sorted
/// list, so that a few slivers do not thin a whole garment's self contact.
const SMALL_ALTITUDE_RANK: f32 = 0.1;

impl Surfaces {
    /// Collects the colliding surfaces of `scene` (vertex ranges `ranges` in the global
    /// arrays). `contact_offset` is every vertex's base radius; surface bodies add half
    /// their thickness. With `enabled` false nothing collides (filters are still
    /// compiled for static contacts).
    pub fn new(
        scene: &Scene,
        ranges: &[Range<usize>],
        contact_offset: f32,
        enabled: bool,
        self_contact: SelfContact,
    ) -> (Surfaces, FilterTable) {
        let local: Vec<Vec<[u32; 3]>> = scene.bodies.iter().map(surface_triangles).collect();
        let counts: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
        let filter = FilterTable::new(&scene.collision, &counts, &local, scene.colliders.len());
        let vertex_count = ranges.last().map_or(0, |r| r.end);
        let mut vertex_body = vec![0u32; vertex_count];
        for (b, r) in ranges.iter().enumerate() {
            vertex_body[r.clone()].fill(b as u32);
        }
        let radius: Vec<f32> = scene
            .bodies
            .iter()
            .map(|b| contact_offset + if b.kind == BodyKind::Surface { 0.5 * b.material.thickness } else { 0.0 })
            .collect();
        let self_on: Vec<bool> = scene
            .bodies
            .iter()
            .enumerate()
            .map(|(i, b)| self_contact.wanted(b) && filter.bodies_collide(i, i))
            .collect();
        let n = scene.bodies.len();
        let mut s = Surfaces {
            triangles: Vec::new(),
            tri_body: Vec::new(),
            tri_local: Vec::new(),
            vertices: Vec::new(),
            vertex_body,
            body_start: ranges.iter().map(|r| r.start as u32).collect(),
            self_radius: radius.clone(),
            radius,
            two_sided: scene.bodies.iter().map(|b| b.kind == BodyKind::Surface).collect(),
            friction: scene.bodies.iter().map(|b| [b.material.static_friction, b.material.dynamic_friction]).collect(),
            self_contact: self_on,
            asleep: scene.bodies.iter().map(|b| b.starts_asleep && !b.kinematic).collect(),
            pose_exempt: Vec::new(),
            cell: 0.0,
            margin: 0.0,
            edges: Vec::new(),
            edge_body: Vec::new(),
            edge_tri_start: vec![0],
            edge_tri: Vec::new(),
            edge_pose_exempt: Vec::new(),
            candidates: Candidates::default(),
            tree: ConeTree::default(),
            local: Vec::new(),
        };
        if enabled {
            let (mut edge_sum, mut edges) = (0.0f64, 0usize);
            for (b, body) in scene.bodies.iter().enumerate() {
                // A body takes part when it can touch itself or some other body.
                let partners = (0..n).any(|o| if o == b { s.self_contact[b] } else { filter.bodies_collide(b, o) });
                if !partners || local[b].is_empty() {
                    continue;
                }
                let base = ranges[b].start as u32;
                let mut used = vec![false; ranges[b].len()];
                for (k, t) in local[b].iter().enumerate() {
                    s.triangles.push(t.map(|i| i + base));
                    s.tri_body.push(b as u32);
                    s.tri_local.push(k as u32);
                    for j in 0..3 {
                        used[t[j] as usize] = true;
                        edge_sum +=
                            body.positions[t[j] as usize].distance(body.positions[t[(j + 1) % 3] as usize]) as f64;
                        edges += 1;
                    }
                }
                s.vertices.extend(used.iter().enumerate().filter(|(_, &u)| u).map(|(i, _)| i as u32 + base));
                // Edges of every colliding surface: a cloth's, and a volume's boundary
                // (so that a cloth edge cannot slip through a solid's edge between their
                // vertices); volume–volume edge pairs are skipped in the search.
                {
                    let mut edge_tris: BTreeMap<[u32; 2], Vec<u32>> = BTreeMap::new();
                    for (k, t) in local[b].iter().enumerate() {
                        for j in 0..3 {
                            let (p, q) = (t[j], t[(j + 1) % 3]);
                            if p != q {
                                edge_tris.entry([p.min(q) + base, p.max(q) + base]).or_default().push(k as u32);
                            }
                        }
                    }
                    for (e, ts) in edge_tris {
                        s.edges.push(e);
                        s.edge_body.push(b as u32);
                        s.edge_tri.extend_from_slice(&ts);
                        s.edge_tri_start.push(s.edge_tri.len() as u32);
                    }
                }
            }
            // Each body's colliding triangles are one run of `triangles`, in body order.
            let mut first = 0;
            while first < s.triangles.len() {
                let b = s.tri_body[first] as usize;
                let count = s.tri_body[first..].iter().take_while(|&&tb| tb as usize == b).count();
                let at = |i: u32| scene.bodies[b].positions[(i - ranges[b].start as u32) as usize];
                let altitudes: Vec<f32> = (s.triangles[first..first + count].iter())
                    .map(|t| {
                        let [a, bb, c] = t.map(at);
                        altitude(a, bb, c)
                    })
                    .collect();
                s.self_radius[b] = self_radius(s.radius[b], &altitudes);
                first += count;
            }
            let mean_edge = if edges > 0 { (edge_sum / edges as f64) as f32 } else { 1.0 };
            let max_radius = s.radius.iter().copied().fold(0.0f32, f32::max);
            // Cells of three mean edges: an item covers one or two cells per axis instead
            // of two or three, so building and querying the hash touch far fewer entries
            // (cloth 64² with self contact: 175 → 110 ms a frame against one mean edge;
            // four mean edges measured the same as three).
            s.cell = (CELL_EDGES * mean_edge).max(4.0 * max_radius).max(1e-6);
            s.margin = 0.05 * mean_edge;
            s.pose_exempt = pose_exemptions(&s, scene, ranges);
            // Edge pairs need a surface body on one side (two volumes' edges are never a
            // pair): with none taking part, volume piles skip the edge search.
            if !s.tri_body.iter().any(|&b| s.two_sided[b as usize]) {
                s.edges.clear();
                s.edge_body.clear();
                s.edge_tri.clear();
                s.edge_tri_start.truncate(1);
            }
            s.edge_pose_exempt = edge_pose_exemptions(&s, scene, ranges);
            let mut rest = vec![Vec3::ZERO; vertex_count];
            for (b, r) in ranges.iter().enumerate() {
                rest[r.clone()].copy_from_slice(&scene.bodies[b].positions[..r.len()]);
            }
            s.tree = ConeTree::new(&s, &rest);
        }
        s.local = local;
        (s, filter)
    }
}

/// The contact radius of a body's pairs with itself: its `radius`, but no more than
/// [`SELF_THICKNESS_PER_ALTITUDE`] / 2 of its small triangle altitude (`altitudes`, in
/// any order; the one [`SMALL_ALTITUDE_RANK`] up the sorted non-degenerate ones).
///
/// At rest a vertex lies an altitude or more from every triangle across its neighbours.
/// A self-contact thickness near that makes those neighbours contacts at rest (on the
/// 128² bench cloth, 7.9 mm edges against a 5 mm thickness: every substep pushed
/// neighbours apart, the motion changed and the frame took 30 times as long), so a mesh
/// finer than its thickness keeps half its altitude instead, as cloth tools scale
/// their default self-collision thickness with the edge length. Coarser meshes keep
/// their radius.
pub(super) fn self_radius(radius: f32, altitudes: &[f32]) -> f32 {
    let mut sizes: Vec<f32> = altitudes.iter().copied().filter(|&h| h > 0.0).collect();
    if sizes.is_empty() {
        return radius;
    }
    sizes.sort_unstable_by(f32::total_cmp);
    let small = sizes[((sizes.len() - 1) as f32 * SMALL_ALTITUDE_RANK) as usize];
    radius.min(0.5 * SELF_THICKNESS_PER_ALTITUDE * small)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Body;

    #[test]
    fn self_radius_is_capped_by_a_small_altitude_not_by_slivers() {
        // A coarse mesh keeps its radius; a fine one half its small altitude.
        assert_eq!(self_radius(0.002, &[0.02; 10]), 0.002);
        assert_eq!(self_radius(0.002, &[0.004; 10]), 0.5 * SELF_THICKNESS_PER_ALTITUDE * 0.004);
        // Two slivers in thirty (and a degenerate triangle, left out) do not set it: the
        // altitude a tenth of the way up the sorted list does (index 2 of 30).
        let mut altitudes = vec![0.004; 27];
        altitudes.extend([1e-5, 0.0, 0.003, 1e-5]);
        assert_eq!(self_radius(0.01, &altitudes), 0.5 * SELF_THICKNESS_PER_ALTITUDE * 0.003);
        // Nothing to measure: the radius.
        assert_eq!(self_radius(0.002, &[0.0, 0.0]), 0.002);
    }

    #[test]
    fn boundary_of_two_tets_is_six_outward_faces() {
        let points = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(1.0, 1.0, 1.0)];
        let mut body = Body::new(
            "b",
            BodyKind::Volume,
            points.clone(),
            crate::Material {
                youngs_modulus: 1.0,
                poissons_ratio: 0.3,
                density: 1.0,
                thickness: 0.0,
                stretch_stiffness: 0.0,
                shear_stiffness: 0.0,
                bend_stiffness: 0.0,
                dynamic_friction: 0.0,
                static_friction: 0.0,
                damping: 0.0,
                bend_damping: 0.0,
            },
        );
        body.tets = vec![[0, 1, 2, 3], [1, 2, 3, 4]];
        let faces = surface_triangles(&body);
        assert_eq!(faces.len(), 6);
        let centre = points.iter().copied().sum::<Vec3>() / 5.0;
        for f in faces {
            let [a, b, c] = f.map(|i| points[i as usize]);
            assert!((b - a).cross(c - a).dot(a - centre) > 0.0, "face {f:?} faces inwards");
        }
    }
}
