//! The dCUDA device runtime: communicators, windows, notified remote memory
//! access, notification matching, barriers, collectives, host calls
//! (timers, logging) and error reporting. [`Rank`](crate::Rank) is its public face; here each
//! subsystem keeps its own state, private to its module, and works on the
//! block through its `Block`.
//!
//! On one GPU notified access never involves the host: the sending block
//! copies into the target window, synchronises, and one thread adds to the
//! target's per-tag counter with a gpu-scoped release; the target's leader
//! thread polls its counters with acquire loads. The host is only asked for
//! what needs it (other processes, timers, logging, host round trips),
//! through one shared ring in pinned host memory.

mod collective;
mod comm;
mod fault;
mod gathers;
mod host;
mod leaders;
mod local_copies;
mod log;
mod matching;
mod message_inbox;
mod message_lists;
mod message_logs;
mod message_match;
mod message_peer;
mod message_peer_send;
mod message_probe;
mod message_receive;
mod message_send;
mod message_small;
mod message_split;
mod message_stamps;
mod messages;
mod notify;
mod put_targets;
mod rma;
mod route;
mod scans;
mod slices;
mod split;
pub(crate) mod split_phase;
mod spread;
mod streams;
mod symmetric;
mod sync;
mod trace;
mod typed;
mod typed_host;
mod vectors;
mod wait;
mod window;

pub use comm::{Comm, CommKind, SplitType};
pub use matching::{Match, Source};
pub use messages::Status;
pub use notify::MAX_NOTIFY_EACH;
pub use put_targets::PutTarget;
pub use window::Window;

use crate::abi::{RankContext, STATUS_FINISHED};
use crate::arch::{self, Scope};
use crate::block::Block;

/// Words of the run's context.
const CONTEXT_WORDS: usize = core::mem::size_of::<RankContext>() / 8;
const _: () = assert!(core::mem::size_of::<RankContext>().is_multiple_of(8));

// The rank's copy of the run's context. Every acquire load (each poll of a
// wait) invalidates the L1 cache on the GPU, so context fields read from
// global memory after a wait cost an L2 round trip each, in dependent
// chains; from shared memory they cost a few cycles.
crate::shared_array!(static DCUDA_CONTEXT: [u64; CONTEXT_WORDS]);

/// Processes whose records a rank keeps in its shared memory: in a job of
/// at most this many, the shared context's `peers` points at the rank's
/// copy, so finding a rank's process (every access to another process's
/// rank) reads no global memory, which after a wait's acquire costs an L2
/// round trip a load.
const SHARED_PEERS: usize = 8;
const PEER_WORDS: usize = SHARED_PEERS * core::mem::size_of::<crate::abi::Peer>() / 8;
const _: () = assert!(core::mem::size_of::<crate::abi::Peer>().is_multiple_of(8));
const _: () = assert!(core::mem::offset_of!(RankContext, peers).is_multiple_of(8));
crate::shared_array!(static DCUDA_PEERS: [u64; PEER_WORDS]);

/// One rank's runtime state: each subsystem's own state (the run's
/// context is in shared memory, at a fixed address).
pub(crate) struct Runtime {
    windows: window::Windows,
    counters: notify::Counters,
    host: host::HostChannel,
    tests: wait::PollStreak,
    collectives: collective::Collectives,
    leaders: leaders::Leaders,
    messages: message_logs::MessageState,
    comms: comm::Comms,
    tracer: trace::Tracer,
    split_phase: split_phase::SplitPhase,
    put_targets: put_targets::PutTargets,
}

impl Runtime {
    /// Copies the run's context into this rank's shared memory with the
    /// block copy; [`Runtime::new`] may follow only after a barrier.
    ///
    /// # Safety
    /// `context` is the run's context, valid and unchanged for the launch.
    #[inline(always)]
    pub unsafe fn stage_context(context: *const RankContext, block: &Block) {
        let to = DCUDA_CONTEXT.as_mut_ptr() as *mut u8;
        // The context but its `peers` word, which the leader writes: the
        // table's address, or its shared copy's in a small job (so no
        // lookup pays a choice between the two).
        let (size, at) = (
            core::mem::size_of::<RankContext>(),
            core::mem::offset_of!(RankContext, peers),
        );
        // SAFETY: the context (the caller's promise) into its shared copy,
        // of the same size, word `at` apart; its peer table, `processes`
        // records, into the array that holds up to `SHARED_PEERS`.
        unsafe {
            let from = context as *const u8;
            block.copy(to, from, at);
            block.copy(to.add(at + 8), from.add(at + 8), size - at - 8);
            let (processes, peers) = ((*context).processes as usize, (*context).peers);
            let mut table = peers;
            if processes <= SHARED_PEERS {
                let copy = DCUDA_PEERS.as_mut_ptr() as *mut u8;
                let bytes = processes * core::mem::size_of::<crate::abi::Peer>();
                block.copy(copy, peers as *const u8, bytes);
                table = copy as u64;
            }
            block.leader(|_| (to.add(at) as *mut u64).write(table));
        };
        // In the prologue, before its barrier: a kernel's body then keeps
        // only the shared accesses it uses (`tests/ptx_instructions.rs`).
        trace::reset(block);
    }

    /// The state of a rank at the start of its kernel, over the context
    /// that [`Runtime::stage_context`] copied. Nothing is set up here:
    /// state that needs it is set up by its first use (notification
    /// counters, ring credit), so a kernel pays only for what it uses.
    #[inline(always)]
    pub fn new() -> Runtime {
        Runtime {
            windows: window::Windows::default(),
            counters: notify::Counters::default(),
            host: host::HostChannel::default(),
            tests: wait::PollStreak::default(),
            collectives: collective::Collectives::default(),
            leaders: leaders::Leaders::default(),
            messages: message_logs::MessageState::default(),
            comms: comm::Comms::default(),
            tracer: trace::Tracer::default(),
            split_phase: split_phase::SplitPhase::default(),
            put_targets: put_targets::PutTargets::default(),
        }
    }

    /// The run's context (the rank's copy in shared memory).
    #[inline(always)]
    pub fn ctx(&self) -> &RankContext {
        // SAFETY: copied from the host's context by `stage_context` before
        // any `Runtime` exists; the shared copy lives as long as the block.
        // Its address is a constant, so no register or stack slot holds it.
        unsafe { &*(DCUDA_CONTEXT.as_mut_ptr() as *const RankContext) }
    }

    /// After the rank body: the clock reading of a traced run, then tell
    /// the watchdog this rank is done (one store by one thread, no
    /// barrier).
    #[inline(always)]
    pub fn finish(&mut self, block: &mut Block) {
        self.check_none_pending_at_end(block);
        self.trace_clock_sync(block);
        let ctx = self.ctx();
        let status = ctx.status(block.id());
        let messages = self.messages.used();
        block.leader(|_| {
            if messages {
                // A position reserved ahead must not hold its log's tail.
                message_send::give_back(ctx);
            }
            // SAFETY: the status slot is this rank's own.
            unsafe {
                arch::store_relaxed(&raw mut (*status).state, STATUS_FINISHED, Scope::System)
            };
        });
    }
}
