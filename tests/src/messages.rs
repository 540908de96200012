//! The message checks of `kernels-ptx/ranks/src/messages.rs`, shared by
//! the one-device test (`tests/messages.rs`) and `world_checks` (every
//! process checks its own ranks).

use crate::comms::Layout;
use dcuda::{Module, RunConfig, Runtime};
use dcuda_rank_kernels::messages::{
    ring_len, MessageArgs, MESSAGE_CHECKS, MESSAGE_RESULTS, OUT_OF_TURN, PEER_LENS,
    PEER_MESSAGE_CHECKS,
};

/// Runs `message_checks` with long messages of `len` elements and `rounds`
/// flood messages per rank, and checks every local rank's results.
pub fn check_messages(
    rt: &Runtime,
    module: &Module,
    (ranks, first, world): Layout,
    (len, rounds): (u32, u32),
) -> Result<(), String> {
    let n = ranks as usize;
    let alloc = |k: usize| rt.alloc::<u64>(k).map_err(|e| e.to_string());
    let (send, recv, out) = (
        alloc(n * len as usize)?,
        alloc(n * len as usize)?,
        alloc(n * MESSAGE_RESULTS)?,
    );
    let args = MessageArgs {
        len,
        rounds,
        send: send.slice(),
        recv: recv.slice(),
        out: out.slice(),
    };
    let config = RunConfig::new(64).ranks(ranks);
    // SAFETY: `len` elements per rank in both buffers, MESSAGE_RESULTS out.
    unsafe { module.run(&MESSAGE_CHECKS, &config, &args) }.map_err(|e| e.to_string())?;
    let out = out.download().map_err(|e| e.to_string())?;
    for id in 0..ranks {
        let w = first + id;
        let got = &out[id as usize * MESSAGE_RESULTS..(id as usize + 1) * MESSAGE_RESULTS];
        let from = (w + world - 1) % world;
        let flood = if w == 0 { (world - 1) * rounds } else { 0 };
        let paired = (w ^ 1 < world) as u64;
        // On rank 0's process (first 0): every rank of the others but the last.
        let remote = world - ranks - (world > ranks) as u32;
        let out_of_turn = if w == 0 { remote * OUT_OF_TURN } else { 0 };
        let want = [
            0,
            flood as u64,
            from as u64,
            ring_len(from) as u64 * 8,
            paired,
            0,
            out_of_turn as u64,
        ];
        if got != want {
            return Err(format!("messages (long {len}, {rounds} rounds), world rank {w}: got {got:?}, want {want:?} (errors, flood received, ring source, ring bytes, paired, dup mismatches, received out of turn)"));
        }
    }
    Ok(())
}

/// Runs `peer_message_checks` for `rounds` rounds, with a message of `len`
/// elements past the peer logs' longest in each if `len` is longer than
/// that; checks every local rank's results and returns how many transfers
/// the host carried.
pub fn check_peer_messages(
    rt: &Runtime,
    module: &Module,
    (ranks, first, world): Layout,
    (len, rounds): (u32, u32),
) -> Result<u64, String> {
    let n = ranks as usize;
    let words = len.max(PEER_LENS[3]) as usize;
    let alloc = |k: usize| rt.alloc::<u64>(k).map_err(|e| e.to_string());
    let (send, recv, out) = (
        alloc(n * words)?,
        alloc(n * words)?,
        alloc(n * MESSAGE_RESULTS)?,
    );
    let args = MessageArgs {
        len: words as u32,
        rounds,
        send: send.slice(),
        recv: recv.slice(),
        out: out.slice(),
    };
    let config = RunConfig::new(64).ranks(ranks);
    // SAFETY: `words` elements per rank in both buffers, MESSAGE_RESULTS out.
    let report =
        unsafe { module.run(&PEER_MESSAGE_CHECKS, &config, &args) }.map_err(|e| e.to_string())?;
    let out = out.download().map_err(|e| e.to_string())?;
    let per_round = PEER_LENS.len() as u64 + if len > PEER_LENS[3] { 2 } else { 0 };
    for id in 0..ranks as usize {
        let got = &out[id * MESSAGE_RESULTS..id * MESSAGE_RESULTS + 2];
        let paired = first + (id as u32) < world / 2 * 2;
        let want = [0, paired as u64 * per_round * rounds as u64];
        if got != want {
            let w = first + id as u32;
            return Err(format!("peer messages (len {len}, {rounds} rounds), world rank {w}: got {got:?}, want {want:?} (errors, received)"));
        }
    }
    Ok(report.host_transfers)
}
