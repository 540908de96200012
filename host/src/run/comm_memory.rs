//! The run's communicator memory: tables, barrier words, records, the
//! split exchange and the collectives' records, with the tables of the
//! world (slot 0) and the device (slot 1) filled in, so that the host reads
//! every communicator's ranks the same way.

use crate::error::Result;
use crate::memory::DeviceBuffer;
use crate::runtime::Runtime;
use dcuda_device::abi::{CommRecord, SplitEntry, MAX_COMMS, SLOT_WORDS, TABLE_SPAN};

/// Device addresses of the communicator memory, for the context.
pub(crate) struct CommAddrs {
    pub tables: u64,
    pub barriers: u64,
    pub records: u64,
    pub exchange: u64,
    pub collective_slots: u64,
}

/// The allocations, kept for the run.
pub(crate) struct CommMemory {
    tables: DeviceBuffer<u32>,
    barriers: DeviceBuffer<u32>,
    records: DeviceBuffer<u8>,
    exchange: DeviceBuffer<u8>,
    collective_slots: DeviceBuffer<u64>,
}

impl CommMemory {
    /// Allocates it for `ranks` ranks here, the first of world rank
    /// `first`, in a world whose processes start at `firsts` (one past the
    /// last at the end).
    pub fn new(rt: &Runtime, ranks: u32, first: u32, firsts: &[u32]) -> Result<CommMemory> {
        let (n, world) = (ranks as usize, *firsts.last().unwrap_or(&ranks) as usize);
        let span = TABLE_SPAN * world;
        let mut tables = vec![0u32; MAX_COMMS * span];
        // Slot 0, the world: its ranks, then each process's first rank.
        for (i, w) in tables[..world].iter_mut().enumerate() {
            *w = i as u32;
        }
        let processes = firsts.len() - 1;
        tables[world..world + processes].copy_from_slice(&firsts[..processes]);
        // Slot 1, the device: its ranks, then its first rank.
        for (i, w) in tables[span..span + n].iter_mut().enumerate() {
            *w = first + i as u32;
        }
        tables[span + n] = first;
        Ok(CommMemory {
            tables: rt.upload(&tables)?,
            barriers: rt.upload(&vec![0u32; MAX_COMMS * n])?,
            records: rt.upload(&vec![0u8; MAX_COMMS * n * size_of::<CommRecord>()])?,
            exchange: rt.upload(&vec![0u8; MAX_COMMS * world * size_of::<SplitEntry>()])?,
            collective_slots: rt.upload(&vec![0u64; MAX_COMMS * 2 * n * SLOT_WORDS])?,
        })
    }

    /// Their device addresses.
    pub fn addrs(&self) -> CommAddrs {
        CommAddrs {
            tables: self.tables.addr(),
            barriers: self.barriers.addr(),
            records: self.records.addr(),
            exchange: self.exchange.addr(),
            collective_slots: self.collective_slots.addr(),
        }
    }

    /// Bytes of device memory.
    pub fn bytes(&self) -> usize {
        self.tables.len() * 4
            + self.barriers.len() * 4
            + self.records.len()
            + self.exchange.len()
            + self.collective_slots.len() * 8
    }
}

/// The parts of the slots' tables in use on this device, given out at
/// splits and taken back when communicators are freed: first fit in each
/// slot's `TABLE_SPAN * world` entries.
pub(crate) struct CommTables {
    span: u32,
    used: Vec<Vec<(u32, u32)>>,
}

impl CommTables {
    /// Empty tables for a world of `world` ranks.
    pub fn new(world: u32) -> CommTables {
        CommTables {
            span: TABLE_SPAN as u32 * world,
            used: vec![Vec::new(); MAX_COMMS],
        }
    }

    /// The start of `len` free entries of slot `slot` (from 2), taken.
    pub fn take(&mut self, slot: u32, len: u32) -> Option<u32> {
        let used = &mut self.used[slot as usize];
        let mut start = 0u32;
        let mut at = 0;
        for (i, &(s, l)) in used.iter().enumerate() {
            if s - start >= len {
                break;
            }
            start = s + l;
            at = i + 1;
        }
        if self.span - start < len {
            return None;
        }
        used.insert(at, (start, len));
        Some(start)
    }

    /// Gives back the part `(offset, len)` of slot `slot`; false if no
    /// such part was taken.
    pub fn give_back(&mut self, slot: u32, offset: u32, len: u32) -> bool {
        let used = &mut self.used[slot as usize];
        match used.iter().position(|&p| p == (offset, len)) {
            Some(i) => {
                used.remove(i);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CommTables;

    #[test]
    fn parts_are_disjoint_and_reused() {
        let mut t = CommTables::new(4); // 16 entries a slot
        assert_eq!(t.take(2, 6), Some(0));
        assert_eq!(t.take(2, 6), Some(6));
        assert_eq!(t.take(2, 6), None);
        assert_eq!(t.take(2, 4), Some(12));
        assert!(t.give_back(2, 0, 6));
        assert!(!t.give_back(2, 0, 6));
        assert_eq!(t.take(2, 5), Some(0));
        assert_eq!(t.take(2, 1), Some(5));
        assert_eq!(t.take(3, 16), Some(0));
    }
}
