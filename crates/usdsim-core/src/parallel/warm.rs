//! Keeping the pool's other threads awake through a frame.
//!
//! A substep is a chain of short parallel phases (the prediction, contact detection's
//! loops, the list builds' refit and search, the team's broadcast, the velocity update)
//! with stretches of work on one thread between them. An idle rayon worker parks after a
//! few microseconds, and waking it costs this kind of machine's scheduler about 20 µs,
//! every phase again: measured on the 64² bench cloth with `--self-contact` on two
//! threads, the team's second thread joined each substep's iterations 17–20 µs late
//! (0.41–0.50 ms a frame, against 0.02 ms without self contact, whose phases follow
//! each other too closely for the worker to park). [`run`] steps a frame with every
//! other pool thread spinning in rayon's own work loop ([`rayon::yield_now`]), so each
//! phase starts at once. Which thread runs which piece of work changes no result: every
//! parallel loop of the solver is deterministic by construction (see the module
//! documentation of `parallel`).
//!
//! **A helper never holds anything up for long.** A thread that waits inside rayon (for
//! the other half of a `join`, for a broadcast) runs whatever it finds, its own helper
//! job included, so a helper can start *inside* work that the frame, or another frame on
//! the same pool, is waiting on: a worker that stole part of the frame's work, or the
//! leader of a second frame stepped at the same time (the test suite steps many solvers
//! on one pool). Spinning there until the frame is done would wait on itself. So a
//! helper also stops after [`IDLE_LIMIT`] without finding work: in those cases nothing
//! can run until it returns, and then the work under it goes on. A frame's own
//! one-thread stretches are far shorter (a list repair, the longest, takes about 60 µs on
//! the 64² bench cloth), so the limit does not end a helper's work early in practice.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Idle polls of rayon's queues before a waiting thread also yields its core to the
/// operating system (as the team's barrier does), so that an oversubscribed machine
/// still makes progress.
const SPINS: u32 = 4096;

/// How long a helper goes on without finding work before it stops.
const IDLE_LIMIT: Duration = Duration::from_millis(2);

/// Sets the flag when dropped: the helpers stop even when `work` panics, so that the
/// panic reaches the caller instead of the scope waiting forever on them.
struct Done<'a>(&'a AtomicBool);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Runs `work` on a thread of the current rayon pool while every other pool thread
/// runs whatever rayon work appears (the parallel phases `work` starts) and otherwise
/// spins, until `work` returns. On a pool of one thread it simply runs `work`.
pub(crate) fn run<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    let done = AtomicBool::new(false);
    rayon::scope(|s| {
        if rayon::current_num_threads() > 1 {
            let (leader, done) = (rayon::current_thread_index(), &done);
            s.spawn_broadcast(move |_, ctx| {
                if Some(ctx.index()) != leader {
                    help_until(done);
                }
            });
        }
        let _done = Done(&done);
        work()
    })
}

/// Executes the pool's pending jobs until `done` is set, or until it has found none for
/// [`IDLE_LIMIT`] (module documentation).
fn help_until(done: &AtomicBool) {
    let (mut polls, mut idle_since) = (0u32, None);
    while !done.load(Ordering::Acquire) {
        if rayon::yield_now() == Some(rayon::Yield::Executed) {
            (polls, idle_since) = (0, None);
            continue;
        }
        if idle_since.get_or_insert_with(Instant::now).elapsed() > IDLE_LIMIT {
            return;
        }
        if polls < SPINS {
            std::hint::spin_loop();
            polls += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::run;
    use rayon::prelude::*;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
    }

    #[test]
    fn runs_parallel_work_and_returns_its_result() {
        for threads in [1, 2, 3] {
            let total = pool(threads).install(|| {
                run(|| {
                    // Several phases, as a substep has, with a team broadcast among them.
                    let mut total = 0u64;
                    for phase in 0..20u64 {
                        total += (0..10_000u64).into_par_iter().map(|i| i * phase).sum::<u64>();
                        total += rayon::broadcast(|ctx| ctx.index() as u64).iter().sum::<u64>();
                    }
                    total
                })
            });
            let threads = threads as u64;
            let expected = (0..20u64).map(|p| p * 10_000 * 9_999 / 2).sum::<u64>() + 20 * threads * (threads - 1) / 2;
            assert_eq!(total, expected);
        }
    }

    /// Several frames at once on one pool, from inside it (as `par_iter` over solvers
    /// would) and from outside (as the test harness's threads do): each leader may run
    /// another frame's helper while it waits, which must not wait on itself.
    #[test]
    fn frames_at_once_on_one_pool_finish() {
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let p = std::sync::Arc::new(pool(THREADS));
            let frame = |k: u64| {
                run(|| {
                    let mut total = 0u64;
                    for phase in 0..10u64 {
                        total += (0..2_000u64).into_par_iter().map(|i| i ^ (phase + k)).sum::<u64>();
                        let (a, b) = rayon::join(|| phase * 2, || phase * 3);
                        total += a + b + rayon::broadcast(|ctx| ctx.index() as u64).len() as u64;
                    }
                    total
                })
            };
            // Many frames, so that some leader meets another frame's helper while it waits.
            let inside: Vec<u64> = p.install(|| (0..400u64).into_par_iter().map(frame).collect::<Vec<u64>>());
            let outside: Vec<u64> = (0..4u64)
                .map(|k| {
                    let p = p.clone();
                    std::thread::spawn(move || p.install(|| frame(k)))
                })
                .collect::<Vec<_>>()
                .into_iter()
                .map(|h| h.join().unwrap())
                .collect();
            send.send((inside, outside)).unwrap();
        });
        let (inside, outside) = receive.recv_timeout(std::time::Duration::from_secs(60)).expect("the frames hung");
        let alone: Vec<u64> = (0..400u64).map(frame_alone).collect();
        assert_eq!(inside, alone);
        assert_eq!(outside, alone[..4]);
    }

    /// The pool of [`frames_at_once_on_one_pool_finish`]: with two threads its deadlock
    /// (before helpers stopped when idle) showed only now and then, with four at once.
    const THREADS: usize = 4;

    /// What one frame of [`frames_at_once_on_one_pool_finish`] computes, on one thread (its
    /// broadcast reaches the pool's [`THREADS`] threads).
    fn frame_alone(k: u64) -> u64 {
        (0..10u64).map(|phase| (0..2_000u64).map(|i| i ^ (phase + k)).sum::<u64>() + phase * 5 + THREADS as u64).sum()
    }

    #[test]
    fn a_panic_in_the_work_reaches_the_caller() {
        // On a thread of its own, so that a helper left spinning fails the test by its
        // timeout instead of hanging the suite.
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let p = pool(2);
            let caught = p.install(|| std::panic::catch_unwind(|| run(|| panic!("in the frame"))));
            // The same pool still runs work: no helper is left spinning on it.
            let after = p.install(|| run(|| (0..100u32).into_par_iter().sum::<u32>()));
            send.send((caught.is_err(), after)).unwrap();
        });
        let (caught, after) = receive.recv_timeout(std::time::Duration::from_secs(60)).expect("the frame hung");
        assert!(caught);
        assert_eq!(after, 4950);
    }
}
