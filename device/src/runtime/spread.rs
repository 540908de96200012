//! Moving the elements of one layout to those of another with every
//! thread of a rank: the copy under typed transfers (element `e` of one
//! layout to element `e` of the other) and under their packing into the
//! staging area ([`Packed`]). A strided copy is bound by the loads each
//! thread has outstanding, so each thread keeps several in flight: 16
//! elements of 4 bytes, 8 larger ones, between datatypes (whose offsets
//! the threads walk by additions, [`Cursor`]); four where a layout reads
//! lists.

use crate::arch;
use crate::block::{Block, Sum, Thread};
use crate::cursor::Cursor;
use crate::datatype::{div_rem, Datatype};
use crate::layout::walk::{Shape, Walk};
use crate::memory::DeviceCopy;

/// Copies element `e` of `from_type` to element `e` of `to_type` for every
/// `e` in `begin..end`, through `load` and `store` at their offsets, every
/// thread a share. Where a layout reads lists ([`Walk::FIXED`] false),
/// each offset is checked against its buffer's `limits` and one past it is
/// skipped; returns how many were (0 for fixed layouts, unchecked).
///
/// # Safety
/// Inside a rank kernel, after both layouts' shapes were checked:
/// `begin..end` within their sizes; `load` and `store` valid below
/// `limits`, and a fixed layout's offsets below them.
#[inline(always)]
pub(super) unsafe fn spread<V: Copy, A: Walk, B: Walk>(
    block: &mut Block,
    (from_type, to_type, (begin, end)): (A, B, (u64, u64)),
    (from_len, to_len): (u64, u64),
    load: impl Fn(usize) -> V + Copy,
    store: impl Fn(usize, V) + Copy,
) -> u64 {
    let threads = block.threads() as u64;
    if A::FIXED && B::FIXED {
        // Datatypes and packed pieces: unchecked, walked by additions.
        // Two datatypes that differ only in where they start share one
        // cursor (half the registers).
        let steps = from_type
            .progression(threads)
            .zip(to_type.progression(threads));
        let shift = match (from_type.strided(), to_type.strided()) {
            (Some(a), Some(b)) if a.same_levels(&b) => Some(b.start().wrapping_sub(a.start())),
            _ => None,
        };
        let ways = (steps, shift);
        block.each_thread(move |th| {
            let first = begin + th.index() as u64;
            fixed_share(
                (from_type, to_type, (first, end)),
                threads,
                ways,
                load,
                store,
            )
        });
        return 0;
    }
    let inside = |o: u64, d: u64| o < from_len && d < to_len;
    let share = |th: &Thread| -> u64 {
        let (mut e, mut skipped) = (begin + th.index() as u64, 0);
        while e + 3 * threads < end {
            let at = [e, e + threads, e + 2 * threads, e + 3 * threads];
            let src = at.map(|x| from_type.offset(x));
            let dst = at.map(|x| to_type.offset(x));
            if (0..4).all(|j| inside(src[j], dst[j])) {
                let v = src.map(|o| load(o as usize));
                // Indexed by a constant range, so that the values stay in
                // registers (a zipped iterator kept them in local memory).
                for j in 0..4 {
                    store(dst[j] as usize, v[j]);
                }
            } else {
                for j in 0..4 {
                    if inside(src[j], dst[j]) {
                        store(dst[j] as usize, load(src[j] as usize));
                    } else {
                        skipped += 1;
                    }
                }
            }
            e += 4 * threads;
        }
        while e < end {
            let (o, d) = (from_type.offset(e), to_type.offset(e));
            if inside(o, d) {
                store(d as usize, load(o as usize));
            } else {
                skipped += 1;
            }
            e += threads;
        }
        skipped
    };
    block.reduce(share, Sum)
}

/// One thread's share of [`spread`] between two fixed layouts, from
/// element `first`: walked by two linear cursors where both layouts have
/// a progression (`steps`), else by the source's cursor and either the
/// destination's or, where both are one datatype's levels, the source's
/// offsets `shift`ed. A function of its own, always inlined: as the
/// closure's body LLVM put it out of line once the walks grew, and a call
/// in a rank kernel costs every thread its saved registers.
///
/// # Safety
/// As [`spread`], both layouts fixed.
#[inline(always)]
unsafe fn fixed_share<V: Copy, A: Walk, B: Walk>(
    (from_type, to_type, (first, end)): (A, B, (u64, u64)),
    threads: u64,
    (steps, shift): (Option<(u64, u64)>, Option<u64>),
    load: impl Fn(usize) -> V,
    store: impl Fn(usize, V),
) {
    // 32-bit where it fits (a transfer of under 2^32 elements): a 64-bit
    // division is a software routine on a GPU, on every thread.
    let span = end.saturating_sub(first);
    let mine = if span <= u32::MAX as u64 && threads <= u32::MAX as u64 {
        let (q, r) = div_rem(span as u32, threads as u32);
        (q + (r != 0) as u32) as u64
    } else {
        span.div_ceil(threads)
    };
    if mine == 0 {
        return;
    }
    let (load, store) = (&load, &store);
    if let Some((f, t)) = steps {
        // Steps that never wrap: two cursors of constants, whose walk is
        // additions alone (a column).
        let at = (from_type.offset(first), to_type.offset(first));
        let cursors = (Cursor::linear(at.0, f), Cursor::linear(at.1, t));
        return walk::<V, _>(mine, cursors, load, store);
    }
    let Some(f) = from_type.cursor(first, threads) else {
        debug_assert!(false, "a fixed layout has a cursor");
        return;
    };
    match (shift, to_type.cursor(first, threads)) {
        (Some(by), _) => walk::<V, _>(mine, (f, Shifted(by)), load, store),
        (None, Some(t)) => walk::<V, _>(mine, (f, t), load, store),
        (None, None) => debug_assert!(false, "a fixed layout has a cursor"),
    }
}

/// Where a walk stores: at its own cursor, or at the source's offsets
/// shifted (`Shifted`).
trait Follow: Copy {
    /// The offset of the element whose source offset is `from`.
    fn offset(&self, from: u64) -> u64;
    /// On to the next element.
    fn advance(&mut self);
}

impl Follow for Cursor {
    #[inline(always)]
    fn offset(&self, _from: u64) -> u64 {
        Cursor::offset(self)
    }

    #[inline(always)]
    fn advance(&mut self) {
        Cursor::advance(self)
    }
}

/// The destination of a datatype with the source's levels, starting the
/// given number of elements further (wrapping).
#[derive(Clone, Copy)]
struct Shifted(u64);

impl Follow for Shifted {
    #[inline(always)]
    fn offset(&self, from: u64) -> u64 {
        from.wrapping_add(self.0)
    }

    #[inline(always)]
    fn advance(&mut self) {}
}

/// One thread's share of [`spread`] between two fixed layouts: `mine`
/// elements from the cursor `from` on into `to`, each offset by additions,
/// several loads in flight: 16 of 4 bytes (16 registers), 8 larger ones
/// (8 of 16 bytes are 32).
///
/// # Safety
/// As [`spread`], both layouts fixed.
#[inline(always)]
unsafe fn walk<V: Copy, D: Follow>(
    mine: u64,
    (from, to): (Cursor, D),
    load: &impl Fn(usize) -> V,
    store: &impl Fn(usize, V),
) {
    if core::mem::size_of::<V>() <= 4 {
        walk_by::<16, V, D>(mine, (from, to), load, store)
    } else {
        walk_by::<8, V, D>(mine, (from, to), load, store)
    }
}

/// [`walk`] with `K` loads in flight.
///
/// # Safety
/// As [`walk`].
#[inline(always)]
unsafe fn walk_by<const K: usize, V: Copy, D: Follow>(
    mine: u64,
    (mut from, mut to): (Cursor, D),
    load: &impl Fn(usize) -> V,
    store: &impl Fn(usize, V),
) {
    let mut k = 0;
    while k + K as u64 <= mine {
        // The source cursor again for the stores: a shifted destination
        // follows it (unused, and removed, for a destination of its own).
        // A second cursor copied from the first and moved was measured
        // 27% slower on the 64³ block (44.1 against 34.8 µs, two H200s,
        // bench/results/2026-11-28-typed-review-h200x2/): the compiler
        // kept two cursors' worth of state.
        let mut back = from;
        let v: [V; K] = core::array::from_fn(|_| {
            let v = load(from.offset() as usize);
            from.advance();
            v
        });
        // `from_fn` again, which LLVM unrolls: a `for` over the values was
        // rolled, and they went through local memory.
        let _: [(); K] = core::array::from_fn(|j| {
            store(to.offset(back.offset()) as usize, v[j]);
            back.advance();
            to.advance();
        });
        k += K as u64;
    }
    while k < mine {
        let o = from.offset();
        store(to.offset(o) as usize, load(o as usize));
        from.advance();
        to.advance();
        k += 1;
    }
}

/// Moves element `e` of `from_type` at `from` to element `e` of `to_type`
/// at `to` (buffers of `limits` elements) for `e` in `range`, in whole
/// 16-byte units when both layouts, both bases and the range allow (four
/// times the bytes a load brings); returns the elements skipped as
/// [`spread`] does.
///
/// # Safety
/// As [`spread`].
#[inline(always)]
pub(super) unsafe fn move_elements<T: DeviceCopy, A: Walk, B: Walk>(
    block: &mut Block,
    (from_type, to_type, (begin, end)): (A, B, (u64, u64)),
    (from, to): (*const T, *mut T),
    limits: (u64, u64),
) -> u64 {
    let bytes = core::mem::size_of::<T>();
    let unit = if bytes > 0 && 16 % bytes == 0 {
        (16 / bytes) as u32
    } else {
        0
    };
    let k = unit as u64;
    let aligned = (from as usize).is_multiple_of(16)
        && (to as usize).is_multiple_of(16)
        && k > 1
        && begin.is_multiple_of(k)
        && end.is_multiple_of(k);
    let units = match (from_type.in_units_of(unit), to_type.in_units_of(unit)) {
        (Some(a), Some(b)) if aligned => Some((a, b)),
        _ => None,
    };
    match units {
        Some((a, b)) => {
            let (f, d) = (from as *const u8, to as *mut u8);
            spread(
                block,
                (a, b, (begin / k, end / k)),
                (limits.0 / k, limits.1 / k),
                move |o| arch::load_16(f.add(16 * o)),
                move |o, v| arch::store_16(d.add(16 * o), v),
            )
        }
        None => spread(
            block,
            (from_type, to_type, (begin, end)),
            limits,
            move |o| from.add(o).read(),
            move |o, v| to.add(o).write(v),
        ),
    }
}

/// The packed side of a piece in the staging area: element `e` of the
/// transfer at `e - start`, for the piece that begins at element `start`.
#[derive(Clone, Copy)]
pub(super) struct Packed {
    /// The piece's first element.
    pub start: u64,
}

#[allow(private_interfaces)]
impl Walk for Packed {
    const FIXED: bool = true;

    unsafe fn shape(&self, _block: &mut Block, _written: Option<u64>) -> Shape {
        // Never asked: a piece is made from a checked layout.
        Shape {
            size: 0,
            extent: 0,
            fault: None,
        }
    }

    unsafe fn elements(&self) -> u64 {
        0
    }

    #[inline(always)]
    unsafe fn offset(&self, e: u64) -> u64 {
        e - self.start
    }

    unsafe fn run(&self, e: u64) -> (u64, u64) {
        (e - self.start, u64::MAX)
    }

    fn in_units_of(&self, k: u32) -> Option<Self> {
        let k = k as u64;
        (k > 0 && self.start.is_multiple_of(k)).then_some(Packed {
            start: self.start / k,
        })
    }

    fn strided(&self) -> Option<Datatype> {
        None
    }

    fn cursor(&self, first: u64, step: u64) -> Option<Cursor> {
        Some(Cursor::linear(first.wrapping_sub(self.start), step))
    }

    fn progression(&self, threads: u64) -> Option<u64> {
        Some(threads)
    }
}
