//! What a typed transfer accepts on each side: a [`Layout`], either a
//! [`Datatype`] (strided blocks, a few words) or an [`Indexed`] (blocks at
//! displacements read from device memory). The runtime walks both the same
//! way; their walking methods are the crate's own (a sealed trait), since
//! an indexed layout reads device memory, which only code running inside a
//! rank kernel may do.

use crate::abi::Fault;
use crate::block::Block;
use crate::datatype::Datatype;
use crate::indexed::Indexed;

/// A datatype a typed transfer accepts on either side: [`Datatype`] or
/// [`Indexed`]. Sealed: its walking methods are the crate's own.
#[allow(private_bounds)] // The sealed-trait pattern: `Walk` is unnameable outside.
pub trait Layout: walk::Walk {}

impl Layout for Datatype {}
impl Layout for Indexed {}

pub(crate) mod walk {
    use super::{Block, Fault};

    /// What the runtime checks of a layout before it moves anything.
    pub struct Shape {
        /// Elements it moves.
        pub size: u64,
        /// One past the furthest element it reaches.
        pub extent: u64,
        /// Why it cannot be used, with the fault's values.
        pub fault: Option<(Fault, [u64; 4])>,
    }

    /// How the runtime walks a layout. Not nameable outside the crate.
    #[allow(private_interfaces)] // Block is the crate's own, as is this trait.
    pub trait Walk: Copy {
        /// Whether its offsets follow from the value alone (a
        /// [`Datatype`](crate::Datatype)). An indexed layout reads lists
        /// that a racing write could change after its shape was checked, so
        /// a copy checks each of its offsets against the buffer.
        const FIXED: bool;

        /// Its size, extent and faults, found by every thread of `block`
        /// together; `written` when the transfer writes through it, which
        /// must then name no element twice (`side` names it in the fault:
        /// 0 target, 1 local).
        ///
        /// # Safety
        /// Inside a rank kernel: an indexed layout's arrays are read.
        unsafe fn shape(&self, block: &mut Block, written: Option<u64>) -> Shape;

        /// Elements it moves.
        ///
        /// # Safety
        /// Inside a rank kernel: an indexed layout's `firsts` is read.
        unsafe fn elements(&self) -> u64;

        /// Where element `e` (below its size) lies, in elements.
        ///
        /// # Safety
        /// As [`shape`](Self::shape), after it found no fault.
        unsafe fn offset(&self, e: u64) -> u64;

        /// Where element `e` (below its size) lies, and how many elements
        /// from it on lie contiguously there (to the end of its block).
        ///
        /// # Safety
        /// As [`offset`](Self::offset).
        unsafe fn run(&self, e: u64) -> (u64, u64);

        /// The same layout in units of `k` elements, when it has one.
        fn in_units_of(&self, k: u32) -> Option<Self>;

        /// The strided form, if it is one (a copy between two equal ones
        /// computes each offset once).
        fn strided(&self) -> Option<crate::datatype::Datatype>;

        /// A cursor on element `first` stepping `step` elements, where
        /// the offsets follow from the value alone: `Some` exactly when
        /// [`FIXED`](Self::FIXED).
        fn cursor(&self, first: u64, step: u64) -> Option<crate::cursor::Cursor>;

        /// The step between element `e` and element `e + threads` when it
        /// is the same for every `e` (see `Datatype::progression`).
        fn progression(&self, threads: u64) -> Option<u64>;
    }
}

#[allow(private_interfaces)]
impl walk::Walk for Datatype {
    const FIXED: bool = true;

    unsafe fn shape(&self, _block: &mut Block, written: Option<u64>) -> walk::Shape {
        let fault = match written {
            Some(side) if self.overlaps() => Some((Fault::TypeOverlap, [side, u64::MAX, 0, 0])),
            _ => None,
        };
        walk::Shape {
            size: self.size(),
            extent: self.extent(),
            fault,
        }
    }

    unsafe fn elements(&self) -> u64 {
        self.size()
    }

    #[inline(always)]
    unsafe fn offset(&self, e: u64) -> u64 {
        Datatype::offset(self, e)
    }

    unsafe fn run(&self, e: u64) -> (u64, u64) {
        if self.is_contiguous() {
            return (Datatype::offset(self, 0) + e, self.size() - e);
        }
        let block = self.block_len() as u64;
        (Datatype::offset(self, e), block - e % block)
    }

    fn in_units_of(&self, k: u32) -> Option<Self> {
        Datatype::in_units_of(self, k)
    }

    fn strided(&self) -> Option<Datatype> {
        Some(*self)
    }

    #[inline(always)]
    fn cursor(&self, first: u64, step: u64) -> Option<crate::cursor::Cursor> {
        Some(Datatype::cursor(self, first, step))
    }

    fn progression(&self, threads: u64) -> Option<u64> {
        Datatype::progression(self, threads)
    }
}
