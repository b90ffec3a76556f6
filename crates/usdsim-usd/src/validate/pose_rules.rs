//! Deformable pose rules (DB201, DB202): pose points match their mesh, one bind pose.

use super::body_rules::SoundBody;
use super::mesh_rules::check_finite;
use super::walk::Walk;
use crate::schema::dialect::Dialect;
use crate::schema::names::{BIND_POSE, POSE_POINTS, POSE_PURPOSES};
use crate::stage::attribute_values as av;

/// Checks every prim that applies a deformable pose API (either dialect).
pub(crate) fn check(walk: &mut Walk, _bodies: &[SoundBody]) {
    for i in 0..walk.prims.len() {
        let mut poses = Vec::new();
        for dialect in [Dialect::Omni, Dialect::Aousd] {
            for instance in walk.prims[i].instances(dialect.names().pose_api) {
                poses.push((dialect, instance));
            }
        }
        if poses.is_empty() {
            continue;
        }
        let path = walk.prims[i].path.clone();
        let mesh_points = walk.read(&path, "points", av::vec3_array);
        let mut bind_poses = Vec::new();
        for (dialect, instance) in &poses {
            let purposes_name = dialect.pose_attr(instance, POSE_PURPOSES);
            let points_name = dialect.pose_attr(instance, POSE_POINTS);
            let purposes = walk.read(&path, &purposes_name, av::token_array).unwrap_or_default();
            if purposes.iter().any(|p| p == BIND_POSE) {
                bind_poses.push(instance.clone());
            }
            if let Some(pose_points) = walk.read(&path, &points_name, av::vec3_array) {
                check_finite(walk, &path, &points_name, &pose_points);
                if let Some(mesh_points) = mesh_points.as_ref().filter(|m| m.len() != pose_points.len()) {
                    let message = format!(
                        "has {} points, expected {} (one pose point per point of the mesh)",
                        pose_points.len(),
                        mesh_points.len()
                    );
                    walk.report("DB201", &path, Some(&points_name), message);
                }
            }
        }
        if bind_poses.len() > 1 {
            walk.report(
                "DB202",
                &path,
                None,
                format!(
                    "{} deformable poses have the bindPose purpose ({}); expected one (the first is used)",
                    bind_poses.len(),
                    bind_poses.join(", ")
                ),
            );
        }
    }
}
