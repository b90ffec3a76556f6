//! Graph colouring of constraints and the parallel, deterministic projection loop.
//!
//! Constraints that share no vertex can be projected at the same time without changing
//! the result. A greedy colouring (each element takes the smallest colour none of its
//! vertices already uses) partitions elements into such independent sets; elements are
//! then stored sorted by colour, so one colour is one contiguous range. Projecting colour
//! after colour is Gauss-Seidel between colours and Jacobi-free within one, and because
//! the elements of a colour touch disjoint vertices the result does not depend on how
//! rayon splits the work: one thread and many threads give bit-identical states.

use crate::parallel::team::Member;
use std::ops::Range;

/// Colours past this many go to a last, sequential bucket (never seen in practice:
/// tetrahedral meshes need about 20-40 colours).
const MAX_COLOURS: usize = 128;

/// Elements of one constraint kind, reordered so each colour is contiguous.
#[derive(Clone, Debug, Default)]
pub struct Colouring {
    /// `ranges[c]` is the slice of (reordered) elements with colour `c`.
    pub ranges: Vec<Range<usize>>,
    /// True for a trailing bucket that may share vertices and must run sequentially.
    pub last_is_sequential: bool,
}

/// Colours `elements` (each a list of global vertex indices) and returns the permutation
/// that sorts them by colour together with the colour ranges. `vertex_count` bounds every
/// index.
pub fn colour<E: AsRef<[u32]>>(elements: &[E], vertex_count: usize) -> (Vec<usize>, Colouring) {
    let mut used = vec![0u128; vertex_count];
    let mut colour_of = Vec::with_capacity(elements.len());
    for e in elements {
        let e = e.as_ref();
        let mask = e.iter().fold(0u128, |m, &v| m | used[v as usize]);
        let c = (!mask).trailing_zeros() as usize; // 128 when all taken
        if c < MAX_COLOURS {
            for &v in e {
                used[v as usize] |= 1u128 << c;
            }
        }
        colour_of.push(c.min(MAX_COLOURS));
    }
    let mut order: Vec<usize> = (0..elements.len()).collect();
    order.sort_by_key(|&i| colour_of[i]); // stable: keeps input order within a colour
    let mut ranges = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let c = colour_of[order[start]];
        let mut end = start;
        while end < order.len() && colour_of[order[end]] == c {
            end += 1;
        }
        ranges.push(start..end);
        start = end;
    }
    let last_is_sequential = order.last().is_some_and(|&i| colour_of[i] == MAX_COLOURS);
    (order, Colouring { ranges, last_is_sequential })
}

/// A raw view of a slice that lets disjoint indices be written from several threads.
///
/// Safety rests on the colouring: within one colour no two elements touch the same
/// vertex (or the same per-element slot), so no two threads write the same index.
#[derive(Clone, Copy)]
pub struct Shared<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: access is only through `get`, whose callers guarantee disjoint indices.
unsafe impl<T: Send> Send for Shared<T> {}
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// Wraps a slice for disjoint parallel access.
    pub fn new(slice: &mut [T]) -> Self {
        Self { ptr: slice.as_mut_ptr(), len: slice.len() }
    }

    /// Returns a mutable reference to element `i`.
    ///
    /// # Safety
    /// No other live reference to element `i` may exist (the colouring guarantees it).
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self, i: usize) -> &mut T {
        debug_assert!(i < self.len);
        // SAFETY: in bounds (debug-checked; indices are validated at build time) and
        // exclusive per the caller's contract.
        unsafe { &mut *self.ptr.add(i) }
    }

    /// A raw pointer to element `i`, for kernels that load and store through vector
    /// instructions rather than references.
    ///
    /// # Safety
    /// As [`Shared::get`] for whatever the caller reads or writes through it.
    #[inline(always)]
    pub unsafe fn ptr(&self, i: usize) -> *mut T {
        debug_assert!(i < self.len);
        // SAFETY: in bounds (debug-checked; indices are validated at build time).
        unsafe { self.ptr.add(i) }
    }

    /// Returns the elements `range` as one mutable slice.
    ///
    /// # Safety
    /// As [`Shared::get`], for every index in `range`.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice(&self, range: std::ops::Range<usize>) -> &mut [T] {
        debug_assert!(range.start <= range.end && range.end <= self.len);
        // SAFETY: in bounds (debug-checked) and exclusive per the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.len()) }
    }
}

impl Colouring {
    /// Runs `project(share)` for this team member's share of every colour, colour by
    /// colour, with the team synchronised between colours; a kind may project a share's
    /// elements several at once. A trailing bucket whose elements may share vertices runs
    /// on the leader alone, one element at a time.
    #[inline]
    pub fn for_each_share<F>(&self, member: &Member, project: F)
    where
        F: Fn(Range<usize>),
    {
        let n = self.ranges.len();
        for (c, range) in self.ranges.iter().enumerate() {
            if self.last_is_sequential && c + 1 == n {
                if member.is_leader() {
                    range.clone().for_each(|i| project(i..i + 1));
                }
            } else {
                project(member.share(range.clone()));
            }
            member.sync();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_never_share_a_vertex() {
        // A strip of triangles: consecutive ones share an edge.
        let tris: Vec<[u32; 3]> = (0..100).map(|i| [i, i + 1, i + 2]).collect();
        let (order, colouring) = colour(&tris, 102);
        assert!(colouring.ranges.len() >= 3, "a strip needs at least three colours");
        for r in &colouring.ranges {
            let mut seen = std::collections::HashSet::new();
            for &i in &order[r.clone()] {
                for v in tris[i] {
                    assert!(seen.insert(v), "vertex {v} appears twice in one colour");
                }
            }
        }
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>(), "order is a permutation");
    }
}
