//! One contact of a substep ([`Contact`]), what it joins (its bodies and four vertices),
//! and how a pair that starts the substep overlapping is held ([`hold_start`]).

use super::surfaces::Surfaces;
use glam::Vec3;

/// One vertex–triangle or edge–edge contact of the current substep.
#[derive(Clone, Copy, Debug)]
pub struct Contact {
    /// Global vertex index; for an edge–edge contact the first edge (index into the
    /// surfaces' edges).
    pub vertex: u32,
    /// Index into [`Surfaces::triangles`]; for an edge–edge contact the second edge.
    pub triangle: u32,
    /// Whether this is an edge–edge contact.
    pub edge: bool,
    /// +1 or −1: which side of the triangle's normal the vertex must stay on.
    pub side: f32,
    /// Edge–edge: direction from the second edge's closest point to the first's at the
    /// start of the substep, the side the first edge must stay on (zero otherwise).
    pub normal: Vec3,
    /// Thickness: distance to keep.
    pub distance: f32,
    /// Combined (static, dynamic) friction.
    pub friction: [f32; 2],
    /// Normal push accumulated this substep (position units).
    pub push: f32,
    /// How far inside `distance` the pair started the substep (0 when apart): the
    /// iterations hold `distance` reduced by it, [`Surfaces::depenetrate`] resolves it
    /// without adding velocity.
    pub overlap: f32,
}

impl Surfaces {
    /// The two bodies contact `c` joins: the vertex's (first edge's) and the triangle's
    /// (second edge's).
    pub fn bodies_of(&self, c: &Contact) -> [usize; 2] {
        if c.edge {
            [self.edge_body[c.vertex as usize], self.edge_body[c.triangle as usize]].map(|b| b as usize)
        } else {
            [self.vertex_body[c.vertex as usize], self.tri_body[c.triangle as usize]].map(|b| b as usize)
        }
    }

    /// The four vertices contact `c` moves: the vertex and the triangle's corners, or
    /// both edges' ends.
    pub fn vertices(&self, c: &Contact) -> [u32; 4] {
        if c.edge {
            self.edge_vertices(c)
        } else {
            let [a, b, d] = self.triangles[c.triangle as usize];
            [c.vertex, a, b, d]
        }
    }

    /// The four vertices of an edge–edge contact.
    #[inline]
    pub(super) fn edge_vertices(&self, c: &Contact) -> [u32; 4] {
        let [a0, a1] = self.edges[c.vertex as usize];
        let [b0, b1] = self.edges[c.triangle as usize];
        [a0, a1, b0, b1]
    }
}

/// A contact whose constraint value at the start of the substep, `start`, is negative
/// started overlapping: the iterations keep it from sinking deeper (its distance drops to
/// the start's) rather than resolving it, which would turn the overlap into velocity.
pub(super) fn hold_start(c: &mut Contact, start: f32) {
    if start < 0.0 {
        c.overlap = -start;
        c.distance += start;
    }
}
