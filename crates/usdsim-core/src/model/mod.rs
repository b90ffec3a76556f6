//! Material models and what they derive from the rest state: per-vertex masses, plastic
//! flow of rest shapes, and the spring-mass-damper model with its explicit integrators.

pub(crate) mod integrator;
pub(crate) mod mass;
pub(crate) mod plasticity;
pub(crate) mod spring_mass;
pub(crate) mod time_scheme;
