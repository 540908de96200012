//! Tracing: when a run is traced (`trace` set in the context), each rank's
//! leader thread writes one [`TraceSpan`] per user phase and runtime call
//! into the rank's part of the trace buffer; the host reads them after the
//! run. Off, every hook is one uniform load and branch.

use super::wait::poll;
use super::Runtime;
use crate::abi::{Call, Fault, TraceSpan, TRACE_DEPTH, TRACE_PHASE};
use crate::arch::{self, Scope};
use crate::block::Block;

// The leader's span count (element 0) and the span indices of the open
// phases (from element 1). In shared memory and touched by the leader
// alone: kept in the rank's `Runtime`, every thread loaded and stored the
// count at every hook, and those loads (long-scoreboard stalls of all
// warps, ncu) were most of the traced Jacobi's 2.6%
// (`bench/results/2026-11-27-trace-stalls-h100`).
crate::shared_array!(static DCUDA_TRACE_STATE: [u32; 1 + TRACE_DEPTH]);

/// Sets the leader's span count to 0 at the rank's start, traced or not:
/// one store by the leader, which alone reads and writes it later.
#[inline(always)]
pub(super) fn reset(block: &Block) {
    block.leader(|_| DCUDA_TRACE_STATE.set(0, 0));
}

/// A rank's open phases, on every thread: `trace_end` checks the nesting
/// on all of them, since a failure stops the whole block.
#[derive(Default)]
pub(crate) struct Tracer {
    depth: u32,
}

impl Runtime {
    /// Whether this run is traced (the same on every thread).
    #[inline(always)]
    pub fn tracing(&self) -> bool {
        self.ctx().trace != 0
    }

    /// The start of a call: the leader's clock when traced, else 0.
    #[inline(always)]
    pub fn trace_clock(&self, block: &Block) -> u64 {
        if !self.tracing() {
            return 0;
        }
        block.leader(|_| arch::global_timer()).unwrap_or(0)
    }

    /// Records this rank's next span, `span()` on the leader thread (so
    /// that it reads the clock there), and tells the host how many there
    /// are; returns its index on the leader. One leader turn for all of
    /// it: every turn splits the leader's warp until it converges again;
    /// four turns a call cost the traced Jacobi 6.1%, two (this and the
    /// start clock) 2.7% (`bench/results/2026-11-25-trace-cost-h100`).
    #[inline(always)]
    fn trace_record(&mut self, block: &Block, span: impl FnOnce() -> TraceSpan) -> Option<u32> {
        let ctx = self.ctx();
        let (id, capacity) = (block.id(), ctx.trace_capacity);
        // SAFETY: this rank's own count, and its span `at` inside its part
        // of the trace buffer when it fits; the host reads both after the
        // run, so plain stores do.
        block.leader(|_| unsafe {
            let at = DCUDA_TRACE_STATE.get(0);
            DCUDA_TRACE_STATE.set(0, at.wrapping_add(1));
            ctx.trace_count(id).write(at.wrapping_add(1));
            if at < capacity {
                ctx.trace_span(id, at).write(span());
            }
            at
        })
    }

    /// Records runtime call `call`, begun at `start` ([`trace_clock`]),
    /// with its peer rank and bytes.
    ///
    /// [`trace_clock`]: Self::trace_clock
    #[inline(always)]
    pub fn trace_call(&mut self, block: &Block, start: u64, call: Call, (peer, arg): (u32, u64)) {
        if !self.tracing() {
            return;
        }
        self.trace_record(block, || TraceSpan {
            start,
            end: arch::global_timer(),
            what: call as u32,
            peer,
            arg,
        });
    }

    /// Opens phase `name`.
    #[inline(always)]
    pub fn trace_begin(&mut self, block: &Block, name: &'static str) {
        if !self.tracing() {
            return;
        }
        let depth = self.tracer.depth;
        let at = self.trace_record(block, || TraceSpan {
            start: arch::global_timer(),
            end: 0,
            what: TRACE_PHASE,
            peer: name.len() as u32,
            arg: name.as_ptr() as u64,
        });
        if let (Some(at), true) = (at, (depth as usize) < TRACE_DEPTH) {
            DCUDA_TRACE_STATE.set(1 + depth as usize, at);
        }
        self.tracer.depth += 1;
    }

    /// Closes the innermost open phase; fails without one.
    #[inline(always)]
    pub fn trace_end(&mut self, block: &mut Block) {
        if !self.tracing() {
            return;
        }
        if self.tracer.depth == 0 {
            self.fail(block, Call::TraceEnd, Fault::TraceUnbalanced, [0; 4]);
        }
        self.tracer.depth -= 1;
        let depth = self.tracer.depth as usize;
        if depth >= TRACE_DEPTH {
            return; // Too deep to track: the host reports it open.
        }
        let ctx = self.ctx();
        let (id, capacity) = (block.id(), ctx.trace_capacity);
        block.leader(|_| {
            let at = DCUDA_TRACE_STATE.get(1 + depth);
            if at < capacity {
                let end = ctx.trace_span(id, at);
                // SAFETY: this rank's own span, written by its `trace_begin`.
                unsafe { (&raw mut (*end).end).write(arch::global_timer()) };
            }
        });
    }

    /// At the end of a traced run, device rank 0's leader thread reads
    /// its clock, posts it, waits for the host to post its own, and reads
    /// its clock again, so that the host can place the device clock on its
    /// own (offset within half the round trip). One thread, no barrier:
    /// untraced kernels keep no trace of it but a branch.
    #[inline(always)]
    pub fn trace_clock_sync(&self, block: &Block) {
        if !self.tracing() || block.id() != 0 {
            return;
        }
        let ctx = self.ctx();
        let words = ctx.trace_clock as *mut u64;
        let status = ctx.status(0);
        block.leader(|_| {
            // SAFETY: the run's three clock words in host-mapped memory.
            unsafe {
                arch::store_release(words, arch::global_timer(), Scope::System);
                let host = words.wrapping_add(1);
                let ready = || match arch::load_acquire(host as *const u64, Scope::System) {
                    0 => Err(0),
                    _ => Ok(0),
                };
                if poll(ctx, status, Call::HostCall, [0; 3], ready).is_some() {
                    words.wrapping_add(2).write_volatile(arch::global_timer());
                }
            }
        });
    }
}
