//! Typed transfers: `put`, `put_notify`, `get` and `get_notify` whose
//! local side, target side or both are [`Layout`]s. On this device and
//! to mapped GPUs every thread of the rank moves elements straight from
//! source to destination, element `e` of one datatype to element `e` of
//! the other; through the host (other processes) they go in packed pieces
//! (`typed_host.rs`).

use super::notify::direct_scope;
use super::rma::route_of;
use super::window::{Target, Window};
use super::Runtime;
use crate::abi::{Call, Fault, NO_TAG};
use crate::arch;
use crate::block::{Block, Sum, Thread};
use crate::layout::walk::Walk;
use crate::layout::Layout;
use crate::memory::{DeviceCopy, DeviceSlice};

/// Copies element `e` of `from_type` to element `e` of `to_type` for every
/// `e`, through `load` and `store` at their offsets, every thread a share
/// with four elements in flight: a strided copy is bound by the loads it
/// has outstanding. Where a layout reads lists ([`Walk::FIXED`] false),
/// each offset is checked against its buffer's `limits` and one past it is
/// skipped; returns how many were (0 for fixed layouts, unchecked).
///
/// # Safety
/// Inside a rank kernel, after both layouts' shapes were checked: `size`
/// elements; `load` and `store` valid below `limits`, and a fixed layout's
/// offsets below them.
#[inline(always)]
pub(super) unsafe fn spread<V: Copy, A: Walk, B: Walk>(
    block: &mut Block,
    (from_type, to_type, size): (A, B, u64),
    (from_len, to_len): (u64, u64),
    load: impl Fn(usize) -> V,
    store: impl Fn(usize, V),
) -> u64 {
    let threads = block.threads() as u64;
    let checked = !(A::FIXED && B::FIXED);
    let same = matches!((from_type.strided(), to_type.strided()), (Some(a), Some(b)) if a == b);
    let inside = |o: u64, d: u64| !checked || (o < from_len && d < to_len);
    let share = |th: &Thread| -> u64 {
        let (mut e, mut skipped) = (th.index() as u64, 0);
        while e + 3 * threads < size {
            let at = [e, e + threads, e + 2 * threads, e + 3 * threads];
            let src = at.map(|x| from_type.offset(x));
            let dst = if same {
                src
            } else {
                at.map(|x| to_type.offset(x))
            };
            if src.iter().zip(&dst).all(|(&o, &d)| inside(o, d)) {
                let v = src.map(|o| load(o as usize));
                for (o, v) in dst.into_iter().zip(v) {
                    store(o as usize, v);
                }
            } else {
                for (o, d) in src.into_iter().zip(dst) {
                    if inside(o, d) {
                        store(d as usize, load(o as usize));
                    } else {
                        skipped += 1;
                    }
                }
            }
            e += 4 * threads;
        }
        while e < size {
            let (o, d) = (from_type.offset(e), to_type.offset(e));
            if inside(o, d) {
                store(d as usize, load(o as usize));
            } else {
                skipped += 1;
            }
            e += threads;
        }
        skipped
    };
    if checked {
        block.reduce(share, Sum)
    } else {
        block.each_thread(|th| {
            share(th);
        });
        0
    }
}

/// Which way a typed transfer moves data.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    Put,
    Get,
}

impl Runtime {
    /// Checks a typed access and moves its data with every thread; returns
    /// the target for the notification, or `None` when the host moved it
    /// and notified with `tag`.
    #[inline(always)]
    fn typed_transfer<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        block: &mut Block,
        (call, way): (Call, Way),
        win: &Window<T>,
        (target, offset, remote): (u32, usize, R),
        (local, mine): (DeviceSlice<T>, L),
        tag: u32,
    ) -> Option<Target> {
        // The written side must name no element twice: 0 the target's, 1
        // the local one.
        let (put, get) = match way {
            Way::Put => (Some(0), None),
            Way::Get => (None, Some(1)),
        };
        // SAFETY: inside the rank kernel, every thread together.
        let (theirs, ours) = unsafe { (remote.shape(block, put), mine.shape(block, get)) };
        if let Some((fault, values)) = theirs.fault.or(ours.fault) {
            self.fail(block, call, fault, values);
        }
        if ours.size != theirs.size {
            self.fail(
                block,
                call,
                Fault::TypeMismatch,
                [ours.size, theirs.size, 0, 0],
            );
        }
        if ours.extent > local.len() as u64 {
            let last = ours.extent.saturating_sub(1);
            self.fail(
                block,
                call,
                Fault::TypeExtent,
                [last, local.len() as u64, 0, 0],
            );
        }
        // The target's checks name the elements past its window.
        let reach = theirs.extent.min(usize::MAX as u64) as usize;
        let t = self.target(block, call, win, target, offset, reach);
        if direct_scope(route_of(&t)).is_none() {
            // Every thread's writes to the source are done before any
            // thread packs it.
            block.sync();
            let sides = ((offset, remote), (local, mine));
            let (ends, get) = ((win, &t), way == Way::Get);
            self.typed_through_host(block, (call, get), ends, sides.0, sides.1, ours.size, tag);
            return None;
        }
        let there = (t.entry.base as *mut T).wrapping_add(offset);
        let here = local.as_mut_ptr();
        // Every thread's writes to the source (or reads of the
        // destination) are done before any thread copies.
        block.sync();
        let (from, to) = match way {
            Way::Put => (here as *const T, there),
            Way::Get => (there as *const T, here),
        };
        let (size, bytes) = (ours.size, core::mem::size_of::<T>());
        let unit = if bytes > 0 && 16 % bytes == 0 {
            (16 / bytes) as u32
        } else {
            0
        };
        // The window's elements from `offset` on, and the local buffer's.
        let window = (t.entry.bytes / bytes.max(1) as u64).saturating_sub(offset as u64);
        let local_len = local.len() as u64;
        // SAFETY (every closure and `spread`): inside the rank kernel,
        // both shapes checked above; every fixed offset is below the
        // extent checked against its buffer (a unit's offset is an
        // element's divided by the unit), and the others are checked.
        let skipped = unsafe {
            match way {
                Way::Put => {
                    let limits = (local_len, window);
                    move_elements(block, (mine, remote, size), (from, to), limits, unit)
                }
                Way::Get => {
                    let limits = (window, local_len);
                    move_elements(block, (remote, mine, size), (from, to), limits, unit)
                }
            }
        };
        if skipped > 0 {
            self.fail(block, call, Fault::TypeIndex, [u64::MAX, skipped, 0, 0]);
        }
        Some(t)
    }

    /// A typed put (`get` false) or get of `local`'s elements to or from
    /// rank `target`'s part of `win` (`remote`: target, element offset,
    /// datatype), with notification `notify` to the target when given.
    /// A get's data is there, for every thread, on return.
    #[inline(always)]
    pub fn typed<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        block: &mut Block,
        (win, get): (Window<T>, bool),
        remote: (u32, usize, R),
        local: (DeviceSlice<T>, L),
        notify: Option<u32>,
    ) {
        let call = match (get, notify) {
            (false, None) => Call::PutTyped,
            (false, Some(_)) => Call::PutNotifyTyped,
            (true, None) => Call::GetTyped,
            (true, Some(_)) => Call::GetNotifyTyped,
        };
        if let Some(tag) = notify {
            self.check_user_tag(block, call, tag);
        }
        let way = if get { Way::Get } else { Way::Put };
        let tag = notify.unwrap_or(NO_TAG);
        let t = self.typed_transfer(block, (call, way), &win, remote, local, tag);
        if get {
            block.sync();
        }
        if let (Some(tag), Some(t)) = (notify, t) {
            self.deliver(block, &win, &t, tag);
        }
    }
}

/// Moves element `e` of `from_type` at `from` to element `e` of `to_type`
/// at `to` (buffers of `limits` elements), in whole 16-byte units when both
/// layouts and both bases allow (four times the bytes a load brings);
/// returns the elements skipped as [`spread`] does.
///
/// # Safety
/// As [`spread`].
#[inline(always)]
unsafe fn move_elements<T: DeviceCopy, A: Walk, B: Walk>(
    block: &mut Block,
    (from_type, to_type, size): (A, B, u64),
    (from, to): (*const T, *mut T),
    limits: (u64, u64),
    unit: u32,
) -> u64 {
    let aligned = (from as usize).is_multiple_of(16) && (to as usize).is_multiple_of(16);
    let units = match (from_type.in_units_of(unit), to_type.in_units_of(unit)) {
        (Some(a), Some(b)) if unit > 1 && aligned => Some((a, b)),
        _ => None,
    };
    match units {
        Some((a, b)) => {
            let (f, d) = (from as *const u8, to as *mut u8);
            let k = unit as u64;
            spread(
                block,
                (a, b, size / k),
                (limits.0 / k, limits.1 / k),
                |o| arch::load_16(f.add(16 * o)),
                |o, v| arch::store_16(d.add(16 * o), v),
            )
        }
        None => spread(
            block,
            (from_type, to_type, size),
            limits,
            |o| from.add(o).read(),
            |o, v| to.add(o).write(v),
        ),
    }
}
