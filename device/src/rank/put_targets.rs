//! Put targets: the calls that check and look up a put's destination once
//! ([`Rank::put_target`]) and then put to it ([`Rank::put_notify_to`],
//! [`Rank::put_to`]) as often as the rank likes.

use super::Rank;
use crate::abi::Call;
use crate::arch;
use crate::memory::{DeviceCopy, DeviceSlice};
use crate::runtime::{PutTarget, Window};

impl Rank {
    /// Checks a put of `count` elements at element `offset` of rank
    /// `target`'s part of `win`, as [`put`](Self::put) would, and keeps
    /// where it goes: [`put_notify_to`](Self::put_notify_to) and
    /// [`put_to`](Self::put_to) then skip the window's lookup and checks,
    /// which a put repeated every step (a halo) otherwise pays every time.
    ///
    /// A rank holds at most 16 targets at once; a target lives until
    /// [`free_put_target`](Self::free_put_target) or until its window is
    /// freed, after which using its handle fails with an error naming the
    /// rank and the call. Block-collective, like the put it stands for;
    /// it does not synchronise with the target.
    ///
    /// The target's own window entry is checked here, not at each put:
    /// a target rank that frees the window while this rank still puts to
    /// it (breaking `win_free`'s rule that every rank frees it together)
    /// is an error for `put_notify`, but goes unnoticed by `put_notify_to`
    /// on this device and mapped GPUs.
    #[inline(always)]
    #[track_caller]
    pub fn put_target<T: DeviceCopy>(
        &mut self,
        win: Window<T>,
        target: u32,
        offset: usize,
        count: usize,
    ) -> PutTarget<T> {
        arch::block::enter_call(
            "put_target",
            [
                ("window", win.id() as u64),
                ("target", target as u64),
                ("offset", offset as u64),
                ("count", count as u64),
            ],
        );
        self.rt
            .put_target(&mut self.block, win, (target, offset, count))
    }

    /// [`put_notify`](Self::put_notify) to a target made by
    /// [`put_target`](Self::put_target): writes `src` to the target's
    /// first `src.len()` elements (at most its count), then notification
    /// `tag` to the target once the data is there. Puts and notifications
    /// to one target arrive in the order they were issued, as with
    /// `put_notify`, and the two kinds of call may be mixed.
    #[inline(always)]
    #[track_caller]
    pub fn put_notify_to<T: DeviceCopy>(
        &mut self,
        to: PutTarget<T>,
        src: DeviceSlice<T>,
        tag: u32,
    ) {
        arch::block::enter_call(
            "put_notify_to",
            [
                ("source", src.as_mut_ptr() as u64),
                ("count", src.len() as u64),
                ("tag", tag as u64),
            ],
        );
        // Traced as the `put_notify` it stands for, so that summaries and
        // route models count it with the others.
        let target = self.rt.put_target_rank(&to);
        self.traced(
            Call::PutNotify,
            (target, src.bytes() as u64),
            #[inline(always)]
            |r| r.rt.put_to(&mut r.block, to, src, Some(tag)),
        )
    }

    /// [`put`](Self::put) to a target made by
    /// [`put_target`](Self::put_target): writes `src` to the target's
    /// first `src.len()` elements (at most its count), without a
    /// notification; `src` may be reused after [`flush`](Self::flush).
    #[inline(always)]
    #[track_caller]
    pub fn put_to<T: DeviceCopy>(&mut self, to: PutTarget<T>, src: DeviceSlice<T>) {
        arch::block::enter_call(
            "put_to",
            [
                ("source", src.as_mut_ptr() as u64),
                ("count", src.len() as u64),
            ],
        );
        let target = self.rt.put_target_rank(&to);
        self.traced(
            Call::Put,
            (target, src.bytes() as u64),
            #[inline(always)]
            |r| r.rt.put_to(&mut r.block, to, src, None),
        )
    }

    /// Where a target made by [`put_target`](Self::put_target) lies, when
    /// this rank can store to it itself: the target's `count` elements on
    /// this GPU or on a GPU whose memory is mapped here (the direct
    /// route), as `MPI_Win_shared_query` or `nvshmem_ptr` give them;
    /// `None` where the data must be moved for the rank (through the host
    /// or NVSHMEM) or the window is matched. Writing there with plain
    /// stores and then [`notify`](Self::notify)ing the target is a put
    /// without the copy: the notification orders the rank's earlier
    /// writes before it, as a put's does. Block-collective, like the
    /// target; the same answer on every thread.
    ///
    /// # Safety
    /// The slice is valid only while the target is (until
    /// [`free_put_target`](Self::free_put_target) or its window's
    /// [`win_free`](Self::win_free)): no copy of it is used after. Writes
    /// through it follow the window's rules as a put's would: the target
    /// neither reads nor writes those elements until the notification
    /// that announces them.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn put_target_slice<T: DeviceCopy>(
        &mut self,
        to: PutTarget<T>,
    ) -> Option<DeviceSlice<T>> {
        arch::block::enter_call("put_target_slice", []);
        self.rt.put_target_slice(&mut self.block, to)
    }

    /// Frees a target made by [`put_target`](Self::put_target), so that
    /// its slot can hold another; its handle is stale from then on.
    #[inline(always)]
    #[track_caller]
    pub fn free_put_target<T>(&mut self, to: PutTarget<T>) {
        arch::block::enter_call("free_put_target", []);
        self.rt.free_put_target(&mut self.block, to)
    }
}
