//! The other processes of a job as a rank sees them: how each is reached
//! ([`Route`]) and where its memory is mapped ([`Peer`], one entry of the
//! run's peer table, [`RankContext::peer`](super::RankContext::peer)).

use super::codes::codes;
use super::context::{mailbox_offset, mailbox_slot, stage_offset};
use super::STAGE_HALF;
use bytemuck::{Pod, Zeroable};

codes! {
    /// How the ranks of one process are reached.
    Route {
        Local = 0 => "local (same GPU)",
        Direct = 1 => "direct (peer-mapped GPU)",
        Host = 2 => "through the host",
        Nvshmem = 3 => "NVSHMEM (from the rank)",
    }
}

/// One process of the job as seen from this one.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Peer {
    /// World rank of its rank 0.
    pub first: u32,
    /// Its ranks.
    pub ranks: u32,
    /// [`Route`] from this process to it.
    pub route: u32,
    /// Its node: processes on one host share the index.
    pub node: u32,
    /// Its index among the processes of its node.
    pub node_index: u32,
    /// Its NVSHMEM processing element (meaningful where its window entries
    /// have the NVSHMEM route), with [`PE_CALLS`] set where the rank must
    /// call NVSHMEM even if NVSHMEM maps that process's memory here.
    pub pe: u32,
    /// Its `[ranks][TAGS]` notification counters, mapped here (direct
    /// route; 0 otherwise).
    pub notifications: u64,
    /// The same counters as an address of this process's NVSHMEM symmetric
    /// heap, which NVSHMEM translates to that process's (0 without NVSHMEM).
    pub symmetric_notifications: u64,
}

/// In [`Peer::pe`]: move the data with NVSHMEM's calls, not through the
/// mapping `nvshmem_ptr` gives (`DCUDA_NVSHMEM_CALLS=1`: the path to peers
/// across InfiniBand, run where NVLink joins them, for tests and
/// comparison).
pub const PE_CALLS: u32 = 1 << 31;

impl Peer {
    /// Its device rank `dev`'s mailbox word of `step` and `parity` of
    /// communicator slot `slot`, mapped here (direct route only).
    #[inline(always)]
    pub fn mailbox(&self, dev: u32, slot: u32, parity: u32, step: u32) -> *mut u64 {
        let offset = mailbox_offset(self.ranks) + mailbox_slot(dev, slot, parity, step);
        (self.notifications + offset) as *mut u64
    }

    /// Half `half` of its device rank `dev`'s staging area, mapped here
    /// (direct route only).
    #[inline(always)]
    pub fn stage(&self, dev: u32, half: u32) -> *mut u8 {
        let offset = stage_offset(self.ranks) + ((dev * 2 + half) as usize * STAGE_HALF) as u64;
        (self.notifications + offset) as *mut u8
    }

    /// How to reach it (an unknown value goes through the host).
    #[inline(always)]
    pub fn route(&self) -> Route {
        Route::from_u32(self.route).unwrap_or(Route::Host)
    }
}
