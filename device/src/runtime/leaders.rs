//! The step between devices of a collective over a communicator that spans
//! processes. Each process's leader (the communicator's lowest rank there,
//! its representative) exchanges one word per step with other leaders:
//! the word goes into the target's mailbox (`RankContext::mailbox`), with
//! a reserved tag per communicator slot, parity and step. A GPU
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
//! being taken for one of call c; each communicator slot has its own, so a
//! rank that leads several communicators keeps their messages apart. Each
//! leader combines in the same order (lower process first), so every
//! leader gets the same bits.

use super::comm::Comm;
use super::host::post;
use super::notify::{direct_scope, init_consumed, try_consume};
use super::route::process_index;
use super::wait::{abort_exit, poll};
use super::Runtime;
use crate::abi::ring::Payload;
use crate::abi::{
    counter_index, mailbox_slot, Call, Op, RankContext, Transfer, COLLECTIVE_TAGS, MAILBOX_STEPS,
    MAILBOX_WINDOW,
};
use crate::arch::{self, Ordering, Scope};
use crate::block::{Block, ReduceOp, Reducible};

/// The parity of each communicator slot's next exchange between leaders,
/// one bit per slot. Only collectives between processes flip it, so it is
/// the same on every leader of a communicator for every call.
#[derive(Default)]
pub(crate) struct Leaders {
    pub parity: u32,
}

/// The tag of `step` of `parity` of communicator slot `slot`.
#[inline(always)]
fn tag(slot: u32, parity: u32, step: u32) -> u32 {
    COLLECTIVE_TAGS + (slot * 2 + parity) * MAILBOX_STEPS as u32 + step
}

/// What the leader's thread needs for one exchange.
struct Leader<'a> {
    rt: &'a Runtime,
    ctx: &'a RankContext,
    comm: Comm,
    /// This leader's device rank, its index among the leaders, their count.
    dev: u32,
    me: u32,
    processes: u32,
    parity: u32,
    call: Call,
    /// Whether the ring-credit cache is still to be set up.
    first_send: bool,
}

impl Leader<'_> {
    /// Writes `word` into step `step`'s mailbox of leader `to` and
    /// notifies it. `None` if the run was aborted.
    #[inline(always)]
    fn send(&mut self, to: u32, step: u32, word: u64) -> Option<()> {
        let world = self.rt.rep_world_rank(self.comm, to);
        // SAFETY: `world` is a rank of the job, so its process is in the table.
        let peer = unsafe { *self.ctx.peer(process_index(self.ctx, world)) };
        let (slot, tag) = (self.comm.slot, tag(self.comm.slot, self.parity, step));
        let Some(scope) = direct_scope(peer.route()) else {
            let transfer = Transfer {
                target: world,
                window: MAILBOX_WINDOW,
                offset: mailbox_slot(0, slot, self.parity, step),
                local: word,
                bytes: 8,
            };
            let first = core::mem::replace(&mut self.first_send, false);
            let command = (Op::PutInline, tag, Payload::of(&transfer));
            return post(self.ctx, self.dev, first, command).then_some(());
        };
        let dev = world - peer.first;
        let slot = peer.mailbox(dev, slot, self.parity, step);
        let counter = (peer.notifications as *mut u32).wrapping_add(counter_index(dev, tag));
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
        let (ctx, dev, slot) = (self.ctx, self.dev, self.comm.slot);
        let tag = tag(slot, self.parity, step);
        poll(ctx, ctx.status(dev), self.call, [tag, 1, 0], || {
            try_consume(ctx, dev, tag, 1)
        })?;
        let at = ctx.mailbox(dev, slot, self.parity, step);
        // SAFETY: this leader's mailbox; the counter's acquire ordered the
        // sender's store (or the host's copy) before this load.
        Some(unsafe { arch::load_relaxed(at, Scope::System) })
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
    /// Runs `exchange` on the first thread of `comm`'s leader here (its
    /// lowest rank on this device, whose every thread calls this) and gives
    /// its word to every thread.
    #[inline(always)]
    fn on_leader(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        exchange: impl FnOnce(&mut Leader) -> Option<u64>,
    ) -> u64 {
        self.check_none_pending(block, call);
        let ctx = *self.ctx();
        let parity = (self.leaders.parity >> comm.slot) & 1;
        self.leaders.parity ^= 1 << comm.slot;
        let setup = self.counters.first_use();
        let first_send = self.host.first_send();
        let me = self.rep_index(comm);
        let rt = &*self;
        let word = block.single(|_| {
            if setup {
                init_consumed(ctx.notification_start);
            }
            let mut leader = Leader {
                rt,
                ctx: &ctx,
                comm,
                dev: comm.rec.lead,
                me,
                processes: comm.rec.reps,
                parity,
                call,
                first_send,
            };
            exchange(&mut leader).unwrap_or(u64::MAX)
        });
        // All ones: the leader gave up (it saw the abort flag, which stays
        // raised), or a result of all ones; only then is the flag loaded,
        // off the path of every other call.
        // SAFETY: the flag lives for the run.
        if word == u64::MAX && unsafe { arch::load_relaxed(ctx.abort(), Scope::Gpu) } != 0 {
            abort_exit()
        }
        word
    }

    /// Every leader's `value` combined with `O`, on every thread of the
    /// leader (`comm`'s lowest rank here).
    #[inline(always)]
    pub fn leaders_allreduce<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        value: T,
    ) -> T {
        let word = self.on_leader(block, comm, call, |l| {
            l.allreduce::<T, O>(value).map(Reducible::to_word)
        });
        T::from_word(word)
    }

    /// Returns on the leader once every leader has called it.
    #[inline(always)]
    pub fn leaders_barrier(&mut self, block: &mut Block, comm: Comm) {
        self.on_leader(block, comm, Call::Barrier, |l| l.barrier().map(|_| 0));
    }
}
