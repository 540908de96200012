//! The nvptx64 backend: each intrinsic is inline PTX.
//!
//! Memory operations use generic addressing (no `.global` state space), so
//! they are correct for device memory and for mapped host memory alike.

use super::{AtomicWord, Dim3, Ordering, Scope};
use core::arch::asm;

macro_rules! special_register {
    ($name:expr) => {{
        let r: u32;
        // SAFETY: reading a special register has no side effects.
        unsafe {
            asm!(concat!("mov.u32 {}, ", $name, ";"), out(reg32) r, options(pure, nomem, nostack))
        };
        r
    }};
}

macro_rules! dim3 {
    ($reg:literal) => {
        Dim3 {
            x: special_register!(concat!($reg, ".x")),
            y: special_register!(concat!($reg, ".y")),
            z: special_register!(concat!($reg, ".z")),
        }
    };
}

#[inline(always)]
pub fn thread_idx() -> Dim3 {
    dim3!("%tid")
}
#[inline(always)]
pub fn block_idx() -> Dim3 {
    dim3!("%ctaid")
}
#[inline(always)]
pub fn block_dim() -> Dim3 {
    dim3!("%ntid")
}
#[inline(always)]
pub fn grid_dim() -> Dim3 {
    dim3!("%nctaid")
}

/// Waits until all 32 threads of the calling warp have come here, so that
/// they go on as one (`bar.warp.sync` over the whole warp). Every thread of
/// the warp must call it, and the warp must be whole: a rank's are (the
/// launcher refuses a rank of part of a warp).
#[inline(always)]
pub(crate) fn warp_converge() {
    // SAFETY: a warp barrier over the whole warp; a memory clobber.
    unsafe { asm!("bar.warp.sync -1;", options(nostack)) }
}

#[inline(always)]
pub fn sync_threads() {
    // SAFETY: a barrier; the asm block is a memory clobber so no access moves across it.
    unsafe { asm!("bar.sync 0;", options(nostack)) }
}

/// Expands to one `asm!` per scope, with the scope's PTX name spliced between
/// `pre` and `post`. With a constant scope, inlining leaves one instruction.
macro_rules! asm_scoped {
    ($scope:expr, [$($pre:expr),*], [$($post:expr),*], $($ops:tt)*) => {
        match $scope {
            Scope::Block => asm!(concat!($($pre,)* "cta", $($post),*), $($ops)*),
            Scope::Gpu => asm!(concat!($($pre,)* "gpu", $($post),*), $($ops)*),
            Scope::System => asm!(concat!($($pre,)* "sys", $($post),*), $($ops)*),
        }
    };
}

/// As [`asm_scoped`], with the ordering's PTX `.sem` spliced in first.
macro_rules! asm_sem_scoped {
    ($order:expr, $scope:expr, [$($pre:expr),*], [$($post:expr),*], $($ops:tt)*) => {
        match $order {
            Ordering::Relaxed => asm_scoped!($scope, [$($pre,)* "relaxed."], [$($post),*], $($ops)*),
            Ordering::Acquire => asm_scoped!($scope, [$($pre,)* "acquire."], [$($post),*], $($ops)*),
            Ordering::Release => asm_scoped!($scope, [$($pre,)* "release."], [$($post),*], $($ops)*),
            Ordering::AcqRel => asm_scoped!($scope, [$($pre,)* "acq_rel."], [$($post),*], $($ops)*),
        }
    };
}

#[inline(always)]
pub fn fence_acq_rel(scope: Scope) {
    // SAFETY: a fence has no operands.
    unsafe { asm_scoped!(scope, ["fence.acq_rel."], [";"], options(nostack)) }
}

#[inline(always)]
pub fn fence_sc(scope: Scope) {
    // SAFETY: a fence has no operands.
    unsafe { asm_scoped!(scope, ["fence.sc."], [";"], options(nostack)) }
}

macro_rules! impl_atomic_word {
    ($t:ty, $reg:ident, $u:literal, $b:literal) => {
        impl AtomicWord for $t {
            #[inline(always)]
            unsafe fn load_relaxed(ptr: *const Self, scope: Scope) -> Self {
                let v: $t;
                asm_scoped!(scope, ["ld.relaxed."], [".", $u, " {}, [{}];"], out($reg) v, in(reg64) ptr, options(nostack));
                v
            }
            #[inline(always)]
            unsafe fn load_acquire(ptr: *const Self, scope: Scope) -> Self {
                let v: $t;
                asm_scoped!(scope, ["ld.acquire."], [".", $u, " {}, [{}];"], out($reg) v, in(reg64) ptr, options(nostack));
                v
            }
            #[inline(always)]
            unsafe fn store_relaxed(ptr: *mut Self, value: Self, scope: Scope) {
                asm_scoped!(scope, ["st.relaxed."], [".", $u, " [{}], {};"], in(reg64) ptr, in($reg) value, options(nostack));
            }
            #[inline(always)]
            unsafe fn store_release(ptr: *mut Self, value: Self, scope: Scope) {
                asm_scoped!(scope, ["st.release."], [".", $u, " [{}], {};"], in(reg64) ptr, in($reg) value, options(nostack));
            }
            #[inline(always)]
            unsafe fn fetch_add(ptr: *mut Self, value: Self, order: Ordering, scope: Scope) -> Self {
                let old: $t;
                asm_sem_scoped!(order, scope, ["atom."], [".add.", $u, " {}, [{}], {};"], out($reg) old, in(reg64) ptr, in($reg) value, options(nostack));
                old
            }
            #[inline(always)]
            unsafe fn add(ptr: *mut Self, value: Self, order: Ordering, scope: Scope) {
                // PTX's `red` has relaxed and release semantics only; an
                // acquiring order needs `atom`.
                match order {
                    Ordering::Relaxed => asm_scoped!(scope, ["red.relaxed."], [".add.", $u, " [{}], {};"], in(reg64) ptr, in($reg) value, options(nostack)),
                    Ordering::Release => asm_scoped!(scope, ["red.release."], [".add.", $u, " [{}], {};"], in(reg64) ptr, in($reg) value, options(nostack)),
                    Ordering::Acquire | Ordering::AcqRel => {
                        Self::fetch_add(ptr, value, order, scope);
                    }
                }
            }
            #[inline(always)]
            unsafe fn swap(ptr: *mut Self, value: Self, order: Ordering, scope: Scope) -> Self {
                let old: $t;
                asm_sem_scoped!(order, scope, ["atom."], [".exch.", $b, " {}, [{}], {};"], out($reg) old, in(reg64) ptr, in($reg) value, options(nostack));
                old
            }
            #[inline(always)]
            unsafe fn compare_exchange(ptr: *mut Self, current: Self, new: Self, order: Ordering, scope: Scope) -> Self {
                let old: $t;
                asm_sem_scoped!(order, scope, ["atom."], [".cas.", $b, " {}, [{}], {}, {};"], out($reg) old, in(reg64) ptr, in($reg) current, in($reg) new, options(nostack));
                old
            }
        }
    };
}

impl_atomic_word!(u32, reg32, "u32", "b32");
impl_atomic_word!(u64, reg64, "u64", "b64");

#[inline(always)]
pub fn nanosleep(ns: u32) {
    // SAFETY: no memory operands.
    unsafe { asm!("nanosleep.u32 {};", in(reg32) ns, options(nomem, nostack)) }
}

#[inline(always)]
pub fn sqrt(x: f64) -> f64 {
    let r: f64;
    // SAFETY: registers only.
    unsafe {
        asm!("sqrt.rn.f64 {}, {};", out(reg64) r, in(reg64) x, options(pure, nomem, nostack))
    };
    r
}

#[inline(always)]
pub fn opaque(x: f64) -> f64 {
    let r: f64;
    // SAFETY: registers only; `pure` lets equal calls merge, nothing more.
    unsafe { asm!("mov.b64 {}, {};", out(reg64) r, in(reg64) x, options(pure, nomem, nostack)) };
    r
}

#[inline(always)]
pub fn global_timer() -> u64 {
    let t: u64;
    // SAFETY: reads a special register; not `pure`, since it changes.
    unsafe { asm!("mov.u64 {}, %globaltimer;", out(reg64) t, options(nomem, nostack)) };
    t
}

#[inline(always)]
pub fn is_global(ptr: *const u8) -> bool {
    let r: u32;
    // SAFETY: only classifies the address.
    unsafe {
        asm!(
            "{{ .reg .pred p; isspacep.global p, {a}; selp.u32 {r}, 1, 0, p; }}",
            a = in(reg64) ptr as u64,
            r = out(reg32) r,
            options(pure, nomem, nostack)
        )
    };
    r != 0
}

#[inline(always)]
pub fn exit_thread() -> ! {
    // SAFETY: ends this thread.
    unsafe { asm!("exit;", options(noreturn, nostack)) }
}

#[inline(always)]
pub fn trap() -> ! {
    // SAFETY: ends the kernel.
    unsafe { asm!("trap;", options(noreturn, nostack)) }
}

/// Loads 16 bytes with one vector load (`ld.v4.u32`, generic address).
///
/// # Safety
/// `p` must be valid for 16 bytes and 16-byte aligned.
#[inline(always)]
pub(crate) unsafe fn load_v4(p: *const u8) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    asm!(
        "ld.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
        p = in(reg64) p,
        a = out(reg32) a,
        b = out(reg32) b,
        c = out(reg32) c,
        d = out(reg32) d,
        options(nostack, readonly, preserves_flags)
    );
    [a, b, c, d]
}

/// Asks for the line at `p` in L1 (`prefetch.L1`, generic address)
/// without waiting for it.
///
/// # Safety
/// `p` must be valid for reads.
#[inline(always)]
pub(crate) unsafe fn prefetch_l1(p: *const u8) {
    asm!(
        "prefetch.L1 [{p}];",
        p = in(reg64) p,
        options(nostack, readonly, preserves_flags)
    );
}

/// Stores 16 bytes with one vector store (`st.v4.u32`, generic address).
///
/// # Safety
/// `p` must be valid for 16 bytes and 16-byte aligned.
#[inline(always)]
pub(crate) unsafe fn store_v4(p: *mut u8, v: [u32; 4]) {
    asm!(
        "st.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}};",
        p = in(reg64) p,
        a = in(reg32) v[0],
        b = in(reg32) v[1],
        c = in(reg32) v[2],
        d = in(reg32) v[3],
        options(nostack, preserves_flags)
    );
}

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

/// One warp shuffle of a 32-bit word.
#[inline(always)]
fn shuffle_word(w: u32, mode: super::block::Shuffle) -> u32 {
    use super::block::Shuffle;
    match mode {
        Shuffle::Xor(m) => shfl32!("bfly", "31", w, m),
        Shuffle::Up(d) => shfl32!("up", "0", w, d),
        Shuffle::Index(l) => shfl32!("idx", "31", w, l),
    }
}

/// A warp shuffle of a value of up to 8 bytes; 32-bit values carry nothing
/// in the high half, whose shuffle is skipped.
#[inline(always)]
pub(crate) fn shuffle<T: super::block::LaneWord>(v: T, mode: super::block::Shuffle) -> T {
    let w = v.to_word();
    let lo = shuffle_word(w as u32, mode) as u64;
    let hi = if T::NARROW {
        0
    } else {
        shuffle_word((w >> 32) as u32, mode) as u64
    };
    T::from_word(lo | hi << 32)
}

/// The block copy's body for thread `t` of `n`: 16-byte vectors in the
/// equally aligned middle, bytes around it; words or bytes otherwise.
///
/// Not inlined: a function of its own keeps the copy loop's registers out
/// of the rank kernel's allocation (inlined at every put, the two vectors
/// in flight made a step of Aliev-Panfilov's tiny grid 58% slower under
/// its 64-register cap, though no copy runs there).
///
/// # Safety
/// As [`super::block::copy`].
#[inline(never)]
pub(crate) unsafe fn block_copy(dst: *mut u8, src: *const u8, bytes: usize, t: usize, n: usize) {
    // A warp split by a leader's turn would copy its share twice as slowly.
    warp_converge();
    let (d, s) = (dst as usize, src as usize);
    if d % 16 == s % 16 {
        let head = ((16 - d % 16) % 16).min(bytes);
        let body = (bytes - head) / 16;
        let tail = head + body * 16;
        copy_strided(dst, src, head, t, n);
        copy_vectors(dst.add(head), src.add(head), body, t, n);
        copy_strided(dst.add(tail), src.add(tail), bytes - tail, t, n);
    } else if (d | s | bytes) % 4 == 0 {
        copy_strided(dst as *mut u32, src as *const u32, bytes / 4, t, n);
    } else {
        copy_strided(dst, src, bytes, t, n);
    }
}

/// Copies `len` 16-byte vectors with explicit `ld.v4`/`st.v4` (a 16-byte
/// Rust value is moved through local memory on this LLVM), two in flight
/// per thread: one rank's copy is bound by the bytes it has in flight, and
/// with one vector a 128-thread rank reached 58% of a raw copy loop with
/// four 8-byte words in flight (H100, 1 MiB: 11.0 against 18.8 GB/s).
/// Four were measured on H200s to raise registers enough to cut the ranks
/// that fit (1188 to 924) and were no faster with many ranks
/// (`bench/results/2026-11-22-world-h200x2`).
#[inline(always)]
unsafe fn copy_vectors(dst: *mut u8, src: *const u8, len: usize, first: usize, stride: usize) {
    let mut i = first;
    while i + stride < len {
        let (a, b) = (
            load_v4(src.add(i * 16)),
            load_v4(src.add((i + stride) * 16)),
        );
        store_v4(dst.add(i * 16), a);
        store_v4(dst.add((i + stride) * 16), b);
        i += 2 * stride;
    }
    if i < len {
        store_v4(dst.add(i * 16), load_v4(src.add(i * 16)));
    }
}

#[inline(always)]
unsafe fn copy_strided<U: Copy>(
    dst: *mut U,
    src: *const U,
    len: usize,
    first: usize,
    stride: usize,
) {
    let mut i = first;
    while i < len {
        dst.add(i).write(src.add(i).read());
        i += stride;
    }
}
