//! The device-to-host command ring: 64-byte entries, and their typed
//! decoding on the host into a [`Request`], which rejects malformed
//! entries instead of trusting them.

use super::codes::codes;
use super::comm_records::{CommSync, CommSyncKind};
use super::{MAX_COMMS, NO_TAG, NO_WINDOW, TAGS, USER_TAGS};
use bytemuck::{Pod, Zeroable};

codes! {
    /// What the host is asked to do.
    Op {
        Ping = 1 => "ping",
        Log = 2 => "log text",
        TimerStart = 3 => "timer start",
        TimerStop = 4 => "timer stop",
        LogArg = 5 => "log argument",
        LogEnd = 6 => "log end",
        Put = 7 => "put",
        Get = 8 => "get",
        Notify = 9 => "notify",
        Barrier = 10 => "world barrier",
        WindowExchange = 11 => "window exchange",
        PutInline = 12 => "inline put",
        CommSync = 13 => "communicator sync",
        CommTable = 14 => "communicator table",
        CommTableFree = 15 => "communicator table free",
        Send = 16 => "send",
        Fetch = 17 => "message fetch",
        PutLaid = 18 => "put in a layout",
        GetLaid = 19 => "get in a layout",
    }
}

/// Puts of at most this many bytes through the host carry their data in
/// the command.
pub const INLINE: usize = 8;

/// A command as the host reads it from a ring entry
/// ([`RingEntry`](super::ring::RingEntry)).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct Command {
    /// Ring position + 1.
    pub seq: u32,
    /// Sending rank (device rank).
    pub rank: u32,
    /// [`Op`].
    pub op: u32,
    /// Payload bytes used.
    pub len: u32,
    /// Op argument (a tag, a timer id, a window id, an argument kind).
    pub arg: u32,
    /// Reserved.
    pub _pad: [u32; 3],
    /// Payload.
    pub payload: [u8; Command::PAYLOAD],
}

impl Command {
    /// Bytes of payload in an entry.
    pub const PAYLOAD: usize = 32;
}

const _: () = assert!(core::mem::size_of::<Command>() == 64);
const _: () = assert!(core::mem::size_of::<Transfer>() <= Command::PAYLOAD);
const _: () = assert!(core::mem::size_of::<CommSync>() <= Command::PAYLOAD);

/// What a rank asks its host to move for it (the payload of a transfer
/// command).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Transfer {
    /// Target world rank.
    pub target: u32,
    /// Window id ([`NO_WINDOW`] for a notify without a window).
    pub window: u32,
    /// Byte offset in the target's window.
    pub offset: u64,
    /// The local buffer's device address (source of a put, destination
    /// of a get); for an inline put, the data itself.
    pub local: u64,
    /// Bytes to move.
    pub bytes: u64,
}

/// One argument of a log message: its raw value, formatted by the host.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LogArg {
    /// An unsigned integer.
    Unsigned(u64),
    /// A signed integer.
    Signed(i64),
    /// A floating-point number.
    Float(f64),
    /// A boolean.
    Bool(bool),
}

impl LogArg {
    /// `(kind, bits)` as sent in a log entry.
    pub fn encode(self) -> (u32, u64) {
        match self {
            LogArg::Unsigned(v) => (0, v),
            LogArg::Signed(v) => (1, v as u64),
            LogArg::Float(v) => (2, v.to_bits()),
            LogArg::Bool(v) => (3, v as u64),
        }
    }

    /// The argument of `(kind, bits)`.
    pub fn decode(kind: u32, bits: u64) -> Option<LogArg> {
        match kind {
            0 => Some(LogArg::Unsigned(bits)),
            1 => Some(LogArg::Signed(bits as i64)),
            2 => Some(LogArg::Float(f64::from_bits(bits))),
            3 => Some(LogArg::Bool(bits != 0)),
            _ => None,
        }
    }
}

/// A command, decoded and checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Request {
    /// A host round trip.
    Ping,
    /// A fragment of a log message's format string.
    LogText([u8; Command::PAYLOAD], usize),
    /// A log argument.
    LogArg(LogArg),
    /// The end of a log message.
    LogEnd,
    /// Start a host timer.
    TimerStart(u32),
    /// Stop a host timer.
    TimerStop(u32),
    /// A put to another process; `inline`: [`Transfer::local`] is the data.
    Put {
        /// What to move.
        transfer: Transfer,
        /// The notification, if any.
        tag: Option<u32>,
        /// Whether the data rides in the command.
        inline: bool,
    },
    /// A get from another process.
    Get {
        /// What to move.
        transfer: Transfer,
        /// The notification to the target, if any.
        tag: Option<u32>,
    },
    /// A put to another process of a staged piece that starts with a
    /// [`LaidPiece`](super::LaidPiece): its data goes to the elements the
    /// header names.
    PutLaid {
        /// What to move: the header and the data.
        transfer: Transfer,
        /// The notification, if any.
        tag: Option<u32>,
    },
    /// A get from another process of the elements a
    /// [`LaidPiece`](super::LaidPiece) at [`Transfer::local`] names, into
    /// the bytes after it.
    GetLaid {
        /// What to move: the header and room for the data.
        transfer: Transfer,
        /// The notification to the target, if any.
        tag: Option<u32>,
    },
    /// A notification without data to a rank of another process.
    Notify {
        /// Target world rank.
        target: u32,
        /// The tag.
        tag: u32,
    },
    /// A world barrier.
    Barrier,
    /// The exchange of a window's entries.
    WindowExchange(u32),
    /// Space for a communicator's part of slot `slot`'s table: `len`
    /// entries; the reply is its start, or `u32::MAX` when there is none.
    CommTable {
        /// The slot.
        slot: u32,
        /// Entries.
        len: u32,
    },
    /// Gives back a part of slot `slot`'s table.
    CommTableFree {
        /// The slot.
        slot: u32,
        /// Its start.
        offset: u32,
        /// Its entries.
        len: u32,
    },
    /// A message to a rank of another process: [`Transfer::window`] is
    /// the communicator's context id, [`Transfer::offset`] the sender's
    /// rank in it.
    Send {
        /// What to send.
        transfer: Transfer,
        /// The user tag.
        tag: u32,
    },
    /// The payload the host holds for a message in the rank's inbox:
    /// [`Transfer::offset`] is its number, [`Transfer::local`] where it
    /// goes.
    Fetch(Transfer),
    /// A communicator's step through the hosts.
    CommSync {
        /// The communicator's context id.
        context: u32,
        /// Which communicator, and what to do.
        sync: CommSync,
    },
}

/// Why a command could not be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// The raw op.
    pub op: u32,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl Command {
    fn transfer(&self) -> Transfer {
        bytemuck::pod_read_unaligned(&self.payload[..core::mem::size_of::<Transfer>()])
    }

    /// The command's request, checked for what the host must not trust:
    /// the op, payload length, tags and argument kinds. The sending rank is
    /// checked by the caller, which knows how many there are.
    pub fn decode(&self) -> Result<Request, DecodeError> {
        let bad = |reason| DecodeError {
            op: self.op,
            reason,
        };
        let op = Op::from_u32(self.op).ok_or(bad("unknown op"))?;
        let tag = |t: u32| match t {
            NO_TAG => Ok(None),
            t if t < TAGS => Ok(Some(t)),
            _ => Err(bad("tag out of range")),
        };
        Ok(match op {
            Op::Ping => Request::Ping,
            Op::Log => {
                let len = self.len as usize;
                if len > Command::PAYLOAD {
                    return Err(bad("log fragment longer than the payload"));
                }
                Request::LogText(self.payload, len)
            }
            Op::LogArg => {
                let bits = u64::from_le_bytes(bytemuck::pod_read_unaligned(&self.payload[..8]));
                Request::LogArg(
                    LogArg::decode(self.arg, bits).ok_or(bad("unknown log argument kind"))?,
                )
            }
            Op::LogEnd => Request::LogEnd,
            Op::TimerStart => Request::TimerStart(self.arg),
            Op::TimerStop => Request::TimerStop(self.arg),
            Op::Put | Op::PutInline => {
                let transfer = self.transfer();
                let inline = op == Op::PutInline;
                if inline && transfer.bytes > INLINE as u64 {
                    return Err(bad("inline put of more than 8 bytes"));
                }
                Request::Put {
                    transfer,
                    tag: tag(self.arg)?,
                    inline,
                }
            }
            Op::Get => Request::Get {
                transfer: self.transfer(),
                tag: tag(self.arg)?,
            },
            Op::PutLaid | Op::GetLaid => {
                let transfer = self.transfer();
                if transfer.bytes < super::LAID_HEADER as u64 {
                    return Err(bad("access in a layout without its header"));
                }
                let tag = tag(self.arg)?;
                if op == Op::PutLaid {
                    Request::PutLaid { transfer, tag }
                } else {
                    Request::GetLaid { transfer, tag }
                }
            }
            Op::Notify => {
                let transfer = self.transfer();
                if transfer.window != NO_WINDOW || transfer.bytes != 0 {
                    return Err(bad("notify with data"));
                }
                Request::Notify {
                    target: transfer.target,
                    tag: tag(self.arg)?.ok_or(bad("notify without a tag"))?,
                }
            }
            Op::Send => {
                let t = tag(self.arg)?.ok_or(bad("send without a tag"))?;
                if t >= USER_TAGS {
                    return Err(bad("send with a reserved tag"));
                }
                Request::Send {
                    transfer: self.transfer(),
                    tag: t,
                }
            }
            Op::Fetch => Request::Fetch(self.transfer()),
            Op::Barrier => Request::Barrier,
            Op::WindowExchange => Request::WindowExchange(self.arg),
            Op::CommTable | Op::CommTableFree => {
                let words: [u32; 2] = bytemuck::pod_read_unaligned(&self.payload[..8]);
                if self.arg < 2 || self.arg as usize >= MAX_COMMS {
                    return Err(bad("communicator table of a slot out of range"));
                }
                match op {
                    Op::CommTable => Request::CommTable {
                        slot: self.arg,
                        len: words[0],
                    },
                    _ => Request::CommTableFree {
                        slot: self.arg,
                        offset: words[0],
                        len: words[1],
                    },
                }
            }
            Op::CommSync => {
                let sync: CommSync =
                    bytemuck::pod_read_unaligned(&self.payload[..core::mem::size_of::<CommSync>()]);
                if CommSyncKind::from_u32(sync.kind).is_none() {
                    return Err(bad("unknown communicator sync kind"));
                }
                if sync.slot as usize >= MAX_COMMS || sync.reps == 0 || sync.reps > sync.size {
                    return Err(bad("communicator sync of a slot or size out of range"));
                }
                Request::CommSync {
                    context: self.arg,
                    sync,
                }
            }
        })
    }
}
