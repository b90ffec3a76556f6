//! Sleeping bodies and contacts: which sleeping body a contact wakes, and marking a body
//! awake so that its pairs with immovable partners are skipped again.

use super::contact::Contact;
use super::surfaces::Surfaces;
use glam::Vec3;

impl Surfaces {
    /// Marks body `body` awake (see [`crate::Solver::wake`]): from the next detection on,
    /// its pairs with immovable partners are skipped like any other immovable pair.
    pub fn set_awake(&mut self, body: usize) {
        if let Some(a) = self.asleep.get_mut(body) {
            *a = false;
        }
    }

    /// The sleeping body contact `c` wakes, if any: exactly one side's body is asleep,
    /// the other side's vertices moved this substep (`x` against `x_prev`: a dynamic body
    /// in motion, a kinematic or driven body following its targets) and the pair touches
    /// at the predicted positions `x` (its constraint is violated, so it would push).
    pub fn woken_by(&self, c: &Contact, x: &[Vec3], x_prev: &[Vec3]) -> Option<usize> {
        let (ids, split, bodies) = if c.edge {
            let bodies = [self.edge_body[c.vertex as usize], self.edge_body[c.triangle as usize]];
            (self.edge_vertices(c), 2, bodies)
        } else {
            let tri = self.triangles[c.triangle as usize];
            let bodies = [self.vertex_body[c.vertex as usize], self.tri_body[c.triangle as usize]];
            ([c.vertex, tri[0], tri[1], tri[2]], 1, bodies)
        };
        let [a, b] = bodies.map(|b| b as usize);
        let (sleeper, mover) = match (self.asleep[a], self.asleep[b]) {
            (true, false) => (a, &ids[split..]),
            (false, true) => (b, &ids[..split]),
            _ => return None,
        };
        if mover.iter().all(|&i| x[i as usize] == x_prev[i as usize]) {
            return None;
        }
        let value = if c.edge {
            Self::evaluate_edge(c, ids.map(|i| x[i as usize]))?.3
        } else {
            self.evaluate(c, x[ids[0] as usize], [ids[1], ids[2], ids[3]].map(|i| x[i as usize]))?.2
        };
        (value < 0.0).then_some(sleeper)
    }
}
