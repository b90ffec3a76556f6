//! Attachment and element collision filter rules (DB401–DB406): source targets,
//! index ranges against the source meshes, matching array lengths, constitutive values
//! and filter group bookkeeping, for the six attachment types of the seed schema.

use openusd::sdf;

use super::body_rules::SoundBody;
use super::mesh_rules::check_finite;
use super::walk::Walk;
use crate::attribute_values as av;

const SRC: [&str; 2] = ["omniphysics:src0", "omniphysics:src1"];
const FILTER: &str = "OmniPhysicsElementCollisionFilter";

/// What an index array indexes on its source.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Elem {
    Vertex,
    Triangle,
    Tetrahedron,
}

impl Elem {
    fn word(self) -> &'static str {
        match self {
            Elem::Vertex => "points",
            Elem::Triangle => "triangles",
            Elem::Tetrahedron => "tetrahedra",
        }
    }
}

/// One attachment type: its index arrays (attribute, source side, element) and the
/// arrays that must all have the same length.
struct AttachmentType {
    type_name: &'static str,
    indices: &'static [(&'static str, usize, Elem)],
    same_length: &'static [&'static str],
}

const TYPES: [AttachmentType; 6] = [
    AttachmentType {
        type_name: "OmniPhysicsVtxVtxAttachment",
        indices: &[("omniphysics:vtxIndicesSrc0", 0, Elem::Vertex), ("omniphysics:vtxIndicesSrc1", 1, Elem::Vertex)],
        same_length: &["omniphysics:vtxIndicesSrc0", "omniphysics:vtxIndicesSrc1"],
    },
    AttachmentType {
        type_name: "OmniPhysicsVtxTriAttachment",
        indices: &[("omniphysics:vtxIndicesSrc0", 0, Elem::Vertex), ("omniphysics:triIndicesSrc1", 1, Elem::Triangle)],
        same_length: &["omniphysics:vtxIndicesSrc0", "omniphysics:triIndicesSrc1", "omniphysics:triCoordsSrc1"],
    },
    AttachmentType {
        type_name: "OmniPhysicsVtxTetAttachment",
        indices: &[
            ("omniphysics:vtxIndicesSrc0", 0, Elem::Vertex),
            ("omniphysics:tetIndicesSrc1", 1, Elem::Tetrahedron),
        ],
        same_length: &["omniphysics:vtxIndicesSrc0", "omniphysics:tetIndicesSrc1", "omniphysics:tetCoordsSrc1"],
    },
    AttachmentType {
        type_name: "OmniPhysicsVtxXformAttachment",
        indices: &[("omniphysics:vtxIndicesSrc0", 0, Elem::Vertex)],
        same_length: &["omniphysics:vtxIndicesSrc0", "omniphysics:localPositionsSrc1"],
    },
    AttachmentType {
        type_name: "OmniPhysicsTetXformAttachment",
        indices: &[("omniphysics:tetIndicesSrc0", 0, Elem::Tetrahedron)],
        same_length: &["omniphysics:tetIndicesSrc0", "omniphysics:tetCoordsSrc0", "omniphysics:localPositionsSrc1"],
    },
    AttachmentType {
        type_name: "OmniPhysicsTriTriAttachment",
        indices: &[
            ("omniphysics:triIndicesSrc0", 0, Elem::Triangle),
            ("omniphysics:triIndicesSrc1", 1, Elem::Triangle),
        ],
        same_length: &[
            "omniphysics:triIndicesSrc0",
            "omniphysics:triCoordsSrc0",
            "omniphysics:triIndicesSrc1",
            "omniphysics:triCoordsSrc1",
        ],
    },
];

/// Coordinate and position arrays that must hold finite values.
const COORDS: [&str; 5] = [
    "omniphysics:triCoordsSrc0",
    "omniphysics:triCoordsSrc1",
    "omniphysics:tetCoordsSrc0",
    "omniphysics:tetCoordsSrc1",
    "omniphysics:localPositionsSrc1",
];

/// Runs the attachment and filter rules.
pub(crate) fn check(walk: &mut Walk, bodies: &[SoundBody]) {
    for i in 0..walk.prims.len() {
        let type_name = walk.prims[i].type_name.clone();
        let path = walk.prims[i].path.clone();
        if let Some(kind) = TYPES.iter().find(|t| t.type_name == type_name) {
            let sources = sources(walk, &path, bodies);
            check_attachment(walk, &path, kind, &sources);
        } else if type_name == FILTER {
            let sources = sources(walk, &path, bodies);
            check_filter(walk, &path, &sources);
        }
    }
}

/// DB401: the single target of src0 and src1, resolved to the mesh whose elements the
/// indices refer to (a body prim stands for its simulation mesh).
fn sources(walk: &mut Walk, prim: &sdf::Path, bodies: &[SoundBody]) -> [Option<sdf::Path>; 2] {
    let mut out = [None, None];
    for (side, rel) in SRC.iter().enumerate() {
        let targets = walk.targets(prim, rel);
        if targets.len() != 1 {
            walk.report("DB401", prim, Some(rel), format!("has {} targets; expected exactly one", targets.len()));
            continue;
        }
        let target = targets[0].clone();
        if !walk.exists(&target) {
            walk.report("DB401", prim, Some(rel), format!("target {target} does not exist; expected an existing prim"));
            continue;
        }
        let resolved = walk
            .find(&target)
            .and_then(|t| bodies.iter().find(|b| b.root == t))
            .map(|b| walk.prims[b.sim].path.clone())
            .unwrap_or(target);
        out[side] = Some(resolved);
    }
    out
}

/// Number of elements of kind `elem` on `mesh`, when the mesh defines them.
fn element_count(walk: &Walk, mesh: &sdf::Path, elem: Elem) -> Option<usize> {
    let type_name = walk.find(mesh).map(|i| walk.prims[i].type_name.as_str()).unwrap_or_default();
    let ctx = &walk.ctx;
    match (elem, type_name) {
        (Elem::Vertex, _) => av::vec3_array(ctx, mesh, "points").ok().flatten().map(|p| p.len()),
        (Elem::Triangle, "Mesh") => av::int_array(ctx, mesh, "faceVertexIndices").ok().flatten().map(|v| v.len() / 3),
        (Elem::Triangle, "TetMesh") => {
            av::int_tuple_array::<3>(ctx, mesh, "surfaceFaceVertexIndices").ok().flatten().map(|v| v.len())
        }
        (Elem::Tetrahedron, "TetMesh") => {
            av::int_tuple_array::<4>(ctx, mesh, "tetVertexIndices").ok().flatten().map(|v| v.len())
        }
        _ => None,
    }
}

/// Length of an array attribute of any element type (unauthored: 0).
fn array_len(walk: &mut Walk, prim: &sdf::Path, name: &str) -> usize {
    if name.contains("Indices") {
        walk.read(prim, name, av::int_array).map_or(0, |v| v.len())
    } else {
        walk.read(prim, name, av::vec3_array).map_or(0, |v| v.len())
    }
}

fn check_attachment(walk: &mut Walk, prim: &sdf::Path, kind: &AttachmentType, sources: &[Option<sdf::Path>; 2]) {
    // DB402: index ranges.
    for &(name, side, elem) in kind.indices {
        let Some(indices) = walk.read(prim, name, av::int_array) else {
            continue;
        };
        let Some(source) = &sources[side] else {
            continue;
        };
        let Some(count) = element_count(walk, source, elem) else {
            continue;
        };
        let bad: Vec<(usize, i64)> =
            indices.iter().copied().enumerate().filter(|&(_, x)| x < 0 || x as u64 >= count as u64).collect();
        if let Some(&(at, index)) = bad.first() {
            walk.report(
                "DB402",
                prim,
                Some(name),
                format!(
                    "index {index} (entry {at}) out of range for the {count} {} of {source}; expected 0..={} ({} bad indices)",
                    elem.word(),
                    count.saturating_sub(1),
                    bad.len()
                ),
            );
        }
    }
    // DB403: lengths.
    let lengths: Vec<(&str, usize)> = kind.same_length.iter().map(|&n| (n, array_len(walk, prim, n))).collect();
    let (first, expected) = lengths[0];
    for &(name, len) in &lengths[1..] {
        if len != expected {
            walk.report(
                "DB403",
                prim,
                Some(name),
                format!("has {len} entries, expected {expected} (one per entry of {first})"),
            );
        }
    }
    // DB104: finite coordinates; DB404: non-negative stiffness and damping.
    for name in COORDS {
        if let Some(values) = walk.read(prim, name, av::vec3_array) {
            check_finite(walk, prim, name, &values);
        }
    }
    if let Some(k) = walk.read(prim, "omniphysics:stiffness", av::f64_value) {
        if k.is_nan() || k < 0.0 {
            walk.report(
                "DB404",
                prim,
                Some("omniphysics:stiffness"),
                format!("found {k}; expected a non-negative stiffness (inf = hard)"),
            );
        }
    }
    if let Some(d) = walk.read(prim, "omniphysics:damping", av::f64_value) {
        if !(d.is_finite() && d >= 0.0) {
            walk.report(
                "DB404",
                prim,
                Some("omniphysics:damping"),
                format!("found {d}; expected a finite, non-negative damping"),
            );
        }
    }
}

fn check_filter(walk: &mut Walk, prim: &sdf::Path, sources: &[Option<sdf::Path>; 2]) {
    let counts: Vec<Vec<i64>> = (0..2)
        .map(|k| walk.read(prim, &format!("omniphysics:groupElemCounts{k}"), av::int_array).unwrap_or_default())
        .collect();
    let indices: Vec<Vec<i64>> = (0..2)
        .map(|k| walk.read(prim, &format!("omniphysics:groupElemIndices{k}"), av::int_array).unwrap_or_default())
        .collect();
    if !counts[0].is_empty() && !counts[1].is_empty() && counts[0].len() != counts[1].len() {
        walk.report(
            "DB405",
            prim,
            Some("omniphysics:groupElemCounts1"),
            format!("has {} groups, expected {} (as many as groupElemCounts0)", counts[1].len(), counts[0].len()),
        );
    }
    for k in 0..2 {
        let sum: i64 = counts[k].iter().sum();
        if sum != indices[k].len() as i64 {
            walk.report(
                "DB405",
                prim,
                Some(&format!("omniphysics:groupElemIndices{k}")),
                format!("has {} entries, expected {sum} (the sum of groupElemCounts{k})", indices[k].len()),
            );
        }
        let Some(source) = &sources[k] else {
            continue;
        };
        let Some(count) = element_count(walk, source, Elem::Triangle) else {
            continue;
        };
        if let Some(&index) = indices[k].iter().find(|&&x| x < 0 || x as u64 >= count as u64) {
            walk.report(
                "DB406",
                prim,
                Some(&format!("omniphysics:groupElemIndices{k}")),
                format!(
                    "index {index} out of range for the {count} triangles of {source}; expected 0..={}",
                    count.saturating_sub(1)
                ),
            );
        }
    }
}
