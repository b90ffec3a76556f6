//! The legacy PhysX deformable schema (Isaac Sim 2022–4.5, Omniverse 2023–2024) in one
//! table: `PhysxDeformableBodyAPI` (volumes, on a render `Mesh` that carries the cooked
//! simulation tet mesh in `physxDeformable:simulation*` attributes),
//! `PhysxDeformableSurfaceAPI` (cloth, on a triangle `Mesh`), their materials and
//! `PhysxPhysicsAttachment`. Definitions: `physxSchema/schema.usda` in
//! `corpus/schema-reference`. The importer (`read/legacy_body.rs`,
//! `read/legacy_attachment.rs`), the exporter (which writes a legacy volume's state
//! back under [`SIMULATION_POINTS`] and [`SIMULATION_VELOCITIES`]) and the validator
//! read these names and no others.

/// Which legacy body API a prim applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegacyKind {
    /// `PhysxDeformableBodyAPI`: a volume whose simulation tet mesh is cooked into the
    /// render mesh's `physxDeformable:simulation*` attributes.
    Volume,
    /// `PhysxDeformableSurfaceAPI`: a triangle mesh simulated as cloth.
    Surface,
}

/// The legacy body APIs, volume first.
pub(crate) const BODY_APIS: [(&str, LegacyKind); 2] =
    [("PhysxDeformableBodyAPI", LegacyKind::Volume), ("PhysxDeformableSurfaceAPI", LegacyKind::Surface)];

/// `physxDeformable:deformableEnabled` (fallback true).
pub(crate) const ENABLED: &str = "physxDeformable:deformableEnabled";
/// `physxDeformable:simulationOwner`: the PhysicsScene that simulates the body.
pub(crate) const OWNER: &str = "physxDeformable:simulationOwner";
/// `physxDeformable:vertexVelocityDamping`, 1/s: a drag on every vertex.
pub(crate) const VERTEX_VELOCITY_DAMPING: &str = "physxDeformable:vertexVelocityDamping";
/// The schema's fallback of [`VERTEX_VELOCITY_DAMPING`], which PhysX applies when the
/// attribute is not authored.
pub(crate) const VERTEX_VELOCITY_DAMPING_FALLBACK: f64 = 0.005;
/// `physxDeformable:selfCollision` (fallback false).
pub(crate) const SELF_COLLISION: &str = "physxDeformable:selfCollision";
/// `physxDeformable:selfCollisionFilterDistance` (−inf: PhysX's default).
pub(crate) const SELF_COLLISION_FILTER_DISTANCE: &str = "physxDeformable:selfCollisionFilterDistance";
/// `physxDeformable:disableGravity` (volume bodies).
pub(crate) const DISABLE_GRAVITY: &str = "physxDeformable:disableGravity";
/// The render mesh's rest points, local space.
pub(crate) const REST_POINTS: &str = "physxDeformable:restPoints";
/// The simulation tet mesh's points, local space: the state of a legacy volume.
pub const SIMULATION_POINTS: &str = "physxDeformable:simulationPoints";
/// The simulation tet mesh's rest points, local space.
pub(crate) const SIMULATION_REST_POINTS: &str = "physxDeformable:simulationRestPoints";
/// The simulation tet mesh's tetrahedra: a flat `int[]`, four per tet.
pub(crate) const SIMULATION_INDICES: &str = "physxDeformable:simulationIndices";
/// The simulation tet mesh's velocities, local space.
pub const SIMULATION_VELOCITIES: &str = "physxDeformable:simulationVelocities";
/// The collision tet mesh (PhysX collides a second, finer tet mesh; usdsim collides
/// the simulation mesh's surface, and says so): its indices, points and rest points.
pub(crate) const COLLISION_MESH: [&str; 3] =
    ["physxDeformable:collisionIndices", "physxDeformable:collisionPoints", "physxDeformable:collisionRestPoints"];
/// `physxDeformableSurface:bendingStiffnessScale` (fallback 0): a scale on the cloth's
/// thin-plate bending stiffness.
pub(crate) const BENDING_STIFFNESS_SCALE: &str = "physxDeformableSurface:bendingStiffnessScale";

/// Legacy body attributes usdsim reads but does not simulate, each with why; a
/// non-fallback authored value gets IM081 naming it. `(name, fallback, why)`.
pub(crate) const IGNORED_BODY_ATTRIBUTES: [(&str, f64, &str); 10] = [
    ("physxDeformable:solverPositionIterationCount", 16.0, "usdsim's solver iterates by its own settings"),
    ("physxDeformable:sleepDamping", 10.0, "usdsim bodies do not fall asleep"),
    ("physxDeformable:sleepThreshold", 0.05, "usdsim bodies do not fall asleep"),
    ("physxDeformable:settlingThreshold", 0.1, "usdsim bodies do not fall asleep"),
    ("physxDeformable:maxDepenetrationVelocity", f64::INFINITY, "contacts are resolved by position, not velocity"),
    ("physxDeformable:enableCCD", 0.0, "usdsim's contacts are continuous by substepping and thickness"),
    ("physxDeformableSurface:flatteningEnabled", 0.0, "no flattening constraint"),
    ("physxDeformableSurface:collisionPairUpdateFrequency", 1.0, "contacts are found every substep"),
    ("physxDeformableSurface:collisionIterationMultiplier", 1.0, "usdsim's solver iterates by its own settings"),
    ("physxDeformableSurface:maxVelocity", f64::INFINITY, "no velocity clamp"),
];

/// The legacy material APIs: a volume body reads [`BODY_MATERIAL`], a surface body
/// [`SURFACE_MATERIAL`].
pub(crate) const MATERIAL_APIS: [&str; 2] = ["PhysxDeformableBodyMaterialAPI", "PhysxDeformableSurfaceMaterialAPI"];

/// One legacy material attribute: its name and the schema's fallback, which PhysX
/// applies when it is not authored (`None`: the fallback means "PhysX's default", and
/// usdsim's SI default in stage units stands in).
pub(crate) struct LegacyMaterialAttribute {
    /// The attribute.
    pub name: &'static str,
    /// The schema fallback that PhysX applies.
    pub fallback: Option<f64>,
}

/// The attributes of one legacy material API.
pub(crate) struct LegacyMaterial {
    /// Young's modulus, stage pressure units.
    pub youngs_modulus: LegacyMaterialAttribute,
    /// Poisson's ratio.
    pub poissons_ratio: LegacyMaterialAttribute,
    /// Density, stage mass per volume (0: PhysX's default).
    pub density: LegacyMaterialAttribute,
    /// Dynamic friction against colliders.
    pub dynamic_friction: LegacyMaterialAttribute,
    /// Stiffness-proportional damping (volumes only).
    pub elasticity_damping: Option<LegacyMaterialAttribute>,
    /// Shell thickness (surfaces only; 0: PhysX's default).
    pub thickness: Option<LegacyMaterialAttribute>,
    /// `dampingScale` (volumes only): a PhysX solver scale usdsim does not model; a
    /// value other than its fallback 1 gets IM081.
    pub damping_scale: Option<LegacyMaterialAttribute>,
}

/// `PhysxDeformableBodyMaterialAPI`.
pub(crate) const BODY_MATERIAL: LegacyMaterial = LegacyMaterial {
    youngs_modulus: LegacyMaterialAttribute { name: "physxDeformableBodyMaterial:youngsModulus", fallback: Some(5e7) },
    poissons_ratio: LegacyMaterialAttribute { name: "physxDeformableBodyMaterial:poissonsRatio", fallback: Some(0.45) },
    density: LegacyMaterialAttribute { name: "physxDeformableBodyMaterial:density", fallback: None },
    dynamic_friction: LegacyMaterialAttribute {
        name: "physxDeformableBodyMaterial:dynamicFriction",
        fallback: Some(0.25),
    },
    elasticity_damping: Some(LegacyMaterialAttribute {
        name: "physxDeformableBodyMaterial:elasticityDamping",
        fallback: Some(0.005),
    }),
    thickness: None,
    damping_scale: Some(LegacyMaterialAttribute {
        name: "physxDeformableBodyMaterial:dampingScale",
        fallback: Some(1.0),
    }),
};

/// `PhysxDeformableSurfaceMaterialAPI`.
pub(crate) const SURFACE_MATERIAL: LegacyMaterial = LegacyMaterial {
    youngs_modulus: LegacyMaterialAttribute { name: "physxDeformableSurfaceMaterial:youngsModulus", fallback: None },
    poissons_ratio: LegacyMaterialAttribute {
        name: "physxDeformableSurfaceMaterial:poissonsRatio",
        fallback: Some(0.0),
    },
    density: LegacyMaterialAttribute { name: "physxDeformableSurfaceMaterial:density", fallback: None },
    dynamic_friction: LegacyMaterialAttribute {
        name: "physxDeformableSurfaceMaterial:dynamicFriction",
        fallback: Some(0.25),
    },
    elasticity_damping: None,
    thickness: Some(LegacyMaterialAttribute { name: "physxDeformableSurfaceMaterial:thickness", fallback: None }),
    damping_scale: None,
};

/// Every legacy attribute usdsim reads (simulated, approximated or named as ignored).
pub(crate) fn read_attributes() -> impl Iterator<Item = &'static str> {
    let body = [
        ENABLED,
        OWNER,
        VERTEX_VELOCITY_DAMPING,
        SELF_COLLISION,
        SELF_COLLISION_FILTER_DISTANCE,
        DISABLE_GRAVITY,
        REST_POINTS,
        SIMULATION_POINTS,
        SIMULATION_REST_POINTS,
        SIMULATION_INDICES,
        SIMULATION_VELOCITIES,
        BENDING_STIFFNESS_SCALE,
    ];
    let materials = [&BODY_MATERIAL, &SURFACE_MATERIAL].into_iter().flat_map(|m| {
        [Some(&m.youngs_modulus), Some(&m.poissons_ratio), Some(&m.density), Some(&m.dynamic_friction)]
            .into_iter()
            .chain([m.elasticity_damping.as_ref(), m.thickness.as_ref(), m.damping_scale.as_ref()])
            .flatten()
            .map(|a| a.name)
    });
    let auto = [attachment::AUTO_VERTEX, attachment::AUTO_VERTEX_OFFSET, attachment::AUTO_FILTERING];
    body.into_iter()
        .chain(COLLISION_MESH)
        .chain(IGNORED_BODY_ATTRIBUTES.iter().map(|(n, _, _)| *n))
        .chain(materials)
        .chain(auto)
}

impl LegacyKind {
    /// The body API's name.
    pub fn api(self) -> &'static str {
        BODY_APIS.iter().find(|(_, k)| *k == self).map_or(BODY_APIS[0].0, |(name, _)| name)
    }

    /// The material API a body of this kind reads.
    pub(crate) fn material(self) -> &'static LegacyMaterial {
        match self {
            LegacyKind::Volume => &BODY_MATERIAL,
            LegacyKind::Surface => &SURFACE_MATERIAL,
        }
    }

    /// The material API's name.
    pub(crate) fn material_api(self) -> &'static str {
        match self {
            LegacyKind::Volume => MATERIAL_APIS[0],
            LegacyKind::Surface => MATERIAL_APIS[1],
        }
    }

    /// Where this kind's rest points live.
    pub(crate) fn rest_points(self) -> &'static str {
        match self {
            LegacyKind::Volume => SIMULATION_REST_POINTS,
            LegacyKind::Surface => REST_POINTS,
        }
    }
}

/// The `PhysxPhysicsAttachment` prim: two actors and a point in each one's local
/// space per attached pair.
pub(crate) mod attachment {
    /// The prim type.
    pub const PRIM_TYPE: &str = "PhysxPhysicsAttachment";
    /// Fallback true.
    pub const ENABLED: &str = "attachmentEnabled";
    /// The two actors: a deformable, a rigid body, a collider, or none (the world).
    pub const ACTORS: [&str; 2] = ["actor0", "actor1"];
    /// Attachment points in each actor's local space (world space for the world).
    pub const POINTS: [&str; 2] = ["points0", "points1"];
    /// Elements of each actor whose contacts with the other are filtered.
    pub const FILTER_INDICES: [&str; 2] = ["collisionFilterIndices0", "collisionFilterIndices1"];
    /// What [`FILTER_INDICES`] index: `Vertices`, or `Geometry` (cells: a surface's
    /// triangles, a volume's collision tets).
    pub const FILTER_TYPES: [&str; 2] = ["filterType0", "filterType1"];
    /// The `Geometry` token of [`FILTER_TYPES`].
    pub const FILTER_GEOMETRY: &str = "Geometry";
    /// `PhysxAutoAttachmentAPI`: PhysX computes the attachment points itself.
    pub const AUTO_API: &str = "PhysxAutoAttachmentAPI";
    /// Attach deformable vertices that overlap the other actor (fallback true).
    pub const AUTO_VERTEX: &str = "physxAutoAttachment:enableDeformableVertexAttachments";
    /// How far outside the other actor a vertex still counts as overlapping.
    pub const AUTO_VERTEX_OFFSET: &str = "physxAutoAttachment:deformableVertexOverlapOffset";
    /// Filter contacts between the attached region and the other actor (fallback true).
    pub const AUTO_FILTERING: &str = "physxAutoAttachment:enableCollisionFiltering";
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name here is the schema's: read from the physxSchema definition the corpus
    /// holds, so a typo in this table fails.
    #[test]
    fn every_name_is_in_the_physx_schema() {
        let path =
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/schema-reference/physxSchema/schema.usda");
        let Ok(text) = std::fs::read_to_string(path) else {
            eprintln!("{path}: not here; skipped");
            return;
        };
        let mut names: Vec<&str> = read_attributes().collect();
        names.extend([attachment::PRIM_TYPE, attachment::AUTO_API, attachment::AUTO_VERTEX]);
        names.extend([attachment::AUTO_VERTEX_OFFSET, attachment::AUTO_FILTERING]);
        names.extend(BODY_APIS.iter().map(|(n, _)| *n));
        names.extend(MATERIAL_APIS);
        for name in names {
            // Schema text spells namespaced attributes in full, classes in quotes.
            assert!(text.contains(&format!(" {name} ")) || text.contains(&format!("\"{name}\"")), "{name}");
        }
    }
}
