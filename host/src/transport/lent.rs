//! Memory lent to a transport for one message, so that large data goes
//! between the network and memory the GPU's copies reach (pinned host
//! memory) without a copy through a heap buffer on either side.

use std::ops::Deref;

/// Bytes lent for one message. A transport reads them until the send
/// completes ([`Transport::send_lent`]), or receives into them
/// ([`Transport::try_recv_lent`]); dropping them gives them back to their
/// owner.
///
/// [`Transport::send_lent`]: super::Transport::send_lent
/// [`Transport::try_recv_lent`]: super::Transport::try_recv_lent
pub trait Lent: Send {
    /// The message's bytes.
    fn bytes(&self) -> &[u8];
    /// The same, to receive into.
    fn bytes_mut(&mut self) -> &mut [u8];
    /// Their address for the GPU's copies, where the GPU maps them.
    fn mapped(&self) -> Option<u64> {
        None
    }
}

/// A received message's bytes: a heap buffer of the transport's, or the
/// memory the receiver lent for it.
pub enum Received {
    /// A heap buffer (give it back with the transport's buffer pool).
    Owned(Vec<u8>),
    /// Lent memory, holding exactly the message.
    Lent(Box<dyn Lent>),
}

impl Received {
    /// The lent memory's address for the GPU's copies, if it has one.
    pub fn mapped(&self) -> Option<u64> {
        match self {
            Received::Owned(_) => None,
            Received::Lent(l) => l.mapped(),
        }
    }

    /// Where a received message of `len` bytes is written: into `lent`
    /// only where the slice it gives to be written (its pointer and length
    /// from one call) is exactly `len` long, else into a heap buffer of the
    /// pool. Moving a box or a vector moves no bytes, so the pointer stays
    /// good for as long as the returned value lives.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn landing(mut lent: Option<Box<dyn Lent>>, len: usize) -> (Received, *mut u8) {
        let slot = lent.as_mut().map(|l| {
            let b = l.bytes_mut();
            (b.len(), b.as_mut_ptr())
        });
        match (lent, slot) {
            (Some(l), Some((n, at))) if n == len => (Received::Lent(l), at),
            _ => {
                let mut v = super::buffers::take(len);
                let at = v.as_mut_ptr();
                (Received::Owned(v), at)
            }
        }
    }
}

impl Deref for Received {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Received::Owned(v) => v,
            Received::Lent(l) => l.bytes(),
        }
    }
}

/// A message in flight: the buffer a send reads until it completes.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) enum Outgoing {
    Owned(Vec<u8>),
    Lent(Box<dyn Lent>),
}

#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
impl Outgoing {
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Outgoing::Owned(v) => v,
            Outgoing::Lent(l) => l.bytes(),
        }
    }

    /// Gives the buffer back: a heap one to the pool, lent memory to its
    /// owner.
    pub(crate) fn done(self) {
        if let Outgoing::Owned(v) = self {
            super::buffers::give(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Lent, Received};

    /// Lends `give` bytes to be written whatever it holds: a lender whose
    /// two views disagree, as a faulty one's might.
    struct Odd {
        held: Vec<u8>,
        give: usize,
    }

    impl Lent for Odd {
        fn bytes(&self) -> &[u8] {
            &self.held
        }
        fn bytes_mut(&mut self) -> &mut [u8] {
            &mut self.held[..self.give]
        }
    }

    fn odd(held: usize, give: usize) -> Option<Box<dyn Lent>> {
        Some(Box::new(Odd {
            held: vec![0; held],
            give,
        }))
    }

    fn lands_in_lent(lent: Option<Box<dyn Lent>>, len: usize) -> bool {
        let (r, at) = Received::landing(lent, len);
        match &r {
            Received::Lent(_) => true,
            Received::Owned(v) => {
                assert_eq!(v.len(), len, "a heap buffer of the message's length");
                assert_eq!(at, v.as_ptr() as *mut u8, "written where it is held");
                false
            }
        }
    }

    #[test]
    fn lent_memory_takes_only_a_message_of_its_length() {
        assert!(lands_in_lent(odd(64, 64), 64));
        assert!(!lands_in_lent(odd(64, 64), 65), "too short");
        assert!(!lands_in_lent(odd(64, 64), 63), "too long");
        assert!(!lands_in_lent(None, 64), "nothing lent");
    }

    #[test]
    fn the_length_is_the_writable_slices() {
        // `bytes` would fit; the slice given to be written would not.
        assert!(!lands_in_lent(odd(128, 32), 128));
        assert!(lands_in_lent(odd(128, 32), 32));
    }
}
