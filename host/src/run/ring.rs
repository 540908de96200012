//! Reading the command ring: an entry has arrived when each of its words
//! carries the entry's sequence number (`dcuda_device::abi::ring`).

use dcuda_device::abi::ring::{command_of, ll_data, ENTRY_WORDS};
use dcuda_device::abi::{Command, RingEntry};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long the words of an entry whose first word arrived may take: the
/// rank writes them one after the other, so anything longer means it died
/// in the middle.
const REST_OF_ENTRY: Duration = Duration::from_secs(1);

/// The ring in pinned host memory, as the host reads it.
pub(super) struct Ring {
    entries: *const RingEntry,
    mask: u32,
}

impl Ring {
    /// The ring at `entries` (host address) of `len` entries, a power of 2.
    ///
    /// # Safety
    /// `entries` holds `len` entries for as long as the `Ring` is used.
    pub unsafe fn new(entries: *const RingEntry, len: u32) -> Ring {
        debug_assert!(len.is_power_of_two());
        Ring {
            entries,
            mask: len - 1,
        }
    }

    /// The word `i` of position `pos`'s entry if it carries `pos + 1`.
    fn word(&self, pos: u32, i: usize) -> Option<u32> {
        // SAFETY: in the ring (`new`'s contract); the device writes whole
        // aligned 8-byte words.
        let word = unsafe {
            let e = self.entries.add((pos & self.mask) as usize);
            AtomicU64::from_ptr(&raw const (*e).words[i] as *mut u64).load(Ordering::Acquire)
        };
        ll_data(word, pos.wrapping_add(1))
    }

    /// The command at `pos` once it has arrived; `Ok(None)` while its first
    /// word has not. An entry whose other words do not follow, or whose
    /// length is out of range, is an error: the rank in its first word, and
    /// what is wrong.
    pub fn take(&self, pos: u32) -> Result<Option<Command>, (u32, String)> {
        let Some(first) = self.word(pos, 0) else {
            return Ok(None);
        };
        let mut words = [0u32; ENTRY_WORDS];
        words[0] = first;
        let started = Instant::now();
        let mut i = 1;
        let mut used = ENTRY_WORDS;
        while i < used {
            match self.word(pos, i) {
                Some(w) => {
                    words[i] = w;
                    if i == 2 {
                        let len = w as usize;
                        if len > Command::PAYLOAD {
                            let reason = format!("ring entry {pos}: payload length {len}");
                            return Err((first, reason));
                        }
                        used = 4 + len.div_ceil(4);
                    }
                    i += 1;
                }
                None if started.elapsed() > REST_OF_ENTRY => {
                    let reason = format!(
                        "ring entry {pos}: word {i} did not arrive within {REST_OF_ENTRY:?}"
                    );
                    return Err((first, reason));
                }
                None => std::hint::spin_loop(),
            }
        }
        Ok(Some(command_of(pos, &words)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcuda_device::abi::ring::ll_word;

    /// A ring of 2 entries with position `pos`'s first `n` words written
    /// for `data` (rank, op, len, arg, payload).
    fn ring_with(pos: u32, data: &[u32], n: usize) -> Vec<RingEntry> {
        let mut entries = vec![bytemuck::Zeroable::zeroed(); 2];
        let e: &mut RingEntry = &mut entries[(pos & 1) as usize];
        for (i, d) in data.iter().take(n).enumerate() {
            e.words[i] = ll_word(pos + 1, *d);
        }
        entries
    }

    #[test]
    fn an_entry_is_read_once_all_its_words_carry_its_position() {
        let data = [3, 1, 6, 9, 0x0403_0201, 0x0605];
        let entries = ring_with(5, &data, data.len());
        // SAFETY: the vector outlives the ring.
        let ring = unsafe { Ring::new(entries.as_ptr(), 2) };
        assert!(
            ring.take(4).unwrap().is_none(),
            "position 4 was never written"
        );
        assert!(
            ring.take(7).unwrap().is_none(),
            "an older lap's words do not count"
        );
        let cmd = ring.take(5).unwrap().expect("written");
        assert_eq!(
            (cmd.seq, cmd.rank, cmd.op, cmd.len, cmd.arg),
            (6, 3, 1, 6, 9)
        );
        assert_eq!(cmd.payload[..6], [1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn a_bad_length_or_a_missing_word_is_an_error_naming_the_rank() {
        let entries = ring_with(0, &[2, 1, 33, 0], 4);
        // SAFETY: the vector outlives the ring.
        let ring = unsafe { Ring::new(entries.as_ptr(), 2) };
        let (rank, reason) = ring.take(0).unwrap_err();
        assert_eq!(rank, 2);
        assert!(reason.contains("payload length 33"), "{reason}");

        let entries = ring_with(0, &[2, 1, 8, 0, 7], 5);
        // SAFETY: as above.
        let ring = unsafe { Ring::new(entries.as_ptr(), 2) };
        let (rank, reason) = ring.take(0).unwrap_err();
        assert_eq!(rank, 2);
        assert!(reason.contains("word 5 did not arrive"), "{reason}");
    }
}
