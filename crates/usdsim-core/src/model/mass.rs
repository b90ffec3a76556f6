//! Per-vertex masses from element rest volumes and density (DESIGN.md, "Mass").
//!
//! Each tetrahedron gives a quarter of `ρ·V` to each of its vertices, each triangle a
//! third of `ρ·A·h`, with each element's own material (per-element assignment). Authored
//! per-point masses (`physics:masses`) replace the derived ones. A total-mass override rescales the result. Vertices that belong to
//! no element get the body's mean vertex mass so they still fall under gravity.

use crate::constraint::neo_hookean::signed_volume;
use crate::scene::{Body, BodyKind};
use glam::Vec3;

/// Masses of a body's vertices, in stage mass units.
pub fn vertex_masses(body: &Body) -> Vec<f32> {
    let mut m = vec![0.0f32; body.positions.len()];
    let corner = element_corner_masses(body);
    match body.kind {
        BodyKind::Volume => {
            for (tet, &share) in body.tets.iter().zip(&corner) {
                for &v in tet {
                    m[v as usize] += share;
                }
            }
        }
        BodyKind::Surface => {
            for (tri, &share) in body.triangles.iter().zip(&corner) {
                for &v in tri {
                    m[v as usize] += share;
                }
            }
        }
    }
    if body.point_masses.len() == m.len() {
        m.copy_from_slice(&body.point_masses);
    }
    let assigned: Vec<f32> = m.iter().copied().filter(|&x| x > 0.0).collect();
    let mean = if assigned.is_empty() { 1.0 } else { assigned.iter().sum::<f32>() / assigned.len() as f32 };
    for x in &mut m {
        if *x <= 0.0 {
            *x = mean;
        }
    }
    if let Some(total) = body.mass_override {
        let sum: f32 = m.iter().sum();
        if sum > 0.0 && total > 0.0 {
            let s = total / sum;
            m.iter_mut().for_each(|x| *x *= s);
        }
    }
    m
}

/// The mass each element gives each of its corners: density × rest volume / 4 for a
/// tet, density × rest area × thickness / 3 for a triangle.
pub fn element_corner_masses(body: &Body) -> Vec<f32> {
    let rest = |e: &[u32; 4], k: usize| body.rest_points[e[k] as usize];
    body.rest_elements
        .iter()
        .enumerate()
        .map(|(i, re)| {
            let mat = body.element_material(i);
            match body.kind {
                BodyKind::Volume => {
                    let vol = signed_volume([rest(re, 0), rest(re, 1), rest(re, 2), rest(re, 3)]).abs();
                    mat.density * vol / 4.0
                }
                BodyKind::Surface => {
                    let area = 0.5 * (rest(re, 1) - rest(re, 0)).cross(rest(re, 2) - rest(re, 0)).length();
                    mat.density * area * mat.thickness / 3.0
                }
            }
        })
        .collect()
}

/// Centre of mass of points with the given masses.
pub fn centre_of_mass(points: &[Vec3], masses: &[f32]) -> Vec3 {
    let total: f32 = masses.iter().sum();
    points.iter().zip(masses).map(|(p, &m)| *p * m).sum::<Vec3>() / total.max(f32::MIN_POSITIVE)
}
