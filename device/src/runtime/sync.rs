//! Barriers over a communicator, host-measured timers and device timestamps.

use super::comm::{Comm, CommKind};
use super::Runtime;
use crate::abi::ring::Payload;
use crate::abi::{Call, CommSync, CommSyncKind, Op};
use crate::arch::{self, Ordering, Scope};
use crate::block::Block;

/// The barrier word's phase bit, and its arrival count.
pub(super) const FLIP: u32 = 1 << 31;
pub(super) const COUNT: u32 = FLIP - 1;

impl Runtime {
    /// Waits until every rank of `comm` has called `barrier(comm)`. Writes
    /// before it, by any thread of any rank, are visible after it.
    ///
    /// Across processes the ranks of each device meet, then the device
    /// leaders: among themselves in `ceil(log2(P))` steps when every
    /// process maps every other's memory (no host carries data, so none
    /// can be in flight), else through the hosts, which also deliver every
    /// access they carried before it.
    #[inline(always)]
    pub fn barrier(&mut self, block: &mut Block, comm: Comm) {
        self.check_comm(block, Call::Barrier, comm);
        if !self.spans_processes(comm) {
            return self.local_barrier(block, comm, Call::Barrier);
        }
        self.gated(block, comm, Call::Barrier, |rt, block| {
            // SAFETY: the flag lives for the run; the host clears it (before
            // the window exchange that makes a route go through it ends).
            let direct = unsafe { arch::load_relaxed(rt.ctx().leader_barrier(), Scope::System) };
            if direct != 0 {
                rt.leaders_barrier(block, comm);
            } else if comm.kind == CommKind::World {
                rt.host_call(block, Op::Barrier, 0);
            } else {
                rt.comm_sync(block, comm, CommSyncKind::Barrier);
            }
        });
    }

    /// Asks the host to sync with the hosts of the other processes holding
    /// ranks of `comm` (and do `kind`), and waits for its reply: called by
    /// `comm`'s lowest rank on this device.
    #[inline(always)]
    pub fn comm_sync(&mut self, block: &mut Block, comm: Comm, kind: CommSyncKind) {
        let sync = CommSync {
            kind: kind as u32,
            slot: comm.slot,
            offset: comm.rec.offset,
            size: comm.rec.size,
            reps: comm.rec.reps,
            _pad: [0; 3],
        };
        let arg = comm.context();
        self.host_call_with(block, Op::CommSync, arg, Payload::of(&sync));
    }

    /// Waits until every rank of `comm` on this device has called it.
    #[inline(always)]
    pub fn local_barrier(&mut self, block: &mut Block, comm: Comm, call: Call) {
        let (word, lead) = self.barrier_word(block, comm);
        self.counted_barrier(block, call, word, lead)
    }

    /// A barrier of `comm`'s ranks on this device with a step of its lead
    /// (its lowest rank here) inside: the others arrive and wait; the lead
    /// waits until they all have arrived, runs `step` on every thread, and
    /// only then lets them go. One device barrier around a step between
    /// processes where two barriers would be: the step's result on the
    /// lead, `None` elsewhere.
    #[inline(always)]
    pub(super) fn gated<R>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        step: impl FnOnce(&mut Runtime, &mut Block) -> R,
    ) -> Option<R> {
        self.check_none_pending(block, call);
        let (bar, lead) = self.barrier_word(block, comm);
        if !lead {
            self.counted_barrier(block, call, bar, false);
            return None;
        }
        self.await_arrivals(block, call, bar);
        let result = step(self, block);
        self.release_others(block, bar);
        Some(result)
    }

    /// The lead of a barrier word `(word, ranks)` waits until the others
    /// have arrived (each with an add of 1).
    #[inline(always)]
    pub(super) fn await_arrivals(
        &self,
        block: &mut Block,
        call: Call,
        (word, ranks): (*mut u32, u32),
    ) {
        let others = ranks - 1;
        if others > 0 {
            self.wait_until(block, call, [ranks, 0, 0], || {
                // SAFETY: the barrier word lives for the whole run.
                let now = unsafe { arch::load_acquire(word, Scope::Gpu) } & COUNT;
                if now == others {
                    Ok(0)
                } else {
                    Err(now + 1)
                }
            });
        }
    }

    /// The lead's arrival, last, after [`await_arrivals`](Self::await_arrivals):
    /// the same add as in `counted_barrier`, which flips the phase and lets
    /// the others go. Every thread's earlier writes precede it.
    #[inline(always)]
    pub(super) fn release_others(&self, block: &mut Block, (word, ranks): (*mut u32, u32)) {
        block.sync();
        if ranks > 1 {
            // SAFETY: the barrier word lives for the whole run.
            block.leader(|_| unsafe {
                arch::add(word, FLIP - (ranks - 1), Ordering::Release, Scope::Gpu)
            });
        }
    }

    /// `comm`'s barrier word on this device and its rank count here, and
    /// whether this rank is `comm`'s lead here (the one that arrives with
    /// the big add).
    #[inline(always)]
    pub(super) fn barrier_word(&self, block: &Block, comm: Comm) -> ((*mut u32, u32), bool) {
        let ctx = self.ctx();
        let word = match comm.kind {
            CommKind::Split => ctx.comm_barrier(comm.slot, comm.rec.lead),
            // The world's and the device's ranks here are the device's.
            _ => ctx.barrier().0,
        };
        ((word, comm.rec.local), block.id() == comm.rec.lead)
    }

    /// A world-wide step done by the hosts: every rank of this device
    /// arrives, device rank 0 asks the host to do `op` with the other
    /// processes and waits for its reply, and every rank leaves after it.
    #[inline(always)]
    pub fn world_sync(&mut self, block: &mut Block, op: Op, arg: u32) {
        self.device_barrier(block);
        if block.id() == 0 {
            self.host_call(block, op, arg);
        }
        self.device_barrier(block);
    }

    /// Waits until every rank of this device has called it.
    #[inline(always)]
    pub fn device_barrier(&mut self, block: &mut Block) {
        self.device_barrier_as(block, Call::Barrier)
    }

    /// [`device_barrier`](Self::device_barrier), reported to the watchdog
    /// as part of `call`.
    #[inline(always)]
    pub fn device_barrier_as(&mut self, block: &mut Block, call: Call) {
        let (word, _) = self.ctx().barrier();
        let ranks = self.ctx().ranks;
        self.counted_barrier(block, call, (word, ranks), block.id() == 0)
    }

    /// Waits until `ranks` ranks of this device have arrived at `word`;
    /// `first`: this rank is the one that arrives with the big add (one
    /// rank of the `ranks`, the same one every time).
    #[inline(always)]
    fn counted_barrier(
        &mut self,
        block: &mut Block,
        call: Call,
        (word, ranks): (*mut u32, u32),
        first: bool,
    ) {
        self.check_none_pending(block, call);
        // Every thread's writes precede the leader's arrival.
        block.sync();
        if ranks == 1 {
            // This rank alone: the block's barrier is the barrier, and the
            // atomics in device memory are saved.
            return;
        }
        // One word, as cooperative groups' grid barrier: one rank adds
        // FLIP - (ranks - 1), the others 1, so the top bit flips with the
        // last arrival's own atomic, whichever rank that is, and the count
        // is back at 0 (no second atomic after it, which cost the last
        // arrival a round trip to memory before the others could go). The
        // arrival's atomic returns the phase to wait out.
        let big = FLIP - (ranks - 1);
        let mut phase: Option<u32> = None;
        self.wait_until(block, call, [ranks, 0, 0], || {
            // SAFETY: the barrier word lives for the whole run.
            unsafe {
                let (old, now) = match phase {
                    None => {
                        let add = if first { big } else { 1 };
                        let old = arch::fetch_add(word, add, Ordering::AcqRel, Scope::Gpu);
                        phase = Some(old & FLIP);
                        (old, old.wrapping_add(add))
                    }
                    // Acquire polls: relaxed ones and a fence after the
                    // flip measured slower (fewer ranks fit, and 0.2-0.5
                    // us more a barrier on an H200).
                    Some(p) => (p, arch::load_acquire(word, Scope::Gpu)),
                };
                if now & FLIP != old & FLIP {
                    return Ok(0);
                }
                // The ranks arrived so far, for the watchdog.
                let count = now & COUNT;
                Err(if count >= big { count - big + 1 } else { count })
            }
        });
    }

    /// Starts (`start`) or stops host timer `id` once every rank of the
    /// world has called it. Each process's host measures the time.
    #[inline(always)]
    pub fn timer(&mut self, block: &mut Block, id: u32, start: bool) {
        let world = self.world(block);
        self.barrier(block, world);
        if block.id() == 0 {
            let op = if start { Op::TimerStart } else { Op::TimerStop };
            self.host_send(block, op, id, Payload::EMPTY);
        }
    }
}
