//! Window accesses to ranks of processes reached through NVSHMEM (the
//! NVSHMEM route of a window entry, `DCUDA_TRANSPORT=nvshmem`): the rank
//! moves the data and its notification itself, with no host in the path.
//!
//! The target's window and notification counters live in its process's
//! NVSHMEM symmetric heap; the host wrote their symmetric addresses (here)
//! into the window table and the peer table. Where NVSHMEM maps the
//! target's memory into this GPU (`nvshmem_ptr`: NVLink), the rank copies
//! and signals through that mapping exactly as on the direct route, since
//! NVSHMEM's own calls would do the same with a smaller copy loop;
//! elsewhere (InfiniBand) NVSHMEM's calls move the data and the signal, and
//! the access is complete at its target when the call returns
//! (`nvshmem_quiet`), so that whatever the rank hands the host afterwards
//! (a `notify`, a barrier) comes after it, as on the other routes.
//! Messages, collectives and typed transfers to those processes still go
//! through the hosts.
//!
//! Kept out of line: the other routes' inlined paths stay as they were.

use super::route::process_of;
use super::window::Target;
use super::Runtime;
use crate::abi::{counter_index, PE_CALLS};
use crate::arch::{self, nvshmem, Ordering, Scope};
use crate::block::Block;

impl Runtime {
    /// An access on the NVSHMEM route: the address here of `remote` (a
    /// symmetric address of the target's process) where NVSHMEM maps that
    /// memory into this GPU (`nvshmem_ptr`: NVLink), for the caller to
    /// copy through as on the direct route; else null, once NVSHMEM's
    /// calls have moved the data. Out of line, so that the other routes'
    /// inlined paths keep their registers.
    ///
    /// # Safety
    /// `remote` is the checked range of the target's window entry, `local`
    /// a valid slice of `bytes` bytes.
    #[inline(never)]
    pub(super) unsafe fn symmetric_route(
        &self,
        block: &mut Block,
        t: &Target,
        (remote, local): (*mut u8, *mut u8),
        bytes: usize,
        get: bool,
    ) -> *mut u8 {
        let pe = process_of(self.ctx(), t.place.world).pe;
        let here = mapped(remote, pe);
        if here.is_null() {
            self.symmetric_access(block, (remote, local), (bytes, pe & !PE_CALLS), get);
        }
        here
    }

    /// Moves `bytes` between `local` here and the symmetric address
    /// `remote` of processing element `pe` with NVSHMEM's calls by every
    /// thread (`get`: from there), after every thread's earlier writes of
    /// the source; complete at the target on return.
    ///
    /// # Safety
    /// `remote` is the checked range of the target's window entry, `local`
    /// a valid slice of `bytes` bytes.
    #[inline(always)]
    unsafe fn symmetric_access(
        &self,
        block: &mut Block,
        (remote, local): (*mut u8, *mut u8),
        (bytes, pe): (usize, u32),
        get: bool,
    ) {
        block.sync();
        access(remote, local, bytes, pe, get);
        block.sync();
        if !get {
            block.leader(|_| nvshmem::quiet());
        }
    }

    /// Notification `tag` to the target of an access on the NVSHMEM route,
    /// after its data: a system-scoped release on the counter where NVSHMEM
    /// maps it, as on the direct route, else NVSHMEM's fence and atomic
    /// add, complete on return. Out of line, as [`symmetric_route`](Self::symmetric_route).
    #[inline(never)]
    pub(super) fn symmetric_signal(&self, block: &mut Block, t: &Target, tag: u32) {
        let peer = process_of(self.ctx(), t.place.world);
        let counter = (peer.symmetric_notifications as *mut u32)
            .wrapping_add(counter_index(t.place.dev, tag));
        let here = mapped(counter.cast(), peer.pe) as *mut u32;
        let pe = peer.pe & !PE_CALLS;
        // Every thread's copy is done before the leader's release.
        block.sync();
        block.leader(|_| {
            // SAFETY: the target's counter, in its process's symmetric
            // heap, or where NVSHMEM maps it here.
            unsafe {
                if here.is_null() {
                    signal(counter, pe)
                } else {
                    arch::add(here, 1, Ordering::Release, Scope::System)
                }
            }
        });
    }
}

/// `nvshmem_ptr`, out of line; null where the host asked for NVSHMEM's
/// calls ([`PE_CALLS`]).
#[inline(never)]
fn mapped(remote: *mut u8, pe: u32) -> *mut u8 {
    if pe & PE_CALLS != 0 {
        return core::ptr::null_mut();
    }
    nvshmem::ptr(remote, pe)
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
