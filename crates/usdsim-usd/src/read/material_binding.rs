//! Physics material resolution: which material a prim is bound to, and the material's
//! parameters in stage units.
//!
//! Binding follows UsdShade's rule for a purpose-restricted query: the `physics`
//! purpose is searched first over the prim and all its ancestors, then the all-purpose
//! `material:binding`. Within one purpose the nearest binding wins, unless an ancestor's
//! binding says `bindMaterialAs = "strongerThanDescendants"`, in which case the
//! outermost such ancestor wins. Targets come from the composed stage, so a binding
//! authored inside a referenced class points at the referencing prim's copy.

use openusd::sdf;
use usdsim_core::{BodyKind, Material, MaterialSlot, BODY_MATERIAL};

use crate::error::ImportError;
use crate::read::usdsim_api::{self, MaterialExtras};
use crate::schema::dialect::Dialect;
use crate::schema::material;
use crate::schema::names::BINDING_RELS;
use crate::stage::attribute_values;
use crate::stage::context::Ctx;
use crate::stage::prim_index::PrimInfo;
use crate::stage::units::Units;

/// The material bound to `prim` for physics, if any. A target that is not a composed
/// prim is reported as a warning and ignored.
pub(crate) fn bound_material(ctx: &mut Ctx, prim: &sdf::Path) -> Result<Option<sdf::Path>, ImportError> {
    for rel_name in BINDING_RELS {
        let mut chosen: Option<sdf::Path> = None;
        for path in prim.ancestors_below_root() {
            let handle = ctx.prim(&path)?;
            let rel = handle.relationship(rel_name);
            let targets = rel.targets().map_err(|err| ctx.query_err(&path, Some(rel_name), err))?;
            let Some(target) = targets.into_iter().next() else {
                continue;
            };
            let strength = rel
                .get_metadata::<sdf::Value>("bindMaterialAs")
                .ok()
                .flatten()
                .and_then(|v| v.try_as_token())
                .map(|t| t.as_str().to_string());
            let stronger = strength.as_deref() == Some("strongerThanDescendants");
            if chosen.is_none() || stronger {
                chosen = Some(target);
            }
        }
        if let Some(target) = chosen {
            let exists = ctx.prim(&target)?.is_valid().map_err(|err| ctx.query_err(&target, None, err))?;
            if !exists {
                ctx.warn(
                    "IM030",
                    prim,
                    Some(rel_name),
                    format!("bound material {target} does not exist; using defaults"),
                );
                return Ok(None);
            }
            return Ok(Some(target));
        }
    }
    Ok(None)
}

/// Reads one parameter under its OmniPhysics name, then its AOUSD `physics:` name.
/// Returns the value and the attribute it came from (for messages).
fn param(ctx: &Ctx, material: &sdf::Path, names: &[&'static str]) -> Result<Option<(f64, &'static str)>, ImportError> {
    for &name in names {
        match attribute_values::f64_value(ctx, material, name)? {
            // The AOUSD materials use −inf as "unset: use the implementation default".
            Some(v) if v == f64::NEG_INFINITY => continue,
            Some(v) => return Ok(Some((v, name))),
            None => {}
        }
    }
    Ok(None)
}

/// Rejects non-finite and negative values with a message naming the attribute.
fn non_negative(
    ctx: &Ctx,
    material: &sdf::Path,
    value: Option<(f64, &'static str)>,
) -> Result<Option<f64>, ImportError> {
    match value {
        Some((v, name)) if !v.is_finite() || v < 0.0 => Err(ImportError::Invalid {
            at: ctx.prop_loc(material, name),
            reason: format!("must be a finite, non-negative number, found {v}"),
        }),
        Some((v, _)) => Ok(Some(v)),
        None => Ok(None),
    }
}

/// The body material when nothing is bound: SI defaults converted to stage units.
pub(crate) fn default_material(units: &Units) -> Material {
    let elastic = Material::elastic(units.pressure_from_si(1e6) as f32, 0.3, units.density_from_si(1000.0) as f32);
    Material { thickness: units.length_from_si(1e-3) as f32, ..elastic }
}

/// Reads the deformable material parameters of `material` (a bound Material prim) for
/// a body of the given kind. Unauthored values take the schema fallback where it is
/// meaningful (Poisson's ratio 0.25 and friction 0 under the OmniPhysics API) and the
/// SI default in stage units where the schema's fallback of 0 means "unset"
/// (Young's modulus, density, thickness).
pub(crate) fn body_material(
    ctx: &mut Ctx,
    material: Option<&sdf::Path>,
    units: &Units,
    body_prim: &sdf::Path,
) -> Result<Material, ImportError> {
    let defaults = default_material(units);
    let Some(material) = material else {
        return Ok(defaults);
    };
    let apis = ctx.prim(material)?.api_schemas().map_err(|err| ctx.query_err(material, None, err))?;
    // Only the simulated (non-curves) deformable material APIs count (schema/material.rs).
    let omni = apis.iter().any(|api| material::is_deformable_api(api.as_str(), Dialect::Omni));
    let aousd = apis.iter().any(|api| material::is_deformable_api(api.as_str(), Dialect::Aousd));
    let any_material_api = omni || aousd || apis.iter().any(|api| material::BASE_MATERIAL_APIS.contains(&api.as_str()));
    if !omni && !aousd {
        ctx.warn(
            "DB305",
            body_prim,
            None,
            format!("bound material {material} applies no deformable material API; reading its attributes anyway"),
        );
    }
    // A surface body bound to a volume-only material is legal and common (the PhysX
    // samples do it): the surface parameters then take their fallbacks.

    let positive_or = |v: Option<f64>, fallback: f32| match v {
        Some(v) if v > 0.0 => v as f32,
        _ => fallback,
    };
    let youngs = non_negative(ctx, material, param(ctx, material, material::YOUNGS_MODULUS.names)?)?;
    let density = non_negative(ctx, material, param(ctx, material, material::DENSITY.names)?)?;
    let thickness = non_negative(ctx, material, param(ctx, material, material::THICKNESS.names)?)?;
    let stretch = non_negative(ctx, material, param(ctx, material, material::STRETCH_STIFFNESS.names)?)?;
    let shear = non_negative(ctx, material, param(ctx, material, material::SHEAR_STIFFNESS.names)?)?;
    let bend = non_negative(ctx, material, param(ctx, material, material::BEND_STIFFNESS.names)?)?;
    let dynamic_friction = non_negative(ctx, material, param(ctx, material, material::DYNAMIC_FRICTION.names)?)?;
    let static_friction = non_negative(ctx, material, param(ctx, material, material::STATIC_FRICTION.names)?)?;
    let damping = non_negative(ctx, material, param(ctx, material, material::ELASTICITY_DAMPING.names)?)?;
    let bend_damping = non_negative(ctx, material, param(ctx, material, material::BEND_DAMPING.names)?)?;

    let poisson_fallback = if omni { 0.25 } else { 0.3 };
    let poissons_ratio = match param(ctx, material, material::POISSONS_RATIO.names)? {
        Some((v, name)) if !(v.is_finite() && v > -1.0 && v < 0.5) => {
            return Err(ImportError::Invalid {
                at: ctx.prop_loc(material, name),
                reason: format!("Poisson's ratio must lie in (-1, 0.5), found {v}"),
            });
        }
        Some((v, _)) => v as f32,
        None => poisson_fallback,
    };
    // With a material API applied, unauthored friction is the schema's 0; a material
    // without any physics material API says nothing about friction.
    let friction_fallback = if any_material_api { 0.0 } else { defaults.dynamic_friction };

    Ok(Material {
        youngs_modulus: positive_or(youngs, defaults.youngs_modulus),
        poissons_ratio,
        density: positive_or(density, defaults.density),
        thickness: positive_or(thickness, defaults.thickness),
        stretch_stiffness: stretch.unwrap_or(0.0) as f32,
        shear_stiffness: shear.unwrap_or(0.0) as f32,
        bend_stiffness: bend.unwrap_or(0.0) as f32,
        dynamic_friction: dynamic_friction.map_or(friction_fallback, |v| v as f32),
        static_friction: static_friction.map_or(friction_fallback, |v| v as f32),
        damping: damping.unwrap_or(0.0) as f32,
        bend_damping: bend_damping.unwrap_or(0.0) as f32,
    })
}

/// Friction of a static collider from its bound material: UsdPhysics
/// `physics:dynamicFriction` first, then the OmniPhysics name; 0.5 with no material.
pub(crate) fn collider_friction(ctx: &mut Ctx, collider: &sdf::Path) -> Result<f32, ImportError> {
    let Some(material) = bound_material(ctx, collider)? else {
        return Ok(0.5);
    };
    let value = non_negative(
        ctx,
        &material,
        param(ctx, &material, &[material::DYNAMIC_FRICTION.names[1], material::DYNAMIC_FRICTION.names[0]])?,
    )?;
    if let Some(v) = value {
        return Ok(v as f32);
    }
    let apis = ctx.prim(&material)?.api_schemas().map_err(|err| ctx.query_err(&material, None, err))?;
    let has_api =
        apis.iter().any(|api| api.as_str() == "PhysicsMaterialAPI" || api.as_str().starts_with("OmniPhysics"));
    Ok(if has_api { 0.0 } else { 0.5 })
}

/// Per-element materials from the simulation mesh's `GeomSubset` children with
/// `familyName = "materialBind"` and `elementType` `tetrahedron` (volume bodies) or
/// `face` (surface bodies). Each subset's material is resolved like any prim's (so an
/// ancestor's `strongerThanDescendants` binding still wins, and a subset without its own
/// binding inherits the mesh's). Returns the material slots (with their tearing and
/// plasticity from `UsdsimMaterialAPI`) and one index per element ([`BODY_MATERIAL`]
/// for elements in no subset); both empty when no subset applies.
pub(crate) fn element_materials(
    ctx: &mut Ctx,
    prims: &[PrimInfo],
    sim_index: usize,
    kind: BodyKind,
    element_count: usize,
    units: &Units,
) -> Result<ElementMaterials, ImportError> {
    let sim = &prims[sim_index].path;
    let subsets: Vec<sdf::Path> = prims[sim_index + 1..]
        .iter()
        .take_while(|p| p.path.has_prefix(sim))
        .filter(|p| p.type_name == "GeomSubset" && p.path.parent().as_ref() == Some(sim))
        .map(|p| p.path.clone())
        .collect();
    let wanted = match kind {
        BodyKind::Volume => "tetrahedron",
        BodyKind::Surface => "face",
    };
    let mut table: Vec<(Option<sdf::Path>, Material, MaterialExtras)> = Vec::new();
    let mut per_element = vec![BODY_MATERIAL; element_count];
    let mut any = false;
    let mut overlap = false;
    for subset in subsets {
        if attribute_values::token_value(ctx, &subset, "familyName")?.as_deref() != Some("materialBind") {
            continue;
        }
        let element_type = attribute_values::token_value(ctx, &subset, "elementType")?;
        if element_type.as_deref() != Some(wanted) {
            ctx.warn(
                "DB306",
                &subset,
                Some("elementType"),
                format!(
                    "materialBind subsets of this body must have elementType \"{wanted}\", found {:?}; ignored",
                    element_type.unwrap_or_else(|| "face".to_string())
                ),
            );
            continue;
        }
        let indices = attribute_values::int_array(ctx, &subset, "indices")?.unwrap_or_default();
        let material = bound_material(ctx, &subset)?;
        let values = body_material(ctx, material.as_ref(), units, &subset)?;
        let slot = match table.iter().position(|(path, _, _)| *path == material) {
            Some(k) => k,
            None => {
                let extras = usdsim_api::material_extras(ctx, material.as_ref())?;
                table.push((material, values, extras));
                table.len() - 1
            }
        };
        for &i in &indices {
            let i = attribute_values::checked_index(ctx, &subset, "indices", i, element_count, "elements")? as usize;
            overlap |= per_element[i] != BODY_MATERIAL;
            per_element[i] = slot as u32;
            any = true;
        }
    }
    if overlap {
        ctx.warn("DB308", sim, None, "materialBind subsets overlap; the last subset listing an element wins");
    }
    if !any {
        return Ok(ElementMaterials::default());
    }
    Ok(ElementMaterials {
        slots: table
            .iter()
            .map(|&(_, material, e)| MaterialSlot { material, plastic: e.plastic, tear_ratio: e.tear_ratio })
            .collect(),
        per_element,
    })
}

/// Per-element material assignment of a body (see [`element_materials`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct ElementMaterials {
    /// The distinct materials of the subsets, each with its `usdsim:` plasticity and
    /// tear ratio.
    pub slots: Vec<MaterialSlot>,
    /// Per element: an index into `slots`, or [`BODY_MATERIAL`].
    pub per_element: Vec<u32>,
}
