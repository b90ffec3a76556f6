//! How the spring-mass-damper model advances in time (`--integrator`).
//!
//! XPBD (the default) treats every link as a compliant distance constraint, unconditionally
//! stable. The three force-based integrators of the spring-mass-damper notes
//! (`seeds/spring-mass-damper.txt`) evaluate Hooke's law and the damper as forces and are
//! only stable below a step set by the stiffest link (see
//! [`crate::model::spring_mass::SpringSystem::stable_step`]). Finite-element bodies always use XPBD.

use crate::model::spring_mass;

/// Time integration of spring-model bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Integrator {
    /// Links as compliant XPBD constraints (Macklin et al. 2016).
    #[default]
    Xpbd,
    /// Explicit (forward) Euler on forces.
    ExplicitEuler,
    /// Semi-implicit (symplectic) Euler on forces.
    SymplecticEuler,
    /// Classic fourth-order Runge-Kutta on forces.
    Rk4,
}

impl Integrator {
    /// The force-based integrator this names, `None` for XPBD.
    pub fn force_based(self) -> Option<spring_mass::ForceIntegrator> {
        match self {
            Integrator::Xpbd => None,
            Integrator::ExplicitEuler => Some(spring_mass::ForceIntegrator::ExplicitEuler),
            Integrator::SymplecticEuler => Some(spring_mass::ForceIntegrator::SymplecticEuler),
            Integrator::Rk4 => Some(spring_mass::ForceIntegrator::Rk4),
        }
    }
}
