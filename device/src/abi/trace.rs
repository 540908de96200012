//! The records of a traced run: one span per user phase or runtime call,
//! written by each rank's leader thread into its part of the trace buffer.

use bytemuck::{Pod, Zeroable};

/// [`TraceSpan::what`] bit of a user phase (`trace_begin`/`trace_end`);
/// without it, `what` is the [`Call`](super::Call) code of a runtime call.
pub const TRACE_PHASE: u32 = 1 << 31;

/// Phases a rank may have open at once; deeper ones are recorded but never
/// ended (the host reports them).
pub const TRACE_DEPTH: usize = 8;

/// One span of a rank, in the device clock (`%globaltimer`, ns).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct TraceSpan {
    /// When it began.
    pub start: u64,
    /// When it ended; 0 while a phase is open.
    pub end: u64,
    /// [`TRACE_PHASE`], or the call's code.
    pub what: u32,
    /// A phase's name length; a call's peer rank in its communicator
    /// (target, destination, source or root), `u32::MAX` for none.
    pub peer: u32,
    /// A phase's name (device address of its UTF-8 bytes); a call's bytes
    /// (or, for waits, its count).
    pub arg: u64,
}
