//! Communicators: all ranks (world), the ranks of this device, and those
//! made from them by `split` and `dup` ([`split`](super::split)), each with
//! a context id of its own and a slot in the run's communicator tables.

use super::route::process_index;
use super::Runtime;
use crate::abi::{contexts, Call, CommRecord, Fault, RankContext, MAX_COMMS};
use crate::arch::{self, Scope};
use crate::block::Block;

/// Which communicator.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommKind {
    /// Every rank of the job.
    World = 0,
    /// The ranks of this device.
    Device = 1,
    /// Made by `split` or `dup`.
    Split = 2,
}

/// Which ranks [`Rank::comm_split_type`](crate::Rank::comm_split_type)
/// groups together, as `MPI_Comm_split_type` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitType {
    /// The ranks on the same GPU (one process each).
    Gpu,
    /// The ranks on the same node (`MPI_COMM_TYPE_SHARED`): processes
    /// whose hosts have the same name.
    Node,
}

/// A communicator as seen by one rank: plain data, the same on every thread,
/// so it may be read inside per-thread regions too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comm {
    pub(crate) kind: CommKind,
    /// Its slot in the communicator tables (0 world, 1 device).
    pub(crate) slot: u32,
    pub(crate) rec: CommRecord,
}

impl Comm {
    /// This rank's index in the communicator.
    #[inline(always)]
    pub fn rank(&self) -> u32 {
        self.rec.rank
    }

    /// The number of ranks in the communicator.
    #[inline(always)]
    pub fn size(&self) -> u32 {
        self.rec.size
    }

    /// Which communicator this is.
    #[inline(always)]
    pub fn kind(&self) -> CommKind {
        self.kind
    }

    /// Its context id: the same on every rank of the communicator, and
    /// different from that of every other communicator the rank belongs
    /// to. Windows record it, so that a window is never used through
    /// another communicator.
    #[inline(always)]
    pub fn context(&self) -> u32 {
        self.rec.context
    }

    /// How many processes hold its ranks.
    #[inline(always)]
    pub fn processes(&self) -> u32 {
        self.rec.reps
    }
}

/// Which communicator slots this rank uses, and the lowest context id it
/// may give a new communicator.
pub(crate) struct Comms {
    pub live: u32,
    pub next_context: u32,
}

impl Default for Comms {
    fn default() -> Self {
        Comms {
            live: 0b11, // the world and the device
            next_context: contexts::FIRST_SPLIT,
        }
    }
}

/// World rank of rank `i` of `comm` (`i` checked by the caller).
#[inline(always)]
pub(crate) fn world_rank(ctx: &RankContext, comm: Comm, i: u32) -> u32 {
    match comm.kind {
        CommKind::World => i,
        CommKind::Device => ctx.world_first + i,
        // SAFETY: in the slot's table, written at the split.
        CommKind::Split => unsafe {
            arch::load_relaxed(ctx.comm_table(comm.slot, comm.rec.offset + i), Scope::Gpu)
        },
    }
}

impl Runtime {
    /// The world communicator: every rank of the job.
    #[inline(always)]
    pub fn world(&self, block: &Block) -> Comm {
        let ctx = self.ctx();
        Comm {
            kind: CommKind::World,
            slot: 0,
            rec: CommRecord {
                context: contexts::WORLD,
                rank: ctx.world_first + block.id(),
                size: ctx.world_size,
                offset: 0,
                local: ctx.ranks,
                lead: 0,
                reps: ctx.processes,
                rep: u32::MAX, // found by `rep_index` when needed
                windows: 0,
                _pad: 0,
            },
        }
    }

    /// The device communicator: the ranks of this GPU.
    #[inline(always)]
    pub fn device(&self, block: &Block) -> Comm {
        Comm {
            kind: CommKind::Device,
            slot: 1,
            rec: CommRecord {
                context: contexts::DEVICE,
                rank: block.id(),
                size: block.size(),
                offset: 0,
                local: block.size(),
                lead: 0,
                reps: 1,
                rep: 0,
                windows: 0,
                _pad: 0,
            },
        }
    }

    /// This device's index among the processes holding ranks of `comm`.
    #[inline(always)]
    pub fn rep_index(&self, comm: Comm) -> u32 {
        match comm.kind {
            CommKind::World => process_index(self.ctx(), self.ctx().world_first),
            _ => comm.rec.rep,
        }
    }

    /// The color of this rank's group of `kind`: its process index for
    /// a GPU, its node's index for a node (the same on every process).
    #[inline(always)]
    pub fn split_color(&self, kind: SplitType) -> u32 {
        let ctx = self.ctx();
        let process = process_index(ctx, ctx.world_first);
        match kind {
            SplitType::Gpu => process,
            // SAFETY: this process's entry of the peer table.
            SplitType::Node => unsafe { (*ctx.peer(process)).node },
        }
    }

    /// The communicator of the window with context `context` in `slot`,
    /// failing `call` if this rank no longer has it.
    #[inline(always)]
    pub fn comm_of(&self, block: &mut Block, call: Call, context: u32, slot: u32) -> Comm {
        match slot {
            0 => self.world(block),
            1 => self.device(block),
            _ => {
                let slot = slot.min(MAX_COMMS as u32 - 1);
                let at = self.ctx().comm_record(block.id(), slot);
                // SAFETY: this rank's own record, written by its leader.
                let rec = unsafe { at.read_volatile() };
                if rec.context != context {
                    let values = [context as u64, slot as u64, 0, 0];
                    self.fail(block, call, Fault::CommNotLive, values);
                }
                Comm {
                    kind: CommKind::Split,
                    slot,
                    rec,
                }
            }
        }
    }

    /// Fails `call` unless `comm` is still this rank's (not freed).
    #[inline(always)]
    pub fn check_comm(&self, block: &mut Block, call: Call, comm: Comm) {
        if comm.kind == CommKind::Split {
            let at = self.ctx().comm_record(block.id(), comm.slot);
            // SAFETY: this rank's own record.
            let context = unsafe { arch::load_relaxed(at as *const u32, Scope::Gpu) };
            if context != comm.rec.context || self.comms.live & (1 << comm.slot) == 0 {
                let values = [comm.rec.context as u64, comm.slot as u64, 0, 0];
                self.fail(block, call, Fault::CommNotLive, values);
            }
        }
    }

    /// Whether `comm` spans processes (then its global steps go between
    /// the devices' representatives or through the hosts).
    #[inline(always)]
    pub fn spans_processes(&self, comm: Comm) -> bool {
        comm.rec.reps > 1
    }

    /// World rank of rank `i` of `comm` (`i` checked by the caller).
    #[inline(always)]
    pub fn world_rank(&self, comm: Comm, i: u32) -> u32 {
        world_rank(self.ctx(), comm, i)
    }

    /// World rank of `comm`'s representative on process index `r`.
    #[inline(always)]
    pub fn rep_world_rank(&self, comm: Comm, r: u32) -> u32 {
        let ctx = self.ctx();
        match comm.kind {
            // SAFETY: `r` is a process of the job.
            CommKind::World => unsafe { (*ctx.peer(r)).first },
            CommKind::Device => ctx.world_first,
            // SAFETY: in the slot's table, written at the split.
            CommKind::Split => unsafe {
                let at = ctx.comm_table(comm.slot, comm.rec.offset + comm.rec.size + r);
                arch::load_relaxed(at, Scope::Gpu)
            },
        }
    }
}
