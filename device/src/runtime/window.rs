//! Windows: memory that ranks of a communicator expose to each other,
//! created collectively. Typed: offsets and counts are in elements.

use super::comm::{Comm, CommKind};
use super::layout::{Call, Fault, WindowEntry, MAX_WINDOWS};
use crate::rank::collective::single;
use crate::rank::Rank;
use core::marker::PhantomData;

/// A window of elements of type `T`. A handle: plain data, the same on every
/// rank that created it.
pub struct Window<T> {
    pub(crate) id: u32,
    pub(crate) comm: CommKind,
    pub(crate) matched: bool,
    _marker: PhantomData<*mut T>,
}

impl<T> Clone for Window<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Window<T> {}

impl<T> Window<T> {
    /// The window's id (the same on every rank).
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The communicator it was created on.
    pub fn comm_kind(&self) -> CommKind {
        self.comm
    }
}

/// Where a checked access goes.
pub(crate) struct Target {
    /// The target's device rank.
    pub dev: u32,
    /// The target's window entry.
    pub entry: WindowEntry,
    /// This rank's index in the window's communicator (the source of notifications).
    pub me: u32,
}

impl Rank {
    /// Creates a window collectively over `comm`: every rank of `comm` calls
    /// it, each with its own memory (`len` elements at `base`, which may be
    /// empty). Windows of ranks on one device may overlap.
    pub fn win_create<T>(&mut self, comm: Comm, base: *mut T, len: usize) -> Window<T> {
        self.create_window(comm, base, len, false)
    }

    /// As [`win_create`](Self::win_create), but notified accesses to this
    /// window are matched by source, window and tag
    /// ([`wait_match`](Self::wait_match)) instead of counted per tag.
    pub fn win_create_matched<T>(&mut self, comm: Comm, base: *mut T, len: usize) -> Window<T> {
        self.create_window(comm, base, len, true)
    }

    fn create_window<T>(
        &mut self,
        comm: Comm,
        base: *mut T,
        len: usize,
        matched: bool,
    ) -> Window<T> {
        let align = core::mem::align_of::<T>();
        if len > 0 && !(base as usize).is_multiple_of(align) {
            self.fail(
                Call::WinCreate,
                Fault::WindowMisaligned,
                [
                    base as u64,
                    (len * core::mem::size_of::<T>()) as u64,
                    align as u64,
                    0,
                ],
            );
        }
        let free = !self.windows_live;
        if free == 0 {
            self.fail(
                Call::WinCreate,
                Fault::TooManyWindows,
                [MAX_WINDOWS as u64, 0, 0, 0],
            );
        }
        let id = free.trailing_zeros();
        let elem = core::mem::size_of::<T>().max(1);
        let ctx = *self.ctx();
        // SAFETY: the table has MAX_WINDOWS rows of `ranks` entries.
        let slot = unsafe {
            ctx.windows
                .add(id as usize * ctx.ranks as usize + self.id as usize)
        };
        single(self, |_| {
            // SAFETY: this rank's own entry; published by the barrier below.
            unsafe {
                *slot = WindowEntry {
                    base: base as u64,
                    bytes: (len * elem) as u64,
                    elem: elem as u32,
                    live: 1,
                    comm: comm.kind() as u32,
                    matched: matched as u32,
                }
            };
            0u32
        });
        self.windows_live |= 1 << id;
        self.last_target = None;
        self.barrier(comm);
        Window {
            id,
            comm: comm.kind(),
            matched,
            _marker: PhantomData,
        }
    }

    /// Frees a window collectively over its communicator.
    pub fn win_free<T>(&mut self, win: Window<T>) {
        self.check_live(Call::WinFree, &win);
        let comm = self.comm_of(win.comm);
        // Every rank is done with the window before it goes.
        self.barrier(comm);
        let ctx = *self.ctx();
        // SAFETY: this rank's own entry.
        let slot = unsafe {
            ctx.windows
                .add(win.id as usize * ctx.ranks as usize + self.id as usize)
        };
        single(self, |_| {
            // SAFETY: as above.
            unsafe { (*slot).live = 0 };
            0u32
        });
        self.windows_live &= !(1 << win.id);
        self.last_target = None;
    }

    #[inline(always)]
    pub(crate) fn check_live<T>(&mut self, call: Call, win: &Window<T>) {
        if win.id as usize >= MAX_WINDOWS || self.windows_live & (1 << win.id) == 0 {
            self.fail(call, Fault::WindowNotLive, [win.id as u64, 0, 0, 0]);
        }
    }

    /// Checks an access of `count` elements at `offset` in `target`'s part
    /// of `win`, and finds it.
    #[inline(always)]
    pub(crate) fn target<T>(
        &mut self,
        call: Call,
        win: &Window<T>,
        target: u32,
        offset: usize,
        count: usize,
    ) -> Target {
        self.check_live(call, win);
        let comm = self.comm_of(win.comm);
        let ranks = self.ctx().ranks;
        let dev = match comm.device_rank(target, ranks) {
            Some(d) if target < comm.size() => d,
            _ => self.fail(
                call,
                Fault::RankOutOfRange,
                [target as u64, comm.size() as u64, 0, 0],
            ),
        };
        // SAFETY: in the table.
        let entry = unsafe {
            *self
                .ctx()
                .windows
                .add(win.id as usize * ranks as usize + dev as usize)
        };
        if entry.comm != win.comm as u32 || entry.live == 0 {
            self.fail(
                call,
                Fault::WrongCommunicator,
                [win.id as u64, entry.comm as u64, win.comm as u64, 0],
            );
        }
        let len = entry.bytes / entry.elem.max(1) as u64;
        if offset as u64 > len || count as u64 > len - offset as u64 {
            self.fail(
                call,
                Fault::OutOfBounds,
                [offset as u64, len, target as u64, count as u64],
            );
        }
        Target {
            dev,
            entry,
            me: comm.rank(),
        }
    }
}
