//! Names from the OmniPhysics deformable schema (the seed text) and its AOUSD
//! `physics:` spelling: API schemas, prim types and attributes, per dialect, and our
//! `usdsim:` extension's. The importer finds bodies with [`BODY_APIS`] and
//! [`SIM_APIS`]; the validator checks them and flags names outside these lists.

use super::dialect::Dialect;

/// The kind of simulation API (and so of body).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SimKind {
    /// A `TetMesh` (volume body).
    Volume,
    /// A triangle `Mesh` (surface body).
    Surface,
    /// `BasisCurves` (cables): in the schema, not simulated yet.
    Curves,
}

impl SimKind {
    /// The prim type the simulation API requires.
    pub fn required_type(self) -> &'static str {
        match self {
            SimKind::Volume => "TetMesh",
            SimKind::Surface => "Mesh",
            SimKind::Curves => "BasisCurves",
        }
    }
}

/// Body API names and their dialects.
pub(crate) const BODY_APIS: [(&str, Dialect); 2] =
    [("OmniPhysicsDeformableBodyAPI", Dialect::Omni), ("PhysicsDeformableBodyAPI", Dialect::Aousd)];

/// Simulation API names and their kinds.
pub(crate) const SIM_APIS: [(&str, SimKind); 6] = [
    ("OmniPhysicsVolumeDeformableSimAPI", SimKind::Volume),
    ("OmniPhysicsSurfaceDeformableSimAPI", SimKind::Surface),
    ("OmniPhysicsCurvesDeformableSimAPI", SimKind::Curves),
    ("PhysicsVolumeDeformableSimAPI", SimKind::Volume),
    ("PhysicsSurfaceDeformableSimAPI", SimKind::Surface),
    ("PhysicsCurvesDeformableSimAPI", SimKind::Curves),
];

/// Every `OmniPhysics*` API schema the schema defines.
pub(crate) const OMNI_API_SCHEMAS: [&str; 10] = [
    "OmniPhysicsBodyAPI",
    "OmniPhysicsDeformableBodyAPI",
    "OmniPhysicsBaseMaterialAPI",
    "OmniPhysicsDeformableMaterialAPI",
    "OmniPhysicsSurfaceDeformableMaterialAPI",
    "OmniPhysicsCurvesDeformableMaterialAPI",
    "OmniPhysicsVolumeDeformableSimAPI",
    "OmniPhysicsSurfaceDeformableSimAPI",
    "OmniPhysicsCurvesDeformableSimAPI",
    "OmniPhysicsDeformablePoseAPI",
];

/// Every `OmniPhysics*` prim type the schema defines.
pub(crate) const OMNI_PRIM_TYPES: [&str; 9] = [
    "OmniPhysicsAttachment",
    "OmniPhysicsVtxVtxAttachment",
    "OmniPhysicsVtxTriAttachment",
    "OmniPhysicsVtxTetAttachment",
    "OmniPhysicsVtxCrvAttachment",
    "OmniPhysicsVtxXformAttachment",
    "OmniPhysicsTetXformAttachment",
    "OmniPhysicsTriTriAttachment",
    "OmniPhysicsElementCollisionFilter",
];

/// Every `omniphysics:` attribute and relationship the schema defines (pose
/// attributes are matched separately: `deformablePose:<name>:omniphysics:points`).
pub(crate) const OMNI_ATTRIBUTES: [&str; 49] = [
    "omniphysics:kinematicEnabled",
    "omniphysics:simulationOwner",
    "omniphysics:startsAsleep",
    "omniphysics:deformableBodyEnabled",
    "omniphysics:mass",
    "omniphysics:restShapePoints",
    "omniphysics:restTetVtxIndices",
    "omniphysics:restTriVtxIndices",
    "omniphysics:restBendAnglesDefault",
    "omniphysics:restAdjTriPairs",
    "omniphysics:restBendAngles",
    "omniphysics:restCrvVtxIndices",
    "omniphysics:restNormals",
    "omniphysics:dynamicFriction",
    "omniphysics:staticFriction",
    "omniphysics:density",
    "omniphysics:youngsModulus",
    "omniphysics:poissonsRatio",
    "omniphysics:surfaceThickness",
    "omniphysics:surfaceStretchStiffness",
    "omniphysics:surfaceShearStiffness",
    "omniphysics:surfaceBendStiffness",
    "omniphysics:curveThickness",
    "omniphysics:curveStretchStiffness",
    "omniphysics:curveBendStiffness",
    "omniphysics:curveTwistStiffness",
    "omniphysics:attachmentEnabled",
    "omniphysics:src0",
    "omniphysics:src1",
    "omniphysics:stiffness",
    "omniphysics:damping",
    "omniphysics:vtxIndicesSrc0",
    "omniphysics:vtxIndicesSrc1",
    "omniphysics:triIndicesSrc0",
    "omniphysics:triIndicesSrc1",
    "omniphysics:triCoordsSrc0",
    "omniphysics:triCoordsSrc1",
    "omniphysics:tetIndicesSrc0",
    "omniphysics:tetIndicesSrc1",
    "omniphysics:tetCoordsSrc0",
    "omniphysics:tetCoordsSrc1",
    "omniphysics:localPositionsSrc1",
    "omniphysics:crvSegIndicesSrc1",
    "omniphysics:crvSegCoordsSrc1",
    "omniphysics:filterEnabled",
    "omniphysics:groupElemCounts0",
    "omniphysics:groupElemCounts1",
    "omniphysics:groupElemIndices0",
    "omniphysics:groupElemIndices1",
];

/// Leaf names of a deformable pose instance's attributes.
pub(crate) const POSE_LEAVES: [&str; 2] = ["points", "purposes"];

/// Our own extension (`schemas/usdsim/`): the API schemas and their attributes.
pub(crate) const USDSIM_MATERIAL_API: &str = "UsdsimMaterialAPI";
/// The body API of our extension.
pub(crate) const USDSIM_BODY_API: &str = "UsdsimBodyAPI";

/// Attributes of `UsdsimMaterialAPI`.
pub(crate) const USDSIM_MATERIAL_ATTRIBUTES: [&str; 4] =
    ["usdsim:tearRatio", "usdsim:plasticYieldRatio", "usdsim:plasticRate", "usdsim:plasticMaxStrain"];

/// Attributes of `UsdsimBodyAPI`.
pub(crate) const USDSIM_BODY_ATTRIBUTES: [&str; 4] =
    ["usdsim:model", "usdsim:springStiffness", "usdsim:springDamping", "usdsim:springLinks"];

/// Every `usdsim:` attribute the extension defines.
pub(crate) fn usdsim_attributes() -> impl Iterator<Item = &'static str> + Clone {
    USDSIM_MATERIAL_ATTRIBUTES.into_iter().chain(USDSIM_BODY_ATTRIBUTES)
}

/// Every API schema the extension defines.
pub(crate) const USDSIM_API_SCHEMAS: [&str; 2] = [USDSIM_MATERIAL_API, USDSIM_BODY_API];

#[cfg(test)]
mod tests {
    use super::*;

    /// The names above are the ones `schemas/generate.py` writes into the generated
    /// schema (so a renamed attribute cannot leave the validator behind).
    #[test]
    fn usdsim_names_match_the_generated_schema() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../schemas/usdsim/generatedSchema.usda");
        let text = std::fs::read_to_string(path).unwrap();
        let mut attributes: Vec<&str> = text.split_whitespace().filter(|w| w.starts_with("usdsim:")).collect();
        attributes.sort_unstable();
        let mut ours: Vec<&str> = usdsim_attributes().collect();
        ours.sort_unstable();
        assert_eq!(attributes, ours);
        for api in USDSIM_API_SCHEMAS {
            assert!(text.contains(&format!("class \"{api}\"")), "{api} missing from {path}");
        }
    }
}
