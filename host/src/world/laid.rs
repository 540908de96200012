//! Typed pieces through the hosts: a rank packs a piece of a typed put
//! or get into its staging half behind a [`LaidPiece`] header, and hands
//! it over as one access. The origin's host sends it as one message; the
//! target's host places its elements in the window, or gathers them for a
//! get, in as few 2D copies as the layout allows (one per plane of a
//! sub-block, one per piece of a column), so that a layout of many short
//! runs costs a message a piece, not one a run.

use super::message::Message;
use super::setup::peer_error;
use super::transfer::since_start;
use super::transfer::staging;
use super::World;
use crate::error::Result;
use copies::stacked;
#[cfg(test)]
use copies::{Copy2d, Copy3d};
use dcuda_device::abi::{LaidPiece, Transfer, LAID_HEADER, STAGE_HALF};
use dcuda_device::Datatype;
pub(super) use scratch::Scratch;

/// Rows further apart than this are copied one by one: a 2D copy's pitch
/// has a limit (`CU_DEVICE_ATTRIBUTE_MAX_PITCH`, 2³¹ − 1 bytes here).
const MAX_PITCH: u64 = 1 << 30;

/// Bytes of the scratch a piece is copied to before its elements are
/// placed (a whole staging half: every piece a rank makes fits).
pub(super) const SCRATCH: usize = STAGE_HALF;

/// The most data a piece holds: a staging half less its header.
const MOST: u64 = (STAGE_HALF - LAID_HEADER) as u64;

/// A checked header: elements `first..first + count` of `dt`, each
/// `elem` bytes.
#[derive(Debug)]
pub(super) struct Laid {
    dt: Datatype,
    first: u64,
    count: u64,
    elem: u64,
}

/// `rows` runs of `width` elements, `pitch` elements apart, from element
/// `start` of the window's layout: one 2D copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Rect {
    start: u64,
    width: u64,
    pitch: u64,
    rows: u64,
}

/// Reads the header at the start of `bytes` and checks it against the
/// `data` bytes of elements that follow it (put) or are asked for (get).
pub(super) fn read_header(bytes: &[u8], data: u64) -> std::result::Result<Laid, String> {
    let raw: LaidPiece = bytes
        .get(..LAID_HEADER)
        .and_then(|h| bytemuck::try_pod_read_unaligned(h).ok())
        .ok_or_else(|| format!("a piece of {} bytes, shorter than its header", bytes.len()))?;
    let dt = Datatype::of_piece(&raw)
        .map_err(|e| format!("the piece's header names no datatype: {e}"))?;
    let (first, count, elem) = (raw.first, raw.count as u64, raw.elem as u64);
    if data > MOST {
        return Err(format!(
            "the piece holds {data} bytes of data, more than a staging half leaves ({MOST})"
        ));
    }
    if elem == 0 {
        return Err("the piece's elements have 0 bytes".into());
    }
    if first.checked_add(count).is_none_or(|end| end > dt.size()) {
        return Err(format!(
            "the piece holds elements {first}..{} of a datatype of {}",
            first.saturating_add(count),
            dt.size()
        ));
    }
    if count.checked_mul(elem) != Some(data) {
        return Err(format!(
            "the piece holds {count} elements of {elem} bytes, but {data} bytes of data"
        ));
    }
    Ok(Laid {
        dt,
        first,
        count,
        elem,
    })
}

impl Laid {
    /// The piece's runs in element order, each run joined to the last
    /// rectangle where it has the same width and the same distance from
    /// the row before. After a first run that may start inside a block,
    /// runs start at blocks' first elements, `block` elements apart: a
    /// cursor finds each one's offset by additions (a 15-plane piece of a
    /// 64³ block: 3.0 µs, against 4.1 µs by divisions, on this project's
    /// CI-class machine).
    pub(super) fn rects(&self) -> Vec<Rect> {
        let mut out: Vec<Rect> = Vec::new();
        let end = self.first + self.count;
        let mut e = self.first;
        if e >= end {
            return out;
        }
        if self.dt.is_contiguous() {
            self.join(&mut out, self.dt.offset(e), end - e);
            return out;
        }
        let block = self.dt.block_len() as u64;
        let head = (block - e % block).min(end - e);
        self.join(&mut out, self.dt.offset(e), head);
        e += head;
        if e < end {
            let mut runs = self.dt.cursor(e, block);
            while e < end {
                let width = block.min(end - e);
                self.join(&mut out, runs.offset(), width);
                e += width;
                runs.advance();
            }
        }
        out
    }

    /// Adds the run of `width` elements at `at` to the last rectangle of
    /// `out` where it continues it, else as a rectangle of its own.
    fn join(&self, out: &mut Vec<Rect>, at: u64, width: u64) {
        if let Some(r) = out.last_mut() {
            let joins = r.width == width
                && if r.rows == 1 {
                    at >= r.start + width && at - r.start <= MAX_PITCH / self.elem
                } else {
                    at == r.start + r.rows * r.pitch
                };
            if joins {
                if r.rows == 1 {
                    r.pitch = at - r.start;
                }
                r.rows += 1;
                return;
            }
        }
        out.push(Rect {
            start: at,
            width,
            pitch: width,
            rows: 1,
        });
    }

    /// The bytes `(lo, hi)` the rectangles reach, from the layout's
    /// element 0; `None` past 2⁶⁴.
    fn span(&self, rects: &[Rect]) -> Option<(u64, u64)> {
        let lo = rects.iter().map(|r| r.start).min()?;
        let mut hi = 0u64;
        for r in rects {
            let last = r.start.checked_add((r.rows - 1).checked_mul(r.pitch)?)?;
            hi = hi.max(last.checked_add(r.width)?);
        }
        Some((lo.checked_mul(self.elem)?, hi.checked_mul(self.elem)?))
    }
}

/// Where a piece goes: `(source, target, window, byte offset of the
/// layout's element 0)`.
pub(super) type Place = (u32, u32, u32, u64);

impl World {
    /// A typed piece from device rank `rank` ([`Request::PutLaid`]): its
    /// header and data, read in one copy, sent in one message.
    ///
    /// [`Request::PutLaid`]: dcuda_device::abi::Request::PutLaid
    pub fn put_laid(&self, rank: u32, t: &Transfer, tag: Option<u32>) -> Result<()> {
        self.check_piece(rank, "put", t)?;
        let to = self.target_process(rank, t.target)?;
        let data_bytes = t.bytes - LAID_HEADER as u64;
        let check = |data: &[u8]| {
            read_header(data, data_bytes).map(|_| ()).map_err(|why| {
                let what = format!(
                    "device rank {rank} handed a put in a layout to world rank {}: {why}",
                    t.target
                );
                peer_error("command", what)
            })
        };
        let msg = |data| Message::PutLaid {
            source: self.first() + rank,
            target: t.target,
            window: t.window,
            offset: t.offset,
            tag,
            data,
        };
        self.send_read(to, t.local, t.bytes as usize, msg, check)?;
        self.complete(rank);
        Ok(())
    }

    /// A typed get of device rank `rank` ([`Request::GetLaid`]): asks the
    /// target's host for the elements its header names, into the bytes
    /// after the header.
    ///
    /// [`Request::GetLaid`]: dcuda_device::abi::Request::GetLaid
    pub fn get_laid(&self, rank: u32, t: &Transfer, tag: Option<u32>) -> Result<()> {
        self.check_piece(rank, "get", t)?;
        let mut header = vec![0u8; LAID_HEADER];
        self.runtime.read_device(t.local, &mut header)?;
        let bytes = t.bytes - LAID_HEADER as u64;
        read_header(&header, bytes).map_err(|why| {
            let what = format!(
                "device rank {rank} handed a get in a layout from world rank {}: {why}",
                t.target
            );
            peer_error("command", what)
        })?;
        let local = t.local + LAID_HEADER as u64;
        self.expect_reply(rank, local, bytes)?;
        let msg = Message::GetLaid {
            source: self.first() + rank,
            target: t.target,
            window: t.window,
            offset: t.offset,
            bytes,
            local,
            tag,
            header,
        };
        self.send_data(self.target_process(rank, t.target)?, msg.encode())
    }

    /// Refuses a piece larger than a staging half before anything is
    /// read or made for it.
    fn check_piece(&self, rank: u32, what: &str, t: &Transfer) -> Result<()> {
        if t.bytes > STAGE_HALF as u64 {
            let why = format!("device rank {rank} handed a {what} in a layout of {} bytes, more than a staging half ({STAGE_HALF})", t.bytes);
            return Err(peer_error("command", why));
        }
        Ok(())
    }

    /// At the target: the checked header of a piece from process `from`
    /// for `place`, of `data` bytes, its rectangles, and the window's
    /// address of the layout's element 0.
    fn laid_at(
        &self,
        from: u32,
        (source, target, window, offset): Place,
        header: &[u8],
        data: u64,
    ) -> Result<(Laid, Vec<Rect>, u64)> {
        let bad = |why: String| {
            let what = format!("process {from} sent an access in a layout of rank {source} to rank {target}: {why}");
            peer_error("receive", what)
        };
        let laid = read_header(header, data).map_err(bad)?;
        let rects = laid.rects();
        let (lo, hi) = laid
            .span(&rects)
            .and_then(|(lo, hi)| Some((offset.checked_add(lo)?, offset.checked_add(hi)?)))
            .ok_or_else(|| bad("the piece reaches past 2^64 bytes".into()))?;
        let e = self.checked_entry(source, target, window, lo, hi - lo)?;
        Ok((laid, rects, e.base + offset))
    }

    /// At the target: places a piece's elements (`bytes`: header, then
    /// data) in the window by copies of stacks of rectangles, queued on the
    /// scratch's stream; waited for when the piece is `notified` (the
    /// notification follows its data), else before another message is
    /// handled or the memory they read is used again. They read the piece
    /// where it lies if it was received into lent memory the GPU maps
    /// (`mapped`: the address of `bytes`), else from a half of the scratch
    /// that the host copies the data into. Returns whether copies from the
    /// lent memory were left running: the caller then hands it to
    /// [`hold_until_placed`](Self::hold_until_placed).
    pub(super) fn place(
        &self,
        from: u32,
        place: Place,
        bytes: &[u8],
        notified: bool,
        mapped: Option<u64>,
    ) -> Result<bool> {
        let data = bytes.len().saturating_sub(LAID_HEADER) as u64;
        let (laid, rects, base) = self.laid_at(from, place, bytes, data)?;
        let payload = &bytes[LAID_HEADER..];
        let device = &self.runtime.device;
        let copies = stacked(laid.copies(&rects, base));
        let start = std::time::Instant::now();
        // The header's check bounds the data by a half of the scratch.
        self.with_scratch(|scratch| {
            if mapped.is_some() && !scratch.may_hold() {
                // The pieces held before have mostly been placed by now
                // (a placement is shorter than a receive): wait for them
                // rather than copy this one into the scratch.
                scratch.drain()?;
            }
            let (addr, half) = match mapped {
                Some(at) => (at + LAID_HEADER as u64, None),
                _ => {
                    let h = scratch.take_half()?;
                    scratch.bytes(h)[..payload.len()].copy_from_slice(payload);
                    (scratch.addr(h), Some(h))
                }
            };
            let written = start.elapsed();
            let n = copies.len();
            let mut queued = false;
            for c in copies {
                let (window, packed, extent) = (c.window, c.packed(addr), c.extent());
                if scratch.stream().copy_3d(window, packed, extent)? {
                    queued = true;
                    continue;
                }
                // A copy the stream does not take runs now, after those
                // queued before it.
                scratch.drain()?;
                queued = false;
                device.copy_3d(window, packed, extent)?;
            }
            if notified {
                scratch.drain()?;
                queued = false;
            }
            if queued {
                scratch.mark_queued(half);
            }
            let us = |d: std::time::Duration| d.as_secs_f64() * 1e6;
            tracing::trace!(target: "dcuda::laid", at_us = since_start(), bytes = data, copies = n, lent = half.is_none(), write_us = us(written), total_us = us(start.elapsed()), "piece placed");
            Ok(queued && half.is_none())
        })
    }

    /// Keeps a received message whose memory queued placements still read
    /// until they have finished.
    pub(super) fn hold_until_placed(&self, message: crate::transport::Received) -> Result<()> {
        self.with_scratch(|scratch| {
            scratch.hold(message);
            Ok(())
        })
    }

    /// At the target: gathers the `bytes` of elements `header` names from
    /// the window, by copies into the scratch, which the host copies out.
    pub(super) fn gather(
        &self,
        from: u32,
        place: Place,
        header: &[u8],
        bytes: u64,
    ) -> Result<Vec<u8>> {
        let (laid, rects, base) = self.laid_at(from, place, header, bytes)?;
        let mut data = staging(bytes as usize);
        let device = &self.runtime.device;
        let copies = stacked(laid.copies(&rects, base));
        self.with_scratch(|scratch| {
            // It may read what earlier placements write: `deliver` waited
            // for them before it handed over this get.
            debug_assert!(!scratch.running());
            let h = scratch.take_half()?;
            for c in copies {
                device.copy_3d(c.packed(scratch.addr(h)), c.window, c.extent())?;
            }
            data.copy_from_slice(&scratch.bytes(h)[..bytes as usize]);
            Ok(data)
        })
    }
}

mod copies;
mod scratch;
#[cfg(test)]
mod tests;
