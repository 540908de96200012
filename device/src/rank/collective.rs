//! Block-collective operations of a rank: barrier, reduction, scan and
//! broadcast from one thread.
//!
//! The combining order is defined once, as warp-sized steps:
//! * reduce: a butterfly within each warp (`v = op(v, v ^ offset)` for
//!   offsets 16, 8, 4, 2, 1), lane 0's result per warp, then the same
//!   butterfly over the warp results;
//! * scan: Hillis-Steele within each warp (`v = op(v[lane - d], v)` for
//!   d = 1, 2, 4, 8, 16), then warp totals folded left to right in front.
//!
//! The GPU runs these steps with warp shuffles; the emulator runs exactly the
//! same steps over arrays. Only the lane exchange differs, so results are
//! bitwise identical.

#[cfg(not(target_arch = "nvptx64"))]
use super::each_thread;
use super::{on_thread_zero, PerThread, Rank, Thread, WARP};
#[cfg(target_arch = "nvptx64")]
use crate::arch;

/// Offsets of the butterfly, in order.
const BUTTERFLY: [u32; 5] = [16, 8, 4, 2, 1];
/// Distances of the scan steps, in order.
const SCAN_STEPS: [u32; 5] = [1, 2, 4, 8, 16];
/// First of the two scratch slots that carry a leader's result to the block.
const BROADCAST_SLOT: usize = WARP as usize;

crate::shared_array!(
    // The emulator combines over arrays and needs no scratch space.
    #[cfg_attr(not(target_arch = "nvptx64"), allow(dead_code))]
    static DCUDA_RANK_SCRATCH: [u64; 34]
);

/// A block-wide barrier. On the GPU it is the non-aligned `barrier.sync`:
/// after a leader operation thread 0 arrives later than the other threads
/// of its warp, and the aligned `bar.sync` is undefined for such divergent
/// arrival under independent thread scheduling (it hung on an H200). In the
/// emulator one OS thread runs the whole rank, so there is nothing to wait for.
#[inline(always)]
pub(crate) fn barrier() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a barrier; the asm block is a memory clobber.
    unsafe {
        core::arch::asm!("barrier.sync 0;", options(nostack))
    };
}

/// A type that collectives can combine and move between threads.
pub trait Reducible: Copy {
    #[doc(hidden)]
    fn to_word(self) -> u64;
    #[doc(hidden)]
    fn from_word(word: u64) -> Self;
}

macro_rules! reducible {
    ($($t:ty => |$v:ident| $to:expr, |$w:ident| $from:expr;)*) => {$(
        impl Reducible for $t {
            #[inline(always)]
            fn to_word(self) -> u64 { let $v = self; $to }
            #[inline(always)]
            fn from_word($w: u64) -> Self { $from }
        }
    )*};
}

reducible! {
    u32 => |v| v as u64, |w| w as u32;
    i32 => |v| v as u32 as u64, |w| w as u32 as i32;
    f32 => |v| v.to_bits() as u64, |w| f32::from_bits(w as u32);
    u64 => |v| v, |w| w;
    i64 => |v| v as u64, |w| w as i64;
    f64 => |v| v.to_bits(), |w| f64::from_bits(w);
}

/// An associative, commutative way to combine values.
pub trait ReduceOp<T>: Copy {
    /// The value that changes nothing: `combine(identity(), x) == x`.
    fn identity() -> T;
    /// Combines two values.
    fn combine(a: T, b: T) -> T;
}

/// Sum (wrapping for integers).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sum;
/// Minimum.
#[derive(Clone, Copy, Debug, Default)]
pub struct Min;
/// Maximum.
#[derive(Clone, Copy, Debug, Default)]
pub struct Max;

macro_rules! int_ops {
    ($($t:ty),*) => {$(
        impl ReduceOp<$t> for Sum {
            fn identity() -> $t { 0 }
            fn combine(a: $t, b: $t) -> $t { a.wrapping_add(b) }
        }
        impl ReduceOp<$t> for Min {
            fn identity() -> $t { <$t>::MAX }
            fn combine(a: $t, b: $t) -> $t { if b < a { b } else { a } }
        }
        impl ReduceOp<$t> for Max {
            fn identity() -> $t { <$t>::MIN }
            fn combine(a: $t, b: $t) -> $t { if b > a { b } else { a } }
        }
    )*};
}
int_ops!(u32, i32, u64, i64);

macro_rules! float_ops {
    ($($t:ty),*) => {$(
        impl ReduceOp<$t> for Sum {
            fn identity() -> $t { 0.0 }
            fn combine(a: $t, b: $t) -> $t { a + b }
        }
        impl ReduceOp<$t> for Min {
            fn identity() -> $t { <$t>::INFINITY }
            fn combine(a: $t, b: $t) -> $t { a.min(b) }
        }
        impl ReduceOp<$t> for Max {
            fn identity() -> $t { <$t>::NEG_INFINITY }
            fn combine(a: $t, b: $t) -> $t { a.max(b) }
        }
    )*};
}
float_ops!(f32, f64);

// ---- lane exchange: the only part that differs between GPU and emulator ----

#[cfg(target_arch = "nvptx64")]
mod lanes {
    use super::Reducible;
    use core::arch::asm;

    macro_rules! shfl32 {
        ($mode:literal, $clamp:literal, $v:expr, $b:expr) => {{
            let r: u32;
            // SAFETY: all 32 lanes take part (ranks are whole warps, and
            // collectives are reached by every thread).
            unsafe {
                asm!(concat!("shfl.sync.", $mode, ".b32 {}, {}, {}, ", $clamp, ", -1;"),
                    out(reg32) r, in(reg32) $v, in(reg32) $b, options(nomem, nostack))
            };
            r
        }};
    }

    macro_rules! shfl {
        ($name:ident, $mode:literal, $clamp:literal) => {
            #[inline(always)]
            pub fn $name<T: Reducible>(v: T, b: u32) -> T {
                let w = v.to_word();
                let lo = shfl32!($mode, $clamp, w as u32, b) as u64;
                // 32-bit types carry nothing in the high half: skip its shuffle.
                let hi = if core::mem::size_of::<T>() > 4 {
                    shfl32!($mode, $clamp, (w >> 32) as u32, b) as u64
                } else {
                    0
                };
                T::from_word(lo | hi << 32)
            }
        };
    }

    shfl!(xor, "bfly", "31");
    shfl!(up, "up", "0");
    shfl!(idx, "idx", "31");
}

// ---- the collectives ----

#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn warp_reduce<T: Reducible, O: ReduceOp<T>>(mut v: T) -> T {
    for offset in BUTTERFLY {
        v = O::combine(v, lanes::xor(v, offset));
    }
    lanes::idx(v, 0)
}

#[cfg(not(target_arch = "nvptx64"))]
fn warp_reduce<T: Reducible, O: ReduceOp<T>>(lanes: &[T]) -> T {
    let mut v = [O::identity(); WARP as usize];
    v[..lanes.len()].copy_from_slice(lanes);
    for offset in BUTTERFLY {
        let old = v;
        for (lane, x) in v.iter_mut().enumerate() {
            *x = O::combine(old[lane], old[lane ^ offset as usize]);
        }
    }
    v[0]
}

#[inline(always)]
pub(super) fn reduce<T: Reducible, O: ReduceOp<T>>(
    threads: u32,
    f: impl Fn(&Thread) -> T,
    _op: O,
) -> T {
    let warps = threads / WARP;
    #[cfg(target_arch = "nvptx64")]
    {
        let t = arch::thread_idx().x;
        let partial = warp_reduce::<T, O>(f(&Thread::new(t)));
        if warps == 1 {
            return partial;
        }
        if t % WARP == 0 {
            DCUDA_RANK_SCRATCH.set((t / WARP) as usize, partial.to_word());
        }
        barrier();
        let lane = t % WARP;
        let v = if lane < warps {
            T::from_word(DCUDA_RANK_SCRATCH.get(lane as usize))
        } else {
            O::identity()
        };
        let total = warp_reduce::<T, O>(v);
        // The scratch array is reused by the next collective.
        barrier();
        total
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let mut values = std::vec::Vec::with_capacity(threads as usize);
        each_thread(threads, |t| values.push(f(t)));
        let partials: std::vec::Vec<T> = values
            .chunks(WARP as usize)
            .map(warp_reduce::<T, O>)
            .collect();
        if warps == 1 {
            return partials[0];
        }
        warp_reduce::<T, O>(&partials)
    }
}

#[inline(always)]
pub(super) fn scan<T: Reducible, O: ReduceOp<T>>(
    rank: &mut Rank,
    f: impl Fn(&Thread) -> T,
    _op: O,
) -> PerThread<T> {
    let warps = rank.threads / WARP;
    #[cfg(target_arch = "nvptx64")]
    {
        let t = arch::thread_idx().x;
        let lane = t % WARP;
        let mut v = f(&Thread::new(t));
        for d in SCAN_STEPS {
            let before = lanes::up(v, d);
            if lane >= d {
                v = O::combine(before, v);
            }
        }
        if warps > 1 {
            if lane == WARP - 1 {
                DCUDA_RANK_SCRATCH.set((t / WARP) as usize, v.to_word());
            }
            barrier();
            let warp = t / WARP;
            if warp > 0 {
                let mut prefix = T::from_word(DCUDA_RANK_SCRATCH.get(0));
                for w in 1..warp {
                    prefix = O::combine(prefix, T::from_word(DCUDA_RANK_SCRATCH.get(w as usize)));
                }
                v = O::combine(prefix, v);
            }
            barrier();
        }
        PerThread {
            value: core::cell::UnsafeCell::new(v),
        }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let mut values = rank.per_thread(f);
        let v = values.values.get_mut();
        for warp in v.chunks_mut(WARP as usize) {
            for d in SCAN_STEPS {
                let old: std::vec::Vec<T> = warp.to_vec();
                for lane in d as usize..warp.len() {
                    warp[lane] = O::combine(old[lane - d as usize], old[lane]);
                }
            }
        }
        if warps > 1 {
            let totals: std::vec::Vec<T> =
                v.chunks(WARP as usize).map(|w| w[w.len() - 1]).collect();
            for (warp, chunk) in v.chunks_mut(WARP as usize).enumerate().skip(1) {
                let mut prefix = totals[0];
                for total in &totals[1..warp] {
                    prefix = O::combine(prefix, *total);
                }
                for x in chunk {
                    *x = O::combine(prefix, *x);
                }
            }
        }
        values
    }
}

/// Runs `f` on thread 0 and gives its result to every thread, with one
/// barrier. The two broadcast slots alternate: a slot is written again only
/// two leader operations later, after every thread has passed the barrier
/// that follows its read.
#[inline(always)]
pub(crate) fn single<T: Reducible>(rank: &mut Rank, f: impl FnOnce(&Thread) -> T) -> T {
    let slot = BROADCAST_SLOT + rank.flip as usize;
    rank.flip ^= 1;
    let result = on_thread_zero(f);
    #[cfg(target_arch = "nvptx64")]
    {
        if let Some(v) = result {
            DCUDA_RANK_SCRATCH.set(slot, v.to_word());
        }
        barrier();
        T::from_word(DCUDA_RANK_SCRATCH.get(slot))
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = slot;
        result.expect("the emulator runs thread 0")
    }
}
