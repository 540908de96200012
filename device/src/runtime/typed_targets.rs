//! Typed puts to put targets: a typed put whose destination was looked up
//! and checked once ([`Runtime::put_target`]), so that a strided halo put
//! every step pays only its datatypes' checks and its copy. The window
//! lookup it skips (communicator, peer table, window entry, loaded one
//! after another) was measured at about 0.4 µs of a typed column's put
//! between two H200s (`docs/design.md`, 2026-11-28).

use super::notify::direct_scope;
use super::put_targets::{
    halves, slot_window, word, PutTarget, COUNT, COUNTERS, DST, KEY, MATCHED, ROUTE,
};
use super::spread::move_elements;
use super::typed::Way;
use super::Runtime;
use crate::abi::{counter_index, Call, Fault, Route};
use crate::arch::{self, Ordering};
use crate::block::Block;
use crate::layout::Layout;
use crate::memory::{DeviceCopy, DeviceSlice};

impl Runtime {
    /// Writes the elements of `local` that `mine` names to the elements of
    /// `to` that `remote` names (element `e` to element `e`), then bumps
    /// `tag` there if given. `remote` is counted from the target's start
    /// and must lie within its count. On this device and to mapped GPUs
    /// the rank's threads copy and the leader signals; the other routes
    /// take the general typed put.
    #[inline(always)]
    pub fn put_typed_to<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        block: &mut Block,
        to: PutTarget<T>,
        remote: R,
        (local, mine): (DeviceSlice<T>, L),
        tag: Option<u32>,
    ) {
        let call = if tag.is_some() {
            Call::PutNotifyTypedTo
        } else {
            Call::PutTypedTo
        };
        if let Some(tag) = tag {
            self.check_user_tag(block, call, tag);
        }
        self.check_live_target(block, call, &to);
        let sides = (&local, &mine);
        let (theirs, size) = self.check_typed_sides(block, (call, Way::Put), &remote, sides);
        let slot = to.slot();
        let count = word(slot, COUNT);
        if theirs.extent > count {
            let target = halves(word(slot, KEY)).0 as u64;
            let values = [theirs.extent.saturating_sub(1), count, target, 1];
            self.fail(block, call, Fault::PutTargetTooShort, values);
        }
        let (dev, flags) = halves(word(slot, ROUTE));
        let route = Route::from_u32(flags & 0xff).unwrap_or(Route::Host);
        let (Some(scope), false) = (direct_scope(route), flags & MATCHED != 0) else {
            return self.put_typed_general(block, slot, remote, (local, mine), tag);
        };
        let (from, dst) = (local.as_ptr(), word(slot, DST) as *mut T);
        // Every thread's writes to the source are done before the copy.
        block.sync();
        let limits = (local.len() as u64, count);
        // SAFETY: inside the rank kernel, both shapes checked above: every
        // fixed offset is below the extent checked against its buffer (the
        // local slice, the target's count, which `put_target` checked
        // against the window), and the others are checked.
        let skipped =
            unsafe { move_elements(block, (mine, remote, (0, size)), (from, dst), limits) };
        if skipped > 0 {
            self.fail(block, call, Fault::TypeIndex, [u64::MAX, skipped, 0, 0]);
        }
        if let Some(tag) = tag {
            // Every thread's copy is done before the release.
            block.sync();
            let counters = word(slot, COUNTERS) as *mut u32;
            let counter = counters.wrapping_add(counter_index(dev, tag));
            block.leader(|_| {
                // SAFETY: in the target's counter array.
                unsafe { arch::add(counter, 1, Ordering::Release, scope) }
            });
        }
    }

    /// A typed put to a target on a route the rank does not move itself
    /// (the host's, NVSHMEM's) or on a matched window: the general typed
    /// put, with its checks again. Out of line: the direct path's
    /// registers do not pay for the host's packing.
    #[inline(never)]
    fn put_typed_general<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        block: &mut Block,
        slot: u32,
        remote: R,
        local: (DeviceSlice<T>, L),
        tag: Option<u32>,
    ) {
        let (win, (target, offset)) = slot_window(slot);
        self.typed(block, (win, false), (target, offset, remote), local, tag)
    }
}
