//! Varying topology of torn bodies: time-sampled face or tetrahedron indices.

use glam::Vec3;
use openusd::{gf, sdf};
use usdsim_core::{Body, BodyKind};

use super::time_samples::author_samples;
use super::{BodyExtras, Topology, Track};

/// Converts indices to USD's `int`.
fn ints(indices: impl IntoIterator<Item = u32>) -> Vec<i32> {
    indices.into_iter().map(|i| i as i32).collect()
}

/// Varying topology of a torn body: nothing when the topology never changed; else the
/// initial topology at the first frame and the new one at every frame it changed.
pub(super) fn author_topology(
    edit: &mut sdf::LayerEdit<'_>,
    track: &Track,
    extras: &BodyExtras,
    start: f64,
    first: usize,
) -> Result<(), sdf::AuthoringError> {
    if extras.topology.iter().all(Option::is_none) {
        return Ok(());
    }
    let prim = sdf::Path::new(&track.prim_path)?;
    let mut changes: Vec<(usize, &Topology)> = Vec::new();
    if extras.topology[0].is_none() {
        changes.push((first, &extras.initial));
    }
    changes.extend(extras.topology.iter().enumerate().filter_map(|(k, t)| t.as_ref().map(|t| (first + k, t))));
    match extras.kind {
        BodyKind::Surface => {
            let mut counts = Vec::new();
            let mut indices = Vec::new();
            for &(k, topology) in &changes {
                let Topology::Triangles(triangles) = topology else { continue };
                counts.push((k, sdf::Value::IntVec(vec![3; triangles.len()])));
                indices.push((k, sdf::Value::IntVec(ints(triangles.iter().flatten().copied()))));
            }
            author_samples(edit, &prim, "faceVertexCounts", "int[]", start, counts)?;
            author_samples(edit, &prim, "faceVertexIndices", "int[]", start, indices)?;
        }
        BodyKind::Volume => {
            let mut tets_samples = Vec::new();
            let mut surface_samples = Vec::new();
            for &(k, topology) in &changes {
                let Topology::Tets(tets) = topology else { continue };
                tets_samples.push((
                    k,
                    sdf::Value::Vec4iVec(tets.iter().map(|t| gf::Vec4i::from(t.map(|i| i as i32))).collect()),
                ));
                // The boundary faces, wound outwards in this frame's points (the last
                // recorded frame at or before it when this one is missing).
                let points = track.frames[..=k - first].iter().rev().flatten().next().map(|f| &f.points);
                let Some(points) = points else { continue };
                let mut body = Body::new(
                    String::new(),
                    BodyKind::Volume,
                    points.iter().map(|p| Vec3::new(p.x, p.y, p.z)).collect(),
                    usdsim_core::Material::elastic(1.0, 0.3, 1.0),
                );
                if tets.iter().flatten().any(|&i| i as usize >= body.positions.len()) {
                    continue;
                }
                body.tets.clone_from(tets);
                let faces = usdsim_core::surface_triangles(&body);
                surface_samples.push((
                    k,
                    sdf::Value::Vec3iVec(faces.iter().map(|f| gf::Vec3i::from(f.map(|i| i as i32))).collect()),
                ));
            }
            author_samples(edit, &prim, "tetVertexIndices", "int4[]", start, tets_samples)?;
            author_samples(edit, &prim, "surfaceFaceVertexIndices", "int3[]", start, surface_samples)?;
        }
    }
    Ok(())
}
