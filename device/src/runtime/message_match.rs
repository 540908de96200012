//! What a receive or probe asks for ([`Wanted`], with where its source's
//! messages can wait: [`Origin`]) and what a search of a rank's stores
//! finds ([`Found`]); `message_logs` says how the search goes.

use super::matching::Source;
use super::message_small::{inline_words, Words};
use crate::abi::MessageRecord;

/// A message a search found: its found word, its payload's length and
/// its first inline words, loaded with its header so that a receive needs
/// no second look.
#[derive(Clone, Copy)]
pub(super) struct Found {
    pub word: u32,
    pub bytes: u64,
    pub small: Words,
}

impl Found {
    /// One word for the leader's broadcast: the found word, and the length
    /// above it when it fits in 32 bits (`u32::MAX` when it does not).
    #[inline(always)]
    pub fn packed(self) -> u64 {
        let bytes = self.bytes.min(u32::MAX as u64);
        self.word as u64 | bytes << 32
    }

    /// The found word and, if it fitted, the length of a packed `Found`.
    #[inline(always)]
    pub fn unpack(packed: u64) -> (u32, Option<u64>) {
        let bytes = packed >> 32;
        (packed as u32, (bytes != u32::MAX as u64).then_some(bytes))
    }
}

/// The messages a receive accepts.
#[derive(Clone, Copy)]
pub(super) struct Wanted {
    pub context: u32,
    pub source: Source,
    pub tag: Option<u32>,
    /// Where a message from its source can be.
    pub origin: Origin,
}

/// Where the messages of a receive's source can wait: a search looks
/// there only, so a receive from a mapped GPU's rank polls one peer log
/// and not every store.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Origin {
    /// Any source: every store.
    Any,
    /// A rank of this device: the message log and the envelope list.
    Device,
    /// A rank of a mapped GPU: its process's peer log (this index), then
    /// the inbox.
    Peer(u32),
    /// A rank of another process without a peer log here: the inbox.
    Hosts,
}

impl Wanted {
    /// Whether `w` accepts the record `r` points to, its length and its
    /// first inline words. Every header word is loaded before any is
    /// tested, so that the loads travel together: short-circuit tests made
    /// them a chain.
    ///
    /// # Safety
    /// `r` is a published record.
    #[inline(always)]
    pub(super) unsafe fn accepts(&self, r: *const MessageRecord) -> (bool, u64, Words) {
        // SAFETY: as the caller promises. Volatile, so that the compiler
        // does not move a load behind another's test.
        let (context, source, tag, bytes, small) = unsafe {
            (
                (&raw const (*r).context).read_volatile(),
                (&raw const (*r).source).read_volatile(),
                (&raw const (*r).tag).read_volatile(),
                (&raw const (*r).bytes).read_volatile(),
                inline_words(r),
            )
        };
        let source_ok = match self.source {
            Source::Any => true,
            Source::Rank(s) => source == s,
        };
        let ok = (context == self.context) & source_ok & self.tag.is_none_or(|t| t == tag);
        (ok, bytes, small)
    }

    /// Its words for the watchdog and the host: tag, source (`u32::MAX`
    /// for any), context.
    pub fn args(&self) -> [u32; 3] {
        let source = match self.source {
            Source::Any => u32::MAX,
            Source::Rank(r) => r,
        };
        [self.tag.unwrap_or(u32::MAX), source, self.context]
    }
}
