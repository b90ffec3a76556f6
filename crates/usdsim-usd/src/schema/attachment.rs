//! The six attachment types of the seed schema and the element collision filter, in
//! both spellings (`OmniPhysics*` prims with `omniphysics:` attributes, the AOUSD
//! `Physics*` prims with `physics:` attributes): one row per type saying how each of
//! its two sources names its points. The importer (`read/attachment.rs`) reads the
//! sites under these names; the validator (`validate/attachment_rules.rs`) derives the
//! index ranges and equal lengths it checks (DB402, DB403) from the same rows.

/// The two spellings: prim type prefix and attribute namespace.
pub(crate) const DIALECTS: [(&str, &str); 2] = [("OmniPhysics", "omniphysics"), ("Physics", "physics")];

/// Prim type of an element collision filter, without its dialect prefix.
pub(crate) const ELEMENT_FILTER: &str = "ElementCollisionFilter";

/// `attachmentEnabled` (fallback true).
pub(crate) const ATTACHMENT_ENABLED: &str = "attachmentEnabled";
/// `filterEnabled` of an element filter (fallback true).
pub(crate) const FILTER_ENABLED: &str = "filterEnabled";
/// `srcN`: the relationship naming source N, without the N.
pub(crate) const SRC: &str = "src";
/// `groupElemCountsN`: an element filter's group sizes on side N, without the N.
pub(crate) const GROUP_COUNTS: &str = "groupElemCounts";
/// `groupElemIndicesN`: an element filter's grouped element indices, without the N.
pub(crate) const GROUP_INDICES: &str = "groupElemIndices";

/// `vtxIndicesSrcN`: vertex indices of a source body.
pub(crate) const VTX_INDICES: &str = "vtxIndices";
/// `triIndicesSrcN`: triangle indices of a source body.
pub(crate) const TRI_INDICES: &str = "triIndices";
/// `triCoordsSrcN`: barycentric `(u, v)` and a normal offset per triangle index.
pub(crate) const TRI_COORDS: &str = "triCoords";
/// `tetIndicesSrcN`: tetrahedron indices of a source body.
pub(crate) const TET_INDICES: &str = "tetIndices";
/// `tetCoordsSrcN`: barycentric coordinates per tetrahedron index.
pub(crate) const TET_COORDS: &str = "tetCoords";
/// `localPositionsSrcN`: points in an xformable's (or rigid body's) frame.
pub(crate) const LOCAL_POSITIONS: &str = "localPositions";

/// How one source of an attachment type names its points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SourceKind {
    /// Vertices of a deformable body (`vtxIndicesSrcN`).
    Vertices,
    /// Points of a deformable body's triangles (`triIndicesSrcN` + `triCoordsSrcN`).
    Triangles,
    /// Points of a deformable body's tetrahedra (`tetIndicesSrcN` + `tetCoordsSrcN`).
    Tets,
    /// Points fixed in an xformable's frame (`localPositionsSrcN`).
    Local,
}

impl SourceKind {
    /// The leaf of its index array (`None` for points given by position).
    pub fn indices(self) -> Option<&'static str> {
        match self {
            SourceKind::Vertices => Some(VTX_INDICES),
            SourceKind::Triangles => Some(TRI_INDICES),
            SourceKind::Tets => Some(TET_INDICES),
            SourceKind::Local => None,
        }
    }

    /// The leaf of the array that places its points (coordinates or positions), if any.
    pub fn coords(self) -> Option<&'static str> {
        match self {
            SourceKind::Vertices => None,
            SourceKind::Triangles => Some(TRI_COORDS),
            SourceKind::Tets => Some(TET_COORDS),
            SourceKind::Local => Some(LOCAL_POSITIONS),
        }
    }
}

/// One attachment type: its name without the dialect prefix, and its two sources.
pub(crate) struct AttachmentType {
    /// The type name without `OmniPhysics`/`Physics`.
    pub name: &'static str,
    /// How `src0` and `src1` name their points.
    pub sources: [SourceKind; 2],
}

/// The six attachment types.
pub(crate) const ATTACHMENT_TYPES: [AttachmentType; 6] = [
    AttachmentType { name: "VtxVtxAttachment", sources: [SourceKind::Vertices, SourceKind::Vertices] },
    AttachmentType { name: "VtxTriAttachment", sources: [SourceKind::Vertices, SourceKind::Triangles] },
    AttachmentType { name: "VtxTetAttachment", sources: [SourceKind::Vertices, SourceKind::Tets] },
    AttachmentType { name: "VtxXformAttachment", sources: [SourceKind::Vertices, SourceKind::Local] },
    AttachmentType { name: "TetXformAttachment", sources: [SourceKind::Tets, SourceKind::Local] },
    AttachmentType { name: "TriTriAttachment", sources: [SourceKind::Triangles, SourceKind::Triangles] },
];

/// The attribute namespace of a prim type of either spelling and the type name without
/// its prefix, or `None` for a type of neither.
pub(crate) fn split_type(type_name: &str) -> Option<(&'static str, &str)> {
    DIALECTS.iter().find_map(|&(prefix, ns)| type_name.strip_prefix(prefix).map(|leaf| (ns, leaf)))
}

/// The attribute namespace and the row of an attachment type of either spelling, or
/// `None` when it is not one of the six.
pub(crate) fn attachment_type(type_name: &str) -> Option<(&'static str, &'static AttachmentType)> {
    let (ns, leaf) = split_type(type_name)?;
    ATTACHMENT_TYPES.iter().find(|t| t.name == leaf).map(|t| (ns, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_name_the_same_six_types() {
        for t in &ATTACHMENT_TYPES {
            let omni = attachment_type(&format!("OmniPhysics{}", t.name)).map(|(ns, row)| (ns, row.name));
            let aousd = attachment_type(&format!("Physics{}", t.name)).map(|(ns, row)| (ns, row.name));
            assert_eq!(omni, Some(("omniphysics", t.name)));
            assert_eq!(aousd, Some(("physics", t.name)));
        }
        assert!(attachment_type("OmniPhysicsVtxCurveAttachment").is_none());
        assert_eq!(split_type("PhysicsElementCollisionFilter"), Some(("physics", ELEMENT_FILTER)));
    }
}
