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

/// Baked on each revolute or prismatic joint prim, time-sampled (`float`): the joint's
/// coordinate, the second frame's angle about the first's axis in degrees or its travel
/// along it in stage units, as UsdPhysics' `drive:*:physics:targetPosition` measures it.
pub(crate) const JOINT_POSITION: &str = "usdsim:jointPosition";
/// Baked on each breakable joint prim, time-sampled (`bool`): whether it has broken.
pub(crate) const JOINT_BROKEN: &str = "usdsim:jointBroken";

/// The bake's `customLayerData` key listing the run's `--set` overrides
/// (`PRIM.ATTR=VALUE` strings, in the order given), so a bake says what it was made with.
/// No namespace colon (as for every key here): openusd 0.8 writes dictionary keys
/// unquoted and Pixar's text parser rejects a `.usda` bake with one.
pub(crate) const OVERRIDES_KEY: &str = "usdsimOverrides";

/// The bake's `customLayerData` key (output layer and every clip) holding the run's
/// fingerprint: what `--resume` checks before continuing a bake (see `resume.rs`).
pub(crate) const FINGERPRINT_KEY: &str = "usdsimFingerprint";

/// The attributes of the solver state a clip holds at its first frame, for `--resume`
/// (what USD has no place for, and exact copies of what it has: see `resume.rs`). Body
/// attributes go on each simulation mesh's prim; the rest on [`STATE_PRIM`]. They are
/// defaults in the clip layer, which value clips never compose.
pub(crate) mod state {
    /// Every state attribute's name starts with this.
    pub(crate) const PREFIX: &str = "usdsim:state:";
    /// The prim holding the scene-wide state.
    pub(crate) const STATE_PRIM: &str = "/UsdsimResume";
    /// `double3[]`: world-space positions, bit-exact (the solver keeps doubles).
    pub(crate) const POINTS: &str = "usdsim:state:points";
    /// `float3[]`: world-space velocities, bit-exact.
    pub(crate) const VELOCITIES: &str = "usdsim:state:velocities";
    /// `double3[]`: positions at the start of the last substep, BDF2's history (absent
    /// before the first substep).
    pub(crate) const PREVIOUS_POINTS: &str = "usdsim:state:previousPoints";
    /// `float3[]`: velocities at the start of the last substep.
    pub(crate) const PREVIOUS_VELOCITIES: &str = "usdsim:state:previousVelocities";
    /// `int`: substeps since a contact last touched the body (it takes implicit Euler
    /// while under a frame's substeps); absent for never.
    pub(crate) const SUBSTEPS_SINCE_CONTACT: &str = "usdsim:state:substepsSinceContact";
    /// `bool`, read only: what layers written before `SUBSTEPS_SINCE_CONTACT` saved, a
    /// contact in the last substep.
    pub(crate) const TOUCHED: &str = "usdsim:state:touched";
    /// `bool`: the body still sleeps.
    pub(crate) const ASLEEP: &str = "usdsim:state:asleep";
    /// `int`: how often its topology changed.
    pub(crate) const TOPOLOGY_VERSION: &str = "usdsim:state:topologyVersion";
    /// `int4[]`: its torn elements (a triangle repeats its first corner).
    pub(crate) const ELEMENTS: &str = "usdsim:state:elements";
    /// `float[]`: per-vertex masses after tearing.
    pub(crate) const MASSES: &str = "usdsim:state:masses";
    /// `float[]`: per-vertex inverse masses after tearing (awake values).
    pub(crate) const INVERSE_MASSES: &str = "usdsim:state:inverseMasses";
    /// `int2[]`: edges broken so far.
    pub(crate) const BROKEN_EDGES: &str = "usdsim:state:brokenEdges";
    /// `int64`: frames the solver stepped.
    pub(crate) const FRAMES: &str = "usdsim:state:frames";
    /// `float[]`: eleven per plastic tetrahedron: its inverse rest edge matrix by column,
    /// then its deviatoric and hydrostatic compliances.
    pub(crate) const PLASTIC_TETS: &str = "usdsim:state:plasticTets";
    /// `float[]`: rest angles of plastic hinges, radians.
    pub(crate) const PLASTIC_HINGES: &str = "usdsim:state:plasticHinges";
    /// `float[]`: rest lengths of XPBD spring links, `inf` when broken.
    pub(crate) const SPRINGS: &str = "usdsim:state:springs";
    /// `uchar[]`: rapier's world, CBOR.
    pub(crate) const RIGID_WORLD: &str = "usdsim:state:rigidWorld";
}

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

/// The numbers a numeric `usdsim:` attribute allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Allowed {
    /// 0 switches the feature off (the text says what off means); otherwise a stretch
    /// ratio above 1.
    ZeroOrAboveOne(&'static str),
    /// A share in [0, 1].
    UnitInterval,
    /// 0 or positive; the text says what 0 means.
    ZeroOrPositive(&'static str),
}

/// One numeric attribute of the extension: its name, the validation rule that checks it,
/// and what it allows. The importer refuses and the validator reports a value outside
/// it with the same sentence ([`NumberRange::check`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NumberRange {
    /// The attribute.
    pub name: &'static str,
    /// The validation rule (`docs/validation-rules.md`).
    pub rule: &'static str,
    /// Its allowed values.
    pub allowed: Allowed,
}

/// Every numeric `usdsim:` attribute's range.
pub(crate) const NUMBER_RANGES: [NumberRange; 6] = [
    NumberRange { name: TEAR_RATIO, rule: "DB601", allowed: Allowed::ZeroOrAboveOne("never tears") },
    NumberRange { name: PLASTIC_YIELD, rule: "DB602", allowed: Allowed::ZeroOrAboveOne("purely elastic") },
    NumberRange { name: PLASTIC_RATE, rule: "DB603", allowed: Allowed::UnitInterval },
    NumberRange { name: PLASTIC_MAX_STRAIN, rule: "DB604", allowed: Allowed::ZeroOrPositive("no cap") },
    NumberRange { name: SPRING_STIFFNESS, rule: "DB605", allowed: Allowed::ZeroOrPositive("no spring force") },
    NumberRange { name: SPRING_DAMPING, rule: "DB605", allowed: Allowed::ZeroOrPositive("undamped") },
];

/// The range of numeric attribute `name` (one of [`NUMBER_RANGES`]).
pub(crate) fn number_range(name: &str) -> &'static NumberRange {
    NUMBER_RANGES.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("{name} is not a numeric usdsim: attribute"))
}

impl NumberRange {
    /// `Err` with the sentence importer and validator both say when `v` is outside the
    /// range ("found 0.5; tearRatio must be ...").
    pub(crate) fn check(&self, v: f64) -> Result<(), String> {
        let ok = v.is_finite()
            && match self.allowed {
                Allowed::ZeroOrAboveOne(_) => v == 0.0 || v > 1.0,
                Allowed::UnitInterval => (0.0..=1.0).contains(&v),
                Allowed::ZeroOrPositive(_) => v >= 0.0,
            };
        if ok {
            return Ok(());
        }
        let leaf = &self.name["usdsim:".len()..];
        let finite = if v.is_finite() { "" } else { "a finite number: " };
        Err(match self.allowed {
            Allowed::ZeroOrAboveOne(off) => {
                format!("found {v}; {leaf} must be {finite}0 ({off}) or a stretch ratio above 1 (1.8 = 180 %)")
            }
            Allowed::UnitInterval => format!("found {v}; {leaf} must be {finite}a share in [0, 1]"),
            Allowed::ZeroOrPositive(zero) => format!("found {v}; {leaf} must be {finite}0 ({zero}) or positive"),
        })
    }
}

/// Rule that checks `usdsim:model`.
pub(crate) const MODEL_RULE: &str = "DB606";
/// Rule that checks `usdsim:springLinks`.
pub(crate) const SPRING_LINKS_RULE: &str = "DB607";

/// `Err` with the sentence importer and validator both say when `usdsim:model` is not
/// one of [`MODELS`].
pub(crate) fn check_model(model: &str) -> Result<(), String> {
    if MODELS.contains(&model) {
        Ok(())
    } else {
        Err(format!("found {model:?}; model must be {}", quoted_list(&MODELS, "or")))
    }
}

/// `Err` with the sentence importer and validator both say when `usdsim:springLinks` is
/// empty or names a kind that is not one of [`LINK_KINDS`].
pub(crate) fn check_spring_links(links: &[String]) -> Result<(), String> {
    let bad: Vec<&String> = links.iter().filter(|l| !LINK_KINDS.contains(&l.as_str())).collect();
    if links.is_empty() {
        Err(format!("names no link kind; springLinks must list at least one of {}", quoted_list(&LINK_KINDS, "or")))
    } else if let Some(first) = bad.first() {
        Err(format!(
            "unknown link kind {first:?}{}; springLinks may list only {}",
            if bad.len() > 1 { format!(" ({} unknown in all)", bad.len()) } else { String::new() },
            quoted_list(&LINK_KINDS, "and")
        ))
    } else {
        Ok(())
    }
}

/// `"a"`, `"a" or "b"`, `"a", "b" or "c"` (with `conjunction` "or").
fn quoted_list(tokens: &[&str], conjunction: &str) -> String {
    let quoted: Vec<String> = tokens.iter().map(|t| format!("{t:?}")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} {conjunction} {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_numeric_attribute_has_one_range() {
        let numeric = attributes().filter(|a| ![MODEL, SPRING_LINKS].contains(a));
        for name in numeric {
            assert_eq!(NUMBER_RANGES.iter().filter(|r| r.name == name).count(), 1, "{name}");
        }
        assert!(number_range(TEAR_RATIO).check(0.0).is_ok() && number_range(TEAR_RATIO).check(1.0).is_err());
        assert!(number_range(PLASTIC_RATE).check(1.0).is_ok() && number_range(PLASTIC_RATE).check(1.01).is_err());
        assert!(number_range(SPRING_DAMPING).check(f64::INFINITY).unwrap_err().contains("finite"));
        assert_eq!(check_model("mpm").unwrap_err(), "found \"mpm\"; model must be \"fem\" or \"springs\"");
        assert!(check_spring_links(&[]).unwrap_err().contains("\"structural\", \"shear\" or \"bend\""));
    }

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
