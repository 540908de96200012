//! The NVSHMEM route (`DCUDA_TRANSPORT=nvshmem`): every process's memory is
//! a part of its symmetric heap, so a peer's window or counters are reached
//! at the same offset of this process's heap, which NVSHMEM translates.
//! Offsets from other processes are checked against the heap, like the
//! direct route's IPC offsets against the mapped allocation.

use super::message::{Setup, SharedEntry};
use super::setup::peer_error;
use super::World;
use crate::error::Result;
use crate::nvshmem::Symmetric;
use dcuda_device::abi::{PE_CALLS, TAGS};

/// The address here of every process's notification counters in its
/// symmetric heap (0 for this process and without NVSHMEM). Every process
/// took a heap of one size, or none.
pub(super) fn peer_counters(
    me: usize,
    mine: Option<Symmetric>,
    setups: &[Setup],
) -> Result<Vec<u64>> {
    let mut at = vec![0; setups.len()];
    let Some(heap) = mine else {
        return Ok(at);
    };
    for (p, s) in setups.iter().enumerate().filter(|&(p, _)| p != me) {
        let Some((len, offset)) = s.symmetric else {
            let why = format!("process {me} runs with NVSHMEM and process {p} without: every process of the job starts it, or none");
            return Err(peer_error("setup", why));
        };
        if len != heap.len {
            let why = format!("process {p}'s NVSHMEM heap has {len} bytes and process {me}'s {}: set DCUDA_NVSHMEM_HEAP_MIB alike in every process", heap.len);
            return Err(peer_error("setup", why));
        }
        let bytes = (s.ranks as usize * TAGS as usize * 4) as u64;
        at[p] = heap.offset_of(heap.base + offset, bytes).map(|o| heap.base + o).ok_or_else(|| {
            peer_error("setup", format!("process {p} sent its notification counters at offset {offset} of its NVSHMEM heap of {len} bytes"))
        })?;
    }
    Ok(at)
}

/// [`PE_CALLS`] where NVSHMEM runs and `DCUDA_NVSHMEM_CALLS=1` asks for
/// NVSHMEM's calls even to peers it maps.
pub(super) fn nvshmem_calls(mine: Option<Symmetric>) -> Result<u32> {
    let asked = crate::config::NVSHMEM_CALLS.switch()?.unwrap_or(false);
    Ok(if asked && mine.is_some() { PE_CALLS } else { 0 })
}

/// The part of this process's heap that a setup names for its counters:
/// their offset, or `None` without NVSHMEM.
pub(super) fn own_counters(
    mine: Option<Symmetric>,
    counters: u64,
    ranks: u32,
) -> Result<Option<(u64, u64)>> {
    let Some(heap) = mine else {
        return Ok(None);
    };
    let bytes = (ranks as usize * TAGS as usize * 4) as u64;
    match heap.offset_of(counters, bytes) {
        Some(offset) => Ok(Some((heap.len, offset))),
        None => Err(peer_error(
            "setup",
            format!(
                "the notification counters at {counters:#x} are not in NVSHMEM's heap at {:#x}",
                heap.base
            ),
        )),
    }
}

impl World {
    /// The symmetric address here of process `p`'s entry `e` of window
    /// `id`, where the NVSHMEM route reaches it; `None` otherwise (no
    /// NVSHMEM, or an entry without memory).
    pub(super) fn symmetric_address(
        &self,
        p: usize,
        id: u32,
        e: &SharedEntry,
    ) -> Result<Option<u64>> {
        let Some(heap) = self.symmetric else {
            return Ok(None);
        };
        if self.symmetric_counters.get(p).is_none_or(|&c| c == 0) {
            return Ok(None);
        }
        let Some(offset) = e.symmetric else {
            if e.entry.live != 0 && e.entry.bytes > 0 {
                tracing::warn!(target: "dcuda", "process {}: window {id} of process {p} is not in NVSHMEM's heap (allocate it with Runtime::alloc); accesses to it go through MPI", self.me());
            }
            return Ok(None);
        };
        match heap.offset_of(heap.base + offset, e.entry.bytes) {
            Some(o) => Ok(Some(heap.base + o)),
            None => Err(peer_error(
                "window exchange",
                format!("process {p} sent window {id}: {} bytes at offset {offset} of its NVSHMEM heap of {} bytes", e.entry.bytes, heap.len),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(ranks: u32, symmetric: Option<(u64, u64)>) -> Setup {
        Setup {
            ranks,
            node: 0,
            traced: false,
            pci: String::new(),
            counters: None,
            symmetric,
        }
    }

    #[test]
    fn peers_counters_are_found_at_their_offset_of_this_heap() {
        let heap = Symmetric {
            base: 1 << 40,
            len: 1 << 20,
            pe: 0,
        };
        let setups = [
            setup(4, Some((1 << 20, 0))),
            setup(2, Some((1 << 20, 8192))),
        ];
        let at = peer_counters(0, Some(heap), &setups).unwrap();
        assert_eq!(at, vec![0, (1 << 40) + 8192]);
        assert_eq!(peer_counters(0, None, &setups).unwrap(), vec![0, 0]);
    }

    #[test]
    fn mismatched_heaps_and_offsets_past_the_heap_are_refused() {
        let heap = Symmetric {
            base: 4096,
            len: 1 << 20,
            pe: 1,
        };
        let other = [setup(1, Some((1 << 21, 0))), setup(1, Some((1 << 20, 0)))];
        let e = peer_counters(1, Some(heap), &other)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("process 0's NVSHMEM heap has 2097152 bytes and process 1's 1048576"),
            "{e}"
        );
        let past = [setup(1, Some((1 << 20, (1 << 20) - 4))), setup(1, None)];
        let e = peer_counters(1, Some(heap), &past).unwrap_err().to_string();
        assert!(
            e.contains("process 0 sent its notification counters at offset 1048572"),
            "{e}"
        );
        let without = [setup(1, None), setup(1, None)];
        let e = peer_counters(1, Some(heap), &without)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("every process of the job starts it, or none"),
            "{e}"
        );
    }
}
