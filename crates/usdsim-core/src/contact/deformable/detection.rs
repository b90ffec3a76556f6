//! Detection, every substep: the listed pairs ([`super::candidates`]) tested as a search
//! from scratch would test them, in parallel over fixed chunks, in (vertex, triangle)
//! then (edge, edge) order, so that the contact list is the same for any thread count.

use super::contact::Contact;
use super::surfaces::Surfaces;
use crate::contact::filter_table::FilterTable;
use glam::Vec3;
use rayon::prelude::*;

impl Surfaces {
    /// Finds this substep's contacts into `out`: `x` predicted positions, `x_prev` the
    /// start of the substep, `w` inverse masses.
    ///
    /// The pairs tested come from the candidate lists ([`candidates`]), refreshed only
    /// when the motion since their last build leaves their skin; the tests themselves
    /// are those of a search from scratch, so the contacts are the same either way.
    ///
    /// [`candidates`]: super::candidates
    pub fn detect(&mut self, x: &[Vec3], x_prev: &[Vec3], w: &[f32], filter: &FilterTable, out: &mut Vec<Contact>) {
        out.clear();
        if self.triangles.is_empty() {
            return;
        }
        self.refresh_candidates(x, x_prev, filter);
        let this = &*self;
        let pairs = &this.candidates.vertex_triangle;
        collect_in_order(pairs.len(), out, |k, _, local| {
            let (v, t) = pairs[k];
            this.vertex_contact(v, t, x, x_prev, w, local)
        });
        let pairs = &this.candidates.edge_edge;
        collect_in_order(pairs.len(), out, |k, _, local| {
            let (ea, eb) = pairs[k];
            this.edge_contact(ea, eb, x, x_prev, w, local)
        });
    }

    /// [`Surfaces::detect`] again in the same substep, after its predictions `x` changed
    /// (a body switched to implicit Euler at a contact, `solver/history.rs`): the
    /// candidate lists are checked against the new predictions as the substep's first
    /// detection checked them against the old ones, and repaired or rebuilt as needed.
    pub fn detect_again(
        &mut self,
        x: &[Vec3],
        x_prev: &[Vec3],
        w: &[f32],
        filter: &FilterTable,
        out: &mut Vec<Contact>,
    ) {
        self.candidates.forget_substep();
        self.detect(x, x_prev, w, filter, out);
    }

    /// Every pair the filters allow, each tested as a substep tests a listed pair: what
    /// the lists (the boxes, the cone test, the moving frame, the bound) must never lose,
    /// found without any of them (for tests: it tests every pair).
    #[cfg(test)]
    pub(crate) fn every_contact(&self, filter: &FilterTable, x: &[Vec3], x_prev: &[Vec3], w: &[f32]) -> Vec<Contact> {
        let mut out = Vec::new();
        for &v in &self.vertices {
            for t in 0..self.triangles.len() as u32 {
                if self.vertex_pair_allowed(filter, v, t) {
                    self.vertex_contact(v, t, x, x_prev, w, &mut out);
                }
            }
        }
        let edges = self.edges.len() as u32;
        for ea in 0..edges {
            for eb in ea + 1..edges {
                if self.edge_pair_allowed(filter, ea, eb) {
                    self.edge_contact(ea, eb, x, x_prev, w, &mut out);
                }
            }
        }
        out
    }
}

/// Runs `find(k, scratch, found)` for every `k` in `0..count` on the thread pool, in fixed
/// chunks of 256, and appends what each chunk found to `out` in chunk order: the contact
/// list is the same for any number of threads, which keeps the projection deterministic.
fn collect_in_order<T: Copy + Send, F>(count: usize, out: &mut Vec<T>, find: F)
where
    F: Fn(usize, &mut Vec<u32>, &mut Vec<T>) + Sync,
{
    const CHUNK: usize = 256;
    let found: Vec<Vec<T>> = (0..count.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (mut candidates, mut local) = (Vec::new(), Vec::new());
            for k in c * CHUNK..((c + 1) * CHUNK).min(count) {
                find(k, &mut candidates, &mut local);
            }
            local
        })
        .collect();
    for f in found {
        out.extend_from_slice(&f);
    }
}
