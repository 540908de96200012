//! Walking a [`Datatype`]'s elements by additions: a [`Cursor`] stands on
//! one element and steps a fixed number of elements at a time (a rank's
//! thread count, when every thread takes every `threads`-th element).
//!
//! [`Datatype::offset`] divides the element number by the block length
//! and the counts, and a GPU divides in tens of instructions (64-bit
//! numbers in software). A cursor divides once, when it is made: each step
//! is then a mixed-radix addition (digits: the place in the block, the
//! block, the repeat), a compare and a conditional add per level.

use crate::datatype::{div_rem, Datatype};

/// One thread's walk over a datatype's elements `first`, `first + step`,
/// `first + 2·step`, … ([`Datatype::cursor`]): [`offset`](Self::offset)
/// is where the current element lies, [`advance`](Self::advance) moves to
/// the next. Past the datatype's last element the offsets mean nothing;
/// a walker stops at its count.
#[derive(Clone, Copy, Debug)]
pub struct Cursor {
    /// The current element's offset, in elements.
    at: u64,
    /// Its place in its block, its block's number in the first level, and
    /// that level's number in the second.
    digits: [u32; 3],
    /// The step's digits at the same three places.
    step: [u32; 3],
    /// Each place's radix less the step's digit there: a digit (plus a
    /// carry) at or past it wraps.
    wrap: [u32; 3],
    /// The offset a step adds when no digit wraps.
    base: u64,
    /// What each wrap adds to the offset besides: one stride up, less the
    /// span of the level below (wrapping arithmetic).
    carry: [u64; 3],
}

impl Cursor {
    /// A cursor that adds `step` to `at` at every step: no levels (a
    /// contiguous range, the packed side of a piece, or a datatype with a
    /// progression). Made from constants, so a walk of two of them
    /// compiles to additions alone.
    #[inline(always)]
    pub(crate) const fn linear(at: u64, step: u64) -> Cursor {
        Cursor {
            at,
            digits: [0; 3],
            step: [0; 3],
            wrap: [1; 3],
            base: step,
            carry: [0; 3],
        }
    }

    /// Where the current element lies, in elements.
    #[inline(always)]
    pub const fn offset(&self) -> u64 {
        self.at
    }

    /// Moves to the element `step` further on.
    #[inline(always)]
    pub fn advance(&mut self) {
        self.at = self.at.wrapping_add(self.base);
        let mut c = 0;
        let mut k = 0;
        while k < 3 {
            // digit + carry ≤ radix fits; wrapping at `wrap` keeps the new
            // digit below the radix without forming digit + step.
            let x = self.digits[k] + c;
            if x >= self.wrap[k] {
                self.digits[k] = x - self.wrap[k];
                self.at = self.at.wrapping_add(self.carry[k]);
                c = 1;
            } else {
                self.digits[k] = x + self.step[k];
                c = 0;
            }
            k += 1;
        }
    }
}

/// `n` in the datatype's mixed radix (block, counts[0], counts[1]) and
/// what is left above: the three digits and the fourth level's number.
/// 32-bit divisions where `n` fits, as [`Datatype::offset`] does.
#[inline(always)]
fn digits(n: u64, radix: [u32; 3]) -> ([u32; 3], u64) {
    let [b, c0, c1] = radix;
    if n <= u32::MAX as u64 {
        let n = n as u32;
        let (q, r) = div_rem(n, b);
        let (q, i0) = div_rem(q, c0);
        let (top, i1) = div_rem(q, c1);
        return ([r, i0, i1], top as u64);
    }
    let (r, q) = (n % b as u64, n / b as u64);
    let (i0, q) = (q % c0 as u64, q / c0 as u64);
    ([r as u32, i0 as u32, (q % c1 as u64) as u32], q / c1 as u64)
}

impl Datatype {
    /// A cursor on element `first`, stepping `step` elements at a time:
    /// the offsets [`offset`](Self::offset) gives for `first`,
    /// `first + step`, …, by additions. A rank's thread `t` of `n` walks
    /// its share of a transfer with `cursor(t, n)`.
    #[inline(always)]
    pub fn cursor(&self, first: u64, step: u64) -> Cursor {
        let (block, counts, strides) = self.levels();
        if self.size() == 0 || self.is_contiguous() {
            return Cursor::linear(self.offset_of_contiguous(first), step);
        }
        let radix = [block, counts[0], counts[1]];
        let (here, top) = digits(first, radix);
        let (by, up) = digits(step, radix);
        let place = |d: [u32; 3], top: u64| {
            (d[0] as u64)
                .wrapping_add((d[1] as u64).wrapping_mul(strides[0]))
                .wrapping_add((d[2] as u64).wrapping_mul(strides[1]))
                .wrapping_add(top.wrapping_mul(strides[2]))
        };
        let spans = [
            block as u64,
            (counts[0] as u64).wrapping_mul(strides[0]),
            (counts[1] as u64).wrapping_mul(strides[1]),
        ];
        Cursor {
            at: self.start().wrapping_add(place(here, top)),
            digits: here,
            step: by,
            wrap: [radix[0] - by[0], radix[1] - by[1], radix[2] - by[2]],
            base: place(by, up),
            carry: [
                strides[0].wrapping_sub(spans[0]),
                strides[1].wrapping_sub(spans[1]),
                strides[2].wrapping_sub(spans[2]),
            ],
        }
    }

    /// Whether `other` has the same blocks, counts and strides (it may
    /// start elsewhere). Field by field: the derived `==` compares arrays
    /// through `memcmp`, a byte loop on a GPU.
    #[inline(always)]
    pub(crate) const fn same_levels(&self, other: &Datatype) -> bool {
        let ((b0, c0, s0), (b1, c1, s1)) = (self.levels(), other.levels());
        b0 == b1
            && c0[0] == c1[0]
            && c0[1] == c1[1]
            && c0[2] == c1[2]
            && s0[0] == s1[0]
            && s0[1] == s1[1]
            && s0[2] == s1[2]
    }

    /// The step, in elements, from element `e` to element `e + threads`,
    /// when it is the same for every `e` (a single block, or one level of
    /// blocks whose length divides `threads`): then a cursor's digits
    /// never wrap, and a walk made with [`Cursor::linear`] adds alone.
    pub(crate) const fn progression(&self, threads: u64) -> Option<u64> {
        let (block, [c0, c1, c2], strides) = self.levels();
        if c1 > 1 || c2 > 1 {
            return None;
        }
        if c0 <= 1 {
            return Some(threads);
        }
        if block == 0 {
            return None;
        }
        // 32-bit where the thread count fits (always, in a rank): a 64-bit
        // division is a software routine on a GPU, and every typed call
        // asks each side's progression.
        let (per, rest) = if threads <= u32::MAX as u64 {
            let (per, rest) = div_rem(threads as u32, block);
            (per as u64, rest)
        } else {
            let b = block as u64;
            (threads / b, (threads % b) as u32)
        };
        if rest != 0 {
            return None;
        }
        Some(per * strides[0])
    }

    /// Where element `e` of a contiguous datatype lies (any `e`: past its
    /// end too, as a cursor's offsets may be).
    #[inline(always)]
    fn offset_of_contiguous(&self, e: u64) -> u64 {
        self.start().wrapping_add(e)
    }
}
