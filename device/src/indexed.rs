//! Indexed layouts: blocks of elements at displacements listed in device
//! memory (MPI's `MPI_Type_indexed` and `MPI_Type_create_indexed_block`),
//! for scattered sets that no stride describes: a list of particles, the
//! boundary cells of an irregular mesh.

use crate::abi::Fault;
use crate::block::{Block, Max, Min};
use crate::datatype::{Datatype, TypeError};
use crate::layout::walk::{Shape, Walk};
use crate::memory::DeviceSlice;

/// Blocks of contiguous elements, block `i` at element `displacements[i]`
/// of the buffer, in the order listed: the transfer's element `e` is in
/// the block that holds it. Both arrays are read by the rank that moves
/// the data, so they must be in memory it reaches (device memory, or
/// shared memory of that rank) and unchanged during the call. A side that
/// is written must list its blocks in increasing order without overlap
/// (each starting at or after the end of the one before); one that is
/// only read may repeat or reorder them. Walking it costs a load per
/// element (and a binary search of `firsts` with blocks of several
/// lengths), so a [`Datatype`] is faster where a stride describes the
/// data.
#[derive(Clone, Copy, Debug)]
pub struct Indexed {
    displacements: DeviceSlice<u32>,
    /// `None`: every block is `block` elements long.
    firsts: Option<DeviceSlice<u32>>,
    block: u32,
}

impl Indexed {
    /// Blocks of `block_len` elements each, at `displacements`
    /// (`MPI_Type_create_indexed_block`): with a block length of 1, a
    /// gather or scatter of single elements.
    pub const fn blocks(block_len: u32, displacements: DeviceSlice<u32>) -> Indexed {
        Indexed {
            displacements,
            firsts: None,
            block: block_len,
        }
    }

    /// Blocks of different lengths (`MPI_Type_indexed`): block `i` is the
    /// transfer's elements `firsts[i]..firsts[i + 1]`, at element
    /// `displacements[i]` of the buffer. `firsts` has one entry more than
    /// `displacements`: it starts at 0 and never decreases, and its last
    /// entry is the number of elements moved: 0, then the running sums of
    /// MPI's block lengths.
    pub fn new(
        firsts: DeviceSlice<u32>,
        displacements: DeviceSlice<u32>,
    ) -> Result<Indexed, TypeError> {
        if firsts.len() != displacements.len() + 1 {
            return Err(TypeError::IndexLengths {
                firsts: firsts.len() as u64,
                displacements: displacements.len() as u64,
            });
        }
        Ok(Indexed {
            displacements,
            firsts: Some(firsts),
            block: 0,
        })
    }

    /// Its blocks.
    pub fn blocks_count(&self) -> usize {
        self.displacements.len()
    }

    /// Block `i`'s displacement (`i` below the count).
    #[inline(always)]
    unsafe fn displacement(&self, i: usize) -> u64 {
        self.displacements.as_ptr().add(i).read() as u64
    }

    /// The block holding the transfer's element `e`, and `e`'s place in it.
    #[inline(always)]
    unsafe fn holding(&self, e: u64) -> (usize, u64) {
        let Some(f) = self.firsts else {
            return ((e / self.block as u64) as usize, e % self.block as u64);
        };
        // The last block that starts at or before `e`: an empty block
        // starts where the next one does, so it is passed.
        let (mut lo, mut hi) = (0usize, self.blocks_count());
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if f.as_ptr().add(mid).read() as u64 <= e {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (lo, e - f.as_ptr().add(lo).read() as u64)
    }

    /// Where block `i` starts among the transfer's elements, and its length.
    #[inline(always)]
    unsafe fn span(&self, i: usize) -> (u64, u64) {
        match self.firsts {
            None => (i as u64 * self.block as u64, self.block as u64),
            Some(f) => {
                let (a, b) = (f.as_ptr().add(i).read(), f.as_ptr().add(i + 1).read());
                (a as u64, b.saturating_sub(a) as u64)
            }
        }
    }
}

#[allow(private_interfaces)] // Block and Walk are the crate's own.
impl Walk for Indexed {
    const FIXED: bool = false;

    unsafe fn elements(&self) -> u64 {
        let n = self.blocks_count();
        match self.firsts {
            None => n as u64 * self.block as u64,
            Some(f) => f.as_ptr().add(n).read() as u64,
        }
    }

    unsafe fn shape(&self, block: &mut Block, written: Option<u64>) -> Shape {
        let (n, threads) = (self.blocks_count(), block.threads() as usize);
        let size = self.elements();
        // Every thread its share of the blocks: the furthest end, the
        // first block whose `firsts` decrease, the first one that starts
        // before the last ended (only a written side's matters).
        let extent = block.reduce(
            |t| {
                let mut end = 0u64;
                let mut i = t.index() as usize;
                while i < n {
                    let (_, len) = self.span(i);
                    if len > 0 {
                        end = end.max(self.displacement(i) + len);
                    }
                    i += threads;
                }
                end
            },
            Max,
        );
        let unsorted = match self.firsts {
            None => u64::MAX,
            Some(f) => block.reduce(
                |t| {
                    let mut i = t.index() as usize;
                    while i < n {
                        let (a, b) = (f.as_ptr().add(i).read(), f.as_ptr().add(i + 1).read());
                        if b < a || (i == 0 && a != 0) {
                            return i as u64;
                        }
                        i += threads;
                    }
                    u64::MAX
                },
                Min,
            ),
        };
        if let (Some(f), true) = (self.firsts, unsorted != u64::MAX) {
            let i = unsorted as usize;
            let (a, b) = (f.as_ptr().add(i).read(), f.as_ptr().add(i + 1).read());
            let fault = (Fault::TypeIndex, [i as u64, a as u64, b as u64, 0]);
            return Shape {
                size,
                extent,
                fault: Some(fault),
            };
        }
        let fault = match written {
            None => None,
            Some(side) => {
                let first_overlap = block.reduce(
                    |t| {
                        let mut i = t.index() as usize + 1;
                        while i < n {
                            let (_, len) = self.span(i - 1);
                            if self.displacement(i) < self.displacement(i - 1) + len {
                                return i as u64;
                            }
                            i += threads;
                        }
                        u64::MAX
                    },
                    Min,
                );
                (first_overlap != u64::MAX)
                    .then_some((Fault::TypeOverlap, [side, first_overlap, 0, 0]))
            }
        };
        Shape {
            size,
            extent,
            fault,
        }
    }

    #[inline(always)]
    unsafe fn offset(&self, e: u64) -> u64 {
        match self.firsts {
            None if e <= u32::MAX as u64 => {
                // 32-bit division: a GPU divides 64-bit numbers in software.
                let (j, r) = (e as u32 / self.block, e as u32 % self.block);
                self.displacement(j as usize) + r as u64
            }
            _ => {
                let (j, r) = self.holding(e);
                self.displacement(j) + r
            }
        }
    }

    unsafe fn run(&self, e: u64) -> (u64, u64) {
        let (j, r) = self.holding(e);
        // At least one: lists changed by a racing write must not stall.
        let left = self.span(j).1.saturating_sub(r).max(1);
        (self.displacement(j) + r, left)
    }

    fn in_units_of(&self, _k: u32) -> Option<Self> {
        None
    }

    fn strided(&self) -> Option<Datatype> {
        None
    }

    fn cursor(&self, _first: u64, _step: u64) -> Option<crate::cursor::Cursor> {
        None
    }

    fn progression(&self, _threads: u64) -> Option<u64> {
        None
    }
}
