//! Two-sided messages between ranks: [`Rank::send`], [`Rank::recv`],
//! [`Rank::probe`] and [`Rank::iprobe`], with source and tag wildcards and
//! MPI's order per sender, tag and communicator. They delegate to the
//! runtime (`runtime/messages.rs` says how messages travel).

use super::Rank;
use crate::abi::Call;
use crate::arch;
use crate::memory::{DeviceCopy, DeviceSlice};
use crate::runtime::{Comm, Source, Status};

/// The emulator's check words of a source and tag that may be wildcards.
fn wildcards(source: Source, tag: Option<u32>) -> [(&'static str, u64); 2] {
    let source = match source {
        Source::Any => u64::MAX,
        Source::Rank(r) => r as u64,
    };
    [("source", source), ("tag", tag.map_or(u64::MAX, u64::from))]
}

impl Rank {
    /// Sends `buf` to rank `dest` of `comm` with `tag` (a user tag,
    /// `0..USER_TAGS`), as `MPI_Send`. Returns once `buf` may be reused:
    /// at once for a message of at most [`EAGER`](crate::abi::EAGER) bytes
    /// (it travels in the receiver's log), or when the receiver has copied
    /// it (rendezvous); to another process, once the host has read it.
    /// While the receiver's log of unreceived messages is full the sender
    /// waits. A rank sending a long message to itself before receiving it
    /// waits forever, as with `MPI_Send`. A long message on one GPU must be
    /// in global memory (the receiver reads it).
    #[inline(always)]
    #[track_caller]
    pub fn send<T: DeviceCopy>(&mut self, comm: Comm, dest: u32, tag: u32, buf: DeviceSlice<T>) {
        arch::block::enter_call(
            "send",
            [
                ("comm", comm.context() as u64),
                ("dest", dest as u64),
                ("tag", tag as u64),
                ("len", buf.len() as u64),
            ],
        );
        self.traced(Call::Send, (dest, buf.bytes() as u64), |r| {
            r.rt.send(&mut r.block, comm, (dest, tag), buf)
        });
    }

    /// Receives the oldest message on `comm` from `source`
    /// ([`Source::Any`] for any) with `tag` (`None` for any) into the
    /// start of `buf`, as `MPI_Recv`, and tells what it was. A message
    /// longer than `buf`, or not a whole number of `T`s, stops the run
    /// with an error naming both sizes.
    #[inline(always)]
    #[track_caller]
    pub fn recv<T: DeviceCopy>(
        &mut self,
        comm: Comm,
        source: Source,
        tag: Option<u32>,
        buf: DeviceSlice<T>,
    ) -> Status {
        let [s, t] = wildcards(source, tag);
        arch::block::enter_call(
            "recv",
            [
                ("comm", comm.context() as u64),
                s,
                t,
                ("len", buf.len() as u64),
            ],
        );
        self.traced(Call::Recv, (source_rank(source), buf.bytes() as u64), |r| {
            r.rt.recv(&mut r.block, comm, (source, tag), buf)
        })
    }

    /// Waits for a message on `comm` from `source` with `tag` (wildcards
    /// as in [`recv`](Self::recv)) and tells what it is, without receiving
    /// it (`MPI_Probe`): a `recv` with the status's source and tag gets it.
    #[inline(always)]
    #[track_caller]
    pub fn probe(&mut self, comm: Comm, source: Source, tag: Option<u32>) -> Status {
        let [s, t] = wildcards(source, tag);
        arch::block::enter_call("probe", [("comm", comm.context() as u64), s, t]);
        self.traced(Call::Probe, (source_rank(source), 0), |r| {
            r.rt.probe(&mut r.block, comm, (source, tag))
        })
    }

    /// [`probe`](Self::probe) without waiting (`MPI_Iprobe`): `None` when
    /// no such message has arrived yet. A rank that polls with it forever
    /// is reported by the watchdog, as one that waits.
    #[inline(always)]
    #[track_caller]
    pub fn iprobe(&mut self, comm: Comm, source: Source, tag: Option<u32>) -> Option<Status> {
        let [s, t] = wildcards(source, tag);
        arch::block::enter_call("iprobe", [("comm", comm.context() as u64), s, t]);
        self.rt.iprobe(&mut self.block, comm, (source, tag))
    }
}

/// A traced receive's peer: the source rank, or `u32::MAX` for any.
#[inline(always)]
fn source_rank(source: Source) -> u32 {
    match source {
        Source::Rank(r) => r,
        Source::Any => u32::MAX,
    }
}
