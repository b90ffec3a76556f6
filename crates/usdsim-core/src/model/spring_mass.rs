//! The classic spring-mass-damper model with explicit integrators.
//!
//! From the spring-mass-damper notes (`seeds/spring-mass-damper.txt`): particles joined by
//! links obeying Hooke's law `F = ks·(dist − len)` along the link, with a damper
//! `kd·(relative velocity along the link)`, plus gravity; Newton's `F = m·a` integrated
//! with explicit Euler, semi-implicit (symplectic) Euler or classic fourth-order
//! Runge-Kutta. Links come from a mesh: its edges (structural), the far corners of each
//! pair of adjacent triangles (shear: across a quad's other diagonal), and vertex pairs
//! two steps apart along a nearly straight line through a common neighbour (bend).
//!
//! The state is kept in double precision: explicit integrators are the reference the
//! XPBD solver is compared with, and their convergence order must be measurable.

use crate::scene::LinkKinds;
use glam::DVec3;
use std::collections::{BTreeSet, HashMap};

/// How a force-based spring system advances positions and velocities over one step (the
/// force-based choices of the public [`crate::Integrator`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForceIntegrator {
    /// `x += v·dt; v += a(x, v)·dt` with forces from the start of the step. Adds energy
    /// to any undamped oscillation: unstable without enough damping.
    ExplicitEuler,
    /// `v += a(x, v)·dt; x += v·dt` (semi-implicit). Symplectic: energy stays bounded
    /// for `dt < 2/ω`.
    SymplecticEuler,
    /// Classic fourth-order Runge-Kutta on `(x, v)`. Stable for `ω·dt` up to about 2.8.
    Rk4,
}

/// A spring-damper between two particles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// The two particle indices.
    pub ends: [u32; 2],
    /// Rest length.
    pub rest: f64,
    /// Hooke stiffness `ks` (force per length).
    pub stiffness: f64,
    /// Damping `kd` along the link (force per speed).
    pub damping: f64,
}

/// Vertex pairs for each link family of a mesh given as triangles (and, for volumes,
/// tetrahedra: pass their four faces as triangles). Shear links cross each quad made of
/// two triangles whose shared edge is the longest of both (a triangulated quad's
/// diagonal). Pairs are sorted and unique within and across families (a pair that is
/// already an edge is not added again).
pub fn link_pairs(points: &[DVec3], triangles: &[[u32; 3]], kinds: LinkKinds) -> Vec<[u32; 2]> {
    let key = |a: u32, b: u32| [a.min(b), a.max(b)];
    let mut edges: BTreeSet<[u32; 2]> = BTreeSet::new();
    let mut opposite: HashMap<[u32; 2], Vec<u32>> = HashMap::new();
    for t in triangles {
        for k in 0..3 {
            let e = key(t[k], t[(k + 1) % 3]);
            edges.insert(e);
            opposite.entry(e).or_default().push(t[(k + 2) % 3]);
        }
    }
    let mut out: BTreeSet<[u32; 2]> = BTreeSet::new();
    if kinds.structural {
        out.extend(edges.iter().copied());
    }
    if kinds.shear {
        // A quad's diagonal is the longest edge of both triangles that share it; the
        // shear link joins the quad's other two corners.
        let longest_in = |e: [u32; 2], far: u32| {
            let len = |a: u32, b: u32| points[a as usize].distance(points[b as usize]);
            let d = len(e[0], e[1]);
            d >= len(e[0], far) && d >= len(e[1], far)
        };
        for (&e, far) in &opposite {
            if let [a, b] = far[..] {
                let pair = key(a, b);
                if a != b && longest_in(e, a) && longest_in(e, b) && !edges.contains(&pair) {
                    out.insert(pair);
                }
            }
        }
    }
    if kinds.bend {
        let mut neighbours: HashMap<u32, Vec<u32>> = HashMap::new();
        for &[a, b] in &edges {
            neighbours.entry(a).or_default().push(b);
            neighbours.entry(b).or_default().push(a);
        }
        for (&j, ns) in &neighbours {
            for (x, &i) in ns.iter().enumerate() {
                for &k in &ns[x + 1..] {
                    let (a, b) = (points[i as usize] - points[j as usize], points[k as usize] - points[j as usize]);
                    // Nearly straight through j: the angle i-j-k exceeds 150°.
                    let straight =
                        a.normalize_or_zero().dot(b.normalize_or_zero()) < -(150f64.to_radians().cos().abs());
                    if straight && !edges.contains(&key(i, k)) {
                        out.insert(key(i, k));
                    }
                }
            }
        }
    }
    out.into_iter().collect()
}

/// Work arrays of [`SpringSystem::step_with`], kept between steps.
#[derive(Clone, Debug, Default)]
pub struct StepScratch {
    a: Vec<DVec3>,
    kx: [Vec<DVec3>; 4],
    kv: [Vec<DVec3>; 4],
    x0: Vec<DVec3>,
    v0: Vec<DVec3>,
    xs: Vec<DVec3>,
    vs: Vec<DVec3>,
}

/// Particles and links.
#[derive(Clone, Debug)]
pub struct SpringSystem {
    /// Positions.
    pub x: Vec<DVec3>,
    /// Velocities.
    pub v: Vec<DVec3>,
    /// Masses; a particle with zero mass is fixed.
    pub mass: Vec<f64>,
    /// The links.
    pub links: Vec<Link>,
    /// Gravitational acceleration.
    pub gravity: DVec3,
}

impl SpringSystem {
    /// Accelerations of every particle at state `(x, v)`; fixed particles get zero.
    pub fn accelerations(&self, x: &[DVec3], v: &[DVec3], out: &mut [DVec3]) {
        for (i, a) in out.iter_mut().enumerate() {
            *a = if self.mass[i] > 0.0 { self.gravity } else { DVec3::ZERO };
        }
        for link in &self.links {
            let [i, j] = link.ends.map(|e| e as usize);
            let d = x[j] - x[i];
            let dist = d.length();
            if dist < 1e-300 {
                continue;
            }
            let dir = d / dist;
            // Hooke's law plus the damper along the link (seed: F = ks(dist − len) − kd v).
            let magnitude = link.stiffness * (dist - link.rest) + link.damping * (v[j] - v[i]).dot(dir);
            let f = dir * magnitude;
            if self.mass[i] > 0.0 {
                out[i] += f / self.mass[i];
            }
            if self.mass[j] > 0.0 {
                out[j] -= f / self.mass[j];
            }
        }
    }

    /// Advances the state by `dt` with `integrator` (the unit tests' entry point; the
    /// solver calls [`SpringSystem::step_with`]).
    #[cfg(test)]
    pub fn step(&mut self, integrator: ForceIntegrator, dt: f64) {
        self.step_with(integrator, dt, &mut StepScratch::default());
    }

    /// [`SpringSystem::step`] with caller-owned work arrays, so that a caller stepping
    /// every substep (the solver's force-integrated bodies) allocates nothing.
    // Several parallel arrays are indexed together; index loops read like the maths.
    #[allow(clippy::needless_range_loop)]
    pub fn step_with(&mut self, integrator: ForceIntegrator, dt: f64, scratch: &mut StepScratch) {
        let n = self.x.len();
        let StepScratch { a, kx, kv, x0, v0, xs, vs } = scratch;
        a.clear();
        a.resize(n, DVec3::ZERO);
        match integrator {
            ForceIntegrator::ExplicitEuler => {
                self.accelerations(&self.x, &self.v, a);
                for i in 0..n {
                    self.x[i] += self.v[i] * dt;
                    self.v[i] += a[i] * dt;
                }
            }
            ForceIntegrator::SymplecticEuler => {
                self.accelerations(&self.x, &self.v, a);
                for i in 0..n {
                    self.v[i] += a[i] * dt;
                    self.x[i] += self.v[i] * dt;
                }
            }
            ForceIntegrator::Rk4 => {
                // k_s = (dx, dv) derivatives at the four classic stages.
                for k in kx.iter_mut().chain(kv.iter_mut()) {
                    k.clear();
                    k.resize(n, DVec3::ZERO);
                }
                for (buf, from) in [(&mut *x0, &self.x), (&mut *v0, &self.v), (&mut *xs, &self.x), (&mut *vs, &self.v)]
                {
                    buf.clear();
                    buf.extend_from_slice(from);
                }
                for stage in 0..4 {
                    self.accelerations(xs, vs, a);
                    kx[stage].copy_from_slice(vs);
                    kv[stage].copy_from_slice(a);
                    if stage < 3 {
                        let h = if stage == 2 { dt } else { 0.5 * dt };
                        for i in 0..n {
                            xs[i] = x0[i] + kx[stage][i] * h;
                            vs[i] = v0[i] + kv[stage][i] * h;
                        }
                    }
                }
                for i in 0..n {
                    self.x[i] = x0[i] + (kx[0][i] + 2.0 * kx[1][i] + 2.0 * kx[2][i] + kx[3][i]) * (dt / 6.0);
                    self.v[i] = v0[i] + (kv[0][i] + 2.0 * kv[1][i] + 2.0 * kv[2][i] + kv[3][i]) * (dt / 6.0);
                }
            }
        }
    }

    /// Kinetic energy plus spring and gravitational potential energy.
    #[cfg(test)]
    pub fn energy(&self) -> f64 {
        let kinetic: f64 = self.v.iter().zip(&self.mass).map(|(v, m)| 0.5 * m * v.length_squared()).sum();
        let springs: f64 = self
            .links
            .iter()
            .map(|l| {
                let [i, j] = l.ends.map(|e| e as usize);
                0.5 * l.stiffness * (self.x[j].distance(self.x[i]) - l.rest).powi(2)
            })
            .sum();
        let gravity: f64 = self.x.iter().zip(&self.mass).map(|(x, m)| -m * self.gravity.dot(*x)).sum();
        kinetic + springs + gravity
    }

    /// An upper bound on the system's highest angular frequency: Gershgorin's circle
    /// theorem on the mass-scaled stiffness `M^(−½)·K·M^(−½)`, whose row `i` sums
    /// `ks·(1/mᵢ + 1/√(mᵢmⱼ))` over the links at `i` (each link's tangent stiffness is at
    /// most `ks` in norm; a fixed end, mass 0, is no degree of freedom). One link's
    /// `√(ks·(1/m₁ + 1/m₂))` is not enough: a cloth vertex with eight links swings
    /// faster than any of them alone (a 20² cloth diverged at the per-link bound).
    pub fn max_frequency(&self) -> f64 {
        let mut row = vec![0.0f64; self.mass.len()];
        for l in &self.links {
            let [i, j] = l.ends.map(|e| e as usize);
            let (mi, mj) = (self.mass[i], self.mass[j]);
            let coupling = if mi > 0.0 && mj > 0.0 { l.stiffness / (mi * mj).sqrt() } else { 0.0 };
            if mi > 0.0 {
                row[i] += l.stiffness / mi + coupling;
            }
            if mj > 0.0 {
                row[j] += l.stiffness / mj + coupling;
            }
        }
        row.iter().copied().fold(0.0, f64::max).sqrt()
    }

    /// The largest stable step for `integrator`, or `None` when no step is stable
    /// (explicit Euler without damping). Each link's damper is `kd/ks` times its spring,
    /// so a mode of frequency `ω` has damping `2ζω = (kd/ks)·ω²` (Rayleigh damping);
    /// the bounds are those of the linear test equation at the highest frequency
    /// [`SpringSystem::max_frequency`]:
    /// explicit Euler `h < kd/ks` for underdamped modes (`|1 + λh| < 1` with
    /// `λ = −ζω ± iω√(1−ζ²)`) and `h < 2/|λ|` for overdamped ones; symplectic Euler
    /// `h < 2/(ω(ζ + √(ζ²+1)))` (Jury's test on its characteristic polynomial
    /// `z² − (2 − 2ζωh − ω²h²)z + 1 − 2ζωh`); RK4 `h < 2√2/ω` undamped, `h < 2.78/|λ|`
    /// on the real axis.
    pub fn stable_step(&self, integrator: ForceIntegrator) -> Option<f64> {
        let omega = self.max_frequency();
        let ratios = self.links.iter().map(|l| l.damping / l.stiffness);
        let (r_min, r_max) = ratios.fold((f64::INFINITY, 0.0f64), |(lo, hi), r| (lo.min(r), hi.max(r)));
        if omega <= 0.0 {
            return Some(f64::INFINITY);
        }
        let zeta = 0.5 * r_max * omega;
        // The fastest decay rate of an overdamped mode, |λ| = ω(ζ + √(ζ² − 1)).
        let overdamped = (zeta >= 1.0).then(|| omega * (zeta + (zeta * zeta - 1.0).sqrt()));
        match integrator {
            ForceIntegrator::ExplicitEuler => {
                (r_min > 0.0).then(|| overdamped.map_or(r_min, |lambda| r_min.min(2.0 / lambda)))
            }
            ForceIntegrator::SymplecticEuler => Some(2.0 / (omega * (zeta + (zeta * zeta + 1.0).sqrt()))),
            ForceIntegrator::Rk4 => {
                let undamped = 2.0 * 2f64.sqrt() / omega;
                Some(overdamped.map_or(undamped, |lambda| undamped.min(2.78 / lambda)))
            }
        }
    }
}

/// Plastic flow of links, after the tearing-and-plasticity article: a link longer than
/// `yield_ratio × rest` moves its rest length toward its current length by `rate` times the
/// excess (`rest += rate·(length − rest)`), never beyond `max_strain` of its original rest
/// length when a cap is given. `original[i]` is link `i`'s rest length before any flow.
pub fn apply_plasticity(
    links: &mut [Link],
    x: &[DVec3],
    original: &[f64],
    yield_ratio: f64,
    rate: f64,
    max_strain: Option<f64>,
) {
    for (link, &rest0) in links.iter_mut().zip(original) {
        let [i, j] = link.ends.map(|e| e as usize);
        let length = x[i].distance(x[j]);
        if length > yield_ratio * link.rest {
            let mut rest = link.rest + rate * (length - link.rest);
            if let Some(cap) = max_strain {
                rest = rest.min(rest0 * (1.0 + cap));
            }
            link.rest = rest;
        }
    }
}

/// Removes every link longer than `ratio × rest` (the article's tearing criterion; 1.8
/// tears at 180 %) and returns how many broke. Order of the survivors is kept. The
/// article's rule as a reference for the tests; the solver tears links in
/// `solver/springs.rs`.
#[cfg(test)]
pub fn tear_links(links: &mut Vec<Link>, x: &[DVec3], ratio: f64) -> usize {
    let before = links.len();
    links.retain(|l| {
        let [i, j] = l.ends.map(|e| e as usize);
        x[i].distance(x[j]) <= ratio * l.rest
    });
    before - links.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One particle of mass m on a spring to a fixed anchor, no gravity: x(t) of the
    /// damped oscillator from rest at x₀.
    fn oscillator(k: f64, c: f64, m: f64, x0: f64) -> SpringSystem {
        SpringSystem {
            x: vec![DVec3::ZERO, DVec3::new(1.0 + x0, 0.0, 0.0)],
            v: vec![DVec3::ZERO; 2],
            mass: vec![0.0, m],
            links: vec![Link { ends: [0, 1], rest: 1.0, stiffness: k, damping: c }],
            gravity: DVec3::ZERO,
        }
    }

    fn analytic(k: f64, c: f64, m: f64, x0: f64, t: f64) -> f64 {
        let omega0 = (k / m).sqrt();
        let zeta = c / (2.0 * (k * m).sqrt());
        let omega_d = omega0 * (1.0 - zeta * zeta).sqrt();
        let decay = (-zeta * omega0 * t).exp();
        x0 * decay * ((omega_d * t).cos() + zeta * omega0 / omega_d * (omega_d * t).sin())
    }

    fn run(integrator: ForceIntegrator, dt: f64, t_end: f64, k: f64, c: f64) -> f64 {
        let mut s = oscillator(k, c, 1.0, 0.1);
        let steps = (t_end / dt).round() as usize;
        for _ in 0..steps {
            s.step(integrator, dt);
        }
        s.x[1].x - 1.0
    }

    #[test]
    fn damped_oscillator_matches_the_analytic_period_and_decay() {
        let (k, c) = (4.0 * std::f64::consts::PI.powi(2), 0.4); // ω₀ = 2π: period 1 s
        for t in [0.25, 0.5, 1.0, 2.5] {
            let got = run(ForceIntegrator::Rk4, 1e-3, t, k, c);
            let want = analytic(k, c, 1.0, 0.1, t);
            assert!((got - want).abs() < 1e-8, "t = {t}: {got} vs {want}");
        }
        // Semi-implicit Euler with a small step is close too (first order).
        let got = run(ForceIntegrator::SymplecticEuler, 1e-4, 1.0, k, c);
        assert!((got - analytic(k, c, 1.0, 0.1, 1.0)).abs() < 1e-3);
    }

    /// Largest deviation from the analytic solution over two periods.
    fn max_error(integrator: ForceIntegrator, dt: f64, k: f64, c: f64) -> f64 {
        let mut s = oscillator(k, c, 1.0, 0.1);
        let steps = (2.0 / dt).round() as usize;
        (1..=steps)
            .map(|n| {
                s.step(integrator, dt);
                (s.x[1].x - 1.0 - analytic(k, c, 1.0, 0.1, n as f64 * dt)).abs()
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn rk4_converges_at_fourth_order() {
        let (k, c) = (4.0 * std::f64::consts::PI.powi(2), 0.4);
        let errors: Vec<f64> =
            [0.02, 0.01, 0.005].iter().map(|&dt| max_error(ForceIntegrator::Rk4, dt, k, c)).collect();
        for w in errors.windows(2) {
            let order = (w[0] / w[1]).log2();
            assert!((3.7..4.3).contains(&order), "halving dt reduced the error by 2^{order:.2} ({errors:?})");
        }
        // And semi-implicit Euler is first order.
        let errors: Vec<f64> =
            [0.002, 0.001].iter().map(|&dt| max_error(ForceIntegrator::SymplecticEuler, dt, k, c)).collect();
        let order = (errors[0] / errors[1]).log2();
        assert!((0.8..1.2).contains(&order), "semi-implicit Euler order {order:.2}");
    }

    #[test]
    fn symplectic_euler_keeps_energy_bounded_and_explicit_euler_does_not() {
        let k = 4.0 * std::f64::consts::PI.powi(2);
        let dt = 0.01; // ω·dt = 0.063, well inside the symplectic limit
        let mut sym = oscillator(k, 0.0, 1.0, 0.1);
        let mut exp = sym.clone();
        let e0 = sym.energy();
        let mut worst = 0.0f64;
        for _ in 0..10_000 {
            sym.step(ForceIntegrator::SymplecticEuler, dt);
            exp.step(ForceIntegrator::ExplicitEuler, dt);
            worst = worst.max((sym.energy() - e0).abs() / e0);
        }
        assert!(worst < 0.05, "semi-implicit Euler energy drifted by {:.1}%", 100.0 * worst);
        assert!(exp.energy() > 10.0 * e0, "explicit Euler should gain energy: {} vs {e0}", exp.energy());
    }

    #[test]
    fn stable_step_follows_the_stiffest_link() {
        let s = oscillator(100.0, 0.0, 1.0, 0.1);
        assert!((s.max_frequency() - 10.0).abs() < 1e-12);
        assert_eq!(s.stable_step(ForceIntegrator::SymplecticEuler), Some(0.2));
        assert_eq!(s.stable_step(ForceIntegrator::ExplicitEuler), None);
        // Past the limit semi-implicit Euler blows up; just inside it stays bounded.
        for (dt, bounded) in [(0.19, true), (0.21, false)] {
            let mut t = s.clone();
            for _ in 0..2000 {
                t.step(ForceIntegrator::SymplecticEuler, dt);
            }
            assert_eq!(t.x[1].x.abs() < 10.0, bounded, "dt = {dt}");
        }
    }

    fn stretched(length: f64) -> (Vec<Link>, Vec<DVec3>) {
        let link = Link { ends: [0, 1], rest: 1.0, stiffness: 1.0, damping: 0.0 };
        (vec![link], vec![DVec3::ZERO, DVec3::new(length, 0.0, 0.0)])
    }

    #[test]
    fn links_flow_plastically_only_past_the_yield() {
        let (mut links, x) = stretched(1.05);
        apply_plasticity(&mut links, &x, &[1.0], 1.1, 0.5, None);
        assert_eq!(links[0].rest, 1.0, "below yield the rest length is untouched");
        let (mut links, x) = stretched(1.5);
        apply_plasticity(&mut links, &x, &[1.0], 1.1, 0.5, None);
        assert!((links[0].rest - 1.25).abs() < 1e-12, "rest += 0.5 × (1.5 − 1): {}", links[0].rest);
        // Repeated flow approaches the held length; the cap stops it at 10 % strain.
        let (mut links, x) = stretched(1.5);
        for _ in 0..50 {
            apply_plasticity(&mut links, &x, &[1.0], 1.1, 0.5, Some(0.1));
        }
        assert!((links[0].rest - 1.1).abs() < 1e-12, "capped at 1.1: {}", links[0].rest);
    }

    #[test]
    fn links_tear_past_the_ratio_and_not_below() {
        let (mut links, x) = stretched(1.79);
        assert_eq!(tear_links(&mut links, &x, 1.8), 0);
        assert_eq!(links.len(), 1);
        let (mut links, x) = stretched(1.81);
        assert_eq!(tear_links(&mut links, &x, 1.8), 1);
        assert!(links.is_empty());
    }

    #[test]
    fn links_of_a_quad_grid() {
        // 3×3 grid, two triangles per quad.
        let points: Vec<DVec3> = (0..9).map(|i| DVec3::new((i % 3) as f64, (i / 3) as f64, 0.0)).collect();
        let mut tris = vec![];
        for j in 0..2u32 {
            for i in 0..2u32 {
                let a = i + 3 * j;
                tris.push([a, a + 1, a + 4]);
                tris.push([a, a + 4, a + 3]);
            }
        }
        let only = |s, sh, b| link_pairs(&points, &tris, LinkKinds { structural: s, shear: sh, bend: b });
        assert_eq!(only(true, false, false).len(), 16, "12 grid edges + 4 diagonals");
        assert_eq!(only(false, true, false), vec![[1, 3], [2, 4], [4, 6], [5, 7]], "the other diagonal of each quad");
        // Bend: straight lines two apart through the middle row/column (and the diagonal
        // 0-4-8 is an edge chain too).
        let bend = only(false, false, true);
        for pair in [[0, 2], [3, 5], [6, 8], [0, 6], [1, 7], [2, 8], [0, 8]] {
            assert!(bend.contains(&pair), "missing bend link {pair:?} in {bend:?}");
        }
    }
}
