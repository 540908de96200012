//! The step between devices of a collective over a communicator that spans
//! processes. Each process's leader (its device rank 0) exchanges one word
//! per step with other leaders: the word goes into the target's mailbox
//! (`RankContext::mailbox`), with a reserved tag per step and parity. A GPU
//! whose memory is mapped here is written directly (one store and one
//! system-scoped release); any other process through the hosts, the word
//! inline in the command.
//!
//! The whole exchange runs on the leader's first thread, while the rank's
//! other threads wait at one block barrier: no block-wide step per message.
//!
//! Every algorithm here makes each leader's result depend on every other
//! leader's arrival, so a leader can be at most one call ahead of any other:
//! two parities of mailboxes and tags keep a message of call c + 1 from
//! being taken for one of call c. Each leader combines in the same order
//! (lower process first), so every leader gets the same bits.

use super::host::post;
use super::notify::{direct_scope, init_consumed, try_consume};
use super::route::process_index;
use super::wait::{abort_exit, poll};
use super::Runtime;
use crate::abi::{
    counter_index, mailbox_slot, Call, Op, RankContext, Transfer, COLLECTIVE_TAGS, MAILBOX_STEPS,
    MAILBOX_WINDOW,
};
use crate::arch::{self, Ordering, Scope};
use crate::block::{Block, ReduceOp, Reducible};

/// The parity of the leaders' next exchange. Only collectives between
/// processes flip it, so it is the same on every leader for every call.
#[derive(Default)]
pub(crate) struct Leaders {
    parity: u32,
}

/// The tag of `step` of `parity`.
#[inline(always)]
fn tag(parity: u32, step: u32) -> u32 {
    COLLECTIVE_TAGS + parity * MAILBOX_STEPS as u32 + step
}

/// What the leader's thread needs for one exchange.
struct Leader<'a> {
    ctx: &'a RankContext,
    /// This process, the process count, the exchange's parity.
    me: u32,
    processes: u32,
    parity: u32,
    call: Call,
    /// Whether the ring-credit cache is still to be set up.
    first_send: bool,
}

impl Leader<'_> {
    /// Writes `word` into step `step`'s mailbox of process `to`'s leader
    /// and notifies it. `None` if the run was aborted.
    #[inline(always)]
    fn send(&mut self, to: u32, step: u32, word: u64) -> Option<()> {
        // SAFETY: `to` is a process of the job, so in the peer table.
        let peer = unsafe { *self.ctx.peer(to) };
        let tag = tag(self.parity, step);
        let Some(scope) = direct_scope(peer.route()) else {
            let transfer = Transfer {
                target: peer.first,
                window: MAILBOX_WINDOW,
                offset: mailbox_slot(0, self.parity, step),
                local: word,
                bytes: 8,
            };
            let first = core::mem::replace(&mut self.first_send, false);
            let command = (Op::PutInline, tag, bytemuck::bytes_of(&transfer));
            return post(self.ctx, 0, first, command).then_some(());
        };
        let slot = peer.mailbox(0, self.parity, step);
        let counter = (peer.notifications as *mut u32).wrapping_add(counter_index(0, tag));
        // SAFETY: the target leader's mailbox and counter, mapped here for the run.
        unsafe {
            arch::store_relaxed(slot, word, scope);
            arch::add(counter, 1, Ordering::Release, scope);
        }
        Some(())
    }

    /// Waits for step `step`'s word from another leader and returns it.
    #[inline(always)]
    fn recv(&mut self, step: u32) -> Option<u64> {
        let (ctx, tag) = (self.ctx, tag(self.parity, step));
        poll(ctx, ctx.status(0), self.call, [tag, 1, 0], || {
            try_consume(ctx, 0, tag, 1)
        })?;
        // SAFETY: this leader's mailbox; the counter's acquire ordered the
        // sender's store (or the host's copy) before this load.
        Some(unsafe { arch::load_relaxed(ctx.mailbox(0, self.parity, step), Scope::System) })
    }

    /// Recursive doubling of `value` with `O`, the processes beyond the
    /// largest power of two folded in first and sent the result last:
    /// `log2(P) + 2` steps at most.
    #[inline(always)]
    fn allreduce<T: Reducible, O: ReduceOp<T>>(&mut self, value: T) -> Option<T> {
        let (p, n) = (self.me, self.processes);
        let m = 1u32 << (31 - n.leading_zeros()); // the largest power of two <= n
        let rounds = m.trailing_zeros();
        let last = rounds + 1;
        if p >= m {
            self.send(p - m, 0, value.to_word())?;
            return Some(T::from_word(self.recv(last)?));
        }
        let mut v = value;
        if p + m < n {
            v = O::combine(v, T::from_word(self.recv(0)?));
        }
        for k in 0..rounds {
            let partner = p ^ (1 << k);
            self.send(partner, k + 1, v.to_word())?;
            let w = T::from_word(self.recv(k + 1)?);
            v = if p < partner {
                O::combine(v, w)
            } else {
                O::combine(w, v)
            };
        }
        if p + m < n {
            self.send(p + m, last, v.to_word())?;
        }
        Some(v)
    }

    /// A dissemination barrier: `ceil(log2(P))` steps.
    #[inline(always)]
    fn barrier(&mut self) -> Option<()> {
        let (p, n) = (self.me, self.processes);
        let mut step = 0;
        while (1u32 << step) < n {
            self.send((p + (1 << step)) % n, step, 0)?;
            self.recv(step)?;
            step += 1;
        }
        Some(())
    }
}

impl Runtime {
    /// Runs `exchange` on the first thread of the leader (device rank 0,
    /// whose every thread calls this) and gives its word to every thread.
    #[inline(always)]
    fn on_leader(
        &mut self,
        block: &mut Block,
        call: Call,
        exchange: impl FnOnce(&mut Leader) -> Option<u64>,
    ) -> u64 {
        let ctx = *self.ctx();
        let parity = self.leaders.parity;
        self.leaders.parity ^= 1;
        let setup = self.counters.first_use();
        let first_send = self.host.first_send();
        let word = block.single(|_| {
            if setup {
                init_consumed(ctx.notification_start);
            }
            let mut leader = Leader {
                ctx: &ctx,
                me: process_index(&ctx, ctx.world_first),
                processes: ctx.processes,
                parity,
                call,
                first_send,
            };
            exchange(&mut leader).unwrap_or(0)
        });
        // A leader that gave up saw the abort flag, which stays raised.
        // SAFETY: the flag lives for the run.
        if unsafe { arch::load_relaxed(ctx.abort(), Scope::Gpu) } != 0 {
            abort_exit()
        }
        word
    }

    /// Every leader's `value` combined with `O`, on every thread of the
    /// leader (device rank 0).
    #[inline(always)]
    pub fn leaders_allreduce<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        call: Call,
        value: T,
    ) -> T {
        let word = self.on_leader(block, call, |l| {
            l.allreduce::<T, O>(value).map(Reducible::to_word)
        });
        T::from_word(word)
    }

    /// Returns on the leader once every leader has called it.
    #[inline(always)]
    pub fn leaders_barrier(&mut self, block: &mut Block) {
        self.on_leader(block, Call::Barrier, |l| l.barrier().map(|_| 0));
    }
}
