//! Decoding a message: every length and kind checked, a malformed
//! message an error instead of trusted.

use super::{
    Message, Setup, SharedEntry, ABORT, COMM_SYNC, GET, GET_LAID, GET_REPLY, PUT, PUT_LAID, SEND,
    SEND_MAPPED, SETUP, SYNC, TAKEN,
};
use crate::error::{Error, Result};
use crate::world::wire::{get_ipc, Reader};

fn tag_of(word: u32) -> Option<u32> {
    (word != dcuda_device::abi::NO_TAG).then_some(word)
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
            PUT_LAID => Message::PutLaid {
                source: r.u32()?,
                target: r.u32()?,
                window: r.u32()?,
                offset: r.u64()?,
                tag: tag_of(r.u32()?),
                data: payload,
            },
            GET_LAID => Message::GetLaid {
                source: r.u32()?,
                target: r.u32()?,
                window: r.u32()?,
                offset: r.u64()?,
                bytes: r.u64()?,
                local: r.u64()?,
                tag: tag_of(r.u32()?),
                header: payload,
            },
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
