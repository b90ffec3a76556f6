//! Running constraints in parallel and deterministically: the graph colouring (no two
//! constraints of a colour share a vertex, so the result does not depend on the thread
//! count) and the fixed thread team that steps through the colours together.

pub(crate) mod colouring;
pub(crate) mod team;
