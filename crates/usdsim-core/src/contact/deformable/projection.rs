//! Projection of the contacts inside the solver iterations: each contact's vertices
//! pushed apart along its normal until its constraint holds (zero compliance), on one
//! thread in list order.

use super::contact::Contact;
use super::surfaces::Surfaces;
use crate::constraint::relative;
use crate::parallel::colouring::Shared;
use glam::DVec3;

impl Surfaces {
    /// Projects the first `count` contacts of `contacts` once, in list order.
    ///
    /// # Safety
    /// No other thread may touch `x` or `contacts` meanwhile (the solver calls this on the team's
    /// leader between barriers).
    pub unsafe fn project(&self, contacts: Shared<Contact>, count: usize, x: Shared<DVec3>, w: &[f32]) {
        for k in 0..count {
            // SAFETY: exclusive per the contract; `count` is the list's length.
            let c = unsafe { contacts.get(k) };
            // SAFETY: forwarded contract.
            c.push += unsafe { self.correct(c, x, w, f32::INFINITY) };
        }
    }

    /// Pushes contact `c`'s vertices apart along its normal until its constraint holds,
    /// by at most `cap` (distance); returns the multiplier applied (mass × distance).
    ///
    /// # Safety
    /// No other thread may touch `x` meanwhile.
    #[inline]
    pub(super) unsafe fn correct(&self, c: &Contact, x: Shared<DVec3>, w: &[f32], cap: f32) -> f32 {
        // SAFETY (both reads): exclusive per the contract.
        let at = |i: u32| unsafe { *x.get(i as usize) };
        if c.edge {
            let ids = self.edge_vertices(c);
            let p = relative(ids.map(at));
            let Some((n, s, t, value)) = Self::evaluate_edge(c, p) else { return 0.0 };
            if value >= 0.0 {
                return 0.0;
            }
            let coef = [1.0 - s, s, t - 1.0, -t];
            let wi = ids.map(|i| w[i as usize]);
            let denom: f32 = (0..4).map(|j| coef[j] * coef[j] * wi[j]).sum();
            if denom <= f32::EPSILON {
                return 0.0;
            }
            let dl = (-value).min(cap) / denom;
            for j in 0..4 {
                // SAFETY: exclusive per the contract.
                unsafe { *x.get(ids[j] as usize) += (n * (wi[j] * coef[j] * dl)).as_dvec3() };
            }
            return dl;
        }
        let tri = self.triangles[c.triangle as usize];
        let vi = c.vertex as usize;
        let [p, t0, t1, t2] = relative([c.vertex, tri[0], tri[1], tri[2]].map(at));
        let Some((n, bary, value)) = self.evaluate(c, p, [t0, t1, t2]) else { return 0.0 };
        if value >= 0.0 {
            return 0.0;
        }
        let wt = [w[tri[0] as usize], w[tri[1] as usize], w[tri[2] as usize]];
        let denom = w[vi] + bary.x * bary.x * wt[0] + bary.y * bary.y * wt[1] + bary.z * bary.z * wt[2];
        if denom <= f32::EPSILON {
            return 0.0;
        }
        let dl = (-value).min(cap) / denom;
        // SAFETY: exclusive per the contract.
        unsafe {
            *x.get(vi) += (n * (w[vi] * dl)).as_dvec3();
            for k in 0..3 {
                *x.get(tri[k] as usize) -= (n * (wt[k] * bary[k] * dl)).as_dvec3();
            }
        }
        dl
    }
}
