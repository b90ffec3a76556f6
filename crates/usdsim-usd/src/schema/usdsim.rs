//! Our own schema extension (`schemas/usdsim/`, namespace `usdsim:`): its two API
//! schemas, their attributes and the tokens they allow. The importer
//! (`read/usdsim_api.rs`) reads these names; the validator checks their values
//! (`validate/usdsim_rules.rs`) and spellings (`validate/typo_rules.rs`).

/// The material API's name, as listed in `apiSchemas`.
pub(crate) const MATERIAL_API: &str = "UsdsimMaterialAPI";
/// The body API's name, as listed in `apiSchemas`.
pub(crate) const BODY_API: &str = "UsdsimBodyAPI";
/// Every API schema the extension defines.
pub(crate) const API_SCHEMAS: [&str; 2] = [MATERIAL_API, BODY_API];

/// `UsdsimMaterialAPI`: stretch ratio at which an element tears (0 = never).
pub(crate) const TEAR_RATIO: &str = "usdsim:tearRatio";
/// `UsdsimMaterialAPI`: stretch ratio above which deformation becomes permanent.
pub(crate) const PLASTIC_YIELD: &str = "usdsim:plasticYieldRatio";
/// `UsdsimMaterialAPI`: share of the excess over the yield that flows per step.
pub(crate) const PLASTIC_RATE: &str = "usdsim:plasticRate";
/// `UsdsimMaterialAPI`: cap on the accumulated plastic strain (0 = no cap).
pub(crate) const PLASTIC_MAX_STRAIN: &str = "usdsim:plasticMaxStrain";
/// `UsdsimBodyAPI`: the constitutive model (one of [`MODELS`]).
pub(crate) const MODEL: &str = "usdsim:model";
/// `UsdsimBodyAPI`: spring stiffness of the spring model.
pub(crate) const SPRING_STIFFNESS: &str = "usdsim:springStiffness";
/// `UsdsimBodyAPI`: spring damping of the spring model.
pub(crate) const SPRING_DAMPING: &str = "usdsim:springDamping";
/// `UsdsimBodyAPI`: which springs the spring model builds (some of [`LINK_KINDS`]).
pub(crate) const SPRING_LINKS: &str = "usdsim:springLinks";

/// The bake's `customLayerData` key listing the run's `--set` overrides
/// (`PRIM.ATTR=VALUE` strings, in the order given), so a bake says what it was made with.
pub(crate) const OVERRIDES_KEY: &str = "usdsim:overrides";

/// Attributes of `UsdsimMaterialAPI`.
pub(crate) const MATERIAL_ATTRIBUTES: [&str; 4] = [TEAR_RATIO, PLASTIC_YIELD, PLASTIC_RATE, PLASTIC_MAX_STRAIN];
/// Attributes of `UsdsimBodyAPI`.
pub(crate) const BODY_ATTRIBUTES: [&str; 4] = [MODEL, SPRING_STIFFNESS, SPRING_DAMPING, SPRING_LINKS];

/// Every `usdsim:` attribute the extension defines.
pub(crate) fn attributes() -> impl Iterator<Item = &'static str> + Clone {
    MATERIAL_ATTRIBUTES.into_iter().chain(BODY_ATTRIBUTES)
}

/// Allowed `usdsim:model` tokens.
pub(crate) const MODELS: [&str; 2] = ["fem", "springs"];
/// Allowed `usdsim:springLinks` tokens.
pub(crate) const LINK_KINDS: [&str; 3] = ["structural", "shear", "bend"];

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
        let mut ours: Vec<&str> = super::attributes().collect();
        ours.sort_unstable();
        assert_eq!(attributes, ours);
        for api in API_SCHEMAS {
            assert!(text.contains(&format!("class \"{api}\"")), "{api} missing from {path}");
        }
    }
}
