//! Attachment and element collision filter rules (DB401–DB406): source targets,
//! index ranges against the source meshes, matching array lengths, constitutive values
//! and filter group bookkeeping, for the six attachment types of the seed schema and
//! the element collision filter, in both spellings (`OmniPhysics*` prims with
//! `omniphysics:` attributes, AOUSD `Physics*` prims with `physics:` attributes).

use openusd::sdf;

use super::body_rules::SoundBody;
use super::mesh_rules::check_finite;
use super::walk::Walk;
use crate::schema::attachment::{
    split_type, AttachmentType, SourceKind, ATTACHMENT_TYPES, ELEMENT_FILTER, GROUP_COUNTS, GROUP_INDICES, SRC,
};
use crate::stage::attribute_values as av;

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

impl Elem {
    /// What the index array of a source of `kind` indexes.
    fn of(kind: SourceKind) -> Option<Elem> {
        match kind {
            SourceKind::Vertices => Some(Elem::Vertex),
            SourceKind::Triangles => Some(Elem::Triangle),
            SourceKind::Tets => Some(Elem::Tetrahedron),
            SourceKind::Local => None,
        }
    }
}

/// The index arrays of an attachment type (attribute leaf with its `SrcN`, source side,
/// element), side 0 first.
fn index_arrays(kind: &AttachmentType) -> Vec<(String, usize, Elem)> {
    (0..2)
        .filter_map(|side| {
            let source = kind.sources[side];
            Some((format!("{}Src{side}", source.indices()?), side, Elem::of(source)?))
        })
        .collect()
}

/// The arrays of an attachment type that must all have the same length (one entry per
/// attached point): each side's index array, then its coordinates or positions.
fn same_length(kind: &AttachmentType) -> Vec<String> {
    (0..2)
        .flat_map(|side| {
            let source = kind.sources[side];
            [source.indices(), source.coords()].into_iter().flatten().map(move |leaf| format!("{leaf}Src{side}"))
        })
        .collect()
}

/// Coordinate and position arrays that must hold finite values (without namespace).
const COORDS: [&str; 5] = ["triCoordsSrc0", "triCoordsSrc1", "tetCoordsSrc0", "tetCoordsSrc1", "localPositionsSrc1"];

/// Runs the attachment and filter rules, for both spellings.
pub(crate) fn check(walk: &mut Walk, bodies: &[SoundBody]) {
    for i in 0..walk.prims.len() {
        let type_name = walk.prims[i].type_name.clone();
        let Some((ns, leaf)) = split_type(&type_name) else {
            continue;
        };
        let path = walk.prims[i].path.clone();
        if let Some(kind) = ATTACHMENT_TYPES.iter().find(|t| t.name == leaf) {
            let sources = sources(walk, &path, ns, bodies);
            check_attachment(walk, &path, ns, kind, &sources);
        } else if leaf == ELEMENT_FILTER {
            let sources = sources(walk, &path, ns, bodies);
            check_filter(walk, &path, ns, &sources);
        }
    }
}

/// DB401: the single target of src0 and src1, resolved to the mesh whose elements the
/// indices refer to (a body prim stands for its simulation mesh).
fn sources(walk: &mut Walk, prim: &sdf::Path, ns: &str, bodies: &[SoundBody]) -> [Option<sdf::Path>; 2] {
    let mut out = [None, None];
    for (side, slot) in out.iter_mut().enumerate() {
        let rel = format!("{ns}:{SRC}{side}");
        let targets = walk.targets(prim, &rel);
        if targets.len() != 1 {
            walk.report("DB401", prim, Some(&rel), format!("has {} targets; expected exactly one", targets.len()));
            continue;
        }
        let target = targets[0].clone();
        if !walk.exists(&target) {
            walk.report(
                "DB401",
                prim,
                Some(&rel),
                format!("target {target} does not exist; expected an existing prim"),
            );
            continue;
        }
        let resolved = walk
            .find(&target)
            .and_then(|t| bodies.iter().find(|b| b.root == t))
            .map(|b| walk.prims[b.sim].path.clone())
            .unwrap_or(target);
        *slot = Some(resolved);
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

fn check_attachment(
    walk: &mut Walk,
    prim: &sdf::Path,
    ns: &str,
    kind: &AttachmentType,
    sources: &[Option<sdf::Path>; 2],
) {
    let attr = |leaf: &str| format!("{ns}:{leaf}");
    // DB402: index ranges.
    for (leaf, side, elem) in index_arrays(kind) {
        let name = attr(&leaf);
        let Some(indices) = walk.read(prim, &name, av::int_array) else {
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
                Some(&name),
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
    let lengths: Vec<(String, usize)> = same_length(kind)
        .iter()
        .map(|leaf| {
            let name = attr(leaf);
            let len = array_len(walk, prim, &name);
            (name, len)
        })
        .collect();
    let (first, expected) = (&lengths[0].0, lengths[0].1);
    for (name, len) in &lengths[1..] {
        if *len != expected {
            walk.report(
                "DB403",
                prim,
                Some(name),
                format!("has {len} entries, expected {expected} (one per entry of {first})"),
            );
        }
    }
    // DB104: finite coordinates; DB404: non-negative stiffness and damping.
    for leaf in COORDS {
        let name = attr(leaf);
        if let Some(values) = walk.read(prim, &name, av::vec3_array) {
            check_finite(walk, prim, &name, &values);
        }
    }
    let stiffness = attr("stiffness");
    if let Some(k) = walk.read(prim, &stiffness, av::f64_value) {
        if k.is_nan() || k < 0.0 {
            walk.report(
                "DB404",
                prim,
                Some(&stiffness),
                format!("found {k}; expected a non-negative stiffness (inf = hard)"),
            );
        }
    }
    let damping = attr("damping");
    if let Some(d) = walk.read(prim, &damping, av::f64_value) {
        if !(d.is_finite() && d >= 0.0) {
            walk.report("DB404", prim, Some(&damping), format!("found {d}; expected a finite, non-negative damping"));
        }
    }
}

fn check_filter(walk: &mut Walk, prim: &sdf::Path, ns: &str, sources: &[Option<sdf::Path>; 2]) {
    let counts_name = |k: usize| format!("{ns}:{GROUP_COUNTS}{k}");
    let indices_name = |k: usize| format!("{ns}:{GROUP_INDICES}{k}");
    let counts: Vec<Vec<i64>> =
        (0..2).map(|k| walk.read(prim, &counts_name(k), av::int_array).unwrap_or_default()).collect();
    let indices: Vec<Vec<i64>> =
        (0..2).map(|k| walk.read(prim, &indices_name(k), av::int_array).unwrap_or_default()).collect();
    if !counts[0].is_empty() && !counts[1].is_empty() && counts[0].len() != counts[1].len() {
        walk.report(
            "DB405",
            prim,
            Some(&counts_name(1)),
            format!("has {} groups, expected {} (as many as groupElemCounts0)", counts[1].len(), counts[0].len()),
        );
    }
    for k in 0..2 {
        let sum: i64 = counts[k].iter().sum();
        if sum != indices[k].len() as i64 {
            walk.report(
                "DB405",
                prim,
                Some(&indices_name(k)),
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
                Some(&indices_name(k)),
                format!(
                    "index {index} out of range for the {count} triangles of {source}; expected 0..={}",
                    count.saturating_sub(1)
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arrays the seed schema lists for each type, derived from the shared table.
    #[test]
    fn arrays_follow_the_schema_table() {
        let row = |name: &str| ATTACHMENT_TYPES.iter().find(|t| t.name == name).unwrap();
        let indices = |name: &str| -> Vec<(String, usize)> {
            index_arrays(row(name)).into_iter().map(|(leaf, side, _)| (leaf, side)).collect()
        };
        assert_eq!(indices("VtxTriAttachment"), [("vtxIndicesSrc0".to_string(), 0), ("triIndicesSrc1".to_string(), 1)]);
        assert_eq!(indices("TetXformAttachment"), [("tetIndicesSrc0".to_string(), 0)]);
        assert_eq!(same_length(row("VtxXformAttachment")), ["vtxIndicesSrc0", "localPositionsSrc1"]);
        assert_eq!(same_length(row("TetXformAttachment")), ["tetIndicesSrc0", "tetCoordsSrc0", "localPositionsSrc1"]);
        assert_eq!(
            same_length(row("TriTriAttachment")),
            ["triIndicesSrc0", "triCoordsSrc0", "triIndicesSrc1", "triCoordsSrc1"]
        );
    }
}
