//! The messages between the hosts of a run, as one typed enum with one
//! encoder and one decoder.
//!
//! Layout: `[payload][fields][fields length: u32][kind: u8]`. The fields go
//! after the payload, so a put's data is staged straight into the message
//! buffer and a received payload is used where it lies; nothing is copied
//! to make room for a header. Decoding checks every length and kind, and
//! rejects a malformed message with an error instead of trusting it.

use super::wire::{put_ipc, Writer};
use dcuda_device::abi::{SplitEntry, WindowEntry, NO_TAG};

/// A window entry as sent at window exchange, with an IPC handle where the
/// memory can be mapped by a peer.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SharedEntry {
    pub entry: WindowEntry,
    pub ipc: Option<([u8; 64], u64)>,
    /// Its offset in its process's NVSHMEM symmetric heap.
    pub symmetric: Option<u64>,
}

/// What one process tells the others before a run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Setup {
    pub ranks: u32,
    pub node: u32,
    /// Whether it traces the run (every process must).
    pub traced: bool,
    /// Its GPU's PCI bus id (empty for the emulator).
    pub pci: String,
    /// IPC handle and offset of its notification counters (GPU only).
    pub counters: Option<([u8; 64], u64)>,
    /// Its NVSHMEM symmetric heap's length, and its counters' offset in it.
    pub symmetric: Option<(u64, u64)>,
}

/// A message; `D` is the payload: owned to send, borrowed when received.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Message<D> {
    /// A piece of a put (or a notification without data) from world rank
    /// `source` to `target`; `tag` on the last piece only.
    Put {
        source: u32,
        target: u32,
        window: u32,
        offset: u64,
        tag: Option<u32>,
        data: D,
    },
    /// A get by world rank `source` of `bytes` into its `local` address.
    Get {
        source: u32,
        target: u32,
        window: u32,
        offset: u64,
        bytes: u64,
        local: u64,
        tag: Option<u32>,
    },
    /// A rank's typed piece for world rank `target`: `data` starts with its
    /// [`LaidPiece`](dcuda_device::abi::LaidPiece) header, which names where
    /// in the window (from byte `offset`) its elements go.
    PutLaid {
        source: u32,
        target: u32,
        window: u32,
        offset: u64,
        tag: Option<u32>,
        data: D,
    },
    /// A get of the elements `header` names (`bytes` of them packed) into
    /// the requester's `local` address.
    GetLaid {
        source: u32,
        target: u32,
        window: u32,
        offset: u64,
        bytes: u64,
        local: u64,
        tag: Option<u32>,
        header: D,
    },
    /// A piece of a get's data, for device rank `rank` of the requester.
    GetReply {
        rank: u32,
        local: u64,
        last: bool,
        data: D,
    },
    /// A two-sided message to world rank `target`, on the communicator of
    /// context `context`, from its rank `source`.
    Send {
        target: u32,
        context: u32,
        source: u32,
        tag: u32,
        data: D,
    },
    /// A two-sided message to world rank `target` whose payload of `bytes`
    /// bytes stays in the sender's GPU memory, at `offset` in the
    /// allocation of IPC `handle`, which the receiver's process maps (the
    /// direct route). The receiver's host copies it when the rank receives
    /// it, then answers [`Taken`](Message::Taken) for device rank `rank`.
    SendMapped {
        target: u32,
        context: u32,
        source: u32,
        tag: u32,
        bytes: u64,
        rank: u32,
        handle: [u8; 64],
        offset: u64,
    },
    /// The receiver copied a [`SendMapped`](Message::SendMapped) payload:
    /// device rank `rank` of the sender's process may reuse its buffer.
    Taken { rank: u32 },
    /// A process's setup.
    Setup(Setup),
    /// A world sync: data messages sent to the receiver, and a window's
    /// entries at window exchange.
    Sync {
        seq: u32,
        sent: u64,
        window: Option<(u32, Vec<SharedEntry>)>,
    },
    /// A communicator's sync between the processes holding its ranks
    /// (its context and lowest representative's world rank name it), with
    /// the sender's split entries at a split exchange.
    CommSync {
        context: u32,
        lead: u32,
        seq: u32,
        sent: u64,
        entries: Vec<(u32, SplitEntry)>,
    },
    /// The sender failed.
    Abort(String),
}

const PUT: u8 = 1;
const GET: u8 = 2;
const GET_REPLY: u8 = 3;
const SEND: u8 = 4;
const SEND_MAPPED: u8 = 5;
const TAKEN: u8 = 6;
const SETUP: u8 = 10;
const SYNC: u8 = 11;
const ABORT: u8 = 12;
const COMM_SYNC: u8 = 13;
const PUT_LAID: u8 = 14;
const GET_LAID: u8 = 15;

fn tag_word(tag: Option<u32>) -> u32 {
    tag.unwrap_or(NO_TAG)
}

impl Message<Vec<u8>> {
    /// The message's bytes; the payload's buffer becomes the message's.
    pub fn encode(self) -> Vec<u8> {
        let (kind, payload, fields) = match self {
            Message::Put {
                source,
                target,
                window,
                offset,
                tag,
                data,
            } => (PUT, data, access((source, target, window, offset), tag)),
            Message::PutLaid {
                source,
                target,
                window,
                offset,
                tag,
                data,
            } => (
                PUT_LAID,
                data,
                access((source, target, window, offset), tag),
            ),
            Message::Get {
                source,
                target,
                window,
                offset,
                bytes,
                local,
                tag,
            } => {
                let w = Writer::default().u32(source).u32(target).u32(window);
                let w = w.u64(offset).u64(bytes).u64(local).u32(tag_word(tag));
                (GET, Vec::new(), w)
            }
            Message::GetLaid {
                source,
                target,
                window,
                offset,
                bytes,
                local,
                tag,
                header,
            } => {
                let w = Writer::default().u32(source).u32(target).u32(window);
                let w = w.u64(offset).u64(bytes).u64(local).u32(tag_word(tag));
                (GET_LAID, header, w)
            }
            Message::GetReply {
                rank,
                local,
                last,
                data,
            } => {
                let w = Writer::default().u32(rank).u64(local).u8(last as u8);
                (GET_REPLY, data, w)
            }
            Message::Send {
                target,
                context,
                source,
                tag,
                data,
            } => {
                let w = Writer::default().u32(target).u32(context).u32(source);
                (SEND, data, w.u32(tag))
            }
            Message::SendMapped {
                target,
                context,
                source,
                tag,
                bytes,
                rank,
                handle,
                offset,
            } => {
                let w = Writer::default().u32(target).u32(context).u32(source);
                let w = w.u32(tag).u64(bytes).u32(rank);
                (SEND_MAPPED, Vec::new(), put_ipc(w, Some((handle, offset))))
            }
            Message::Taken { rank } => (TAKEN, Vec::new(), Writer::default().u32(rank)),
            Message::Setup(s) => {
                let w = Writer::default()
                    .u32(s.ranks)
                    .u32(s.node)
                    .u8(s.traced as u8)
                    .bytes(s.pci.as_bytes());
                let w = put_ipc(w, s.counters).opt_u64(s.symmetric.map(|s| s.0));
                (SETUP, Vec::new(), w.opt_u64(s.symmetric.map(|s| s.1)))
            }
            Message::Sync { seq, sent, window } => {
                let mut w = Writer::default().u32(seq).u64(sent);
                match window {
                    None => w = w.u8(0),
                    Some((id, entries)) => {
                        w = w.u8(1).u32(id).u32(entries.len() as u32);
                        for e in &entries {
                            w = put_ipc(w.bytes(bytemuck::bytes_of(&e.entry)), e.ipc)
                                .opt_u64(e.symmetric);
                        }
                    }
                }
                (SYNC, Vec::new(), w)
            }
            Message::CommSync {
                context,
                lead,
                seq,
                sent,
                entries,
            } => {
                let w = Writer::default().u32(context).u32(lead).u32(seq).u64(sent);
                let mut w = w.u32(entries.len() as u32);
                for (world, e) in &entries {
                    w = w.u32(*world).bytes(bytemuck::bytes_of(e));
                }
                (COMM_SYNC, Vec::new(), w)
            }
            Message::Abort(text) => (ABORT, Vec::new(), Writer::default().bytes(text.as_bytes())),
        };
        let mut out = payload;
        let fields = fields.0;
        out.extend_from_slice(&fields);
        out.extend_from_slice(&(fields.len() as u32).to_le_bytes());
        out.push(kind);
        out
    }
}

/// The fields of a put: who, where, and its notification.
fn access((source, target, window, offset): (u32, u32, u32, u64), tag: Option<u32>) -> Writer {
    let w = Writer::default().u32(source).u32(target).u32(window);
    w.u64(offset).u32(tag_word(tag))
}

mod decode;
#[cfg(test)]
mod tests;
