//! Running constraints in parallel and deterministically: the graph colouring (no two
//! constraints of a colour share a vertex, so the result does not depend on the thread
//! count), the fixed thread team that steps through the colours together, and the
//! helpers that keep the pool's threads awake through a frame.

pub(crate) mod colouring;
pub(crate) mod team;
pub(crate) mod warm;
