//! Moving the elements of one layout to those of another with every
//! thread of a rank: the copy under typed transfers (element `e` of one
//! layout to element `e` of the other) and under their packing into the
//! staging area ([`Packed`]). A strided copy is bound by the loads each
//! thread has outstanding, so each thread keeps several in flight: 16
//! small elements where both layouts step evenly from one of a thread's
//! elements to its next (a column), four otherwise.

use crate::arch;
use crate::block::{Block, Sum, Thread};
use crate::datatype::Datatype;
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
    load: impl Fn(usize) -> V,
    store: impl Fn(usize, V),
) -> u64 {
    let threads = block.threads() as u64;
    if let (Some(f), Some(t)) = (from_type.progression(threads), to_type.progression(threads)) {
        // Fixed layouts (indexed ones have no progression): unchecked.
        let at = |e: u64| (from_type.offset(e), to_type.offset(e));
        let walk = ((begin, end), (f, t));
        block.each_thread(|th| match core::mem::size_of::<V>() {
            0..=4 => progress::<16, V>(th, threads, walk, at, &load, &store),
            5..=8 => progress::<8, V>(th, threads, walk, at, &load, &store),
            _ => progress::<4, V>(th, threads, walk, at, &load, &store),
        });
        return 0;
    }
    let checked = !(A::FIXED && B::FIXED);
    let same = matches!((from_type.strided(), to_type.strided()), (Some(a), Some(b)) if a == b);
    let inside = |o: u64, d: u64| !checked || (o < from_len && d < to_len);
    let share = |th: &Thread| -> u64 {
        let (mut e, mut skipped) = (begin + th.index() as u64, 0);
        while e + 3 * threads < end {
            let at = [e, e + threads, e + 2 * threads, e + 3 * threads];
            let src = at.map(|x| from_type.offset(x));
            let dst = if same {
                src
            } else {
                at.map(|x| to_type.offset(x))
            };
            if src.iter().zip(&dst).all(|(&o, &d)| inside(o, d)) {
                let v = src.map(|o| load(o as usize));
                for (o, v) in dst.into_iter().zip(v) {
                    store(o as usize, v);
                }
            } else {
                for (o, d) in src.into_iter().zip(dst) {
                    if inside(o, d) {
                        store(d as usize, load(o as usize));
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
    if checked {
        block.reduce(share, Sum)
    } else {
        block.each_thread(|th| {
            share(th);
        });
        0
    }
}

/// One thread's share of [`spread`] where both layouts step by a fixed
/// number of elements from one of the thread's elements to its next
/// (`from_step`, `to_step`; `at` gives an element's two offsets): offsets
/// by additions, `K` loads in flight (16 of 4 bytes are 16 registers).
///
/// # Safety
/// As [`spread`], both layouts fixed.
#[inline(always)]
unsafe fn progress<const K: usize, V: Copy>(
    th: &Thread,
    threads: u64,
    ((begin, end), (from_step, to_step)): ((u64, u64), (u64, u64)),
    at: impl Fn(u64) -> (u64, u64),
    load: &impl Fn(usize) -> V,
    store: &impl Fn(usize, V),
) {
    let first = begin + th.index() as u64;
    if first >= end {
        return;
    }
    let mine = (end - first).div_ceil(threads);
    let (mut o, mut d) = at(first);
    let mut k = 0;
    while k + K as u64 <= mine {
        let v: [V; K] = core::array::from_fn(|j| load((o + j as u64 * from_step) as usize));
        for (j, v) in v.into_iter().enumerate() {
            store((d + j as u64 * to_step) as usize, v);
        }
        o += K as u64 * from_step;
        d += K as u64 * to_step;
        k += K as u64;
    }
    while k < mine {
        store(d as usize, load(o as usize));
        o += from_step;
        d += to_step;
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
                |o| arch::load_16(f.add(16 * o)),
                |o, v| arch::store_16(d.add(16 * o), v),
            )
        }
        None => spread(
            block,
            (from_type, to_type, (begin, end)),
            limits,
            |o| from.add(o).read(),
            |o, v| to.add(o).write(v),
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

    fn progression(&self, threads: u64) -> Option<u64> {
        Some(threads)
    }
}
