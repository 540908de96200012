//! How a receive takes the message its search found. The common case (an
//! eager message in this rank's log; one of at most `SMALL` bytes the
//! leader already stored as it found it) comes first; every other one is
//! marked cold (`core::hint::cold_path`), so that its code is laid out
//! after the hot path instead of between its instructions: a path that
//! jumps over inlined cold code misses the instruction cache, 0.15 µs a
//! miss on an H100 (`bench/experiments/far_jumps.cu`). Out of line (a
//! call) it cost a small message between GPUs 0.5 µs more: ptxas saves the
//! caller's live registers around the call
//! (`bench/results/2026-11-27-hot-paths/`). The cold part starts with a
//! small message from a mapped GPU, so that its few instructions lie
//! together; inline next to the first case, it made that case 0.2 µs
//! slower (`bench/results/2026-11-27-peer-path/`).

use super::comm::Comm;
use super::matching::Source;
use super::message_inbox::{clear_want, consume_express};
use super::message_lists::unlink_envelope;
use super::message_logs::{self as logs, Log, Wanted, ENVELOPE, EXPRESS, INBOX, KIND, LOG, PEER};
use super::message_peer;
use super::message_small::SMALL;
use super::messages::Status;
use super::Runtime;
use crate::abi::{Call, Fault, MessageRecord, Op, Transfer, EAGER, NO_TAG, SEND_DONE_TAG};
use crate::arch::{self, Ordering, Scope};
use crate::block::Block;

/// Where a receive puts the payload: its address, its room in bytes and
/// the element size (0: any length fits).
pub(super) type Destination = (*mut u8, u64, u64);

impl Runtime {
    /// Takes the message the search found (`found`, and its length when
    /// the broadcast carried it) into `into`; returns its status.
    #[inline(always)]
    pub(super) fn take_found(
        &mut self,
        block: &mut Block,
        (comm, w): (Comm, &Wanted),
        (found, known): (u32, Option<u64>),
        into: Destination,
    ) -> Status {
        let (dst, room, size) = into;
        let fits = |b: u64| b <= EAGER as u64 && b <= room && (size == 0 || b.is_multiple_of(size));
        match known {
            Some(bytes) if found & KIND == LOG && fits(bytes) => {
                let (ctx, id) = (self.ctx(), block.id());
                let log = Log::of(ctx, id, false);
                let r = log.records.wrapping_add((found & !KIND) as usize);
                // SAFETY: a published record; the leader's acquire of it
                // and the barrier after it order these reads.
                let status = unsafe { status_of(r, w, bytes) };
                // One of at most SMALL bytes was stored by the leader as it
                // found it.
                if bytes > SMALL as u64 {
                    // SAFETY: as above; `buf` holds `bytes` bytes.
                    unsafe { block.copy(dst, (*r).inline.as_ptr() as *const u8, bytes as usize) };
                    block.sync(); // Every thread's copy is done before the record goes.
                }
                block.leader(|_| {
                    log.consume(found & !KIND);
                    if ctx.processes > 1 {
                        clear_want(ctx, id);
                    }
                });
                status
            }
            _ => self.take_found_other(block, (comm, w), (found, known), into),
        }
    }

    /// [`take_found`](Self::take_found) for every other message: one that
    /// does not fit (a fault), a longer one, one from another process or
    /// one waiting in an envelope (cold: see the module's note).
    #[inline(always)]
    fn take_found_other(
        &mut self,
        block: &mut Block,
        (comm, w): (Comm, &Wanted),
        (found, known): (u32, Option<u64>),
        (dst, room, size): Destination,
    ) -> Status {
        core::hint::cold_path();
        let fits = |b: u64| b <= SMALL as u64 && b <= room && (size == 0 || b.is_multiple_of(size));
        match known {
            // A small message from a mapped GPU, already stored by the
            // leader: only its record's received mark. First here, so
            // that its few instructions lie together.
            Some(bytes) if found & KIND == PEER && fits(bytes) => {
                let (ctx, id) = (self.ctx(), block.id());
                let r = logs::record_of(ctx, id, found);
                // SAFETY: a published record; the leader's acquire of it
                // and the barrier after it order these reads.
                let status = unsafe { status_of(r, w, bytes) };
                block.leader(|_| {
                    message_peer::consume(ctx, id, found & !KIND, bytes);
                    clear_want(ctx, id);
                });
                return status;
            }
            _ => {}
        }
        let (ctx, id) = (*self.ctx(), block.id());
        let r = logs::record_of(&ctx, id, found);
        // SAFETY: a published record (the inbox's in host memory); the
        // leader's acquire of it and the barrier after it order these reads.
        let status = unsafe { status_of(r, w, known.unwrap_or_else(|| (*r).bytes)) };
        let Status { source, tag, bytes } = status;
        let values = [bytes, room, source as u64, tag as u64];
        if bytes > room {
            self.fail(block, Call::Recv, Fault::MessageTruncated, values);
        }
        if size > 0 && bytes % size != 0 {
            let values = [values[0], size, values[2], values[3]];
            self.fail(block, Call::Recv, Fault::MessagePartial, values);
        }
        let bytes = bytes as usize;
        let kind = found & KIND;
        if bytes <= SMALL {
            // Stored by the leader as it found the message.
        } else if bytes <= EAGER {
            // SAFETY: as above.
            unsafe { block.copy(dst, (*r).inline.as_ptr() as *const u8, bytes) };
        } else if kind == PEER {
            // SAFETY: as above; the message is in this rank's peer log.
            unsafe { message_peer::copy_out(block, &ctx, id, found & !KIND, dst, bytes) };
        } else if kind == ENVELOPE {
            let sender = (found & !KIND, r);
            // SAFETY: the sender waits in `send` until notified, so its
            // buffer of `bytes` bytes is live and unchanged.
            unsafe {
                let src = (*r).data as *const u8;
                self.copy_from_envelope(block, sender, (dst, src), (bytes, w.args()));
            }
        } else {
            let transfer = Transfer {
                target: ctx.world_first + id,
                window: 0,
                // SAFETY: as above.
                offset: unsafe { (*r).data },
                local: dst as u64,
                bytes: bytes as u64,
            };
            self.through_host(block, Call::Recv, Op::Fetch, NO_TAG, transfer);
            self.wait_host(block, Call::Recv);
        }
        if bytes > SMALL {
            block.sync(); // Every thread's copy is done before the record goes.
        }
        block.leader(|_| {
            match kind {
                LOG => Log::of(&ctx, id, false).consume(found & !KIND),
                INBOX => Log::of(&ctx, id, true).consume(found & !KIND),
                EXPRESS => consume_express(&ctx, id),
                PEER => message_peer::consume(&ctx, id, found & !KIND, bytes as u64),
                _ => {
                    let sender = found & !KIND;
                    unlink_envelope(&ctx, id, sender);
                    // SAFETY: the sender's counter, on this device.
                    let counter = ctx.local_counter(sender, SEND_DONE_TAG);
                    unsafe { arch::add(counter, 1, Ordering::Release, Scope::Gpu) };
                }
            }
            if ctx.processes > 1 {
                clear_want(&ctx, id);
            }
            if kind == INBOX || kind == EXPRESS {
                self.acknowledge_host_message(self.world_rank(comm, source));
            }
        });
        status
    }
}

/// The status of the message in record `r` of `bytes` bytes that `w`
/// accepted: its source and tag from `w`, or from the record for a
/// wildcard.
///
/// # Safety
/// `r` is a published record whose release the leader acquired, with a
/// block barrier since.
#[inline(always)]
unsafe fn status_of(r: *const MessageRecord, w: &Wanted, bytes: u64) -> Status {
    // SAFETY: as the caller promises.
    unsafe {
        let source = match w.source {
            Source::Rank(s) => s,
            Source::Any => (*r).source,
        };
        let tag = w.tag.unwrap_or_else(|| (*r).tag);
        Status { source, tag, bytes }
    }
}
