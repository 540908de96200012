//! NVSHMEM's device API, for ranks of processes that the host reaches
//! through NVSHMEM (`DCUDA_TRANSPORT=nvshmem`).
//!
//! The functions exist in kernels built with `DCUDA_NVSHMEM_BC`
//! (`cfg(dcuda_nvshmem)`), which links NVSHMEM's device bitcode into the
//! PTX. Elsewhere (other kernels, the emulator) the host never gives a
//! window entry the NVSHMEM route, so the bodies below are unreachable and
//! end the kernel if reached.
//!
//! Addresses are symmetric: an address of this process's NVSHMEM heap,
//! which NVSHMEM translates to the same object of processing element `pe`.

/// Whether these kernels were linked with NVSHMEM's device library.
pub const LINKED: bool = cfg!(all(target_arch = "nvptx64", dcuda_nvshmem));

#[cfg(all(target_arch = "nvptx64", dcuda_nvshmem))]
mod linked {
    // The C names of NVSHMEM's device library (`nvshmem.h`, `nvshmemx.h`).
    extern "C" {
        fn nvshmemx_putmem_block(dest: *mut u8, source: *const u8, bytes: usize, pe: i32);
        fn nvshmemx_getmem_block(dest: *mut u8, source: *const u8, bytes: usize, pe: i32);
        fn nvshmem_fence();
        fn nvshmem_quiet();
        fn nvshmem_uint32_atomic_add(dest: *mut u32, value: u32, pe: i32);
        fn nvshmem_ptr(dest: *const u8, pe: i32) -> *mut u8;
    }

    pub fn ptr(dest: *const u8, pe: u32) -> *mut u8 {
        // SAFETY: an address computation; nothing is accessed.
        unsafe { nvshmem_ptr(dest, pe as i32) }
    }

    pub unsafe fn put_block(dst: *mut u8, src: *const u8, bytes: usize, pe: u32) {
        nvshmemx_putmem_block(dst, src, bytes, pe as i32);
    }

    pub unsafe fn get_block(dst: *mut u8, src: *const u8, bytes: usize, pe: u32) {
        nvshmemx_getmem_block(dst, src, bytes, pe as i32);
    }

    pub unsafe fn signal(counter: *mut u32, pe: u32) {
        nvshmem_fence();
        nvshmem_uint32_atomic_add(counter, 1, pe as i32);
    }

    pub fn quiet() {
        // SAFETY: no arguments; completes this thread's NVSHMEM operations.
        unsafe { nvshmem_quiet() }
    }
}

#[cfg(not(all(target_arch = "nvptx64", dcuda_nvshmem)))]
mod linked {
    pub fn ptr(_: *const u8, _: u32) -> *mut u8 {
        super::super::trap()
    }

    pub unsafe fn put_block(_: *mut u8, _: *const u8, _: usize, _: u32) {
        super::super::trap()
    }

    pub unsafe fn get_block(_: *mut u8, _: *const u8, _: usize, _: u32) {
        super::super::trap()
    }

    pub unsafe fn signal(_: *mut u32, _: u32) {
        super::super::trap()
    }

    pub fn quiet() {
        super::super::trap()
    }
}

/// The address here of the symmetric address `dest` of processing element
/// `pe` where this GPU can load and store it (NVLink, or the same GPU):
/// `nvshmem_ptr`, null where NVSHMEM's calls must move the data.
#[inline(always)]
pub fn ptr(dest: *const u8, pe: u32) -> *mut u8 {
    linked::ptr(dest, pe)
}

/// Copies `bytes` from `src` here to the symmetric address `dst` of
/// processing element `pe` (`nvshmemx_putmem_block`). Every thread of the
/// block calls it with the same arguments; `src` may be reused on return.
///
/// # Safety
/// `src` is readable for `bytes` bytes here; `dst` is a symmetric address
/// whose `bytes` bytes on `pe` the caller may write.
#[inline(always)]
pub unsafe fn put_block(dst: *mut u8, src: *const u8, bytes: usize, pe: u32) {
    linked::put_block(dst, src, bytes, pe)
}

/// Copies `bytes` from the symmetric address `src` of `pe` to `dst` here
/// (`nvshmemx_getmem_block`); the data is there on return. Every thread of
/// the block calls it with the same arguments.
///
/// # Safety
/// `dst` is writable for `bytes` bytes here; `src` is a symmetric address
/// readable for `bytes` bytes on `pe`.
#[inline(always)]
pub unsafe fn get_block(dst: *mut u8, src: *const u8, bytes: usize, pe: u32) {
    linked::get_block(dst, src, bytes, pe)
}

/// Adds 1 to the symmetric `counter` of `pe` after every earlier put of
/// this process to `pe` (`nvshmem_fence`, then
/// `nvshmem_uint32_atomic_add`). One thread calls it, after a barrier of
/// the block that called [`put_block`].
///
/// # Safety
/// `counter` is a symmetric address of a 4-byte aligned counter on `pe`.
#[inline(always)]
pub unsafe fn signal(counter: *mut u32, pe: u32) {
    linked::signal(counter, pe)
}

/// Waits until every NVSHMEM operation of the calling thread is complete
/// at its target (`nvshmem_quiet`).
#[inline(always)]
pub fn quiet() {
    linked::quiet()
}
