//! Put targets: a put's destination checked and looked up once, kept in
//! the rank's shared memory, so that a halo put repeated every step does
//! not pay the window lookup again. The lookup reads the target's window
//! entry from global memory, which after a wait (whose acquire loads
//! invalidate the L1 cache) is an L2 round trip before the copy can start;
//! the entry in shared memory costs a few cycles.
//!
//! Each rank has [`SLOTS`] slots. A slot holds where the data goes and,
//! for the routes the rank does not move itself (the host's, NVSHMEM's,
//! matched windows), the window, target and offset to hand the general
//! put. A handle is one word, its key: the slot and a stamp, which the
//! slot keeps too. Freeing the target or its window zeroes the slot's
//! key, and a stale handle is refused instead of writing where a newer
//! target goes.

use super::notify::direct_scope;
use super::rma::route_of;
use super::window::Window;
use super::Runtime;
use crate::abi::{counter_index, Call, Fault, Route};
use crate::arch::{self, Ordering};
use crate::block::Block;
use crate::memory::{DeviceCopy, DeviceSlice};
use core::marker::PhantomData;

/// Put targets a rank may hold at once.
pub const SLOTS: usize = 16;
/// Words of a slot, each named by its index below.
const WORDS: usize = 8;
/// Where element `offset` of the target's part lives, as this rank reaches
/// it (direct routes only).
const DST: usize = 0;
/// The target's device's notification counters.
const COUNTERS: usize = 1;
/// The offset and count the target was made with (elements).
const OFFSET: usize = 2;
const COUNT: usize = 3;
/// The target's rank on its device | its route and the matched flag above.
const ROUTE: usize = 4;
/// The target's rank in the window's communicator | the handle's key above.
const KEY: usize = 5;
/// The window's id | its context; its communicator slot | its generation.
const WINDOW: usize = 6;
const GENERATION: usize = 7;

crate::shared_array!(static DCUDA_PUT_TARGETS: [u64; SLOTS * WORDS]);

/// Stamps before they start again at 1 (a key is stamp · SLOTS + slot).
const STAMPS: u32 = u32::MAX / SLOTS as u32 - 1;

/// The flag of a matched window in a slot's route word.
const MATCHED: u32 = 0x100;

/// Payloads up to this size are copied and signalled by the leader alone
/// after one barrier, as `put_notify`'s small path does.
const SMALL: usize = 16;

/// A put's destination, checked and looked up once by
/// [`Rank::put_target`](crate::Rank::put_target): `count` elements of `T`
/// at an offset of one rank's part of a window. A handle of one word,
/// the same on every thread of the rank; valid until
/// [`Rank::free_put_target`](crate::Rank::free_put_target) or the
/// window's [`win_free`](crate::Rank::win_free).
pub struct PutTarget<T> {
    /// The slot in the low bits, a stamp above: one register a handle.
    key: u32,
    _marker: PhantomData<*mut T>,
}

impl<T> PutTarget<T> {
    #[inline(always)]
    fn slot(&self) -> u32 {
        self.key % SLOTS as u32
    }
}

impl<T> Clone for PutTarget<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for PutTarget<T> {}

/// Which slots are in use, and the next stamp: the same on every thread.
#[derive(Default)]
pub(crate) struct PutTargets {
    used: u32,
    stamp: u32,
}

#[inline(always)]
fn word(slot: u32, i: usize) -> u64 {
    // A plain load, as the run's context is read (`Runtime::ctx`): the
    // compiler may then read a word once and where it is used, which it
    // does not do with the shared-memory asm.
    let at = (slot as usize % SLOTS) * WORDS + i % WORDS;
    // SAFETY: inside the array, which lives as long as the block.
    unsafe { *DCUDA_PUT_TARGETS.as_mut_ptr().add(at) }
}

#[inline(always)]
fn halves(w: u64) -> (u32, u32) {
    (w as u32, (w >> 32) as u32)
}

#[inline(always)]
fn pair(lo: u32, hi: u32) -> u64 {
    lo as u64 | (hi as u64) << 32
}

impl Runtime {
    /// Checks a put of `count` elements at `offset` of rank `target`'s
    /// part of `win` and keeps where it goes in a free slot.
    #[inline(always)]
    pub fn put_target<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        win: Window<T>,
        (target, offset, count): (u32, usize, usize),
    ) -> PutTarget<T> {
        let call = Call::PutTarget;
        let t = self.target(block, call, &win, target, offset, count);
        let free = !self.put_targets.used & ((1u64 << SLOTS) - 1) as u32;
        if free == 0 {
            self.fail(
                block,
                call,
                Fault::TooManyPutTargets,
                [SLOTS as u64, 0, 0, 0],
            );
        }
        let slot = free.trailing_zeros();
        // Stamps start at 1, so that no key is zero, a free slot's.
        let stamp = self.put_targets.stamp % STAMPS + 1;
        self.put_targets.stamp = stamp;
        self.put_targets.used |= 1 << slot;
        let key = stamp * SLOTS as u32 + slot;
        let flags = route_of(&t) as u32 | if win.matched { MATCHED } else { 0 };
        let mut words = [0u64; WORDS];
        words[DST] = t
            .entry
            .base
            .wrapping_add((offset * core::mem::size_of::<T>()) as u64);
        words[COUNTERS] = t.place.counters;
        words[OFFSET] = offset as u64;
        words[COUNT] = count as u64;
        words[ROUTE] = pair(t.place.dev, flags);
        words[KEY] = pair(target, key);
        words[WINDOW] = pair(win.id, win.context);
        words[GENERATION] = pair(win.slot, win.generation);
        block.single(|_| {
            for (i, w) in words.into_iter().enumerate() {
                DCUDA_PUT_TARGETS.set(slot as usize * WORDS + i, w);
            }
            0u32
        });
        PutTarget {
            key,
            _marker: PhantomData,
        }
    }

    /// Fails `call` unless `to` is live (its slot still has its key).
    #[inline(always)]
    fn check_live_target<T>(&self, block: &mut Block, call: Call, to: &PutTarget<T>) {
        if halves(word(to.slot(), KEY)).1 != to.key {
            self.fail(
                block,
                call,
                Fault::StalePutTarget,
                [to.slot() as u64, 0, 0, 0],
            );
        }
    }

    /// The elements `to` writes, where this rank stores to them itself:
    /// on this device or a mapped GPU, the window not matched; `None` on
    /// the routes that move data for it (the host's, NVSHMEM's).
    #[inline(always)]
    pub fn put_target_slice<T: DeviceCopy>(
        &self,
        block: &mut Block,
        to: PutTarget<T>,
    ) -> Option<DeviceSlice<T>> {
        self.check_live_target(block, Call::PutTargetSlice, &to);
        let (_, flags) = halves(word(to.slot(), ROUTE));
        let route = Route::from_u32(flags & 0xff).unwrap_or(Route::Host);
        if direct_scope(route).is_none() || flags & MATCHED != 0 {
            return None;
        }
        let (dst, count) = (word(to.slot(), DST), word(to.slot(), COUNT));
        // SAFETY: the range was checked inside the target's window part
        // when the target was made, and this rank reaches it at `dst`;
        // the caller keeps to the window's life.
        Some(unsafe { DeviceSlice::from_raw_parts(dst as *mut T, count as usize) })
    }

    /// The rank in the window's communicator that `to` writes to.
    #[inline(always)]
    pub fn put_target_rank<T>(&self, to: &PutTarget<T>) -> u32 {
        halves(word(to.slot(), KEY)).0
    }

    /// Writes `src` to the start of `to`, then bumps `tag` there if given:
    /// on this device and to mapped GPUs the rank copies and signals
    /// itself; the other routes take the general put. The slot's words are
    /// read where they are needed: shared loads are not moved by the
    /// compiler, and words read early would hold registers across the
    /// barrier.
    #[inline(always)]
    pub fn put_to<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        to: PutTarget<T>,
        src: DeviceSlice<T>,
        tag: Option<u32>,
    ) {
        let call = if tag.is_some() {
            Call::PutNotifyTo
        } else {
            Call::PutTo
        };
        if let Some(tag) = tag {
            self.check_user_tag(block, call, tag);
        }
        self.check_live_target(block, call, &to);
        let count = word(to.slot(), COUNT);
        if src.len() as u64 > count {
            let target = halves(word(to.slot(), KEY)).0 as u64;
            let values = [src.len() as u64, count, target, 0];
            self.fail(block, call, Fault::PutTargetTooShort, values);
        }
        let (dev, flags) = halves(word(to.slot(), ROUTE));
        let route = Route::from_u32(flags & 0xff).unwrap_or(Route::Host);
        let scope = direct_scope(route);
        let (Some(scope), false) = (scope, flags & MATCHED != 0) else {
            return self.put_general(block, to.slot(), src, tag);
        };
        let (dst, bytes) = (word(to.slot(), DST) as *mut u8, src.bytes());
        let from = src.as_ptr() as *const u8;
        let counter = |tag| {
            let counters = word(to.slot(), COUNTERS) as *mut u32;
            counters.wrapping_add(counter_index(dev, tag))
        };
        if core::ptr::eq(dst, from) {
            // Overlapping windows (ranks of one process): the data is
            // there, and the release's one barrier orders every thread's
            // writes to it.
            if let Some(tag) = tag {
                block.sync();
                block.leader(|_| {
                    // SAFETY: in the target's counter array.
                    unsafe { arch::add(counter(tag), 1, Ordering::Release, scope) }
                });
            }
            return;
        }
        // Every thread's writes to the source are done before the copy.
        block.sync();
        match tag {
            Some(tag) if bytes <= SMALL => block.leader(|_| {
                // SAFETY: the range was checked when the target was made,
                // and the source holds `bytes`; the counter is the
                // target's. One thread's release covers its own copy.
                unsafe {
                    core::ptr::copy(from, dst, bytes);
                    arch::add(counter(tag), 1, Ordering::Release, scope);
                }
            }),
            _ => {
                // SAFETY: as above.
                unsafe { block.copy(dst, from, bytes) };
                if let Some(tag) = tag {
                    // Every thread's copy is done before the release.
                    block.sync();
                    block.leader(|_| {
                        // SAFETY: in the target's counter array.
                        unsafe { arch::add(counter(tag), 1, Ordering::Release, scope) }
                    });
                }
                None
            }
        };
    }

    /// A put to a target on a route the rank does not move itself (the
    /// host's, NVSHMEM's) or on a matched window: the general put, with
    /// its checks again.
    #[inline(never)]
    fn put_general<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        slot: u32,
        src: DeviceSlice<T>,
        tag: Option<u32>,
    ) {
        let (_, flags) = halves(word(slot, ROUTE));
        let (id, context) = halves(word(slot, WINDOW));
        let (comm_slot, generation) = halves(word(slot, GENERATION));
        let matched = flags & MATCHED != 0;
        let win = Window::from_parts(id, context, comm_slot, generation, matched);
        let at = (halves(word(slot, KEY)).0, word(slot, OFFSET) as usize);
        match tag {
            Some(tag) => self.put_notify(block, win, at, src, tag),
            None => self.put(block, win, at.0, at.1, src),
        }
    }

    /// Frees `to`'s slot.
    #[inline(always)]
    pub fn free_put_target<T>(&mut self, block: &mut Block, to: PutTarget<T>) {
        self.check_live_target(block, Call::FreePutTarget, &to);
        self.put_targets.used &= !(1 << to.slot());
        // Every thread has read the slot before the leader zeroes it.
        block.sync();
        block.single(|_| {
            zero_slots(1 << to.slot());
            0u32
        });
    }

    /// Frees the slots of window `id` in this rank's state and returns
    /// them, for the leader to zero ([`zero_slots`]) before the caller's
    /// barrier: their handles are stale from then on.
    #[inline(always)]
    pub(super) fn forget_put_targets(&mut self, id: u32) -> u32 {
        let mut mine = 0u32;
        let mut used = self.put_targets.used;
        while used != 0 {
            let slot = used.trailing_zeros();
            used &= used - 1;
            if halves(word(slot, WINDOW)).0 == id {
                mine |= 1 << slot;
            }
        }
        self.put_targets.used &= !mine;
        mine
    }
}

/// Zeroes the keys of the slots in `mask` (leader thread).
#[inline(always)]
pub(super) fn zero_slots(mut mask: u32) {
    while mask != 0 {
        let slot = mask.trailing_zeros();
        mask &= mask - 1;
        DCUDA_PUT_TARGETS.set(slot as usize * WORDS + KEY, 0);
    }
}
