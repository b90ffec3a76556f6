//! One deformable body: its mesh, rest shape, materials, pose data, and the model and
//! options that say how it moves.

use glam::Vec3;

use super::{Material, MaterialSlot, Plasticity};

/// Whether a body is a tetrahedral volume or a triangle surface (cloth, shell).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// `TetMesh` with the volume simulation API.
    Volume,
    /// Triangle `Mesh` with the surface simulation API.
    Surface,
}

/// How dihedral rest angles that are not listed explicitly are chosen (schema:
/// `restBendAnglesDefault`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BendDefault {
    /// Rest angle zero: the surface wants to be flat (`flatDefault`).
    #[default]
    Flat,
    /// Rest angle taken from the rest shape's triangle normals (`restShapeDefault`).
    RestShape,
}

/// One deformable body.
#[derive(Clone, Debug)]
pub struct Body {
    /// A name for messages (the importer uses the simulation mesh's prim path).
    pub name: String,
    /// Volume or surface.
    pub kind: BodyKind,
    /// Initial vertex positions, world space.
    pub positions: Vec<Vec3>,
    /// Initial vertex velocities, world space (same length as `positions`).
    pub velocities: Vec<Vec3>,
    /// Simulation tetrahedra (volume bodies only).
    pub tets: Vec<[u32; 4]>,
    /// Simulation triangles (surface bodies only).
    pub triangles: Vec<[u32; 3]>,
    /// Rest-shape points, world space. May differ in count and topology from `positions`
    /// (the schema's `restShapePoints`); element `i`'s rest shape is
    /// `rest_points[rest_elements[i][k]]`.
    pub rest_points: Vec<Vec3>,
    /// Per-element rest-shape indices into `rest_points`: one entry per tet (all four used)
    /// or per triangle (first three used; the fourth is ignored). Same length as `tets`
    /// or `triangles`.
    pub rest_elements: Vec<[u32; 4]>,
    /// Default dihedral rest angle rule (surface bodies).
    pub bend_default: BendDefault,
    /// Explicit dihedral rest angles: pair of adjacent triangle indices and the angle in
    /// radians (schema: `restAdjTriPairs` + `restBendAngles`, converted from degrees).
    pub bend_overrides: Vec<([u32; 2], f32)>,
    /// Physical material.
    pub material: Material,
    /// Total mass override in stage mass units (`omniphysics:mass` > 0), or `None` to
    /// derive mass from density and rest volume.
    pub mass_override: Option<f32>,
    /// Plasticity of [`Body::material`] (see `model/plasticity.rs`); `None` is purely
    /// elastic. Applies to tetrahedra only: surface bodies ignore it for now.
    ///
    /// Kept beside the material rather than in [`Material`] so that `Material` stays a
    /// plain elastic parameter set.
    pub plastic: Option<Plasticity>,
    /// Extra materials for per-element assignment (`GeomSubset` bindings), each with its
    /// own plasticity and tear ratio. Empty when the whole body uses [`Body::material`].
    pub materials: Vec<MaterialSlot>,
    /// Per-element material: `None` (`u32::MAX`) or an index into [`Body::materials`],
    /// one entry per tet or triangle. Empty means every element uses [`Body::material`].
    pub element_materials: Vec<u32>,
    /// Authored per-vertex masses (AOUSD `physics:masses`); take precedence over density
    /// (and are then rescaled by `mass_override` when both are given). Empty when unset.
    pub point_masses: Vec<f32>,
    /// The simulation mesh's bind pose, world space (the `bindPose` of the deformable
    /// pose API, else the initial points): the pose embedded meshes are bound in. Empty
    /// means `positions`.
    pub bind_pose: Vec<Vec3>,
    /// The self-collision filter pose (the pose API instance with purpose
    /// `selfCollisionFilterPose`), world space: pairs of the body that overlap in it never
    /// collide with each other. Empty when unset, and the schema then filters in the
    /// initial `positions`.
    pub self_collision_filter_pose: Vec<Vec3>,
    /// How close two parts of the body must be in the filter pose not to collide with each
    /// other (PhysX's `physxDeformableBody:selfCollisionFilterDistance`, stage units);
    /// `None` is their contact thickness plus the search margin.
    pub self_collision_filter_distance: Option<f32>,
    /// The asset asks for the body to collide with itself (PhysX's
    /// `physxDeformableBody:selfCollision`, off unless authored, as in that schema);
    /// [`crate::Settings::self_contact`] may override it for every body.
    pub self_collision: bool,
    /// Kinematic: the body follows targets given with
    /// [`crate::Solver::set_kinematic_targets`] exactly and has infinite mass.
    pub kinematic: bool,
    /// Starts asleep: frozen in place until [`crate::Solver::wake`] (see the solver docs).
    pub starts_asleep: bool,
    /// Gravity of the physics scene that owns this body; `None` means [`crate::Scene::gravity`].
    pub gravity: Option<Vec3>,
    /// Constitutive model: finite elements (the schema's) or a spring-mass-damper
    /// network (our `usdsim:model`).
    pub model: Model,
    /// Tear ratio of [`Body::material`] (`usdsim:tearRatio`): an element edge or link
    /// longer than this times its rest length breaks; `None` never tears.
    pub tear_ratio: Option<f32>,
    /// Damping of every vertex's velocity (1/s): `dv/dt = −c·v`, applied exactly
    /// (`v ← v·e^(−c·dt)`) after each substep. PhysX's legacy
    /// `physxDeformable:vertexVelocityDamping`, which that runtime applies at 0.005
    /// even when unauthored; 0 (the schema's bodies) leaves velocities untouched.
    pub velocity_damping: f32,
}

/// The constitutive model of a body (`usdsim:model`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Model {
    /// Finite elements: Neo-Hookean tetrahedra or membrane triangles plus hinges.
    #[default]
    Fem,
    /// A spring-mass-damper network built from the mesh (`seeds/spring-mass-damper.txt`).
    Springs(Springs),
}

/// Parameters of the spring-mass-damper model (`UsdsimBodyAPI`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Springs {
    /// Hooke stiffness `ks` of every link (mass / s²); 0 derives it from the material:
    /// `E·h` for a surface link, `E·L` for a volume link of rest length `L` (the stiffness
    /// of a square or cubic lattice of such links).
    pub stiffness: f32,
    /// Damping `kd` along every link (mass / s).
    pub damping: f32,
    /// Which links to build.
    pub links: LinkKinds,
}

impl Default for Springs {
    fn default() -> Self {
        Self { stiffness: 0.0, damping: 0.0, links: LinkKinds { structural: true, shear: true, bend: true } }
    }
}

/// "No per-element material": the element uses [`Body::material`].
pub const BODY_MATERIAL: u32 = u32::MAX;

impl Body {
    /// A body with the given geometry, everything optional left at its default
    /// (no per-element materials, dynamic, awake, scene gravity).
    pub fn new(name: impl Into<String>, kind: BodyKind, positions: Vec<Vec3>, material: Material) -> Body {
        Body {
            name: name.into(),
            kind,
            velocities: vec![Vec3::ZERO; positions.len()],
            rest_points: positions.clone(),
            positions,
            tets: Vec::new(),
            triangles: Vec::new(),
            rest_elements: Vec::new(),
            bend_default: BendDefault::Flat,
            bend_overrides: Vec::new(),
            material,
            mass_override: None,
            plastic: None,
            materials: Vec::new(),
            element_materials: Vec::new(),
            point_masses: Vec::new(),
            bind_pose: Vec::new(),
            self_collision_filter_pose: Vec::new(),
            self_collision_filter_distance: None,
            self_collision: false,
            kinematic: false,
            starts_asleep: false,
            gravity: None,
            model: Model::Fem,
            tear_ratio: None,
            velocity_damping: 0.0,
        }
    }

    /// Number of elements (tets for volume bodies, triangles for surfaces).
    pub fn element_count(&self) -> usize {
        match self.kind {
            BodyKind::Volume => self.tets.len(),
            BodyKind::Surface => self.triangles.len(),
        }
    }

    /// The material of element `i` (per-element assignment, else the body's).
    pub fn element_material(&self, i: usize) -> &Material {
        match self.element_materials.get(i) {
            Some(&m) if m != BODY_MATERIAL => &self.materials[m as usize].material,
            _ => &self.material,
        }
    }

    /// The plasticity of element `i`'s material (per-element assignment, else the
    /// body's), `None` when it is purely elastic.
    pub fn element_plasticity(&self, i: usize) -> Option<Plasticity> {
        match self.element_materials.get(i) {
            Some(&m) if m != BODY_MATERIAL => self.materials[m as usize].plastic,
            _ => self.plastic,
        }
    }

    /// The tear ratio of element `i`'s material (per-element assignment, else the
    /// body's), `None` when it never tears.
    pub fn element_tear_ratio(&self, i: usize) -> Option<f32> {
        match self.element_materials.get(i) {
            Some(&m) if m != BODY_MATERIAL => self.materials[m as usize].tear_ratio,
            _ => self.tear_ratio,
        }
    }

    /// Gives the body's material and every per-element material the same tear ratio (the
    /// command line's whole-scene override).
    pub fn set_tear_ratio(&mut self, ratio: Option<f32>) {
        self.tear_ratio = ratio;
        self.materials.iter_mut().for_each(|slot| slot.tear_ratio = ratio);
    }

    /// Gives the body's material and every per-element material the same plasticity
    /// (the command line's whole-scene override).
    pub fn set_plasticity(&mut self, plastic: Option<Plasticity>) {
        self.plastic = plastic;
        self.materials.iter_mut().for_each(|slot| slot.plastic = plastic);
    }

    /// The bind pose of the simulation mesh (falls back to the initial positions).
    pub fn bind_positions(&self) -> &[Vec3] {
        if self.bind_pose.len() == self.positions.len() {
            &self.bind_pose
        } else {
            &self.positions
        }
    }
}

/// Which families of links to build from a mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkKinds {
    /// Mesh edges.
    pub structural: bool,
    /// Far corners of adjacent triangles.
    pub shear: bool,
    /// Vertices two steps apart along a nearly straight line.
    pub bend: bool,
}
