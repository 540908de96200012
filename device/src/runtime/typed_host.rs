//! Typed transfers to ranks of other processes that the host reaches: the
//! elements go through this rank's staging area in pieces of one half
//! (`STAGE_HALF` bytes), packed or unpacked by all of its threads, and
//! each contiguous run of the target's layout in a piece is one access the
//! host moves. The halves alternate, so that the threads pack the next
//! piece while the host sends the last (or unpack one while the next
//! arrives), as seed 004 pipelines its packing. Correct for every layout;
//! many short runs (a column) make many accesses, which is slow.

use super::window::{Target, Window};
use super::Runtime;
use crate::abi::{Call, Fault, Op, Transfer, NO_TAG, STAGE_HALF};
use crate::arch::block::Thread;
use crate::block::{Block, Sum};
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
        let per_piece = STAGE_HALF as u64 / elem.max(1);
        if per_piece == 0 {
            // An element larger than half the staging area.
            let values = [t.place.world as u64, elem, 0, 0];
            self.fail(block, call, Fault::TypedThroughHost, values);
        }
        let halves = [0, 1].map(|h| self.ctx().stage(block.id(), h) as *mut T);
        let stage = |k: u64| halves[(k % 2) as usize];
        let op = if get { Op::Get } else { Op::Put };
        if size == 0 {
            if tag != NO_TAG {
                let none = (
                    t.place.world,
                    win.id,
                    offset as u64 * elem,
                    stage(0) as u64,
                    0,
                );
                self.through_host(block, call, op, tag, transfer(none));
                self.wait_host(block, call);
            }
            return;
        }
        let pieces = size.div_ceil(per_piece);
        let piece = |k: u64| (k * per_piece, per_piece.min(size - k * per_piece));
        // Accesses issued when each of the last two pieces was handed over:
        // a half is free again once its piece's accesses are complete.
        let mut handed = [self.host_issued(); 2];
        let mut skipped = 0;
        for k in 0..pieces {
            let (start, n) = piece(k);
            if !get {
                self.wait_host_until(block, call, (handed[(k % 2) as usize], [k as u32, 0, 0]));
                // SAFETY: elements start..start + n of a checked layout of
                // `local`; the half is this rank's, holding n, and free.
                skipped +=
                    unsafe { move_piece(block, (local, mine), (start, n), (stage(k), true)) };
                block.sync(); // Packed before the host reads it.
                self.hand_runs(
                    block,
                    (call, op),
                    (win, t),
                    (offset, remote),
                    (start, n),
                    (size, tag),
                    stage(k),
                );
                handed[(k % 2) as usize] = self.host_issued();
                continue;
            }
            if k == 0 {
                self.hand_runs(
                    block,
                    (call, op),
                    (win, t),
                    (offset, remote),
                    piece(0),
                    (size, tag),
                    stage(0),
                );
                handed[0] = self.host_issued();
            }
            if k + 1 < pieces {
                // The next piece's half was unpacked by the last turn.
                let next = piece(k + 1);
                self.hand_runs(
                    block,
                    (call, op),
                    (win, t),
                    (offset, remote),
                    next,
                    (size, tag),
                    stage(k + 1),
                );
                handed[((k + 1) % 2) as usize] = self.host_issued();
            }
            self.wait_host_until(block, call, (handed[(k % 2) as usize], [k as u32, 0, 0]));
            // SAFETY: as packing, the other way; the piece has arrived.
            skipped += unsafe { move_piece(block, (local, mine), (start, n), (stage(k), false)) };
            block.sync(); // Unpacked before its half is handed out again.
        }
        // The host has read every piece (put), or written it (get).
        self.wait_host(block, call);
        if skipped > 0 {
            self.fail(block, call, Fault::TypeIndex, [u64::MAX, skipped, 0, 0]);
        }
    }
}

/// The access of `(target, window, byte offset, local address, bytes)`.
#[inline(always)]
fn transfer((target, window, offset, local, bytes): (u32, u32, u64, u64, u64)) -> Transfer {
    Transfer {
        target,
        window,
        offset,
        local,
        bytes,
    }
}

impl Runtime {
    /// Hands the host one access per contiguous run of `remote` among
    /// elements `start..start + n`, whose data is (put) or goes (get) at
    /// `half`; the last element's carries `tag`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn hand_runs<T: DeviceCopy, R: Walk>(
        &mut self,
        block: &mut Block,
        (call, op): (Call, Op),
        (win, t): (&Window<T>, &Target),
        (offset, remote): (usize, R),
        (start, n): (u64, u64),
        (size, tag): (u64, u32),
        half: *mut T,
    ) {
        let elem = core::mem::size_of::<T>() as u64;
        let mut e = start;
        while e < start + n {
            // SAFETY: below the checked layout's size.
            let (there, run) = unsafe { remote.run(e) };
            let len = run.min(start + n - e);
            let note = if e + len == size { tag } else { NO_TAG };
            let at = half.wrapping_add((e - start) as usize) as u64;
            let access = (
                t.place.world,
                win.id,
                (offset as u64 + there) * elem,
                at,
                len * elem,
            );
            self.through_host(block, call, op, note, transfer(access));
            e += len;
        }
    }
}

/// Packs elements `start..start + n` of `mine` over `local` into `half`
/// (`to_half`), or unpacks them from it. An indexed layout's offsets are
/// checked against `local` (its lists could have changed since its shape
/// was checked); returns how many fell outside it and were skipped.
///
/// # Safety
/// Inside the rank kernel, `mine` checked against `local`; `half` holds
/// `n` elements, the piece itself when unpacking, and no one else uses it.
#[inline(always)]
unsafe fn move_piece<T: DeviceCopy, L: Walk>(
    block: &mut Block,
    (local, mine): (DeviceSlice<T>, L),
    (start, n): (u64, u64),
    (half, to_half): (*mut T, bool),
) -> u64 {
    let threads = block.threads() as u64;
    let share = |th: &Thread| -> u64 {
        let (mut e, mut skipped) = (start + th.index() as u64, 0);
        while e < start + n {
            let (o, h) = (mine.offset(e), half.add((e - start) as usize));
            if !L::FIXED && o >= local.len() as u64 {
                skipped += 1;
            } else if to_half {
                h.write(local.as_ptr().add(o as usize).read());
            } else {
                local.as_mut_ptr().add(o as usize).write(h.read());
            }
            e += threads;
        }
        skipped
    };
    if L::FIXED {
        block.each_thread(|th| {
            share(th);
        });
        0
    } else {
        block.reduce(share, Sum)
    }
}
