//! Where the *peer logs* are: the message logs that ranks of other
//! processes on mapped GPUs (the direct route) write into, so that a
//! message between the GPUs of a node never goes through a host.
//!
//! Each rank has one peer log per other process of its node (up to
//! [`PEER_LOGS_MAX`]), so that the senders of one process reserve records
//! among themselves, with a counter in their own GPU's memory: a sender's
//! only traffic over the mapping is its write. The logs live after the staging areas in the allocation that
//! begins with the notification counters (a run of several processes
//! only), so a GPU that maps a peer's counters reaches them too:
//!
//! * `[ranks][logs]` retired counts, written by the receiver;
//! * `[ranks][logs][PEER_LOG]` [`MessageRecord`]s.
//!
//! The senders' reserved counts, one per receiving world rank, are in
//! their own allocation ([`RankContext::peer_reserved`](super::RankContext)).
//!
//! A message of up to [`PEER_EAGER`] bytes takes consecutive records: its
//! header's inline payload, then whole records of payload.

use super::context::stage_offset;
use super::records::MessageRecord;
use super::{EAGER, STAGE_HALF};

/// Records in each peer log.
pub const PEER_LOG: usize = 128;
/// The most peer logs a rank has: messages from processes of its node
/// past that many go through the hosts.
pub const PEER_LOGS_MAX: u32 = 15;
/// The longest message a sender writes into a peer's log; a longer one,
/// or one that finds the log full, goes through the hosts.
pub const PEER_EAGER: usize = 8192;

const RECORD: usize = core::mem::size_of::<MessageRecord>();
// Three of the longest fit at once.
const _: () = assert!(peer_span(PEER_EAGER) as usize * 3 <= PEER_LOG);

/// Records a message of `bytes` bytes takes in a peer log.
#[inline(always)]
pub const fn peer_span(bytes: usize) -> u32 {
    if bytes <= EAGER {
        1
    } else {
        1 + (bytes - EAGER).div_ceil(RECORD) as u32
    }
}

/// Where a process's peer logs are: its ranks, and the logs each has.
#[derive(Clone, Copy)]
pub struct PeerLogs {
    /// The process's ranks.
    pub ranks: u32,
    /// The peer logs of each ([`PeerLogs::logs_for`] its node).
    pub logs: u32,
}

impl PeerLogs {
    /// Byte offset of the retired counts from the notification counters.
    #[inline(always)]
    const fn retired_offset(&self) -> u64 {
        stage_offset(self.ranks) + (self.ranks as usize * 2 * STAGE_HALF) as u64
    }

    /// The logs each rank of a process has when its node has
    /// `node_processes` processes.
    #[inline(always)]
    pub const fn logs_for(node_processes: u32) -> u32 {
        let others = node_processes.saturating_sub(1);
        if others < PEER_LOGS_MAX {
            others
        } else {
            PEER_LOGS_MAX
        }
    }

    #[inline(always)]
    const fn logs_per_rank(&self) -> u64 {
        self.logs as u64
    }

    /// Byte offset of the records (aligned for them).
    #[inline(always)]
    const fn records_offset(&self) -> u64 {
        let end = self.retired_offset() + self.ranks as u64 * self.logs_per_rank() * 4;
        end.div_ceil(RECORD as u64) * RECORD as u64
    }

    /// Bytes of the allocation that holds the counters, mailboxes,
    /// staging areas and peer logs.
    #[inline(always)]
    pub const fn end(&self) -> u64 {
        self.records_offset()
            + self.ranks as u64 * self.logs_per_rank() * (PEER_LOG * RECORD) as u64
    }

    /// Which of a receiver's peer logs the process of index `sender` on
    /// their node writes into, the receiver's process having index
    /// `receiver` there; `None` past the logs a rank has.
    #[inline(always)]
    pub const fn log_index(&self, sender: u32, receiver: u32) -> Option<u32> {
        let log = sender - (sender > receiver) as u32;
        if log < self.logs {
            Some(log)
        } else {
            None
        }
    }

    /// Device rank `dev`'s peer log `log` in the allocation at `base`: its
    /// records and its retired count.
    #[inline(always)]
    pub fn log_at(&self, base: u64, dev: u32, log: u32) -> (*mut MessageRecord, *mut u32) {
        let index = dev as u64 * self.logs_per_rank() + log as u64;
        let records = (base + self.records_offset()) as *mut MessageRecord;
        let retired = (base + self.retired_offset()) as *mut u32;
        (
            records.wrapping_add(index as usize * PEER_LOG),
            retired.wrapping_add(index as usize),
        )
    }
}
