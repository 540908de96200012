//! The communicator calls of [`Rank`]: making communicators from others
//! and freeing them. Each is collective over the communicator it takes.

use super::Rank;
use crate::abi::Call;
use crate::arch;
use crate::runtime::{Comm, SplitType};

impl Rank {
    /// Splits `comm` into disjoint communicators, one per `color`, as
    /// `MPI_Comm_split` does: every rank of `comm` calls it; the ranks that
    /// pass the same `Some(color)` get one new communicator, ordered by
    /// `key` and then by their rank in `comm`; a rank that passes `None`
    /// joins none and gets `None`. Works inside one GPU and across
    /// processes (at most 64); up to 14 communicators made this way may be
    /// live on a rank at once. Colors are `0..u32::MAX`.
    ///
    /// A communicator spanning processes serves the collectives; windows on
    /// it are not built yet (they fail with an error naming the call). One
    /// inside a GPU serves every call.
    #[inline(always)]
    #[track_caller]
    pub fn comm_split(&mut self, comm: Comm, color: Option<u32>, key: u32) -> Option<Comm> {
        arch::block::enter_call(
            "comm_split",
            [
                ("comm", comm.context() as u64),
                ("color", color.map_or(u64::MAX, u64::from)),
                ("key", key as u64),
            ],
        );
        self.traced(Call::CommSplit, (u32::MAX, 0), |r| {
            r.rt.split(&mut r.block, Call::CommSplit, comm, color, key)
        })
    }

    /// Splits `comm` by locality, as `MPI_Comm_split_type` does: every
    /// rank gets the communicator of the ranks of `comm` on its own GPU
    /// ([`SplitType::Gpu`]) or its own node ([`SplitType::Node`]), ordered
    /// by `key` and then by their rank in `comm`. Collective over `comm`;
    /// free the result with [`comm_free`](Self::comm_free).
    #[inline(always)]
    #[track_caller]
    pub fn comm_split_type(&mut self, comm: Comm, kind: SplitType, key: u32) -> Comm {
        arch::block::enter_call(
            "comm_split_type",
            [("comm", comm.context() as u64), ("key", key as u64)],
        );
        let color = self.rt.split_color(kind);
        let local = self.traced(Call::CommSplitType, (u32::MAX, 0), |r| {
            r.rt.split(&mut r.block, Call::CommSplitType, comm, Some(color), key)
        });
        match local {
            Some(local) => local,
            None => unreachable!("every rank passes a color"),
        }
    }

    /// A new communicator with the ranks of `comm` in the same order, and
    /// a context of its own: its windows, notifications and collectives
    /// never mix with `comm`'s. Collective over `comm`.
    #[inline(always)]
    #[track_caller]
    pub fn comm_dup(&mut self, comm: Comm) -> Comm {
        arch::block::enter_call("comm_dup", [("comm", comm.context() as u64)]);
        let rank = comm.rank();
        let dup = self.traced(Call::CommDup, (u32::MAX, 0), |r| {
            r.rt.split(&mut r.block, Call::CommDup, comm, Some(0), rank)
        });
        match dup {
            Some(dup) => dup,
            None => unreachable!("every rank passes color 0"),
        }
    }

    /// Frees a communicator made by [`comm_split`](Self::comm_split) or
    /// [`comm_dup`](Self::comm_dup), collectively over its ranks, once
    /// every rank is done with it; a later use of it fails with an error.
    /// The world and device communicators cannot be freed.
    #[inline(always)]
    #[track_caller]
    pub fn comm_free(&mut self, comm: Comm) {
        arch::block::enter_call("comm_free", [("comm", comm.context() as u64)]);
        self.traced(Call::CommFree, (u32::MAX, 0), |r| {
            r.rt.free_comm(&mut r.block, comm)
        })
    }
}
