//! The rule catalogue: every check the validator makes, with a stable code, a
//! severity and a one-line statement. `docs/validation-rules.md` lists the same rules
//! with an example violating file each; the codes never change meaning.

use serde::Serialize;

/// How serious a finding is. Errors stop a simulation run; warnings never do (unless
/// the user asks for `--strict`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something a simulator cannot or should not load as authored.
    Error,
    /// Something suspicious that still loads (likely a mistake, or worked around).
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One rule of the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable code, e.g. `DB003`.
    pub code: &'static str,
    /// Severity of every finding of this rule.
    pub severity: Severity,
    /// One-line statement of what the rule requires.
    pub statement: &'static str,
}

const fn error(code: &'static str, statement: &'static str) -> Rule {
    Rule { code, severity: Severity::Error, statement }
}

const fn warning(code: &'static str, statement: &'static str) -> Rule {
    Rule { code, severity: Severity::Warning, statement }
}

/// Every rule, in code order.
pub const RULES: &[Rule] = &[
    // Body structure: what PhysX's loader refuses.
    error("DB001", "DeformableBodyAPI must be on a Mesh, TetMesh or BasisCurves, or on a non-Gprim Imageable (Xform, Scope)"),
    error("DB002", "a simulation API needs its prim type: VolumeDeformableSimAPI a TetMesh, SurfaceDeformableSimAPI a Mesh, CurvesDeformableSimAPI a BasisCurves"),
    error("DB003", "a deformable body has exactly one simulation mesh"),
    error("DB004", "the simulation mesh is the body prim itself or a direct child of it"),
    error("DB005", "an enabled deformable body has a simulation mesh"),
    error("DB006", "a deformable body under an enabled rigid body (or on one) resets its xform stack"),
    error("DB007", "a surface simulation mesh has triangle faces only"),
    warning("DB008", "a simulation API is applied inside a deformable body (on the body prim or a direct child)"),
    error("DB009", "a deformable body's simulationOwner targets an existing PhysicsScene"),
    warning("DB010", "a deformable body's simulationOwner has at most one target (only the first is used)"),
    error("DB011", "the stage has something to simulate: a deformable body or a rigid body"),
    // Simulation mesh data.
    error("DB100", "a schema attribute has the value type the schema declares"),
    error("DB101", "a simulation mesh authors its required geometry (points, and tetVertexIndices or faceVertexCounts/faceVertexIndices)"),
    error("DB102", "every index is in range of the array it indexes"),
    error("DB103", "corresponding arrays have matching lengths"),
    error("DB104", "point, vector and angle values are finite (no NaN or inf)"),
    error("DB105", "rest elements are not degenerate (non-zero volume or area)"),
    error("DB106", "a simulation tetrahedron has the same orientation as its rest tetrahedron (not inverted)"),
    error("DB107", "each restAdjTriPairs entry names two different triangles that share an edge"),
    error("DB108", "restBendAnglesDefault is flatDefault or restShapeDefault"),
    warning("DB109", "the simulation mesh is manifold (an edge joins at most two triangles, a face at most two tetrahedra)"),
    warning("DB110", "the simulation mesh is one connected piece and every point belongs to an element"),
    // Poses.
    error("DB201", "a deformable pose has one point per point of its mesh"),
    warning("DB202", "a prim has at most one deformable pose with the bindPose purpose"),
    // Materials.
    error("DB301", "youngsModulus is positive"),
    error("DB302", "poissonsRatio lies in [0, 0.5)"),
    warning("DB303", "a surface body's material authors a positive surfaceThickness"),
    error("DB304", "densities, thicknesses, stiffnesses, frictions, damping, body masses and self-collision filter distances are finite and non-negative (a filter distance may be -inf: the simulation's choice)"),
    warning("DB305", "a simulation mesh is bound to a material with a deformable material API"),
    warning("DB306", "a materialBind GeomSubset of a simulation mesh has the body's element type: tetrahedron on a TetMesh, face on a Mesh"),
    error("DB307", "materialBind GeomSubset indices are in range of the simulation mesh's tetrahedra or faces"),
    warning("DB308", "no element is listed by two materialBind GeomSubsets of one simulation mesh"),
    warning("DB309", "a materialBind GeomSubset is bound to an existing material with a deformable material API"),
    // Attachments and element collision filters.
    warning("DB310", "densities and gravity are plausible in SI once the stage's metersPerUnit and kilogramsPerUnit apply"),
    error("DB401", "an attachment's or element filter's src0 and src1 each target exactly one existing prim"),
    error("DB402", "attachment indices are in range of the source's points, triangles or tetrahedra"),
    error("DB403", "an attachment's index, coordinate and position arrays have matching lengths"),
    error("DB404", "attachment stiffness is non-negative (inf means hard) and damping finite and non-negative"),
    error("DB405", "element filter group counts match: as many groups on both sides, counts summing to the indices' length"),
    error("DB406", "element filter indices are in range of the source collider's triangles"),
    // Names.
    warning("DB501", "every omniphysics: or usdsim: attribute is one the schemas define (else likely a typo)"),
    warning("DB502", "every OmniPhysics or Usdsim API schema or prim type name is one the schemas define (else likely a typo)"),
    // Our own extension (usdsim: attributes).
    error("DB601", "usdsim:tearRatio must be 0 (never tears) or > 1"),
    error("DB602", "usdsim:plasticYieldRatio must be 0 (purely elastic) or > 1"),
    error("DB603", "usdsim:plasticRate lies in [0, 1]"),
    error("DB604", "usdsim:plasticMaxStrain is finite and >= 0 (0 = no cap)"),
    error("DB605", "usdsim:springStiffness and usdsim:springDamping are finite and >= 0"),
    error("DB606", "usdsim:model is fem or springs"),
    error("DB607", "usdsim:springLinks lists at least one link kind, and only structural, shear and bend"),
    warning("DB608", "usdsim: attributes are authored on a prim that applies their API (UsdsimMaterialAPI, UsdsimBodyAPI)"),
    // Value clips (a streamed bake).
    error("DB701", "every clip and manifest a prim's clips metadata names exists and opens as a layer"),
    error("DB702", "a bake's clips carry its fingerprint (customLayerData usdsimFingerprint): none is from another bake"),
    error("DB703", "a clip set's manifest declares exactly the attributes its clips sample"),
    error("DB801", "PhysxDeformableBodyAPI and PhysxDeformableSurfaceAPI (the legacy PhysX schema) must be on a Mesh"),
    error("DB802", "a legacy PhysX body must read as authored: a volume's cooked simulation tet mesh (simulationPoints or simulationRestPoints, simulationIndices four per tet, in range), array lengths that agree, finite non-negative material and damping values"),
    error("DB803", "a PhysxPhysicsAttachment names actors that exist, and as many points1 as points0, all finite"),
    // Joints (UsdPhysics), simulated on rapier3d's joints.
    error("DB901", "a joint's physics:body0/body1 name prims that exist, at least one a rigid body, neither a deformable body"),
    error("DB902", "a revolute or prismatic joint's physics:axis is X, Y or Z"),
    error("DB903", "a joint's physics:lowerLimit is not above its physics:upperLimit"),
    warning(
        "DB904",
        "a joint's PhysicsDriveAPI drives its free axis (angular on a revolute, linear on a prismatic joint; none a generic joint's limit locks)",
    ),
    error("DB905", "the joints inside a PhysicsArticulationRootAPI form a tree: none closes a loop"),
];

/// What the importer works around rather than refuses: reported (with these codes) by
/// runs and `usdsim inspect`, beside the [`RULES`] findings that also apply to them, so
/// a pipeline can filter warnings by code. `validate` checks the schema rules only.
pub const IMPORT_RULES: &[Rule] = &[
    warning("IM001", "stage metadata (upAxis, metersPerUnit, timeCodesPerSecond, ...) that cannot be read is replaced by USD's fallback"),
    warning("IM002", "without a PhysicsScene, gravity is USD's default: 9.81 m/s² down the up axis"),
    warning("IM003", "!resetXformStack! is the first entry of xformOpOrder (ops before it are ignored)"),
    warning("IM004", "composition reported a problem (a missing layer, a broken arc); the stage is used as composed"),
    warning("IM010", "curves deformables are not supported yet and are skipped"),
    warning("IM011", "a deformable pose that authors no points is ignored"),
    warning("IM012", "an authored value that has no effect on this body is ignored"),
    warning("IM020", "a collision shape the simulation cannot use is skipped"),
    warning("IM021", "a rigid body without a usable collider is not simulated"),
    warning("IM022", "a collider under a sheared or non-uniformly scaled transform is approximated"),
    warning("IM023", "faces of a collision mesh with fewer than three vertices are skipped"),
    warning("IM030", "a material binding that names no existing prim falls back to the default material"),
    warning("IM040", "normals that cannot be recomputed on the deformed mesh keep their authored value"),
    warning("IM050", "a collision filter that names nothing it can filter is ignored"),
    warning("IM051", "collision groups merged by mergeGroup disagree on invertFilteredGroups; the merged group is inverted"),
    warning("IM060", "usdsim:plasticYieldRatio without a positive usdsim:plasticRate leaves the material elastic"),
    warning("IM070", "usdsim preview leaves out a prim that has no points at a drawn time"),
    warning("IM080", "a legacy PhysX volume's separate collision tet mesh is approximated by its simulation tet mesh's surface"),
    warning("IM081", "a legacy PhysX attribute authored with a value usdsim does not simulate is named and ignored"),
    warning("IM082", "tearing and plasticity are not simulated on a legacy PhysX body"),
    warning("IM083", "a legacy PhysX attachment that attaches nothing (no deformable actor, no points, an auto attachment whose actors do not overlap) is ignored"),
    warning("IM084", "a physics prim type, API or attribute usdsim does not simulate (gear and rack joints, distance limits, PhysX particles and particle cloth, hair, tendons, vehicles, character controllers, triggers) is named and left out"),
    warning("IM085", "PhysX (physx*) attributes usdsim has no mapping for are named and ignored"),
];

/// The rule with `code`, if either catalogue has one.
pub fn rule(code: &str) -> Option<&'static Rule> {
    RULES.iter().chain(IMPORT_RULES).find(|r| r.code == code)
}
