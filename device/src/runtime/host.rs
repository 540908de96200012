//! Calls that need the host: a shared command ring in pinned host memory
//! (device to host) and a reply slot per rank (host to device).
//!
//! One ring for all ranks: a sender reserves a position with an atomic add
//! on a device-memory counter, waits for credit (positions the host has
//! consumed; cached in shared memory and re-read over the bus only when the
//! cache says the ring is full), writes the 64-byte entry and publishes its
//! sequence number last with a system-scoped release. The host reads one
//! entry after another, so it never scans per-rank queues.

use super::layout::{Call, Command, Op, RankContext, PAYLOAD};
use crate::arch::{self, Ordering, Scope};
use crate::rank::collective::single;
use crate::rank::{on_thread_zero, Rank};

crate::shared_array!(static DCUDA_RING_CREDIT: [u32; 1]);

/// Bytes of text in one log entry.
const FRAGMENT: usize = 32;
const _: () = assert!(FRAGMENT <= PAYLOAD && core::mem::size_of::<Command>() == 64);

/// Writes entry `pos` of the ring and publishes it.
#[inline(always)]
fn publish(ctx: &RankContext, pos: u32, rank: u32, op: Op, arg: u32, payload: &[u8]) {
    // SAFETY: position `pos` is reserved by us and the host has consumed its
    // previous use.
    unsafe {
        let e = ctx.ring.add((pos & (ctx.ring_len - 1)) as usize);
        let len = payload.len().min(FRAGMENT);
        let mut words = [0u32; FRAGMENT / 4];
        for (i, b) in payload[..len].iter().enumerate() {
            words[i / 4] |= (*b as u32) << (8 * (i % 4));
        }
        let dst = &raw mut (*e).payload as *mut u32;
        // Only the words in use cross the bus.
        for (i, w) in words.iter().enumerate().take(len.div_ceil(4)) {
            dst.add(i).write_volatile(*w);
        }
        (&raw mut (*e).rank).write_volatile(rank);
        (&raw mut (*e).op).write_volatile(op as u32);
        (&raw mut (*e).len).write_volatile(len as u32);
        (&raw mut (*e).arg).write_volatile(arg);
        arch::store_release(&raw mut (*e).seq, pos.wrapping_add(1), Scope::System);
    }
}

impl Rank {
    /// Sends one command to the host; waits only if the ring is full.
    pub(crate) fn host_send(&mut self, op: Op, arg: u32, payload: &[u8]) {
        let ctx = *self.ctx();
        let rank = self.id;
        let first = !core::mem::replace(&mut self.credit_ready, true);
        let pos = single(self, |_| {
            if first {
                DCUDA_RING_CREDIT.set(0, 0); // Nothing known consumed yet.
            }
            // SAFETY: the reservation counter lives for the whole run.
            unsafe { arch::fetch_add(ctx.ring_reserve, 1, Ordering::Relaxed, Scope::Gpu) }
        });
        let len = ctx.ring_len;
        if pos.wrapping_sub(DCUDA_RING_CREDIT.get(0)) >= len {
            self.wait_until(Call::HostCall, [op as u32, arg, pos], || {
                // SAFETY: written by the host, read over the bus.
                let consumed = unsafe { arch::load_acquire(ctx.ring_consumed, Scope::System) };
                DCUDA_RING_CREDIT.set(0, consumed);
                if pos.wrapping_sub(consumed) < len {
                    Ok(0)
                } else {
                    Err(pos.wrapping_sub(consumed))
                }
            });
        }
        on_thread_zero(|_| publish(&ctx, pos, rank, op, arg, payload));
    }

    /// A host round trip: asks the host for a reply and waits for it.
    /// Returns the number of round trips so far (the host's count).
    pub fn host_ping(&mut self) -> u32 {
        self.host_call(Op::Ping, 0)
    }

    /// Sends `op` to the host and waits for its reply; returns the value.
    pub(crate) fn host_call(&mut self, op: Op, arg: u32) -> u32 {
        self.host_send(op, arg, &[]);
        let expected = self.replies_seen.wrapping_add(1);
        self.replies_seen = expected;
        // SAFETY: this rank's reply slot.
        let reply = unsafe { self.ctx().replies.add(self.id as usize) };
        self.wait_until(Call::HostCall, [op as u32, expected, 0], || {
            // SAFETY: as above.
            let seq = unsafe { arch::load_acquire(&raw const (*reply).seq, Scope::System) };
            if seq == expected {
                // SAFETY: ordered after the acquire of `seq`.
                Ok(unsafe { (&raw const (*reply).value).read_volatile() })
            } else {
                Err(seq)
            }
        })
    }

    /// Sends a log message to the host, which formats and prints it while
    /// the kernel runs, prefixed with the rank. Use it through
    /// [`rank_log!`](crate::rank_log).
    ///
    /// The device sends the format string's bytes and the arguments' raw
    /// values; the host does the formatting. `core::fmt` on the device would
    /// make ptxas assume 255 registers per thread (its indirect calls hide
    /// the callees), which cuts the ranks that fit on a GPU by eight.
    pub fn log(&mut self, format: &'static str, args: &[LogArg]) {
        for chunk in format.as_bytes().chunks(FRAGMENT) {
            self.host_send(Op::Log, 0, chunk);
        }
        for arg in args {
            let (kind, bits) = arg.encode();
            self.host_send(Op::LogArg, kind, &bits.to_le_bytes());
        }
        self.host_send(Op::LogEnd, args.len() as u32, &[]);
    }
}

/// One argument of a log message: its raw value, formatted by the host.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LogArg {
    /// An unsigned integer.
    Unsigned(u64),
    /// A signed integer.
    Signed(i64),
    /// A floating-point number.
    Float(f64),
    /// A boolean.
    Bool(bool),
}

impl LogArg {
    /// `(kind, bits)` as sent in a log entry.
    pub fn encode(self) -> (u32, u64) {
        match self {
            LogArg::Unsigned(v) => (0, v),
            LogArg::Signed(v) => (1, v as u64),
            LogArg::Float(v) => (2, v.to_bits()),
            LogArg::Bool(v) => (3, v as u64),
        }
    }

    /// The argument of `(kind, bits)`.
    pub fn decode(kind: u32, bits: u64) -> Option<LogArg> {
        match kind {
            0 => Some(LogArg::Unsigned(bits)),
            1 => Some(LogArg::Signed(bits as i64)),
            2 => Some(LogArg::Float(f64::from_bits(bits))),
            3 => Some(LogArg::Bool(bits != 0)),
            _ => None,
        }
    }
}

macro_rules! log_arg {
    ($variant:ident as $wide:ty: $($t:ty),*) => {$(
        impl From<$t> for LogArg {
            fn from(v: $t) -> Self {
                LogArg::$variant(v as $wide)
            }
        }
    )*};
}
log_arg!(Unsigned as u64: u8, u16, u32, u64, usize);
log_arg!(Signed as i64: i8, i16, i32, i64, isize);
log_arg!(Float as f64: f32, f64);

impl From<bool> for LogArg {
    fn from(v: bool) -> Self {
        LogArg::Bool(v)
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl core::fmt::Display for LogArg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            LogArg::Unsigned(v) => write!(f, "{v}"),
            LogArg::Signed(v) => write!(f, "{v}"),
            LogArg::Float(v) => write!(f, "{v}"),
            LogArg::Bool(v) => write!(f, "{v}"),
        }
    }
}

/// Fills the `{...}` placeholders of `format` with `args`, in order (`{{`
/// and `}}` are braces); a count mismatch is shown in the text.
#[cfg(not(target_arch = "nvptx64"))]
pub fn format_log(format: &str, args: &[LogArg]) -> std::string::String {
    use std::string::String;
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
                match args.next() {
                    Some(a) => out.push_str(&std::format!("{a}")),
                    None => out.push_str("{missing argument}"),
                }
            }
            c => out.push(c),
        }
    }
    let extra = args.count();
    if extra > 0 {
        out.push_str(&std::format!(" [{extra} more argument(s)]"));
    }
    out
}

/// Logs a message from a rank kernel (uniform code): the host fills the
/// `{}` placeholders with the arguments (integers, floats, bools) and prints
/// it live as `[rank N] message`.
///
/// ```ignore
/// rank_log!(rank, "sum = {}", sum);
/// ```
#[macro_export]
macro_rules! rank_log {
    ($rank:expr, $format:literal $(, $arg:expr)* $(,)?) => {
        $rank.log($format, &[$($crate::runtime::LogArg::from($arg)),*])
    };
}

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests {
    use super::*;

    #[test]
    fn formats_placeholders_in_order() {
        let args = [
            LogArg::from(3u32),
            LogArg::from(-2i64),
            LogArg::from(1.5f64),
            LogArg::from(true),
        ];
        assert_eq!(
            format_log("a={} b={:?} c={} d={} {{x}}", &args),
            "a=3 b=-2 c=1.5 d=true {x}"
        );
    }

    #[test]
    fn shows_argument_count_mismatches() {
        assert_eq!(
            format_log("{} {}", &[LogArg::from(1u8)]),
            "1 {missing argument}"
        );
        assert_eq!(
            format_log("none", &[LogArg::from(1u8)]),
            "none [1 more argument(s)]"
        );
    }

    #[test]
    fn encoding_round_trips() {
        for a in [
            LogArg::from(u64::MAX),
            LogArg::from(i64::MIN),
            LogArg::from(-0.25f32),
            LogArg::from(false),
        ] {
            let (kind, bits) = a.encode();
            assert_eq!(LogArg::decode(kind, bits), Some(a));
        }
    }
}
