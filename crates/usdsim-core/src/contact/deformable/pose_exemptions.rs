//! The pairs of a body that never collide with each other because they are close in
//! its self-collision filter pose ([`filter_pose`]): vertex–triangle pairs
//! ([`pose_exemptions`]) and edge pairs ([`edge_pose_exemptions`]), found once when the
//! surfaces are built.

use super::surfaces::Surfaces;
use crate::mesh::closest::{closest_point, closest_segment_params, point};
use crate::mesh::spatial_hash::SpatialHash;
use crate::scene::{Body, Scene};
use glam::Vec3;
use std::ops::Range;

/// The pose in which body `b` (of `len` vertices) filters its self contact, and the
/// distance under which two of its parts never collide with each other: the schema's
/// `selfCollisionFilterPose` ("overlapping domains of the mesh in this pose are excluded
/// from self collision"; without one, "the default mesh points are used"), and PhysX's
/// `selfCollisionFilterDistance` or else the pair's thickness plus the search margin.
/// `None` when the body does not collide with itself.
fn filter_pose<'a>(s: &Surfaces, body: &'a Body, b: usize, len: usize) -> Option<(&'a [Vec3], f32)> {
    if !s.self_contact[b] {
        return None;
    }
    let authored = &body.self_collision_filter_pose;
    let pose = if authored.len() == len { authored } else { &body.positions };
    let d = body.self_collision_filter_distance.unwrap_or(s.thickness(b, b) + s.margin);
    (pose.len() == len).then_some((&pose[..], d))
}

/// Vertex–triangle pairs of a body closer than its filter distance in its self-collision
/// filter pose ([`filter_pose`]): they never self-collide.
pub(super) fn pose_exemptions(s: &Surfaces, scene: &Scene, ranges: &[Range<usize>]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (b, body) in scene.bodies.iter().enumerate() {
        let Some((pose, d)) = filter_pose(s, body, b, ranges[b].len()) else { continue };
        let base = ranges[b].start as u32;
        let tris: Vec<u32> = (0..s.triangles.len() as u32).filter(|&t| s.tri_body[t as usize] == b as u32).collect();
        let at = |i: u32| pose[(i - base) as usize];
        let boxes: Vec<(Vec3, Vec3)> = tris
            .iter()
            .map(|&t| {
                let [a, bb, c] = s.triangles[t as usize].map(at);
                (a.min(bb).min(c) - Vec3::splat(d), a.max(bb).max(c) + Vec3::splat(d))
            })
            .collect();
        let mut hash = SpatialHash::default();
        hash.build(s.cell, &boxes);
        for &v in s.vertices.iter().filter(|&&v| s.vertex_body[v as usize] == b as u32) {
            let p = at(v);
            let mut cands = Vec::new();
            hash.query(p, p, |k| cands.push(k));
            cands.sort_unstable();
            cands.dedup();
            for k in cands {
                let t = tris[k as usize];
                let tri = s.triangles[t as usize];
                if tri.contains(&v) {
                    continue;
                }
                let [a, bb, c] = tri.map(at);
                let (bary, _) = closest_point(p, a, bb, c);
                if p.distance(point(bary, a, bb, c)) <= d {
                    out.push((v, t));
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// Edge pairs of a body closer than its filter distance in its self-collision filter pose
/// (as [`pose_exemptions`] for vertex–triangle pairs), sorted.
pub(super) fn edge_pose_exemptions(s: &Surfaces, scene: &Scene, ranges: &[Range<usize>]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (b, body) in scene.bodies.iter().enumerate() {
        let Some((pose, d)) = filter_pose(s, body, b, ranges[b].len()) else { continue };
        let base = ranges[b].start as u32;
        let edges: Vec<u32> = (0..s.edges.len() as u32).filter(|&e| s.edge_body[e as usize] == b as u32).collect();
        let at = |i: u32| pose[(i - base) as usize];
        let boxes: Vec<(Vec3, Vec3)> = edges
            .iter()
            .map(|&e| {
                let [p, q] = s.edges[e as usize].map(at);
                (p.min(q) - Vec3::splat(d), p.max(q) + Vec3::splat(d))
            })
            .collect();
        let mut hash = SpatialHash::default();
        hash.build(s.cell, &boxes);
        let mut cands = Vec::new();
        for (k, &e) in edges.iter().enumerate() {
            let ab = s.edges[e as usize];
            cands.clear();
            hash.query(boxes[k].0, boxes[k].1, |j| cands.push(j));
            cands.sort_unstable();
            cands.dedup();
            for &j in &cands {
                let f = edges[j as usize];
                let cd = s.edges[f as usize];
                if f <= e || ab.iter().any(|v| cd.contains(v)) {
                    continue;
                }
                let [p0, p1] = ab.map(at);
                let [q0, q1] = cd.map(at);
                let (u, v) = closest_segment_params(p0, p1, q0, q1);
                if p0.lerp(p1, u).distance(q0.lerp(q1, v)) <= d {
                    out.push((e, f));
                }
            }
        }
    }
    out.sort_unstable();
    out
}
