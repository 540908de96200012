//! Typed transfers of [`Rank`]: notified access with a [`Datatype`] on
//! each side, so that a column, a sub-block or a strided set of elements
//! moves in one call. Each is block-collective and delegates to the
//! runtime.

use super::Rank;
use crate::abi::Call;
use crate::arch;
use crate::datatype::Datatype;
use crate::layout::Layout;
use crate::memory::{DeviceCopy, DeviceSlice};
use crate::runtime::Window;
use crate::tile::{Face, Side, Tile, Tile3};

impl Rank {
    /// Writes the elements of `src` that `src_type` names to the elements
    /// of rank `target`'s part of `win` that `target_type` names, counted
    /// from element `offset`: element `e` of one layout to element `e` of
    /// the other, so a column may go into a row. Each layout is a
    /// [`Datatype`] or an [`Indexed`](crate::Indexed). Both must move as
    /// many elements; `src_type` must lie within `src`, and `target_type`
    /// within the window, and must not name an element twice. On this GPU
    /// and to GPUs it maps, every thread of the rank moves elements
    /// straight from source to destination; to a target in another process
    /// reached through the host they go packed in pieces of the rank's
    /// staging area, each piece one access of the host where `target_type`
    /// is a [`Datatype`] (the target's host places its elements), each
    /// contiguous run one access where it is an `Indexed` (slow for short
    /// runs).
    #[inline(always)]
    #[track_caller]
    pub fn put_typed<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        win: Window<T>,
        target: u32,
        (offset, target_type): (usize, R),
        (src, src_type): (DeviceSlice<T>, L),
    ) {
        self.typed_call(
            ("put_typed", Call::PutTyped),
            (win, false),
            (target, offset, target_type),
            (src, src_type),
            None,
        )
    }

    /// [`put_typed`](Self::put_typed), then notification `tag` to the
    /// target once the data is there.
    #[inline(always)]
    #[track_caller]
    pub fn put_notify_typed<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        win: Window<T>,
        target: u32,
        (offset, target_type): (usize, R),
        (src, src_type): (DeviceSlice<T>, L),
        tag: u32,
    ) {
        self.typed_call(
            ("put_notify_typed", Call::PutNotifyTyped),
            (win, false),
            (target, offset, target_type),
            (src, src_type),
            Some(tag),
        )
    }

    /// Reads the elements of rank `target`'s part of `win` that
    /// `target_type` names (counted from element `offset`) into the
    /// elements of `dst` that `dst_type` names; the data is there, for
    /// every thread, on return. The checks of
    /// [`put_typed`](Self::put_typed), with `dst_type` the one written.
    #[inline(always)]
    #[track_caller]
    pub fn get_typed<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        win: Window<T>,
        target: u32,
        (offset, target_type): (usize, R),
        (dst, dst_type): (DeviceSlice<T>, L),
    ) {
        self.typed_call(
            ("get_typed", Call::GetTyped),
            (win, true),
            (target, offset, target_type),
            (dst, dst_type),
            None,
        )
    }

    /// [`get_typed`](Self::get_typed), then notification `tag` to the
    /// target.
    #[inline(always)]
    #[track_caller]
    pub fn get_notify_typed<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        win: Window<T>,
        target: u32,
        (offset, target_type): (usize, R),
        (dst, dst_type): (DeviceSlice<T>, L),
        tag: u32,
    ) {
        self.typed_call(
            ("get_notify_typed", Call::GetNotifyTyped),
            (win, true),
            (target, offset, target_type),
            (dst, dst_type),
            Some(tag),
        )
    }

    /// Exchanges the halos of a 2D grid split in tiles: each `(rank, tile)`
    /// of `neighbours` (north, south, west, east; `None` where the grid
    /// ends) gets this rank's edge on that side in the frame of its own
    /// tile facing this one, with notification `tag`; then this rank waits
    /// for as many notifications of `tag`, its neighbours' edges in its
    /// frame. `local` is this rank's tile `tile`, and `win` holds every
    /// neighbour's tile (each given with its own shape). Corners are not
    /// exchanged (a 5-point stencil needs none). As with any put, a
    /// neighbour must be done reading its frame: alternate two tiles,
    /// as a Jacobi sweep does, and wait before each step.
    #[inline(always)]
    #[track_caller]
    pub fn halo_exchange_2d<T: DeviceCopy>(
        &mut self,
        win: Window<T>,
        (local, tile): (DeviceSlice<T>, Tile),
        neighbours: [Option<(u32, Tile)>; 4],
        tag: u32,
    ) {
        let sides = Side::ALL.map(|side| {
            neighbours[side as usize].map(|(rank, theirs): (u32, Tile)| {
                (rank, theirs.frame(side.opposite()), tile.edge(side))
            })
        });
        self.exchange_edges(win, local, &sides, tag);
    }

    /// [`halo_exchange_2d`](Self::halo_exchange_2d) for a 3D grid split in
    /// blocks: each `(rank, tile)` of `neighbours` (z low, z high, y low,
    /// y high, x low, x high; `None` where the grid ends) gets this rank's
    /// face on that side in the facing frame of its own block. Edges and
    /// corners of the frame are not exchanged (a 7-point stencil needs
    /// none).
    #[inline(always)]
    #[track_caller]
    pub fn halo_exchange_3d<T: DeviceCopy>(
        &mut self,
        win: Window<T>,
        (local, tile): (DeviceSlice<T>, Tile3),
        neighbours: [Option<(u32, Tile3)>; 6],
        tag: u32,
    ) {
        let faces = Face::ALL.map(|face| {
            neighbours[face as usize].map(|(rank, theirs): (u32, Tile3)| {
                (rank, theirs.frame(face.opposite()), tile.edge(face))
            })
        });
        self.exchange_edges(win, local, &faces, tag);
    }

    /// Puts each `(rank, their frame, my edge)` with notification `tag`,
    /// then waits for as many.
    #[inline(always)]
    #[track_caller]
    fn exchange_edges<T: DeviceCopy>(
        &mut self,
        win: Window<T>,
        local: DeviceSlice<T>,
        edges: &[Option<(u32, Datatype, Datatype)>],
        tag: u32,
    ) {
        let mut expected = 0;
        for &(rank, frame, edge) in edges.iter().flatten() {
            self.put_notify_typed(win, rank, (0, frame), (local, edge), tag);
            expected += 1;
        }
        self.wait_notifications(tag, expected);
    }

    /// The emulator's check that every thread passes the same arguments.
    /// The four typed calls, written once.
    #[inline(always)]
    #[track_caller]
    #[allow(clippy::too_many_arguments)]
    fn typed_call<T: DeviceCopy, R: Layout, L: Layout>(
        &mut self,
        (name, call): (&'static str, Call),
        (win, get): (Window<T>, bool),
        (target, offset, target_type): (u32, usize, R),
        (local, local_type): (DeviceSlice<T>, L),
        notify: Option<u32>,
    ) {
        self.enter_typed(name, win.id(), (target, offset), local, local_type);
        // SAFETY: inside the rank kernel.
        let bytes = unsafe { local_type.elements() } * core::mem::size_of::<T>() as u64;
        // Inlined: out of line, the call cost a column's put 1.2 µs (the
        // caller's registers saved and restored by every thread).
        self.traced(
            call,
            (target, bytes),
            #[inline(always)]
            |r| {
                let remote = (target, offset, target_type);
                let local = (local, local_type);
                r.rt.typed(&mut r.block, (win, get), remote, local, notify)
            },
        )
    }

    #[inline(always)]
    #[track_caller]
    fn enter_typed<T: DeviceCopy, L: Layout>(
        &self,
        name: &'static str,
        window: u32,
        (target, offset): (u32, usize),
        local: DeviceSlice<T>,
        local_type: L,
    ) {
        // SAFETY: inside the rank kernel.
        let elements = unsafe { local_type.elements() };
        arch::block::enter_call(
            name,
            [
                ("window", window as u64),
                ("target", target as u64),
                ("offset", offset as u64),
                ("buffer", local.as_mut_ptr() as u64),
                ("elements", elements),
            ],
        );
    }
}
