//! A long message between two ranks of one device, copied by both: the
//! sender waits in `send` until its receiver has copied the message out
//! of its buffer (rendezvous), and one block copies about 20 GB/s on an
//! H100. So a receiver that takes a message of at least [`SPLIT_MIN`]
//! bytes from an envelope hands its second half to the waiting sender:
//! it writes its destination into the sender's envelope and notifies it
//! ([`SPLIT_ASK_TAG`]), copies the first half, and waits for the sender's
//! notification ([`SPLIT_DONE_TAG`]) before it lets the sender go. A
//! destination outside global memory (the receiver's shared or local
//! memory, which the sender's block cannot reach) is copied by the
//! receiver alone.

use super::notify::{init_consumed, try_consume};
use super::Runtime;
use crate::abi::{Call, MessageRecord, SEND_DONE_TAG, SPLIT_ASK_TAG, SPLIT_DONE_TAG};
use crate::arch::{self, Ordering, Scope};
use crate::block::Block;

/// The shortest message whose copy is split: below it the two
/// notifications cost more than half the copy saves.
pub(super) const SPLIT_MIN: usize = 64 * 1024;

/// Where a split copy's second part starts: half the message, on a
/// 256-byte boundary.
#[inline(always)]
fn split_at(bytes: usize) -> usize {
    (bytes / 2) & !255
}

/// Hands the receiver's destination `dst` to the sender whose envelope
/// is `r` (in its inline bytes: the envelope carries a long message's
/// address, not its payload).
///
/// # Safety
/// `r` is the sender's envelope, which the receiver has taken.
#[inline(always)]
unsafe fn hand_over(r: *mut MessageRecord, dst: *mut u8) {
    // SAFETY: as the caller promises.
    unsafe { (*r).inline.as_mut_ptr().write(dst as u64) };
}

/// The destination a receiver handed this sender in its envelope `r`.
///
/// # Safety
/// `r` is this rank's envelope, and its receiver's [`SPLIT_ASK_TAG`] was
/// acquired.
#[inline(always)]
unsafe fn handed(r: *const MessageRecord) -> *mut u8 {
    // SAFETY: as the caller promises.
    unsafe { (*r).inline.as_ptr().read() as *mut u8 }
}

impl Runtime {
    /// Copies the message of `bytes` bytes at `src`, waiting in sender
    /// `sender`'s envelope `r`, to `dst` (every thread; the caller then
    /// syncs the block and notifies the sender that it is done).
    ///
    /// # Safety
    /// The sender waits in `send` for [`SEND_DONE_TAG`], so `src` is live
    /// and unchanged; `dst` holds `bytes` bytes.
    #[inline(always)]
    pub(super) unsafe fn copy_from_envelope(
        &mut self,
        block: &mut Block,
        (sender, r): (u32, *mut MessageRecord),
        (dst, src): (*mut u8, *const u8),
        (bytes, args): (usize, [u32; 3]),
    ) {
        // The sender's block writes only to global memory: a destination
        // in the receiver's shared or local memory is not its to reach.
        if bytes < SPLIT_MIN || !arch::is_global(dst) {
            // SAFETY: as the caller promises.
            unsafe { block.copy(dst, src, bytes) };
            return;
        }
        let (ctx, id) = (*self.ctx(), block.id());
        let from = split_at(bytes);
        block.leader(|_| {
            // SAFETY: the sender's envelope and counter, on this device.
            unsafe {
                hand_over(r, dst);
                let ask = ctx.local_counter(sender, SPLIT_ASK_TAG);
                arch::add(ask, 1, Ordering::Release, Scope::Gpu);
            }
        });
        // SAFETY: as the caller promises.
        unsafe { block.copy(dst, src, from) };
        let mut setup = self.counters.first_use();
        self.wait_until(block, Call::Recv, args, || {
            if core::mem::take(&mut setup) {
                init_consumed(ctx.notification_start);
            }
            try_consume(&ctx, id, SPLIT_DONE_TAG, 1)
        });
    }

    /// Waits for the receiver, device rank `receiver`, to notify that it
    /// copied this rank's rendezvous payload `src`; when the receiver hands
    /// it the second half, copies that half and notifies it.
    #[inline(always)]
    pub(super) fn wait_send_done(
        &mut self,
        block: &mut Block,
        (receiver, (src, bytes)): (u32, (*const u8, usize)),
        args: [u32; 3],
    ) {
        const DONE: u32 = 0;
        const ASKED: u32 = 1;
        let (ctx, id) = (*self.ctx(), block.id());
        let mut setup = self.counters.first_use();
        self.tests.waiting();
        loop {
            let got = self.wait_until(block, Call::Send, args, || {
                if core::mem::take(&mut setup) {
                    init_consumed(ctx.notification_start);
                }
                if bytes >= SPLIT_MIN && try_consume(&ctx, id, SPLIT_ASK_TAG, 1).is_ok() {
                    return Ok(ASKED);
                }
                try_consume(&ctx, id, SEND_DONE_TAG, 1).map(|_| DONE)
            });
            if got == DONE {
                return;
            }
            // The leader's acquire and the broadcast's barrier order this
            // read after the receiver's write.
            // SAFETY: this rank's own envelope; the ask was acquired.
            let dst = unsafe { handed(ctx.envelope(id)) };
            let from = split_at(bytes);
            // SAFETY: the receiver's destination holds `bytes` bytes, and
            // it waits for this part.
            unsafe { block.copy(dst.wrapping_add(from), src.wrapping_add(from), bytes - from) };
            // Every thread's copy precedes the notification.
            block.sync();
            block.leader(|_| {
                // SAFETY: the receiver's counter, on this device.
                unsafe {
                    let done = ctx.local_counter(receiver, SPLIT_DONE_TAG);
                    arch::add(done, 1, Ordering::Release, Scope::Gpu);
                }
            });
        }
    }
}
