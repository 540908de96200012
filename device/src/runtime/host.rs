//! Calls that need the host: a shared command ring in pinned host memory
//! (device to host) and a reply slot per rank (host to device), and the
//! accesses the host moves for the rank.
//!
//! One ring for all ranks: a sender reserves a position with an atomic add
//! on a device-memory counter, waits for credit (positions the host has
//! consumed; cached in shared memory and re-read over the bus only when the
//! cache says the ring is full), and writes the entry as words that each
//! carry its sequence number (`abi::ring`). The host reads one entry after
//! another, so it never scans per-rank queues.

use super::wait::poll;
use super::Runtime;
use crate::abi::ring::{ll_data, ll_word, Payload};
use crate::abi::{Call, Command, Fault, Op, RankContext, Transfer};
use crate::arch::{self, Ordering, Scope};
use crate::block::Block;

crate::shared_array!(static DCUDA_RING_CREDIT: [u32; 1]);

/// This rank's side of the host channel.
#[derive(Default)]
pub(crate) struct HostChannel {
    /// Whether the leader has set up the ring credit cache.
    credit_ready: bool,
    /// Host replies received so far.
    replies_seen: u32,
    /// Accesses handed to the host so far, and how many of them are known
    /// to be complete.
    issued: u32,
    completed: u32,
}

impl HostChannel {
    /// True on the first command of this rank (its leader then sets up the
    /// credit cache).
    #[inline(always)]
    pub fn first_send(&mut self) -> bool {
        !core::mem::replace(&mut self.credit_ready, true)
    }
}

/// Sends one command to the host from the leader thread of device rank
/// `rank`: reserves a ring position, waits for credit if the ring is full,
/// and publishes the entry. False if the run was aborted while waiting.
#[inline(always)]
pub(crate) fn post(
    ctx: &RankContext,
    rank: u32,
    first: bool,
    (op, arg, payload): (Op, u32, Payload),
) -> bool {
    if first {
        DCUDA_RING_CREDIT.set(0, 0); // Nothing known consumed yet.
    }
    // SAFETY: the reservation counter lives for the whole run.
    let pos = unsafe {
        arch::fetch_add(
            ctx.ring_reserve as *mut u32,
            1,
            Ordering::Relaxed,
            Scope::Gpu,
        )
    };
    let len = ctx.ring_len;
    if pos.wrapping_sub(DCUDA_RING_CREDIT.get(0)) >= len {
        let status = ctx.status(rank);
        let credit = poll(ctx, status, Call::HostCall, [op as u32, arg, pos], || {
            // SAFETY: written by the host, read over the bus.
            let consumed =
                unsafe { arch::load_acquire(ctx.ring_consumed as *const u32, Scope::System) };
            DCUDA_RING_CREDIT.set(0, consumed);
            if pos.wrapping_sub(consumed) < len {
                Ok(0)
            } else {
                Err(pos.wrapping_sub(consumed))
            }
        });
        if credit.is_none() {
            return false;
        }
    }
    publish(ctx, pos, rank, op, arg, payload);
    true
}

/// Writes entry `pos` of the ring: one release fence (the rank's earlier
/// writes, which the host may move, come first), then the words in use,
/// each carrying `pos + 1`, with no fence between them.
#[inline(always)]
fn publish(ctx: &RankContext, pos: u32, rank: u32, op: Op, arg: u32, payload: Payload) {
    let e = ctx.ring_entry(pos);
    let words = &payload.words[..payload.words.len().min(Command::PAYLOAD / 4)];
    let len = (payload.bytes as usize).min(4 * words.len());
    let seq = pos.wrapping_add(1);
    arch::fence(Scope::System);
    // SAFETY: position `pos` is reserved by us and the host has consumed
    // its previous use.
    unsafe {
        let slots = &raw mut (*e).words as *mut u64;
        let put = |i: usize, data: u32| {
            arch::store_relaxed(slots.add(i), ll_word(seq, data), Scope::System)
        };
        put(0, rank);
        put(1, op as u32);
        put(2, len as u32);
        put(3, arg);
        for (i, w) in words.iter().enumerate() {
            put(4 + i, *w);
        }
    }
}

impl Runtime {
    /// Sends one command to the host; waits only if the ring is full.
    #[inline(always)]
    pub fn host_send(&mut self, block: &mut Block, op: Op, arg: u32, payload: Payload) {
        let ctx = *self.ctx();
        let rank = block.id();
        let first = self.host.first_send();
        // The leader alone reserves, waits for credit and publishes: reading
        // the shared credit in uniform code raced with the leader's update
        // of it (found by the emulator's divergence check).
        let sent = block.single(|_| post(&ctx, rank, first, (op, arg, payload)) as u32);
        if sent == 0 {
            super::wait::abort_exit()
        }
    }

    /// Sends `op` to the host and waits for its reply; returns the value.
    #[inline(always)]
    pub fn host_call(&mut self, block: &mut Block, op: Op, arg: u32) -> u32 {
        self.host_call_with(block, op, arg, Payload::EMPTY)
    }

    /// [`host_call`](Self::host_call) with a payload. The leader sends and
    /// waits in one turn, so the call costs the block two barriers.
    #[inline(always)]
    pub fn host_call_with(&mut self, block: &mut Block, op: Op, arg: u32, payload: Payload) -> u32 {
        let ctx = *self.ctx();
        let rank = block.id();
        let first = self.host.first_send();
        let expected = self.host.replies_seen.wrapping_add(1);
        self.host.replies_seen = expected;
        let (reply, status) = (ctx.reply(rank), ctx.status(rank));
        let outcome = block.single(|_| {
            if !post(&ctx, rank, first, (op, arg, payload)) {
                return u64::MAX;
            }
            let args = [op as u32, expected, 0];
            let value = poll(&ctx, status, Call::HostCall, args, || {
                // SAFETY: this rank's reply slot; one load over the bus.
                let word = unsafe { arch::load_acquire(&raw const (*reply).word, Scope::System) };
                ll_data(word, expected).ok_or((word >> 32) as u32)
            });
            value.map_or(u64::MAX, u64::from)
        });
        if outcome == u64::MAX {
            super::wait::abort_exit()
        }
        outcome as u32
    }

    /// Hands an access to this process's host, which moves it through its
    /// transport; completion is counted in `host_done`.
    #[inline(always)]
    pub fn through_host(&mut self, block: &mut Block, call: Call, op: Op, tag: u32, t: Transfer) {
        if op != Op::PutInline && t.bytes > 0 && !arch::is_global(t.local as *const u8) {
            self.fail(
                block,
                call,
                Fault::NotGlobal,
                [t.local, t.target as u64, 0, 0],
            );
        }
        self.host_send(block, op, tag, Payload::of(&t));
        self.host.issued = self.host.issued.wrapping_add(1);
    }

    /// Waits until the host has completed every access handed to it.
    #[inline(always)]
    pub fn wait_host(&mut self, block: &mut Block, call: Call) {
        self.wait_host_for(block, call, [self.host.issued, 0, 0]);
    }

    /// [`wait_host`](Self::wait_host), telling the watchdog `args`.
    #[inline(always)]
    pub fn wait_host_for(&mut self, block: &mut Block, call: Call, args: [u32; 3]) {
        let issued = self.host.issued;
        self.wait_host_until(block, call, (issued, args));
    }

    /// The number of accesses handed to the host so far: what
    /// [`wait_host_until`](Self::wait_host_until) waits for.
    #[inline(always)]
    pub fn host_issued(&self) -> u32 {
        self.host.issued
    }

    /// Waits until the host has counted `count` accesses of this rank
    /// complete, telling the watchdog `args`. That means the first `count`
    /// when they complete in order, as puts do (the host completes them as
    /// it stages them, in ring order) and gets from one target.
    #[inline(always)]
    pub fn wait_host_until(
        &mut self,
        block: &mut Block,
        call: Call,
        (count, args): (u32, [u32; 3]),
    ) {
        if count.wrapping_sub(self.host.completed) as i32 <= 0 {
            return;
        }
        let done = self.ctx().host_done(block.id());
        self.wait_until(block, call, args, || {
            // SAFETY: this rank's completion counter, written by the host.
            let d = unsafe { arch::load_acquire(done, Scope::System) };
            if d.wrapping_sub(count) as i32 >= 0 {
                Ok(0)
            } else {
                Err(d)
            }
        });
        self.host.completed = count;
    }
}
