//! The messages between the hosts of a run, as one typed enum with one
//! encoder and one decoder.
//!
//! Layout: `[payload][fields][fields length: u32][kind: u8]`. The fields go
//! after the payload, so a put's data is staged straight into the message
//! buffer and a received payload is used where it lies; nothing is copied
//! to make room for a header. Decoding checks every length and kind, and
//! rejects a malformed message with an error instead of trusting it.

use super::wire::{Reader, Writer};
use crate::error::{Error, Result};
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

fn tag_word(tag: Option<u32>) -> u32 {
    tag.unwrap_or(NO_TAG)
}

fn tag_of(word: u32) -> Option<u32> {
    (word != NO_TAG).then_some(word)
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
            } => {
                let w = Writer::default().u32(source).u32(target).u32(window);
                (PUT, data, w.u64(offset).u32(tag_word(tag)))
            }
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

fn malformed(reason: impl Into<String>) -> Error {
    Error::Network {
        call: "decode",
        reason: reason.into(),
    }
}

impl<'a> Message<&'a [u8]> {
    /// Decodes a message; the payload is borrowed from `bytes`.
    pub fn decode(bytes: &'a [u8]) -> Result<Self> {
        let [rest @ .., l0, l1, l2, l3, kind] = bytes else {
            return Err(malformed(format!("a message of {} bytes", bytes.len())));
        };
        let len = u32::from_le_bytes([*l0, *l1, *l2, *l3]) as usize;
        let Some(split) = rest.len().checked_sub(len) else {
            return Err(malformed(format!(
                "fields of {len} bytes in a message of {} bytes",
                bytes.len()
            )));
        };
        let (payload, fields) = rest.split_at(split);
        let mut r = Reader::new(fields, "message");
        let no_payload = |m: Self| {
            if payload.is_empty() {
                Ok(m)
            } else {
                Err(malformed(format!("message kind {kind} with a payload")))
            }
        };
        let m = match *kind {
            PUT => Message::Put {
                source: r.u32()?,
                target: r.u32()?,
                window: r.u32()?,
                offset: r.u64()?,
                tag: tag_of(r.u32()?),
                data: payload,
            },
            GET => no_payload(Message::Get {
                source: r.u32()?,
                target: r.u32()?,
                window: r.u32()?,
                offset: r.u64()?,
                bytes: r.u64()?,
                local: r.u64()?,
                tag: tag_of(r.u32()?),
            })?,
            GET_REPLY => Message::GetReply {
                rank: r.u32()?,
                local: r.u64()?,
                last: r.u8()? != 0,
                data: payload,
            },
            SEND => Message::Send {
                target: r.u32()?,
                context: r.u32()?,
                source: r.u32()?,
                tag: r.u32()?,
                data: payload,
            },
            SEND_MAPPED => {
                let (target, context, source) = (r.u32()?, r.u32()?, r.u32()?);
                let (tag, bytes, rank) = (r.u32()?, r.u64()?, r.u32()?);
                let Some((handle, offset)) = get_ipc(&mut r)? else {
                    return Err(malformed("a mapped message without its IPC handle"));
                };
                no_payload(Message::SendMapped {
                    target,
                    context,
                    source,
                    tag,
                    bytes,
                    rank,
                    handle,
                    offset,
                })?
            }
            TAKEN => no_payload(Message::Taken { rank: r.u32()? })?,
            SETUP => no_payload(Message::Setup(Setup {
                ranks: r.u32()?,
                node: r.u32()?,
                traced: r.u8()? != 0,
                pci: String::from_utf8_lossy(r.bytes()?).into_owned(),
                counters: get_ipc(&mut r)?,
                symmetric: match (r.opt_u64()?, r.opt_u64()?) {
                    (Some(len), Some(at)) => Some((len, at)),
                    _ => None,
                },
            }))?,
            SYNC => {
                let (seq, sent) = (r.u32()?, r.u64()?);
                let window = match r.u8()? {
                    0 => None,
                    1 => {
                        let id = r.u32()?;
                        let n = r.u32()? as usize;
                        let mut entries = Vec::with_capacity(n.min(fields.len()));
                        for _ in 0..n {
                            let raw = r.bytes()?;
                            let entry = bytemuck::try_pod_read_unaligned(raw)
                                .map_err(|_| malformed("a window entry of the wrong size"))?;
                            entries.push(SharedEntry {
                                entry,
                                ipc: get_ipc(&mut r)?,
                                symmetric: r.opt_u64()?,
                            });
                        }
                        Some((id, entries))
                    }
                    other => return Err(malformed(format!("sync flag {other}"))),
                };
                no_payload(Message::Sync { seq, sent, window })?
            }
            COMM_SYNC => {
                let (context, lead, seq, sent) = (r.u32()?, r.u32()?, r.u32()?, r.u64()?);
                let n = r.u32()? as usize;
                let mut entries = Vec::with_capacity(n.min(fields.len()));
                for _ in 0..n {
                    let world = r.u32()?;
                    let e = bytemuck::try_pod_read_unaligned(r.bytes()?)
                        .map_err(|_| malformed("a split entry of the wrong size"))?;
                    entries.push((world, e));
                }
                no_payload(Message::CommSync {
                    context,
                    lead,
                    seq,
                    sent,
                    entries,
                })?
            }
            ABORT => no_payload(Message::Abort(
                String::from_utf8_lossy(r.bytes()?).into_owned(),
            ))?,
            other => return Err(malformed(format!("unknown message kind {other}"))),
        };
        r.finish()?;
        Ok(m)
    }
}

fn put_ipc(w: Writer, ipc: Option<([u8; 64], u64)>) -> Writer {
    match ipc {
        None => w.u8(0),
        Some((h, off)) => w.u8(1).bytes(&h).u64(off),
    }
}

fn get_ipc(r: &mut Reader) -> Result<Option<([u8; 64], u64)>> {
    match r.u8()? {
        0 => Ok(None),
        1 => {
            let h: [u8; 64] = r
                .bytes()?
                .try_into()
                .map_err(|_| malformed("an IPC handle of the wrong size"))?;
            Ok(Some((h, r.u64()?)))
        }
        other => Err(malformed(format!("IPC flag {other}"))),
    }
}

#[cfg(test)]
mod tests;
