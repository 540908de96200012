//! The device side of a host round trip taken apart: the raw mapped-flag
//! round trip with the runtime's pieces added one at a time, to find what
//! the runtime's command ring costs over the raw flag.

use crate::latency::time_batches;
use dcuda_device::arch::{self, block_idx, global_timer, thread_idx, Ordering, Scope};
use dcuda_device::kernel;

/// Reserve the ring position with an atomic add on a device-memory counter
/// (the flag's value then depends on it).
pub const PART_ATOMIC: u32 = 1;
/// Write four more words (posted) before the flag's release store, as the
/// runtime's 64-byte entry is written.
pub const PART_WORDS: u32 = 2;
/// Instead of words and a flag: one system-scope release fence, then four
/// 8-byte words that each carry their sequence number in the high half
/// (NCCL's LL protocol): the host checks all four, no fence between them.
pub const PART_LL: u32 = 4;
/// All threads of the block take part: a barrier before the leader
/// signals and one after its poll succeeds, as a rank's call does.
pub const PART_BLOCK: u32 = 8;

/// The host round trip with the pieces in `parts` (the `PART_*` bits):
/// the device signals the host through `to_host` (4 words of mapped host
/// memory, as u64) and waits for `to_device` to reach `i`.
///
/// # Safety
/// `to_host` holds 4 u64, `to_device` one word, `counter` one zeroed word
/// of device memory, `out` `batches` elements.
#[kernel]
pub unsafe fn host_roundtrip_parts(
    to_host: *mut u64,
    to_device: *const u32,
    counter: *mut u32,
    parts: u32,
    batches: u32,
    iters: u32,
    out: *mut u64,
) {
    if block_idx().x != 0 {
        return;
    }
    let leader = thread_idx().x == 0;
    let block = parts & PART_BLOCK != 0;
    if !leader && !block {
        return;
    }
    time_batches((batches, iters), out, leader, |i| {
        if block {
            arch::sync_threads();
        }
        let mut ok = true;
        if leader {
            let seq = if parts & PART_ATOMIC != 0 {
                arch::fetch_add(counter, 1, Ordering::Relaxed, Scope::Gpu) + 1
            } else {
                i
            };
            if parts & PART_LL != 0 {
                arch::fence(Scope::System);
                for w in 0..4u64 {
                    let word = (seq as u64) << 32 | w;
                    arch::store_relaxed(to_host.add(w as usize), word, Scope::System);
                }
            } else {
                let words = to_host as *mut u32;
                if parts & PART_WORDS != 0 {
                    for w in 2..6 {
                        words.add(w).write_volatile(seq ^ w as u32);
                    }
                }
                arch::store_release(words, seq, Scope::System);
            }
            let start = global_timer();
            while arch::load_acquire(to_device, Scope::System) != i {
                if global_timer() - start > 10_000_000_000 {
                    // The host stopped answering: end instead of hanging
                    // (a trap where the other threads would wait for us).
                    if block {
                        arch::trap();
                    }
                    ok = false;
                    break;
                }
            }
        }
        if block {
            arch::sync_threads();
        }
        ok
    });
}
