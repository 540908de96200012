//! The device–host ABI: every structure the device and the host both read,
//! defined once and compiled into both, so the layouts cannot drift apart.
//! All of it is plain data (`bytemuck::Pod`): addresses are `u64`, and the
//! accessors of [`RankContext`] compute every index in one place.
//!
//! * [`context`]: the run's context, how ranks find the runtime's memory
//!   and each other;
//! * [`command`]: the device-to-host commands and their typed decoding;
//! * [`comm_records`]: the records of communicators made by split and dup;
//! * [`ring`]: how commands and replies cross the bus (self-validating
//!   8-byte words);
//! * [`records`]: window entries, matching records, wait status, errors;
//! * [`laid`]: the header of a typed piece the host places at the target;
//! * [`peer`]: the other processes, how each is reached and mapped.

mod codes;
pub mod comm_records;
pub mod command;
pub mod context;
pub mod laid;
pub mod peer;
pub mod peer_log;
pub mod records;
pub mod ring;
pub mod trace;

pub use comm_records::{CommRecord, CommSync, CommSyncKind, SplitEntry};
pub use command::{Command, DecodeError, LogArg, Op, Request, Transfer, INLINE};
pub use context::{
    counter_index, mailbox_offset, mailbox_slot, stage_offset, RankContext, TABLE_SPAN,
};
pub use laid::{LaidPiece, LAID_HEADER};
pub use peer::{Peer, Route, PE_CALLS};
pub use peer_log::{peer_span, PeerLogs, PEER_EAGER, PEER_LOG, PEER_LOGS_MAX};
pub use records::{
    Call, ErrorRecord, Fault, MatchRecord, MessageRecord, WaitStatus, Want, WindowEntry,
    STATUS_FINISHED,
};
pub use ring::{Reply, RingEntry};
pub use trace::{TraceSpan, TRACE_DEPTH, TRACE_PHASE};

/// Tags a user may notify with: `0..USER_TAGS`.
pub const USER_TAGS: u32 = 256;
/// All tags: `USER_TAGS..TAGS` are reserved for the library's own traffic
/// (collectives, messages), so that it never collides with a user's.
pub const TAGS: u32 = 640;
/// Windows live at once per rank.
pub const MAX_WINDOWS: usize = 32;
/// Words of a rank's record in a collective's slots (`RankContext::collective_slots`).
pub const SLOT_WORDS: usize = 4;
/// Communicators live at once on a device: the world, the device and up
/// to `MAX_COMMS - 2` made by `split` or `dup`. A communicator has the same
/// slot on every process that holds one of its ranks.
pub const MAX_COMMS: usize = 16;
/// Steps of a collective between devices that a call may take: recursive
/// doubling over up to 64 devices plus its two folding steps.
pub const MAILBOX_STEPS: usize = 8;
/// The most processes a collective or a split between devices may span.
pub const MAX_SPANNED: u32 = 64;
/// Words of each rank's mailbox: one per step of each of two parities of
/// each communicator slot.
pub const MAILBOX_WORDS: usize = MAX_COMMS * 2 * MAILBOX_STEPS;
/// [`Transfer::window`] of a write to the target's mailbox: the library's
/// own memory, set up by the host for the run (not a user window).
pub const MAILBOX_WINDOW: u32 = u32::MAX - 1;
/// The first reserved tag, of a collective step between devices: slot `c`,
/// parity `p`, step `s` notifies
/// `COLLECTIVE_TAGS + (c * 2 + p) * MAILBOX_STEPS + s`.
pub const COLLECTIVE_TAGS: u32 = USER_TAGS;
/// The first reserved tag of a vector exchange between devices: slot `c`
/// announces room with `VECTOR_TAGS + 2 * c` and data with
/// `VECTOR_TAGS + 2 * c + 1`.
pub const VECTOR_TAGS: u32 = COLLECTIVE_TAGS + (MAX_COMMS * 2 * MAILBOX_STEPS) as u32;
const _: () = assert!(VECTOR_TAGS as usize + 2 * MAX_COMMS <= TAGS as usize);
/// Bytes of each half of a rank's staging area: where another process's
/// representative writes the pieces of a vector exchange, and where a
/// typed transfer through the host packs its pieces. A MiB of elements
/// and a piece's header (rounded to 256 bytes, which keeps the halves
/// aligned): between two processes MPI moves one message of a MiB faster
/// than several smaller ones, more than their overlap gains, so a typed
/// MiB went 17% faster as one piece than as five of 240 KiB, 9% faster
/// than as two (`bench/results/2026-11-29-stage-half-h200x2`). The cost is
/// device memory in jobs of several processes: 2 MiB a rank (a run of one
/// process has no staging).
pub const STAGE_HALF: usize = 1024 * 1024 + 256;
/// Bytes of a piece of a vector exchange (in the first part of a half):
/// small enough that the pieces of a stream overlap.
pub const STREAM_PIECE: usize = 64 * 1024;
const _: () = assert!(STREAM_PIECE <= STAGE_HALF);
/// [`Transfer::window`] of a write to the target's staging area.
pub const STAGE_WINDOW: u32 = u32::MAX - 2;
/// The reserved tag a receiver notifies a sender with once it has copied a
/// rendezvous message out of the sender's buffer.
pub const SEND_DONE_TAG: u32 = VECTOR_TAGS + 2 * MAX_COMMS as u32;
/// The reserved tag a receiver notifies a sender of a mapped GPU with once
/// it has received a message that went through the hosts: until every such
/// message is received, the sender's later ones to mapped GPUs go through
/// the hosts too, so that each receiver takes them in order.
pub const HOST_MESSAGE_TAG: u32 = SEND_DONE_TAG + 1;
/// The reserved tag a receiver notifies a waiting sender of its device
/// with when it hands it a part of a long message to copy (the receiver's
/// destination is in the sender's envelope).
pub const SPLIT_ASK_TAG: u32 = HOST_MESSAGE_TAG + 1;
/// The reserved tag a sender notifies the receiver with once it has
/// copied the part it was handed.
pub const SPLIT_DONE_TAG: u32 = SPLIT_ASK_TAG + 1;
const _: () = assert!(SPLIT_DONE_TAG < TAGS);
/// Records in each rank's message log, and in its inbox: messages sent to
/// it and not yet received. Past that, a sender of the rank's device waits
/// in a list the receiver scans, and messages from other processes wait at
/// the receiver's host, which delivers the one the receiver waits for
/// through the rank's express slot.
pub const MSG_LOG: usize = 32;
/// Messages of at most this many bytes travel inside their record (eager);
/// a longer one is copied by the receiver from where it waits
/// (rendezvous). A record is 256 bytes, of which this is what its header
/// leaves.
pub const EAGER: usize = 136;
/// Records in each rank's matching log (notifications on matched windows).
pub const MATCH_LOG: usize = 128;
/// [`Transfer::window`] of a notification without a window.
pub const NO_WINDOW: u32 = u32::MAX;
/// The tag of a transfer that notifies nobody.
pub const NO_TAG: u32 = u32::MAX;

/// Communicator context ids of the communicators every run has. Each
/// communicator has its own, so that windows and notifications of one are
/// never taken for another's.
pub mod contexts {
    /// The world: every rank of the job.
    pub const WORLD: u32 = 0;
    /// The ranks of one device.
    pub const DEVICE: u32 = 1;
    /// The first context id of a communicator made by `split` or `dup`.
    pub const FIRST_SPLIT: u32 = 2;
}
