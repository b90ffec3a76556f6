//! Material parameters: elasticity, density, shell stiffness and friction, and the
//! plastic yield that our `usdsim:` extension adds.

/// A material assigned to some elements of a body (a `GeomSubset` binding), with what
/// our `usdsim:` extension adds to it: all of one material in one slot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaterialSlot {
    /// The elastic parameters.
    pub material: Material,
    /// Its plasticity; `None` is purely elastic.
    pub plastic: Option<Plasticity>,
    /// Its tear ratio; `None` never tears.
    pub tear_ratio: Option<f32>,
}

impl From<Material> for MaterialSlot {
    /// A purely elastic slot that never tears.
    fn from(material: Material) -> Self {
        Self { material, plastic: None, tear_ratio: None }
    }
}

/// Material parameters in stage units (already converted from SI defaults where the
/// asset left them unauthored).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Young's modulus, mass / (distance · s²).
    pub youngs_modulus: f32,
    /// Poisson's ratio, in [0, 0.5).
    pub poissons_ratio: f32,
    /// Density, mass / distance³.
    pub density: f32,
    /// Shell thickness (surface bodies), distance.
    pub thickness: f32,
    /// Membrane stretch stiffness (mass / s²); 0 means the thin-plate value E·h/(1−ν²).
    pub stretch_stiffness: f32,
    /// Membrane shear stiffness (mass / s²); 0 means the thin-plate value G·h.
    pub shear_stiffness: f32,
    /// Bending stiffness (mass · distance² / s²); 0 means the thin-plate value
    /// E·h³/(12(1−ν²)).
    pub bend_stiffness: f32,
    /// Coulomb dynamic friction coefficient against colliders.
    pub dynamic_friction: f32,
    /// Coulomb static friction coefficient against colliders.
    pub static_friction: f32,
    /// Stiffness-proportional (Rayleigh) damping time, seconds: PhysX's
    /// `elasticityDamping`. 0 disables it.
    pub damping: f32,
    /// Damping time of bending (hinges), seconds: PhysX's `bendDamping`. 0 disables it.
    pub bend_damping: f32,
}

impl Material {
    /// An isotropic elastic material with Young's modulus, Poisson's ratio and density
    /// (stage units); 1 mm shell thickness in metres-scale scenes, shell stiffnesses
    /// derived from E, ν and h, friction 0.5, no damping. What tests, benchmarks and
    /// generated scenes start from.
    pub fn elastic(youngs_modulus: f32, poissons_ratio: f32, density: f32) -> Self {
        Self {
            youngs_modulus,
            poissons_ratio,
            density,
            thickness: 1e-3,
            stretch_stiffness: 0.0,
            shear_stiffness: 0.0,
            bend_stiffness: 0.0,
            dynamic_friction: 0.5,
            static_friction: 0.5,
            damping: 0.0,
            bend_damping: 0.0,
        }
    }

    /// Thin-plate membrane and bending stiffnesses `(stretch, shear, bend)`, with authored
    /// (non-zero) values taking precedence (DESIGN.md, shell stiffness fallback).
    pub fn shell_stiffness(&self) -> (f32, f32, f32) {
        let e = self.youngs_modulus;
        let nu = self.poissons_ratio;
        let h = self.thickness;
        let pick = |authored: f32, derived: f32| if authored > 0.0 { authored } else { derived };
        (
            pick(self.stretch_stiffness, e * h / (1.0 - nu * nu)),
            pick(self.shear_stiffness, e * h / (2.0 * (1.0 + nu))),
            pick(self.bend_stiffness, e * h * h * h / (12.0 * (1.0 - nu * nu))),
        )
    }
}

/// Plasticity parameters of a material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plasticity {
    /// Principal stretch (or its inverse, in compression) beyond which deformation
    /// becomes permanent; `> 1`.
    pub yield_ratio: f32,
    /// Fraction of the excess that flows into the rest shape per application, in `[0, 1]`.
    pub rate: f32,
    /// Cap on the total plastic strain (rest stretch against the original rest shape), if
    /// any.
    pub max_strain: Option<f32>,
}
