//! Looking at messages without receiving them (`probe`, `iprobe`), and
//! what a receive or probe asks for.

use super::comm::Comm;
use super::matching::Source;
use super::message_inbox::clear_want;
use super::message_logs::{self as logs, Origin, Wanted};
use super::messages::Status;
use super::route::process_of;
use super::Runtime;
use crate::abi::{Call, Fault, MessageRecord, PeerLogs, Route};
use crate::block::Block;

/// What an `iprobe` found: nothing, or the run was aborted (no found word
/// is either: no device has that many ranks).
const NOTHING: u32 = u32::MAX;
const ABORTED: u32 = u32::MAX - 1;

impl Runtime {
    /// Checks a receive's or probe's source and tag on `comm`.
    #[inline(always)]
    pub(super) fn wanted(
        &self,
        block: &mut Block,
        call: Call,
        comm: Comm,
        (source, tag): (Source, Option<u32>),
    ) -> Wanted {
        self.check_comm(block, call, comm);
        if let Source::Rank(s) = source {
            if s >= comm.size() {
                let values = [s as u64, comm.size() as u64, 0, 0];
                self.fail(block, call, Fault::RankOutOfRange, values);
            }
        }
        if let Some(t) = tag {
            self.check_user_tag(block, call, t);
        }
        Wanted {
            context: comm.context(),
            source,
            tag,
            origin: self.origin(comm, source),
        }
    }

    /// Where messages from `source` of `comm` can wait
    /// ([`Origin`]): a receive from one rank polls its store alone.
    #[inline(always)]
    fn origin(&self, comm: Comm, source: Source) -> Origin {
        let Source::Rank(s) = source else {
            return Origin::Any;
        };
        let ctx = self.ctx();
        let world = self.world_rank(comm, s);
        if world.wrapping_sub(ctx.world_first) < ctx.ranks {
            return Origin::Device;
        }
        let peer = process_of(ctx, world);
        let logs = PeerLogs {
            ranks: peer.ranks,
            logs: ctx.peer_logs,
        };
        match logs.log_index(peer.node_index, ctx.node_index) {
            Some(log) if peer.route() == Route::Direct => Origin::Peer(log),
            _ => Origin::Hosts,
        }
    }

    /// The header of the record `found` names, on every thread.
    #[inline(always)]
    fn status_of(&self, block: &Block, found: u32) -> (*mut MessageRecord, Status) {
        let r = logs::record_of(self.ctx(), block.id(), found);
        // SAFETY: a published record; the leader's acquire of it and the
        // barrier after it order these reads.
        let status = unsafe {
            Status {
                source: (*r).source,
                tag: (*r).tag,
                bytes: (*r).bytes,
            }
        };
        (r, status)
    }

    /// Waits for a message on `comm` from `source` with `tag` and tells
    /// what it is, without receiving it.
    #[inline(always)]
    pub fn probe(&mut self, block: &mut Block, comm: Comm, from: (Source, Option<u32>)) -> Status {
        let w = self.wanted(block, Call::Probe, comm, from);
        let (ctx, id) = (*self.ctx(), block.id());
        self.tests.waiting();
        let mut setup = self.messages.first_use();
        let found = self.wait_until(block, Call::Probe, w.args(), || {
            if core::mem::take(&mut setup) {
                logs::start(&ctx, id);
            }
            logs::find(&ctx, id, &w, true).map(|f| f.word)
        });
        if ctx.processes > 1 {
            block.leader(|_| clear_want(&ctx, id));
        }
        self.status_of(block, found).1
    }

    /// [`probe`](Self::probe) without waiting: `None` when no such
    /// message has arrived.
    #[inline(always)]
    pub fn iprobe(
        &mut self,
        block: &mut Block,
        comm: Comm,
        from: (Source, Option<u32>),
    ) -> Option<Status> {
        let w = self.wanted(block, Call::Iprobe, comm, from);
        let (ctx, id) = (*self.ctx(), block.id());
        let (status, streak) = (ctx.status(id), &mut self.tests);
        // A poll posts no want: it may never receive what it asks about.
        let first = self.messages.first_use();
        let found = block.single(|_| {
            if first {
                logs::start(&ctx, id);
            }
            match logs::find(&ctx, id, &w, false) {
                Ok(f) => {
                    streak.succeeded(status);
                    f.word
                }
                Err(seen) => {
                    if streak.failed(&ctx, status, Call::Iprobe, w.args(), seen) {
                        ABORTED
                    } else {
                        NOTHING
                    }
                }
            }
        });
        match found {
            NOTHING => None,
            ABORTED => super::wait::abort_exit(),
            found => Some(self.status_of(block, found).1),
        }
    }
}
