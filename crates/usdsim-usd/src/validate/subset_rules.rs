//! Per-element material rules (DB306–DB309): the `GeomSubset` children of a simulation
//! mesh with `familyName = "materialBind"`, read as the importer reads them
//! (`material_binding::element_materials`): element type `tetrahedron` on a volume
//! body's TetMesh, `face` on a surface body's Mesh, indices into the tetrahedra or faces,
//! the last subset listing an element wins, each subset's material resolved like any
//! prim's binding.

use std::collections::HashMap;

use openusd::sdf;

use super::body_rules::SoundBody;
use super::walk::Walk;
use crate::read::material_binding;
use crate::schema::material::is_any_deformable_api;
use crate::schema::names::{SimKind, BINDING_RELS};
use crate::stage::attribute_values as av;

/// Runs the subset rules on the simulation mesh of every sound body.
pub(crate) fn check(walk: &mut Walk, bodies: &[SoundBody]) {
    for body in bodies {
        let wanted = match body.kind {
            SimKind::Volume => "tetrahedron",
            SimKind::Surface => "face",
            SimKind::Curves => continue,
        };
        check_mesh(walk, body.sim, wanted);
    }
}

/// The number of elements a materialBind subset of `mesh` indexes, when authored.
fn element_count(walk: &mut Walk, mesh: &sdf::Path, wanted: &str) -> Option<usize> {
    if wanted == "tetrahedron" {
        av::int_tuple_array::<4>(&walk.ctx, mesh, "tetVertexIndices").ok().flatten().map(|t| t.len())
    } else {
        av::int_array(&walk.ctx, mesh, "faceVertexCounts").ok().flatten().map(|c| c.len())
    }
}

fn check_mesh(walk: &mut Walk, sim: usize, wanted: &str) {
    let mesh = walk.prims[sim].path.clone();
    let subsets: Vec<sdf::Path> = walk
        .descendants(sim)
        .filter(|&i| walk.prims[i].type_name == "GeomSubset" && walk.prims[i].path.parent().as_ref() == Some(&mesh))
        .map(|i| walk.prims[i].path.clone())
        .collect();
    if subsets.is_empty() {
        return;
    }
    let count = element_count(walk, &mesh, wanted);
    let mesh_material = material_binding::bound_material(&mut walk.ctx, &mesh).ok().flatten();
    let mesh_type = walk.prims[sim].type_name.clone();
    // Element -> the subset that listed it first.
    let mut owner: HashMap<i64, sdf::Path> = HashMap::new();
    for subset in subsets {
        if walk.read(&subset, "familyName", av::token_value).as_deref() != Some("materialBind") {
            continue;
        }
        // DB306: the element type (USD's fallback is "face").
        let element_type = walk.read(&subset, "elementType", av::token_value).unwrap_or_else(|| "face".to_string());
        if element_type != wanted {
            walk.report(
                "DB306",
                &subset,
                Some("elementType"),
                format!(
                    "materialBind subset of the {mesh_type} {mesh} has elementType {element_type:?}; expected {wanted:?} (the simulation ignores this subset)"
                ),
            );
            continue;
        }
        let indices = walk.read(&subset, "indices", av::int_array).unwrap_or_default();

        // DB307: indices in range of the mesh's elements.
        let elements = if wanted == "face" { "faces" } else { "tetrahedra" };
        let mut in_range = Vec::with_capacity(indices.len());
        if let Some(count) = count {
            let bad: Vec<(usize, i64)> =
                indices.iter().copied().enumerate().filter(|&(_, x)| x < 0 || x as u64 >= count as u64).collect();
            if let Some(&(at, index)) = bad.first() {
                let more = if bad.len() > 1 { format!(" ({} bad indices in all)", bad.len()) } else { String::new() };
                walk.report(
                    "DB307",
                    &subset,
                    Some("indices"),
                    format!(
                        "index {index} (entry {at}) out of range for the {count} {elements} of {mesh}; expected 0..={}{more}",
                        count.saturating_sub(1)
                    ),
                );
            }
            in_range.extend(indices.iter().copied().filter(|&x| x >= 0 && (x as u64) < count as u64));
        }

        // DB308: elements already listed by an earlier subset.
        let mut shared: Vec<i64> = Vec::new();
        let mut earlier: Option<sdf::Path> = None;
        for &element in &in_range {
            match owner.get(&element) {
                Some(first) if *first != subset => {
                    if !shared.contains(&element) {
                        shared.push(element);
                    }
                    earlier.get_or_insert_with(|| first.clone());
                }
                Some(_) => {}
                None => {
                    owner.insert(element, subset.clone());
                }
            }
        }
        if let (Some(&first), Some(earlier)) = (shared.first(), earlier) {
            let what = match wanted {
                "face" if shared.len() == 1 => "face",
                "face" => "faces",
                _ if shared.len() == 1 => "tetrahedron",
                _ => "tetrahedra",
            };
            walk.report(
                "DB308",
                &subset,
                Some("indices"),
                format!(
                    "{} {what} (first: {first}) also in the materialBind subset {earlier}; the last subset listing an element wins; expected disjoint subsets",
                    shared.len()
                ),
            );
        }

        // DB309: the subset's own material.
        check_material(walk, &subset, mesh_material.as_ref());
    }
}

/// DB309: the material the subset resolves to exists and applies a deformable material
/// API. A subset resolving to the mesh's own material is left to DB305.
fn check_material(walk: &mut Walk, subset: &sdf::Path, mesh_material: Option<&sdf::Path>) {
    let material = material_binding::bound_material(&mut walk.ctx, subset).ok().flatten();
    match material {
        None => {
            for rel in BINDING_RELS {
                if let Some(target) = walk.targets(subset, rel).into_iter().next() {
                    walk.report(
                        "DB309",
                        subset,
                        Some(rel),
                        format!(
                            "bound material {target} does not exist; the subset's elements use default material values"
                        ),
                    );
                    return;
                }
            }
        }
        Some(material) if Some(&material) != mesh_material => {
            let has_api =
                walk.find(&material).is_some_and(|i| walk.prims[i].apis.iter().any(|api| is_any_deformable_api(api)));
            if !has_api {
                let rel = BINDING_RELS.into_iter().find(|rel| !walk.targets(subset, rel).is_empty());
                walk.report(
                    "DB309",
                    subset,
                    rel,
                    format!(
                        "bound material {material} applies no deformable material API (e.g. OmniPhysicsDeformableMaterialAPI); expected a physics material"
                    ),
                );
            }
        }
        Some(_) => {}
    }
}
