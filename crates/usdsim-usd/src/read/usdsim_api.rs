//! Our own schema extension (`schemas/usdsim/`, namespace `usdsim:`): tearing and
//! plasticity on a physics material (`UsdsimMaterialAPI`) and the constitutive model of
//! a body (`UsdsimBodyAPI`).
//!
//! Values are read when the API is applied. `usdsim:` attributes authored on a prim that
//! does not apply the API are still read (a forgotten `apiSchemas` entry is the common
//! mistake, and ignoring the values silently would be worse), with a warning that names
//! the missing API. None of the values carries a distance or mass unit that needs
//! converting: ratios and rates are unitless, and `springStiffness` (mass/s²) and
//! `springDamping` (mass/s) are authored in stage units like every other value.

use openusd::sdf;
use usdsim_core::LinkKinds;
use usdsim_core::{Model, Plasticity, Springs};

use crate::error::ImportError;
use crate::stage::attribute_values;
use crate::stage::context::Ctx;

use crate::schema::usdsim::{
    check_model, check_spring_links, number_range, BODY_API, BODY_ATTRIBUTES as BODY_ATTRS, MATERIAL_API,
    MATERIAL_ATTRIBUTES as MATERIAL_ATTRS, MODEL, PLASTIC_MAX_STRAIN, PLASTIC_RATE, PLASTIC_YIELD, SPRING_DAMPING,
    SPRING_LINKS, SPRING_STIFFNESS, TEAR_RATIO,
};

/// Tearing and plasticity of one material.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct MaterialExtras {
    /// `usdsim:tearRatio` when tearing (> 1); `None` never tears.
    pub tear_ratio: Option<f32>,
    /// Plastic flow when `usdsim:plasticYieldRatio` > 1 and `usdsim:plasticRate` > 0.
    pub plastic: Option<Plasticity>,
}

/// Whether `prim` applies the single-apply API `api`.
fn applies(ctx: &Ctx, prim: &sdf::Path, api: &str) -> Result<bool, ImportError> {
    let apis = ctx.prim(prim)?.api_schemas().map_err(|err| ctx.query_err(prim, None, err))?;
    Ok(apis.iter().any(|a| a.as_str() == api))
}

/// Warns when `usdsim:` attributes of `api` are authored on `prim` without the API
/// applied. Returns whether any of them is authored at all.
fn check_applied(ctx: &mut Ctx, prim: &sdf::Path, api: &str, names: &[&str]) -> Result<bool, ImportError> {
    let mut authored = Vec::new();
    for &name in names {
        if attribute_values::raw(ctx, prim, name)?.is_some() {
            authored.push(name);
        }
    }
    if authored.is_empty() {
        return Ok(false);
    }
    if !applies(ctx, prim, api)? {
        ctx.warn(
            "DB608",
            prim,
            Some(authored[0]),
            format!(
                "{} authored without {api} in apiSchemas; read anyway (add \"{api}\" to apiSchemas)",
                authored.join(", ")
            ),
        );
    }
    Ok(true)
}

/// The authored value of numeric attribute `name`, or an error naming the attribute
/// when it is outside the range `schema/usdsim.rs` gives it (the validator's sentence).
fn in_range(ctx: &Ctx, prim: &sdf::Path, name: &str) -> Result<Option<f64>, ImportError> {
    let value = attribute_values::f64_value(ctx, prim, name)?;
    if let Some(v) = value {
        number_range(name).check(v).map_err(|reason| invalid(ctx, prim, name, reason))?;
    }
    Ok(value)
}

fn invalid(ctx: &Ctx, prim: &sdf::Path, name: &str, reason: String) -> ImportError {
    ImportError::Invalid { at: ctx.prop_loc(prim, name), reason }
}

/// Reads `UsdsimMaterialAPI` from a bound material (`None`: nothing bound, so no
/// tearing and no plasticity).
///
/// * `tearRatio`: 0 (the fallback) never tears; otherwise it must exceed 1.
/// * `plasticYieldRatio`: 0 is elastic; otherwise it must exceed 1, and `plasticRate`
///   (in [0, 1]) must be above 0 for anything to flow (a yield with rate 0 is a warning
///   and stays elastic).
/// * `plasticMaxStrain`: 0 is no cap; otherwise positive.
pub(crate) fn material_extras(ctx: &mut Ctx, material: Option<&sdf::Path>) -> Result<MaterialExtras, ImportError> {
    let Some(material) = material else {
        return Ok(MaterialExtras::default());
    };
    if !check_applied(ctx, material, MATERIAL_API, &MATERIAL_ATTRS)? {
        return Ok(MaterialExtras::default());
    }
    // 0 switches tearing, flow and the cap off; the ranges exclude everything else
    // that would not make sense.
    let tear_ratio = in_range(ctx, material, TEAR_RATIO)?.filter(|&r| r > 0.0).map(|r| r as f32);
    let yield_ratio = in_range(ctx, material, PLASTIC_YIELD)?.filter(|&y| y > 0.0);
    let rate = in_range(ctx, material, PLASTIC_RATE)?.unwrap_or(0.0);
    let max_strain = in_range(ctx, material, PLASTIC_MAX_STRAIN)?.filter(|&s| s > 0.0).map(|s| s as f32);
    let plastic = match yield_ratio {
        Some(_) if rate == 0.0 => {
            ctx.warn(
"IM060",
                material,
                Some(PLASTIC_RATE),
                format!("{PLASTIC_YIELD} is set but {PLASTIC_RATE} is 0 (or unauthored): nothing flows, the material stays elastic"),
            );
            None
        }
        Some(y) => Some(Plasticity { yield_ratio: y as f32, rate: rate as f32, max_strain }),
        None => None,
    };
    Ok(MaterialExtras { tear_ratio, plastic })
}

/// Reads `UsdsimBodyAPI` from the body prim (`root`, the prim with the deformable body
/// API) or, when the root says nothing, from the simulation mesh (`sim`). Unauthored:
/// finite elements.
pub(crate) fn body_model(ctx: &mut Ctx, root: &sdf::Path, sim: &sdf::Path) -> Result<Model, ImportError> {
    let mut prim = root;
    if !check_applied(ctx, root, BODY_API, &BODY_ATTRS)? {
        if sim == root || !check_applied(ctx, sim, BODY_API, &BODY_ATTRS)? {
            return Ok(Model::Fem);
        }
        prim = sim;
    }
    let model = attribute_values::token_value(ctx, prim, MODEL)?;
    if let Some(model) = &model {
        check_model(model).map_err(|reason| invalid(ctx, prim, MODEL, reason))?;
    }
    let springs = model.as_deref() == Some("springs");
    let stiffness = in_range(ctx, prim, SPRING_STIFFNESS)?.unwrap_or(0.0) as f32;
    let damping = in_range(ctx, prim, SPRING_DAMPING)?.unwrap_or(0.0) as f32;
    let links = match attribute_values::token_array(ctx, prim, SPRING_LINKS)? {
        None => Springs::default().links,
        Some(tokens) => {
            check_spring_links(&tokens).map_err(|reason| invalid(ctx, prim, SPRING_LINKS, reason))?;
            let has = |kind: &str| tokens.iter().any(|t| t == kind);
            LinkKinds { structural: has("structural"), shear: has("shear"), bend: has("bend") }
        }
    };
    if !springs {
        let authored: Vec<&str> = [SPRING_STIFFNESS, SPRING_DAMPING, SPRING_LINKS]
            .into_iter()
            .filter(|n| attribute_values::raw(ctx, prim, n).ok().flatten().is_some())
            .collect();
        if !authored.is_empty() {
            ctx.warn(
                "IM012",
                prim,
                Some(authored[0]),
                format!(
                    "{} only apply to usdsim:model = \"springs\"; ignored for finite elements",
                    authored.join(", ")
                ),
            );
        }
        return Ok(Model::Fem);
    }
    Ok(Model::Springs(Springs { stiffness, damping, links }))
}

#[cfg(test)]
mod tests {
    use crate::error::ImportError;
    use crate::import::{import, Imported};
    use usdsim_core::{Model, Plasticity};

    /// A one-triangle cloth whose material and body carry `material_extra` /
    /// `body_extra` (attribute lines and, in `*_apis`, extra apiSchemas entries), plus a
    /// face subset bound to a second material with `subset_extra`.
    fn scene(
        material_apis: &str,
        material_extra: &str,
        body_apis: &str,
        body_extra: &str,
        subset_extra: &str,
    ) -> String {
        format!(
            r#"#usda 1.0
(
    metersPerUnit = 1
    upAxis = "Z"
)

def Xform "World"
{{
    def Material "ClothMaterial" (
        prepend apiSchemas = ["OmniPhysicsSurfaceDeformableMaterialAPI"{material_apis}]
    )
    {{
{material_extra}
    }}
    def Material "Patch" (
        prepend apiSchemas = ["OmniPhysicsSurfaceDeformableMaterialAPI", "UsdsimMaterialAPI"]
    )
    {{
{subset_extra}
    }}
    def Mesh "Cloth" (
        prepend apiSchemas = ["OmniPhysicsDeformableBodyAPI", "OmniPhysicsSurfaceDeformableSimAPI", "MaterialBindingAPI"{body_apis}]
    )
    {{
        rel material:binding:physics = </World/ClothMaterial>
        point3f[] points = [(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)]
        int[] faceVertexCounts = [3, 3]
        int[] faceVertexIndices = [0, 1, 2, 1, 3, 2]
{body_extra}
        def GeomSubset "Patch" (
            prepend apiSchemas = ["MaterialBindingAPI"]
        )
        {{
            uniform token familyName = "materialBind"
            uniform token elementType = "face"
            int[] indices = [1]
            rel material:binding:physics = </World/Patch>
        }}
    }}
}}
"#
        )
    }

    fn import_text(text: &str) -> Result<Imported, ImportError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scene.usda");
        std::fs::write(&path, text).unwrap();
        import(&path)
    }

    #[test]
    fn material_api_gives_tear_ratio_and_plasticity_per_material() {
        let imported = import_text(&scene(
            r#", "UsdsimMaterialAPI""#,
            "        float usdsim:tearRatio = 1.5\n        float usdsim:plasticYieldRatio = 1.1\n        float usdsim:plasticRate = 0.25\n        float usdsim:plasticMaxStrain = 0.5",
            "",
            "",
            "        float usdsim:tearRatio = 2\n        float usdsim:plasticYieldRatio = 1.3\n        float usdsim:plasticRate = 1",
        ))
        .unwrap();
        let body = &imported.scene.bodies[0];
        assert_eq!(body.tear_ratio, Some(1.5));
        assert_eq!(body.plastic, Some(Plasticity { yield_ratio: 1.1, rate: 0.25, max_strain: Some(0.5) }));
        assert_eq!(body.materials.len(), 1);
        assert_eq!(body.materials[0].tear_ratio, Some(2.0));
        assert_eq!(body.materials[0].plastic, Some(Plasticity { yield_ratio: 1.3, rate: 1.0, max_strain: None }));
        assert_eq!(body.element_tear_ratio(0), Some(1.5));
        assert_eq!(body.element_tear_ratio(1), Some(2.0));
        assert_eq!(body.model, Model::Fem);
        assert!(imported.warnings.iter().all(|w| !w.text().contains("usdsim")), "{:?}", imported.warnings);
    }

    #[test]
    fn zero_means_off_and_unauthored_is_elastic() {
        let imported = import_text(&scene(
            r#", "UsdsimMaterialAPI""#,
            "        float usdsim:tearRatio = 0\n        float usdsim:plasticYieldRatio = 0",
            "",
            "",
            "",
        ))
        .unwrap();
        let body = &imported.scene.bodies[0];
        assert_eq!(body.tear_ratio, None);
        assert_eq!(body.plastic, None);
        assert_eq!(body.materials.iter().map(|slot| slot.tear_ratio).collect::<Vec<_>>(), vec![None]);
        assert_eq!(body.materials.iter().map(|slot| slot.plastic).collect::<Vec<_>>(), vec![None]);
    }

    #[test]
    fn attributes_without_the_api_are_read_with_a_warning() {
        let imported = import_text(&scene("", "        float usdsim:tearRatio = 1.8", "", "", "")).unwrap();
        assert_eq!(imported.scene.bodies[0].tear_ratio, Some(1.8));
        assert!(
            imported.warnings.iter().any(|w| w.text().contains("/World/ClothMaterial.usdsim:tearRatio")
                && w.code == "DB608"
                && w.text().contains("UsdsimMaterialAPI")),
            "{:?}",
            imported.warnings
        );
    }

    #[test]
    fn yield_without_rate_warns_and_stays_elastic() {
        let imported =
            import_text(&scene(r#", "UsdsimMaterialAPI""#, "        float usdsim:plasticYieldRatio = 1.2", "", "", ""))
                .unwrap();
        assert_eq!(imported.scene.bodies[0].plastic, None);
        assert!(imported.warnings.iter().any(|w| w.text().contains("usdsim:plasticRate")), "{:?}", imported.warnings);
    }

    #[test]
    fn invalid_material_values_name_file_prim_and_attribute() {
        for (line, attribute, needle) in [
            ("float usdsim:tearRatio = 0.5", "usdsim:tearRatio", "above 1"),
            ("float usdsim:tearRatio = 1", "usdsim:tearRatio", "above 1"),
            ("float usdsim:tearRatio = -2", "usdsim:tearRatio", "above 1"),
            ("float usdsim:plasticYieldRatio = 0.9", "usdsim:plasticYieldRatio", "above 1"),
            ("float usdsim:plasticRate = 1.5", "usdsim:plasticRate", "[0, 1]"),
            ("float usdsim:plasticRate = -0.1", "usdsim:plasticRate", "[0, 1]"),
            ("float usdsim:plasticMaxStrain = -1", "usdsim:plasticMaxStrain", "positive"),
            ("float usdsim:tearRatio = inf", "usdsim:tearRatio", "finite"),
        ] {
            let err = import_text(&scene(r#", "UsdsimMaterialAPI""#, &format!("        {line}"), "", "", ""))
                .expect_err(line)
                .to_string();
            assert!(err.contains(&format!("scene.usda: /World/ClothMaterial.{attribute}")), "{line}: {err}");
            assert!(err.contains(needle), "{line}: {err}");
        }
    }

    #[test]
    fn body_api_selects_the_spring_model() {
        let imported = import_text(&scene(
            "",
            "",
            r#", "UsdsimBodyAPI""#,
            "        uniform token usdsim:model = \"springs\"\n        float usdsim:springStiffness = 500\n        float usdsim:springDamping = 2\n        uniform token[] usdsim:springLinks = [\"structural\", \"bend\"]",
            "",
        ))
        .unwrap();
        let Model::Springs(s) = imported.scene.bodies[0].model else {
            panic!("expected springs, got {:?}", imported.scene.bodies[0].model)
        };
        assert_eq!((s.stiffness, s.damping), (500.0, 2.0));
        assert!(s.links.structural && !s.links.shear && s.links.bend);
    }

    #[test]
    fn springs_default_to_every_link_kind() {
        let imported =
            import_text(&scene("", "", r#", "UsdsimBodyAPI""#, "        uniform token usdsim:model = \"springs\"", ""))
                .unwrap();
        assert_eq!(imported.scene.bodies[0].model, Model::Springs(usdsim_core::Springs::default()));
    }

    #[test]
    fn invalid_body_values_are_errors() {
        for (line, attribute) in [
            ("uniform token usdsim:model = \"mpm\"", "usdsim:model"),
            ("float usdsim:springStiffness = -1", "usdsim:springStiffness"),
            ("uniform token[] usdsim:springLinks = [\"diagonal\"]", "usdsim:springLinks"),
            ("uniform token[] usdsim:springLinks = []", "usdsim:springLinks"),
        ] {
            let err = import_text(&scene("", "", r#", "UsdsimBodyAPI""#, &format!("        {line}"), ""))
                .expect_err(line)
                .to_string();
            assert!(err.contains(&format!("scene.usda: /World/Cloth.{attribute}")), "{line}: {err}");
        }
    }

    #[test]
    fn body_attributes_without_the_api_warn() {
        let imported = import_text(&scene("", "", "", "        uniform token usdsim:model = \"springs\"", "")).unwrap();
        assert!(matches!(imported.scene.bodies[0].model, Model::Springs(_)));
        assert!(imported.warnings.iter().any(|w| w.text().contains("UsdsimBodyAPI")), "{:?}", imported.warnings);
    }
}
