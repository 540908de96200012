//! Transports: how the hosts of a multi-process job reach each other.
//!
//! A transport offers two kinds of service:
//!
//! * **staged two-sided messages** (`send`, `progress`, `try_recv`): tagged,
//!   non-blocking, in order per sender and channel. Every transport has
//!   them; setup, window exchange, barriers, abort and the host route's
//!   data are built on them in `crate::world`;
//! * **one-sided access to registered memory** (`register`, `put`,
//!   `put_with_signal`, `get`, `atomic_add`, `fence`, `quiet`): what
//!   RDMA-capable engines (InfiniBand verbs, NVSHMEM, MPI RMA) offer. A
//!   transport that has it says so in [`Capabilities`]; the others keep the
//!   defaults, which answer [`Error::Unsupported`].
//!
//! The MPI transport offers the first. Which transport a job uses is
//! configuration: `DCUDA_TRANSPORT`, or [`RuntimeBuilder::transport`]
//! (by name, or an instance of your own).
//!
//! [`RuntimeBuilder::transport`]: crate::RuntimeBuilder::transport

pub(crate) mod buffers;
pub(crate) mod departure;
mod gather;
mod job;
mod lent;
#[cfg(feature = "mpi")]
mod mpi;

pub(crate) use gather::{all_gather, INFO_CHANNEL, RUN_CHANNELS, SETUP_CHANNEL};
pub(crate) use job::noted;
pub use job::{job, Job, TransportChoice, TRANSPORTS};
pub use lent::{Lent, Received};

use crate::error::{Error, Result};

/// What a transport can do beyond staged messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// One-sided access to registered memory.
    pub one_sided: bool,
    /// Registered memory may be device memory (GPU-direct), not only host.
    pub device_memory: bool,
}

/// Memory registered with a transport: what a peer needs to reach it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registration {
    /// Start address (host or device, per [`Capabilities::device_memory`]).
    pub addr: u64,
    /// Length in bytes.
    pub bytes: usize,
    /// The transport's key for it, sent to peers.
    pub key: Vec<u8>,
}

/// A place in a peer's registered memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remote<'a> {
    /// The peer's key of the region.
    pub key: &'a [u8],
    /// Byte offset in it.
    pub offset: u64,
}

// ANCHOR: transport
/// A transport between the processes of one job. Every call may come from
/// several threads at once.
pub trait Transport: Send + Sync {
    /// The transport's name, for messages ("MPI").
    fn name(&self) -> &'static str;
    /// This process's index, `0..processes()`.
    fn process(&self) -> u32;
    /// Processes in the job.
    fn processes(&self) -> u32;
    /// Its name and the path device data take through it, for the job's
    /// report at start-up.
    fn describe(&self) -> String {
        self.name().to_string()
    }
    /// What it offers beyond staged messages.
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }

    /// Queues `data` for process `to` on `channel`; never blocks. Messages
    /// on one channel from one process arrive in the order they were sent.
    fn send(&self, to: u32, channel: u32, data: Vec<u8>) -> Result<()>;
    /// Advances queued sends; returns how many are still in flight.
    fn progress(&self) -> Result<usize>;
    /// A message that has arrived on `channel`, with its sender, if any.
    fn try_recv(&self, channel: u32) -> Result<Option<(u32, Vec<u8>)>>;
    /// [`send`](Self::send) from lent memory, which the transport holds
    /// until the send completes and then drops. The default copies it into
    /// a heap buffer.
    fn send_lent(&self, to: u32, channel: u32, data: Box<dyn Lent>) -> Result<()> {
        self.send(to, channel, data.bytes().to_vec())
    }
    /// [`try_recv`](Self::try_recv) into memory that `lend` gives for a
    /// message of the length it is asked (exactly that long), or into a
    /// heap buffer where it gives none. The default never asks.
    fn try_recv_lent(
        &self,
        channel: u32,
        lend: &mut dyn FnMut(usize) -> Option<Box<dyn Lent>>,
    ) -> Result<Option<(u32, Received)>> {
        let _ = lend;
        Ok(self
            .try_recv(channel)?
            .map(|(from, m)| (from, Received::Owned(m))))
    }
    /// Ends every process of the job (after printing `message`).
    fn abort(&self, message: &str) -> !;
    /// At exit: waits until every process has come here too, and returns
    /// `true`; returns `false` as soon as `failed()` says another process
    /// failed (then the caller aborts the job). Without an exit barrier of
    /// its own a transport returns `true` at once.
    fn exit_barrier(&self, failed: &dyn Fn() -> bool) -> bool {
        let _ = failed;
        true
    }

    /// Registers `bytes` at `addr` for one-sided access by peers.
    fn register(&self, _addr: u64, _bytes: usize) -> Result<Registration> {
        Err(self.unsupported("register"))
    }
    /// Ends a registration.
    fn deregister(&self, _region: &Registration) -> Result<()> {
        Err(self.unsupported("deregister"))
    }
    /// Writes `bytes` from local `addr` (registered) to `to`'s memory.
    fn put(&self, _to: u32, _addr: u64, _bytes: usize, _remote: Remote) -> Result<()> {
        Err(self.unsupported("put"))
    }
    /// [`put`](Self::put), then adds `value` to a word at `signal`, visible
    /// only after the data (NVSHMEM's put-with-signal).
    fn put_with_signal(
        &self,
        _to: u32,
        _addr: u64,
        _bytes: usize,
        _remote: Remote,
        _signal: Remote,
        _value: u64,
    ) -> Result<()> {
        Err(self.unsupported("put_with_signal"))
    }
    /// Reads `bytes` of `to`'s memory into local `addr` (registered).
    fn get(&self, _to: u32, _addr: u64, _bytes: usize, _remote: Remote) -> Result<()> {
        Err(self.unsupported("get"))
    }
    /// Adds `value` to a word of `to`'s memory.
    fn atomic_add(&self, _to: u32, _remote: Remote, _value: u64) -> Result<()> {
        Err(self.unsupported("atomic_add"))
    }
    /// Orders this process's earlier one-sided operations to `to` before
    /// its later ones.
    fn fence(&self, _to: u32) -> Result<()> {
        Err(self.unsupported("fence"))
    }
    /// Waits until every one-sided operation of this process is complete.
    fn quiet(&self) -> Result<()> {
        Err(self.unsupported("quiet"))
    }

    /// The error of an operation this transport does not offer.
    fn unsupported(&self, operation: &'static str) -> Error {
        Error::Unsupported {
            transport: self.name(),
            operation,
        }
    }
}
// ANCHOR_END: transport

#[cfg(test)]
mod tests {
    use super::*;

    /// A transport with staged messages only, as a new engine starts.
    struct Loopback;

    impl Transport for Loopback {
        fn name(&self) -> &'static str {
            "loopback"
        }
        fn process(&self) -> u32 {
            0
        }
        fn processes(&self) -> u32 {
            1
        }
        fn send(&self, _to: u32, _channel: u32, _data: Vec<u8>) -> Result<()> {
            Ok(())
        }
        fn progress(&self) -> Result<usize> {
            Ok(0)
        }
        fn try_recv(&self, _channel: u32) -> Result<Option<(u32, Vec<u8>)>> {
            Ok(None)
        }
        fn abort(&self, message: &str) -> ! {
            panic!("{message}")
        }
    }

    #[test]
    fn one_sided_operations_are_unsupported_unless_offered() {
        let t = Loopback;
        assert_eq!(t.capabilities(), Capabilities::default());
        let remote = || Remote {
            key: &[],
            offset: 0,
        };
        let errors = [
            t.register(0, 8).unwrap_err(),
            t.put(0, 0, 8, remote()).unwrap_err(),
            t.put_with_signal(0, 0, 8, remote(), remote(), 1)
                .unwrap_err(),
            t.get(0, 0, 8, remote()).unwrap_err(),
            t.atomic_add(0, remote(), 1).unwrap_err(),
            t.fence(0).unwrap_err(),
            t.quiet().unwrap_err(),
        ];
        for (e, op) in errors.iter().zip([
            "register",
            "put",
            "put_with_signal",
            "get",
            "atomic_add",
            "fence",
            "quiet",
        ]) {
            assert_eq!(
                e.to_string(),
                format!("dcuda: the loopback transport does not support {op}")
            );
        }
    }

    /// A transport of staged messages only that keeps what it is sent.
    #[derive(Default)]
    struct Mailbox(std::sync::Mutex<Vec<(u32, Vec<u8>)>>);

    impl Transport for Mailbox {
        fn name(&self) -> &'static str {
            "mailbox"
        }
        fn process(&self) -> u32 {
            0
        }
        fn processes(&self) -> u32 {
            1
        }
        fn send(&self, _to: u32, channel: u32, data: Vec<u8>) -> Result<()> {
            self.0.lock().unwrap().push((channel, data));
            Ok(())
        }
        fn progress(&self) -> Result<usize> {
            Ok(0)
        }
        fn try_recv(&self, channel: u32) -> Result<Option<(u32, Vec<u8>)>> {
            let mut m = self.0.lock().unwrap();
            Ok(m.iter()
                .position(|(c, _)| *c == channel)
                .map(|i| (0, m.remove(i).1)))
        }
        fn abort(&self, message: &str) -> ! {
            panic!("{message}")
        }
    }

    /// Lent bytes that count how many are out.
    struct Counted(Vec<u8>, std::sync::Arc<std::sync::atomic::AtomicUsize>);

    impl Lent for Counted {
        fn bytes(&self) -> &[u8] {
            &self.0
        }
        fn bytes_mut(&mut self) -> &mut [u8] {
            &mut self.0
        }
    }

    impl Drop for Counted {
        fn drop(&mut self) {
            self.1.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    #[test]
    fn without_lending_of_its_own_a_transport_copies_lent_bytes() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let t = Mailbox::default();
        let out = std::sync::Arc::new(AtomicUsize::new(1));
        t.send_lent(0, 3, Box::new(Counted(vec![1, 2, 3], out.clone())))
            .unwrap();
        // Copied and given back at once.
        assert_eq!(out.load(Ordering::Relaxed), 0);
        let mut asked = Vec::new();
        let got = t
            .try_recv_lent(3, &mut |len| {
                asked.push(len);
                None
            })
            .unwrap()
            .unwrap();
        assert!(asked.is_empty(), "the default lends nothing");
        assert!(matches!(got.1, Received::Owned(_)));
        assert_eq!(
            (got.0, &got.1[..], got.1.mapped()),
            (0, &[1u8, 2, 3][..], None)
        );
        assert!(t.try_recv_lent(3, &mut |_| None).unwrap().is_none());
    }

    #[test]
    fn a_transport_of_ones_own_is_used() {
        // The only test of this binary that sets up the job. A job of one
        // process is none: the runtime runs alone.
        let choice = TransportChoice::Instance(std::sync::Arc::new(Loopback));
        assert!(job(Some(choice)).unwrap().is_none());
    }
}
