//! What the cone tree's search ([`super::cone_tree`]) hands the candidate lists
//! ([`super::candidates`]): two leaves whose boxes overlap, with the features each
//! triangle owns ([`LeafPair`]), and the pairs the lists keep of them ([`Found`]).

use glam::Vec3;

/// Pairs found by one search.
#[derive(Default)]
pub(super) struct Found {
    /// (vertex, triangle) pairs.
    pub(super) vertex_triangle: Vec<(u32, u32)>,
    /// (edge, edge) pairs, lower edge first.
    pub(super) edge_edge: Vec<(u32, u32)>,
}

impl Found {
    /// Moves `other`'s pairs to the end of these (a search joins its halves' pairs).
    pub(super) fn append(&mut self, mut other: Found) {
        self.vertex_triangle.append(&mut other.vertex_triangle);
        self.edge_edge.append(&mut other.edge_edge);
    }
}

/// Two leaves whose boxes overlap: their triangles and the features each owns.
pub(super) struct LeafPair {
    /// The two triangles (global indices).
    pub(super) triangles: [u32; 2],
    /// Their boxes along the window, grown by their radii.
    pub(super) boxes: [(Vec3, Vec3); 2],
    /// The vertices each owns, [`NONE`]-padded.
    ///
    /// [`NONE`]: super::cone_tree::NONE
    pub(super) vertices: [[u32; 3]; 2],
    /// The edges each owns (indices into the surfaces' edges), [`NONE`]-padded.
    ///
    /// [`NONE`]: super::cone_tree::NONE
    pub(super) edges: [[u32; 3]; 2],
}
