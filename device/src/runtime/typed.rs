//! Typed transfers: `put`, `put_notify`, `get` and `get_notify` whose
//! local side, target side or both are [`Datatype`]s. On this device and
//! to mapped GPUs every thread of the rank moves elements straight from
//! source to destination, element `e` of one datatype to element `e` of
//! the other; the host route (other processes) is refused until it packs.

use super::notify::direct_scope;
use super::rma::route_of;
use super::window::{Target, Window};
use super::Runtime;
use crate::abi::{Call, Fault};
use crate::arch;
use crate::block::Block;
use crate::datatype::Datatype;
use crate::memory::{DeviceCopy, DeviceSlice};

/// Copies element `e` of `from_type` to element `e` of `to_type` for every
/// `e`, through `load` and `store` at their offsets, every thread a share
/// with four elements in flight: a strided copy is bound by the loads it
/// has outstanding.
#[inline(always)]
fn spread<V: Copy>(
    block: &Block,
    (from_type, to_type): (Datatype, Datatype),
    load: impl Fn(usize) -> V,
    store: impl Fn(usize, V),
) {
    let (threads, size, same) = (
        block.threads() as u64,
        from_type.size(),
        from_type == to_type,
    );
    block.each_thread(|th| {
        let mut e = th.index() as u64;
        while e + 3 * threads < size {
            let at = [e, e + threads, e + 2 * threads, e + 3 * threads];
            let src = at.map(|x| from_type.offset(x) as usize);
            let dst = if same {
                src
            } else {
                at.map(|x| to_type.offset(x) as usize)
            };
            let v = src.map(&load);
            for (o, v) in dst.into_iter().zip(v) {
                store(o, v);
            }
            e += 4 * threads;
        }
        while e < size {
            store(
                to_type.offset(e) as usize,
                load(from_type.offset(e) as usize),
            );
            e += threads;
        }
    });
}

/// Which way a typed transfer moves data.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    Put,
    Get,
}

impl Runtime {
    /// Checks a typed access and moves its data with every thread; returns
    /// the target for the notification.
    #[inline(always)]
    fn typed_transfer<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        (call, way): (Call, Way),
        win: &Window<T>,
        (target, offset, remote): (u32, usize, Datatype),
        (local, mine): (DeviceSlice<T>, Datatype),
    ) -> Target {
        if mine.size() != remote.size() {
            self.fail(
                block,
                call,
                Fault::TypeMismatch,
                [mine.size(), remote.size(), 0, 0],
            );
        }
        if mine.extent() > local.len() as u64 {
            let last = mine.extent().saturating_sub(1);
            self.fail(
                block,
                call,
                Fault::TypeExtent,
                [last, local.len() as u64, 0, 0],
            );
        }
        let written = if way == Way::Put { remote } else { mine };
        if written.overlaps() {
            let side = (way == Way::Get) as u64;
            self.fail(block, call, Fault::TypeOverlap, [side, 0, 0, 0]);
        }
        // The target's checks name the elements past its window.
        let reach = remote.extent().min(usize::MAX as u64) as usize;
        let t = self.target(block, call, win, target, offset, reach);
        if direct_scope(route_of(&t)).is_none() {
            self.fail(
                block,
                call,
                Fault::TypedThroughHost,
                [target as u64, 0, 0, 0],
            );
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
        let types = match way {
            Way::Put => (mine, remote),
            Way::Get => (remote, mine),
        };
        // Whole 16-byte units where both layouts and both bases allow:
        // four times the bytes a load brings.
        let size = core::mem::size_of::<T>();
        let unit = if size > 0 && 16 % size == 0 {
            (16 / size) as u32
        } else {
            0
        };
        let aligned = (from as usize).is_multiple_of(16) && (to as usize).is_multiple_of(16);
        let units = match (types.0.in_units_of(unit), types.1.in_units_of(unit)) {
            (Some(a), Some(b)) if unit > 1 && aligned => Some((a, b)),
            _ => None,
        };
        // SAFETY (all four closures): every offset is below the extent
        // checked against its buffer above (a unit's offset is an
        // element's divided by the unit).
        match units {
            Some(types) => {
                let (f, d) = (from as *const u8, to as *mut u8);
                spread(
                    block,
                    types,
                    |o| unsafe { arch::load_16(f.add(16 * o)) },
                    |o, v| unsafe { arch::store_16(d.add(16 * o), v) },
                );
            }
            None => spread(
                block,
                types,
                |o| unsafe { from.add(o).read() },
                |o, v| unsafe { to.add(o).write(v) },
            ),
        }
        t
    }

    /// A typed put (`get` false) or get of `local`'s elements to or from
    /// rank `target`'s part of `win` (`remote`: target, element offset,
    /// datatype), with notification `notify` to the target when given.
    /// A get's data is there, for every thread, on return.
    #[inline(always)]
    pub fn typed<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        (win, get): (Window<T>, bool),
        remote: (u32, usize, Datatype),
        local: (DeviceSlice<T>, Datatype),
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
        let t = self.typed_transfer(block, (call, way), &win, remote, local);
        if get {
            block.sync();
        }
        if let Some(tag) = notify {
            self.deliver(block, &win, &t, tag);
        }
    }
}
