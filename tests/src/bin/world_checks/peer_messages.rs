//! Messages between processes: which of them the hosts carry.

use super::{Check, Run};
use dcuda_tests::messages::check_peer_messages;

impl Run<'_> {
    /// Messages between processes: over the direct route (`DCUDA_EMULATOR_IPC`
    /// on the emulator, the GPUs of a node) the host carries none of those
    /// that fit a peer log, and a longer one, through the hosts, keeps its
    /// place among them.
    pub(super) fn peer_messages(&self) -> Check {
        let direct = std::env::var("WORLD_CHECKS_DIRECT").is_ok_and(|v| v == "1");
        let calls = check_peer_messages(self.rt, self.module, self.layout(), (0, 4))?;
        if direct && calls != 0 {
            return Err(format!(
                "the host carried {calls} transfers of messages that fit the peer logs"
            ));
        }
        // Through the hosts (the emulator without IPC has no other route),
        // each message to another process is one.
        let ipc = std::env::var("DCUDA_EMULATOR_IPC").is_ok_and(|v| v == "1");
        let host_route = self.rt.backend() == dcuda::Backend::Emulator && !ipc;
        if host_route && self.world > self.ranks && calls == 0 {
            return Err("the host carried no messages to other processes".into());
        }
        check_peer_messages(self.rt, self.module, self.layout(), (3_000, 3))?;
        Ok(())
    }
}
