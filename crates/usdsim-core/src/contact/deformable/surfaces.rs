//! What the contact search knows of the scene's surfaces ([`Surfaces`], built once by
//! [`Surfaces::new`]) and which bodies collide with themselves ([`SelfContact`]).

use super::candidates::Candidates;
use super::cone_tree::ConeTree;
use crate::scene::{Body, BodyKind};

/// Everything the contact search knows about the scene's surfaces, built once.
pub struct Surfaces {
    /// Per body, its surface triangles in local indices ([`surface_triangles`]).
    ///
    /// [`surface_triangles`]: crate::mesh::surface::surface_triangles
    pub local: Vec<Vec<[u32; 3]>>,
    /// Colliding triangles, global vertex indices.
    pub triangles: Vec<[u32; 3]>,
    /// Body of every colliding triangle.
    pub(super) tri_body: Vec<u32>,
    /// Index of every colliding triangle among its body's surface triangles (`local`).
    pub(super) tri_local: Vec<u32>,
    /// Colliding vertices (global, ascending).
    pub(super) vertices: Vec<u32>,
    /// Body of every global vertex.
    pub vertex_body: Vec<u32>,
    /// Per body, its first global vertex.
    pub(super) body_start: Vec<u32>,
    /// Per body, its vertices' contact radius (the contact offset, plus half the
    /// thickness of a surface body).
    pub(super) radius: Vec<f32>,
    /// Per body, the contact radius of its pairs with itself: [`Surfaces::radius`]
    /// capped by the body's mesh ([`self_radius`]).
    ///
    /// [`self_radius`]: super::construction::self_radius
    pub(super) self_radius: Vec<f32>,
    /// Per body, whether its triangles are two-sided (a surface body) rather than a
    /// volume's outward faces.
    pub(super) two_sided: Vec<bool>,
    /// Per body, its (static, dynamic) friction.
    pub(super) friction: Vec<[f32; 2]>,
    /// Per body, whether it collides with itself.
    pub(super) self_contact: Vec<bool>,
    /// Per body: asleep (`startsAsleep`, not woken yet). A pair of immovable vertices
    /// and triangle (or edges) is still a contact when exactly one side sleeps: a
    /// kinematic or driven body touching a sleeping one must wake it.
    pub(super) asleep: Vec<bool>,
    /// (global vertex, triangle) pairs exempt from self contact (close in the
    /// self-collision filter pose), sorted.
    pub(super) pose_exempt: Vec<(u32, u32)>,
    /// Spatial hash cell edge of the filter pose's search.
    pub(super) cell: f32,
    /// Search margin: what the reach of a pair adds to its thickness.
    pub(super) margin: f32,
    /// Edges of the colliding surface bodies (global vertex indices, lower first), in
    /// body order and sorted within a body.
    pub(super) edges: Vec<[u32; 2]>,
    /// Body of every edge.
    pub(super) edge_body: Vec<u32>,
    /// `edge_tri_start[e]..edge_tri_start[e + 1]` indexes `edge_tri`: the edge's
    /// triangles, local numbering.
    pub(super) edge_tri_start: Vec<u32>,
    /// The edges' triangles (see `edge_tri_start`).
    pub(super) edge_tri: Vec<u32>,
    /// (edge, edge) pairs exempt from self contact (close in the filter pose), sorted.
    pub(super) edge_pose_exempt: Vec<(u32, u32)>,
    /// The pairs each substep tests, kept over several substeps ([`candidates`]).
    ///
    /// [`candidates`]: super::candidates
    pub(super) candidates: Candidates,
    /// The hierarchy their builds search ([`cone_tree`]).
    ///
    /// [`cone_tree`]: super::cone_tree
    pub(super) tree: ConeTree,
}

/// Which bodies collide with themselves.
#[derive(Clone, Copy, Debug)]
pub struct SelfContact {
    /// Surface bodies (cloth, shells): all (`Some(true)`), none (`Some(false)`), or those
    /// whose asset asks (`None`, [`crate::Body::self_collision`]).
    pub surfaces: Option<bool>,
    /// Every volume body's boundary (unless `surfaces` is `Some(false)`, which turns self
    /// contact off for every body); otherwise those whose asset asks.
    pub volumes: bool,
}

impl SelfContact {
    /// Whether `body` collides with itself under these settings.
    pub fn wanted(&self, body: &Body) -> bool {
        match (self.surfaces, body.kind) {
            (Some(false), _) => false,
            (Some(true), BodyKind::Surface) => true,
            (None, BodyKind::Surface) => body.self_collision,
            (_, BodyKind::Volume) => self.volumes || body.self_collision,
        }
    }
}

impl Surfaces {
    /// Whether body `b` collides with itself.
    pub fn collides_with_itself(&self, b: usize) -> bool {
        self.self_contact[b]
    }

    /// Edge `e`'s triangles, local numbering (see [`Surfaces::edge_tri_start`]).
    pub(super) fn edge_triangles(&self, e: usize) -> &[u32] {
        &self.edge_tri[self.edge_tri_start[e] as usize..self.edge_tri_start[e + 1] as usize]
    }

    /// The distance a feature of body `a` keeps from one of body `b`: the sum of their
    /// contact radii, or twice the self-contact radius for a body with itself
    /// ([`self_radius`]: its radius, capped by its mesh).
    ///
    /// [`self_radius`]: super::construction::self_radius
    pub(super) fn thickness(&self, a: usize, b: usize) -> f32 {
        if a == b {
            2.0 * self.self_radius[a]
        } else {
            self.radius[a] + self.radius[b]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn who_collides_with_itself() {
        let body = |kind, asks| Body {
            self_collision: asks,
            ..Body::new("/b", kind, Vec::new(), crate::scene::Material::elastic(1e5, 0.3, 200.0))
        };
        let (surface, volume) = (BodyKind::Surface, BodyKind::Volume);
        let wanted = |surfaces, volumes, kind, asks| SelfContact { surfaces, volumes }.wanted(&body(kind, asks));
        // By default, the asset decides, for either kind.
        assert!(wanted(None, false, surface, true) && !wanted(None, false, surface, false));
        assert!(wanted(None, false, volume, true) && !wanted(None, false, volume, false));
        // Every cloth: volumes still as asked, or all of them with `volumes`.
        assert!(wanted(Some(true), false, surface, false));
        assert!(!wanted(Some(true), false, volume, false) && wanted(Some(true), true, volume, false));
        // None at all, whatever is asked.
        assert!(!wanted(Some(false), true, surface, true) && !wanted(Some(false), true, volume, true));
    }
}
