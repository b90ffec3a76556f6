//! A fixed team of threads that steps through constraint colours together.
//!
//! Projecting one colour is a few microseconds of work per thread, and a solver frame
//! has thousands of colour passes (colours × iterations × substeps). A rayon fork-join
//! per colour spends as long waking and parking threads as projecting (measured: a
//! fifth of a 64² cloth frame). Instead one `rayon::broadcast` per substep puts every
//! pool thread to work on a static share of each colour, with a spinning barrier between
//! colours. Shares are contiguous slices of a colour, and a colour's elements touch
//! disjoint vertices, so the result is the same for any number of threads.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A reusable barrier for the team's threads; spins briefly, then yields so that an
/// oversubscribed machine still makes progress.
struct SpinBarrier {
    threads: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            if spins < 4096 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// One thread's view of the team.
pub struct Member<'a> {
    index: usize,
    count: usize,
    barrier: Option<&'a SpinBarrier>,
}

impl Member<'_> {
    /// This member's contiguous share of `range` (shares of all members tile it).
    #[inline]
    pub fn share(&self, range: Range<usize>) -> Range<usize> {
        let len = range.end - range.start;
        let start = range.start + len * self.index / self.count;
        let end = range.start + len * (self.index + 1) / self.count;
        start..end
    }

    /// Whether this member does the team's sequential work.
    #[inline]
    pub fn is_leader(&self) -> bool {
        self.index == 0
    }

    /// Waits until every member has reached this point: all writes before it are
    /// visible to every member after it.
    #[inline]
    pub fn sync(&self) {
        if let Some(barrier) = self.barrier {
            barrier.wait();
        }
    }
}

/// Runs `work` on every thread of the current rayon pool at once, or on the calling
/// thread alone when `parallel` is false or the pool has one thread.
pub fn run<F>(parallel: bool, work: F)
where
    F: Fn(&Member) + Sync,
{
    let threads = rayon::current_num_threads();
    if !parallel || threads <= 1 {
        work(&Member { index: 0, count: 1, barrier: None });
        return;
    }
    let barrier = SpinBarrier { threads, arrived: AtomicUsize::new(0), generation: AtomicUsize::new(0) };
    rayon::broadcast(|ctx| {
        work(&Member { index: ctx.index(), count: ctx.num_threads(), barrier: Some(&barrier) });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_tile_the_range() {
        for count in 1..5 {
            let mut covered = vec![];
            for index in 0..count {
                covered.extend(Member { index, count, barrier: None }.share(3..20));
            }
            assert_eq!(covered, (3..20).collect::<Vec<_>>());
        }
    }

    #[test]
    fn barrier_orders_phases() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let data: Vec<AtomicUsize> = (0..64).map(|_| AtomicUsize::new(0)).collect();
        pool.install(|| {
            run(true, |m| {
                for phase in 1..50 {
                    for i in m.share(0..64) {
                        // Every slot must have finished the previous phase.
                        assert_eq!(data[63 - i].load(Ordering::Relaxed), phase - 1);
                    }
                    m.sync();
                    for i in m.share(0..64) {
                        data[i].store(phase, Ordering::Relaxed);
                    }
                    m.sync();
                }
            })
        });
    }
}
