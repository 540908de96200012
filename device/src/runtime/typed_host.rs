//! Typed transfers to ranks of other processes that the host reaches: the
//! elements go through this rank's staging area in pieces of one half
//! (`STAGE_HALF` bytes), packed or unpacked by all of its threads. Where
//! the target's layout is a datatype, a piece is one access whose
//! [`LaidPiece`] header names where its elements go, and the target's host
//! places them; an indexed target layout takes one access per contiguous
//! run (slow for short runs). The halves alternate, so that the threads
//! pack the next piece while the host sends the last (or unpack one while
//! the next arrives), as seed 004 pipelines its packing.

use super::spread::{move_elements, Packed};
use super::window::{Target, Window};
use super::Runtime;
use crate::abi::{Call, Fault, LaidPiece, Op, Transfer, LAID_HEADER, NO_TAG, STAGE_HALF};
use crate::block::Block;
use crate::datatype::Datatype;
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
        // A datatype at the target: a piece is one access, whose elements
        // the host places; an indexed layout: one access a run.
        let laid = remote.strided();
        let header = if laid.is_some() {
            LAID_HEADER as u64
        } else {
            0
        };
        let most = (STAGE_HALF as u64 - header) / elem.max(1);
        let per_piece = laid.map_or(most, |dt| whole_units(&dt, most));
        if per_piece == 0 {
            // An element larger than half the staging area.
            let values = [t.place.world as u64, elem, 0, 0];
            self.fail(block, call, Fault::TypedThroughHost, values);
        }
        let halves = [0, 1].map(|h| self.ctx().stage(block.id(), h));
        let stage = |k: u64| halves[(k % 2) as usize];
        let data = |k: u64| stage(k).wrapping_add(header as usize) as *mut T;
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
        let ends = (win, t);
        let sides = (offset, remote, laid);
        let total = (size, tag);
        // Accesses issued when each of the last two pieces was handed over:
        // a half is free again once its piece's accesses are complete.
        let mut handed = [self.host_issued(); 2];
        let mut skipped = 0;
        for k in 0..pieces {
            let (start, n) = piece(k);
            if !get {
                self.wait_host_until(block, call, (handed[(k % 2) as usize], [k as u32, 0, 0]));
                // SAFETY: elements start..start + n of a checked layout of
                // `local`; the half is this rank's, holding the header and
                // n elements, and free.
                skipped += unsafe { move_piece(block, (local, mine), (start, n), (data(k), true)) };
                block.sync(); // Packed before the host reads it.
                self.hand_piece(block, (call, op), ends, sides, (start, n), total, stage(k));
                handed[(k % 2) as usize] = self.host_issued();
                continue;
            }
            if k == 0 {
                self.hand_piece(block, (call, op), ends, sides, piece(0), total, stage(0));
                handed[0] = self.host_issued();
            }
            if k + 1 < pieces {
                // The next piece's half was unpacked by the last turn.
                let next = piece(k + 1);
                self.hand_piece(block, (call, op), ends, sides, next, total, stage(k + 1));
                handed[((k + 1) % 2) as usize] = self.host_issued();
            }
            self.wait_host_until(block, call, (handed[(k % 2) as usize], [k as u32, 0, 0]));
            // SAFETY: as packing, the other way; the piece has arrived.
            skipped += unsafe { move_piece(block, (local, mine), (start, n), (data(k), false)) };
            block.sync(); // Unpacked before its half is handed out again.
        }
        // The host has read every piece (put), or written it (get).
        self.wait_host(block, call);
        if skipped > 0 {
            self.fail(block, call, Fault::TypeIndex, [u64::MAX, skipped, 0, 0]);
        }
    }
}

/// Elements of a piece: at most `most`, and a whole number of the largest
/// unit of `dt` that fits (planes of a sub-block, else rows), so that the
/// target's host places a piece in one copy (a piece that ends inside a
/// row costs it a copy for the part row and one for the rest).
#[inline(always)]
fn whole_units(dt: &Datatype, most: u64) -> u64 {
    let (block, counts, _) = dt.levels();
    let mut unit = block as u64;
    if unit == 0 || unit > most {
        return most;
    }
    for c in counts {
        let next = unit * c as u64;
        if next > most {
            break;
        }
        unit = next;
    }
    most / unit * unit
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
    /// Hands the host elements `start..start + n` of `remote`, whose data
    /// is (put) or goes (get) in the staging half at `half`, after the
    /// header room: with a datatype `laid`, one access whose header names
    /// where they go; else one access a run. The last element's access
    /// carries `tag`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn hand_piece<T: DeviceCopy, R: Walk>(
        &mut self,
        block: &mut Block,
        (call, op): (Call, Op),
        (win, t): (&Window<T>, &Target),
        (offset, remote, laid): (usize, R, Option<Datatype>),
        (start, n): (u64, u64),
        (size, tag): (u64, u32),
        half: *mut u8,
    ) {
        let elem = core::mem::size_of::<T>() as u64;
        let Some(dt) = laid else {
            let runs = (offset, remote);
            let data = half as *mut T;
            return self.hand_runs(
                block,
                (call, op),
                (win, t),
                runs,
                (start, n),
                (size, tag),
                data,
            );
        };
        // No barrier after the header: the leader thread that writes it
        // posts the access itself (`host_send`), in program order; the
        // packed data (a put's) and a get's free half were ordered by the
        // caller's barrier before this.
        block.leader(|_| {
            // SAFETY: the rank's own half, LAID_HEADER bytes and more, at
            // a 64-byte boundary; no other thread touches it now. `n` is
            // at most a half's elements.
            unsafe { (half as *mut LaidPiece).write(dt.piece(start, elem as u32, n as u32)) }
        });
        let note = if start + n == size { tag } else { NO_TAG };
        let op = if op == Op::Get {
            Op::GetLaid
        } else {
            Op::PutLaid
        };
        let bytes = LAID_HEADER as u64 + n * elem;
        let access = (
            t.place.world,
            win.id,
            offset as u64 * elem,
            half as u64,
            bytes,
        );
        self.through_host(block, call, op, note, transfer(access));
    }

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
/// (`to_half`), or unpacks them from it, with every thread several
/// elements in flight ([`move_elements`]). An indexed layout's offsets are
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
    let (packed, range, len) = (Packed { start }, (start, start + n), local.len() as u64);
    if to_half {
        let ends = (local.as_ptr(), half);
        move_elements(block, (mine, packed, range), ends, (len, n))
    } else {
        let ends = (half as *const T, local.as_mut_ptr());
        move_elements(block, (packed, mine, range), ends, (n, len))
    }
}

#[cfg(test)]
mod tests {
    use super::whole_units;
    use crate::datatype::Datatype;

    #[test]
    fn pieces_hold_whole_planes_else_whole_rows() {
        let block = Datatype::subarray_3d([512, 512, 512], [64, 64, 64], [0, 0, 0]).unwrap();
        // 256 KiB less a header, in f32: 15 planes of 64 x 64.
        assert_eq!(whole_units(&block, 65520), 15 * 4096);
        // Less than a plane: whole rows.
        assert_eq!(whole_units(&block, 4000), 62 * 64);
        let column = Datatype::vector(4096, 1, 4096);
        assert_eq!(whole_units(&column, 16368), 12288);
        assert_eq!(whole_units(&Datatype::vector(10, 3, 5), 7), 6);
        // A row longer than a piece, or no room at all: as much as fits.
        assert_eq!(whole_units(&Datatype::contiguous(100_000), 1000), 1000);
        assert_eq!(whole_units(&block, 50), 50);
        assert_eq!(whole_units(&block, 0), 0);
    }
}
