//! Kernels that exercise each intrinsic; the host checks their results on
//! both backends (`examples/tests/intrinsics.rs`).

use dcuda_device::arch::{
    self, block_dim, block_idx, global_timer, nanosleep, sync_threads, thread_idx, Ordering, Scope,
};
use dcuda_device::{kernel, shared_array};

/// Poll loops give up after this long instead of hanging the GPU.
const TIMEOUT_NS: u64 = 10_000_000_000;
/// Written where a poll loop timed out.
pub const TIMED_OUT: u32 = 0xDEAD;

// ANCHOR: barrier
shared_array!(static TILE: [u32; 1024]);

/// Each thread writes its slot of shared memory, then (after the barrier)
/// reads its neighbour's, over several rounds; `out[block*n + t]` is the sum.
#[kernel]
pub unsafe fn block_barrier(out: *mut u32, rounds: u32) {
    let n = block_dim().x;
    let t = thread_idx().x;
    let b = block_idx().x;
    let mut sum = 0u32;
    for r in 0..rounds {
        TILE.set(t as usize, t * 7 + b * 1000 + r);
        sync_threads();
        sum = sum.wrapping_add(TILE.get(((t + 1) % n) as usize));
        sync_threads();
    }
    *out.add((b * n + t) as usize) = sum;
}

// ANCHOR_END: barrier

/// Scoped atomics from every thread of the grid:
/// * `counters[0]`: relaxed gpu-scoped add of 1;
/// * `counters[1]`: sys-scoped compare-and-swap increment loop;
/// * `counters[2]`: exchange of each thread's id; the previous values go to `previous[id]`;
/// * `counters[3]`: acq_rel gpu-scoped add whose returned tickets go to `tickets[id]`;
/// * `wide[0]`: 64-bit add of `2^32 + 1` (carries across the halves);
/// * `host_counter[0]`: sys-scoped add on mapped host memory.
#[kernel]
pub unsafe fn atomics(
    counters: *mut u32,
    wide: *mut u64,
    host_counter: *mut u32,
    previous: *mut u32,
    tickets: *mut u32,
) {
    let id = block_idx().x * block_dim().x + thread_idx().x;
    arch::fetch_add(counters, 1, Ordering::Relaxed, Scope::Gpu);
    let cas = counters.add(1);
    loop {
        let seen = arch::load_relaxed(cas, Scope::System);
        if arch::compare_exchange(cas, seen, seen + 1, Ordering::AcqRel, Scope::System) == seen {
            break;
        }
    }
    *previous.add(id as usize) = arch::swap(counters.add(2), id, Ordering::AcqRel, Scope::Gpu);
    *tickets.add(id as usize) = arch::fetch_add(counters.add(3), 1, Ordering::AcqRel, Scope::Gpu);
    arch::fetch_add(wide, (1u64 << 32) + 1, Ordering::Relaxed, Scope::Gpu);
    arch::fetch_add(host_counter, 1, Ordering::Relaxed, Scope::System);
}

// ANCHOR: handshake
/// Device and host exchange messages through mapped memory while the kernel
/// runs (one thread). Layout of `mailbox`:
/// `[0]` device→host flag, `[1]` host→device flag, `[2]` host's value,
/// `[3]` the value + 1 echoed back, `[4]` `TIMED_OUT` on time-out,
/// `[8..8+words]` data the device publishes.
#[kernel]
pub unsafe fn mapped_handshake(mailbox: *mut u32, words: u32) {
    if thread_idx().x != 0 || block_idx().x != 0 {
        return;
    }
    for i in 0..words {
        mailbox.add(8 + i as usize).write_volatile(i * 3 + 1);
    }
    arch::store_release(mailbox, 1, Scope::System);
    let start = global_timer();
    while arch::load_acquire(mailbox.add(1), Scope::System) != 1 {
        if global_timer() - start > TIMEOUT_NS {
            mailbox.add(4).write_volatile(TIMED_OUT);
            return;
        }
        nanosleep(100);
    }
    let value = mailbox.add(2).read_volatile();
    arch::store_release(mailbox.add(3), value + 1, Scope::System);
}

// ANCHOR_END: handshake

/// Block 0 writes `data[..n]`, fences at gpu scope and raises `flag`;
/// block 1 waits for the flag, fences and copies `data` to `out[..n]`;
/// `out[n]` is 0, or `TIMED_OUT`. Needs both blocks co-resident: launch
/// cooperatively with two blocks of `n` threads.
#[kernel]
pub unsafe fn message_passing(data: *mut u32, flag: *mut u32, out: *mut u32) {
    let t = thread_idx().x;
    let n = block_dim().x as usize;
    if block_idx().x == 0 {
        *data.add(t as usize) = t + 100;
        sync_threads();
        if t == 0 {
            arch::fence(Scope::Gpu);
            arch::store_relaxed(flag, 1, Scope::Gpu);
        }
    } else {
        if t == 0 {
            let start = global_timer();
            while arch::load_relaxed(flag, Scope::Gpu) != 1 {
                if global_timer() - start > TIMEOUT_NS {
                    *out.add(n) = TIMED_OUT;
                    break;
                }
                nanosleep(100);
            }
            arch::fence(Scope::Gpu);
        }
        sync_threads();
        *out.add(t as usize) = *data.add(t as usize);
    }
}

/// `out[0]` and `out[1]`: `%globaltimer` before and after sleeping until it
/// advanced; `out[2]`: how many sleeps that took (capped).
#[kernel]
pub unsafe fn timer(out: *mut u64) {
    if thread_idx().x != 0 {
        return;
    }
    let t0 = global_timer();
    let mut t1 = t0;
    let mut sleeps = 0u64;
    while t1 <= t0 && sleeps < 1_000_000 {
        nanosleep(1_000);
        sleeps += 1;
        t1 = global_timer();
    }
    *out = t0;
    *out.add(1) = t1;
    *out.add(2) = sleeps;
}

/// Panics in thread 5 of block 1: the launch must fail, not hang, even
/// though the other threads wait at a barrier.
#[kernel]
pub unsafe fn panics(out: *mut u32) {
    if block_idx().x == 1 && thread_idx().x == 5 {
        panic!("deliberate device panic");
    }
    sync_threads();
    *out.add(thread_idx().x as usize) = 1;
}
