//! Calls that need the host: a shared command ring in pinned host memory
//! (device to host) and a reply slot per rank (host to device).
//!
//! One ring for all ranks: a sender reserves a position with an atomic add
//! on a device-memory counter, waits for credit (positions the host has
//! consumed; cached in shared memory and re-read over the bus only when the
//! cache says the ring is full), writes the 64-byte entry and publishes its
//! sequence number last with a system-scoped release. The host reads one
//! entry after another, so it never scans per-rank queues.

use super::layout::{Call, Command, Op, RankContext, PAYLOAD};
use crate::arch::{self, Ordering, Scope};
use crate::rank::collective::single;
use crate::rank::{on_thread_zero, Rank};

crate::shared_array!(static DCUDA_RING_CREDIT: [u32; 1]);

/// Bytes of text in one log entry.
const FRAGMENT: usize = 32;
const _: () = assert!(FRAGMENT <= PAYLOAD && core::mem::size_of::<Command>() == 64);

/// Writes entry `pos` of the ring and publishes it.
#[inline(always)]
fn publish(ctx: &RankContext, pos: u32, rank: u32, op: Op, arg: u32, payload: &[u8]) {
    // SAFETY: position `pos` is reserved by us and the host has consumed its
    // previous use.
    unsafe {
        let e = ctx.ring.add((pos & (ctx.ring_len - 1)) as usize);
        let len = payload.len().min(FRAGMENT);
        let mut words = [0u32; FRAGMENT / 4];
        for (i, b) in payload[..len].iter().enumerate() {
            words[i / 4] |= (*b as u32) << (8 * (i % 4));
        }
        let dst = &raw mut (*e).payload as *mut u32;
        for (i, w) in words.iter().enumerate() {
            dst.add(i).write_volatile(*w);
        }
        (&raw mut (*e).rank).write_volatile(rank);
        (&raw mut (*e).op).write_volatile(op as u32);
        (&raw mut (*e).len).write_volatile(len as u32);
        (&raw mut (*e).arg).write_volatile(arg);
        arch::store_release(&raw mut (*e).seq, pos.wrapping_add(1), Scope::System);
    }
}

impl Rank {
    /// Sends one command to the host; waits only if the ring is full.
    pub(crate) fn host_send(&mut self, op: Op, arg: u32, payload: &[u8]) {
        let ctx = *self.ctx();
        let rank = self.id;
        let first = !core::mem::replace(&mut self.credit_ready, true);
        let pos = single(self, |_| {
            if first {
                DCUDA_RING_CREDIT.set(0, 0); // Nothing known consumed yet.
            }
            // SAFETY: the reservation counter lives for the whole run.
            unsafe { arch::fetch_add(ctx.ring_reserve, 1, Ordering::Relaxed, Scope::Gpu) }
        });
        let len = ctx.ring_len;
        if pos.wrapping_sub(DCUDA_RING_CREDIT.get(0)) >= len {
            self.wait_until(Call::HostCall, [op as u32, arg, pos], || {
                // SAFETY: written by the host, read over the bus.
                let consumed = unsafe { arch::load_acquire(ctx.ring_consumed, Scope::System) };
                DCUDA_RING_CREDIT.set(0, consumed);
                if pos.wrapping_sub(consumed) < len {
                    Ok(0)
                } else {
                    Err(pos.wrapping_sub(consumed))
                }
            });
        }
        on_thread_zero(|_| publish(&ctx, pos, rank, op, arg, payload));
    }

    /// A host round trip: asks the host for a reply and waits for it.
    /// Returns the number of round trips so far (the host's count).
    pub fn host_ping(&mut self) -> u32 {
        self.host_send(Op::Ping, 0, &[]);
        let expected = self.replies_seen.wrapping_add(1);
        self.replies_seen = expected;
        // SAFETY: this rank's reply slot.
        let reply = unsafe { self.ctx().replies.add(self.id as usize) };
        self.wait_until(Call::HostCall, [Op::Ping as u32, expected, 0], || {
            // SAFETY: as above.
            let seq = unsafe { arch::load_acquire(&raw const (*reply).seq, Scope::System) };
            if seq == expected {
                // SAFETY: ordered after the acquire of `seq`.
                Ok(unsafe { (&raw const (*reply).value).read_volatile() })
            } else {
                Err(seq)
            }
        })
    }

    /// Sends a log message to the host, which prints it while the kernel
    /// runs, prefixed with the rank. Use it through [`rank_log!`](crate::rank_log).
    pub fn log(&mut self, args: core::fmt::Arguments<'_>) {
        let mut text = Text {
            buf: [0; 256],
            len: 0,
        };
        let _ = core::fmt::write(&mut text, args);
        let len = text.len;
        let fragments = len.div_ceil(FRAGMENT).max(1);
        for f in 0..fragments {
            let end = ((f + 1) * FRAGMENT).min(len);
            let last = (f + 1 == fragments) as u32;
            self.host_send(Op::Log, last, &text.buf[f * FRAGMENT..end]);
        }
    }
}

/// A fixed buffer that `core::fmt` writes into; longer text is cut.
struct Text {
    buf: [u8; 256],
    len: usize,
}

impl core::fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// Logs a formatted message from a rank kernel (uniform code): the host
/// prints it live as `[rank N] message`.
///
/// ```ignore
/// rank_log!(rank, "sum = {}", sum);
/// ```
#[macro_export]
macro_rules! rank_log {
    ($rank:expr, $($arg:tt)*) => {
        $rank.log(::core::format_args!($($arg)*))
    };
}
