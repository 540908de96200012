//! Communicators: all ranks (world) or the ranks of this device.

use crate::rank::Rank;

/// Which communicator.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommKind {
    /// Every rank of the job.
    World = 0,
    /// The ranks of this device.
    Device = 1,
}

impl CommKind {
    /// The name of a raw kind, for messages.
    pub fn name_of(v: u32) -> &'static str {
        match v {
            0 => "world",
            1 => "device",
            _ => "unknown",
        }
    }
}

/// A communicator as seen by one rank: plain data, the same on every thread,
/// so it may be read inside per-thread regions too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comm {
    kind: CommKind,
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
}

impl Rank {
    /// The world communicator: every rank of the job.
    #[inline(always)]
    pub fn world(&self) -> Comm {
        let ctx = self.ctx();
        Comm {
            kind: CommKind::World,
            rank: ctx.world_first + self.id,
            size: ctx.world_size,
        }
    }

    /// The device communicator: the ranks of this GPU.
    #[inline(always)]
    pub fn device(&self) -> Comm {
        Comm {
            kind: CommKind::Device,
            rank: self.id,
            size: self.size,
        }
    }

    #[inline(always)]
    pub(crate) fn comm_of(&self, kind: CommKind) -> Comm {
        match kind {
            CommKind::World => self.world(),
            CommKind::Device => self.device(),
        }
    }
}
