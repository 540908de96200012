//! Messages of at most [`SMALL`] bytes travel in the leader thread's
//! registers: a send loads the payload while its reservation is on the
//! way and writes the whole record itself; a receive loads the payload
//! with the header and stores it into the buffer. Neither waits for the
//! block's threads to copy through memory (a round trip each way).

use crate::abi::MessageRecord;

/// The most payload bytes that travel in registers.
pub(super) const SMALL: usize = 16;

/// A small payload, in two words (bytes past its length are zero).
pub(super) type Words = [u64; 2];

/// The first `bytes` (at most [`SMALL`]) bytes at `src`. Two variables, not
/// an indexed array, so that nothing goes through local memory.
///
/// # Safety
/// `src` is readable for `bytes` bytes.
#[inline(always)]
pub(super) unsafe fn load(src: *const u8, bytes: usize) -> Words {
    debug_assert!(bytes <= SMALL);
    let (mut lo, mut hi) = (0u64, 0u64);
    // SAFETY: as the caller promises.
    unsafe {
        if (src as usize).is_multiple_of(8) && bytes.is_multiple_of(8) {
            let s = src as *const u64;
            if bytes >= 8 {
                lo = s.read();
            }
            if bytes == SMALL {
                hi = s.add(1).read();
            }
        } else {
            for i in 0..bytes {
                let b = (src.add(i).read() as u64) << (8 * (i % 8));
                if i < 8 {
                    lo |= b;
                } else {
                    hi |= b;
                }
            }
        }
    }
    [lo, hi]
}

/// Stores the first `bytes` (at most [`SMALL`]) bytes of `words` at `dst`.
///
/// # Safety
/// `dst` is writable for `bytes` bytes.
#[inline(always)]
pub(super) unsafe fn store(dst: *mut u8, bytes: usize, [lo, hi]: Words) {
    debug_assert!(bytes <= SMALL);
    // SAFETY: as the caller promises.
    unsafe {
        if (dst as usize).is_multiple_of(8) && bytes.is_multiple_of(8) {
            let d = dst as *mut u64;
            if bytes >= 8 {
                d.write(lo);
            }
            if bytes == SMALL {
                d.add(1).write(hi);
            }
        } else {
            for i in 0..bytes {
                let w = if i < 8 { lo } else { hi };
                dst.add(i).write((w >> (8 * (i % 8))) as u8);
            }
        }
    }
}

/// The first two inline words of a published record, loaded volatile so
/// that they travel with its header's loads.
///
/// # Safety
/// `r` is a published record.
#[inline(always)]
pub(super) unsafe fn inline_words(r: *const MessageRecord) -> Words {
    // SAFETY: as the caller promises.
    unsafe {
        let p = (&raw const (*r).inline) as *const u64;
        [p.read_volatile(), p.add(1).read_volatile()]
    }
}
