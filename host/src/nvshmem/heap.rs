//! The parts of NVSHMEM's symmetric heap that this process hands out as its
//! device allocations: first fit over the free ranges, neighbours merged
//! when freed. Offsets are from the heap's base; NVSHMEM translates a
//! symmetric address to the same offset of another process's heap, so a
//! peer learns an allocation by its offset.

use std::collections::BTreeMap;

/// Every part starts at this alignment, as `cuMemAlloc`'s do.
pub(crate) const ALIGN: u64 = 256;

/// Free ranges of a heap of `len` bytes: start → length.
#[derive(Debug)]
pub(crate) struct Parts {
    len: u64,
    free: BTreeMap<u64, u64>,
    used: BTreeMap<u64, u64>,
}

impl Parts {
    /// A heap of `len` bytes, all free.
    pub fn new(len: u64) -> Parts {
        let len = len - len % ALIGN;
        let free = if len > 0 {
            BTreeMap::from([(0, len)])
        } else {
            BTreeMap::new()
        };
        Parts {
            len,
            free,
            used: BTreeMap::new(),
        }
    }

    /// The heap's length.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Bytes handed out now.
    pub fn in_use(&self) -> u64 {
        self.used.values().sum()
    }

    /// The offset of a part of `bytes` (rounded up to [`ALIGN`], at least
    /// one unit), or `None` when no free range holds it.
    pub fn take(&mut self, bytes: u64) -> Option<u64> {
        let size = bytes.max(1).checked_next_multiple_of(ALIGN)?;
        let (&start, &len) = self.free.iter().find(|(_, &len)| len >= size)?;
        self.free.remove(&start);
        if len > size {
            self.free.insert(start + size, len - size);
        }
        self.used.insert(start, size);
        Some(start)
    }

    /// Returns the part at `offset`; false if no part starts there.
    pub fn give_back(&mut self, offset: u64) -> bool {
        let Some(mut size) = self.used.remove(&offset) else {
            return false;
        };
        let mut start = offset;
        if let Some((&before, &len)) = self.free.range(..offset).next_back() {
            if before + len == offset {
                self.free.remove(&before);
                start = before;
                size += len;
            }
        }
        if let Some(len) = self.free.remove(&(start + size)) {
            size += len;
        }
        self.free.insert(start, size);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parts_are_aligned_and_reused_after_merging() {
        let mut p = Parts::new(4096);
        let a = p.take(10).unwrap();
        let b = p.take(300).unwrap();
        let c = p.take(256).unwrap();
        assert_eq!((a, b, c), (0, 256, 768));
        assert!(p.take(4096).is_none(), "larger than what is free");
        assert!(p.give_back(b) && p.give_back(a));
        assert!(!p.give_back(a), "a part is given back once");
        // 0..768 is one free range again.
        assert_eq!(p.take(768), Some(0));
        assert_eq!(p.in_use(), 768 + 256);
    }

    #[test]
    fn an_empty_heap_gives_nothing() {
        let mut p = Parts::new(100);
        assert_eq!(p.len(), 0);
        assert!(p.take(1).is_none());
        assert!(p.take(u64::MAX).is_none());
    }

    proptest! {
        /// Parts never overlap, stay inside the heap, and every byte is
        /// free again once all are given back.
        #[test]
        fn parts_never_overlap(ops in proptest::collection::vec((0u64..3000, any::<bool>()), 1..60)) {
            let mut p = Parts::new(64 * 1024);
            let mut live: Vec<(u64, u64)> = Vec::new();
            for (bytes, free) in ops {
                if free && !live.is_empty() {
                    let (at, _) = live.remove(bytes as usize % live.len());
                    prop_assert!(p.give_back(at));
                } else if let Some(at) = p.take(bytes) {
                    prop_assert_eq!(at % ALIGN, 0);
                    prop_assert!(at + bytes <= p.len());
                    for &(o, n) in &live {
                        prop_assert!(at + bytes.max(1) <= o || o + n.max(1) <= at);
                    }
                    live.push((at, bytes));
                }
            }
            for (at, _) in live {
                prop_assert!(p.give_back(at));
            }
            prop_assert_eq!(p.take(64 * 1024), Some(0));
        }
    }
}
