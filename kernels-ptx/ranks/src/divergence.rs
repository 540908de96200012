//! Rank kernels that break the block-collective rules in ways no compiler
//! check sees, one per `args.case`; the emulator must stop each with a
//! report of the diverging threads (tests/tests/divergence.rs). On a GPU
//! they are undefined behaviour: they are never run there.
//!
//! 0. Shared memory written by one thread in a region and read in uniform
//!    code without a barrier, steering a collective.
//! 1. A per-thread value smuggled out of a region through a raw pointer,
//!    used as a collective's argument.
//! 2. An atomic in uniform code steering a collective.
//! 3. Threads that leave the kernel with `exit_thread` in a region while
//!    the others go on to a collective.
//! 4. A per-thread clock read in uniform code.
//! 5. Nothing wrong: a time-out with the rank's uniform clock.
//! 6. A per-thread value smuggled out of a region, used as a split's color.
//! 7. A per-thread value smuggled out of a region into `notify_each`'s
//!    list of targets.

use core::sync::atomic::{AtomicU32, Ordering};
use dcuda_device::{arch, rank, rank_log, shared_array, DeviceSlice, Rank, Sum};

/// Arguments of [`diverge`](DIVERGE).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct DivergeArgs {
    /// Which mistake to make.
    pub case: u32,
    /// One element per rank: what the legal case saw.
    pub out: DeviceSlice<u32>,
}

shared_array!(static FLAG: [u32; 1]);

static TICKETS: AtomicU32 = AtomicU32::new(0);

#[rank]
pub fn diverge(rank: &mut Rank, args: &DivergeArgs) {
    let world = rank.world();
    let last = rank.threads_per_rank() - 1;
    match args.case {
        0 => {
            rank.threads(|t| {
                if t.index() == last {
                    FLAG.set(0, 1);
                }
            });
            // Missing: rank.sync_threads();
            if FLAG.get(0) == 1 {
                rank.barrier(world);
            }
        }
        1 => {
            let mut tag = 0u32;
            let smuggle = &mut tag as *mut u32 as usize;
            // SAFETY: each thread writes its own `tag` (a deliberate misuse).
            rank.threads(|t| unsafe { *(smuggle as *mut u32) = t.index() % 2 });
            rank.notify(world, world.rank(), tag);
        }
        2 => {
            let ticket = TICKETS.fetch_add(1, Ordering::Relaxed);
            if ticket.is_multiple_of(2) {
                rank.sync_threads();
            }
        }
        3 => {
            rank.threads(|t| {
                if t.index() >= 16 {
                    arch::exit_thread();
                }
            });
        }
        4 => {
            let started = arch::global_timer();
            while arch::global_timer() - started < 1000 {}
        }
        6 => {
            let mut color = 0u32;
            let smuggle = &mut color as *mut u32 as usize;
            // SAFETY: each thread writes its own `color` (a deliberate misuse).
            rank.threads(|t| unsafe { *(smuggle as *mut u32) = t.index() % 2 });
            rank.comm_split(world, Some(color), 0);
        }
        7 => {
            let mut targets = [0u32; 2];
            let smuggle = &mut targets[1] as *mut u32 as usize;
            // SAFETY: each thread writes its own list (a deliberate misuse).
            rank.threads(|t| unsafe { *(smuggle as *mut u32) = t.index() % 2 });
            rank.notify_each(world, &targets, 0);
        }
        _ => {
            // ANCHOR: timeout
            // Wait at most 1 ms for a notification that never comes: the
            // rank's clock is read once and broadcast, so every thread
            // leaves the loop in the same iteration.
            let started = rank.timestamp();
            let mut polls = 0u32;
            while !rank.test_notifications(7, 1) {
                polls += 1;
                if rank.timestamp() - started > 1_000_000 {
                    break;
                }
            }
            // ANCHOR_END: timeout
            let id = rank.id() as usize;
            rank.single(|_| {
                // SAFETY: one element per rank, written by its thread 0.
                unsafe { args.out.write(id, polls.max(1)) };
                0u32
            });
        }
    }
}

/// Legal code that looks like a rule break, run to its end: a shadowed
/// handle name, a local named like an intrinsic given to `rank_log!`, a
/// macro in the body that calls a collective in uniform code, collectives
/// in path form, and `single`'s broadcast steering a branch. Each rank
/// writes 1 to its element of `out`.
#[rank]
pub fn legal_patterns(rank: &mut Rank, args: &DivergeArgs) {
    let world = rank.world();
    {
        let rank = world.rank();
        if rank > 1_000_000 {
            return;
        }
    }
    let block_dim = rank.threads_per_rank();
    rank_log!(rank, "{} threads", block_dim);
    macro_rules! sync_all {
        () => {
            rank.sync_threads()
        };
    }
    sync_all!();
    let leader = rank.single(|t| t.index() + 7);
    if leader == 7 {
        Rank::barrier(rank, world);
    }
    let total = Rank::reduce(rank, |t| t.index(), Sum);
    let id = rank.id() as usize;
    let expected = block_dim * (block_dim - 1) / 2;
    rank.single(|_| {
        // SAFETY: one element per rank, written by its thread 0.
        unsafe { args.out.write(id, (total == expected) as u32) };
        0u32
    });
}
