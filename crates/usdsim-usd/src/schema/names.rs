//! Names from the OmniPhysics deformable schema (the seed text) and its AOUSD
//! `physics:` spelling: API schemas, prim types and attributes, per dialect, and our
//! `usdsim:` extension's. The importer finds bodies with [`BODY_APIS`] and
//! [`SIM_APIS`]; the validator checks them and flags names outside these lists. Our
//! `usdsim:` extension's names are in [`super::usdsim`].

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

/// The body API of `dialect`, as a tool applies it.
pub(crate) fn body_api(dialect: Dialect) -> &'static str {
    BODY_APIS.iter().find(|(_, d)| *d == dialect).map_or(BODY_APIS[0].0, |(name, _)| name)
}

/// UsdPhysics' collision API: on a simulation mesh it makes the body collide.
pub(crate) const COLLISION_API: &str = "PhysicsCollisionAPI";
/// The collision API's switch (fallback true).
pub(crate) const COLLISION_ENABLED: &str = "physics:collisionEnabled";

/// UsdShade's binding API, applied where a `material:binding` relationship is authored.
pub(crate) const MATERIAL_BINDING_API: &str = "MaterialBindingAPI";

/// The `restBendAnglesDefault` tokens (both dialects): flat hinges, or the rest shape's
/// angles.
pub(crate) const BEND_DEFAULT_FLAT: &str = "flatDefault";
/// See [`BEND_DEFAULT_FLAT`].
pub(crate) const BEND_DEFAULT_REST: &str = "restShapeDefault";

/// UsdPhysics' rigid body API: prims with it (outside deformable bodies) are simulated
/// as rigid bodies.
pub(crate) const RIGID_BODY_API: &str = "PhysicsRigidBodyAPI";

/// Material binding relationships, strongest first: the physics purpose, then the
/// all-purpose binding (UsdShade's purpose fallback).
pub(crate) const BINDING_RELS: [&str; 2] = ["material:binding:physics", "material:binding"];

/// Simulation API names and their kinds.
pub(crate) const SIM_APIS: [(&str, SimKind); 6] = [
    ("OmniPhysicsVolumeDeformableSimAPI", SimKind::Volume),
    ("OmniPhysicsSurfaceDeformableSimAPI", SimKind::Surface),
    ("OmniPhysicsCurvesDeformableSimAPI", SimKind::Curves),
    ("PhysicsVolumeDeformableSimAPI", SimKind::Volume),
    ("PhysicsSurfaceDeformableSimAPI", SimKind::Surface),
    ("PhysicsCurvesDeformableSimAPI", SimKind::Curves),
];

/// The simulation API of `kind` in `dialect` (the OmniPhysics rows start with
/// `OmniPhysics`).
pub(crate) fn sim_api_name(kind: SimKind, dialect: Dialect) -> &'static str {
    let omni = dialect == Dialect::Omni;
    SIM_APIS
        .iter()
        .find(|(name, k)| *k == kind && name.starts_with("OmniPhysics") == omni)
        .map_or(SIM_APIS[0].0, |(name, _)| name)
}

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

/// A deformable pose instance's points (see `Dialect::pose_attr` for the full name).
pub(crate) const POSE_POINTS: &str = "points";
/// A deformable pose instance's purposes (see `Dialect::pose_attr` for the full name).
pub(crate) const POSE_PURPOSES: &str = "purposes";
/// Leaf names of a deformable pose instance's attributes.
pub(crate) const POSE_LEAVES: [&str; 2] = [POSE_POINTS, POSE_PURPOSES];
/// The pose purpose whose points are the bind pose (embedding, rest shape fallback).
pub(crate) const BIND_POSE: &str = "bindPose";
/// The pose purpose whose points filter self collision (vertices closer than the contact
/// offset in this pose never collide with each other).
pub(crate) const SELF_COLLISION_FILTER_POSE: &str = "selfCollisionFilterPose";
/// PhysX's per-body self-collision switch (`PhysxBaseDeformableBodyAPI`, on the body
/// prim, `false` unless authored), read in both dialects: the schema itself has none.
pub(crate) const SELF_COLLISION: &str = "physxDeformableBody:selfCollision";
/// PhysX's per-body gravity switch (`PhysxBaseDeformableBodyAPI`, on the body prim,
/// `false` unless authored): a body that authors `true` floats, whatever its physics
/// scene's gravity. Read in both dialects, as [`SELF_COLLISION`] is.
pub(crate) const DISABLE_GRAVITY: &str = "physxDeformableBody:disableGravity";
/// PhysX's distance under which two parts of a body that are that close in its
/// self-collision filter pose never collide (stage units; `-inf`, its fallback, lets
/// the simulation choose).
pub(crate) const SELF_COLLISION_FILTER_DISTANCE: &str = "physxDeformableBody:selfCollisionFilterDistance";
/// PhysX's per-vertex drag (`PhysxBaseDeformableBodyAPI`, 1/s, fallback 0): the current
/// schema's spelling of the legacy `physxDeformable:vertexVelocityDamping`.
pub(crate) const LINEAR_DAMPING: &str = "physxDeformableBody:linearDamping";

/// An authored [`SELF_COLLISION_FILTER_DISTANCE`] as the simulation takes it (`None`: its
/// own choice, for `-inf`), or what it should have been: one rule for the importer and
/// the validator.
pub(crate) fn self_collision_filter_distance(value: f64) -> Result<Option<f32>, &'static str> {
    match value {
        f64::NEG_INFINITY => Ok(None),
        d if d.is_finite() && d >= 0.0 => Ok(Some(d as f32)),
        _ => Err("a finite, non-negative distance, or -inf to let the simulation choose"),
    }
}

/// Gprim types (UsdGeom): a body API on one of these is only allowed on Mesh, TetMesh
/// and BasisCurves.
const GPRIMS: [&str; 15] = [
    "Mesh",
    "TetMesh",
    "BasisCurves",
    "NurbsCurves",
    "HermiteCurves",
    "Points",
    "NurbsPatch",
    "Cube",
    "Sphere",
    "Cylinder",
    "Cylinder_1",
    "Cone",
    "Capsule",
    "Capsule_1",
    "Plane",
];

/// Common prim types that are not Imageable at all.
const NOT_IMAGEABLE: [&str; 8] =
    ["Material", "Shader", "NodeGraph", "GeomSubset", "PhysicsScene", "PhysicsCollisionGroup", "Shader", "Backdrop"];

/// Whether a prim of type `type_name` may carry a body API (rule DB001): a Mesh, TetMesh
/// or BasisCurves, or a typed Imageable that is not a Gprim (an Xform, a Scope). One
/// rule for the validator and for `prepare`, which must not author what it rejects.
pub(crate) fn body_prim_type_allowed(type_name: &str) -> bool {
    matches!(type_name, "Mesh" | "TetMesh" | "BasisCurves")
        || (!type_name.is_empty() && !GPRIMS.contains(&type_name) && !NOT_IMAGEABLE.contains(&type_name))
}

/// A prim type as a message names it: `a Cube`, or `an untyped prim`.
pub(crate) fn describe_type(type_name: &str) -> String {
    if type_name.is_empty() {
        "an untyped prim".to_string()
    } else {
        format!("a {type_name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The APIs `usdsim prepare` applies come from the tables, in either dialect.
    #[test]
    fn tool_apis_per_dialect() {
        assert_eq!(body_api(Dialect::Omni), "OmniPhysicsDeformableBodyAPI");
        assert_eq!(body_api(Dialect::Aousd), "PhysicsDeformableBodyAPI");
        assert_eq!(sim_api_name(SimKind::Volume, Dialect::Omni), "OmniPhysicsVolumeDeformableSimAPI");
        assert_eq!(sim_api_name(SimKind::Surface, Dialect::Aousd), "PhysicsSurfaceDeformableSimAPI");
        assert!(OMNI_API_SCHEMAS.contains(&sim_api_name(SimKind::Surface, Dialect::Omni)));
    }
}
