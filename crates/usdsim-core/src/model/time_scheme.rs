//! How the XPBD bodies advance in time (`--time-scheme`): the discretisation of
//! `M·ẍ = f(x, ẋ)` each substep solves with its constraint iterations.
//!
//! Implicit Euler, XPBD's own step (Macklin et al. 2016), is first order: its numerical
//! damping takes energy out of every motion in proportion to the substep, which at the
//! CLI's 20 substeps was the largest error left in the bench cloth's swing. The
//! second-order backward differentiation formula (BDF2) keeps the same solve: with
//! `h = 2·dt/3` it is implicit Euler from the inertial target
//! `y = (4x_n − x_{n−1})/3 + h·(4v_n − v_{n−1})/3 + h²·g`, and the velocity is
//! `(x_{n+1} − (4x_n − x_{n−1})/3) / h` (Hairer & Wanner, "Solving Ordinary Differential
//! Equations II", §V.1; used in position form by Projective Dynamics, Bouaziz et al. 2014,
//! and by Liu et al. 2017, "Quasi-Newton Methods for Real-Time Simulation of Hyperelastic
//! Materials"). It is A-stable and damps stiff modes as implicit Euler does, but its
//! error in the slow motion is `O(dt²)`.
//!
//! BDF2 needs the step before; where that history would be wrong the solver takes
//! implicit Euler steps instead, through the same solve: the first substep, any
//! substep of a scene with rigid bodies (rapier integrates those in its own first-order
//! step, and the two must exchange momentum at one step length), and per vertex the
//! substep a contact touches it and the one after (a contact's velocity jump would
//! otherwise be extrapolated into the next step as a bounce).

/// Time discretisation of the XPBD bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TimeScheme {
    /// Second-order backward differentiation (BDF2), with implicit Euler where the
    /// history is missing or broken (see the module docs).
    #[default]
    Bdf2,
    /// Implicit Euler every substep: XPBD as published, first order.
    ImplicitEuler,
}

/// `h / dt` of a BDF2 substep: its solve is an implicit Euler solve of this length.
pub const BDF2_STEP_RATIO: f32 = 2.0 / 3.0;

/// How much lighter an implicit Euler vertex is made in a BDF2 substep's solve, as a
/// factor on its inverse mass: `(dt / h)²`. Its equation `m(x − y)/dt² = f` is the
/// BDF2 solve's `m'(x − y)/h² = f` with `m' = m·(h/dt)²`.
pub const EULER_IN_BDF2_INVERSE_MASS: f32 = 1.0 / (BDF2_STEP_RATIO * BDF2_STEP_RATIO);
