//! The dCUDA device runtime: communicators, windows, notified remote memory
//! access, notification matching, barriers, collectives, host calls
//! (timers, logging) and error reporting. [`Rank`](crate::Rank) is its public face; here each
//! subsystem keeps its own state, private to its module, and works on the
//! block through [`Block`].
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
mod message_logs;
mod messages;
mod notify;
mod rma;
mod route;
mod scans;
mod slices;
mod split;
mod streams;
mod sync;
mod trace;
mod vectors;
mod wait;
mod window;

pub use comm::{Comm, CommKind, SplitType};
pub use matching::{Match, Source};
pub use messages::Status;
pub use window::Window;

use crate::abi::{RankContext, STATUS_FINISHED};
use crate::arch::{self, Scope};
use crate::block::Block;

/// One rank's runtime state: the run's context and each subsystem's own
/// state.
pub(crate) struct Runtime {
    context: *const RankContext,
    windows: window::Windows,
    counters: notify::Counters,
    host: host::HostChannel,
    tests: wait::PollStreak,
    collectives: collective::Collectives,
    leaders: leaders::Leaders,
    comms: comm::Comms,
    tracer: trace::Tracer,
}

impl Runtime {
    /// The state of a rank at the start of its kernel. Nothing is set up
    /// here: state that needs it is set up by its first use (notification
    /// counters, ring credit), so a kernel pays only for what it uses.
    #[inline(always)]
    pub fn new(context: *const RankContext) -> Runtime {
        Runtime {
            context,
            windows: window::Windows::default(),
            counters: notify::Counters::default(),
            host: host::HostChannel::default(),
            tests: wait::PollStreak::default(),
            collectives: collective::Collectives::default(),
            leaders: leaders::Leaders::default(),
            comms: comm::Comms::default(),
            tracer: trace::Tracer::default(),
        }
    }

    /// The run's context.
    #[inline(always)]
    pub fn ctx(&self) -> &RankContext {
        // SAFETY: the host passes a valid context for the whole launch.
        unsafe { &*self.context }
    }

    /// After the rank body: the clock reading of a traced run, then tell
    /// the watchdog this rank is done (one store by one thread, no
    /// barrier).
    #[inline(always)]
    pub fn finish(&self, block: &Block) {
        self.trace_clock_sync(block);
        let status = self.ctx().status(block.id());
        block.leader(|_| {
            // SAFETY: the status slot is this rank's own.
            unsafe {
                arch::store_relaxed(&raw mut (*status).state, STATUS_FINISHED, Scope::System)
            };
        });
    }
}
