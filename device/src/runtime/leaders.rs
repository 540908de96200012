//! The step between devices of a collective over a communicator that spans
//! processes. Each process's leader (its device rank 0) exchanges one word
//! per step with other leaders: the word goes into the target's mailbox
//! (`RankContext::mailbox`), with a reserved tag per step and parity. A GPU
//! whose memory is mapped here is written directly (one store and one
//! system-scoped release); any other process through the hosts, the word
//! inline in the command.
//!
//! Every algorithm here makes each leader's result depend on every other
//! leader's arrival, so a leader can be at most one call ahead of any other:
//! two parities of mailboxes and tags keep a message of call c + 1 from
//! being taken for one of call c. Each leader combines in the same order
//! (lower process first), so every leader gets the same bits.

use super::notify::direct_scope;
use super::route::process_index;
use super::Runtime;
use crate::abi::{
    counter_index, mailbox_slot, Call, Op, Transfer, COLLECTIVE_TAGS, MAILBOX_STEPS, MAILBOX_WINDOW,
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

/// One exchange between the leaders: this leader's process and the
/// process count, and the parity the exchange uses.
#[derive(Clone, Copy)]
pub(crate) struct Exchange {
    me: u32,
    processes: u32,
    parity: u32,
    call: Call,
}

impl Runtime {
    /// Starts an exchange between the leaders for `call` (every rank of
    /// the device calls it; only the leader goes on to exchange).
    #[inline(always)]
    pub fn leaders(&mut self, call: Call) -> Exchange {
        let parity = self.leaders.parity;
        self.leaders.parity ^= 1;
        let ctx = self.ctx();
        Exchange {
            me: process_index(ctx, ctx.world_first),
            processes: ctx.processes,
            parity,
            call,
        }
    }

    /// Writes `word` into step `step`'s mailbox of process `to`'s leader
    /// and notifies it.
    #[inline(always)]
    fn leader_send(&mut self, block: &mut Block, x: Exchange, to: u32, step: u32, word: u64) {
        let ctx = *self.ctx();
        // SAFETY: `to` is a process of the job, so in the peer table.
        let peer = unsafe { *ctx.peer(to) };
        let tag = tag(x.parity, step);
        let Some(scope) = direct_scope(peer.route()) else {
            let transfer = Transfer {
                target: peer.first,
                window: MAILBOX_WINDOW,
                offset: mailbox_slot(0, x.parity, step),
                local: word,
                bytes: 8,
            };
            return self.through_host(block, x.call, Op::PutInline, tag, transfer);
        };
        let slot = peer.mailbox(0, x.parity, step);
        let counter = (peer.notifications as *mut u32).wrapping_add(counter_index(0, tag));
        block.leader(|_| {
            // SAFETY: the target leader's mailbox and counter, mapped here for the run.
            unsafe {
                arch::store_relaxed(slot, word, scope);
                arch::add(counter, 1, Ordering::Release, scope);
            }
        });
    }

    /// Waits for step `step`'s word from another leader and returns it.
    #[inline(always)]
    fn leader_recv(&mut self, block: &mut Block, x: Exchange, step: u32) -> u64 {
        self.wait_tag(block, x.call, tag(x.parity, step), 1);
        let slot = self.ctx().mailbox(0, x.parity, step);
        // SAFETY: this leader's mailbox; the wait's acquire ordered the
        // sender's store (or the host's copy) before this load.
        unsafe { arch::load_relaxed(slot, Scope::System) }
    }

    /// Combines every leader's `value` with `O`: recursive doubling, with
    /// the processes beyond the largest power of two folded in first and
    /// sent the result last. `log2(P) + 2` steps at most.
    #[inline(always)]
    pub fn leaders_allreduce<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        x: Exchange,
        value: T,
    ) -> T {
        let (p, n) = (x.me, x.processes);
        let m = 1u32 << (31 - n.leading_zeros()); // the largest power of two <= n
        let rounds = m.trailing_zeros();
        let last = rounds + 1;
        if p >= m {
            self.leader_send(block, x, p - m, 0, value.to_word());
            return T::from_word(self.leader_recv(block, x, last));
        }
        let mut v = value;
        if p + m < n {
            v = O::combine(v, T::from_word(self.leader_recv(block, x, 0)));
        }
        for k in 0..rounds {
            let partner = p ^ (1 << k);
            self.leader_send(block, x, partner, k + 1, v.to_word());
            let w = T::from_word(self.leader_recv(block, x, k + 1));
            v = if p < partner {
                O::combine(v, w)
            } else {
                O::combine(w, v)
            };
        }
        if p + m < n {
            self.leader_send(block, x, p + m, last, v.to_word());
        }
        v
    }

    /// Returns once every leader has called it: a dissemination barrier,
    /// `ceil(log2(P))` steps.
    #[inline(always)]
    pub fn leaders_barrier(&mut self, block: &mut Block, x: Exchange) {
        let (p, n) = (x.me, x.processes);
        let mut step = 0;
        while (1u32 << step) < n {
            self.leader_send(block, x, (p + (1 << step)) % n, step, 0);
            self.leader_recv(block, x, step);
            step += 1;
        }
    }
}
