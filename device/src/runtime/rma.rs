//! Remote memory access on one device: the block copies, then signals.

use super::layout::{Call, Fault, Op, Route, Transfer, INLINE, NO_TAG, TAGS};
use super::window::{Target, Window};
use crate::arch::{self, Ordering, Scope};
use crate::rank::collective::barrier;
use crate::rank::{on_thread_zero, Rank};

/// Copies `bytes` from `src` to `dst` with every thread of the rank,
/// coalesced: in 16-byte vectors where both addresses are equally aligned
/// (bytes before and after the aligned middle one by one), else in words or
/// bytes.
#[inline(always)]
fn block_copy(rank: &Rank, dst: *mut u8, src: *const u8, bytes: usize) {
    if core::ptr::eq(dst, src) || bytes == 0 {
        return; // Overlapping windows: the data is already there.
    }
    #[cfg(target_arch = "nvptx64")]
    {
        let t = crate::arch::thread_idx().x as usize;
        let n = rank.threads as usize;
        let (d, s) = (dst as usize, src as usize);
        // SAFETY: the caller checked both ranges; every piece is inside them.
        unsafe {
            if d % 16 == s % 16 {
                let head = ((16 - d % 16) % 16).min(bytes);
                let body = (bytes - head) / 16;
                let tail = head + body * 16;
                copy_strided(dst, src, head, t, n);
                copy_vectors(dst.add(head), src.add(head), body, t, n);
                copy_strided(dst.add(tail), src.add(tail), bytes - tail, t, n);
            } else if (d | s | bytes) % 4 == 0 {
                copy_strided(dst as *mut u32, src as *const u32, bytes / 4, t, n);
            } else {
                copy_strided(dst, src, bytes, t, n);
            }
        }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = rank;
        // SAFETY: the caller checked both ranges; windows may overlap.
        unsafe { core::ptr::copy(src, dst, bytes) }
    }
}

/// Copies `len` 16-byte vectors with explicit `ld.v4`/`st.v4` (a 16-byte
/// Rust value is moved through local memory on this LLVM). One vector in
/// flight per thread: measured on H200s, unrolling to two or four raised
/// the registers enough to cut the ranks that fit (1188 to 924) and was no
/// faster, on one GPU or over NVLink (`bench/results/2026-11-22-world-h200x2`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn copy_vectors(dst: *mut u8, src: *const u8, len: usize, first: usize, stride: usize) {
    use crate::arch::nvptx::{load_v4, store_v4};
    let mut i = first;
    while i < len {
        store_v4(dst.add(i * 16), load_v4(src.add(i * 16)));
        i += stride;
    }
}

#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn copy_strided<U: Copy>(
    dst: *mut U,
    src: *const U,
    len: usize,
    first: usize,
    stride: usize,
) {
    let mut i = first;
    while i < len {
        dst.add(i).write(src.add(i).read());
        i += stride;
    }
}

/// Payloads up to this size are copied by the leader thread alone: one
/// thread, one barrier, and the leader's release covers its own copy.
const SMALL: usize = 16;

/// Which way data moves between this rank and the target's window.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Put,
    Get,
}

impl Rank {
    /// Checks an access and moves the data: on this device or to a mapped
    /// GPU, every thread of the rank copies after a barrier (every thread's
    /// earlier writes to the source, or reads of the destination, are
    /// done); to any other process the host is asked to move it, with the
    /// notification `tag` (or [`NO_TAG`]). Returns the target when the
    /// caller still has to deliver the notification.
    #[inline(always)]
    fn transfer<T: Copy>(
        &mut self,
        call: Call,
        win: &Window<T>,
        target: u32,
        offset: usize,
        (local, count): (*mut T, usize),
        tag: u32,
    ) -> Option<Target> {
        let t = self.target(call, win, target, offset, count);
        let direction = match call {
            Call::Get | Call::GetNotify => Direction::Get,
            _ => Direction::Put,
        };
        let size = core::mem::size_of::<T>();
        if Route::from_u32(t.entry.route as u32) == Route::Host {
            let bytes = count * size;
            let mut transfer = Transfer {
                target: t.place.world,
                window: win.id,
                offset: (offset * size) as u64,
                local: local as u64,
                bytes: bytes as u64,
            };
            let op = match direction {
                Direction::Put if bytes <= INLINE => {
                    // Small data rides in the command: no device read by
                    // the host. Every thread's write to it is done first.
                    barrier();
                    let mut data = [0u8; 8];
                    // SAFETY: the caller's source holds `bytes` bytes.
                    unsafe { core::ptr::copy(local as *const u8, data.as_mut_ptr(), bytes) };
                    transfer.local = u64::from_le_bytes(data);
                    Op::PutInline
                }
                Direction::Put => Op::Put,
                Direction::Get => Op::Get,
            };
            self.through_host(call, op, tag, transfer);
            if direction == Direction::Get {
                self.wait_host(call); // The data is in `local` for every thread.
            }
            return None;
        }
        let remote = (t.entry.base as *mut T).wrapping_add(offset);
        let (dst, src) = match direction {
            Direction::Put => (remote, local as *const T),
            Direction::Get => (local, remote as *const T),
        };
        barrier();
        block_copy(self, dst as *mut u8, src as *const u8, count * size);
        Some(t)
    }

    /// Hands an access to this process's host, which moves it through its
    /// network manager; completion is counted in `host_done`.
    pub(crate) fn through_host(&mut self, call: Call, op: Op, tag: u32, transfer: Transfer) {
        if op != Op::PutInline
            && transfer.bytes > 0
            && !arch::is_global(transfer.local as *const u8)
        {
            self.fail(
                call,
                Fault::NotGlobal,
                [transfer.local, transfer.target as u64, 0, 0],
            );
        }
        // SAFETY: `Transfer` is plain data of TRANSFER_BYTES bytes.
        let raw: [u8; TRANSFER_BYTES] = unsafe { core::mem::transmute(transfer) };
        self.host_send(op, tag, &raw);
        self.host_ops = self.host_ops.wrapping_add(1);
    }

    /// Waits until the host has completed every access handed to it.
    fn wait_host(&mut self, call: Call) {
        let issued = self.host_ops;
        if issued == self.host_completed {
            return;
        }
        // SAFETY: this rank's completion counter, for the whole run.
        let done = unsafe { self.ctx().host_done.add(self.id as usize) };
        self.wait_until(call, [issued, 0, 0], || {
            // SAFETY: as above; written by the host.
            let d = unsafe { arch::load_acquire(done, Scope::System) };
            if d.wrapping_sub(issued) as i32 >= 0 {
                Ok(0)
            } else {
                Err(d)
            }
        });
        self.host_completed = issued;
    }

    /// Writes `count` elements from `src` to element `offset` of rank
    /// `target`'s part of `win`. The target is not notified. The put sends
    /// what every thread of the rank wrote to `src` before the call; `src`
    /// may be reused after [`flush`](Self::flush).
    pub fn put<T: Copy>(
        &mut self,
        win: Window<T>,
        target: u32,
        offset: usize,
        src: *const T,
        count: usize,
    ) {
        self.transfer(
            Call::Put,
            &win,
            target,
            offset,
            (src as *mut T, count),
            NO_TAG,
        );
    }

    /// [`put`](Self::put), then notification `tag` to the target once the
    /// data is there. Puts and notifications to one target arrive in the
    /// order they were issued.
    pub fn put_notify<T: Copy>(
        &mut self,
        win: Window<T>,
        target: u32,
        offset: usize,
        src: *const T,
        count: usize,
        tag: u32,
    ) {
        self.check_tag(Call::PutNotify, tag);
        let bytes = count * core::mem::size_of::<T>();
        if bytes <= SMALL && !win.matched {
            let t = self.target(Call::PutNotify, &win, target, offset, count);
            if let Some(scope) = direct_scope(Route::from_u32(t.entry.route as u32)) {
                // One thread copies and signals, after one barrier: its
                // release covers its own copy.
                let dst = (t.entry.base as *mut T).wrapping_add(offset);
                // SAFETY: in the counter array.
                let counter = unsafe {
                    t.place
                        .counters
                        .add(t.place.dev as usize * TAGS + tag as usize)
                };
                barrier();
                // SAFETY: the ranges were checked.
                on_thread_zero(|_| unsafe {
                    if !core::ptr::eq(dst, src) {
                        core::ptr::copy(src as *const u8, dst as *mut u8, bytes);
                    }
                    arch::add(counter, 1, Ordering::Release, scope);
                });
                return;
            }
        }
        let moved = self.transfer(
            Call::PutNotify,
            &win,
            target,
            offset,
            (src as *mut T, count),
            tag,
        );
        if let Some(t) = moved {
            self.deliver(&win, &t, tag);
        }
    }

    /// Reads `count` elements at element `offset` of rank `target`'s part of
    /// `win` into `dst`. The data is in `dst`, for every thread, when the
    /// call returns.
    pub fn get<T: Copy>(
        &mut self,
        win: Window<T>,
        target: u32,
        offset: usize,
        dst: *mut T,
        count: usize,
    ) {
        self.transfer(Call::Get, &win, target, offset, (dst, count), NO_TAG);
        barrier();
    }

    /// [`get`](Self::get), then notification `tag` to the *target*, the
    /// owner of the data, which learns that its data was read.
    pub fn get_notify<T: Copy>(
        &mut self,
        win: Window<T>,
        target: u32,
        offset: usize,
        dst: *mut T,
        count: usize,
        tag: u32,
    ) {
        self.check_tag(Call::GetNotify, tag);
        if let Some(t) = self.transfer(Call::GetNotify, &win, target, offset, (dst, count), tag) {
            self.deliver(&win, &t, tag);
        }
    }

    /// A notification without data on a matched window: recorded for
    /// [`wait_match`](Self::wait_match) at rank `target` with this rank as
    /// its source.
    pub fn notify_matched<T>(&mut self, win: Window<T>, target: u32, tag: u32) {
        self.check_tag(Call::Notify, tag);
        let t = self.target(Call::Notify, &win, target, 0, 0);
        self.deliver(&win, &t, tag);
    }

    /// Waits until every earlier put of this rank on `win` is complete:
    /// afterwards their source buffers may be changed.
    pub fn flush<T>(&mut self, win: Window<T>) {
        self.check_live(Call::Flush, &win);
        // Copies by the rank's own threads are complete once all of them
        // are past this barrier; the host reports the ones it moves.
        barrier();
        self.wait_host(Call::Flush);
    }

    /// The notification of a notified access that the rank moved itself:
    /// counted per tag, or logged for matching on a matched window.
    #[inline(always)]
    fn deliver<T>(&mut self, win: &Window<T>, t: &Target, tag: u32) {
        if win.matched {
            self.log_match(t.place.dev, t.me, win.id, tag);
        } else {
            self.signal(&t.place, tag);
        }
    }
}

/// The scope of a signal the rank sends itself on `route`; `None` when the
/// host delivers it.
#[inline(always)]
pub(crate) fn direct_scope(route: Route) -> Option<Scope> {
    match route {
        Route::Local => Some(Scope::Gpu),
        Route::Direct => Some(Scope::System),
        Route::Host => None,
    }
}

/// Bytes of a [`Transfer`] in a command.
const TRANSFER_BYTES: usize = core::mem::size_of::<Transfer>();
const _: () = assert!(TRANSFER_BYTES <= 32);
