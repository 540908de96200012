//! Copies of chunks between the buffers of the ranks of one GPU, for the
//! collectives that move chunks ([`gathers`](super::gathers)): large chunks
//! a rank at a time with all threads, small ones spread over the threads.

use super::comm::{Comm, CommKind};
use super::Runtime;
use crate::block::Block;

/// Chunks of at least this many bytes are copied by all threads of the
/// rank together, one chunk after another; smaller ones are spread over
/// the threads.
const SMALL_CHUNK: usize = 512;

impl Runtime {
    /// Copies `run` bytes for every rank `j` of `comm` here, from and to
    /// where `at(j, device rank)` says, with every thread: a chunk per rank
    /// with all threads when chunks are large; else, for the world and the
    /// device (whose ranks here are device ranks `0..local`), every word
    /// of every rank spread over the threads, and for a split a rank per
    /// thread (one small copy after another would cost a pass of all
    /// threads per few bytes).
    ///
    /// # Safety
    /// `at` gives ranges of `run` bytes, valid, the destinations this
    /// rank's alone to write.
    #[inline(always)]
    pub(super) unsafe fn copy_chunks(
        &self,
        block: &Block,
        comm: Comm,
        run: usize,
        at: impl Fn(u32, u32) -> (*mut u8, *const u8),
    ) {
        let threads = block.threads();
        if run >= SMALL_CHUNK {
            self.each_local(comm, 0, 1, |j, dev| {
                let (to, from) = at(j, dev);
                // SAFETY: as the caller promised.
                unsafe { block.copy(to, from, run) }
            });
            return;
        }
        if comm.kind != CommKind::Split && run.is_multiple_of(8) {
            // The ranks here are device ranks 0..local: spread all their
            // words over all threads, as a coalesced copy would.
            let words = run / 8;
            let total = comm.rec.local as usize * words;
            let first = if comm.kind == CommKind::World {
                self.ctx().world_first
            } else {
                0
            };
            block.each_thread(|t| {
                let mut w = t.index() as usize;
                while w < total {
                    let (dev, k) = ((w / words) as u32, (w % words) * 8);
                    let (to, from) = at(first + dev, dev);
                    let (to, from) = (to.wrapping_add(k), from.wrapping_add(k));
                    // SAFETY: word k of a range the caller promised.
                    unsafe {
                        if (to as usize | from as usize).is_multiple_of(8) {
                            (to as *mut u64).write((from as *const u64).read());
                        } else {
                            core::ptr::copy_nonoverlapping(from, to, 8)
                        }
                    }
                    w += threads as usize;
                }
            });
            return;
        }
        block.each_thread(|t| {
            self.each_local(comm, t.index(), threads, |j, dev| {
                let (to, from) = at(j, dev);
                // SAFETY: as the caller promised; in words when aligned.
                unsafe {
                    if (to as usize | from as usize | run).is_multiple_of(8) {
                        let (to, from) = (to as *mut u64, from as *const u64);
                        for w in 0..run / 8 {
                            to.add(w).write(from.add(w).read());
                        }
                    } else {
                        core::ptr::copy_nonoverlapping(from, to, run)
                    }
                }
            })
        });
    }
}
