//! The time scheme's bookkeeping (`model/time_scheme.rs`): which substeps take BDF2,
//! which bodies take implicit Euler inside a BDF2 substep, and the history BDF2
//! extrapolates from.
//!
//! A BDF2 substep solves one system with `h = 2·dt/3`. A body that takes implicit Euler
//! in it is predicted with `x_n + dt·v`, measures its velocity over `dt`, and enters the
//! solve with its inverse masses times `(dt/h)²`: its equations `m(x − y)/dt² = f` are
//! then the solve's `m'(x − y)/h² = f`.
//!
//! Bodies whose rest state changes (tearing, plastic flow) and force-integrated spring
//! bodies always take implicit Euler.
//!
//! A contact takes its bodies to implicit Euler for the substep it acts in and until a
//! whole frame's substeps pass without one: BDF2's velocity
//! `(x_{n+1} − (4x_n − x_{n−1})/3)/h` remembers the step before, so a vertex stopped by
//! the ground would leave with half its impact speed, and the jump a contact makes would
//! be extrapolated into the next step. Held for one substep only, a cloth whose folds
//! touch on and off switched scheme every few substeps; each switch kinked its vertices'
//! paths, so self contact's candidate lists were rebuilt almost every substep (cloth_64
//! with `--self-contact`: 382 builds in 48 frames, 47 ms a frame; held a frame, 21 ms;
//! docs/performance.md). The switch is per group of bodies that attachments join, never
//! per vertex: a force between a vertex stepped one way and a vertex stepped the other
//! changes their momenta by `f·dt` and `f·h`, which fed a resting jelly cube energy
//! until it never settled.

use super::*;
use crate::constraint::attachment::Side;
use crate::solver::resume::BodyState;

impl History {
    /// The history of a solver about to start, whose bodies form the attachment
    /// `group`s: no substep yet, so the first one takes implicit Euler everywhere.
    pub(super) fn new(x: &[DVec3], v: &[Vec3], group: Vec<usize>) -> Self {
        let groups = group.iter().max().map_or(0, |&g| g + 1);
        History {
            started: false,
            v: v.to_vec(),
            base: x.to_vec(),
            euler: vec![true; group.len()],
            group,
            since_contact: vec![u32::MAX; groups],
            touched_now: vec![false; groups],
            w: Vec::new(),
        }
    }

    /// Puts back the history [`Solver::resume_state`] saved for body `b`, vertices
    /// `range` (the positions go to `x_prev`, see [`History::started`]).
    pub(super) fn restore(&mut self, b: usize, range: Range<usize>, s: &BodyState) {
        if !s.previous_velocities.is_empty() {
            self.v[range].copy_from_slice(&s.previous_velocities);
        }
        let since = &mut self.since_contact[self.group[b]];
        *since = (*since).min(s.since_contact);
    }

    /// Vertex `to` (a copy tearing made) takes `from`'s history.
    pub(super) fn copy_vertex(&mut self, from: usize, to: usize) {
        self.v[to] = self.v[from];
        self.base[to] = self.base[from];
    }

    /// Substeps since a contact last touched body `b`'s group (`u32::MAX`: never).
    pub(super) fn since_contact(&self, b: usize) -> u32 {
        self.since_contact[self.group[b]]
    }
}

impl Solver {
    /// Whether this substep takes BDF2: the setting asks for it, a substep ran before
    /// (its start is the history), and no rigid body is coupled (rapier steps them with
    /// its own first-order scheme over `dt`, and a contact or attachment must exchange
    /// momentum over that same length).
    pub(super) fn bdf2_substep(&self) -> bool {
        self.settings.time_scheme == TimeScheme::Bdf2 && self.history.started && self.rigid.len() == 0
    }

    /// Whether body `b`'s rest state changes as it moves (tearing, plastic flow): it
    /// takes implicit Euler, as a contact's bodies do. A tear or a flow step changes the
    /// forces between one substep and the next, which BDF2 would extrapolate past; and
    /// with BDF2's lighter damping the rebound of a suddenly loaded plastic bar flowed
    /// back (0.01 % of its length), which the hardening rule is meant to prevent.
    pub(super) fn rest_state_moves(&self, b: usize) -> bool {
        let body = &self.input.bodies[b];
        body.plastic.is_some() || body.tear_ratio.is_some()
    }

    /// Per body, its group: bodies joined by an attachment link share one (union–find
    /// over the links' vertex sides).
    pub(super) fn attachment_groups(&self) -> Vec<usize> {
        let mut parent: Vec<usize> = (0..self.bodies.len()).collect();
        fn root(parent: &mut [usize], mut b: usize) -> usize {
            while parent[b] != b {
                parent[b] = parent[parent[b]];
                b = parent[b];
            }
            b
        }
        for link in &self.links {
            let body = |s: &Side| match *s {
                Side::Points { idx, weights, .. } => {
                    let k = weights.iter().position(|&w| w != 0.0).unwrap_or(0);
                    Some(self.body_of(idx[k] as usize))
                }
                _ => None,
            };
            if let (Some(a), Some(b)) = (body(&link.a), body(&link.b)) {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
        // Number the groups 0.. in order of their first body.
        let mut number = vec![usize::MAX; parent.len()];
        let mut next = 0;
        (0..parent.len())
            .map(|b| {
                let r = root(&mut parent, b);
                if number[r] == usize::MAX {
                    number[r] = next;
                    next += 1;
                }
                number[r]
            })
            .collect()
    }

    /// Marks the groups this substep's contacts touch (adding to `touched_now`, which
    /// the substep clears before its first detection): they take implicit Euler in this
    /// substep and until a frame's substeps pass without a contact (see the module
    /// docs). In a BDF2 substep the bodies of a newly touched group are predicted again
    /// with implicit Euler; returns whether any was, so that the substep finds its
    /// contacts again from the new predictions.
    pub(super) fn euler_where_touched(&mut self, dt: f32, bdf: bool) -> bool {
        if self.settings.time_scheme != TimeScheme::Bdf2 {
            return false;
        }
        let mut now = std::mem::take(&mut self.history.touched_now);
        let mut mark = |vertex: usize| now[self.history.group[self.body_of(vertex)]] = true;
        for vc in &self.contacts {
            mark(vc.vertex as usize);
        }
        for c in &self.deformable_contacts {
            for i in self.surfaces.vertices(c) {
                mark(i as usize);
            }
        }
        for c in &self.rigid_contacts.list {
            mark(c.vertex as usize);
        }
        let mut switched = Vec::new();
        if bdf {
            let History { v: vh, base, euler, group, .. } = &mut self.history;
            for (b, range) in self.bodies.iter().enumerate() {
                if now[group[b]] && !euler[b] {
                    euler[b] = true;
                    switched.push(b);
                    let g = self.body_gravity[b];
                    for i in range.clone().filter(|&i| self.w[i] > 0.0) {
                        base[i] = self.x_prev[i];
                        self.v[i] = vh[i] + g * dt;
                        self.x[i] = self.x_prev[i] + (self.v[i] * dt).as_dvec3();
                    }
                }
            }
        }
        for &b in &switched {
            self.damp_prediction(b, dt);
        }
        self.history.touched_now = now;
        !switched.is_empty()
    }

    /// Ends the substep's choice of time scheme, once its contacts are final: in a BDF2
    /// substep the solve's inverse masses (those of implicit Euler bodies scaled, see
    /// the module docs), and each group's count of substeps since a contact.
    pub(super) fn settle_time_scheme(&mut self, bdf: bool) {
        if self.settings.time_scheme != TimeScheme::Bdf2 {
            return;
        }
        if bdf {
            let History { euler, w, .. } = &mut self.history;
            w.clone_from(&self.w);
            for (range, _) in self.bodies.iter().zip(euler.iter()).filter(|(_, &e)| e) {
                w[range.clone()].iter_mut().for_each(|w| *w *= EULER_IN_BDF2_INVERSE_MASS);
            }
        }
        let History { since_contact, touched_now, .. } = &mut self.history;
        for (since, &touched) in since_contact.iter_mut().zip(touched_now.iter()) {
            *since = if touched { 0 } else { since.saturating_add(1) };
        }
    }
}
