//! Coulomb friction of the contacts, once per substep from each contact's accumulated
//! normal push, on the relative tangential motion of its vertices.

use super::contact::Contact;
use super::surfaces::Surfaces;
use crate::constraint::relative;
use crate::mesh::closest::point;
use glam::{DVec3, Vec3};

impl Surfaces {
    /// Coulomb friction on the substep's relative tangential motion of every contact
    /// that pushed.
    pub fn apply_friction(&self, contacts: &[Contact], x: &mut [DVec3], x_prev: &[DVec3], w: &[f32]) {
        let moved = |x: &[DVec3], i: u32| (x[i as usize] - x_prev[i as usize]).as_vec3();
        for c in contacts {
            if c.push <= 0.0 {
                continue;
            }
            if c.edge {
                let ids = self.edge_vertices(c);
                let Some((n, s, t, _)) = Self::evaluate_edge(c, relative(ids.map(|i| x[i as usize]))) else { continue };
                let coef = [1.0 - s, s, t - 1.0, -t];
                let rel: Vec3 = (0..4).map(|j| moved(x, ids[j]) * coef[j]).sum();
                let tangential = rel - n * n.dot(rel);
                let slip = tangential.length();
                if slip < 1e-12 {
                    continue;
                }
                let wi = ids.map(|i| w[i as usize]);
                let denom: f32 = (0..4).map(|j| coef[j] * coef[j] * wi[j]).sum();
                if denom <= f32::EPSILON {
                    continue;
                }
                let remove = coulomb(c, slip, denom);
                let dl = tangential * (remove / denom);
                for j in 0..4 {
                    x[ids[j] as usize] -= (dl * (wi[j] * coef[j])).as_dvec3();
                }
                continue;
            }
            let tri = self.triangles[c.triangle as usize];
            let vi = c.vertex as usize;
            let [p, t0, t1, t2] = relative([c.vertex, tri[0], tri[1], tri[2]].map(|i| x[i as usize]));
            let Some((n, bary, _)) = self.evaluate(c, p, [t0, t1, t2]) else { continue };
            let [m0, m1, m2] = tri.map(|i| moved(x, i));
            let rel = moved(x, c.vertex) - point(bary, m0, m1, m2);
            let tangential = rel - n * n.dot(rel);
            let slip = tangential.length();
            if slip < 1e-12 {
                continue;
            }
            let wt = [w[tri[0] as usize], w[tri[1] as usize], w[tri[2] as usize]];
            let denom = w[vi] + bary.x * bary.x * wt[0] + bary.y * bary.y * wt[1] + bary.z * bary.z * wt[2];
            if denom <= f32::EPSILON {
                continue;
            }
            let remove = coulomb(c, slip, denom);
            // Solve for the correction that cancels `remove` of the relative slip.
            let dl = tangential * (remove / denom);
            x[vi] -= (dl * w[vi]).as_dvec3();
            for k in 0..3 {
                x[tri[k] as usize] += (dl * (wt[k] * bary[k])).as_dvec3();
            }
        }
    }
}

/// The fraction of a contact's tangential slip that friction removes (Coulomb, as in
/// Macklin et al. 2014, "Unified Particle Physics for Real-Time Applications", §6.1).
/// `c.push` accumulates the normal multipliers `Δλ = −C / Σ wᵢ‖∇ᵢC‖²` (mass × distance);
/// cancelling a slip `s` takes a tangential multiplier `s / denom` with the same
/// generalised inverse mass `denom`, so the two compare as `s / denom ≤ μ_s · push`.
/// (Comparing the slip with `μ · push` directly mixed distance with mass × distance and,
/// for light vertices, left friction almost nothing to work with: a stack of jelly cubes
/// slid off itself.)
fn coulomb(c: &Contact, slip: f32, denom: f32) -> f32 {
    let [mu_s, mu_d] = c.friction;
    let normal = c.push * denom; // the normal correction as a distance
    if slip <= mu_s * normal {
        1.0
    } else {
        (mu_d * normal / slip).min(1.0)
    }
}
