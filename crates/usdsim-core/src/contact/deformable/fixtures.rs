//! Fixtures of the deformable-contact tests: grid cloth sheets, and a field-by-field
//! comparison of contact lists.

use super::contact::Contact;
use crate::mesh::grid::cloth;
use crate::scene::{Body, BodyKind};
use crate::Material;
use glam::Vec3;

/// A square cloth of side `size` and `verts` × `verts` vertices at `origin`, 1 mm
/// thick, in the XY plane.
pub(in crate::contact::deformable) fn cloth_sheet(name: &str, origin: Vec3, size: f32, verts: u32) -> Body {
    let (points, triangles) = cloth(origin, Vec3::X, Vec3::Y, (size, size), (verts, verts));
    let material = Material {
        youngs_modulus: 1e5,
        poissons_ratio: 0.3,
        density: 200.0,
        thickness: 0.001,
        stretch_stiffness: 0.0,
        shear_stiffness: 0.0,
        bend_stiffness: 0.0,
        dynamic_friction: 0.3,
        static_friction: 0.3,
        damping: 0.0,
        bend_damping: 0.0,
    };
    let mut body = Body::new(name, BodyKind::Surface, points, material);
    body.triangles = triangles;
    body
}

/// Whether two contact lists are the same, field by field.
pub(in crate::contact::deformable) fn same(a: &[Contact], b: &[Contact]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(p, q)| {
            (p.vertex, p.triangle, p.edge, p.side, p.normal, p.distance, p.overlap)
                == (q.vertex, q.triangle, q.edge, q.side, q.normal, q.distance, q.overlap)
        })
}
