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
