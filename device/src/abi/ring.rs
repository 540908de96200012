//! How a command and a reply cross the bus: as 8-byte words that each
//! carry their own sequence number (NCCL's "LL" protocol), so that the
//! reader knows a word has arrived by looking at it, and the writer needs
//! no fence between the words of one message.
//!
//! Measured on an H100 (`bench --only host`, same run): the runtime's
//! device→host→device round trip fell from 5.04 to 3.93 µs. Nearly all of
//! it came from the reply: read as a count and then a value, it crossed
//! the bus twice; as one word, once. Publishing the entry as LL words
//! instead of words and a release store measured the same in the raw
//! breakdown (3.44 against 3.45 µs), but it lets the host check each word
//! it reads.

use super::command::Command;
use bytemuck::{Pod, Zeroable};

/// Data words of an entry: rank, op, payload length, argument, payload.
pub const ENTRY_WORDS: usize = 4 + Command::PAYLOAD / 4;

/// One entry of the command ring: [`ENTRY_WORDS`] words of `seq << 32 |
/// data`, where `seq` is the ring position + 1. The writer writes only the
/// words in use (`4 + len / 4`, rounded up), after one release fence.
#[repr(C, align(128))]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct RingEntry {
    /// The words; those past the ones in use keep older sequence numbers.
    pub words: [u64; 16],
}

const _: () = assert!(ENTRY_WORDS <= 16);

/// The word carrying `data` with sequence number `seq`.
#[inline(always)]
pub const fn ll_word(seq: u32, data: u32) -> u64 {
    (seq as u64) << 32 | data as u64
}

/// The data of `word` if it carries sequence number `seq`.
#[inline(always)]
pub const fn ll_data(word: u64, seq: u32) -> Option<u32> {
    if (word >> 32) as u32 == seq {
        Some(word as u32)
    } else {
        None
    }
}

/// A command's payload as the device sends it: little-endian 32-bit words
/// (at most [`Command::PAYLOAD`] bytes) and how many bytes of them count.
#[derive(Clone, Copy)]
pub struct Payload<'a> {
    /// The words.
    pub words: &'a [u32],
    /// Bytes in use, at most `4 * words.len()`.
    pub bytes: u32,
}

impl<'a> Payload<'a> {
    /// No payload.
    pub const EMPTY: Payload<'static> = Payload {
        words: &[],
        bytes: 0,
    };

    /// The bytes of `value`, a plain-data type of 4-byte-aligned size and
    /// alignment (the checks fold away at compile time).
    #[inline(always)]
    pub fn of<T: Pod>(value: &'a T) -> Payload<'a> {
        let words: &[u32] = bytemuck::cast_slice(core::slice::from_ref(value));
        Payload {
            words,
            bytes: 4 * words.len() as u32,
        }
    }
}

/// The command of ring position `pos` from its data words (`words[2]`, the
/// length, at most [`Command::PAYLOAD`]; the reader checks it first).
pub fn command_of(pos: u32, words: &[u32; ENTRY_WORDS]) -> Command {
    let mut payload = [0u8; Command::PAYLOAD];
    for (i, b) in payload.iter_mut().enumerate() {
        *b = (words[4 + i / 4] >> (8 * (i % 4))) as u8;
    }
    Command {
        seq: pos.wrapping_add(1),
        rank: words[0],
        op: words[1],
        len: words[2],
        arg: words[3],
        _pad: [0; 3],
        payload,
    }
}

/// A host reply to one rank: one 8-byte word `seq << 32 | value`, which
/// the rank reads with one load over the bus.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Reply {
    /// Replies so far (the rank waits for it to advance) and the value.
    pub word: u64,
    /// Reserved.
    pub _pad: u64,
}
