//! Windows: memory that ranks of a communicator expose to each other,
//! created collectively. Typed: offsets and counts are in elements.

use super::comm::{Comm, CommKind};
use super::route::Place;
use super::Runtime;
use crate::abi::{Call, Fault, Op, WindowEntry, MAX_WINDOWS};
use crate::arch;
use crate::block::Block;
use crate::memory::{DeviceCopy, DeviceSlice};
use core::marker::PhantomData;

/// A window of elements of type `T`. A handle: plain data, the same on every
/// rank that created it.
pub struct Window<T> {
    pub(crate) id: u32,
    pub(crate) context: u32,
    pub(crate) slot: u32,
    pub(crate) generation: u32,
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

    /// The context id of the communicator it was created on.
    pub fn context(&self) -> u32 {
        self.context
    }

    /// The handle of these parts (kept apart by a put target).
    #[inline(always)]
    pub(crate) fn from_parts(
        id: u32,
        context: u32,
        slot: u32,
        generation: u32,
        matched: bool,
    ) -> Window<T> {
        Window {
            id,
            context,
            slot,
            generation,
            matched,
            _marker: PhantomData,
        }
    }
}

/// Which windows this rank has live: one bit per id, the same on every
/// thread.
#[derive(Default)]
pub(crate) struct Windows {
    live: u32,
    created_world: u32,
    created_device: u32,
}

impl Windows {
    fn is_live(&self, id: u32) -> bool {
        (id as usize) < MAX_WINDOWS && self.live & (1 << id) != 0
    }

    /// The lowest free id, if any.
    fn free_id(&self) -> Option<u32> {
        let free = !self.live;
        (free != 0).then(|| free.trailing_zeros())
    }
}

/// Which check of a window handle against the target's entry failed, and
/// with what values. Each names the target, so that a rank that notices a
/// disagreement also says which other rank disagrees.
#[inline(always)]
fn handle_fault<T>(
    win: &Window<T>,
    entry: &WindowEntry,
    size: u32,
    target: u32,
) -> (Fault, [u64; 4]) {
    let (id, target) = (win.id as u64, target as u64);
    if entry.live == 0 {
        (Fault::WindowNotLive, [id, 1, target, 0])
    } else if entry.comm != win.context {
        let values = [id, entry.comm as u64, win.context as u64, target];
        (Fault::WrongCommunicator, values)
    } else if entry.generation != win.generation {
        let values = [id, win.generation as u64, entry.generation as u64, 0];
        (Fault::StaleWindow, values)
    } else {
        (
            Fault::ElementMismatch,
            [id, entry.elem as u64, size as u64, target],
        )
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

impl Runtime {
    /// Creates a window collectively over `comm` on `mem`.
    #[inline(always)]
    pub fn create_window<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        mem: DeviceSlice<T>,
        matched: bool,
    ) -> Window<T> {
        let base = mem.as_mut_ptr();
        if !mem.is_empty() && !arch::is_global(base) {
            // Shared memory is per block: other ranks cannot reach it.
            let values = [base as u64, comm.rank() as u64, 0, 0];
            self.fail(block, Call::WinCreate, Fault::NotGlobal, values);
        }
        if !mem.is_empty() && !(base as usize).is_multiple_of(core::mem::align_of::<T>()) {
            let values = [
                base as u64,
                mem.bytes() as u64,
                core::mem::align_of::<T>() as u64,
                0,
            ];
            self.fail(block, Call::WinCreate, Fault::WindowMisaligned, values);
        }
        self.check_comm(block, Call::WinCreate, comm);
        if comm.kind() == CommKind::Split && self.spans_processes(comm) {
            let values = [comm.size() as u64, comm.processes() as u64, 0, 0];
            self.fail(
                block,
                Call::WinCreate,
                Fault::CollectiveAcrossProcesses,
                values,
            );
        }
        if matched && self.spans_processes(comm) {
            self.fail(
                block,
                Call::WinCreate,
                Fault::MatchedAcrossProcesses,
                [0; 4],
            );
        }
        let Some(id) = self.windows.free_id() else {
            self.fail(
                block,
                Call::WinCreate,
                Fault::TooManyWindows,
                [MAX_WINDOWS as u64, 0, 0, 0],
            );
        };
        let elem = core::mem::size_of::<T>().max(1);
        let slot = self.own_entry(block, id);
        let generation = match comm.kind() {
            CommKind::World => {
                self.windows.created_world = self.windows.created_world.wrapping_add(1);
                self.windows.created_world
            }
            CommKind::Device => {
                self.windows.created_device = self.windows.created_device.wrapping_add(1);
                self.windows.created_device
            }
            CommKind::Split => {
                let at = self.ctx().comm_record(block.id(), comm.slot);
                // SAFETY: this rank's own record; its leader alone reads and
                // writes it, and hands the count to every thread.
                block.single(|_| unsafe {
                    let n = (*at).windows.wrapping_add(1);
                    (*at).windows = n;
                    n
                })
            }
        };
        let entry = WindowEntry {
            base: base as u64,
            bytes: mem.bytes() as u64,
            elem: elem as u32,
            generation,
            comm: comm.context(),
            route: 0,
            live: 1,
            matched: matched as u16,
        };
        block.single(|_| {
            // SAFETY: this rank's own entry; published below.
            unsafe { *slot = entry };
            0u32
        });
        self.windows.live |= 1 << id;
        self.publish_entries(block, comm, id);
        Window {
            id,
            context: comm.context(),
            slot: comm.slot,
            generation,
            matched,
            _marker: PhantomData,
        }
    }

    /// Frees a window collectively over its communicator.
    #[inline(always)]
    pub fn free_window<T>(&mut self, block: &mut Block, win: Window<T>) {
        // Live, and not a stale handle whose id was reused (which would
        // free the new window): one check, one failure site.
        let id = (win.id as usize).min(MAX_WINDOWS - 1) as u32;
        // SAFETY: this rank's own entry of an id in the table.
        let own = unsafe { *self.own_entry(block, id) };
        if !self.windows.is_live(win.id) || own.generation != win.generation {
            let (fault, values) = if self.windows.is_live(win.id) {
                let values = [
                    win.id as u64,
                    win.generation as u64,
                    own.generation as u64,
                    0,
                ];
                (Fault::StaleWindow, values)
            } else {
                (Fault::WindowNotLive, [win.id as u64, 0, 0, 0])
            };
            self.fail(block, Call::WinFree, fault, values);
        }
        let comm = self.comm_of(block, Call::WinFree, win.context, win.slot);
        // Every rank is done with the window before it goes.
        self.barrier(block, comm);
        let slot = self.own_entry(block, win.id);
        let targets = self.forget_put_targets(win.id);
        block.single(|_| {
            // SAFETY: this rank's own entry.
            unsafe { (*slot).live = 0 };
            super::put_targets::zero_slots(targets);
            0u32
        });
        self.windows.live &= !(1 << win.id);
        // Other processes learn that the window is gone, so that their
        // hosts reject late accesses.
        self.publish_entries(block, comm, win.id);
    }

    /// This rank's entry of window `id` (row `id`, column its world rank).
    #[inline(always)]
    fn own_entry(&self, block: &Block, id: u32) -> *mut WindowEntry {
        let ctx = self.ctx();
        ctx.window_entry(id, ctx.world_first + block.id())
    }

    /// Makes every rank's entry of window `id` known to every rank of
    /// `comm`: a barrier on one device; across processes the hosts exchange
    /// the entries (and map what can be reached directly).
    fn publish_entries(&mut self, block: &mut Block, comm: Comm, id: u32) {
        if self.spans_processes(comm) {
            self.world_sync(block, Op::WindowExchange, id);
        } else {
            self.barrier(block, comm);
        }
    }

    /// Fails `call` unless `win` is live here.
    #[inline(always)]
    pub fn check_live<T>(&self, block: &mut Block, call: Call, win: &Window<T>) {
        if !self.windows.is_live(win.id) {
            self.fail(block, call, Fault::WindowNotLive, [win.id as u64, 0, 0, 0]);
        }
    }

    /// Checks an access of `count` elements at `offset` in `target`'s part
    /// of `win`, and finds it.
    #[inline(always)]
    pub fn target<T>(
        &self,
        block: &mut Block,
        call: Call,
        win: &Window<T>,
        target: u32,
        offset: usize,
        count: usize,
    ) -> Target {
        self.check_live(block, call, win);
        let comm = self.comm_of(block, call, win.context, win.slot);
        let place = self.locate(block, call, comm, target);
        // SAFETY: in the table.
        let entry = unsafe { *self.ctx().window_entry(win.id, place.world) };
        let size = core::mem::size_of::<T>().max(1) as u32;
        if entry.comm != win.context
            || entry.live == 0
            || entry.generation != win.generation
            || entry.elem != size
        {
            let (fault, values) = handle_fault(win, &entry, size, target);
            self.fail(block, call, fault, values);
        }
        // `entry.elem` is `size` here, a constant of `T`: no division by a
        // value known only at run time (a software routine on a GPU).
        let len = entry.bytes / size as u64;
        if offset as u64 > len || count as u64 > len - offset as u64 {
            let values = [offset as u64, len, target as u64, count as u64];
            self.fail(block, call, Fault::OutOfBounds, values);
        }
        Target {
            place,
            entry,
            me: comm.rank(),
        }
    }
}
