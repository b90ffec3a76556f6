//! The surface of a body as triangles: what contacts collide with and what element
//! collision filters number.

use std::collections::HashMap;

use crate::scene::{Body, BodyKind};

/// The surface triangles of a body, which element collision filters number: a surface
/// body's triangles as they are; for a volume body the boundary faces of its
/// tetrahedra, in the order tet 0 face 0..3, tet 1 face 0..3, …, where face `k` of tet
/// `[v0, v1, v2, v3]` is the one opposite `vk` (`[v1, v2, v3]`, `[v0, v3, v2]`,
/// `[v0, v1, v3]`, `[v0, v2, v1]`), keeping the faces that belong to one tet only.
/// Volume faces are wound to face outwards in the initial positions.
pub fn surface_triangles(body: &Body) -> Vec<[u32; 3]> {
    match body.kind {
        BodyKind::Surface => body.triangles.clone(),
        BodyKind::Volume => {
            const FACES: [[usize; 4]; 4] = [[1, 2, 3, 0], [0, 3, 2, 1], [0, 1, 3, 2], [0, 2, 1, 3]];
            let key = |f: [u32; 3]| {
                let mut k = f;
                k.sort_unstable();
                k
            };
            let mut count: HashMap<[u32; 3], u32> = HashMap::new();
            for t in &body.tets {
                for f in FACES {
                    *count.entry(key([t[f[0]], t[f[1]], t[f[2]]])).or_default() += 1;
                }
            }
            let mut out = Vec::new();
            for t in &body.tets {
                for f in FACES {
                    let tri = [t[f[0]], t[f[1]], t[f[2]]];
                    if count[&key(tri)] != 1 {
                        continue;
                    }
                    let p = |i: u32| body.positions[i as usize];
                    let n = (p(tri[1]) - p(tri[0])).cross(p(tri[2]) - p(tri[0]));
                    let outward = n.dot(p(tri[0]) - p(t[f[3]])) >= 0.0;
                    out.push(if outward { tri } else { [tri[0], tri[2], tri[1]] });
                }
            }
            out
        }
    }
}
