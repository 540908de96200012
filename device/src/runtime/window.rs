//! Windows: memory that ranks of a communicator expose to each other,
//! created collectively. Typed: offsets and counts are in elements.

use super::comm::{Comm, CommKind};
use super::layout::{Call, Fault, Op, WindowEntry, MAX_WINDOWS};
use super::route::Place;
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
    /// The target rank.
    pub place: Place,
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
        if matched && comm.kind() == CommKind::World && self.ctx().processes > 1 {
            self.fail(Call::WinCreate, Fault::MatchedAcrossProcesses, [0, 0, 0, 0]);
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
        let slot = self.own_entry(id);
        single(self, |_| {
            // SAFETY: this rank's own entry; published by the barrier below.
            unsafe {
                *slot = WindowEntry {
                    base: base as u64,
                    bytes: (len * elem) as u64,
                    elem: elem as u32,
                    live: 1,
                    comm: comm.kind() as u16,
                    route: 0,
                    matched: matched as u32,
                }
            };
            0u32
        });
        self.windows_live |= 1 << id;
        self.publish_entries(comm, id);
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
        let slot = self.own_entry(win.id);
        single(self, |_| {
            // SAFETY: this rank's own entry.
            unsafe { (*slot).live = 0 };
            0u32
        });
        self.windows_live &= !(1 << win.id);
        // Other processes learn that the window is gone, so that their
        // hosts reject late accesses.
        self.publish_entries(comm, win.id);
    }

    /// This rank's entry of window `id` (row `id`, column its world rank).
    #[inline(always)]
    fn own_entry(&self, id: u32) -> *mut WindowEntry {
        let ctx = self.ctx();
        // SAFETY: the table has MAX_WINDOWS rows of `world_size` entries.
        unsafe {
            ctx.windows
                .add(id as usize * ctx.world_size as usize + (ctx.world_first + self.id) as usize)
        }
    }

    /// Makes every rank's entry of window `id` known to every rank of
    /// `comm`: a barrier on one device; across processes the hosts exchange
    /// the entries (and map what can be reached directly).
    fn publish_entries(&mut self, comm: Comm, id: u32) {
        if comm.kind() == CommKind::World && self.ctx().processes > 1 {
            self.world_sync(Op::WindowExchange, id);
        } else {
            self.barrier(comm);
        }
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
        let place = self.locate(call, comm, target);
        let ctx = self.ctx();
        // SAFETY: in the table.
        let entry = unsafe {
            *ctx.windows
                .add(win.id as usize * ctx.world_size as usize + place.world as usize)
        };
        if entry.comm != win.comm as u16 || entry.live == 0 {
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
            place,
            entry,
            me: comm.rank(),
        }
    }
}
