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
        for k in 0..pieces {
            let (start, n) = piece(k);
            if !get {
                self.wait_host_until(block, call, (handed[(k % 2) as usize], [k as u32, 0, 0]));
                // SAFETY: elements start..start + n of a checked layout of
                // `local`; the half is this rank's, holding n, and free.
                unsafe { pack(block, (local, mine), (start, n), stage(k)) };
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
            // SAFETY: as `pack`, the other way; the piece has arrived.
            unsafe { unpack(block, (local, mine), (start, n), stage(k)) };
            block.sync(); // Unpacked before its half is handed out again.
        }
        // The host has read every piece (put), or written it (get).
        self.wait_host(block, call);
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

/// Packs elements `start..start + n` of `mine` over `local` into `half`.
///
/// # Safety
/// Inside the rank kernel, `mine` checked against `local`; `half` holds
/// `n` elements and no one else uses it.
#[inline(always)]
unsafe fn pack<T: DeviceCopy, L: Walk>(
    block: &Block,
    (local, mine): (DeviceSlice<T>, L),
    (start, n): (u64, u64),
    half: *mut T,
) {
    each_element(block, (start, n), |e| {
        let v = local.as_ptr().add(mine.offset(e) as usize).read();
        half.add((e - start) as usize).write(v);
    });
}

/// Unpacks `half` into elements `start..start + n` of `mine` over `local`.
///
/// # Safety
/// As [`pack`], with the piece arrived in `half`.
#[inline(always)]
unsafe fn unpack<T: DeviceCopy, L: Walk>(
    block: &Block,
    (local, mine): (DeviceSlice<T>, L),
    (start, n): (u64, u64),
    half: *mut T,
) {
    each_element(block, (start, n), |e| {
        let v = half.add((e - start) as usize).read();
        local.as_mut_ptr().add(mine.offset(e) as usize).write(v);
    });
}

/// Runs `f` for elements `start..start + n`, spread over the threads.
#[inline(always)]
fn each_element(block: &Block, (start, n): (u64, u64), f: impl Fn(u64)) {
    let threads = block.threads() as u64;
    block.each_thread(|th: &Thread| {
        let mut e = start + th.index() as u64;
        while e < start + n {
            f(e);
            e += threads;
        }
    });
}
