//! Geometry, with no physics: the parry3d form of collider shapes, closest points, a body's surface triangles,
//! embedding one mesh in another, the spatial
//! hash the contact search uses, splitting a mesh along broken edges (tearing), the
//! structured grids tests and benchmarks build bodies on, and the voxel tetrahedral
//! meshes (with generalised winding numbers) that `usdsim prepare` makes from render
//! meshes.

pub(crate) mod closest;
pub(crate) mod embedding;
pub mod grid;
pub(crate) mod parry_shape;
pub(crate) mod spatial_hash;
pub(crate) mod split;
pub(crate) mod surface;
pub(crate) mod voxel_tets;
pub(crate) mod winding;
