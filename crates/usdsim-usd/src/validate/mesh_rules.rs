//! Simulation mesh rules (DB007, DB101–DB110): required geometry, index ranges, array
//! lengths, finite values, rest element quality, bend data and topology.

use std::collections::HashMap;

use glam::DVec3;
use openusd::sdf;

use super::body_rules::SoundBody;
use super::walk::Walk;
use crate::schema::names::SimKind;
use crate::stage::attribute_values as av;

/// Reports the first non-finite entry of `values` (DB104). Returns whether all are finite.
pub(crate) fn check_finite(walk: &mut Walk, prim: &sdf::Path, name: &str, values: &[DVec3]) -> bool {
    let bad: Vec<usize> = (0..values.len()).filter(|&i| !values[i].is_finite()).collect();
    if let Some(&first) = bad.first() {
        walk.report(
            "DB104",
            prim,
            Some(name),
            format!(
                "{} of {} entries are not finite (first: entry {first} = {:?}); expected finite numbers",
                bad.len(),
                values.len(),
                values[first].to_array()
            ),
        );
    }
    bad.is_empty()
}

/// Reports indices outside `0..count` (DB102). Returns whether all are in range.
pub(crate) fn check_range(
    walk: &mut Walk,
    prim: &sdf::Path,
    name: &str,
    indices: &[i64],
    count: usize,
    target: &str,
) -> bool {
    let bad: Vec<(usize, i64)> =
        indices.iter().copied().enumerate().filter(|&(_, x)| x < 0 || x as u64 >= count as u64).collect();
    if let Some(&(at, index)) = bad.first() {
        let more = if bad.len() > 1 { format!(" ({} bad indices in all)", bad.len()) } else { String::new() };
        walk.report(
            "DB102",
            prim,
            Some(name),
            format!(
                "index {index} (entry {at}) out of range for {count} {target}; expected 0..={}{more}",
                count.saturating_sub(1)
            ),
        );
    }
    bad.is_empty()
}

/// Reports a length mismatch (DB103). Returns whether the lengths match.
pub(crate) fn check_len(
    walk: &mut Walk,
    prim: &sdf::Path,
    name: &str,
    found: usize,
    expected: usize,
    why: &str,
) -> bool {
    if found != expected {
        walk.report("DB103", prim, Some(name), format!("has {found} entries, expected {expected} ({why})"));
    }
    found == expected
}

fn flat<const N: usize>(tuples: &[[i64; N]]) -> Vec<i64> {
    tuples.iter().flatten().copied().collect()
}

fn to_elements<const N: usize>(tuples: &[[i64; N]]) -> Vec<[usize; N]> {
    tuples.iter().map(|t| t.map(|x| x as usize)).collect()
}

/// Runs the mesh rules on one sound body's simulation mesh.
pub(crate) fn check(walk: &mut Walk, body: &SoundBody) {
    if body.kind == SimKind::Curves {
        return;
    }
    let sim = walk.prims[body.sim].path.clone();
    let names = body.dialect.names();

    let Some(points) = walk.read(&sim, "points", av::vec3_array) else {
        walk.report("DB101", &sim, Some("points"), "required attribute is not authored (expected point3f[])");
        return;
    };
    if points.is_empty() {
        walk.report("DB101", &sim, Some("points"), "is empty; a simulation mesh needs points");
        return;
    }
    let points_ok = check_finite(walk, &sim, "points", &points);
    if let Some(velocities) = walk.read(&sim, "velocities", av::vec3_array) {
        if !velocities.is_empty() {
            check_len(walk, &sim, "velocities", velocities.len(), points.len(), "one velocity per point");
        }
        check_finite(walk, &sim, "velocities", &velocities);
    }

    // Simulation elements, padded to 4 (triangles repeat nothing; only N entries used).
    let elements: Vec<Vec<usize>> = match body.kind {
        SimKind::Volume => {
            const TETS: &str = "tetVertexIndices";
            let Some(tets) = walk.read(&sim, TETS, av::int_tuple_array::<4>) else {
                walk.report("DB101", &sim, Some(TETS), "required attribute is not authored (expected int4[])");
                return;
            };
            if tets.is_empty() {
                walk.report("DB101", &sim, Some(TETS), "is empty; a volume simulation mesh needs tetrahedra");
                return;
            }
            if !check_range(walk, &sim, TETS, &flat(&tets), points.len(), "points") {
                return;
            }
            to_elements(&tets).into_iter().map(|t| t.to_vec()).collect()
        }
        _ => match triangles(walk, &sim, points.len()) {
            Some(tris) => tris.into_iter().map(|t| t.to_vec()).collect(),
            None => return,
        },
    };
    let element_word = if body.kind == SimKind::Volume { "tetrahedra" } else { "triangles" };

    // Rest shape.
    let rest_points = walk.read(&sim, names.rest_points, av::vec3_array).filter(|p| !p.is_empty());
    let rest_name = if body.kind == SimKind::Volume { names.rest_tets } else { names.rest_tris };
    let rest_indices: Option<Vec<Vec<i64>>> = if body.kind == SimKind::Volume {
        walk.read(&sim, rest_name, av::int_tuple_array::<4>).map(|v| v.iter().map(|t| t.to_vec()).collect())
    } else {
        walk.read(&sim, rest_name, av::int_tuple_array::<3>).map(|v| v.iter().map(|t| t.to_vec()).collect())
    };
    let rest_indices = rest_indices.filter(|v| !v.is_empty());
    let mut rest_ok = true;
    if let Some(rp) = &rest_points {
        rest_ok &= check_finite(walk, &sim, names.rest_points, rp);
        if rest_indices.is_none() {
            rest_ok &= check_len(
                walk,
                &sim,
                names.rest_points,
                rp.len(),
                points.len(),
                &format!("{rest_name} is not authored, so the rest shape corresponds to points one to one"),
            );
        }
    }
    let rest_point_list = rest_points.clone().unwrap_or_else(|| points.clone());
    let rest_elements: Vec<Vec<usize>> = match &rest_indices {
        Some(ri) => {
            rest_ok &= check_len(
                walk,
                &sim,
                rest_name,
                ri.len(),
                elements.len(),
                &format!("one rest element per simulation element; the mesh has {} {element_word}", elements.len()),
            );
            let flat: Vec<i64> = ri.iter().flatten().copied().collect();
            let target = if rest_points.is_some() { "rest points" } else { "points" };
            rest_ok &= check_range(walk, &sim, rest_name, &flat, rest_point_list.len(), target);
            ri.iter().map(|t| t.iter().map(|&x| x as usize).collect()).collect()
        }
        None => elements.clone(),
    };

    if rest_ok {
        rest_quality(walk, &sim, rest_name, &rest_point_list, &rest_elements, body.kind);
        if body.kind == SimKind::Volume && points_ok {
            inverted(walk, &sim, &points, &elements, &rest_point_list, &rest_elements);
        }
    }
    if body.kind == SimKind::Surface {
        bend_data(walk, &sim, body, &elements);
    }
    topology(walk, &sim, points.len(), &elements, body.kind);
}

/// Triangles of a surface simulation mesh (DB007, DB101–DB103).
fn triangles(walk: &mut Walk, sim: &sdf::Path, point_count: usize) -> Option<Vec<[usize; 3]>> {
    const COUNTS: &str = "faceVertexCounts";
    const INDICES: &str = "faceVertexIndices";
    let counts = walk.read(sim, COUNTS, av::int_array);
    let indices = walk.read(sim, INDICES, av::int_array);
    let (Some(counts), Some(indices)) = (counts, indices) else {
        let missing = if walk.read(sim, COUNTS, av::int_array).is_none() { COUNTS } else { INDICES };
        walk.report("DB101", sim, Some(missing), "required attribute is not authored (expected int[])");
        return None;
    };
    if counts.is_empty() {
        walk.report("DB101", sim, Some(COUNTS), "is empty; a surface simulation mesh needs triangles");
        return None;
    }
    let bad: Vec<(usize, i64)> = counts.iter().copied().enumerate().filter(|&(_, c)| c != 3).collect();
    if let Some(&(face, count)) = bad.first() {
        walk.report(
            "DB007",
            sim,
            Some(COUNTS),
            format!(
                "{} of {} faces are not triangles (first: face {face} has {count} vertices); expected 3 per face",
                bad.len(),
                counts.len()
            ),
        );
    }
    let total: i64 = counts.iter().map(|&c| c.max(0)).sum();
    if !check_len(walk, sim, INDICES, indices.len(), total as usize, "the sum of faceVertexCounts") {
        return None;
    }
    if !check_range(walk, sim, INDICES, &indices, point_count, "points") || !bad.is_empty() {
        return None;
    }
    Some(indices.chunks_exact(3).map(|c| [c[0] as usize, c[1] as usize, c[2] as usize]).collect())
}

fn max_edge(p: &[DVec3]) -> f64 {
    let mut longest = 0.0f64;
    for a in 0..p.len() {
        for b in a + 1..p.len() {
            longest = longest.max(p[a].distance(p[b]));
        }
    }
    longest
}

/// Six times the signed volume of a tetrahedron.
fn det(p: &[DVec3]) -> f64 {
    (p[1] - p[0]).dot((p[2] - p[0]).cross(p[3] - p[0]))
}

/// DB105: degenerate rest elements.
fn rest_quality(
    walk: &mut Walk,
    sim: &sdf::Path,
    name: &str,
    points: &[DVec3],
    elements: &[Vec<usize>],
    kind: SimKind,
) {
    let mut bad = Vec::new();
    for (e, element) in elements.iter().enumerate() {
        let p: Vec<DVec3> = element.iter().map(|&i| points[i]).collect();
        let l = max_edge(&p);
        let degenerate = match kind {
            SimKind::Volume => det(&p).abs() <= 1e-9 * l * l * l,
            _ => (p[1] - p[0]).cross(p[2] - p[0]).length() <= 1e-9 * l * l,
        };
        if degenerate || l == 0.0 {
            bad.push(e);
        }
    }
    if let Some(&first) = bad.first() {
        let (word, measure) = match kind {
            SimKind::Volume => ("tetrahedra", "volume"),
            _ => ("triangles", "area"),
        };
        walk.report(
            "DB105",
            sim,
            Some(name),
            format!(
                "{} of {} rest {word} are degenerate (first: element {first}); expected a non-zero {measure}",
                bad.len(),
                elements.len()
            ),
        );
    }
}

/// DB106: simulation tetrahedra whose orientation is opposite to their rest shape's.
fn inverted(
    walk: &mut Walk,
    sim: &sdf::Path,
    points: &[DVec3],
    elements: &[Vec<usize>],
    rest_points: &[DVec3],
    rest_elements: &[Vec<usize>],
) {
    let mut bad = Vec::new();
    for (e, (element, rest)) in elements.iter().zip(rest_elements).enumerate() {
        let p: Vec<DVec3> = element.iter().map(|&i| points[i]).collect();
        let r: Vec<DVec3> = rest.iter().map(|&i| rest_points[i]).collect();
        let (dp, dr) = (det(&p), det(&r));
        let (lp, lr) = (max_edge(&p), max_edge(&r));
        let clear = dp.abs() > 1e-9 * lp * lp * lp && dr.abs() > 1e-9 * lr * lr * lr;
        if clear && dp.signum() != dr.signum() {
            bad.push(e);
        }
    }
    if let Some(&first) = bad.first() {
        walk.report(
            "DB106",
            sim,
            Some("tetVertexIndices"),
            format!(
                "{} of {} tetrahedra start inverted relative to their rest shape (first: element {first}); expected the same orientation in points and the rest shape",
                bad.len(),
                elements.len()
            ),
        );
    }
}

/// DB102–DB104, DB107, DB108: rest bend data of a surface body.
fn bend_data(walk: &mut Walk, sim: &sdf::Path, body: &SoundBody, triangles: &[Vec<usize>]) {
    let names = body.dialect.names();
    if let Some(token) = walk.read(sim, names.bend_default, av::token_value) {
        if !matches!(token.as_str(), "flatDefault" | "restShapeDefault" | "flat" | "restShape") {
            walk.report(
                "DB108",
                sim,
                Some(names.bend_default),
                format!("found {token:?}; expected \"flatDefault\" or \"restShapeDefault\""),
            );
        }
    }
    let pairs = walk.read(sim, names.adj_pairs, av::int_tuple_array::<2>).unwrap_or_default();
    let angles = walk.read(sim, names.bend_angles, av::f64_array).unwrap_or_default();
    check_len(
        walk,
        sim,
        names.bend_angles,
        angles.len(),
        pairs.len(),
        &format!("one angle per pair in {}", names.adj_pairs),
    );
    if let Some(i) = angles.iter().position(|a| !a.is_finite()) {
        walk.report(
            "DB104",
            sim,
            Some(names.bend_angles),
            format!("entry {i} is {}; expected finite angles in degrees", angles[i]),
        );
    }
    if !check_range(walk, sim, names.adj_pairs, &flat(&pairs), triangles.len(), "triangles") {
        return;
    }
    for (i, pair) in pairs.iter().enumerate() {
        let (a, b) = (&triangles[pair[0] as usize], &triangles[pair[1] as usize]);
        let shared = a.iter().filter(|v| b.contains(v)).count();
        if pair[0] == pair[1] || shared < 2 {
            walk.report(
                "DB107",
                sim,
                Some(names.adj_pairs),
                format!(
                    "entry {i} ({}, {}) does not name two triangles sharing an edge in faceVertexIndices",
                    pair[0], pair[1]
                ),
            );
            return;
        }
    }
}

/// DB109, DB110: non-manifold and disconnected simulation meshes.
fn topology(walk: &mut Walk, sim: &sdf::Path, point_count: usize, elements: &[Vec<usize>], kind: SimKind) {
    // Sub-simplices: edges of triangles, faces of tetrahedra.
    let mut shared: HashMap<Vec<usize>, usize> = HashMap::new();
    for element in elements {
        let n = element.len();
        for skip in 0..n {
            if kind == SimKind::Surface && n == 3 {
                let mut edge = vec![element[(skip + 1) % 3], element[(skip + 2) % 3]];
                edge.sort_unstable();
                *shared.entry(edge).or_default() += 1;
            } else {
                let mut face: Vec<usize> = (0..n).filter(|&k| k != skip).map(|k| element[k]).collect();
                face.sort_unstable();
                *shared.entry(face).or_default() += 1;
            }
        }
    }
    let over = shared.values().filter(|&&c| c > 2).count();
    if over > 0 {
        let what = if kind == SimKind::Surface {
            "edges are shared by more than two triangles"
        } else {
            "faces are shared by more than two tetrahedra"
        };
        let attr = if kind == SimKind::Surface { "faceVertexIndices" } else { "tetVertexIndices" };
        walk.report("DB109", sim, Some(attr), format!("non-manifold: {over} {what}; expected a manifold mesh"));
    }

    // Connected components over the elements.
    let mut parent: Vec<usize> = (0..point_count).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut used = vec![false; point_count];
    for element in elements {
        for &v in element {
            used[v] = true;
            let (a, b) = (root(&mut parent, element[0]), root(&mut parent, v));
            parent[a] = b;
        }
    }
    let mut roots: Vec<usize> = (0..point_count).filter(|&i| used[i]).map(|i| root(&mut parent, i)).collect();
    roots.sort_unstable();
    roots.dedup();
    let unused = used.iter().filter(|u| !**u).count();
    if roots.len() > 1 {
        walk.report(
            "DB110",
            sim,
            None,
            format!("the simulation mesh falls into {} disconnected pieces; expected one connected body", roots.len()),
        );
    }
    if unused > 0 {
        walk.report(
            "DB110",
            sim,
            Some("points"),
            format!("{unused} of {point_count} points belong to no element; expected every point to be used"),
        );
    }
}
