//! Datatypes: which elements of a buffer a transfer moves, as MPI's
//! derived datatypes say it (`MPI_Type_contiguous`, `_vector`,
//! `_create_subarray`, and a vector of any of them). A [`Datatype`] is
//! committed when it is made: a few words, `Copy`, walked by the device
//! without allocation. Element `e` of the transfer is at
//! [`offset(e)`](Datatype::offset) of the buffer, in elements.
//!
//! The layout is up to three levels of evenly spaced blocks of `block`
//! contiguous elements: `counts[0]` blocks `strides[0]` apart, repeated
//! `counts[1]` times `strides[1]` apart, and that `counts[2]` times
//! `strides[2]` apart, all from element `start`.

use crate::abi::LaidPiece;
pub use crate::type_error::TypeError;

/// Which elements of a buffer a transfer moves, in order; see the
/// [module](self).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datatype {
    block: u32,
    counts: [u32; 3],
    strides: [u64; 3],
    start: u64,
    /// [`extent`](Self::extent), found when it was made: every typed call
    /// asks each side's, and finding it takes 128-bit products.
    extent: u64,
}

impl Datatype {
    /// `count` contiguous elements (`MPI_Type_contiguous`).
    pub const fn contiguous(count: u32) -> Datatype {
        Datatype {
            block: count,
            counts: [1, 1, 1],
            strides: [0, 0, 0],
            start: 0,
            extent: count as u64,
        }
    }

    /// `count` blocks of `block_len` contiguous elements, the starts of
    /// two blocks `stride` elements apart (`MPI_Type_vector`): a column of
    /// a row-major matrix is `vector(rows, 1, row_len)`.
    pub const fn vector(count: u32, block_len: u32, stride: u64) -> Datatype {
        Datatype {
            block: block_len,
            counts: [count, 1, 1],
            strides: [stride, 0, 0],
            start: 0,
            extent: 0,
        }
        .with_extent()
    }

    /// `count` copies of `inner`, each `stride` elements after the last
    /// (MPI's vector of a derived type); at most three levels in all.
    pub const fn vector_of(
        count: u32,
        stride: u64,
        inner: Datatype,
    ) -> Result<Datatype, TypeError> {
        let mut level = 0;
        let mut i = 0;
        while i < 3 {
            if inner.counts[i] > 1 {
                level = i + 1;
            }
            i += 1;
        }
        if level == 3 {
            return Err(TypeError::TooDeep);
        }
        let mut t = inner;
        t.counts[level] = count;
        t.strides[level] = stride;
        t.checked()
    }

    /// The `subsizes[0] × subsizes[1]` block at `starts` of a row-major
    /// `sizes[0] × sizes[1]` array (`MPI_Type_create_subarray`, C order).
    pub const fn subarray_2d(
        sizes: [u32; 2],
        subsizes: [u32; 2],
        starts: [u32; 2],
    ) -> Result<Datatype, TypeError> {
        let [r, c] = sizes;
        let (sub, at) = ([1, subsizes[0], subsizes[1]], [0, starts[0], starts[1]]);
        Self::subarray([1, r, c], sub, at, 1)
    }

    /// The `subsizes` block at `starts` of a row-major array of `sizes`,
    /// the last dimension contiguous (`MPI_Type_create_subarray`, C
    /// order): a face of a 3D field, or a 3D sub-block.
    pub const fn subarray_3d(
        sizes: [u32; 3],
        subsizes: [u32; 3],
        starts: [u32; 3],
    ) -> Result<Datatype, TypeError> {
        Self::subarray(sizes, subsizes, starts, 0)
    }

    /// A 3D subarray; the caller's dimensions start at `first` (1 for a 2D
    /// one, whose slowest dimension is 1).
    const fn subarray(
        sizes: [u32; 3],
        sub: [u32; 3],
        at: [u32; 3],
        first: usize,
    ) -> Result<Datatype, TypeError> {
        let mut d = first;
        while d < 3 {
            if at[d] as u64 + sub[d] as u64 > sizes[d] as u64 {
                return Err(TypeError::SubarrayOutside {
                    dim: (d - first) as u32,
                    start: at[d],
                    subsize: sub[d],
                    size: sizes[d],
                });
            }
            d += 1;
        }
        let (plane, row) = (sizes[1] as u64 * sizes[2] as u64, sizes[2] as u64);
        Datatype {
            block: sub[2],
            counts: [sub[1], sub[0], 1],
            strides: [row, plane, 0],
            start: at[0] as u64 * plane + at[1] as u64 * row + at[2] as u64,
            extent: 0,
        }
        .checked()
    }

    /// The same elements, `by` elements further into the buffer.
    pub const fn shifted(self, by: u64) -> Result<Datatype, TypeError> {
        let mut t = self;
        t.start = match self.start.checked_add(by) {
            Some(s) => s,
            None => return Err(TypeError::TooLarge),
        };
        t.checked()
    }

    /// Itself with its extent found, if it fits in 2⁶³.
    const fn checked(self) -> Result<Datatype, TypeError> {
        let t = self.with_extent();
        match t.extent {
            u64::MAX => Err(TypeError::TooLarge),
            _ => Ok(t),
        }
    }

    /// Itself with its extent found ([`u64::MAX`] past 2⁶³: never in
    /// bounds).
    const fn with_extent(mut self) -> Datatype {
        self.extent = match self.reach() {
            Some(r) => r,
            None => u64::MAX,
        };
        self
    }

    /// One past the last element reached, if it fits in 2⁶³.
    const fn reach(&self) -> Option<u64> {
        if self.size() == 0 {
            return Some(0);
        }
        let mut last = self.start as u128 + self.block as u128 - 1;
        let mut i = 0;
        while i < 3 {
            last += (self.counts[i] as u128 - 1) * self.strides[i] as u128;
            i += 1;
        }
        if last < (1u128 << 63) {
            Some(last as u64 + 1)
        } else {
            None
        }
    }

    /// Elements the datatype moves.
    #[inline(always)]
    pub const fn size(&self) -> u64 {
        self.block as u64 * self.counts[0] as u64 * self.counts[1] as u64 * self.counts[2] as u64
    }

    /// One past the furthest element it reaches: the buffer length it
    /// needs (0 when it moves nothing).
    #[inline(always)]
    pub const fn extent(&self) -> u64 {
        self.extent
    }

    /// Whether every element is where the last one ended: a plain range.
    #[inline(always)]
    pub const fn is_contiguous(&self) -> bool {
        let mut span = self.block as u64;
        let mut i = 0;
        while i < 3 {
            if self.counts[i] > 1 {
                if self.strides[i] != span {
                    return false;
                }
                span *= self.counts[i] as u64;
            }
            i += 1;
        }
        true
    }

    /// Whether two of its elements may be the same element of the buffer:
    /// such a datatype may be read from, not written to. Exact for the
    /// usual layouts (blocks, columns, sub-blocks, transposes): with its
    /// levels sorted by stride, each level's stride must reach past all
    /// that the levels below it span.
    pub const fn overlaps(&self) -> bool {
        if self.size() <= 1 {
            return false;
        }
        let [s0, s1, s2] = self.strides;
        let [c0, c1, c2] = self.counts;
        if c1 <= 1 && c2 <= 1 {
            // Blocks of one level (a vector, a column): the next block
            // must start past this one.
            return c0 > 1 && s0 < self.block as u64;
        }
        // (stride, count) of the block (stride 1) and each repeating level;
        // a level that does not repeat spans nothing, wherever it sorts.
        let (a, b) = ((1u64, self.block as u64), (s0, c0 as u64));
        let (c, d) = ((s1, c1 as u64), (s2, c2 as u64));
        // Sorted by stride with a network of four: fixed places, so that
        // the levels stay in registers on the GPU (an insertion sort's
        // moving index put them in local memory, on every typed call).
        let ((a, b), (c, d)) = (by_stride(a, b), by_stride(c, d));
        let ((a, c), (b, d)) = (by_stride(a, c), by_stride(b, d));
        let (b, c) = by_stride(b, c);
        let mut span = 1u64;
        let levels = [a, b, c, d];
        let mut l = 0;
        while l < 4 {
            let (stride, count) = levels[l];
            if count > 1 {
                if stride < span {
                    return true;
                }
                span += stride * (count - 1);
            }
            l += 1;
        }
        false
    }

    /// Where element `e` (below [`size`](Self::size)) of the transfer lies
    /// in the buffer, in elements.
    #[inline(always)]
    pub fn offset(&self, e: u64) -> u64 {
        let [c0, c1, c2] = self.counts;
        let [s0, s1, s2] = self.strides;
        if e > u32::MAX as u64 {
            let (q, r) = (e / self.block as u64, e % self.block as u64);
            let (i0, q) = (q % c0 as u64, q / c0 as u64);
            let (i1, i2) = (q % c1 as u64, q / c1 as u64);
            return self.start + r + i0 * s0 + i1 * s1 + i2 * s2;
        }
        // 32-bit division: a GPU divides 64-bit numbers in software, and
        // a typed copy computes this for every element.
        let e = e as u32;
        let (q, r) = div_rem(e, self.block);
        if c1 == 1 && c2 == 1 {
            return self.start + r as u64 + q as u64 * s0;
        }
        let (q, i0) = div_rem(q, c0);
        let (i2, i1) = div_rem(q, c1);
        self.start + r as u64 + i0 as u64 * s0 + i1 as u64 * s1 + i2 as u64 * s2
    }

    /// The header of a piece of elements `first..first + count` of this
    /// datatype, each `elem` bytes, that the host places at the target
    /// (the runtime's, public for the host).
    #[doc(hidden)]
    pub const fn piece(&self, first: u64, elem: u32, count: u32) -> LaidPiece {
        LaidPiece {
            block: self.block,
            counts: self.counts,
            strides: self.strides,
            start: self.start,
            first,
            elem,
            count,
        }
    }

    /// The datatype a piece's header names, if a constructor could have
    /// made it (the host's check of a header it did not write).
    pub const fn of_piece(p: &LaidPiece) -> Result<Datatype, TypeError> {
        Datatype {
            block: p.block,
            counts: p.counts,
            strides: p.strides,
            start: p.start,
            extent: 0,
        }
        .checked()
    }

    /// The block length, counts and strides (for [`Cursor`](crate::cursor::Cursor)).
    #[inline(always)]
    pub(crate) const fn levels(&self) -> (u32, [u32; 3], [u64; 3]) {
        (self.block, self.counts, self.strides)
    }

    /// Where element 0 lies.
    #[inline(always)]
    pub(crate) const fn start(&self) -> u64 {
        self.start
    }

    /// The same elements counted in units of `k` elements (a block of
    /// 64 `f32`s is 16 units of 16 bytes), when every block starts and
    /// ends on a unit: `None` otherwise.
    pub const fn in_units_of(&self, k: u32) -> Option<Datatype> {
        if k == 0 || !self.block.is_multiple_of(k) || !self.start.is_multiple_of(k as u64) {
            return None;
        }
        let mut t = *self;
        t.block /= k;
        t.start /= k as u64;
        // Every block starts and ends on a unit, so the end does too.
        if t.extent != u64::MAX {
            t.extent /= k as u64;
        }
        let mut i = 0;
        while i < 3 {
            if self.counts[i] > 1 && !self.strides[i].is_multiple_of(k as u64) {
                return None;
            }
            t.strides[i] /= k as u64;
            i += 1;
        }
        Some(t)
    }

    /// Its contiguous block length (elements moved from one place).
    #[inline(always)]
    pub const fn block_len(&self) -> u32 {
        self.block
    }
}

/// `n / d` and `n % d` (`d` not zero): a shift and a mask where `d` is a
/// power of two, as block lengths, counts and thread counts mostly are,
/// else a division, which a GPU runs as tens of dependent instructions
/// (a typed call's setup divided nine times).
#[inline(always)]
pub(crate) const fn div_rem(n: u32, d: u32) -> (u32, u32) {
    if d.is_power_of_two() {
        (n >> d.trailing_zeros(), n & (d - 1))
    } else {
        (n / d, n % d)
    }
}

/// Two (stride, count) levels, the smaller stride first.
#[inline(always)]
const fn by_stride(x: (u64, u64), y: (u64, u64)) -> ((u64, u64), (u64, u64)) {
    if x.0 > y.0 {
        (y, x)
    } else {
        (x, y)
    }
}

#[cfg(test)]
#[path = "datatype_tests.rs"]
mod tests;
