//! Typed transfers: `put`, `put_notify`, `get` and `get_notify` whose
//! local side, target side or both are [`Layout`]s. On this device and
//! to mapped GPUs every thread of the rank moves elements straight from
//! source to destination, element `e` of one datatype to element `e` of
//! the other; through the host (other processes) they go in packed pieces
//! (`typed_host.rs`).

use super::notify::direct_scope;
use super::rma::route_of;
use super::spread::move_elements;
use super::window::{Target, Window};
use super::Runtime;
use crate::abi::{Call, Fault, NO_TAG};
use crate::block::Block;
use crate::layout::Layout;
use crate::memory::{DeviceCopy, DeviceSlice};

/// Which way a typed transfer moves data.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    Put,
    Get,
}

impl Runtime {
    /// Checks a typed access and moves its data with every thread; returns
    /// the target for the notification, or `None` when the host moved it
    /// and notified with `tag`.
    #[inline(always)]
    fn typed_transfer<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        block: &mut Block,
        (call, way): (Call, Way),
        win: &Window<T>,
        (target, offset, remote): (u32, usize, R),
        (local, mine): (DeviceSlice<T>, L),
        tag: u32,
    ) -> Option<Target> {
        // The written side must name no element twice: 0 the target's, 1
        // the local one.
        let (put, get) = match way {
            Way::Put => (Some(0), None),
            Way::Get => (None, Some(1)),
        };
        // SAFETY: inside the rank kernel, every thread together.
        let (theirs, ours) = unsafe { (remote.shape(block, put), mine.shape(block, get)) };
        if let Some((fault, values)) = theirs.fault.or(ours.fault) {
            self.fail(block, call, fault, values);
        }
        if ours.size != theirs.size {
            self.fail(
                block,
                call,
                Fault::TypeMismatch,
                [ours.size, theirs.size, 0, 0],
            );
        }
        if ours.extent > local.len() as u64 {
            let last = ours.extent.saturating_sub(1);
            self.fail(
                block,
                call,
                Fault::TypeExtent,
                [last, local.len() as u64, 0, 0],
            );
        }
        // The target's checks name the elements past its window.
        let reach = theirs.extent.min(usize::MAX as u64) as usize;
        let t = self.target(block, call, win, target, offset, reach);
        if direct_scope(route_of(&t)).is_none() {
            // Every thread's writes to the source are done before any
            // thread packs it.
            block.sync();
            let sides = ((offset, remote), (local, mine));
            let (ends, get) = ((win, &t), way == Way::Get);
            self.typed_through_host(block, (call, get), ends, sides.0, sides.1, ours.size, tag);
            return None;
        }
        let there = (t.entry.base as *mut T).wrapping_add(offset);
        let here = local.as_mut_ptr();
        // Every thread's writes to the source (or reads of the
        // destination) are done before any thread copies.
        block.sync();
        let (from, to) = match way {
            Way::Put => (here as *const T, there),
            Way::Get => (there as *const T, here),
        };
        let (size, bytes) = (ours.size, core::mem::size_of::<T>());
        // The window's elements from `offset` on, and the local buffer's.
        let window = (t.entry.bytes / bytes.max(1) as u64).saturating_sub(offset as u64);
        let local_len = local.len() as u64;
        // SAFETY: inside the rank kernel, both shapes checked above; every
        // fixed offset is below the extent checked against its buffer (a
        // unit's offset is an element's divided by the unit), and the
        // others are checked.
        let skipped = unsafe {
            match way {
                Way::Put => {
                    let limits = (local_len, window);
                    move_elements(block, (mine, remote, (0, size)), (from, to), limits)
                }
                Way::Get => {
                    let limits = (window, local_len);
                    move_elements(block, (remote, mine, (0, size)), (from, to), limits)
                }
            }
        };
        if skipped > 0 {
            self.fail(block, call, Fault::TypeIndex, [u64::MAX, skipped, 0, 0]);
        }
        Some(t)
    }

    /// A typed put (`get` false) or get of `local`'s elements to or from
    /// rank `target`'s part of `win` (`remote`: target, element offset,
    /// datatype), with notification `notify` to the target when given.
    /// A get's data is there, for every thread, on return.
    #[inline(always)]
    pub fn typed<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        block: &mut Block,
        (win, get): (Window<T>, bool),
        remote: (u32, usize, R),
        local: (DeviceSlice<T>, L),
        notify: Option<u32>,
    ) {
        let call = match (get, notify) {
            (false, None) => Call::PutTyped,
            (false, Some(_)) => Call::PutNotifyTyped,
            (true, None) => Call::GetTyped,
            (true, Some(_)) => Call::GetNotifyTyped,
        };
        if let Some(tag) = notify {
            self.check_user_tag(block, call, tag);
        }
        let way = if get { Way::Get } else { Way::Put };
        let tag = notify.unwrap_or(NO_TAG);
        let t = self.typed_transfer(block, (call, way), &win, remote, local, tag);
        if get {
            block.sync();
        }
        if let (Some(tag), Some(t)) = (notify, t) {
            self.deliver(block, &win, &t, tag);
        }
    }
}
