//! Making and freeing communicators: `split` (and `dup`, a split with one
//! color and the old order), inside the persistent kernel.
//!
//! Every rank of the old communicator writes a [`SplitEntry`] (color, key,
//! the lowest context id it may use, the slots it has in use) to the run's
//! exchange, in the old communicator's slot; across processes the hosts
//! copy each process's entries to the others. Then every rank reads every
//! entry and works out the same answers:
//!
//! * the new communicators share one slot, the lowest free on every old
//!   rank, so a communicator has the same slot on every process (its tags
//!   between processes depend on it); communicators that share a slot
//!   never share a rank;
//! * a color's context id is the highest `next_context` plus the number of
//!   old ranks of lower colors: different from every communicator any of
//!   its ranks has;
//! * a new rank is the number of same-colored ranks of lower (key, old
//!   rank).
//!
//! The lowest rank of each color on a device asks its host for a part of
//! the slot's table (communicators of a slot made by different splits
//! would otherwise collide) and writes there its ranks' world ranks in new
//! rank order, then each process's representative (its rank of lowest
//! world rank) in process order. A barrier over the old communicator on
//! each device publishes the part, and also keeps the entries from being
//! overwritten by the next split before every rank has read them.

use super::comm::{world_rank, Comm, CommKind};
use super::Runtime;
use crate::abi::ring::Payload;
use crate::abi::{
    Call, CommRecord, CommSyncKind, Fault, Op, RankContext, SplitEntry, MAX_COMMS, MAX_SPANNED,
};
use crate::arch::{self, Scope};
use crate::block::{BitOr, Block, Max, Min, Sum};

/// The color of a rank that joins no new communicator.
const NO_COLOR: u32 = u32::MAX;
/// Bits of each count packed into one sum.
const BITS: u32 = 21;
const MASK: u64 = (1 << BITS) - 1;

/// The split entries of a parent communicator's ranks, published before
/// they are read.
struct Entries<'a> {
    ctx: &'a RankContext,
    parent: Comm,
    threads: u32,
}

impl Entries<'_> {
    /// Rank `i`'s entry.
    #[inline(always)]
    fn get(&self, i: u32) -> SplitEntry {
        let world = world_rank(self.ctx, self.parent, i);
        // SAFETY: in the exchange; published by the barrier before.
        unsafe {
            self.ctx
                .split_entry(self.parent.slot, world)
                .read_volatile()
        }
    }

    /// Calls `f` with the ranks thread `t` handles and their entries.
    #[inline(always)]
    fn each(&self, t: u32, mut f: impl FnMut(u32, SplitEntry)) {
        let mut i = t;
        while i < self.parent.size() {
            f(i, self.get(i));
            i += self.threads;
        }
    }
}

impl Runtime {
    /// Splits `parent` by `color` (`None`: join none), ordering each new
    /// communicator's ranks by `key`, then by rank in `parent`.
    #[inline(always)]
    pub fn split(
        &mut self,
        block: &mut Block,
        call: Call,
        parent: Comm,
        color: Option<u32>,
        key: u32,
    ) -> Option<Comm> {
        self.check_comm(block, call, parent);
        let ctx = *self.ctx();
        if color == Some(NO_COLOR) {
            self.fail(
                block,
                call,
                Fault::ColorReserved,
                [NO_COLOR as u64, 0, 0, 0],
            );
        }
        if parent.size() as u64 > MASK || ctx.processes > MAX_SPANNED {
            let values = [ctx.processes as u64, MAX_SPANNED as u64, 0, 0];
            self.fail(block, call, Fault::TooManyProcesses, values);
        }
        let me = ctx.world_first + block.id();
        let mine = SplitEntry {
            color: color.unwrap_or(NO_COLOR),
            key,
            next_context: self.comms.next_context,
            live: self.comms.live,
        };
        let at = ctx.split_entry(parent.slot, me);
        // SAFETY: this rank's own entry; the barrier publishes it.
        block.leader(|_| unsafe { at.write_volatile(mine) });
        self.local_barrier(block, parent, call);
        if self.spans_processes(parent) {
            if block.id() == parent.rec.lead {
                self.comm_sync(block, parent, CommSyncKind::Split);
            }
            self.local_barrier(block, parent, call);
        }
        let (n, prank) = (parent.size(), parent.rank());
        let entries = Entries {
            ctx: &ctx,
            parent,
            threads: block.threads(),
        };
        let highest = block.reduce(
            |t| {
                let mut m = 0u32;
                entries.each(t.index(), |_, e| m = m.max(e.next_context));
                m
            },
            Max,
        );
        let used = block.reduce(
            |t| {
                let mut m = 0u32;
                entries.each(t.index(), |_, e| m |= e.live);
                m
            },
            BitOr,
        );
        let all = (1u32 << MAX_COMMS) - 1;
        let free = !used & all;
        if free == 0 || highest > u32::MAX - n {
            let values = [MAX_COMMS as u64 - 2, highest as u64, 0, 0];
            self.fail(block, call, Fault::TooManyComms, values);
        }
        self.comms.next_context = highest + n;
        let Some(color) = color else {
            self.local_barrier(block, parent, call);
            return None;
        };
        let slot = free.trailing_zeros();
        // Ranks of this color before this one, of this color, and of lower
        // colors (which number the colors' contexts), packed in one sum.
        let counts = block.reduce(
            |t| {
                let mut c = 0u64;
                entries.each(t.index(), |i, e| {
                    if e.color == color && (e.key, i) < (key, prank) {
                        c += 1;
                    }
                    if e.color == color {
                        c += 1 << BITS;
                    }
                    if e.color < color {
                        c += 1 << (2 * BITS);
                    }
                });
                c
            },
            Sum,
        );
        let (rank, size, lower) = (
            (counts & MASK) as u32,
            ((counts >> BITS) & MASK) as u32,
            (counts >> (2 * BITS)) as u32,
        );
        let here = |w: u32| w.wrapping_sub(ctx.world_first) < ctx.ranks;
        let lead = block.reduce(
            |t| {
                let mut m = u32::MAX;
                entries.each(t.index(), |i, e| {
                    let w = world_rank(&ctx, parent, i);
                    if e.color == color && here(w) {
                        m = m.min(w - ctx.world_first);
                    }
                });
                m
            },
            Min,
        );
        let local = block.reduce(
            |t| {
                let mut c = 0u32;
                entries.each(t.index(), |i, e| {
                    c += (e.color == color && here(world_rank(&ctx, parent, i))) as u32;
                });
                c
            },
            Sum,
        );
        // The processes holding ranks of this color, one bit each.
        let holders = block.reduce(
            |t| {
                let mut m = 0u64;
                entries.each(t.index(), |i, e| {
                    if e.color == color {
                        m |= 1 << super::route::process_index(&ctx, world_rank(&ctx, parent, i));
                    }
                });
                m
            },
            BitOr,
        );
        let process = super::route::process_index(&ctx, me);
        let below = |p: u32| (holders & ((1u64 << p) - 1)).count_ones();
        let reps = holders.count_ones();
        let mut rec = CommRecord {
            context: highest + lower,
            rank,
            size,
            offset: 0,
            local,
            lead,
            reps,
            rep: below(process),
            windows: 0,
            _pad: 0,
        };
        let at = ctx.comm_record(block.id(), slot);
        if block.id() == lead {
            let len = [size + reps, 0];
            rec.offset = self.host_call_with(block, Op::CommTable, slot, Payload::of(&len));
            if rec.offset == u32::MAX {
                let values = [
                    MAX_COMMS as u64 - 2,
                    size as u64 + reps as u64,
                    slot as u64,
                    1, // the slot's table is full
                ];
                self.fail(block, call, Fault::TooManyComms, values);
            }
            self.write_tables(block, parent, (slot, rec.offset, color, size), below);
            // SAFETY: this rank's own record of a slot free on every rank;
            // the barrier below publishes it to the color's ranks here.
            block.leader(|_| unsafe { at.write_volatile(rec) });
        }
        self.local_barrier(block, parent, call);
        if block.id() != lead {
            // SAFETY: the lead's record, published by the barrier.
            rec.offset = unsafe { (*ctx.comm_record(lead, slot)).offset };
            // SAFETY: this rank's own record of a slot free on every rank.
            block.leader(|_| unsafe { at.write_volatile(rec) });
        }
        self.comms.live |= 1 << slot;
        // A fresh slot starts at parity 0 on every rank.
        self.collectives.parity &= !(1 << slot);
        self.leaders.parity &= !(1 << slot);
        Some(Comm {
            kind: CommKind::Split,
            slot,
            rec,
        })
    }

    /// Writes this device's table of one color (of `size` ranks) of a split
    /// of `parent` into `slot` from `offset` on: its ranks' world ranks in
    /// new-rank order, then each process's representative; `below(p)`
    /// counts the processes before process `p` that hold ranks of it.
    #[inline(always)]
    fn write_tables(
        &self,
        block: &mut Block,
        parent: Comm,
        (slot, offset, color, size): (u32, u32, u32, u32),
        below: impl Fn(u32) -> u32,
    ) {
        let ctx = *self.ctx();
        let n = parent.size();
        let entries = Entries {
            ctx: &ctx,
            parent,
            threads: block.threads(),
        };
        let entry = |i: u32| entries.get(i);
        block.each_thread(|t| {
            let mut i = t.index();
            while i < n {
                let e = entry(i);
                if e.color == color {
                    let w = world_rank(&ctx, parent, i);
                    let process = super::route::process_index(&ctx, w);
                    // SAFETY: a process of the job.
                    let first = unsafe { (*ctx.peer(process)).first };
                    let (mut rank, mut lowest) = (0, true);
                    for j in 0..n {
                        let f = entry(j);
                        if f.color != color {
                            continue;
                        }
                        rank += ((f.key, j) < (e.key, i)) as u32;
                        // A rank of lower world rank on the same process?
                        let v = world_rank(&ctx, parent, j);
                        lowest &= !(first <= v && v < w);
                    }
                    // SAFETY: this color's part of the slot's tables, which
                    // only this rank writes.
                    unsafe {
                        arch::store_relaxed(ctx.comm_table(slot, offset + rank), w, Scope::Gpu);
                        if lowest {
                            let at = ctx.comm_table(slot, offset + size + below(process));
                            arch::store_relaxed(at, w, Scope::Gpu);
                        }
                    }
                }
                i += block.threads();
            }
        });
    }

    /// Frees `comm`, collectively over its ranks.
    #[inline(always)]
    pub fn free_comm(&mut self, block: &mut Block, comm: Comm) {
        self.check_comm(block, Call::CommFree, comm);
        if comm.kind != CommKind::Split {
            let values = [comm.context() as u64, comm.slot as u64, 0, 0];
            self.fail(block, Call::CommFree, Fault::CommNotLive, values);
        }
        // Every rank is done with it before its slot can be reused.
        self.barrier(block, comm);
        if block.id() == comm.rec.lead {
            let part = [comm.rec.offset, comm.rec.size + comm.rec.reps];
            self.host_send(block, Op::CommTableFree, comm.slot, Payload::of(&part));
        }
        let at = self.ctx().comm_record(block.id(), comm.slot);
        // SAFETY: this rank's own record.
        block.leader(|_| unsafe { arch::store_relaxed(at as *mut u32, 0, Scope::Gpu) });
        self.comms.live &= !(1 << comm.slot);
    }
}
