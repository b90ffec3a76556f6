//! The deformable physics material in one table: which API schemas make a material
//! deformable (per dialect), and one row per material attribute with its spellings and
//! the validator's check. The importer (`read/material_binding.rs`) reads the
//! attributes under these names; the validator (`validate/material_rules.rs`) checks
//! them with these rules.

use super::dialect::Dialect;

/// One deformable material API schema.
pub(crate) struct MaterialApi {
    /// The API schema's name.
    pub name: &'static str,
    /// Which spelling of the schema it belongs to.
    pub dialect: Dialect,
    /// Whether it is the curves (cable) material, in the schema but not simulated:
    /// the importer does not count it as making a body's material deformable.
    pub curves: bool,
}

/// Every deformable material API of both dialects.
pub(crate) const MATERIAL_APIS: [MaterialApi; 7] = [
    MaterialApi { name: "OmniPhysicsDeformableMaterialAPI", dialect: Dialect::Omni, curves: false },
    MaterialApi { name: "OmniPhysicsSurfaceDeformableMaterialAPI", dialect: Dialect::Omni, curves: false },
    MaterialApi { name: "OmniPhysicsCurvesDeformableMaterialAPI", dialect: Dialect::Omni, curves: true },
    MaterialApi { name: "PhysicsVolumeDeformableMaterialAPI", dialect: Dialect::Aousd, curves: false },
    MaterialApi { name: "PhysicsSurfaceDeformableMaterialAPI", dialect: Dialect::Aousd, curves: false },
    MaterialApi { name: "PhysicsDeformableMaterialAPI", dialect: Dialect::Aousd, curves: false },
    MaterialApi { name: "PhysicsCurvesDeformableMaterialAPI", dialect: Dialect::Aousd, curves: true },
];

/// The base (non-deformable) physics material APIs: with one applied, an unauthored
/// friction is the schema's 0 rather than usdsim's default.
pub(crate) const BASE_MATERIAL_APIS: [&str; 2] = ["OmniPhysicsBaseMaterialAPI", "PhysicsMaterialAPI"];

/// The deformable material API a tool applies for a volume (`surface == false`) or a
/// surface body in `dialect`: the first simulated row of that dialect whose name says
/// `Surface` or not.
pub(crate) fn material_api_for(dialect: Dialect, surface: bool) -> &'static str {
    MATERIAL_APIS
        .iter()
        .find(|row| row.dialect == dialect && !row.curves && row.name.contains("Surface") == surface)
        .map_or(MATERIAL_APIS[0].name, |row| row.name)
}

/// The base material API of `dialect` (friction lives there).
pub(crate) fn base_material_api(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Omni => BASE_MATERIAL_APIS[0],
        Dialect::Aousd => BASE_MATERIAL_APIS[1],
    }
}

/// Whether `api` is a simulated (non-curves) deformable material API of `dialect`.
pub(crate) fn is_deformable_api(api: &str, dialect: Dialect) -> bool {
    MATERIAL_APIS.iter().any(|row| row.name == api && row.dialect == dialect && !row.curves)
}

/// Whether `api` is any deformable material API (curves included), as the validator
/// asks.
pub(crate) fn is_any_deformable_api(api: &str) -> bool {
    MATERIAL_APIS.iter().any(|row| row.name == api)
}

/// What the validator checks a material attribute's authored value against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// DB301: finite and > 0 (Young's modulus).
    PositiveFinite,
    /// DB302: finite, in [0, 0.5) (Poisson's ratio; the importer accepts (-1, 0.5)).
    PoissonRatio,
    /// DB304: finite and >= 0.
    NonNegative,
}

/// One material attribute.
pub(crate) struct MaterialAttribute {
    /// Its spellings in read order: the OmniPhysics name first, then the AOUSD
    /// `physics:` name; PhysX-only attributes have the one `physxDeformableMaterial:`
    /// name.
    pub names: &'static [&'static str],
    /// The validator's check on an authored value.
    pub check: Check,
}

impl MaterialAttribute {
    /// Its name in `dialect` (the one name of a PhysX-only attribute either way).
    pub fn spelling(&self, dialect: Dialect) -> &'static str {
        match dialect {
            Dialect::Aousd if self.names.len() > 1 => self.names[1],
            _ => self.names[0],
        }
    }
}

/// Young's modulus (stage pressure units).
pub(crate) const YOUNGS_MODULUS: MaterialAttribute =
    MaterialAttribute { names: &["omniphysics:youngsModulus", "physics:youngsModulus"], check: Check::PositiveFinite };
/// Poisson's ratio.
pub(crate) const POISSONS_RATIO: MaterialAttribute =
    MaterialAttribute { names: &["omniphysics:poissonsRatio", "physics:poissonsRatio"], check: Check::PoissonRatio };
/// Density (stage mass per volume).
pub(crate) const DENSITY: MaterialAttribute =
    MaterialAttribute { names: &["omniphysics:density", "physics:density"], check: Check::NonNegative };
/// A surface body's thickness.
pub(crate) const THICKNESS: MaterialAttribute =
    MaterialAttribute { names: &["omniphysics:surfaceThickness", "physics:thickness"], check: Check::NonNegative };
/// A surface body's stretch stiffness.
pub(crate) const STRETCH_STIFFNESS: MaterialAttribute = MaterialAttribute {
    names: &["omniphysics:surfaceStretchStiffness", "physics:stretchStiffness"],
    check: Check::NonNegative,
};
/// A surface body's shear stiffness.
pub(crate) const SHEAR_STIFFNESS: MaterialAttribute = MaterialAttribute {
    names: &["omniphysics:surfaceShearStiffness", "physics:shearStiffness"],
    check: Check::NonNegative,
};
/// A surface body's bend stiffness.
pub(crate) const BEND_STIFFNESS: MaterialAttribute = MaterialAttribute {
    names: &["omniphysics:surfaceBendStiffness", "physics:bendStiffness"],
    check: Check::NonNegative,
};
/// Dynamic friction.
pub(crate) const DYNAMIC_FRICTION: MaterialAttribute =
    MaterialAttribute { names: &["omniphysics:dynamicFriction", "physics:dynamicFriction"], check: Check::NonNegative };
/// Static friction.
pub(crate) const STATIC_FRICTION: MaterialAttribute =
    MaterialAttribute { names: &["omniphysics:staticFriction", "physics:staticFriction"], check: Check::NonNegative };
/// PhysX's elasticity damping.
pub(crate) const ELASTICITY_DAMPING: MaterialAttribute =
    MaterialAttribute { names: &["physxDeformableMaterial:elasticityDamping"], check: Check::NonNegative };
/// PhysX's bend damping.
pub(crate) const BEND_DAMPING: MaterialAttribute =
    MaterialAttribute { names: &["physxDeformableMaterial:bendDamping"], check: Check::NonNegative };

/// Every material attribute, in the order the validator reports on them.
pub(crate) const MATERIAL_ATTRIBUTES: [&MaterialAttribute; 11] = [
    &YOUNGS_MODULUS,
    &POISSONS_RATIO,
    &DENSITY,
    &THICKNESS,
    &STRETCH_STIFFNESS,
    &SHEAR_STIFFNESS,
    &BEND_STIFFNESS,
    &DYNAMIC_FRICTION,
    &STATIC_FRICTION,
    &ELASTICITY_DAMPING,
    &BEND_DAMPING,
];

/// Every spelling of the attributes checked by `check`, in table order.
pub(crate) fn names_checked_by(check: Check) -> impl Iterator<Item = &'static str> {
    MATERIAL_ATTRIBUTES.into_iter().filter(move |a| a.check == check).flat_map(|a| a.names.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `usdsim prepare` applies to a new material, per dialect and kind.
    #[test]
    fn tool_material_apis_and_spellings() {
        assert_eq!(material_api_for(Dialect::Omni, false), "OmniPhysicsDeformableMaterialAPI");
        assert_eq!(material_api_for(Dialect::Omni, true), "OmniPhysicsSurfaceDeformableMaterialAPI");
        assert_eq!(material_api_for(Dialect::Aousd, false), "PhysicsVolumeDeformableMaterialAPI");
        assert_eq!(material_api_for(Dialect::Aousd, true), "PhysicsSurfaceDeformableMaterialAPI");
        assert_eq!(base_material_api(Dialect::Aousd), "PhysicsMaterialAPI");
        assert_eq!(THICKNESS.spelling(Dialect::Aousd), "physics:thickness");
        assert_eq!(DENSITY.spelling(Dialect::Omni), "omniphysics:density");
        assert_eq!(ELASTICITY_DAMPING.spelling(Dialect::Aousd), "physxDeformableMaterial:elasticityDamping");
    }

    /// The OmniPhysics spellings are the schema's (so the typo rule, which lists every
    /// `omniphysics:` attribute, knows them).
    #[test]
    fn omni_spellings_are_schema_attributes() {
        for name in MATERIAL_ATTRIBUTES.iter().flat_map(|a| a.names.iter()).filter(|n| n.starts_with("omniphysics:")) {
            assert!(super::super::names::OMNI_ATTRIBUTES.contains(name), "{name}");
        }
    }
}
