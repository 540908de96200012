//! Window accesses to ranks of processes reached through NVSHMEM (the
//! NVSHMEM route of a window entry, `DCUDA_TRANSPORT=nvshmem`): the rank
//! moves the data and its notification itself, with no host in the path.
//!
//! The target's window and notification counters live in its process's
//! NVSHMEM symmetric heap; the host wrote their symmetric addresses (here)
//! into the window table and the peer table. Every access is complete at
//! its target when the call returns (`nvshmem_quiet`), so that whatever the
//! rank hands the host afterwards (a `notify`, a barrier) comes after it,
//! as on the other routes. Messages, collectives and typed transfers to
//! those processes still go through the hosts.
//!
//! Kept out of line: the other routes' inlined paths stay as they were.

use super::route::process_of;
use super::window::Target;
use super::Runtime;
use crate::abi::counter_index;
use crate::arch::nvshmem;
use crate::block::Block;

impl Runtime {
    /// Moves `bytes` between `local` here and the symmetric address
    /// `remote` of the target's process with every thread (`get`: from
    /// there), after every thread's earlier writes of the source.
    ///
    /// # Safety
    /// `remote` is the checked range of the target's window entry, `local`
    /// a valid slice of `bytes` bytes.
    #[inline(always)]
    pub(super) unsafe fn symmetric_access(
        &self,
        block: &mut Block,
        t: &Target,
        (remote, local): (*mut u8, *mut u8),
        bytes: usize,
        get: bool,
    ) {
        let pe = process_of(self.ctx(), t.place.world).pe;
        block.sync();
        access(remote, local, bytes, pe, get);
        block.sync();
    }

    /// Completes the rank's NVSHMEM accesses at their targets (after the
    /// block's barrier in [`symmetric_access`](Self::symmetric_access)).
    #[inline(always)]
    pub(super) fn symmetric_complete(&self, block: &mut Block) {
        block.leader(|_| nvshmem::quiet());
    }

    /// Notification `tag` to the target of an access moved by
    /// [`symmetric_access`](Self::symmetric_access): after its data, and
    /// complete on return.
    #[inline(always)]
    pub(super) fn symmetric_signal(&self, block: &mut Block, t: &Target, tag: u32) {
        let peer = process_of(self.ctx(), t.place.world);
        let counter = (peer.symmetric_notifications as *mut u32)
            .wrapping_add(counter_index(t.place.dev, tag));
        block.leader(|_| {
            // SAFETY: the target's counter, in its process's symmetric heap.
            unsafe { signal(counter, peer.pe) }
        });
    }
}

/// The data movement, out of line.
#[inline(never)]
unsafe fn access(remote: *mut u8, local: *mut u8, bytes: usize, pe: u32, get: bool) {
    if get {
        nvshmem::get_block(local, remote, bytes, pe)
    } else {
        nvshmem::put_block(remote, local, bytes, pe)
    }
}

/// The signal and the completion, out of line.
#[inline(never)]
unsafe fn signal(counter: *mut u32, pe: u32) {
    nvshmem::signal(counter, pe);
    nvshmem::quiet();
}
