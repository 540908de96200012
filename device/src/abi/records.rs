//! Records the device writes and the host reads (or both write): window
//! entries, matching records, wait status and the first error, with the
//! codes that name calls and faults.

use super::codes::codes;
use bytemuck::{Pod, Zeroable};

/// One rank's entry of a window: its memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct WindowEntry {
    /// Base address.
    pub base: u64,
    /// Size in bytes.
    pub bytes: u64,
    /// Element size the window was created with.
    pub elem: u32,
    /// The window's number among the windows of its communicator, from 1:
    /// the same on every rank, so a handle of a freed window whose id was
    /// reused is told from the new window's.
    pub generation: u32,
    /// Context id of the window's communicator.
    pub comm: u32,
    /// [`Route`](super::Route) to this entry's memory: its base is an
    /// address on this device (local, direct) or the owner's (host).
    pub route: u8,
    /// 1 while the window is live.
    pub live: u8,
    /// 1 for a matched window: its notifications go to the matching log.
    pub matched: u16,
}

/// A notification on a matched window.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct MatchRecord {
    /// Sequence number + 1 of the record in its log; written last.
    pub seq: u32,
    /// Sending rank (in the window's communicator).
    pub source: u32,
    /// Window id.
    pub window: u32,
    /// Tag.
    pub tag: u32,
    /// 1 once consumed by a matching wait.
    pub consumed: u32,
    /// Reserved.
    pub _pad: [u32; 3],
}

/// A two-sided message in a rank's message log (written by a sender of its
/// device) or its inbox (written by its host, for senders of other
/// processes).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct MessageRecord {
    /// Sequence number + 1 of the record in its log; written last.
    pub seq: u32,
    /// Context id of the communicator it was sent on.
    pub context: u32,
    /// Sending rank, in that communicator.
    pub source: u32,
    /// Tag.
    pub tag: u32,
    /// Payload bytes.
    pub bytes: u64,
    /// Past [`EAGER`](super::EAGER) bytes: in the log the sender's buffer,
    /// in the inbox the host's number for the payload it holds.
    pub data: u64,
    /// Device rank of the sender (on this device), notified when the
    /// receiver has taken a message the sender waits on.
    pub sender: u32,
    /// Received: 1 in the inbox, the record's stamp (`seq`) in a message
    /// or peer log (written by the receiver).
    pub consumed: u32,
    /// Inbox only: the message's number among those that arrived for the
    /// rank, so that the inbox and the express slot keep arrival order.
    pub arrival: u32,
    /// Peer log only: the records the message takes (its payload past the
    /// header's inline bytes follows in the next ones).
    pub span: u32,
    /// The next envelope in a list of waiting senders (device address).
    pub next: u64,
    /// Message and peer logs: what a search tests, each word with the
    /// record's stamp (`seq`) in its upper half (context, source, tag,
    /// bytes, then a payload of up to 16 bytes in 4-byte pieces), so that
    /// a receiver loads them with the sequence word in one batch.
    pub stamped: [u64; 8],
    /// Up to [`EAGER`](super::EAGER) bytes of payload.
    pub inline: [u64; super::EAGER / 8],
}

/// What a rank waits to receive while its inbox is full, so that its host
/// delivers a matching message out of turn (host-mapped, written by the
/// rank). `u32::MAX` is a wildcard.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Want {
    /// Non-zero while the rank waits.
    pub active: u32,
    /// Communicator context id.
    pub context: u32,
    /// Source rank in it, or `u32::MAX`.
    pub source: u32,
    /// Tag, or `u32::MAX`.
    pub tag: u32,
}

const _: () = assert!(core::mem::size_of::<MessageRecord>() == 256);

/// What a waiting rank waits on; read by the host watchdog.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct WaitStatus {
    /// [`Call`] code + 1 while waiting, 0 when running, [`STATUS_FINISHED`]
    /// when finished.
    pub state: u32,
    /// First argument (tag, window, ...).
    pub a: u32,
    /// Second argument (count, ...).
    pub b: u32,
    /// What it has seen so far.
    pub seen: u32,
    /// Third argument (source, ...).
    pub c: u32,
    /// Reserved.
    pub _pad: [u32; 3],
}

/// Wait status: finished.
pub const STATUS_FINISHED: u32 = u32::MAX;

/// The first error of a run.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct ErrorRecord {
    /// 0: none; otherwise [`Call`] code + 1 (claimed by compare-and-swap).
    pub call: u32,
    /// Device rank that failed.
    pub rank: u32,
    /// Which check failed ([`Fault`]).
    pub fault: u32,
    /// Reserved.
    pub _pad: u32,
    /// The values involved.
    pub values: [u64; 4],
}

codes! {
    /// The device calls that can fail or wait.
    Call {
        WinCreate = 0 => "win_create",
        WinFree = 1 => "win_free",
        Put = 2 => "put",
        PutNotify = 3 => "put_notify",
        Get = 4 => "get",
        GetNotify = 5 => "get_notify",
        Notify = 6 => "notify",
        Flush = 7 => "flush",
        WaitNotifications = 8 => "wait_notifications",
        TestNotifications = 9 => "test_notifications",
        WaitMatch = 10 => "wait_match",
        TestMatch = 11 => "test_match",
        Barrier = 12 => "barrier",
        HostCall = 13 => "host call",
        Allreduce = 14 => "allreduce",
        Bcast = 15 => "bcast",
        AllreduceInto = 16 => "allreduce_into",
        CommSplit = 17 => "comm_split",
        CommDup = 18 => "comm_dup",
        CommFree = 19 => "comm_free",
        ReduceTo = 20 => "reduce_to",
        Allgather = 21 => "allgather_into",
        Gather = 22 => "gather_into",
        Scatter = 23 => "scatter_from",
        Alltoall = 24 => "alltoall_into",
        ReduceScatter = 25 => "reduce_scatter_into",
        Scan = 26 => "scan_over",
        Exscan = 27 => "exscan_over",
        Send = 28 => "send",
        Recv = 29 => "recv",
        Probe = 30 => "probe",
        Iprobe = 31 => "iprobe",
        CommSplitType = 32 => "comm_split_type",
        TraceEnd = 33 => "trace_end",
        Abort = 34 => "abort",
        PutTyped = 35 => "put_typed",
        PutNotifyTyped = 36 => "put_notify_typed",
        GetTyped = 37 => "get_typed",
        GetNotifyTyped = 38 => "get_notify_typed",
        AllreduceStart = 39 => "allreduce_start",
        AllreduceFinish = 40 => "allreduce_finish",
        PutTarget = 41 => "put_target",
        PutTo = 42 => "put_to",
        PutNotifyTo = 43 => "put_notify_to",
        FreePutTarget = 44 => "free_put_target",
        NotifyEach = 45 => "notify_each",
        PutTargetSlice = 46 => "put_target_slice",
    }
}

codes! {
    /// Why a call failed; the values of the record are described per fault
    /// by the host.
    Fault {
        RankOutOfRange = 0 => "target rank out of range",
        OutOfBounds = 1 => "access outside the target window",
        TagOutOfRange = 2 => "tag out of range",
        WindowNotLive = 3 => "window not live",
        WrongCommunicator = 4 => "window used outside its communicator",
        TooManyWindows = 5 => "too many windows",
        CountTooLarge = 6 => "count too large",
        WindowMisaligned = 7 => "window base not aligned for its element type",
        NotGlobal = 8 => "buffer not in global memory",
        MatchedAcrossProcesses = 9 => "matched window across processes",
        TagReserved = 10 => "tag reserved for the library",
        ElementMismatch = 11 => "window element types differ",
        StaleWindow = 12 => "window handle of a freed window",
        CollectiveAcrossProcesses = 13 => "collective across processes",
        LengthMismatch = 14 => "collective buffers of different lengths",
        TooManyComms = 15 => "too many communicators",
        CommNotLive = 16 => "communicator not live",
        TooManyProcesses = 17 => "collective across too many processes",
        ColorReserved = 18 => "color reserved",
        BufferLength = 19 => "collective buffer of the wrong length",
        MessageTruncated = 20 => "message longer than the receive buffer",
        MessagePartial = 21 => "message not a whole number of elements",
        TraceUnbalanced = 22 => "trace_end without an open phase",
        Aborted = 23 => "aborted by the rank kernel",
        TypeMismatch = 24 => "datatypes of different sizes",
        TypeExtent = 25 => "datatype past its buffer",
        TypeOverlap = 26 => "datatype writing an element twice",
        TypedThroughHost = 27 => "typed transfer through the host",
        TypeIndex = 28 => "indexed layout's firsts out of order",
        CollectivePending = 29 => "collective while an allreduce is pending",
        TooManyPutTargets = 30 => "too many put targets",
        StalePutTarget = 31 => "put target freed",
        PutTargetTooShort = 32 => "source longer than the put target",
    }
}
