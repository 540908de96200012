//! The records of communicators made by `split` and `dup`: what a rank
//! brings to a split ([`SplitEntry`]), what it keeps of each communicator
//! ([`CommRecord`]), and the payload of a communicator's step through the
//! hosts ([`CommSync`]).

use super::codes::codes;
use bytemuck::{Pod, Zeroable};

/// What one rank brings to a `split`: written to the run's exchange
/// (`RankContext::split_entry`), read by every rank of the communicator
/// being split.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct SplitEntry {
    /// Its color (`u32::MAX`: in no new communicator).
    pub color: u32,
    /// Its key: new ranks are ordered by key, then by old rank.
    pub key: u32,
    /// The lowest context id it may use for a new communicator.
    pub next_context: u32,
    /// The communicator slots it has in use, one bit each.
    pub live: u32,
}

/// One rank's communicator made by `split` or `dup`, as the rank sees it:
/// kept in device memory, so that a window can find its communicator.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct CommRecord {
    /// Context id (0: the slot is free).
    pub context: u32,
    /// The rank's index in it.
    pub rank: u32,
    /// Its ranks.
    pub size: u32,
    /// The start of its part of its slot's table: its ranks' world ranks,
    /// then its representatives'.
    pub offset: u32,
    /// Its ranks on this device.
    pub local: u32,
    /// The lowest device rank among them.
    pub lead: u32,
    /// The processes holding its ranks.
    pub reps: u32,
    /// This device's index among them.
    pub rep: u32,
    /// Windows created on it so far (the next one's generation - 1).
    pub windows: u32,
    /// Reserved.
    pub _pad: u32,
}

/// The payload of a communicator's step through the hosts (`Op::CommSync`,
/// whose argument is the communicator's context id): which communicator,
/// so that the host reads its ranks and processes from the tables.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct CommSync {
    /// [`CommSyncKind`].
    pub kind: u32,
    /// The communicator's slot.
    pub slot: u32,
    /// The start of its part of the slot's tables.
    pub offset: u32,
    /// Its ranks.
    pub size: u32,
    /// The processes holding its ranks.
    pub reps: u32,
    /// Reserved.
    pub _pad: [u32; 3],
}

codes! {
    /// What a communicator's step through the hosts does besides syncing.
    CommSyncKind {
        Barrier = 0 => "barrier",
        Split = 1 => "split exchange",
    }
}
