//! The two spellings of the deformable schema: NVIDIA's `OmniPhysics*` schemas with
//! `omniphysics:` attributes and the AOUSD proposal's `Physics*` schemas with `physics:`
//! attributes. One table of names per spelling, shared by the importer, the exporter
//! (which writes state back under the input's names) and the validator.

/// Which spelling of the deformable schema a body uses. Both map onto one model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// NVIDIA's `OmniPhysics*` schema with `omniphysics:` attributes.
    Omni,
    /// The AOUSD proposal's `Physics*` schema with `physics:` attributes.
    Aousd,
}

/// Attribute (and pose API) names of one dialect.
pub(crate) struct Names {
    pub enabled: &'static str,
    pub kinematic: &'static str,
    pub asleep: &'static str,
    pub owner: &'static str,
    pub mass: &'static str,
    pub rest_points: &'static str,
    pub rest_tets: &'static str,
    pub rest_tris: &'static str,
    pub bend_default: &'static str,
    pub adj_pairs: &'static str,
    pub bend_angles: &'static str,
    pub pose_api: &'static str,
}

const OMNI_NAMES: Names = Names {
    enabled: "omniphysics:deformableBodyEnabled",
    kinematic: "omniphysics:kinematicEnabled",
    asleep: "omniphysics:startsAsleep",
    owner: "omniphysics:simulationOwner",
    mass: "omniphysics:mass",
    rest_points: "omniphysics:restShapePoints",
    rest_tets: "omniphysics:restTetVtxIndices",
    rest_tris: "omniphysics:restTriVtxIndices",
    bend_default: "omniphysics:restBendAnglesDefault",
    adj_pairs: "omniphysics:restAdjTriPairs",
    bend_angles: "omniphysics:restBendAngles",
    pose_api: "OmniPhysicsDeformablePoseAPI",
};

const AOUSD_NAMES: Names = Names {
    enabled: "physics:deformableBodyEnabled",
    kinematic: "physics:kinematicEnabled",
    asleep: "physics:startsAsleep",
    owner: "physics:simulationOwner",
    mass: "physics:mass",
    rest_points: "physics:restShapePoints",
    rest_tets: "physics:restTetVertexIndices",
    rest_tris: "physics:restTriVertexIndices",
    bend_default: "physics:restBendAnglesDefault",
    adj_pairs: "physics:restAdjTriPairs",
    bend_angles: "physics:restBendAngles",
    pose_api: "PhysicsDeformablePoseAPI",
};

impl Dialect {
    /// `restShapePoints` in this dialect.
    pub fn rest_points(self) -> &'static str {
        self.names().rest_points
    }

    /// The rest tetrahedron indices (`restTetVtxIndices` / `restTetVertexIndices`).
    pub fn rest_tets(self) -> &'static str {
        self.names().rest_tets
    }

    /// The rest triangle indices (`restTriVtxIndices` / `restTriVertexIndices`).
    pub fn rest_tris(self) -> &'static str {
        self.names().rest_tris
    }

    /// `restAdjTriPairs` in this dialect.
    pub fn adj_tri_pairs(self) -> &'static str {
        self.names().adj_pairs
    }

    /// `restBendAngles` (degrees) in this dialect.
    pub fn bend_angles(self) -> &'static str {
        self.names().bend_angles
    }

    /// Every name of this dialect.
    pub(crate) fn names(self) -> &'static Names {
        match self {
            Dialect::Omni => &OMNI_NAMES,
            Dialect::Aousd => &AOUSD_NAMES,
        }
    }

    /// Name of a pose attribute (`points` or `purposes`) of pose instance `instance`.
    pub(crate) fn pose_attr(self, instance: &str, leaf: &str) -> String {
        match self {
            Dialect::Omni => format!("deformablePose:{instance}:omniphysics:{leaf}"),
            Dialect::Aousd => format!("physics:deformablePose:{instance}:{leaf}"),
        }
    }
}
