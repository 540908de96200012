//! Message buffers used again: a sent message's buffer comes back when its
//! send completes and a received piece's once its data is used, so that a
//! stream of large messages reuses the same memory instead of allocating
//! and zeroing a new buffer for each on both sides.

use std::sync::Mutex;

/// At most this many are kept (twice the plans' pieces in flight).
const KEEP: usize = 16;
/// Smaller buffers are not worth keeping: allocating them is cheap.
const SMALLEST: usize = 64 << 10;

/// Spare buffers, each with the length of the message it last held.
struct Spares(Mutex<Vec<Vec<u8>>>);

static SPARES: Spares = Spares(Mutex::new(Vec::new()));

impl Spares {
    fn take(&self, len: usize) -> Vec<u8> {
        if len >= SMALLEST {
            let mut spare = self.0.lock().unwrap_or_else(|e| e.into_inner());
            // The one that needs the least memory: most are the same size.
            let best = (0..spare.len())
                .filter(|&i| spare[i].capacity() >= len)
                .min_by_key(|&i| spare[i].capacity());
            if let Some(i) = best {
                let mut b = spare.swap_remove(i);
                drop(spare);
                if b.len() >= len {
                    b.truncate(len);
                } else {
                    b.resize(len, 0);
                }
                return b;
            }
        }
        vec![0u8; len]
    }

    fn give(&self, b: Vec<u8>) {
        if b.capacity() >= SMALLEST {
            let mut spare = self.0.lock().unwrap_or_else(|e| e.into_inner());
            if spare.len() < KEEP {
                spare.push(b);
            }
        }
    }
}

/// A buffer of `len` bytes. Its contents are not specified (an earlier
/// message's bytes, or zeros): the caller overwrites every byte it sends.
pub(crate) fn take(len: usize) -> Vec<u8> {
    SPARES.take(len)
}

/// Gives a buffer back for a later [`take`].
pub(crate) fn give(b: Vec<u8>) {
    SPARES.give(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back_at_the_asked_length_and_stay_bounded() {
        let s = Spares(Mutex::new(Vec::new()));
        let b = s.take(1 << 20);
        let at = b.as_ptr();
        s.give(b);
        let shorter = s.take((1 << 20) - 8);
        assert_eq!((shorter.len(), shorter.as_ptr()), ((1 << 20) - 8, at));
        s.give(shorter);
        let longer = s.take((1 << 20) + 8); // too long for the spare
        assert_eq!(longer.len(), (1 << 20) + 8);
        assert_ne!(longer.as_ptr(), at);
        assert_eq!(s.take(16), vec![0u8; 16]); // small ones are never spares
        for _ in 0..KEEP + 4 {
            s.give(vec![0u8; SMALLEST]);
        }
        assert_eq!(s.0.lock().unwrap().len(), KEEP);
    }
}
