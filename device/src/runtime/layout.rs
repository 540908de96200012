//! Data shared between the device library and the host runtime: one
//! definition, compiled into both, so the layouts cannot drift apart.

/// Notification tags are `0..TAGS`.
pub const TAGS: usize = 256;
/// Windows live at once per rank.
pub const MAX_WINDOWS: usize = 32;
/// Records in each rank's matching log (notifications on matched windows).
pub const MATCH_LOG: usize = 128;
/// Bytes of payload in a command entry.
pub const PAYLOAD: usize = 48;

/// Everything a rank kernel needs to find the runtime's memory. Built by the
/// host for each run and passed to every rank.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RankContext {
    /// Ranks on this device.
    pub ranks: u32,
    /// World rank of this device's rank 0.
    pub world_first: u32,
    /// Ranks in the world.
    pub world_size: u32,
    /// Initial value of every notification counter (tests start near the wrap).
    pub notification_start: u32,
    /// `[ranks][TAGS]` counters bumped by ranks of this device (gpu-scope atomics).
    pub local_notifications: *mut u32,
    /// `[ranks][TAGS]` counters written by the host for remote senders.
    pub remote_notifications: *mut u32,
    /// `[MAX_WINDOWS][ranks]` window table.
    pub windows: *mut WindowEntry,
    /// Device-wide barrier: `[count, generation]`.
    pub barrier: *mut u32,
    /// Non-zero once the run is aborted (an error or the watchdog).
    pub abort: *mut u32,
    /// The first error a rank reported.
    pub error: *mut ErrorRecord,
    /// `[ranks]` what each rank waits on (host-mapped; read by the watchdog).
    pub status: *mut WaitStatus,
    /// Device-to-host command ring (host-mapped), `ring_len` entries.
    pub ring: *mut Command,
    /// Entries in the ring (a power of two).
    pub ring_len: u32,
    /// Reserved.
    pub _pad: u32,
    /// Next ring slot to reserve (device memory).
    pub ring_reserve: *mut u32,
    /// Ring entries the host has consumed (host-mapped, written by the host).
    pub ring_consumed: *const u32,
    /// `[ranks]` host replies (host-mapped).
    pub replies: *mut Reply,
    /// `[ranks][MATCH_LOG]` notification records of matched windows.
    pub match_log: *mut MatchRecord,
    /// `[ranks]` records reserved in each rank's matching log.
    pub match_reserve: *mut u32,
    /// `[ranks]` records each rank has retired from its matching log.
    pub match_retired: *mut u32,
    /// A rank publishes its wait status after waiting this long (ns).
    pub status_after_ns: u64,
    /// Processes in the job (one device each).
    pub processes: u32,
    /// Reserved.
    pub _pad2: u32,
    /// `[processes]` where each process's ranks are and how to reach them.
    pub peers: *const Peer,
    /// `[ranks]` operations through the host that the host has completed
    /// for each rank (host-mapped, written by the host).
    pub host_done: *const u32,
    /// Non-zero once the host has delivered a notification from another
    /// process (device memory, written once by the host): until then the
    /// ranks need not read their remote counters over the bus.
    pub remote_active: *const u32,
}

/// How the ranks of one process are reached.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// On this device: the block copies and signals itself.
    Local = 0,
    /// Another GPU whose memory is mapped here (CUDA IPC, over NVLink or
    /// PCIe): the block copies and signals itself, at system scope.
    Direct = 1,
    /// Through this process's host and its network manager.
    Host = 2,
}

impl Route {
    /// The route of a raw value (unknown values go through the host).
    #[inline(always)]
    pub fn from_u32(v: u32) -> Route {
        match v {
            0 => Route::Local,
            1 => Route::Direct,
            _ => Route::Host,
        }
    }
}

/// One process of the job as seen from this one.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Peer {
    /// World rank of its rank 0.
    pub first: u32,
    /// Its ranks.
    pub ranks: u32,
    /// [`Route`] from this process to it.
    pub route: u32,
    /// Reserved.
    pub _pad: u32,
    /// Its `[ranks][TAGS]` notification counters, mapped here (direct
    /// route; null otherwise).
    pub notifications: *mut u32,
}

/// What a rank asks its host to move for it (the payload of a
/// [`Op::Put`], [`Op::PutInline`], [`Op::Get`] or [`Op::Notify`] command).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transfer {
    /// Target world rank.
    pub target: u32,
    /// Window id (`u32::MAX` for a notify without a window).
    pub window: u32,
    /// Byte offset in the target's window.
    pub offset: u64,
    /// The local buffer's device address (source of a put, destination of a get).
    pub local: u64,
    /// Bytes to move.
    pub bytes: u64,
}

/// [`Transfer::window`] of a notification without a window.
pub const NO_WINDOW: u32 = u32::MAX;
/// The command argument of a transfer without a notification.
pub const NO_TAG: u32 = u32::MAX;

/// One rank's entry of a window: its memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct WindowEntry {
    /// Base address.
    pub base: u64,
    /// Size in bytes.
    pub bytes: u64,
    /// Element size the window was created with.
    pub elem: u32,
    /// 1 while the window is live.
    pub live: u32,
    /// Communicator (see [`CommKind`](super::CommKind)).
    pub comm: u16,
    /// [`Route`] to this entry's memory: its base is an address on this
    /// device (local, direct) or the owner's (through the host).
    pub route: u16,
    /// 1 for a matched window: its notifications go to the matching log.
    pub matched: u32,
}

/// A notification on a matched window.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
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

/// What the host is asked to do.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Reply at once (host round trip).
    Ping = 1,
    /// A fragment of a log message's format string: `len` bytes.
    Log = 2,
    /// Start host timer `arg`.
    TimerStart = 3,
    /// Stop host timer `arg`.
    TimerStop = 4,
    /// A log argument: kind `arg`, 8 bytes of value.
    LogArg = 5,
    /// The end of a log message with `arg` arguments.
    LogEnd = 6,
    /// Put a [`Transfer`] to a rank of another process; `arg` is the tag to
    /// notify with, or [`NO_TAG`].
    Put = 7,
    /// Get a [`Transfer`] from a rank of another process; `arg` as for `Put`.
    Get = 8,
    /// Notify a rank of another process: `arg` is the tag; the payload is a
    /// [`Transfer`] of no bytes.
    Notify = 9,
    /// World barrier across processes (sent by device rank 0; replied to).
    Barrier = 10,
    /// Exchange the entries of window `arg` with the other processes
    /// (sent by device rank 0; replied to).
    WindowExchange = 11,
    /// As `Put`, for at most [`INLINE`] bytes carried in the command:
    /// [`Transfer::local`] holds the data, so the host reads no device memory.
    PutInline = 12,
}

/// Puts of at most this many bytes through the host carry their data in
/// the command.
pub const INLINE: usize = 8;

impl Op {
    /// The op of a raw value.
    pub fn from_u32(v: u32) -> Option<Op> {
        match v {
            1 => Some(Op::Ping),
            2 => Some(Op::Log),
            3 => Some(Op::TimerStart),
            4 => Some(Op::TimerStop),
            5 => Some(Op::LogArg),
            6 => Some(Op::LogEnd),
            7 => Some(Op::Put),
            8 => Some(Op::Get),
            9 => Some(Op::Notify),
            10 => Some(Op::Barrier),
            11 => Some(Op::WindowExchange),
            12 => Some(Op::PutInline),
            _ => None,
        }
    }
}

/// One 64-byte entry of the command ring. The producer writes the payload,
/// then `seq` with a system-scoped release.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub struct Command {
    /// Ring position + 1; valid when it equals the consumer's position + 1.
    pub seq: u32,
    /// Sending rank (device rank).
    pub rank: u32,
    /// [`Op`].
    pub op: u32,
    /// Payload bytes used.
    pub len: u32,
    /// Op argument.
    pub arg: u32,
    /// Reserved.
    pub _pad: [u32; 3],
    /// Payload.
    pub payload: [u8; 32],
}

/// A host reply to one rank.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default)]
pub struct Reply {
    /// Number of replies so far; the rank waits for it to advance.
    pub seq: u32,
    /// Reply value.
    pub value: u32,
    /// Reserved.
    pub _pad: [u32; 2],
}

/// What a waiting rank waits on; read by the host watchdog.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Default)]
pub struct WaitStatus {
    /// [`Call`] code + 1 while waiting, 0 when running, `u32::MAX` when finished.
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
#[derive(Clone, Copy, Debug, Default)]
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

macro_rules! codes {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $v:expr => $text:expr,)* }) => {
        $(#[$m])*
        #[repr(u32)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $(#[doc = $text] $variant = $v,)* }
        impl $name {
            /// The code of a raw value.
            pub fn from_u32(v: u32) -> Option<Self> {
                match v { $($v => Some(Self::$variant),)* _ => None }
            }
            /// Its name in messages.
            pub fn name(self) -> &'static str {
                match self { $(Self::$variant => $text,)* }
            }
        }
    };
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
    }
}

codes! {
    /// Why a call failed; the values of the record are described per fault.
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
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl ErrorRecord {
    /// The record as a sentence naming the rank, the call and the values.
    pub fn describe(&self) -> std::string::String {
        use std::format;
        let call = Call::from_u32(self.call.wrapping_sub(1))
            .map(Call::name)
            .unwrap_or("unknown call");
        let [a, b, c, d] = self.values;
        let detail = match Fault::from_u32(self.fault) {
            Some(Fault::RankOutOfRange) => format!("target rank {a} is out of range: the communicator has {b} ranks"),
            Some(Fault::OutOfBounds) => format!(
                "elements {a}..{} are outside the target window of rank {c}, which has {b} elements",
                a + d
            ),
            Some(Fault::TagOutOfRange) => format!("tag {a} is out of range: tags are 0..{}", TAGS),
            Some(Fault::WindowNotLive) => format!("window {a} is not live (never created, or freed)"),
            Some(Fault::WrongCommunicator) => format!(
                "window {a} belongs to the {} communicator, not the {}",
                super::CommKind::name_of(b as u32),
                super::CommKind::name_of(c as u32)
            ),
            Some(Fault::TooManyWindows) => format!("more than {MAX_WINDOWS} windows are live"),
            Some(Fault::CountTooLarge) => format!("count {a} exceeds the maximum {b}"),
            Some(Fault::WindowMisaligned) => format!("window base {a:#x} ({b} bytes) is not aligned to its element type's {c} bytes"),
            Some(Fault::NotGlobal) => format!("buffer {a:#x} of an access to rank {b} is not in global memory: the host moves data to and from other processes, and it can only reach global memory (not shared or local memory)"),
            Some(Fault::MatchedAcrossProcesses) => "matched windows (win_create_matched) are limited to the ranks of one process: use the device communicator, or counted notifications on the world".into(),
            None => format!("fault {} with values {:?}", self.fault, self.values),
        };
        format!("rank {}: {call}: {detail}", self.rank)
    }
}
