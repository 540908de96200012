//! Plans' data between processes: pieces on a channel of their own, each
//! headed by its plan and call, with a bounded number in flight. Waiting
//! for sends also takes in arrivals, so two processes sending to each
//! other never wait on each other; a piece that arrives before its call
//! waits in a stash per sender (messages from one sender arrive in order).

use crate::error::{Error, Result};
use crate::transport::Transport;
use crate::transport::{buffers, departure};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// The channel of plans' setup exchanges (after the runs' channels).
pub(super) const SETUP_CHANNEL: u32 = crate::transport::RUN_CHANNELS + 3 * 10_000;
/// The channel of plans' data.
const DATA_CHANNEL: u32 = SETUP_CHANNEL + 1;
/// Bytes in one piece: big enough for the transport's bandwidth, small
/// enough that the device copy of one overlaps the wire time of the next.
pub(super) const PIECE_BYTES: usize = 1 << 20;
/// Pieces a process keeps in flight before it waits.
const IN_FLIGHT: usize = 8;

/// Plans made so far by this process (every process makes the same plans
/// in the same order, so the count names a plan).
static PLANS: AtomicU32 = AtomicU32::new(0);
/// Pieces that arrived before this process asked for them, per sender.
static STASH: Mutex<Option<HashMap<u32, VecDeque<Vec<u8>>>>> = Mutex::new(None);

/// A new plan's number.
pub(super) fn next_plan() -> u32 {
    PLANS.fetch_add(1, Ordering::Relaxed)
}

/// Which call of which plan a piece belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CallId {
    pub plan: u32,
    pub call: u32,
}

/// Sends a piece of `bytes` bytes of call `id` to process `to`, which
/// `fill` writes straight into the message (every byte: the buffer may
/// hold an earlier piece's); waits while too many pieces are in flight.
pub(super) fn send_with(
    t: &dyn Transport,
    (to, id): (u32, CallId),
    bytes: usize,
    fill: impl FnOnce(&mut [u8]) -> Result<()>,
) -> Result<()> {
    let mut msg = buffers::take(HEAD + bytes);
    msg[..4].copy_from_slice(&id.plan.to_le_bytes());
    msg[4..HEAD].copy_from_slice(&id.call.to_le_bytes());
    fill(&mut msg[HEAD..])?;
    t.send(to, DATA_CHANNEL, msg)?;
    drain(t, IN_FLIGHT)
}

/// Sends `payload` to process `to` as a piece of call `id`.
pub(super) fn send(t: &dyn Transport, to: u32, id: CallId, payload: &[u8]) -> Result<()> {
    send_with(t, (to, id), payload.len(), |m| {
        m.copy_from_slice(payload);
        Ok(())
    })
}

/// Bytes before a piece's data: its plan and call.
const HEAD: usize = 8;

/// A piece that arrived: its message, the data after the head. Its
/// buffer goes back to the transport's spares when it is dropped.
pub(super) struct Piece(Vec<u8>);

impl Drop for Piece {
    fn drop(&mut self) {
        buffers::give(std::mem::take(&mut self.0));
    }
}

impl Piece {
    /// The piece's data.
    pub(super) fn data(&self) -> &[u8] {
        &self.0[HEAD..]
    }
}

/// Advances sends until at most `left` are in flight, taking in arrivals.
pub(super) fn drain(t: &dyn Transport, left: usize) -> Result<()> {
    let mut spins = 0u32;
    while t.progress()? > left {
        take_arrivals(t)?;
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(1024) {
            // Only a failure: a peer that finished its part of the call
            // (say, took all its pieces) may well be at its exit already.
            departure::check_failures(t, "a transfer plan")?;
        }
        pause(spins);
    }
    Ok(())
}

/// Waits a little between polls: spins at first (a yield costs a whole
/// time slice, milliseconds, when other threads want the core), and
/// yields only after a while, so a long wait does not starve them.
fn pause(spins: u32) {
    if spins < 4096 {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

fn take_arrivals(t: &dyn Transport) -> Result<bool> {
    let mut any = false;
    while let Some((from, msg)) = t.try_recv(DATA_CHANNEL)? {
        let mut stash = STASH.lock().unwrap_or_else(|e| e.into_inner());
        stash
            .get_or_insert_with(HashMap::new)
            .entry(from)
            .or_default()
            .push_back(msg);
        any = true;
    }
    Ok(any)
}

/// The next piece from process `from`, which must belong to call `id`.
pub(super) fn recv(t: &dyn Transport, from: u32, id: CallId) -> Result<Piece> {
    let mut spins = 0u32;
    let msg = loop {
        let next = STASH
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
            .and_then(|s| s.get_mut(&from))
            .and_then(VecDeque::pop_front);
        if let Some(msg) = next {
            break msg;
        }
        if !take_arrivals(t)? {
            t.progress()?;
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(1024) && departure::has_left(t, from)? {
                // It left; its last pieces may still be on their way
                // (another channel than its notice): take them first.
                if !take_arrivals(t)? {
                    departure::check(t, from, "a transfer plan")?;
                }
            }
            pause(spins);
        }
    };
    let word = |i: usize| {
        msg.get(i..i + 4).map_or(u32::MAX, |w| {
            u32::from_le_bytes(w.try_into().unwrap_or_default())
        })
    };
    let got = CallId {
        plan: word(0),
        call: word(4),
    };
    if got != id || msg.len() < HEAD {
        return Err(Error::InvalidArgument {
            call: "transfer plan",
            reason: format!(
                "process {} got data of plan {} call {} from process {from} while it ran plan {} call {}: the processes made or used their plans in different orders",
                t.process(),
                got.plan,
                got.call,
                id.plan,
                id.call
            ),
        });
    }
    Ok(Piece(msg))
}
