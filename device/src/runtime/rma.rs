//! Remote memory access: the block copies and signals itself on this
//! device and to mapped GPUs, and through NVSHMEM where the host set that
//! route up (`symmetric.rs`); the host moves everything else.

use super::notify::direct_scope;
use super::window::{Target, Window};
use super::Runtime;
use crate::abi::{Call, Op, Route, Transfer, INLINE, NO_TAG};
use crate::arch::{self, Ordering};
use crate::block::Block;
use crate::memory::{DeviceCopy, DeviceSlice};

/// Payloads up to this size are copied by the leader thread alone: one
/// thread, one barrier, and the leader's release covers its own copy.
/// Must stay at most the 16 bytes a [`Payload`] holds.
const SMALL: usize = 16;
const _: () = assert!(SMALL <= core::mem::size_of::<Payload>());

/// A small put's payload in registers: up to [`SMALL`] bytes as words.
#[derive(Clone, Copy)]
struct Payload([u32; 4]);

impl Payload {
    /// Reads `bytes` (at most [`SMALL`]) from `src` when they are whole
    /// aligned words; `None` otherwise (the caller copies bytes).
    ///
    /// # Safety
    /// `src` is readable for `bytes` bytes.
    #[inline(always)]
    unsafe fn load(src: *const u8, bytes: usize) -> Option<Payload> {
        if !(src as usize).is_multiple_of(4) || !bytes.is_multiple_of(4) {
            return None;
        }
        let s = src as *const u32;
        let mut w = [0u32; 4];
        // Written out, not a loop over a run-time count, so that the
        // words stay in registers.
        if bytes >= 4 {
            w[0] = s.read();
        }
        if bytes >= 8 {
            w[1] = s.add(1).read();
        }
        if bytes >= 12 {
            w[2] = s.add(2).read();
        }
        if bytes >= 16 {
            w[3] = s.add(3).read();
        }
        Some(Payload(w))
    }

    /// Writes the `bytes` read by [`Payload::load`] to `dst`.
    ///
    /// # Safety
    /// `dst` is writable for `bytes` bytes and 4-byte aligned.
    #[inline(always)]
    unsafe fn store(&self, dst: *mut u8, bytes: usize) {
        let d = dst as *mut u32;
        if bytes >= 4 {
            d.write(self.0[0]);
        }
        if bytes >= 8 {
            d.add(1).write(self.0[1]);
        }
        if bytes >= 12 {
            d.add(2).write(self.0[2]);
        }
        if bytes >= 16 {
            d.add(3).write(self.0[3]);
        }
    }
}

/// Which way data moves between this rank and the target's window.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Put,
    Get,
}

impl Runtime {
    /// Checks an access and moves the data: on this device or to a mapped
    /// GPU, every thread of the rank copies after a barrier (every thread's
    /// earlier writes to the source, or reads of the destination, are
    /// done); to any other process the host is asked to move it, with the
    /// notification `tag` (or [`NO_TAG`]). Returns the target when the
    /// caller still has to deliver the notification.
    #[inline(always)]
    fn transfer<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        call: Call,
        win: &Window<T>,
        (target, offset): (u32, usize),
        local: DeviceSlice<T>,
        tag: u32,
    ) -> Option<Target> {
        let t = self.target(block, call, win, target, offset, local.len());
        let direction = match call {
            Call::Get | Call::GetNotify => Direction::Get,
            _ => Direction::Put,
        };
        let size = core::mem::size_of::<T>();
        let route = route_of(&t);
        let mut remote = (t.entry.base as *mut T).wrapping_add(offset);
        // Only kernels linked with NVSHMEM have that route (the host
        // refuses it to others): elsewhere the branch and its calls are
        // not compiled at all.
        if cfg!(dcuda_nvshmem) && route == Route::Nvshmem {
            let get = direction == Direction::Get;
            let ends = (remote.cast(), local.as_mut_ptr().cast());
            // SAFETY: the window range was checked against the target's
            // entry, and the local slice is valid by construction.
            let mapped = unsafe { self.symmetric_route(block, &t, ends, local.bytes(), get) };
            if mapped.is_null() {
                return Some(t);
            }
            remote = mapped.cast();
        } else if direct_scope(route).is_none() {
            let bytes = local.bytes();
            let mut transfer = Transfer {
                target: t.place.world,
                window: win.id,
                offset: (offset * size) as u64,
                local: local.as_ptr() as u64,
                bytes: bytes as u64,
            };
            let op = match direction {
                Direction::Put if bytes <= INLINE => {
                    // Small data rides in the command: no device read by
                    // the host. Every thread's write to it is done first.
                    block.sync();
                    let mut data = [0u8; INLINE];
                    // SAFETY: the slice holds `bytes` bytes.
                    unsafe {
                        core::ptr::copy(local.as_ptr() as *const u8, data.as_mut_ptr(), bytes)
                    };
                    transfer.local = u64::from_le_bytes(data);
                    Op::PutInline
                }
                Direction::Put => Op::Put,
                Direction::Get => Op::Get,
            };
            self.through_host(block, call, op, tag, transfer);
            if direction == Direction::Get {
                self.wait_host(block, call); // The data is in `local` for every thread.
            }
            return None;
        }
        let (dst, src) = match direction {
            Direction::Put => (remote, local.as_ptr()),
            Direction::Get => (local.as_mut_ptr(), remote as *const T),
        };
        block.sync();
        // SAFETY: the window range was checked against the target's entry,
        // and the local slice is valid by construction.
        unsafe { block.copy(dst as *mut u8, src as *const u8, local.bytes()) };
        Some(t)
    }

    /// Writes `src` to element `offset` of rank `target`'s part of `win`.
    #[inline(always)]
    pub fn put<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        win: Window<T>,
        target: u32,
        offset: usize,
        src: DeviceSlice<T>,
    ) {
        self.transfer(block, Call::Put, &win, (target, offset), src, NO_TAG);
    }

    /// [`put`](Self::put), then notification `tag` to the target once the
    /// data is there.
    #[inline(always)]
    pub fn put_notify<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        win: Window<T>,
        (target, offset): (u32, usize),
        src: DeviceSlice<T>,
        tag: u32,
    ) {
        self.check_user_tag(block, Call::PutNotify, tag);
        let bytes = src.bytes();
        if bytes <= SMALL && !win.matched {
            // The barrier first (every thread's writes to the source are
            // done), so that the leader's read of the source and the
            // window entry's lookup are in flight together.
            block.sync();
            // SAFETY: the slice holds `bytes` bytes.
            let payload = block.leader(|_| unsafe { Payload::load(src.as_ptr().cast(), bytes) });
            let t = self.target(block, Call::PutNotify, &win, target, offset, src.len());
            if let Some(scope) = direct_scope(route_of(&t)) {
                // One thread copies and signals: its release covers its
                // own copy.
                let dst = (t.entry.base as *mut T).wrapping_add(offset);
                let counter = t.place.counter(tag);
                block.leader(|_| {
                    // SAFETY: the ranges were checked; the counter is the target's.
                    unsafe {
                        if !core::ptr::eq(dst, src.as_ptr()) {
                            match payload.flatten() {
                                Some(p) if (dst as usize).is_multiple_of(4) => {
                                    p.store(dst.cast(), bytes)
                                }
                                _ => core::ptr::copy(src.as_ptr().cast::<u8>(), dst.cast(), bytes),
                            }
                        }
                        arch::add(counter, 1, Ordering::Release, scope);
                    }
                });
                return;
            }
        }
        if let Some(t) = self.transfer(block, Call::PutNotify, &win, (target, offset), src, tag) {
            self.deliver(block, &win, &t, tag);
        }
    }

    /// Reads element `offset` on of rank `target`'s part of `win` into
    /// `dst`; the data is there, for every thread, on return.
    #[inline(always)]
    pub fn get<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        win: Window<T>,
        target: u32,
        offset: usize,
        dst: DeviceSlice<T>,
    ) {
        self.transfer(block, Call::Get, &win, (target, offset), dst, NO_TAG);
        block.sync();
    }

    /// [`get`](Self::get), then notification `tag` to the target.
    #[inline(always)]
    pub fn get_notify<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        win: Window<T>,
        (target, offset): (u32, usize),
        dst: DeviceSlice<T>,
        tag: u32,
    ) {
        self.check_user_tag(block, Call::GetNotify, tag);
        if let Some(t) = self.transfer(block, Call::GetNotify, &win, (target, offset), dst, tag) {
            self.deliver(block, &win, &t, tag);
        }
    }

    /// A notification without data on a matched window.
    #[inline(always)]
    pub fn notify_matched<T>(&mut self, block: &mut Block, win: Window<T>, target: u32, tag: u32) {
        self.check_user_tag(block, Call::Notify, tag);
        let t = self.target(block, Call::Notify, &win, target, 0, 0);
        self.deliver(block, &win, &t, tag);
    }

    /// Waits until every earlier put of this rank on `win` is complete.
    #[inline(always)]
    pub fn flush<T>(&mut self, block: &mut Block, win: Window<T>) {
        self.check_live(block, Call::Flush, &win);
        // Copies by the rank's own threads are complete once all of them
        // are past this barrier; the host reports the ones it moves.
        block.sync();
        self.wait_host(block, Call::Flush);
    }

    /// The notification of a notified access that the rank moved itself:
    /// counted per tag, or logged for matching on a matched window.
    #[inline(always)]
    pub(super) fn deliver<T>(&mut self, block: &mut Block, win: &Window<T>, t: &Target, tag: u32) {
        if win.matched {
            self.log_match(block, t.place.dev, t.me, win.id, tag);
        } else if cfg!(dcuda_nvshmem) && route_of(t) == Route::Nvshmem {
            self.symmetric_signal(block, t, tag);
        } else {
            self.signal(block, &t.place, tag);
        }
    }
}

/// The route of a checked access: its window entry's (a peer whose window
/// memory cannot be mapped is reached through the host).
#[inline(always)]
pub(super) fn route_of(t: &Target) -> Route {
    Route::from_u32(t.entry.route as u32).unwrap_or(Route::Host)
}
