//! Physics that usdsim meets in real assets and does not simulate, in one table: the
//! prim types and API schemas, each with why, and which `physx*` attribute names usdsim
//! does map (every other one is named when authored). The importer and the validator
//! both report them (`read/unsupported.rs`), so nothing is passed over in silence.

use super::{material, names, physx_legacy};

/// What a row of [`UNSUPPORTED`] matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Match {
    /// A prim of this type.
    PrimType(&'static str),
    /// A prim applying this API schema (a multiple-apply one with any instance).
    Api(&'static str),
}

/// Why a joint of these types does nothing (the joints of `schema/joint.rs` are
/// simulated).
const JOINT: &str = "this joint type is not simulated: the bodies it joins move freely";
/// Why PhysX's particles do nothing.
const PARTICLES: &str = "PhysX particles are not simulated";
/// Why a tendon does nothing.
const TENDONS: &str = "tendons are not simulated";

/// `(what, why it is not simulated)`.
pub(crate) const UNSUPPORTED: [(Match, &str); 12] = [
    (Match::PrimType("PhysxPhysicsGearJoint"), JOINT),
    (Match::PrimType("PhysxPhysicsRackAndPinionJoint"), JOINT),
    (
        Match::PrimType("PhysxParticleSystem"),
        "PhysX particle systems (PBD particles, particle cloth) are not simulated",
    ),
    (
        Match::Api("PhysxParticleClothAPI"),
        "PhysX particle cloth is not simulated; apply a deformable surface body API instead",
    ),
    (Match::Api("PhysxParticleSetAPI"), PARTICLES),
    (Match::Api("PhysxParticleSamplingAPI"), PARTICLES),
    (Match::Api("PhysxHairAPI"), "PhysX hair is not simulated"),
    (Match::Api("PhysxTendonAxisAPI"), TENDONS),
    (Match::Api("PhysxTendonAttachmentAPI"), TENDONS),
    (Match::Api("PhysxVehicleAPI"), "vehicles are not simulated"),
    (Match::Api("PhysxCharacterControllerAPI"), "character controllers are not simulated"),
    (Match::Api("PhysxTriggerAPI"), "triggers report overlaps, which usdsim does not"),
];

/// Every `physx*` attribute usdsim reads: the legacy schema's, PhysX's per-body switches
/// of the current schema and PhysX's material damping.
pub(crate) fn mapped_physx_attributes() -> impl Iterator<Item = &'static str> {
    let legacy = physx_legacy::read_attributes();
    let current =
        [names::SELF_COLLISION, names::SELF_COLLISION_FILTER_DISTANCE, names::DISABLE_GRAVITY, names::LINEAR_DAMPING];
    let materials = [material::ELASTICITY_DAMPING.names[0], material::BEND_DAMPING.names[0]];
    legacy.chain(current).chain(materials)
}

/// Whether `property` is a PhysX attribute (namespace `physx…:`).
pub(crate) fn is_physx_attribute(property: &str) -> bool {
    property.starts_with("physx") && property.contains(':')
}
