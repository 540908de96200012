//! Where each rank's *peer log* is: the message log that ranks of other
//! processes on mapped GPUs (the direct route) write into, so that a
//! message between the GPUs of a node never goes through a host.
//!
//! It lives after the staging areas in the allocation that begins with the
//! notification counters (a run of several processes only), so a GPU that
//! maps a peer's counters reaches its peer logs too: `[2][ranks]` counters
//! (records reserved by senders, then retired by the receiver), then
//! `[ranks][PEER_LOG]` [`MessageRecord`]s. A message of up to
//! [`PEER_EAGER`] bytes takes consecutive records: its header's inline
//! payload, then whole records of payload.

use super::context::stage_offset;
use super::records::MessageRecord;
use super::{EAGER, STAGE_HALF};

/// Records in each rank's peer log.
pub const PEER_LOG: usize = 128;
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

/// Byte offset of the peer logs' counters from the notification counters
/// of a process with `ranks` ranks.
#[inline(always)]
pub const fn peer_log_offset(ranks: u32) -> u64 {
    stage_offset(ranks) + (ranks as usize * 2 * STAGE_HALF) as u64
}

/// Byte offset of the peer logs' records (aligned for them).
#[inline(always)]
pub const fn peer_records_offset(ranks: u32) -> u64 {
    let end = peer_log_offset(ranks) + ranks as u64 * 8;
    end.div_ceil(RECORD as u64) * RECORD as u64
}

/// Bytes of the allocation that holds the counters, mailboxes, staging
/// areas and peer logs of a process with `ranks` ranks.
#[inline(always)]
pub const fn peer_logs_end(ranks: u32) -> u64 {
    peer_records_offset(ranks) + (ranks as usize * PEER_LOG * RECORD) as u64
}

/// Device rank `dev`'s peer log in the allocation at `base` of a process
/// with `ranks` ranks: its records, reserved count and retired count.
#[inline(always)]
pub fn peer_log_at(base: u64, ranks: u32, dev: u32) -> (*mut MessageRecord, *mut u32, *mut u32) {
    let counters = (base + peer_log_offset(ranks)) as *mut u32;
    let records = (base + peer_records_offset(ranks)) as *mut MessageRecord;
    (
        records.wrapping_add(dev as usize * PEER_LOG),
        counters.wrapping_add(dev as usize),
        counters.wrapping_add((ranks + dev) as usize),
    )
}
