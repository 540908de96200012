//! Peer copies between the GPUs of a node: the root of a scatter, gather or
//! broadcast maps another process's buffer through CUDA IPC and copies
//! between its host array and that buffer itself, with no staging.
//!
//! Which pairs may do this is decided once, when the [`Placement`] is made
//! (both processes' GPUs on one node can map each other's memory, and
//! `DCUDA_PEER_ACCESS` is not 0). Each call, the other process offers its
//! buffer (an IPC handle, or none for mapped host memory) and waits for
//! the root's answer: done, or "staged" (the mapping failed), after which
//! the pair moves the data in pieces over the transport as any other pair.
//! A mapping lives for one call: a buffer freed and allocated again could
//! have the same handle and address, so nothing is kept between calls.

use super::parts::Parts;
use super::wire::{self, CallId, SETUP_CHANNEL};
use super::Placement;
use crate::backend::Device;
use crate::error::{Error, Result};
use crate::runtime::Runtime;
use crate::transport::{all_gather, Transport};
use dcuda_device::DeviceCopy;
use std::sync::Arc;

/// For every pair of processes, whether they copy between each other's
/// GPUs directly. Collective over the job.
pub(super) fn pairs(
    rt: &Runtime,
    t: &dyn Transport,
    nodes: &[u32],
    me: u32,
) -> Result<Vec<Vec<bool>>> {
    let allowed = crate::config::PEER_ACCESS.switch()?.unwrap_or(true);
    let peers = rt.device.peers().filter(|_| allowed);
    let bus = match peers {
        Some(p) => p.pci_bus_id()?,
        None => String::new(),
    };
    let all = all_gather(t, SETUP_CHANNEL, bus.into_bytes())?;
    let mut row = vec![0u8; all.len()];
    if let Some(p) = peers {
        for (q, bus) in all.iter().enumerate() {
            let same_node = nodes.get(q) == nodes.get(me as usize);
            if q != me as usize && same_node && !bus.is_empty() {
                // A GPU this process cannot see (CUDA_VISIBLE_DEVICES) is
                // one it cannot map: that pair stays staged, and the plans'
                // `explain` says so.
                let bus = String::from_utf8_lossy(bus);
                row[q] = p.can_access_peer(&bus).unwrap_or(false) as u8;
            }
        }
    }
    Ok(mutual(&all_gather(t, SETUP_CHANNEL, row)?))
}

/// Pairs that can map each other both ways, from every process's row of
/// "I can map process q" bytes (a short row says no for the rest).
fn mutual(rows: &[Vec<u8>]) -> Vec<Vec<bool>> {
    let n = rows.len();
    let can = |a: usize, b: usize| a != b && rows[a].get(b) == Some(&1);
    (0..n)
        .map(|a| (0..n).map(|b| can(a, b) && can(b, a)).collect())
        .collect()
}

/// Runs the root's peer copies (`peers`) on a second thread while this
/// one makes its own (`own`): each copy takes its own GPU's link. Both
/// results, `own`'s error first.
pub(super) fn beside<P: Send>(
    peers: impl FnOnce() -> Result<P> + Send,
    own: impl FnOnce() -> Result<()>,
) -> Result<P> {
    let (peers, own) = std::thread::scope(|scope| {
        let peers = scope.spawn(peers);
        let own = own();
        let peers = peers
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (peers, own)
    });
    own?;
    peers
}

/// A process's buffer as offered to the root for one call.
pub(super) struct Offer {
    handle: [u8; 64],
    offset: u64,
    elements: usize,
    /// The PCI bus id of the GPU holding it.
    pci: String,
}

const NONE: u8 = 0;
const OFFERED: u8 = 1;

/// The other process's side: offers `parts` to `root` (device memory
/// only); whether it did.
pub(super) fn offer<T: DeviceCopy>(
    at: &Placement,
    parts: &dyn Parts<T>,
    root: u32,
    id: CallId,
) -> Result<bool> {
    let (base, rt) = parts.base();
    let exported = match rt.device.peers() {
        Some(p) if parts.on_device() => Some((p.ipc_export(base)?, p.pci_bus_id()?)),
        _ => None,
    };
    let mut msg = vec![NONE];
    if let Some(((handle, offset), pci)) = &exported {
        msg[0] = OFFERED;
        msg.extend_from_slice(handle);
        msg.extend_from_slice(&offset.to_le_bytes());
        msg.extend_from_slice(&(parts.elements() as u64).to_le_bytes());
        msg.extend_from_slice(pci.as_bytes());
    }
    wire::send(at.transport()?, root, id, &msg)?;
    Ok(exported.is_some())
}

/// The root's side: what process `from` offered for call `id`.
pub(super) fn take(at: &Placement, from: u32, id: CallId) -> Result<Option<Offer>> {
    let got = wire::recv(at.transport()?, from, id)?;
    let d = got.data();
    let word = |i: usize| u64::from_le_bytes(d[i..i + 8].try_into().unwrap_or_default());
    match d.first() {
        Some(&OFFERED) if d.len() >= 1 + 64 + 16 => Ok(Some(Offer {
            handle: d[1..65].try_into().unwrap_or([0; 64]),
            offset: word(65),
            elements: word(73) as usize,
            pci: String::from_utf8_lossy(&d[81..]).into_owned(),
        })),
        Some(&NONE) => Ok(None),
        _ => Err(Error::InvalidArgument {
            call: "transfer plan",
            reason: format!(
                "process {} got a peer offer of {} bytes from process {from}: the processes used their plans in different orders",
                at.process(),
                d.len()
            ),
        }),
    }
}

/// The root's answer to an offer: the data go staged.
pub(super) const STAGED: u8 = 0;
/// The root's answer to an offer: the data moved.
pub(super) const MOVED: u8 = 1;
/// The root's answer to a broadcast's offer: the data moved into every
/// rank's part of the process (no device copies left to make).
pub(super) const FILLED: u8 = 2;

/// Tells process `to` whether its data moved (`true`) or go staged.
pub(super) fn answer(at: &Placement, to: u32, id: CallId, moved: bool) -> Result<()> {
    answer_with(at, to, id, if moved { MOVED } else { STAGED })
}

/// Tells process `to` [`STAGED`], [`MOVED`] or [`FILLED`].
pub(super) fn answer_with(at: &Placement, to: u32, id: CallId, word: u8) -> Result<()> {
    wire::send(at.transport()?, to, id, &[word])
}

/// The other process's side: whether the root moved its data.
pub(super) fn answered(at: &Placement, root: u32, id: CallId) -> Result<bool> {
    Ok(answer_of(at, root, id)? != STAGED)
}

/// The other process's side: the root's answer to its offer.
pub(super) fn answer_of(at: &Placement, root: u32, id: CallId) -> Result<u8> {
    let got = wire::recv(at.transport()?, root, id)?;
    Ok(match got.data() {
        [w @ (MOVED | FILLED)] => *w,
        _ => STAGED,
    })
}

/// Another process's buffer mapped for one call; unmapped when dropped.
/// Mapped in a context on the GPU that holds it where this process can
/// open one (`DCUDA_PEER_CONTEXTS`, on by default), so that the copies take
/// that GPU's copy engine and link, as a program holding a context on
/// each GPU does; else into the root's GPU.
pub(super) struct Mapping {
    dev: Arc<dyn Device>,
    base: u64,
    addr: u64,
    elements: usize,
    process: u32,
    /// Bytes of the mapped allocation from `addr` on.
    room: u64,
}

impl Mapping {
    /// Maps `offer` of process `process`, from `rt`'s process.
    pub(super) fn open(rt: &Runtime, offer: &Offer, process: u32) -> Result<Mapping> {
        let cannot = || Error::InvalidArgument {
            call: "transfer plan",
            reason: format!(
                "process {process} offered its GPU buffer, but this backend cannot map it"
            ),
        };
        let peers = rt.device.peers().ok_or_else(cannot)?;
        let owner = if crate::config::PEER_CONTEXTS.switch()?.unwrap_or(true) {
            peers.owner(&offer.pci).unwrap_or_else(|e| {
                tracing::warn!(target: "dcuda", "a context on process {process}'s GPU {} could not be opened ({e}); its copies go through this process's GPU", offer.pci);
                None
            })
        } else {
            None
        };
        let dev = owner.unwrap_or_else(|| rt.device.clone());
        let (base, len) = dev.peers().ok_or_else(cannot)?.ipc_open(&offer.handle)?;
        Ok(Mapping {
            dev,
            base,
            addr: base + offer.offset,
            elements: offer.elements,
            process,
            room: len.saturating_sub(offer.offset),
        })
    }

    /// The device address of element `at` of a run of `len`, checked
    /// against the buffer the other process offered and against the
    /// allocation mapped here (the offer's length is the other process's
    /// word).
    fn at<T>(&self, at: usize, len: usize) -> Result<u64> {
        let size = std::mem::size_of::<T>() as u64;
        match at.checked_add(len) {
            Some(end) if end <= self.elements => match (end as u64).checked_mul(size) {
                Some(bytes) if bytes <= self.room => Ok(self.addr + at as u64 * size),
                _ => Err(Error::InvalidArgument {
                    call: "transfer plan",
                    reason: format!(
                        "elements {at}..{end} of process {}'s buffer are past the {} bytes mapped from its GPU allocation",
                        self.process, self.room
                    ),
                }),
            },
            _ => Err(Error::InvalidArgument {
                call: "transfer plan",
                reason: format!(
                    "elements {at}..{} of process {}'s buffer, which has {}",
                    at.saturating_add(len),
                    self.process,
                    self.elements
                ),
            }),
        }
    }

    /// Writes `bytes` at element `starts[0]` of the other process's buffer
    /// and copies them on its GPU to the other `starts` ([`fill`]).
    pub(super) fn fill<T: DeviceCopy>(&self, starts: &[usize], bytes: &[u8]) -> Result<()> {
        let addr = |at: usize, len: usize| self.at::<T>(at, len);
        super::parts::fill::<T>(self.dev.as_ref(), &addr, starts, bytes)
    }

    /// Writes `bytes` at element `at` of the other process's buffer.
    pub(super) fn write<T>(&self, at: usize, bytes: &[u8]) -> Result<()> {
        let addr = self.at::<T>(at, bytes.len() / std::mem::size_of::<T>().max(1))?;
        self.dev.write(addr, bytes)
    }

    /// Reads `bytes.len()` bytes from element `at` of the other process's
    /// buffer.
    pub(super) fn read<T>(&self, at: usize, bytes: &mut [u8]) -> Result<()> {
        let addr = self.at::<T>(at, bytes.len() / std::mem::size_of::<T>().max(1))?;
        self.dev.read(addr, bytes)
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        if let Some(p) = self.dev.peers() {
            p.ipc_close(self.base);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::mutual;

    #[test]
    fn a_pair_is_a_peer_pair_only_when_both_can_map_the_other() {
        // 0 and 1 map each other; 2 maps 0 but 0 does not map 2; 3 says
        // nothing (a short row); nobody is its own peer.
        let rows = vec![vec![1, 1, 0, 1], vec![1, 0, 1, 1], vec![1, 1, 1], vec![]];
        let m = mutual(&rows);
        assert_eq!(m[0], [false, true, false, false]);
        assert_eq!(m[1], [true, false, true, false]);
        assert_eq!(m[2], [false, true, false, false]);
        assert_eq!(m[3], [false; 4]);
    }
}
