//! The host's answers to its ranks' commands: round trips, log messages,
//! timers, and the accesses and world steps it does for them.

use super::comm_memory::CommTables;
use super::config::{RunReport, TimerRecord};
use super::describe::format_log;
use super::state::RunState;
use crate::error::{Error, Result};
use crate::world::{Syncs, World};
use dcuda_device::abi::{Command, LogArg, Request};
use std::collections::HashMap;
use std::time::Instant;

/// What serving the commands keeps between them.
pub(super) struct Services {
    pub kernel: String,
    pub report: RunReport,
    timers: HashMap<u32, Instant>,
    partial: HashMap<u32, (Vec<u8>, Vec<LogArg>)>,
    replies: Vec<u32>,
    pub syncs: Syncs,
    tables: CommTables,
}

impl Services {
    pub fn new(kernel: &str, state: &RunState) -> Services {
        Services {
            kernel: kernel.into(),
            report: RunReport {
                ranks: state.ranks,
                memory_per_rank: state.memory_per_rank,
                ..RunReport::default()
            },
            timers: HashMap::new(),
            partial: HashMap::new(),
            replies: vec![0; state.ranks as usize],
            syncs: Syncs::default(),
            tables: CommTables::new(state.world_size),
        }
    }

    /// Answers device rank `rank`'s host call with `value`.
    pub fn reply(&mut self, state: &RunState, rank: u32, value: u32) {
        let seq = &mut self.replies[rank as usize];
        *seq = seq.wrapping_add(1);
        state.reply(rank, *seq, value);
    }

    fn bad(&self, rank: u32, reason: impl Into<String>) -> Error {
        Error::BadCommand {
            kernel: self.kernel.clone(),
            rank,
            reason: reason.into(),
        }
    }

    /// Serves one command.
    pub fn handle(&mut self, state: &RunState, world: Option<&World>, cmd: &Command) -> Result<()> {
        let rank = cmd.rank;
        if rank >= state.ranks {
            return Err(self.bad(rank, format!("the run has {} ranks", state.ranks)));
        }
        let request = cmd
            .decode()
            .map_err(|e| self.bad(rank, format!("op {}: {}", e.op, e.reason)))?;
        match request {
            Request::Ping => {
                self.report.host_calls += 1;
                let value = self.report.host_calls as u32;
                self.reply(state, rank, value);
            }
            Request::LogText(bytes, len) => {
                self.partial
                    .entry(rank)
                    .or_default()
                    .0
                    .extend_from_slice(&bytes[..len]);
            }
            Request::LogArg(arg) => self.partial.entry(rank).or_default().1.push(arg),
            Request::LogEnd => {
                let (format, args) = self.partial.remove(&rank).unwrap_or_default();
                let text = format_log(&String::from_utf8_lossy(&format), &args);
                let who = world.map_or(rank, |w| w.first() + rank);
                // The live rank log: its own target, with the rank as a
                // field to filter on.
                tracing::info!(target: "dcuda::rank", rank = who, "[rank {who}] {text}");
                self.report.logs.push((rank, text));
            }
            Request::CommTable { slot, len } => {
                let offset = self.tables.take(slot, len).unwrap_or(u32::MAX);
                self.reply(state, rank, offset);
            }
            Request::CommTableFree { slot, offset, len } => {
                if !self.tables.give_back(slot, offset, len) {
                    let what = format!("gave back entries {offset}..+{len} of communicator slot {slot}, which it was not given");
                    return Err(self.bad(rank, what));
                }
            }
            Request::TimerStart(id) => {
                self.timers.insert(id, Instant::now());
            }
            Request::TimerStop(id) => {
                if let Some(t0) = self.timers.remove(&id) {
                    self.report.timers.push(TimerRecord {
                        id,
                        elapsed: t0.elapsed(),
                    });
                }
            }
            remote => {
                let Some(w) = world else {
                    return Err(self.bad(rank, format!("{remote:?} in a run of one process")));
                };
                if matches!(
                    remote,
                    Request::Put { .. }
                        | Request::Get { .. }
                        | Request::PutLaid { .. }
                        | Request::GetLaid { .. }
                        | Request::Notify { .. }
                        | Request::Send { .. }
                        | Request::Fetch(_)
                ) {
                    self.report.host_transfers += 1;
                }
                match remote {
                    Request::Put {
                        transfer,
                        tag,
                        inline,
                    } => w.put(rank, &transfer, tag, inline)?,
                    Request::Get { transfer, tag } => w.get(rank, &transfer, tag)?,
                    Request::PutLaid { transfer, tag } => w.put_laid(rank, &transfer, tag)?,
                    Request::GetLaid { transfer, tag } => w.get_laid(rank, &transfer, tag)?,
                    Request::Notify { target, tag } => w.notify(rank, target, tag)?,
                    Request::Send { transfer, tag } => w.send_message(rank, &transfer, tag)?,
                    Request::Fetch(transfer) => w.fetch(rank, &transfer)?,
                    Request::Barrier => w.start_sync(&mut self.syncs, None)?,
                    Request::WindowExchange(id) => w.start_sync(&mut self.syncs, Some(id))?,
                    Request::CommSync { context, sync } => {
                        w.start_comm_sync(&mut self.syncs.comms, rank, context, sync)?
                    }
                    _ => unreachable!("local requests are served above"),
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use dcuda_device::abi::{Command, Op, Request, Transfer, TAGS};
    use proptest::prelude::*;

    fn command(op: u32, arg: u32, len: u32, payload: [u8; Command::PAYLOAD]) -> Command {
        Command {
            seq: 1,
            rank: 0,
            op,
            len,
            arg,
            _pad: [0; 3],
            payload,
        }
    }

    proptest! {
        /// Whatever the device wrote, decoding gives a request or an
        /// error; it never panics, and what it accepts is in range.
        #[test]
        fn decoding_arbitrary_commands_never_panics(op in 0u32..16, arg: u32, len: u32, payload in proptest::array::uniform32(any::<u8>())) {
            match command(op, arg, len, payload).decode() {
                Ok(Request::LogText(_, n)) => prop_assert!(n <= Command::PAYLOAD),
                Ok(Request::Put { tag: Some(t), .. } | Request::Get { tag: Some(t), .. }) => prop_assert!(t < TAGS),
                Ok(Request::Put { inline: true, transfer, .. }) => prop_assert!(transfer.bytes <= 8),
                Ok(Request::Notify { tag, .. }) => prop_assert!(tag < TAGS),
                _ => {}
            }
        }
    }

    #[test]
    fn malformed_commands_are_errors() {
        let t = Transfer {
            target: 1,
            window: 0,
            offset: 0,
            local: 0,
            bytes: 9,
        };
        let mut payload = [0u8; Command::PAYLOAD];
        payload.copy_from_slice(bytemuck::bytes_of(&t));
        let cases = [
            (command(99, 0, 0, [0; 32]), "unknown op"),
            (
                command(Op::Log as u32, 0, 33, [0; 32]),
                "log fragment longer than the payload",
            ),
            (
                command(Op::Put as u32, 700, 32, payload),
                "tag out of range",
            ),
            (
                command(Op::PutInline as u32, 1, 32, payload),
                "inline put of more than 8 bytes",
            ),
            (
                command(Op::LogArg as u32, 9, 8, [0; 32]),
                "unknown log argument kind",
            ),
            (
                command(Op::CommTable as u32, 1, 8, [0; 32]),
                "communicator table of a slot out of range",
            ),
            (
                command(Op::CommSync as u32, 2, 32, [9; 32]),
                "unknown communicator sync kind",
            ),
        ];
        for (cmd, reason) in cases {
            assert_eq!(cmd.decode().unwrap_err().reason, reason);
        }
    }
}
