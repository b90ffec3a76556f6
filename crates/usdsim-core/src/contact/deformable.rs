//! Contact between deformable bodies and of a body with itself: vertex–triangle
//! proximity with a thickness, found through a spatial hash and resolved as XPBD
//! inequality constraints inside the solver iterations, with Coulomb friction.
//!
//! Following Bridson, Fedkiw & Anderson 2002, "Robust Treatment of Collisions, Contact
//! and Friction for Cloth Animation", every surface vertex keeps a distance `d` (the
//! *thickness*: the sum of the vertex's and the triangle's contact radii, or, within one
//! body, no more than half its small triangle altitude: [`Surfaces::thickness`]) from
//! every surface triangle it does not belong to:
//!
//! * **Detection, every substep.** Each triangle's box swept over the substep (start and
//!   predicted positions) is grown by its radius plus a margin, and so is each vertex's.
//!   A (vertex, triangle) pair whose boxes overlap becomes a contact when the predicted
//!   vertex lies within `d` + margin + the substep displacement of the vertex *relative
//!   to* the triangle's vertices (the largest `|Δp − Δtₖ|`, which bounds its motion
//!   relative to any point of the triangle) of the predicted triangle. Counting the
//!   relative displacement is what keeps a fast vertex from stepping through a triangle
//!   in one substep: one that crossed it is now at most that far from it. (Absolute
//!   displacements, used before, made every neighbour of a fast but smoothly moving cloth
//!   a contact: 15–25 thousand contacts a substep on a swinging 64² cloth, all projected
//!   on one thread.) The pairs tested are not searched for every substep: candidate
//!   lists, built from each vertex's predicted path, serve up to four substeps while
//!   every vertex stays near its path ([`candidates`]); they hold every pair the test
//!   could keep, so the contacts are those of a search from scratch. The lists are
//!   searched through a bounding-volume hierarchy with normal cones ([`cone_tree`]),
//!   which skips the smooth parts of a surface against themselves. Detection runs
//!   in parallel over the pairs in fixed chunks and its output is in (vertex, triangle)
//!   order, so the contact list is the same for any thread count.
//! * **Side.** A cloth triangle is two-sided: the side a vertex must stay on is the one
//!   it was on at the start of the substep (assumed intersection-free). A volume body's
//!   surface triangles face outwards, so the side is always "outside": a vertex that did
//!   get in is pushed out again.
//! * **Projection.** `C = n·(p − q) − d ≥ 0` with `q` the closest point of the triangle
//!   (barycentric weights `b`), `n` the side's face normal when `q` is inside the face
//!   and `(p − q)/|p − q|` on an edge or corner (only while the vertex is on its side of
//!   the plane; behind it, the neighbouring triangle's face holds it). The gradient is `n` for the vertex and
//!   `−bₖ n` for the triangle's vertices; zero compliance (Macklin et al. 2016). Contacts
//!   couple four vertices of possibly different bodies, so they are projected on one
//!   thread in list order after the coloured constraints of each iteration: results are
//!   bit-identical for any thread count.
//! * **Existing overlap.** A pair already closer than `d` at the start of the substep
//!   (authored interpenetration, or a vertex that got deep inside a solid) is held at
//!   its start distance by the iterations and moved apart afterwards by at most
//!   `max_depenetration_velocity · dt`, positions only ([`Surfaces::depenetrate`]): the
//!   iterations would resolve it within one substep and the velocity update would turn
//!   it into a pop (PhysX bounds it by `maxDepenetrationVelocity`).
//! * **Immovable sides.** A pair whose vertices are all immovable (kinematic, pinned or
//!   driven, asleep) is skipped, except when exactly one of its two bodies is asleep: a
//!   kinematic body moving into a sleeping one must be seen to wake it
//!   ([`Surfaces::woken_by`]; the projection itself does nothing with such a pair until
//!   the sleeper wakes). A kinematic body against a dynamic one needs nothing special:
//!   its zero inverse mass puts the whole correction on the dynamic side, from either
//!   direction (its vertices on the other's triangles, or the other's vertices on its
//!   triangles).
//! * **Friction** once per substep from each contact's accumulated normal push, on the
//!   relative tangential displacement of vertex and triangle point, distributed by
//!   inverse mass (Macklin et al. 2014, "Unified Particle Physics for Real-Time
//!   Applications", §6.1): static friction removes it entirely below `μs·push`, dynamic
//!   friction removes at most `μd·push`. Two bodies' coefficients combine as their
//!   average, as against static colliders (`contact/collider.rs`).
//!
//! * **Edge–edge proximity** (Bridson et al. §7.2), for surface bodies (cloth) only: two
//!   edges that share no vertex keep the thickness between their closest points
//!   `pa = (1 − s)·a₀ + s·a₁`, `pb = (1 − t)·b₀ + t·b₁`. Edges have swept boxes like the
//!   triangles and candidate lists of their own (each edge keeps candidates of higher
//!   index, so the pairs come out sorted). The reach counts
//!   the edges' relative displacement (the largest `|Δaᵢ − Δbⱼ|` over their ends), as for
//!   vertex–triangle pairs. The direction is
//!   `(pa − pb)/|pa − pb|` while on the side of the start of the substep (its `pa − pb`
//!   is stored: a cross product flips sign when edges turn through parallel); behind it,
//!   with both closest points inside their edges, the edges crossed and the direction is
//!   `(a₁ − a₀)×(b₁ − b₀)` turned to that side; otherwise none (the vertex–triangle
//!   contacts hold the rest). Gradients are `(1 − s, s)·n` and `−(1 − t, t)·n`; the contacts share
//!   the list, projection and friction of the vertex–triangle contacts. Element filters:
//!   an edge belongs to its triangles; a pair is skipped when an end of either edge is
//!   filtered against a triangle of the other ([`FilterTable::vertex_triangle`]), the
//!   vertices' rule, so a filtered region passes its counterpart edges and all.
//!   Volume boundaries have no edge contacts (a coarse tet mesh passing an edge through
//!   another edge is caught by its vertices against the faces far more often than not).
//!
//! **Layout.** A file a concern, each using (importing or calling) only the files above
//! it in this list, so that the dependencies run one way; `cone_tree/` and `candidates/`
//! split one type's `impl` by stage, after the file of the type itself:
//!
//! 1. `path.rs`: each vertex's predicted path over a list's window, and its SIMD lanes.
//! 2. `bounds.rs`: the boxes and normal cones of the tree's nodes, and their tests.
//! 3. `leaf_pair.rs`: what the tree's search hands the lists (two leaves, found pairs).
//! 4. `cone_tree.rs`: the tree's data (its documentation explains the tree).
//! 5. `candidates.rs`: the candidate lists and their check at every substep (its
//!    documentation explains the lists).
//! 6. `surfaces.rs`: [`Surfaces`], what the search knows of the scene, and [`SelfContact`].
//! 7. `contact.rs`: a [`Contact`] and what it joins.
//! 8. `cone_tree/refit.rs`, `cone_tree/search.rs`, `cone_tree/build.rs`: the tree
//!    refitted to a window, searched, and built once (the build searches it at rest).
//! 9. `vertex_triangle.rs`, `edge_edge.rs`: the two kinds of pair (whether they may
//!    touch, whether they are a contact, the constraint's value).
//! 10. `candidates/vertex_boxes.rs`, `candidates/leaf_test.rs`, `candidates/repair.rs`,
//!     `candidates/refresh.rs`: a list build's vertex boxes and test of a leaf pair, a
//!     repair, and the refresh at every substep.
//! 11. `detection.rs`: the contacts of a substep.
//! 12. `projection.rs`, `depenetration.rs`, `friction.rs`: what the solver does with them.
//! 13. `waking.rs`: the sleeping bodies that contacts wake.
//! 14. `pose_exemptions.rs`: the pairs the self-collision filter pose exempts.
//! 15. `construction.rs`: [`Surfaces::new`], which puts it all together.
//!
//! (`fixtures.rs` and the `tests.rs` files are the tests'.)
//!
//! [`FilterTable::vertex_triangle`]: crate::contact::filter_table::FilterTable::vertex_triangle

mod bounds;
mod candidates;
mod cone_tree;
mod construction;
mod contact;
mod depenetration;
mod detection;
mod edge_edge;
#[cfg(test)]
mod fixtures;
mod friction;
mod leaf_pair;
mod path;
mod pose_exemptions;
mod projection;
mod surfaces;
mod vertex_triangle;
mod waking;

pub use contact::Contact;
pub use surfaces::{SelfContact, Surfaces};
