//! Typed transfers to ranks of other processes that the host reaches: the
//! elements go through this rank's staging area (`2 × STAGE_HALF` bytes)
//! in pieces, packed or unpacked by all of its threads, and each
//! contiguous run of the target's layout in a piece is one access the
//! host moves. Correct for every layout; as fast as the host's accesses
//! allow, which for many short runs (a column) is slow: pipelining the
//! packing with the host's transfer is not built yet.

use super::window::{Target, Window};
use super::Runtime;
use crate::abi::{Call, Fault, Op, Transfer, NO_TAG, STAGE_HALF};
use crate::block::Block;
use crate::layout::walk::Walk;
use crate::memory::{DeviceCopy, DeviceSlice};

impl Runtime {
    /// Moves a checked typed put (`get` false) or get of `size` elements
    /// through the host, with notification `tag` (or [`NO_TAG`]) after the
    /// last of it. Every thread's earlier writes to the source are done.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn typed_through_host<T: DeviceCopy, R: Walk, L: Walk>(
        &mut self,
        block: &mut Block,
        (call, get): (Call, bool),
        (win, t): (&Window<T>, &Target),
        (offset, remote): (usize, R),
        (local, mine): (DeviceSlice<T>, L),
        size: u64,
        tag: u32,
    ) {
        let elem = core::mem::size_of::<T>() as u64;
        let per_piece = (2 * STAGE_HALF) as u64 / elem.max(1);
        if per_piece == 0 {
            // An element larger than the whole staging area.
            let values = [t.place.world as u64, elem, 0, 0];
            self.fail(block, call, Fault::TypedThroughHost, values);
        }
        let stage = self.ctx().stage(block.id(), 0) as *mut T;
        let at = |e: u64, len: u64, piece: u64| Transfer {
            target: t.place.world,
            window: win.id,
            offset: (offset as u64 + e) * elem,
            local: stage.wrapping_add((piece) as usize) as u64,
            bytes: len * elem,
        };
        if size == 0 {
            if tag != NO_TAG {
                let op = if get { Op::Get } else { Op::Put };
                self.through_host(block, call, op, tag, at(0, 0, 0));
                self.wait_host(block, call);
            }
            return;
        }
        let threads = block.threads() as u64;
        let mut start = 0;
        while start < size {
            let n = per_piece.min(size - start);
            if !get {
                // SAFETY: elements start..start + n of a checked layout of
                // `local`; the staging area is this rank's, holding n.
                block.each_thread(|th| unsafe {
                    let mut e = start + th.index() as u64;
                    while e < start + n {
                        let v = local.as_ptr().add(mine.offset(e) as usize).read();
                        stage.add((e - start) as usize).write(v);
                        e += threads;
                    }
                });
                block.sync(); // Packed before the host reads it.
            }
            // Each run of the target's layout in this piece: one access.
            let mut e = start;
            while e < start + n {
                // SAFETY: below the checked layout's size.
                let (there, run) = unsafe { remote.run(e) };
                let len = run.min(start + n - e);
                let last = e + len == size;
                let op = if get { Op::Get } else { Op::Put };
                let note = if last { tag } else { NO_TAG };
                self.through_host(block, call, op, note, at(there, len, e - start));
                e += len;
            }
            // The host has read the piece (put), or written it (get).
            self.wait_host(block, call);
            if get {
                // SAFETY: as the packing above, the other way.
                block.each_thread(|th| unsafe {
                    let mut e = start + th.index() as u64;
                    while e < start + n {
                        let v = stage.add((e - start) as usize).read();
                        local.as_mut_ptr().add(mine.offset(e) as usize).write(v);
                        e += threads;
                    }
                });
                block.sync(); // Unpacked before the next piece arrives.
            }
            start += n;
        }
    }
}
