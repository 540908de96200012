//! Put targets: the calls that check and look up a put's destination once
//! ([`Rank::put_target`]) and then put to it ([`Rank::put_notify_to`],
//! [`Rank::put_to`], and typed: [`Rank::put_notify_typed_to`],
//! [`Rank::put_typed_to`]) as often as the rank likes.

use super::Rank;
use crate::abi::Call;
use crate::arch;
use crate::layout::Layout;
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

    /// [`put_notify_typed`](Self::put_notify_typed) to a target made by
    /// [`put_target`](Self::put_target): writes the elements of `src` that
    /// `src_type` names to the elements of the target that `target_type`
    /// names (counted from the target's start, within its count), then
    /// notification `tag` to the target once the data is there. The
    /// datatypes are checked as `put_notify_typed` checks them; the window
    /// lookup is not repeated. A strided halo put every step is the use.
    #[inline(always)]
    #[track_caller]
    pub fn put_notify_typed_to<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        to: PutTarget<T>,
        target_type: R,
        (src, src_type): (DeviceSlice<T>, L),
        tag: u32,
    ) {
        self.typed_to(
            "put_notify_typed_to",
            to,
            target_type,
            (src, src_type),
            Some(tag),
        )
    }

    /// [`put_typed`](Self::put_typed) to a target made by
    /// [`put_target`](Self::put_target), without a notification: as
    /// [`put_notify_typed_to`](Self::put_notify_typed_to) otherwise.
    #[inline(always)]
    #[track_caller]
    pub fn put_typed_to<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        to: PutTarget<T>,
        target_type: R,
        (src, src_type): (DeviceSlice<T>, L),
    ) {
        self.typed_to("put_typed_to", to, target_type, (src, src_type), None)
    }

    /// The two typed puts to a target, written once.
    #[inline(always)]
    #[track_caller]
    fn typed_to<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        name: &'static str,
        to: PutTarget<T>,
        target_type: R,
        (src, src_type): (DeviceSlice<T>, L),
        tag: Option<u32>,
    ) {
        // SAFETY: inside the rank kernel.
        let elements = unsafe { src_type.elements() };
        arch::block::enter_call(
            name,
            [
                ("source", src.as_mut_ptr() as u64),
                ("elements", elements),
                ("tag", tag.map_or(u64::MAX, u64::from)),
            ],
        );
        // Traced as the typed put it stands for.
        let target = self.rt.put_target_rank(&to);
        let call = if tag.is_some() {
            Call::PutNotifyTyped
        } else {
            Call::PutTyped
        };
        let bytes = elements * core::mem::size_of::<T>() as u64;
        self.traced(
            call,
            (target, bytes),
            #[inline(always)]
            |r| {
                r.rt.put_typed_to(&mut r.block, to, target_type, (src, src_type), tag)
            },
        )
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
