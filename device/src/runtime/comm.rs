//! Communicators: all ranks (world) or the ranks of this device, each with
//! a context id of its own.

use super::Runtime;
use crate::abi::contexts;
use crate::block::Block;

/// Which communicator.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommKind {
    /// Every rank of the job.
    World = 0,
    /// The ranks of this device.
    Device = 1,
}

/// A communicator as seen by one rank: plain data, the same on every thread,
/// so it may be read inside per-thread regions too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comm {
    kind: CommKind,
    context: u32,
    rank: u32,
    size: u32,
}

impl Comm {
    /// This rank's index in the communicator.
    #[inline(always)]
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// The number of ranks in the communicator.
    #[inline(always)]
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Which communicator this is.
    #[inline(always)]
    pub fn kind(&self) -> CommKind {
        self.kind
    }

    /// Its context id: the same on every rank of the communicator, and
    /// different for every communicator that exists at once. Windows record
    /// it, so that a window is never used through another communicator.
    #[inline(always)]
    pub fn context(&self) -> u32 {
        self.context
    }
}

impl Runtime {
    /// The world communicator: every rank of the job.
    #[inline(always)]
    pub fn world(&self, block: &Block) -> Comm {
        let ctx = self.ctx();
        Comm {
            kind: CommKind::World,
            context: contexts::WORLD,
            rank: ctx.world_first + block.id(),
            size: ctx.world_size,
        }
    }

    /// The device communicator: the ranks of this GPU.
    #[inline(always)]
    pub fn device(&self, block: &Block) -> Comm {
        Comm {
            kind: CommKind::Device,
            context: contexts::DEVICE,
            rank: block.id(),
            size: block.size(),
        }
    }

    /// The communicator of context id `context` (one of [`contexts`]).
    #[inline(always)]
    pub fn comm_of(&self, block: &Block, context: u32) -> Comm {
        if context == contexts::WORLD {
            self.world(block)
        } else {
            self.device(block)
        }
    }

    /// Whether `comm` spans processes (then its global steps go through
    /// the hosts).
    #[inline(always)]
    pub fn spans_processes(&self, comm: Comm) -> bool {
        comm.kind == CommKind::World && self.ctx().processes > 1
    }
}
